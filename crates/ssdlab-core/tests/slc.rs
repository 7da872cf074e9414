//! The SLC cache: host writes land in SLC while it has room, then go straight to
//! native blocks (the write cliff); the sustain state starts with it full; folding
//! moves SLC data to native blocks and frees the area; the oracle holds throughout.

mod common;

use common::{device, f, simulate};
use ssdlab_core::config::{load_device, DeviceSpec};
use ssdlab_core::DriveState;

/// tiny-test with 9 pages per block: an SLC block holds 3 pages x 2 planes = 96 KiB;
/// 768 KiB of SLC is 2 blocks on each of the 4 dies (192 units).
fn slc_dev(extra: &[&str]) -> ssdlab_core::DeviceConfig {
    let mut o = vec![
        "nand.pages_per_block=9",
        "nand.blocks_per_plane=40",
        "slc.size=\"768KiB\"",
    ];
    o.extend_from_slice(extra);
    device("tiny-test", &o)
}

const SLC_UNITS: f64 = 192.0;

#[test]
fn writes_fill_the_slc_area_then_go_native() {
    let d = slc_dev(&[]);
    assert_eq!(d.slc_blocks_per_die(), 2);
    let r = simulate(
        &d,
        r#"{"rw":"write","bs":"4k","iodepth":8,"number_ios":600}"#,
        DriveState::Normal,
        1,
        false,
    );
    let s = &r["device"]["slc"];
    assert_eq!(s["enabled"], true);
    assert_eq!(s["size_bytes"], 768 * 1024);
    assert_eq!(f(&s["host_units_to_slc"]), SLC_UNITS, "{s}");
    assert_eq!(f(&s["host_units_to_native"]), 600.0 - SLC_UNITS);
    assert_eq!(s["free_blocks"], 0);
}

#[test]
fn slc_writes_are_faster_than_native_ones() {
    // The same 192 units: into an empty SLC area (normal) or straight to TLC (sustain).
    let wl =
        r#"{"rw":"write","bs":"4k","iodepth":32,"number_ios":192,"size":"768KiB","offset":"4MiB"}"#;
    let d = slc_dev(&["controller.write_buffer=\"192KiB\""]);
    let normal = simulate(&d, wl, DriveState::Normal, 1, false);
    let sustain = simulate(&d, wl, DriveState::Sustain, 1, false);
    assert_eq!(f(&normal["device"]["slc"]["host_units_to_slc"]), SLC_UNITS);
    assert_eq!(f(&sustain["device"]["slc"]["host_units_to_slc"]), 0.0);
    let bw = |r: &serde_json::Value| f(&r["write"]["bw_bytes"]);
    assert!(
        bw(&normal) > 1.5 * bw(&sustain),
        "SLC {} vs TLC {}",
        bw(&normal),
        bw(&sustain)
    );
}

#[test]
fn foreground_folding_frees_the_area_and_keeps_data() {
    let d = slc_dev(&["slc.fold_watermark_blocks=1"]);
    let r = simulate(
        &d,
        r#"{"rw":"randwrite","bs":"4k","iodepth":8,"number_ios":6000,"size":"4MiB"}"#,
        DriveState::Steady,
        2,
        true,
    );
    let s = &r["device"]["slc"];
    assert!(f(&s["folds"]) > 5.0, "{s}");
    assert!(f(&s["units_folded"]) > 0.0);
    assert!(
        f(&s["host_units_to_slc"]) > SLC_UNITS,
        "folding let the area be reused: {s}"
    );
    assert_eq!(r["device"]["oracle"]["mismatches"], 0);
    // Reads of data in SLC and native blocks after all of that.
    let rr = simulate(
        &d,
        r#"{"rw":"randrw","bs":"4k","iodepth":8,"number_ios":8000,"size":"4MiB"}"#,
        DriveState::Aging,
        3,
        true,
    );
    assert_eq!(rr["device"]["oracle"]["mismatches"], 0);
    assert!(f(&rr["device"]["oracle"]["checked"]) > 1000.0);
    assert!(f(&rr["device"]["ftl"]["gc_victims"]) > 0.0);
}

#[test]
fn drive_states_prepare_the_slc_area() {
    let d = slc_dev(&[]);
    let wl = r#"{"rw":"randread","bs":"4k","iodepth":1,"number_ios":10}"#;
    let normal = simulate(&d, wl, DriveState::Normal, 1, false);
    assert_eq!(normal["device"]["slc"]["free_blocks"], 8);
    let sustain = simulate(&d, wl, DriveState::Sustain, 1, false);
    assert_eq!(sustain["device"]["slc"]["free_blocks"], 0);
    assert_eq!(sustain["prep"]["method"], "slc-fill");
    let aging = simulate(&d, wl, DriveState::Aging, 1, false);
    assert_eq!(aging["device"]["slc"]["free_blocks"], 0);
    assert!(f(&aging["prep"]["steady_waf"]) > 1.0);
}

#[test]
fn bad_slc_values_are_clear_errors() {
    let load = |o: &[&str]| {
        let o: Vec<String> = o.iter().map(|s| s.to_string()).collect();
        load_device(&DeviceSpec::Preset("tiny-test".into()), &o)
            .unwrap_err()
            .to_string()
    };
    let e = load(&["nand.pages_per_block=9", "slc.size=\"64MiB\""]);
    assert!(
        e.contains("slc.size: 64MiB needs") && e.contains("much smaller than the drive"),
        "{e}"
    );
    let e = load(&["slc.size=\"1MiB\""]);
    assert!(
        e.contains("nand.pages_per_block: 8 is not a multiple of the bits per cell (3)"),
        "{e}"
    );
    let e = load(&[
        "nand.cell=\"SLC\"",
        "nand.t_read=\"25us\"",
        "slc.size=\"1MiB\"",
    ]);
    assert!(e.contains("the NAND is SLC already"), "{e}");
}

#[test]
fn oracle_holds_with_cost_benefit_gc_and_folding() {
    let d = slc_dev(&[
        "slc.fold_watermark_blocks=1",
        "ftl.gc_policy=\"cost-benefit\"",
    ]);
    let r = simulate(
        &d,
        r#"{"rw":"randrw","bs":"4k","iodepth":8,"number_ios":12000}"#,
        DriveState::Aging,
        4,
        true,
    );
    assert_eq!(r["device"]["oracle"]["mismatches"], 0);
    assert!(f(&r["device"]["oracle"]["checked"]) > 1000.0);
    assert!(f(&r["device"]["ftl"]["gc_victims"]) > 0.0);
    assert!(f(&r["device"]["slc"]["folds"]) > 0.0);
    assert!(f(&r["device"]["dies"]["gc_share"]) > 0.0);
}

/// Dynamic SLC: the area shrinks as the drive fills. An empty drive takes the whole
/// 768 KiB in SLC; a full one only `min_size` (one block per die: 96 units); the
/// static area is the same on both. The allowance follows the share of LBAs mapped.
#[test]
fn dynamic_slc_shrinks_as_the_drive_fills() {
    let burst = r#"{"rw":"randwrite","bs":"4k","iodepth":8,"number_ios":600}"#;
    let to_slc = |extra: &[&str], state| {
        let r = simulate(&slc_dev(extra), burst, state, 1, true);
        assert_eq!(r["device"]["oracle"]["mismatches"], 0);
        (
            f(&r["device"]["slc"]["host_units_to_slc"]),
            r["device"]["slc"]["allowed_blocks_per_die"].clone(),
        )
    };
    let dynamic = ["slc.mode=\"dynamic\"", "slc.min_size=\"384KiB\""];
    assert_eq!(to_slc(&[], DriveState::Fresh).0, SLC_UNITS);
    assert_eq!(to_slc(&[], DriveState::Full).0, SLC_UNITS);
    let (fresh, _) = to_slc(&dynamic, DriveState::Fresh);
    let (full, allowed) = to_slc(&dynamic, DriveState::Full);
    assert_eq!(fresh, SLC_UNITS, "an empty drive lends the whole area");
    assert_eq!(full, SLC_UNITS / 2.0, "a full drive keeps min_size");
    assert_eq!(allowed, 1);
    let bad = ssdlab_core::config::load_device(
        &ssdlab_core::DeviceSpec::Preset("tiny-test".into()),
        &[
            "nand.pages_per_block=9".into(),
            "nand.blocks_per_plane=40".into(),
            "slc.size=\"768KiB\"".into(),
            "slc.min_size=\"1MiB\"".into(),
        ],
    )
    .unwrap_err()
    .to_string();
    assert!(
        bad.contains("slc.min_size: 1MiB is larger than slc.size"),
        "{bad}"
    );
}

/// Dynamic SLC on a full drive: the free SLC blocks beyond the allowance cannot be
/// opened, so the fold watermark counts only those the die may still open. A full
/// drive with its (min-size) area full must fold in the foreground as the host
/// writes, although every die still has a free SLC-mode block outside its allowance.
#[test]
fn the_fold_watermark_counts_the_slc_blocks_a_die_may_open() {
    // 4 SLC blocks per die, 1 of them allowed on a full drive.
    let d = slc_dev(&[
        "slc.size=\"1536KiB\"",
        "slc.mode=\"dynamic\"",
        "slc.min_size=\"384KiB\"",
        "slc.fold_watermark_blocks=1",
        "slc.fold_when_idle=false",
    ]);
    let wl = r#"{"rw":"randwrite","bs":"4k","iodepth":8,"number_ios":600}"#;
    let r = simulate(&d, wl, DriveState::Aging, 1, true);
    let s = &r["device"]["slc"];
    assert_eq!(s["allowed_blocks_per_die"], 1, "{s}");
    assert!(
        f(&s["free_blocks"]) >= 8.0,
        "free blocks outside the allowance: {s}"
    );
    assert!(f(&s["folds"]) > 0.0, "no foreground fold: {s}");
    assert_eq!(r["device"]["oracle"]["mismatches"], 0);
}

/// Foreground folding is paced one for one with host writes: a full SLC area below
/// the watermark folds about a unit per host unit programmed on the die (plus at most
/// one page read, 8 units, per die ahead), where a fold in burst mode takes whole
/// blocks at once.
#[test]
fn foreground_folding_keeps_pace_with_host_writes() {
    let run = |pacing: &str| {
        let d = slc_dev(&[
            "slc.fold_watermark_blocks=1",
            "slc.fold_when_idle=false",
            &format!("ftl.gc_pacing=\"{pacing}\""),
        ]);
        let wl = r#"{"rw":"randwrite","bs":"4k","iodepth":1,"number_ios":100}"#;
        let r = simulate(&d, wl, DriveState::Sustain, 1, true);
        assert_eq!(r["device"]["oracle"]["mismatches"], 0);
        let s = &r["device"]["slc"];
        (
            f(&s["units_folded"]),
            f(&s["host_units_to_slc"]) + f(&s["host_units_to_native"]),
        )
    };
    let (paced, host) = run("paced");
    let (burst, _) = run("burst");
    assert!(
        paced <= host + 4.0 * 8.0,
        "paced folded {paced} for {host} host units"
    );
    assert!(burst > paced, "burst {burst} paced {paced}");
}

/// `normal-written` writes only the workload's area first: reads there find data on
/// flash, and the SLC area stays empty; `normal` reads find nothing to read.
#[test]
fn normal_written_writes_the_read_area_first() {
    let d = slc_dev(&[]);
    let wl = r#"{"rw":"randread","bs":"4k","iodepth":4,"number_ios":2000,"offset":"1MiB","size":"2MiB"}"#;
    let written = simulate(&d, wl, DriveState::NormalWritten, 1, true);
    let fresh = simulate(&d, wl, DriveState::Normal, 1, true);
    let ftl = &written["device"]["ftl"];
    assert_eq!(f(&ftl["unmapped_reads"]), 0.0, "{ftl}");
    assert!(f(&written["device"]["nand"]["read_ops"]) > 0.0);
    assert_eq!(written["prep"]["method"], "area-fill");
    assert_eq!(written["device"]["slc"]["free_blocks"], 8);
    assert_eq!(f(&written["device"]["oracle"]["mismatches"]), 0.0);
    assert_eq!(f(&fresh["device"]["ftl"]["unmapped_reads"]), 2000.0);
    assert_eq!(f(&fresh["device"]["nand"]["read_ops"]), 0.0);
    // Only the 2 MiB area (512 units) holds data: the drive's mapped share says so.
    let share = f(&written["device"]["slc"]["mapped_share"]);
    let host_units = f(&written["device"]["capacity_bytes"]) / 4096.0;
    assert!((share * host_units - 512.0).abs() < 0.5, "{share}");
}

/// `full-slc-exhausted`: every LBA written and no SLC room: sequential writes go
/// straight to native blocks.
#[test]
fn full_slc_exhausted_leaves_no_slc_room() {
    let d = slc_dev(&[]);
    let wl = r#"{"rw":"write","bs":"128k","iodepth":4,"number_ios":40}"#;
    let r = simulate(&d, wl, DriveState::FullSlcExhausted, 1, true);
    let s = &r["device"]["slc"];
    assert_eq!(f(&s["host_units_to_slc"]), 0.0, "{s}");
    assert!((f(&s["mapped_share"]) - 1.0).abs() < 1e-9);
    assert_eq!(r["prep"]["method"], "sequential-fill+slc-fill");
    assert_eq!(f(&r["device"]["oracle"]["mismatches"]), 0.0);
}

/// Mean QD1 4 KiB random-read latency (ns) over the GiB at `offset` of a
/// `full-slc-exhausted` drive.
fn qd1_read_ns(d: &ssdlab_core::DeviceConfig, offset: u64) -> f64 {
    let wl = format!(
        r#"{{"rw":"randread","bs":"4k","iodepth":1,"number_ios":2000,"offset":"{offset}B","size":"1GiB"}}"#
    );
    let r = simulate(d, &wl, DriveState::FullSlcExhausted, 1, false);
    f(&r["read"]["clat_ns"]["mean"])
}

#[test]
fn a_full_fill_leaves_its_last_units_in_slc_on_a_drive_that_folds_while_it_writes() {
    // The 980 PRO 1 TB preset: SLC reads take 25 us, TLC ones 45 us, and a full drive
    // keeps its 6 GB static SLC part. A sequential fill longer than the cache leaves in
    // SLC what it wrote last on a drive that folds while the host writes (each new unit
    // took the room a fold made), what it wrote first on one that folds only when idle
    // (the rest went straight to TLC). Before, both kept the first units, so the
    // seed's Aging sequential write (from LBA 0, on a full drive) rewrote the 980 PRO's
    // SLC data and ran at 3,805 MB/s, against 2,000 rated after its cache.
    let last_gib = |d: &ssdlab_core::DeviceConfig| d.capacity_bytes() - (1 << 30);
    let folding = device("seed000-dram-1tb", &[]);
    let idle = device("seed000-dram-1tb", &["slc.fold_watermark_blocks=0"]);
    let (f_first, f_last) = (
        qd1_read_ns(&folding, 0),
        qd1_read_ns(&folding, last_gib(&folding)),
    );
    let (i_first, i_last) = (qd1_read_ns(&idle, 0), qd1_read_ns(&idle, last_gib(&idle)));
    assert!(
        f_first - f_last > 15_000.0,
        "folding: first {f_first}, last {f_last}"
    );
    assert!(
        i_last - i_first > 15_000.0,
        "idle: first {i_first}, last {i_last}"
    );
    // The full drive's sequential write from LBA 0 is a write past the cache: at most
    // what 32 dies give when every byte is programmed in SLC (200 us) and then folded
    // into TLC (450 us), 4 planes x 16 KiB a program: 1 / (1/10.5 + 1/4.66) GB/s.
    let seq = r#"{"rw":"write","bs":"128k","iodepth":32,"number_ios":16000}"#;
    let r = simulate(&folding, seq, DriveState::FullSlcExhausted, 1, false);
    let program = 32.0 * 4.0 * 16384.0;
    let bound = 1.0 / (200e-6 / program + 450e-6 / program);
    assert!(
        f(&r["write"]["bw_bytes"]) < bound,
        "{} >= {bound}",
        r["write"]["bw_bytes"]
    );
}

/// Free-space SLC on the tiny drive: one static SLC block per die (`slc.min_size`) and
/// up to 12 per die in all (4.5 MiB), the 11 beyond the static one each borrowing a
/// free native block while in use (native blocks: 40 - 1 static = 39 per die).
fn free_space_dev(extra: &[&str]) -> ssdlab_core::DeviceConfig {
    let mut o = vec![
        "nand.pages_per_block=9",
        "nand.blocks_per_plane=40",
        "slc.mode=\"free-space\"",
        "slc.size=\"4608KiB\"",
        "slc.min_size=\"384KiB\"",
    ];
    o.extend_from_slice(extra);
    device("tiny-test", &o)
}

/// SLC units of one SLC block (3 pages x 2 planes x 4 units).
const SLC_BLOCK_UNITS: f64 = 24.0;

/// SLC blocks a die with `free` free native blocks may hold by the free-space rule,
/// computed here by hand: the static one, then one more while, after lending a native
/// block, the die keeps GC's spare (paced: the threshold, 3), one block to fold into
/// and a third of a block per SLC block it would hold.
fn free_space_blocks(mut free: u32, ids: u32) -> u32 {
    let mut in_use = 1;
    while in_use < ids && free > 3 + 1 + (in_use + 1).div_ceil(3) {
        free -= 1;
        in_use += 1;
    }
    in_use
}

#[test]
fn free_space_slc_is_carved_from_free_native_blocks() {
    let d = free_space_dev(&[]);
    assert_eq!(d.slc_blocks_per_die(), 12);
    assert_eq!(d.slc_static_blocks_per_die(), 1);
    assert_eq!(d.native_blocks_per_die(), 39);
    // The capacity is the native blocks' (as a drive with a static 1-block area): the
    // borrowed part adds no raw flash.
    let static_only = device(
        "tiny-test",
        &[
            "nand.pages_per_block=9",
            "nand.blocks_per_plane=40",
            "slc.size=\"384KiB\"",
        ],
    );
    assert_eq!(d.capacity_bytes(), static_only.capacity_bytes());
    let burst = r#"{"rw":"write","bs":"4k","iodepth":8,"number_ios":2000}"#;
    // An empty drive: the whole area (12 blocks per die), 11 native blocks lent per die.
    let fresh = simulate(&d, burst, DriveState::Fresh, 1, true);
    let s = &fresh["device"]["slc"];
    assert_eq!(
        f(&s["host_units_to_slc"]),
        12.0 * 4.0 * SLC_BLOCK_UNITS,
        "{s}"
    );
    assert_eq!(s["mode"], "free-space");
    assert_eq!(s["lent_blocks"], 11 * 4, "{s}");
    assert_eq!(s["peak_bytes"], 12 * 4 * 96 * 1024, "{s}");
    assert_eq!(fresh["device"]["oracle"]["mismatches"], 0);
    // A full drive: only what its free native blocks allow, by the rule above.
    let full = simulate(&d, burst, DriveState::Full, 1, true);
    let free_per_die = full["prep"]["free_blocks"].as_u64().unwrap() as u32 / 4;
    let blocks = free_space_blocks(free_per_die, 12);
    assert!((2..12).contains(&blocks), "free {free_per_die}: {blocks}");
    let s = &full["device"]["slc"];
    assert_eq!(
        f(&s["host_units_to_slc"]),
        blocks as f64 * 4.0 * SLC_BLOCK_UNITS,
        "free native blocks per die after the fill: {free_per_die}; {s}"
    );
    assert_eq!(full["device"]["oracle"]["mismatches"], 0);
    assert_eq!(s["peak_bytes"], blocks as u64 * 4 * 96 * 1024, "{s}");
    // The same drive in static mode (every SLC block kept apart) would need 12 blocks
    // of raw flash per die on top of the 39.
    let e = ssdlab_core::config::load_device(
        &ssdlab_core::DeviceSpec::Preset("tiny-test".into()),
        &[
            "nand.pages_per_block=9".into(),
            "nand.blocks_per_plane=40".into(),
            "slc.mode=\"free-space\"".into(),
            "slc.size=\"16MiB\"".into(),
        ],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains(
            "slc.size: 16MiB needs 43 SLC blocks per die, more than the die's 40 native blocks"
        ),
        "{e}"
    );
}

/// Lending and giving back through folding, GC and a full drive rewritten at random:
/// every read returns the last write, the lent blocks never exceed the SLC blocks
/// beyond the static part, and the drive never runs out of blocks.
#[test]
fn free_space_slc_keeps_data_through_folds_and_gc() {
    let d = free_space_dev(&["slc.fold_watermark_blocks=1"]);
    for (state, seed) in [(DriveState::Fresh, 5), (DriveState::Aging, 6)] {
        let r = simulate(
            &d,
            r#"{"rw":"randrw","rwmixread":30,"bs":"4k","iodepth":8,"number_ios":20000}"#,
            state,
            seed,
            true,
        );
        let s = &r["device"]["slc"];
        assert_eq!(r["device"]["oracle"]["mismatches"], 0, "{state:?}");
        assert!(f(&r["device"]["oracle"]["checked"]) > 1000.0);
        assert!(f(&s["folds"]) > 0.0, "{state:?}: {s}");
        assert!(f(&s["lent_blocks"]) <= 11.0 * 4.0, "{s}");
        assert!(r["stalled"].is_null(), "{state:?}: {}", r["stalled"]);
    }
}

/// Sustain and aging differ by mechanism, not just by label: the same random writes
/// (with a fifth of reads, for the oracle) on a drive whose SLC area is full and
/// folds in the foreground (`fold_watermark_blocks=1`, no idle folding). In
/// `sustain` the native pool is empty, so folding is the only background work and
/// GC copies nothing; in `aging` the native pool is at GC's steady state, so folding
/// and GC both compete with the host for the dies, and the host writes far slower.
/// Fails if aging's preparation left the native pool unaged (no GC copies, the same
/// rate as sustain), if either state skipped the SLC fill (nothing to fold), or if
/// the background work did not take die time from host writes.
#[test]
fn aging_adds_gc_to_folding_so_it_writes_slower_than_sustain() {
    let d = slc_dev(&["slc.fold_watermark_blocks=1", "slc.fold_when_idle=false"]);
    let wl = r#"{"rw":"randrw","rwmixread":20,"bs":"4k","iodepth":8,"number_ios":4000}"#;
    let sustain = simulate(&d, wl, DriveState::Sustain, 7, true);
    let aging = simulate(&d, wl, DriveState::Aging, 7, true);
    for (name, r) in [("sustain", &sustain), ("aging", &aging)] {
        let o = &r["device"]["oracle"];
        assert_eq!(f(&o["mismatches"]), 0.0, "{name}: {o}");
        assert!(f(&o["checked"]) > 0.0, "{name}: {o}");
        assert!(r["stalled"].is_null(), "{name}: {}", r["stalled"]);
        // More than the full SLC area's worth of host writes: past the SLC area.
        assert!(f(&r["write"]["total_ios"]) > 2.0 * SLC_UNITS, "{name}");
        let s = &r["device"]["slc"];
        assert!(f(&s["units_folded"]) > 0.0, "{name} did not fold: {s}");
    }
    let gc = |r: &serde_json::Value| f(&r["device"]["ftl"]["gc_units_copied"]);
    assert!(gc(&aging) > 0.0, "{}", aging["device"]["ftl"]);
    assert!(
        gc(&sustain) * 10.0 <= gc(&aging),
        "GC copies: sustain {} aging {}",
        gc(&sustain),
        gc(&aging)
    );
    let iops = |r: &serde_json::Value| f(&r["write"]["iops"]);
    assert!(
        iops(&aging) < 0.9 * iops(&sustain),
        "write IOPS: aging {} sustain {} (GC copies {} / {})",
        iops(&aging),
        iops(&sustain),
        gc(&aging),
        gc(&sustain)
    );
}

/// A folded SLC block is erased while the host keeps writing, so the SLC area fills
/// again and folding goes on: in `sustain` (SLC area full, native pool empty, so the
/// die is never short of native blocks) 3,000 random writes at QD8 with foreground
/// folding (`fold_watermark_blocks=1`). Without the erase's urgency at the watermark
/// the erase waits behind host programs that never stop: each die folds one block,
/// none is erased, and every host write goes native (4 folds, 0 erases, 0 units to
/// SLC).
#[test]
fn a_folded_slc_block_is_erased_while_the_host_keeps_writing() {
    let d = slc_dev(&["slc.fold_watermark_blocks=1", "slc.fold_when_idle=false"]);
    let r = simulate(
        &d,
        r#"{"rw":"randrw","rwmixread":20,"bs":"4k","iodepth":8,"number_ios":4000}"#,
        DriveState::Sustain,
        7,
        true,
    );
    let o = &r["device"]["oracle"];
    assert_eq!(o["mismatches"], 0, "{o}");
    let slc = &r["device"]["slc"];
    let erases = f(&r["device"]["ftl"]["erases"]);
    assert!(erases >= 8.0, "erases {erases}; {slc}");
    assert!(f(&slc["folds"]) >= 8.0, "{slc}");
    // The erased blocks take host writes again.
    assert!(f(&slc["host_units_to_slc"]) > SLC_UNITS, "{slc}");
}

/// The host is idle during a job's start delay, so a drive that folds when idle empties
/// its SLC area before the job starts (a sustain drive given time to recover), and the
/// writes that follow land in SLC; without the delay they go straight to native blocks.
#[test]
fn a_start_delay_is_idle_time_in_which_the_slc_area_folds() {
    let d = slc_dev(&[]);
    let wl = |delay: &str| {
        format!(
            r#"{{"rw":"write","bs":"4k","iodepth":8,"number_ios":96,"offset":"4MiB","startdelay":"{delay}"}}"#
        )
    };
    let now = simulate(&d, &wl("0s"), DriveState::Sustain, 1, true);
    let later = simulate(&d, &wl("50ms"), DriveState::Sustain, 1, true);
    let s = |r: &serde_json::Value, k: &str| f(&r["device"]["slc"][k]);
    assert_eq!(
        s(&now, "host_units_to_slc"),
        0.0,
        "{}",
        now["device"]["slc"]
    );
    assert_eq!(s(&now, "folds"), 0.0);
    assert_eq!(
        s(&later, "units_folded"),
        SLC_UNITS,
        "{}",
        later["device"]["slc"]
    );
    assert_eq!(s(&later, "host_units_to_slc"), 96.0);
    // The delay is not part of the job's runtime (as in fio).
    let runtime = |r: &serde_json::Value| f(&r["jobs"][0]["job_runtime"]);
    assert!(runtime(&later) < 50.0, "{} ms", runtime(&later));
}
