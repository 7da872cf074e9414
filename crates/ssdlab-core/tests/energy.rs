//! Energy and power-state physics on whole runs (`power.enabled`).

mod common;

use common::{device, f, simulate};
use serde_json::Value;
use ssdlab_core::energy::idle_w;
use ssdlab_core::DriveState;

fn energy(r: &Value) -> &Value {
    &r["energy"]
}

fn components_sum(e: &Value) -> f64 {
    e["components"].as_object().unwrap().values().map(f).sum()
}

#[test]
fn the_energy_block_is_absent_unless_enabled() {
    let dev = device("tiny-test", &[]);
    let r = simulate(
        &dev,
        r#"{"rw":"randread","bs":"4k","iodepth":4,"number_ios":500}"#,
        DriveState::Full,
        1,
        false,
    );
    assert!(r.get("energy").is_none());
    assert!(r["config"].get("power").is_none());
}

#[test]
fn total_energy_is_the_sum_of_the_components() {
    for preset in ["tiny-test", "hmb-ssd"] {
        let dev = device(preset, &["power.enabled=true"]);
        let r = simulate(
            &dev,
            r#"{"rw":"randrw","bs":"4k","iodepth":16,"number_ios":20000}"#,
            DriveState::Full,
            3,
            false,
        );
        let e = energy(&r);
        let sum = components_sum(e);
        assert!((f(&e["total_j"]) - sum).abs() <= 1e-9 * sum, "{preset}");
        let host = f(&e["components"]["host_hmb_j"]);
        assert!((f(&e["drive_j"]) + host - sum).abs() <= 1e-9 * sum);
        let secs = f(&r["sim_time_ns"]) * 1e-9;
        assert!((f(&e["avg_w"]) - f(&e["drive_j"]) / secs).abs() < 1e-9);
        // Busy NAND phases cost energy, and the drive draws more than idle.
        assert!(f(&e["components"]["nand_read_j"]) > 0.0);
        assert!(f(&e["components"]["nand_program_j"]) > 0.0);
        assert!(f(&e["avg_w"]) > f(&e["idle_w"]));
        assert!(f(&e["peak_w"]) >= f(&e["avg_w"]) * 0.999);
        if preset == "hmb-ssd" {
            assert!(host > 0.0, "an HMB drive's host DRAM pays");
        }
    }
}

#[test]
fn an_idle_drive_draws_exactly_its_idle_power() {
    // One I/O, then a long think time: without APST or ASPM the drive sits in PS0
    // with nothing to do; the energy of the idle stretch is idle_w x its length.
    let run = |ios: u32| {
        let dev = device(
            "tiny-test",
            &[
                "power.enabled=true",
                "power.apst=\"off\"",
                "power.aspm=\"off\"",
            ],
        );
        let wl = format!(
            r#"{{"rw":"randread","bs":"4k","iodepth":1,"number_ios":{ios},"thinktime":"200ms","thinktime_blocks":1}}"#
        );
        simulate(&dev, &wl, DriveState::Full, 1, false)
    };
    let (a, b) = (run(2), run(3));
    let dev = device("tiny-test", &["power.enabled=true"]);
    let idle = idle_w(
        &dev.power,
        dev.nand.channels * dev.nand.dies_per_channel,
        dev.controller.cores,
        dev.dram.size.bytes() as f64 / (1u64 << 30) as f64,
        dev.host.pcie_lanes,
    );
    assert!((f(&energy(&a)["idle_w"]) - idle).abs() < 1e-12);
    // The third I/O adds one think time and one read: the difference is idle power
    // over the think time plus one read's energy above idle (small next to it).
    let dj = f(&energy(&b)["drive_j"]) - f(&energy(&a)["drive_j"]);
    let dt = (f(&b["sim_time_ns"]) - f(&a["sim_time_ns"])) * 1e-9;
    assert!(dt > 0.19, "{dt}");
    let w = dj / dt;
    assert!((w - idle).abs() / idle < 0.002, "{w} W vs idle {idle} W");
}

#[test]
fn a_fully_idle_run_draws_exactly_the_idle_power() {
    // Two reads 1 s apart: all but ~100 us of the run is idle.
    let dev = device(
        "tiny-test",
        &[
            "power.enabled=true",
            "power.apst=\"off\"",
            "power.aspm=\"off\"",
        ],
    );
    let r = simulate(
        &dev,
        r#"{"rw":"randread","bs":"4k","iodepth":1,"number_ios":2,"thinktime":"1s","thinktime_blocks":1}"#,
        DriveState::Full,
        1,
        false,
    );
    let e = energy(&r);
    let secs = f(&r["sim_time_ns"]) * 1e-9;
    let idle = f(&e["idle_w"]);
    // At most one read above idle: within 0.1 % of idle power over the run.
    let w = f(&e["drive_j"]) / secs;
    assert!(secs > 0.99, "{secs} s");
    assert!((w - idle).abs() / idle < 0.001, "{w} W vs idle {idle} W");
}

#[test]
fn apst_puts_an_idle_drive_to_sleep_and_the_next_io_pays_the_exit() {
    let wl = r#"{"rw":"randread","bs":"4k","iodepth":1,"number_ios":4,"thinktime":"500ms","thinktime_blocks":1}"#;
    let on = simulate(
        &device("tiny-test", &["power.enabled=true"]),
        wl,
        DriveState::Full,
        1,
        false,
    );
    let off = simulate(
        &device("tiny-test", &["power.enabled=true", "power.apst=\"off\""]),
        wl,
        DriveState::Full,
        1,
        false,
    );
    let e = energy(&on);
    // Linux's default table on the default states: PS4 after 100 ms idle, 8 ms exit.
    assert!(f(&e["power_state_ns"]["PS4"]) > 1.0e9);
    assert_eq!(f(&e["wakeups"]), 3.0);
    assert_eq!(f(&e["max_wake_ns"]), 8.0e6);
    let lat_on = f(&on["read"]["lat_ns"]["max"]);
    let lat_off = f(&off["read"]["lat_ns"]["max"]);
    assert!(lat_on - lat_off > 7.9e6, "{lat_on} vs {lat_off}");
    let (w_on, w_off) = (f(&e["avg_w"]), f(&energy(&off)["avg_w"]));
    assert!(w_on < w_off / 3.0, "{w_on} W with APST, {w_off} W without");
}

#[test]
fn per_byte_energy_of_sequential_reads_tends_to_the_per_byte_terms() {
    // Energy above the idle baseline per byte read, for growing block sizes: the
    // per-command costs (command and completion traffic, firmware time) are shared by
    // more bytes, so it falls towards the per-byte terms (channel, data path, link
    // wire bytes) plus the array's sensing energy per byte.
    let mut last = f64::MAX;
    let dev = device(
        "tiny-test",
        &[
            "power.enabled=true",
            "power.apst=\"off\"",
            "power.aspm=\"off\"",
        ],
    );
    let p = &dev.power;
    let wire = 1.0 + dev.host.tlp_overhead.bytes() as f64 / dev.host.max_payload.bytes() as f64;
    let per_byte = p.channel_j_per_byte + p.datapath_j_per_byte + p.pcie_j_per_byte * wire;
    let mut floor = 0.0;
    for bs in ["4k", "16k", "64k", "256k"] {
        let wl = format!(r#"{{"rw":"read","bs":"{bs}","iodepth":1,"io_size":"16MiB"}}"#);
        let r = simulate(&dev, &wl, DriveState::Full, 1, false);
        let e = energy(&r);
        let secs = f(&r["sim_time_ns"]) * 1e-9;
        let idle_j = f(&e["idle_w"]) * secs;
        let bytes = f(&r["read"]["io_bytes"]);
        let j = (f(&e["drive_j"]) - idle_j) / bytes;
        // The array's sensing energy is per page read, so per byte too.
        floor = per_byte + f(&e["components"]["nand_read_j"]) / bytes;
        assert!(j < last, "{bs}: {j} J/B after {last}");
        assert!(j > floor, "{bs}: {j} J/B below the per-byte terms {floor}");
        last = j;
    }
    let gap = (last - floor) / floor;
    assert!(
        gap > 0.0 && gap < 0.10,
        "256k: {last} J/B vs floor {floor} ({gap})"
    );
}

#[test]
fn a_power_limit_is_never_exceeded_and_throttles_the_dies() {
    let wl = r#"{"rw":"randwrite","bs":"4k","iodepth":64,"number_ios":60000}"#;
    let free = device("hmb-ssd", &["power.enabled=true"]);
    let (base, die) = free.power_parts();
    let dies = free.nand.channels * free.nand.dies_per_channel;
    assert!(dies >= 4);
    let limit = base + 2.5 * die; // two dies at once
    let capped = device(
        "hmb-ssd",
        &["power.enabled=true", &format!("power.limit_w={limit}")],
    );
    let r_free = simulate(&free, wl, DriveState::Full, 2, false);
    let r_cap = simulate(&capped, wl, DriveState::Full, 2, false);
    let e_cap = energy(&r_cap);
    assert_eq!(f(&e_cap["max_active_dies"]), 2.0);
    assert_eq!(f(&e_cap["limit_w"]), limit);
    assert!(
        f(&e_cap["avg_w"]) <= limit,
        "{} W over {limit} W",
        e_cap["avg_w"]
    );
    assert!(
        f(&e_cap["peak_w"]) <= limit,
        "{} W peak over {limit} W",
        e_cap["peak_w"]
    );
    for w in e_cap["window_w"].as_array().unwrap() {
        assert!(f(&w[1]) <= limit);
    }
    // The cap works by making NAND operations wait: fewer IOPS than without it.
    let iops = |r: &Value| f(&r["write"]["iops"]);
    assert!(
        iops(&r_cap) < 0.8 * iops(&r_free),
        "{} vs {}",
        iops(&r_cap),
        iops(&r_free)
    );
    // A cap below one working die is refused, naming the field.
    let low = format!("power.limit_w={}", base * 0.5);
    let o = vec!["power.enabled=true".to_string(), low];
    let err = ssdlab_core::config::load_device(
        &ssdlab_core::config::DeviceSpec::Preset("hmb-ssd".into()),
        &o,
    )
    .unwrap_err();
    assert!(err.to_string().contains("power.limit_w"), "{err}");
}

#[test]
fn a_lower_operational_state_caps_power() {
    let dev = device(
        "samsung-970-evo-plus-1tb",
        &["power.enabled=true", "power.operational_state=1"],
    );
    let cap = dev.power_cap().unwrap();
    if let Some(c) = cap {
        assert_eq!(c.limit_w, dev.power.states[1].max_w);
        let r = simulate(
            &dev,
            r#"{"rw":"write","bs":"128k","iodepth":32,"io_size":"1GiB"}"#,
            DriveState::Fresh,
            1,
            false,
        );
        assert!(f(&energy(&r)["avg_w"]) <= c.limit_w);
    }
}

#[test]
fn a_paced_workload_wakes_the_drive_at_each_io() {
    // rate_iops = 5: one read every 200 ms, each after 100 ms in PS4 (default table).
    let dev = device("tiny-test", &["power.enabled=true"]);
    let r = simulate(
        &dev,
        r#"{"rw":"randread","bs":"4k","iodepth":1,"number_ios":5,"rate_iops":5}"#,
        DriveState::Full,
        1,
        false,
    );
    let e = energy(&r);
    assert_eq!(f(&e["wakeups"]), 4.0);
    assert_eq!(f(&e["mean_wake_ns"]), 8.0e6);
    assert!(f(&r["read"]["lat_ns"]["mean"]) > 0.8 * 8.0e6);
}

#[test]
fn energy_per_io_covers_the_same_window_as_the_ios() {
    // Steady random reads on a full drive, 100 ms measured after a 200 ms ramp (runtime
    // includes the ramp): the
    // report counts the I/Os of the measured window only, so the energy divided by
    // them must be that window's too. Per I/O it then matches a run without a ramp
    // (the drive does the same work per I/O); whole-run energy over window I/Os would
    // be about three times as much.
    let dev = device("tiny-test", &["power.enabled=true"]);
    let run = |wl: &str| simulate(&dev, wl, DriveState::Full, 1, false);
    let ramped =
        run(r#"{"rw":"randread","bs":"4k","iodepth":8,"runtime":"300ms","ramp_time":"200ms"}"#);
    let plain = run(r#"{"rw":"randread","bs":"4k","iodepth":8,"runtime":"100ms"}"#);
    let (e, p) = (energy(&ramped), energy(&plain));
    let ios = f(&ramped["read"]["total_ios"]);
    assert!(ios > 1000.0, "{ios}");
    assert!((f(&e["j_per_io"]) * ios - f(&e["window_j"])).abs() < 1e-12 * f(&e["window_j"]));
    let bytes = f(&ramped["read"]["io_bytes"]);
    assert!((f(&e["j_per_gb"]) * bytes / 1e9 - f(&e["window_j"])).abs() < 1e-9);
    // The window is a third of the run, at the same power.
    let share = f(&e["window_j"]) / f(&e["total_j"]);
    let sim = f(&ramped["sim_time_ns"]);
    let t_share = (sim - 200e6) / sim;
    assert!((share - t_share).abs() < 0.02, "{share} vs {t_share}");
    let (a, b) = (f(&e["j_per_io"]), f(&p["j_per_io"]));
    assert!(
        (a - b).abs() / b < 0.03,
        "{a} J/IO ramped, {b} J/IO without a ramp"
    );
    // Without a ramp the window is the whole run.
    assert!((f(&p["window_j"]) - f(&p["total_j"])).abs() < 1e-12 * f(&p["total_j"]));
}
