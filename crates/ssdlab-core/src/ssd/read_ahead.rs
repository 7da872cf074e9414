//! Read-ahead in the drive: a host read that continues a sequential stream
//! (`controller::ReadAhead` decides) sends flash reads for the units ahead of it;
//! their data lands in the read cache (its tier: DRAM on a DRAM drive, SRAM on a
//! DRAM-less one, or the HMB), where the stream's next commands find it. A host read
//! of a unit whose prefetch is still in flight waits for that read instead of reading
//! the page again; if the unit was rewritten or moved meanwhile (the fill is
//! skipped), the waiting read goes to the unit's new place.
//!
//! Simplifies: prefetches are translated for free (the firmware does it off the
//! host's path) and only through map entries already at hand (a demand-paged map's
//! cached segments); they queue with host reads on their die.

use super::stats::ReadAheadReport;
use super::Ssd;
use crate::config::memory::DataTier;
use crate::config::DeviceConfig;
use crate::controller::{ReadAhead, TxnKind};
use crate::ftl::UNMAPPED;
use crate::sim::Ns;

/// `Txn::cmd` of a prefetch read (it belongs to no command).
const NO_CMD: u32 = u32::MAX;

/// A host read unit waiting for its prefetch.
#[derive(Clone, Copy, Debug)]
struct Waiter {
    cmd: u32,
    lpn: u32,
    bytes: u64,
}

pub(super) struct ReadAheadRun {
    pub ra: ReadAhead,
    waiters: Vec<Waiter>,
    /// Logical units of the user capacity (read-ahead stops at its end).
    limit_units: u32,
}

impl ReadAheadRun {
    /// The read-ahead of a device with a read cache and `read_cache.read_ahead` > 0.
    pub fn new(cfg: &DeviceConfig) -> Option<Box<Self>> {
        let rc = &cfg.read_cache;
        let unit = cfg.ftl.mapping_unit.bytes().max(1);
        let window = rc.read_ahead.bytes() / unit;
        if window == 0 || cfg.read_cache_placement().is_none() {
            return None;
        }
        Some(Box::new(ReadAheadRun {
            ra: ReadAhead::new(
                window as u32,
                rc.read_ahead_streams,
                rc.read_ahead_trigger,
                (cfg.nand.page_size.bytes() / unit).max(1) as u32,
            ),
            waiters: Vec::new(),
            limit_units: (cfg.capacity_bytes() / unit).min(u32::MAX as u64) as u32,
        }))
    }
}

impl ReadAheadRun {
    pub fn report(&self, unit_bytes: u64) -> ReadAheadReport {
        let s = &self.ra.stats;
        ReadAheadReport {
            window_bytes: self.ra.window_units() as u64 * unit_bytes,
            sequential_reads: s.sequential_reads,
            units: s.units,
            reads: s.reads,
            joined: s.joined,
            dropped: s.dropped,
        }
    }
}

impl Ssd {
    /// A host read of `first..first + n` was decoded: read ahead of its stream.
    #[inline]
    pub(super) fn read_ahead_note(&mut self, first: u32, n: u32) {
        if self.read_ahead.is_some() {
            self.read_ahead_follow(first, n);
        }
    }

    /// Out of line, so that drives without read-ahead pay one test per read.
    #[inline(never)]
    fn read_ahead_follow(&mut self, first: u32, n: u32) {
        let Some(run) = &mut self.read_ahead else {
            return;
        };
        let Some((lo, hi)) = run.ra.on_read(first, n) else {
            return;
        };
        let hi = hi.min(run.limit_units);
        self.read_ahead_issue(lo, hi);
    }

    /// Send flash reads for the units `lo..hi` that are not cached, not on their way,
    /// written and programmed.
    fn read_ahead_issue(&mut self, lo: u32, hi: u32) {
        let held = !self.alloc_waiters.is_empty();
        let mut open: Option<u32> = None;
        for lpn in lo..hi {
            let skip = self.read_cache_holds(lpn)
                || self
                    .read_ahead
                    .as_ref()
                    .is_some_and(|r| r.ra.in_flight(lpn).is_some())
                || (held && self.pending_write_covers(lpn));
            if !skip && self.map.is_some() && !self.map_entry_at_hand(lpn) {
                // No map entry at hand: the window stops here.
                if let Some(r) = &mut self.read_ahead {
                    r.ra.stopped_at(lpn);
                }
                break;
            }
            let pun = if skip {
                UNMAPPED
            } else {
                self.ftl.translate(lpn)
            };
            if pun == UNMAPPED || !self.ftl.is_programmed(pun) {
                if let Some(t) = open.take() {
                    self.read_ahead_send(t);
                }
                continue;
            }
            self.ftl.verify_translate(lpn, pun);
            let bytes = self.unit_bytes;
            if let Some(t) = open {
                if self.extend_read_txn(t, TxnKind::PrefetchRead, pun, lpn, bytes) {
                    continue;
                }
                self.read_ahead_send(t);
            }
            open = Some(self.read_txn(TxnKind::PrefetchRead, NO_CMD, pun, lpn, bytes));
        }
        if let Some(t) = open {
            self.read_ahead_send(t);
        }
    }

    fn read_ahead_send(&mut self, t: u32) {
        let (lpn, n) = {
            let tx = self.txns.get(t);
            (tx.lpn, tx.n)
        };
        if let Some(r) = &mut self.read_ahead {
            r.ra.issued(lpn, n, t);
        }
        self.queue_user_read(t);
    }

    /// Is unit `lpn` on its way from NAND by a prefetch? Then host read `cmd` waits
    /// for it (`bytes` of the unit are the command's); returns whether it waits.
    #[inline(never)]
    pub(super) fn read_ahead_join(&mut self, cmd: u32, lpn: u32, bytes: u64) -> bool {
        let Some(r) = &mut self.read_ahead else {
            return false;
        };
        if r.ra.in_flight(lpn).is_none() {
            return false;
        }
        r.ra.stats.joined += 1;
        r.waiters.push(Waiter { cmd, lpn, bytes });
        true
    }

    /// A prefetch read has its data out of the die: fill the read cache and serve the
    /// host reads that waited for it.
    pub(super) fn prefetch_done(&mut self, t: u32, lpn: u32, pun: u32, n: u32) {
        let filled = self.read_cache_fill(lpn, pun, n, true);
        let now = self.now();
        let Some(r) = &mut self.read_ahead else {
            return;
        };
        r.ra.landed(t);
        r.ra.stats.dropped += (n - filled) as u64;
        if !r.waiters.iter().any(|w| w.lpn.wrapping_sub(lpn) < n) {
            return;
        }
        // Worked on outside the run; any waiter added meanwhile is kept below.
        let mut waiters = std::mem::take(&mut r.waiters);
        let mut i = 0;
        while i < waiters.len() {
            if waiters[i].lpn.wrapping_sub(lpn) < n {
                let w = waiters.swap_remove(i);
                self.read_ahead_serve(now, w);
            } else {
                i += 1;
            }
        }
        let r = self.read_ahead.as_mut().expect("read-ahead");
        let added = std::mem::replace(&mut r.waiters, waiters);
        r.waiters.extend(added);
    }

    /// Serve a host read unit that waited for its prefetch: from the read cache, or,
    /// when the fill was skipped, from wherever the unit is now.
    fn read_ahead_serve(&mut self, now: Ns, w: Waiter) {
        let at = if self.read_cache_lookup(w.lpn) && self.tiers.rc_tier != DataTier::Slc {
            self.read_cache_serve(now, w.bytes)
        } else {
            let pun = self.ftl.translate(w.lpn);
            self.ftl.verify_translate(w.lpn, pun);
            if pun != UNMAPPED && self.ftl.is_programmed(pun) {
                // Rewritten or moved while in flight: read its new place (the command's
                // pending count carries over to the new transaction).
                let t = self.read_txn(TxnKind::UserRead, w.cmd, pun, w.lpn, w.bytes);
                self.counters.user_read_txns += 1;
                self.queue_user_read(t);
                return;
            }
            if pun == UNMAPPED {
                self.counters.unmapped_reads += 1;
                now
            } else {
                self.counters.buffer_hits += 1;
                self.write_buffer_read(now, w.bytes)
            }
        };
        let arrival = self.pcie.send_up(at, w.bytes);
        let c = self.cmds.get_mut(w.cmd);
        c.pending -= 1;
        if c.pending == 0 {
            self.post_completion(w.cmd, arrival - self.pcie.latency);
        }
    }
}
