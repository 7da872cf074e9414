//! Helpers shared by the integration tests (each test file uses a subset).
#![allow(dead_code)]

use serde_json::Value;
use ssdlab_core::config::{load_device, load_jobs, load_workload, DeviceConfig, DeviceSpec};
use ssdlab_core::{run, run_jobs, DriveState, RunOptions};

/// A preset with `key=value` overrides applied.
pub fn device(preset: &str, overrides: &[&str]) -> DeviceConfig {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    load_device(&DeviceSpec::Preset(preset.into()), &o).unwrap()
}

/// tiny-test as a zoned drive of 1 MiB zones (32 zones, each a 256 KiB block on each of
/// its 4 dies), with `key=value` overrides.
pub fn zoned_tiny(extra: &[&str]) -> DeviceConfig {
    let mut o = vec!["zns.zone_size_bytes=\"1MiB\""];
    o.extend_from_slice(extra);
    device("tiny-test", &o)
}

/// Run a workload of one job or several (`{"jobs": [...]}`) with seed 1: the report,
/// or the error (loading the jobs or starting the run) as text.
pub fn try_run_jobs(
    dev: &DeviceConfig,
    workload: &str,
    state: DriveState,
    verify: bool,
) -> Result<Value, String> {
    let jobs = load_jobs(workload, &[], dev.capacity_bytes()).map_err(|e| e.to_string())?;
    let opts = RunOptions {
        state,
        seed: 1,
        verify,
    };
    run_jobs(dev.clone(), jobs, opts, &mut |_| true)
        .map(|r| r.json)
        .map_err(|e| e.to_string())
}

/// Run a workload (JSON of fio options) and return the report.
pub fn simulate(
    dev: &DeviceConfig,
    workload: &str,
    state: DriveState,
    seed: u64,
    verify: bool,
) -> Value {
    let wl = load_workload(workload, &[], dev.capacity_bytes()).unwrap();
    run(
        dev.clone(),
        wl,
        RunOptions {
            state,
            seed,
            verify,
        },
        &mut |_| true,
    )
    .unwrap()
    .json
}

pub fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Where the golden reports live (`tests/golden`).
pub fn golden_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

/// The report without the fields that measure the host machine, not the model.
pub fn strip_wall_clock(v: &mut Value) {
    match v {
        Value::Object(m) => {
            m.retain(|k, _| !k.contains("wall_time"));
            m.values_mut().for_each(strip_wall_clock);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_wall_clock),
        _ => {}
    }
}

/// QD1 latency of a 4 KiB read on an idle drive, summed by hand from the config: the
/// doorbell, the command fetch, firmware (command time and a map lookup), the NAND
/// (command cycle, tR, 4 KiB over the channel), the data and the completion to the host.
pub fn qd1_read_4k_ns(dev: &DeviceConfig) -> f64 {
    let p = ssdlab_core::host::Pcie::new(dev);
    let t = ssdlab_core::nand::Timing::new(dev);
    let nand = t.t_cmd + dev.nand.t_read.get(0) + t.bus_ns(4096);
    let to_host = p.wire_ns(4096) + p.wire_ns(16) + p.latency;
    (host_front_ns(dev, &p) + nand + to_host) as f64
}

/// QD1 latency of a 4 KiB write acknowledged once buffered, summed by hand: the
/// doorbell, the command fetch, firmware, the data pulled from the host (request up,
/// data down) and the completion.
pub fn qd1_buffered_write_4k_ns(dev: &DeviceConfig) -> f64 {
    let p = ssdlab_core::host::Pcie::new(dev);
    let lat = p.latency;
    let data = p.wire_ns(0) + lat + p.wire_ns(4096) + lat;
    let cqe = p.wire_ns(16) + lat;
    (host_front_ns(dev, &p) + data + cqe) as f64
}

/// Doorbell, command fetch (request up, 64 B entry down) and firmware time.
fn host_front_ns(dev: &DeviceConfig, p: &ssdlab_core::host::Pcie) -> u64 {
    let lat = p.latency;
    let doorbell = p.wire_ns(4) + lat;
    let fetch = p.wire_ns(0) + lat + p.wire_ns(64) + lat;
    let firmware = dev.controller.cmd_time.ns() + dev.controller.map_lookup.ns();
    doorbell + fetch + firmware
}
