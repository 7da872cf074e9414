//! Garbage collection and SLC folding driven on the device's timeline: when a die
//! starts a victim (low on free blocks, or background work in host idle time), how
//! GC's page reads are released to the die (paced against host writes, or in a
//! burst), the copies' programs and the victim's erase. The FTL (`ftl/gc.rs`)
//! chooses victims and keeps the books; this module issues the flash work.
//!
//! Simplifies: a victim's valid units are read page by page and re-placed through
//! the FTL's GC stream (no copyback); folding moves SLC data as GC moves victims.

use super::Ssd;
use crate::config::{GcPacing, GcStaging};
use crate::controller::{Release, Txn, TxnKind};

impl Ssd {
    /// Start collecting on a die that ran low on free blocks, or folding its SLC
    /// area when that is below the watermark (or the host is idle).
    pub(super) fn maybe_start_gc(&mut self, die: u32) {
        if self.ftl.needs_gc(die) {
            self.start_victim(die);
        } else {
            if self.dq[die as usize].gc.unreleased() {
                // A host block was opened: the pace may have reached the urgent floor.
                self.release_gc(die, false);
            }
            self.maybe_fold(die);
        }
    }

    /// Work a die does when nothing forces it: fold SLC (below the watermark, or the
    /// host idle), else background GC while the host is idle.
    pub(super) fn background_work(&mut self, die: u32) {
        self.maybe_fold(die);
        let bg = self.cfg.ftl.background_gc_blocks;
        if self.host_idle
            && !self.ftl.collecting(die)
            && self.ftl.free_blocks(die) < bg
            && self.start_victim(die)
        {
            self.background_gcs += 1;
        }
    }

    /// Fold the die's oldest full SLC block into native-mode blocks, if it should.
    pub(super) fn maybe_fold(&mut self, die: u32) {
        let idle = self.host_idle && self.cfg.slc.fold_when_idle;
        if self
            .ftl
            .wants_fold(die, self.cfg.slc.fold_watermark_blocks, idle)
        {
            if let Some(b) = self.ftl.start_fold(die) {
                if idle || self.cfg.ftl.gc_pacing == GcPacing::Burst {
                    self.collect(die, b);
                } else {
                    // In the foreground: one unit folded per host unit programmed, and
                    // its map entries take journal room at that pace too.
                    self.journal_pace(die, 1.0);
                    self.dq[die as usize]
                        .gc
                        .start_fold(b, self.geo.units_per_block);
                    self.collection_started(die);
                }
            }
        }
    }

    /// Claim a GC victim and collect it; false if there was none to claim.
    pub(super) fn start_victim(&mut self, die: u32) -> bool {
        if self.ftl.collecting(die) {
            return false;
        }
        let Some(victim) = self.ftl.start_gc(die) else {
            return false;
        };
        self.collect(die, victim);
        true
    }

    /// Start collecting a claimed victim (a GC victim or an SLC block to fold): its
    /// reads are released at the configured pace (`controller::gc_pacing`); its erase
    /// follows the last relocation.
    pub(super) fn collect(&mut self, die: u32, victim: u32) {
        let valid = self.ftl.valid_count(victim);
        // A victim with nothing valid has nothing to pace (its pace would be 0 units per
        // host unit, never earning the reads that reach its erase): a die at its GC
        // threshold erases it when idle (or at the urgent floor), one below it at once.
        let lazy = valid > 0 || self.ftl.free_blocks(die) >= self.ftl.gc_threshold;
        let paced =
            self.cfg.ftl.gc_pacing == GcPacing::Paced && !self.geo.is_slc_block(victim) && lazy;
        if paced && !self.ftl.is_map_block(victim) {
            self.journal_user_victim(die, valid, self.geo.units_per_block);
        }
        self.dq[die as usize]
            .gc
            .start(victim, valid, self.geo.units_per_block, paced);
        self.collection_started(die);
    }

    /// A victim's pace is set: queue what it allows and let the die work.
    fn collection_started(&mut self, die: u32) {
        self.release_gc(die, false);
        self.kick_die(die);
    }

    /// Queue what the pace allows of the die's victim: page reads of its valid data,
    /// plane by plane in physical order, or its erase once every read is done.
    /// `idle`: the die has nothing else to do. Returns whether anything was queued.
    pub(super) fn release_gc(&mut self, die: u32, idle: bool) -> bool {
        let d = die as usize;
        let upp = self.geo.units_per_page;
        let ups = self.geo.units_per_stripe;
        let urgent = self.cfg.ftl.gc_urgent_blocks;
        let mut queued = false;
        while self.dq[d].gc.active {
            let g = self.dq[d].gc;
            if g.next >= g.end {
                if g.reads_left == 0 {
                    self.dq[d].gc.finish();
                    self.queue_erase(die, g.victim);
                    self.gather_victim_done(die);
                    return true;
                }
                break;
            }
            let was_paced = g.is_paced();
            let free = self.ftl.free_blocks(die);
            if self.journal_holds_gc(die, free, urgent) {
                break; // released again when journal flushes make room
            }
            // Gathered staging: the die's moved pages take write-buffer room from their
            // read on, and reads of room it has reserved go whatever the pace.
            let staged = self.gc_staging == GcStaging::Gather && !self.ftl.is_map_block(g.victim);
            let mut release = self.dq[d].gc.decide(free, urgent, idle && !queued);
            if release == Release::Wait {
                if !(staged && self.gather.has_room(die)) {
                    break;
                }
                release = Release::One;
            }
            let all = release == Release::All;
            if was_paced && !self.dq[d].gc.is_paced() {
                self.counters.gc_urgent_victims += 1;
            }
            // Look at pages until one holds valid data, then release the rest of its
            // stripe row with it (or, for All, go to the end): firmware reads a victim
            // a multi-plane page at a time, so a paced read is one multi-plane read of
            // the row's pages that hold valid data, not one plane's page.
            let base = self.geo.block_base(g.victim);
            let mut p = g.next;
            let mut no_room = false;
            let mut row_started = false;
            // A collection without a pace (an SLC block folded in idle time) released
            // all at once would reserve stripe after stripe until the buffer is its
            // own, and the other dies would fold one after the other: it takes one
            // stripe's room a turn, and more when its die is idle again (as the other
            // dies, served in turn).
            let one_stripe = staged && all && !g.is_paced() && free > urgent;
            let mut reserved_new = false;
            let mut turn_over = false;
            while p < g.end {
                if row_started && !all && p.is_multiple_of(ups) {
                    break; // the row is released
                }
                let valid = self.valid_units_of_page(base + p);
                if staged && valid > 0 {
                    if one_stripe && !self.gather.has_room_for(die, valid) {
                        if reserved_new {
                            turn_over = true;
                            break;
                        }
                        reserved_new = true;
                    }
                    // An idle die's reads ahead use the room it holds, never new room:
                    // its time is free, the buffer it would take from the host is not.
                    let ahead = release == Release::Ahead;
                    if !self.gather_reserve(die, valid, ahead, free <= urgent) {
                        no_room = true; // woken when room returns, or by the pace
                        break;
                    }
                }
                self.gc_read(die, g.victim, base + p, valid);
                p += upp;
                if valid > 0 {
                    let gc = &mut self.dq[d].gc;
                    gc.read_queued();
                    if release != Release::Ahead {
                        gc.charge(valid);
                    }
                    queued = true;
                    row_started = true;
                }
            }
            self.dq[d].gc.advance_to(p);
            if no_room || turn_over {
                break;
            }
        }
        queued
    }

    /// Valid units of the page holding unit `p` (counted once per page read: the
    /// gathered staging's reservation and the read use the same count).
    fn valid_units_of_page(&self, p: u32) -> u32 {
        let mut valid = 0;
        for u in p..p + self.geo.units_per_page {
            let lpn = self.ftl.lpn_of(u);
            if lpn != crate::ftl::UNMAPPED {
                valid += 1;
                // The relocation will update this map entry once the read is done.
                self.ftl.prefetch_lpn(lpn);
            }
        }
        valid
    }

    /// Queue the GC read of the page holding unit `p` of `victim` if the page has
    /// `valid` valid units (`valid_units_of_page`).
    pub(super) fn gc_read(&mut self, die: u32, victim: u32, p: u32, valid: u32) {
        let upp = self.geo.units_per_page;
        if valid > 0 {
            let t = self.txns.insert(Txn {
                kind: TxnKind::GcRead,
                cmd: 0,
                die,
                plane: self.geo.plane_of(p),
                page: self.geo.page_of(p),
                block: victim,
                pun: p,
                lpn: 0,
                n: upp,
                bytes: valid as u64 * self.unit_bytes,
                erase_count: 0,
                seq: 0,
            });
            self.stamp(t);
            self.dq[die as usize].gc_reads.push_back(t);
            self.counters.gc_reads += 1;
            self.journal_gc_reads(valid, true);
        }
    }

    pub(super) fn queue_erase(&mut self, die: u32, block: u32) {
        self.queue_erase_txn(die, block, 0, 0, 0);
    }

    /// Queue an erase of `block` on `die`, carrying `cmd`, `pun` and `lpn` for whoever
    /// handles its end (GC: none; a zone reset: its command, the block's first unit and
    /// the zone).
    pub(super) fn queue_erase_txn(&mut self, die: u32, block: u32, cmd: u32, pun: u32, lpn: u32) {
        let t = self.txns.insert(Txn {
            kind: TxnKind::Erase,
            cmd,
            die,
            plane: 0,
            page: 0,
            block,
            pun,
            lpn,
            n: 0,
            bytes: 0,
            erase_count: 0,
            seq: 0,
        });
        self.stamp(t);
        self.dq[die as usize].erases.push_back(t);
    }

    /// Victim data is in the controller: move still-valid units to the GC frontier.
    pub(super) fn gc_read_done(&mut self, t: u32) {
        let tx = *self.txns.get(t);
        self.txns.remove(t);
        // The room this read took in the map's journal becomes its logged entries.
        let read_units = (tx.bytes / self.unit_bytes) as u32;
        self.journal_gc_reads(read_units, false);
        let gathered = self.gc_staging == GcStaging::Gather && !self.ftl.is_map_block(tx.block);
        let mut moved = 0;
        for u in tx.pun..tx.pun + tx.n {
            if let Some((new, full)) = self.ftl.relocate(u) {
                if gathered {
                    moved += 1;
                    // Into the open GC stripe of the die it is written to (the victim's
                    // own die unless GC writes are striped over the dies).
                    self.gather.moved(self.geo.die_of(new));
                }
                if self.map.is_some() {
                    let lpn = self.ftl.lpn_of(new);
                    self.map_update(lpn, 1);
                } else if self.hmb_whole.is_some() {
                    self.hmb_whole_update(1);
                }
                if let Some(s) = full {
                    self.queue_program(s, true);
                }
            }
        }
        if gathered {
            self.gather.read_done(tx.die, read_units, moved);
            // Its units now wait in an open stripe (stranded): a waiting host write may
            // be admitted to let the pace go on.
            if self.buffer.has_waiters() {
                self.wake_buffer_waiters();
            }
        }
        self.dq[tx.die as usize].gc.read_done();
        if self.release_gc(tx.die, false) {
            self.kick_die(tx.die);
        }
    }
}
