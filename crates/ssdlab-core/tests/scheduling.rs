//! Scheduling policies and suspend on whole runs: the oracle holds under every
//! policy with one-shot programs and suspends, runs are deterministic, suspend
//! shortens reads behind programs, bad values are clear errors.

mod common;

use common::{device, f, simulate};
use ssdlab_core::config::{load_device, DeviceSpec};
use ssdlab_core::DriveState;

const MIX: &str = r#"{"rw":"randrw","rwmixread":70,"bs":"4k","iodepth":16,"number_ios":30000}"#;

fn dev(policy: &str, suspend: bool, one_shot: bool) -> ssdlab_core::DeviceConfig {
    let mut o = vec![
        format!("scheduler.policy=\"{policy}\""),
        format!("scheduler.program_suspend={suspend}"),
        format!("scheduler.erase_suspend={suspend}"),
        "scheduler.window=\"1ms\"".to_string(),
    ];
    if one_shot {
        o.push("nand.pages_per_program=3".into());
        o.push("nand.pages_per_block=9".into());
        o.push("controller.write_buffer=\"512KiB\"".into());
    }
    let o: Vec<&str> = o.iter().map(|s| s.as_str()).collect();
    device("tiny-test", &o)
}

#[test]
fn oracle_and_determinism_under_every_policy() {
    for policy in ["fifo", "read-first", "adaptive-delay"] {
        for (suspend, one_shot) in [(false, false), (true, false), (true, true)] {
            let d = dev(policy, suspend, one_shot);
            let a = simulate(&d, MIX, DriveState::Steady, 9, true);
            let o = &a["device"]["oracle"];
            assert_eq!(
                o["mismatches"], 0,
                "{policy} suspend={suspend} one-shot={one_shot}: {o}"
            );
            assert!(f(&a["device"]["ftl"]["gc_victims"]) > 0.0);
            let b = simulate(&d, MIX, DriveState::Steady, 9, true);
            assert_eq!(a["read"], b["read"], "{policy}: same seed, same result");
            assert_eq!(a["device"]["scheduler"], b["device"]["scheduler"]);
            if suspend {
                assert!(f(&a["device"]["scheduler"]["program_suspends"]) > 0.0);
            }
        }
    }
}

#[test]
fn suspend_shortens_reads_behind_programs() {
    let off = simulate(
        &dev("read-first", false, false),
        MIX,
        DriveState::Steady,
        3,
        false,
    );
    let on = simulate(
        &dev("read-first", true, false),
        MIX,
        DriveState::Steady,
        3,
        false,
    );
    let p99 = |r: &serde_json::Value| f(&r["read"]["lat_ns"]["percentile"]["99.000000"]);
    assert!(
        p99(&on) < 0.8 * p99(&off),
        "p99 with suspend {} vs without {}",
        p99(&on),
        p99(&off)
    );
    assert!(f(&on["read"]["lat_ns"]["mean"]) < f(&off["read"]["lat_ns"]["mean"]));
}

#[test]
fn fifo_makes_reads_wait_for_earlier_programs() {
    let fifo = simulate(
        &dev("fifo", false, false),
        MIX,
        DriveState::Steady,
        3,
        false,
    );
    let rf = simulate(
        &dev("read-first", false, false),
        MIX,
        DriveState::Steady,
        3,
        false,
    );
    assert!(f(&fifo["read"]["lat_ns"]["mean"]) > f(&rf["read"]["lat_ns"]["mean"]));
}

#[test]
fn adaptive_delay_holds_programs_when_reads_follow_closely() {
    let r = simulate(
        &dev("adaptive-delay", true, false),
        MIX,
        DriveState::Steady,
        3,
        false,
    );
    let a = &r["device"]["scheduler"]["adaptive"];
    let holds = f(&a["holds"]);
    assert!(holds > 0.0, "{a}");
    assert_eq!(
        holds,
        f(&a["hold_read_arrived"]) + f(&a["hold_expired"]),
        "{a}"
    );
}

#[test]
fn bad_scheduler_values_are_clear_errors() {
    let cases = [
        ("scheduler.window=\"0s\"", "scheduler.window: must be > 0"),
        ("scheduler.alpha=\"-5us\"", "scheduler.alpha"),
        ("scheduler.policy=\"lifo\"", "scheduler.policy"),
        (
            "nand.pages_per_program=2",
            "nand.pages_per_program: 2 is not allowed for Tlc",
        ),
        (
            "nand.pages_per_program=3",
            "nand.pages_per_block: 8 is not a multiple of nand.pages_per_program 3",
        ),
    ];
    for (o, want) in cases {
        let err = load_device(&DeviceSpec::Preset("tiny-test".into()), &[o.to_string()])
            .expect_err(o)
            .to_string();
        assert!(err.contains(want), "{o}: got {err}");
    }
    let err = load_device(
        &DeviceSpec::Preset("tiny-test".into()),
        &[
            "scheduler.program_suspend=true".into(),
            "scheduler.max_suspends=0".into(),
        ],
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("scheduler.max_suspends: 0 with suspend enabled"),
        "{err}"
    );
}

/// Seed 003's options (docs/validation.md, section 2): a suspend serves at most
/// `reads_per_suspend` read operations; the mechanism counters appear only with them.
#[test]
fn reads_per_suspend_bounds_each_suspension() {
    let with = |extra: &[&str]| {
        let mut o = vec![
            "scheduler.policy=\"read-first\"",
            "scheduler.program_suspend=true",
            "scheduler.erase_suspend=true",
        ];
        o.extend_from_slice(extra);
        device("tiny-test", &o)
    };
    let plain = simulate(&with(&[]), MIX, DriveState::Steady, 3, false);
    assert!(plain["device"]["scheduler"].get("suspend_reads").is_none());
    let unbounded = simulate(
        &with(&["scheduler.hold=\"average\""]),
        MIX,
        DriveState::Steady,
        3,
        false,
    );
    let one = simulate(
        &with(&["scheduler.reads_per_suspend=1"]),
        MIX,
        DriveState::Steady,
        3,
        false,
    );
    let (u, b) = (
        &unbounded["device"]["scheduler"],
        &one["device"]["scheduler"],
    );
    // hold = average does nothing under read-first: the same run as the plain one.
    assert_eq!(
        f(&u["suspends"]),
        f(&plain["device"]["scheduler"]["suspends"])
    );
    assert!(f(&u["reads_per_suspend"]) > 1.0, "{u}");
    assert!(f(&b["suspends"]) > 0.0, "{b}");
    assert_eq!(f(&b["suspend_reads"]), f(&b["suspends"]), "{b}");
    assert_eq!(f(&b["reads_per_suspend"]), 1.0, "{b}");
    assert_eq!(f(&b["reads_per_suspend_limit"]), 1.0, "{b}");
    // Serving fewer reads per suspend takes more suspends, up to max_suspends per program.
    assert!(f(&b["suspends"]) > f(&u["suspends"]), "{b} vs {u}");
}

/// A program's data-in holds its channel: the mixed run has reads whose data-out waited
/// behind one, a read-only run has none.
#[test]
fn reads_behind_a_data_in_are_counted() {
    let d = device("tiny-test", &["scheduler.reads_per_suspend=2"]);
    let mixed = simulate(&d, MIX, DriveState::Steady, 3, false);
    let s = &mixed["device"]["scheduler"];
    assert!(f(&s["reads_behind_data_in"]) > 0.0, "{s}");
    assert!(f(&s["data_in_wait_ns"]) > 0.0, "{s}");
    let reads = simulate(
        &d,
        r#"{"rw":"randread","bs":"4k","iodepth":16,"number_ios":5000}"#,
        DriveState::Full,
        3,
        false,
    );
    assert_eq!(
        f(&reads["device"]["scheduler"]["reads_behind_data_in"]),
        0.0
    );
}

/// A hold is not idle time the die must waste: GC reads that arrive during it are
/// served, and the hold goes on after them (it ends when a host read comes or its time
/// runs out). Every hold is answered or expires once, and the oracle holds.
#[test]
fn gc_reads_are_served_during_a_hold_which_goes_on() {
    let mut d = dev("adaptive-delay", true, false);
    d.scheduler.hold = ssdlab_core::config::scheduling::HoldTime::DataIn;
    d.scheduler.alpha = ssdlab_core::config::units::Duration(400_000);
    let r = simulate(&d, MIX, DriveState::Steady, 3, true);
    assert_eq!(r["device"]["oracle"]["mismatches"], 0);
    let a = &r["device"]["scheduler"]["adaptive"];
    assert!(f(&a["gc_reads_during_holds"]) > 0.0, "{a}");
    // Answered or expired once each; a die may still hold at the end of the run.
    let open = f(&a["holds"]) - f(&a["hold_read_arrived"]) - f(&a["hold_expired"]);
    let dies = (d.nand.channels * d.nand.dies_per_channel) as f64;
    assert!((0.0..=dies).contains(&open), "{a}");
}

/// The loop model (`program_loops`, `erase_loops`): a suspend loses the loop under way,
/// which is run again: counted, and part of the time suspends add to operations.
#[test]
fn suspended_loops_are_run_again_and_counted() {
    let base = dev("read-first", true, true);
    let mut looped = base.clone();
    looped.scheduler.program_loops = 20;
    looped.scheduler.erase_loops = 8;
    let a = simulate(&base, MIX, DriveState::Steady, 3, false);
    let b = simulate(&looped, MIX, DriveState::Steady, 3, true);
    assert_eq!(b["device"]["oracle"]["mismatches"], 0);
    let (sa, sb) = (&a["device"]["scheduler"], &b["device"]["scheduler"]);
    assert!(sa.get("loop_redo_ns").is_none());
    let redo = f(&sb["loop_redo_ns"]);
    assert!(redo > 0.0, "{sb}");
    // Each suspend adds t_suspend + t_resume, plus the loops run again.
    let per = (base.scheduler.t_suspend.ns() + base.scheduler.t_resume.ns()) as f64;
    assert_eq!(
        f(&sb["added_op_time_ns"]),
        f(&sb["suspends"]) * per + redo,
        "{sb}"
    );
    // A lost loop is at most one loop of the longest operation (tPROG / 20 or tBERS / 8).
    let t_prog = looped.nand.t_prog.max() as f64;
    let t_erase = looped.nand.t_erase.ns() as f64;
    let max_loop = (t_prog / 20.0).max(t_erase / 8.0);
    assert!(redo <= f(&sb["suspends"]) * max_loop, "{sb}");
}
