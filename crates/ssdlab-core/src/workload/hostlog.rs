//! A log-structured store on the host, over a zoned drive (the workload's `host_log`):
//! the flash management a ZNS drive leaves to the host (as ZenFS, f2fs or a log-
//! structured key-value store do it).
//!
//! The host keeps its own map from its logical extents (the jobs' offsets in units of
//! their block size) to places in zones. A job's write goes to the write pointer of its
//! stream's open zone (`streams`: one stream per job, as a store that separates data by
//! lifetime hints; or N streams, job i of a group of J jobs writing to stream
//! i x N / J, so that neighbouring jobs share one) and its old place
//! becomes invalid. When fewer than `gc_free_zones` zones are empty (or being reset),
//! the host collects: the full zone with the least valid data is the victim; its valid
//! extents are read, and each is written to the GC stream's open zone once its read
//! has completed; the victim is reset once every read of it has completed. One job
//! runs a collection (its commands take its queue slots, as one GC thread); while it
//! runs, every job's own writes wait (foreground GC: a store out of empty zones stalls
//! its writers). With `bg_free_zones` above `gc_free_zones`, a collection starts
//! earlier, when fewer than `bg_free_zones` zones are empty, and runs in the
//! background: only the job running it sends its commands, the others keep writing,
//! until the empty zones fall below `gc_free_zones`, where it turns foreground. A
//! write waits, too, when its stream needs a zone and every empty one is still being
//! reset.
//!
//! Simplifies: one extent size (the jobs' block size, fixed); greedy victims; the
//! jobs only write (no host reads, no trims); a collection starts when a job asks to
//! write (a background one too: writers that are idle send nothing, and neither does
//! their collection); one collection at a time; the data moved is not checked (the
//! drive's oracle checks what it stores).

use std::collections::VecDeque;

/// No extent / no slot.
const NONE: u32 = u32::MAX;

/// What the host sends next for a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HostCmd {
    /// A GC read of the extent at byte `offset` (slot `slot` of the victim).
    GcRead { offset: u64, slot: u32 },
    /// A GC write of a read extent at byte `offset`.
    GcWrite { offset: u64 },
    /// A Zone Reset of zone `zone` (every read of it done).
    Reset { zone: u32 },
    /// Nothing the job may send now: a collection another job runs, reads in flight,
    /// or no empty zone for its stream until a reset completes.
    Wait,
}

/// Counters for the report's `device.zns.host_log`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostLogCounters {
    /// The jobs' own writes (extents).
    pub app_writes: u64,
    /// Extents the collections read and wrote again.
    pub gc_reads: u64,
    pub gc_writes: u64,
    /// Zones collected (victims) and resets sent.
    pub victims: u64,
    pub resets: u64,
    /// Times a job found it had to wait (a collection, or a zone being reset).
    pub waits: u64,
    /// Of the victims, those whose collection started in the background.
    pub background_victims: u64,
}

impl HostLogCounters {
    /// Host write amplification: extents written to the drive per extent the jobs
    /// wrote ((app_writes + gc_writes) / app_writes; 0 before any).
    pub fn waf(&self) -> f64 {
        if self.app_writes == 0 {
            return 0.0;
        }
        (self.app_writes + self.gc_writes) as f64 / self.app_writes as f64
    }

    /// What was counted since `earlier`.
    pub fn since(&self, earlier: &HostLogCounters) -> HostLogCounters {
        HostLogCounters {
            app_writes: self.app_writes - earlier.app_writes,
            gc_reads: self.gc_reads - earlier.gc_reads,
            gc_writes: self.gc_writes - earlier.gc_writes,
            victims: self.victims - earlier.victims,
            resets: self.resets - earlier.resets,
            waits: self.waits - earlier.waits,
            background_victims: self.background_victims - earlier.background_victims,
        }
    }
}

/// The host's log-structured store (see the module header).
#[derive(Clone, Debug)]
pub struct HostLog {
    extent_bytes: u64,
    zone_bytes: u64,
    per_zone: u32,
    /// The stream of each job.
    job_stream: Vec<u32>,
    streams: u32,
    gc_free_zones: u32,
    /// Empty zones below which a background collection starts (0: none).
    bg_free_zones: u32,
    /// Logical extent -> slot (zone x per_zone + index), NONE when never written.
    map: Vec<u32>,
    /// Slot -> logical extent, NONE when invalid or unwritten.
    rev: Vec<u32>,
    /// Valid extents per zone.
    valid: Vec<u32>,
    /// Per zone: taken (open, full, being collected or reset): not in `free`.
    taken: Vec<bool>,
    /// Per zone: its reset sent, not completed.
    in_reset: Vec<bool>,
    free: VecDeque<u32>,
    resetting: u32,
    /// Per stream (the last one GC's): its open zone and write pointer (extents).
    open: Vec<(u32, u32)>,
    victim: u32,
    owner: u32,
    next_slot: u32,
    reads_out: u32,
    /// Extents read by the collection, to write.
    ready: VecDeque<u32>,
    pub c: HostLogCounters,
}

impl HostLog {
    /// A store of `logical_bytes` over `zones` zones of `zone_bytes` (start to start)
    /// holding `capacity_bytes` each, in extents of `extent_bytes`, with `streams`
    /// streams, job j writing to stream `job_stream[j]`. Err names what does not fit.
    #[allow(clippy::too_many_arguments)] // the store's geometry, one flat call
    pub fn new(
        extent_bytes: u64,
        zone_bytes: u64,
        capacity_bytes: u64,
        zones: u32,
        logical_bytes: u64,
        job_stream: Vec<u32>,
        streams: u32,
        gc_free_zones: u32,
    ) -> Result<Self, String> {
        if extent_bytes == 0 || !capacity_bytes.is_multiple_of(extent_bytes) {
            return Err(format!(
                "the jobs' block size ({extent_bytes} B) must divide the zone capacity \
                 ({capacity_bytes} B)"
            ));
        }
        let per_zone = (capacity_bytes / extent_bytes) as u32;
        let extents = logical_bytes.div_ceil(extent_bytes);
        // Zones the data may fill: all but the open ones (each stream's and GC's) and
        // the empty ones collections keep.
        let spare = streams as u64 + 1 + gc_free_zones as u64;
        let room = (zones as u64).saturating_sub(spare) * per_zone as u64;
        if gc_free_zones < 2 {
            return Err(format!(
                "gc_free_zones: {gc_free_zones} (allowed: 2 or more)"
            ));
        }
        if extents >= room {
            return Err(format!(
                "the jobs' logical space ({logical_bytes} B, {extents} extents) must be \
                 smaller than the zones left after {streams} open stream zone(s), GC's \
                 zone and {gc_free_zones} empty zone(s): {room} extents of {zones} zones"
            ));
        }
        let slots = zones as usize * per_zone as usize;
        Ok(HostLog {
            extent_bytes,
            zone_bytes,
            per_zone,
            job_stream,
            streams,
            gc_free_zones,
            bg_free_zones: 0,
            map: vec![NONE; extents as usize],
            rev: vec![NONE; slots],
            valid: vec![0; zones as usize],
            taken: vec![false; zones as usize],
            in_reset: vec![false; zones as usize],
            free: (0..zones).collect(),
            resetting: 0,
            open: vec![(NONE, 0); streams as usize + 1],
            victim: NONE,
            owner: NONE,
            next_slot: 0,
            reads_out: 0,
            ready: VecDeque::new(),
            c: HostLogCounters::default(),
        })
    }

    /// Collect in the background from fewer than `bg` empty zones (0: never; else
    /// more than `gc_free_zones`).
    pub fn with_background(mut self, bg: u32) -> Result<Self, String> {
        if bg != 0 && bg <= self.gc_free_zones {
            return Err(format!(
                "bg_free_zones: {bg} (allowed: 0, no background collection, or more than \
                 gc_free_zones, {})",
                self.gc_free_zones
            ));
        }
        let zones = self.valid.len() as u32;
        if bg >= zones {
            return Err(format!(
                "bg_free_zones: {bg} (allowed: fewer than the drive's {zones} zones)"
            ));
        }
        self.bg_free_zones = bg;
        Ok(self)
    }

    /// Empty zones below which a background collection starts (0: none).
    pub fn bg_free_zones(&self) -> u32 {
        self.bg_free_zones
    }

    /// The extent (bytes): the jobs' block size.
    pub fn extent_bytes(&self) -> u64 {
        self.extent_bytes
    }

    /// Streams for the jobs' writes (GC's not counted).
    pub fn streams(&self) -> u32 {
        self.streams
    }

    /// Empty zones below which a collection starts.
    pub fn gc_free_zones(&self) -> u32 {
        self.gc_free_zones
    }

    /// Is job `job` running a collection (it must finish it)?
    pub fn owns_collection(&self, job: u32) -> bool {
        self.victim != NONE && self.owner == job
    }

    /// The stream job `job` writes to.
    pub fn stream_of(&self, job: u32) -> u32 {
        self.job_stream.get(job as usize).copied().unwrap_or(0) % self.streams
    }

    fn gc_stream(&self) -> usize {
        self.streams as usize
    }

    fn offset_of(&self, slot: u32) -> u64 {
        let (z, i) = (slot / self.per_zone, slot % self.per_zone);
        z as u64 * self.zone_bytes + i as u64 * self.extent_bytes
    }

    /// Zone start (bytes) of zone `zone`.
    pub fn zone_start(&self, zone: u32) -> u64 {
        zone as u64 * self.zone_bytes
    }

    /// A collection is due or running for job `job`: its next GC command, `Wait`, or
    /// None when the job may write.
    pub fn gc_step(&mut self, job: u32) -> Option<HostCmd> {
        let empty = self.free.len() as u32 + self.resetting;
        if self.victim == NONE {
            if empty >= self.gc_free_zones.max(self.bg_free_zones) {
                return None;
            }
            // The full zone with the least valid data (never an open one).
            let victim = (0..self.valid.len() as u32)
                .filter(|&z| {
                    self.taken[z as usize]
                        && !self.in_reset[z as usize]
                        && !self.open.iter().any(|o| o.0 == z)
                })
                .min_by_key(|&z| self.valid[z as usize])?;
            if self.valid[victim as usize] >= self.per_zone {
                return None; // nothing to gain: every full zone is all valid
            }
            self.victim = victim;
            self.owner = job;
            self.next_slot = 0;
            self.c.victims += 1;
            if empty >= self.gc_free_zones {
                self.c.background_victims += 1;
            }
        }
        if job != self.owner {
            if empty >= self.gc_free_zones {
                return None; // a background collection: the others write on
            }
            self.c.waits += 1;
            return Some(HostCmd::Wait);
        }
        // In the background the job running the collection writes its own data in the
        // collection's gaps (its reads in flight, no zone for GC's stream yet).
        let gap = if empty >= self.gc_free_zones {
            None
        } else {
            Some(HostCmd::Wait)
        };
        if let Some(extent) = self.ready.pop_front() {
            let Some(slot) = self.place(self.gc_stream(), extent) else {
                self.ready.push_front(extent);
                self.c.waits += u64::from(gap.is_some());
                return gap;
            };
            self.c.gc_writes += 1;
            return Some(HostCmd::GcWrite {
                offset: self.offset_of(slot),
            });
        }
        let base = self.victim * self.per_zone;
        while self.next_slot < self.per_zone {
            let slot = base + self.next_slot;
            self.next_slot += 1;
            if self.rev[slot as usize] != NONE {
                self.reads_out += 1;
                self.c.gc_reads += 1;
                return Some(HostCmd::GcRead {
                    offset: self.offset_of(slot),
                    slot,
                });
            }
        }
        if self.reads_out > 0 {
            return gap;
        }
        // Every valid extent read and written again: reset the victim.
        let zone = self.victim;
        debug_assert_eq!(self.valid[zone as usize], 0);
        self.victim = NONE;
        self.owner = NONE;
        self.resetting += 1;
        self.in_reset[zone as usize] = true;
        self.c.resets += 1;
        Some(HostCmd::Reset { zone })
    }

    /// The GC read of `slot` completed: its extent (if still valid there) is to write.
    pub fn read_done(&mut self, slot: u32) {
        self.reads_out -= 1;
        let extent = self.rev[slot as usize];
        if extent != NONE {
            self.ready.push_back(extent);
        }
    }

    /// The reset of `zone` completed: the zone is empty.
    pub fn reset_done(&mut self, zone: u32) {
        self.resetting -= 1;
        self.in_reset[zone as usize] = false;
        self.taken[zone as usize] = false;
        self.free.push_back(zone);
    }

    /// Can job `job`'s next write be placed now (its stream's zone has room or an
    /// empty zone is there)?
    pub fn can_place(&mut self, job: u32) -> bool {
        let (z, wp) = self.open[self.stream_of(job) as usize];
        let ok = (z != NONE && wp < self.per_zone) || !self.free.is_empty();
        if !ok {
            self.c.waits += 1;
        }
        ok
    }

    /// Job `job` writes logical byte `offset`: the byte offset on the drive it goes to.
    pub fn write(&mut self, job: u32, offset: u64) -> u64 {
        let extent = (offset / self.extent_bytes) as u32;
        let slot = self
            .place(self.stream_of(job) as usize, extent)
            .expect("can_place said the stream has room");
        self.c.app_writes += 1;
        self.offset_of(slot)
    }

    /// Put `extent` at stream `s`'s write pointer (a new zone when its zone is full);
    /// None when it needs a zone and none is empty.
    fn place(&mut self, s: usize, extent: u32) -> Option<u32> {
        let (mut z, mut wp) = self.open[s];
        if z == NONE || wp >= self.per_zone {
            z = self.free.pop_front()?;
            self.taken[z as usize] = true;
            wp = 0;
        }
        let slot = z * self.per_zone + wp;
        self.open[s] = (z, wp + 1);
        let old = self.map[extent as usize];
        if old != NONE {
            self.rev[old as usize] = NONE;
            self.valid[(old / self.per_zone) as usize] -= 1;
        }
        self.map[extent as usize] = slot;
        self.rev[slot as usize] = extent;
        self.valid[z as usize] += 1;
        Some(slot)
    }

    /// Host write amplification over the whole run (`HostLogCounters::waf`).
    pub fn waf(&self) -> f64 {
        self.c.waf()
    }

    /// Check the store's books: every mapped extent's slot maps back to it, valid
    /// counts match, no zone both free and taken. For tests.
    pub fn check(&self) -> Result<(), String> {
        let mut valid = vec![0u32; self.valid.len()];
        for (e, &s) in self.map.iter().enumerate() {
            if s == NONE {
                continue;
            }
            if self.rev[s as usize] != e as u32 {
                return Err(format!(
                    "extent {e} -> slot {s} -> {}",
                    self.rev[s as usize]
                ));
            }
            valid[(s / self.per_zone) as usize] += 1;
        }
        if valid != self.valid {
            return Err("valid counts".into());
        }
        for &z in &self.free {
            if self.taken[z as usize] || self.valid[z as usize] != 0 {
                return Err(format!("free zone {z} taken or holding data"));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two jobs over `streams` streams (1 or 2).
    fn two(streams: u32) -> Vec<u32> {
        vec![0, streams - 1]
    }

    /// Drive a store the way the event loop does, with every command completing at
    /// once, and return it.
    fn drive(log: &mut HostLog, jobs: u32, writes: &[(u32, u64)]) {
        for &(job, offset) in writes {
            loop {
                match log.gc_step(job) {
                    None => break,
                    Some(HostCmd::GcRead { slot, .. }) => log.read_done(slot),
                    Some(HostCmd::GcWrite { .. }) => {}
                    Some(HostCmd::Reset { zone }) => log.reset_done(zone),
                    Some(HostCmd::Wait) => panic!("wait with everything completed"),
                }
            }
            assert!(log.can_place(job));
            log.write(job, offset);
            log.check().unwrap();
        }
        let _ = jobs;
    }

    #[test]
    fn sequential_logs_in_their_own_streams_never_copy() {
        // 16 zones of 8 extents; two jobs each rewriting its own 16 extents in order.
        let mut log = HostLog::new(4096, 65536, 32768, 16, 32 * 4096, two(2), 2, 2).unwrap();
        let mut w = Vec::new();
        for pass in 0..20u64 {
            for i in 0..16 {
                w.push((0, i * 4096));
                w.push((1, (16 + i) * 4096));
            }
            let _ = pass;
        }
        drive(&mut log, 2, &w);
        assert_eq!(log.c.app_writes, 640);
        assert!(log.c.victims > 10, "{:?}", log.c);
        assert_eq!((log.c.gc_reads, log.c.gc_writes), (0, 0), "{:?}", log.c);
        assert_eq!(log.waf(), 1.0);
    }

    #[test]
    fn mixing_lifetimes_in_one_stream_copies_and_separating_them_does_not() {
        // A hot job (4 extents) and a cold one (40 extents), interleaved 4:1.
        let run = |streams: u32| {
            let mut log =
                HostLog::new(4096, 65536, 32768, 16, 44 * 4096, two(streams), streams, 2).unwrap();
            let mut w = Vec::new();
            let mut cold = 0;
            for k in 0..4000u64 {
                if k % 5 == 4 {
                    w.push((1, (4 + cold % 40) * 4096));
                    cold += 1;
                } else {
                    w.push((0, (k % 4) * 4096));
                }
            }
            drive(&mut log, 2, &w);
            log
        };
        let (one, two) = (run(1), run(2));
        assert!(one.waf() > 1.1, "{:?}", one.c);
        assert!(two.waf() < 1.05, "{:?} vs {:?}", two.c, one.c);
        assert_eq!(one.c.gc_reads, one.c.gc_writes);
    }

    /// Job 0 writes 4 cold extents, then 20 hot ones rewritten out of order, until the
    /// store starts a collection with data to move: its first command.
    fn write_until_a_collection(log: &mut HostLog) -> HostCmd {
        for e in 0..4u64 {
            assert!(log.gc_step(0).is_none());
            log.write(0, e * 4096);
        }
        for k in 0..10_000u64 {
            match log.gc_step(0) {
                None => {
                    assert!(log.can_place(0));
                    log.write(0, (4 + k * 7 % 20) * 4096);
                }
                Some(HostCmd::Reset { zone }) => log.reset_done(zone),
                Some(cmd) => return cmd,
            }
        }
        panic!("no collection with data to move");
    }

    #[test]
    fn one_job_runs_a_collection_and_the_others_wait() {
        // 8 zones of 8 extents, one stream: 4 cold extents, then 20 hot ones
        // rewritten out of order until a collection has valid data to move.
        let mut log = HostLog::new(4096, 65536, 32768, 8, 24 * 4096, two(1), 1, 2).unwrap();
        let first = write_until_a_collection(&mut log);
        assert!(matches!(first, HostCmd::GcRead { .. }), "{first:?}");
        // Job 0 owns the collection; job 1's writes wait for it.
        assert_eq!(log.gc_step(1), Some(HostCmd::Wait));
        // Job 0 reads on until nothing is left to read, then waits for its reads.
        let mut slots = vec![];
        let mut next = Some(first);
        while let Some(HostCmd::GcRead { slot, .. }) = next {
            slots.push(slot);
            next = log.gc_step(0);
        }
        assert_eq!(next, Some(HostCmd::Wait));
        assert_eq!(log.c.gc_reads, slots.len() as u64);
        // A read done makes its write due; once all are written, the victim is reset.
        for s in slots {
            log.read_done(s);
        }
        let (reads, mut writes) = (log.c.gc_reads, 0);
        loop {
            match log.gc_step(0) {
                Some(HostCmd::GcWrite { .. }) => writes += 1,
                Some(HostCmd::Reset { zone }) => {
                    // Job 1 is no longer held by job 0's collection (it writes, or
                    // runs the next one itself).
                    assert_ne!(log.gc_step(1), Some(HostCmd::Wait));
                    log.reset_done(zone);
                    break;
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(writes, reads);
        log.check().unwrap();
    }

    /// A background collection (from fewer than `bg_free_zones` empty zones) lets the
    /// other jobs write, and its owner write in its gaps, until the empty zones fall
    /// below `gc_free_zones`, where the others wait again.
    #[test]
    fn a_background_collection_lets_the_writers_go_on() {
        let mut log = HostLog::new(4096, 65536, 32768, 8, 24 * 4096, two(1), 1, 2)
            .unwrap()
            .with_background(4)
            .unwrap();
        assert_eq!(log.bg_free_zones(), 4);
        let empty = |l: &HostLog| l.free.len() as u32 + l.resetting;
        let first = Some(write_until_a_collection(&mut log));
        assert!(matches!(first, Some(HostCmd::GcRead { .. })), "{first:?}");
        // Started with 2 or 3 empty zones: in the background.
        assert!((2..4).contains(&empty(&log)), "{}", empty(&log));
        assert_eq!(log.c.background_victims, 1);
        // Job 1 writes on; job 0 reads its victim, then writes in the gap.
        assert_eq!(log.gc_step(1), None);
        let mut slots = vec![];
        let mut next = first;
        while let Some(HostCmd::GcRead { slot, .. }) = next {
            slots.push(slot);
            next = log.gc_step(0);
        }
        assert_eq!(next, None, "reads in flight: job 0 may write");
        // Writes that take the empty zones below gc_free_zones make it foreground.
        let mut k = 0;
        while empty(&log) >= 2 {
            assert_eq!(log.gc_step(1), None);
            assert!(log.can_place(1));
            log.write(1, (4 + k % 20) * 4096);
            k += 1;
        }
        assert_eq!(log.gc_step(1), Some(HostCmd::Wait));
        assert_eq!(
            log.gc_step(0),
            Some(HostCmd::Wait),
            "its reads are in flight"
        );
        for s in slots {
            log.read_done(s);
        }
        log.check().unwrap();
        // A background threshold at or below gc_free_zones, or past the zones, is refused.
        let new = || HostLog::new(4096, 65536, 32768, 8, 4096, two(1), 1, 2).unwrap();
        assert!(new()
            .with_background(2)
            .unwrap_err()
            .contains("more than gc_free_zones"));
        assert!(new()
            .with_background(8)
            .unwrap_err()
            .contains("fewer than the drive's 8"));
        assert!(new().with_background(0).is_ok());
    }

    #[test]
    fn a_logical_space_the_zones_cannot_hold_is_refused() {
        let e = HostLog::new(4096, 65536, 32768, 8, 40 * 4096, two(1), 1, 2).unwrap_err();
        assert!(e.contains("must be smaller than the zones left"), "{e}");
        let e = HostLog::new(4096 * 3, 65536, 32768, 8, 4096, two(1), 1, 2).unwrap_err();
        assert!(e.contains("must divide the zone capacity"), "{e}");
        let e = HostLog::new(4096, 65536, 32768, 8, 4096, two(1), 1, 1).unwrap_err();
        assert!(e.contains("gc_free_zones: 1"), "{e}");
    }
}
