//! Flexible Data Placement (`[fdp]`) in the event loop: physics computable by hand
//! (lifetimes kept apart by handles give WAF 1; one handle is the conventional drive),
//! the read oracle through GC, fio's placement-ID selection, and bad configurations.
//! The drive: tiny-test (2 channels x 2 dies, 2 planes, 256 KiB blocks a die, 24 MiB
//! user capacity, 25 % spare), whose GC starts within a few MiB of writes.

mod common;

use common::{device, f};
use serde_json::Value;
use ssdlab_core::config::{load_device, load_jobs, DeviceConfig, DeviceSpec};
use ssdlab_core::{run_jobs, DriveState, RunOptions};

fn run(dev: &DeviceConfig, workload: &str, state: DriveState, verify: bool) -> Value {
    let jobs = load_jobs(workload, &[], dev.capacity_bytes()).unwrap();
    let opts = RunOptions {
        state,
        seed: 1,
        verify,
    };
    let r = run_jobs(dev.clone(), jobs, opts, &mut |_| true)
        .unwrap()
        .json;
    assert!(r["stalled"].is_null(), "stalled: {}", r["stalled"]);
    r
}

/// A hot 2 MiB range rewritten sequentially beside a cold 14 MiB range, each by its
/// own job, at the same rate: on a conventional drive their data shares blocks, so GC
/// copies cold data out of blocks the hot job emptied; with a handle each, every
/// block holds one range's data, written and overwritten in order.
fn hot_cold(fdp: bool) -> String {
    let job = |offset: u32, size: u32, pli: u32| {
        let place = if fdp {
            format!(r#","fdp":{{"plids":[{pli}]}}"#)
        } else {
            String::new()
        };
        format!(
            r#"{{"rw":"write","bs":"64k","iodepth":4,"offset":"{offset}MiB","size":"{size}MiB","io_size":"48MiB"{place}}}"#
        )
    };
    format!(r#"{{"jobs":[{},{}]}}"#, job(0, 2, 0), job(8, 14, 1))
}

#[test]
fn separated_lifetimes_give_waf_one_and_mixed_ones_do_not() {
    let fdp = device("tiny-test", &["fdp.handles=2"]);
    let r = run(&fdp, &hot_cold(true), DriveState::Fresh, false);
    let waf_fdp = f(&r["device"]["ftl"]["waf"]);
    let d = &r["device"]["fdp"];
    assert!(
        f(&r["device"]["ftl"]["gc_victims"]) > 50.0,
        "GC ran: {}",
        r["device"]["ftl"]
    );
    // Every victim was empty: GC moved nothing, so media bytes = host bytes.
    assert_eq!(d["per_handle"][0]["gc_bytes_moved"], 0, "{d}");
    assert_eq!(d["per_handle"][1]["gc_bytes_moved"], 0, "{d}");
    assert!(waf_fdp < 1.01, "FDP WAF {waf_fdp}");
    assert_eq!(d["host_bytes_written"], 2 * (48 << 20) as u64);
    assert_eq!(d["per_handle"][0]["host_bytes_written"], 48 << 20);
    assert_eq!(d["per_handle"][1]["host_bytes_written"], 48 << 20);
    // The same host writes without placement IDs mix the ranges in shared blocks.
    let conv = device("tiny-test", &[]);
    let r = run(&conv, &hot_cold(false), DriveState::Fresh, false);
    let waf_conv = f(&r["device"]["ftl"]["waf"]);
    assert!(
        waf_conv > waf_fdp + 0.1,
        "conventional WAF {waf_conv} vs FDP {waf_fdp}"
    );
    assert!(r["device"].get("fdp").is_none());
}

#[test]
fn one_handle_is_the_conventional_drive() {
    let wl = r#"{"rw":"randwrite","bs":"4k","iodepth":8,"number_ios":30000}"#;
    let conv = run(&device("tiny-test", &[]), wl, DriveState::Full, false);
    let one = run(
        &device("tiny-test", &["fdp.handles=1"]),
        wl,
        DriveState::Full,
        false,
    );
    let wl_pid = r#"{"rw":"randwrite","bs":"4k","iodepth":8,"number_ios":30000,"fdp":{}}"#;
    let pid = run(
        &device(
            "tiny-test",
            &["fdp.handles=1", "fdp.isolation=\"persistent\""],
        ),
        wl_pid,
        DriveState::Full,
        false,
    );
    assert!(f(&conv["device"]["ftl"]["gc_victims"]) > 100.0);
    for r in [&one, &pid] {
        let mut dev = r["device"].clone();
        dev.as_object_mut().unwrap().remove("fdp");
        assert_eq!(dev, conv["device"], "device block differs");
        assert_eq!(r["write"], conv["write"], "write figures differ");
        assert_eq!(r["sim_time_ns"], conv["sim_time_ns"]);
    }
    assert_eq!(
        pid["device"]["fdp"]["per_handle"][0]["host_bytes_written"],
        30000 * 4096
    );
}

#[test]
fn the_oracle_holds_through_gc_with_many_handles() {
    for iso in ["initial", "persistent"] {
        let dev = device(
            "tiny-test",
            &["fdp.handles=4", &format!("fdp.isolation=\"{iso}\"")],
        );
        let wl = r#"{"rw":"randrw","rwmixread":30,"bs":"4k","iodepth":16,"number_ios":60000,"fdp":{"select":"random"}}"#;
        let r = run(&dev, wl, DriveState::Steady, true);
        let o = &r["device"]["oracle"];
        assert!(f(&o["checked"]) > 10000.0, "{o}");
        assert_eq!(o["mismatches"], 0, "{iso}: {o}");
        let d = &r["device"]["fdp"];
        assert!(f(&d["events"]["media_reallocated"]) > 10.0, "{iso}: {d}");
        for h in 0..4 {
            assert!(f(&d["per_handle"][h]["host_bytes_written"]) > 0.0, "{d}");
        }
        if iso == "initial" {
            assert!(f(&d["shared_gc_bytes_moved"]) > 0.0, "{d}");
        } else {
            assert_eq!(d["shared_gc_bytes_moved"], 0, "{d}");
        }
    }
}

#[test]
fn reclaim_groups_and_invalid_placement_ids() {
    // Two groups of two dies: RGIF = 1, so group 1's handle 1 is 0x8001.
    let dev = device("tiny-test", &["fdp.handles=2", "fdp.reclaim_groups=2"]);
    let wl = r#"{"rw":"write","bs":"32k","iodepth":4,"io_size":"4MiB","fdp":{"select":"scheme","scheme":[[0,2097152,32769],[2097152,3145728,7]]}}"#;
    let r = run(&dev, wl, DriveState::Fresh, true);
    let d = &r["device"]["fdp"];
    assert_eq!(d["dies_per_reclaim_group"], 2);
    assert_eq!(d["reclaim_unit_bytes"], 2 * 256 * 1024);
    assert_eq!(d["per_handle"][1]["host_bytes_written"], 2 << 20, "{d}");
    // Placement ID 7 names handle 7 of group 0, which does not exist: handle 0; the
    // last MiB is outside the scheme: placement ID 0, handle 0 too.
    assert_eq!(d["per_handle"][0]["host_bytes_written"], 2 << 20, "{d}");
    assert_eq!(
        d["events"]["invalid_placement_identifier"],
        (1 << 20) / 32768,
        "{d}"
    );
    assert_eq!(r["device"]["oracle"]["mismatches"], 0);
}

#[test]
fn same_seed_same_report() {
    let dev = device(
        "tiny-test",
        &["fdp.handles=4", "fdp.isolation=\"persistent\""],
    );
    let wl =
        r#"{"rw":"randwrite","bs":"4k","iodepth":8,"number_ios":20000,"fdp":{"select":"random"}}"#;
    let mut a = run(&dev, wl, DriveState::Steady, false);
    let mut b = run(&dev, wl, DriveState::Steady, false);
    common::strip_wall_clock(&mut a);
    common::strip_wall_clock(&mut b);
    assert_eq!(a, b);
}

#[test]
fn bad_sections_name_the_field() {
    let bad = |o: &[&str]| {
        let o: Vec<String> = o.iter().map(|s| s.to_string()).collect();
        load_device(&DeviceSpec::Preset("tiny-test".into()), &o)
            .map(|d| d.validate())
            .map_err(|e| e.to_string())
            .and_then(|v| v)
            .expect_err("must be refused")
    };
    assert!(bad(&["fdp.handles=0"]).contains("fdp.handles: 0"));
    assert!(bad(&["fdp.handles=129"]).contains("allowed: 1 to 128"));
    let e = bad(&["fdp.reclaim_groups=3"]);
    assert!(
        e.contains("fdp.reclaim_groups: 3") && e.contains("divisor"),
        "{e}"
    );
    let e = bad(&["fdp.isolation=\"strong\""]);
    assert!(e.contains("isolation") && e.contains("persistent"), "{e}");
    let e = bad(&["fdp.handle=4"]);
    assert!(e.contains("handle"), "{e}");
    // tiny-test has 8 spare blocks a die: 8 persistent handles would keep 16 open.
    let e = bad(&["fdp.handles=8", "fdp.isolation=\"persistent\""]);
    assert!(e.contains("16 blocks open") && e.contains("8 spare"), "{e}");
    let e = bad(&["fdp.handles=4", "slc.size=\"1MiB\""]);
    assert!(e.contains("SLC"), "{e}");
    // A job with placement IDs on a drive without FDP, and an index out of range.
    let run_err = |dev: &DeviceConfig, wl: &str| {
        let jobs = load_jobs(wl, &[], dev.capacity_bytes()).unwrap();
        let opts = RunOptions {
            state: DriveState::Fresh,
            seed: 1,
            verify: false,
        };
        match run_jobs(dev.clone(), jobs, opts, &mut |_| true) {
            Ok(_) => panic!("must be refused"),
            Err(e) => e.to_string(),
        }
    };
    let e = run_err(
        &device("tiny-test", &[]),
        r#"{"rw":"write","number_ios":10,"fdp":{}}"#,
    );
    assert!(e.contains("no flexible data placement"), "{e}");
    let e = run_err(
        &device("tiny-test", &["fdp.handles=4"]),
        r#"{"rw":"write","number_ios":10,"fdp":{"plids":[4]}}"#,
    );
    assert!(
        e.contains("fdp.plids: index 4") && e.contains("0 to 3"),
        "{e}"
    );
}

/// The hot/cold writes of `hot_cold` as one csv trace, interleaved, each write with
/// placement ID `hot` or `cold` in the fifth column (None: no column).
fn hot_cold_trace(pids: Option<(u32, u32)>) -> std::path::PathBuf {
    let tag = pids.map_or("none".to_string(), |(a, b)| format!("{a}-{b}"));
    let p = std::env::temp_dir().join(format!("ssdlab-fdp-{}-{tag}.csv", std::process::id()));
    let mut t = String::new();
    let col = |pid: u32| pids.map_or(String::new(), |_| format!(",{pid}"));
    for k in 0..768u64 {
        let hot = (k % 32) * 65536;
        let cold = (8 << 20) + (k % 224) * 65536;
        let (ph, pc) = pids.unwrap_or((0, 0));
        t += &format!("{},W,{hot},65536{}\n", 2 * k, col(ph));
        t += &format!("{},W,{cold},65536{}\n", 2 * k + 1, col(pc));
    }
    std::fs::write(&p, t).unwrap();
    p
}

/// Placement IDs in a trace (csv's fifth column): the replayed writes go to the
/// handles they name, as a workload's `fdp` table sends them, and the read oracle holds.
#[test]
fn a_trace_carries_placement_ids() {
    let fdp = device("tiny-test", &["fdp.handles=2"]);
    let wl = |p: &std::path::Path| {
        format!(
            r#"{{"iodepth":4,"trace":{{"path":"{}","format":"csv","mode":"closed"}}}}"#,
            p.display()
        )
    };
    let with = hot_cold_trace(Some((0, 1)));
    let r = run(&fdp, &wl(&with), DriveState::Fresh, true);
    let d = &r["device"]["fdp"];
    assert!(
        f(&r["device"]["ftl"]["gc_victims"]) > 50.0,
        "{}",
        r["device"]["ftl"]
    );
    assert_eq!(d["per_handle"][0]["host_bytes_written"], 48 << 20, "{d}");
    assert_eq!(d["per_handle"][1]["host_bytes_written"], 48 << 20, "{d}");
    let waf_fdp = f(&r["device"]["ftl"]["waf"]);
    assert!(waf_fdp < 1.01, "FDP WAF {waf_fdp}");
    // The same trace without the column: one handle, the ranges mixed in blocks.
    let without = hot_cold_trace(None);
    let r = run(&fdp, &wl(&without), DriveState::Fresh, true);
    assert_eq!(r["device"]["fdp"]["per_handle"][1]["host_bytes_written"], 0);
    let waf_mixed = f(&r["device"]["ftl"]["waf"]);
    assert!(
        waf_mixed > waf_fdp + 0.1,
        "mixed {waf_mixed} vs FDP {waf_fdp}"
    );
    // The statistics count the writes per placement ID.
    let st = ssdlab_core::trace::scan(with.to_str().unwrap(), None, 0, None).unwrap();
    assert_eq!(st.placement_ids.get(&0), Some(&768));
    assert_eq!(st.placement_ids.get(&1), Some(&768));
    // A drive without FDP: the replay stops at the first placement ID, naming it.
    let conv = device("tiny-test", &[]);
    let jobs = load_jobs(&wl(&with), &[], conv.capacity_bytes()).unwrap();
    let opts = RunOptions {
        state: DriveState::Fresh,
        seed: 1,
        verify: false,
    };
    let r = run_jobs(conv, jobs, opts, &mut |_| true).unwrap().json;
    let e = r["jobs"][0]["trace"]["error"].as_str().unwrap_or_default();
    assert!(e.contains("placement ID (0)") && e.contains("[fdp]"), "{e}");
    assert_eq!(r["write"]["total_ios"], 0);
    for p in [with, without] {
        std::fs::remove_file(p).ok();
    }
}

/// A Reclaim Unit Handle Update (`fdp_ops`: I/O Management Send) moves the handle to an
/// empty reclaim unit: the partly written one is padded to a program boundary and left
/// (a Reclaim Unit Not Fully Written event), the handle's later writes open new blocks,
/// and the read oracle holds.
#[test]
fn a_reclaim_unit_handle_update_starts_a_new_reclaim_unit() {
    let dev = device("tiny-test", &["fdp.handles=2"]);
    let wl = |ops: &str| {
        format!(
            r#"{{"rw":"write","bs":"4k","iodepth":1,"size":"2MiB","fdp":{{"plids":[1]}}{ops}}}"#
        )
    };
    let plain = run(&dev, &wl(""), DriveState::Fresh, true);
    let upd = run(
        &dev,
        &wl(r#","fdp_ops":[{"at":"1ms","action":"ruh_update","pids":[1]}]"#),
        DriveState::Fresh,
        true,
    );
    let (p, u) = (&plain["device"]["fdp"], &upd["device"]["fdp"]);
    assert_eq!(
        (p["ruh_updates"].clone(), u["ruh_updates"].clone()),
        (0.into(), 1.into())
    );
    assert_eq!(u["events"]["ru_not_written_fully"], 1, "{u}");
    assert_eq!(p["events"]["ru_not_written_fully"], 0, "{p}");
    let dies = 4.0;
    assert_eq!(
        f(&u["per_handle"][1]["blocks_opened"]),
        f(&p["per_handle"][1]["blocks_opened"]) + dies,
        "{u}"
    );
    // The same host writes, and no fewer bytes on the media (the pads, if the update
    // found a program unit partly filled; tested unit by unit in ftl/fdp_tests.rs).
    assert_eq!(u["host_bytes_written"], p["host_bytes_written"]);
    assert!(f(&u["media_bytes_written"]) >= f(&p["media_bytes_written"]));
    assert_eq!(upd["write"]["total_ios"], plain["write"]["total_ios"]);
}

/// Blocks a handle update closed short are collected like full ones once their written
/// pages are programmed: an aged mix of random writes and frequent updates runs to its
/// end with GC, pages programmed in order, and the read oracle holding.
#[test]
fn reclaim_units_left_short_are_collected() {
    let dev = device(
        "tiny-test",
        &["fdp.handles=4", "fdp.isolation=\"persistent\""],
    );
    let ops: Vec<String> = (1..40)
        .map(|k| {
            format!(
                r#"{{"at":"{}us","action":"ruh_update","pids":[{}]}}"#,
                k * 500,
                k % 4
            )
        })
        .collect();
    let wl = format!(
        r#"{{"rw":"randwrite","bs":"4k","iodepth":8,"number_ios":60000,
            "fdp":{{"select":"random"}},"fdp_ops":[{}]}}"#,
        ops.join(",")
    );
    let r = run(&dev, &wl, DriveState::Full, true);
    let d = &r["device"]["fdp"];
    assert_eq!(d["ruh_updates"], 39, "{d}");
    // Updates of a handle with nothing written since its last one leave no unit short.
    let short = f(&d["events"]["ru_not_written_fully"]);
    assert!((10.0..=39.0).contains(&short), "{d}");
    assert!(
        f(&r["device"]["ftl"]["gc_victims"]) > 100.0,
        "{}",
        r["device"]["ftl"]
    );
    assert_eq!(r["write"]["total_ios"], 60000);
}

#[test]
fn fdp_ops_are_checked() {
    let conv = device("tiny-test", &[]);
    let fdp = device("tiny-test", &["fdp.handles=2"]);
    for (dev, ops, want) in [
        (
            &conv,
            r#"[{"at":0,"action":"ruh_update","pids":[0]}]"#,
            "has no flexible data placement",
        ),
        (
            &fdp,
            r#"[{"at":0,"action":"ruh_update","pids":[2]}]"#,
            "2 names no reclaim unit handle",
        ),
        (
            &fdp,
            r#"[{"at":0,"action":"ruh_update","pids":[]}]"#,
            "pids: empty",
        ),
        (
            &fdp,
            r#"[{"at":0,"action":"reset","pids":[0]}]"#,
            "ruh_update",
        ),
    ] {
        let wl = format!(r#"{{"rw":"write","number_ios":10,"fdp_ops":{ops}}}"#);
        let e = match load_jobs(&wl, &[], dev.capacity_bytes()) {
            Err(e) => e.to_string(),
            Ok(jobs) => ssdlab_core::config::check_run(dev, &jobs)
                .unwrap_err()
                .to_string(),
        };
        assert!(e.contains(want) && e.contains("fdp_ops"), "{e}");
    }
}

/// The Reclaim Unit Handle Status at the end of a run: each handle's available media
/// writes are what its reclaim unit has left (1 MiB units of 4 dies; handle 1 wrote
/// 1.5 MiB: 512 KiB left; handle 0 wrote nothing: a whole unit), by placement ID.
#[test]
fn reclaim_unit_handle_status_shows_what_each_unit_has_left() {
    let dev = device("tiny-test", &["fdp.handles=2"]);
    let r = run(
        &dev,
        r#"{"rw":"write","bs":"4k","iodepth":4,"size":"1536KiB","fdp":{"plids":[1]}}"#,
        DriveState::Fresh,
        false,
    );
    let s = &r["device"]["fdp"]["ruh_status"];
    assert_eq!(s.as_array().map(Vec::len), Some(2), "{s}");
    assert_eq!(
        (s[1]["pid"].clone(), s[1]["handle"].clone()),
        (1.into(), 1.into())
    );
    assert_eq!(s[1]["ru_available_bytes"], 512 << 10, "{s}");
    assert_eq!(s[0]["ru_available_bytes"], 1 << 20, "{s}");
    // Two groups: placement IDs carry the group in their top bit.
    let dev = device("tiny-test", &["fdp.handles=2", "fdp.reclaim_groups=2"]);
    let r = run(
        &dev,
        r#"{"rw":"write","number_ios":1}"#,
        DriveState::Fresh,
        false,
    );
    let pids: Vec<_> = r["device"]["fdp"]["ruh_status"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["pid"].as_u64().unwrap())
        .collect();
    assert_eq!(pids, vec![0, 1, 0x8000, 0x8001]);
}

/// A trace's `RU` line (csv): a Reclaim Unit Handle Update of the placement ID in its
/// fifth column, replayed in order with the writes (as `fdp_ops` sends one).
#[test]
fn a_trace_updates_a_reclaim_unit_handle() {
    let dev = device("tiny-test", &["fdp.handles=2"]);
    let trace = |ru: bool| {
        let p = std::env::temp_dir().join(format!("ssdlab-ru-{}-{ru}.csv", std::process::id()));
        let mut t = String::new();
        for k in 0..512u64 {
            if ru && k == 100 {
                t += &format!("{},RU,0,0,1\n", 2 * k);
            }
            t += &format!("{},W,{},4096,1\n", 2 * k + 1, k * 4096);
        }
        std::fs::write(&p, t).unwrap();
        p
    };
    let wl = |p: &std::path::Path| {
        format!(
            r#"{{"iodepth":1,"trace":{{"path":"{}","format":"csv","mode":"closed"}}}}"#,
            p.display()
        )
    };
    let (with, without) = (trace(true), trace(false));
    let u = run(&dev, &wl(&with), DriveState::Fresh, true);
    let p = run(&dev, &wl(&without), DriveState::Fresh, true);
    let (du, dp) = (&u["device"]["fdp"], &p["device"]["fdp"]);
    assert_eq!(
        (du["ruh_updates"].clone(), dp["ruh_updates"].clone()),
        (1.into(), 0.into())
    );
    assert_eq!(du["events"]["ru_not_written_fully"], 1, "{du}");
    assert_eq!(
        f(&du["per_handle"][1]["blocks_opened"]),
        f(&dp["per_handle"][1]["blocks_opened"]) + 4.0,
        "{du}"
    );
    assert_eq!(u["write"]["total_ios"], 512, "the update is not I/O");
    let st = ssdlab_core::trace::scan(with.to_str().unwrap(), None, 0, None).unwrap();
    assert_eq!((st.ruh_updates, st.writes, st.requests), (1, 512, 513));
    assert_eq!(st.placement_ids.get(&1), Some(&512));
    for p in [with, without] {
        std::fs::remove_file(p).ok();
    }
}

/// The RU time limit (`fdp.ru_time_limit`): a handle writing slowly is moved to an empty
/// reclaim unit each time its unit has been referenced that long since its first write
/// (Reclaim Unit Time Limit Exceeded), so its units are left partly written; a handle
/// that fills its units within the limit is never moved. The oracle holds.
#[test]
fn the_ru_time_limit_moves_a_slow_handle_to_new_units() {
    // 256 writes of 4 KiB, one every 100 us: 25.6 ms, 1 MiB (one unit) in all.
    let slow = r#"{"rw":"write","bs":"4k","iodepth":1,"number_ios":256,"rate_iops":10000,
                  "fdp":{"plids":[1]}}"#;
    let none = run(
        &device("tiny-test", &["fdp.handles=2"]),
        slow,
        DriveState::Fresh,
        true,
    );
    let dev = device("tiny-test", &["fdp.handles=2", "fdp.ru_time_limit=\"5ms\""]);
    let lim = run(&dev, slow, DriveState::Fresh, true);
    let (dn, dl) = (&none["device"]["fdp"], &lim["device"]["fdp"]);
    assert_eq!(dn["events"]["ru_time_limit_exceeded"], 0, "{dn}");
    assert_eq!(dl["ru_time_limit_ns"], 5_000_000);
    // First write at 0; the unit is moved at 5, 10, 15 and 20 ms (the next write
    // starts each new unit's clock at once), and the last one ends with the run.
    let moved = f(&dl["events"]["ru_time_limit_exceeded"]);
    assert!((4.0..=5.0).contains(&moved), "{dl}");
    assert!(
        f(&dl["per_handle"][1]["blocks_opened"])
            >= f(&dn["per_handle"][1]["blocks_opened"]) + 4.0 * 4.0,
        "{dl} vs {dn}"
    );
    assert_eq!(dl["ruh_updates"], 0, "the host sent none");
    // A writer that fills its units within the limit is never moved, however long it
    // runs (16 MiB at QD8: a 1 MiB unit takes tiny-test's 4 dies under 10 ms).
    let fast = r#"{"rw":"write","bs":"4k","iodepth":8,"size":"16MiB","fdp":{"plids":[1]}}"#;
    let dev = device(
        "tiny-test",
        &["fdp.handles=2", "fdp.ru_time_limit=\"50ms\""],
    );
    let r = run(&dev, fast, DriveState::Fresh, true);
    assert_eq!(r["device"]["fdp"]["events"]["ru_time_limit_exceeded"], 0);
    assert!(f(&r["sim_time_ns"]) > 50e6, "{}", r["sim_time_ns"]);
}
