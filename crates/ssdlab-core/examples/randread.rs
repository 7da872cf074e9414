//! A fixed run for instruction-count profiling (`valgrind --tool=callgrind`):
//! 4 KiB random reads at QD32 on a full mqsim-default drive.
//! `cargo run --release --example randread -- [number_ios]`

use ssdlab_core::config::{load_device, load_workload, DeviceSpec};
use ssdlab_core::{run, DriveState, RunOptions};

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    let dev = load_device(&DeviceSpec::Preset("mqsim-default".into()), &[]).unwrap();
    let wl = format!(r#"{{"rw":"randread","bs":"4k","iodepth":32,"number_ios":{n}}}"#);
    let wl = load_workload(&wl, &[], dev.capacity_bytes()).unwrap();
    let opts = RunOptions {
        state: DriveState::Full,
        seed: 1,
        verify: false,
    };
    let r = run(dev, wl, opts, &mut |_| true).expect("a valid device and workload");
    println!(
        "{} IOs, {} events, {:.3} s simulation loop",
        r.json["read"]["total_ios"], r.json["events"], r.json["sim_wall_time_s"]
    );
}
