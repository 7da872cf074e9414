//! Helpers shared by the integration tests (each test file uses a subset).
#![allow(dead_code)]

use serde_json::Value;
use ssdlab_core::config::{load_device, load_workload, DeviceConfig, DeviceSpec};
use ssdlab_core::{run, DriveState, RunOptions};

/// A preset with `key=value` overrides applied.
pub fn device(preset: &str, overrides: &[&str]) -> DeviceConfig {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    load_device(&DeviceSpec::Preset(preset.into()), &o).unwrap()
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
