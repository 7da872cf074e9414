//! Zoned commands from workloads on a zoned drive (`[zns]`): Zone Append (the workload's
//! `zone_append`), scheduled Zone Management Send (`zone_ops`: open, close, finish,
//! reset) and fio's finish of a zone whose remainder is below the block size. The
//! drive: tiny-test with 1 MiB zones over its 4 dies (32 zones, 32 KiB program units).

mod common;

use common::{device, f};
use serde_json::Value;
use ssdlab_core::config::{load_jobs, DeviceConfig};
use ssdlab_core::{run_jobs, DriveState, RunOptions};

fn zoned(extra: &[&str]) -> DeviceConfig {
    common::zoned_tiny(extra)
}

fn simulate(dev: &DeviceConfig, workload: &str, state: DriveState) -> Value {
    common::try_run_jobs(dev, workload, state, true).unwrap()
}

fn zns(r: &Value) -> &Value {
    &r["device"]["zns"]
}

/// An append at QD1 costs what a write at the write pointer costs: the command path
/// and the data into the buffer (its core finds the zone's write pointer in the map).
#[test]
fn qd1_zone_append_latency_is_the_sum_of_its_parts() {
    let dev = zoned(&[]);
    let r = simulate(
        &dev,
        r#"{"rw":"write","bs":"4k","iodepth":1,"number_ios":40,"zone_append":true}"#,
        DriveState::Fresh,
    );
    let expect = common::qd1_buffered_write_4k_ns(&dev);
    for k in ["mean", "min", "max"] {
        let v = f(&r["write"]["lat_ns"][k]);
        assert!((v - expect).abs() / expect < 0.01, "{k} {v} vs {expect}");
    }
    let z = zns(&r);
    assert_eq!(z["appends"], 40);
    assert_eq!(z["host_bytes_written"], 40 * 4096);
    assert_eq!(z["zones_by_state"]["implicitly_open"], 1);
    assert_eq!(z["errors_total"], 0);
}

/// Random offsets in one zone, appended at QD8: each append lands at the write pointer,
/// every completion returns a distinct LBA, together the zone's capacity once; the
/// appends past the capacity get 0xB9 Zone Is Full.
#[test]
fn appends_return_the_lbas_they_were_written_at() {
    let dev = zoned(&[]);
    let r = simulate(
        &dev,
        r#"{"rw":"randwrite","bs":"16k","iodepth":8,"size":"1MiB","number_ios":70,
            "zone_append":true,"log_completions":true}"#,
        DriveState::Fresh,
    );
    let z = zns(&r);
    assert_eq!(z["appends"], 64, "{z}");
    assert_eq!(z["errors"]["0xb9"], 6, "{z}");
    assert_eq!(z["zones_by_state"]["full"], 1, "{z}");
    let mut offsets: Vec<u64> = r["jobs"][0]["completions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c[3].as_u64().unwrap())
        .collect();
    offsets.sort_unstable();
    let want: Vec<u64> = (0..64).map(|i| i * 16384).collect();
    assert_eq!(offsets, want);
}

/// Appends to random zones, then random reads of what they wrote: the oracle finds
/// every LBA at the flash page the zone layout gives it.
#[test]
fn the_oracle_holds_under_appends() {
    let dev = zoned(&[]);
    let r = simulate(
        &dev,
        r#"{"jobs":[
            {"rw":"randwrite","bs":"16k","iodepth":16,"size":"4MiB","number_ios":200,
             "zone_append":true,"group":0},
            {"rw":"randread","bs":"16k","iodepth":16,"size":"4MiB","number_ios":2000,
             "group":1}]}"#,
        DriveState::Fresh,
    );
    let z = zns(&r);
    assert_eq!(z["appends"], 200, "{z}");
    assert_eq!(z["errors_total"], 0, "{z}");
    let o = &r["device"]["oracle"];
    assert!(f(&o["checked"]) > 1000.0 && o["mismatches"] == 0, "{o}");
    // The verify pass reads back where the appends went.
    let r = simulate(
        &dev,
        r#"{"rw":"randwrite","bs":"16k","iodepth":8,"size":"2MiB","number_ios":100,
            "zone_append":true,"verify_readback":true}"#,
        DriveState::Fresh,
    );
    assert_eq!(r["read"]["total_ios"], 100);
    let o = &r["device"]["oracle"];
    // (LBAs read from the write buffer, not yet programmed, are not checked.)
    assert!(f(&o["checked"]) >= 300.0 && o["mismatches"] == 0, "{o}");
}

/// Scheduled Zone Management Send through the event loop: explicit open; open then
/// close of a zone without data (back to empty); close of a zone written to (closed);
/// finish of a partly written zone (its partly filled program unit padded and
/// programmed); reset; and a close of an empty zone (invalid transition, 0xBF).
#[test]
fn zone_ops_drive_the_zone_state_machine() {
    let dev = zoned(&[]);
    let r = simulate(
        &dev,
        r#"{"jobs":[
            {"rw":"write","bs":"8k","iodepth":1,"number_ios":1,"group":0},
            {"rw":"write","bs":"8k","iodepth":1,"number_ios":1,"offset":"3MiB","group":0},
            {"rw":"write","bs":"8k","iodepth":1,"number_ios":1,"offset":"6MiB","group":0},
            {"rw":"randread","bs":"4k","iodepth":1,"runtime":"20ms","group":1,
             "zone_ops":[
                {"at":"1ms","action":"open","zone":2},
                {"at":"2ms","action":"open","zone":4},
                {"at":"2500us","action":"close","zone":4},
                {"at":"3ms","action":"close","zone":3},
                {"at":"4ms","action":"finish","zone":0},
                {"at":"5ms","action":"reset","zone":6},
                {"at":"6ms","action":"close","zone":5}]}]}"#,
        DriveState::Fresh,
    );
    let z = zns(&r);
    let s = &z["zones_by_state"];
    assert_eq!(s["explicitly_open"], 1, "{z}");
    assert_eq!(s["closed"], 1, "{z}");
    assert_eq!(s["full"], 1, "{z}");
    assert_eq!(s["empty"], 29, "{z}");
    assert_eq!(
        (z["opens"].clone(), z["closes"].clone()),
        (2.into(), 2.into())
    );
    assert_eq!(z["finishes"], 1, "{z}");
    assert_eq!(z["pad_programs"], 1, "{z}"); // zone 0's 8 KiB padded to 32 KiB
    assert_eq!(z["resets"], 1, "{z}");
    assert_eq!(z["errors"]["0xbf"], 1, "{z}");
    // The management commands are not I/O: only the three writes are in the figures.
    assert_eq!(r["write"]["total_ios"], 3);
}

/// A zone opened with a Zone Random Write Area (`open_zrwa`) takes a job's rewrites of
/// its first 64 KiB in the controller; a scheduled `flush` commits them: two program
/// units reach the flash for 256 KiB the host wrote.
#[test]
fn zone_ops_open_a_zrwa_and_flush_it() {
    let dev = zoned(&["zns.zrwa_bytes=\"64KiB\"", "zns.zrwa_flush_bytes=\"32KiB\""]);
    let r = simulate(
        &dev,
        r#"{"jobs":[
            {"rw":"randread","bs":"4k","iodepth":1,"runtime":"1ms","offset":"5MiB",
             "size":"1MiB","group":0,
             "zone_ops":[{"at":0,"action":"open_zrwa","zone":0},
                         {"at":"6ms","action":"flush","zone":0,"upto":"64KiB"}]},
            {"rw":"write","bs":"4k","iodepth":1,"size":"64KiB","number_ios":64,"group":1},
            {"rw":"randread","bs":"4k","iodepth":1,"runtime":"10ms","offset":"5MiB",
             "size":"1MiB","group":1}]}"#,
        DriveState::Fresh,
    );
    let z = zns(&r);
    assert_eq!(z["errors_total"], 0, "{z}");
    assert_eq!(z["host_bytes_written"], 64 * 4096, "{z}");
    assert_eq!(z["zrwa"]["rewritten_bytes"], 48 * 4096, "{z}");
    assert_eq!(z["zrwa"]["explicit_flushes"], 1, "{z}");
    assert_eq!(z["programs"], 2, "{z}");
    assert_eq!(z["zones_by_state"]["explicitly_open"], 1, "{z}");
    assert_eq!(r["write"]["total_ios"], 64);
    // `upto` belongs to a flush, and a flush needs it.
    // The message names the action as the workload spells it.
    for (ops, action) in [
        (r#"[{"at":0,"action":"flush","zone":0}]"#, "flush"),
        (
            r#"[{"at":0,"action":"open_zrwa","zone":0,"upto":"64KiB"}]"#,
            "open_zrwa",
        ),
        (
            r#"[{"at":0,"action":"flush","zone":0,"upto":"6KiB"}]"#,
            "flush",
        ),
    ] {
        let wl = format!(r#"{{"rw":"read","zone_ops":{ops}}}"#);
        let e = common::try_run_jobs(&dev, &wl, DriveState::Fresh, false).unwrap_err();
        assert!(e.contains("zone_ops[0].upto"), "{e}");
        assert!(e.contains(&format!("with action {action} ")), "{e}");
    }
}

/// Zone management in a block trace (ssdlab's csv: `ZR`, `ZF`, `ZO`, `ZC`): each line is
/// a Zone Management Send of the zone holding its offset, replayed in order with the
/// writes; on a drive that is not zoned the replay stops with an error naming it.
#[test]
fn a_trace_replays_zone_management() {
    let p = std::env::temp_dir().join(format!("ssdlab-zns-trace-{}.csv", std::process::id()));
    let zone = 1u64 << 20;
    let mut t = String::from("# time_ns,op,offset,len\n");
    for k in 0..4u64 {
        t += &format!("{},W,{},65536\n", k * 1000, k * 65536); // zone 0: 256 KiB
    }
    t += &format!("5000,ZF,0,0\n6000,ZO,{zone},0\n7000,ZC,{zone},0\n");
    t += &format!("8000,W,{},32768\n9000,ZR,{},{zone}\n", 2 * zone, 2 * zone);
    t += "10000,ZC,0,0\n"; // a close of a full zone: 0xBF
    std::fs::write(&p, t).unwrap();
    let wl = format!(
        r#"{{"iodepth":1,"trace":{{"path":"{}","format":"csv","mode":"closed"}}}}"#,
        p.display()
    );
    let r = simulate(&zoned(&[]), &wl, DriveState::Fresh);
    let z = zns(&r);
    assert_eq!(
        (z["finishes"].clone(), z["opens"].clone()),
        (1.into(), 1.into()),
        "{z}"
    );
    assert_eq!(
        (z["closes"].clone(), z["resets"].clone()),
        (1.into(), 1.into()),
        "{z}"
    );
    assert_eq!(z["errors"]["0xbf"], 1, "{z}");
    assert_eq!(z["zones_by_state"]["full"], 1, "{z}"); // zone 0; zone 1 closed back to empty
    assert_eq!(r["write"]["total_ios"], 5, "the zone commands are not I/O");
    // A drive that is not zoned: the replay stops at the first zone command.
    let r = common::try_run_jobs(&device("tiny-test", &[]), &wl, DriveState::Fresh, false).unwrap();
    let e = r["jobs"][0]["trace"]["error"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(e.contains("Finish") && e.contains("zoned drive"), "{e}");
    assert_eq!(r["write"]["total_ios"], 4);
    std::fs::remove_file(&p).ok();
}

/// Zoned commands in a blkparse trace (Linux 6.17's RWBS: `ZA` Zone Append, `ZF`, `ZO`,
/// `ZR`, `ZC`, and `ZRA` reset of all zones): replayed as the drive's own commands; the
/// `N` an older kernel prints for zone management, and flushes, are skipped.
#[test]
fn a_blkparse_trace_replays_zoned_commands() {
    let p = std::env::temp_dir().join(format!("ssdlab-zns-blk-{}.txt", std::process::id()));
    let lines = [
        "259,0 0 1 0.000001000 100 Q W 0 + 128 [fio]", // zone 0: 64 KiB
        "259,0 0 2 0.000002000 100 Q W 128 + 128 [fio]",
        "259,0 0 3 0.000003000 100 Q ZA 2048 + 128 [fio]", // zone 1, wherever its wp is
        "259,0 0 4 0.000004000 100 Q ZA 2048 + 128 [fio]",
        "259,0 0 5 0.000005000 100 Q FWS 256 + 128 [fio]", // preflush + write: a write
        "259,0 0 6 0.000006000 100 Q FN 0 + 0 [fio]",      // a flush: no data
        "259,0 0 7 0.000007000 100 Q N 4096 + 0 [fio]",    // an old kernel's zone op
        "259,0 0 8 0.000008000 100 Q ZF 0 + 0 [fio]",      // finish zone 0
        "259,0 0 9 0.000009000 100 Q ZO 4096 [fio]",       // open zone 2 (no '+ count')
        "259,0 0 10 0.000010000 100 Q ZRA 0 + 0 [mkfs]",   // reset every zone
        "259,0 0 11 0.000011000 100 Q W 0 + 128 [fio]",    // zone 0 from its start again
    ];
    std::fs::write(&p, lines.join("\n") + "\n").unwrap();
    let wl = format!(
        r#"{{"iodepth":1,"trace":{{"path":"{}","format":"blkparse","mode":"closed"}}}}"#,
        p.display()
    );
    let st = ssdlab_core::trace::scan(
        p.to_str().unwrap(),
        Some(ssdlab_core::trace::TraceFormat::Blkparse),
        0,
        None,
    )
    .unwrap();
    assert_eq!(
        (st.zone_ops, st.zone_appends, st.writes, st.reads),
        (3, 2, 6, 0)
    );
    let r = simulate(&zoned(&[]), &wl, DriveState::Fresh);
    let z = zns(&r);
    assert_eq!(z["errors_total"], 0, "{z}");
    assert_eq!(z["appends"], 2, "{z}");
    assert_eq!(
        (z["finishes"].clone(), z["opens"].clone()),
        (1.into(), 1.into()),
        "{z}"
    );
    // The reset of all zones emptied zone 0 (finished: its whole 1 MiB capacity), zone 1
    // (two appends) and zone 2 (opened, nothing written): the last write starts zone 0
    // again, at its write pointer.
    assert_eq!(
        (z["resets"].clone(), z["reset_bytes"].clone()),
        (2.into(), ((1 << 20) + 2 * (64 << 10)).into()),
        "{z}"
    );
    assert_eq!(z["zones_by_state"]["implicitly_open"], 1, "{z}");
    assert_eq!(
        r["write"]["total_ios"], 6,
        "appends are writes; zone commands are not I/O"
    );
    // A drive that is not zoned: the replay stops at the first Zone Append.
    let r = common::try_run_jobs(&device("tiny-test", &[]), &wl, DriveState::Fresh, false).unwrap();
    let e = r["jobs"][0]["trace"]["error"]
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(
        e.contains("Zone Append") && e.contains("zoned drive"),
        "{e}"
    );
    assert_eq!(r["write"]["total_ios"], 2);
    std::fs::remove_file(&p).ok();
}

/// fio's zbd jobs finish a zone whose remainder is below the block size and go on to the
/// next zone (zone capacity 768 KiB, 320 KiB writes: two a zone, then a Zone Finish).
#[test]
fn fio_zbd_finishes_a_zone_with_a_remainder_below_the_block_size() {
    let dev = zoned(&["zns.zone_capacity_bytes=\"768KiB\""]);
    let r = simulate(
        &dev,
        r#"{"rw":"write","bs":"320k","iodepth":1,"size":"4MiB",
            "zoned":{"mode":"zbd","zone_size":"1MiB"}}"#,
        DriveState::Fresh,
    );
    let z = zns(&r);
    assert_eq!(z["errors_total"], 0, "{z}");
    // Each zone: two writes, then a finish before the next write moves on; past the
    // last zone's finish the sequential job ends, as fio's does.
    assert_eq!(z["finishes"], 4, "{z}");
    assert_eq!(z["zones_by_state"]["full"], 4, "{z}");
    assert_eq!(z["host_bytes_written"], 4 * (640 << 10), "{z}");
    assert_eq!(z["pad_programs"], 0, "{z}"); // 640 KiB is 20 whole program units
}

#[test]
fn zoned_commands_on_a_drive_that_is_not_zoned_are_refused() {
    let dev = device("tiny-test", &[]);
    for (wl, field) in [
        (r#"{"rw":"write","zone_append":true}"#, "zone_append"),
        (
            r#"{"rw":"read","zone_ops":[{"at":"1ms","action":"open","zone":0}]}"#,
            "zone_ops",
        ),
    ] {
        let e = common::try_run_jobs(&dev, wl, DriveState::Fresh, false).unwrap_err();
        assert!(e.contains(field) && e.contains("zoned"), "{e}");
    }
    let dev = zoned(&[]);
    let jobs = load_jobs(
        r#"{"rw":"read","zone_ops":[{"at":"1ms","action":"open","zone":32}]}"#,
        &[],
        dev.capacity_bytes(),
    )
    .unwrap();
    let opts = RunOptions {
        state: DriveState::Fresh,
        seed: 1,
        verify: false,
    };
    let e = run_jobs(dev, jobs, opts, &mut |_| true)
        .err()
        .unwrap()
        .to_string();
    assert!(
        e.contains("zone_ops[0].zone") && e.contains("0 to 31"),
        "{e}"
    );
}

/// NVMe's Zoned Namespace Command Set has one zone type (Sequential Write Required):
/// a drive with conventional zones is refused, saying so.
#[test]
fn conventional_zones_are_not_an_nvme_zone_type() {
    let o = ["zns.zone_size_bytes=\"1MiB\"", "zns.conventional_zones=1"];
    let e = ssdlab_core::config::load_device(
        &ssdlab_core::config::DeviceSpec::Preset("tiny-test".into()),
        &o.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("zns.conventional_zones: 1") && e.contains("Sequential Write Required"),
        "{e}"
    );
}
