//! The ZN540-class zoned presets against the real drive's published measurements, and
//! the DRAM-less twin against the DRAM one.
//!
//! Published figures (Doekemeijer, Tehrany et al., IEEE Cluster 2023, fio 3.32 with SPDK
//! on a WD Ultrastar DC ZN540; their artifacts at github.com/Krien/NVMeBenchmarks,
//! data/spdk/zns-a/lbaf2/), each compared within 15 %: sequential 128 KiB writes over 8
//! zones at QD1 each and in one zone at QD32, 16 KiB and 4 KiB random reads at QD256 in
//! one zone, and the QD1 4 KiB read latency. The presets are calibrated on three of them
//! (tR, channel rate, tPROG: presets/zn540.toml says which); the others check the model.

mod common;

use common::{device, f};
use serde_json::Value;
use ssdlab_core::config::{load_jobs, DeviceConfig};
use ssdlab_core::{run_jobs, DriveState, RunOptions};

/// write/131072bs/8zone/1.json: 128 KiB writes, 8 jobs in 8 zones, QD1 each (bytes/s).
const WRITE_8ZONES_QD1_BPS: f64 = 1_210_893_934.0;
/// append/131072bs/1zone/32.json: 128 KiB appends in one zone at QD32 (bytes/s).
const APPEND_1ZONE_QD32_BPS: f64 = 1_201_320_273.0;
/// randread/16384bs/1zone/256.json: 16 KiB random reads in one zone, QD256 (bytes/s).
const READ_16K_QD256_BPS: f64 = 2_628_580_340.0;
/// randread/4096bs/1zone/256.json: 4 KiB random reads in one zone, QD256 (IOPS).
const READ_4K_QD256_IOPS: f64 = 437_369.0;
/// randread/4096bs/1zone/1.json: 4 KiB random reads, QD1 (mean latency, ns).
const READ_4K_QD1_NS: f64 = 72_635.0;

fn simulate(dev: &DeviceConfig, workload: &str, state: DriveState) -> Value {
    let jobs = load_jobs(workload, &[], dev.capacity_bytes()).unwrap();
    let opts = RunOptions {
        state,
        seed: 1,
        verify: false,
    };
    run_jobs(dev.clone(), jobs, opts, &mut |_| true)
        .unwrap()
        .json
}

fn within(model: f64, published: f64, what: &str) {
    let r = model / published;
    assert!(
        (0.85..=1.15).contains(&r),
        "{what}: model {model:.0} vs published {published:.0} (x{r:.3})"
    );
}

/// 8 jobs, job k writing zone k sequentially at QD1 (as [zbench]'s `offset_increment=100z`
/// spreads its 8 jobs over zones).
fn eight_zone_writes(bytes_each: &str) -> String {
    let jobs: Vec<String> = (0..8)
        .map(|k| {
            format!(
                r#"{{"rw":"write","bs":"128k","iodepth":1,"offset":"{}GiB","size":"{bytes_each}"}}"#,
                2 * k
            )
        })
        .collect();
    format!(r#"{{"jobs":[{}]}}"#, jobs.join(","))
}

/// The five measurements on one preset: (8-zone writes B/s, 1-zone QD32 writes B/s,
/// 16 KiB QD256 reads B/s, 4 KiB QD256 read IOPS, QD1 read mean ns).
fn figures(dev: &DeviceConfig) -> [f64; 5] {
    let w8 = simulate(dev, &eight_zone_writes("64MiB"), DriveState::Fresh);
    let w1 = simulate(
        dev,
        r#"{"rw":"write","bs":"128k","iodepth":32,"size":"512MiB","zone_append":true}"#,
        DriveState::Fresh,
    );
    assert_eq!(w1["device"]["zns"]["appends"], 4096);
    let r16 = simulate(
        dev,
        r#"{"rw":"randread","bs":"16k","iodepth":256,"size":"1077MiB","number_ios":60000}"#,
        DriveState::Full,
    );
    let r4 = simulate(
        dev,
        r#"{"rw":"randread","bs":"4k","iodepth":256,"size":"1077MiB","number_ios":100000}"#,
        DriveState::Full,
    );
    let r1 = simulate(
        dev,
        r#"{"rw":"randread","bs":"4k","iodepth":1,"size":"1077MiB","number_ios":2000}"#,
        DriveState::Full,
    );
    for r in [&w8, &w1, &r16, &r4, &r1] {
        assert_eq!(
            r["device"]["zns"]["errors_total"], 0,
            "{}",
            r["device"]["zns"]
        );
    }
    [
        f(&w8["write"]["bw_bytes"]),
        f(&w1["write"]["bw_bytes"]),
        f(&r16["read"]["bw_bytes"]),
        f(&r4["read"]["iops"]),
        f(&r1["read"]["lat_ns"]["mean"]),
    ]
}

#[test]
fn zn540_matches_the_published_measurements_of_the_real_drive() {
    let dev = device("zn540", &[]);
    assert_eq!(dev.capacity_bytes(), 904 * (2u64 << 30));
    let [w8, w1, r16, r4, r1] = figures(&dev);
    eprintln!("zn540: w8 {w8:.0} w1 {w1:.0} r16 {r16:.0} r4 {r4:.0} r1 {r1:.0}");
    within(
        w8,
        WRITE_8ZONES_QD1_BPS,
        "128 KiB writes, 8 zones x QD1 (B/s)",
    );
    within(w1, APPEND_1ZONE_QD32_BPS, "128 KiB, 1 zone, QD32 (B/s)");
    within(r16, READ_16K_QD256_BPS, "16 KiB random reads, QD256 (B/s)");
    within(r4, READ_4K_QD256_IOPS, "4 KiB random reads, QD256 (IOPS)");
    within(r1, READ_4K_QD1_NS, "4 KiB read, QD1 (mean ns)");
}

/// The DRAM-less twin against the DRAM drive on the same measurements. The map costs it
/// nothing: a zoned drive's map is 8 bytes a zone, whole in SRAM, so with the DRAM
/// drive's write buffer (16 MiB, here in SRAM) every figure is the DRAM drive's within
/// 1 %. Its own 4 MiB SRAM buffer costs the reads and the one-zone writes nothing
/// either (within 3 %), but writes to 8 zones at once, whose program units reach the
/// same dies together (every zone starts on die 0), need more buffered data than
/// 4 MiB holds while their programs run: they fall well below the DRAM drive.
#[test]
fn a_dramless_zoned_drive_loses_almost_nothing() {
    let dram = figures(&device("zn540", &[]));
    let same_buffer = figures(&device(
        "zn540-dramless",
        &["controller.write_buffer=\"16MiB\"", "sram.size=\"24MiB\""],
    ));
    let own = figures(&device("zn540-dramless", &[]));
    eprintln!(
        "zn540 {dram:?}\nzn540-dramless, 16 MiB buffer {same_buffer:?}\nzn540-dramless {own:?}"
    );
    let names = ["w8", "w1", "r16", "r4", "r1"];
    for i in 0..5 {
        let r = same_buffer[i] / dram[i];
        assert!(
            (0.99..=1.01).contains(&r),
            "{}: dram {} dramless {} (x{r:.4})",
            names[i],
            dram[i],
            same_buffer[i]
        );
        let r = own[i] / dram[i];
        if i == 0 {
            assert!(
                r < 0.9,
                "8-zone writes: dram {} dramless {} (x{r:.4})",
                dram[i],
                own[i]
            );
        } else {
            assert!(
                (0.97..=1.03).contains(&r),
                "{}: dram {} dramless {} (x{r:.4})",
                names[i],
                dram[i],
                own[i]
            );
        }
    }
    // The map: 904 zones x 8 B in SRAM, where a page map of the same 1.9 TB of LBAs
    // would take 4 B per 4 KiB (1.8 GiB).
    let r = simulate(
        &device("zn540-dramless", &[]),
        r#"{"rw":"read","bs":"128k","number_ios":10}"#,
        DriveState::Fresh,
    );
    let z = &r["device"]["zns"];
    assert_eq!(z["map_bytes"], 904 * 8);
    assert_eq!(z["page_map_bytes"], 904u64 * (2 << 30) / 4096 * 4);
}
