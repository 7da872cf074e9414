//! Golden reports: whole reports of a set of runs that together touch every part of
//! the device model (host link and queues, firmware cores, the map in DRAM, SRAM and
//! HMB with its journal, the SLC cache, GC, every scheduling policy with suspend,
//! multi-job workloads, the verify oracle), kept in `tests/golden/` and compared byte
//! for byte (wall-clock fields left out). They pin the simulator's behaviour across
//! refactors: a change that should not change any result must pass them untouched.
//!
//! A change that means to change results regenerates them and says why in its commit:
//! `SSDLAB_BLESS=1 cargo test --release -p ssdlab-core --test golden`.
//! On a mismatch the new report is written beside the golden one as `NAME.actual.json`
//! and the first differing key path is named.

mod common;

use common::{device, golden_dir, strip_wall_clock};
use serde_json::Value;
use ssdlab_core::config::load_jobs;
use ssdlab_core::{run_jobs, DriveState, RunOptions};

struct Case {
    name: &'static str,
    preset: &'static str,
    overrides: &'static [&'static str],
    workload: &'static str,
    state: DriveState,
    seed: u64,
    verify: bool,
}

const SMALL_MAP: &[&str] = &[
    "map.tier=\"sram\"",
    "map.cache=\"1KiB\"",
    "map.segment=\"512B\"",
    "map.journal_entries=512",
    "sram.size=\"512KiB\"",
];

const CASES: &[Case] = &[
    Case {
        name: "tiny-randread-full",
        preset: "tiny-test",
        overrides: &[],
        workload: r#"{"rw":"randread","bs":"4k","iodepth":32,"number_ios":20000}"#,
        state: DriveState::Full,
        seed: 1,
        verify: true,
    },
    Case {
        name: "tiny-randwrite-steady",
        preset: "tiny-test",
        overrides: &[],
        workload: r#"{"rw":"randwrite","bs":"4k","iodepth":16,"number_ios":30000}"#,
        state: DriveState::Steady,
        seed: 2,
        verify: true,
    },
    Case {
        name: "tiny-burst-gc-seqwrite",
        preset: "tiny-test",
        overrides: &["ftl.gc_pacing=\"burst\""],
        workload: r#"{"rw":"write","bs":"64k","iodepth":8,"number_ios":3000}"#,
        state: DriveState::Steady,
        seed: 3,
        verify: true,
    },
    Case {
        name: "tiny-mixed-jobs-queues",
        preset: "tiny-test",
        overrides: &[],
        workload: r#"{"rw":"randrw","rwmixread":70,"bs":"4k","iodepth":8,"numjobs":3,"queues":2,"queue_policy":"round-robin","number_ios":8000}"#,
        state: DriveState::Fresh,
        seed: 4,
        verify: true,
    },
    Case {
        name: "tiny-small-map-journal",
        preset: "tiny-test",
        overrides: SMALL_MAP,
        workload: r#"{"rw":"randrw","rwmixread":30,"bs":"4k","iodepth":16,"number_ios":30000}"#,
        state: DriveState::Steady,
        seed: 5,
        verify: true,
    },
    Case {
        name: "tiny-adaptive-delay-suspend",
        preset: "tiny-test",
        overrides: &[
            "scheduler.policy=\"adaptive-delay\"",
            "scheduler.program_suspend=true",
            "scheduler.erase_suspend=true",
            "scheduler.window=\"1ms\"",
        ],
        workload: r#"{"rw":"randrw","rwmixread":70,"bs":"4k","iodepth":16,"number_ios":20000}"#,
        state: DriveState::Steady,
        seed: 6,
        verify: true,
    },
    Case {
        name: "tiny-fifo-one-shot",
        preset: "tiny-test",
        overrides: &[
            "scheduler.policy=\"fifo\"",
            "nand.pages_per_program=3",
            "nand.pages_per_block=9",
            "controller.write_buffer=\"512KiB\"",
        ],
        workload: r#"{"rw":"randrw","rwmixread":50,"bs":"8k","iodepth":8,"number_ios":10000}"#,
        state: DriveState::Steady,
        seed: 7,
        verify: true,
    },
    Case {
        name: "hmb-randread-1gib",
        preset: "hmb-ssd",
        overrides: &[],
        workload: r#"{"rw":"randread","bs":"4k","iodepth":32,"number_ios":20000,"size":"1GiB"}"#,
        state: DriveState::Full,
        seed: 8,
        verify: false,
    },
    Case {
        name: "hmb-randwrite-normal",
        preset: "hmb-ssd",
        overrides: &[],
        workload: r#"{"rw":"randwrite","bs":"4k","iodepth":32,"number_ios":20000}"#,
        state: DriveState::Normal,
        seed: 9,
        verify: false,
    },
    Case {
        name: "client-seqwrite-slc",
        preset: "client-tlc-dram",
        overrides: &[],
        workload: r#"{"rw":"write","bs":"128k","iodepth":32,"number_ios":4000}"#,
        state: DriveState::Fresh,
        seed: 10,
        verify: false,
    },
    Case {
        name: "emmc-randread-map-cache",
        preset: "emmc-32g",
        overrides: &[],
        workload: r#"{"rw":"randread","bs":"4k","iodepth":8,"number_ios":10000}"#,
        state: DriveState::Full,
        seed: 11,
        verify: false,
    },
];

/// The first key path where `a` and `b` differ.
fn first_difference(a: &Value, b: &Value, path: &str) -> Option<String> {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            for (k, va) in x {
                match y.get(k) {
                    None => return Some(format!("{path}.{k}: missing in the new report")),
                    Some(vb) => {
                        if let Some(d) = first_difference(va, vb, &format!("{path}.{k}")) {
                            return Some(d);
                        }
                    }
                }
            }
            y.keys()
                .find(|k| !x.contains_key(*k))
                .map(|k| format!("{path}.{k}: new in the new report"))
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => x
            .iter()
            .zip(y)
            .enumerate()
            .find_map(|(i, (va, vb))| first_difference(va, vb, &format!("{path}[{i}]"))),
        _ if a == b => None,
        _ => Some(format!("{path}: {a} (golden) vs {b} (new)")),
    }
}

fn report(c: &Case) -> String {
    let dev = device(c.preset, c.overrides);
    let jobs = load_jobs(c.workload, &[], dev.capacity_bytes()).unwrap();
    let r = run_jobs(
        dev,
        jobs,
        RunOptions {
            state: c.state,
            seed: c.seed,
            verify: c.verify,
        },
        &mut |_| true,
    )
    .unwrap();
    let mut j = r.json;
    strip_wall_clock(&mut j);
    serde_json::to_string_pretty(&j).unwrap() + "\n"
}

#[test]
fn reports_match_the_golden_ones() {
    let bless = std::env::var_os("SSDLAB_BLESS").is_some();
    let dir = golden_dir();
    std::fs::create_dir_all(&dir).unwrap();
    let mut failures = Vec::new();
    for c in CASES {
        let got = report(c);
        let path = dir.join(format!("{}.json", c.name));
        let actual = dir.join(format!("{}.actual.json", c.name));
        if bless {
            std::fs::write(&path, &got).unwrap();
            let _ = std::fs::remove_file(&actual);
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e} (generate with SSDLAB_BLESS=1 cargo test --release -p ssdlab-core --test golden)",
                path.display()
            )
        });
        if want != got {
            std::fs::write(&actual, &got).unwrap();
            let (w, g): (Value, Value) = (
                serde_json::from_str(&want).unwrap(),
                serde_json::from_str(&got).unwrap(),
            );
            let d = first_difference(&w, &g, "").unwrap_or_else(|| "formatting only".into());
            failures.push(format!(
                "{}: {d} (new report: {})",
                c.name,
                actual.display()
            ));
        } else {
            let _ = std::fs::remove_file(&actual);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The comparison itself can fail: a changed timing changes the report.
#[test]
fn a_changed_timing_changes_the_report() {
    let c = &CASES[0];
    let slower = Case {
        overrides: &["nand.t_read=\"51us\""],
        ..*c
    };
    let (a, b) = (report(c), report(&slower));
    let (a, b): (Value, Value) = (
        serde_json::from_str(&a).unwrap(),
        serde_json::from_str(&b).unwrap(),
    );
    assert!(first_difference(&a, &b, "").is_some());
}
