//! `cargo run --release --example stallwatch -- DEVICE 'WORKLOAD_JSON' STATE WINDOW_MS [KEY=VALUE ...]`
//!
//! Prints, every WINDOW_MS of simulated time, the host units written in the window
//! and what holds the drive up (`Ssd::stall_state`: buffer, dies, GC gathering, map
//! journal), to find the waits that leave dies idle.
use ssdlab_core::config::{load_device, load_workload, DeviceSpec};
use ssdlab_core::ftl::prep::DriveState;
use ssdlab_core::{RunOptions, Ssd};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dev_name = args.get(1).cloned().unwrap_or("tiny-test".into());
    let wl = args
        .get(2)
        .cloned()
        .unwrap_or(r#"{"rw":"randwrite","iodepth":32,"runtime":"1s"}"#.into());
    let state = DriveState::parse(args.get(3).map(|s| s.as_str()).unwrap_or("steady")).unwrap();
    let window_ms: u64 = args.get(4).map(|s| s.parse().unwrap()).unwrap_or(100);
    let overrides: Vec<String> = args.iter().skip(5).cloned().collect();
    let dev = load_device(&DeviceSpec::Preset(dev_name), &overrides).unwrap();
    let wl = load_workload(&wl, &[], dev.capacity_bytes()).unwrap();
    let mut ssd = Ssd::new(
        dev,
        wl,
        RunOptions {
            state,
            seed: 1,
            verify: false,
        },
    )
    .unwrap();
    let mut last = 0u64;
    let mut line = |s: &Ssd| {
        let h = s.ftl.stats.host_units_written;
        println!(
            "{:>8.1} ms host {:>6} | {}",
            s.now() as f64 / 1e6,
            h - last,
            s.stall_state()
        );
        last = h;
    };
    ssd.run_observed(&mut |_| true, window_ms * 1_000_000, &mut line);
    if let Some(why) = ssd.stall_reason() {
        println!("stalled at {:.1} ms: {why}", ssd.now() as f64 / 1e6);
    }
}
