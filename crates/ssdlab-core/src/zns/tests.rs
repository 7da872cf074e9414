use super::layout::{FlashPage, Geometry};
use super::*;
use crate::sim::Rng;
use std::collections::HashMap;

fn cfg(json: &str) -> ZnsConfig {
    serde_json::from_str(json).unwrap()
}

/// 8 zones of 16 LBAs (4 KiB), capacity 12, at most 2 open and 3 active.
fn ns() -> Namespace {
    Namespace::new(
        &cfg(
            r#"{"zone_size_bytes":"64KiB","zone_capacity_bytes":"48KiB","max_open_zones":2,
                 "max_active_zones":3,"zone_append_max_bytes":"16KiB"}"#,
        ),
        8,
    )
}

fn state(n: &Namespace, z: u64) -> ZoneState {
    n.zone(z).state
}

#[test]
fn writes_move_the_write_pointer_and_fill_zones() {
    let mut n = ns();
    assert_eq!(state(&n, 0), ZoneState::Empty);
    n.write(0, 4).unwrap();
    assert_eq!((state(&n, 0), n.zone(0).wp), (ZoneState::ImplicitlyOpen, 4));
    assert_eq!((n.open_zones(), n.active_zones()), (1, 1));
    n.write(4, 8).unwrap(); // reaches the capacity (12): full, resources released
    assert_eq!(state(&n, 0), ZoneState::Full);
    assert_eq!((n.open_zones(), n.active_zones()), (0, 0));
    assert_eq!(n.write(12, 1), Err(ZnsStatus::ZoneIsFull));
    assert_eq!(n.host_lbas_written, 12);
}

#[test]
fn every_zoned_write_error() {
    let mut n = ns();
    assert_eq!(n.write(3, 1), Err(ZnsStatus::ZoneInvalidWrite));
    assert_eq!(n.write(16, 13), Err(ZnsStatus::ZoneBoundaryError)); // past capacity
    assert_eq!(n.write(8 * 16, 1), Err(ZnsStatus::LbaOutOfRange));
    assert_eq!(ZnsStatus::ZoneInvalidWrite.code(), 0xBC);
    // Open limit 2: explicitly open zones are never closed for room.
    n.send(ZoneAction::Open, 0, false).unwrap();
    n.send(ZoneAction::Open, 16, false).unwrap();
    assert_eq!(n.write(32, 1), Err(ZnsStatus::TooManyOpenZones));
    assert_eq!(ZnsStatus::TooManyOpenZones.code(), 0xBE);
    // Implicitly open zones are closed to make room.
    n.send(ZoneAction::Close, 0, false).unwrap(); // nothing written: back to empty
    assert_eq!(state(&n, 0), ZoneState::Empty);
    n.write(32, 1).unwrap();
    n.write(48, 1).unwrap(); // at the open limit: zone 2, implicitly open, is closed
    assert_eq!(state(&n, 2), ZoneState::Closed); // closed for room, still active
    assert_eq!((n.open_zones(), n.active_zones()), (2, 3));
    assert_eq!(n.write(64, 1), Err(ZnsStatus::TooManyActiveZones));
    assert_eq!(ZnsStatus::TooManyActiveZones.code(), 0xBD);
    // Read-only and offline zones.
    n.set_read_only(5);
    assert_eq!(n.write(80, 1), Err(ZnsStatus::ZoneIsReadOnly));
    assert!(n.read(80, 1).is_ok());
    n.send(ZoneAction::Offline, 80, false).unwrap();
    assert_eq!(n.write(80, 1), Err(ZnsStatus::ZoneIsOffline));
    assert_eq!(n.read(80, 1), Err(ZnsStatus::ZoneIsOffline));
    assert_eq!(n.read(14, 4), Err(ZnsStatus::ZoneBoundaryError));
    assert_eq!(
        n.send(ZoneAction::Reset, 80, false),
        Err(ZnsStatus::InvalidZoneStateTransition)
    );
    assert_eq!(ZnsStatus::InvalidZoneStateTransition.code(), 0xBF);
}

#[test]
fn zone_append_returns_the_lba_and_checks_its_limits() {
    let mut n = ns();
    assert_eq!(n.append(16, 2), Ok(16));
    assert_eq!(n.append(16, 4), Ok(18));
    assert_eq!(n.append(17, 1), Err(ZnsStatus::InvalidField)); // not a zone start
    assert_eq!(n.append(16, 5), Err(ZnsStatus::InvalidField)); // beyond 16 KiB ZASL
    assert_eq!(n.append(16, 4), Ok(22));
    assert_eq!(n.append(16, 4), Err(ZnsStatus::ZoneBoundaryError)); // 26 + 4 > 28
    assert_eq!(n.append(16, 2), Ok(26)); // fills it
    assert_eq!(n.append(16, 1), Err(ZnsStatus::ZoneIsFull));
}

#[test]
fn management_transitions_follow_the_state_machine() {
    let mut n = ns();
    use ZoneAction::*;
    assert_eq!(
        n.send(Close, 0, false),
        Err(ZnsStatus::InvalidZoneStateTransition)
    );
    n.send(Open, 0, false).unwrap();
    assert_eq!(state(&n, 0), ZoneState::ExplicitlyOpen);
    n.write(0, 2).unwrap();
    assert_eq!(state(&n, 0), ZoneState::ExplicitlyOpen); // stays explicit
    n.send(Close, 0, false).unwrap();
    assert_eq!(state(&n, 0), ZoneState::Closed);
    n.write(2, 2).unwrap(); // a closed zone opens implicitly
    assert_eq!(state(&n, 0), ZoneState::ImplicitlyOpen);
    n.send(Finish, 0, false).unwrap();
    assert_eq!((state(&n, 0), n.zone(0).wp), (ZoneState::Full, 12));
    assert_eq!(
        n.send(Open, 0, false),
        Err(ZnsStatus::InvalidZoneStateTransition)
    );
    n.send(Finish, 16, false).unwrap(); // empty -> full
    assert_eq!(state(&n, 1), ZoneState::Full);
    n.send(Reset, 0, false).unwrap();
    assert_eq!(
        (state(&n, 0), n.zone(0).wp, n.resets, n.reset_lbas),
        (ZoneState::Empty, 0, 1, 12)
    );
    assert_eq!(n.send(Reset, 1, false), Err(ZnsStatus::InvalidField)); // not a zone start
                                                                       // Select All.
    n.write(32, 1).unwrap();
    n.write(48, 1).unwrap();
    n.send(Close, 0, true).unwrap();
    assert_eq!(
        (state(&n, 2), state(&n, 3), n.open_zones()),
        (ZoneState::Closed, ZoneState::Closed, 0)
    );
    n.send(Open, 0, true).unwrap();
    assert_eq!(n.open_zones(), 2);
    n.send(Reset, 0, true).unwrap();
    assert!((0..8).all(|z| state(&n, z) == ZoneState::Empty));
    assert_eq!((n.open_zones(), n.active_zones()), (0, 0));
    // Report Zones: all, or only those in a state.
    n.write(16, 3).unwrap();
    let all = n.report(0, 100, None).unwrap();
    assert_eq!(all.len(), 8);
    assert_eq!(
        (all[1].wp, all[1].capacity, all[1].state.code()),
        (19, 12, 0x2)
    );
    let open = n.report(0, 100, Some(ZoneState::ImplicitlyOpen)).unwrap();
    assert_eq!(open.iter().map(|d| d.start).collect::<Vec<_>>(), vec![16]);
    assert_eq!(n.report(32, 2, None).unwrap().len(), 2);
}

#[test]
fn conventional_zones_take_random_writes() {
    let mut n = Namespace::new(
        &cfg(r#"{"zone_size_bytes":"64KiB","conventional_zones":1}"#),
        4,
    );
    n.write(5, 2).unwrap();
    n.write(0, 1).unwrap();
    assert_eq!(n.write(15, 2), Err(ZnsStatus::ZoneBoundaryError)); // into zone 1
    assert_eq!(n.append(0, 1), Err(ZnsStatus::InvalidField));
    assert_eq!(
        n.report(0, 1, None).unwrap()[0].zone_type,
        ZoneType::Conventional
    );
}

fn geo() -> Geometry {
    Geometry {
        dies: 8,
        planes_per_die: 2,
        blocks_per_plane: 64,
        pages_per_block: 12,
        page_bytes: 16384,
        pages_per_program: 3,
    }
}

#[test]
fn the_layout_is_a_bijection_within_and_across_zones() {
    let c = cfg(r#"{"zone_size_bytes":"4MiB","zone_capacity_bytes":"3MiB","zone_width_dies":4}"#);
    let l = Layout::new(&c, geo()).unwrap();
    // 3 MiB over 4 dies x 2 planes x 192 KiB blocks: 2 blocks a plane; 2 groups x 32.
    assert_eq!(l.zones(), 64);
    let mut seen = HashMap::new();
    for z in [0, 1, 2, 63] {
        for off in (0..3 << 20).step_by(16384) {
            let p = l.page_at(z, off);
            assert!(
                p.block < 64 && p.page < 12 && p.plane < 2 && p.die < 8,
                "{p:?}"
            );
            assert!(seen.insert(p, (z, off)).is_none(), "{p:?} twice");
        }
    }
    // Sequential data spreads over the zone's dies, a program unit (96 KiB) each.
    let dies: Vec<u32> = (0..4).map(|u| l.page_at(1, u * 98304).die).collect();
    assert_eq!(dies, vec![4, 5, 6, 7]);
    assert_eq!(l.blocks_to_erase(0), 0);
    assert_eq!(l.blocks_to_erase(4096), 2); // one die, both planes
    assert_eq!(l.blocks_to_erase(3 << 20), 16); // every block of the zone
                                                // The map: 8 bytes a zone, where a 4 KiB page map needs 4 bytes per 4 KiB.
    assert_eq!(l.map_bytes(), 64 * 8);
}

/// The FTL oracle on a zoned drive: random zoned commands (writes at write pointers,
/// appends, resets, finishes), each written LBA stored at its flash page; every read
/// returns the last write, or nothing after a reset.
#[test]
fn reads_return_the_last_write_on_a_zoned_drive() {
    let c = cfg(
        r#"{"zone_size_bytes":"4MiB","zone_capacity_bytes":"3MiB","zone_width_dies":4,
            "max_open_zones":4,"max_active_zones":6,"zone_append_max_bytes":"64KiB"}"#,
    );
    let l = Layout::new(&c, geo()).unwrap();
    let mut n = Namespace::new(&c, l.zones());
    // (flash page, 4 KiB sector in it) -> (lba, version)
    let mut flash: HashMap<(FlashPage, u64), (u64, u64)> = HashMap::new();
    let mut truth: HashMap<u64, u64> = HashMap::new();
    let mut rng = Rng::derive(27, 1);
    let zl = n.zone_lbas();
    let key = |lba: u64| (l.page_of_lba(lba), (lba % zl) % 4);
    let (mut version, mut errors) = (0u64, 0u64);
    for _ in 0..20_000 {
        let z = rng.below(12);
        let zs = z * zl;
        match rng.below(100) {
            0 => {
                if n.send(ZoneAction::Reset, zs, false).is_ok() {
                    for lba in zs..zs + zl {
                        truth.remove(&lba);
                    }
                    flash.retain(|_, (lba, _)| *lba < zs || *lba >= zs + zl);
                }
            }
            1 => errors += n.send(ZoneAction::Finish, zs, false).is_err() as u64,
            2..=49 => {
                let nlb = 1 + rng.below(16);
                let at = match rng.below(2) {
                    0 => n.append(zs, nlb),
                    _ => {
                        let wp = n.zone(z).wp;
                        n.write(wp, nlb).map(|_| wp)
                    }
                };
                match at {
                    Ok(lba) => {
                        for x in lba..lba + nlb {
                            version += 1;
                            truth.insert(x, version);
                            flash.insert(key(x), (x, version));
                        }
                    }
                    Err(_) => errors += 1,
                }
            }
            _ => {
                let lba = zs + rng.below(zl);
                if n.read(lba, 1).is_ok() {
                    let got = flash.get(&key(lba)).filter(|(x, _)| *x == lba);
                    assert_eq!(got.map(|g| g.1), truth.get(&lba).copied(), "lba {lba}");
                }
            }
        }
    }
    assert!(
        n.resets > 10 && errors > 0 && truth.len() > 1000,
        "{} {errors}",
        n.resets
    );
    for (lba, v) in &truth {
        assert_eq!(flash[&key(*lba)], (*lba, *v));
    }
}

#[test]
fn config_errors_name_the_field() {
    let bad = cfg(
        r#"{"zone_size_bytes":"64KiB","zone_capacity_bytes":"128KiB","max_open_zones":9,"max_active_zones":4}"#,
    );
    let e = bad.validate(8).unwrap_err();
    assert!(
        e.contains("zns.zone_capacity_bytes") && e.contains("zns.max_open_zones"),
        "{e}"
    );
    let e = cfg(r#"{"zone_size_bytes":"64KiB","zone_width_dies":16}"#)
        .validate(8)
        .unwrap_err();
    assert!(e.contains("zns.zone_width_dies: 16"), "{e}");
    let e = cfg(r#"{"zone_size_bytes":"64KiB","zrwa_bytes":"64KiB"}"#)
        .validate(8)
        .unwrap_err();
    assert!(e.contains("zns.zrwa_flush_bytes"), "{e}");
    assert!(
        serde_json::from_str::<ZnsConfig>(r#"{"zone_size_bytes":"1MiB","zone_sise":1}"#).is_err()
    );
}

/// 4 zones of 64 LBAs with a ZRWA of 8 LBAs flushed 2 at a time, at most 2 ZRWAs.
fn ns_zrwa() -> Namespace {
    Namespace::new(
        &cfg(
            r#"{"zone_size_bytes":"256KiB","zrwa_bytes":"32KiB","zrwa_flush_bytes":"8KiB",
                 "max_zrwa_zones":2}"#,
        ),
        4,
    )
}

#[test]
fn a_zrwa_takes_writes_anywhere_in_it_and_commits_past_it() {
    let mut n = ns_zrwa();
    n.send(ZoneAction::OpenZrwa, 0, false).unwrap();
    assert!(n.zone(0).zrwa && state(&n, 0) == ZoneState::ExplicitlyOpen);
    // Anywhere in the ZRWA [0, 8), as often as the host likes: the pointer stays.
    for (lba, nlb) in [(5, 2), (0, 1), (5, 3), (7, 1), (0, 8)] {
        n.write(lba, nlb).unwrap();
    }
    assert_eq!((n.zone(0).wp, n.host_lbas_written), (0, 15));
    // Into the implicit flush region [8, 16): commits whole flush units (2 LBAs).
    n.write(8, 1).unwrap(); // end 9: one unit past the ZRWA end -> wp 2
    assert_eq!((n.zone(0).wp, n.zrwa_implicit_flushes), (2, 1));
    n.write(13, 2).unwrap(); // end 15, ZRWA end 10: 5 LBAs -> 3 units -> wp 8
    assert_eq!(n.zone(0).wp, 8);
    // Below the write pointer, or past the implicit flush region: 0xBC.
    assert_eq!(n.write(7, 1), Err(ZnsStatus::ZoneInvalidWrite));
    assert_eq!(n.write(23, 2), Err(ZnsStatus::ZoneInvalidWrite)); // end 25 > 8 + 16
                                                                  // Explicit flush: up to and including an LBA, whole units, inside the ZRWA.
    assert_eq!(
        n.send(ZoneAction::FlushZrwa, 8, false),
        Err(ZnsStatus::InvalidField)
    ); // 1 LBA
    assert_eq!(
        n.send(ZoneAction::FlushZrwa, 17, false),
        Err(ZnsStatus::InvalidField)
    ); // past it
    assert_eq!(
        n.send(ZoneAction::FlushZrwa, 7, false),
        Err(ZnsStatus::InvalidField)
    ); // committed
    n.send(ZoneAction::FlushZrwa, 11, false).unwrap();
    assert_eq!((n.zone(0).wp, n.zrwa_explicit_flushes), (12, 1));
    // No Zone Append to a zone with a ZRWA; no flush of a zone without one.
    assert_eq!(n.append(0, 1), Err(ZnsStatus::InvalidZoneOperation));
    assert_eq!(
        n.send(ZoneAction::FlushZrwa, 64 + 3, false),
        Err(ZnsStatus::InvalidZoneOperation)
    );
    assert_eq!(ZnsStatus::InvalidZoneOperation.code(), 0xB6);
    // Sequential writes to the capacity leave the last ZRWA uncommitted; a flush to the
    // capacity (any length) fills the zone and gives its ZRWA back.
    for lba in (12..60).step_by(8) {
        n.write(lba, 8).unwrap();
    }
    n.write(60, 4).unwrap();
    assert_eq!(
        (n.zone(0).wp, state(&n, 0)),
        (56, ZoneState::ExplicitlyOpen)
    );
    n.send(ZoneAction::FlushZrwa, 63, false).unwrap();
    assert_eq!(
        (state(&n, 0), n.zone(0).zrwa, n.zrwa_zones()),
        (ZoneState::Full, false, 0)
    );
}

#[test]
fn zrwa_resources_opens_and_what_gives_them_back() {
    let mut n = ns_zrwa();
    n.send(ZoneAction::OpenZrwa, 0, false).unwrap();
    n.send(ZoneAction::OpenZrwa, 64, false).unwrap();
    assert_eq!(
        n.send(ZoneAction::OpenZrwa, 128, false),
        Err(ZnsStatus::ZrwaResourcesUnavailable)
    );
    assert_eq!(ZnsStatus::ZrwaResourcesUnavailable.code(), 0xB7);
    // Only an empty zone may be opened with a ZRWA.
    n.write(192, 1).unwrap();
    assert_eq!(
        n.send(ZoneAction::OpenZrwa, 192, false),
        Err(ZnsStatus::InvalidZoneStateTransition)
    );
    // Closed with nothing committed, a ZRWA zone stays closed (it may hold data).
    n.write(0, 4).unwrap();
    n.send(ZoneAction::Close, 0, false).unwrap();
    assert_eq!((state(&n, 0), n.zone(0).zrwa), (ZoneState::Closed, true));
    // Reset and finish give the ZRWA back.
    n.send(ZoneAction::Reset, 0, false).unwrap();
    n.send(ZoneAction::Finish, 64, false).unwrap();
    assert_eq!(n.zrwa_zones(), 0);
    assert!(!n.zone(0).zrwa && !n.zone(64 / 64).zrwa);
    let r = n.report(0, 4, None).unwrap();
    assert!(r.iter().all(|d| !d.zrwa));
    // A namespace without a ZRWA refuses the open.
    let mut plain = ns();
    assert_eq!(
        plain.send(ZoneAction::OpenZrwa, 0, false),
        Err(ZnsStatus::InvalidField)
    );
    assert!(ZnsConfig {
        max_zrwa_zones: 1,
        ..cfg(r#"{"zone_size_bytes":"64KiB"}"#)
    }
    .validate(4)
    .is_err());
}
