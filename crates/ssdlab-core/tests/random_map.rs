//! fio's random map in the workload generator: uniform random offsets visit every
//! block of the span once per pass (reads, writes and trims of a job sharing one
//! map), `norandommap` draws with replacement, `random_generator=lfsr` repeats one
//! order each pass, non-uniform distributions draw with replacement (fio turns its
//! map off for them), and the same seed gives the same offsets.

mod common;

use common::device;
use ssdlab_core::config::{load_jobs, load_workload};
use ssdlab_core::workload::{JobGen, OpKind};
use ssdlab_core::{run_jobs, DriveState, RunOptions};
use std::collections::HashMap;

const CAP: u64 = 1 << 30;

fn ios(json: &str, seed: u64, job: u32) -> Vec<(u64, u64, OpKind)> {
    let w = load_workload(json, &[], CAP).unwrap();
    let mut g = JobGen::new(&w, CAP, seed, job);
    g.start_at(0);
    std::iter::from_fn(|| {
        g.can_issue(0).then(|| {
            let io = g.next_io(0);
            (io.offset, io.len, io.kind)
        })
    })
    .collect()
}

/// How many times each 4 KiB block (by I/O start) was visited.
fn visits(v: &[(u64, u64, OpKind)]) -> HashMap<u64, u32> {
    let mut m = HashMap::new();
    for (o, _, _) in v {
        *m.entry(o / 4096).or_insert(0) += 1;
    }
    m
}

#[test]
fn each_block_once_per_pass_for_every_random_pattern() {
    for rw in ["randwrite", "randread", "randtrim", "randrw"] {
        // 1 MiB at offset 64 KiB: 256 blocks.
        let base = format!(r#"{{"rw":"{rw}","bs":"4k","offset":"64KiB","size":"1MiB""#);
        let one = ios(&format!(r#"{base},"number_ios":256}}"#), 3, 0);
        assert_eq!(one.len(), 256);
        let m = visits(&one);
        assert_eq!(m.len(), 256, "{rw}: 256 random I/Os over 256 blocks");
        assert!(
            m.keys().all(|b| (16..16 + 256).contains(b)),
            "{rw}: inside the span"
        );
        // Two passes: each block exactly twice, each pass a permutation.
        let two = ios(&format!(r#"{base},"number_ios":512}}"#), 3, 0);
        assert!(visits(&two).values().all(|&c| c == 2), "{rw}");
        assert_eq!(visits(&two[256..]).len(), 256, "{rw}: the second pass");
        assert_eq!(&two[..256], &one[..], "{rw}: the first pass is the same");
        if rw == "randrw" {
            // fio's map is the job's: reads and writes together cover the span once.
            let reads = one.iter().filter(|x| x.2 == OpKind::Read).count();
            assert!((90..166).contains(&reads), "{reads}");
        }
    }
    // loops and io_size repeat passes in the same way; a non-power-of-two span too.
    let v = ios(
        r#"{"rw":"randwrite","bs":"8k","size":"1000KiB","io_size":"3000KiB"}"#,
        1,
        0,
    );
    assert_eq!(v.len(), 375);
    let mut per_block = HashMap::new();
    for (o, _, _) in &v {
        *per_block.entry(o / 8192).or_insert(0) += 1;
    }
    assert_eq!(per_block.len(), 125);
    assert!(per_block.values().all(|&c| c == 3));
}

#[test]
fn variable_block_sizes_start_once_per_pass_on_the_smallest_block() {
    // The map's unit is the smallest block (fio's rw_min_bs): with bsrange every
    // 4 KiB slot starts one I/O per pass (fio's lfsr behaviour; fio's bitmap also
    // shortens I/Os that run into blocks done, not modelled: docs/fio.md).
    for bs in [
        r#""bsrange":["4k","16k"]"#,
        r#""bssplit":[["4k",50],["16k",50]]"#,
    ] {
        let v = ios(
            &format!(r#"{{"rw":"randwrite",{bs},"size":"1MiB","number_ios":256}}"#),
            5,
            0,
        );
        let m = visits(&v);
        assert_eq!(m.len(), 256, "{bs}");
        assert!(
            v.iter().all(|(o, l, _)| o + l <= 1 << 20),
            "{bs}: inside the span"
        );
        assert!(v.iter().any(|(_, l, _)| *l > 4096));
    }
}

#[test]
fn norandommap_draws_with_replacement_and_lfsr_repeats_one_order() {
    let base = r#""rw":"randwrite","bs":"4k","size":"1MiB","number_ios":256"#;
    let free = ios(&format!(r#"{{{base},"norandommap":true}}"#), 3, 0);
    let n = visits(&free).len();
    // 256 draws with replacement from 256: 256 (1 - 1/e) ~ 162 distinct.
    assert!((140..185).contains(&n), "{n}");
    // lfsr never repeats within a pass, with or without norandommap, and every
    // pass repeats the first one's order (fio resets its LFSR to the seed).
    for extra in ["", r#","norandommap":true"#] {
        let base = r#""rw":"randwrite","bs":"4k","size":"1MiB","number_ios":768"#;
        let v = ios(
            &format!(r#"{{{base},"random_generator":"lfsr"{extra}}}"#),
            3,
            0,
        );
        assert_eq!(visits(&v[..256]).len(), 256);
        assert_eq!(&v[..256], &v[256..512]);
        assert_eq!(&v[256..512], &v[512..]);
    }
    // tausworthe (and tausworthe64, the same here) draw a new order each pass.
    let two = r#""rw":"randwrite","bs":"4k","size":"1MiB","number_ios":512"#;
    let t = ios(&format!("{{{two}}}"), 3, 0);
    let t64 = ios(
        &format!(r#"{{{two},"random_generator":"tausworthe64"}}"#),
        3,
        0,
    );
    assert_ne!(&t[..256], &t[256..]);
    assert_eq!(visits(&t[256..]).len(), 256);
    assert_eq!(t64, t);
    assert!(load_workload(r#"{"random_generator":"mt19937"}"#, &[], CAP)
        .unwrap_err()
        .to_string()
        .contains("random_generator: 'mt19937' is not allowed"));
}

#[test]
fn skewed_distributions_and_sequential_runs_do_not_use_the_map() {
    // fio: "If a non-uniform model is used, fio will disable use of the random map."
    for dist in ["zipf:1.2", "pareto:0.3", "normal:20", "zoned:50/10:50/90"] {
        let v = ios(
            &format!(
                r#"{{"rw":"randread","bs":"4k","size":"1MiB","number_ios":256,"random_distribution":"{dist}"}}"#
            ),
            3,
            0,
        );
        assert!(visits(&v).len() < 230, "{dist}");
    }
    // rw=randread:4: one map pick per 4 I/Os, the other 3 follow it sequentially.
    let v = ios(
        r#"{"rw":"randread","bs":"4k","size":"1MiB","number_ios":256,"random_run":4}"#,
        3,
        0,
    );
    let picks: Vec<_> = v.iter().step_by(4).cloned().collect();
    assert_eq!(visits(&picks).len(), 64);
}

#[test]
fn same_seed_same_offsets_other_seed_or_job_other_offsets() {
    let w = r#"{"rw":"randrw","bs":"4k","size":"4MiB","number_ios":3000}"#;
    assert_eq!(ios(w, 9, 0), ios(w, 9, 0));
    assert_ne!(ios(w, 9, 0), ios(w, 10, 0));
    assert_ne!(ios(w, 9, 0), ios(w, 9, 1));
    // randseed overrides the run's seed for the map too.
    let r = r#"{"rw":"randwrite","bs":"4k","size":"4MiB","number_ios":100,"randseed":42}"#;
    assert_eq!(ios(r, 1, 0), ios(r, 2, 0));
}

#[test]
fn a_huge_span_costs_nothing() {
    // 32 TiB of 512-byte slots: 2^36 slots, constructed and drawn at once.
    let cap = 32u64 << 40;
    let w = load_workload(
        r#"{"rw":"randread","bs":"512","number_ios":100000}"#,
        &[],
        cap,
    )
    .unwrap();
    let mut g = JobGen::new(&w, cap, 1, 0);
    g.start_at(0);
    let t = std::time::Instant::now();
    let mut seen = std::collections::HashSet::new();
    while g.can_issue(0) {
        let io = g.next_io(0);
        assert!(io.offset + io.len <= cap && io.offset.is_multiple_of(512));
        seen.insert(io.offset);
    }
    assert_eq!(seen.len(), 100_000);
    assert!(t.elapsed().as_secs() < 5);
}

#[test]
fn a_run_is_deterministic_and_writes_every_block_of_a_small_span() {
    let run = |wl: &str| {
        let dev = device("tiny-test", &[]);
        let jobs = load_jobs(wl, &[], dev.capacity_bytes()).unwrap();
        let opts = RunOptions {
            state: DriveState::Fresh,
            seed: 5,
            verify: true,
        };
        run_jobs(dev, jobs, opts, &mut |_| true).unwrap().json
    };
    let wl =
        r#"{"rw":"randwrite","bs":"4k","size":"2MiB","iodepth":8,"number_ios":512,"log_ios":true}"#;
    let (a, b) = (run(wl), run(wl));
    let strip = |r: &serde_json::Value| {
        let mut r = r.clone();
        for k in ["wall_time_s", "prep_wall_time_s", "sim_wall_time_s"] {
            r.as_object_mut().unwrap().remove(k);
        }
        r
    };
    assert_eq!(strip(&a), strip(&b));
    // The commands the drive received: each of the 512 blocks written once.
    let log = a["jobs"][0]["iolog"].as_array().unwrap();
    let offs: std::collections::HashSet<u64> = log.iter().map(|e| e[2].as_u64().unwrap()).collect();
    assert_eq!((log.len(), offs.len()), (512, 512));
}
