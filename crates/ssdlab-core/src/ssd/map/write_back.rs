//! The write-back map cache (`map.update = "write-back"`): the journal's segments are
//! brought into the map cache (write-allocate) and stay there dirty; every changed
//! entry is appended to the map-update log, persisted a mapping unit of entries at a
//! time into a ring of log units in the translation blocks; a dirty segment is written
//! back when evicted (`map/mod.rs`) or once half a ring of entries has been appended
//! after its first change (a checkpoint), which bounds what a rebuild replays.
//!
//! Simplifies: no power loss replays the log yet (the log's pages are written, not
//! read); a checkpoint writes one segment back when its turn comes rather than
//! batching; the log page goes through the write buffer like any map write.

use super::{Cmd, Origin, Ssd, INTERNAL_JOB, NONE};
use crate::ftl::UNMAPPED;
use crate::workload::OpKind;

impl Ssd {
    /// Write-back cache: the journal's oldest segment `seg` goes into the map cache
    /// (write-allocate) and stays there dirty. A segment with a copy in NAND is
    /// loaded first (its logged entries are applied when it lands); one never
    /// written back is created in the cache at once.
    pub(super) fn write_allocate(&mut self, seg: u32) {
        let s = seg as usize;
        let m = self.map();
        m.c.write_allocates += 1;
        let loading = m.loading[s];
        if loading != NONE {
            // A read is loading it already: it is cached, and its entries applied, on arrival.
            let l = m.loads.get_mut(loading);
            l.insert = true;
            l.dirty = true;
            return;
        }
        let (first, last) = self.seg_units(seg);
        let stored = (first..=last).any(|u| self.ftl.translate(u) != UNMAPPED);
        let m = self.map();
        m.c.flushes += 1;
        m.c.flush_entries += m.journal.pending[s] as u64;
        if stored {
            m.c.flush_loads += 1;
            m.journal.flushing[s] = true;
            m.journal.flushes_in_flight += 1;
            self.start_load(seg, None, true, true);
            let m = self.map();
            let id = m.loading[s];
            m.loads.get_mut(id).flush = true;
            return;
        }
        // Never written back: an empty segment takes its entries in the cache.
        let logged = std::mem::take(&mut m.journal.pending[s]) as u64;
        m.journal.entries -= logged;
        m.c.journal_absorbed += logged;
        self.read_logged_entries(logged);
        self.note_dirty(seg);
        self.cache_insert(seg, true);
    }

    /// Segment `seg` became dirty in the cache: remember where the log stood, so
    /// that it is written back before the log wraps past its change.
    pub(super) fn note_dirty(&mut self, seg: u32) {
        if let Some(log) = &mut self.map().log {
            if log.dirty_since[seg as usize] == u64::MAX {
                log.dirty_since[seg as usize] = log.seq;
                log.dirty_order.push_back((seg, log.seq));
            }
        }
    }

    /// Append `entries` changed entries to the map-update log: persist every full
    /// log page (an internal write of one mapping unit into the ring of log units),
    /// and write back the dirty segments whose first change the log is about to wrap.
    pub(super) fn map_log_append(&mut self, entries: u64) {
        let ub = self.unit_bytes;
        let m = self.map();
        let log = m.log.as_mut().expect("write-back map");
        log.seq += entries;
        log.unpersisted += entries;
        let mut pages = Vec::new();
        while log.unpersisted >= log.entries_per_page {
            log.unpersisted -= log.entries_per_page;
            pages.push(log.base_lpn + log.next_unit);
            log.next_unit = (log.next_unit + 1) % log.ring_units.max(1);
        }
        let mut due = Vec::new();
        while let Some(&(seg, since)) = log.dirty_order.front() {
            if log.seq - since < log.ring_entries / 2 {
                break; // the log has not yet run half a ring past its first change
            }
            log.dirty_order.pop_front();
            if log.dirty_since[seg as usize] == since {
                due.push(seg);
            }
        }
        m.c.log_pages += pages.len() as u64;
        for lpn in pages {
            let now = self.now();
            let cmd = self.cmds.insert(Cmd {
                job: INTERNAL_JOB,
                sq: 0,
                kind: OpKind::Write,
                offset: lpn * ub,
                len: ub,
                submit_ns: now,
                fetch_ns: now,
                pending: 0,
                placed: 0,
                origin: Origin::MapLog,
                pid: crate::ftl::fdp::NO_PID,
            });
            self.start_write(cmd);
        }
        for seg in due {
            let m = self.map();
            if m.main.is_dirty(seg) {
                m.c.log_writebacks += 1;
                m.main.mark_clean(seg);
                self.map_writeback(seg);
            } else if let Some(log) = &mut m.log {
                log.dirty_since[seg as usize] = u64::MAX;
            }
        }
    }
}
