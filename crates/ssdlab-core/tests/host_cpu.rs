//! The host's CPU (workload options `host_cpu_per_io`, `host_irq_per_io`): a job's
//! thread spends its time per I/O, a completion queue's interrupt handler its time per
//! completion, one at a time per queue. Both default to 0 (a host that costs nothing).

mod common;

use ssdlab_core::DriveState;

fn iops(wl: &str) -> (f64, f64) {
    let d = common::device("seed000-dram-1tb", &[]);
    let r = common::simulate(&d, wl, DriveState::Normal, 1, false);
    (
        common::f(&r["read"]["iops"]),
        common::f(&r["read"]["lat_ns"]["mean"]),
    )
}

#[test]
fn a_thread_issues_no_faster_than_its_cpu_time_per_io() {
    // Random reads of a fresh drive (answered without flash) on 4 firmware cores: the
    // drive alone serves ~1 M IOPS from one job at QD32 over 4 queues. A thread that
    // spends 10 us per I/O caps the job at 100 K; the drive, faster than that, then
    // never holds more than one of its I/Os (Little's law: in flight = IOPS x latency),
    // so each sees the QD1 latency, below the thread's 10 us.
    let base = r#""rw":"randread","bs":"4k","iodepth":32,"queues":4,"queue_policy":"round-robin","number_ios":40000"#;
    let (free, _) = iops(&format!("{{{base}}}"));
    let (capped, lat_ns) = iops(&format!("{{{base},\"host_cpu_per_io\":\"10us\"}}"));
    assert!(free > 500_000.0, "free {free}");
    assert!(
        capped <= 100_000.0 * 1.001 && capped > 97_000.0,
        "capped {capped}"
    );
    let in_flight = capped * lat_ns / 1e9;
    assert!(
        lat_ns < 10_000.0 && in_flight < 1.0,
        "lat {lat_ns} in flight {in_flight}"
    );
}

#[test]
fn completions_of_one_queue_share_its_handler_and_more_queues_spread_them() {
    // 5 us of interrupt handling per completion: one queue serves at most 200 K
    // completions a second, four queues four times as many (the drive allows more).
    let wl = |q: u32| {
        format!(
            r#"{{"rw":"randread","bs":"4k","iodepth":32,"queues":{q},"queue_policy":"round-robin","number_ios":40000,"host_irq_per_io":"5us"}}"#
        )
    };
    let (one, _) = iops(&wl(1));
    let (four, _) = iops(&wl(4));
    assert!(
        one <= 200_000.0 * 1.001 && one > 190_000.0,
        "one queue {one}"
    );
    assert!(four > 1.5 * one, "four queues {four} one {one}");
}
