//! The demand-paged map in action: where a command's map entries come from and how
//! changed entries get back to flash.
//!
//! Reads: a read looks its segments up in the map cache (an SRAM level first, when
//! there is one in front of the HMB). A hit costs the tier's access: SRAM or DRAM
//! latency, or for the HMB a PCIe round trip that reads only the aligned lines
//! holding the command's entries (`hmb.read_granularity`, 64 B by default). A miss
//! loads the segment from its translation page in NAND (sense plus transfer of the
//! segment's bytes only) and holds the read until then; concurrent misses on one
//! segment wait on one load; the loaded segment passes through SRAM (the SRAM
//! level keeps it) and is copied into the HMB when that is the tier. A segment the
//! map-of-map knows was never written (no translation page, nothing logged) holds no
//! mapping: its reads need neither a load nor a copy and return zeros.
//! Writes and GC moves: a cached segment is updated in place and marked dirty (for
//! the HMB, a posted write of the entries). Updates of segments not cached go to the
//! update journal in SRAM (`map.journal_entries`), counted per segment; from three
//! quarters full, the segment logged longest ago is flushed: loaded from NAND (if it
//! was ever written), every logged entry of it applied, and written back. Room in the
//! journal is shared by host writes (one entry per unit) and GC's relocations (one
//! per valid unit of a victim page), each counted when admitted or released, so the
//! journal never holds more than its capacity (GC at the urgent floor of free blocks
//! excepted). While both wait for room, the room flushes make is handed out in the
//! proportion GC pacing asks for (`v / (U - v)` GC entries per host entry, 1 for an
//! SLC block folded in the foreground: a
//! two-class weighted fair share), so neither starves the other and host writes are
//! admitted at the rate flushes drain the journal. Dirty segments evicted from the cache are written
//! back too. Write-backs are internal writes of the segment's bytes (through the
//! write buffer, read-modify-write when a segment is smaller than the mapping unit)
//! into translation blocks: a write stream of their own (`Stream::Map`), so map
//! pages, rewritten far more often than user data, do not keep user blocks alive;
//! GC collects translation blocks from a pool of their own (`ftl/gc.rs`).
//!
//! With `map.update = "write-back"` the map cache is a write-back cache instead
//! (write-allocate): a flushed segment is loaded (or, never written back, created)
//! into the cache and stays there dirty, so that later updates of it cost nothing
//! but a posted write to the HMB; it is written back when evicted, or when the
//! map-update log is about to wrap past its first change. Every changed entry is
//! appended to that log, persisted one mapping unit of entries at a time into a
//! ring of log units in the translation blocks (cheap and sequential), so that
//! dirty segments held only in host memory could be rebuilt. The HMB grant then
//! decides how many dirty segments stay, and so acts on writes.
//!
//! Simplifies: the journal is not itself persisted (no power-loss model); GC moves
//! their units' map entries one by one into the journal (which groups them by
//! segment); flushes go oldest segment first, not fullest first; the map-of-map
//! is always in SRAM and costs nothing to consult.

mod hmb_loss;
mod state;
mod write_back;

use super::{Cmd, Origin, Ssd};
use crate::config::memory::{entry_line_bytes, MapTier, MAP_ENTRY_BYTES};
use crate::controller::{Txn, TxnKind};
use crate::ftl::UNMAPPED;
use crate::sim::{Event, Ns};
use crate::workload::OpKind;
pub(super) use state::MapState;

pub(super) const NONE: u32 = u32::MAX;
/// How far (entries) GC and host writes may get ahead of their shares of the
/// journal's room: a few pages of a victim, so that the class that waited alone a
/// while is not paid back with a long run of the room later.
const SHARE_BOUND: f64 = 64.0;
/// `Cmd::job` of the controller's own commands (map write-backs, held writes).
pub(super) const INTERNAL_JOB: u32 = u32::MAX;

impl Ssd {
    fn map(&mut self) -> &mut MapState {
        self.map.as_mut().expect("map cache in use")
    }

    /// Logical units (of the map's own storage) holding segment `seg`.
    fn seg_units(&self, seg: u32) -> (u32, u32) {
        let m = self.map.as_ref().expect("map cache in use");
        let ub = self.unit_bytes;
        let seg_bytes = m.place.segment_bytes;
        let start = m.map_base_lpn * ub + seg as u64 * seg_bytes;
        ((start / ub) as u32, ((start + seg_bytes - 1) / ub) as u32)
    }

    /// Does the map-of-map know segment `seg` holds no mapping at all (never written
    /// back, nothing logged, not cached, not on its way)?
    fn seg_never_written(&self, seg: u32) -> bool {
        let m = self.map.as_ref().expect("map cache in use");
        let s = seg as usize;
        if m.journal.pending[s] > 0
            || m.journal.flushing[s]
            || m.loading[s] != NONE
            || m.main.contains(seg)
        {
            return false;
        }
        let (first, last) = self.seg_units(seg);
        (first..=last).all(|u| self.ftl.translate(u) == UNMAPPED)
    }

    /// Is the map entry of `lpn` at hand without a load (its segment cached, in the
    /// SRAM level or the main cache)? No effect on recency or statistics.
    pub(super) fn map_entry_at_hand(&self, lpn: u32) -> bool {
        let m = self.map.as_ref().expect("map cache in use");
        let seg = m.seg_of(lpn);
        m.l1.as_ref().is_some_and(|l1| l1.contains(seg)) || m.main.contains(seg)
    }

    /// A read's command is decoded: find its map entries, then read the data.
    pub(super) fn map_read_lookup(&mut self, cmd: u32) {
        let now = self.now();
        let c = *self.cmds.get(cmd);
        let ub = self.unit_bytes;
        let first = (c.offset / ub) as u32;
        let last = ((c.offset + c.len - 1) / ub) as u32;
        let m = self.map.as_ref().expect("map cache in use");
        let (s0, s1) = (m.seg_of(first), m.seg_of(last));
        let mut ready = now;
        let mut waits = 0u32;
        for seg in s0..=s1 {
            let m = self.map();
            m.c.read_lookups += 1;
            let sram = now + m.sram_latency_ns;
            if let Some(l1) = &mut m.l1 {
                if l1.lookup(seg) {
                    m.c.l1_hits += 1;
                    ready = ready.max(sram);
                    continue;
                }
            }
            if m.main.lookup(seg) {
                let (lo, hi) = m.entries_in(seg, first, last);
                let t = self.tier_access(lo, hi);
                ready = ready.max(t);
            } else if m.journal.flushing[seg as usize] && m.loading[seg as usize] == NONE {
                // Staged in SRAM on its way back to flash.
                ready = ready.max(sram);
            } else if self.seg_never_written(seg) {
                self.map().c.empty_reads += 1;
                ready = ready.max(sram);
            } else {
                let m = self.map();
                m.c.load_reads += 1;
                let keep = m.keep_loaded;
                self.start_load(seg, Some(cmd), false, keep);
                waits += 1;
            }
        }
        if waits > 0 {
            self.cmds.get_mut(cmd).pending = waits;
        } else if ready > now {
            self.q.schedule(ready, Event::MapReady { cmd });
        } else {
            self.start_read(cmd);
        }
    }

    /// Time when the cached entries `lo..=hi` (indices inside their segment) are at
    /// hand: the tier's latency, or for the HMB a read request up the link and the
    /// aligned lines holding them back down.
    fn tier_access(&mut self, lo: u32, hi: u32) -> Ns {
        let now = self.now();
        let m = self.map.as_mut().expect("map cache in use");
        if m.place.tier != MapTier::Hmb {
            return now + m.tier_latency_ns;
        }
        let bytes = entry_line_bytes(lo as u64, hi as u64, m.hmb_read_granularity)
            .min(m.place.segment_bytes);
        m.c.hmb_read_bytes += bytes;
        let host_ns = m.host_dram_ns;
        self.pcie.read_host(now, host_ns, bytes)
    }

    /// Begin (or join) loading segment `seg` from NAND; `insert`: cache it on arrival.
    fn start_load(&mut self, seg: u32, waiter: Option<u32>, dirty: bool, insert: bool) {
        let m = self.map();
        let existing = m.loading[seg as usize];
        if existing != NONE {
            let l = m.loads.get_mut(existing);
            l.dirty |= dirty;
            l.insert |= insert;
            if let Some(w) = waiter {
                l.waiters.push(w);
            }
            return;
        }
        m.c.loads += 1;
        let id = m.loads.insert(seg, dirty, insert);
        if let Some(w) = waiter {
            m.loads.get_mut(id).waiters.push(w);
        }
        m.loading[seg as usize] = id;
        let seg_bytes = m.place.segment_bytes;
        let ub = self.unit_bytes;
        let (first, last) = self.seg_units(seg);
        let mut pending = 0;
        let mut buffered = false;
        for lpn in first..=last {
            let pun = self.ftl.translate(lpn);
            self.ftl.verify_translate(lpn, pun);
            if pun == UNMAPPED {
                continue; // never written: the segment is all "unmapped" entries
            }
            if !self.ftl.is_programmed(pun) {
                buffered = true;
                continue;
            }
            let t = self.read_txn(TxnKind::MapRead, id, pun, lpn, seg_bytes.min(ub));
            self.queue_user_read(t);
            pending += 1;
        }
        let m = self.map();
        if pending > 0 {
            m.c.nand_loads += 1;
            m.loads.get_mut(id).pending = pending;
        } else {
            let at = self.now() + if buffered { self.buffer_read_ns } else { 0 };
            self.q.schedule(at, Event::MapLoadDone { load: id });
        }
    }

    /// A translation-page read for load `t.cmd` is out of the die.
    pub(super) fn map_read_done(&mut self, tx: &Txn) {
        let l = self.map().loads.get_mut(tx.cmd);
        l.pending -= 1;
        if l.pending == 0 {
            self.map_load_done(tx.cmd);
        }
    }

    /// Segment loaded: cache it if a read wants it (writing back what it displaces,
    /// taking in the journal's entries for it), then wake the reads and flushes.
    pub(super) fn map_load_done(&mut self, id: u32) {
        let now = self.now();
        let m = self.map();
        let l = m.loads.get_mut(id);
        let (seg, mut dirty, insert, flush) = (l.seg, l.dirty, l.insert, l.flush);
        let mut waiters = std::mem::take(&mut l.waiters);
        m.loading[seg as usize] = NONE;
        if flush {
            m.journal.flushing[seg as usize] = false;
            m.journal.flushes_in_flight -= 1;
        }
        let ready = now + m.sram_latency_ns;
        if insert {
            let logged = std::mem::take(&mut m.journal.pending[seg as usize]) as u64;
            if logged > 0 {
                // The journal's entries for this segment are applied to the cached copy.
                m.journal.entries -= logged;
                m.c.journal_absorbed += logged;
                dirty = true;
                self.read_logged_entries(logged);
            }
            if dirty && self.map().log.is_some() {
                self.note_dirty(seg);
            }
            self.cache_insert(seg, dirty);
            if logged > 0 {
                self.share_journal_room();
            }
        }
        if flush {
            self.flush_journal();
        }
        for &w in &waiters {
            let c = self.cmds.get_mut(w);
            c.pending -= 1;
            if c.pending == 0 {
                if c.kind == OpKind::Write {
                    // A journal flush: the segment is in SRAM, its entries applied.
                    self.admit_write(w);
                } else {
                    self.q.schedule(ready, Event::MapReady { cmd: w });
                }
            }
        }
        waiters.clear();
        let m = self.map();
        m.loads.get_mut(id).waiters = waiters;
        m.loads.remove(id);
    }

    /// A write or a GC move changed the entries of logical units `first..first+n`.
    pub(super) fn map_update(&mut self, first: u32, n: u32) {
        let m = self.map();
        if first as u64 >= m.map_base_lpn {
            return; // the map's own units are located by the map-of-map
        }
        let (s0, s1) = (m.seg_of(first), m.seg_of(first + n - 1));
        m.note_changed(s0, s1);
        for seg in s0..=s1 {
            let m = self.map();
            m.c.write_updates += 1;
            let (lo, hi) = m.entries_in(seg, first, first + n - 1);
            let entries = (hi - lo + 1) as u64;
            if m.log.is_some() {
                // Log first: the append may write this very segment back (clean).
                self.map_log_append(entries);
                let m = self.map();
                if m.main.contains(seg) && !m.main.is_dirty(seg) {
                    self.note_dirty(seg);
                }
            }
            let m = self.map();
            if m.main.mark_dirty(seg) {
                if m.place.tier == MapTier::Hmb {
                    let bytes = MAP_ENTRY_BYTES * entries;
                    m.c.hmb_write_bytes += bytes;
                    let now = self.now();
                    self.pcie.send_up(now, bytes);
                }
                continue;
            }
            let loading = m.loading[seg as usize];
            if loading != NONE && m.loads.get_mut(loading).insert {
                // On its way into the cache: the entries are applied when it lands.
                m.loads.get_mut(loading).dirty = true;
                continue;
            }
            if m.journal.in_hmb {
                // The entries are logged in host memory: a posted write up the link.
                let bytes = entries * crate::config::memory::JOURNAL_ENTRY_BYTES;
                m.c.hmb_write_bytes += bytes;
                let now = self.now();
                self.pcie.send_up(now, bytes);
            }
            let m = self.map();
            let j = &mut m.journal;
            if j.pending[seg as usize] == 0 {
                j.order.push_back(seg);
            }
            j.pending[seg as usize] += entries as u32;
            j.entries += entries;
            m.c.journal_entries += entries;
            m.c.peak_journal = m.c.peak_journal.max(j.entries);
        }
        self.flush_journal();
    }

    /// Start flushing the oldest logged segments while the journal is past three
    /// quarters and flush slots are free; admit host writes the room lets in.
    fn flush_journal(&mut self) {
        self.start_flushes();
        if self.map.is_some() {
            self.share_journal_room();
        }
    }

    fn start_flushes(&mut self) {
        // Segments already on their way back keep their new entries for a later round.
        let mut skipped = 0usize;
        while self.map.as_ref().is_some_and(|m| m.wants_flush()) {
            let m = self.map();
            if skipped >= m.journal.order.len() {
                break;
            }
            let Some(seg) = m.journal.order.pop_front() else {
                break;
            };
            let s = seg as usize;
            if m.journal.pending[s] == 0 {
                continue; // applied by a load meanwhile
            }
            if m.journal.flushing[s] {
                m.journal.order.push_back(seg);
                skipped += 1;
                continue;
            }
            if m.log.is_some() {
                self.write_allocate(seg);
                continue;
            }
            let m = self.map();
            let logged = std::mem::take(&mut m.journal.pending[s]) as u64;
            m.journal.entries -= logged;
            m.c.flushes += 1;
            m.c.flush_entries += logged;
            self.read_logged_entries(logged);
            let m = self.map();
            if m.main.mark_dirty(seg) {
                continue; // cached meanwhile: the cached copy takes the entries
            }
            m.journal.flushing[s] = true;
            m.journal.flushes_in_flight += 1;
            let cmd = self.map_write_cmd(seg, Origin::MapFlush);
            let (first, last) = self.seg_units(seg);
            let stored = (first..=last).any(|u| self.ftl.translate(u) != UNMAPPED);
            if stored {
                // Load the stored copy into SRAM, apply the entries, write it back.
                self.map().c.flush_loads += 1;
                self.cmds.get_mut(cmd).pending = 1;
                self.start_load(seg, Some(cmd), false, false);
            } else {
                // A segment written for the first time: nothing to load.
                self.admit_write(cmd);
            }
        }
    }

    /// A journal in the HMB: read `logged` entries back (request up, lines down). The
    /// read overlaps the segment's load from NAND, so it only takes link time.
    fn read_logged_entries(&mut self, logged: u64) {
        let now = self.now();
        let m = self.map();
        if !m.journal.in_hmb || logged == 0 {
            return;
        }
        let g = m.hmb_read_granularity;
        let bytes = (logged * crate::config::memory::JOURNAL_ENTRY_BYTES).div_ceil(g) * g;
        m.c.hmb_read_bytes += bytes;
        let host_ns = m.host_dram_ns;
        self.pcie.read_host(now, host_ns, bytes);
    }

    /// A flushed segment is placed in its translation block: free the slot and
    /// start the next flushes (handing out the room they make).
    pub(super) fn map_flush_done(&mut self, offset: u64) {
        let ub = self.unit_bytes;
        let m = self.map();
        let seg = (offset - m.map_base_lpn * ub) / m.place.segment_bytes;
        m.journal.flushing[seg as usize] = false;
        m.journal.flushes_in_flight -= 1;
        self.flush_journal();
    }

    /// Room was made in the journal: hand it to waiting GC dies and host writes, in
    /// the proportion GC's pace asks for while both wait.
    pub(super) fn share_journal_room(&mut self) {
        loop {
            let m = self.map.as_ref().expect("map cache in use");
            if m.journal_full() {
                return;
            }
            let j = &m.journal;
            let dies = j.gc_waiting.len();
            debug_assert_eq!(
                j.gc_waiting_dies as usize,
                j.gc_waiting.iter().filter(|&&w| w).count()
            );
            // The next waiting die from `next_gc_die` on (no scan when none waits).
            let gc_die = if j.gc_waiting_dies == 0 {
                None
            } else {
                (0..dies)
                    .map(|k| (j.next_gc_die + k) % dies)
                    .find(|&d| j.gc_waiting[d])
            };
            let host = !j.waiters.is_empty();
            let gc_first = !host || j.share <= 0.0;
            match gc_die {
                Some(die) if gc_first => {
                    let j = &mut self.map().journal;
                    j.gc_waiting[die] = false;
                    j.gc_waiting_dies -= 1;
                    j.next_gc_die = (die + 1) % dies;
                    if self.release_gc(die as u32, false) {
                        self.kick_die(die as u32);
                    }
                }
                _ if host && !self.gather.gc_served_first() => {
                    let cmd = self.map().journal.waiters.pop_front().expect("a waiter");
                    self.journal_admit(cmd);
                    self.admit_write_now(cmd);
                }
                _ => return,
            }
        }
    }

    /// A host write takes its room in the journal; GC is owed its share of it.
    fn journal_admit(&mut self, cmd: u32) {
        let c = *self.cmds.get(cmd);
        let (_, n) = self.unit_range(c.offset, c.len);
        let m = self.map();
        let j = &mut m.journal;
        let ratio = j.user_gc_ratio_mean;
        j.host_in_flight += n as u64;
        j.share = (j.share - ratio * n as f64).max(-SHARE_BOUND);
    }

    /// Host units `n` admitted through the journal were placed: their entries are
    /// logged now (by `map_update`), no longer on their way.
    pub(super) fn journal_host_placed(&mut self, first: u32, n: u32) {
        if let Some(m) = &mut self.map {
            if (first as u64) < m.map_base_lpn {
                let j = &mut m.journal;
                j.host_in_flight = j.host_in_flight.saturating_sub(n as u64);
            }
        }
    }

    /// Must die `die` hold its next GC read until flushes make room in the journal?
    /// (Not at the urgent floor of free blocks: then GC takes whatever it needs, as
    /// the flushes' own write-backs and host writes need the blocks it frees.)
    pub(super) fn journal_holds_gc(&mut self, die: u32, free_blocks: u32, urgent: u32) -> bool {
        match &mut self.map {
            Some(m) if free_blocks > urgent && m.journal_full() => {
                if !std::mem::replace(&mut m.journal.gc_waiting[die as usize], true) {
                    m.journal.gc_waiting_dies += 1;
                    m.c.gc_deferrals += 1;
                }
                true
            }
            _ => false,
        }
    }

    /// Die `die` claimed a user-data victim with `valid` of its `upb` units valid.
    pub(super) fn journal_user_victim(&mut self, die: u32, valid: u32, upb: u32) {
        let valid = valid.min(upb - 1);
        self.journal_pace(die, valid as f64 / (upb - valid) as f64);
    }

    /// Die `die` moves `ratio` units per host unit programmed (a GC victim's pace,
    /// or 1 for an SLC block folded in the foreground): the share of the journal's
    /// room its moves are owed.
    pub(super) fn journal_pace(&mut self, die: u32, ratio: f64) {
        if let Some(m) = &mut self.map {
            let j = &mut m.journal;
            j.user_gc_ratio[die as usize] = ratio;
            let dies = j.user_gc_ratio.len().max(1) as f64;
            j.user_gc_ratio_mean = j.user_gc_ratio.iter().sum::<f64>() / dies;
        }
    }

    /// GC released (`+`) or finished (`-`) a page read moving `units` valid units:
    /// the room their map entries will take in the journal.
    pub(super) fn journal_gc_reads(&mut self, units: u32, released: bool) {
        if let Some(m) = &mut self.map {
            let j = &mut m.journal;
            if released {
                j.gc_in_flight += units as u64;
                j.share = (j.share + units as f64).min(SHARE_BOUND);
            } else {
                j.gc_in_flight = j.gc_in_flight.saturating_sub(units as u64);
            }
        }
    }

    /// Is the map's update journal full (host writes wait for room)?
    pub(super) fn journal_is_full(&self) -> bool {
        self.map.as_ref().is_some_and(|m| m.journal_full())
    }

    /// Would a host write have to wait for room in the journal? (Queues it if so,
    /// else takes its room.)
    pub(super) fn journal_holds(&mut self, cmd: u32) -> bool {
        // A die whose GC is behind its pace waits for write-buffer room: the host
        // write queues behind it here too, or it would take the journal room the
        // die needs once it has the buffer's (`gc_buffer_share = "paced"`).
        let gc_first = self.gather.gc_served_first();
        match &mut self.map {
            None => false,
            Some(m) if gc_first || m.journal_full() || !m.journal.waiters.is_empty() => {
                m.c.journal_waits += 1;
                m.journal.waiters.push_back(cmd);
                true
            }
            Some(_) => {
                self.journal_admit(cmd);
                false
            }
        }
    }

    /// An internal write of segment `seg`'s bytes to its translation page.
    fn map_write_cmd(&mut self, seg: u32, origin: Origin) -> u32 {
        let now = self.now();
        let m = self.map();
        let seg_bytes = m.place.segment_bytes;
        let offset = m.map_base_lpn * self.unit_bytes + seg as u64 * seg_bytes;
        self.cmds.insert(Cmd {
            job: INTERNAL_JOB,
            sq: 0,
            kind: OpKind::Write,
            offset,
            len: seg_bytes,
            submit_ns: now,
            fetch_ns: now,
            pending: 0,
            placed: 0,
            origin,
            pid: crate::ftl::fdp::NO_PID,
        })
    }

    /// Write a dirty segment evicted from the cache back to its translation page.
    fn map_writeback(&mut self, seg: u32) {
        let m = self.map();
        m.c.writebacks += 1;
        if let Some(log) = &mut m.log {
            log.dirty_since[seg as usize] = u64::MAX;
        }
        let cmd = self.map_write_cmd(seg, Origin::MapEviction);
        self.start_write(cmd);
    }

    /// Data of an internal write-back: an evicted segment comes from its tier (the
    /// HMB over the link); a flushed one is already staged in SRAM.
    pub(super) fn internal_write_data(&mut self, cmd: u32) {
        let now = self.now();
        let c = *self.cmds.get(cmd);
        let m = self.map();
        let arrived = if c.origin == Origin::MapFlush || c.origin == Origin::MapLog {
            now + m.sram_latency_ns
        } else if m.place.tier == MapTier::Hmb {
            m.c.hmb_read_bytes += c.len;
            let host_ns = m.host_dram_ns;
            self.pcie.read_host(now, host_ns, c.len)
        } else {
            now + m.tier_latency_ns
        };
        self.q.schedule(arrived, Event::WriteDataIn { cmd });
    }

    /// Put segment `seg` in the map cache (and its SRAM level); for the HMB, copy it
    /// into host memory (a posted write). What it displaces leaves the SRAM level too
    /// and, if dirty, is written back.
    fn cache_insert(&mut self, seg: u32, dirty: bool) {
        let now = self.now();
        let m = self.map();
        if m.aside.is_none() && m.main.contains(seg) {
            // Handed back with the HMB (Memory Return) while its load was on the way.
            if dirty {
                m.main.mark_dirty(seg);
            }
            return;
        }
        let evicted = m.main.insert(seg, dirty);
        if let Some(l1) = &mut m.l1 {
            if !l1.contains(seg) {
                l1.insert(seg, false);
            }
        }
        if m.place.tier == MapTier::Hmb {
            let bytes = m.place.segment_bytes;
            m.c.hmb_write_bytes += bytes;
            self.pcie.send_up(now, bytes);
        }
        if let Some(e) = evicted {
            if let Some(l1) = &mut self.map().l1 {
                // The SRAM level only holds segments the main level holds.
                l1.remove(e.segment);
            }
            if e.dirty {
                self.map_writeback(e.segment);
            }
        }
    }

    /// The map's part of a stall diagnosis ("" without a demand-paged map).
    pub(super) fn map_stall_note(&self) -> String {
        let Some(m) = &self.map else {
            return String::new();
        };
        let j = &m.journal;
        format!(
            "; journal {} of {} entries logged, {} reserved by GC and {} by host writes, \
             {} flushes in flight, {} dies' GC waiting for room, {} host writes waiting",
            j.entries,
            j.capacity,
            j.gc_in_flight,
            j.host_in_flight,
            j.flushes_in_flight,
            j.gc_waiting_dies,
            j.waiters.len()
        )
    }
}
