//! The Zone Random Write Area of a zoned drive in the event loop (`zns.zrwa_bytes`;
//! the commands' rules are the namespace's, `zns/namespace.rs`).
//!
//! A zone opened with a ZRWA keeps the data of its uncommitted LBAs in the controller's
//! write buffer: a write there takes buffer room when admitted, as any write, and when
//! its data arrives an LBA already held is replaced in place and the older copy's room
//! given back at once, so rewrites inside the ZRWA never reach the flash. A commit
//! (a write into the implicit flush region, Flush Explicit ZRWA Range, or Finish)
//! moves the zone's write pointer; each program unit (page x planes x pages per
//! program) wholly below it, whose writes have all arrived, is programmed on the die
//! the zone layout gives it, in order. LBAs of a committed unit the host never wrote
//! are programmed as padding (their room taken then, as a finish's pad). Reads find
//! an LBA on flash once its unit is programmed, in the buffer while it is held or
//! queued, and read zeroes otherwise.
//!
//! Simplifies: the write buffer holds a ZRWA's data as any other write's (no separate
//! ZRWA memory); a commit costs no firmware time beyond the command that causes it;
//! rewrites of an LBA in flight together land in the order their data arrives.

use super::zoned_read::LbaSource;
use super::Ssd;
use std::collections::BTreeSet;

/// What a zone with a ZRWA holds in the controller.
#[derive(Clone, Debug, Default)]
pub(super) struct ZrwaRun {
    /// Zone-relative LBAs whose data is in the buffer, not yet in a program.
    held: BTreeSet<u64>,
    /// Writes accepted whose data has not arrived: (first LBA, LBAs).
    in_flight: Vec<(u64, u64)>,
    /// LBAs from the zone's start that are committed (the write pointer's offset), or
    /// to be programmed (a finish rounds up to a whole program unit).
    committed_lbas: u64,
}

impl ZrwaRun {
    /// LBAs held in the buffer that only a commit turns into programs.
    pub(super) fn held_lbas(&self) -> u64 {
        self.held.len() as u64
    }

    /// Is the zone-relative LBA held in the buffer?
    pub(super) fn holds(&self, lba: u64) -> bool {
        self.held.contains(&lba)
    }
}

impl Ssd {
    /// A write to ZRWA zone `zone` was accepted (LBAs zone-relative): note it in flight,
    /// then program what the namespace committed (a write into the implicit flush
    /// region moves the write pointer).
    pub(super) fn zrwa_write_accepted(&mut self, zone: u64, first: u64, nlb: u64) {
        let z = self.zoned();
        if let Some(r) = z.zone_zrwa_mut(zone) {
            r.in_flight.push((first, nlb));
        }
        self.zrwa_commit(zone, false);
    }

    /// A ZRWA write's data arrived: hold its LBAs (a rewrite gives the older copy's room
    /// back) and program what is committed. Returns the LBAs rewritten.
    pub(super) fn zrwa_data_in(&mut self, zone: u64, first: u64, nlb: u64) -> u64 {
        let z = self.zoned();
        let Some(r) = z.zone_zrwa_mut(zone) else {
            return 0;
        };
        if let Some(k) = r.in_flight.iter().position(|&w| w == (first, nlb)) {
            r.in_flight.swap_remove(k);
        }
        let rewritten = (first..first + nlb).filter(|&l| !r.held.insert(l)).count() as u64;
        z.c.zrwa_rewritten_lbas += rewritten;
        if rewritten > 0 {
            self.release_buffer_room(rewritten);
        }
        self.zrwa_commit(zone, false);
        rewritten
    }

    /// Bring the zone's committed LBAs up to its write pointer (`finish`: to the end of
    /// what it holds, rounded up to a program unit) and queue every program unit wholly
    /// committed whose writes have all arrived, in order.
    pub(super) fn zrwa_commit(&mut self, zone: u64, finish: bool) {
        let z = self.zoned();
        let (zone_lbas, unit_lbas) = (z.zone_lbas, z.unit_lbas());
        let wp = z.ns.zone(zone).wp - zone * zone_lbas;
        let queued = z.zone_queued_units(zone);
        let Some(r) = z.zone_zrwa_mut(zone) else {
            return;
        };
        if finish {
            let end = r.held.last().map_or(0, |&l| l + 1).max(r.committed_lbas);
            r.committed_lbas = end.div_ceil(unit_lbas) * unit_lbas;
        } else {
            r.committed_lbas = r.committed_lbas.max(wp);
        }
        let mut units = Vec::new();
        let mut u = queued;
        while (u + 1) * unit_lbas <= r.committed_lbas {
            let (lo, hi) = (u * unit_lbas, (u + 1) * unit_lbas);
            if r.in_flight.iter().any(|&(f, n)| f < hi && f + n > lo) {
                break; // a write into the unit has not arrived
            }
            let present = r.held.range(lo..hi).count() as u64;
            r.held.retain(|&l| !(lo..hi).contains(&l));
            units.push((u, unit_lbas - present));
            u += 1;
        }
        for (unit, pad) in units {
            self.zoned().zone_set_queued(zone, unit + 1);
            if pad > 0 {
                self.buffer.take(pad); // the program releases a whole unit's room
            }
            self.zoned_queue_program(zone, unit, pad > 0);
        }
    }

    /// Where a read of zone-relative LBA `lba` of ZRWA zone `zone` finds its data.
    pub(super) fn zrwa_source(&self, zone: u64, lba: u64) -> LbaSource {
        let z = self.zoned.as_ref().expect("a zoned drive");
        let unit = lba / z.unit_lbas();
        if z.zone_programmed(zone, unit) {
            LbaSource::Flash
        } else if unit < z.zone_queued_units(zone)
            || z.zone_zrwa(zone).is_some_and(|r| r.holds(lba))
        {
            LbaSource::Buffer
        } else {
            LbaSource::Zero
        }
    }
}
