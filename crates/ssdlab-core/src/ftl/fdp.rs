//! Flexible Data Placement (NVMe TP 4146) in the FTL: reclaim groups, reclaim units,
//! reclaim-unit handles (RUHs) with a write point each, and GC that keeps (or not) the
//! handles' data apart.
//!
//! Models: a reclaim group (RG) is a set of dies (`fdp.reclaim_groups` equal sets of
//! consecutive die numbers); a reclaim unit (RU) is one erase block per plane on every
//! die of its group, the superblock a handle writes a stripe at a time round the
//! group's dies (`reclaim_unit_bytes`). A write's placement ID (directive type 2, data
//! placement; DSPEC = the RG in the top RGIF bits, the handle below) names a handle
//! and a group; its units go to that handle's open RU in that group and nowhere else.
//! A write without a placement ID goes to handle 0 (the spec's default handle), on any
//! die (the controller's choice: the conventional host stream's round of the dies); a
//! placement ID naming no handle or group is logged as an "invalid placement
//! identifier" event and written to handle 0 of group 0, as QEMU's FDP controller does.
//! GC stays die-local: a victim's valid data goes, under `persistent` isolation, to the
//! GC destination of the victim's own handle (blocks owned by that handle only), and
//! under `initial` isolation to the die's one shared GC destination.
//! Statistics: host bytes written (HBMW), media bytes written (MBMW: every program,
//! host, GC and pads), media bytes erased (MBE), per handle bytes written by the host
//! and moved by GC, RUs filled (RU switches), and the events "media reallocated" (GC
//! moved valid data out of an RU: one event per victim, with the units it moved) and
//! "invalid placement identifier".
//! Simplifies: a handle's RU is a logical superblock whose blocks are taken and
//! collected die by die (ssdlab's GC is die-local), so the blocks of one RU may be
//! erased at different times; isolation is kept block by block, which implies it for
//! RUs, since every block holds data of one handle only. RU switches count the blocks
//! a handle opened divided by the group's dies. A Reclaim Unit Handle Update (I/O
//! Management Send, `ruh_update`) pads the handle's open blocks to a program boundary
//! and closes them short: their unwritten pages hold nothing, and once the written
//! ones are programmed GC collects them like full blocks; the RU time limit moves a
//! handle the same way (`ru_time_limit`; the clock runs in `ssd/fdp_ops.rs`), a
//! handle's reclaim unit counted by the blocks it opened (one per die of its group).
//! Not modelled: I/O Management Receive, more than one FDP configuration or namespace,
//! and FDP with an SLC cache (refused by validation).
//! When reclaim units run out (every full block valid, the invalid data in the
//! handles' open blocks), the controller closes the open block with the least valid
//! data early and collects it (a Reclaim Unit Not Fully Written event), so the drive
//! keeps taking writes.

use super::{BlockState, Ftl, FullStripe, Stream, NO_BLOCK, UNMAPPED};
use crate::config::fdp::{FdpConfig, Isolation};
use crate::config::DeviceConfig;
use crate::nand::Pun;

/// A write without a data placement directive (no placement ID).
pub const NO_PID: u32 = u32::MAX;

/// The slot whose reclaim unit a write of placement slot `slot` fills: a write without
/// a placement ID (`NO_PID`) goes to handle 0 of the conventional stream, slot 0.
#[inline]
pub fn slot_of(slot: u32) -> u32 {
    if slot == NO_PID {
        0
    } else {
        slot
    }
}
/// Owner of a block that holds no handle's host data (free, map pages).
const OWNER_NONE: u16 = u16::MAX;
/// Owner of a shared GC destination (initial isolation): any handle's data.
pub const OWNER_SHARED: u16 = u16::MAX - 1;

/// Counters of the FDP statistics log page and event log.
#[derive(Clone, Debug, Default)]
pub struct FdpStats {
    /// Host units written per handle (all groups).
    pub host_units: Vec<u64>,
    /// Units GC moved per handle (from blocks the handle owns).
    pub gc_units: Vec<u64>,
    /// Units GC moved out of shared GC destinations (initial isolation).
    pub shared_gc_units: u64,
    /// Blocks opened for each handle's host data.
    pub blocks_opened: Vec<u64>,
    /// GC victims that held valid data (Media Reallocated events).
    pub media_reallocated: u64,
    /// Writes whose placement ID named no handle or group.
    pub invalid_placement_ids: u64,
    /// Open reclaim units the controller closed before they were full, so that GC
    /// could reclaim their invalid data (no full block had any).
    pub ru_closed_early: u64,
    /// Reclaim Unit Handle Updates (one per placement ID of an I/O Management Send).
    pub ruh_updates: u64,
    /// Handles the controller moved to an empty reclaim unit at the RU time limit
    /// (Reclaim Unit Time Limit Exceeded events).
    pub ru_time_limits: u64,
    /// Of those, the ones that left a reclaim unit partly written (Reclaim Unit Not
    /// Fully Written events).
    pub ruh_updates_partial: u64,
}

/// FDP state of an FTL: the configuration, each block's owner, the handles' cursors.
#[derive(Clone, Debug)]
pub struct FdpState {
    pub cfg: FdpConfig,
    pub dies_per_group: u32,
    /// Per block: the handle whose data it holds (OWNER_SHARED, or none).
    owner: Vec<u16>,
    /// Per (group, handle): the die of the group its next stripe goes to.
    cursor: Vec<u32>,
    /// Per die: GC found no victim, not even an open RU to close (retried as the
    /// die's programs end).
    starved: Vec<bool>,
    /// Blocks a Reclaim Unit Handle Update closed before they were full, with the pages
    /// written: once those are programmed the block counts as wholly programmed (its
    /// unwritten pages hold nothing), so that GC may collect it.
    closed_short: Vec<(u32, u16)>,
    /// Per placement slot: which reclaim unit its handle references (counts up), and
    /// the blocks opened in it so far (a unit has one per die of the group).
    ru_gen: Vec<u32>,
    ru_blocks: Vec<u32>,
    pub stats: FdpStats,
}

impl FdpState {
    fn new(cfg: &FdpConfig, dies: u32, blocks: usize) -> FdpState {
        let h = cfg.handles as usize;
        let dpg = dies / cfg.reclaim_groups;
        FdpState {
            cfg: cfg.clone(),
            dies_per_group: dpg,
            owner: vec![OWNER_NONE; blocks],
            cursor: (0..cfg.reclaim_groups * cfg.handles)
                .map(|i| (i / cfg.handles) * dpg)
                .collect(),
            starved: vec![false; dies as usize],
            closed_short: Vec::new(),
            ru_gen: vec![0; (cfg.reclaim_groups * cfg.handles) as usize],
            ru_blocks: vec![0; (cfg.reclaim_groups * cfg.handles) as usize],
            stats: FdpStats {
                host_units: vec![0; h],
                gc_units: vec![0; h],
                blocks_opened: vec![0; h],
                ..FdpStats::default()
            },
        }
    }

    /// Zero the counters (after drive preparation).
    pub(super) fn reset_stats(&mut self) {
        let h = self.cfg.handles as usize;
        self.stats = FdpStats {
            host_units: vec![0; h],
            gc_units: vec![0; h],
            blocks_opened: vec![0; h],
            ..FdpStats::default()
        };
    }

    fn persistent(&self) -> bool {
        self.cfg.isolation == Isolation::Persistent
    }

    /// A frontier of die `die` took a new block: record whose data it holds, and for a
    /// handle's host data, whether it begins the handle's next reclaim unit.
    pub(super) fn block_opened(&mut self, block: u32, die: u32, stream: Stream) {
        let h = match stream {
            Stream::Host => Some(0),
            Stream::Ruh(h) => Some(h as u32),
            _ => None,
        };
        if let Some(h) = h {
            let slot = ((die / self.dies_per_group) * self.cfg.handles + h) as usize;
            if self.ru_blocks[slot] == self.dies_per_group {
                self.ru_gen[slot] += 1;
                self.ru_blocks[slot] = 0;
            }
            self.ru_blocks[slot] += 1;
        }
        let owner = match stream {
            Stream::Host => 0,
            Stream::Ruh(h) => h,
            Stream::Gc if self.persistent() => 0,
            Stream::Gc => OWNER_SHARED,
            Stream::GcRuh(h) => h,
            Stream::Map => OWNER_NONE,
        };
        self.owner[block as usize] = owner;
        if let Stream::Host | Stream::Ruh(_) = stream {
            self.stats.blocks_opened[owner as usize] += 1;
        }
    }

    /// The handle whose data `block` holds (OWNER_SHARED: several; None: no host data).
    pub fn owner(&self, block: u32) -> Option<u16> {
        let o = self.owner[block as usize];
        (o != OWNER_NONE).then_some(o)
    }

    /// The internal slot (group x handles + handle) of a write's placement ID; a
    /// placement ID that names no handle or group is counted and goes to slot 0.
    pub fn resolve(&mut self, pid: u32) -> u32 {
        if pid == NO_PID {
            return NO_PID;
        }
        match self.cfg.parse_pid(pid) {
            Some((rg, h)) => rg * self.cfg.handles + h,
            None => {
                self.stats.invalid_placement_ids += 1;
                0
            }
        }
    }
}

fn host_stream(h: u32) -> Stream {
    if h == 0 {
        Stream::Host
    } else {
        Stream::Ruh(h as u16)
    }
}

impl Ftl {
    /// Give the FTL its FDP state (a device with `[fdp]`): the frontiers of every
    /// handle on every die.
    pub(super) fn with_fdp(mut self, d: &DeviceConfig) -> Self {
        if let Some(cfg) = &d.fdp {
            let extra = cfg.handles as usize - 1;
            let persistent = cfg.isolation == Isolation::Persistent;
            for die in &mut self.dies {
                die.ruh = vec![Default::default(); extra];
                die.gc_ruh = if persistent {
                    vec![Default::default(); extra]
                } else {
                    Vec::new()
                };
            }
            self.fdp = Some(Box::new(FdpState::new(
                cfg,
                self.geo.dies,
                self.blocks.len(),
            )));
        }
        self
    }

    /// A write's placement ID as the slot its units are placed with (`NO_PID` for
    /// none, and on a drive without FDP).
    pub fn resolve_pid(&mut self, pid: u32) -> u32 {
        self.fdp.as_mut().map_or(NO_PID, |f| f.resolve(pid))
    }

    /// Place one host-written unit of a write with placement slot `slot` (from
    /// `resolve_pid`): into that handle's reclaim unit in that group. None when no die
    /// of the group can take it (GC must free a block first).
    pub fn place_host_pid(&mut self, lpn: u32, slot: u32) -> Option<(Pun, Option<FullStripe>)> {
        let Some(f) = &self.fdp else {
            return self.place_host(lpn);
        };
        let handles = f.cfg.handles;
        let (rg, h) = if slot == NO_PID {
            (None, 0)
        } else {
            (Some(slot / handles), slot % handles)
        };
        let one_group = f.cfg.reclaim_groups == 1;
        if lpn as u64 >= self.host_units || (h == 0 && (rg.is_none() || one_group)) {
            // Handle 0 over the whole drive: the conventional host stream.
            let placed = self.place_host(lpn);
            if placed.is_some() && (lpn as u64) < self.host_units {
                self.fdp.as_mut().unwrap().stats.host_units[0] += 1;
            }
            return placed;
        }
        let rg = rg.unwrap_or(0);
        let dpg = f.dies_per_group;
        let first = rg * dpg;
        let c = f.cursor[slot as usize];
        let stream = host_stream(h);
        let die = (0..dpg)
            .map(|k| first + (c - first + k) % dpg)
            .find(|&d| self.can_take(d, stream))?;
        let (pun, full) = self.alloc(die, stream);
        let fdp = self.fdp.as_mut().unwrap();
        fdp.cursor[slot as usize] = if full.is_some() {
            first + (die - first + 1) % dpg
        } else {
            die
        };
        fdp.stats.host_units[h as usize] += 1;
        self.stats.host_units_to_native += 1;
        self.host_placed(lpn, pun);
        Some((pun, full))
    }

    /// The GC stream for a unit of user data in `block` (a victim).
    pub(super) fn gc_stream_for(&mut self, block: u32) -> Stream {
        let Some(f) = &mut self.fdp else {
            return Stream::Gc;
        };
        let owner = f.owner[block as usize];
        if owner == OWNER_SHARED {
            f.stats.shared_gc_units += 1;
            return Stream::Gc;
        }
        if owner != OWNER_NONE {
            f.stats.gc_units[owner as usize] += 1;
        }
        match owner {
            OWNER_NONE | 0 => Stream::Gc,
            h if f.persistent() => Stream::GcRuh(h),
            _ => Stream::Gc,
        }
    }

    /// No full block of `die` has anything to reclaim, but the handles' open blocks
    /// may: with many handles, each with a host (and, persistent, a GC) block open on
    /// every die, the invalid data can all sit in open blocks. Close the open block with
    /// the fewest valid units whose allocated units are all programmed and at a
    /// program boundary, and return it as the victim (a Reclaim Unit Not Fully Written
    /// event). The drive keeps taking writes rather than stalling.
    pub(super) fn close_open_ru(&mut self, die: u32) -> Option<u32> {
        let d = &self.dies[die as usize];
        let ups = self.geo.units_per_stripe;
        let upg = self.geo.units_per_program;
        let streams = [Stream::Host, Stream::Gc]
            .into_iter()
            .chain((1..d.ruh.len() as u16 + 1).map(Stream::Ruh))
            .chain((1..d.gc_ruh.len() as u16 + 1).map(Stream::GcRuh));
        let mut best: Option<(Stream, u32, u32)> = None;
        for s in streams {
            let f = d.frontier(s);
            if f.block == NO_BLOCK || f.next == 0 || !f.next.is_multiple_of(upg) {
                continue;
            }
            let b = f.block;
            let valid = self.blocks[b as usize].valid;
            if self.programmed[b as usize] as u32 * ups != f.next || valid >= f.next {
                continue;
            }
            if best.is_none_or(|(_, _, v)| valid < v) {
                best = Some((s, b, valid));
            }
        }
        let Some((s, b, _)) = best else {
            self.fdp.as_mut()?.starved[die as usize] = true;
            return None;
        };
        self.fdp.as_mut()?.starved[die as usize] = false;
        *self.dies[die as usize].frontier_mut(s) = Default::default();
        let info = &mut self.blocks[b as usize];
        info.state = BlockState::Full;
        info.closed_at = self.write_clock;
        self.fdp.as_mut()?.stats.ru_closed_early += 1;
        Some(b)
    }

    /// Reclaim Unit Handle Update of placement slot `slot` (from `resolve_pid`): on each
    /// die of its reclaim group, the handle's open block is padded to a program boundary
    /// and closed, so that the handle's next write opens an empty block (a new reclaim
    /// unit). Returns, per padded block, the pad units and the stripe now ready to
    /// program. A block left with unwritten pages is a Reclaim Unit Not Fully Written:
    /// GC may collect it once its written pages are programmed.
    pub fn ruh_update(&mut self, slot: u32) -> Vec<(u64, FullStripe)> {
        let Some(f) = &mut self.fdp else {
            return Vec::new();
        };
        f.stats.ruh_updates += 1;
        let (pads, partial) = self.move_handle(slot);
        if partial {
            self.fdp.as_mut().unwrap().stats.ruh_updates_partial += 1;
        }
        pads
    }

    /// The RU time limit of placement slot `slot` passed while its handle still
    /// referenced reclaim unit `gen`: the controller moves it to an empty one, as a
    /// handle update does (`ruh_update`). Returns the pads to program (none if the
    /// handle has moved on since).
    pub fn ru_time_limit(&mut self, slot: u32, gen: u32) -> Vec<(u64, FullStripe)> {
        let Some(f) = &mut self.fdp else {
            return Vec::new();
        };
        if f.ru_gen.get(slot as usize) != Some(&gen) {
            return Vec::new();
        }
        f.stats.ru_time_limits += 1;
        self.move_handle(slot).0
    }

    /// The reclaim unit placement slot `slot`'s handle references (counts up as it
    /// fills units and is moved to new ones).
    pub fn ru_generation(&self, slot: u32) -> u32 {
        self.fdp
            .as_ref()
            .and_then(|f| f.ru_gen.get(slot as usize).copied())
            .unwrap_or(0)
    }

    /// Move slot `slot`'s handle to an empty reclaim unit (see `ruh_update`): the pads,
    /// and whether a unit was left partly written.
    fn move_handle(&mut self, slot: u32) -> (Vec<(u64, FullStripe)>, bool) {
        let f = self.fdp.as_mut().expect("an FDP drive");
        let slot = slot_of(slot);
        if let (Some(g), Some(b)) = (
            f.ru_gen.get_mut(slot as usize),
            f.ru_blocks.get_mut(slot as usize),
        ) {
            *g += 1;
            *b = 0;
        }
        let (rg, h) = (slot / f.cfg.handles, slot % f.cfg.handles);
        let dies: Vec<u32> = if h == 0 && f.cfg.reclaim_groups == 1 {
            (0..self.geo.dies).collect() // handle 0: the conventional host stream
        } else {
            let dpg = f.dies_per_group;
            (rg * dpg..(rg + 1) * dpg).collect()
        };
        let stream = host_stream(h);
        let upg = self.geo.units_per_program;
        let ups = self.geo.units_per_stripe;
        let mut pads = Vec::new();
        let mut partial = false;
        for die in dies {
            let fr = self.dies[die as usize].frontier(stream);
            if fr.block == NO_BLOCK || fr.next == 0 {
                continue; // an empty reclaim unit already
            }
            if !fr.next.is_multiple_of(upg) {
                pads.push(self.pad_to_stripe(|f| f.alloc(die, stream).1));
                if stream == Stream::Host && self.host_cursor == die {
                    self.host_cursor = (die + 1) % self.geo.dies;
                }
            }
            let fr = self.dies[die as usize].frontier(stream);
            if fr.block == NO_BLOCK {
                continue; // the pad filled the block: it closed as usual
            }
            let (block, pages) = (fr.block, (fr.next / ups) as u16);
            *self.dies[die as usize].frontier_mut(stream) = Default::default();
            let info = &mut self.blocks[block as usize];
            info.state = BlockState::Full;
            info.closed_at = self.write_clock;
            partial = true;
            if self.programmed[block as usize] == pages {
                self.programmed[block as usize] = self.geo.pages_per_block as u16;
            } else {
                self.fdp.as_mut().unwrap().closed_short.push((block, pages));
            }
        }
        (pads, partial)
    }

    /// Reclaim Unit Available Media Writes of placement slot `slot` (what the Reclaim
    /// Unit Handle Status log shows): the units its handle can still write before its
    /// reclaim unit is full, over the dies of its group (a die with no open block for
    /// the handle counts a whole block: its next write opens an empty one).
    pub fn ru_available_units(&self, slot: u32) -> u64 {
        let Some(f) = &self.fdp else {
            return 0;
        };
        let (rg, h) = (slot / f.cfg.handles, slot % f.cfg.handles);
        let dpg = f.dies_per_group;
        let stream = host_stream(h);
        let upb = self.geo.units_per_block;
        (rg * dpg..(rg + 1) * dpg)
            .map(|die| {
                let fr = self.dies[die as usize].frontier(stream);
                (if fr.block == NO_BLOCK {
                    upb
                } else {
                    upb - fr.next
                }) as u64
            })
            .sum()
    }

    /// A stripe of `block` was programmed: a block a handle update closed short
    /// counts as wholly programmed once its written pages are.
    #[inline]
    pub(super) fn fdp_programmed(&mut self, block: u32) {
        let Some(f) = &mut self.fdp else {
            return;
        };
        if f.closed_short.is_empty() {
            return;
        }
        let p = self.programmed[block as usize];
        if let Some(i) = f
            .closed_short
            .iter()
            .position(|&(b, pages)| b == block && pages == p)
        {
            f.closed_short.swap_remove(i);
            self.programmed[block as usize] = self.geo.pages_per_block as u16;
        }
    }

    /// Did GC on `die` last find nothing to collect, open RUs included?
    #[inline]
    pub fn fdp_starved(&self, die: u32) -> bool {
        self.fdp.as_ref().is_some_and(|f| f.starved[die as usize])
    }

    /// A GC victim was claimed: a Media Reallocated event if it holds valid data.
    pub(super) fn fdp_victim(&mut self, victim: u32) {
        if self.blocks[victim as usize].valid > 0 {
            if let Some(f) = &mut self.fdp {
                f.stats.media_reallocated += 1;
            }
        }
    }

    /// Write one unit with placement slot `slot` and no timing (preparation, tests):
    /// as `write_functional`, collecting on the group's dies when they run low.
    pub fn write_functional_pid(&mut self, lpn: u32, slot: u32) {
        if self.fdp.is_none() || slot == NO_PID {
            self.write_functional(lpn);
            return;
        }
        loop {
            if let Some((_, full)) = self.place_host_pid(lpn, slot) {
                if let Some(s) = full {
                    self.program_done(s);
                }
                for die in 0..self.geo.dies {
                    if self.free_blocks(die) <= self.gc_threshold {
                        while self.wants_more_gc(die) && self.gc_functional(die) {}
                    }
                }
                return;
            }
            let mut progressed = false;
            for d in 0..self.geo.dies {
                progressed |= self.gc_functional(d);
            }
            assert!(
                progressed,
                "drive full: no reclaimable space (over-provisioning too small)"
            );
        }
    }

    /// For tests: every block holding valid host data, with its owner and the
    /// logical units it holds.
    pub fn blocks_with_data(&self) -> Vec<(u32, Option<u16>, Vec<u32>)> {
        let upb = self.geo.units_per_block;
        (0..self.blocks.len() as u32)
            .filter(|&b| self.blocks[b as usize].valid > 0)
            .map(|b| {
                let base = self.geo.block_base(b);
                let lpns = (base..base + upb)
                    .map(|p| self.p2l.get(p as usize))
                    .filter(|&l| l != UNMAPPED && (l as u64) < self.host_units)
                    .collect();
                (b, self.fdp.as_ref().and_then(|f| f.owner(b)), lpns)
            })
            .collect()
    }
}

#[cfg(test)]
#[path = "fdp_tests.rs"]
mod tests;
