//! The run report: fio-named per-job and total figures, device statistics, the
//! resolved config, seed and version.

use super::stats::{
    ChannelStats, ControllerStats, DeviceStats, DieStats, FtlReport, HmbStats, MapStats, NandStats,
    NvmeStats, OracleStats, PcieStats, ResidentHmbStats, SlcStats, WindowStats,
};
use super::Ssd;
use crate::ftl::FtlStats;
use crate::sim::Ns;
use crate::stats::{max_dirs, JobStats, LatStats};
use serde_json::{json, Value};

/// The FTL counters the measured window reports.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct FtlCounts {
    host_units_written: u64,
    map_units_written: u64,
    units_programmed: u64,
    gc_units_copied: u64,
    gc_victims: u64,
    erases: u64,
}

impl FtlCounts {
    fn of(s: &FtlStats) -> Self {
        FtlCounts {
            host_units_written: s.host_units_written,
            map_units_written: s.map_units_written,
            units_programmed: s.units_programmed,
            gc_units_copied: s.gc_units_copied,
            gc_victims: s.gc_victims,
            erases: s.erases,
        }
    }

    /// `self` plus what changed from `from` to `to`.
    fn plus_delta(self, from: &FtlCounts, to: &FtlCounts) -> Self {
        FtlCounts {
            host_units_written: self.host_units_written + to.host_units_written
                - from.host_units_written,
            map_units_written: self.map_units_written + to.map_units_written
                - from.map_units_written,
            units_programmed: self.units_programmed + to.units_programmed - from.units_programmed,
            gc_units_copied: self.gc_units_copied + to.gc_units_copied - from.gc_units_copied,
            gc_victims: self.gc_victims + to.gc_victims - from.gc_victims,
            erases: self.erases + to.erases - from.erases,
        }
    }
}

/// The device's measured window: FTL counters from the end of each reporting
/// group's ramp_time (the start of the run without one) to the end of the group, as
/// fio measures I/O only after ramp_time. With no ramp it is the whole run.
#[derive(Clone, Debug, Default)]
pub(super) struct Window {
    /// When the window last opened and the counters then (None while closed).
    since: Option<(Ns, FtlCounts)>,
    /// Counts of earlier openings.
    acc: FtlCounts,
    /// When it first opened (None: never yet).
    from_ns: Option<Ns>,
}

impl Window {
    pub fn open(&mut self, now: Ns, stats: &FtlStats) {
        if self.since.is_none() {
            self.since = Some((now, FtlCounts::of(stats)));
            self.from_ns.get_or_insert(now);
        }
    }

    pub fn close(&mut self, stats: &FtlStats) {
        if let Some((at, base)) = self.since.take() {
            let now = FtlCounts::of(stats);
            if now == base && self.acc == FtlCounts::default() && self.from_ns == Some(at) {
                self.from_ns = None; // closed before anything happened in it
            }
            self.acc = self.acc.plus_delta(&base, &now);
        }
    }

    fn counts(&self, stats: &FtlStats) -> FtlCounts {
        match &self.since {
            Some((_, base)) => self.acc.plus_delta(base, &FtlCounts::of(stats)),
            None => self.acc,
        }
    }

    fn stats(&self, stats: &FtlStats) -> WindowStats {
        let c = self.counts(stats);
        WindowStats {
            from_ns: self.from_ns,
            host_units_written: c.host_units_written,
            map_units_written: c.map_units_written,
            units_programmed: c.units_programmed,
            gc_units_copied: c.gc_units_copied,
            gc_victims: c.gc_victims,
            erases: c.erases,
            waf: frac(c.units_programmed, c.host_units_written),
        }
    }
}

/// A finished run's report as a JSON tree.
#[derive(Clone, Debug)]
pub struct Report {
    pub json: Value,
}

impl Report {
    pub fn to_json_string(&self) -> String {
        serde_json::to_string_pretty(&self.json).expect("report serialises")
    }
}

const DIRS: [&str; 3] = ["read", "write", "trim"];

fn frac(num: u64, den: u64) -> f64 {
    if den == 0 {
        0.0
    } else {
        num as f64 / den as f64
    }
}

/// fio's per-direction blocks of one job (or group): iops, bandwidth, slat, clat
/// (percentiles and json+ bins), lat, latency buckets, I/O depths; each direction's
/// IOPS and bandwidth over its own runtime (`JobStats::dir_runtimes_ns`, `max_dirs`).
pub(crate) fn dirs_json_timed(st: &JobStats, runtime_ns: u64, dir_runtimes: [u64; 3]) -> Value {
    let mut o = json!({});
    for (d, name) in DIRS.iter().enumerate() {
        let mut v = st.dirs[d].to_json(dir_runtimes[d]);
        v["slat_ns"] = st.slat[d].to_json(false, false);
        if let Value::Object(m) = st.samplers[d].to_json(runtime_ns) {
            for (k, x) in m {
                v[k] = x;
            }
        }
        v["clat_ns"] = st.clat[d].to_json(true, true);
        o[*name] = v;
    }
    let mut lat = LatStats::default();
    for d in &st.dirs {
        lat.merge(d);
    }
    let (ns, us, ms) = lat.latency_buckets();
    o["latency_ns"] = ns;
    o["latency_us"] = us;
    o["latency_ms"] = ms;
    o["iodepth_level"] = st.iodepth_json();
    if st.sync.ios > 0 {
        // fio's `sync` block (only when flushes were issued: reports without stay as
        // they were).
        let s = &st.sync;
        o["sync"] = json!({
            "total_ios": s.ios,
            "lat_ns": {
                "min": s.min,
                "max": s.max,
                "mean": s.mean(),
                "stddev": s.stddev(),
                "N": s.ios,
            },
        });
    }
    o
}

impl Ssd {
    pub fn report(&self, wall_time_s: f64) -> Report {
        let sim_ns = self.now();
        let mut jobs = Vec::new();
        let mut total = JobStats::default();
        let mut total_runtime = 0;
        let mut total_dirs = [0u64; 3];
        let mut groups: Vec<(u32, JobStats, u64, [u64; 3])> = Vec::new();
        for j in self.jobs.iter() {
            let rt = j.stats.runtime_ns();
            let drt = j.stats.dir_runtimes_ns();
            total_runtime = total_runtime.max(rt);
            total_dirs = max_dirs(total_dirs, drt);
            let mut o = dirs_json_timed(&j.stats, rt, drt);
            o["jobname"] = json!(j.name);
            o["groupid"] = json!(j.group);
            o["job_runtime"] = json!((rt as f64 / 1e6).round() as u64);
            if let Some(log) = &j.iolog {
                o["iolog"] = json!(log);
            }
            if let Some(log) = &j.completions {
                o["completions"] = json!(log);
            }
            let cfg = &self.job_cfgs[j.cfg as usize];
            if cfg
                .zoned
                .as_ref()
                .is_some_and(|z| z.mode == crate::config::zoned_job::ZoneMode::Zbd)
            {
                o["zone_resets"] = json!(j.gen.zone_resets()); // fio's "N zone resets"
            }
            if cfg.trace.is_some() {
                o["trace"] = json!({
                    "stats": cfg.trace_stats,
                    "requests_replayed": j.trace.as_ref().map_or(0, |t| t.issued),
                    "skipped_lines": j.trace.as_ref().map_or(0, |t| t.skipped_lines()),
                    "error": j.trace.as_ref().and_then(|t| t.error.clone()).or(j.trace_error.clone()),
                });
            }
            jobs.push(o);
            total.merge(&j.stats);
            match groups.iter_mut().find(|g| g.0 == j.group) {
                Some(g) => {
                    g.1.merge(&j.stats);
                    g.2 = g.2.max(rt);
                    g.3 = max_dirs(g.3, drt);
                }
                None => groups.push((j.group, j.stats.clone(), rt, drt)),
            }
        }
        let groups: Vec<Value> = groups
            .iter()
            .map(|(g, st, rt, drt)| {
                let mut o = dirs_json_timed(st, *rt, *drt);
                o["groupid"] = json!(g);
                o["job_runtime"] = json!((*rt as f64 / 1e6).round() as u64);
                o
            })
            .collect();
        let mut out = json!({
            "ssdlab_version": crate::VERSION,
            "seed": self.opts.seed,
            "state": self.prep.state,
            "sim_time_ns": sim_ns,
            "stalled": self.stalled,
            "wall_time_s": wall_time_s,
            "events": self.q.processed(),
            "jobs": jobs,
            "groups": groups,
        });
        let all = dirs_json_timed(&total, total_runtime, total_dirs);
        for name in DIRS {
            out[name] = all[name].clone();
        }
        out["device"] = serde_json::to_value(self.device_stats()).expect("device stats");
        if let Some(z) = self.zoned_stats() {
            out["device"]["zns"] = serde_json::to_value(z).expect("zns stats");
        }
        if let Some(f) = self.fdp_stats() {
            out["device"]["fdp"] = serde_json::to_value(f).expect("fdp stats");
        }
        out["prep"] = serde_json::to_value(&self.prep).expect("prep");
        out["config"] = serde_json::to_value(&self.cfg).expect("config");
        out["workload"] = serde_json::to_value(&self.workload).expect("workload");
        if self.job_cfgs.len() > 1 {
            out["job_configs"] = serde_json::to_value(&self.job_cfgs).expect("jobs");
        }
        out["queues"] = json!(self.nvme.queues());
        if let Some(e) = self.energy_json() {
            out["energy"] = e;
        }
        if let Some(ev) = self.host_event_stats() {
            out["host_events"] = serde_json::to_value(ev).expect("host events");
        }
        if let Some(s) = self.settle.json() {
            out["settle"] = s;
        }
        Report { json: out }
    }

    /// The device's statistics now (the report's `device` block, typed).
    pub fn device_stats(&self) -> DeviceStats {
        let sim_ns = self.now();
        let f = &self.ftl.stats;
        let c = &self.counters;
        let ch_util: Vec<f64> = self
            .channels
            .iter()
            .map(|ch| frac(ch.busy_by(sim_ns), sim_ns))
            .collect();
        let die_util: Vec<f64> = self
            .dies
            .iter()
            .map(|d| frac(d.busy_by(sim_ns), sim_ns))
            .collect();
        let mean = |v: &[f64]| {
            if v.is_empty() {
                0.0
            } else {
                v.iter().sum::<f64>() / v.len() as f64
            }
        };
        let maxf = |v: &[f64]| v.iter().cloned().fold(0.0, f64::max);
        let core_util: Vec<f64> = (0..self.cores.busy_ns.len())
            .map(|c| frac(self.cores.busy_by(c, sim_ns), sim_ns))
            .collect();
        let payload = self.pcie.up.payload_bytes + self.pcie.down.payload_bytes;
        let map = match &self.map {
            Some(m) => MapStats::Paged(Box::new(m.stats(payload))),
            None => MapStats::Resident {
                placement: self.cfg.map_placement(),
                hit_rate: 1.0,
                hmb: self.hmb_whole.as_ref().map(|h| ResidentHmbStats {
                    lookups: h.lookups,
                    read_bytes: h.read_bytes,
                    write_bytes: h.write_bytes,
                }),
            },
        };
        let (map_read, map_written) = match &map {
            MapStats::Paged(m) => (m.hmb.read_bytes, m.hmb.write_bytes),
            MapStats::Resident { hmb: Some(h), .. } => (h.read_bytes, h.write_bytes),
            MapStats::Resident { .. } => (0, 0),
        };
        let unit = self.unit_bytes;
        let grant = self.cfg.hmb.negotiate();
        let mut read_cache = self.tiers.read_cache_stats(self.unit_bytes);
        if let (Some(on), Some(r)) = (&mut read_cache.on, &self.read_ahead) {
            on.read_ahead = Some(r.report(self.unit_bytes));
        }
        let write_buffer = self.tiers.write_buffer_stats();
        let (data_read, data_written) = self.tiers.hmb_bytes();
        let hmb_total = map_read + map_written + data_read + data_written;
        let rc_hmb = read_cache
            .on
            .as_ref()
            .map_or(0, |r| r.hmb_read_bytes + r.hmb_write_bytes);
        DeviceStats {
            capacity_bytes: self.cfg.capacity_bytes(),
            raw_bytes: self.cfg.raw_bytes(),
            nand: NandStats {
                read_ops: c.read_ops,
                multiplane_read_ops: c.multiplane_reads,
                user_read_txns: c.user_read_txns,
                rmw_reads: c.rmw_reads,
                gc_read_txns: c.gc_reads,
                program_ops: c.program_ops,
                cached_program_ops: self.cache_program.then_some(c.cached_programs),
                gc_program_ops: c.gc_programs,
                erase_ops: c.erase_ops,
                channel_bytes: self.channels.iter().map(|ch| ch.bytes).sum::<u64>(),
            },
            ftl: FtlReport {
                host_units_written: f.host_units_written,
                gc_units_copied: f.gc_units_copied,
                units_programmed: f.units_programmed,
                waf: self.ftl.waf(),
                gc_victims: f.gc_victims,
                background_gc_victims: self.background_gcs,
                erases: f.erases,
                trimmed_units: f.trimmed_units,
                free_blocks: self.ftl.total_free_blocks(),
                buffer_read_hits: c.buffer_hits,
                unmapped_reads: c.unmapped_reads,
                alloc_stalls: c.alloc_stalls,
                gc_pacing: self.cfg.ftl.gc_pacing,
                gc_urgent_victims: c.gc_urgent_victims,
                measured: self.window.stats(f),
                map_units_written: f.map_units_written,
                map_units_relocated: f.map_units_relocated,
                translation_victims: f.translation_victims,
                translation_blocks: self.ftl.translation_blocks(),
            },
            channels: ChannelStats {
                mean_util: mean(&ch_util),
                max_util: maxf(&ch_util),
                util: ch_util,
            },
            dies: DieStats {
                mean_util: mean(&die_util),
                max_util: maxf(&die_util),
                gc_busy_ns: self.dies.iter().map(|d| d.gc_busy_ns).sum::<u64>(),
                gc_share: frac(
                    self.dies.iter().map(|d| d.gc_busy_ns).sum::<u64>(),
                    self.dies.iter().map(|d| d.busy_ns).sum::<u64>(),
                ),
                chips: self.chip_stats(),
            },
            controller: ControllerStats {
                core_util,
                write_buffer_peak_bytes: self.buffer.peak_units() * self.unit_bytes,
                write_buffer_waits: self.buffer.waits(),
                write_path_util: self
                    .write_path
                    .as_ref()
                    .map(|p| frac(p.busy_by(sim_ns), sim_ns)),
            },
            pcie: PcieStats {
                up_payload_bytes: self.pcie.up.payload_bytes,
                down_payload_bytes: self.pcie.down.payload_bytes,
                up_wire_bytes: self.pcie.up.wire_bytes,
                down_wire_bytes: self.pcie.down.wire_bytes,
                up_util: frac(self.pcie.up.busy_by(sim_ns), sim_ns),
                down_util: frac(self.pcie.down.busy_by(sim_ns), sim_ns),
            },
            nvme: NvmeStats {
                queues: self.nvme.queues(),
                fetches: self.nvme.fetches(),
                fetched_per_queue: self.nvme.fetched_per_queue(),
            },
            map,
            scheduler: self.sched.stats(),
            host_busy_ns: self.host_busy_ns,
            slc: SlcStats {
                enabled: self.geo.native_blocks_per_die < self.geo.blocks_per_die,
                blocks_per_die: self.geo.slc_blocks_per_die(),
                size_bytes: self.cfg.slc_block_bytes()
                    * self.geo.slc_blocks_per_die() as u64
                    * self.geo.dies as u64,
                free_blocks: self.ftl.slc_free_blocks(),
                mode: self.cfg.slc.mode,
                allowed_blocks_per_die: self.ftl.slc_allowed_blocks(),
                mapped_share: frac(self.ftl.mapped_units(), self.ftl.host_units()),
                host_units_to_slc: f.host_units_to_slc,
                host_units_to_native: f.host_units_to_native,
                slc_hit_rate: frac(
                    f.host_units_to_slc,
                    f.host_units_to_slc + f.host_units_to_native,
                ),
                folds: f.folds,
                units_folded: f.units_folded,
                bytes_folded: f.units_folded * unit,
                peak_bytes: f.slc_peak_blocks * self.cfg.slc_block_bytes(),
                lent_blocks: (self.cfg.slc.mode == crate::config::memory::SlcMode::FreeSpace)
                    .then(|| self.ftl.slc_lent_blocks()),
            },
            hmb: HmbStats {
                hmpre_bytes: self.cfg.hmb.hmpre.bytes(),
                hmmin_bytes: self.cfg.hmb.hmmin.bytes(),
                policy: grant.policy,
                status: grant.status,
                note: grant.note.clone(),
                requested_bytes: grant.requested_bytes,
                granted_bytes: grant.granted_bytes,
                descriptors: grant.chunks.len(),
                chunk_bytes: grant.chunks.first().copied().unwrap_or(0),
                layout: self.cfg.hmb_layout(),
                read_bytes: map_read + data_read,
                write_bytes: map_written + data_written,
                map_bytes: map_read + map_written,
                read_cache_bytes: rc_hmb,
                write_buffer_bytes: write_buffer.hmb_read_bytes + write_buffer.hmb_write_bytes,
                pcie_share: frac(hmb_total, payload),
            },
            read_cache,
            write_buffer,
            oracle: self.ftl.oracle().or_else(|| self.zoned_oracle()).map(
                |(checked, mismatches)| OracleStats {
                    checked,
                    mismatches,
                },
            ),
        }
    }
}
