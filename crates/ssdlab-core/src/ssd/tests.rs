//! Device-level behaviour driven event by event: background folding of the SLC
//! area once the host has been idle.

use super::{RunOptions, Ssd};
use crate::config::{load_device, load_workload, DeviceSpec};
use crate::ftl::prep::DriveState;
use crate::sim::Event;

/// `preset` with `overrides`, to run `workload`, prepared in `state`.
fn build(
    preset: &str,
    overrides: &[String],
    workload: &str,
    state: DriveState,
    seed: u64,
    verify: bool,
) -> Ssd {
    let dev = load_device(&DeviceSpec::Preset(preset.into()), overrides).unwrap();
    let wl = load_workload(workload, &[], dev.capacity_bytes()).unwrap();
    let opts = RunOptions {
        state,
        seed,
        verify,
    };
    Ssd::new(dev, wl, opts).unwrap()
}

fn drive(state: DriveState, overrides: &[String]) -> Ssd {
    build("tiny-test", overrides, "{}", state, 1, true)
}

fn sustained_slc_drive(extra: &[&str]) -> Ssd {
    let mut o: Vec<String> = [
        "nand.pages_per_block=9",
        "nand.blocks_per_plane=40",
        "slc.size=\"768KiB\"",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    o.extend(extra.iter().map(|s| s.to_string()));
    build("tiny-test", &o, "{}", DriveState::Sustain, 1, true)
}

/// Process device events until none is left.
fn drain(ssd: &mut Ssd) {
    while let Some(ev) = ssd.q.pop() {
        match ev {
            Event::DieStage { die, gen } => ssd.die_stage(die, gen),
            Event::HostIdle { gen } => ssd.host_went_idle(gen),
            Event::WriteDataIn { cmd } => ssd.write_data_in(cmd),
            _ => {}
        }
    }
}

#[test]
fn an_idle_host_lets_the_slc_area_fold_back_to_empty() {
    let mut ssd = sustained_slc_drive(&[]);
    assert_eq!(ssd.ftl.slc_free_blocks(), 0);
    let idle_ns = ssd.cfg.ftl.idle_time.ns();
    ssd.q.schedule(idle_ns, Event::HostIdle { gen: 0 });
    drain(&mut ssd);
    assert_eq!(
        ssd.ftl.slc_free_blocks(),
        8,
        "every SLC block folded and erased"
    );
    assert_eq!(ssd.ftl.stats.folds, 8);
    // The sustain fill wrote the first 192 units into SLC; all of them moved.
    assert_eq!(ssd.ftl.stats.units_folded, 192);
    for lpn in 0..192 {
        let pun = ssd.ftl.translate(lpn);
        assert!(!ssd.geo.is_slc_block(ssd.geo.block_of(pun)));
        assert_eq!(ssd.ftl.read_functional(lpn), ssd.ftl.verify_version(pun));
    }
    assert_eq!(ssd.ftl.oracle().unwrap().1, 0);
    // Folding started only after the idle time, and took die time.
    assert!(ssd.now() > idle_ns);
    assert!(ssd.dies.iter().map(|d| d.gc_busy_ns).sum::<u64>() > 0);
}

#[test]
fn no_background_folding_when_turned_off_or_the_host_is_busy() {
    let mut ssd = sustained_slc_drive(&["slc.fold_when_idle=false"]);
    ssd.q.schedule(1_000_000, Event::HostIdle { gen: 0 });
    drain(&mut ssd);
    assert_eq!(ssd.ftl.stats.folds, 0);
    // A stale idle event (the host submitted since) does nothing either.
    let mut ssd = sustained_slc_drive(&[]);
    ssd.idle_gen = 1;
    ssd.q.schedule(1_000_000, Event::HostIdle { gen: 0 });
    drain(&mut ssd);
    assert_eq!(ssd.ftl.stats.folds, 0);
}

#[test]
fn background_gc_restores_free_blocks_while_the_host_is_idle() {
    let mut ssd = drive(DriveState::Steady, &["ftl.background_gc_blocks=8".into()]);
    let before: Vec<u32> = (0..ssd.geo.dies).map(|d| ssd.ftl.free_blocks(d)).collect();
    assert!(before.iter().all(|&f| f < 8), "{before:?}");
    ssd.q.schedule(1_000_000, Event::HostIdle { gen: 0 });
    drain(&mut ssd);
    // Every die collects towards 8 free blocks (the GC frontier's own block may
    // leave it one short).
    for d in 0..ssd.geo.dies {
        let now = ssd.ftl.free_blocks(d);
        assert!(
            now > before[d as usize] && now >= 7,
            "die {d}: {before:?} -> {now}"
        );
    }
    assert!(ssd.background_gcs > 0);
    assert_eq!(ssd.ftl.oracle().unwrap().1, 0);
    for lpn in 0..ssd.ftl.host_units() as u32 {
        ssd.ftl.read_functional(lpn);
    }
    assert_eq!(ssd.ftl.oracle().unwrap().1, 0);
    // Off by default: an idle host leaves the drive alone.
    let mut ssd = drive(DriveState::Steady, &[]);
    ssd.q.schedule(1_000_000, Event::HostIdle { gen: 0 });
    drain(&mut ssd);
    assert_eq!(ssd.background_gcs, 0);
    assert_eq!(ssd.ftl.stats.gc_victims, 0);
}

/// Write-buffer room is conserved: once nothing is left to happen, every unit the
/// buffer counts as used is held by an open host or SLC stripe, by the map's own writes
/// in an open translation stripe, or by GC's gathering (the drive at GC's steady state,
/// its GC gathered in the write buffer; the aged 1 TB write-back drive of
/// tests/gc_staging.rs covers translation stripes that GC's moves complete).
#[test]
fn write_buffer_room_is_all_accounted_for_once_the_drive_is_quiet() {
    for update in ["journal", "write-back"] {
        let o: Vec<String> = [
            "map.tier=\"sram\"",
            "map.cache=\"1KiB\"",
            "map.segment=\"512B\"",
            "map.journal_entries=512",
            "sram.size=\"512KiB\"",
            "controller.gc_staging=\"gather\"",
            "map.log_entries=4096",
            &format!("map.update=\"{update}\""),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let wl = r#"{"rw":"randwrite","bs":"4k","iodepth":16,"number_ios":30000}"#;
        let mut ssd = build("tiny-test", &o, wl, DriveState::Steady, 5, true);
        ssd.run(&mut |_| true);
        assert!(ssd.stalled.is_none(), "{update}: {:?}", ssd.stalled);
        while let Some(ev) = ssd.q.pop() {
            ssd.dispatch(ev);
        }
        assert!(ssd.ftl.stats.gc_units_copied > 0, "{update}: GC never ran");
        assert_eq!(ssd.ftl.stats.programs_out_of_order, 0, "{update}");
        let held = super::io::stranded_units(&ssd.ftl, &ssd.gather, &ssd.map_stripe_room);
        assert_eq!(
            ssd.buffer.used_units(),
            held,
            "{update}: open host/SLC stripes {}, map writes in translation stripes {:?}, GC {}",
            ssd.ftl.open_partial_units(),
            ssd.map_stripe_room,
            ssd.gather.stranded_units()
        );
    }
}

/// The buffer's stranded check skips the frontier walk when the bound says no: the
/// bound must never be below the count, with placement handles and an SLC area.
#[test]
fn open_partial_units_never_exceed_their_bound() {
    for (preset, set, wl) in [
        (
            "tiny-test",
            vec!["fdp.handles=4".to_string()],
            r#"{"rw":"randwrite","bs":"4k","iodepth":16,"number_ios":20000,"fdp":{"select":"random"}}"#,
        ),
        (
            "seed000-hmb",
            vec![],
            r#"{"rw":"randwrite","bs":"4k","iodepth":32,"number_ios":20000}"#,
        ),
    ] {
        let mut ssd = build(preset, &set, wl, DriveState::Fresh, 2, false);
        let (mut seen, mut most) = (0u32, 0u64);
        ssd.run_observed(&mut |_| true, 20_000, &mut |s: &Ssd| {
            let (n, bound) = (s.ftl.open_partial_units(), s.ftl.open_partial_bound());
            assert!(
                n <= bound,
                "{preset}: {n} open units above the bound {bound}"
            );
            seen += 1;
            most = most.max(n);
        });
        assert!(
            seen > 10 && most > 0,
            "{preset}: {seen} looks, at most {most} open units"
        );
    }
}
