//! Sudden power-off (ssd/power_loss.rs, ftl/durable.rs): writes lost from the volatile
//! write buffer without PLP and kept with it or after a Flush, the oracle through power
//! cuts, and the recovery at power-on timed from the drive's own reads.

mod common;

use common::{device, f, simulate};
use proptest::prelude::*;
use serde_json::Value;
use ssdlab_core::config::DeviceConfig;
use ssdlab_core::DriveState;

/// The power-loss entry of a run's first host event.
fn power(r: &Value) -> &Value {
    let p = &r["host_events"][0]["power_loss"];
    assert!(p.is_object(), "no power_loss entry: {}", r["host_events"]);
    p
}

fn write_run(dev: &DeviceConfig, extra: &str, events: &str, seed: u64) -> Value {
    let wl = format!(
        r#"{{"rw":"randwrite","bs":"4k","iodepth":8,"size":"8MiB","runtime":"1.6s","number_ios":100000000{extra},"events":{events}}}"#
    );
    simulate(dev, &wl, DriveState::Full, seed, true)
}

const CUT: &str = r#"[{"at":"0.2s","kind":"power-loss","duration":"10ms"}]"#;

#[test]
fn writes_in_the_volatile_buffer_are_lost_without_plp_only() {
    let dev = device("tiny-test", &[]);
    let r = write_run(&dev, "", CUT, 1);
    let p = power(&r);
    assert!(r["stalled"].is_null(), "{}", r["stalled"]);
    // Acknowledged, still in the 256 KiB buffer: lost, counted, at most the buffer.
    let lost = f(&p["lost_units"]);
    assert!(lost > 0.0 && lost <= 64.0, "{p}");
    assert_eq!(f(&p["lost_bytes"]), lost * 4096.0);
    assert_eq!(p["plp"], false);
    // Every read afterwards (the oracle follows the run) returns the last durable data.
    assert_eq!(f(&r["device"]["oracle"]["mismatches"]), 0.0);

    // With PLP the buffer is dumped: nothing lost, the dump timed and within hold-up.
    let plp = device("tiny-test", &["power_loss.plp=true"]);
    let r = write_run(&plp, "", CUT, 1);
    let p = power(&r);
    assert_eq!(f(&p["lost_units"]), 0.0);
    assert!(f(&p["dump_ns"]) > 0.0, "{p}");
    assert_eq!(p["hold_up_exceeded"], false, "{p}");
    // PLP saved the map state: no open-block scan.
    assert_eq!(f(&p["scan_pages"]), 0.0);
    assert_eq!(f(&r["device"]["oracle"]["mismatches"]), 0.0);

    // fsync after every write: at most the one write whose flush had not completed.
    let r = write_run(&dev, r#","fsync":1"#, CUT, 1);
    assert!(f(&power(&r)["lost_units"]) <= 1.0, "{}", power(&r));
}

#[test]
fn a_run_without_power_loss_is_unchanged_by_the_mechanism() {
    // The same run with a reset instead: no durability record, no power_loss entry.
    let dev = device("tiny-test", &[]);
    let r = write_run(&dev, "", r#"[{"at":"0.2s","kind":"reset"}]"#, 3);
    assert!(r["host_events"][0].get("power_loss").is_none());
}

/// One die, one plane: the recovery's reads run one after another, each costing
/// t_cmd + tR + its data-out on the channel.
#[test]
fn recovery_time_of_a_small_drive_by_hand() {
    let one = [
        "nand.channels=1",
        "nand.dies_per_channel=1",
        "nand.planes_per_die=1",
        "nand.blocks_per_plane=256",
    ];
    let dev = device("tiny-test", &one);
    // A second without power: the flash work queued at the cut has long finished.
    let cut = r#"[{"at":"0.2s","kind":"power-loss","duration":"1s"}]"#;
    let r = write_run(&dev, "", cut, 1);
    let p = power(&r);
    // The map is all in DRAM: its checkpoint is the whole map, 4 B per 4 KiB unit.
    let host_units = dev.capacity_bytes() / 4096;
    let ckpt_pages = (host_units * 4).div_ceil(16384);
    assert_eq!(f(&p["checkpoint_pages"]) as u64, ckpt_pages);
    assert_eq!(f(&p["log_pages"]), 0.0);
    // Open blocks: the host frontier (and GC's, if open); their programmed pages.
    let scan = f(&p["scan_pages"]) as u64;
    let open = f(&p["open_blocks"]) as u64;
    assert!(open >= 1 && scan <= open * 8, "{p}");
    // 800 MB/s channel: 1.25 ns a byte. A page: 100 ns + 50 us + 16384 x 1.25 ns.
    let page_ns = 100 + 50_000 + 20_480;
    let oob_ns = 100 + 50_000 + 80; // 64 B of spare-area metadata
    assert_eq!(f(&p["checkpoint_ns"]) as u64, ckpt_pages * page_ns);
    assert_eq!(f(&p["scan_ns"]) as u64, scan * oob_ns);
    assert_eq!(
        f(&p["rebuild_ns"]) as u64,
        ckpt_pages * page_ns + scan * oob_ns
    );
    // Outage: 1 s off, then the later of the rebuild and PCIe's 100 ms, plus 50 ms.
    let e = &r["host_events"][0];
    let rebuild = f(&p["rebuild_ns"]) as u64;
    assert_eq!(
        f(&e["outage_ns"]) as u64,
        1_000_000_000 + rebuild.max(100_000_000) + 50_000_000
    );
}

#[test]
fn recovery_time_grows_with_capacity() {
    // The DRAM drive reloads its whole map: 4 B per 4 KiB, so the checkpoint doubles
    // with the capacity (and with it the rebuild).
    let rebuild = |blocks: u32| {
        let dev = device(
            "dram-ssd",
            &[
                &format!("nand.blocks_per_plane={blocks}"),
                "power_loss.plp=true",
            ],
        );
        let wl = r#"{"rw":"randread","bs":"4k","iodepth":8,"size":"1GiB","runtime":"0.1s","number_ios":100000000,"events":[{"at":"0.02s","kind":"power-loss","duration":"1ms"}]}"#;
        let r = simulate(&dev, wl, DriveState::Fresh, 1, false);
        let p = power(&r).clone();
        (f(&p["checkpoint_pages"]), f(&p["rebuild_ns"]))
    };
    let (small_pages, small) = rebuild(256);
    let (big_pages, big) = rebuild(512);
    // Pages by hand: 4 B per 4 KiB unit of the capacity, in 16 KiB pages.
    let pages = |blocks: u32| {
        let dev = device("dram-ssd", &[&format!("nand.blocks_per_plane={blocks}")]);
        (dev.capacity_bytes() / 4096 * 4).div_ceil(16384) as f64
    };
    assert_eq!((small_pages, big_pages), (pages(256), pages(512)));
    assert!(big_pages > 1.9 * small_pages);
    assert!(big > 1.8 * small, "{small} -> {big}");
}

/// Valid event lists by construction: power losses among resets.
fn event_list(spec: &[(u8, u64)]) -> String {
    let mut out = Vec::new();
    let mut t_us = 0u64;
    for &(kind, gap_us) in spec {
        t_us += gap_us;
        let (k, extra, outage_us) = match kind % 3 {
            0 | 1 => ("power-loss", r#","duration":"2ms""#, 2_000 + 150_000),
            _ => ("reset", "", 50_000),
        };
        out.push(format!(r#"{{"at":"{t_us}us","kind":"{k}"{extra}}}"#));
        t_us += outage_us;
    }
    format!("[{}]", out.join(","))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]
    /// Random mixed I/O (with and without flushes) cut at random times, with and
    /// without PLP, on drives of every map kind: every read returns the last durable
    /// write, PLP loses nothing, and the run never stalls.
    #[test]
    fn the_oracle_holds_through_power_cuts(
        preset in 0usize..4,
        plp in any::<bool>(),
        fsync in 0u32..3,
        spec in proptest::collection::vec((0u8..3, 1u64..40_000), 1..4),
        seed in 1u64..1000,
    ) {
        let name = ["hmb-ssd", "dramless-ssd", "dram-ssd", "seed000-hmb"][preset];
        let dev = device(name, &["hmb.host_policy=\"min\"", &format!("power_loss.plp={plp}")]);
        let events = event_list(&spec);
        let sync = if fsync == 0 { String::new() } else { format!(r#","fsync":{}"#, fsync * 4) };
        let wl = format!(
            r#"{{"rw":"randrw","rwmixread":50,"bs":"4k","iodepth":16,"size":"2GiB","number_ios":12000{sync},"events":{events}}}"#
        );
        let r = simulate(&dev, &wl, DriveState::Full, seed, true);
        prop_assert!(r["stalled"].is_null(), "{}", r["stalled"]);
        let o = &r["device"]["oracle"];
        prop_assert!(f(&o["checked"]) > 0.0);
        prop_assert_eq!(f(&o["mismatches"]), 0.0, "{} {}", name, events);
        for e in r["host_events"].as_array().unwrap() {
            if let Some(p) = e.get("power_loss") {
                if plp {
                    prop_assert_eq!(f(&p["lost_units"]), 0.0);
                }
                prop_assert_eq!(f(&p["lost_bytes"]), f(&p["lost_units"]) * 4096.0);
            }
        }
    }
}

#[test]
fn recovery_time_grows_with_the_map_log() {
    // seed000-hmb with a write-back map cache keeps a map-update log ring of
    // `map.log_entries` x 8 B in NAND: the rebuild replays the whole ring.
    let run = |entries: u32| {
        let dev = device(
            "seed000-hmb",
            &[
                "map.update=\"write-back\"",
                &format!("map.log_entries={entries}"),
            ],
        );
        let wl = r#"{"rw":"randwrite","bs":"4k","iodepth":8,"size":"1GiB","runtime":"0.1s","number_ios":100000000,"events":[{"at":"0.02s","kind":"power-loss","duration":"1ms"}]}"#;
        let r = simulate(&dev, wl, DriveState::Fresh, 1, false);
        let p = power(&r).clone();
        (
            f(&p["log_pages"]) as u64,
            f(&p["log_ns"]),
            f(&p["rebuild_ns"]),
        )
    };
    // Pages by hand: entries x 8 B in 4 KiB units, read in 16 KiB pages.
    let pages = |entries: u64| ((entries * 8).div_ceil(4096) * 4096).div_ceil(16384);
    let (small_pages, small_ns, small_rebuild) = run(1 << 16);
    let (big_pages, big_ns, big_rebuild) = run(1 << 19);
    assert_eq!((small_pages, big_pages), (pages(1 << 16), pages(1 << 19)));
    // Eight times the pages; the first 32 are one multi-plane read per die.
    assert!(big_ns > 3.0 * small_ns, "{small_ns} -> {big_ns}");
    assert!(big_rebuild > small_rebuild);
}
