//! Drive preparation: build the FTL state of a used drive directly, without timing
//! every write.
//!
//! - `fresh`: nothing written.
//! - `full`: every logical unit written once, sequentially (what a sequential fill
//!   leaves: stripes in LBA order over the dies).
//! - `steady`: full, then uniformly random overwrites until WAF settles. On drives of
//!   up to `DIRECT_LIMIT_UNITS` mapping units this runs the functional FTL (the same
//!   placement and GC code as timed runs) on the drive itself. Larger drives use a
//!   proxy: one die with the same block geometry and GC thresholds is driven to
//!   steady state (its spare set so that host data fills the blocks GC leaves for it
//!   to the same share as on the real die: GC's reserve is a fixed number of blocks
//!   per die, measured on the proxy as it ages), and its per-block valid-unit
//!   distribution is mapped by quantiles onto every die of the real drive; logical
//!   units are then dealt to the valid slots by a seeded pseudo-random permutation.
//!   Under uniform random writes which logical unit survives in which block is
//!   exchangeable, so the result has the same statistics as a long random-write run
//!   (checked by tests against the direct method, on one die cut from several presets,
//!   and against a timed fill).
//!
//! Seed 000's drive states, for drives with an SLC cache (without one, sustain is
//! fresh and aging is steady):
//! - `normal`: fresh, no preconditioning (an alias of `fresh`).
//! - `sustain`: the SLC ("turbo") area already full of valid data (the first logical
//!   units, as a sequential write into an empty drive leaves it), the rest empty.
//! - `aging`: steady state, then the SLC area filled by random overwrites (a drive
//!   preconditioned by sustained random writes has no idle time to fold).
//!
//! - `normal-written`: nothing written but the workload's read area, written once
//!   sequentially (a variant of `normal` whose reads find data).
//! - `full-slc-exhausted`: every logical unit written sequentially and the SLC area
//!   full of what a sequential fill longer than the SLC area, with no idle time, leaves
//!   there: the first units on a drive that folds only when idle (the fill's rest went
//!   straight to native blocks), the last ones on a drive that folds while the host
//!   writes (`slc.fold_watermark_blocks > 0`: each new unit took the room a fold of an
//!   older one made). For sequential tests on a full drive.
//!
//! Aged drives (`steady`, `aging`) end with their dies staggered over the GC cycle
//! (`stagger_dies`), as dies that have run a long random write do: otherwise every
//! die would reach its GC threshold at the same write and collect at once. A paced
//! die's cycle is clocked by its host block and its GC block (how far into its run
//! of victims it is); simplified: the share of the cycle a run takes depends on the
//! load, which preparation does not know (`PACED_RUN_SHARE`), and no victim is left
//! half collected (a die mid-run claims its next victim at its first write).
//!
//! Preparation writes into native-mode blocks only; the SLC fill comes last.

pub use super::fill::{fill_by_writing, fill_sequential};
use super::{translation_units, BlockState, Ftl, NO_BLOCK};
use crate::config::{DeviceConfig, GcPacing};
use crate::nand::Geometry;
use crate::sim::Rng;
use serde::{Deserialize, Serialize};

/// Drives up to this many mapping units are aged directly rather than via a proxy.
pub const DIRECT_LIMIT_UNITS: u64 = 1 << 22;
/// Size of the proxy die (at least 128 blocks).
pub const PROXY_UNITS: u64 = 1 << 20;
/// Marks an SLC-mode block in `apply_distribution`'s per-block counts.
const SLC_BLOCK: u32 = u32::MAX - 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DriveState {
    Fresh,
    Full,
    Steady,
    Normal,
    Sustain,
    Aging,
    #[serde(rename = "normal-written")]
    NormalWritten,
    #[serde(rename = "full-slc-exhausted")]
    FullSlcExhausted,
}

pub const STATES_ALLOWED: &str =
    "fresh, full, steady, normal, normal-written, sustain, aging, full-slc-exhausted";

impl DriveState {
    pub fn parse(s: &str) -> Result<Self, String> {
        match s {
            "fresh" => Ok(DriveState::Fresh),
            "full" => Ok(DriveState::Full),
            "steady" => Ok(DriveState::Steady),
            "normal" => Ok(DriveState::Normal),
            "sustain" => Ok(DriveState::Sustain),
            "aging" => Ok(DriveState::Aging),
            "normal-written" => Ok(DriveState::NormalWritten),
            "full-slc-exhausted" => Ok(DriveState::FullSlcExhausted),
            _ => Err(format!(
                "state: '{s}' is not a drive state (allowed: {STATES_ALLOWED})"
            )),
        }
    }
}

/// What preparation did, for the report.
#[derive(Clone, Debug, Serialize)]
pub struct PrepInfo {
    pub state: DriveState,
    /// "none", "sequential-fill", "direct" or "proxy".
    pub method: &'static str,
    /// Random overwrites performed (on the drive or the proxy), in mapping units.
    pub overwrite_units: u64,
    /// WAF of the last aging round (steady state only).
    pub steady_waf: f64,
    pub free_blocks: u64,
}

/// What aging leaves: units overwritten, the last round's WAF, and the blocks a die
/// held back from data in that round on average (`held_blocks`).
struct Aged {
    overwrite_units: u64,
    waf: f64,
    held_blocks: f64,
}

/// Blocks `die` holds back from data now: its free blocks plus the unwritten share
/// of its open host and GC blocks.
fn held_blocks(ftl: &Ftl, die: u32) -> f64 {
    let upb = ftl.geo.units_per_block as f64;
    let open: f64 = [ftl.host_fill(die), ftl.gc_fill(die)]
        .into_iter()
        .flatten()
        .map(|next| (upb - next as f64) / upb)
        .sum();
    ftl.free_blocks(die) as f64 + open
}

/// Random overwrites of the host units in rounds of a quarter of the capacity until
/// two successive rounds' WAF differ by less than 1% (at least 1x, at most 4x the
/// capacity). Where the map lives in flash its own units stay where the fill put
/// them: the firmware writes translation pages by its own path, and preparation
/// places them last (`write_translation_pages`).
fn age_randomly(ftl: &mut Ftl, rng: &mut Rng) -> Aged {
    let n = ftl.host_units;
    let dies = ftl.geo.dies as u64;
    let round = (n / 4).max(1);
    let mut written = 0;
    let mut last_waf = f64::NAN;
    let mut waf = 1.0;
    let mut held = 0.0;
    for r in 0..16 {
        let host0 = ftl.stats.host_units_written;
        let prog0 = ftl.stats.units_programmed;
        let mut held_sum = 0.0;
        for i in 0..round {
            ftl.write_functional(rng.below(n) as u32);
            held_sum += held_blocks(ftl, (i % dies) as u32);
        }
        held = held_sum / round as f64;
        written += round;
        waf = (ftl.stats.units_programmed - prog0) as f64
            / (ftl.stats.host_units_written - host0) as f64;
        if r >= 3 && (waf - last_waf).abs() < 0.01 * waf {
            break;
        }
        last_waf = waf;
    }
    ftl.seal_open_stripes();
    Aged {
        overwrite_units: written,
        waf,
        held_blocks: held,
    }
}

/// Prepare `ftl` (fresh from `Ftl::new`) in the given state.
pub fn prepare(ftl: &mut Ftl, dev: &DeviceConfig, state: DriveState, seed: u64) -> PrepInfo {
    prepare_with_area(ftl, dev, state, seed, 0..ftl.host_units)
}

/// Prepare `ftl` in the given state; `area` (logical units) is the workload's read
/// area, written by `normal-written`.
pub fn prepare_with_area(
    ftl: &mut Ftl,
    dev: &DeviceConfig,
    state: DriveState,
    seed: u64,
    area: std::ops::Range<u64>,
) -> PrepInfo {
    // The preparation's GC relocates on the victim's die whatever the device's
    // `gc_destination`: its per-die steady state is built die by die, and under the
    // uniform random overwrites it stands for, where a moved unit lands is
    // exchangeable between dies.
    let gc_cursor = ftl.gc_cursor.take();
    let info = prepare_on_own_dies(ftl, dev, state, seed, area);
    ftl.gc_cursor = gc_cursor;
    info
}

fn prepare_on_own_dies(
    ftl: &mut Ftl,
    dev: &DeviceConfig,
    state: DriveState,
    seed: u64,
    area: std::ops::Range<u64>,
) -> PrepInfo {
    let mut info = PrepInfo {
        state,
        method: "none",
        overwrite_units: 0,
        steady_waf: 0.0,
        free_blocks: 0,
    };
    let slc = ftl.slc_active;
    ftl.slc_active = false;
    match state {
        DriveState::Fresh | DriveState::Normal | DriveState::Sustain => {}
        DriveState::Full | DriveState::FullSlcExhausted => {
            fill_sequential(ftl);
            info.method = "sequential-fill";
        }
        DriveState::NormalWritten => {
            let end = area.end.min(ftl.host_units);
            if area.start == 0 && end == ftl.host_units {
                fill_sequential(ftl);
            } else {
                for lpn in area.start..end {
                    ftl.write_functional(lpn as u32);
                }
                ftl.seal_open_stripes();
            }
            info.method = "area-fill";
        }
        DriveState::Steady | DriveState::Aging => {
            let mut rng = Rng::derive(seed, 0x5EAD);
            if ftl.geo.total_units() <= DIRECT_LIMIT_UNITS {
                fill_sequential(ftl);
                let aged = age_randomly(ftl, &mut rng);
                info.method = "direct";
                info.overwrite_units = aged.overwrite_units;
                info.steady_waf = aged.waf;
            } else {
                let (w, waf) = steady_by_proxy(ftl, dev, &mut rng);
                info.method = "proxy";
                info.overwrite_units = w;
                info.steady_waf = waf;
            }
            info.overwrite_units += stagger_dies(ftl, &mut Rng::derive(seed, 0x57A6));
        }
    }
    ftl.recount_mapped();
    ftl.slc_active = slc;
    if slc
        && matches!(
            state,
            DriveState::Sustain | DriveState::Aging | DriveState::FullSlcExhausted
        )
    {
        let order = match state {
            DriveState::Aging => SlcFill::Random,
            DriveState::FullSlcExhausted if dev.slc.fold_watermark_blocks > 0 => SlcFill::Last,
            _ => SlcFill::First,
        };
        fill_slc(ftl, order, seed);
        info.method = match state {
            DriveState::Aging => "proxy-or-direct+slc-fill",
            DriveState::FullSlcExhausted => "sequential-fill+slc-fill",
            _ => "slc-fill",
        };
    }
    write_translation_pages(ftl);
    ftl.reset_stats();
    // Clones of the prepared drive (a cached drive reused by a sweep, identical
    // drives of a system) share the map chunks and copy one only when they store
    // into it; the drive itself pays one cold call per chunk it stores into.
    ftl.l2p.share();
    ftl.p2l.share();
    info.free_blocks = ftl.total_free_blocks();
    info
}

/// With a demand-paged map, put the map's own pages where the timed run keeps them:
/// every translation page that holds an entry (its segment's host units hold data,
/// or it was written by the fill) is written into the translation blocks, in order,
/// as the firmware would have left them. Native mode, not the SLC area.
fn write_translation_pages(ftl: &mut Ftl) {
    let (host, user) = (ftl.host_units, ftl.user_units);
    if user == host {
        return;
    }
    let entries = (ftl.geo.unit_bytes / crate::config::memory::MAP_ENTRY_BYTES).max(1);
    let slc = ftl.slc_active;
    ftl.slc_active = false;
    let free_before: Vec<u32> = (0..ftl.geo.dies).map(|d| ftl.free_blocks(d)).collect();
    let mut pages = Vec::new();
    for lpn in host..user {
        let first = (lpn - host) * entries;
        let last = (first + entries).min(host);
        let holds = ftl.l2p.get(lpn as usize) != super::UNMAPPED
            || ftl
                .l2p
                .any_ne(first as usize, last as usize, super::UNMAPPED);
        if holds {
            pages.push(lpn as u32);
        }
    }
    // A used drive's translation pool is not one clean copy of the map: pages have
    // been rewritten over and over. Rewrite them (in a seeded shuffled order after
    // the first pass) until every die's pool has grown to its budget, so that a timed
    // run starts with the pool at its steady size rather than growing it at the
    // expense of the user pool.
    let mut rng = crate::sim::Rng::derive(0x7A61, pages.len() as u64);
    for pass in 0..8 {
        if pass > 0 {
            for i in (1..pages.len()).rev() {
                pages.swap(i, rng.below(i as u64 + 1) as usize);
            }
        }
        for &lpn in &pages {
            ftl.write_functional(lpn);
        }
        let budget = ftl.map_budget_blocks;
        if pages.is_empty() || ftl.dies.iter().all(|d| d.map_blocks >= budget) {
            break;
        }
    }
    // The pool's blocks came out of the free lists: collect until every die has as
    // many free blocks as the state it was prepared in left it (GC would have).
    for (die, &want) in free_before.iter().enumerate() {
        while ftl.free_blocks(die as u32) < want && ftl.gc_functional(die as u32) {}
    }
    ftl.seal_open_stripes();
    ftl.slc_active = slc;
}

/// Share of a paced die's cycle (one host block of writes) that preparation takes
/// its GC run to fill (see `stagger_dies`). Paced GC copies `v / (U - v)` units per
/// host unit, so on a die with no time to spare a run lasts the whole cycle (1: every
/// die is mid-run, as the dies of a drive whose random writes are bound by its dies
/// are, e.g. `dram-ssd`). A die with idle time reads its victims ahead and finishes its
/// run early (seed 003's drives under their random writes or 70/30 mix: in about 0.4
/// of the cycle); preparation does not know the load, so such a drive starts owing
/// more GC than it will and collects it in its first seconds (docs/validation.md,
/// section 2).
pub const PACED_RUN_SHARE: f64 = 1.0;

/// Put each die of an aged drive at its own point of the GC cycle: die `d` gets a
/// phase `p` in (0, 1) (evenly spaced, dealt to the dies in a seeded order), its host
/// block filled to `p`, by random overwrites placed on that die (and GC on it when it
/// must free blocks).
///
/// Burst GC collects from the threshold to the target and then lets the host fill
/// that headroom: die `d` is left `p x (target - threshold)` host blocks short of the
/// threshold.
///
/// Paced GC: the cycle of a die under uniform random writes is clocked by its host
/// block. When the host opens a block the die falls from `threshold + 1` free blocks
/// to the threshold and claims a victim; it then collects victim after victim (its
/// GC run) until an erase brings it back to `threshold + 1`, and waits there until
/// the host opens its next block. A victim with `v` of `U` units valid adds `v` units
/// to the GC block; each time that block fills and another opens, the die loses the
/// block the erase gave back, so the run ends at the first victim whose copies fit in
/// the open GC block: a run takes about `U / (U - v)` victims, and how many are left
/// is set by the GC block's fill `g` (`g / (U - v)` + 1 of them). So a die is placed
/// on that cycle by two fills: a die with `p < PACED_RUN_SHARE` is mid-run (at the
/// threshold, its GC block filled to `1 - p / PACED_RUN_SHARE`: the further into the
/// run, the fewer victims left), the others have finished their run (one block above
/// the threshold, their GC block nearly full, so that the next host block starts a
/// whole run). Returns the units written.
pub fn stagger_dies(ftl: &mut Ftl, rng: &mut Rng) -> u64 {
    let geo = ftl.geo.clone();
    let (upb, upg) = (geo.units_per_block, geo.units_per_program);
    let mut order: Vec<u32> = (0..geo.dies).collect();
    for i in (1..order.len()).rev() {
        let j = rng.below(i as u64 + 1) as usize;
        order.swap(i, j);
    }
    let mut written = 0;
    // A fill as whole programs of an open block (an empty one is not "open").
    let units = |fill: f64| ((fill * upb as f64) as u32 / upg * upg).clamp(upg, upb - upg);
    let fills = upb >= 2 * upg;
    for die in 0..geo.dies {
        let p = (order[die as usize] as f64 + 0.5) / geo.dies as f64;
        // Free blocks, host-block fill and (paced) GC-block fill.
        let (free, fill, gc_fill) = match ftl.gc_pacing {
            GcPacing::Paced if p < PACED_RUN_SHARE => {
                (ftl.gc_threshold, p, Some(1.0 - p / PACED_RUN_SHARE))
            }
            GcPacing::Paced => (ftl.gc_threshold + 1, p, Some(1.0)),
            GcPacing::Burst => {
                let h = p * (ftl.gc_target - ftl.gc_threshold) as f64;
                (ftl.gc_threshold + h.ceil() as u32, h.ceil() - h, None)
            }
        };
        if let (Some(g), true) = (gc_fill, fills) {
            // Room for both frontiers to open a block, then the GC block's fill.
            while ftl.free_blocks(die) < free + 2 && ftl.gc_functional(die) {}
            let g = units(g);
            while ftl.gc_fill(die) != Some(g) {
                written += copy_on_die(ftl, die, rng);
            }
        }
        if fills {
            let fill = units(fill);
            let host = |f: &Ftl| f.dies[die as usize].host;
            while host(ftl).block == NO_BLOCK || host(ftl).next != fill {
                written += write_on_die(ftl, die, rng);
            }
        }
        while ftl.free_blocks(die) > free {
            for _ in 0..upb {
                written += write_on_die(ftl, die, rng);
            }
        }
        while ftl.free_blocks(die) < free && ftl.gc_functional(die) {}
    }
    ftl.host_cursor = 0;
    written
}

/// A random valid host unit held by `die` (its physical unit), if one is found.
fn unit_on_die(ftl: &Ftl, die: u32, rng: &mut Rng) -> Option<u32> {
    let first = ftl.geo.block_base(ftl.geo.block_id(die, 0)) as u64;
    let units = ftl.geo.native_blocks_per_die as u64 * ftl.geo.units_per_block as u64;
    (0..1000).find_map(|_| {
        let pun = (first + rng.below(units)) as u32;
        let l = ftl.p2l.get(pun as usize);
        ((l as u64) < ftl.host_units).then_some(pun)
    })
}

/// Overwrite a random host unit held by `die`, placing the new copy on that die
/// too (so the die keeps its share of the data), collecting there first if the die
/// could not open a block. Returns 1.
fn write_on_die(ftl: &mut Ftl, die: u32, rng: &mut Rng) -> u64 {
    while ftl.dies[die as usize].host.block == NO_BLOCK && ftl.free_blocks(die) <= 1 {
        assert!(ftl.gc_functional(die), "die {die} has nothing to collect");
    }
    let anywhere = rng.below(ftl.host_units) as u32; // if the die held no host data
    let lpn = unit_on_die(ftl, die, rng).map_or(anywhere, |pun| ftl.p2l.get(pun as usize));
    ftl.host_cursor = die;
    let (pun, full) = ftl.place_host(lpn).expect("the die takes it");
    debug_assert_eq!(ftl.geo.die_of(pun), die);
    if let Some(s) = full {
        ftl.program_done(s);
    }
    1
}

/// Copy a random valid host unit of `die` into the die's GC block, as a
/// relocation does (the data of a random block rather than a victim's: under
/// uniform random writes which units survive where is exchangeable). Returns 1.
fn copy_on_die(ftl: &mut Ftl, die: u32, rng: &mut Rng) -> u64 {
    let pun = unit_on_die(ftl, die, rng).expect("the die holds host data");
    if let Some((_, Some(s))) = ftl.relocate(pun) {
        ftl.program_done(s);
    }
    1
}

/// Which logical units the SLC fill writes: from the first up, from the last down, or
/// at random.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SlcFill {
    First,
    Last,
    Random,
}

/// Fill the SLC area with host data: the first logical units in order (sustain, and
/// full-slc-exhausted on a drive that folds only when idle), the last ones down
/// (full-slc-exhausted on a drive that folds while the host writes) or random ones
/// (aging), until no die has SLC room left.
fn fill_slc(ftl: &mut Ftl, order: SlcFill, seed: u64) {
    let mut rng = Rng::derive(seed, 0x51C);
    let n = ftl.host_units;
    let mut lpn = 0u64;
    while ftl.slc_has_room() {
        let l = match order {
            SlcFill::Random => rng.below(n),
            SlcFill::First => lpn % n,
            SlcFill::Last => n - 1 - lpn % n,
        };
        lpn += 1;
        if let Some((_, Some(s))) = ftl.place_host(l as u32) {
            ftl.program_done(s);
        }
    }
    ftl.seal_open_stripes();
}

/// A one-die device with the same block geometry and GC thresholds, small enough to
/// age functionally in well under a second; its spare is set for a die that holds
/// `first_guess_held_blocks` back from data (`proxy_device_holding`).
pub fn proxy_device(dev: &DeviceConfig) -> DeviceConfig {
    proxy_device_holding(dev, first_guess_held_blocks(dev))
}

/// Blocks a die is expected to hold back from data under random overwrites before
/// any is measured (`held_blocks`): paced GC keeps it between the threshold and one
/// block above, burst GC between the threshold and the target; plus about one
/// block's worth of unwritten space in its open host and GC blocks.
fn first_guess_held_blocks(dev: &DeviceConfig) -> f64 {
    let (lo, hi) = (
        dev.ftl.gc_threshold_blocks as f64,
        dev.ftl.gc_target_blocks as f64,
    );
    let free = match dev.ftl.gc_pacing {
        GcPacing::Paced => lo + 0.5,
        GcPacing::Burst => (lo + hi.max(lo)) / 2.0,
    };
    free + 1.0
}

/// The proxy of `dev` for a die whose GC holds `held_blocks` back from data (free
/// blocks and unwritten open space: set by GC's thresholds, not the die's size).
/// That reserve, and the translation blocks where the map lives in flash, are a
/// larger share of the proxy's fewer blocks: the proxy's over-provisioning is set so
/// that host data fills the blocks left for it to the same share as on the real
/// die, the share greedy GC's steady state follows. (With the reserve taken as
/// `gc_target_blocks + 2`, the proxy aged a 682-block die to a WAF of 5.5 where
/// aging the die itself gives 6.6.)
pub fn proxy_device_holding(dev: &DeviceConfig, held_blocks: f64) -> DeviceConfig {
    let mut p = dev.clone();
    p.nand.channels = 1;
    p.nand.dies_per_channel = 1;
    p.slc = Default::default();
    p.nand.blocks_per_plane = dev.native_blocks_per_die();
    let upb = Geometry::new(dev).units_per_block as f64;
    let max_blocks = (PROXY_UNITS / upb as u64).max(128) as u32;
    p.nand.blocks_per_plane = p.nand.blocks_per_plane.min(max_blocks);
    let (real, small) = (
        dev.native_blocks_per_die().max(1) as f64,
        p.nand.blocks_per_plane.max(1) as f64,
    );
    let left_for_host = |d: &DeviceConfig, blocks: f64| {
        (blocks - held_blocks - translation_blocks_per_die(d)).max(1.0) * upb
    };
    let fill = host_units_per_die(dev) / left_for_host(dev, real);
    // The proxy's map (hence its translation blocks) depends on its capacity: a few
    // steps settle it.
    for _ in 0..4 {
        let want = fill * left_for_host(&p, small);
        p.ftl.over_provisioning = (1.0 - want / (small * upb)).clamp(0.0, 0.9);
    }
    p
}

/// Host units per die of `dev`.
fn host_units_per_die(dev: &DeviceConfig) -> f64 {
    let geo = Geometry::new(dev);
    (dev.capacity_bytes() / geo.unit_bytes) as f64 / geo.dies.max(1) as f64
}

/// Blocks per die the map's own units fill where the map lives in flash: aging
/// leaves them in translation blocks (GC moves them there from the fill's blocks).
fn translation_blocks_per_die(dev: &DeviceConfig) -> f64 {
    let geo = Geometry::new(dev);
    let per_die = translation_units(dev, &geo) as f64 / geo.dies.max(1) as f64;
    (per_die / geo.units_per_block.max(1) as f64).ceil()
}

/// Steady state built on a small proxy die and mapped onto every die (public for
/// tests). The proxy is aged once on the expected reserve; if the blocks it held
/// back differ from that by more than a tenth of a block, once more on the
/// measured figure (GC's reserve is set by its thresholds, not the die's size, so
/// the second proxy holds what the first did).
pub fn steady_by_proxy(ftl: &mut Ftl, dev: &DeviceConfig, rng: &mut Rng) -> (u64, f64) {
    let guess = first_guess_held_blocks(dev);
    let mut proxy = Ftl::new(&proxy_device_holding(dev, guess), false);
    fill_sequential(&mut proxy);
    let mut aged = age_randomly(&mut proxy, rng);
    if (aged.held_blocks - guess).abs() > 0.1 {
        let w = aged.overwrite_units;
        proxy = Ftl::new(&proxy_device_holding(dev, aged.held_blocks), false);
        fill_sequential(&mut proxy);
        aged = age_randomly(&mut proxy, rng);
        aged.overwrite_units += w;
    }
    let free_per_die = proxy.free_blocks(0) as usize;
    // Full host-data blocks only: the proxy's open frontiers are partly written, and
    // each proxy block stands for many blocks of a real die, which would all become
    // cheap victims; translation blocks are written again on the real die
    // (`write_translation_pages`).
    let mut sorted: Vec<u32> = proxy
        .blocks
        .iter()
        .filter(|b| b.state == BlockState::Full && !b.map)
        .map(|b| b.valid)
        .collect();
    sorted.sort_unstable();
    apply_distribution(ftl, &sorted, free_per_die, rng);
    (aged.overwrite_units, aged.waf)
}

/// Give every die of `ftl` `free_per_die` free blocks and valid counts following the
/// sorted sample `sorted`, totalling exactly the user units; then deal the logical
/// units to valid slots in pseudo-random order.
pub fn apply_distribution(ftl: &mut Ftl, sorted: &[u32], free_per_die: usize, rng: &mut Rng) {
    let geo = ftl.geo.clone();
    let upb = geo.units_per_block;
    let bpd = geo.blocks_per_die as usize;
    let native = geo.native_blocks_per_die as usize;
    let used_per_die = native.saturating_sub(free_per_die).max(1);
    // Quantile-map the sample onto each die's used blocks.
    let mut counts: Vec<u32> = Vec::with_capacity(geo.total_blocks() as usize);
    for _die in 0..geo.dies {
        for i in 0..bpd {
            if i >= native {
                counts.push(SLC_BLOCK);
            } else if i < used_per_die {
                let q = (i * sorted.len()) / used_per_die;
                counts.push(sorted[q.min(sorted.len() - 1)]);
            } else {
                counts.push(u32::MAX); // free
            }
        }
    }
    // Shuffle which block of a die gets which count (block ids carry no meaning, but
    // avoid a sorted layout), then fix the total to the number of logical units.
    for die in 0..geo.dies as usize {
        let s = &mut counts[die * bpd..die * bpd + used_per_die];
        for i in (1..s.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            s.swap(i, j);
        }
    }
    let target = ftl.user_units as i64;
    let mut sum: i64 = counts
        .iter()
        .filter(|&&c| c != u32::MAX && c != SLC_BLOCK)
        .map(|&c| c as i64)
        .sum();
    let mut i = 0usize;
    let nb = counts.len();
    let mut stuck = 0;
    while sum != target && stuck < nb {
        crate::interrupt::check();
        let c = &mut counts[i % nb];
        i += 1;
        if *c == u32::MAX || *c == SLC_BLOCK {
            stuck += 1;
            continue;
        }
        if sum < target && *c < upb {
            *c += 1;
            sum += 1;
            stuck = 0;
        } else if sum > target && *c > 0 {
            *c -= 1;
            sum -= 1;
            stuck = 0;
        } else {
            stuck += 1;
        }
    }
    assert_eq!(
        sum, target,
        "drive cannot hold its user capacity at this OP"
    );
    // Install block states and free lists.
    for die in 0..geo.dies as usize {
        ftl.dies[die].free.clear();
        for b in 0..bpd {
            let id = die * bpd + b;
            let info = &mut ftl.blocks[id];
            if counts[id] == SLC_BLOCK {
                continue; // SLC-mode blocks stay on their own free list
            }
            if counts[id] == u32::MAX {
                info.state = BlockState::Free;
                info.valid = 0;
                ftl.programmed[id] = 0;
                ftl.dies[die].free.push_back(id as u32);
            } else {
                info.state = BlockState::Full;
                info.valid = 0;
                ftl.programmed[id] = geo.pages_per_block as u16;
            }
        }
    }
    // Deal logical units to valid slots through a pseudo-random bijection; the valid
    // slots of a block are a random subset (partial Fisher-Yates over slot indices).
    // Every entry of both maps is stored below: compute their chunks now rather than
    // keep the first stores of each aside (`MapArray::set` on an implicit chunk); one
    // map a thread (the kernel zeroes their fresh pages on the thread touching them).
    let (l2p, p2l) = (&mut ftl.l2p, &mut ftl.p2l);
    let halt = crate::interrupt::Halt::default();
    std::thread::scope(|s| {
        s.spawn(|| l2p.materialise_unless_halted(&halt));
        let _g = halt.guard(); // Ctrl-C here (`own` polls the hook) stops the helper
        p2l.materialise();
    });
    let perm = Permutation::new(ftl.user_units, rng.next_u64());
    let mut k: u64 = 0;
    let mut slots: Vec<u32> = (0..upb).collect();
    // The l2p stores land at random addresses of a large array: they are gathered in
    // batches and applied bucket by bucket of the index (`BucketedStores`), each
    // bucket's stores in a small region of the array.
    let mut stores = super::bulk_store::BucketedStores::new(ftl.l2p.len());
    let mut chosen = vec![false; upb as usize];
    for (id, &c) in counts.iter().enumerate() {
        if c == u32::MAX || c == SLC_BLOCK {
            continue;
        }
        let base = geo.block_base(id as u32);
        // Pick the smaller of the valid and invalid sets at random.
        let pick_valid = c <= upb / 2;
        let picks = if pick_valid { c } else { upb - c };
        chosen.fill(!pick_valid);
        for i in 0..picks as usize {
            let j = i + rng.below((upb as usize - i) as u64) as usize;
            slots.swap(i, j);
            chosen[slots[i] as usize] = pick_valid;
        }
        for slot in 0..upb {
            crate::interrupt::check(); // preparation stops here on Ctrl-C
            if chosen[slot as usize] {
                let lpn = perm.apply(k) as u32;
                k += 1;
                let pun = base + slot;
                stores.push(&mut ftl.l2p, lpn, pun);
                ftl.p2l.set(pun as usize, lpn);
            }
        }
        ftl.blocks[id].valid = c;
    }
    stores.flush(&mut ftl.l2p);
    debug_assert_eq!(k, ftl.user_units);
}

/// A seeded bijection on 0..n: an invertible mix (odd multiplications, xor-shifts and
/// additions modulo 2^k, each a bijection) on the smallest power of two >= n, with
/// cycle walking (fewer than two steps on average).
pub struct Permutation {
    n: u64,
    bits: u32,
    mask: u64,
    keys: [u64; 6],
}

impl Permutation {
    pub fn new(n: u64, seed: u64) -> Self {
        let bits = (64 - (n.max(2) - 1).leading_zeros()).max(2);
        let mut r = Rng::new(seed);
        let mut keys = [0u64; 6];
        for (i, k) in keys.iter_mut().enumerate() {
            *k = r.next_u64() | (i % 2 == 0) as u64; // multipliers (even slots) odd
        }
        Permutation {
            n,
            bits,
            mask: if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            },
            keys,
        }
    }

    #[inline]
    fn mix(&self, mut x: u64) -> u64 {
        let s = self.bits / 2 + 1;
        for r in 0..3 {
            x = x
                .wrapping_mul(self.keys[2 * r])
                .wrapping_add(self.keys[2 * r + 1])
                & self.mask;
            x ^= x >> s;
        }
        x
    }

    #[inline]
    pub fn apply(&self, i: u64) -> u64 {
        let mut y = self.mix(i);
        while y >= self.n {
            y = self.mix(y);
        }
        y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutation_is_a_bijection() {
        for n in [1u64, 2, 7, 100, 1000, 4097] {
            let p = Permutation::new(n, 42);
            let mut seen = vec![false; n as usize];
            for i in 0..n {
                let y = p.apply(i);
                assert!(y < n);
                assert!(!seen[y as usize]);
                seen[y as usize] = true;
            }
        }
    }
}
