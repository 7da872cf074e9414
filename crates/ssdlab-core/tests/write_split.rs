//! Large host writes are pulled into the write buffer part by part
//! (`controller.write_chunk`, src/ssd/write_split.rs): a drive's sequential write rate
//! does not depend on the command size, a split write is still one command to the
//! host, and the oracle holds through parts that start and end inside mapping units.

mod common;

use ssdlab_core::config::{load_device, DeviceSpec};
use ssdlab_core::DriveState;

fn seq_write(bs: &str, iodepth: u32) -> String {
    format!(r#"{{"rw":"write","bs":"{bs}","iodepth":{iodepth},"size":"4GiB","io_size":"2GiB"}}"#)
}

fn bw(r: &serde_json::Value) -> f64 {
    common::f(&r["write"]["bw_bytes"])
}

#[test]
fn a_dramless_drive_writes_1_mib_commands_as_fast_as_128_kib_ones() {
    // The 980 1 TB preset buffers writes in 576 KiB of SRAM. Taken whole, a 1 MiB
    // command waited until everything buffered had been programmed: 1,790 MB/s against
    // 2,844 with 128 KiB commands. Pulled in parts, both run at the same rate.
    let dev = common::device("seed000-hmb-1tb", &[]);
    let small = common::simulate(&dev, &seq_write("128k", 32), DriveState::Fresh, 1, false);
    let large = common::simulate(&dev, &seq_write("1m", 8), DriveState::Fresh, 1, false);
    let (s, l) = (bw(&small), bw(&large));
    assert!((l / s - 1.0).abs() < 0.02, "128 KiB {s}, 1 MiB {l}");
    // A part as large as the command is the old behaviour: the buffer drains between
    // commands.
    let whole = common::device("seed000-hmb-1tb", &["controller.write_chunk=\"1MiB\""]);
    let w = common::simulate(&whole, &seq_write("1m", 8), DriveState::Fresh, 1, false);
    assert!(bw(&w) < 0.75 * l, "whole {} vs parts {l}", bw(&w));
}

#[test]
fn a_split_write_is_one_command_to_the_host() {
    let dev = common::device("seed000-hmb-1tb", &[]);
    let r = common::simulate(&dev, &seq_write("1m", 8), DriveState::Fresh, 1, false);
    let w = &r["write"];
    assert_eq!(common::f(&w["total_ios"]), 2048.0, "{w}");
    // Each command's latency holds at least its own 1 MiB over PCIe 3.0 x4 (under
    // 3.94 GB/s of payload), however its parts were spread.
    let min_ns = common::f(&w["clat_ns"]["min"]);
    assert!(
        min_ns > (1u64 << 20) as f64 / 3.94,
        "min latency {min_ns} ns"
    );
    // The bytes the host sent are the bytes the drive took in, once.
    let units = common::f(&r["device"]["ftl"]["host_units_written"]);
    assert_eq!(units * 4096.0, (2u64 << 30) as f64);
}

#[test]
fn the_oracle_holds_through_parts_that_cut_mapping_units() {
    // 34 KiB writes at 34 KiB-aligned offsets start and end inside 4 KiB units, and
    // 8 KiB parts cut each one four or five ways: every read must still return the last
    // write, through GC on a full drive.
    let dev = common::device("tiny-test", &["controller.write_chunk=\"8KiB\""]);
    let r = common::simulate(
        &dev,
        r#"{"rw":"randrw","bs":"34k","iodepth":8,"number_ios":6000}"#,
        DriveState::Steady,
        1,
        true,
    );
    let o = &r["device"]["oracle"];
    assert!(common::f(&o["checked"]) > 1000.0, "{o}");
    assert_eq!(common::f(&o["mismatches"]), 0.0, "{o}");
    assert!(common::f(&r["device"]["ftl"]["gc_victims"]) > 0.0);
}

#[test]
fn a_chunk_that_is_not_whole_mapping_units_is_refused() {
    let o = vec!["controller.write_chunk=\"6KiB\"".to_string()];
    let err = load_device(&DeviceSpec::Preset("seed000-hmb".into()), &o).unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("controller.write_chunk") && msg.contains("mapping unit"),
        "{msg}"
    );
}
