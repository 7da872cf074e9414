//! NAND flash array: geometry, physical addresses, cell timings, dies and channels.
//!
//! Models: dies that sense, program and erase independently; one shared bus per
//! channel whose rate and width set how long data-in (program) and data-out (read)
//! occupy it, while sensing and programming occupy only the die; command/address
//! cycles on the bus before each operation; tR and tPROG by page type; one-shot
//! programming of a wordline's pages (`pages_per_program`); program/erase suspend
//! state (the policy lives in the controller).
//! Simplifies: the planes of a die are used together as one "block group" (block b
//! of every plane is erased together and programmed in multi-plane stripes), as
//! most FTLs do; cache program (`nand.cache_program`: the next program's data-in
//! overlaps the current tPROG; the controller drives it, `ssd/flash.rs`) is modelled,
//! cache read is not; the channel
//! is granted to data transfers in request order (FIFO reservations), while short
//! command/address cycles are slipped in between the bursts of a transfer in progress.

use crate::config::DeviceConfig;
use crate::sim::{fs_per_byte, xfer_ns, Ns};

/// A physical mapping-unit number (flat index of one mapping unit of flash).
pub type Pun = u32;

/// Exact division of 32-bit numbers by a fixed divisor with one multiplication
/// (Lemire, Kaser & Kurz, "Faster remainder by direct computation", 2019):
/// n / d = (M * n) >> 64 with M = floor(2^64 / d) + 1, exact for every 32-bit n.
#[derive(Clone, Copy, Debug)]
pub struct FastDiv {
    m: u64,
    d: u32,
}

impl FastDiv {
    pub fn new(d: u32) -> Self {
        assert!(d > 0);
        FastDiv {
            m: (u64::MAX / d as u64).wrapping_add(1),
            d,
        }
    }
    #[inline]
    pub fn quot(self, n: u32) -> u32 {
        if self.d == 1 {
            return n;
        }
        ((self.m as u128 * n as u128) >> 64) as u32
    }
    #[inline]
    pub fn modulo(self, n: u32) -> u32 {
        if self.d == 1 {
            return 0;
        }
        let low = self.m.wrapping_mul(n as u64);
        ((low as u128 * self.d as u128) >> 64) as u32
    }
}

#[derive(Clone, Debug)]
pub struct Geometry {
    pub channels: u32,
    pub dies: u32,
    pub planes: u32,
    /// Block numbers per die (= blocks per plane; with a free-space SLC area more:
    /// its SLC-mode blocks beyond the static part borrow free native blocks).
    pub blocks_per_die: u32,
    /// Block groups per die in native mode; the rest (the last ones) are SLC mode.
    pub native_blocks_per_die: u32,
    /// Pages per block used in SLC mode (one per wordline).
    pub slc_pages_per_block: u32,
    pub pages_per_block: u32,
    pub page_bytes: u64,
    pub unit_bytes: u64,
    /// Mapping units per page.
    pub units_per_page: u32,
    /// Mapping units in one multi-plane stripe (one page of every plane).
    pub units_per_stripe: u32,
    /// Pages (stripes) one program operation writes (1, or bits per cell for one-shot).
    pub pages_per_program: u32,
    /// Mapping units one program operation writes.
    pub units_per_program: u32,
    /// Spare bytes per page moved on the channel with the data.
    pub page_spare_bytes: u64,
    /// Mapping units in one block group.
    pub units_per_block: u32,
    pub bits_per_cell: u32,
    div_upb: FastDiv,
    div_ups: FastDiv,
    div_upp: FastDiv,
    div_bpd: FastDiv,
    div_ch: FastDiv,
    div_bits: FastDiv,
}

impl Geometry {
    pub fn new(d: &DeviceConfig) -> Self {
        let n = &d.nand;
        let upp = (n.page_size.bytes() / d.ftl.mapping_unit.bytes()) as u32;
        let ups = upp * n.planes_per_die;
        Geometry {
            channels: n.channels,
            dies: n.channels * n.dies_per_channel,
            planes: n.planes_per_die,
            blocks_per_die: d.block_ids_per_die(),
            native_blocks_per_die: d.native_blocks_per_die(),
            slc_pages_per_block: n.pages_per_block / n.cell.bits() as u32,
            pages_per_block: n.pages_per_block,
            page_bytes: n.page_size.bytes(),
            unit_bytes: d.ftl.mapping_unit.bytes(),
            units_per_page: upp,
            units_per_stripe: ups,
            pages_per_program: n.pages_per_program.max(1),
            units_per_program: ups * n.pages_per_program.max(1),
            page_spare_bytes: n.page_spare.bytes(),
            units_per_block: ups * n.pages_per_block,
            bits_per_cell: n.cell.bits() as u32,
            div_upb: FastDiv::new(ups * n.pages_per_block),
            div_ups: FastDiv::new(ups),
            div_upp: FastDiv::new(upp),
            div_bpd: FastDiv::new(d.block_ids_per_die()),
            div_ch: FastDiv::new(n.channels),
            div_bits: FastDiv::new(n.cell.bits() as u32),
        }
    }

    pub fn total_blocks(&self) -> u32 {
        self.dies * self.blocks_per_die
    }

    pub fn total_units(&self) -> u64 {
        self.total_blocks() as u64 * self.units_per_block as u64
    }

    /// Channel of a die: dies are numbered channel-first (die d sits on channel d mod channels),
    /// so consecutive dies are on different channels.
    #[inline]
    pub fn channel_of(&self, die: u32) -> u32 {
        self.div_ch.modulo(die)
    }

    /// Global block index (die-major).
    #[inline]
    pub fn block_id(&self, die: u32, block: u32) -> u32 {
        die * self.blocks_per_die + block
    }

    /// Is the block (global id) operated in SLC mode?
    /// Blocks per die operated in SLC mode (the last ones of each die).
    #[inline]
    pub fn slc_blocks_per_die(&self) -> u32 {
        self.blocks_per_die - self.native_blocks_per_die
    }

    #[inline]
    pub fn is_slc_block(&self, block_id: u32) -> bool {
        self.div_bpd.modulo(block_id) >= self.native_blocks_per_die
    }

    /// Pages one program writes in this block: 1 in SLC mode, else `pages_per_program`.
    #[inline]
    pub fn program_pages(&self, block_id: u32) -> u32 {
        if self.is_slc_block(block_id) {
            1
        } else {
            self.pages_per_program
        }
    }

    /// First unit of a block.
    #[inline]
    pub fn block_base(&self, block_id: u32) -> Pun {
        block_id * self.units_per_block
    }

    #[inline]
    pub fn block_of(&self, pun: Pun) -> u32 {
        self.div_upb.quot(pun)
    }

    #[inline]
    pub fn die_of(&self, pun: Pun) -> u32 {
        self.div_bpd.quot(self.div_upb.quot(pun))
    }

    /// Page index within the block.
    #[inline]
    pub fn page_of(&self, pun: Pun) -> u32 {
        self.div_ups.quot(self.div_upb.modulo(pun))
    }

    #[inline]
    pub fn plane_of(&self, pun: Pun) -> u32 {
        self.div_upp.quot(self.div_ups.modulo(pun))
    }

    /// Page type (0 = lower page, ... ) of a page index, as in the usual
    /// one-wordline-per-`bits` page numbering.
    #[inline]
    pub fn page_type(&self, page: u32) -> usize {
        self.div_bits.modulo(page) as usize
    }

    /// Same physical page (die, block, page, plane)?
    #[inline]
    pub fn same_page(&self, a: Pun, b: Pun) -> bool {
        self.div_upp.quot(a) == self.div_upp.quot(b)
    }
}

/// Timings of the array and the bus.
#[derive(Clone, Debug)]
pub struct Timing {
    pub t_read: [Ns; 4],
    pub t_prog: [Ns; 4],
    pub t_erase: Ns,
    pub t_cmd: Ns,
    /// tR and tPROG of SLC-mode blocks.
    pub t_read_slc: Ns,
    pub t_prog_slc: Ns,
    /// Channel cost per byte, femtoseconds.
    pub ch_fs_per_byte: u64,
}

impl Timing {
    pub fn new(d: &DeviceConfig) -> Self {
        let n = &d.nand;
        let mut t_read = [0; 4];
        let mut t_prog = [0; 4];
        for i in 0..4 {
            t_read[i] = n.t_read.get(i);
            t_prog[i] = n.t_prog.get(i);
        }
        Timing {
            t_read,
            t_prog,
            t_erase: n.t_erase.ns(),
            t_cmd: n.t_cmd.ns(),
            t_read_slc: d.slc.t_read.ns(),
            t_prog_slc: d.slc.t_prog.ns(),
            ch_fs_per_byte: fs_per_byte(d.channel_bytes_per_s()),
        }
    }

    #[inline]
    pub fn bus_ns(&self, bytes: u64) -> Ns {
        xfer_ns(bytes, self.ch_fs_per_byte)
    }
}

/// A channel bus, granted in request order.
#[derive(Clone, Debug, Default)]
pub struct Channel {
    pub free_at: Ns,
    pub busy_ns: u64,
    pub bytes: u64,
    /// End of the latest program data-in reserved on the bus (reads whose data-out
    /// is queued before it waited for a data-in).
    pub data_in_until: Ns,
}

impl Channel {
    /// Occupy the bus for `dur` starting no earlier than `now`; returns the end time.
    #[inline]
    pub fn reserve(&mut self, now: Ns, dur: Ns) -> Ns {
        let start = self.free_at.max(now);
        self.free_at = start + dur;
        self.busy_ns += dur;
        self.free_at
    }

    /// Busy time within [0, `t`], `t` at or after the latest reservation's request:
    /// what is booked past `t` is not spent yet. Every reservation is requested at the
    /// current time and starts at it or at the end of the one before, so the bus is
    /// busy without a gap from `t` to `free_at`.
    #[inline]
    pub fn busy_by(&self, t: Ns) -> u64 {
        self.busy_ns.saturating_sub(self.free_at.saturating_sub(t))
    }

    /// Command/address cycles for a die: the controller slips them in between the
    /// bursts of a transfer in progress (switching chip enables), so they start at
    /// once and push the bus's later work back by their length. Returns their end.
    #[inline]
    pub fn interleave_cmd(&mut self, now: Ns, dur: Ns) -> Ns {
        self.free_at = self.free_at.max(now) + dur;
        self.busy_ns += dur;
        now + dur
    }
}

/// What a die is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DieStage {
    Idle,
    /// Sensing (tR) of a read; the data-out transfer follows.
    Sense,
    /// Data-out of a read over the channel.
    DataOut,
    /// Waiting for a program's data to reach the controller (write buffer in the HMB).
    Fetch,
    /// Data-in of a program over the channel (a program cannot be suspended here).
    DataIn,
    /// tPROG: the array programs (suspendable).
    Program,
    /// tBERS (suspendable).
    Erase,
    /// Stopping a program or erase so that reads can go first.
    Suspending,
    /// Idle on purpose: a program is held for an expected host read (adaptive delay).
    Hold,
}

/// A program or erase stopped part-way, to be resumed.
#[derive(Clone, Copy, Debug)]
pub struct Suspended {
    pub stage: DieStage,
    /// Array time the operation still needs.
    pub remaining_ns: Ns,
    pub op_txns: [u32; 16],
    pub op_len: u8,
    pub op_gc: bool,
    /// When it was suspended.
    pub at_ns: Ns,
}

impl Die {
    /// Index into `phase_ns` of a stage that works the array (None: the bus or nothing).
    #[inline]
    pub fn phase(stage: DieStage) -> Option<usize> {
        match stage {
            DieStage::Sense => Some(0),
            DieStage::Program | DieStage::Suspending => Some(1),
            DieStage::Erase => Some(2),
            _ => None,
        }
    }

    /// Leave the current stage at `now`: its time counts as busy (and as its phase)
    /// unless the die was idle or holding.
    #[inline]
    pub fn end_stage(&mut self, now: Ns) {
        if !matches!(self.stage, DieStage::Idle | DieStage::Hold) {
            let dt = now - self.op_start;
            self.busy_ns += dt;
            if self.op_gc {
                self.gc_busy_ns += dt;
            }
            if let Some(p) = Die::phase(self.stage) {
                self.phase_ns[p] += dt;
            }
        }
    }

    /// Array time by phase within [0, `t`], the stage in progress included.
    pub fn phase_by(&self, t: Ns) -> [u64; 3] {
        let mut p = self.phase_ns;
        if let Some(i) = Die::phase(self.stage) {
            p[i] += t.saturating_sub(self.op_start);
        }
        p
    }

    /// Busy time within [0, `t`] (`t` now or later): finished stages and the one in
    /// progress (idle and holding are not busy).
    pub fn busy_by(&self, t: Ns) -> u64 {
        self.busy_ns
            + if matches!(self.stage, DieStage::Idle | DieStage::Hold) {
                0
            } else {
                t.saturating_sub(self.op_start)
            }
    }
}

/// Per-die operation state and utilisation counters.
#[derive(Clone, Debug)]
pub struct Die {
    pub stage: DieStage,
    /// Bumped at every new operation; events carrying an older value are stale.
    pub gen: u32,
    pub op_start: Ns,
    /// When the current stage ends.
    pub until: Ns,
    pub busy_ns: u64,
    /// Busy time spent on garbage collection (its reads, programs and erases).
    pub gc_busy_ns: u64,
    /// Array time by phase: sensing, programming (suspending included), erasing (ns;
    /// the energy model's phases).
    pub phase_ns: [u64; 3],
    /// Transactions of the current (possibly multi-plane) operation.
    pub op_txns: [u32; 16],
    pub op_len: u8,
    /// The current operation is garbage collection's.
    pub op_gc: bool,
    /// The program or erase waiting to resume, if any.
    pub suspended: Option<Suspended>,
    /// Suspends the current program or erase has had.
    pub op_suspends: u32,
    /// The program at the head of the queue was already held once.
    pub held: bool,
    /// Cache program: the next program, its data-in under way or done into the die's
    /// cache register while the current program runs (`nand.cache_program`).
    pub cached_program: Option<CachedProgram>,
}

/// A program whose data went to the die's cache register during the previous program.
#[derive(Clone, Copy, Debug)]
pub struct CachedProgram {
    pub txn: u32,
    /// When its data-in over the channel ends.
    pub data_in_end: Ns,
    pub gc: bool,
}

impl Default for Die {
    fn default() -> Self {
        Die {
            stage: DieStage::Idle,
            gen: 0,
            op_start: 0,
            until: 0,
            busy_ns: 0,
            gc_busy_ns: 0,
            phase_ns: [0; 3],
            op_txns: [0; 16],
            op_len: 0,
            op_gc: false,
            suspended: None,
            op_suspends: 0,
            held: false,
            cached_program: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{load_device, DeviceSpec};

    #[test]
    fn address_decomposition_round_trips() {
        let d = load_device(&DeviceSpec::Preset("tiny-test".into()), &[]).unwrap();
        let g = Geometry::new(&d);
        assert_eq!(g.units_per_page, 4);
        assert_eq!(g.units_per_stripe, 8);
        let die = 3;
        let blk = 17;
        let base = g.block_base(g.block_id(die, blk));
        let pun = base + 5 * g.units_per_stripe + g.units_per_page + 2;
        assert_eq!(g.die_of(pun), die);
        assert_eq!(g.block_of(pun), g.block_id(die, blk));
        assert_eq!(g.page_of(pun), 5);
        assert_eq!(g.plane_of(pun), 1);
        assert_eq!(g.channel_of(3), 1);
    }

    #[test]
    fn fast_division_is_exact() {
        let mut r = crate::sim::Rng::new(5);
        for d in [1u32, 2, 3, 6, 7, 24, 1000, 6144, 65536, 1366, u32::MAX] {
            let f = FastDiv::new(d);
            for n in [0u32, 1, d - 1, d, d.wrapping_add(1), u32::MAX, u32::MAX - 1] {
                assert_eq!(f.quot(n), n / d, "{n}/{d}");
                assert_eq!(f.modulo(n), n % d, "{n}%{d}");
            }
            for _ in 0..10_000 {
                let n = r.next_u64() as u32;
                assert_eq!(f.quot(n), n / d);
                assert_eq!(f.modulo(n), n % d);
            }
        }
    }

    #[test]
    fn channel_is_fifo_and_counts_busy_time() {
        let mut c = Channel::default();
        assert_eq!(c.reserve(100, 50), 150);
        assert_eq!(c.reserve(120, 10), 160);
        assert_eq!(c.reserve(500, 10), 510);
        assert_eq!(c.busy_ns, 70);
        assert_eq!(c.busy_by(505), 65); // 5 of the 10 booked at 500 are not spent
    }

    #[test]
    fn busy_time_booked_past_the_end_is_not_counted() {
        let mut c = Channel::default();
        c.reserve(100, 50);
        c.reserve(120, 10); // [150, 160)
        assert_eq!(c.busy_by(155), 55); // busy 100..155
        assert_eq!(c.interleave_cmd(158, 4), 162); // the booking now ends at 164
        assert_eq!(c.busy_by(160), 60);
        assert_eq!(c.busy_by(600), 64);
    }

    #[test]
    fn bus_time_matches_rate() {
        let d = load_device(&DeviceSpec::Preset("tiny-test".into()), &[]).unwrap();
        let t = Timing::new(&d);
        // 800 MT/s x 8 bit = 800 MB/s -> 4096 B take 5.12 us.
        assert_eq!(t.bus_ns(4096), 5120);
    }
}
