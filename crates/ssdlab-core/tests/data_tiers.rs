//! The read cache and the write buffer's tier: exact hit counts, hit latencies by
//! hand for DRAM and HMB, the HMB write-buffer copy on the write path, how the HMB
//! grant is shared, the oracle through cache fills and invalidations, bad configs.

mod common;

use common::{device, f};
use serde_json::Value;
use ssdlab_core::config::memory::DataTier;
use ssdlab_core::config::{load_device, DeviceConfig, DeviceSpec};
use ssdlab_core::host::Pcie;
use ssdlab_core::nand::Timing;
use ssdlab_core::DriveState;

fn simulate(dev: &DeviceConfig, workload: &str, state: DriveState, verify: bool) -> Value {
    common::simulate(dev, workload, state, 5, verify)
}

/// Three sequential QD1 passes over 16 units: the first misses, the others hit.
const THREE_PASSES: &str = r#"{"rw":"read","bs":"4k","iodepth":1,"size":"64KiB","number_ios":48}"#;

fn read_cache(tier: &str, size: &str) -> DeviceConfig {
    device(
        "tiny-test",
        &[
            &format!("read_cache.size=\"{size}\""),
            &format!("read_cache.tier=\"{tier}\""),
            "hmb.hmpre=\"1MiB\"",
            "hmb.hmmin=\"1MiB\"",
            "hmb.host_chunk=\"1MiB\"",
        ],
    )
}

/// Mean latency of a hit: the third pass (all hits, each after a hit) is what a
/// three-pass run adds to a two-pass run.
fn hit_latency(dev: &DeviceConfig) -> f64 {
    let two = THREE_PASSES.replace("48", "32");
    let m3 = f(&simulate(dev, THREE_PASSES, DriveState::Full, false)["read"]["lat_ns"]["mean"]);
    let m2 = f(&simulate(dev, &two, DriveState::Full, false)["read"]["lat_ns"]["mean"]);
    (48.0 * m3 - 32.0 * m2) / 16.0
}

#[test]
fn dram_read_cache_hits_skip_nand_by_exactly_the_flash_time() {
    let off = device("tiny-test", &[]);
    let on = read_cache("dram", "128KiB");
    let r_off = simulate(&off, THREE_PASSES, DriveState::Full, false);
    let r_on = simulate(&on, THREE_PASSES, DriveState::Full, false);
    let rc = &r_on["device"]["read_cache"];
    assert_eq!(rc["hits"], 32, "{rc}");
    assert_eq!(rc["misses"], 16);
    assert_eq!(rc["fills"], 16);
    assert_eq!(r_off["device"]["read_cache"]["enabled"], false);
    // A hit replaces command + sense + channel transfer with a DRAM access.
    let t = Timing::new(&on);
    let nand = (t.t_cmd + on.nand.t_read.get(0) + t.bus_ns(4096)) as f64;
    let dram = (on.dram.latency.ns() as f64) + 4096.0 / on.dram.bandwidth.0 * 1e9;
    let saved = f(&r_off["read"]["lat_ns"]["mean"]) - hit_latency(&on);
    assert!(
        (saved - (nand - dram)).abs() < 0.01 * nand,
        "hits save {saved} ns; expected {} ns",
        nand - dram
    );
}

#[test]
fn hmb_read_cache_hits_cross_the_link_twice_and_fills_go_up() {
    let off = device("tiny-test", &[]);
    let dram = read_cache("dram", "128KiB");
    let hmb = read_cache("hmb", "128KiB");
    let r_off = simulate(&off, THREE_PASSES, DriveState::Full, false);
    let r_hmb = simulate(&hmb, THREE_PASSES, DriveState::Full, false);
    let rc = &r_hmb["device"]["read_cache"];
    assert_eq!(rc["tier"], "hmb");
    assert_eq!(rc["hits"], 32);
    assert_eq!(rc["hmb_read_bytes"], 32 * 4096);
    assert_eq!(rc["hmb_write_bytes"], 16 * 4096);
    let hmb_stats = &r_hmb["device"]["hmb"];
    assert_eq!(hmb_stats["read_cache_bytes"], 48 * 4096);
    assert_eq!(hmb_stats["layout"]["read_cache_bytes"], 128 * 1024);
    // HMB hit = read request up, host DRAM, 4 KiB down; DRAM hit = DRAM access.
    let p = Pcie::new(&hmb);
    let hmb_hit = (2 * p.latency + p.wire_ns(0) + p.wire_ns(4096)) as f64
        + hmb.hmb.host_dram_latency.ns() as f64;
    let dram_hit = hmb.dram.latency.ns() as f64 + 4096.0 / hmb.dram.bandwidth.0 * 1e9;
    let extra = hit_latency(&hmb) - hit_latency(&dram);
    assert!(
        (extra - (hmb_hit - dram_hit)).abs() < 0.03 * hmb_hit,
        "HMB hits cost {extra} ns more than DRAM hits; expected {}",
        hmb_hit - dram_hit
    );
    // Still far cheaper than NAND.
    assert!(hit_latency(&hmb) < 0.5 * f(&r_off["read"]["lat_ns"]["mean"]));
}

#[test]
fn a_scan_longer_than_the_cache_never_hits_under_lru() {
    let dev = read_cache("dram", "128KiB");
    let r = simulate(
        &dev,
        r#"{"rw":"read","bs":"4k","iodepth":1,"size":"256KiB","number_ios":128}"#,
        DriveState::Full,
        false,
    );
    assert_eq!(r["device"]["read_cache"]["hits"], 0);
    assert_eq!(r["device"]["read_cache"]["evictions"], 128 - 32);
}

#[test]
fn hmb_write_buffer_adds_one_copy_up_to_each_write() {
    // Seven 4 KiB writes: less than one stripe, so no program runs during the test.
    let wl = r#"{"rw":"randwrite","bs":"4k","iodepth":1,"number_ios":7}"#;
    let sram = device("tiny-test", &[]);
    let hmb = device(
        "tiny-test",
        &[
            "controller.write_buffer_tier=\"hmb\"",
            "hmb.hmpre=\"1MiB\"",
            "hmb.hmmin=\"1MiB\"",
            "hmb.host_chunk=\"1MiB\"",
        ],
    );
    let r_sram = simulate(&sram, wl, DriveState::Fresh, false);
    let r_hmb = simulate(&hmb, wl, DriveState::Fresh, false);
    let wb = &r_hmb["device"]["write_buffer"];
    assert_eq!(wb["tier"], "hmb");
    assert_eq!(wb["size_bytes"], 256 * 1024);
    assert_eq!(wb["hmb_write_bytes"], 7 * 4096);
    let p = Pcie::new(&hmb);
    let expect = p.wire_ns(4096) as f64 - sram.sram.latency.ns() as f64;
    let extra = f(&r_hmb["write"]["lat_ns"]["mean"]) - f(&r_sram["write"]["lat_ns"]["mean"]);
    assert!(
        (extra - expect).abs() < 0.02 * expect,
        "HMB write buffer adds {extra} ns; expected {expect}"
    );
    // Full stripes are fetched back from the HMB before their programs.
    let r = simulate(
        &hmb,
        r#"{"rw":"write","bs":"4k","iodepth":8,"number_ios":4000}"#,
        DriveState::Fresh,
        false,
    );
    let wb = &r["device"]["write_buffer"];
    let stripe = 2 * 16384;
    let fetched = wb["hmb_read_bytes"].as_u64().unwrap();
    assert!(fetched > 0 && fetched.is_multiple_of(stripe), "{wb}");
    assert!(fetched <= wb["hmb_write_bytes"].as_u64().unwrap());
}

#[test]
fn hmb_grant_is_shared_write_buffer_then_read_cache_then_map() {
    let with = |policy: &str| {
        device(
            "hmb-ssd",
            &[
                "controller.write_buffer_tier=\"hmb\"",
                "controller.write_buffer=\"4MiB\"",
                "read_cache.tier=\"hmb\"",
                "read_cache.size=\"16MiB\"",
                &format!("hmb.host_policy=\"{policy}\""),
            ],
        )
    };
    let mib = 1u64 << 20;
    let max = with("max");
    let l = max.hmb_layout();
    assert_eq!(
        (
            l.granted_bytes,
            l.write_buffer_bytes,
            l.read_cache_bytes,
            l.map_bytes
        ),
        (64 * mib, 4 * mib, 16 * mib, 44 * mib)
    );
    assert_eq!(max.map_placement().cache_bytes, 44 * mib);
    assert_eq!(max.read_cache_placement(), Some((DataTier::Hmb, 16 * mib)));
    // HMMIN (16 MiB): the write buffer fits, the read cache does not.
    let min = with("min");
    let l = min.hmb_layout();
    assert_eq!((l.write_buffer_bytes, l.read_cache_bytes), (4 * mib, 0));
    assert_eq!(min.read_cache_placement(), None);
    assert_eq!(min.map_placement().cache_bytes, 12 * mib);
    // No HMB: a one-program SRAM staging buffer, no read cache, the SRAM map cache.
    let off = with("off");
    assert_eq!(
        off.write_buffer_placement(),
        (DataTier::Sram, off.program_unit_bytes())
    );
    assert_eq!(off.read_cache_placement(), None);
    assert_eq!(
        off.map_placement().tier,
        ssdlab_core::config::memory::MapTier::Sram
    );
}

#[test]
fn oracle_holds_through_read_cache_fills_and_invalidations() {
    for (tier, wb) in [("dram", "sram"), ("hmb", "hmb")] {
        let dev = device(
            "tiny-test",
            &[
                &format!("read_cache.tier=\"{tier}\""),
                "read_cache.size=\"64KiB\"",
                "read_cache.ways=4",
                &format!("controller.write_buffer_tier=\"{wb}\""),
                "hmb.hmpre=\"1MiB\"",
                "hmb.hmmin=\"1MiB\"",
                "hmb.host_chunk=\"1MiB\"",
            ],
        );
        let r = simulate(
            &dev,
            r#"{"rw":"randrw","bs":"4k","iodepth":16,"number_ios":40000,"size":"256KiB"}"#,
            DriveState::Steady,
            true,
        );
        let o = &r["device"]["oracle"];
        assert_eq!(o["mismatches"], 0, "{tier}: {o}");
        let rc = &r["device"]["read_cache"];
        assert!(f(&rc["hits"]) > 1000.0, "{rc}");
        assert!(f(&rc["invalidations"]) > 1000.0, "{rc}");
        assert!(f(&r["device"]["ftl"]["gc_victims"]) > 0.0);
    }
}

#[test]
fn bad_read_cache_and_write_buffer_values_are_clear_errors() {
    let cases = [
        (
            "read_cache.size=\"6KiB\"",
            "read_cache.size: 6KiB is not a positive multiple of the mapping unit",
        ),
        ("read_cache.ways=0", "read_cache.ways: 0 is not allowed"),
        (
            "read_cache.size=\"2GiB\"",
            "read_cache.size: 2GiB is larger than its tier (dram.size",
        ),
        ("read_cache.tier=\"flash\"", "read_cache.tier"),
        (
            "controller.write_buffer_tier=\"slc\"",
            "controller.write_buffer_tier: slc is not allowed",
        ),
        (
            "controller.write_buffer_tier=\"hmb\"",
            "controller.write_buffer: 256KiB is larger than its tier (hmb.hmpre = 0B)",
        ),
    ];
    for (o, want) in cases {
        let err = load_device(&DeviceSpec::Preset("tiny-test".into()), &[o.to_string()])
            .expect_err(o)
            .to_string();
        assert!(err.contains(want), "{o}: got {err}");
    }
}

/// A read cache in SLC-mode flash: a hit is an SLC page read on the die, so a QD1
/// re-read is faster than the first read by exactly tR(native) - tR(SLC).
#[test]
fn slc_read_cache_hit_is_an_slc_page_read() {
    let dev = device(
        "tiny-test",
        &["read_cache.size=\"64KiB\"", "read_cache.tier=\"slc\""],
    );
    let t_native = dev.nand.t_read.get(0);
    let t_slc = dev.slc.t_read.ns();
    let mut s = ssdlab_core::Session::new(dev, DriveState::Full, 1).unwrap();
    let read = ssdlab_core::workload::OpKind::Read;
    let first = s.request(read, 0, 4096).unwrap();
    let second = s.request(read, 0, 4096).unwrap();
    assert_eq!(first - second, t_native - t_slc);
    assert_eq!(s.report()["device"]["read_cache"]["hits"], 1);
    let bad = ssdlab_core::config::load_device(
        &ssdlab_core::DeviceSpec::Preset("tiny-test".into()),
        &["controller.write_buffer_tier=\"slc\"".to_string()],
    )
    .unwrap_err()
    .to_string();
    assert!(
        bad.contains("write_buffer_tier: slc is not allowed"),
        "{bad}"
    );
}
