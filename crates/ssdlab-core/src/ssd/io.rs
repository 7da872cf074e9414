//! Host command handling inside the controller: reads split into per-page flash
//! transactions, writes through the write buffer (with read-modify-write of partly
//! covered mapping units), trims.

use super::{Cmd, Origin, Ssd};
use crate::config::memory::DataTier;
use crate::controller::{Txn, TxnKind};
use crate::ftl::UNMAPPED;
use crate::sim::{Event, Ns};
use crate::workload::OpKind;

impl Ssd {
    /// Mapping units touched by a byte range: (first lpn, count).
    #[inline]
    pub(super) fn unit_range(&self, offset: u64, len: u64) -> (u32, u32) {
        let ub = self.unit_bytes;
        let first = offset / ub;
        let last = (offset + len - 1) / ub;
        (first as u32, (last - first + 1) as u32)
    }

    /// Bytes of unit `lpn` covered by the byte range.
    #[inline]
    fn overlap(&self, lpn: u32, offset: u64, len: u64) -> u64 {
        let ub = self.unit_bytes;
        let us = lpn as u64 * ub;
        let s = us.max(offset);
        let e = (us + ub).min(offset + len);
        e - s
    }

    /// Firmware has decoded the command and looked up its mapping.
    pub(super) fn cmd_ready(&mut self, cmd: u32) {
        let c = *self.cmds.get(cmd);
        if c.origin == Origin::HostFlush {
            self.flush_ready(cmd);
            return;
        }
        if c.origin == Origin::IoMgmt {
            self.io_mgmt_ready(cmd);
            return;
        }
        if self.zoned.is_some() {
            self.zoned_cmd_ready(cmd);
            return;
        }
        match c.kind {
            OpKind::Read if self.map.is_some() || self.hmb_whole.is_some() => {
                // Data found whole in the read cache needs no map entry.
                let (first, n) = self.unit_range(c.offset, c.len);
                if self.read_cache_covers(first, n) {
                    self.start_read(cmd);
                } else if self.map.is_some() {
                    self.map_read_lookup(cmd);
                } else {
                    self.hmb_whole_lookup(cmd, first, n);
                }
                self.read_ahead_note(first, n);
            }
            OpKind::Read => {
                self.start_read(cmd);
                if self.read_ahead.is_some() {
                    let (first, n) = self.unit_range(c.offset, c.len);
                    self.read_ahead_note(first, n);
                }
            }
            OpKind::Write => self.start_write(cmd),
            OpKind::Trim => {
                if self.alloc_waiters.is_empty() {
                    self.trim(cmd);
                } else {
                    // Acknowledged writes still wait for a block: the trim goes after
                    // them, or placing them would bring back what it deallocated.
                    self.trim_waiters.push_back(cmd);
                }
            }
        }
    }

    fn trim(&mut self, cmd: u32) {
        let c = *self.cmds.get(cmd);
        let (first, n) = self.unit_range(c.offset, c.len);
        for lpn in first..first + n {
            // Deallocate only whole units; a partial one keeps its data.
            if self.overlap(lpn, c.offset, c.len) == self.unit_bytes {
                self.ftl.trim(lpn);
                self.read_cache_invalidate(lpn, 1);
            }
        }
        self.post_completion(cmd, self.now());
    }

    /// Is unit `lpn` written by an acknowledged write still waiting for a block (its
    /// data is in the write buffer, not yet in the map)?
    pub(super) fn pending_write_covers(&self, lpn: u32) -> bool {
        self.alloc_waiters.iter().any(|&w| {
            let c = self.cmds.get(w);
            let (first, n) = self.unit_range(c.offset, c.len);
            lpn >= first + c.placed && lpn < first + n
        })
    }

    pub(super) fn start_read(&mut self, cmd: u32) {
        let now = self.now();
        let c = *self.cmds.get(cmd);
        let (first, n) = self.unit_range(c.offset, c.len);
        let mut pending = 0u32;
        let mut waits = 0u32; // units waiting for their read-ahead
        let mut zero_bytes = 0u64; // unmapped: zero-filled
        let mut buffer_bytes = 0u64; // still in the write buffer
        let mut cache_bytes = 0u64; // in the read cache
        let mut open: Option<u32> = None; // transaction being extended
        let slc_cache = self.tiers.rc_tier == DataTier::Slc;
        let held = !self.alloc_waiters.is_empty();
        for lpn in first..first + n {
            let bytes = self.overlap(lpn, c.offset, c.len);
            if held && self.pending_write_covers(lpn) {
                self.counters.buffer_hits += 1;
                buffer_bytes += bytes;
                continue;
            }
            if self.read_ahead.is_some()
                && !self.read_cache_holds(lpn)
                && self.read_ahead_join(cmd, lpn, bytes)
            {
                waits += 1;
                continue;
            }
            let cached = self.read_cache_lookup(lpn);
            if cached && !slc_cache {
                cache_bytes += bytes;
                continue;
            }
            let pun = self.ftl.translate(lpn);
            self.ftl.verify_translate(lpn, pun);
            if pun == UNMAPPED {
                self.counters.unmapped_reads += 1;
                zero_bytes += bytes;
                continue;
            }
            if !self.ftl.is_programmed(pun) {
                self.counters.buffer_hits += 1;
                buffer_bytes += bytes;
                continue;
            }
            // An SLC read-cache hit: the copy is read in SLC mode on the unit's die
            // (the cache's directory knows where, so no map entry is needed).
            let kind = if cached {
                self.read_cache_count_hit(bytes);
                TxnKind::CacheRead
            } else {
                TxnKind::UserRead
            };
            if let Some(t) = open {
                if self.extend_read_txn(t, kind, pun, lpn, bytes) {
                    continue;
                }
                self.queue_user_read(t);
            }
            let t = self.read_txn(kind, cmd, pun, lpn, bytes);
            open = Some(t);
            pending += 1;
        }
        if let Some(t) = open {
            self.queue_user_read(t);
        }
        self.counters.user_read_txns += pending as u64;
        let mut ready: Ns = now;
        if zero_bytes + buffer_bytes > 0 {
            let at = self.write_buffer_read(now, buffer_bytes);
            ready = self.pcie.send_up(at, zero_bytes + buffer_bytes) - self.pcie.latency;
        }
        if cache_bytes > 0 {
            let at = self.read_cache_serve(now, cache_bytes);
            ready = ready.max(self.pcie.send_up(at, cache_bytes) - self.pcie.latency);
        }
        if pending + waits == 0 {
            self.post_completion(cmd, ready);
        } else {
            self.cmds.get_mut(cmd).pending = pending + waits;
        }
    }

    /// Add unit `lpn` (at physical `pun`, `bytes` of it wanted) to read transaction `t`
    /// if it is the next unit of the same kind, logically and physically, on the same
    /// page; returns whether it was added.
    #[inline]
    pub(super) fn extend_read_txn(
        &mut self,
        t: u32,
        kind: TxnKind,
        pun: u32,
        lpn: u32,
        bytes: u64,
    ) -> bool {
        let tx = self.txns.get_mut(t);
        if tx.kind == kind
            && tx.pun + tx.n == pun
            && tx.lpn + tx.n == lpn
            && self.geo.same_page(tx.pun, pun)
        {
            tx.n += 1;
            tx.bytes += bytes;
            return true;
        }
        false
    }

    /// A one-unit read transaction of physical unit `pun` (holding `lpn`).
    pub(super) fn read_txn(
        &mut self,
        kind: TxnKind,
        cmd: u32,
        pun: u32,
        lpn: u32,
        bytes: u64,
    ) -> u32 {
        let block = self.geo.block_of(pun);
        self.txns.insert(Txn {
            kind,
            cmd,
            die: self.geo.die_of(pun),
            plane: self.geo.plane_of(pun),
            page: self.geo.page_of(pun),
            block,
            pun,
            lpn,
            n: 1,
            bytes,
            erase_count: self.ftl.erase_count(block),
            seq: 0,
        })
    }

    pub(super) fn queue_user_read(&mut self, t: u32) {
        let die = self.txns.get(t).die;
        self.stamp(t);
        self.dq[die as usize].user_reads.push_back(t);
        let kind = self.txns.get(t).kind;
        self.read_arrived(die, matches!(kind, TxnKind::UserRead | TxnKind::CacheRead));
    }

    pub(super) fn start_write(&mut self, cmd: u32) {
        let c = *self.cmds.get(cmd);
        let (first, n) = self.unit_range(c.offset, c.len);
        // Read-modify-write: old data of partly covered, programmed units.
        let mut rmw = 0;
        for lpn in [first, first + n - 1] {
            if rmw > 0 && n == 1 {
                break;
            }
            if self.overlap(lpn, c.offset, c.len) == self.unit_bytes {
                continue;
            }
            let pun = self.ftl.translate(lpn);
            if pun == UNMAPPED || !self.ftl.is_programmed(pun) {
                continue;
            }
            let t = self.read_txn(TxnKind::RmwRead, cmd, pun, lpn, self.unit_bytes);
            self.queue_user_read(t);
            rmw += 1;
        }
        self.counters.rmw_reads += rmw as u64;
        if rmw > 0 {
            self.cmds.get_mut(cmd).pending = rmw;
        } else {
            self.admit_write(cmd);
        }
    }

    /// Take room in the write buffer and pull the data from the host; a host write
    /// first waits for room in the map's update journal, if that is full.
    pub(super) fn admit_write(&mut self, cmd: u32) {
        if self.split_write(cmd) {
            return; // its parts were admitted (write_split.rs)
        }
        let c = *self.cmds.get(cmd);
        if c.origin == Origin::Host && c.job != super::map::INTERNAL_JOB && self.journal_holds(cmd)
        {
            return;
        }
        self.admit_write_now(cmd);
    }

    /// Take room in the write buffer and pull the data.
    pub(super) fn admit_write_now(&mut self, cmd: u32) {
        let c = *self.cmds.get(cmd);
        let (_, n) = self.unit_range(c.offset, c.len);
        if self.buffer.has_waiters()
            || self.gather.gc_served_first()
            || !self.try_buffer_room(n as u64)
        {
            self.buffer.wait(cmd);
            return;
        }
        self.pull_write_data(cmd);
    }

    fn pull_write_data(&mut self, cmd: u32) {
        let c = *self.cmds.get(cmd);
        if c.job == super::map::INTERNAL_JOB {
            self.internal_write_data(cmd);
            return;
        }
        let now = self.now();
        let mut arrived = self.pcie.read_host(now, 0, c.len);
        if let Some(path) = self.write_path.as_mut() {
            arrived = path.book(now, c.len, arrived);
        }
        self.q.schedule(arrived, Event::WriteDataIn { cmd });
    }

    /// Reserve `units` of write-buffer room if they fit, or if everything buffered is
    /// stranded: units in open stripes (host, SLC, and the map's own writes in
    /// translation stripes, not GC's moves of translation pages there, which hold no
    /// room) and GC's gathering (`gc_staging.rs`), which only more data can turn into a
    /// program.
    pub(super) fn try_buffer_room(&mut self, units: u64) -> bool {
        let (ftl, gather, map_room) = (&self.ftl, &self.gather, &self.map_stripe_room);
        let zoned = self.zoned.as_ref().map_or(0, |z| z.partial_units());
        // Is everything buffered stranded? The open stripes' exact count walks every
        // die's frontiers: only when their bound does not already say no.
        self.buffer.try_reserve(units, |used| {
            let others = map_writes(map_room) + gather.stranded_units() + zoned;
            used <= others + ftl.open_partial_bound() && used <= others + ftl.open_partial_units()
        })
    }

    /// Room was returned to the buffer: admit waiting writes in order (after the dies
    /// whose GC is behind its pace, with `gc_buffer_share = "paced"`).
    pub(super) fn wake_buffer_waiters(&mut self) {
        if self.gather.gc_served_first() {
            self.wake_gather_waiters();
            if self.gather.gc_served_first() {
                return; // a die still waits for a stripe's room: host writes wait too
            }
            // Host writes held in the map journal behind GC may take its room now.
            if self.map.is_some() {
                self.share_journal_room();
            }
        }
        while let Some(cmd) = self.buffer.first_waiter() {
            let c = *self.cmds.get(cmd);
            let (_, n) = self.unit_range(c.offset, c.len);
            if !self.try_buffer_room(n as u64) {
                break;
            }
            self.buffer.pop_waiter();
            self.pull_write_data(cmd);
        }
        self.wake_gather_waiters();
    }

    /// Write data is in the controller: place it in the FTL and complete. A write
    /// that finds no die with a free block (or earlier writes still waiting for one)
    /// completes all the same, its data held in the buffer, and is placed in order
    /// once GC frees a block; until then reads of it are served from the buffer.
    pub(super) fn write_data_in(&mut self, cmd: u32) {
        if self.zoned.is_some() {
            self.zoned_data_in(cmd);
            return;
        }
        let stored = self.write_buffer_store(self.cmds.get(cmd).len);
        if self.alloc_waiters.is_empty() && self.place_write(cmd) {
            self.post_completion(cmd, stored);
        } else {
            self.counters.alloc_stalls += 1;
            let c = *self.cmds.get(cmd);
            if c.job == super::map::INTERNAL_JOB {
                self.alloc_waiters.push_back(cmd);
            } else {
                let (first, n) = self.unit_range(c.offset, c.len);
                self.read_cache_invalidate(first + c.placed, n - c.placed);
                let held = self.cmds.insert(Cmd {
                    job: super::map::INTERNAL_JOB,
                    ..c
                });
                self.alloc_waiters.push_back(held);
                self.post_completion(cmd, stored);
            }
        }
        if self.buffer.has_waiters() {
            // Units now sit in open stripes: a waiter may be admitted to complete them.
            self.wake_buffer_waiters();
        }
    }

    /// Place the command's units; false if some die must first free a block.
    fn place_write(&mut self, cmd: u32) -> bool {
        let c = *self.cmds.get(cmd);
        let (first, n) = self.unit_range(c.offset, c.len);
        let mut k = c.placed;
        while k < n {
            match self.ftl.place_host_pid(first + k, c.pid) {
                Some((pun, full)) => {
                    if first as u64 + k as u64 >= self.ftl.host_units {
                        self.map_stripe_room[self.geo.die_of(pun) as usize] += 1;
                    }
                    if let Some(s) = full {
                        self.queue_program(s, false);
                    }
                    k += 1;
                }
                None => {
                    self.cmds.get_mut(cmd).placed = k;
                    return false;
                }
            }
        }
        self.cmds.get_mut(cmd).placed = n;
        if self.ftl.fdp.is_some() {
            self.ru_time_check(c.pid);
        }
        self.read_cache_invalidate(first, n);
        if self.map.is_some() {
            self.journal_host_placed(first, n);
            self.map_update(first, n);
        } else if self.hmb_whole.is_some() {
            self.hmb_whole_update(n);
        }
        true
    }

    /// A block was freed: resume writes that were waiting for one.
    pub(super) fn wake_alloc_waiters(&mut self) {
        while let Some(&cmd) = self.alloc_waiters.front() {
            if !self.place_write(cmd) {
                break;
            }
            self.alloc_waiters.pop_front();
            self.post_completion(cmd, self.now());
        }
        if self.alloc_waiters.is_empty() {
            while let Some(t) = self.trim_waiters.pop_front() {
                if self.cmds.get(t).origin == Origin::HostFlush {
                    self.flush_ready(t);
                } else {
                    self.trim(t);
                }
            }
        }
    }

    /// A host read or RMW read transaction has its data out of the die.
    pub(super) fn user_read_done(&mut self, t: u32) {
        let tx = *self.txns.get(t);
        self.txns.remove(t);
        if tx.kind == TxnKind::RecoveryRead {
            self.recovery_read_done();
            return;
        }
        if self.zoned.is_some() {
            self.zoned_sensed(t);
        }
        if self.ftl.verifying() {
            for i in 0..tx.n {
                self.ftl.verify_sensed(tx.pun + i, tx.erase_count);
            }
        }
        if tx.kind == TxnKind::MapRead {
            self.map_read_done(&tx);
            return;
        }
        if tx.kind == TxnKind::PrefetchRead {
            self.prefetch_done(t, tx.lpn, tx.pun, tx.n);
            return;
        }
        let now = self.now();
        let c = self.cmds.get_mut(tx.cmd);
        c.pending -= 1;
        let last = c.pending == 0;
        match tx.kind {
            TxnKind::UserRead | TxnKind::CacheRead => {
                let arrival = self.pcie.send_up(now, tx.bytes);
                if last {
                    self.post_completion(tx.cmd, arrival - self.pcie.latency);
                }
                // The copy into the read cache follows the data (and completion) up.
                if tx.kind == TxnKind::UserRead {
                    self.read_cache_fill(tx.lpn, tx.pun, tx.n, false);
                }
            }
            TxnKind::RmwRead => {
                if last {
                    self.admit_write(tx.cmd);
                }
            }
            _ => unreachable!("not a host read"),
        }
    }
}

/// Buffered units that only more data can turn into a program (`try_buffer_room`):
/// open host and SLC stripes, the map's own writes in open translation stripes
/// (`map_room`), and GC's gathering. The tests' exact count; `try_buffer_room` checks
/// a bound of it first.
#[cfg(test)]
pub(super) fn stranded_units(
    ftl: &crate::ftl::Ftl,
    gather: &super::gc_staging::Gather,
    map_room: &[u32],
) -> u64 {
    ftl.open_partial_units() + map_writes(map_room) + gather.stranded_units()
}

/// Units of the map's own writes held in open translation stripes.
fn map_writes(map_room: &[u32]) -> u64 {
    map_room.iter().map(|&u| u as u64).sum()
}
