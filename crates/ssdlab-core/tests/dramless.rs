//! The DRAM-less controller's own data path: the SRAM budget that the write buffer,
//! the map's SRAM structures and the journal share; the HMB as a write-back map
//! cache; HMB access that always costs. Each test fails without its mechanism.

mod common;

use ssdlab_core::config::presets::DEVICE_NAMES;
use ssdlab_core::config::{load_device, DeviceSpec};
use ssdlab_core::DriveState;

#[test]
fn every_preset_fits_its_sram() {
    let bad: Vec<String> = DEVICE_NAMES
        .iter()
        .filter_map(|name| load_device(&DeviceSpec::Preset(name.to_string()), &[]).err())
        .map(|e| e.to_string())
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn a_write_buffer_that_does_not_fit_the_sram_is_an_error_listing_the_parts() {
    let o = vec!["controller.write_buffer=\"4MiB\"".to_string()];
    let err = load_device(&DeviceSpec::Preset("seed000-hmb".into()), &o).unwrap_err();
    let msg = err.to_string();
    assert!(msg.contains("sram.size"), "{msg}");
    for part in ["write buffer", "SRAM map level", "journal", "map-of-map"] {
        assert!(msg.contains(part), "{part} missing from: {msg}");
    }
    // The same buffer in a larger SRAM is fine.
    let o = vec![
        "controller.write_buffer=\"4MiB\"".to_string(),
        "sram.size=\"8MiB\"".to_string(),
    ];
    load_device(&DeviceSpec::Preset("seed000-hmb".into()), &o).unwrap();
}

/// 2,000 4 KiB random reads at QD1 on a full drive.
const QD1_READS: &str = r#"{"rw":"randread","bs":"4k","iodepth":1,"number_ios":2000}"#;

#[test]
fn an_hmb_holding_the_whole_map_costs_a_link_round_trip_per_lookup() {
    // The 500 GB drive's map (477 MB) fits a 480 MiB grant: no demand paging.
    let whole = [
        "hmb.hmpre=\"480MiB\"",
        "hmb.host_limit=\"512MiB\"",
        "hmb.host_chunk=\"4MiB\"",
        "hmb.max_descriptors=256",
    ];
    let hmb = common::device("seed000-hmb", &whole);
    assert!(hmb.map_placement().whole);
    // The same controller with the map in its own DRAM instead.
    let dram = common::device(
        "seed000-hmb",
        &[
            "map.tier=\"dram\"",
            "map.cache=\"all\"",
            "dram.size=\"1GiB\"",
        ],
    );
    let rh = common::simulate(&hmb, QD1_READS, DriveState::Full, 3, false);
    let rd = common::simulate(&dram, QD1_READS, DriveState::Full, 3, false);
    let lat = |r: &serde_json::Value| common::f(&r["read"]["lat_ns"]["mean"]);
    let extra = lat(&rh) - lat(&rd);
    // A read request up, the host's DRAM, 64 bytes down: two link latencies and the
    // host DRAM at least, plus the TLPs' serialisation (well under 100 ns on Gen3 x4).
    let floor = (2 * hmb.host.pcie_latency.ns() + hmb.hmb.host_dram_latency.ns()) as f64;
    assert!(
        extra >= floor && extra <= floor + 100.0,
        "extra {extra} ns, floor {floor}"
    );
    let m = &rh["device"]["map"]["hmb"];
    assert_eq!(m["lookups"], 2000, "{m}");
    assert_eq!(m["read_bytes"], 2000 * 64, "{m}");
    // The DRAM map reports no HMB traffic.
    assert!(rd["device"]["map"].get("hmb").is_none());
}

/// 20,000 4 KiB random writes over 64 MiB (16 map segments of 4 MiB of LBAs).
const SMALL_SPAN_WRITES: &str =
    r#"{"rw":"randwrite","bs":"4k","iodepth":16,"size":"64MiB","number_ios":20000}"#;

#[test]
fn a_write_back_map_cache_writes_a_segment_back_once_for_many_updates() {
    let wb = common::device("hmb-ssd", &["map.update=\"write-back\""]);
    // A journal small enough to flush in this run (the default holds 32 Ki entries).
    let journal = common::device("hmb-ssd", &["map.journal_entries=2048"]);
    let r = common::simulate(&wb, SMALL_SPAN_WRITES, DriveState::Fresh, 1, false);
    let rj = common::simulate(&journal, SMALL_SPAN_WRITES, DriveState::Fresh, 1, false);
    let m = &r["device"]["map"];
    let w = &m["write_back"];
    // Each of the 16 segments is brought in once and stays dirty in the HMB.
    assert_eq!(w["write_allocates"], 16, "{w}");
    assert_eq!(w["dirty_segments"], 16, "{w}");
    assert_eq!(m["dirty_writebacks"], 0, "{m}");
    // What reaches flash for the map is the log: one 4 KiB page per 512 entries.
    assert_eq!(w["log_entries"], 20_000);
    assert_eq!(w["log_pages"], 20_000 / 512);
    assert_eq!(r["device"]["ftl"]["map_units_written"], 20_000 / 512);
    // The journal writes a segment back on every flush instead.
    let jm = &rj["device"]["ftl"]["map_units_written"];
    assert!(common::f(jm) > 3.0 * 16.0, "journal map units written {jm}");
    assert!(rj["device"]["map"].get("write_back").is_none());
}

#[test]
fn the_map_update_log_wrapping_writes_dirty_segments_back() {
    // A ring of 4,096 entries: a dirty segment goes back once 2,048 entries
    // were appended after its first change.
    let wb = common::device(
        "hmb-ssd",
        &["map.update=\"write-back\"", "map.log_entries=4096"],
    );
    let r = common::simulate(&wb, SMALL_SPAN_WRITES, DriveState::Fresh, 1, false);
    let m = &r["device"]["map"];
    let w = &m["write_back"];
    let lw = common::f(&w["log_writebacks"]);
    // 20,000 entries are ~9.8 half-rings; all 16 segments are dirtied again in each.
    // Each segment is written back about every 2,048 + 16 entries after the first
    // half-ring: 16 x (20,000 / 2,064 - 1) = 139, give or take one per segment.
    assert!((16.0 * 7.5..=16.0 * 9.5).contains(&lw), "{w}");
    assert_eq!(m["dirty_writebacks"], w["log_writebacks"], "{m}");
}

#[test]
fn the_hmb_grant_acts_on_random_writes_through_the_write_back_cache() {
    // 4K random writes over 24 GiB of a fresh drive: a Max grant (64 MiB of
    // segments, 64 GiB of LBAs) keeps every touched segment, Min (16 MiB) a
    // sixth of the span's, so Min writes segments back and loads them again.
    let wl = r#"{"rw":"randwrite","bs":"4k","iodepth":32,"size":"24GiB","number_ios":60000}"#;
    let run = |policy: &str| {
        let d = common::device(
            "seed000-hmb",
            &[
                "map.update=\"write-back\"",
                &format!("hmb.host_policy=\"{policy}\""),
                // One queue is one core: at the preset's 4.2 us per command the
                // core, not the map, would bound both grants (238K IOPS).
                "controller.cmd_time=\"1us\"",
            ],
        );
        common::simulate(&d, wl, DriveState::Fresh, 2, false)
    };
    let (max, min) = (run("max"), run("min"));
    let wbs = |r: &serde_json::Value| common::f(&r["device"]["map"]["dirty_writebacks"]);
    assert_eq!(wbs(&max), 0.0);
    assert!(wbs(&min) > 5_000.0, "min grant write-backs {}", wbs(&min));
    let iops = |r: &serde_json::Value| common::f(&r["write"]["iops"]);
    assert!(
        iops(&max) > 1.02 * iops(&min),
        "max {} min {}",
        iops(&max),
        iops(&min)
    );
}

#[test]
fn reads_return_the_last_write_through_the_write_back_cache_and_its_log() {
    let wb = common::device(
        "tiny-test",
        &[
            "map.tier=\"sram\"",
            "map.cache=\"12KiB\"",
            "map.segment=\"1KiB\"",
            "map.journal_entries=512",
            "map.update=\"write-back\"",
            "map.log_entries=2048",
            "sram.size=\"512KiB\"",
            // A known limit (docs/map-cache.md): with the toy drive's 25 % spare, a
            // write-back cache this small writes so many map pages that the spare
            // ends up in open blocks and GC finds no victim; 40 % keeps it going.
            "ftl.over_provisioning=0.4",
        ],
    );
    let wl = r#"{"rw":"randrw","rwmixread":40,"bs":"4k","iodepth":16,"number_ios":60000}"#;
    let r = common::simulate(&wb, wl, DriveState::Steady, 5, true);
    let d = &r["device"];
    assert!(r["stalled"].is_null(), "{}", r["stalled"]);
    assert_eq!(
        common::f(&d["oracle"]["mismatches"]),
        0.0,
        "{}",
        d["oracle"]
    );
    assert!(common::f(&d["oracle"]["checked"]) > 10_000.0);
    // Through write-allocates, evictions of dirty segments and the log's pages.
    let w = &d["map"]["write_back"];
    assert!(common::f(&w["write_allocates"]) > 1000.0, "{w}");
    assert!(
        common::f(&d["map"]["dirty_writebacks"]) > 1000.0,
        "{}",
        d["map"]
    );
    assert_eq!(
        common::f(&w["log_pages"]),
        (common::f(&w["log_entries"]) / 512.0).floor(),
        "{w}"
    );
}

/// 128 KiB sequential writes into the SLC area of an empty drive.
const SEQ_WRITES: &str = r#"{"rw":"write","bs":"128k","iodepth":32,"size":"512MiB"}"#;

#[test]
fn returning_buffer_room_at_data_in_lets_a_small_buffer_feed_more_programs() {
    // seed000-hmb-1tb: 576 KiB of SRAM write buffer, 64 KiB per die program (4 planes
    // x 16 KiB), SLC programs set to 200 us (slower than the preset's, so that the link
    // does not bind first). Held until a program ends, each 64 KiB
    // occupies the buffer for its data-in (64 KiB at 1.4 GB/s, 46.8 us) plus tPROG
    // at least, so the buffer caps the write rate at 576 KiB / 246.8 us.
    let held = common::device("seed000-hmb-1tb", &["slc.t_prog=\"200us\""]);
    let staged = common::device(
        "seed000-hmb-1tb",
        &[
            "slc.t_prog=\"200us\"",
            "controller.buffer_release=\"data-in\"",
        ],
    );
    let bw = |r: &serde_json::Value| common::f(&r["write"]["bw_bytes"]);
    let rh = common::simulate(&held, SEQ_WRITES, DriveState::Fresh, 1, false);
    let rs = common::simulate(&staged, SEQ_WRITES, DriveState::Fresh, 1, false);
    let buffer = held.controller.write_buffer.bytes() as f64;
    let hold_s = 200e-6 + 65536.0 / 1.4e9;
    assert!(
        bw(&rh) <= buffer / hold_s,
        "held {} cap {}",
        bw(&rh),
        buffer / hold_s
    );
    assert!(
        bw(&rs) > 1.3 * bw(&rh),
        "staged {} held {}",
        bw(&rs),
        bw(&rh)
    );
    // Either way the buffer never holds more than its size.
    for r in [&rh, &rs] {
        let peak = common::f(&r["device"]["controller"]["write_buffer_peak_bytes"]);
        assert!(peak <= buffer, "peak {peak}");
    }
}

#[test]
fn journal_flush_slots_bound_the_map_update_rate() {
    // Whole-drive random writes on a fresh DRAM-less drive: once the SRAM journal is
    // full, a flush of a segment already on flash loads its translation page (tR 45 us)
    // before writing it back. One slot serialises the flushes, so their loads alone
    // take flush_loads x 45 us of the run; the default (one slot per die) runs more
    // loads than that could fit in the run, side by side.
    let wl = r#"{"rw":"randwrite","bs":"4k","iodepth":32,"runtime":"2s","ramp_time":"1s"}"#;
    let run = |slots: &str| {
        let d = common::device("seed000-hmb", &[&format!("map.flush_slots={slots}")]);
        common::simulate(&d, wl, DriveState::Normal, 1, false)
    };
    let (one, default) = (run("1"), run("0"));
    let loads_ns =
        |r: &serde_json::Value| common::f(&r["device"]["map"]["journal"]["flush_loads"]) * 45_000.0;
    let sim_ns = |r: &serde_json::Value| common::f(&r["sim_time_ns"]);
    assert!(
        loads_ns(&one) <= sim_ns(&one),
        "{} > {}",
        loads_ns(&one),
        sim_ns(&one)
    );
    assert!(loads_ns(&default) > sim_ns(&default));
    let iops = |r: &serde_json::Value| common::f(&r["write"]["iops"]);
    assert!(
        iops(&default) > 1.5 * iops(&one),
        "{} vs {}",
        iops(&default),
        iops(&one)
    );
}

/// A demand-paged map's pages and a write-back map's update log live in the spare area:
/// a device where they leave GC too few spare blocks is refused, naming them (the 24 MiB
/// toy drive with the default 4 MiB log ring once stopped with every die at one free
/// block and no victim to collect).
#[test]
fn a_map_log_that_leaves_gc_too_little_spare_is_refused() {
    let mut o: Vec<String> = [
        "map.tier=\"sram\"",
        "map.cache=\"1KiB\"",
        "map.segment=\"512B\"",
        "map.journal_entries=512",
        "sram.size=\"512KiB\"",
        "map.update=\"write-back\"",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    let err = load_device(&DeviceSpec::Preset("tiny-test".into()), &o).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("map.log_entries") && msg.contains("spare blocks per die"),
        "{msg}"
    );
    o.push("map.log_entries=4096".into());
    load_device(&DeviceSpec::Preset("tiny-test".into()), &o).unwrap();
}
