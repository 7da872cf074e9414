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
