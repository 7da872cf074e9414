//! Hardening (issue 14): every user value that flows into arithmetic is range-checked,
//! so overflow becomes a clear error naming the field, never a panic or a wrapped
//! figure; and a run's memory is estimated and refused above a limit before anything
//! is allocated (docs/reliability.md).

use ssdlab_core::config::{load_device, load_jobs, load_workload, DeviceSpec};

fn preset_err(name: &str, overrides: &[&str]) -> String {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    load_device(&DeviceSpec::Preset(name.into()), &o)
        .expect_err("must be refused")
        .to_string()
}

#[test]
fn offset_plus_size_beyond_64_bits_is_refused() {
    let e = load_workload(
        "{}",
        &["offset=4096".into(), "size=18446744073709547520".into()],
        1 << 30,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("size") && e.contains("too large"), "{e}");
    let e = load_workload(
        "{}",
        &["offset=4096".into(), "size=4611686018427387904".into()],
        1 << 30,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("beyond the device capacity"), "{e}");
}

#[test]
fn geometry_products_that_overflow_are_refused() {
    let e = preset_err(
        "tiny-test",
        &["nand.channels=65536", "nand.dies_per_channel=65536"],
    );
    assert!(e.contains("nand.channels: 65536 is out of range"), "{e}");
    assert!(e.contains("nand.dies_per_channel"), "{e}");
    let e = preset_err("tiny-test", &["nand.page_size=1000000000000GiB"]);
    assert!(
        e.contains("nand.page_size") && e.contains("too large"),
        "{e}"
    );
    let e = preset_err("tiny-test", &["nand.page_size=4GiB"]);
    assert!(
        e.contains("nand.page_size: 4294967296 is out of range"),
        "{e}"
    );
    let e = preset_err("tiny-test", &["nand.blocks_per_plane=4000000"]);
    assert!(e.contains("nand.blocks_per_plane"), "{e}");
}

#[test]
fn device_timings_longer_than_an_hour_are_refused_not_wrapped() {
    let e = preset_err("tiny-test", &["nand.t_read=2000000000h"]);
    assert!(e.contains("nand.t_read") && e.contains("1h"), "{e}");
    let e = preset_err("tiny-test", &["nand.t_erase=2h"]);
    assert!(e.contains("nand.t_erase") && e.contains("1h"), "{e}");
    // an hour itself is allowed
    let o = vec!["nand.t_erase=1h".to_string()];
    load_device(&DeviceSpec::Preset("tiny-test".into()), &o).unwrap();
}

#[test]
fn workload_times_beyond_a_century_are_refused() {
    let e = load_workload("{}", &["runtime=1000000000000h".into()], 1 << 30)
        .unwrap_err()
        .to_string();
    assert!(e.contains("runtime") && e.contains("too long"), "{e}");
}

#[test]
fn rates_of_zero_or_near_it_are_refused_wherever_a_rate_divides() {
    // Issue 31: a zero rate made every transfer take "forever" (427 simulated days).
    for (set, want) in [
        (
            "host.lane_bandwidth=0GB/s",
            "host.lane_bandwidth: 0MB/s is out of range (allowed: 1MB/s to 10TB/s",
        ),
        (
            "host.lane_bandwidth=1KB/s",
            "host.lane_bandwidth: 0.001MB/s is out of range",
        ),
        (
            "dram.bandwidth=0GB/s",
            "dram.bandwidth: 0MB/s is out of range (allowed: 1MB/s to 10TB/s",
        ),
        (
            "dram.bandwidth=20000GB/s",
            "dram.bandwidth: 20000000MB/s is out of range",
        ),
        (
            "nand.channel_rate=0MT/s",
            "nand.channel_rate: 0MT/s is out of range (allowed: 1MT/s to 100000MT/s",
        ),
        (
            "nand.channel_rate=0.01MT/s",
            "nand.channel_rate: 0.01MT/s is out of range",
        ),
    ] {
        let e = preset_err("tiny-test", &[set]);
        assert!(e.contains(want), "{set}: {e}");
    }
    // The bounds themselves are allowed.
    let o: Vec<String> = [
        "host.lane_bandwidth=1MB/s",
        "dram.bandwidth=10000GB/s",
        "nand.channel_rate=1MT/s",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    load_device(&DeviceSpec::Preset("tiny-test".into()), &o).unwrap();
}

#[test]
fn a_queue_of_one_entry_is_the_inputs_fault() {
    let e = preset_err("tiny-test", &["host.queue_entries=1"]);
    assert!(e.contains("host.queue_entries: 1 is out of range"), "{e}");
}

#[test]
fn bssplit_percentages_that_wrap_are_refused() {
    let e = load_workload(
        "{}",
        &["bssplit=[[\"4k\", 4294967295], [\"8k\", 101]]".into()],
        1 << 30,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("bssplit") && e.contains("not a percentage"),
        "{e}"
    );
}

#[test]
fn numbers_given_as_strings_mean_numbers_in_jobs_too() {
    let jobs = load_jobs(
        r#"{"jobs":[{"iodepth":"32","number_ios":"100"}]}"#,
        &[],
        1 << 30,
    )
    .unwrap();
    assert_eq!(jobs[0].iodepth, 32);
    assert_eq!(jobs[0].number_ios, Some(100));
    // a job's name stays text
    let jobs = load_jobs(r#"{"jobs":[{"name":"7","number_ios":1}]}"#, &[], 1 << 30).unwrap();
    assert_eq!(jobs[0].name.as_deref(), Some("7"));
}

#[test]
fn memory_estimate_grows_with_the_geometry_and_is_checked_before_allocating() {
    let small = load_device(&DeviceSpec::Preset("client-tlc-dram".into()), &[]).unwrap();
    let est = small.memory_estimate_bytes(false, false);
    // 512 GB of 4 KiB units in both maps: about 1 GiB
    assert!((800 << 20..1600 << 20).contains(&est), "{est}");
    assert!(small.memory_estimate_bytes(true, false) > est);
    assert!(small.memory_estimate_bytes(false, true) > est);
    let o: Vec<String> = vec![
        "nand.blocks_per_plane=12000".into(),
        "map.cache=64MiB".into(),
        "sram.size=16MiB".into(),
    ];
    let big = load_device(&DeviceSpec::Preset("client-tlc-dram".into()), &o).unwrap();
    let run = |state: &str| {
        ssdlab_core::run_from_specs(
            &DeviceSpec::Preset("client-tlc-dram".into()),
            &o,
            "{}",
            &["number_ios=10".into()],
            state,
            1,
            false,
            false,
            4 << 30,
            &mut |_| true,
        )
        .map(|_| ())
    };
    // An aged drive stores both whole maps (~8 GiB): refused before preparing; a fresh
    // one stores nothing for 10 reads (ftl::estimate).
    let e = run("steady").unwrap_err().to_string();
    run("fresh").unwrap();
    assert!(big.memory_estimate_bytes(false, false) > 4 << 30);
    assert!(
        e.contains("max_memory") && e.contains("4096MiB allowed"),
        "{e}"
    );
}

#[test]
fn timed_traces_beyond_a_century_blame_the_trace_not_the_device() {
    let dir = std::env::temp_dir().join(format!("ssdlab-limits-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let late = dir.join("late.csv");
    std::fs::write(&late, "0,R,0,4096\n18446744073709551615,W,4096,4096\n").unwrap();
    let ok = dir.join("ok.csv");
    std::fs::write(&ok, "0,R,0,4096\n1000,W,4096,4096\n").unwrap();
    let wl = |path: &std::path::Path, speedup: &str| {
        format!(
            r#"{{"trace":{{"path":"{}","mode":"timed","speedup":{speedup}}}}}"#,
            path.display()
        )
    };
    let e = load_jobs(&wl(&late, "1.0"), &[], 1 << 30)
        .unwrap_err()
        .to_string();
    assert!(e.contains("100 years") && e.contains("speedup"), "{e}");
    // trace.speedup is 0.001 .. 1e6 (issue 31): 1e-300 stretched a trace of one
    // timestamp (no span for the century check) without a word.
    let one = dir.join("one.csv");
    std::fs::write(&one, "0,R,0,4096\n").unwrap();
    for (path, speedup) in [
        (&ok, "1e-300"),
        (&one, "1e-300"),
        (&ok, "1e-4"),
        (&ok, "2e6"),
    ] {
        let e = load_jobs(&wl(path, speedup), &[], 1 << 30)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("trace.speedup") && e.contains("0.001 to 1000000"),
            "{e}"
        );
    }
    load_jobs(&wl(&ok, "1e-3"), &[], 1 << 30).unwrap();
    load_jobs(&wl(&ok, "1e6"), &[], 1 << 30).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The constructors validate (issue 14): a config changed in code after loading, or
/// built without `load_device`, is refused with the field named, not simulated.
#[test]
fn constructors_refuse_an_unvalidated_config() {
    use ssdlab_core::{DriveState, RunOptions, Session, Ssd};
    let mut dev = load_device(&DeviceSpec::Preset("tiny-test".into()), &[]).unwrap();
    dev.nand.channels = 0;
    let opts = RunOptions {
        state: DriveState::Fresh,
        seed: 1,
        verify: false,
    };
    let wl = load_workload("{}", &[], 1 << 20).unwrap();
    let e = Ssd::new(dev.clone(), wl.clone(), opts.clone())
        .err()
        .expect("refused")
        .to_string();
    assert!(e.contains("nand.channels"), "{e}");
    let e = Session::new(dev.clone(), DriveState::Fresh, 1)
        .err()
        .expect("refused")
        .to_string();
    assert!(e.contains("nand.channels"), "{e}");
    let e = ssdlab_core::AsyncSession::new(dev, opts.clone())
        .err()
        .expect("refused")
        .to_string();
    assert!(e.contains("nand.channels"), "{e}");
    // a workload changed after loading, and no job at all
    let dev = load_device(&DeviceSpec::Preset("tiny-test".into()), &[]).unwrap();
    let mut bad = wl.clone();
    bad.iodepth = 0;
    let e = ssdlab_core::run(dev.clone(), bad, opts.clone(), &mut |_| true)
        .expect_err("refused")
        .to_string();
    assert!(e.contains("iodepth"), "{e}");
    let e = ssdlab_core::run_jobs(dev, vec![], opts, &mut |_| true)
        .expect_err("refused")
        .to_string();
    assert!(e.contains("jobs"), "{e}");
}

/// Preparing an aged drive stops when the interrupt hook says so, and the stopped
/// drive is not kept for reuse.
#[test]
fn preparation_stops_at_the_interrupt_hook() {
    use ssdlab_core::interrupt::{with_hook, Interrupted};
    let t0 = std::time::Instant::now();
    let r = with_hook(Box::new(move || t0.elapsed().as_millis() < 100), || {
        ssdlab_core::run_from_specs(
            &DeviceSpec::Preset("client-tlc-dram".into()),
            &["nand.blocks_per_plane=200".into()],
            r#"{"number_ios": 10}"#,
            &[],
            "steady",
            1,
            false,
            true,
            0,
            &mut |_| true,
        )
    });
    assert_eq!(r.err(), Some(Interrupted));
    assert!(t0.elapsed().as_secs_f64() < 1.0, "{:?}", t0.elapsed());
}

/// Runs in parallel share the memory limit: a second run that does not fit beside
/// the first waits until the first ends; a run that does not fit alone is refused.
#[test]
fn parallel_runs_share_the_memory_limit() {
    use ssdlab_core::config::limits::{reserve, reserved_bytes};
    use std::time::{Duration, Instant};
    assert!(reserve(200, 100).unwrap_err().contains("max_memory"));
    let first = reserve(60, 100).unwrap();
    let t0 = Instant::now();
    let waiter = std::thread::spawn(move || {
        let r = reserve(60, 100).unwrap();
        (t0.elapsed(), r)
    });
    std::thread::sleep(Duration::from_millis(300));
    assert!(reserved_bytes() >= 60);
    drop(first);
    let (waited, second) = waiter.join().unwrap();
    assert!(waited >= Duration::from_millis(290), "{waited:?}");
    drop(second);
    // no limit: nothing is reserved or waited for
    let _a = reserve(1 << 40, 0).unwrap();
    let _b = reserve(1 << 40, 0).unwrap();
}
