//! GC paced with host writes: an aged drive's throughput and WAF do not depend on
//! how long it is measured, no write waits for a whole victim collection, the read
//! oracle holds through paced collection, and runs are reproducible.

mod common;

use common::{device, f, simulate};
use serde_json::Value;
use ssdlab_core::DriveState;
use std::sync::OnceLock;

/// Writes in the ramp of the aged dram-ssd runs: 1 s at about 22,000 IOPS.
const RAMP_IOS: u64 = 25_000;

/// Aged dram-ssd (GC at steady state, SLC area full), 4 KiB random writes at QD32,
/// 1 s of ramp, then about 50,000 and 500,000 measured writes. Shared by the tests
/// below (each run holds a 512 GB drive's maps: about 1 GiB).
fn aged_runs() -> &'static (Value, Value) {
    static RUNS: OnceLock<(Value, Value)> = OnceLock::new();
    RUNS.get_or_init(|| {
        let dev = device("dram-ssd", &[]);
        let run = |measured: u64| {
            let wl = format!(
                r#"{{"rw":"randwrite","bs":"4k","iodepth":32,"ramp_time":"1s","number_ios":{}}}"#,
                RAMP_IOS + measured
            );
            simulate(&dev, &wl, DriveState::Aging, 1, false)
        };
        (run(50_000), run(500_000))
    })
}

#[test]
fn aged_throughput_and_waf_do_not_depend_on_run_length() {
    let (short, long) = aged_runs();
    for (r, n) in [(short, 50_000.0), (long, 500_000.0)] {
        let ios = f(&r["write"]["total_ios"]);
        assert!(
            (ios - n).abs() < 0.1 * n,
            "{ios} measured writes, wanted about {n}"
        );
        let m = &r["device"]["ftl"]["measured"];
        assert_eq!(m["from_ns"], 1_000_000_000u64);
        assert!(f(&m["host_units_written"]) < f(&r["device"]["ftl"]["host_units_written"]));
    }
    let iops = |r: &Value| f(&r["write"]["iops"]);
    let waf = |r: &Value| f(&r["device"]["ftl"]["measured"]["waf"]);
    let close = |a: f64, b: f64| (a - b).abs() / b < 0.05;
    assert!(
        close(iops(short), iops(long)),
        "IOPS: 50K measured writes {} vs 500K {}",
        iops(short),
        iops(long)
    );
    assert!(
        close(waf(short), waf(long)),
        "measured WAF: 50K {} vs 500K {}",
        waf(short),
        waf(long)
    );
    // Steady state amplifies: GC copies about v / (U - v) units per host unit.
    assert!(waf(long) > 4.0, "{}", waf(long));
}

/// The longest a write can wait when GC is paced, by hand from dram-ssd's timings.
/// Each host program on a die pays for `r` GC units (r = WAF - 1 at steady state),
/// released a stripe row at a time (up to one row, 8 units, beyond); with 8 units per
/// program that is at most ceil(r + 1) reads and programs before the die's next host
/// program, and possibly the victim's erase. A waiting write needs buffer room, which
/// every die frees at least once per such stretch:
///   program = tPROG 700 us + data-in (100 ns + 32 KiB at 800 MB/s = 40,960 ns)
///   GC read = 2 x 100 ns + tR 75 us (slowest page type) + 32 KiB out = 116,160 ns
///   erase   = 100 ns + tBERS 3.5 ms
fn paced_wait_bound_ns(waf: f64) -> f64 {
    let program = 700_000.0 + 100.0 + 40_960.0;
    let read = 200.0 + 75_000.0 + 40_960.0;
    let erase = 3_500_100.0;
    let gc_units_per_host_unit = waf - 1.0;
    let steps = (gc_units_per_host_unit + 1.0).ceil();
    steps * (program + read) + erase
}

#[test]
fn no_write_waits_for_a_whole_victim() {
    let (short, long) = aged_runs();
    for r in [short, long] {
        let ftl = &r["device"]["ftl"];
        assert_eq!(ftl["gc_pacing"], "paced");
        assert_eq!(ftl["gc_urgent_victims"], 0, "never at the urgent floor");
        let waf = f(&ftl["measured"]["waf"]);
        let bound = paced_wait_bound_ns(waf);
        // Collecting one victim of the aged drive on its die: v = U (1 - 1/WAF) valid
        // units of U = 6,144, eight per program.
        let victim = 6144.0 * (1.0 - 1.0 / waf) / 8.0 * (700_000.0 + 41_060.0);
        assert!(bound < victim / 20.0, "{bound} vs {victim}");
        let p999 = f(&r["write"]["lat_ns"]["percentile"]["99.900000"]);
        assert!(
            p999 < bound,
            "p99.9 {:.2} ms over the paced bound {:.2} ms (a victim takes {:.0} ms)",
            p999 / 1e6,
            bound / 1e6,
            victim / 1e6
        );
    }
}

/// tiny-test with room between the urgent floor and the threshold, so that victims
/// are collected at the host's pace rather than all at the floor.
fn paced_tiny(extra: &[&str]) -> ssdlab_core::DeviceConfig {
    let mut o = vec!["ftl.gc_threshold_blocks=4", "ftl.gc_target_blocks=6"];
    o.extend_from_slice(extra);
    device("tiny-test", &o)
}

#[test]
fn oracle_holds_through_paced_collection() {
    let mixed =
        r#"{"rw":"randrw","rwmixread":50,"bs":"8k","iodepth":16,"numjobs":2,"number_ios":15000}"#;
    // Rate-limited: dies go idle in the middle of a victim and read ahead of the pace.
    let slow = r#"{"rw":"randrw","rwmixread":30,"bs":"4k","iodepth":4,"rate_iops":3000,"number_ios":12000}"#;
    let cases: [(&[&str], &str); 5] = [
        (&[], mixed),
        (&[], slow),
        (&["ftl.gc_policy=\"cost-benefit\""], mixed),
        (
            &[
                "scheduler.program_suspend=true",
                "scheduler.erase_suspend=true",
                "scheduler.policy=\"adaptive-delay\"",
            ],
            mixed,
        ),
        (&["ftl.gc_pacing=\"burst\""], mixed),
    ];
    for (extra, wl) in cases {
        let d = paced_tiny(extra);
        let r = simulate(&d, wl, DriveState::Steady, 3, true);
        let o = &r["device"]["oracle"];
        assert!(f(&o["checked"]) > 3_000.0, "{extra:?}: {o}");
        assert_eq!(o["mismatches"], 0, "{extra:?}: {o}");
        let ftl = &r["device"]["ftl"];
        assert!(f(&ftl["gc_units_copied"]) > 0.0, "{extra:?}: {ftl}");
        if ftl["gc_pacing"] == "paced" {
            assert!(
                f(&ftl["gc_urgent_victims"]) < 0.5 * f(&ftl["gc_victims"]),
                "{extra:?}: most victims collected at the host's pace: {ftl}"
            );
        }
    }
}

#[test]
fn same_seed_same_report_in_both_pacing_modes() {
    let strip = |mut v: Value| {
        for k in ["wall_time_s", "prep_wall_time_s", "sim_wall_time_s"] {
            v.as_object_mut().unwrap().remove(k);
        }
        serde_json::to_string(&v).unwrap()
    };
    let wl = r#"{"rw":"randrw","rwmixread":30,"bs":"4k","iodepth":16,"ramp_time":"50ms","number_ios":20000}"#;
    // Directly aged (tiny-test) and proxy-aged (a 64 GB two-die dram-ssd) drives.
    let devices = [
        paced_tiny(&[]),
        paced_tiny(&["ftl.gc_pacing=\"burst\""]),
        device("dram-ssd", &["nand.channels=2", "nand.dies_per_channel=1"]),
    ];
    for d in &devices {
        let a = simulate(d, wl, DriveState::Aging, 7, false);
        let m = &a["device"]["ftl"]["measured"];
        assert_eq!(m["from_ns"], 50_000_000u64, "{m}");
        assert!(f(&m["units_programmed"]) > 0.0);
        let b = simulate(d, wl, DriveState::Aging, 7, false);
        assert_eq!(strip(a.clone()), strip(b), "{}: same seed", d.name);
        let c = simulate(d, wl, DriveState::Aging, 8, false);
        assert_ne!(strip(a), strip(c), "{}: other seed", d.name);
    }
}

#[test]
fn without_a_ramp_the_measured_window_is_the_whole_run() {
    let r = simulate(
        &paced_tiny(&[]),
        r#"{"rw":"randwrite","bs":"4k","iodepth":8,"number_ios":8000}"#,
        DriveState::Steady,
        1,
        false,
    );
    let ftl = &r["device"]["ftl"];
    let m = &ftl["measured"];
    assert_eq!(m["from_ns"], 0);
    for k in [
        "host_units_written",
        "units_programmed",
        "gc_units_copied",
        "gc_victims",
        "erases",
        "waf",
    ] {
        assert_eq!(m[k], ftl[k], "{k}");
    }
    // fio's figures count what was submitted after the ramp: here everything.
    assert_eq!(f(&r["write"]["total_ios"]), 8000.0);
}

#[test]
fn fio_figures_count_only_ios_submitted_after_the_ramp() {
    let r = simulate(
        &paced_tiny(&[]),
        r#"{"rw":"randwrite","bs":"4k","iodepth":8,"ramp_time":"200ms","number_ios":8000}"#,
        DriveState::Steady,
        1,
        false,
    );
    let w = &r["write"];
    let ios = f(&w["total_ios"]);
    assert!(ios > 1000.0 && ios < 8000.0, "{ios}");
    // IOPS over the measured time only: runtime from the end of the ramp.
    let runtime_ms = f(&w["runtime"]);
    let sim_ms = f(&r["sim_time_ns"]) / 1e6;
    assert!(
        (runtime_ms - (sim_ms - 200.0)).abs() <= 1.0,
        "{runtime_ms} {sim_ms}"
    );
    assert!((f(&w["iops"]) - ios / (runtime_ms / 1e3)).abs() / f(&w["iops"]) < 0.01);
    let m = &r["device"]["ftl"]["measured"];
    assert_eq!(m["from_ns"], 200_000_000u64);
    // Host units placed in the window: the measured writes, give or take those in
    // flight at the ramp's end (at most the queue depth).
    assert!(
        (f(&m["host_units_written"]) - ios).abs() <= 8.0,
        "{m} vs {ios}"
    );
}

#[test]
fn bad_pacing_values_are_clear_errors() {
    let load = |o: &[&str]| {
        let o: Vec<String> = o.iter().map(|s| s.to_string()).collect();
        ssdlab_core::config::load_device(
            &ssdlab_core::config::DeviceSpec::Preset("tiny-test".into()),
            &o,
        )
        .unwrap_err()
        .to_string()
    };
    let e = load(&["ftl.gc_pacing=\"lazy\""]);
    assert!(
        e.contains("ftl.gc_pacing") && e.contains("paced") && e.contains("burst"),
        "{e}"
    );
    let e = load(&["ftl.gc_urgent_blocks=3"]);
    assert!(
        e.contains("ftl.gc_urgent_blocks: 3") && e.contains("allowed: 1 to 2"),
        "{e}"
    );
    let e = load(&["ftl.gc_urgent_blocks=0"]);
    assert!(e.contains("ftl.gc_urgent_blocks: 0"), "{e}");
    // Burst mode has no urgent floor to check.
    let o = vec![
        "ftl.gc_pacing=\"burst\"".to_string(),
        "ftl.gc_urgent_blocks=3".to_string(),
    ];
    assert!(ssdlab_core::config::load_device(
        &ssdlab_core::config::DeviceSpec::Preset("tiny-test".into()),
        &o
    )
    .is_ok());
}

/// Paced collection reads a victim a multi-plane page at a time: the pages of a stripe
/// row that hold valid data go out together, so the die reads them in one multi-plane
/// read. By hand: an aged drive's victims are about 1 - 1/WAF valid (~80 %), so a
/// 16 KiB page of four 4 KiB units holds valid data with probability ~1 - 0.2^4 and a
/// 4-plane row gives ~4 page reads per read operation. The case is the aged 980 PRO
/// 1 TB (`seed000-dram-1tb`, GC striped over its 32 dies), whose foreground folding
/// starts after ~4 s: released a page at a time (the model before 2026-11-29), its
/// first 6 s made 2.49 page reads per read operation (1.14 read operations per host
/// write over 8-20 s, against 0.64 with GC on the victim's die), and now 4.0.
#[test]
fn paced_gc_reads_a_victim_a_multi_plane_page_at_a_time() {
    let dev = device("seed000-dram-1tb", &[]);
    assert_eq!(dev.nand.planes_per_die, 4);
    let r = simulate(
        &dev,
        r#"{"rw":"randwrite","bs":"4k","iodepth":32,"runtime":"6s"}"#,
        DriveState::Aging,
        1,
        false,
    );
    let nand = &r["device"]["nand"];
    let ftl = &r["device"]["ftl"];
    assert_eq!(f(&nand["user_read_txns"]), 0.0, "GC and fold reads only");
    assert!(
        f(&r["device"]["slc"]["units_folded"]) > 0.0,
        "the drive folds in the foreground"
    );
    assert_eq!(
        f(&ftl["gc_urgent_victims"]),
        0.0,
        "every victim paced: {ftl}"
    );
    let per_op = f(&nand["gc_read_txns"]) / f(&nand["read_ops"]);
    assert!(
        per_op > 3.9,
        "{per_op:.2} page reads per read operation: {nand}"
    );
}
