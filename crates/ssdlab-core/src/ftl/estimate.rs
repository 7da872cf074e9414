//! The memory a run needs, estimated before anything is allocated: what `max_memory`
//! (`ssdlab run --max-memory`) compares against (docs/reliability.md).
//!
//! The two maps (L2P and P2L, a u32 per mapping unit: about 1 GB each on a TB-class
//! drive) are the big part, and they cost memory only for the 2 MiB chunks something
//! stores into (`map_array`; an *implicit* chunk, never written or as a sequential fill
//! leaves it, costs nothing). So the estimate counts, in chunks of 2 MiB:
//! - what preparation stores (`prep`): nothing for `fresh`/`normal`; for `full` and
//!   `full-slc-exhausted` the sequential fill is implicit, but the translation pages a
//!   demand-paged map writes after it (their logical units at the end of the L2P map,
//!   the translation blocks of each die in the P2L map: overlay entries while each
//!   chunk takes fewer than 1/2^`PREP_OVERLAY_SHIFT` of its entries, after an SLC fill
//!   or a written area whole chunks) and the SLC fill (the first
//!   logical units, or the last ones on a drive that folds while the host writes, the
//!   SLC blocks at the end of each die, the invalidated rows of each die) are stored; `normal-written` stores the workload's area unless it is
//!   the whole drive; `steady` and `aging` store everything;
//! - what the run can store: nothing for a workload that only reads; for writes and
//!   trims at most `ENTRY_BYTES` per entry stored (the sparse overlay, then the copied
//!   chunk), bounded by the chunks of the written span (L2P) and capped at the whole
//!   map; a job bounded only by its runtime may store anywhere (the whole maps);
//! - the oracle's tags with `verify` (4 bytes per unit in each direction, by the 4 KiB
//!   page as a run or preparation writes them; all of them once a fill has written every
//!   unit), per-block state, the map cache's per-segment
//!   state, each job's statistics (`JOB_BYTES`) and a fixed allowance;
//! - each job's report logs (`LOG_WINDOW_BYTES` per 500 ms window with I/O): the windows
//!   of its runtime, or, for a job bounded by `number_ios`, `io_size` or its span, of
//!   the simulated time its I/O take (`run_time_ns`: the flash work of every job over
//!   the dies at the drive's mean program and read times, greedy GC's write
//!   amplification 1 / (2 x over-provisioning) once the free units are used, and a 2x
//!   margin; or its pacing by `rate_iops`, `thinktime`, `host_cpu_per_io` or a timed
//!   trace's arrivals), at
//!   most one window per I/O;
//! - fio's per-I/O logs when a job keeps them (`log_completions`): `COMPLETION_BYTES`
//!   per I/O it issues.
//!
//! Measured against the peak resident set on the presets (tests/test_memory_estimate.py,
//! docs/reliability.md): within 2x either way. Left out: what grows with a workload's
//! own ranges (queues, the iolog of `write_iolog`), and the allocator's slack.

#[cfg(test)]
use super::map_array::OVERLAY_SHIFT;
use super::map_array::{CHUNK_LEN, PREP_OVERLAY_SHIFT};
use super::prep::DriveState;
use super::{translation_budget_blocks, translation_units};
use crate::config::memory::SlcMode;
use crate::config::workload::{jobs_area_bytes, Rw};
use crate::config::{DeviceConfig, WorkloadConfig};
use crate::nand::Geometry;
use crate::stats::BW_WINDOW_NS;

/// Fixed allowance for everything that does not grow with the geometry or the jobs
/// (the interpreter and the binary, the allocator's arenas, the event queue, small
/// tables): a `full` tiny-test read at its peak holds 20.8 MiB in all, since `import
/// ssdlab` loads the sweep engine and the fio parser only when used (32 MiB before).
pub const BASE_BYTES: u64 = 24 << 20;
/// Per block: `BlockInfo`, the programmed counter, a free-list entry, GC indexes.
pub const PER_BLOCK_BYTES: u64 = 48;
/// Per job: its latency statistics (HDR histograms, made for every job whatever it
/// does). Measured 1.24 MiB per job on tiny-test (numjobs 1 / 256 / 1024: peak RSS
/// 27 / 342 / 1292 MiB).
pub const JOB_BYTES: u64 = 5 << 18;
/// Per job and 500 ms window of simulated time (`stats::BW_WINDOW_NS`): the window's
/// entries in the report's iops, bandwidth and latency logs (as JSON values, text and
/// Python objects). Measured 4.1 KiB per window (emmc-32g, steady, 1 M against 2 M
/// random writes: 5,280 more windows, 21.9 MiB more at the peak).
pub const LOG_WINDOW_BYTES: u64 = 4 << 10;
/// `run_time_ns`'s margin over its flash time: GC's reads and erases, map updates and
/// the controller's own queues, none of which it counts (emmc-32g, steady, 2 M random
/// writes: 2,321 s of programs, 5,287 s simulated).
const TIME_MARGIN: f64 = 2.0;
/// Per segment of a demand-paged map: the cache's slot index and the load, flush and
/// dirty state (`map_cache`, `ssd::map::state`).
const PER_SEGMENT_BYTES: u64 = 24;
/// Bytes of one map chunk.
const CHUNK_BYTES: u64 = 4 * CHUNK_LEN as u64;
/// Bytes a run's store of one entry costs in a chunk it does not own: an entry of the
/// chunk's sparse overlay (8-byte slots at most half full), until the overlay reaches
/// its limit (1/2^`overlay_shift` of the chunk, `map_array::OVERLAY_SHIFT` or, for a
/// single-drive run, `SOLO_OVERLAY_SHIFT`; of an implicit chunk at least
/// 1/2^`PREP_OVERLAY_SHIFT`); then the whole chunk.
const OVERLAY_ENTRY_BYTES: u64 = 32;
/// A page of memory: the oracle's arrays cost memory a page at a time as they are
/// written (zeroed allocations).
const PAGE_BYTES: u64 = 4 << 10;
/// Physical units a run writes per logical unit once garbage collection runs (after
/// the drive's free units are used): the new copy and two for GC's copies (a
/// conservative WAF).
const GC_UNITS_PER_UNIT: u64 = 3;

/// The parts of an estimate, in bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MemoryEstimate {
    /// Map chunks preparation stores (L2P and P2L).
    pub prepared_maps: u64,
    /// Map memory the run's own stores may add.
    pub run_maps: u64,
    /// The preparation's batches of map stores (an aged drive prepared through the
    /// one-die proxy, `ftl/bulk_store.rs`), freed when it ends.
    pub prep_buffers: u64,
    /// The oracle's tags (`verify`).
    pub oracle: u64,
    /// Per-block and per-segment state.
    pub fixed: u64,
    /// The fixed allowance (once per process).
    pub base: u64,
    /// The jobs' statistics, and their logs when their runtime is known.
    pub jobs: u64,
    /// Jobs counted (numjobs clones included).
    pub job_count: u64,
}

impl MemoryEstimate {
    /// Bytes in all.
    pub fn total(&self) -> u64 {
        [
            self.prepared_maps,
            self.run_maps,
            self.prep_buffers,
            self.oracle,
            self.fixed,
            self.base,
            self.jobs,
        ]
        .iter()
        .fold(0u64, |a, &b| a.saturating_add(b))
    }
}

/// Chunks of a map holding entries `lo..hi` (end exclusive, capped at `len`).
fn chunks(lo: u64, hi: u64, len: u64) -> u64 {
    let hi = hi.min(len);
    if hi <= lo {
        return 0;
    }
    let c = CHUNK_LEN as u64;
    (hi - 1) / c - lo / c + 1
}

/// Chunks of the P2L map holding units `lo..hi` of every die (offsets within a die);
/// chunks shared by neighbouring dies are counted once.
fn die_chunks(geo: &Geometry, lo: u64, hi: u64) -> u64 {
    let per_die = geo.blocks_per_die as u64 * geo.units_per_block as u64;
    let (lo, hi) = (lo.min(per_die), hi.min(per_die));
    if hi <= lo {
        return 0;
    }
    let total = geo.total_units();
    let c = CHUNK_LEN as u64;
    let mut n = 0;
    let mut last = u64::MAX;
    for d in 0..geo.dies as u64 {
        let (a, b) = (
            (d * per_die + lo) / c,
            (d * per_die + hi - 1).min(total - 1) / c,
        );
        n += b - a + 1 - u64::from(a == last);
        last = b;
    }
    n
}

/// Bytes `n` stores cost spread evenly over `k` chunks: overlay entries while each
/// chunk's share stays under the overlay limit (`CHUNK_LEN >> overlay_shift` entries),
/// else whole chunks.
fn spread_bytes(n: u64, k: u64, overlay_shift: u32) -> u64 {
    if k == 0 || n == 0 {
        return 0;
    }
    if n / k < (CHUNK_LEN as u64) >> overlay_shift {
        n.saturating_mul(OVERLAY_ENTRY_BYTES).min(k * CHUNK_BYTES)
    } else {
        k * CHUNK_BYTES
    }
}

/// What a job may store into the maps.
struct JobStores {
    /// Logical units written or trimmed (`u64::MAX` when only its runtime bounds it).
    units: u64,
    /// The span they fall in (logical units, `lo..hi`).
    lo: u64,
    hi: u64,
    /// At random offsets (else in order).
    random: bool,
}

/// What job `w` may store into the maps; None when it only reads.
fn job_stores(w: &WorkloadConfig, capacity: u64, unit: u64) -> Option<JobStores> {
    if let (Some(t), Some(_)) = (&w.trace_stats, &w.trace) {
        if t.writes + t.trims == 0 {
            return None;
        }
        return Some(JobStores {
            units: (t.bytes / unit).saturating_add(2 * t.requests),
            lo: t.offset_min / unit,
            hi: t.offset_max_end.div_ceil(unit),
            random: true,
        });
    }
    let random = match w.rw {
        Rw::Read | Rw::RandRead => return None,
        // Skips spread a sequential pattern over its span.
        Rw::Write | Rw::Trim | Rw::Rw | Rw::TrimWrite => {
            w.seq_skip.bytes() > 0 || w.seq_skip_back.bytes() > 0
        }
        _ => true,
    };
    // An I/O of a multiple of the unit, aligned to its size, covers whole units.
    let bs = w.max_bs();
    let per_io = bs.div_ceil(unit) + u64::from(!bs.is_multiple_of(unit));
    let span = w.span(capacity);
    let bytes_units = |b: u64| b.div_ceil(unit).saturating_add(per_io);
    let n = match (w.number_ios, w.io_size, w.runtime) {
        (Some(n), b, _) => n
            .saturating_mul(per_io)
            .min(b.map_or(u64::MAX, |b| bytes_units(b.bytes()))),
        (None, Some(b), _) => bytes_units(b.bytes()),
        (None, None, Some(_)) => u64::MAX,
        (None, None, None) => bytes_units(span),
    };
    // trimwrite trims and then writes each block.
    let n = match w.rw {
        Rw::TrimWrite | Rw::RandTrimWrite => n.saturating_mul(2),
        _ => n,
    };
    Some(JobStores {
        units: n.saturating_mul(u64::from(w.numjobs.max(1))),
        lo: w.offset.bytes() / unit,
        hi: (w.offset.bytes() + span).min(capacity).div_ceil(unit),
        random,
    })
}

/// I/Os job `w` issues (each clone) when its runtime does not bound it: `number_ios`,
/// else `io_size` or one pass of its span in blocks of `bs`; a trace's requests.
/// One completion record of `log_completions` (six u64) and its six numbers in the
/// report's JSON tree, per I/O.
const COMPLETION_BYTES: u64 = 48 + 6 * 40 + 32;

fn job_ios(w: &WorkloadConfig, capacity: u64) -> u64 {
    if let Some(t) = &w.trace_stats {
        let max = w.trace.as_ref().and_then(|c| c.max_requests);
        return t.requests.min(max.unwrap_or(u64::MAX));
    }
    let bs = w.bs.bytes().max(512);
    match (w.number_ios, w.io_size) {
        (Some(n), _) => n,
        (None, Some(b)) => b.bytes().div_ceil(bs),
        (None, None) => w.span(capacity).div_ceil(bs),
    }
}

/// Simulated time the jobs' I/O take, at most (for their report logs), in ns: the work
/// all jobs give the flash, spread over every die and plane (each unit written at random
/// programmed `gc_waf` times once the free units are used, on an aged drive from the
/// start; a unit written in order once, as it leaves GC nothing to copy; a page read
/// per read), and the controller's command time over its cores, times `TIME_MARGIN`;
/// or the longest a job's own pacing takes (`rate_iops`, `thinktime`, `host_cpu_per_io`,
/// a timed trace's arrivals), if longer.
fn run_time_ns(
    dev: &DeviceConfig,
    geo: &Geometry,
    jobs: &[WorkloadConfig],
    aged: bool,
    free_units: u64,
) -> u64 {
    let capacity = dev.capacity_bytes();
    let unit = geo.unit_bytes.max(1);
    let bits = geo.bits_per_cell.max(1) as usize;
    let mean = |t: &crate::config::PerPageType| {
        (0..bits).map(|i| t.get(i) as f64).sum::<f64>() / bits as f64
    };
    let dies = geo.dies.max(1) as f64;
    let prog_ns = mean(&dev.nand.t_prog) / geo.units_per_program.max(1) as f64 / dies;
    // A read of a page per die at a time (random reads seldom pair up across planes).
    let read_ns = mean(&dev.nand.t_read) / dies;
    let pages = |b: u64| b.div_ceil(geo.page_bytes.max(1)).max(1) as f64;
    let cmd_ns = dev.controller.cmd_time.ns() as f64 / dev.controller.cores.max(1) as f64;
    // Greedy GC under uniform random writes: 1 / (2 x over-provisioning).
    let gc_waf = (0.5 / dev.ftl.over_provisioning.max(0.01)).max(1.0);
    let (mut reads, mut writes, mut ios, mut paced) = (0f64, 0f64, 0f64, 0f64);
    // Units written in order: they invalidate whole blocks, GC copies nothing.
    let mut in_order = 0f64;
    for w in jobs {
        let n = job_ios(w, capacity) as f64 * f64::from(w.numjobs.max(1));
        ios += n;
        let units = |b: u64| b.div_ceil(unit) as f64;
        let (rd, wr) = if let Some(t) = &w.trace_stats {
            let mean_bytes = t.bytes / t.requests.max(1);
            let share = t.reads as f64 / t.requests.max(1) as f64;
            let written = (t.writes as f64 / t.requests.max(1) as f64) * units(mean_bytes);
            if let Some(c) = w
                .trace
                .as_ref()
                .filter(|c| c.mode == crate::trace::replay::ReplayMode::Timed)
            {
                paced = paced.max(t.duration_ns as f64 / c.speedup);
            }
            (share * pages(mean_bytes), written)
        } else {
            let bs = w.bs.bytes();
            let wbs = w.bs_write.map_or(bs, |b| b.bytes());
            match w.rw {
                Rw::Read | Rw::RandRead => (pages(bs), 0.0),
                Rw::Write | Rw::RandWrite => (0.0, units(wbs)),
                Rw::Rw | Rw::RandRw => {
                    let r = f64::from(w.rwmixread.min(100)) / 100.0;
                    (r * pages(bs), (1.0 - r) * units(wbs))
                }
                _ => (0.0, 0.0), // trims: no flash work
            }
        };
        reads += n * rd;
        writes += n * wr;
        if w.trace_stats.is_none() && matches!(w.rw, Rw::Write) && w.seq_skip.bytes() == 0 {
            in_order += n * wr;
        }
        let per_job = job_ios(w, capacity) as f64;
        if let Some(r) = w.rate_iops.filter(|&r| r > 0) {
            paced = paced.max(per_job / r as f64 * 1e9);
        }
        let think = w.thinktime.ns() as f64;
        if think > 0.0 {
            paced = paced.max(per_job / f64::from(w.thinktime_blocks.max(1)) * think);
        }
        // The host model's thread time per I/O paces the job as rate_iops does.
        paced = paced.max(per_job * w.host_cpu_per_io.ns() as f64);
    }
    let free = if aged { 0.0 } else { free_units as f64 };
    let random = writes - in_order;
    let programmed = in_order + random.min(free) + (random - free).max(0.0) * gc_waf;
    let flash = programmed * prog_ns + reads * read_ns + ios * cmd_ns;
    let t = (flash * TIME_MARGIN).max(paced);
    if t >= u64::MAX as f64 {
        u64::MAX
    } else {
        t as u64
    }
}

/// The estimate of a run of `jobs` on `dev` prepared in `state` (see the header).
/// `keep_prepared`: the prepared drive stays in the process's cache (`reuse_prep`),
/// so the run copies the chunks it stores into rather than storing in place, after
/// 1/2^`overlay_shift` of a chunk's entries in its overlay (`map_array::OVERLAY_SHIFT`
/// for a system's drives, `SOLO_OVERLAY_SHIFT` for a single-drive run).
pub fn estimate(
    dev: &DeviceConfig,
    state: DriveState,
    jobs: &[WorkloadConfig],
    verify: bool,
    keep_prepared: bool,
    overlay_shift: u32,
) -> MemoryEstimate {
    let geo = Geometry::new(dev);
    let unit = geo.unit_bytes.max(1);
    let capacity = dev.capacity_bytes();
    let host = capacity / unit;
    let map_units = translation_units(dev, &geo);
    let l2p_len = host + map_units;
    let p2l_len = geo.total_units();
    let whole =
        (l2p_len.div_ceil(CHUNK_LEN as u64) + p2l_len.div_ceil(CHUNK_LEN as u64)) * CHUNK_BYTES;
    let dies = geo.dies.max(1) as u64;
    let upb = geo.units_per_block as u64;
    let area = jobs_area_bytes(jobs, capacity);
    let area = area.start / unit..area.end.div_ceil(unit).min(host);
    let whole_area = area.start == 0 && area.end >= host;
    let slc = geo.native_blocks_per_die < geo.blocks_per_die;

    // The oracle's pages preparation and the run write (4 bytes a unit in the tags and
    // the shadow, in pages of 4 KiB), when no fill wrote them all.
    let mut oracle_bytes = 0u64;
    // Preparation's stores, in chunks, and the units of each die its native fill used.
    let (mut c, native_per_die, fills_all) = match state {
        DriveState::Fresh | DriveState::Normal | DriveState::Sustain => (0, 0, false),
        DriveState::Full | DriveState::FullSlcExhausted => (0, l2p_len.div_ceil(dies), true),
        DriveState::NormalWritten if whole_area => (0, l2p_len.div_ceil(dies), true),
        DriveState::NormalWritten => {
            let per_die = (area.end - area.start).div_ceil(dies) + upb;
            oracle_bytes += 8 * (area.end - area.start);
            (
                chunks(area.start, area.end, l2p_len) + die_chunks(&geo, 0, per_die),
                per_die,
                false,
            )
        }
        DriveState::Steady | DriveState::Aging => (whole / CHUNK_BYTES, 0, true),
    };
    let aged = matches!(state, DriveState::Steady | DriveState::Aging);
    // Preparation's stores kept in overlays (bytes).
    let mut aside_bytes = 0u64;
    if !aged {
        let slc_fill = slc && matches!(state, DriveState::Sustain | DriveState::FullSlcExhausted);
        if slc_fill {
            // The first logical units into the SLC blocks at the end of every die;
            // after a full fill, their first copies (each die's first rows) invalidated.
            // Dynamic SLC on a full drive has only its least blocks (`slc.min_size`).
            let mut slc_blocks = (geo.blocks_per_die - geo.native_blocks_per_die) as u64;
            // So has free-space SLC (what it borrows needs free native blocks): its
            // static part only, or at most the over-provisioned blocks.
            if dev.slc.mode != SlcMode::Static && state == DriveState::FullSlcExhausted {
                let per_block = dev.slc_block_bytes() * dies;
                slc_blocks = slc_blocks.min(dev.slc.min_size.bytes().div_ceil(per_block.max(1)));
            }
            let slc_units = slc_blocks * upb / geo.bits_per_cell.max(1) as u64;
            let first = (slc_units * dies).min(host);
            // A drive that folds while the host writes holds the fill's last units in
            // SLC after a full fill (prep.rs), not its first ones.
            let last = state == DriveState::FullSlcExhausted && dev.slc.fold_watermark_blocks > 0;
            let (lo, hi) = if last {
                (host - first, host)
            } else {
                (0, first)
            };
            c += chunks(lo, hi, l2p_len);
            oracle_bytes += 8 * first;
            let slc_start = geo.native_blocks_per_die as u64 * upb;
            c += die_chunks(&geo, slc_start, slc_start + slc_blocks * upb);
            if state == DriveState::FullSlcExhausted {
                let rows = first.div_ceil(dies) + upb;
                let end = host.div_ceil(dies) + upb;
                c += if last {
                    die_chunks(&geo, end.saturating_sub(rows + upb), end)
                } else {
                    die_chunks(&geo, 0, rows)
                };
            }
        }
        let written = fills_all || slc_fill || state == DriveState::NormalWritten;
        if map_units > 0 && written {
            // Translation pages: their logical units, their copies from the fill (the
            // last rows of each die) and the translation blocks after the data.
            let budget = translation_budget_blocks(dev, &geo, map_units) as u64;
            let start = native_per_die / upb * upb;
            let old = if fills_all {
                map_units.div_ceil(dies) + upb
            } else {
                0
            };
            let pool = (budget + dev.ftl.gc_target_blocks as u64 + 2) * upb;
            oracle_bytes += 4 * map_units + 4 * pool * dies;
            // Into implicit chunks (a written area's own chunks are counted whole
            // above): aside until 1/2^PREP_OVERLAY_SHIFT of a chunk (map_array). The
            // pages written are those holding data (`prep::write_translation_pages`),
            // rewritten at most 8 times until the pool reaches its budget: a store per
            // page written, at most per unit of the blocks the pool grows to (its
            // budget, an open block and one GC takes), and per copy from the fill.
            // (GC's reserve, in `pool`, bounds where they land, not how many.)
            let entries = (unit / crate::config::memory::MAP_ENTRY_BYTES).max(1);
            let pages = if fills_all {
                map_units
            } else {
                (area.end - area.start).div_ceil(entries).min(map_units)
            };
            let k = chunks(host, l2p_len, l2p_len);
            aside_bytes += spread_bytes(pages, k, PREP_OVERLAY_SHIFT);
            let k = die_chunks(&geo, start.saturating_sub(old), start + pool);
            let stores = (8 * pages).min((budget + 2) * upb * dies) + old * dies;
            aside_bytes += spread_bytes(stores, k, PREP_OVERLAY_SHIFT);
        }
    }
    let prepared_maps = (c * CHUNK_BYTES + aside_bytes).min(whole);

    // The run's stores: into the L2P map within the jobs' spans; into the P2L map
    // where the new copies go (each die's open blocks, in order) and where the old
    // ones were (scattered, for random writes on a drive that holds data).
    let holds_data = !matches!(state, DriveState::Fresh | DriveState::Normal);
    let p2l_chunks = p2l_len.div_ceil(CHUNK_LEN as u64);
    // Units written before GC starts: none on an aged drive, the spare of a full one.
    let free_units = match state {
        _ if aged => 0,
        _ if fills_all => p2l_len.saturating_sub(l2p_len),
        _ => p2l_len.saturating_sub(native_per_die * dies),
    };
    // The run stores into implicit chunks (any drive not aged) aside up to
    // 1/2^PREP_OVERLAY_SHIFT of a chunk at least (`MapArray::set`), into an aged
    // drive's chunks in memory up to 1/2^overlay_shift.
    let run_shift = if aged {
        overlay_shift
    } else {
        overlay_shift.min(PREP_OVERLAY_SHIFT)
    };
    let (mut l2p, mut p2l) = (0u64, 0u64);
    for w in jobs {
        let Some(j) = job_stores(w, capacity, unit) else {
            continue;
        };
        let (n, hi) = (j.units, j.hi.max(j.lo + 1));
        let k = if j.random {
            chunks(j.lo, hi, l2p_len)
        } else {
            chunks(j.lo, j.lo.saturating_add(n).min(hi), l2p_len)
        };
        l2p = l2p.saturating_add(spread_bytes(n, k, run_shift));
        let shadow = if j.random {
            n.saturating_mul(PAGE_BYTES).min(4 * l2p_len)
        } else {
            n.saturating_mul(4)
        };
        let copies = n.saturating_add(
            n.saturating_sub(free_units)
                .saturating_mul(GC_UNITS_PER_UNIT - 1),
        );
        oracle_bytes = oracle_bytes
            .saturating_add(shadow)
            .saturating_add(copies.saturating_mul(4));
        let new = die_chunks(&geo, 0, copies / dies + upb).min(p2l_chunks);
        p2l = p2l.saturating_add(spread_bytes(copies, new, run_shift));
        if holds_data {
            let old = if j.random { p2l_chunks } else { new };
            p2l = p2l.saturating_add(spread_bytes(copies, old, run_shift));
        }
    }
    let l2p_whole = l2p_len.div_ceil(CHUNK_LEN as u64) * CHUNK_BYTES;
    let mut run_maps = l2p
        .min(l2p_whole)
        .saturating_add(p2l.min(whole - l2p_whole));
    if !keep_prepared {
        // Chunks preparation stored into are stored in place.
        run_maps = run_maps.min(whole - prepared_maps);
    }

    let oracle = match (verify, fills_all) {
        (false, _) => 0,
        (true, true) => 4 * (l2p_len + p2l_len),
        (true, false) => oracle_bytes.min(4 * (l2p_len + p2l_len)),
    };
    let place = dev.map_placement();
    let segments = if place.whole { 0 } else { place.segments };
    let blocks = geo.total_blocks() as u64;
    let job_count: u64 = jobs.iter().map(|w| u64::from(w.numjobs.max(1))).sum();
    // A job's logs grow with the simulated time it has I/O in: its runtime, or the time
    // its I/O take on this drive (`run_time_ns`), at most a window per I/O.
    let busy_ns = run_time_ns(dev, &geo, jobs, aged, free_units);
    let logs: u64 = jobs
        .iter()
        .map(|w| {
            let windows = match w.runtime {
                Some(r) => (r.ns() + w.ramp_time.ns()) / BW_WINDOW_NS + 1,
                None => (busy_ns / BW_WINDOW_NS + 1).min(job_ios(w, capacity).max(1)),
            };
            // fio's per-I/O logs (`log_completions`): a record and its JSON per I/O.
            let per_io = if w.log_completions {
                job_ios(w, capacity).saturating_mul(COMPLETION_BYTES)
            } else {
                0
            };
            windows
                .saturating_mul(LOG_WINDOW_BYTES)
                .saturating_add(per_io)
                .saturating_mul(u64::from(w.numjobs.max(1)))
        })
        .fold(0u64, u64::saturating_add);
    let prep_buffers = if aged && geo.total_units() > super::prep::DIRECT_LIMIT_UNITS {
        16 * super::bulk_store::batch_len(l2p_len as usize) as u64
    } else {
        0
    };
    MemoryEstimate {
        prepared_maps,
        run_maps,
        prep_buffers,
        oracle,
        fixed: PER_BLOCK_BYTES * blocks + PER_SEGMENT_BYTES * segments,
        base: BASE_BYTES,
        jobs: (job_count.max(1) * JOB_BYTES).saturating_add(logs),
        job_count: job_count.max(1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{load_device, load_jobs, DeviceSpec};

    fn device(preset: &str) -> DeviceConfig {
        load_device(&DeviceSpec::Preset(preset.into()), &[]).unwrap()
    }

    fn jobs(dev: &DeviceConfig, sets: &[&str]) -> Vec<WorkloadConfig> {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        load_jobs("{}", &sets, dev.capacity_bytes()).unwrap()
    }

    const MIB: u64 = 1 << 20;

    #[test]
    fn a_read_of_a_full_drive_costs_no_map_and_an_aged_drive_both_maps() {
        let dev = device("client-tlc-dram");
        let read = jobs(&dev, &["rw=randread", "number_ios=2000"]);
        let e = estimate(&dev, DriveState::Full, &read, false, false, OVERLAY_SHIFT);
        assert_eq!((e.prepared_maps, e.run_maps, e.oracle), (0, 0, 0));
        assert!(e.total() < 40 * MIB, "{e:?}");
        let bound = dev.memory_estimate_bytes(false, false);
        let aged = estimate(&dev, DriveState::Steady, &read, false, false, OVERLAY_SHIFT);
        // Both maps, and while it prepares the batches of its l2p stores (16 bytes a
        // store, a batch of 1/16 of the entries).
        let steady = aged.total() - aged.prep_buffers;
        assert!(
            steady > bound * 9 / 10 && steady < bound * 11 / 10,
            "{steady} {bound}"
        );
        assert!(
            aged.prep_buffers > 0 && aged.prep_buffers <= bound / 8,
            "{aged:?}"
        );
        // With the oracle a full drive's tags are all written by the fill.
        let v = estimate(&dev, DriveState::Full, &read, true, false, OVERLAY_SHIFT);
        assert!(v.oracle > 900 * MIB, "{v:?}");
    }

    #[test]
    fn writes_cost_what_they_can_store_and_a_runtime_everything() {
        let dev = device("client-tlc-dram");
        let whole = dev.memory_estimate_bytes(false, false) - BASE_BYTES;
        let few = jobs(&dev, &["rw=randwrite", "number_ios=2000"]);
        let e = estimate(&dev, DriveState::Fresh, &few, false, false, OVERLAY_SHIFT);
        assert!(e.run_maps > 0 && e.run_maps < MIB, "{e:?}");
        let timed = jobs(&dev, &["rw=randwrite", "runtime=1s"]);
        let e = estimate(&dev, DriveState::Full, &timed, false, false, OVERLAY_SHIFT);
        assert!(e.run_maps > whole * 9 / 10, "{e:?} {whole}");
        assert!(e.jobs > JOB_BYTES, "the runtime's log windows count: {e:?}");
        let seq = jobs(&dev, &["rw=write", "bs=128k", "size=1GiB"]);
        let e = estimate(&dev, DriveState::Full, &seq, false, false, OVERLAY_SHIFT);
        assert!(e.run_maps < 64 * MIB, "{e:?}");
    }

    #[test]
    fn a_long_run_bounded_by_number_ios_counts_its_log_windows() {
        // emmc-32g, steady, 2 M random writes: 5,287 simulated s, 10,574 windows of
        // ~4 KiB (102 MiB peak; 66 MiB estimated when only a runtime counted windows).
        let dev = device("emmc-32g");
        let long = jobs(&dev, &["rw=randwrite", "number_ios=2000000"]);
        let e = estimate(&dev, DriveState::Steady, &long, false, false, OVERLAY_SHIFT);
        let logs = e.jobs - JOB_BYTES;
        assert!(logs > 30 * MIB && logs < 80 * MIB, "{e:?}");
        // A short run: a few windows (2,000 writes: 5.3 simulated s).
        let short = jobs(&dev, &["rw=randwrite", "number_ios=2000"]);
        let e = estimate(
            &dev,
            DriveState::Steady,
            &short,
            false,
            false,
            OVERLAY_SHIFT,
        );
        assert!(e.jobs - JOB_BYTES <= 16 * LOG_WINDOW_BYTES, "{e:?}");
        // Paced I/O: 20,000 reads at 2 per second take 10,000 s, at most a window each.
        let paced = jobs(&dev, &["rw=randread", "number_ios=20000", "rate_iops=2"]);
        let e = estimate(&dev, DriveState::Full, &paced, false, false, OVERLAY_SHIFT);
        assert_eq!(e.jobs - JOB_BYTES, 20_000 * LOG_WINDOW_BYTES, "{e:?}");
        let paced = jobs(&dev, &["rw=randread", "number_ios=20", "rate_iops=2"]);
        let e = estimate(&dev, DriveState::Full, &paced, false, false, OVERLAY_SHIFT);
        assert_eq!(e.jobs - JOB_BYTES, 20 * LOG_WINDOW_BYTES, "{e:?}");
        // A host thread that takes 1 s per I/O paces the job the same way.
        let slow_host = jobs(
            &dev,
            &["rw=randread", "number_ios=2000", "host_cpu_per_io=1s"],
        );
        let e = estimate(
            &dev,
            DriveState::Full,
            &slow_host,
            false,
            false,
            OVERLAY_SHIFT,
        );
        assert_eq!(e.jobs - JOB_BYTES, 2_000 * LOG_WINDOW_BYTES, "{e:?}");
    }

    #[test]
    fn jobs_are_counted_with_their_clones() {
        let dev = device("tiny-test");
        let many = jobs(&dev, &["rw=randread", "numjobs=256"]);
        let e = estimate(&dev, DriveState::Full, &many, false, false, OVERLAY_SHIFT);
        assert_eq!(e.job_count, 256);
        // Each with the log windows of one pass of all of them over tiny-test (1.6 M
        // reads of a page at 50 us on 4 dies: 20 s, 40 windows; twice that at most).
        let logs = e.jobs - 256 * JOB_BYTES;
        assert!(
            (256 * 40 * LOG_WINDOW_BYTES..=256 * 100 * LOG_WINDOW_BYTES).contains(&logs),
            "{e:?}"
        );
        let few = jobs(&dev, &["rw=randread", "numjobs=256", "number_ios=20"]);
        let e = estimate(&dev, DriveState::Full, &few, false, false, OVERLAY_SHIFT);
        assert_eq!(e.jobs, 256 * (JOB_BYTES + LOG_WINDOW_BYTES));
    }

    #[test]
    fn a_demand_paged_map_stores_its_translation_pages_when_prepared() {
        let dev = device("mqsim-default");
        let read = jobs(&dev, &["rw=randread", "number_ios=2000"]);
        let full = estimate(&dev, DriveState::Full, &read, false, false, OVERLAY_SHIFT);
        let fresh = estimate(&dev, DriveState::Fresh, &read, false, false, OVERLAY_SHIFT);
        assert_eq!(fresh.prepared_maps, 0);
        // The translation units' L2P chunk (30,474 stores: copied) and, for each of
        // the 64 dies, its pool's reverse-map entries kept aside (fewer than 16,384
        // a chunk), not 64 copied chunks (128 MiB).
        assert!(full.prepared_maps >= 2 * MIB + 64 * 1024 * 32, "{full:?}");
        assert!(full.prepared_maps <= 2 * MIB + 64 * 16384 * 32, "{full:?}");
    }

    #[test]
    fn chunk_counts_are_exact() {
        let c = CHUNK_LEN as u64;
        assert_eq!(chunks(0, 0, 10 * c), 0);
        assert_eq!(chunks(0, 1, 10 * c), 1);
        assert_eq!(chunks(c - 1, c + 1, 10 * c), 2);
        assert_eq!(chunks(0, 100 * c, 10 * c), 10);
        assert_eq!(
            spread_bytes(100, 10, OVERLAY_SHIFT),
            100 * OVERLAY_ENTRY_BYTES
        );
        assert_eq!(spread_bytes(c, 1, OVERLAY_SHIFT), CHUNK_BYTES);
    }
}
