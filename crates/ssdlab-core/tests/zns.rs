//! A zoned drive (`[zns]`) in the event loop: physics computable by hand, zoned errors
//! returned to workloads, and the read oracle. The drive: tiny-test (2 channels x 2
//! dies, 2 planes, 16 KiB pages, 8 pages a block, tPROG 600 us, tBERS 3 ms) with 1 MiB
//! zones over all 4 dies, so a zone is one block (256 KiB) on each die and its program
//! unit is 32 KiB (a multi-plane page).

mod common;

use common::{device, f};
use serde_json::Value;
use ssdlab_core::config::{load_jobs, DeviceConfig};
use ssdlab_core::nand::Timing;
use ssdlab_core::{run_jobs, DriveState, RunOptions};

fn zoned(extra: &[&str]) -> DeviceConfig {
    common::zoned_tiny(extra)
}

/// Run a workload of one job, or several (`{"jobs": [...]}`), with the read oracle.
fn simulate(dev: &DeviceConfig, workload: &str, state: DriveState) -> Value {
    common::try_run_jobs(dev, workload, state, true).unwrap()
}

fn zns(r: &Value) -> &Value {
    &r["device"]["zns"]
}

fn oracle_clean(r: &Value) {
    let o = &r["device"]["oracle"];
    assert!(f(&o["checked"]) > 0.0, "the oracle checked nothing: {o}");
    assert_eq!(o["mismatches"], 0, "oracle mismatches: {o}");
}

#[test]
fn the_zoned_namespace_is_its_zones() {
    let dev = zoned(&[]);
    assert_eq!(dev.capacity_bytes(), 32 << 20); // 32 zones of 1 MiB
    let r = simulate(
        &dev,
        r#"{"rw":"read","bs":"4k","number_ios":10}"#,
        DriveState::Fresh,
    );
    let z = zns(&r);
    assert_eq!(z["zones"], 32);
    assert_eq!(z["zones_by_state"]["empty"], 32);
    assert_eq!(z["program_unit_bytes"], 32768);
    assert_eq!(z["map_bytes"], 32 * 8);
    assert_eq!(z["page_map_bytes"], (32 << 20) / 4096 * 4);
    // A conventional drive's report has no zns block.
    let r = common::simulate(
        &device("tiny-test", &[]),
        r#"{"rw":"read","bs":"4k","number_ios":10}"#,
        DriveState::Full,
        1,
        false,
    );
    assert!(r["device"].get("zns").is_none());
}

#[test]
fn qd1_zoned_write_latency_is_the_sum_of_its_parts() {
    let dev = zoned(&[]);
    let r = simulate(
        &dev,
        r#"{"rw":"write","bs":"4k","iodepth":1,"number_ios":40}"#,
        DriveState::Fresh,
    );
    let expect = common::qd1_buffered_write_4k_ns(&dev);
    for k in ["mean", "min", "max"] {
        let v = f(&r["write"]["lat_ns"][k]);
        assert!((v - expect).abs() / expect < 0.01, "{k} {v} vs {expect}");
    }
    let z = zns(&r);
    assert_eq!(z["host_bytes_written"], 40 * 4096);
    assert_eq!(z["programs"], 5); // 160 KiB: five whole 32 KiB units
    assert_eq!(z["zones_by_state"]["implicitly_open"], 1);
    assert_eq!(z["errors_total"], 0);
}

#[test]
fn qd1_zoned_read_latency_is_the_sum_of_its_parts() {
    let dev = zoned(&[]);
    let r = simulate(
        &dev,
        r#"{"rw":"randread","bs":"4k","iodepth":1,"number_ios":500}"#,
        DriveState::Full,
    );
    let expect = common::qd1_read_4k_ns(&dev);
    for k in ["mean", "min", "max"] {
        let v = f(&r["read"]["lat_ns"][k]);
        assert!((v - expect).abs() / expect < 0.01, "{k} {v} vs {expect}");
    }
    assert_eq!(zns(&r)["flash_reads"], 500);
    oracle_clean(&r);
}

/// A reset of a zone holding data costs its erases: one block on each of its 4 dies,
/// erased in parallel (each after its command cycles, which slip in on the channel at
/// once), where a reset of an empty zone erases nothing.
#[test]
fn a_zone_reset_costs_its_erases() {
    let dev = zoned(&[]);
    let t = Timing::new(&dev);
    // Write zone 0 whole; long after its programs, reset zone 0 and (empty) zone 1.
    let wl = |off: &str| {
        format!(
            r#"{{"jobs":[
            {{"rw":"write","bs":"128k","iodepth":1,"size":"1MiB","group":0}},
            {{"rw":"trim","bs":"1MiB","iodepth":1,"offset":"{off}","size":"1MiB",
              "number_ios":1,"startdelay":"50ms","group":1}}]}}"#
        )
    };
    let full = simulate(&dev, &wl("0"), DriveState::Fresh);
    let empty = simulate(&dev, &wl("1MiB"), DriveState::Fresh);
    let lat = |r: &Value| f(&r["trim"]["lat_ns"]["mean"]);
    let erase = (t.t_cmd + t.t_erase) as f64;
    let diff = lat(&full) - lat(&empty);
    assert!(
        (diff - erase).abs() < 1.0,
        "reset {diff} ns vs erases {erase} ns"
    );
    let z = zns(&full);
    assert_eq!(z["erases"], 4);
    assert_eq!(z["resets"], 1);
    assert_eq!(z["reset_bytes"], 1 << 20);
    assert_eq!(z["zones_by_state"]["empty"], 32);
    assert_eq!(zns(&empty)["erases"], 0);
}

/// Sequential zoned writes at QD32 never beat the slowest stage: the link, the channels
/// (data-in of every program) or the dies (data-in then tPROG of a 32 KiB unit), but for
/// the write buffer's worth the host's last writes leave behind (they complete once
/// buffered); with tPROG the bound, they run within 10 % of it.
#[test]
fn sequential_zoned_write_bandwidth_is_the_slowest_stage() {
    let dev = zoned(&[]);
    let r = simulate(
        &dev,
        r#"{"rw":"write","bs":"128k","iodepth":32,"size":"24MiB"}"#,
        DriveState::Fresh,
    );
    let mps = dev.host.max_payload.bytes() as f64;
    let pcie = dev.link_bytes_per_s() * mps / (mps + dev.host.tlp_overhead.bytes() as f64);
    let chan = dev.channel_bytes_per_s() * dev.nand.channels as f64;
    let t = Timing::new(&dev);
    let unit = 32768u64;
    let din = t.t_cmd + t.bus_ns(unit);
    let die = 4.0 * unit as f64 / ((din + dev.nand.t_prog.get(0)) as f64 / 1e9);
    let bound = pcie.min(chan).min(die);
    let size = (24u64 << 20) as f64;
    let buffered = dev.controller.write_buffer.bytes() as f64;
    let bw = f(&r["write"]["bw_bytes"]);
    let ceiling = bound * (size + buffered) / size;
    assert!(
        bw <= ceiling,
        "{bw} B/s above the bound {bound} (+ the buffer: {ceiling})"
    );
    assert!(
        bw >= bound * 0.9,
        "{bw} B/s well below the die bound {bound}"
    );
    assert_eq!(zns(&r)["zones_by_state"]["full"], 24);
}

#[test]
fn random_writes_to_a_zoned_drive_get_the_invalid_write_error() {
    let dev = zoned(&[]);
    let r = simulate(
        &dev,
        r#"{"rw":"randwrite","bs":"4k","iodepth":8,"number_ios":400}"#,
        DriveState::Fresh,
    );
    let z = zns(&r);
    let bad = f(&z["errors"]["0xbc"]);
    assert!(bad > 350.0, "{z}");
    // Only the writes that happened to land on a write pointer moved data.
    let ok = f(&r["write"]["total_ios"]);
    assert_eq!(ok + bad, 400.0);
    assert_eq!(f(&z["host_bytes_written"]), ok * 4096.0);
}

#[test]
fn writes_to_full_zones_and_past_zone_capacity_fail() {
    // Full drive: every write hits a full zone.
    let dev = zoned(&[]);
    let r = simulate(
        &dev,
        r#"{"rw":"write","bs":"4k","iodepth":4,"number_ios":64}"#,
        DriveState::Full,
    );
    assert_eq!(zns(&r)["errors"]["0xb9"], 64);
    // Capacity below the zone size: sequential 320 KiB writes fill 640 KiB of zone 0
    // (capacity 768 KiB); the third crosses the capacity (boundary error), and the
    // fourth, at 960 KiB, is not at the write pointer.
    let dev = zoned(&["zns.zone_capacity_bytes=\"768KiB\""]);
    let r = simulate(
        &dev,
        r#"{"rw":"write","bs":"320k","iodepth":1,"number_ios":4}"#,
        DriveState::Fresh,
    );
    let z = zns(&r);
    assert_eq!(z["zones_by_state"]["implicitly_open"], 1, "{z}");
    assert_eq!(z["errors"]["0xb8"], 1, "{z}");
    assert_eq!(z["errors"]["0xbc"], 1, "{z}");
    assert_eq!(z["host_bytes_written"], 640 << 10);
    // A drive prepared full: its zones read back (the oracle), writes fail as full.
    oracle_clean(&simulate(
        &zoned(&[]),
        r#"{"rw":"read","bs":"128k","iodepth":8,"number_ios":200}"#,
        DriveState::Full,
    ));
}

#[test]
fn sequential_write_then_read_back_through_the_oracle() {
    let dev = zoned(&[]);
    let r = simulate(
        &dev,
        r#"{"jobs":[
            {"rw":"write","bs":"64k","iodepth":16,"size":"8MiB","group":0},
            {"rw":"randread","bs":"16k","iodepth":16,"size":"8MiB","number_ios":2000,"group":1}]}"#,
        DriveState::Fresh,
    );
    oracle_clean(&r);
    assert_eq!(zns(&r)["errors_total"], 0);
    assert_eq!(zns(&r)["zones_by_state"]["full"], 8);
}

#[test]
fn same_config_and_seed_same_report() {
    let dev = zoned(&[]);
    let wl = r#"{"rw":"randrw","bs":"16k","iodepth":8,"number_ios":3000}"#;
    let mut a = simulate(&dev, wl, DriveState::Full);
    let mut b = simulate(&dev, wl, DriveState::Full);
    for r in [&mut a, &mut b] {
        for k in ["wall_time_s", "prep_wall_time_s", "sim_wall_time_s"] {
            r[k] = Value::Null;
        }
    }
    assert_eq!(a, b);
}

#[test]
fn bad_zns_sections_are_errors_naming_the_field() {
    use ssdlab_core::config::{load_device, DeviceSpec};
    let load = |o: &[&str]| {
        let o: Vec<String> = o.iter().map(|s| s.to_string()).collect();
        load_device(&DeviceSpec::Preset("tiny-test".into()), &o)
            .and_then(|d| {
                d.validate()
                    .map_err(|m| ssdlab_core::config::ConfigError {
                        source: String::new(),
                        message: m,
                    })
                    .map(|_| d)
            })
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let e = load(&[
        "zns.zone_size_bytes=\"1MiB\"",
        "zns.zone_capacity_bytes=\"40KiB\"",
    ])
    .unwrap_err();
    assert!(e.contains("zns.zone_capacity_bytes"), "{e}");
    assert!(e.contains("program unit"), "{e}");
    let e = load(&["zns.zone_size_bytes=\"1MiB\"", "zns.zone_width=2"]).unwrap_err();
    assert!(e.contains("zone_width"), "{e}");
    let e = load(&["zns.zone_size_bytes=\"1MiB\"", "read_cache.size=\"1MiB\""]).unwrap_err();
    assert!(e.contains("read_cache.size"), "{e}");
    let e = load(&["zns.zone_size_bytes=\"1MiB\"", "zns.lba_bytes=\"512B\""]).unwrap_err();
    assert!(e.contains("zns.lba_bytes"), "{e}");
    let e = load(&["zns.zone_size_bytes=\"1MiB\"", "zns.zone_width_dies=3"]).unwrap_err();
    assert!(e.contains("zns.zone_width_dies"), "{e}");
}

/// fio's zbd jobs on a zoned drive use its zones: write pointers read from the drive
/// (a full drive: every zone full, so writes reset zones first, on the drive), the
/// drive's open-zone limit, and no zoned errors.
#[test]
fn fio_zbd_jobs_use_the_drives_own_zones() {
    let dev = zoned(&["zns.max_open_zones=2"]);
    let r = simulate(
        &dev,
        r#"{"rw":"write","bs":"128k","iodepth":4,"size":"4MiB",
            "zoned":{"mode":"zbd","zone_size":"1MiB"}}"#,
        DriveState::Full,
    );
    let z = zns(&r);
    assert_eq!(z["errors_total"], 0, "{z}");
    assert_eq!(z["resets"], 4, "{z}"); // each of the 4 zones reset before its rewrite
    assert_eq!(z["erases"], 16, "{z}");
    assert_eq!(r["jobs"][0]["zone_resets"], 4);
    assert_eq!(f(&r["write"]["io_bytes"]), (4 << 20) as f64);
    // Random writes with reset thresholds, then reads of what is there: no errors.
    let r = simulate(
        &dev,
        r#"{"jobs":[
            {"rw":"randwrite","bs":"16k","iodepth":8,"size":"8MiB","number_ios":3000,
             "zoned":{"mode":"zbd","zone_size":"1MiB","zone_reset_threshold":0.5,
                      "zone_reset_frequency":0.1},"group":0},
            {"rw":"randread","bs":"16k","iodepth":8,"size":"8MiB","number_ios":1000,
             "zoned":{"mode":"zbd","zone_size":"1MiB"},"group":1}]}"#,
        DriveState::Fresh,
    );
    let z = zns(&r);
    assert_eq!(z["errors_total"], 0, "{z}");
    assert!(f(&z["resets"]) > 10.0, "{z}");
    assert!(f(&z["flash_reads"]) > 500.0, "{z}");
    assert!(f(&z["open_zones"]) <= 2.0, "{z}");
    oracle_clean(&r);
    // A zonesize that is not the drive's is refused, as fio refuses it.
    let e = common::try_run_jobs(
        &dev,
        r#"{"rw":"write","bs":"128k","zoned":{"mode":"zbd","zone_size":"2MiB"}}"#,
        DriveState::Fresh,
        false,
    )
    .unwrap_err();
    assert!(e.contains("zoned.zone_size"), "{e}");
}

/// What is not modelled with zones is refused with a reason: serving the drive over NBD
/// (no zones there), host events, and preparation states other than fresh and full.
#[test]
fn what_zones_do_not_model_is_refused() {
    let dev = zoned(&[]);
    let opts = |state| RunOptions {
        state,
        seed: 1,
        verify: false,
    };
    let e = ssdlab_core::AsyncSession::new(dev.clone(), opts(DriveState::Fresh))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("zns") && e.contains("NBD"), "{e}");
    let run = |wl: &str, state| {
        let jobs = load_jobs(wl, &[], dev.capacity_bytes()).unwrap();
        run_jobs(dev.clone(), jobs, opts(state), &mut |_| true)
            .err()
            .unwrap()
            .to_string()
    };
    let e = run(
        r#"{"rw":"read","number_ios":10,"events":[{"at":"1ms","kind":"reset"}]}"#,
        DriveState::Fresh,
    );
    assert!(e.contains("events") && e.contains("zoned"), "{e}");
    let e = run(r#"{"rw":"read","number_ios":10}"#, DriveState::Steady);
    assert!(e.contains("state") && e.contains("fresh, full"), "{e}");
}
