//! Trace replay through the whole device: every request is issued once, closed
//! loop keeps iodepth outstanding (Little's law), timed replay honours arrival
//! times (sparse arrivals see the idle-drive latency), and the oracle holds.

mod common;

use common::{device, f, simulate};
use ssdlab_core::config::load_workload;
use ssdlab_core::DriveState;
use std::io::Write;

struct Tmp(String);
impl Tmp {
    fn new(name: &str, text: &str) -> Tmp {
        let p = std::env::temp_dir().join(format!("ssdlab-it-{}-{name}", std::process::id()));
        std::fs::File::create(&p)
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        Tmp(p.to_string_lossy().into_owned())
    }
}
impl Drop for Tmp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// `n` requests of 4 KiB every `gap_ns`, reads and writes alternating in blocks.
fn csv_trace(n: u64, gap_ns: u64) -> String {
    let mut s = String::from("# time_ns,op,offset,len\n");
    for i in 0..n {
        let op = if (i / 7) % 3 == 0 { "W" } else { "R" };
        let off = (i * 7919 % 4096) * 4096;
        s.push_str(&format!("{},{op},{off},4096\n", i * gap_ns));
    }
    s
}

#[test]
fn closed_loop_replays_every_request_at_its_depth() {
    let dev = device("tiny-test", &[]);
    let t = Tmp::new("closed.csv", &csv_trace(3000, 1000));
    let wl = format!(
        r#"{{"iodepth":8,"trace":{{"path":"{}","mode":"closed"}}}}"#,
        t.0
    );
    let r = simulate(&dev, &wl, DriveState::Full, 1, true);
    let ios = f(&r["read"]["total_ios"]) + f(&r["write"]["total_ios"]);
    assert_eq!(ios, 3000.0);
    let tr = &r["jobs"][0]["trace"];
    assert_eq!(tr["requests_replayed"], 3000);
    assert_eq!(tr["stats"]["requests"], 3000);
    assert_eq!(r["device"]["oracle"]["mismatches"], 0);
    // Little's law over the whole run: IOPS x mean latency ~ iodepth.
    let sim_s = f(&r["sim_time_ns"]) / 1e9;
    let mean_lat_s = (f(&r["read"]["lat_ns"]["mean"]) * f(&r["read"]["total_ios"])
        + f(&r["write"]["lat_ns"]["mean"]) * f(&r["write"]["total_ios"]))
        / ios
        / 1e9;
    let l = ios / sim_s * mean_lat_s;
    assert!((l - 8.0).abs() < 0.5, "outstanding {l}");
}

#[test]
fn timed_replay_honours_arrivals() {
    let dev = device("tiny-test", &[]);
    // Reads 1 ms apart on an idle drive: each sees the QD1 latency, and the run
    // lasts as long as the trace.
    let mut text = String::new();
    for i in 0..200u64 {
        text.push_str(&format!(
            "{},R,{},4096\n",
            5_000_000 + i * 1_000_000,
            i * 65536
        ));
    }
    let t = Tmp::new("timed.csv", &text);
    let qd1 = simulate(
        &dev,
        r#"{"rw":"randread","bs":"4k","iodepth":1,"number_ios":500}"#,
        DriveState::Full,
        1,
        false,
    );
    let wl = format!(
        r#"{{"iodepth":32,"trace":{{"path":"{}","mode":"timed"}}}}"#,
        t.0
    );
    let r = simulate(&dev, &wl, DriveState::Full, 1, false);
    let lat = f(&r["read"]["lat_ns"]["mean"]);
    let base = f(&qd1["read"]["lat_ns"]["mean"]);
    assert!(
        (lat - base).abs() / base < 0.02,
        "timed {lat} vs QD1 {base}"
    );
    let sim = f(&r["sim_time_ns"]);
    assert!((199e6..199e6 + 1e6).contains(&sim), "sim time {sim}");
    // Ten times faster: the same requests in a tenth of the time.
    let wl = format!(
        r#"{{"iodepth":32,"trace":{{"path":"{}","mode":"timed","speedup":10}}}}"#,
        t.0
    );
    let r = simulate(&dev, &wl, DriveState::Full, 1, false);
    assert!((19.9e6..21e6).contains(&f(&r["sim_time_ns"])));
}

#[test]
fn bad_trace_is_a_config_error_with_file_line() {
    let t = Tmp::new("bad.csv", "0,R,0,4096\n1,R,zero,4096\n");
    let wl = format!(r#"{{"trace":{{"path":"{}","format":"csv"}}}}"#, t.0);
    let e = load_workload(&wl, &[], 1 << 30).unwrap_err().to_string();
    assert!(e.contains(&format!("{}:2: '1,R,zero,4096'", t.0)), "{e}");
    let wl = format!(r#"{{"trace":{{"path":"{}","skip_bad_lines":1}}}}"#, t.0);
    let w = load_workload(&wl, &[], 1 << 30).unwrap();
    assert_eq!(w.trace_stats.unwrap().skipped_lines, 1);
    let e = load_workload(r#"{"trace":{"path":"/nonexistent/x.csv"}}"#, &[], 1 << 30)
        .unwrap_err()
        .to_string();
    assert!(e.contains("/nonexistent/x.csv: cannot open trace"), "{e}");
    let e = load_workload(r#"{"trace":{"path":"x","speedup":0}}"#, &[], 1 << 30)
        .unwrap_err()
        .to_string();
    assert!(e.contains("speedup"), "{e}");
}
