//! The system level: hosts, a fabric, targets and many drives on one clock.

use ssdlab_core::config::load_workload;
use ssdlab_core::ftl::prep::DriveState;
use ssdlab_core::system::{run_system, SystemConfig};
use ssdlab_core::{run, RunOptions};

const FABRIC: &str = r#"
[fabric]
preset = "rdma-kernel-2016"
[[host]]
name = "init0"
nic_ports = 1
port_rate = "25Gb/s"
cores = 4
[[target]]
name = "tgt"
nic_ports = 1
port_rate = "100Gb/s"
cores = 4
"#;

fn system(drives: &str) -> SystemConfig {
    SystemConfig::load(&format!("{FABRIC}\n{drives}"), "test system", None).unwrap()
}

fn opts() -> RunOptions {
    RunOptions {
        state: DriveState::Full,
        seed: 3,
        verify: false,
    }
}

fn workload(json: &str) -> ssdlab_core::WorkloadConfig {
    load_workload(json, &[], 24 << 20).unwrap()
}

fn f(r: &ssdlab_core::Report, path: &[&str]) -> f64 {
    let mut v = &r.json;
    for k in path {
        v = &v[*k];
    }
    v.as_f64()
        .unwrap_or_else(|| panic!("{path:?} in {}", r.json))
}

const QD1_READ: &str = r#"{"rw":"randread","bs":"4k","iodepth":1,"number_ios":2000}"#;

#[test]
fn one_local_drive_runs_as_the_drive_alone() {
    let dev =
        ssdlab_core::config::load_device(&ssdlab_core::DeviceSpec::Preset("tiny-test".into()), &[])
            .unwrap();
    let wl = r#"{"rw":"randrw","bs":"4k","iodepth":8,"number_ios":3000}"#;
    let alone = run(dev, workload(wl), opts(), &mut |_| true).unwrap();
    let sys = run_system(
        system("[[drive]]\ndevice = \"tiny-test\"\nhost = \"init0\""),
        vec![workload(wl)],
        opts(),
        &mut |_| true,
    )
    .unwrap();
    for dir in ["read", "write"] {
        for key in ["iops", "bw_bytes"] {
            assert_eq!(f(&alone, &[dir, key]), f(&sys, &[dir, key]), "{dir}.{key}");
        }
        assert_eq!(
            f(&alone, &[dir, "lat_ns", "mean"]),
            f(&sys, &[dir, "lat_ns", "mean"])
        );
    }
    assert_eq!(sys.json["drives"].as_array().unwrap().len(), 1);
}

/// Remote QD1 read latency = local + the fabric's parts, added up by hand from the
/// preset (rdma-kernel-2016: 82 B per packet, 0.5 us per NIC, 0.3 us switch, CPU
/// 2.835 + 1.86 us forward and 1.86 + 2.835 us back) and the line rates.
#[test]
fn remote_qd1_latency_is_local_plus_the_fabric() {
    let local = run_system(
        system("[[drive]]\ndevice = \"tiny-test\"\nhost = \"init0\""),
        vec![workload(QD1_READ)],
        opts(),
        &mut |_| true,
    )
    .unwrap();
    let remote = run_system(
        system("[[drive]]\ndevice = \"tiny-test\"\nhost = \"init0\"\ntarget = \"tgt\""),
        vec![workload(QD1_READ)],
        opts(),
        &mut |_| true,
    )
    .unwrap();
    let host_ns_per_byte = 8.0 / 25.0; // 25 Gb/s
    let target_ns_per_byte = 8.0 / 100.0;
    let (nic, hop) = (500.0, 300.0);
    let wire = |payload: f64| payload + 82.0;
    // Command capsule, host -> target: one packet through both NICs and the switch.
    let capsule = 2.0 * nic + (host_ns_per_byte + target_ns_per_byte) * wire(64.0) + hop;
    let forward = 2835.0 + capsule + 1860.0;
    // 4 KiB of data then the 16 B completion, target -> host, back to back.
    let data = 2.0 * nic + (target_ns_per_byte + host_ns_per_byte) * wire(4096.0) + hop;
    let backward = 1860.0 + data + host_ns_per_byte * wire(16.0) + 2835.0;
    let want = f(&local, &["read", "lat_ns", "mean"]) + forward + backward;
    let got = f(&remote, &["read", "lat_ns", "mean"]);
    assert!(
        (got - want).abs() / (got - f(&local, &["read", "lat_ns", "mean"])) < 0.01,
        "remote {got} ns, local + fabric {want} ns"
    );
}

const LOADED: &str = r#"{"rw":"randread","bs":"4k","iodepth":16,"numjobs":2,"number_ios":1500}"#;

fn many_remote(n: u32, rate: &str) -> SystemConfig {
    let text = format!(
        r#"
fabric = "rdma-kernel-2016"
[[host]]
name = "a"
nic_ports = 2
port_rate = "{rate}"
cores = 8
[[host]]
name = "b"
nic_ports = 2
port_rate = "{rate}"
cores = 8
[[target]]
name = "tgt"
nic_ports = 2
port_rate = "100Gb/s"
cores = 8
[[drive]]
device = "tiny-test"
count = {n}
target = "tgt"
hosts = ["a", "b"]
"#
    );
    SystemConfig::load(&text, "test system", None).unwrap()
}

#[test]
fn multi_drive_runs_are_deterministic_and_obey_littles_law() {
    let a = run_system(
        many_remote(4, "25Gb/s"),
        vec![workload(LOADED)],
        opts(),
        &mut |_| true,
    )
    .unwrap();
    let b = run_system(
        many_remote(4, "25Gb/s"),
        vec![workload(LOADED)],
        opts(),
        &mut |_| true,
    )
    .unwrap();
    let strip = |r: &ssdlab_core::Report| {
        let mut j = r.json.clone();
        for k in ["wall_time_s", "prep_wall_time_s", "sim_wall_time_s"] {
            j[k] = serde_json::Value::Null;
        }
        j.to_string()
    };
    assert_eq!(strip(&a), strip(&b));
    // Little's law per host: 2 drives x 2 jobs x QD16 = 64 outstanding.
    for h in a.json["hosts"].as_array().unwrap() {
        let iops = h["read"]["iops"].as_f64().unwrap();
        let lat_s = h["read"]["lat_ns"]["mean"].as_f64().unwrap() / 1e9;
        let outstanding = iops * lat_s;
        assert!(
            (outstanding - 64.0).abs() / 64.0 < 0.05,
            "host {}: IOPS x latency = {outstanding:.1}",
            h["name"]
        );
    }
    // The drives got their own random streams.
    let d = a.json["drives"].as_array().unwrap();
    assert_ne!(
        d[0]["read"]["lat_ns"]["mean"],
        d[1]["read"]["lat_ns"]["mean"]
    );
}

#[test]
fn bandwidth_never_exceeds_the_host_ports() {
    // Two hosts of 2 x 1 Gb/s: 4 drives of 128 KiB reads are held to the line rate.
    let wl = r#"{"rw":"read","bs":"128k","iodepth":8,"number_ios":300}"#;
    let r = run_system(
        many_remote(4, "1Gb/s"),
        vec![workload(wl)],
        opts(),
        &mut |_| true,
    )
    .unwrap();
    let payload_share = 4096.0 / (4096.0 + 82.0); // full packets
    let limit = 2.0 * 2.0 * 1e9 / 8.0 * payload_share;
    let bw = f(&r, &["read", "bw_bytes"]);
    assert!(bw <= limit * 1.001, "{bw} B/s over the ports' {limit} B/s");
    assert!(
        bw > limit * 0.8,
        "{bw} B/s: the ports should be the bottleneck"
    );
}

#[test]
fn system_files_give_clear_errors() {
    let bad = |text: &str| {
        SystemConfig::load(text, "sys.toml", None)
            .unwrap_err()
            .to_string()
    };
    assert!(bad("[[drive]]\ndevice = \"tiny-test\"\ncolour = 1").contains("colour"));
    assert!(bad("[[drive]]\ndevice = \"tiny-test\"\ntarget = \"t\"").contains("not a [[target]]"));
    let no_fabric = "[[target]]\nname = \"t\"\nport_rate = \"100Gb/s\"\n[[drive]]\ndevice = \"tiny-test\"\ntarget = \"t\"";
    assert!(bad(no_fabric).contains("no fabric"));
    assert!(
        bad("fabric = \"ib-1999\"\n[[drive]]\ndevice = \"tiny-test\"")
            .contains("not a fabric preset")
    );
    assert!(bad("[[drive]]\ndevice = \"tiny-test\"\ncount = 0").contains("count"));
    // Issue 31: `hosts = []` went to the first host; a zero line rate ran for 427
    // simulated days.
    let e =
        bad("[[host]]\nname = \"a\"\n[[drive]]\nname = \"d\"\ndevice = \"tiny-test\"\nhosts = []");
    assert!(
        e.contains("drive[0] ('d').hosts: [] names no host (name at least one [[host]]: a;"),
        "{e}"
    );
    for (rate, shown) in [
        ("0Gb/s", "0Gb/s"),
        ("1kB/s", "0.000008Gb/s"),
        ("100000Gb/s", "100000Gb/s"),
    ] {
        let host = format!(
            "[[host]]\nname = \"h\"\nport_rate = \"{rate}\"\n[[drive]]\ndevice = \"tiny-test\""
        );
        let e = bad(&host);
        assert!(
            e.contains(&format!(
                "host[0].port_rate: {shown} is out of range (allowed: 8Mb/s to 80Tb/s"
            )),
            "{e}"
        );
        let target = FABRIC.replace("\"100Gb/s\"", &format!("\"{rate}\""));
        let e = bad(&format!(
            "{target}\n[[drive]]\ndevice = \"tiny-test\"\ntarget = \"tgt\""
        ));
        assert!(
            e.contains(&format!("target[0].port_rate: {shown} is out of range")),
            "{e}"
        );
    }
}

#[test]
fn jobs_use_the_drives_their_filename_names() {
    let sys =
        || system("[[drive]]\ndevice = \"tiny-test\"\nname = \"ssd\"\ncount = 3\nhost = \"init0\"");
    let wl = |fname: &str, qd: u32| {
        workload(&format!(
            r#"{{"rw":"randread","bs":"4k","iodepth":{qd},"number_ios":4000,"filename":"{fname}"}}"#
        ))
    };
    // One job on ssd1 only: the other drives idle, the job's report is that drive's.
    let r = run_system(sys(), vec![wl("ssd1", 4)], opts(), &mut |_| true).unwrap();
    let d = r.json["drives"].as_array().unwrap();
    assert_eq!(d[0]["idle"], true);
    assert_eq!(d[2]["idle"], true);
    assert_eq!(d[1]["name"], "ssd1");
    assert_eq!(r.json["jobs"].as_array().unwrap().len(), 1);
    assert_eq!(r.json["jobs"][0]["read"]["total_ios"], 4000);
    assert_eq!(
        r.json["jobs"][0]["read"]["iops"],
        d[1]["jobs"][0]["read"]["iops"]
    );
    // One job over two drives (fio's filename=a:b): one report, the I/Os and the
    // queue depth shared between them; Little's law over the job: 8 outstanding.
    let r = run_system(sys(), vec![wl("ssd0:ssd2", 8)], opts(), &mut |_| true).unwrap();
    let d = r.json["drives"].as_array().unwrap();
    assert_eq!(d[1]["idle"], true);
    assert_eq!(d[0]["read"]["total_ios"], 2000);
    assert_eq!(d[2]["read"]["total_ios"], 2000);
    let job = &r.json["jobs"][0]["read"];
    let outstanding = job["iops"].as_f64().unwrap() * job["lat_ns"]["mean"].as_f64().unwrap() / 1e9;
    assert!((outstanding - 8.0).abs() / 8.0 < 0.05, "{outstanding}");
    assert_eq!(job["total_ios"], 4000);
    // A name that is no drive is an error that lists the drives.
    let err = ssdlab_core::system::System::build(sys(), &[wl("ssd3", 1)], opts())
        .err()
        .unwrap()
        .to_string();
    assert!(
        err.contains("filename 'ssd3'") && err.contains("ssd0, ssd1, ssd2"),
        "{err}"
    );
    // Drive names must be unique.
    let dup = SystemConfig::load(
        &format!("{FABRIC}\n[[drive]]\ndevice = \"tiny-test\"\nname = \"a\"\n[[drive]]\ndevice = \"tiny-test\"\nname = \"a\""),
        "sys.toml",
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(dup.contains("two drives are named 'a'"), "{dup}");
}

#[test]
fn every_drive_of_a_system_reads_its_last_writes_through_gc() {
    // Three local drives and two behind the target, aged, written at random until GC
    // runs on each: every read of every drive returns the last write of its LBA (the
    // read oracle), and Little's law holds for the whole system.
    let sys = system(
        "[[drive]]\ndevice = \"tiny-test\"\ncount = 3\nhost = \"init0\"\n\
         [[drive]]\ndevice = \"tiny-test\"\ncount = 2\nhost = \"init0\"\ntarget = \"tgt\"",
    );
    let wl =
        r#"{"rw":"randrw","rwmixread":50,"bs":"4k","iodepth":8,"numjobs":2,"number_ios":6000}"#;
    let opts = RunOptions {
        state: DriveState::Steady,
        seed: 9,
        verify: true,
    };
    let r = run_system(sys, vec![workload(wl)], opts, &mut |_| true).unwrap();
    let drives = r.json["drives"].as_array().unwrap();
    assert_eq!(drives.len(), 5);
    for d in drives {
        let dev = &d["device"];
        assert!(
            dev["ftl"]["gc_victims"].as_u64().unwrap() > 0,
            "{}: no GC",
            d["name"]
        );
        assert!(
            dev["oracle"]["checked"].as_u64().unwrap() > 1000,
            "{}",
            d["name"]
        );
        assert_eq!(dev["oracle"]["mismatches"], 0, "{}", d["name"]);
    }
    let ios = f(&r, &["read", "iops"]) + f(&r, &["write", "iops"]);
    let (nr, nw) = (
        f(&r, &["read", "total_ios"]),
        f(&r, &["write", "total_ios"]),
    );
    let lat_s = (f(&r, &["read", "lat_ns", "mean"]) * nr
        + f(&r, &["write", "lat_ns", "mean"]) * nw)
        / (nr + nw)
        / 1e9;
    let outstanding = ios * lat_s;
    assert!(
        (outstanding - 80.0).abs() / 80.0 < 0.06,
        "system: IOPS x latency = {outstanding:.1}, 5 drives x 2 jobs x QD8 = 80"
    );
}

#[test]
fn iops_never_exceed_the_target_cpu_or_the_drives() {
    // One target core: every command costs it target_command + target_complete
    // (1.86 + 1.86 us in rdma-kernel-2016), so the system cannot pass 1 / 3.72 us =
    // 268,817 IOPS
    // however many drives; and no remote run beats the same drives run locally.
    let wl = r#"{"rw":"randread","bs":"4k","iodepth":16,"numjobs":2,"number_ios":4000}"#;
    let text = r#"
fabric = "rdma-kernel-2016"
[[host]]
name = "a"
nic_ports = 2
port_rate = "25Gb/s"
cores = 8
[[target]]
name = "tgt"
nic_ports = 2
port_rate = "100Gb/s"
cores = CORES
[[drive]]
device = "tiny-test"
count = 4
target = "tgt"
host = "a"
"#;
    let run_with = |cores: u32| {
        let sys =
            SystemConfig::load(&text.replace("CORES", &cores.to_string()), "t", None).unwrap();
        run_system(sys, vec![workload(wl)], opts(), &mut |_| true).unwrap()
    };
    let limited = run_with(1);
    let iops = f(&limited, &["read", "iops"]);
    assert!(
        iops <= 1e6 / 3.72 * 1.001,
        "{iops} IOPS on one 3.72 us-per-command core"
    );
    assert!(
        iops > 1e6 / 3.72 * 0.9,
        "{iops} IOPS: the core should be the bottleneck"
    );
    let cpu = limited.json["targets"][0]["cpu_utilization"]
        .as_f64()
        .unwrap();
    // Issue 31: busy time is what was spent within the run, so at most 1.
    assert!(cpu > 0.95 && cpu <= 1.0, "target CPU utilisation {cpu}");
    let remote = f(&run_with(16), &["read", "iops"]);
    let local_text =
        "[[host]]\nname = \"a\"\n[[drive]]\ndevice = \"tiny-test\"\ncount = 4\nhost = \"a\"";
    let local = run_system(
        SystemConfig::load(local_text, "t", None).unwrap(),
        vec![workload(wl)],
        opts(),
        &mut |_| true,
    )
    .unwrap();
    let local = f(&local, &["read", "iops"]);
    assert!(
        remote <= local * 1.001,
        "remote {remote} IOPS > local {local}"
    );
}
