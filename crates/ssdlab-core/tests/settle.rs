//! The workload's settle rule (config/settle.rs, ssd/settle.rs): checked at doubling
//! checkpoints, it stops the group where its rate has settled; the windows it read are
//! those a run of that length logs, and its figure is their mean, by hand.

mod common;

use serde_json::Value;
use ssdlab_core::config::load_workload;
use ssdlab_core::DriveState;

const BASE: &str = r#""rw":"randwrite","bs":"4k","iodepth":16,"numjobs":2,"ramp_time":"1s""#;

fn run(extra: &str) -> Value {
    let d = common::device("tiny-test", &[]);
    common::simulate(
        &d,
        &format!("{{{BASE},{extra}}}"),
        DriveState::Normal,
        3,
        false,
    )
}

fn settle_rule(tolerance: f64) -> String {
    format!(
        r#""runtime":"16s","settle":{{"first_check":"4s","tolerance":{tolerance},"min_windows":2}}"#
    )
}

/// The merged write log's whole windows: (t_ms after the ramp, IOPS).
fn windows(r: &Value, upto_ms: u64) -> Vec<(u64, f64)> {
    r["write"]["iops_log"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| (w[0].as_u64().unwrap(), common::f(&w[1])))
        .filter(|(t, _)| t % 500 == 0 && *t <= upto_ms)
        .collect()
}

#[test]
fn a_settled_group_stops_at_its_checkpoint_with_the_windows_a_run_that_long_logs() {
    let r = run(&settle_rule(0.9));
    let s = &r["settle"];
    assert_eq!(s["settled"], true, "{s}");
    assert_eq!(common::f(&s["at_s"]), 4.0);
    let checks = s["checks"].as_array().unwrap();
    assert_eq!(checks.len(), 1);
    // The jobs stopped issuing at 4 s: the run ends once the I/Os in flight complete.
    let sim_s = common::f(&r["sim_time_ns"]) / 1e9;
    assert!((4.0..4.1).contains(&sim_s), "sim {sim_s} s");
    // The same workload run for 4 s logs the same windows (measured from the 1 s ramp).
    let plain = run(r#""runtime":"4s""#);
    let (a, b) = (windows(&r, 3000), windows(&plain, 3000));
    assert_eq!(a.len(), 6, "{a:?}");
    assert_eq!(a, b);
    // The figure: the mean of the second half's windows, [2, 4) s = t_ms 1500..3000.
    let half: Vec<f64> = a.iter().filter(|w| w.0 > 1000).map(|w| w.1).collect();
    assert_eq!(half.len(), 4);
    let figure = half.iter().sum::<f64>() / 4.0;
    let got = common::f(&checks[0]["figure_iops"]);
    assert!((got - figure).abs() <= 1e-9 * figure, "{got} vs {figure}");
    let change = (half[2] + half[3] - half[0] - half[1]) / 2.0 / figure;
    assert!((common::f(&checks[0]["change"]) - change).abs() < 1e-12);
}

#[test]
fn a_group_that_never_settles_is_checked_at_every_doubling_and_runs_to_its_cap() {
    let r = run(&settle_rule(1e-9));
    let s = &r["settle"];
    assert_eq!(s["settled"], false, "{s}");
    let at: Vec<f64> = s["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| common::f(&c["at_s"]))
        .collect();
    assert_eq!(at, vec![4.0, 8.0, 16.0]);
    // Windows per check: the second half of 4, 8 and 16 s.
    let n: Vec<u64> = s["checks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["windows"].as_u64().unwrap())
        .collect();
    assert_eq!(n, vec![4, 8, 16]);
    assert!(common::f(&r["sim_time_ns"]) >= 16e9);
}

#[test]
fn a_run_without_a_rule_has_no_settle_block() {
    let r = run(r#""runtime":"2s""#);
    assert!(r.get("settle").is_none());
}

#[test]
fn bad_rules_are_refused_with_the_field_named() {
    let cap = common::device("tiny-test", &[]).capacity_bytes();
    let err = |wl: &str| load_workload(wl, &[], cap).unwrap_err().to_string();
    let e = err(r#"{"rw":"randwrite","settle":{"first_check":"4s"}}"#);
    assert!(e.contains("settle: needs a runtime"), "{e}");
    let e =
        err(r#"{"rw":"randwrite","runtime":"8s","ramp_time":"3s","settle":{"first_check":"4s"}}"#);
    assert!(
        e.contains("ramp_time 3s is longer than half of first_check"),
        "{e}"
    );
    let e = err(r#"{"rw":"randwrite","runtime":"8s","settle":{"first_check":"4s","tol":0.1}}"#);
    assert!(e.contains("tol"), "{e}");
    // The jobs of a group settle as one: they share the rule.
    let a = load_workload(
        r#"{"rw":"randwrite","runtime":"8s","settle":{"first_check":"4s","min_windows":2}}"#,
        &[],
        cap,
    )
    .unwrap();
    let b = load_workload(r#"{"rw":"randread","runtime":"8s"}"#, &[], cap).unwrap();
    let d = common::device("tiny-test", &[]);
    let e = ssdlab_core::config::check_run(&d, &[a, b])
        .unwrap_err()
        .to_string();
    assert!(e.contains("must have the same settle rule"), "{e}");
}
