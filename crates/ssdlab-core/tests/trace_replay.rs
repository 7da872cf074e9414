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

#[test]
fn trace_gaps_let_apst_sleep_and_the_next_io_pays_the_exit() {
    // A timed trace of reads with idle gaps, on the default power-state table and
    // Linux's APST policy: PS4 (entry 2 ms, exit 8 ms) after 100 ms idle, ASPM L1
    // after 32 us idle (exit 8 us). Reads at 0, 300 ms and 600 ms each leave the
    // drive idle about 300 ms, so the reads at 300, 600 and 900 ms find it in PS4
    // with its entry done and wait its exit, 8 ms; the read at 920 ms follows an
    // idle period of about 12 ms (900 ms + 8 ms wake + a read), within the 100 ms
    // timer, and wakes the link from L1 only: 8 us.
    let times_ms = [0u64, 300, 600, 900, 920];
    let mut text = String::new();
    for (i, t) in times_ms.iter().enumerate() {
        text.push_str(&format!("{},R,{},4096\n", t * 1_000_000, i as u64 * 65536));
    }
    let t = Tmp::new("gaps.csv", &text);
    let wl = format!(
        r#"{{"iodepth":1,"trace":{{"path":"{}","mode":"timed"}}}}"#,
        t.0
    );
    let on = simulate(
        &device("tiny-test", &["power.enabled=true"]),
        &wl,
        DriveState::Full,
        1,
        false,
    );
    // The same trace with APST and ASPM off: the reads' own service times.
    let off = simulate(
        &device(
            "tiny-test",
            &[
                "power.enabled=true",
                "power.apst=\"off\"",
                "power.aspm=\"off\"",
            ],
        ),
        &wl,
        DriveState::Full,
        1,
        false,
    );
    let e = &on["energy"];
    let exit_ns = 8_000_000.0;
    let l1_exit_ns = 8_000.0;
    assert_eq!(f(&e["wakeups"]), 4.0);
    assert_eq!(f(&e["max_wake_ns"]), exit_ns);
    let mean_wake = (3.0 * exit_ns + l1_exit_ns) / 4.0;
    assert!((f(&e["mean_wake_ns"]) - mean_wake).abs() < 1e-6);
    assert_eq!(f(&off["energy"]["wakeups"]), 0.0);
    // Every wake is in the latency of the read that found the drive asleep.
    let n = f(&on["read"]["total_ios"]);
    assert_eq!(n, 5.0);
    let sum = |r: &serde_json::Value| f(&r["read"]["lat_ns"]["mean"]) * n;
    let waited = sum(&on) - sum(&off);
    assert!(
        (waited - (3.0 * exit_ns + l1_exit_ns)).abs() < 1.0,
        "the reads waited {waited} ns more"
    );
    // The drive was in PS4 (link in L1.2) for each long gap less the 100 ms timer:
    // between 3 x (300 - 100 - 9) ms and 3 x 200 ms (a read and a wake take < 9 ms).
    let ps4 = f(&e["power_state_ns"]["PS4"]);
    assert!((3.0 * 191e6..3.0 * 200e6).contains(&ps4), "{ps4} ns in PS4");
    assert_eq!(f(&e["link_state_ns"]["L1.2"]), ps4);
    assert_eq!(f(&off["energy"]["power_state_ns"]["PS4"]), 0.0);
}
