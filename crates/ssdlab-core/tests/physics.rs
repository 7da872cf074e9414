//! Whole-device physics that can be computed by hand from the config.

mod common;

use common::{device, f};
use serde_json::Value;
use ssdlab_core::config::{load_workload, DeviceConfig};
use ssdlab_core::nand::Timing;
use ssdlab_core::{run, DriveState, RunOptions, Ssd};

fn simulate(dev: &DeviceConfig, workload: &str, state: DriveState, seed: u64) -> Value {
    common::simulate(dev, workload, state, seed, false)
}

#[test]
fn qd1_read_latency_is_the_sum_of_its_parts() {
    let dev = device("tiny-test", &[]);
    let r = simulate(
        &dev,
        r#"{"rw":"randread","bs":"4k","iodepth":1,"number_ios":2000}"#,
        DriveState::Full,
        1,
    );
    let expect = common::qd1_read_4k_ns(&dev);
    let mean = f(&r["read"]["lat_ns"]["mean"]);
    assert!(
        (mean - expect).abs() / expect < 0.01,
        "QD1 latency {mean} ns vs hand sum {expect} ns"
    );
    // Every read is alike on an idle drive: min and max within 1% too.
    assert!((f(&r["read"]["lat_ns"]["max"]) - expect).abs() / expect < 0.01);
    assert!((f(&r["read"]["lat_ns"]["min"]) - expect).abs() / expect < 0.01);
}

#[test]
fn qd1_write_latency_is_the_sum_of_its_parts() {
    let dev = device("tiny-test", &[]);
    let r = simulate(
        &dev,
        r#"{"rw":"randwrite","bs":"4k","iodepth":1,"number_ios":20}"#,
        DriveState::Full,
        1,
    );
    let expect = common::qd1_buffered_write_4k_ns(&dev);
    let mean = f(&r["write"]["lat_ns"]["mean"]);
    assert!(
        (mean - expect).abs() / expect < 0.01,
        "buffered write latency {mean} vs {expect}"
    );
}

/// 128 KiB sequential reads at QD32 run at the slowest of: the PCIe link after TLP
/// overhead, the channels, and the dies (multi-plane page per tR plus data-out).
#[test]
fn sequential_read_bandwidth_is_the_slowest_stage() {
    let cases: [(&str, &[&str]); 3] = [
        ("pcie", &["host.lane_bandwidth=\"100MB/s\""]),
        ("channel", &["nand.channel_rate=\"100MT/s\""]),
        ("die", &["nand.t_read=\"400us\""]),
    ];
    for (bound, over) in cases {
        let dev = device("tiny-test", over);
        let r = simulate(
            &dev,
            r#"{"rw":"read","bs":"128k","iodepth":32,"number_ios":3000}"#,
            DriveState::Full,
            1,
        );
        let mps = dev.host.max_payload.bytes() as f64;
        let pcie = dev.link_bytes_per_s() * mps / (mps + dev.host.tlp_overhead.bytes() as f64);
        let chan = dev.channel_bytes_per_s() * dev.nand.channels as f64;
        let stripe = (dev.nand.planes_per_die as u64 * dev.nand.page_size.bytes()) as f64;
        let t = Timing::new(&dev);
        let die_op_s = (dev.nand.t_read.get(0) + t.bus_ns(stripe as u64)) as f64 / 1e9;
        let dies = dev.dies() as f64 * stripe / die_op_s;
        let expect = pcie.min(chan).min(dies);
        let bw = f(&r["read"]["bw_bytes"]);
        assert!(
            (bw - expect).abs() / expect < 0.05,
            "{bound}-bound: {bw:.0} B/s vs min(pcie {pcie:.0}, channels {chan:.0}, dies {dies:.0})"
        );
        let named = match bound {
            "pcie" => pcie,
            "channel" => chan,
            _ => dies,
        };
        assert_eq!(expect, named, "the case must be bound where it says");
        assert!(bw <= expect * 1.001, "never faster than the slowest link");
    }
}

#[test]
fn littles_law_holds() {
    let dev = device("tiny-test", &[]);
    let r = simulate(
        &dev,
        r#"{"rw":"randrw","rwmixread":70,"bs":"4k","iodepth":16,"numjobs":2,"number_ios":20000}"#,
        DriveState::Steady,
        3,
    );
    let mut l = 0.0;
    for d in ["read", "write"] {
        l += f(&r[d]["iops"]) * f(&r[d]["lat_ns"]["mean"]) / 1e9;
    }
    assert!(
        (l - 32.0).abs() / 32.0 < 0.02,
        "IOPS x latency = {l}, outstanding = 32"
    );
}

#[test]
fn same_seed_same_report_other_seed_differs() {
    let dev = device("tiny-test", &[]);
    let wl = r#"{"rw":"randrw","bs":"4k","iodepth":8,"number_ios":5000}"#;
    let strip = |mut v: Value| {
        for k in ["wall_time_s", "prep_wall_time_s", "sim_wall_time_s"] {
            v.as_object_mut().unwrap().remove(k);
        }
        serde_json::to_string(&v).unwrap()
    };
    let a = strip(simulate(&dev, wl, DriveState::Steady, 7));
    let b = strip(simulate(&dev, wl, DriveState::Steady, 7));
    let c = strip(simulate(&dev, wl, DriveState::Steady, 8));
    assert_eq!(a, b);
    assert_ne!(a, c);
}

#[test]
fn more_queues_use_more_firmware_cores() {
    // Firmware-bound: 20 us per command. One queue is served by one core.
    let dev = device(
        "tiny-test",
        &["controller.cores=4", "controller.cmd_time=\"20us\""],
    );
    let iops = |q: u32| {
        let wl = format!(
            r#"{{"rw":"randread","bs":"4k","iodepth":32,"number_ios":4000,"queues":{q},"queue_policy":"round-robin"}}"#
        );
        f(&simulate(&dev, &wl, DriveState::Full, 1)["read"]["iops"])
    };
    let (one, four) = (iops(1), iops(4));
    assert!(
        one < 1e9 / 20_000.0 * 1.001,
        "one core caps IOPS at 50K: {one}"
    );
    assert!(four > 1.8 * one, "4 queues on 4 cores: {four} vs {one}");
}

#[test]
fn timed_reads_return_last_writes_through_gc() {
    let dev = device("tiny-test", &[]);
    for (state, seed) in [
        (DriveState::Steady, 1),
        (DriveState::Full, 2),
        (DriveState::Fresh, 3),
    ] {
        let wl = load_workload(
            r#"{"rw":"randrw","rwmixread":50,"bs":"8k","iodepth":16,"numjobs":2,"number_ios":15000}"#,
            &[],
            dev.capacity_bytes(),
        )
        .unwrap();
        let r = run(
            dev.clone(),
            wl,
            RunOptions {
                state,
                seed,
                verify: true,
            },
            &mut |_| true,
        )
        .unwrap()
        .json;
        let o = &r["device"]["oracle"];
        assert!(o["checked"].as_u64().unwrap() > 10_000);
        assert_eq!(o["mismatches"], 0, "{state:?}: {o}");
        if state == DriveState::Steady {
            assert!(r["device"]["ftl"]["gc_units_copied"].as_u64().unwrap() > 0);
        }
    }
}

#[test]
fn drives_sharing_a_prepared_drive_read_their_last_writes_through_gc() {
    // Two aged drives whose FTLs share one prepared drive's map chunks (as a system's
    // identical drives or a sweep's points do), written at random through GC: each
    // keeps its map stores in the chunks' overlays (4 GiB raw: two chunks of each map,
    // the stores stay below 1/16 of a chunk, so none is copied), and every read
    // returns the last write of its LBA (the read oracle).
    let dev = device("tiny-test", &["nand.blocks_per_plane=4096"]);
    let wl =
        r#"{"rw":"randrw","rwmixread":50,"bs":"4k","iodepth":8,"numjobs":2,"number_ios":5000}"#;
    let drive = |seed| {
        let wl = load_workload(wl, &[], dev.capacity_bytes()).unwrap();
        let opts = RunOptions {
            state: DriveState::Steady,
            seed,
            verify: true,
        };
        Ssd::new(dev.clone(), wl, opts).unwrap()
    };
    let mut a = drive(5);
    let mut b = drive(5);
    b.ftl = a.ftl.clone(); // b shares a's prepared chunks
    for ssd in [&mut a, &mut b] {
        ssd.run(&mut |_| true);
        let ftl = &ssd.ftl;
        let (checked, mismatches) = ftl.oracle().unwrap();
        // Every read was checked: about half of the 10,000 I/Os (rwmixread 50).
        let reads = ssd.report(0.0).json["read"]["total_ios"].as_u64().unwrap();
        assert_eq!(checked, reads);
        assert!(checked > 4700, "{checked}");
        assert_eq!(mismatches, 0);
        assert!(ftl.stats.gc_units_copied > 1000, "{:?}", ftl.stats);
        for map in [&ftl.l2p, &ftl.p2l] {
            assert!(map.overlay_entries() > 5000, "{map:?}");
            assert!(map.overlaid_chunks() >= 2, "{map:?}");
        }
    }
}

/// One die programming back to back: without cache program each 32 KiB program
/// takes its data-in (100 ns + 32 KiB at 800 MB/s = 41,060 ns) and then tPROG on the
/// die; with it the next program's data-in overlaps the current tPROG, so the die
/// programs every max(tPROG, data-in). tPROG 50 us makes the difference large.
#[test]
fn cache_program_overlaps_data_in_with_the_program_before() {
    let one_die = [
        "nand.channels=1",
        "nand.dies_per_channel=1",
        "nand.t_prog=\"50us\"",
    ];
    let wl = r#"{"rw":"write","bs":"128k","iodepth":8,"size":"4MiB"}"#;
    let bw = |extra: &str| {
        let mut o = one_die.to_vec();
        o.push(extra);
        let dev = device("tiny-test", &o);
        let r = common::simulate(&dev, wl, DriveState::Fresh, 1, true);
        assert_eq!(r["device"]["oracle"]["mismatches"], 0);
        (f(&r["write"]["bw_bytes"]), r)
    };
    let (plain, rp) = bw("nand.cache_program=false");
    let (cached, rc) = bw("nand.cache_program=true");
    // Writes complete once buffered: the last of the 128 programs' writes is taken
    // when the buffer (256 KiB: 8 programs) has room, i.e. after 120 programs.
    let (bytes, programs) = (4.0 * 1048576.0, 120.0);
    let (din_s, prog_s) = (41_060e-9, 50e-6);
    let near = |got: f64, want: f64| (got / want - 1.0).abs() < 0.03;
    let want_plain = bytes / (programs * (din_s + prog_s));
    let want_cached = bytes / (programs * prog_s);
    assert!(near(plain, want_plain), "plain {plain} want {want_plain}");
    assert!(
        near(cached, want_cached),
        "cached {cached} want {want_cached}"
    );
    assert!(rp["device"]["nand"].get("cached_program_ops").is_none());
    let cached_ops = f(&rc["device"]["nand"]["cached_program_ops"]);
    let ops = f(&rc["device"]["nand"]["program_ops"]);
    assert!(
        cached_ops > 0.9 * ops,
        "{cached_ops} of {ops} programs cached"
    );
    // Refused where the model does not combine it.
    let err = ssdlab_core::config::load_device(
        &ssdlab_core::DeviceSpec::Preset("tiny-test".into()),
        &[
            "nand.cache_program=true".into(),
            "scheduler.program_suspend=true".into(),
        ],
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("nand.cache_program"), "{err}");
}
