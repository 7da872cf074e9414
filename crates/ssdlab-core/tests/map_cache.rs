//! The demand-paged map: miss penalties by hand, the oracle through evictions and
//! write-backs, HMB traffic on the PCIe link, negotiation, and bad configs.

mod common;

use common::{device, f};
use serde_json::Value;
use ssdlab_core::config::memory::HmbPolicy;
use ssdlab_core::config::{load_device, DeviceConfig, DeviceSpec};
use ssdlab_core::nand::Timing;
use ssdlab_core::DriveState;

fn simulate(dev: &DeviceConfig, workload: &str, state: DriveState, verify: bool) -> Value {
    common::simulate(dev, workload, state, 3, verify)
}

/// At QD1 on an idle drive, a miss costs exactly one segment load: command,
/// sense, transfer of the segment's bytes, then the SRAM access.
#[test]
fn qd1_miss_penalty_is_one_segment_load() {
    let wl = r#"{"rw":"randread","bs":"4k","iodepth":1,"number_ios":3000,"size":"256MiB"}"#;
    // 256 MiB span / 8 KiB units x 4 B = 128 KiB of map: all of it cached vs one segment.
    let all = device(
        "emmc-32g",
        &["map.cache=\"128KiB\"", "map.segment=\"2KiB\""],
    );
    let one = device("emmc-32g", &["map.cache=\"2KiB\"", "map.segment=\"2KiB\""]);
    let r_all = simulate(&all, wl, DriveState::Full, false);
    let r_one = simulate(&one, wl, DriveState::Full, false);
    let m_all = &r_all["device"]["map"];
    let m_one = &r_one["device"]["map"];
    // The warm cache misses only on first touches (64 segments); the tiny one almost always.
    assert!(f(&m_all["misses"]) <= 64.0, "{m_all}");
    let miss_frac = f(&m_one["misses"]) / f(&m_one["lookups"]);
    assert!(miss_frac > 0.95, "{miss_frac}");
    let t = Timing::new(&one);
    let penalty = (t.t_cmd + one.nand.t_read.get(0) + t.bus_ns(2048)) as f64;
    let extra = f(&r_one["read"]["lat_ns"]["mean"]) - f(&r_all["read"]["lat_ns"]["mean"]);
    let miss_delta = miss_frac - f(&m_all["misses"]) / f(&m_all["lookups"]);
    let expect = miss_delta * penalty;
    assert!(
        (extra - expect).abs() / expect < 0.02,
        "extra latency {extra} ns vs {miss_delta} x {penalty} ns"
    );
}

/// Hit rate of uniform random reads ≈ cached share of the span's map (seed 004's mechanism).
#[test]
fn hit_rate_follows_cache_over_map() {
    let wl = r#"{"rw":"randread","bs":"4k","iodepth":1,"number_ios":20000,"size":"1GiB"}"#;
    for (cache, expect) in [("64KiB", 0.125), ("256KiB", 0.5)] {
        let dev = device(
            "emmc-32g",
            &[&format!("map.cache=\"{cache}\""), "sram.size=\"2MiB\""],
        );
        let r = simulate(&dev, wl, DriveState::Full, false);
        let hr = f(&r["device"]["map"]["hit_rate"]);
        assert!((hr - expect).abs() < 0.02, "cache {cache}: hit rate {hr}");
    }
}

/// Reads return the last write through map evictions, dirty write-backs and GC.
#[test]
fn oracle_holds_with_a_few_segments() {
    for tier in ["sram", "hmb"] {
        let dev = device(
            "tiny-test",
            &[
                &format!("map.tier=\"{tier}\""),
                "map.cache=\"2KiB\"",
                "map.segment=\"512B\"",
                "map.sram_cache=\"1KiB\"",
                "hmb.hmpre=\"16KiB\"",
                "hmb.hmmin=\"8KiB\"",
                "hmb.host_chunk=\"4KiB\"",
            ],
        );
        let r = simulate(
            &dev,
            r#"{"rw":"randrw","bs":"4k","iodepth":16,"number_ios":40000}"#,
            DriveState::Steady,
            true,
        );
        let o = &r["device"]["oracle"];
        assert!(f(&o["checked"]) > 10000.0, "{o}");
        assert_eq!(f(&o["mismatches"]), 0.0, "{tier}: {o}");
        let m = &r["device"]["map"];
        assert!(f(&m["dirty_writebacks"]) > 100.0, "{tier}: {m}");
        assert!(f(&r["device"]["ftl"]["map_units_written"]) > 0.0);
        assert!(f(&r["device"]["ftl"]["gc_victims"]) > 0.0);
    }
}

/// Segment copies into the HMB share the link with read data: on a slow link the
/// HMB drive is slower than the same cache in SRAM, with identical misses.
#[test]
fn hmb_traffic_slows_data_on_the_link() {
    let common = [
        "host.pcie_gen=1",
        "host.pcie_lanes=1",
        "map.segment=\"4KiB\"",
        "sram.size=\"8MiB\"",
    ];
    let mut sram: Vec<&str> = common.to_vec();
    sram.extend(["map.tier=\"sram\"", "map.cache=\"1MiB\""]);
    let hmb: Vec<&str> = [
        common.to_vec(),
        vec![
            "map.tier=\"hmb\"",
            "map.cache=\"1MiB\"",
            // An HMB drive needs an SRAM cache for when no HMB is granted; one segment.
            "map.sram_cache=\"4KiB\"",
            "hmb.hmpre=\"1MiB\"",
            "hmb.hmmin=\"1MiB\"",
        ],
    ]
    .concat();
    let wl = r#"{"rw":"randread","bs":"4k","iodepth":32,"number_ios":30000}"#;
    let r_s = simulate(&device("hmb-ssd", &sram), wl, DriveState::Full, false);
    let r_h = simulate(&device("hmb-ssd", &hmb), wl, DriveState::Full, false);
    let hm = &r_h["device"]["hmb"];
    assert_eq!(f(&hm["granted_bytes"]), 1048576.0);
    let loads = f(&r_h["device"]["map"]["loads"]);
    assert!(f(&hm["write_bytes"]) >= loads * 4096.0, "{hm}");
    assert!(f(&hm["pcie_share"]) > 0.3, "{hm}");
    let (is, ih) = (f(&r_s["read"]["iops"]), f(&r_h["read"]["iops"]));
    assert!(ih < 0.75 * is, "hmb {ih} vs sram {is}");
    // The link, not the NAND, is what differs: the up direction is near full.
    assert!(f(&r_h["device"]["pcie"]["up_util"]) > 0.9);
}

#[test]
fn hmb_grant_follows_policy_and_host_cap() {
    let dev = device("hmb-ssd", &[]);
    let mut h = dev.hmb.clone();
    let mib = 1u64 << 20;
    for (policy, limit, expect) in [
        (HmbPolicy::Max, 128, 64),
        (HmbPolicy::Half, 128, 32),
        (HmbPolicy::Min, 128, 16),
        (HmbPolicy::Off, 128, 0),
        (HmbPolicy::Max, 40, 40),
        (HmbPolicy::Max, 8, 0), // the cap is below HMMIN: no HMB at all
    ] {
        h.host_policy = policy;
        h.host_limit = ssdlab_core::config::units::Size(limit * mib);
        let g = h.negotiate();
        assert_eq!(g.granted_bytes, expect * mib, "{policy:?} cap {limit} MiB");
        assert_eq!(g.chunks.iter().sum::<u64>(), g.granted_bytes);
        assert!(g.chunks.iter().all(|&c| c <= 4 * mib && c >= 4096));
    }
    // Too few descriptors for the preferred size: the grant stops at HMMAXD chunks.
    h.host_policy = HmbPolicy::Max;
    h.host_limit = ssdlab_core::config::units::Size(128 * mib);
    h.max_descriptors = 5;
    assert_eq!(h.negotiate().granted_bytes, 20 * mib);
}

#[test]
fn lba_span_knee_sits_where_the_map_stops_fitting() {
    // hmb-ssd with the HMB at its minimum (16 MiB) holds the map of a 16 GiB span.
    let dev = device("hmb-ssd", &["hmb.host_policy=\"min\""]);
    let wl = |span: &str| {
        format!(r#"{{"rw":"randread","bs":"4k","iodepth":32,"number_ios":60000,"size":"{span}"}}"#)
    };
    let inside = simulate(&dev, &wl("8GiB"), DriveState::Full, false);
    let outside = simulate(&dev, &wl("128GiB"), DriveState::Full, false);
    let hr_in = f(&inside["device"]["map"]["hit_rate"]);
    let hr_out = f(&outside["device"]["map"]["hit_rate"]);
    assert!(hr_in > 0.9, "{hr_in}");
    assert!(hr_out < 0.2, "{hr_out}");
    assert!(f(&outside["read"]["iops"]) < 0.8 * f(&inside["read"]["iops"]));
}

#[test]
fn bad_map_configs_are_clear_errors() {
    let cases: &[(&[&str], &str, &str)] = &[
        (
            &["map.cache=\"2KiB\"", "map.segment=\"8KiB\""],
            "emmc-32g",
            "smaller than one map segment",
        ),
        (
            &["hmb.hmmin=\"128MiB\""],
            "hmb-ssd",
            "HMMIN must not exceed HMPRE",
        ),
        (&["map.cache=\"4MiB\""], "emmc-32g", "larger than its tier"),
        (&["map.segment=\"3KiB\""], "emmc-32g", "map.segment"),
        (&["map.policy=\"fifo\""], "emmc-32g", "policy"),
        (&["hmb.host_policy=\"most\""], "hmb-ssd", "host_policy"),
        (&["map.tier=\"hmb\""], "dramless-ssd", "hmb.hmpre"),
        (&["dram.size=\"64MiB\""], "dram-ssd", "dram.size"),
    ];
    for (o, preset, text) in cases {
        let ov: Vec<String> = o.iter().map(|s| s.to_string()).collect();
        let e = load_device(&DeviceSpec::Preset(preset.to_string()), &ov)
            .expect_err(&format!("{o:?} should be rejected"))
            .to_string();
        assert!(e.contains(text), "{o:?}: {e}");
    }
}
