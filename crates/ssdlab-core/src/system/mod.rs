//! A system: initiator hosts, NVMe-oF targets, a fabric between them, and drives that
//! are attached to a host locally (PCIe) or sit behind a target. Every drive runs the
//! same workload (its own copy of the jobs, as fio with one section per drive), and
//! all of them advance on one clock: the loop always handles the earliest event of
//! any drive (ties go to the lower drive index), so drives meet in time order at the
//! resources they share (the fabric's ports, the targets' and hosts' cores). On
//! several threads (`parallel.rs`, the default with several drives) the drives run
//! in windows between their fabric calls, which are made in that same order: the
//! report is byte-identical for any number of threads.
//!
//! Simplifies: each drive keeps its own event queue and the system merges them
//! (equivalent to one queue keyed by time and drive, and it leaves a single drive's
//! loop exactly as it was); a local drive's host side (driver CPU) is not modelled,
//! as in a single-drive run; drives behind a target use a port pair chosen by drive
//! order on each host and target (static multipath); identical drives share one prepared drive copy-on-write.

mod config;
mod parallel;

pub(crate) use config::DriveInstance;
pub use config::{
    is_system_toml as config_is_system, DriveSpec, HostSpec, SystemConfig, TargetSpec,
};

use crate::config::units::Bytes as Size;
use crate::config::{ConfigError, WorkloadConfig};
use crate::fabric::{Fabric, Node, NodeStats, Path};
use crate::sim::Ns;
use crate::ssd::{RunOptions, Ssd};
use crate::stats::{max_dirs, JobStats};
use serde_json::{json, Value};
use std::cmp::Reverse;
use std::collections::binary_heap::PeekMut;
use std::collections::BinaryHeap;
use std::sync::{Arc, Mutex};

/// One drive of the system and where it is attached.
struct Member {
    name: String,
    host: u32,
    target: Option<u32>,
    /// None: no job uses the drive (it idles through the run).
    ssd: Option<Ssd>,
    /// For each of the drive's job sections, its index in the system's workload.
    job_index: Vec<usize>,
    active: usize,
}

/// A built system, ready to run.
pub struct System {
    cfg: SystemConfig,
    drives: Vec<Member>,
    fabric: Option<Arc<Mutex<Fabric>>>,
    jobs: Vec<WorkloadConfig>,
    seed: u64,
    /// Stop the run when the process's map memory passes this (bytes; 0 = no limit).
    memory_limit: u64,
    /// The map memory seen when the run was stopped for `memory_limit`.
    memory_exceeded: Option<u64>,
    /// Threads of the system loop (0: one per available core, at most one per drive).
    threads: usize,
}

/// The seed of drive `i`'s jobs: drive 0 keeps the run's seed (a one-drive system runs
/// exactly as the drive alone), the others get their own streams.
fn drive_seed(seed: u64, i: usize) -> u64 {
    if i == 0 {
        seed
    } else {
        seed ^ (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
    }
}

/// The jobs drive `i` runs: every job without `filename` (each drive runs its own
/// copy, as fio with one job section per drive) and every job whose `filename` names
/// it, a job that spreads over `n` drives split into `n` equal shares (iodepth, number_ios,
/// io_size and size divided, at least one each), and each job's index in `jobs`.
fn jobs_of_drive(
    jobs: &[WorkloadConfig],
    uses: &[Vec<usize>],
    i: usize,
) -> (Vec<WorkloadConfig>, Vec<usize>) {
    let mut out = Vec::new();
    let mut index = Vec::new();
    for (k, job) in jobs.iter().enumerate() {
        let Some(p) = uses[k].iter().position(|&d| d == i) else {
            continue;
        };
        let n = uses[k].len() as u64;
        let mut j = job.clone();
        // A job without filename runs whole on every drive (one copy per drive).
        if n > 1 && job.filename.is_some() {
            let share = |v: u64| (v / n + u64::from((p as u64) < v % n)).max(1);
            j.iodepth = share(j.iodepth as u64) as u32;
            j.number_ios = j.number_ios.map(share);
            j.io_size = j.io_size.map(|s| Size(share(s.0 / 512) * 512));
            j.size = j.size.map(|s| Size(share(s.0 / 4096) * 4096));
        }
        out.push(j);
        index.push(k);
    }
    (out, index)
}

/// For each job, the drives it uses (indices), from its `filename`.
fn job_drives(jobs: &[WorkloadConfig], names: &[String]) -> Result<Vec<Vec<usize>>, ConfigError> {
    let mut uses = Vec::new();
    for (k, job) in jobs.iter().enumerate() {
        let Some(f) = &job.filename else {
            uses.push((0..names.len()).collect());
            continue;
        };
        let mut drives = Vec::new();
        for part in f.split(':').filter(|p| !p.is_empty()) {
            let Some(d) = names.iter().position(|n| n == part) else {
                let shown = if names.len() > 8 {
                    format!(
                        "{} ... {}",
                        names[..4].join(", "),
                        names[names.len() - 2..].join(", ")
                    )
                } else {
                    names.join(", ")
                };
                return Err(ConfigError {
                    source: "workload".into(),
                    message: format!(
                        "job {} ({}): filename '{part}' names no drive of the system (drives: {shown})",
                        k + 1,
                        job.name.as_deref().unwrap_or("unnamed")
                    ),
                });
            };
            if !drives.contains(&d) {
                drives.push(d);
            }
        }
        if drives.is_empty() {
            return Err(ConfigError {
                source: "workload".into(),
                message: format!("job {}: filename '{f}' names no drive", k + 1),
            });
        }
        uses.push(drives);
    }
    Ok(uses)
}

/// The smallest drive's capacity: what a workload run on every drive is checked against.
pub(crate) fn smallest_capacity(drives: &[DriveInstance]) -> u64 {
    drives
        .iter()
        .map(|d| d.device.capacity_bytes())
        .min()
        .unwrap_or(0)
}

/// Memory a system run needs before it stores anything, in bytes, and the jobs it
/// counts: what each distinct prepared drive stores once (identical drives share it
/// copy-on-write; `ftl::estimate`; with `verify` every drive prepares its own), each
/// drive's own per-block state, oracle and jobs, and the fixed allowance once. What
/// the drives' writes copy out of the shared maps is watched while the run goes
/// (`run_resolved`).
pub(crate) fn memory_estimate_bytes(
    drives: &[DriveInstance],
    jobs: &[WorkloadConfig],
    opts: &RunOptions,
) -> Result<(u64, u64), ConfigError> {
    let names: Vec<String> = drives.iter().map(|d| d.name.clone()).collect();
    let uses = job_drives(jobs, &names)?;
    let mut keys = std::collections::BTreeSet::new();
    let (mut bytes, mut job_count) = (crate::ftl::estimate::BASE_BYTES, 0u64);
    for (i, d) in drives.iter().enumerate() {
        let (own, _) = jobs_of_drive(jobs, &uses, i);
        if own.is_empty() {
            continue; // not built
        }
        let e = crate::ftl::estimate::estimate(
            &d.device,
            opts.state,
            &own,
            opts.verify,
            true,
            crate::ftl::map_array::OVERLAY_SHIFT,
        );
        let prepares = keys.insert(crate::ssd::prep_key(&d.device)) || opts.verify;
        let own_bytes = e.fixed + e.oracle + e.jobs + if prepares { e.prepared_maps } else { 0 };
        bytes = bytes.saturating_add(own_bytes);
        job_count += e.job_count;
    }
    Ok((bytes, job_count))
}

/// The drives that prepare differently, by prep key (`ssd::prep_key`; the first drive
/// of each key): identical drives share one prepared drive.
pub(crate) fn distinct_prepared(
    drives: &[DriveInstance],
) -> std::collections::BTreeMap<String, &DriveInstance> {
    let mut out = std::collections::BTreeMap::new();
    for d in drives {
        out.entry(crate::ssd::prep_key(&d.device)).or_insert(d);
    }
    out
}

impl System {
    /// Build every drive (identical drives share one prepared drive) and the fabric.
    pub fn build(
        cfg: SystemConfig,
        jobs: &[WorkloadConfig],
        opts: RunOptions,
    ) -> Result<Self, ConfigError> {
        Self::build_reusing(cfg, jobs, opts, false)
    }

    /// As `build`; `keep_prepared`: leave the prepared drive in the process's cache
    /// for the next run (a sweep's points that prepare the same drives), as
    /// `run(..., reuse_prep=True)` does for one drive.
    pub fn build_reusing(
        cfg: SystemConfig,
        jobs: &[WorkloadConfig],
        opts: RunOptions,
        keep_prepared: bool,
    ) -> Result<Self, ConfigError> {
        let specs = cfg.drives()?;
        Self::build_from(cfg, specs, jobs, opts, keep_prepared)
    }

    /// As `build_reusing`, with the drives already resolved (`SystemConfig::drives`).
    pub(crate) fn build_from(
        cfg: SystemConfig,
        specs: Vec<DriveInstance>,
        jobs: &[WorkloadConfig],
        opts: RunOptions,
        keep_prepared: bool,
    ) -> Result<Self, ConfigError> {
        let fabric = cfg.fabric_model()?.map(|f| Arc::new(Mutex::new(f)));
        let names: Vec<String> = specs.iter().map(|d| d.name.clone()).collect();
        let uses = job_drives(jobs, &names)?;
        let mut drives = Vec::new();
        // Drives on each host and target so far: a drive takes the next port of each.
        let mut on_host = vec![0usize; cfg.host_count()];
        let mut on_target = vec![0usize; cfg.target.len()];
        for spec in specs {
            let i = drives.len();
            let (own, job_index) = jobs_of_drive(jobs, &uses, i);
            let mut ssd = if own.is_empty() {
                None
            } else {
                let mut ssd = Ssd::with_jobs_reusing(spec.device.clone(), own, opts.clone(), true)?;
                ssd.reseed_jobs(drive_seed(opts.seed, i));
                Some(ssd)
            };
            if let (Some(t), Some(f)) = (spec.target, &fabric) {
                let (hp, tp) = {
                    let f = f.lock().unwrap_or_else(|e| e.into_inner());
                    (
                        on_host[spec.host as usize] % f.hosts[spec.host as usize].ports(),
                        on_target[t as usize] % f.targets[t as usize].ports(),
                    )
                };
                on_host[spec.host as usize] += 1;
                on_target[t as usize] += 1;
                let path = Path {
                    host: spec.host,
                    target: t,
                    host_port: hp as u32,
                    target_port: tp as u32,
                };
                if let Some(ssd) = &mut ssd {
                    ssd.set_remote(f.clone(), path);
                }
            }
            drives.push(Member {
                name: spec.name,
                host: spec.host,
                target: spec.target,
                ssd,
                job_index,
                active: 0,
            });
        }
        if !keep_prepared {
            crate::ssd::clear_prepared();
        }
        Ok(System {
            cfg,
            drives,
            fabric,
            jobs: jobs.to_vec(),
            seed: opts.seed,
            memory_limit: 0,
            memory_exceeded: None,
            threads: 0,
        })
    }

    /// Run until every drive's jobs are done. `progress` as in `Ssd::run`.
    ///
    /// The drives wait in a heap keyed by (next event time, drive index): a drive's
    /// next event changes only when it handles one itself (shared resources are
    /// reserved, never scheduled into another drive), so popping the least key and
    /// pushing the drive back is the same order as scanning every drive.
    ///
    /// On several threads (`set_threads`) the drives run in parallel windows between
    /// fabric calls (`parallel.rs`), with the same result.
    pub fn run(&mut self, progress: &mut dyn FnMut(f64) -> bool) {
        for d in self.drives.iter_mut() {
            if let Some(ssd) = &mut d.ssd {
                d.active = ssd.begin_run();
            }
        }
        let threads = self.threads();
        let lookahead = match &self.fabric {
            Some(f) => parallel::lookahead_ns(&f.lock().unwrap_or_else(|e| e.into_inner())),
            None => Ns::MAX,
        };
        if threads > 1 && lookahead > 0 {
            let limit = self.memory_limit;
            let mut exceeded = None;
            let mut windows = 0u32;
            let outcome = parallel::run(
                &mut self.drives,
                self.fabric.as_deref(),
                lookahead,
                threads,
                &mut |done| {
                    if limit > 0 {
                        let now = crate::ftl::map_array::allocated_bytes();
                        if now > limit {
                            exceeded = Some(now);
                            return true;
                        }
                    }
                    windows = windows.wrapping_add(1);
                    windows.is_multiple_of(64) && !progress(done)
                },
            );
            self.memory_exceeded = exceeded;
            if matches!(outcome, parallel::Outcome::Finished) {
                return;
            }
        }
        self.run_serial(progress);
    }

    /// Threads the loop runs on: as set (`set_threads`), else one per available core,
    /// at most one per drive that runs jobs.
    pub fn threads(&self) -> usize {
        let busy = self.drives.iter().filter(|d| d.ssd.is_some()).count();
        let n = if self.threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            self.threads
        };
        n.min(busy).max(1)
    }

    /// Run the system loop on `threads` threads (0: one per available core); the
    /// report does not depend on it.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads;
    }

    /// The single-threaded loop, from wherever the drives are (their jobs begun): the
    /// drive with the earliest next event, ties to the lower index, handles it.
    fn run_serial(&mut self, progress: &mut dyn FnMut(f64) -> bool) {
        let mut ready = BinaryHeap::new();
        for (i, d) in self.drives.iter_mut().enumerate() {
            if let Some(ssd) = &mut d.ssd {
                if d.active > 0 {
                    ready.push(Reverse(drive_key(ssd.next_event_ns(), i)));
                }
            }
        }
        let total = self.drives.len().max(1);
        let mut tick = 0u32;
        loop {
            let Some(mut top) = ready.peek_mut() else {
                break;
            };
            let i = top.0 as u32 as usize;
            let d = &mut self.drives[i];
            let Some(ssd) = &mut d.ssd else {
                PeekMut::pop(top);
                continue;
            };
            ssd.step(&mut d.active);
            if d.active > 0 {
                // Re-key the drive in place: one sift down, none when it stays first.
                top.0 = drive_key(ssd.next_event_ns(), i);
                drop(top);
            } else {
                PeekMut::pop(top);
            }
            tick = tick.wrapping_add(1);
            // A drive's event copies at most a few 2 MiB chunks: looking every 64
            // events keeps a run within ~0.5 GiB of its limit at one load per event.
            if tick & 0x3F == 0 && self.memory_limit > 0 {
                let now = crate::ftl::map_array::allocated_bytes();
                if now > self.memory_limit {
                    self.memory_exceeded = Some(now);
                    break;
                }
            }
            if tick & 0xFFFF == 0 {
                let done = total - ready.len();
                if !progress(done as f64 / total as f64) {
                    break;
                }
            }
        }
    }

    /// The system's report: totals over every drive (fio's per-direction blocks), per
    /// host, per target, and each drive's own report under `drives`.
    pub fn report(&self, wall_time_s: f64) -> crate::Report {
        let mut total = JobStats::default();
        let mut runtime = 0;
        let mut total_dirs = [0; 3];
        // Per host: statistics, runtime, per-direction runtimes, its drives.
        let mut hosts: Vec<(JobStats, u64, [u64; 3], Vec<usize>)> =
            vec![(JobStats::default(), 0, [0; 3], Vec::new()); self.cfg.host_count()];
        let mut drives = Vec::new();
        let mut sim_ns = 0;
        let mut events = 0;
        let mut stalled = Vec::new();
        // Per job section and clone: its threads' statistics over every drive it used.
        let mut job_totals: Vec<Vec<(JobStats, u64, [u64; 3])>> = self
            .jobs
            .iter()
            .map(|j| vec![(JobStats::default(), 0, [0; 3]); j.numjobs as usize])
            .collect();
        for (i, d) in self.drives.iter().enumerate() {
            hosts[d.host as usize].3.push(i);
            let Some(ssd) = &d.ssd else {
                drives.push(json!({
                    "name": d.name,
                    "host": self.cfg.host_name(d.host),
                    "target": d.target.map(|t| self.cfg.target_name(t)),
                    "idle": true,
                }));
                continue;
            };
            let (st, rt, drt) = ssd.total_stats();
            total.merge(&st);
            runtime = runtime.max(rt);
            total_dirs = max_dirs(total_dirs, drt);
            let h = &mut hosts[d.host as usize];
            h.0.merge(&st);
            h.1 = h.1.max(rt);
            h.2 = max_dirs(h.2, drt);
            let mut clone = 0;
            let mut last = usize::MAX;
            for (cfg, js) in ssd.job_threads() {
                clone = if cfg == last { clone + 1 } else { 0 };
                last = cfg;
                let slot = &mut job_totals[d.job_index[cfg]][clone];
                slot.0.merge(js);
                slot.1 = slot.1.max(js.runtime_ns());
                slot.2 = max_dirs(slot.2, js.dir_runtimes_ns());
            }
            let (now, n_events) = ssd.clock();
            sim_ns = sim_ns.max(now);
            events += n_events;
            if let Some(s) = &ssd.stalled {
                stalled.push(format!("{}: {s}", d.name));
            }
            let mut r = ssd.report(0.0).json;
            r["name"] = json!(d.name);
            r["host"] = json!(self.cfg.host_name(d.host));
            r["target"] = json!(d.target.map(|t| self.cfg.target_name(t)));
            for k in ["config", "workload", "job_configs", "wall_time_s"] {
                if let Value::Object(m) = &mut r {
                    m.remove(k);
                }
            }
            drives.push(r);
        }
        let mut job_reports = Vec::new();
        for (k, clones) in job_totals.iter().enumerate() {
            let spec = &self.jobs[k];
            for (st, rt, drt) in clones {
                let mut o = crate::ssd::dirs_json_timed(st, *rt, *drt);
                o["jobname"] = json!(spec.name.clone().unwrap_or_else(|| format!("job{k}")));
                o["groupid"] = json!(spec.group);
                o["job_runtime"] = json!((*rt as f64 / 1e6).round() as u64);
                o["filename"] = json!(spec.filename);
                job_reports.push(o);
            }
        }
        let fabric = self
            .fabric
            .as_ref()
            .map(|f| f.lock().unwrap_or_else(|e| e.into_inner()).clone());
        let node_json = |n: Option<&Node>, cores: u32| -> Value {
            let mut st = n.map(|n| n.stats.clone()).unwrap_or_default();
            st.cpu_busy_ns = n.map_or(0, |n| n.cpu_busy_by(sim_ns));
            node_stats(&st, cores, sim_ns)
        };
        let host_reports: Vec<Value> = hosts
            .iter()
            .enumerate()
            .map(|(h, (st, rt, drt, ds))| {
                let mut o = crate::ssd::dirs_json_timed(st, *rt, *drt);
                o["name"] = json!(self.cfg.host_name(h as u32));
                o["drives"] = json!(ds);
                let node = fabric.as_ref().and_then(|f| f.hosts.get(h));
                o["fabric"] = node_json(node, self.cfg.host_cores(h as u32));
                o
            })
            .collect();
        let target_reports: Vec<Value> = (0..self.cfg.target.len())
            .map(|t| {
                let node = fabric.as_ref().and_then(|f| f.targets.get(t));
                let mut o = node_json(node, self.cfg.target[t].cores);
                o["name"] = json!(self.cfg.target[t].name);
                o
            })
            .collect();
        let mut out = json!({
            "ssdlab_version": crate::VERSION,
            "seed": self.seed,
            "system": self.cfg.name,
            "sim_time_ns": sim_ns,
            "wall_time_s": wall_time_s,
            "events": events,
            "stalled": if stalled.is_empty() { Value::Null } else { json!(stalled.join("; ")) },
        });
        let all = crate::ssd::dirs_json_timed(&total, runtime, total_dirs);
        for name in ["read", "write", "trim"] {
            out[name] = all[name].clone();
        }
        out["jobs"] = json!(job_reports);
        out["hosts"] = json!(host_reports);
        out["targets"] = json!(target_reports);
        out["fabric"] = serde_json::to_value(fabric.as_ref().map(|f| &f.cfg)).expect("fabric");
        out["drives"] = json!(drives);
        crate::Report { json: out }
    }
}

fn node_stats(st: &NodeStats, cores: u32, sim_ns: u64) -> Value {
    let frac = |busy: u64, n: u64| {
        if sim_ns == 0 || n == 0 {
            0.0
        } else {
            busy as f64 / (sim_ns as f64 * n as f64)
        }
    };
    json!({
        "commands": st.commands,
        "tx_wire_bytes": st.tx_wire_bytes,
        "rx_wire_bytes": st.rx_wire_bytes,
        "cpu_busy_ns": st.cpu_busy_ns,
        "cpu_utilization": frac(st.cpu_busy_ns, cores as u64),
    })
}

/// Build and run a system; the report as `run_jobs` gives one. The loop runs on one
/// thread per available core, at most one per drive (`run_system_threads`).
pub fn run_system(
    cfg: SystemConfig,
    jobs: Vec<WorkloadConfig>,
    opts: RunOptions,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<crate::Report, ConfigError> {
    run_system_reusing(cfg, jobs, opts, false, progress)
}

/// A drive's place in the single-threaded loop's order as one integer (one compare
/// per heap step): its next event's time, then its index (below 2^32).
fn drive_key(next_ns: Ns, i: usize) -> u128 {
    ((next_ns as u128) << 64) | i as u128
}

/// `run_system` with the loop on `threads` threads (0: one per available core; at
/// most one per drive): the same report whatever the number.
pub fn run_system_threads(
    cfg: SystemConfig,
    jobs: Vec<WorkloadConfig>,
    opts: RunOptions,
    threads: usize,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<crate::Report, ConfigError> {
    let drives = cfg.drives()?;
    run_resolved(cfg, drives, jobs, opts, false, 0, threads, progress)
}

/// `run_system`; `reuse_prep` as in `System::build_reusing`.
pub fn run_system_reusing(
    cfg: SystemConfig,
    jobs: Vec<WorkloadConfig>,
    opts: RunOptions,
    reuse_prep: bool,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<crate::Report, ConfigError> {
    let drives = cfg.drives()?;
    run_resolved(cfg, drives, jobs, opts, reuse_prep, 0, 0, progress)
}

/// `run_system_reusing` with the drives already resolved and a memory limit
/// (`max_memory` bytes, 0 = none; one budget per process, as for one drive): the
/// run is refused before anything is allocated when its prepared drives alone exceed
/// it, and stopped with an error when the maps its writes copy grow past it
/// (checked every 64 events, or after every parallel window); `threads` as in
/// `run_system_threads`.
#[allow(clippy::too_many_arguments)] // the flat call `run_from_specs` forwards to
pub(crate) fn run_resolved(
    cfg: SystemConfig,
    drives: Vec<DriveInstance>,
    jobs: Vec<WorkloadConfig>,
    opts: RunOptions,
    reuse_prep: bool,
    max_memory: u64,
    threads: usize,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<crate::Report, ConfigError> {
    use crate::config::limits;
    if jobs.iter().any(|j| !j.events.is_empty()) {
        return Err(crate::config::err(
            "workload",
            "events: host events are modelled for single-drive runs only (not in a system yet)",
        ));
    }
    if jobs.iter().any(|j| j.settle.is_some()) {
        return Err(crate::config::err(
            "workload",
            "settle: a system run does not take a settle rule yet (run one drive alone, or \
             give the jobs a fixed runtime)",
        ));
    }
    let origin = cfg.origin.clone();
    let (estimate, job_count) = memory_estimate_bytes(&drives, &jobs, &opts)?;
    let _memory =
        limits::reserve_jobs(estimate, job_count, max_memory).map_err(|m| ConfigError {
            source: origin.clone(),
            message: format!(
            "{m} (a system counts each distinct prepared drive once: identical drives share it)"
        ),
        })?;
    let t0 = std::time::Instant::now();
    let mut sys = System::build_from(cfg, drives, &jobs, opts, reuse_prep)?;
    sys.memory_limit = max_memory;
    sys.set_threads(threads);
    let t1 = std::time::Instant::now();
    sys.run(progress);
    if let Some(now) = sys.memory_exceeded {
        return Err(ConfigError {
            source: origin,
            message: limits::grown_memory_error(now, max_memory),
        });
    }
    let mut r = sys.report(t0.elapsed().as_secs_f64());
    r.json["prep_wall_time_s"] = (t1 - t0).as_secs_f64().into();
    r.json["sim_wall_time_s"] = t1.elapsed().as_secs_f64().into();
    Ok(r)
}
