//! A fixed system run for profiling (`valgrind --tool=callgrind`) and the `nvmeof-24`
//! bench case: 24 dc-mlc-2016 drives behind one NVMe-oF target (2 x 100 Gb/s), four
//! initiator hosts (2 x 25 Gb/s each), 4 KiB random reads QD16 x 2 jobs per drive.
//! `cargo run --release --example nvmeof24 -- [number_ios per job] [WORKLOAD_JSON] [local]
//! [threads=N]` (a workload replaces the random reads; `local` puts the drives on one
//! host's PCIe; `threads=N` runs the system loop on N threads, default one per core).

use ssdlab_core::config::load_workload;
use ssdlab_core::system::{run_system_threads, SystemConfig};
use ssdlab_core::{DriveState, RunOptions};

fn main() {
    let n: u64 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let args: Vec<String> = std::env::args().collect();
    let local = args.get(3).is_some_and(|a| a == "local");
    let threads: usize = args
        .iter()
        .find_map(|a| a.strip_prefix("threads="))
        .map_or(0, |n| n.parse().expect("threads=N"));
    let mut text = String::from("name = \"nvmeof-24\"\nfabric = \"rdma-kernel-2016\"\n");
    for h in 0..4 {
        text += &format!(
            "[[host]]\nname = \"init{h}\"\nnic_ports = 2\nport_rate = \"25Gb/s\"\ncores = 16\n"
        );
    }
    text += "[[target]]\nname = \"target\"\nnic_ports = 2\nport_rate = \"100Gb/s\"\ncores = 28\n";
    if local {
        text += "[[drive]]\ndevice = \"dc-mlc-2016\"\ncount = 24\nhost = \"init0\"\n";
    } else {
        text += "[[drive]]\ndevice = \"dc-mlc-2016\"\ncount = 24\ntarget = \"target\"\n";
        text += "hosts = [\"init0\", \"init1\", \"init2\", \"init3\"]\n";
    }
    let sys = SystemConfig::load(&text, "nvmeof-24", None).unwrap();
    let wl = args
        .get(2)
        .filter(|a| !a.starts_with("threads="))
        .cloned()
        .unwrap_or_else(|| {
            format!(r#"{{"rw":"randread","bs":"4k","iodepth":16,"numjobs":2,"number_ios":{n}}}"#)
        });
    let wl = load_workload(&wl, &[], 1 << 40).unwrap();
    let opts = RunOptions {
        state: DriveState::Full,
        seed: 1,
        verify: false,
    };
    let r = run_system_threads(sys, vec![wl], opts, threads, &mut |_| true).unwrap();
    let ios = r.json["read"]["total_ios"].as_f64().unwrap()
        + r.json["write"]["total_ios"].as_f64().unwrap();
    let wall = r.json["sim_wall_time_s"].as_f64().unwrap();
    println!(
        "{ios} IOs, {} events, {wall:.3} s simulation loop, {:.0} IOs per wall second, {:.0} simulated IOPS",
        r.json["events"],
        ios / wall,
        r.json["read"]["iops"].as_f64().unwrap() + r.json["write"]["iops"].as_f64().unwrap()
    );
}
