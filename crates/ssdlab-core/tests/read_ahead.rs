//! Read-ahead into the read cache (`read_cache.read_ahead`): a sequential stream is
//! read from NAND a page at a time ahead of the host and served from the cache; a
//! random stream triggers nothing; a read of a unit on its way waits for it instead
//! of reading the page twice; the oracle holds while writes overwrite what was read
//! ahead; the SRAM budget bounds what a DRAM-less drive can read ahead into; bad
//! values are clear errors.

mod common;

use common::{device, f};
use serde_json::Value;
use ssdlab_core::config::{load_device, DeviceConfig, DeviceSpec};
use ssdlab_core::DriveState;

fn simulate(dev: &DeviceConfig, workload: &str, state: DriveState, verify: bool) -> Value {
    common::simulate(dev, workload, state, 5, verify)
}

/// 1 MiB read 4 KiB at a time, in order, one command at a time (256 commands).
const SEQ_QD1: &str = r#"{"rw":"read","bs":"4k","iodepth":1,"size":"1MiB","number_ios":256}"#;

fn tiny(read_ahead: &str) -> DeviceConfig {
    device(
        "tiny-test",
        &[
            "read_cache.size=\"256KiB\"",
            "read_cache.tier=\"dram\"",
            &format!("read_cache.read_ahead=\"{read_ahead}\""),
        ],
    )
}

fn nand_reads(r: &Value) -> f64 {
    f(&r["device"]["nand"]["read_ops"])
}

#[test]
fn a_sequential_stream_is_read_ahead_a_page_at_a_time_and_served_from_the_cache() {
    let off = simulate(&tiny("0B"), SEQ_QD1, DriveState::Full, true);
    let on = simulate(&tiny("64KiB"), SEQ_QD1, DriveState::Full, true);
    for r in [&off, &on] {
        let o = &r["device"]["oracle"];
        assert_eq!(o["mismatches"], 0, "{o}");
        assert!(f(&o["checked"]) >= 256.0, "{o}");
    }
    // Without read-ahead every 4 KiB command senses its page.
    assert_eq!(nand_reads(&off), 256.0);
    assert!(off["device"]["read_cache"].get("read_ahead").is_none());
    let ra = &on["device"]["read_cache"]["read_ahead"];
    assert_eq!(ra["window_bytes"], 65536, "{ra}");
    // The first two commands read their own units (the second starts the stream);
    // everything after them was read ahead (the drive does not know where the job
    // ends: up to a window more), a page (4 units of a 16 KiB page) per flash read.
    let units = f(&ra["units"]);
    assert!((254.0..=254.0 + 16.0).contains(&units), "{ra}");
    assert!(f(&ra["reads"]) <= (units / 4.0).ceil() + 1.0, "{ra}");
    assert!(nand_reads(&on) <= 2.0 + f(&ra["reads"]), "{ra}");
    let rc = &on["device"]["read_cache"];
    assert!(f(&rc["hits"]) + f(&ra["joined"]) >= 250.0, "{rc}");
    // A hit costs a DRAM access instead of a sense and a channel transfer.
    let lat = |r: &Value| f(&r["read"]["lat_ns"]["mean"]);
    assert!(lat(&on) < 0.5 * lat(&off), "{} vs {}", lat(&on), lat(&off));
}

#[test]
fn random_reads_start_no_read_ahead_and_run_as_without_it() {
    let wl = r#"{"rw":"randread","bs":"4k","iodepth":4,"number_ios":3000}"#;
    let off = simulate(&tiny("0B"), wl, DriveState::Full, false);
    let on = simulate(&tiny("64KiB"), wl, DriveState::Full, false);
    let ra = &on["device"]["read_cache"]["read_ahead"];
    // Two random 4 KiB reads in a row rarely touch consecutive units (about 1 in
    // 6,000 here, over 4 streams): a stray trigger reads a window ahead.
    assert!(f(&ra["sequential_reads"]) <= 4.0, "{ra}");
    assert!(f(&ra["units"]) <= 4.0 * 20.0, "{ra}");
    let iops = |r: &Value| f(&r["read"]["iops"]);
    assert!(
        (iops(&on) / iops(&off) - 1.0).abs() < 0.02,
        "{} vs {}",
        iops(&on),
        iops(&off)
    );
}

#[test]
fn a_read_of_a_unit_on_its_way_waits_for_the_prefetch_instead_of_reading_again() {
    // 32 sequential commands outstanding: the stream runs into its own read-ahead.
    let wl = r#"{"rw":"read","bs":"4k","iodepth":32,"size":"2MiB","number_ios":512}"#;
    let r = simulate(&tiny("128KiB"), wl, DriveState::Full, true);
    assert_eq!(r["device"]["oracle"]["mismatches"], 0);
    let ra = &r["device"]["read_cache"]["read_ahead"];
    assert!(f(&ra["joined"]) > 0.0, "{ra}");
    // Each 16 KiB page is sensed about once: by a host command or by a prefetch,
    // not both (512 units are 128 pages).
    let reads = nand_reads(&r);
    assert!(
        reads <= 128.0 * 1.25,
        "{reads} flash reads for 128 pages; {ra}"
    );
}

#[test]
fn reads_stay_correct_while_writes_overwrite_what_was_read_ahead() {
    // Sequential reads and writes over the same 256 KiB, looped: prefetched units
    // are rewritten in flight and in the cache.
    let wl =
        r#"{"rw":"rw","rwmixread":60,"bs":"4k","iodepth":8,"size":"256KiB","number_ios":20000}"#;
    let r = simulate(&tiny("32KiB"), wl, DriveState::Steady, true);
    let o = &r["device"]["oracle"];
    assert_eq!(o["mismatches"], 0, "{o}");
    assert!(f(&o["checked"]) > 10_000.0, "{o}");
    let ra = &r["device"]["read_cache"]["read_ahead"];
    assert!(f(&ra["units"]) > 1000.0, "{ra}");
    assert!(f(&r["device"]["read_cache"]["invalidations"]) > 1000.0);
}

#[test]
fn a_dramless_drive_reads_ahead_only_into_what_its_sram_holds() {
    // The 980 (seed000-hmb-1tb) has 2 MiB of SRAM, all of it taken by its write
    // buffer, map level, journal and map-of-map: a 1 MiB read cache there does not
    // fit, and the error lists the read cache among the SRAM's parts.
    let err = load_device(
        &DeviceSpec::Preset("seed000-hmb-1tb".into()),
        &[
            "read_cache.size=\"1MiB\"".into(),
            "read_cache.tier=\"sram\"".into(),
            "read_cache.read_ahead=\"512KiB\"".into(),
        ],
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("read cache (read_cache.size)"), "{err}");
    assert!(err.contains("sram.size"), "{err}");
    assert!(
        err.contains("write buffer (controller.write_buffer)"),
        "{err}"
    );
}

#[test]
fn bad_read_ahead_values_are_clear_errors() {
    let cases: [(&[&str], &str); 5] = [
        (&["read_cache.read_ahead=\"64KiB\""], "needs a read cache"),
        (
            &[
                "read_cache.size=\"64KiB\"",
                "read_cache.read_ahead=\"128KiB\"",
            ],
            "more than half the read cache",
        ),
        (
            &[
                "read_cache.size=\"64KiB\"",
                "read_cache.read_ahead=\"6KiB\"",
            ],
            "multiple of the mapping unit",
        ),
        (
            &[
                "read_cache.size=\"64KiB\"",
                "read_cache.read_ahead=\"16KiB\"",
                "read_cache.read_ahead_streams=0",
            ],
            "read_cache.read_ahead_streams: 0",
        ),
        (
            &[
                "read_cache.size=\"64KiB\"",
                "read_cache.tier=\"slc\"",
                "read_cache.read_ahead=\"16KiB\"",
            ],
            "SLC cannot be read ahead into",
        ),
    ];
    for (sets, want) in cases {
        let o: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let err = load_device(&DeviceSpec::Preset("tiny-test".into()), &o)
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{sets:?}: {err}");
        assert!(err.contains("read_cache."), "{sets:?}: {err}");
    }
}
