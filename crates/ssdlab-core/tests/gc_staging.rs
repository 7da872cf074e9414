//! GC and SLC-fold data staged in the write buffer (`controller.gc_staging =
//! "write-buffer"`): on a DRAM-less controller every page GC or folding moves passes
//! through the SRAM that also buffers host writes, so internal moves and host writes
//! share it. Each test fails without the mechanism.

mod common;

use ssdlab_core::DriveState;

const SEQ_WRITES: &str = r#"{"rw":"write","bs":"128k","iodepth":32,"number_ios":12000}"#;

#[test]
fn folding_through_the_write_buffer_slows_the_post_cache_write() {
    // seed000-hmb-1tb past its SLC cache (sustain: the area full), folding in the
    // foreground one unit per host unit programmed. Unstaged, folds only take die time
    // and the host keeps the 576 KiB buffer to itself; staged, every folded stripe holds
    // buffer room from when it is complete to the end of its TLC program (~500 us), as
    // long as a host stripe does, so the host loses a large share of the buffer.
    let fold = "slc.fold_watermark_blocks=1";
    let off = common::device("seed000-hmb-1tb", &[fold, "controller.gc_staging=\"none\""]);
    let on = common::device(
        "seed000-hmb-1tb",
        &[fold, "controller.gc_staging=\"write-buffer\""],
    );
    let bw = |r: &serde_json::Value| common::f(&r["write"]["bw_bytes"]);
    let r_off = common::simulate(&off, SEQ_WRITES, DriveState::Sustain, 1, false);
    let r_on = common::simulate(&on, SEQ_WRITES, DriveState::Sustain, 1, false);
    let folded = |r: &serde_json::Value| common::f(&r["device"]["slc"]["units_folded"]);
    assert!(folded(&r_off) > 0.0 && folded(&r_on) > 0.0);
    assert!(
        bw(&r_on) < 0.75 * bw(&r_off),
        "staged {} unstaged {}",
        bw(&r_on),
        bw(&r_off)
    );
    // The buffer alone bounds it: host and folded units each hold room for at least a
    // TLC program (450 us), so 576 KiB serve at most 576 KiB / 450 us of host data plus
    // folds, and the folds are as many as the host units.
    let buffer = on.controller.write_buffer.bytes() as f64;
    assert!(bw(&r_on) < buffer / 450e-6, "staged {}", bw(&r_on));
}

#[test]
fn the_oracle_holds_and_nothing_stalls_with_staged_gc() {
    // A toy drive at steady state, GC running all the time, reads checked against the
    // last write, with paced and burst GC. Staged from a complete stripe, GC may hold more
    // room than the buffer has (it is never refused) and host writes wait for it;
    // gathered from its reads, a die that waits for room to gather is woken when room
    // returns, and host writes are never shut out by GC's reservations. Every run ends.
    let mixed =
        r#"{"rw":"randrw","rwmixread":50,"bs":"8k","iodepth":16,"numjobs":2,"number_ios":15000}"#;
    let stagings = [
        "controller.gc_staging=\"write-buffer\"",
        "controller.gc_staging=\"gather\"",
    ];
    let striped = ["ftl.gc_destination=\"striped\""];
    for (staging, extra) in stagings
        .iter()
        .flat_map(|s| [(s, &[][..]), (s, &["ftl.gc_pacing=\"burst\""][..])])
        .chain([(&stagings[1], &striped[..])])
    {
        let mut o = vec![*staging];
        o.extend_from_slice(extra);
        let d = common::device("tiny-test", &o);
        let r = common::simulate(&d, mixed, DriveState::Steady, 3, true);
        assert!(
            r["device"]["stalled"].is_null(),
            "{staging} {extra:?}: {}",
            r["device"]["stalled"]
        );
        let oracle = &r["device"]["oracle"];
        assert!(
            common::f(&oracle["checked"]) > 3_000.0,
            "{staging} {extra:?}: {oracle}"
        );
        assert_eq!(oracle["mismatches"], 0, "{staging} {extra:?}: {oracle}");
        assert!(common::f(&r["device"]["ftl"]["gc_units_copied"]) > 0.0);
    }
}

#[test]
fn staged_gc_slows_steady_random_writes_of_a_small_buffer() {
    // The same toy drive at steady state: GC moves share the write buffer with the host.
    let wl = r#"{"rw":"randwrite","bs":"4k","iodepth":32,"number_ios":20000}"#;
    let iops = |staging: &str| {
        let d = common::device(
            "tiny-test",
            &[&format!("controller.gc_staging=\"{staging}\"")],
        );
        let r = common::simulate(&d, wl, DriveState::Steady, 1, false);
        common::f(&r["write"]["iops"])
    };
    let (off, on) = (iops("none"), iops("write-buffer"));
    assert!(on < off, "staged {on} unstaged {off}");
}

// --- gathered staging (`controller.gc_staging = "gather"`): room from each page's read ---

#[test]
fn striped_gc_writes_keep_the_dies_busy_that_a_small_buffer_starves() {
    // The toy drive at steady state, GC's moves gathered in its 256 KiB buffer from
    // their reads on. With GC writing on each victim's own die, every collecting die
    // holds a part-filled stripe of its own, which fills only as fast as that die reads
    // between its own programs (600 us each): four such stripes hold their room for
    // long, and host writes and whole stripes wait for it (measured: dies 63 % busy).
    // Striped over the dies, the reads of all four dies fill one stripe at a time; the
    // room goes to stripes that program (dies 90 % busy). Unstaged, the two differ by
    // 4.5 % only (GC programs then need no room): the gain is the buffer's.
    let wl = r#"{"rw":"randwrite","bs":"4k","iodepth":32,"number_ios":20000}"#;
    let run = |dest: &str| {
        let d = common::device(
            "tiny-test",
            &[
                "controller.gc_staging=\"gather\"",
                &format!("ftl.gc_destination=\"{dest}\""),
            ],
        );
        let r = common::simulate(&d, wl, DriveState::Steady, 1, false);
        assert!(r["device"]["stalled"].is_null(), "{dest}: stalled");
        let util = common::f(&r["device"]["dies"]["mean_util"]);
        assert!(util <= 1.0, "{dest}: die utilisation {util}");
        (common::f(&r["write"]["iops"]), util)
    };
    let (own_iops, own_util) = run("victim-die");
    let (striped_iops, striped_util) = run("striped");
    assert!(
        striped_util > own_util + 0.1 && striped_iops > 1.2 * own_iops,
        "victim-die {own_iops:.0} IOPS dies {own_util:.2}, striped {striped_iops:.0} dies {striped_util:.2}"
    );
}

#[test]
fn gathering_from_the_reads_slows_the_post_cache_write_further() {
    // The same drive past its SLC cache: gathered, a folded page holds buffer room from
    // its read to the end of its program, not only from its complete stripe, so the
    // host keeps less of the buffer than with "write-buffer" staging.
    let fold = "slc.fold_watermark_blocks=1";
    let bw = |staging: &str| {
        let d = common::device(
            "seed000-hmb-1tb",
            &[fold, &format!("controller.gc_staging=\"{staging}\"")],
        );
        let r = common::simulate(&d, SEQ_WRITES, DriveState::Sustain, 1, false);
        assert!(r["device"]["stalled"].is_null(), "{staging}: stalled");
        let folded = common::f(&r["device"]["slc"]["units_folded"]);
        let host_units = common::f(&r["write"]["io_bytes"]) / 4096.0;
        // Gathered, folding keeps to its pace, one unit per host unit: an idle die may
        // read ahead only into room it holds (unstaged room is die time only, and the
        // "write-buffer" drive reads ahead: 524,032 units for 384,000).
        if staging == "gather" {
            assert!(
                (folded - host_units).abs() < 0.05 * host_units,
                "{staging}: folded {folded} host units {host_units}"
            );
        }
        common::f(&r["write"]["bw_bytes"])
    };
    let (stripe, gathered) = (bw("write-buffer"), bw("gather"));
    assert!(
        gathered < 0.9 * stripe,
        "gathered {gathered} stripe {stripe}"
    );
}

#[test]
fn gathered_gc_slows_steady_random_writes_of_a_small_buffer() {
    // Steady-state random writes on the toy drive: GC's moves share the buffer from
    // their reads on; the host gets less of it than with no staging.
    let wl = r#"{"rw":"randwrite","bs":"4k","iodepth":32,"number_ios":20000}"#;
    let iops = |staging: &str| {
        let d = common::device(
            "tiny-test",
            &[&format!("controller.gc_staging=\"{staging}\"")],
        );
        let r = common::simulate(&d, wl, DriveState::Steady, 1, false);
        assert!(r["device"]["stalled"].is_null(), "{staging}: stalled");
        common::f(&r["write"]["iops"])
    };
    let (off, on) = (iops("none"), iops("gather"));
    assert!(on < off, "gathered {on} unstaged {off}");
}

/// Per 500 ms window of an aged `preset` (980 class) under 4 KiB random writes at
/// QD32 on two queues: host units written, GC units copied, and how many dies are
/// below their GC threshold with a victim claimed.
fn aged_hmb_windows(preset: &str, overrides: &[&str]) -> Vec<(u64, u64, u32)> {
    use ssdlab_core::config::{load_device, load_workload, DeviceSpec};
    use ssdlab_core::{RunOptions, Ssd};
    let overrides: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    let dev = load_device(&DeviceSpec::Preset(preset.into()), &overrides).unwrap();
    let wl = r#"{"rw":"randwrite","bs":"4KiB","iodepth":32,"numjobs":1,"queues":2,"runtime":"4s"}"#;
    let wl = load_workload(wl, &[], dev.capacity_bytes()).unwrap();
    let opts = RunOptions {
        state: DriveState::Aging,
        seed: 1,
        verify: false,
    };
    let mut ssd = Ssd::new(dev, wl, opts).unwrap();
    let t = ssd.ftl.gc_threshold;
    let mut last = (0u64, 0u64);
    let mut windows = Vec::new();
    ssd.run_observed(&mut |_| true, 500_000_000, &mut |s: &Ssd| {
        let st = &s.ftl.stats;
        let (h, g) = (st.host_units_written, st.gc_units_copied);
        let owed = (0..s.ftl.geo.dies)
            .filter(|&d| s.ftl.free_blocks(d) < t && s.ftl.dies[d as usize].victim.is_some())
            .count() as u32;
        windows.push((h - last.0, g - last.1, owed));
        last = (h, g);
    });
    windows
}

#[test]
fn paced_buffer_share_keeps_gc_moving_on_an_aged_dramless_drive() {
    // The gathered staging's SRAM and the map journal are both full under whole-drive
    // random writes; every die is below its GC threshold with a victim. Served first
    // in both (`"paced"`), GC copies in every window and the host's rate is level
    // (the drive's steady state); with `"host-first"` GC on the 1 TB (16 dies, 576 KiB
    // of buffer) finds one of the two full every time and copies nothing for seconds
    // while the host runs at its no-GC rate, until the free blocks reach the urgent
    // floor. (The 500 GB's stalls under host-first were its wholly invalid translation
    // victims, which no longer wait for a pace: tests/map_write_path.rs.) Both with GC
    // writing on each victim's own die, as the preset did until 2026-11-29: striped
    // over the dies (the preset now), one part-filled GC stripe holds little room, and
    // host-first GC copies in every window too (31-41 K units per 500 ms, measured).
    let paced = aged_hmb_windows(
        "seed000-hmb-1tb",
        &[
            "controller.gc_buffer_share=\"paced\"",
            "map.update=\"journal\"",
            "ftl.gc_destination=\"victim-die\"",
        ],
    );
    let host_first = aged_hmb_windows(
        "seed000-hmb-1tb",
        &[
            "controller.gc_buffer_share=\"host-first\"",
            "map.update=\"journal\"",
            "ftl.gc_destination=\"victim-die\"",
        ],
    );
    let settled = &paced[2..paced.len() - 1]; // past the first second, whole windows
    assert!(settled.len() >= 4, "{paced:?}");
    for &(host, gc, owed) in settled {
        assert!(owed > 0 && gc > 0 && host > 0, "paced: {paced:?}");
    }
    let hosts: Vec<f64> = settled.iter().map(|w| w.0 as f64).collect();
    let mean = hosts.iter().sum::<f64>() / hosts.len() as f64;
    for h in &hosts {
        assert!(
            (h / mean - 1.0).abs() < 0.15,
            "paced windows not level: {paced:?}"
        );
    }
    let starved = host_first
        .iter()
        .filter(|&&(host, gc, owed)| owed > 0 && gc == 0 && host > 0)
        .count();
    assert!(starved >= 2, "host-first: {host_first:?}");
}

#[test]
fn paced_buffer_share_folds_while_the_host_writes_past_the_cache() {
    // Past the SLC cache (`sustain`: the area full, folding owed one unit per host unit
    // programmed), 4 KiB random writes from four threads at QD32 over 8 GiB. Paced, the
    // dies' fold stripes are served before the host's writes when the pace says they
    // are owed, and folding keeps up with the host; host writes first, folding never
    // gets a stripe's room while the host keeps the buffer full.
    let folded_per_host = |share: &str| {
        let d = common::device(
            "seed000-hmb",
            &[&format!("controller.gc_buffer_share=\"{share}\"")],
        );
        let wl = r#"{"rw":"randwrite","bs":"4KiB","iodepth":32,"numjobs":4,"size":"8GiB","runtime":"1s"}"#;
        let r = common::simulate(&d, wl, DriveState::Sustain, 1, false);
        assert!(r["device"]["stalled"].is_null(), "{share}: stalled");
        let slc = &r["device"]["slc"];
        let folded = slc["units_folded"].as_u64().unwrap() as f64;
        let host = r["device"]["ftl"]["host_units_written"].as_u64().unwrap() as f64;
        folded / host
    };
    let (paced, host_first) = (folded_per_host("paced"), folded_per_host("host-first"));
    assert!(paced > 0.6, "paced: {paced} folded per host unit");
    assert!(
        host_first < 0.05,
        "host-first: {host_first} folded per host unit"
    );
}

#[test]
fn folding_takes_its_paced_share_of_the_map_journal() {
    // Sixteen threads at QD32 on one queue, random 4 KiB writes over the whole drive
    // past its cache: the map journal is full and host writes always wait for its
    // room. An SLC block folded in the foreground moves one unit per host unit, and
    // its map entries are owed that share of the journal; without it the host's
    // waiting writes took every flush's room and folding stalled (0.06 units folded
    // per host unit on the 1 TB drive).
    let d = common::device("seed000-hmb", &[]);
    let wl =
        r#"{"rw":"randwrite","bs":"4KiB","iodepth":32,"numjobs":16,"queues":1,"runtime":"1500ms"}"#;
    let r = common::simulate(&d, wl, DriveState::Sustain, 1, false);
    assert!(r["device"]["stalled"].is_null(), "stalled");
    let folded = r["device"]["slc"]["units_folded"].as_u64().unwrap() as f64;
    let host = r["device"]["ftl"]["host_units_written"].as_u64().unwrap() as f64;
    assert!(
        folded / host > 0.6,
        "{folded} units folded for {host} host units"
    );
}

#[test]
fn map_writes_of_gc_moves_do_not_pay_its_pace_so_a_write_back_map_keeps_the_host_writing() {
    // With the HMB as a write-back map cache (`map.update = "write-back"`) every unit
    // GC moves dirties a map segment, and each write-allocate evicts a dirty one to a
    // translation page. If those map programs earned GC its pace the loop would feed
    // itself: GC stays behind its pace for good, is served first in the SRAM and copies
    // while the host writes nothing. A map program pays only for the host's share of
    // the map's changes: the host writes, and GC copies, in every window.
    let w = aged_hmb_windows("seed000-hmb-1tb", &["map.update=\"write-back\""]);
    let settled = &w[2..w.len() - 1];
    assert!(settled.len() >= 4, "{w:?}");
    for &(host, gc, _) in settled {
        assert!(host > 0 && gc > 0, "write-back: {w:?}");
    }
}

/// 16 host threads at QD32 on `queues` queues write the aged, write-back 1 TB DRAM-less
/// drive for 21 s: the run must reach its end, not stop as a stall.
fn aged_write_back_16_threads_run_to_the_end(queues: u32) {
    let d = common::device("seed000-hmb-1tb", &["map.update=\"write-back\""]);
    let wl = format!(
        r#"{{"rw":"randwrite","bs":"4KiB","iodepth":32,"numjobs":16,"queues":{queues},"queue_policy":"round-robin","runtime":"21s"}}"#
    );
    let r = common::simulate(&d, &wl, DriveState::Aging, 1, false);
    assert!(r["stalled"].is_null(), "{queues} queues: {}", r["stalled"]);
    assert!(r["sim_time_ns"].as_u64().unwrap() >= 21_000_000_000);
}

#[test]
fn a_waiting_write_is_admitted_once_everything_buffered_is_stranded() {
    // 16 host threads on one queue write the aged 1 TB DRAM-less drive with the HMB as
    // a write-back map cache. At 20.65 s its 576 KiB of SRAM holds 114 units GC has
    // gathered and 32 in open stripes, nothing is queued on any die, and 4,344 writes
    // wait for room: everything buffered is stranded (only more data completes a
    // stripe), so a waiting write may take room (`try_buffer_room`), but the event that
    // made it so woke no one and the run stopped as a stall. With nothing left to
    // happen, the waiting writes are looked at once more.
    aged_write_back_16_threads_run_to_the_end(1);
}

#[test]
fn a_translation_stripe_completed_by_gc_returns_the_room_of_its_map_writes() {
    // GC's moves of translation pages share the die's open translation stripe with the
    // map's own writes, which hold write-buffer room. When a GC move completed such a
    // stripe its program returned no room (a GC program of a translation block was
    // never staged), so those units were lost to the 576 KiB buffer: on the aged,
    // write-back 1 TB DRAM-less drive (16 threads on two queues) 11 units were held by
    // nothing at 20.73 s, with 4,267 writes waiting and no die busy, and the run stopped
    // as a stall.
    aged_write_back_16_threads_run_to_the_end(2);
}

#[test]
fn idle_folds_run_on_many_dies_at_once() {
    // seed000-hmb-1tb in sustain (its SLC area full) and a host idle for 1 s (a start
    // delay): the drive folds in the background. A fold started in idle time has
    // no pace; released all at once, the first die's fold used to reserve stripe after
    // stripe until the 768 KiB buffer was its own, and the dies folded one after the
    // other at one die's TLC program rate: 4 planes x 16 KiB per 450 us = 146 MB/s
    // (207 MB/s measured over this second). Each fold now takes one stripe's room a
    // turn, so a dozen dies fold at once (1,342 MB/s). Without the mechanism this fails.
    let d = common::device("seed000-hmb-1tb", &[]);
    assert_eq!(
        (d.nand.planes_per_die, d.nand.page_size.bytes()),
        (4, 16 * 1024)
    );
    let one_die_bytes_per_s = 4.0 * 16384.0 / 450e-6;
    let r = common::simulate(
        &d,
        r#"{"rw":"write","bs":"4k","iodepth":1,"number_ios":1,"startdelay":"1s"}"#,
        DriveState::Sustain,
        1,
        false,
    );
    let idle_s = 1.0; // the start delay
    let folded_bytes_per_s = common::f(&r["device"]["slc"]["bytes_folded"]) / idle_s;
    assert!(
        folded_bytes_per_s > 4.0 * one_die_bytes_per_s,
        "{:.0} MB/s folded",
        folded_bytes_per_s / 1e6
    );
}
