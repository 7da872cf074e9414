//! Host events in a run (ssd/host_events.rs, config/host_events.rs): controller
//! resets, suspend-resume and the host taking the HMB back and handing it again,
//! with and without Memory Return; and the host's HMB policy (config/hmb_grant.rs).

mod common;

use common::{device, f, simulate};
use proptest::prelude::*;
use serde_json::Value;
use ssdlab_core::config::memory::HmbStatus;
use ssdlab_core::config::units::Size;
use ssdlab_core::config::{load_workload, DeviceConfig};
use ssdlab_core::{run, DriveState, RunOptions};

const MIB: u64 = 1 << 20;

fn read_run(dev: &DeviceConfig, events: &str, span: &str, runtime: &str) -> Value {
    let wl = format!(
        r#"{{"rw":"randread","bs":"4k","iodepth":32,"size":"{span}","runtime":"{runtime}","events":{events}}}"#
    );
    simulate(dev, &wl, DriveState::Full, 1, false)
}

#[test]
fn host_grants_deny_and_fail_like_linux() {
    let dev = device("hmb-ssd", &[]);
    let mut h = dev.hmb.clone();
    // Default: HMPRE 64 MiB in 4 MiB chunks under the 128 MiB cap.
    let g = h.negotiate();
    assert_eq!(
        (g.status, g.granted_bytes, g.chunks.len()),
        (HmbStatus::Granted, 64 * MIB, 16)
    );
    // HMMIN (16 MiB) above the host cap: Linux does not even try.
    h.host_limit = Size(8 * MIB);
    let g = h.negotiate();
    assert_eq!((g.status, g.granted_bytes), (HmbStatus::Denied, 0));
    assert!(g.note.contains("host_limit"), "{}", g.note);
    h.host_limit = Size(128 * MIB);
    // Fragmented host memory: no chunk above 1 MiB; Linux halves 4 -> 2 -> 1 MiB.
    h.host_max_alloc = Some(Size(MIB));
    let g = h.negotiate();
    assert_eq!(
        (g.status, g.granted_bytes, g.chunks.len()),
        (HmbStatus::Granted, 64 * MIB, 64)
    );
    // ... and only 8 descriptors (HMMAXD): 8 MiB at most, below HMMIN: no HMB.
    h.max_descriptors = 8;
    let g = h.negotiate();
    assert_eq!(
        (g.status, g.granted_bytes),
        (HmbStatus::AllocationFailed, 0)
    );
    h.max_descriptors = 256;
    h.host_max_alloc = None;
    // The host has 40 MiB to give: a partial grant, still above HMMIN.
    h.host_available = Some(Size(40 * MIB));
    let g = h.negotiate();
    assert_eq!((g.status, g.granted_bytes), (HmbStatus::Granted, 40 * MIB));
    // 10 MiB: below HMMIN whatever the chunk size.
    h.host_available = Some(Size(10 * MIB));
    assert_eq!(h.negotiate().status, HmbStatus::AllocationFailed);
}

#[test]
fn a_failed_allocation_runs_the_drive_without_hmb() {
    let failed = device("hmb-ssd", &["hmb.host_available=\"10MiB\""]);
    let off = device("hmb-ssd", &["hmb.host_policy=\"off\""]);
    let wl = r#"{"rw":"randread","bs":"4k","iodepth":32,"size":"4GiB","number_ios":20000}"#;
    let a = simulate(&failed, wl, DriveState::Full, 1, false);
    let b = simulate(&off, wl, DriveState::Full, 1, false);
    assert_eq!(a["device"]["hmb"]["status"], "allocation-failed");
    assert_eq!(b["device"]["hmb"]["status"], "off");
    assert_eq!(a["device"]["hmb"]["granted_bytes"], 0);
    // Same drive as one the host grants nothing: same map placement, same reads.
    assert_eq!(
        a["device"]["map"]["placement"],
        b["device"]["map"]["placement"]
    );
    assert_eq!(a["read"]["iops"], b["read"]["iops"]);
    // An ordinary grant names no status (the report is as before the status existed).
    let g = simulate(&device("hmb-ssd", &[]), wl, DriveState::Full, 1, false);
    assert!(g["device"]["hmb"].get("status").is_none());
}

/// A reset with Memory Return costs the command outage and nothing else; without
/// it the HMB drive's random reads recover along a warm-up curve set by the rate
/// at which it can load map segments again.
///
/// By hand: 16 GiB of 4 KiB units hold 4 Mi map entries of 4 B = 16 MiB of map, in
/// 4 KiB segments S = 4,096 segments, all cached before the reset (16 MiB < the 64
/// MiB grant). Cold, every segment a read touches first is loaded once: exactly S
/// loads. The dies are the bottleneck at QD32, each read costing a die t = tR
/// (mean of the TLC page types) + the 4 KiB transfer on the channel, so warm the
/// drive does R = dies / t reads per second; a read that misses costs one more such
/// read (the segment is 4 KiB too). After i reads a fraction exp(-i/S) of the
/// segments are not yet loaded (uniform random offsets), so the rate is
/// R / (1 + exp(-i/S)): it is R/2 at first and reaches 90 % of R once
/// exp(-i/S) = 1/9, after i* = S ln 9 reads, which takes
/// (1/R) * integral_0^i* (1 + exp(-i/S)) di = (S/R) (ln 9 + 8/9).
#[test]
fn reset_with_memory_return_costs_only_the_outage_and_without_it_warms_up() {
    let dev = device("hmb-ssd", &[]);
    let ev = |mr: bool| {
        format!(
            r#"[{{"at":"0.3s","kind":"reset","memory_return":{mr},"window":"2ms","windows":100}}]"#
        )
    };
    let with = read_run(&dev, &ev(true), "16GiB", "0.8s");
    let without = read_run(&dev, &ev(false), "16GiB", "0.8s");
    let (a, b) = (&with["host_events"][0], &without["host_events"][0]);
    let ready_ns = 50_000_000.0; // [reset] ready, the default
    for e in [a, b] {
        assert_eq!(f(&e["outage_ns"]), ready_ns);
        // The first command fetched after the reset waited for it.
        assert!(f(&e["first_io_latency_ns"]) >= ready_ns - 1e6, "{e}");
    }
    // Memory Return: the cache is intact; every window of the curve at full speed.
    let before = f(&a["iops_before"]);
    assert_eq!(f(&a["map_segments_dropped"]), 0.0);
    assert_eq!(f(&a["map_loads_after"]), 0.0);
    for w in a["recovery_iops"].as_array().unwrap() {
        assert!(f(w) > 0.85 * before, "window {w} vs {before} before");
    }
    // Without: every segment of the span dropped, and loaded again once; a load
    // started by a read fetched before the reset (at most QD32 of them) may land
    // after the outage in the new buffer and spare its segment a second load.
    let segments = 16.0 * 1024.0 * 1024.0 * 1024.0 / 4096.0 * 4.0 / 4096.0;
    assert_eq!(f(&b["map_segments_dropped"]), segments);
    let loads = f(&b["map_loads_after"]);
    assert!(
        loads <= segments && loads >= segments - 32.0,
        "{loads} loads"
    );
    // The curve from the config's timings.
    let n = &dev.nand;
    let t_read_ns = (0..3).map(|p| n.t_read.get(p) as f64).sum::<f64>() / 3.0; // TLC
    let xfer_ns = 4096.0 / (n.channel_rate.0 * 1e6 * n.channel_width_bits as f64 / 8.0) * 1e9;
    let dies = (n.channels * n.dies_per_channel) as f64;
    let rate = dies / ((t_read_ns + xfer_ns) / 1e9);
    let expect_ns = segments / rate * (9f64.ln() + 8.0 / 9.0) * 1e9;
    let got_ns = f(&b["recovery_ns"]);
    println!(
        "warm-up: expected {expect_ns:.0} ns, measured {got_ns} ns; R {rate:.0} vs before {before}"
    );
    assert!(
        got_ns > 0.8 * expect_ns && got_ns < 1.3 * expect_ns,
        "warm-up {got_ns} ns, by hand {expect_ns:.0} ns"
    );
    let first = f(&b["recovery_iops"][0]);
    assert!(
        first < 0.6 * before && first > 0.4 * before,
        "first window {first} vs {before}"
    );
}

/// Eager rebuild: the 4,096 segments the cache held are loaded again at once when
/// the HMB returns empty, so reads find them sooner than on demand, where each waits
/// for a read to miss it; the same number of loads either way.
#[test]
fn eager_rebuild_recovers_sooner_than_on_demand() {
    let ev = r#"[{"at":"0.3s","kind":"reset","memory_return":false,"window":"2ms","windows":100}]"#;
    let lazy = read_run(&device("hmb-ssd", &[]), ev, "16GiB", "0.8s");
    let eager = read_run(
        &device("hmb-ssd", &["reset.hmb_rebuild=\"eager\""]),
        ev,
        "16GiB",
        "0.8s",
    );
    let (l, e) = (&lazy["host_events"][0], &eager["host_events"][0]);
    println!(
        "recovery: on demand {} ns, eager {} ns",
        l["recovery_ns"], e["recovery_ns"]
    );
    assert!(f(&e["recovery_ns"]) < f(&l["recovery_ns"]), "{e}");
    assert_eq!(f(&e["map_loads_after"]), 4096.0);
    assert!(f(&l["map_loads_after"]) <= 4096.0);
}

#[test]
fn suspend_resume_powers_the_sram_map_cache_off() {
    // The DRAM-less drive's SRAM cache is lost over the power-off; its outage is
    // the time asleep + PCIe power-on (100 ms) + ready (50 ms).
    let dev = device("dramless-ssd", &[]);
    let ev =
        r#"[{"at":"0.1s","kind":"suspend-resume","duration":"0.5s","window":"5ms","windows":10}]"#;
    let r = read_run(&dev, ev, "1GiB", "0.9s");
    let e = &r["host_events"][0];
    assert_eq!(f(&e["outage_ns"]), 650e6);
    assert!(f(&e["map_segments_dropped"]) > 0.0);
    assert!(f(&e["map_loads_after"]) > 0.0);
    // The DRAM drive keeps its whole map (its reload at power-on is not modelled):
    // only the outage.
    let r = read_run(&device("dram-ssd", &[]), ev, "1GiB", "0.9s");
    let e = &r["host_events"][0];
    assert_eq!(f(&e["outage_ns"]), 650e6);
    assert_eq!(f(&e["map_segments_dropped"]), 0.0);
}

#[test]
fn hmb_disable_runs_on_sram_until_it_returns() {
    let dev = device("hmb-ssd", &[]);
    let ev = r#"[{"at":"0.2s","kind":"hmb-disable"},{"at":"0.4s","kind":"hmb-enable","memory_return":true,"window":"5ms","windows":20}]"#;
    let r = read_run(&dev, ev, "16GiB", "0.6s");
    let (d, e) = (&r["host_events"][0], &r["host_events"][1]);
    assert_eq!(f(&d["outage_ns"]), 0.0);
    // While away, reads miss the 256 KiB SRAM level: the rate falls.
    let away = f(&d["recovery_iops"][5]);
    assert!(away < 0.7 * f(&d["iops_before"]), "{d}");
    // Back with its contents (reads change no entry): nothing lost, full speed.
    assert_eq!(f(&e["map_segments_dropped"]), 0.0);
    assert!(
        f(&e["recovery_iops"][1]) > 0.85 * f(&d["iops_before"]),
        "{e}"
    );
}

#[test]
fn bad_events_are_clear_errors() {
    let dev = device("hmb-ssd", &[]);
    let cap = dev.capacity_bytes();
    let check = |events: &str, want: &str| {
        let wl = load_workload(
            &format!(r#"{{"rw":"randread","number_ios":100,"events":{events}}}"#),
            &[],
            cap,
        );
        let msg = match wl {
            Err(e) => e.to_string(),
            Ok(w) => match run(dev.clone(), w, RunOptions::default(), &mut |_| true) {
                Err(e) => e.to_string(),
                Ok(_) => panic!("{events} accepted"),
            },
        };
        assert!(msg.contains(want), "{events}: {msg}");
    };
    check(
        r#"[{"at":"1s","kind":"hmb-enable"}]"#,
        "is not disabled then",
    );
    check(r#"[{"at":"1s","kind":"reboot"}]"#, "unknown variant");
    check(r#"[{"at":"1s","kind":"reset","when":1}]"#, "unknown field");
    check(
        r#"[{"at":"1s","kind":"reset"},{"at":"1.01s","kind":"reset"}]"#,
        "falls inside the outage",
    );
    check(
        r#"[{"at":"1s","kind":"reset","duration":"1s"}]"#,
        "duration applies only",
    );
    let wb = device("hmb-ssd", &["controller.write_buffer_tier=\"hmb\""]);
    let wl = load_workload(
        r#"{"rw":"randread","number_ios":100,"events":[{"at":"1s","kind":"reset"}]}"#,
        &[],
        cap,
    )
    .unwrap();
    let e = run(wb, wl, RunOptions::default(), &mut |_| true)
        .err()
        .unwrap();
    assert!(e.to_string().contains("not modelled yet"), "{e}");
}

/// Kinds of events for the randomized oracle test, made valid by construction.
fn event_list(spec: &[(u8, u64, bool)]) -> String {
    let mut out = Vec::new();
    let (mut t_us, mut off) = (0u64, false);
    for &(kind, gap_us, mr) in spec {
        t_us += gap_us;
        let (k, outage_us) = if off {
            ("hmb-enable", 0)
        } else {
            match kind % 4 {
                0 => ("reset", 50_000),
                1 => ("suspend-resume", 1_000 + 150_000),
                2 => ("hmb-disable", 0),
                _ => ("reset", 50_000),
            }
        };
        let extra = match k {
            "suspend-resume" => format!(r#","duration":"1ms","memory_return":{mr}"#),
            "hmb-disable" => String::new(),
            _ => format!(r#","memory_return":{mr}"#),
        };
        out.push(format!(r#"{{"at":"{t_us}us","kind":"{k}"{extra}}}"#));
        off = k == "hmb-disable";
        t_us += outage_us;
    }
    format!("[{}]", out.join(","))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, ..ProptestConfig::default() })]
    /// Through resets, suspend cycles and the HMB's loss and return (with and
    /// without Memory Return), on random mixed I/O, every read returns the last
    /// data written (the FTL's read oracle) and the run never stalls.
    #[test]
    fn the_oracle_holds_through_every_event_kind(
        preset in 0usize..4,
        spec in proptest::collection::vec((0u8..4, 1u64..40_000, any::<bool>()), 1..5),
        seed in 1u64..1000,
    ) {
        // seed000-hmb: the write-back map cache (dirty segments in the HMB, a map-update log).
        let name = ["hmb-ssd", "dramless-ssd", "dram-ssd", "seed000-hmb"][preset];
        let dev = device(name, &["hmb.host_policy=\"min\""]);
        let events = event_list(&spec);
        let wl = format!(
            r#"{{"rw":"randrw","rwmixread":50,"bs":"4k","iodepth":16,"size":"2GiB","number_ios":12000,"events":{events}}}"#
        );
        let r = simulate(&dev, &wl, DriveState::Full, seed, true);
        prop_assert!(r["stalled"].is_null(), "{}", r["stalled"]);
        let o = &r["device"]["oracle"];
        prop_assert!(f(&o["checked"]) > 0.0);
        prop_assert_eq!(f(&o["mismatches"]), 0.0, "{} {}", name, events);
    }
}
