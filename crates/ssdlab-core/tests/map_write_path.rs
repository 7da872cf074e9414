//! The demand-paged map's write path and lookups (seed 000's HMB drive): HMB hits
//! read only the lines holding their entries, never-written segments need no flash,
//! map pages live in translation blocks fed by the update journal, and the fetch
//! engine keeps several command fetches in flight.

mod common;

use common::{device, f, simulate};
use ssdlab_core::DriveState;

/// A random-read run on an HMB drive whose whole span's map fits in the HMB: after
/// the first touch of each segment every lookup is an HMB hit, and each hit reads
/// one 64-byte line (the entry of a 4 KiB read), not the 4 KiB segment.
#[test]
fn an_hmb_hit_reads_the_entry_line_not_the_segment() {
    let dev = device("hmb-ssd", &[]);
    // 1 GiB span: 256 segments of 4 KiB map; 64 MiB HMB holds them all.
    let wl = r#"{"rw":"randread","bs":"4k","iodepth":4,"number_ios":20000,"size":"1GiB"}"#;
    let r = simulate(&dev, wl, DriveState::Full, 1, false);
    let m = &r["device"]["map"];
    // Lookups found in the SRAM level never reach the main (HMB) level.
    let hmb_hits = f(&m["cache_hits"]);
    assert!(hmb_hits > 10_000.0, "{m}");
    assert_eq!(f(&m["hmb"]["read_granularity_bytes"]), 64.0);
    // Reads only: every HMB read byte is a lookup hit, one line each.
    assert_eq!(f(&m["hmb"]["read_bytes"]), hmb_hits * 64.0, "{m}");
    // A larger granularity reads more per hit.
    let dev = device("hmb-ssd", &["hmb.read_granularity=\"256B\""]);
    let r = simulate(&dev, wl, DriveState::Full, 1, false);
    let m = &r["device"]["map"];
    assert_eq!(
        f(&m["hmb"]["read_bytes"]),
        f(&m["cache_hits"]) * 256.0,
        "{m}"
    );
}

/// On a drive with nothing written, the map-of-map knows every segment is empty:
/// reads touch no flash, load nothing and copy nothing into the HMB.
#[test]
fn reads_of_never_written_segments_need_no_flash_and_no_hmb_copy() {
    let dev = device("hmb-ssd", &[]);
    let wl = r#"{"rw":"randread","bs":"4k","iodepth":32,"number_ios":20000}"#;
    let r = simulate(&dev, wl, DriveState::Normal, 1, false);
    let d = &r["device"];
    assert_eq!(f(&d["nand"]["read_ops"]), 0.0, "{}", d["nand"]);
    assert_eq!(f(&d["map"]["loads"]), 0.0, "{}", d["map"]);
    assert_eq!(f(&d["map"]["empty_segment_reads"]), 20_000.0);
    assert_eq!(f(&d["map"]["hmb"]["write_bytes"]), 0.0);
    assert_eq!(f(&d["map"]["hmb"]["read_bytes"]), 0.0);
}

/// A tiny drive with a two-segment map cache in SRAM: random writes in the aged
/// state. The map's pages go to translation blocks fed by the journal, the drive
/// keeps making progress, reads return the last write (oracle), the journal stays
/// bounded (twice its capacity plus what GC victims in flight add), and write
/// amplification stays within 3x that of the same drive with the whole map (on
/// this 32 MiB drive the translation pool's two blocks per die are a quarter of
/// the spare, which raises the user pool's WAF; the 512 GB presets are measured in
/// docs/seed000.md).
#[test]
fn aged_random_writes_with_a_small_map_cache_keep_going() {
    let small_map = [
        "map.tier=\"sram\"",
        "map.cache=\"1KiB\"",
        "map.segment=\"512B\"",
        "map.journal_entries=512",
        "sram.size=\"512KiB\"",
    ];
    let wl = r#"{"rw":"randrw","rwmixread":30,"bs":"4k","iodepth":16,"number_ios":60000}"#;
    let r = simulate(
        &device("tiny-test", &small_map),
        wl,
        DriveState::Steady,
        5,
        true,
    );
    let whole = simulate(&device("tiny-test", &[]), wl, DriveState::Steady, 5, true);
    let d = &r["device"];
    assert!(r["stalled"].is_null());
    assert_eq!(f(&d["oracle"]["mismatches"]), 0.0, "{}", d["oracle"]);
    assert!(f(&d["oracle"]["checked"]) > 10_000.0);
    assert!(f(&d["ftl"]["translation_blocks"]) > 0.0);
    assert!(f(&d["ftl"]["map_units_written"]) > 0.0);
    let j = &d["map"]["journal"];
    assert!(
        f(&j["flushes"]) > 0.0 && f(&j["entries_per_flush"]) >= 1.0,
        "{j}"
    );
    // 4 dies x one victim of at most 64 units in flight beyond the GC deferral point.
    assert!(
        f(&j["peak_entries"]) <= 2.0 * 512.0 + 4.0 * 64.0 + 64.0,
        "{j}"
    );
    let (waf, waf_whole) = (f(&d["ftl"]["waf"]), f(&whole["device"]["ftl"]["waf"]));
    assert!(
        waf < 3.0 * waf_whole,
        "WAF {waf} vs {waf_whole} with the whole map"
    );
    assert_eq!(f(&whole["device"]["oracle"]["mismatches"]), 0.0);
}

/// 32 host threads at QD1 each on their own queue, reading never-written LBAs (no
/// flash): with one fetch read in flight at a time, the fetch engine can do no
/// better than one command per PCIe round trip (2 x 300 ns one-way latency plus
/// the wire time of the request and the 64-byte entry); with 32 in flight it is
/// bound by the firmware cores instead.
#[test]
fn several_outstanding_fetches_lift_the_fetch_round_trip_bound() {
    let wl =
        r#"{"rw":"randread","bs":"4k","iodepth":1,"numjobs":32,"queues":32,"number_ios":2000}"#;
    let one = simulate(
        &device("hmb-ssd", &["host.outstanding_fetches=1"]),
        wl,
        DriveState::Normal,
        1,
        false,
    );
    let many = simulate(&device("hmb-ssd", &[]), wl, DriveState::Normal, 1, false);
    let (iops1, iops32) = (f(&one["read"]["iops"]), f(&many["read"]["iops"]));
    let round_trip_s = 600e-9;
    assert!(iops1 <= 1.0 / round_trip_s, "{iops1}");
    assert!(iops32 > 1.5 * iops1, "{iops32} vs {iops1}");
    // 4 cores x 1.5 us per command bound the many-fetch case.
    assert!(iops32 <= 4.0 / 1.5e-6 * 1.001, "{iops32}");
}

/// Seed 000's aged random-write case on the isolated pair (identical controllers, the
/// map in DRAM or cached in a 64 MiB HMB): 60 s of 4 KiB random writes at QD32, the
/// first 20 s a ramp (the HMB drive's journal fills then). The HMB drive keeps
/// completing writes (before the journal and translation blocks it completed 24 in
/// 15 s at a WAF of 4,616) at a steady rate: with room in the journal shared between
/// host writes and GC's relocations every 500 ms window completes writes and the
/// p99.9 latency stays under half a second (when host writes waited for the whole
/// journal while GC filled it, windows of 0 writes alternated with 50 K IOPS bursts
/// and p99.9 was 1.4 s); its write amplification over the measured window, map pages
/// included, stays within twice the DRAM drive's.
#[test]
fn aged_hmb_drive_keeps_writing_with_waf_within_twice_the_dram_drive() {
    let wl = r#"{"rw":"randwrite","bs":"4k","iodepth":32,"runtime":"60s","ramp_time":"20s"}"#;
    let hmb = simulate(&device("hmb-ssd", &[]), wl, DriveState::Aging, 1, false);
    let dram = simulate(&device("dram-ssd", &[]), wl, DriveState::Aging, 1, false);
    assert!(hmb["stalled"].is_null());
    // At least 1,000 writes a second over the measured 40 s.
    assert!(
        f(&hmb["write"]["total_ios"]) > 40_000.0,
        "{}",
        hmb["write"]["total_ios"]
    );
    let w = &hmb["write"];
    assert!(
        f(&w["iops_min"]) >= 0.1 * f(&w["iops"]),
        "500 ms windows {}..{}, mean {}",
        w["iops_min"],
        w["iops_max"],
        w["iops"]
    );
    assert!(
        f(&w["lat_ns"]["percentile"]["99.900000"]) < 0.5e9,
        "{}",
        w["lat_ns"]["percentile"]
    );
    // The journal holds at most its capacity plus what urgent GC forces past it.
    let j = &hmb["device"]["map"]["journal"];
    assert!(
        f(&j["peak_entries"]) < 1.5 * f(&j["capacity_entries"]),
        "{j}"
    );
    let (w_hmb, w_dram) = (
        f(&hmb["device"]["ftl"]["measured"]["waf"]),
        f(&dram["device"]["ftl"]["measured"]["waf"]),
    );
    assert!(w_hmb < 2.0 * w_dram, "WAF {w_hmb} (HMB) vs {w_dram} (DRAM)");
    // The map's own writes are part of it, and they went to translation blocks.
    assert!(f(&hmb["device"]["ftl"]["map_units_written"]) > 0.0);
    assert!(f(&hmb["device"]["ftl"]["translation_victims"]) > 0.0);
    // The DRAM drive is faster: the HMB drive pays map loads and writes.
    assert!(f(&dram["write"]["iops"]) > 1.5 * f(&hmb["write"]["iops"]));
}

/// A journal in the HMB (`map.journal_tier = "hmb"`) holds far more entries than SRAM
/// can: each flush then applies many entries, and the drive writes fewer map pages;
/// every logged entry costs a posted write up the link, every flush a read back.
#[test]
fn a_journal_in_the_hmb_flushes_more_entries_per_map_page() {
    let wl = r#"{"rw":"randwrite","bs":"4k","iodepth":32,"runtime":"3s"}"#;
    let sram = simulate(&device("hmb-ssd", &[]), wl, DriveState::Aging, 1, false);
    let in_hmb = simulate(
        &device(
            "hmb-ssd",
            &["map.journal_tier=\"hmb\"", "map.journal_entries=524288"],
        ),
        wl,
        DriveState::Aging,
        1,
        false,
    );
    let (js, jh) = (
        &sram["device"]["map"]["journal"],
        &in_hmb["device"]["map"]["journal"],
    );
    assert_eq!(js["tier"], "sram");
    assert_eq!(jh["tier"], "hmb");
    assert!(
        f(&jh["entries_per_flush"]) > 2.0 * f(&js["entries_per_flush"]),
        "{js} {jh}"
    );
    // 4 MiB of the 64 MiB grant holds the journal; the map cache gets the rest.
    assert_eq!(
        f(&in_hmb["device"]["hmb"]["layout"]["journal_bytes"]),
        4194304.0
    );
    let hmb_written = f(&in_hmb["device"]["map"]["hmb"]["write_bytes"]);
    assert!(
        hmb_written >= 8.0 * f(&jh["entries_logged"]),
        "{hmb_written}"
    );
}

/// An aged DRAM-less drive's translation blocks are collected when the map's writes
/// take the die past its pool's budget, and a translation block is often wholly
/// invalid (each of its pages written again since). Such a victim has nothing to
/// copy: its pace would be 0 units per host unit, so while the host kept the die busy
/// it never earned the page reads that reach its erase, and held the die's one victim
/// slot until the urgent floor (`hmb-ssd` aged: GC copied nothing from 2 s to 5 s while
/// the host wrote 61 K IOPS, then GC took the drive and the host fell to 8 K). It is
/// erased at once: GC copies in every 500 ms window, and the host's rate in the first
/// seconds is the drive's steady one, not a GC-free burst.
#[test]
fn an_aged_dramless_drive_erases_wholly_invalid_victims_at_once() {
    use ssdlab_core::config::{load_device, load_workload, DeviceSpec};
    use ssdlab_core::{RunOptions, Ssd};
    let dev = load_device(&DeviceSpec::Preset("hmb-ssd".into()), &[]).unwrap();
    let wl = r#"{"rw":"randwrite","bs":"4k","iodepth":32,"runtime":"6s"}"#;
    let wl = load_workload(wl, &[], dev.capacity_bytes()).unwrap();
    let opts = RunOptions {
        state: DriveState::Aging,
        seed: 1,
        verify: false,
    };
    let mut ssd = Ssd::new(dev, wl, opts).unwrap();
    let mut last = (0u64, 0u64);
    let mut windows = Vec::new();
    ssd.run_observed(&mut |_| true, 500_000_000, &mut |s: &Ssd| {
        let st = &s.ftl.stats;
        windows.push((st.host_units_written - last.0, st.gc_units_copied - last.1));
        last = (st.host_units_written, st.gc_units_copied);
    });
    let whole = &windows[1..windows.len() - 1];
    assert!(whole.len() >= 8, "{windows:?}");
    for &(host, gc) in whole {
        assert!(host > 0 && gc > 0, "{windows:?}");
    }
    // The host's rate in the first half of the run and in the second agree: no
    // GC-free burst at the start.
    let half = whole.len() / 2;
    let rate = |w: &[(u64, u64)]| w.iter().map(|x| x.0 as f64).sum::<f64>() / w.len() as f64;
    let (first, second) = (rate(&whole[..half]), rate(&whole[half..]));
    assert!(
        first < 1.5 * second,
        "{first} then {second} host units per window: {windows:?}"
    );
}

/// Random 4 KiB reads at QD1 on `hmb-ssd` over a 2 GiB span: 512 map segments, all
/// held by the 64 MiB HMB map cache but 8x what its 256 KiB SRAM level holds, so most
/// lookups miss the SRAM level and hit the HMB. Such a hit reads its entry's line
/// from host memory: a request up the link, the host DRAM access, the line back down.
/// Two comparisons on the same reads (same seed, same lookups): (1) with an SRAM
/// level large enough for the whole span the same hits cost SRAM time instead, and
/// the mean latency falls by at least a PCIe round trip (2 x 300 ns) plus the host
/// DRAM latency (100 ns) per HMB hit; (2) with `hmb.host_dram_latency` 5 us longer
/// the mean rises by (HMB hits / reads) x 5 us. Fails if an HMB hit were free or
/// cost SRAM time (1), or a fixed time independent of the host DRAM latency (2).
#[test]
fn a_demand_paged_hmb_map_hit_costs_a_link_round_trip() {
    let wl = r#"{"rw":"randread","bs":"4k","iodepth":1,"number_ios":3000,"size":"2GiB"}"#;
    let run = |o: &[&str]| simulate(&device("hmb-ssd", o), wl, DriveState::Full, 1, false);
    let base = run(&[]);
    let slow_dram = run(&["hmb.host_dram_latency=\"5100ns\""]);
    // The whole span's 2 MiB of segments fit in a 4 MiB SRAM level (SRAM enlarged
    // to hold it next to the 4 MiB write buffer).
    let all_sram = run(&["map.sram_cache=\"4MiB\"", "sram.size=\"9MiB\""]);
    let reads = f(&base["read"]["total_ios"]);
    assert_eq!(reads, 3000.0);
    let m = &base["device"]["map"];
    let hmb_hits = f(&m["cache_hits"]);
    // Not vacuous: most reads look up the HMB level (the rest are SRAM-level hits
    // and the first touch of each segment).
    assert!(hmb_hits > 0.5 * reads, "{m}");
    assert_eq!(f(&m["hmb"]["read_bytes"]), hmb_hits * 64.0, "{m}");
    // The same lookups in the other runs: the HMB hits are the only difference.
    assert_eq!(slow_dram["device"]["map"]["cache_hits"], m["cache_hits"]);
    assert_eq!(slow_dram["device"]["map"]["misses"], m["misses"]);
    let ms = &all_sram["device"]["map"];
    assert_eq!(f(&ms["cache_hits"]), 0.0, "{ms}");
    assert_eq!(
        f(&ms["l1_hits"]),
        f(&m["l1_hits"]) + hmb_hits,
        "{ms} vs {m}"
    );
    assert_eq!(ms["misses"], m["misses"]);
    let mean = |r: &serde_json::Value| f(&r["read"]["lat_ns"]["mean"]);
    // (1) What an HMB hit costs over an SRAM hit (20 ns).
    let per_hit = (mean(&base) - mean(&all_sram)) * reads / hmb_hits + 20.0;
    assert!(
        per_hit >= 2.0 * 300.0 + 100.0,
        "an HMB hit costs {per_hit} ns (means {} and {} ns, {hmb_hits} HMB hits)",
        mean(&base),
        mean(&all_sram)
    );
    // (2) Each HMB hit waits for the host DRAM.
    let rise = mean(&slow_dram) - mean(&base);
    let expected = hmb_hits / reads * 5000.0;
    assert!(
        (rise - expected).abs() < 0.02 * expected,
        "mean read latency rose {rise} ns, expected {expected} ns ({hmb_hits} HMB hits)"
    );
}
