//! fio workload features by their mechanism: skewed offsets, block-size mixes,
//! pacing (rate_iops, thinktime), rw modifiers, several jobs and stonewall groups,
//! and slat + clat = lat.

mod common;

use common::{device, f};
use ssdlab_core::config::{load_jobs, load_workload};
use ssdlab_core::workload::{JobGen, OpKind};
use ssdlab_core::{run_jobs, DriveState, RunOptions};

const CAP: u64 = 1 << 30;

fn gen(json: &str) -> JobGen {
    let w = load_workload(json, &[], CAP).unwrap();
    let mut g = JobGen::new(&w, CAP, 7, 0);
    g.start_at(0);
    g
}

fn offsets(json: &str, n: usize) -> Vec<(u64, u64, OpKind)> {
    let mut g = gen(json);
    (0..n)
        .map(|_| {
            let io = g.next_io(0);
            (io.offset, io.len, io.kind)
        })
        .collect()
}

/// Share of accesses that land on the most popular 10% of 4 KiB slots.
fn top_decile_share(offs: &[(u64, u64, OpKind)]) -> f64 {
    let mut counts = std::collections::HashMap::new();
    for (o, _, _) in offs {
        *counts.entry(o / 4096).or_insert(0u64) += 1;
    }
    let mut v: Vec<u64> = counts.values().cloned().collect();
    v.sort_unstable_by(|a, b| b.cmp(a));
    let slots = (CAP / 4096) as usize;
    v.iter().take(slots / 10).sum::<u64>() as f64 / offs.len() as f64
}

#[test]
fn skewed_distributions_concentrate_accesses() {
    let n = 200_000;
    let uni = top_decile_share(&offsets(r#"{"rw":"randread","number_ios":1}"#, n));
    let zipf = top_decile_share(&offsets(
        r#"{"rw":"randread","random_distribution":"zipf:1.2"}"#,
        n,
    ));
    let zoned = offsets(
        r#"{"rw":"randread","random_distribution":"zoned:80/10:20/90"}"#,
        n,
    );
    // Uniform: 200k draws over 262k slots hit each at most a few times.
    assert!(uni < 0.4, "uniform {uni}");
    assert!(zipf > 0.8, "zipf:1.2 {zipf}");
    let first_tenth = zoned.iter().filter(|(o, _, _)| *o < CAP / 10).count() as f64 / n as f64;
    assert!((first_tenth - 0.8).abs() < 0.01, "zoned {first_tenth}");
    let normal = offsets(r#"{"rw":"randread","random_distribution":"normal:10"}"#, n);
    let mid = normal
        .iter()
        .filter(|(o, _, _)| (*o as f64 - CAP as f64 / 2.0).abs() < 0.1 * CAP as f64)
        .count() as f64
        / n as f64;
    assert!((mid - 0.683).abs() < 0.01, "normal within one sigma {mid}");
}

#[test]
fn block_size_mixes_follow_their_shares() {
    let n = 100_000;
    let v = offsets(
        r#"{"rw":"randwrite","bssplit":[["4k",60],["64k",30],["1m",10]]}"#,
        n,
    );
    let share = |b: u64| v.iter().filter(|x| x.1 == b).count() as f64 / n as f64;
    assert!((share(4096) - 0.6).abs() < 0.01);
    assert!((share(65536) - 0.3).abs() < 0.01);
    assert!((share(1 << 20) - 0.1).abs() < 0.01);
    assert!(v.iter().all(|(o, len, _)| o % 4096 == 0 && o + len <= CAP));
    let r = offsets(r#"{"rw":"randrw","bs":"4k","bs_write":"16k"}"#, 10_000);
    assert!(r
        .iter()
        .all(|(_, len, k)| *len == if *k == OpKind::Write { 16384 } else { 4096 }));
    let br = offsets(r#"{"rw":"read","bsrange":["4k","8k"]}"#, 10_000);
    assert!(br
        .iter()
        .all(|x| (4096..=8192).contains(&x.1) && x.1 % 512 == 0));
    assert!(br.iter().any(|x| x.1 == 4096) && br.iter().any(|x| x.1 == 8192));
}

#[test]
fn rw_modifiers_make_runs_and_holes() {
    let v = offsets(r#"{"rw":"randread","bs":"4k","random_run":8}"#, 64);
    for chunk in v.chunks(8) {
        for w in chunk.windows(2) {
            assert_eq!(w[1].0, w[0].0 + 4096);
        }
    }
    let s = offsets(r#"{"rw":"write","bs":"4k","seq_skip":"4k"}"#, 4);
    assert_eq!(
        s.iter().map(|x| x.0).collect::<Vec<_>>(),
        vec![0, 8192, 16384, 24576]
    );
}

fn run(jobs: &str, state: DriveState) -> serde_json::Value {
    let dev = device("tiny-test", &[]);
    let jobs = load_jobs(jobs, &[], dev.capacity_bytes()).unwrap();
    let opts = RunOptions {
        state,
        seed: 1,
        verify: false,
    };
    run_jobs(dev, jobs, opts, &mut |_| true).unwrap().json
}

#[test]
fn rate_iops_paces_a_job_and_thinktime_adds_to_each_io() {
    let r = run(
        r#"{"rw":"randread","iodepth":8,"rate_iops":2000,"number_ios":400}"#,
        DriveState::Full,
    );
    let iops = f(&r["read"]["iops"]);
    assert!((iops - 2000.0).abs() < 20.0, "rate_iops 2000: {iops}");
    // QD1 with 200 us think time: each I/O takes its latency plus the think time.
    let r = run(
        r#"{"rw":"randread","iodepth":1,"thinktime":"200us","number_ios":400}"#,
        DriveState::Full,
    );
    let cycle = 1e9 / f(&r["read"]["iops"]);
    let expect = f(&r["read"]["lat_ns"]["mean"]) + 200_000.0;
    assert!(
        (cycle - expect).abs() / expect < 0.01,
        "{cycle} vs {expect}"
    );
}

#[test]
fn stonewall_groups_run_in_order_and_jobs_run_together() {
    let r = run(
        r#"{"jobs":[
            {"name":"fill","rw":"write","bs":"64k","size":"4MiB","iodepth":4,"group":0},
            {"name":"rd","rw":"randread","size":"4MiB","iodepth":4,"number_ios":500,"group":1},
            {"name":"wr","rw":"randwrite","offset":"8MiB","size":"4MiB","iodepth":2,"number_ios":300,"group":1}
        ]}"#,
        DriveState::Fresh,
    );
    let jobs = r["jobs"].as_array().unwrap();
    assert_eq!(jobs.len(), 3);
    assert_eq!(jobs[0]["jobname"], "fill");
    assert_eq!(jobs[1]["groupid"], 1);
    assert_eq!(jobs[0]["write"]["io_bytes"], 4 << 20);
    assert_eq!(jobs[1]["read"]["total_ios"], 500);
    assert_eq!(jobs[2]["write"]["total_ios"], 300);
    // The reads ran after the fill: every one found data.
    assert_eq!(r["device"]["ftl"]["unmapped_reads"], 0);
    let groups = r["groups"].as_array().unwrap();
    assert_eq!(groups.len(), 2);
    assert_eq!(groups[1]["read"]["total_ios"], 500);
    assert_eq!(groups[1]["write"]["total_ios"], 300);
}

#[test]
fn slat_plus_clat_is_lat_and_depths_are_counted() {
    let r = run(
        r#"{"rw":"randread","iodepth":16,"number_ios":5000}"#,
        DriveState::Full,
    );
    let rd = &r["jobs"][0]["read"];
    let sum = f(&rd["slat_ns"]["mean"]) + f(&rd["clat_ns"]["mean"]);
    assert!((sum - f(&rd["lat_ns"]["mean"])).abs() < 1.0, "{rd}");
    assert!(f(&rd["slat_ns"]["mean"]) > 0.0);
    let bins: u64 = rd["clat_ns"]["bins"]
        .as_object()
        .unwrap()
        .values()
        .map(|v| v.as_u64().unwrap())
        .sum();
    assert_eq!(bins, 5000);
    let depth = &r["jobs"][0]["iodepth_level"];
    assert!(f(&depth["16"]) > 90.0, "{depth}");
    let total: f64 = r["jobs"][0]["latency_us"]
        .as_object()
        .unwrap()
        .values()
        .map(f)
        .sum::<f64>()
        + r["jobs"][0]["latency_ms"]
            .as_object()
            .unwrap()
            .values()
            .map(f)
            .sum::<f64>()
        + r["jobs"][0]["latency_ns"]
            .as_object()
            .unwrap()
            .values()
            .map(f)
            .sum::<f64>();
    assert!((total - 100.0).abs() < 0.01, "{total}");
}

#[test]
fn bad_fio_values_are_clear_errors() {
    let cases = [
        (
            r#"{"bssplit":[["4k",50],["8k",40]]}"#,
            "bssplit: the percentages sum to 90, not 100",
        ),
        (
            r#"{"random_distribution":"zipf"}"#,
            "random_distribution: 'zipf' needs a parameter",
        ),
        (r#"{"random_distribution":"pareto:2"}"#, "needs 0 < h < 1"),
        (
            r#"{"random_distribution":"zoned:50/10:40/90"}"#,
            "do not each sum to 100",
        ),
        (r#"{"rate_iops":0}"#, "rate_iops: must be > 0"),
        (
            r#"{"bsrange":["8k","4k"]}"#,
            "bsrange: 8KiB-4KiB is not allowed",
        ),
    ];
    for (j, want) in cases {
        let e = load_workload(j, &[], CAP).unwrap_err().to_string();
        assert!(e.contains(want), "{j}: {e}");
    }
    // A replay issues its trace's requests only: no flushes or verify pass of its own.
    let trace = std::env::temp_dir().join(format!("ssdlab-wf-{}.iolog", std::process::id()));
    std::fs::write(
        &trace,
        "fio version 2 iolog\nf add\nf open\nf write 0 4096\n",
    )
    .unwrap();
    let j = format!(
        r#"{{"end_fsync":true,"trace":{{"path":"{}"}}}}"#,
        trace.display()
    );
    let e = load_workload(&j, &[], CAP).unwrap_err().to_string();
    let _ = std::fs::remove_file(&trace);
    assert!(e.contains("not with a trace replay"), "{e}");
    let e = load_jobs(
        r#"{"jobs":[{"rw":"read"},{"name":"b","iodepth":0}]}"#,
        &[],
        CAP,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("workload job 1 (b)") && e.contains("iodepth: 0"),
        "{e}"
    );
    let e = load_jobs(r#"{"jobs":[],"rw":"read"}"#, &[], CAP)
        .unwrap_err()
        .to_string();
    assert!(e.contains("jobs: must be a non-empty list"), "{e}");
}

#[test]
fn percentage_random_mixes_random_and_sequential_offsets() {
    let follows = |json: &str| {
        let v = offsets(json, 20_000);
        v.windows(2).filter(|w| w[1].0 == w[0].0 + w[0].1).count() as f64 / (v.len() - 1) as f64
    };
    let all = follows(r#"{"rw":"randread","bs":"4k"}"#);
    let none = follows(r#"{"rw":"randread","bs":"4k","percentage_random":0}"#);
    let thirty = follows(r#"{"rw":"randread","bs":"4k","percentage_random":30}"#);
    assert!(all < 0.01, "{all}");
    assert!(none > 0.999, "{none}");
    assert!((thirty - 0.7).abs() < 0.02, "{thirty}");
    assert!(load_workload(r#"{"percentage_random":101}"#, &[], CAP).is_err());
}

#[test]
fn fsync_flushes_after_every_n_writes_and_waits_for_the_programs() {
    // tiny-test, QD1 sequential 4 KiB writes: a stripe is 8 units, so 5 writes sit in
    // the buffer's open stripe until a flush pads it; each flush waits one tPROG
    // (600 us) and no write is issued meanwhile. As in fio: a flush before the 6th,
    // 11th, ... 36th write (7), then end_fsync's, which fio leaves out of `sync`.
    let plain = run(
        r#"{"rw":"write","bs":"4k","number_ios":40,"size":"1m"}"#,
        DriveState::Full,
    );
    let synced = run(
        r#"{"rw":"write","bs":"4k","number_ios":40,"size":"1m","fsync":5,"end_fsync":true}"#,
        DriveState::Full,
    );
    assert!(plain["jobs"][0].get("sync").is_none());
    let sync = &synced["jobs"][0]["sync"];
    assert_eq!(sync["total_ios"], 7, "{sync}");
    assert!(f(&sync["lat_ns"]["min"]) >= 600_000.0, "{sync}");
    assert_eq!(synced["write"]["total_ios"], 40);
    let rt = |r: &serde_json::Value| f(&r["jobs"][0]["job_runtime"]);
    assert!(
        rt(&synced) >= rt(&plain) + 8.0 * 0.6,
        "{} vs {} ms",
        rt(&synced),
        rt(&plain)
    );
    // end_fsync alone: one flush after the last write (40 units: the fifth stripe is
    // open until it), not counted.
    let end = run(
        r#"{"rw":"write","bs":"4k","number_ios":40,"size":"1m","end_fsync":true,"log_ios":true}"#,
        DriveState::Full,
    );
    assert!(end["jobs"][0].get("sync").is_none());
    let log = end["jobs"][0]["iolog"].as_array().unwrap();
    assert_eq!(log.len(), 41);
    assert_eq!(log[40][1], 3, "the last command is the flush");
}

/// fio starts a delayed job only when its `startdelay` has passed: its runtime, its ramp
/// and its IOPS count from then. On a drive with nothing to do in the meantime (no SLC,
/// no background GC) the delayed job measures what the same job measures at once.
#[test]
fn a_start_delay_is_not_part_of_the_runtime_or_the_ramp() {
    let d = device("tiny-test", &[]);
    let run = |delay: &str| {
        common::simulate(
            &d,
            &format!(
                r#"{{"rw":"randwrite","bs":"4k","iodepth":8,"runtime":"20ms","ramp_time":"5ms","startdelay":"{delay}"}}"#
            ),
            DriveState::Fresh,
            1,
            false,
        )
    };
    let (now, later) = (run("0s"), run("30ms"));
    let ms = |r: &serde_json::Value| f(&r["jobs"][0]["job_runtime"]);
    // 20 ms less the 5 ms ramp, and the last I/Os completing.
    assert!((15.0..=16.0).contains(&ms(&now)), "{} ms", ms(&now));
    assert_eq!(ms(&later), ms(&now));
    assert_eq!(f(&later["write"]["iops"]), f(&now["write"]["iops"]));
    assert_eq!(later["write"]["total_ios"], now["write"]["total_ios"]);
    assert!(f(&later["sim_time_ns"]) >= f(&now["sim_time_ns"]) + 30e6);
}
