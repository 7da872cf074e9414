//! Chips as well as dies (`nand.dies_per_chip`, `nand.chip_interface`): with
//! "one-command" a chip runs one operation at a time, from its command to the end of
//! its data-out, so a channel whose dies form one chip reads no faster than one read
//! at a time; "interleaved" (the default) keeps every die independent.

mod common;

use common::{device, f, simulate};
use ssdlab_core::config::{load_device, DeviceSpec};
use ssdlab_core::nand::Timing;
use ssdlab_core::DriveState;

/// tiny-test with one plane per die (no multi-plane reads), so a read is one
/// operation: command, tR, one 4 KiB data-out.
const ONE_PLANE: &[&str] = &["nand.planes_per_die=1", "nand.blocks_per_plane=64"];
const RANDREAD: &str = r#"{"rw":"randread","bs":"4k","iodepth":64,"number_ios":20000}"#;

#[test]
fn a_one_command_chip_reads_one_page_at_a_time() {
    let mut o = ONE_PLANE.to_vec();
    o.extend([
        "nand.dies_per_chip=2",
        "nand.chip_interface=\"one-command\"",
    ]);
    let dev = device("tiny-test", &o);
    let r = simulate(&dev, RANDREAD, DriveState::Full, 1, false);
    // 2 channels x 2 dies = 2 chips; a chip is busy t_cmd + tR + data-out per read.
    let t = Timing::new(&dev);
    let per_read_ns = (t.t_cmd + dev.nand.t_read.get(0) + t.bus_ns(4096)) as f64;
    assert_eq!(per_read_ns, 55_220.0);
    let bound = 2.0 / (per_read_ns * 1e-9);
    let iops = f(&r["read"]["iops"]);
    assert!(
        iops <= bound * 1.0001,
        "{iops} above the chips' bound {bound}"
    );
    assert!(
        iops >= 0.93 * bound,
        "{iops} well below the chips' bound {bound}"
    );
    let dies = &r["device"]["dies"];
    // Two dies share each chip's time: their busy times add up to at most the run's,
    // so the mean die is at most half busy (one die may be more, its sibling less).
    assert!(f(&dies["mean_util"]) <= 0.5 + 1e-9, "{dies}");
    assert!(f(&dies["mean_util"]) >= 0.45, "{dies}");
    let chips = &dies["chips"];
    assert_eq!(chips["chips"], 2, "{chips}");
    assert_eq!(chips["interface"], "one-command", "{chips}");
    assert!(f(&chips["refusals"]) > 0.0, "{chips}");
    assert_eq!(
        f(&chips["operations"]),
        f(&r["device"]["nand"]["read_ops"]),
        "{chips}"
    );

    // Interleaved (the default), same chips: four independent dies, about twice as fast.
    let mut o = ONE_PLANE.to_vec();
    o.push("nand.dies_per_chip=2");
    let free = simulate(
        &device("tiny-test", &o),
        RANDREAD,
        DriveState::Full,
        1,
        false,
    );
    assert!(
        f(&free["read"]["iops"]) > 1.7 * iops,
        "{}",
        free["read"]["iops"]
    );
    assert!(free["device"]["dies"].get("chips").is_none());
}

#[test]
fn dies_of_a_chip_alternate_under_writes() {
    // Random writes keep both dies of each chip busy: programs must reach both.
    let o = [
        "nand.dies_per_chip=2",
        "nand.chip_interface=\"one-command\"",
    ];
    let r = simulate(
        &device("tiny-test", &o),
        r#"{"rw":"randwrite","bs":"16k","iodepth":32,"number_ios":4000}"#,
        DriveState::Full,
        1,
        true,
    );
    assert_eq!(r["device"]["oracle"]["mismatches"], 0);
    let dies = &r["device"]["dies"];
    assert!(f(&dies["mean_util"]) <= 0.5 + 1e-9, "{dies}");
    // The chips are kept busy, and no die takes its chip for itself: the busiest die
    // has well under the whole chip's time.
    assert!(f(&dies["mean_util"]) > 0.4, "{dies}");
    assert!(f(&dies["max_util"]) < 0.6, "{dies}");
}

#[test]
fn bad_chip_values_are_clear_errors() {
    let err = |o: &[&str]| {
        let o: Vec<String> = o.iter().map(|s| s.to_string()).collect();
        load_device(&DeviceSpec::Preset("tiny-test".into()), &o)
            .unwrap_err()
            .to_string()
    };
    let e = err(&["nand.dies_per_chip=3"]);
    assert!(
        e.contains("nand.dies_per_chip: 3 does not divide nand.dies_per_channel 2"),
        "{e}"
    );
    let e = err(&["nand.chip_interface=\"one-command\""]);
    assert!(
        e.contains("nand.chip_interface") && e.contains("dies_per_chip > 1"),
        "{e}"
    );
    let e = err(&["nand.chip_interface=\"shared\""]);
    assert!(e.contains("chip_interface"), "{e}");
}
