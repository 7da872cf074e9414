//! A system: initiator hosts, NVMe-oF targets, a fabric between them, and drives that
//! are attached to a host locally (PCIe) or sit behind a target. Every drive runs the
//! same workload (its own copy of the jobs, as fio with one section per drive), and
//! all of them advance on one clock: the loop always handles the earliest event of
//! any drive (ties go to the lower drive index), so drives meet in time order at the
//! resources they share (the fabric's ports, the targets' and hosts' cores).
//!
//! Simplifies: each drive keeps its own event queue and the system merges them
//! (equivalent to one queue keyed by time and drive, and it leaves a single drive's
//! loop exactly as it was); a local drive's host side (driver CPU) is not modelled,
//! as in a single-drive run; drives behind a target use a port pair chosen by drive
//! order on each host and target (static multipath); identical drives share one prepared drive copy-on-write.

mod config;

pub use config::{
    is_system_toml as config_is_system, DriveSpec, HostSpec, SystemConfig, TargetSpec,
};

use crate::config::{ConfigError, WorkloadConfig};
use crate::fabric::{Fabric, Node, NodeStats, Path};
use crate::ssd::{RunOptions, Ssd};
use crate::stats::JobStats;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// One drive of the system and where it is attached.
struct Member {
    name: String,
    host: u32,
    target: Option<u32>,
    ssd: Ssd,
    active: usize,
}

/// A built system, ready to run.
pub struct System {
    cfg: SystemConfig,
    drives: Vec<Member>,
    fabric: Option<Arc<Mutex<Fabric>>>,
    seed: u64,
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

impl System {
    /// Build every drive (identical drives share one prepared drive) and the fabric.
    pub fn build(
        cfg: SystemConfig,
        jobs: &[WorkloadConfig],
        opts: RunOptions,
    ) -> Result<Self, ConfigError> {
        let fabric = cfg.fabric_model()?.map(|f| Arc::new(Mutex::new(f)));
        let mut drives = Vec::new();
        // Drives on each host and target so far: a drive takes the next port of each.
        let mut on_host = vec![0usize; cfg.host_count()];
        let mut on_target = vec![0usize; cfg.target.len()];
        for spec in cfg.drives()? {
            let i = drives.len();
            let mut ssd =
                Ssd::with_jobs_reusing(spec.device.clone(), jobs.to_vec(), opts.clone(), true);
            ssd.reseed_jobs(drive_seed(opts.seed, i));
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
                ssd.set_remote(f.clone(), path);
            }
            drives.push(Member {
                name: format!("drive{i}"),
                host: spec.host,
                target: spec.target,
                ssd,
                active: 0,
            });
        }
        crate::ssd::clear_prepared();
        Ok(System {
            cfg,
            drives,
            fabric,
            seed: opts.seed,
        })
    }

    /// Run until every drive's jobs are done. `progress` as in `Ssd::run`.
    pub fn run(&mut self, progress: &mut dyn FnMut(f64) -> bool) {
        for d in &mut self.drives {
            d.active = d.ssd.begin_run();
        }
        let mut tick = 0u32;
        loop {
            let mut next = None;
            let mut at = crate::sim::Ns::MAX;
            for (i, d) in self.drives.iter().enumerate() {
                if d.active > 0 {
                    let t = d.ssd.next_event_ns();
                    if t < at || next.is_none() {
                        at = t;
                        next = Some(i);
                    }
                }
            }
            let Some(i) = next else { break };
            let d = &mut self.drives[i];
            d.ssd.step(&mut d.active);
            tick = tick.wrapping_add(1);
            if tick & 0xFFFF == 0 {
                let done = self.drives.iter().filter(|d| d.active == 0).count();
                if !progress(done as f64 / self.drives.len() as f64) {
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
        let mut hosts: Vec<(JobStats, u64, Vec<usize>)> =
            vec![(JobStats::default(), 0, Vec::new()); self.cfg.host_count()];
        let mut drives = Vec::new();
        let mut sim_ns = 0;
        let mut events = 0;
        let mut stalled = Vec::new();
        for (i, d) in self.drives.iter().enumerate() {
            let (st, rt) = d.ssd.total_stats();
            total.merge(&st);
            runtime = runtime.max(rt);
            let h = &mut hosts[d.host as usize];
            h.0.merge(&st);
            h.1 = h.1.max(rt);
            h.2.push(i);
            let mut r = d.ssd.report(0.0).json;
            sim_ns = sim_ns.max(r["sim_time_ns"].as_u64().unwrap_or(0));
            events += r["events"].as_u64().unwrap_or(0);
            if let Some(s) = &d.ssd.stalled {
                stalled.push(format!("{}: {s}", d.name));
            }
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
        let fabric = self
            .fabric
            .as_ref()
            .map(|f| f.lock().unwrap_or_else(|e| e.into_inner()).clone());
        let node_json = |n: Option<&Node>, cores: u32| -> Value {
            let st = n.map(|n| n.stats.clone()).unwrap_or_default();
            node_stats(&st, cores, sim_ns)
        };
        let host_reports: Vec<Value> = hosts
            .iter()
            .enumerate()
            .map(|(h, (st, rt, ds))| {
                let mut o = crate::ssd::dirs_json(st, *rt);
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
        let all = crate::ssd::dirs_json(&total, runtime);
        for name in ["read", "write", "trim"] {
            out[name] = all[name].clone();
        }
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

/// Build and run a system; the report as `run_jobs` gives one.
pub fn run_system(
    cfg: SystemConfig,
    jobs: Vec<WorkloadConfig>,
    opts: RunOptions,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<crate::Report, ConfigError> {
    let t0 = std::time::Instant::now();
    let mut sys = System::build(cfg, &jobs, opts)?;
    let t1 = std::time::Instant::now();
    sys.run(progress);
    let mut r = sys.report(t0.elapsed().as_secs_f64());
    r.json["prep_wall_time_s"] = (t1 - t0).as_secs_f64().into();
    r.json["sim_wall_time_s"] = t1.elapsed().as_secs_f64().into();
    Ok(r)
}
