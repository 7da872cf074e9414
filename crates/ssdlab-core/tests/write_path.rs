//! The controller's host write data path (`controller.write_path`): a ceiling on the
//! rate host write data enters the write buffer, whatever the link and the flash allow.

mod common;

use ssdlab_core::config::{load_device, DeviceSpec};
use ssdlab_core::DriveState;

const SEQ_WRITES: &str = r#"{"rw":"write","bs":"128k","iodepth":32,"number_ios":4000}"#;

#[test]
fn the_write_path_caps_sequential_writes_at_its_rate() {
    // The 980 PRO class drive on PCIe Gen4 writes 128 KiB sequentially into its SLC
    // area faster than 2 GB/s when nothing else binds; a 2 GB/s path holds it to at most
    // 2 GB/s (bandwidth never above the slowest stage), and busy nearly all the run.
    let free = common::device("seed000-dram-1tb", &["controller.write_path=\"100GB/s\""]);
    let capped = common::device("seed000-dram-1tb", &["controller.write_path=\"2GB/s\""]);
    let bw = |r: &serde_json::Value| common::f(&r["write"]["bw_bytes"]);
    let rf = common::simulate(&free, SEQ_WRITES, DriveState::Normal, 1, false);
    let rc = common::simulate(&capped, SEQ_WRITES, DriveState::Normal, 1, false);
    assert!(bw(&rf) > 3.0e9, "uncapped {}", bw(&rf));
    assert!(bw(&rc) <= 2.0e9 * 1.0001, "capped {}", bw(&rc));
    assert!(bw(&rc) > 0.95 * 2.0e9, "capped {}", bw(&rc));
    let util = common::f(&rc["device"]["controller"]["write_path_util"]);
    assert!(util <= 1.0 && util > 0.95, "util {util}");
    // Reads do not use it.
    let reads = r#"{"rw":"read","bs":"128k","iodepth":32,"number_ios":4000}"#;
    let r = common::simulate(&capped, reads, DriveState::Sustain, 1, false);
    let read_bw = common::f(&r["read"]["bw_bytes"]);
    assert!(read_bw > 3.0e9, "reads {read_bw}");
}

#[test]
fn an_unset_path_is_absent_from_the_report_and_a_zero_rate_is_refused() {
    let d = common::device("dram-ssd", &[]);
    let r = common::simulate(&d, SEQ_WRITES, DriveState::Fresh, 1, false);
    assert!(r["device"]["controller"].get("write_path_util").is_none());
    let o = vec!["controller.write_path=\"0GB/s\"".to_string()];
    let err = load_device(&DeviceSpec::Preset("dram-ssd".into()), &o).unwrap_err();
    assert!(err.to_string().contains("controller.write_path"), "{err}");
}
