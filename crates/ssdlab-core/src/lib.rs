//! ssdlab core: a deterministic discrete-event simulator of one NVMe SSD.
//!
//! Layers, each a module: `sim` (time, events, RNG) -> `nand` (geometry, dies,
//! channels) -> `ftl` (mapping, blocks, GC, preparation) -> `controller` (firmware
//! cores, write buffer, transaction scheduling) -> `host` (PCIe, NVMe queues), plus
//! `workload`, `config`, `stats`, and `ssd` which owns everything and runs the loop.
//! The core never prints; errors are values.

pub mod config;
pub(crate) mod controller;
pub mod energy;
pub mod fabric;
pub mod ftl;
pub mod host;
pub mod interrupt;
pub mod nand;
pub mod sim;
pub mod ssd;
pub(crate) mod stats;
pub mod system;
pub mod trace;
pub mod workload;
pub mod zns;

pub use config::{ConfigError, DeviceConfig, DeviceSpec, WorkloadConfig};
pub use ftl::prep::DriveState;
pub use ssd::{
    clear_prepared, prep_key, AsyncSession, Completion, Report, RunOptions, Session, Ssd,
};

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// Simulate `workload` on `device` and return the report. `progress` receives the
/// fraction done now and then and may return false to stop early. The device and
/// workload are validated first (an error names the field).
pub fn run(
    device: DeviceConfig,
    workload: WorkloadConfig,
    opts: RunOptions,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<Report, ConfigError> {
    run_jobs(device, vec![workload], opts, progress)
}

/// Simulate several job sections (fio-style groups and jobs) on one device.
pub fn run_jobs(
    device: DeviceConfig,
    jobs: Vec<WorkloadConfig>,
    opts: RunOptions,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<Report, ConfigError> {
    run_jobs_reusing(device, jobs, opts, false, progress)
}

/// As `run_jobs`; `reuse_prep` takes the prepared drive from the process's cache of
/// one prepared drive when device, state, seed and area match (same report, less
/// wall time: for sweeps over workloads on one prepared drive).
pub fn run_jobs_reusing(
    device: DeviceConfig,
    jobs: Vec<WorkloadConfig>,
    opts: RunOptions,
    reuse_prep: bool,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<Report, ConfigError> {
    let t0 = std::time::Instant::now();
    let mut ssd = Ssd::with_jobs_reusing(device, jobs, opts, reuse_prep)?;
    // One drive, one clone of the cached prepared drive: copy its map chunks early.
    ssd.ftl.keep_few_overlays();
    let t1 = std::time::Instant::now();
    ssd.run(progress);
    let sim_wall = t1.elapsed().as_secs_f64();
    let mut r = ssd.report(t0.elapsed().as_secs_f64());
    r.json["prep_wall_time_s"] = (t1 - t0).as_secs_f64().into();
    r.json["sim_wall_time_s"] = sim_wall.into();
    Ok(r)
}

/// Resolve everything from text inputs (what the Python layer passes) and run.
/// `max_memory` (bytes, 0 = no limit) refuses a run whose memory estimate exceeds it,
/// before anything is allocated.
#[allow(clippy::too_many_arguments)] // one flat call for the bindings to forward to
pub fn run_from_specs(
    device: &DeviceSpec,
    device_overrides: &[String],
    workload_json: &str,
    workload_overrides: &[String],
    state: &str,
    seed: u64,
    verify: bool,
    reuse_prep: bool,
    max_memory: u64,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<Report, ConfigError> {
    run_from_specs_threads(
        device,
        device_overrides,
        workload_json,
        workload_overrides,
        state,
        seed,
        verify,
        reuse_prep,
        max_memory,
        0,
        progress,
    )
}

/// `run_from_specs` with a system's loop on `threads` threads (0: one per available
/// core, at most one per drive; `system::run_system_threads`): the same report
/// whatever the number. A single drive always runs on one thread.
#[allow(clippy::too_many_arguments)] // one flat call for the bindings to forward to
pub fn run_from_specs_threads(
    device: &DeviceSpec,
    device_overrides: &[String],
    workload_json: &str,
    workload_overrides: &[String],
    state: &str,
    seed: u64,
    verify: bool,
    reuse_prep: bool,
    max_memory: u64,
    threads: usize,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<Report, ConfigError> {
    if let DeviceSpec::Toml { origin, text } = device {
        if system::config_is_system(text) {
            return run_system_from_specs(
                origin,
                text,
                device_overrides,
                workload_json,
                workload_overrides,
                state,
                seed,
                verify,
                reuse_prep,
                max_memory,
                threads,
                progress,
            );
        }
    }
    let dev = config::load_device(device, device_overrides)?;
    let jobs = config::load_jobs(workload_json, workload_overrides, dev.capacity_bytes())?;
    let state = DriveState::parse(state).map_err(|m| ConfigError {
        source: String::new(),
        message: m,
    })?;
    let estimate = ftl::estimate::estimate(
        &dev,
        state,
        &jobs,
        verify,
        reuse_prep,
        ftl::map_array::SOLO_OVERLAY_SHIFT,
    );
    // Held until the run ends: parallel runs share the limit.
    let _memory = config::limits::reserve_jobs(estimate.total(), estimate.job_count, max_memory)
        .map_err(|m| ConfigError {
            source: device.origin(),
            message: m,
        })?;
    let mut warnings = dev.warnings();
    let ramp_ns = jobs.iter().map(|j| j.ramp_time.ns()).max().unwrap_or(0);
    let mut report = run_jobs_reusing(
        dev,
        jobs,
        RunOptions {
            state,
            seed,
            verify,
        },
        reuse_prep,
        progress,
    )?;
    warnings.extend(nothing_measured(&report.json, ramp_ns));
    report.json["warnings"] = warnings.into();
    Ok(report)
}

/// A warning when a run had a ramp and measured no I/O at all: every job stopped
/// (`number_ios`, `io_size`, `size`) before its `ramp_time` ended. fio reports such a
/// run as 0 I/Os; without the warning the summary has no result line and says why nowhere.
fn nothing_measured(report: &serde_json::Value, ramp_ns: u64) -> Option<String> {
    let measured: u64 = ["read", "write", "trim"]
        .iter()
        .map(|d| report[*d]["total_ios"].as_u64().unwrap_or(0))
        .sum();
    let sim_ns = report["sim_time_ns"].as_u64().unwrap_or(0);
    (ramp_ns > 0 && measured == 0).then(|| {
        format!(
            "nothing was measured: the jobs ended at {:.3} ms of simulated time, within \
             ramp_time ({:.3} ms), whose I/O is not counted; shorten ramp_time, or give \
             runtime (and more I/Os) so the jobs run past it",
            sim_ns as f64 / 1e6,
            ramp_ns as f64 / 1e6
        )
    })
}

/// `run_from_specs` for a system file (`[[drive]]` tables): every drive runs the
/// workload; device overrides apply to every drive.
#[allow(clippy::too_many_arguments)]
fn run_system_from_specs(
    origin: &str,
    text: &str,
    device_overrides: &[String],
    workload_json: &str,
    workload_overrides: &[String],
    state: &str,
    seed: u64,
    verify: bool,
    reuse_prep: bool,
    max_memory: u64,
    threads: usize,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<Report, ConfigError> {
    let sys = load_system(origin, text, device_overrides)?;
    let drives = sys.drives()?;
    let capacity = system::smallest_capacity(&drives);
    let jobs = config::load_jobs(workload_json, workload_overrides, capacity)?;
    let state = DriveState::parse(state).map_err(|m| ConfigError {
        source: String::new(),
        message: m,
    })?;
    let opts = RunOptions {
        state,
        seed,
        verify,
    };
    let ramp_ns = jobs.iter().map(|j| j.ramp_time.ns()).max().unwrap_or(0);
    let mut report = system::run_resolved(
        sys, drives, jobs, opts, reuse_prep, max_memory, threads, progress,
    )?;
    let warnings: Vec<String> = nothing_measured(&report.json, ramp_ns)
        .into_iter()
        .collect();
    report.json["warnings"] = warnings.into();
    Ok(report)
}

/// A system file (`[[drive]]` tables) resolved and checked, with `device_overrides`
/// applied to every drive: its hosts, targets, fabric and each drive's resolved config,
/// plus `capacity_bytes` (the smallest drive's, what a workload's area is checked
/// against). Errors as for a device file.
pub fn resolve_system(
    origin: &str,
    text: &str,
    device_overrides: &[String],
) -> Result<serde_json::Value, ConfigError> {
    let sys = load_system(origin, text, device_overrides)?;
    let drives = sys.drives()?;
    let capacity = system::smallest_capacity(&drives);
    let fabric = sys.fabric_model()?.map(|f| f.cfg);
    let drives_json: Vec<serde_json::Value> = drives
        .iter()
        .map(|d| {
            let mut c = serde_json::to_value(&d.device).expect("config serialises");
            c["capacity_bytes"] = d.device.capacity_bytes().into();
            serde_json::json!({
                "name": d.name,
                "host": sys.host_name(d.host),
                "target": d.target.map(|t| sys.target_name(t)),
                "config": c,
            })
        })
        .collect();
    Ok(serde_json::json!({
        "system": sys.name,
        "capacity_bytes": capacity,
        "hosts": (0..sys.host_count() as u32).map(|h| sys.host_name(h)).collect::<Vec<_>>(),
        "targets": sys.target.iter().map(|t| t.name.clone()).collect::<Vec<_>>(),
        "fabric": fabric,
        "drives": drives_json,
    }))
}

/// `prep_key` of a system: its distinct drives' keys (identical drives share one
/// prepared drive, so systems with the same key prepare the same drives, whatever
/// their counts and topology).
pub fn system_prep_key(
    origin: &str,
    text: &str,
    device_overrides: &[String],
) -> Result<String, ConfigError> {
    let sys = load_system(origin, text, device_overrides)?;
    let drives = sys.drives()?;
    let keys: Vec<String> = system::distinct_prepared(&drives).into_keys().collect();
    Ok(serde_json::json!({ "system_drives": keys }).to_string())
}

fn load_system(
    origin: &str,
    text: &str,
    device_overrides: &[String],
) -> Result<system::SystemConfig, ConfigError> {
    let dir = std::path::Path::new(origin)
        .parent()
        .map(|p| p.to_path_buf());
    let mut sys = system::SystemConfig::load(text, origin, dir)?;
    for d in &mut sys.drive {
        d.set.extend(device_overrides.iter().cloned());
    }
    Ok(sys)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run_spec(spec: &DeviceSpec, workload: &str) -> Result<serde_json::Value, ConfigError> {
        run_from_specs(
            spec,
            &[],
            workload,
            &[],
            "full",
            1,
            false,
            false,
            0,
            &mut |_| true,
        )
        .map(|r| r.json)
    }

    fn run_tiny(workload: &str) -> serde_json::Value {
        run_spec(&DeviceSpec::Preset("tiny-test".into()), workload).unwrap()
    }

    #[test]
    fn a_run_that_ends_within_its_ramp_says_nothing_was_measured() {
        let r = run_tiny(r#"{"rw":"randwrite","number_ios":1000,"ramp_time":"1s"}"#);
        assert_eq!(r["write"]["total_ios"], 0);
        let w = r["warnings"].to_string();
        assert!(w.contains("nothing was measured"), "{w}");
        // A ramp the jobs outlast: measured, no warning.
        let r = run_tiny(r#"{"rw":"randwrite","number_ios":1000,"ramp_time":"1ms"}"#);
        assert!(r["write"]["total_ios"].as_u64().unwrap() > 0);
        assert!(!r["warnings"].to_string().contains("nothing was measured"));
    }

    fn run_two_drives(workload: &str) -> Result<serde_json::Value, ConfigError> {
        let spec = DeviceSpec::Toml {
            origin: "two.toml".into(),
            text: "[[drive]]\ndevice = \"tiny-test\"\ncount = 2\n".into(),
        };
        run_spec(&spec, workload)
    }

    #[test]
    fn a_system_run_that_ends_within_its_ramp_says_nothing_was_measured_too() {
        let r = run_two_drives(r#"{"rw":"randwrite","number_ios":500,"ramp_time":"1s"}"#).unwrap();
        assert_eq!(r["write"]["total_ios"], 0);
        assert!(r["warnings"].to_string().contains("nothing was measured"));
        let r = run_two_drives(r#"{"rw":"randwrite","number_ios":500}"#).unwrap();
        assert_eq!(r["warnings"], serde_json::json!([]));
    }

    #[test]
    fn a_system_run_refuses_a_settle_rule() {
        let wl = r#"{"rw":"randwrite","runtime":"12s","settle":{"first_check":"6s"}}"#;
        let e = run_two_drives(wl).unwrap_err().to_string();
        assert!(
            e.contains("settle: a system run does not take a settle rule"),
            "{e}"
        );
    }
}
