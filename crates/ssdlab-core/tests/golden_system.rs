//! Golden system reports: whole reports of system runs (hosts, NVMe-oF targets, a
//! fabric, local and remote drives) kept in `tests/golden/system-*.json` and compared
//! byte for byte (wall-clock fields left out), with the system loop on one thread and
//! on several (`system::run_system_threads`): the parallel loop must give exactly the
//! single-threaded report, whatever the number of threads.
//!
//! The cases cover each fabric preset (RDMA with in-capsule writes, TCP with R2T and
//! data PDUs), several hosts and targets sharing ports and cores, the host interrupt
//! chain (`host_irq_per_io`), jobs that name some drives (`filename`) and groups that
//! run one after another, an idle drive, GC on aged drives with the read oracle, and a
//! system of local drives only (no fabric: nothing is shared).
//!
//! Regenerate after a change that means to change results, saying why in the commit:
//! `SSDLAB_BLESS=1 cargo test --release -p ssdlab-core --test golden_system`.

mod common;

use common::{golden_dir, strip_wall_clock};
use ssdlab_core::config::load_jobs;
use ssdlab_core::ftl::prep::DriveState;
use ssdlab_core::system::{run_system_threads, SystemConfig};
use ssdlab_core::RunOptions;

struct Case {
    name: &'static str,
    system: &'static str,
    workload: &'static str,
    state: DriveState,
    seed: u64,
    verify: bool,
}

const CASES: &[Case] = &[
    Case {
        name: "system-rdma-randread",
        system: r#"
fabric = "rdma-kernel-2016"
[[host]]
name = "a"
nic_ports = 2
port_rate = "25Gb/s"
cores = 4
[[host]]
name = "b"
nic_ports = 2
port_rate = "25Gb/s"
cores = 4
[[target]]
name = "tgt"
nic_ports = 2
port_rate = "100Gb/s"
cores = 6
[[drive]]
device = "tiny-test"
count = 6
target = "tgt"
hosts = ["a", "b"]
"#,
        workload: r#"{"rw":"randread","bs":"4k","iodepth":16,"numjobs":2,"number_ios":3000}"#,
        state: DriveState::Full,
        seed: 1,
        verify: false,
    },
    Case {
        name: "system-tcp-mixed-steady-irq",
        system: r#"
fabric = "tcp-kernel"
[[host]]
name = "h"
nic_ports = 1
port_rate = "25Gb/s"
cores = 2
[[target]]
name = "t0"
nic_ports = 1
port_rate = "25Gb/s"
cores = 2
[[target]]
name = "t1"
nic_ports = 2
port_rate = "100Gb/s"
cores = 3
[[drive]]
device = "tiny-test"
count = 2
target = "t0"
host = "h"
[[drive]]
device = "tiny-test"
name = "big"
count = 2
target = "t1"
host = "h"
"#,
        workload: r#"{"jobs":[{"rw":"randrw","rwmixread":70,"bsrange":["4k","64k"],"iodepth":8,"number_ios":2500,"host_irq_per_io":"2us","queues":2,"queue_policy":"round-robin"}]}"#,
        state: DriveState::Steady,
        seed: 2,
        verify: true,
    },
    Case {
        name: "system-local-remote-jobs-groups",
        system: r#"
[fabric]
preset = "rdma-spdk"
switch_latency = "1us"
[[host]]
name = "a"
nic_ports = 1
port_rate = "10Gb/s"
cores = 1
[[host]]
name = "b"
nic_ports = 1
port_rate = "40Gb/s"
cores = 2
[[target]]
name = "tgt"
nic_ports = 1
port_rate = "10Gb/s"
cores = 1
[[drive]]
device = "tiny-test"
name = "l"
count = 2
host = "b"
[[drive]]
device = "tiny-test"
name = "r"
count = 3
target = "tgt"
hosts = ["a", "b"]
[[drive]]
device = "tiny-test"
name = "idle"
host = "b"
"#,
        workload: r#"{"jobs":[
 {"name":"seq","group":0,"rw":"write","bs":"128k","iodepth":4,"number_ios":600,"filename":"l0:r0:r1","fsync":50},
 {"name":"rand","group":0,"rw":"randread","bs":"4k","iodepth":8,"number_ios":2000,"filename":"r2"},
 {"name":"after","group":1,"rw":"randrw","bs":"8k","iodepth":4,"number_ios":1500,"filename":"l0:l1:r0:r1:r2"}]}"#,
        state: DriveState::Fresh,
        seed: 3,
        verify: true,
    },
    Case {
        name: "system-local-only",
        system: r#"
[[host]]
name = "h"
[[drive]]
device = "tiny-test"
count = 3
host = "h"
"#,
        workload: r#"{"rw":"randwrite","bs":"4k","iodepth":16,"number_ios":4000}"#,
        state: DriveState::Steady,
        seed: 4,
        verify: false,
    },
];

fn report(c: &Case, threads: usize) -> String {
    let sys = SystemConfig::load(c.system, c.name, None).unwrap();
    let jobs = load_jobs(c.workload, &[], 24 << 20).unwrap();
    let opts = RunOptions {
        state: c.state,
        seed: c.seed,
        verify: c.verify,
    };
    let mut r = run_system_threads(sys, jobs, opts, threads, &mut |_| true)
        .unwrap()
        .json;
    assert!(r["stalled"].is_null(), "{}: {}", c.name, r["stalled"]);
    strip_wall_clock(&mut r);
    serde_json::to_string_pretty(&r).unwrap() + "\n"
}

/// Where two reports first differ (a line of each), for the failure message.
fn first_line_difference(a: &str, b: &str) -> String {
    a.lines()
        .zip(b.lines())
        .enumerate()
        .find(|(_, (x, y))| x != y)
        .map(|(i, (x, y))| format!("line {}: {x:?} vs {y:?}", i + 1))
        .unwrap_or_else(|| "one report is longer".into())
}

#[test]
fn system_reports_match_the_golden_ones_on_every_thread_count() {
    let bless = std::env::var_os("SSDLAB_BLESS").is_some();
    let mut failures = Vec::new();
    for c in CASES {
        let path = golden_dir().join(format!("{}.json", c.name));
        let one = report(c, 1);
        if bless {
            std::fs::write(&path, &one).unwrap();
        } else {
            let golden = std::fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("{}: {e} (bless with SSDLAB_BLESS=1)", path.display()));
            if one != golden {
                let actual = path.with_extension("actual.json");
                std::fs::write(&actual, &one).unwrap();
                failures.push(format!(
                    "{} (1 thread) differs from golden: {}",
                    c.name,
                    first_line_difference(&golden, &one)
                ));
            }
        }
        for threads in [2, 3] {
            let many = report(c, threads);
            if many != one {
                failures.push(format!(
                    "{}: {threads} threads differ from 1: {}",
                    c.name,
                    first_line_difference(&one, &many)
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Seed 001's 24 drives behind one target (as `nvmeof-24`, on small drives), a mixed
/// workload with writes beyond the in-capsule size: 2, 3 and 5 threads give the
/// single-threaded report (no golden file: the cases above pin the model).
#[test]
fn twenty_four_remote_drives_give_one_report_on_any_thread_count() {
    let mut text = String::from("fabric = \"rdma-kernel-2016\"\n");
    for h in 0..4 {
        text += &format!(
            "[[host]]\nname = \"init{h}\"\nnic_ports = 2\nport_rate = \"25Gb/s\"\ncores = 16\n"
        );
    }
    text += "[[target]]\nname = \"target\"\nnic_ports = 2\nport_rate = \"100Gb/s\"\ncores = 28\n";
    text += "[[drive]]\ndevice = \"tiny-test\"\ncount = 24\ntarget = \"target\"\n";
    text += "hosts = [\"init0\", \"init1\", \"init2\", \"init3\"]\n";
    let case = Case {
        name: "nvmeof-24-tiny",
        system: Box::leak(text.into_boxed_str()),
        workload: r#"{"rw":"randrw","rwmixread":70,"bssplit":[["4k",80],["16k",20]],"iodepth":16,"numjobs":2,"number_ios":800}"#,
        state: DriveState::Full,
        seed: 5,
        verify: false,
    };
    let one = report(&case, 1);
    for threads in [2, 3, 5] {
        let many = report(&case, threads);
        assert!(
            many == one,
            "{threads} threads: {}",
            first_line_difference(&one, &many)
        );
    }
}
