//! Controller: firmware cores, the write buffer, and the transaction scheduling unit
//! (per-die queues of flash transactions).
//!
//! Firmware: each I/O submission queue is bound to one core (queue i -> core i mod
//! cores, as multi-core NVMe controllers pin queues to cores); a command occupies its
//! core for `cmd_time` plus one map lookup, in arrival order.
//! Write buffer: writes are admitted while it has room for their mapping units and
//! complete once their data is in it; room is returned when the stripe holding the
//! data has been programmed.
//! Scheduling: per die, host reads first, then GC reads, then programs, then erases
//! (erases overtake GC reads and programs when the die is at or below its GC
//! threshold of free blocks); programs of relocated data go before host programs
//! when GC is paced (the pace bounds them), else programs go in arrival order; reads
//! queued on different planes of a die are merged into one multi-plane read.
//! GC pacing: how a victim's reads are released (`gc_pacing`).
//! Read cache: optional, in `read_cache` (set-associative LRU of mapping units).
//! Policies (`[scheduler]`): read-first (above), FIFO across all kinds, or
//! adaptive program delay (`adaptive`); program/erase suspend is driven from the
//! device loop (`ssd::sched`).

mod adaptive;
mod data_path;
mod gc_pacing;
mod read_ahead;
mod read_cache;

pub use adaptive::{AdaptiveDelay, Decision};
pub use data_path::WritePath;
pub use gc_pacing::{GcPace, Release};
pub use read_ahead::ReadAhead;
pub use read_cache::ReadCache;

use crate::config::DeviceConfig;
use crate::sim::Ns;
use std::collections::VecDeque;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TxnKind {
    /// Data for a host read command.
    UserRead,
    /// Data for a host read served by the read cache's SLC-mode copy (an SLC read).
    CacheRead,
    /// Units read ahead of a sequential stream into the read cache (`cmd` unused).
    PrefetchRead,
    /// Old data of a partly overwritten mapping unit (read-modify-write).
    RmwRead,
    /// Valid data of a GC victim.
    GcRead,
    /// A map segment for the demand-paged map cache (`cmd` holds the load id).
    MapRead,
    /// A page (or its spare area) read by the map rebuild after a power loss.
    RecoveryRead,
    /// One multi-plane stripe.
    Program {
        gc: bool,
    },
    Erase,
}

/// A flash transaction. Reads cover `n` consecutive mapping units of one physical
/// page (consecutive logical units too, for host reads).
#[derive(Clone, Copy, Debug)]
pub struct Txn {
    pub kind: TxnKind,
    pub cmd: u32,
    pub die: u32,
    pub plane: u32,
    /// Page index inside the block (sets the page type and so tR/tPROG).
    pub page: u32,
    pub block: u32,
    pub pun: u32,
    /// First logical unit (reads); for a GC program under `gc_staging = "gather"`, the
    /// write-buffer units it holds (released when it ends).
    pub lpn: u32,
    pub n: u32,
    pub bytes: u64,
    /// Erase count of the block when the read was translated (oracle check).
    pub erase_count: u32,
    /// Arrival order on its die (for the FIFO policy).
    pub seq: u32,
}

/// A free-list slab of fixed-size records, so the hot path never allocates once warm.
#[derive(Clone, Debug)]
pub struct Slab<T> {
    items: Vec<T>,
    free: Vec<u32>,
}

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab {
            items: Vec::new(),
            free: Vec::new(),
        }
    }
}

impl<T: Copy> Slab<T> {
    #[inline]
    pub fn insert(&mut self, t: T) -> u32 {
        match self.free.pop() {
            Some(i) => {
                self.items[i as usize] = t;
                i
            }
            None => {
                self.items.push(t);
                (self.items.len() - 1) as u32
            }
        }
    }
    #[inline]
    pub fn remove(&mut self, i: u32) {
        self.free.push(i);
    }
    #[inline]
    pub fn get(&self, i: u32) -> &T {
        &self.items[i as usize]
    }
    #[inline]
    pub fn get_mut(&mut self, i: u32) -> &mut T {
        &mut self.items[i as usize]
    }
    pub fn live(&self) -> usize {
        self.items.len() - self.free.len()
    }
}

/// Pending transactions of one die, by class.
#[derive(Clone, Debug, Default)]
pub struct DieQueues {
    pub user_reads: VecDeque<u32>,
    pub gc_reads: VecDeque<u32>,
    /// Programs of host (and map) data.
    pub programs: VecDeque<u32>,
    /// Programs of data relocated by GC or folding.
    pub gc_programs: VecDeque<u32>,
    pub erases: VecDeque<u32>,
    /// The victim being collected and how its reads are released.
    pub gc: GcPace,
}

impl DieQueues {
    /// The GC or the host program queue.
    #[inline]
    pub fn program_queue(&mut self, gc: bool) -> &mut VecDeque<u32> {
        if gc {
            &mut self.gc_programs
        } else {
            &mut self.programs
        }
    }
}

/// What the scheduler decided a die does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pick {
    Read,
    GcRead,
    /// The head of the host program queue.
    Program,
    /// The head of the GC program queue.
    GcProgram,
    Erase,
    Nothing,
}

/// Did transaction number `a` arrive before `b`? (Wrapping: in-flight work never
/// spans 2^31 arrivals.)
#[inline]
fn earlier(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

impl DieQueues {
    /// The scheduling policy: host reads > GC reads > programs > erases, except that
    /// an erase overtakes GC reads and programs when the die is short of free blocks
    /// (`gc_urgent`: at or below the GC threshold). Host reads always go first, so a
    /// read translated before its block was collected is served before the erase.
    /// Programs: GC's first when `gc_first` (paced GC), else the earlier arrival
    /// (`seq` gives a transaction's arrival number).
    pub fn pick(&self, gc_urgent: bool, gc_first: bool, seq: impl Fn(u32) -> u32) -> Pick {
        if !self.user_reads.is_empty() {
            Pick::Read
        } else if !self.erases.is_empty() && gc_urgent {
            Pick::Erase
        } else if !self.gc_reads.is_empty() {
            Pick::GcRead
        } else if let Some(&g) = self.gc_programs.front() {
            match self.programs.front() {
                Some(&h) if !gc_first && earlier(seq(h), seq(g)) => Pick::Program,
                _ => Pick::GcProgram,
            }
        } else if !self.programs.is_empty() {
            Pick::Program
        } else if !self.erases.is_empty() {
            Pick::Erase
        } else {
            Pick::Nothing
        }
    }
}

impl DieQueues {
    /// FIFO: the oldest head of the four queues, whatever its kind (`seq` gives a
    /// transaction's arrival number on the die).
    pub fn pick_fifo(&self, seq: impl Fn(u32) -> u32) -> Pick {
        let heads = [
            (self.user_reads.front(), Pick::Read),
            (self.gc_reads.front(), Pick::GcRead),
            (self.programs.front(), Pick::Program),
            (self.gc_programs.front(), Pick::GcProgram),
            (self.erases.front(), Pick::Erase),
        ];
        let mut best = Pick::Nothing;
        let mut best_seq = 0u32;
        for (head, pick) in heads {
            if let Some(&t) = head {
                let s = seq(t);
                if best == Pick::Nothing || earlier(s, best_seq) {
                    best = pick;
                    best_seq = s;
                }
            }
        }
        best
    }
}

/// Firmware cores as FIFO servers.
#[derive(Clone, Debug)]
pub struct Cores {
    pub free_at: Vec<Ns>,
    pub busy_ns: Vec<u64>,
    pub per_cmd_ns: Ns,
}

impl Cores {
    pub fn new(d: &DeviceConfig) -> Self {
        let n = d.controller.cores as usize;
        Cores {
            free_at: vec![0; n],
            busy_ns: vec![0; n],
            // A resident map is one direct lookup; a cached map's access time is
            // modelled per tier by the map cache instead.
            per_cmd_ns: d.controller.cmd_time.ns()
                + if d.map_placement().whole {
                    d.controller.map_lookup.ns()
                } else {
                    0
                },
        }
    }

    /// Process a command from submission queue `sq` arriving at `now`; returns when
    /// the firmware is done with it.
    #[inline]
    pub fn process(&mut self, sq: u32, now: Ns) -> Ns {
        let c = sq as usize % self.free_at.len();
        let start = self.free_at[c].max(now);
        self.free_at[c] = start + self.per_cmd_ns;
        self.busy_ns[c] += self.per_cmd_ns;
        self.free_at[c]
    }

    /// Busy time of core `c` within [0, `t`] (`t` now or later): commands are taken at
    /// the current time, so what is booked past `t` is one stretch up to `free_at`.
    pub fn busy_by(&self, c: usize, t: Ns) -> u64 {
        self.busy_ns[c].saturating_sub(self.free_at[c].saturating_sub(t))
    }
}

/// Write buffer occupancy in mapping units, with the commands waiting for room.
#[derive(Clone, Debug)]
pub struct WriteBuffer {
    capacity_units: u64,
    used_units: u64,
    peak_units: u64,
    waiters: VecDeque<u32>,
    waits: u64,
}

impl WriteBuffer {
    pub fn new(d: &DeviceConfig) -> Self {
        WriteBuffer {
            capacity_units: d.write_buffer_placement().1 / d.ftl.mapping_unit.bytes(),
            used_units: 0,
            peak_units: 0,
            waiters: VecDeque::new(),
            waits: 0,
        }
    }

    /// Reserve room for `units`, if there is room. A command that does not fit is
    /// still admitted when everything buffered sits in open stripes that only more
    /// data can complete (`all_stranded(used units)` says whether it does): waiting
    /// would never end.
    /// (So a command larger than the whole buffer goes in alone.)
    #[inline]
    pub fn try_reserve(&mut self, units: u64, all_stranded: impl FnOnce(u64) -> bool) -> bool {
        let fits = self.used_units + units <= self.capacity_units
            || self.used_units == 0
            || all_stranded(self.used_units);
        if fits {
            self.used_units += units;
            self.peak_units = self.peak_units.max(self.used_units);
        }
        fits
    }

    #[inline]
    pub fn release(&mut self, units: u64) {
        self.used_units = self.used_units.saturating_sub(units);
    }

    /// Take room without asking (stripe padding, returned when it is programmed).
    #[inline]
    pub(crate) fn take(&mut self, units: u64) {
        self.used_units += units;
    }

    /// Do commands wait for room (a new one queues behind them)?
    #[inline]
    pub(crate) fn has_waiters(&self) -> bool {
        !self.waiters.is_empty()
    }

    /// Queue `cmd` until room is returned (counted in `waits`).
    #[inline]
    pub(crate) fn wait(&mut self, cmd: u32) {
        self.waits += 1;
        self.waiters.push_back(cmd);
    }

    /// The command that has waited longest.
    #[inline]
    pub(crate) fn first_waiter(&self) -> Option<u32> {
        self.waiters.front().copied()
    }

    /// The first waiter got its room: drop it from the queue.
    #[inline]
    pub(crate) fn pop_waiter(&mut self) {
        self.waiters.pop_front();
    }

    /// Commands waiting for room.
    pub(crate) fn waiting(&self) -> usize {
        self.waiters.len()
    }

    /// Room in use (mapping units).
    #[inline]
    pub(crate) fn used_units(&self) -> u64 {
        self.used_units
    }

    /// Room in all (mapping units).
    pub(crate) fn capacity_units(&self) -> u64 {
        self.capacity_units
    }

    /// Most room in use at once (mapping units).
    pub(crate) fn peak_units(&self) -> u64 {
        self.peak_units
    }

    /// Commands that had to wait for room.
    pub(crate) fn waits(&self) -> u64 {
        self.waits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_before_programs_before_erases_unless_out_of_blocks() {
        let mut q = DieQueues::default();
        let seq = |t: u32| t; // arrival order = id here
        assert_eq!(q.pick(false, false, seq), Pick::Nothing);
        q.erases.push_back(1);
        q.programs.push_back(2);
        q.user_reads.push_back(3);
        q.gc_reads.push_back(4);
        assert_eq!(q.pick(false, false, seq), Pick::Read);
        assert_eq!(q.pick(true, false, seq), Pick::Read);
        q.user_reads.clear();
        assert_eq!(q.pick(true, false, seq), Pick::Erase);
        assert_eq!(q.pick(false, false, seq), Pick::GcRead);
        q.gc_reads.clear();
        assert_eq!(q.pick(false, false, seq), Pick::Program);
        // A GC program that arrived later: after the host program, unless GC is paced.
        q.gc_programs.push_back(5);
        assert_eq!(q.pick(false, false, seq), Pick::Program);
        assert_eq!(q.pick(false, true, seq), Pick::GcProgram);
        q.programs.clear();
        assert_eq!(q.pick(false, false, seq), Pick::GcProgram);
        q.gc_programs.clear();
        assert_eq!(q.pick(false, false, seq), Pick::Erase);
    }

    #[test]
    fn slab_reuses_slots() {
        let mut s: Slab<u64> = Slab::default();
        let a = s.insert(1);
        let b = s.insert(2);
        s.remove(a);
        let c = s.insert(3);
        assert_eq!(c, a);
        assert_eq!(*s.get(b), 2);
        assert_eq!(s.live(), 2);
    }
}
