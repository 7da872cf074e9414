//! Flash translation layer: page-level logical-to-physical map, block manager with
//! per-die free lists, write frontiers striped over dies, greedy garbage collection
//! and trim.
//!
//! Models: a mapping unit (4 KiB by default) is the map granularity; host writes
//! fill one multi-plane stripe of a die, then move to the next die (dies are
//! numbered channel-first, so consecutive stripes land on different channels);
//! GC is die-local (victim, copies and erase stay on one die) with its own write
//! frontier so relocated data is not mixed with host data; a demand-paged map's own
//! pages (logical units past the host's) have a third stream, translation blocks,
//! collected as a pool of their own (`gc.rs`); WAF = units programmed / host units
//! written.
//! Simplifies: the whole map is held in controller memory (the demand-paged map
//! cache plugs in at `Ftl::translate`); no wear levelling beyond FIFO free lists.
//! The reverse map (`p2l`) plays the role of the per-page OOB area real FTLs use
//! to find the owner of a unit during GC.

mod bulk_store;
mod durable;
pub mod estimate;
pub mod fdp;
mod fill;
mod gc;
pub mod implicit;
pub mod map_array;
pub mod map_cache;
pub mod prep;
mod slc;

use crate::config::DeviceConfig;
use crate::nand::{Geometry, Pun};
pub use durable::CutLoss;
pub use map_array::MapArray;
use std::collections::VecDeque;

/// An unmapped logical unit, or a physical unit holding no valid data.
pub const UNMAPPED: u32 = u32::MAX;
const NO_BLOCK: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BlockState {
    Free,
    /// A write frontier is filling it.
    Open,
    /// Every stripe allocated.
    Full,
}

#[derive(Clone, Copy, Debug)]
pub struct BlockInfo {
    pub valid: u32,
    pub state: BlockState,
    pub erase_count: u32,
    /// Write clock (units allocated on the drive so far) when the block filled up:
    /// cost-benefit GC's age.
    pub closed_at: u64,
    /// A translation block (holds map pages; collected from the translation pool).
    pub map: bool,
}

#[derive(Clone, Copy, Debug)]
struct Frontier {
    block: u32,
    /// Next unit offset inside the block.
    next: u32,
}

impl Default for Frontier {
    fn default() -> Self {
        Frontier {
            block: NO_BLOCK,
            next: 0,
        }
    }
}

/// The write streams of a die: each fills its own open block, so data of different
/// lifetimes does not share blocks (host data, GC-relocated data, map pages).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Host,
    Gc,
    /// Translation pages of a demand-paged map (their own translation blocks).
    Map,
    /// Host data of FDP reclaim-unit handle n (n >= 1; handle 0 is `Host`).
    Ruh(u16),
    /// GC destination of FDP handle n under persistent isolation (n >= 1; handle 0's
    /// is `Gc`).
    GcRuh(u16),
}

#[derive(Clone, Debug, Default)]
pub struct DieFtl {
    /// Free native-mode blocks.
    pub free: VecDeque<u32>,
    host: Frontier,
    gc: Frontier,
    /// Translation blocks: map pages written back by the map cache and its journal.
    map: Frontier,
    /// Translation blocks the die holds (open, full or being collected).
    pub map_blocks: u32,
    /// Block being collected (or folded, for an SLC block), if any.
    pub victim: Option<u32>,
    /// Free SLC-mode blocks.
    pub slc_free: VecDeque<u32>,
    /// Host frontier in the SLC area.
    slc: Frontier,
    /// Full SLC blocks, oldest first (the order they are folded in).
    pub slc_full: VecDeque<u32>,
    /// FDP: host frontiers of reclaim-unit handles 1.. (handle 0 is `host`), and
    /// their GC frontiers under persistent isolation (handle 0's is `gc`).
    ruh: Vec<Frontier>,
    gc_ruh: Vec<Frontier>,
    /// Free native blocks lent to SLC-mode blocks beyond the static part (free-space
    /// SLC): one per such block in use, back on the free list when it is folded.
    pub lent: Vec<u32>,
}

impl DieFtl {
    fn frontier(&self, stream: Stream) -> Frontier {
        match stream {
            Stream::Host => self.host,
            Stream::Gc => self.gc,
            Stream::Map => self.map,
            Stream::Ruh(h) => self.ruh[h as usize - 1],
            Stream::GcRuh(h) => self.gc_ruh[h as usize - 1],
        }
    }

    fn frontier_mut(&mut self, stream: Stream) -> &mut Frontier {
        match stream {
            Stream::Host => &mut self.host,
            Stream::Gc => &mut self.gc,
            Stream::Map => &mut self.map,
            Stream::Ruh(h) => &mut self.ruh[h as usize - 1],
            Stream::GcRuh(h) => &mut self.gc_ruh[h as usize - 1],
        }
    }
}

/// A stripe whose every unit is allocated: it can be programmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FullStripe {
    pub die: u32,
    pub block: u32,
    pub page: u32,
}

#[derive(Clone, Debug, Default)]
pub struct FtlStats {
    /// Programs that ended before an earlier page of their block had (a model error:
    /// NAND programs a block's pages in order; always 0, checked by tests).
    pub programs_out_of_order: u64,
    pub host_units_written: u64,
    /// Map segments written back to NAND (demand-paged map), in mapping units.
    pub map_units_written: u64,
    /// Map units moved by GC (from translation blocks or, early on, user blocks).
    pub map_units_relocated: u64,
    /// GC victims taken from the translation pool.
    pub translation_victims: u64,
    pub gc_units_copied: u64,
    pub units_programmed: u64,
    pub pages_programmed: u64,
    pub erases: u64,
    pub gc_victims: u64,
    pub trimmed_units: u64,
    /// Host (and map) units placed in the SLC area and directly in native mode.
    pub host_units_to_slc: u64,
    pub host_units_to_native: u64,
    /// SLC blocks folded and units moved from SLC to native mode.
    pub folds: u64,
    pub units_folded: u64,
    /// Most SLC-mode blocks in use at once (all dies) since the statistics were reset.
    pub slc_peak_blocks: u64,
}

/// Shadow state for the read oracle: every host write gets a version; reads must
/// find the latest version of their unit, through GC moves and erases.
#[derive(Clone, Debug)]
pub struct Verify {
    tags: Vec<u32>,
    shadow: Vec<u32>,
    version: u32,
    pub checked: u64,
    pub mismatches: u64,
}

/// The FTL's state. Code outside `ftl/` reads it through methods; the fields left
/// `pub` are read by the preparation tests (`tests/prep.rs`), which fingerprint a
/// prepared drive, and written by nothing outside `ftl/`.
#[derive(Clone)]
pub struct Ftl {
    pub geo: Geometry,
    pub l2p: MapArray,
    pub p2l: MapArray,
    pub blocks: Vec<BlockInfo>,
    /// Pages (stripes) of each block whose program has completed; reads of later
    /// pages come from the buffer. Kept apart from `blocks` so that the array every
    /// read consults stays small enough for the CPU caches.
    pub programmed: Vec<u16>,
    pub dies: Vec<DieFtl>,
    /// Logical units the FTL manages: the host's, then the map's own units
    /// (translation pages of a demand-paged map) when the map is not all resident.
    pub user_units: u64,
    /// Logical units exposed to the host (the first `host_units` of `user_units`).
    pub host_units: u64,
    host_cursor: u32,
    /// Next die for a map page (map pages go round the dies on their own).
    map_cursor: u32,
    /// `gc_destination = "striped"`: the die whose GC stripe takes the next moved
    /// unit (moved data goes round the dies a stripe at a time).
    pub(crate) gc_cursor: Option<u32>,
    pub gc_threshold: u32,
    pub gc_target: u32,
    /// Translation blocks a die may hold before GC collects from the translation
    /// pool rather than the user pool (the map's share per die, with its spare).
    pub map_budget_blocks: u32,
    gc_policy: crate::config::GcPolicy,
    gc_pacing: crate::config::GcPacing,
    /// Units allocated so far (host and GC): the clock of block ages.
    pub write_clock: u64,
    /// Host writes go to the SLC area while it has room (off during preparation).
    slc_active: bool,
    /// Dynamic SLC: the SLC blocks a die may use shrink from all of them (empty
    /// drive) to `slc_min_blocks` (full drive) with the share of host units mapped.
    slc_dynamic: bool,
    slc_min_blocks: u32,
    /// Free-space SLC: SLC blocks in use beyond `slc_static_blocks` each borrow a
    /// free native block.
    slc_free_space: bool,
    slc_static_blocks: u32,
    /// Host logical units holding data (mapped).
    mapped_units: u64,
    /// SLC-mode blocks in use (open or full), all dies.
    slc_in_use: u64,
    pub stats: FtlStats,
    verify: Option<Verify>,
    /// Which acknowledged writes are on NAND (runs with a power loss only; durable.rs).
    durable: Option<Box<durable::Durability>>,
    /// Flexible Data Placement: handles, reclaim groups, block owners (`fdp.rs`).
    pub fdp: Option<Box<fdp::FdpState>>,
}

/// Logical units of the map's own translation pages (and its update log) that a
/// demand-paged map keeps on flash after the host's units (0 when the map is all
/// resident).
pub(crate) fn translation_units(d: &DeviceConfig, geo: &Geometry) -> u64 {
    let place = d.map_placement();
    if place.whole {
        0
    } else {
        place.map_bytes.div_ceil(geo.unit_bytes) + d.map_log_units()
    }
}

/// Blocks per die the translation pages may hold (`map_units` of them over the dies,
/// plus `map.translation_spare` and one open block).
pub(crate) fn translation_budget_blocks(d: &DeviceConfig, geo: &Geometry, map_units: u64) -> u32 {
    if map_units == 0 {
        return 0;
    }
    let per_die = map_units.div_ceil(geo.dies as u64) as f64;
    (per_die * (1.0 + d.map.translation_spare) / geo.units_per_block as f64).ceil() as u32 + 1
}

impl Ftl {
    pub fn new(d: &DeviceConfig, verify: bool) -> Self {
        let geo = Geometry::new(d);
        let host_units = d.capacity_bytes() / geo.unit_bytes;
        let map_units = translation_units(d, &geo);
        let user_units = host_units + map_units;
        let total = geo.total_units() as usize;
        let mut dies = vec![DieFtl::default(); geo.dies as usize];
        for (i, die) in dies.iter_mut().enumerate() {
            die.free = (0..geo.native_blocks_per_die)
                .map(|b| geo.block_id(i as u32, b))
                .collect();
            die.slc_free = (geo.native_blocks_per_die..geo.blocks_per_die)
                .map(|b| geo.block_id(i as u32, b))
                .collect();
        }
        let blocks = vec![
            BlockInfo {
                valid: 0,
                state: BlockState::Free,
                erase_count: 0,
                closed_at: 0,
                map: false,
            };
            geo.total_blocks() as usize
        ];
        let verify = verify.then(|| Verify {
            tags: vec![0; total],
            shadow: vec![0; user_units as usize],
            version: 0,
            checked: 0,
            mismatches: 0,
        });
        Ftl {
            l2p: MapArray::filled(user_units as usize, UNMAPPED),
            p2l: MapArray::filled(total, UNMAPPED),
            programmed: vec![0; blocks.len()],
            blocks,
            dies,
            user_units,
            host_units,
            host_cursor: 0,
            map_cursor: 0,
            gc_cursor: (d.ftl.gc_destination == crate::config::GcDestination::Striped).then_some(0),
            gc_threshold: d.ftl.gc_threshold_blocks,
            map_budget_blocks: translation_budget_blocks(d, &geo, map_units),
            gc_target: d.ftl.gc_target_blocks,
            gc_policy: d.ftl.gc_policy,
            gc_pacing: d.ftl.gc_pacing,
            write_clock: 0,
            slc_active: geo.native_blocks_per_die < geo.blocks_per_die,
            slc_dynamic: d.slc.mode == crate::config::memory::SlcMode::Dynamic,
            slc_free_space: d.slc.mode == crate::config::memory::SlcMode::FreeSpace,
            slc_static_blocks: d.slc_static_blocks_per_die(),
            slc_min_blocks: {
                let per_die = d.slc_block_bytes() * d.dies() as u64;
                (d.slc.min_size.bytes().div_ceil(per_die.max(1)) as u32)
                    .min(geo.slc_blocks_per_die())
            },
            mapped_units: 0,
            slc_in_use: 0,
            stats: FtlStats::default(),
            verify,
            durable: None,
            fdp: None,
            geo,
        }
        .with_fdp(d)
    }

    /// Physical location of a logical unit, or UNMAPPED.
    #[inline]
    pub fn translate(&self, lpn: u32) -> Pun {
        self.l2p.get(lpn as usize)
    }

    /// Start loading the map entry of `lpn` (a performance hint only).
    #[inline]
    pub fn prefetch_lpn(&self, lpn: u32) {
        self.l2p.prefetch(lpn as usize);
    }

    /// Has the page holding `pun` been programmed (else the data is still in a buffer)?
    #[inline]
    pub fn is_programmed(&self, pun: Pun) -> bool {
        self.geo.page_of(pun) < self.programmed[self.geo.block_of(pun) as usize] as u32
    }

    #[inline]
    fn invalidate(&mut self, pun: Pun) {
        let b = self.geo.block_of(pun) as usize;
        self.blocks[b].valid -= 1;
        self.p2l.set(pun as usize, UNMAPPED);
    }

    #[inline]
    fn bind(&mut self, lpn: u32, pun: Pun) {
        let old = self.l2p.get(lpn as usize);
        if self.durable.is_some() {
            self.durable_bind(lpn, old, pun);
        }
        if old != UNMAPPED {
            self.invalidate(old);
        } else if (lpn as u64) < self.host_units {
            self.mapped_units += 1;
        }
        self.l2p.set(lpn as usize, lpn_to_pun_guard(pun));
        self.p2l.set(pun as usize, lpn);
        self.blocks[self.geo.block_of(pun) as usize].valid += 1;
    }

    /// Can die `die`'s frontier of `stream` take one more unit? Host and map
    /// frontiers keep one free block in reserve for GC.
    fn can_take(&self, die: u32, stream: Stream) -> bool {
        let d = &self.dies[die as usize];
        let f = d.frontier(stream);
        if f.block != NO_BLOCK {
            return true;
        }
        let reserve = if matches!(stream, Stream::Gc | Stream::GcRuh(_)) {
            0
        } else {
            1
        };
        d.free.len() > reserve
    }

    /// Allocate the next unit of a die's frontier; returns the unit and, when it
    /// completes a stripe, that stripe.
    fn alloc(&mut self, die: u32, stream: Stream) -> (Pun, Option<FullStripe>) {
        let geo = &self.geo;
        let upb = geo.units_per_block;
        let ups = geo.units_per_stripe;
        let upg = geo.units_per_program;
        let DieFtl {
            free,
            host,
            gc,
            map,
            map_blocks,
            ruh,
            gc_ruh,
            ..
        } = &mut self.dies[die as usize];
        let f = match stream {
            Stream::Host => host,
            Stream::Gc => gc,
            Stream::Map => map,
            Stream::Ruh(h) => &mut ruh[h as usize - 1],
            Stream::GcRuh(h) => &mut gc_ruh[h as usize - 1],
        };
        if f.block == NO_BLOCK {
            let b = free.pop_front().expect("caller checked can_take");
            f.block = b;
            f.next = 0;
            let info = &mut self.blocks[b as usize];
            info.state = BlockState::Open;
            info.map = stream == Stream::Map;
            if info.map {
                *map_blocks += 1;
            }
            if let Some(fdp) = &mut self.fdp {
                fdp.block_opened(b, die, stream);
            }
        }
        let block = f.block;
        let pun = geo.block_base(block) + f.next;
        f.next += 1;
        self.write_clock += 1;
        let mut full = None;
        if f.next % upg == 0 {
            full = Some(FullStripe {
                die,
                block,
                page: f.next / ups - 1,
            });
            if f.next == upb {
                f.block = NO_BLOCK;
                let b = &mut self.blocks[block as usize];
                b.state = BlockState::Full;
                b.closed_at = self.write_clock;
            }
        }
        (pun, full)
    }

    /// Place one host-written unit. Returns None when no die can take it (every die
    /// is waiting for GC to free a block).
    pub fn place_host(&mut self, lpn: u32) -> Option<(Pun, Option<FullStripe>)> {
        if lpn as u64 >= self.host_units {
            return self.place_map(lpn);
        }
        if self.slc_active {
            if let Some(placed) = self.place_slc(lpn) {
                return Some(placed);
            }
        }
        // Only move to another die at a stripe boundary (always true when the frontier
        // is closed, which is the only case can_take fails).
        let die = self.die_from_cursor(|f, d| f.can_take(d, Stream::Host))?;
        let (pun, full) = self.alloc(die, Stream::Host);
        self.cursor_after(die, &full);
        self.stats.host_units_to_native += 1;
        self.host_placed(lpn, pun);
        Some((pun, full))
    }

    /// Place one unit of the map's own storage (a translation page) in the
    /// translation blocks: native mode, its own frontier per die, its own cursor.
    pub fn place_map(&mut self, lpn: u32) -> Option<(Pun, Option<FullStripe>)> {
        let dies = self.geo.dies;
        let die = self.first_die_from(self.map_cursor, |f, d| f.can_take(d, Stream::Map))?;
        let (pun, full) = self.alloc(die, Stream::Map);
        self.map_cursor = if full.is_some() {
            (die + 1) % dies
        } else {
            die
        };
        self.host_placed(lpn, pun);
        Some((pun, full))
    }

    /// The first die from the host cursor on that `ok` accepts, if any.
    fn die_from_cursor(&self, ok: impl Fn(&Self, u32) -> bool) -> Option<u32> {
        self.first_die_from(self.host_cursor, ok)
    }

    /// The first die from `cursor` on (round the dies) that `ok` accepts, if any.
    pub(super) fn first_die_from(
        &self,
        cursor: u32,
        ok: impl Fn(&Self, u32) -> bool,
    ) -> Option<u32> {
        let dies = self.geo.dies;
        (0..dies)
            .map(|k| (cursor + k) % dies)
            .find(|&d| ok(self, d))
    }

    /// Host stripes go round the dies: the cursor moves on once `die`'s is full.
    fn cursor_after(&mut self, die: u32, full: &Option<FullStripe>) {
        if full.is_some() {
            self.host_cursor = (die + 1) % self.geo.dies;
        } else {
            self.host_cursor = die;
        }
    }

    /// Map a placed host unit and count it.
    fn host_placed(&mut self, lpn: u32, pun: Pun) {
        self.bind(lpn, pun);
        if (lpn as u64) < self.host_units {
            self.stats.host_units_written += 1;
        } else {
            self.stats.map_units_written += 1;
        }
        if let Some(v) = &mut self.verify {
            v.version += 1;
            v.tags[pun as usize] = v.version;
            v.shadow[lpn as usize] = v.version;
        }
    }

    /// Deallocate a logical unit.
    pub fn trim(&mut self, lpn: u32) {
        let old = self.l2p.get(lpn as usize);
        if old != UNMAPPED {
            self.invalidate(old);
            self.l2p.set(lpn as usize, UNMAPPED);
            self.stats.trimmed_units += 1;
            if (lpn as u64) < self.host_units {
                self.mapped_units -= 1;
            }
        }
        if let Some(v) = &mut self.verify {
            v.shadow[lpn as usize] = 0;
        }
        if self.durable.is_some() {
            self.durable_trim(lpn);
        }
    }

    /// A stripe's program finished.
    pub fn program_done(&mut self, s: FullStripe) {
        let p = &mut self.programmed[s.block as usize];
        // A block's pages program in order (NAND requires it); counted in release
        // builds so that tests can check it (`FtlStats::programs_out_of_order`).
        let in_order = *p as u32 + self.geo.program_pages(s.block) == s.page + 1;
        debug_assert!(in_order, "pages program in order");
        self.stats.programs_out_of_order += u64::from(!in_order);
        *p = (s.page + 1) as u16;
        let pages = self.geo.program_pages(s.block);
        self.stats.pages_programmed += (self.geo.planes * pages) as u64;
        self.stats.units_programmed += (self.geo.units_per_stripe * pages) as u64;
        if self.durable.is_some() {
            self.durable_programmed(s);
        }
        if self.fdp.is_some() {
            self.fdp_programmed(s.block);
        }
    }

    /// Count the mapped host units (after preparation wrote the map directly).
    pub fn recount_mapped(&mut self) {
        self.mapped_units = self.l2p.count_ne(self.host_units as usize, UNMAPPED) as u64;
    }

    /// Free blocks on a die.
    pub fn free_blocks(&self, die: u32) -> u32 {
        self.dies[die as usize].free.len() as u32
    }

    /// Units written into the die's open native host block (None: no block open).
    pub fn host_fill(&self, die: u32) -> Option<u32> {
        let f = self.dies[die as usize].host;
        (f.block != NO_BLOCK).then_some(f.next)
    }

    /// Units written into the die's open GC block (None: no block open).
    pub fn gc_fill(&self, die: u32) -> Option<u32> {
        let f = self.dies[die as usize].gc;
        (f.block != NO_BLOCK).then_some(f.next)
    }

    /// Oracle check when a read translates `lpn` to `pun`: the unit must hold the
    /// latest version written to `lpn` (0 for never written or trimmed).
    #[inline]
    pub fn verify_translate(&mut self, lpn: u32, pun: Pun) {
        if let Some(v) = &mut self.verify {
            let got = if pun == UNMAPPED {
                0
            } else {
                v.tags[pun as usize]
            };
            v.checked += 1;
            if got != v.shadow[lpn as usize] {
                v.mismatches += 1;
            }
        }
    }

    /// Oracle: the version of the data held by `pun` (0 without the oracle).
    #[inline]
    pub fn verify_version(&self, pun: Pun) -> u32 {
        self.verify.as_ref().map_or(0, |v| v.tags[pun as usize])
    }

    /// Oracle check of data served from a cache: it must be the last write of `lpn`.
    pub fn verify_cached(&mut self, lpn: u32, version: u32) {
        if let Some(v) = &mut self.verify {
            v.checked += 1;
            if version != v.shadow[lpn as usize] {
                v.mismatches += 1;
            }
        }
    }

    /// Oracle check when the sensed data leaves the die: the block must not have been
    /// erased since the read was translated.
    #[inline]
    pub fn verify_sensed(&mut self, pun: Pun, erase_count_at_translate: u32) {
        let b = self.geo.block_of(pun) as usize;
        let ec = self.blocks[b].erase_count;
        if let Some(v) = &mut self.verify {
            if ec != erase_count_at_translate {
                v.mismatches += 1;
            }
        }
    }

    /// Units placed in the dies' open translation stripes (map writes and GC's moves of
    /// translation pages alike).
    pub fn open_map_partial_units(&self) -> u64 {
        let upg = self.geo.units_per_program;
        let partial = |f: &Frontier| if f.block != NO_BLOCK { f.next % upg } else { 0 };
        self.dies.iter().map(|d| partial(&d.map) as u64).sum()
    }

    /// At most `open_partial_units`, without looking at the frontiers: every die's host
    /// and placement frontiers one unit short of a program, its SLC frontier one unit
    /// short of a stripe. The buffer's stranded check (`Ssd::try_buffer_room`) asks for
    /// the exact count only when its buffer holds no more than this.
    pub fn open_partial_bound(&self) -> u64 {
        let (upg, ups) = (
            self.geo.units_per_program as u64,
            self.geo.units_per_stripe as u64,
        );
        let ruhs = self.dies.first().map_or(0, |d| d.ruh.len()) as u64;
        self.dies.len() as u64 * ((1 + ruhs) * (upg - 1) + (ups - 1))
    }

    /// Host units placed in stripes not yet complete (native and SLC frontiers):
    /// buffered data that waits for more data before it can be programmed. Open
    /// translation stripes are counted apart (`open_map_partial_units`): GC's moves of
    /// translation pages share them without buffer room.
    pub fn open_partial_units(&self) -> u64 {
        let (upg, ups) = (self.geo.units_per_program, self.geo.units_per_stripe);
        self.dies
            .iter()
            .map(|d| {
                let partial = |f: &Frontier| {
                    if f.block != NO_BLOCK {
                        f.next % upg
                    } else {
                        0
                    }
                };
                let host = partial(&d.host) + d.ruh.iter().map(partial).sum::<u32>();
                let slc = if d.slc.block != NO_BLOCK {
                    d.slc.next % ups
                } else {
                    0
                };
                (host + slc) as u64
            })
            .sum()
    }

    /// Allocate unmapped units with `alloc` until it completes a stripe: the pad units
    /// and the stripe now ready to program.
    fn pad_to_stripe(
        &mut self,
        alloc: impl Fn(&mut Ftl) -> Option<FullStripe>,
    ) -> (u64, FullStripe) {
        let mut units = 1;
        loop {
            if let Some(s) = alloc(self) {
                return (units, s);
            }
            units += 1;
        }
    }

    /// Pad the die's open host frontiers (native and SLC) with unmapped units up to
    /// their next program boundary, as a flush does: returns, per frontier, the pad
    /// units allocated and the stripe that is now ready to program.
    pub fn pad_host_frontiers(&mut self, die: u32) -> Vec<(u64, FullStripe)> {
        let mut out = Vec::new();
        let handles = (1..self.dies[die as usize].ruh.len() as u16 + 1).map(Stream::Ruh);
        for stream in [Stream::Host, Stream::Map].into_iter().chain(handles) {
            let f = self.dies[die as usize].frontier(stream);
            if f.block != NO_BLOCK && !f.next.is_multiple_of(self.geo.units_per_program) {
                out.push(self.pad_to_stripe(|f| f.alloc(die, stream).1));
            }
        }
        let d = &self.dies[die as usize];
        if d.slc.block != NO_BLOCK && !d.slc.next.is_multiple_of(self.geo.units_per_stripe) {
            out.push(self.pad_to_stripe(|f| f.alloc_slc(die).1));
        }
        if !out.is_empty() && self.host_cursor == die {
            self.host_cursor = (die + 1) % self.geo.dies;
        }
        out
    }

    /// Pad the open stripes of every frontier so that everything placed so far is
    /// programmed (used at the end of drive preparation, like a flush).
    pub fn seal_open_stripes(&mut self) {
        let ups = self.geo.units_per_stripe;
        let upg = self.geo.units_per_program;
        let upb = self.geo.units_per_block;
        for die in 0..self.geo.dies {
            let d = &self.dies[die as usize];
            let fdp = (1..d.ruh.len() as u16 + 1)
                .map(Stream::Ruh)
                .chain((1..d.gc_ruh.len() as u16 + 1).map(Stream::GcRuh));
            for stream in [Stream::Host, Stream::Gc, Stream::Map]
                .into_iter()
                .chain(fdp)
            {
                let d = &mut self.dies[die as usize];
                let f = d.frontier_mut(stream);
                if f.block == NO_BLOCK {
                    continue;
                }
                let block = f.block;
                if !f.next.is_multiple_of(upg) {
                    f.next = f.next.div_ceil(upg) * upg;
                    if stream == Stream::Host && self.host_cursor == die {
                        // The padded stripe is complete: the next host stripe goes on.
                        self.host_cursor = (die + 1) % self.geo.dies;
                    }
                }
                let pages = f.next / ups;
                if f.next == upb {
                    f.block = NO_BLOCK;
                    self.blocks[block as usize].state = BlockState::Full;
                }
                let p = &mut self.programmed[block as usize];
                while (*p as u32) < pages {
                    *p += 1;
                    self.stats.pages_programmed += self.geo.planes as u64;
                    self.stats.units_programmed += ups as u64;
                }
            }
            self.seal_slc(die);
        }
    }

    /// Forget collections in progress (their queued flash work belonged to another
    /// device instance); the victims stay as ordinary full blocks.
    pub fn drop_in_flight_gc(&mut self) {
        for d in &mut self.dies {
            d.victim = None;
        }
    }

    /// Write amplification so far.
    pub fn waf(&self) -> f64 {
        if self.stats.host_units_written == 0 {
            return 0.0;
        }
        self.stats.units_programmed as f64 / self.stats.host_units_written as f64
    }

    /// Reset counters (after drive preparation) without touching the mapping.
    pub fn reset_stats(&mut self) {
        self.stats = FtlStats {
            slc_peak_blocks: self.slc_in_use,
            ..FtlStats::default()
        };
        if let Some(f) = &mut self.fdp {
            f.reset_stats();
        }
    }

    /// Valid units per non-free block, for tests and reports.
    pub fn valid_histogram(&self) -> Vec<u32> {
        self.blocks
            .iter()
            .filter(|b| b.state != BlockState::Free)
            .map(|b| b.valid)
            .collect()
    }

    pub fn total_free_blocks(&self) -> u64 {
        self.dies.iter().map(|d| d.free.len() as u64).sum()
    }

    /// Bytes the FTL's state keeps allocated (maps with their materialised chunks,
    /// per-block arrays, free lists, the oracle): what grows with the drive.
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        let dies: usize = self
            .dies
            .iter()
            .map(|d| 4 * (d.free.capacity() + d.slc_free.capacity() + d.slc_full.capacity()))
            .sum::<usize>()
            + self.dies.capacity() * size_of::<DieFtl>();
        let verify = self
            .verify
            .as_ref()
            .map_or(0, |v| 4 * (v.tags.capacity() + v.shadow.capacity()));
        self.l2p.heap_bytes()
            + self.p2l.heap_bytes()
            + self.blocks.capacity() * size_of::<BlockInfo>()
            + self.programmed.capacity() * size_of::<u16>()
            + dies
            + verify
    }

    pub fn oracle(&self) -> Option<(u64, u64)> {
        self.verify.as_ref().map(|v| (v.checked, v.mismatches))
    }

    /// Is the read oracle kept (verify runs)?
    #[inline]
    pub(crate) fn verifying(&self) -> bool {
        self.verify.is_some()
    }

    /// Logical units exposed to the host.
    #[inline]
    pub(crate) fn host_units(&self) -> u64 {
        self.host_units
    }

    /// Host logical units holding data.
    #[inline]
    pub(crate) fn mapped_units(&self) -> u64 {
        self.mapped_units
    }

    /// Free blocks of a die at or below which GC starts.
    #[inline]
    pub(crate) fn gc_threshold(&self) -> u32 {
        self.gc_threshold
    }

    /// Do host writes go to the SLC area while it has room?
    #[inline]
    pub(crate) fn slc_active(&self) -> bool {
        self.slc_active
    }

    /// Is the die collecting (or folding) a block now?
    #[inline]
    pub(crate) fn collecting(&self, die: u32) -> bool {
        self.dies[die as usize].victim.is_some()
    }

    /// The logical unit physical unit `pun` holds (`UNMAPPED`: none).
    #[inline]
    pub(crate) fn lpn_of(&self, pun: Pun) -> u32 {
        self.p2l.get(pun as usize)
    }

    /// Valid units of block `block`.
    #[inline]
    pub fn valid_count(&self, block: u32) -> u32 {
        self.blocks[block as usize].valid
    }

    /// Is block `block` a translation block (map pages)?
    #[inline]
    pub fn is_map_block(&self, block: u32) -> bool {
        self.blocks[block as usize].map
    }

    /// Program/erase cycles of block `block`.
    #[inline]
    pub(crate) fn erase_count(&self, block: u32) -> u32 {
        self.blocks[block as usize].erase_count
    }

    /// Translation blocks held by all dies.
    pub(crate) fn translation_blocks(&self) -> u64 {
        self.dies.iter().map(|d| d.map_blocks as u64).sum()
    }

    /// Make both maps copy-on-write, so clones of this FTL share their chunks.
    pub(crate) fn share_maps(&mut self) {
        self.l2p.share();
        self.p2l.share();
    }

    /// This FTL is the only clone of a shared prepared drive alive in its run (a
    /// single-drive run, not a system's identical drives): copy a shared map chunk
    /// after fewer stores into its overlay (`map_array::SOLO_OVERLAY_SHIFT`), for speed.
    pub fn keep_few_overlays(&mut self) {
        self.l2p.set_overlay_shift(map_array::SOLO_OVERLAY_SHIFT);
        self.p2l.set_overlay_shift(map_array::SOLO_OVERLAY_SHIFT);
    }
}

/// Turn the recycling of map chunks on or off (off also frees the pool): see
/// `map_array::recycle_chunks`.
pub fn recycle_map_arrays(on: bool) {
    map_array::recycle_chunks(on);
}

#[inline]
fn lpn_to_pun_guard(p: Pun) -> Pun {
    debug_assert_ne!(p, UNMAPPED);
    p
}

#[cfg(test)]
mod tests;
