//! Peak memory and time of a system of many identical prepared drives (issue 12
//! item 5: memory that follows the work, not the capacity). The drives share one
//! prepared drive; each copies (or, with the sparse layer, keeps aside) what its run
//! stores into the maps.
//! `cargo run --release --example fleetmem -- DRIVES STATE 'WORKLOAD_JSON' [KEY=VALUE ...]`
//! (device dc-mlc-2016 with the overrides, default a 3.84 TB variant: 4096 blocks per
//! plane, 4 GiB DRAM; the workload runs on every drive) prints the prepared and
//! simulated wall times, IOPS and the process's peak RSS (VmHWM, Linux).
use ssdlab_core::config::load_workload;
use ssdlab_core::system::{run_system, SystemConfig};
use ssdlab_core::{DriveState, RunOptions};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let count: u32 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(24);
    let state = DriveState::parse(args.get(2).map_or("steady", |s| s.as_str())).unwrap();
    let wl = args.get(3).cloned().unwrap_or_else(|| {
        r#"{"rw":"randwrite","bs":"4k","iodepth":32,"number_ios":20000}"#.into()
    });
    let mut set: Vec<String> = args.iter().skip(4).cloned().collect();
    if set.is_empty() {
        set = vec![
            "nand.blocks_per_plane=4096".into(),
            "dram.size=\"4GiB\"".into(),
        ];
    }
    let set = set
        .iter()
        .map(|s| format!("{:?}", s))
        .collect::<Vec<_>>()
        .join(", ");
    let text = format!(
        "name = \"fleet\"\n[[host]]\nname = \"h\"\ncores = 64\n\
         [[drive]]\ndevice = \"dc-mlc-2016\"\ncount = {count}\nhost = \"h\"\nset = [{set}]\n"
    );
    let sys = SystemConfig::load(&text, "fleet", None).unwrap_or_else(|e| panic!("{e}"));
    let wl = load_workload(&wl, &[], 1 << 50).unwrap_or_else(|e| panic!("{e}"));
    let opts = RunOptions {
        state,
        seed: 1,
        verify: false,
    };
    let r = run_system(sys, vec![wl], opts, &mut |_| true).unwrap_or_else(|e| panic!("{e}"));
    let j = &r.json;
    let hwm = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmHWM")).map(String::from))
        .unwrap_or_default();
    println!(
        "{count} drives of {} bytes {state:?} prep_wall_time_s {:.2} sim_wall_time_s {:.2} read_iops {:.0} write_iops {:.0} {hwm}",
        j["drives"][0]["device"]["capacity_bytes"],
        j["prep_wall_time_s"].as_f64().unwrap_or(0.0),
        j["sim_wall_time_s"].as_f64().unwrap_or(0.0),
        j["read"]["iops"].as_f64().unwrap_or(0.0),
        j["write"]["iops"].as_f64().unwrap_or(0.0),
    );
}
