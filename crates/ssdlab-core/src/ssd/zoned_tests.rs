//! Zoned commands through the event loop, one batch at a time: every zoned error
//! status as the host sees it, zone management (open, close, finish, reset) with its
//! waits, and the read oracle under random writes, reads, resets and finishes at
//! queue depth. The drive: tiny-test with 1 MiB zones over its 4 dies (32 zones, a
//! 32 KiB program unit, one 256 KiB block per die per zone).

use super::{Origin, RunOptions, Ssd};
use crate::config::{load_device, load_workload, DeviceSpec};
use crate::ftl::prep::DriveState;
use crate::sim::{Event, Ns, Rng};
use crate::workload::{Io, OpKind};
use crate::zns::{ZoneAction, ZoneState};
use std::collections::HashMap;

const ZONE: u64 = 1 << 20;

fn drive(over: &[&str], state: DriveState) -> Ssd {
    let mut o = vec!["zns.zone_size_bytes=\"1MiB\"".to_string()];
    o.extend(over.iter().map(|s| s.to_string()));
    let dev = load_device(&DeviceSpec::Preset("tiny-test".into()), &o).unwrap();
    let wl = load_workload("{}", &[], dev.capacity_bytes()).unwrap();
    let opts = RunOptions {
        state,
        seed: 1,
        verify: true,
    };
    Ssd::new(dev, wl, opts).unwrap()
}

/// A command for the batch: an I/O, or a zone action on the zone at a byte offset.
#[derive(Clone, Copy, Debug)]
enum Op {
    Io(OpKind, u64, u64),
    Zone(ZoneAction, u64),
    /// A reset with Select All.
    ResetAll,
}

fn w(off: u64, len: u64) -> Op {
    Op::Io(OpKind::Write, off, len)
}
fn r(off: u64, len: u64) -> Op {
    Op::Io(OpKind::Read, off, len)
}

/// Submit `ops` at once (host job 0, one queue, so decoded in this order) and run
/// until all complete: each one's (completion time, zoned status or None).
fn batch(ssd: &mut Ssd, ops: &[Op]) -> Vec<(Ns, Option<u8>)> {
    let cmds: Vec<u32> = ops
        .iter()
        .map(|&op| match op {
            Op::Io(kind, offset, len) => ssd.submit_cmd(0, Io { kind, offset, len }, Origin::Host),
            Op::Zone(a, zslba) => ssd.zone_send(0, a, zslba),
            Op::ResetAll => ssd.zone_reset_all(0),
        })
        .collect();
    let mut done: HashMap<u32, (Ns, Option<u8>)> = HashMap::new();
    while let Some(ev) = ssd.q.pop() {
        match ev {
            Event::HostComplete { cmd } => {
                let z = ssd.zoned.as_ref().unwrap();
                let st = z.failed.get(&cmd).map(|s| s.code());
                done.insert(cmd, (ssd.now(), st));
                ssd.complete(cmd);
            }
            Event::HostSubmit { .. } | Event::HostIdle { .. } | Event::RampEnd { .. } => {}
            ev => {
                ssd.dispatch(ev);
            }
        }
    }
    assert_eq!(done.len(), cmds.len(), "commands left incomplete (a stall)");
    cmds.iter().map(|c| done[c]).collect()
}

fn statuses(res: &[(Ns, Option<u8>)]) -> Vec<Option<u8>> {
    res.iter().map(|x| x.1).collect()
}

fn state(ssd: &Ssd, zone: u64) -> ZoneState {
    ssd.zoned.as_ref().unwrap().ns.zone(zone).state
}

fn oracle(ssd: &Ssd) -> [u64; 2] {
    let (checked, bad) = ssd.zoned_oracle().unwrap();
    [checked, bad]
}

#[test]
fn every_zoned_error_reaches_the_host() {
    let mut ssd = drive(
        &["zns.max_open_zones=1", "zns.max_active_zones=2"],
        DriveState::Fresh,
    );
    let res = batch(
        &mut ssd,
        &[
            w(0, 8192),                            // zone 0 implicitly open
            w(4096, 4096),                         // not at the write pointer: 0xBC
            Op::Zone(ZoneAction::Close, 2 * ZONE), // close an empty zone: 0xBF
            w(ZONE, 4096),                         // zone 1: zone 0 closed to make room
            w(2 * ZONE, 4096),                     // a third active zone: 0xBD
            r(ZONE - 4096, 8192),                  // a read across zones: 0xB8
            w(32 * ZONE, 4096),                    // past the namespace: 0x80
            w(100, 4096),                          // not in whole LBAs: 0x02
            Op::Io(OpKind::Trim, 0, 8192),         // a trim of part of a zone: 0x02
        ],
    );
    assert_eq!(
        statuses(&res),
        [
            None,
            Some(0xBC),
            Some(0xBF),
            None,
            Some(0xBD),
            Some(0xB8),
            Some(0x80),
            Some(0x02),
            Some(0x02)
        ]
    );
    assert_eq!(state(&ssd, 0), ZoneState::Closed);
    assert_eq!(state(&ssd, 1), ZoneState::ImplicitlyOpen);
    // Explicitly open zone 1; a write to closed zone 0 then needs a second open zone.
    let res = batch(&mut ssd, &[Op::Zone(ZoneAction::Open, ZONE), w(8192, 4096)]);
    assert_eq!(statuses(&res), [None, Some(0xBE)]);
    // Full, read-only and offline zones.
    let res = batch(&mut ssd, &[Op::Zone(ZoneAction::Finish, 0), w(8192, 4096)]);
    assert_eq!(statuses(&res), [None, Some(0xB9)]);
    ssd.zoned.as_mut().unwrap().ns.set_read_only(5);
    ssd.zoned.as_mut().unwrap().ns.set_offline(6);
    let res = batch(
        &mut ssd,
        &[
            w(5 * ZONE, 4096),
            r(5 * ZONE, 4096),
            r(6 * ZONE, 4096),
            w(6 * ZONE, 4096),
        ],
    );
    assert_eq!(statuses(&res), [Some(0xBA), None, Some(0xBB), Some(0xBB)]);
    let st = ssd.zoned_stats().unwrap();
    assert_eq!(st.errors_total, 12);
    assert_eq!(st.errors["0xbc"], 1);
    assert_eq!(st.errors["0xbb"], 2);
    assert_eq!(oracle(&ssd)[1], 0);
}

/// A reset with Select All (a trace's `ZRA`) resets every zone holding data and leaves
/// read-only and offline zones as they are; a reset of those same zones by a trim over
/// the namespace fails on the read-only one.
#[test]
fn a_reset_of_all_zones_skips_read_only_and_offline_ones() {
    let mut ssd = drive(&[], DriveState::Fresh);
    batch(
        &mut ssd,
        &[w(0, 64 << 10), w(ZONE, 32 << 10), w(3 * ZONE, 4096)],
    );
    ssd.zoned.as_mut().unwrap().ns.set_read_only(5);
    ssd.zoned.as_mut().unwrap().ns.set_offline(6);
    let res = batch(&mut ssd, &[Op::ResetAll]);
    assert_eq!(statuses(&res), [None]);
    for z in [0, 1, 3] {
        assert_eq!(state(&ssd, z), ZoneState::Empty, "zone {z}");
    }
    assert_eq!(state(&ssd, 5), ZoneState::ReadOnly);
    assert_eq!(state(&ssd, 6), ZoneState::Offline);
    let zones = ssd.zoned.as_ref().unwrap().ns.zone_count();
    let res = batch(&mut ssd, &[Op::Io(OpKind::Trim, 0, zones * ZONE)]);
    assert_ne!(
        statuses(&res),
        [None],
        "a plain reset of a read-only zone fails"
    );
    let [_, bad] = oracle(&ssd);
    assert_eq!(bad, 0);
}

#[test]
fn finish_pads_the_open_unit_and_the_rest_reads_as_zeroes() {
    let mut ssd = drive(&[], DriveState::Fresh);
    // 40 KiB: one whole 32 KiB unit and 8 KiB of the next.
    batch(&mut ssd, &[w(2 * ZONE, 40 << 10)]);
    let res = batch(&mut ssd, &[Op::Zone(ZoneAction::Finish, 2 * ZONE)]);
    assert_eq!(statuses(&res), [None]);
    assert_eq!(state(&ssd, 2), ZoneState::Full);
    let st = ssd.zoned_stats().unwrap();
    assert_eq!((st.programs, st.pad_programs, st.finishes), (2, 1, 1));
    // Everything written reads from flash; the rest of the zone reads as zeroes.
    let before = st.flash_reads;
    let res = batch(
        &mut ssd,
        &[r(2 * ZONE, 40 << 10), r(2 * ZONE + (40 << 10), 64 << 10)],
    );
    assert_eq!(statuses(&res), [None, None]);
    let st = ssd.zoned_stats().unwrap();
    // 40 KiB over one multi-plane unit (2 pages) and 8 KiB of the next (1 page).
    assert_eq!(st.flash_reads - before, 3);
    let [checked, bad] = oracle(&ssd);
    assert_eq!((checked, bad), (10 + 16, 0));
    // The write buffer holds nothing once the pad program is done.
    assert_eq!(ssd.buffer.used_units(), 0);
}

#[test]
fn a_reset_waits_for_writes_in_flight_and_writes_wait_for_its_erases() {
    let mut ssd = drive(&[], DriveState::Fresh);
    // Writes then a reset of the same zone, all at once: the reset goes after them.
    let mut ops: Vec<Op> = (0..8).map(|i| w(i * (64 << 10), 64 << 10)).collect();
    ops.push(Op::Io(OpKind::Trim, 0, ZONE));
    let res = batch(&mut ssd, &ops);
    assert!(res.iter().all(|x| x.1.is_none()), "{res:?}");
    assert_eq!(state(&ssd, 0), ZoneState::Empty);
    let st = ssd.zoned_stats().unwrap();
    assert_eq!((st.resets, st.reset_bytes), (1, 512 << 10));
    // Half a zone is 16 units: 4 per die, one block on each of the 4 dies.
    assert_eq!(st.erases, 4);
    // Fill zone 0, then reset it and write it again at once: the write waits for the
    // reset's erases and lands at the start of the empty zone.
    batch(&mut ssd, &[w(0, ZONE)]);
    let t0 = ssd.now();
    let res = batch(&mut ssd, &[Op::Io(OpKind::Trim, 0, ZONE), w(0, 64 << 10)]);
    assert_eq!(statuses(&res), [None, None]);
    let t_erase = ssd.cfg.nand.t_erase.ns();
    assert!(
        res[0].0 - t0 >= t_erase,
        "the reset took {} ns",
        res[0].0 - t0
    );
    assert!(res[1].0 > res[0].0, "the write completed before the reset");
    assert_eq!(ssd.zoned.as_ref().unwrap().ns.zone(0).wp, 16);
    // Read the new data and the zeroes after it.
    batch(&mut ssd, &[r(0, 128 << 10)]);
    assert_eq!(oracle(&ssd)[1], 0);
    assert!(oracle(&ssd)[0] >= 32);
}

/// The FTL oracle on a zoned drive: random zoned writes (at write pointers), reads,
/// resets and finishes in batches of up to 24 commands; every read returns the last
/// write of each LBA, and nothing after its zone's reset.
#[test]
fn the_oracle_holds_under_random_zoned_commands_at_queue_depth() {
    let mut ssd = drive(&["zns.max_open_zones=6"], DriveState::Full);
    let mut rng = Rng::new(7);
    let zones = 32u64;
    let cap = ZONE / 4096;
    // The host's idea of each zone's write pointer (in LBAs from its start).
    let mut wp = vec![cap; zones as usize];
    let mut errors = 0;
    let mut total = 0;
    for _ in 0..300 {
        let n = 1 + rng.below(24) as usize;
        let mut ops = Vec::new();
        for _ in 0..n {
            let z = rng.below(8); // 8 zones: often the same one in a batch
            let start = z * ZONE;
            let k = rng.below(100);
            let op = if k < 50 && wp[z as usize] < cap {
                let len = (1 + rng.below(24)).min(cap - wp[z as usize]);
                let off = start + wp[z as usize] * 4096;
                wp[z as usize] += len;
                w(off, len * 4096)
            } else if k < 85 {
                let at = rng.below(cap);
                let len = (1 + rng.below(16)).min(cap - at);
                r(start + at * 4096, len * 4096)
            } else if k < 95 {
                wp[z as usize] = 0;
                Op::Io(OpKind::Trim, start, ZONE)
            } else {
                wp[z as usize] = cap;
                Op::Zone(ZoneAction::Finish, start)
            };
            ops.push(op);
        }
        let res = batch(&mut ssd, &ops);
        total += res.len();
        errors += res.iter().filter(|x| x.1.is_some()).count();
        // Resynchronise the host's write pointers with the drive's.
        for (z, p) in wp.iter_mut().enumerate() {
            let zd = ssd.zoned.as_ref().unwrap().ns.zone(z as u64);
            *p = zd.wp - zd.start;
        }
    }
    let st = ssd.zoned_stats().unwrap();
    let [checked, bad] = oracle(&ssd);
    assert_eq!(bad, 0, "{checked} LBAs checked");
    assert!(checked > 10_000 && st.flash_reads > 500, "{checked} {st:?}");
    assert!(
        st.resets > 50 && st.finishes > 20 && st.pad_programs > 5,
        "{st:?}"
    );
    assert!(errors * 10 < total, "{errors} errors of {total}");
    // The buffer holds only the open zones' partly filled units.
    let partial = ssd.zoned.as_ref().unwrap().partial_units();
    assert_eq!(ssd.buffer.used_units(), partial);
}

/// A drive whose zones may hold a 64 KiB ZRWA (16 LBAs) committed 32 KiB (one program
/// unit, 8 LBAs) at a time.
fn zrwa_drive(extra: &[&str]) -> Ssd {
    let mut o = vec!["zns.zrwa_bytes=\"64KiB\"", "zns.zrwa_flush_bytes=\"32KiB\""];
    o.extend_from_slice(extra);
    drive(&o, DriveState::Fresh)
}

fn zrwa_stats(ssd: &Ssd) -> super::zoned_report::ZrwaStats {
    ssd.zoned_stats().unwrap().zrwa.unwrap()
}

#[test]
fn rewrites_in_a_zrwa_stay_in_the_buffer_until_a_flush_commits_them() {
    let mut ssd = zrwa_drive(&[]);
    assert_eq!(
        statuses(&batch(&mut ssd, &[Op::Zone(ZoneAction::OpenZrwa, 0)])),
        [None]
    );
    // 40 writes of 4 KiB over the ZRWA's 16 LBAs (7 is coprime with 16: all covered).
    let ops: Vec<Op> = (0..40).map(|i| w((i * 7 % 16) * 4096, 4096)).collect();
    let res = batch(&mut ssd, &ops);
    assert!(res.iter().all(|x| x.1.is_none()), "{res:?}");
    let st = ssd.zoned_stats().unwrap();
    assert_eq!((st.programs, st.host_bytes_written), (0, 40 * 4096));
    assert_eq!(zrwa_stats(&ssd).rewritten_bytes, 24 * 4096);
    assert_eq!(ssd.buffer.used_units(), 16, "one copy of each LBA is held");
    assert_eq!(ssd.zoned.as_ref().unwrap().ns.zone(0).wp, 0);
    // Reads come from the buffer.
    batch(&mut ssd, &[r(0, 64 << 10)]);
    assert_eq!(ssd.zoned_stats().unwrap().flash_reads, 0);
    // Commit the ZRWA: two whole program units, the buffer empties.
    let res = batch(
        &mut ssd,
        &[Op::Zone(ZoneAction::FlushZrwa, (64 << 10) - 4096)],
    );
    assert_eq!(statuses(&res), [None]);
    let st = ssd.zoned_stats().unwrap();
    assert_eq!((st.programs, st.pad_programs), (2, 0));
    assert_eq!(zrwa_stats(&ssd).explicit_flushes, 1);
    assert_eq!(ssd.zoned.as_ref().unwrap().ns.zone(0).wp, 16);
    assert_eq!(ssd.buffer.used_units(), 0);
    // Reads now come from flash, and each LBA holds its last write.
    batch(&mut ssd, &[r(0, 64 << 10)]);
    assert!(ssd.zoned_stats().unwrap().flash_reads > 0);
    assert_eq!(oracle(&ssd), [16, 0]);
}

#[test]
fn a_stream_through_a_zrwa_commits_behind_itself_and_finish_pads_the_holes() {
    let mut ssd = zrwa_drive(&[]);
    batch(&mut ssd, &[Op::Zone(ZoneAction::OpenZrwa, ZONE)]);
    // 16 KiB writes from 0 to 256 KiB (LBA 64), all at once: each write past the ZRWA
    // commits whole 8-LBA units, so the write pointer ends at 48, 16 LBAs held.
    let ops: Vec<Op> = (0..16)
        .map(|i| w(ZONE + i * (16 << 10), 16 << 10))
        .collect();
    assert!(batch(&mut ssd, &ops).iter().all(|x| x.1.is_none()));
    assert_eq!(ssd.zoned.as_ref().unwrap().ns.zone(1).wp, ZONE / 4096 + 48);
    let st = ssd.zoned_stats().unwrap();
    assert_eq!(st.programs, 6);
    // Of the 12 writes ending past LBA 16, every other one commits a unit (8 LBAs).
    assert_eq!(zrwa_stats(&ssd).implicit_flushes, 6);
    assert_eq!(ssd.buffer.used_units(), 16);
    // LBA 68 (past the ZRWA end, 64): commits one unit (to 56), leaving 64..68 a hole.
    let res = batch(&mut ssd, &[w(ZONE + 68 * 4096, 4096)]);
    assert_eq!(statuses(&res), [None]);
    assert_eq!(ssd.zoned.as_ref().unwrap().ns.zone(1).wp, ZONE / 4096 + 56);
    // Finish commits what is held, to a whole unit: 56..64 and 64..72 (7 LBAs padded).
    let res = batch(&mut ssd, &[Op::Zone(ZoneAction::Finish, ZONE)]);
    assert_eq!(statuses(&res), [None]);
    assert_eq!(state(&ssd, 1), ZoneState::Full);
    let st = ssd.zoned_stats().unwrap();
    assert_eq!((st.programs, st.pad_programs), (9, 1));
    assert_eq!(ssd.buffer.used_units(), 0);
    assert_eq!(zrwa_stats(&ssd).zones, 0, "a full zone gives its ZRWA back");
    // Written LBAs, the hole and the pad read back as written (the hole as nothing).
    batch(&mut ssd, &[r(ZONE, 72 * 4096)]);
    assert_eq!(oracle(&ssd), [72, 0]);
}

#[test]
fn every_zrwa_error_reaches_the_host() {
    let mut ssd = zrwa_drive(&["zns.max_zrwa_zones=1"]);
    let res = batch(
        &mut ssd,
        &[
            Op::Zone(ZoneAction::OpenZrwa, 0),
            Op::Zone(ZoneAction::OpenZrwa, ZONE), // one ZRWA at a time: 0xB7
            w(32 * 4096, 4096),                   // past ZRWA + implicit region: 0xBC
            Op::Zone(ZoneAction::FlushZrwa, 3 * 4096), // not a whole flush unit: 0x02
            Op::Zone(ZoneAction::FlushZrwa, 2 * ZONE + 7 * 4096), // no ZRWA: 0xB6
            w(8 * 4096, 4096),
            Op::Zone(ZoneAction::FlushZrwa, 7 * 4096), // the first unit: fine
            w(0, 4096),                                // below the write pointer: 0xBC
        ],
    );
    assert_eq!(
        statuses(&res),
        [
            None,
            Some(0xB7),
            Some(0xBC),
            Some(0x02),
            Some(0xB6),
            None,
            None,
            Some(0xBC)
        ]
    );
    // The unit committed holds one written LBA (8) and seven never written.
    let st = ssd.zoned_stats().unwrap();
    assert_eq!((st.programs, st.pad_programs), (1, 1));
    assert_eq!(
        ssd.buffer.used_units(),
        1,
        "LBA 8 is still held in the ZRWA"
    );
}

/// The oracle through ZRWAs: random writes anywhere in each zone's ZRWA and implicit
/// flush region, explicit flushes, reads, finishes and resets (then a new ZRWA) in
/// batches of up to 24 commands over 4 zones.
#[test]
fn the_oracle_holds_through_zrwa_rewrites_and_commits_at_queue_depth() {
    let mut ssd = zrwa_drive(&[]);
    let mut rng = Rng::new(11);
    let cap = ZONE / 4096;
    let zrwa = 16u64;
    batch(
        &mut ssd,
        &(0..4)
            .map(|z| Op::Zone(ZoneAction::OpenZrwa, z * ZONE))
            .collect::<Vec<_>>(),
    );
    let mut wp = [0u64; 4];
    let (mut errors, mut total) = (0, 0);
    for _ in 0..400 {
        let n = 1 + rng.below(24) as usize;
        let mut ops = Vec::new();
        let mut reopen = Vec::new();
        for _ in 0..n {
            let z = rng.below(4);
            let (start, p) = (z * ZONE, wp[z as usize]);
            let k = rng.below(100);
            let op = if k < 55 && p < cap {
                let at = (p + rng.below(2 * zrwa)).min(cap - 1);
                let len = (1 + rng.below(6)).min(cap - at);
                w(start + at * 4096, len * 4096)
            } else if k < 80 {
                let at = rng.below(cap);
                let len = (1 + rng.below(16)).min(cap - at);
                r(start + at * 4096, len * 4096)
            } else if k < 94 && p < cap {
                let upto = (p + 8 * (1 + rng.below(2))).min(cap);
                Op::Zone(ZoneAction::FlushZrwa, start + (upto - 1) * 4096)
            } else if k < 97 {
                Op::Zone(ZoneAction::Finish, start)
            } else {
                reopen.push(start);
                Op::Io(OpKind::Trim, start, ZONE)
            };
            ops.push(op);
        }
        let res = batch(&mut ssd, &ops);
        if !reopen.is_empty() {
            let ops: Vec<Op> = reopen
                .iter()
                .map(|&s| Op::Zone(ZoneAction::OpenZrwa, s))
                .collect();
            batch(&mut ssd, &ops);
        }
        total += res.len();
        errors += res.iter().filter(|x| x.1.is_some()).count();
        for (z, p) in wp.iter_mut().enumerate() {
            let zd = ssd.zoned.as_ref().unwrap().ns.zone(z as u64);
            *p = zd.wp - zd.start;
        }
    }
    let [checked, bad] = oracle(&ssd);
    assert_eq!(bad, 0, "{checked} LBAs checked");
    let st = ssd.zoned_stats().unwrap();
    let zs = st.zrwa.clone().unwrap();
    assert!(checked > 5_000 && st.flash_reads > 200, "{checked} {st:?}");
    assert!(
        zs.rewritten_bytes > 0 && zs.implicit_flushes > 100 && zs.explicit_flushes > 100,
        "{zs:?}"
    );
    assert!(st.resets > 5 && st.finishes > 5, "{st:?}");
    assert!(errors * 3 < total, "{errors} errors of {total}");
    // The buffer holds only what the ZRWAs hold.
    let partial = ssd.zoned.as_ref().unwrap().partial_units();
    assert_eq!(ssd.buffer.used_units(), partial);
}
