//! Host jobs: closed-loop fio-style threads (or trace replays) that submit
//! commands, pace themselves, and take completions with their latency accounting
//! (slat, clat, lat, depth); reporting groups with stonewall and ramp_time; the
//! host's busy time and idle detection for background work.
//!
//! Simplifies: the host's driver and CPU cost nothing (submission is instant, the
//! completion is seen when its entry lands); a job's queue is chosen by the queue
//! policy, not by CPU affinity.

use super::{Cmd, Origin, Ssd};
use crate::config::QueuePolicy;
use crate::sim::{Event, Ns};
use crate::stats::JobStats;
use crate::trace::replay::{ReplayMode, TraceSource};
use crate::workload::{Io, JobGen};

/// Host-side state of one job (thread).
pub(super) struct Job {
    pub(super) gen: JobGen,
    /// Its writes' placement IDs (FDP), if it gives them.
    pub(super) placement: Option<Box<crate::workload::placement::PidSelect>>,
    /// The placement ID of the trace request being submitted (csv's fifth column).
    pub(super) trace_pid: Option<u32>,
    pub(super) inflight: u32,
    pub(super) done: bool,
    pub(super) stats: JobStats,
    /// Round-robin cursor for the `round-robin` queue policy.
    pub(super) rr: u32,
    /// Index of its config in `job_cfgs`, its name and reporting group.
    pub(super) cfg: u32,
    pub(super) name: String,
    pub(super) group: u32,
    pub(super) iodepth: u32,
    /// When its group started, and when its measurement starts (after ramp_time).
    pub(super) start_ns: Ns,
    pub(super) ramp_ns: Ns,
    pub(super) measure_from: Ns,
    /// Time of the pending HostSubmit wake-up, if any (Ns::MAX: none).
    pub(super) wake_at: Ns,
    /// The trace this job replays, if it is a replay job.
    pub(super) trace: Option<Box<TraceSource>>,
    pub(super) trace_error: Option<String>,
    /// Driven from outside (a probe session), not by its generator.
    pub(super) external: bool,
    /// Its flushes (fio's `fsync=N`, `end_fsync`).
    pub(super) sync: JobSync,
    /// fio's verify pass (`verify_readback`).
    pub(super) readback: Readback,
    /// Every command issued: [ns since its group started, kind (3: flush), offset,
    /// length] (`log_ios`).
    pub(super) iolog: Option<Vec<[u64; 4]>>,
    /// Every measured completion: [ns since measurement started, kind, length,
    /// offset, slat, clat] (`log_completions`).
    pub(super) completions: Option<Vec<[u64; 6]>>,
}

/// fio's verify pass: the blocks a job wrote, read back once its writes are done.
#[derive(Debug, Default)]
pub(super) struct Readback {
    on: bool,
    /// (offset, length) of each write, in issue order.
    writes: Vec<(u64, u64)>,
    /// While reading back: the next entry to read.
    next: Option<usize>,
}

impl Readback {
    pub(super) fn new(on: bool) -> Readback {
        Readback {
            on,
            ..Readback::default()
        }
    }

    /// Reads still to issue (or the pass still to start).
    fn pending(&self) -> bool {
        self.on && self.next.is_none_or(|i| i < self.writes.len())
    }
}

/// A job's flushes: one after every `every` writes (0: none) and one at its end.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct JobSync {
    every: u64,
    writes: u64,
    /// A flush is outstanding: the job issues nothing else.
    pub(super) flushing: bool,
    /// The end flush is still to be issued.
    end: bool,
    /// The flush outstanding is the end flush (not counted in the job's `sync`).
    uncounted: bool,
}

impl JobSync {
    pub(super) fn new(every: Option<u64>, end: bool) -> JobSync {
        JobSync {
            every: every.unwrap_or(0),
            end,
            ..JobSync::default()
        }
    }
}

impl JobSync {
    /// The job flushes at all (or a flush is outstanding).
    #[inline]
    fn used(&self) -> bool {
        self.every > 0 || self.end || self.flushing
    }
}

impl Job {
    /// Its flush completed: it may issue again.
    pub(super) fn flush_done(&mut self) {
        self.sync.flushing = false;
    }
}

impl Ssd {
    /// A replay job: closed loop at its iodepth, or each request at its arrival time.
    pub(super) fn fill_trace_job(&mut self, job: u32) {
        loop {
            let now = self.now();
            let j = &mut self.jobs[job as usize];
            if j.done {
                return;
            }
            let tr = j.trace.as_mut().expect("a replay job");
            let Some(due) = tr.due(j.start_ns) else {
                return;
            };
            if tr.mode == ReplayMode::Closed && j.inflight >= j.iodepth {
                return;
            }
            if due > now {
                if j.wake_at != due {
                    j.wake_at = due;
                    self.q.schedule(due, Event::HostSubmit { job });
                }
                return;
            }
            let zone = tr.next_command();
            let pid = tr.next_placement();
            if pid.is_some() && self.ftl.fdp.is_none() {
                tr.stop_with(format!(
                    "request {}: a placement ID ({}) needs a drive with Flexible Data Placement (a device with [fdp]); '{}' has none",
                    tr.issued,
                    pid.unwrap_or(0),
                    self.cfg.name
                ));
                return;
            }
            let io = tr.take().expect("a request was due");
            match zone {
                None => {
                    j.trace_pid = pid;
                    self.submit_io(job, io);
                }
                Some(crate::trace::TraceCmd::RuhUpdate) => {
                    // The placement ID is the update's, not a write's.
                    self.submit_ruh_update(job, &[pid.unwrap_or(0)]);
                }
                Some(cmd) => {
                    j.trace_pid = pid;
                    self.trace_zoned_cmd(job, cmd, io)
                }
            }
        }
    }

    /// A replayed zoned command (`trace::TraceCmd`): a Zone Management Send of the
    /// zone holding the record's offset, a reset of every zone (Select All:
    /// `zone_reset_all`), or a Zone Append to the zone holding the
    /// offset. On a drive that is not zoned the replay stops with an error naming it.
    fn trace_zoned_cmd(&mut self, job: u32, cmd: crate::trace::TraceCmd, io: Io) {
        use crate::trace::TraceCmd;
        if self.zoned.is_none() {
            let j = &mut self.jobs[job as usize];
            let tr = j.trace.as_mut().expect("a replay job");
            let what = match cmd {
                TraceCmd::Send(a) => format!("zone management ({a:?})"),
                TraceCmd::ResetAll => "zone management (reset of all zones)".into(),
                TraceCmd::Append => "a Zone Append".into(),
                TraceCmd::RuhUpdate => unreachable!("not a zoned command"),
            };
            tr.stop_with(format!(
                "request {}: {what} needs a zoned drive (a device with [zns]); '{}' is not zoned",
                tr.issued, self.cfg.name
            ));
            return;
        }
        match cmd {
            TraceCmd::Send(action) => {
                let zslba = self.zoned_zone_start(io.offset);
                self.zone_send(job, action, zslba);
            }
            TraceCmd::ResetAll => {
                self.zone_reset_all(job);
            }
            TraceCmd::Append => {
                let mut io = io;
                io.offset = self.zoned_zone_start(io.offset); // ZSLBA
                let c = self.submit_io(job, io);
                self.zoned_mark_append(c); // read back where the drive put it
            }
            TraceCmd::RuhUpdate => unreachable!("not a zoned command"),
        }
    }

    /// Schedule `event(i)` at the `i`-th of `ats` (ns from the run's start, never before
    /// now): a workload's commands at set times (`zone_ops`, `fdp_ops`).
    pub(super) fn schedule_at_times(&mut self, ats: Vec<u64>, event: impl Fn(u32) -> Event) {
        for (i, at) in ats.into_iter().enumerate() {
            let at = at.max(self.now());
            self.q.schedule(at, event(i as u32));
        }
    }

    /// The job a command due at a set time goes out as: the first not yet done (None:
    /// the run is over).
    pub(super) fn first_running_job(&self) -> Option<u32> {
        self.jobs.iter().position(|j| !j.done).map(|j| j as u32)
    }

    /// Start the jobs of group `idx` now; returns how many there are.
    pub(super) fn start_group(&mut self, idx: usize) -> usize {
        let now = self.now();
        self.host_log_group_starts();
        let g = self.groups[idx];
        let mut n = 0;
        // The group's first job start, and the first end of a job's delay and ramp.
        let (mut first_start, mut first_measured) = (Ns::MAX, Ns::MAX);
        for j in 0..self.jobs.len() {
            let job = &mut self.jobs[j];
            if job.group != g {
                continue;
            }
            // A delayed job's runtime and ramp count from its own start, as fio's.
            job.start_ns = job.gen.start_at(now);
            job.measure_from = job.start_ns.saturating_add(job.ramp_ns);
            first_start = first_start.min(job.start_ns);
            first_measured = first_measured.min(job.measure_from);
            job.wake_at = now;
            self.q.schedule(now, Event::HostSubmit { job: j as u32 });
            n += 1;
        }
        // The device's measured window: from the end of the group's first ramp (a job's
        // start delay and then its ramp).
        let ramp = if n == 0 { 0 } else { first_measured - now };
        // Every job starts late: the host is idle from now, and the drive may do its
        // background work (folding, GC) once its idle time has passed, as after a run
        // of I/O (`complete`).
        if n > 0 && first_start > now && self.host_inflight == 0 && self.has_background_work() {
            self.idle_gen = self.idle_gen.wrapping_add(1);
            let at = now + self.cfg.ftl.idle_time.ns();
            self.q.schedule(at, Event::HostIdle { gen: self.idle_gen });
        }
        self.settle_start_group(idx);
        if ramp > 0 {
            self.window.close(&self.ftl.stats);
            self.power_measure_close(now);
            let group = idx as u32;
            self.q.schedule(now + ramp, Event::RampEnd { group });
        }
        n
    }

    /// Submit what the job may: up to its iodepth, within its stop rule and pacing.
    pub(super) fn fill_job(&mut self, job: u32) {
        if self.jobs[job as usize].external {
            return;
        }
        if self.jobs[job as usize].trace.is_some() {
            self.fill_trace_job(job);
            return;
        }
        loop {
            let now = self.now();
            let j = &mut self.jobs[job as usize];
            // Flushes and the verify pass, for the jobs that have them (kept out of the
            // common path: one test per fill).
            if (j.sync.used() || j.readback.on) && self.flush_or_read_back(job, now) {
                return;
            }
            let j = &mut self.jobs[job as usize];
            if j.done || j.inflight >= j.iodepth {
                return;
            }
            // A job running the host store's collection finishes it after its own
            // writes (asked only of a job that has none left).
            if !j.gen.can_issue(now)
                && !self
                    .host_log
                    .as_ref()
                    .is_some_and(|h| h.log.owns_collection(job))
            {
                return;
            }
            let j = &mut self.jobs[job as usize];
            if j.gen.next_at > now {
                let at = j.gen.next_at;
                if j.wake_at != at {
                    j.wake_at = at;
                    self.q.schedule(at, Event::HostSubmit { job });
                }
                return;
            }
            if self.host_log.is_some() {
                if !self.hostlog_submit(job) {
                    return;
                }
                continue;
            }
            self.submit(job);
        }
    }

    pub(super) fn progress(&self) -> f64 {
        let now = self.now();
        let cap = self.cfg.capacity_bytes();
        let mut done = 0.0;
        for j in &self.jobs {
            let w = &self.job_cfgs[j.cfg as usize];
            let g = &j.gen;
            let f = if j.done {
                1.0
            } else if j.group != self.groups[self.group_idx] {
                0.0
            } else {
                let by_time = w
                    .runtime
                    .map(|r| now.saturating_sub(j.start_ns) as f64 / r.ns() as f64)
                    .unwrap_or(0.0);
                let by_ios = w
                    .number_ios
                    .map(|n| g.issued_ios as f64 / n as f64)
                    .unwrap_or(0.0);
                let by_bytes = match (w.io_size, w.number_ios) {
                    (Some(b), None) => g.issued_bytes as f64 / b.bytes() as f64,
                    (None, None) if w.runtime.is_none() => {
                        g.issued_bytes as f64 / w.span(cap) as f64
                    }
                    _ => 0.0,
                };
                by_time.max(by_ios).max(by_bytes).min(1.0)
            };
            done += f;
        }
        done / self.jobs.len().max(1) as f64
    }

    pub(super) fn finish_job_if_done(&mut self, job: u32) -> bool {
        let now = self.now();
        let j = &mut self.jobs[job as usize];
        let more = match &j.trace {
            Some(t) => t.has_next(),
            None => j.trace_error.is_none() && j.gen.can_issue(now),
        } || j.sync.flushing
            || j.sync.end
            || j.readback.pending();
        if !j.done && j.inflight == 0 && !more {
            j.done = true;
            j.stats.end_ns = now;
            j.stats.start_ns = j.measure_from.min(now);
            return true;
        }
        false
    }

    /// Issue the job's next command if it may.
    pub(super) fn submit(&mut self, job: u32) {
        let now = self.now();
        let j = &mut self.jobs[job as usize];
        if !j.gen.can_issue(now) {
            return;
        }
        let io = j.gen.next_io_in(now, self.zbd.as_deref_mut());
        if self.zoned.is_some() {
            // The zone finishes and resets fio does before this write, or before it
            // ends the job (a finish of the last zone).
            self.zoned_send_zbd_resets(job);
        }
        if io.len == 0 {
            return; // a zone mode's end of the job (workload/zbd.rs)
        }
        let mut io = io;
        let mut append = false;
        if self.zoned.is_some() {
            let cfg = self.jobs[job as usize].cfg as usize;
            append = io.kind == crate::workload::OpKind::Write && self.job_cfgs[cfg].zone_append;
            if append {
                io.offset = self.zoned_zone_start(io.offset); // Zone Append's ZSLBA
            }
        }
        let j = &mut self.jobs[job as usize];
        if io.kind == crate::workload::OpKind::Write {
            j.sync.writes += 1;
            if j.readback.on && !append {
                j.readback.writes.push((io.offset, io.len));
            }
        }
        let cmd = self.submit_io(job, io);
        if append {
            self.zoned_mark_append(cmd); // read back where the drive put it (`complete`)
        }
    }

    /// A job's flushes and verify pass (`fill_job`): true when the job must issue
    /// nothing else now (a flush outstanding or just issued, one due, or the verify
    /// pass running).
    #[cold]
    fn flush_or_read_back(&mut self, job: u32, now: Ns) -> bool {
        let j = &mut self.jobs[job as usize];
        if j.sync.flushing {
            return true;
        }
        // fio: a sync before the next I/O after every N writes (none once the job's
        // I/O is done), and end_fsync's once it is.
        let more = j.gen.can_issue(now);
        let due = (more && j.sync.every > 0 && j.sync.writes >= j.sync.every)
            || (!more && j.sync.end && !j.done);
        if due {
            // As fio's engines do a sync: after the outstanding I/Os, alone.
            if j.inflight == 0 {
                j.sync.writes = 0;
                // fio's end_fsync is not in its statistics.
                j.sync.uncounted = !more;
                j.sync.end &= more;
                j.sync.flushing = true;
                self.submit_flush(job);
            }
            return true;
        }
        if !j.done && j.readback.pending() && !more {
            self.read_back(job);
            return true;
        }
        false
    }

    /// The verify pass: once the writes have completed, read back what was written,
    /// up to the job's iodepth, until its runtime ends.
    fn read_back(&mut self, job: u32) {
        let now = self.now();
        let j = &mut self.jobs[job as usize];
        let w = &self.job_cfgs[j.cfg as usize];
        let over = w
            .runtime
            .is_some_and(|r| now.saturating_sub(j.start_ns) >= r.ns());
        let rb = &mut j.readback;
        if rb.next.is_none() {
            if j.inflight > 0 {
                return; // fio reads back after the writes complete
            }
            if w.rw.is_random() {
                // Each block once, by offset (fio's sorted verify list for overwrites).
                rb.writes.sort_by_key(|&(o, _)| o);
                rb.writes.dedup_by_key(|&mut (o, _)| o);
            }
            rb.next = Some(0);
            j.stats.verify_from_ns = now.max(1);
        }
        if over {
            rb.next = Some(rb.writes.len()); // the runtime also ends the verify pass
            return;
        }
        loop {
            let j = &mut self.jobs[job as usize];
            if j.inflight >= j.iodepth {
                return;
            }
            let i = j.readback.next.expect("started");
            let Some(&(offset, len)) = j.readback.writes.get(i) else {
                return;
            };
            j.readback.next = Some(i + 1);
            let io = Io {
                kind: crate::workload::OpKind::Read,
                offset,
                len,
            };
            self.submit_io(job, io);
        }
    }

    /// Put one host I/O of `job` into its submission queue; returns its command id
    /// (valid until its `HostComplete` has been dispatched).
    pub(super) fn submit_io(&mut self, job: u32, io: Io) -> u32 {
        self.submit_cmd(job, io, Origin::Host)
    }

    /// `submit_io` for a command of any host origin (a flush: `flush.rs`).
    pub(super) fn submit_cmd(&mut self, job: u32, io: Io, origin: Origin) -> u32 {
        let now = self.now();
        if self.host_inflight == 0 && self.power.is_some() {
            self.power_busy(now);
        }
        let nq = self.nvme.queues();
        let j = &mut self.jobs[job as usize];
        if let Some(log) = &mut j.iolog {
            let kind = match origin {
                Origin::HostFlush => 3,
                _ => io.kind.index() as u64,
            };
            log.push([now - j.start_ns, kind, io.offset, io.len]);
        }
        j.inflight += 1;
        if self.host_inflight == 0 {
            self.host_busy_since = now;
        }
        if now >= j.measure_from {
            j.stats.record_depth(j.inflight);
        }
        self.host_inflight += 1;
        self.host_idle = false;
        self.ftl.prefetch_lpn((io.offset / self.unit_bytes) as u32);
        let sq = match self.queue_policy {
            QueuePolicy::PerThread => job % nq,
            QueuePolicy::RoundRobin => {
                let s = j.rr % nq;
                j.rr = j.rr.wrapping_add(1);
                s
            }
        };
        let pid = match (j.trace_pid.take(), &mut j.placement) {
            (Some(p), _) => self.ftl.resolve_pid(p),
            (None, Some(p)) if io.kind == crate::workload::OpKind::Write => {
                self.ftl.resolve_pid(p.next(io.offset))
            }
            _ => crate::ftl::fdp::NO_PID,
        };
        let cmd = self.cmds.insert(Cmd {
            job,
            sq,
            kind: io.kind,
            offset: io.offset,
            len: io.len,
            submit_ns: now,
            fetch_ns: now,
            pending: 0,
            placed: 0,
            origin,
            pid,
        });
        if self.remote.is_some() {
            // Through the fabric first: the target submits it when it arrives.
            self.remote_forward(cmd, now, io.kind, io.len);
            return cmd;
        }
        self.queue_command(cmd);
        cmd
    }

    /// The host sees the completion: record latency, free the queue entry.
    pub(super) fn complete(&mut self, cmd: u32) {
        let now = self.now();
        let c = *self.cmds.get(cmd);
        let j = &mut self.jobs[c.job as usize];
        j.inflight -= 1;
        j.gen.on_complete(now);
        self.host_inflight -= 1;
        if self.host_inflight == 0 {
            self.host_busy_ns += now - self.host_busy_since;
        }
        if self.host_inflight == 0 && self.has_background_work() {
            self.idle_gen = self.idle_gen.wrapping_add(1);
            let at = self.q.now() + self.cfg.ftl.idle_time.ns();
            self.q.schedule(at, Event::HostIdle { gen: self.idle_gen });
        }
        if self.host_events.is_some() {
            self.host_events_complete(c.submit_ns, c.fetch_ns);
        }
        let store_own = self.host_log.is_some() && self.hostlog_completed(cmd);
        let failed = self.zoned.is_some() && self.zoned_completed(cmd);
        if !failed && self.zoned.is_some() && self.zoned_take_append(cmd) {
            // A Zone Append: its data is at the LBA the completion returned.
            let j = &mut self.jobs[c.job as usize];
            if j.readback.on {
                j.readback.writes.push((c.offset, c.len));
            }
        }
        let j = &mut self.jobs[c.job as usize];
        if failed || store_own || c.origin == Origin::IoMgmt {
            // A zoned error: no data moved (counted in `device.zns.errors`); the host
            // store's own command (`device.zns.host_log`); or an I/O Management Send
            // (`device.fdp.ruh_updates`).
        } else if c.origin == Origin::HostFlush {
            if c.submit_ns >= j.measure_from && !j.sync.uncounted {
                j.stats.sync.record(now - c.submit_ns, 0);
            }
            j.flush_done();
        } else if c.submit_ns >= j.measure_from {
            let d = c.kind.index();
            j.stats.dirs[d].record(now - c.submit_ns, c.len);
            j.stats.slat[d].record(c.fetch_ns - c.submit_ns);
            j.stats.clat[d].record(now - c.fetch_ns);
            j.stats.samplers[d].record(now - j.measure_from, c.len, now - c.submit_ns);
            if let Some(log) = &mut j.completions {
                let (slat, clat) = (c.fetch_ns - c.submit_ns, now - c.fetch_ns);
                log.push([now - j.measure_from, d as u64, c.len, c.offset, slat, clat]);
            }
        }
        self.cmds.remove(cmd);
        if self.power.is_some() {
            if self.host_inflight == 0 {
                self.power_idle(now);
            } else {
                self.power_window(now);
            }
        }
        if let Some(next) = self.nvme.complete(c.sq) {
            self.enqueue_sq(next, c.sq);
        }
    }

    /// Does the drive work in the background when the host is idle (folding its SLC
    /// area, background GC)?
    fn has_background_work(&self) -> bool {
        (self.ftl.slc_active() && self.cfg.slc.fold_when_idle)
            || self.cfg.ftl.background_gc_blocks > 0
    }

    /// The host has had nothing outstanding for the idle time: background work.
    pub(super) fn host_went_idle(&mut self, gen: u32) {
        if gen != self.idle_gen || self.host_inflight > 0 {
            return;
        }
        self.host_idle = true;
        for die in 0..self.geo.dies {
            self.background_work(die);
        }
    }
}
