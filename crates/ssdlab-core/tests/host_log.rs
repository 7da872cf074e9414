//! The host's log-structured store on a zoned drive (`host_log`, workload/hostlog.rs):
//! data that dies in the order it was written costs no copies, mixed lifetimes in one
//! stream do and separate streams avoid them, the store's own commands stay out of the
//! jobs' figures, every read the collections make returns the last write (the drive's
//! oracle), and bad set-ups are refused. The drive: tiny-test with 1 MiB zones (32
//! zones, each a 256 KiB block on each of the 4 dies), written in 16 KiB extents.

mod common;

use common::{device, f, try_run_jobs};
use serde_json::Value;
use ssdlab_core::config::DeviceConfig;
use ssdlab_core::DriveState;

fn zoned(extra: &[&str]) -> DeviceConfig {
    common::zoned_tiny(extra)
}

fn run(dev: &DeviceConfig, workload: &str) -> Result<Value, String> {
    try_run_jobs(dev, workload, DriveState::Fresh, true)
}

/// Two jobs (3 MiB and 21 MiB ranges: 24 MiB of the 32), each writing its range `passes` times over,
/// sequentially (`write`) or at random (`randwrite`), through the store, on one
/// submission queue (jobs sharing a stream must: a zone is written in order).
fn two_classes(rw: &str, passes: u64, host_log: &str) -> String {
    let job = |off: u64, size: u64| {
        format!(
            r#"{{"rw":"{rw}","bs":"16k","iodepth":4,"queues":1,"offset":"{off}MiB","size":"{size}MiB",
               "io_size":"{}MiB","host_log":{host_log}}}"#,
            size * passes
        )
    };
    format!(r#"{{"jobs":[{},{}]}}"#, job(0, 3), job(3, 21))
}

fn host_log(r: &Value) -> &Value {
    &r["device"]["zns"]["host_log"]
}

fn clean(r: &Value) {
    let z = &r["device"]["zns"];
    assert_eq!(z["errors_total"], 0, "zoned errors: {}", z["errors"]);
    let o = &r["device"]["oracle"];
    assert_eq!(o["mismatches"], 0, "oracle: {o}");
}

#[test]
fn logs_in_their_own_streams_are_collected_without_copies() {
    let r = run(&zoned(&[]), &two_classes("write", 4, "{}")).unwrap();
    let h = host_log(&r);
    assert_eq!(h["streams"], 2);
    assert_eq!(f(&h["app_writes"]), (96 * 1024 / 16) as f64); // 96 MiB of 16 KiB
    assert!(f(&h["victims"]) > 10.0, "{h}");
    assert_eq!(h["gc_reads"], 0, "{h}");
    assert_eq!(h["waf"], 1.0);
    // Every zone the store filled was emptied by a reset that erased it.
    assert_eq!(h["resets"], h["victims"]);
    assert_eq!(r["device"]["zns"]["resets"], h["resets"]);
    clean(&r);
}

#[test]
fn mixed_lifetimes_in_one_stream_are_copied_and_separate_streams_are_not() {
    let dev = zoned(&[]);
    let one = run(&dev, &two_classes("randwrite", 3, r#"{"streams":1}"#)).unwrap();
    let two = run(&dev, &two_classes("randwrite", 3, "{}")).unwrap();
    let (h1, h2) = (host_log(&one), host_log(&two));
    assert!(f(&h1["waf"]) > f(&h2["waf"]) + 0.1, "{h1} vs {h2}");
    assert!(f(&h1["waf"]) > 1.2, "{h1}");
    for (r, h) in [(&one, h1), (&two, h2)] {
        // A collection writes what it read; the drive took the jobs' writes and the
        // collections' writes, and the oracle checked every collection's read.
        assert_eq!(h["gc_reads"], h["gc_writes"], "{h}");
        let extents = f(&h["app_writes"]) + f(&h["gc_writes"]);
        assert_eq!(
            f(&r["device"]["zns"]["host_bytes_written"]),
            extents * 16384.0
        );
        assert!(f(&r["device"]["oracle"]["checked"]) >= f(&h["gc_reads"]) * 4.0);
        // The jobs' figures count their own writes only.
        assert_eq!(f(&r["write"]["total_ios"]), f(&h["app_writes"]));
        assert_eq!(r["read"]["total_ios"], 0);
        clean(r);
    }
    // Copies cost the writers time: the same host writes take longer.
    let t = |r: &Value| f(&r["sim_time_ns"]);
    assert!(t(&one) > t(&two), "{} vs {}", t(&one), t(&two));
}

#[test]
fn the_same_run_gives_the_same_report() {
    let dev = zoned(&[]);
    let w = two_classes("randwrite", 2, r#"{"streams":1}"#);
    let (a, b) = (run(&dev, &w).unwrap(), run(&dev, &w).unwrap());
    assert_eq!(host_log(&a), host_log(&b));
    assert_eq!(a["write"], b["write"]);
}

#[test]
fn bad_set_ups_are_refused() {
    let err = |dev: &DeviceConfig, w: &str| run(dev, w).unwrap_err();
    let e = err(
        &device("tiny-test", &[]),
        &two_classes("write", 1, r#"{"streams":1}"#),
    );
    assert!(e.contains("host_log: needs a zoned drive"), "{e}");
    let dev = zoned(&[]);
    for (w, says) in [
        (
            r#"{"rw":"randrw","bs":"16k","size":"4MiB","host_log":{}}"#,
            "rw: 'randrw' with host_log",
        ),
        (
            r#"{"jobs":[{"rw":"write","bs":"16k","size":"4MiB","host_log":{}},
                        {"rw":"write","bs":"16k","size":"4MiB"}]}"#,
            "the same host_log table",
        ),
        (
            r#"{"rw":"write","bs":"16k","size":"30MiB","host_log":{}}"#,
            "must be smaller than the zones left",
        ),
        (
            r#"{"rw":"write","bs":"16k","size":"4MiB","host_log":{"gc_free_zones":1}}"#,
            "gc_free_zones: 1",
        ),
        (
            r#"{"rw":"write","bs":"16k","size":"4MiB","host_log":{"stream":1}}"#,
            "unknown field",
        ),
        (
            r#"{"jobs":[{"rw":"write","bs":"16k","size":"4MiB","queues":2,"host_log":{"streams":1}},
                        {"rw":"write","bs":"16k","size":"4MiB","host_log":{"streams":1}}]}"#,
            "different submission queues",
        ),
    ] {
        let e = err(&dev, w);
        assert!(e.contains(says), "{e}");
    }
    let few = zoned(&["zns.max_open_zones=2"]);
    let e = err(&few, &two_classes("write", 1, "{}"));
    assert!(
        e.contains("more than the drive's zns.max_open_zones 2"),
        "{e}"
    );
    // A store starts on an empty drive.
    let e = try_run_jobs(
        &dev,
        &two_classes("write", 1, "{}"),
        DriveState::Full,
        false,
    )
    .unwrap_err();
    assert!(e.contains("allowed: fresh"), "{e}");
}
