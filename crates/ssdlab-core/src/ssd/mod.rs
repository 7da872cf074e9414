//! The device: owns every component and the event queue, and runs the dispatch
//! loop. Host jobs (closed-loop fio-style threads) live here too, since they only
//! submit commands and take completions.
//!
//! Path of a command: host writes it to a submission queue and rings the doorbell
//! (PCIe down) -> fetch engine arbitrates and fetches it (PCIe up request, PCIe down
//! data) -> its firmware core decodes it and looks up the map -> reads: flash
//! transactions per physical page, data-out over the channel, data to the host
//! (PCIe up); writes: room in the write buffer, data from the host (PCIe down),
//! placement in the FTL -> completion entry (PCIe up) -> host.

mod data_tiers;
mod flash;
mod io;
mod map;
mod prep_cache;
mod report;
mod sched;
mod session;
mod session_async;
mod stats;
mod system_hooks;
#[cfg(test)]
mod tests;

use crate::config::{DeviceConfig, QueuePolicy, WorkloadConfig};
use crate::controller::{Cores, DieQueues, Slab, Txn, WriteBuffer};
use crate::ftl::prep::{DriveState, PrepInfo};
use crate::ftl::Ftl;
use crate::host::{Nvme, Pcie, DOORBELL_BYTES};
use crate::nand::{Channel, Die, Geometry, Timing};
use crate::sim::{Event, EventQueue, Ns};
use crate::stats::JobStats;
use crate::trace::replay::{ReplayMode, TraceSource};
use crate::workload::{Io, JobGen, OpKind};

pub use prep_cache::{clear as clear_prepared, prep_key};
pub(crate) use report::dirs_json;
pub use report::Report;
pub use session::Session;
pub use session_async::{AsyncSession, Completion};
pub use stats::DeviceStats;

/// A host command in flight.
#[derive(Clone, Copy, Debug)]
pub struct Cmd {
    pub job: u32,
    pub sq: u32,
    pub kind: OpKind,
    pub offset: u64,
    pub len: u64,
    pub submit_ns: Ns,
    /// When the device fetched it from its submission queue.
    pub fetch_ns: Ns,
    /// Flash transactions (or RMW reads) still outstanding.
    pub pending: u32,
    /// Mapping units placed so far (writes waiting for free blocks resume here).
    pub placed: u32,
    /// Who issued it: the host, or the map machinery writing a segment back.
    pub origin: Origin,
}

/// Where a command comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Host,
    /// A dirty map segment evicted from the map cache, written back.
    MapEviction,
    /// A map segment updated from the journal (loaded, entries applied), written back.
    MapFlush,
}

/// Host-side state of one job (thread).
struct Job {
    gen: JobGen,
    inflight: u32,
    done: bool,
    stats: JobStats,
    /// Round-robin cursor for the `round-robin` queue policy.
    rr: u32,
    /// Index of its config in `job_cfgs`, its name and reporting group.
    cfg: u32,
    name: String,
    group: u32,
    iodepth: u32,
    /// When its group started, and when its measurement starts (after ramp_time).
    start_ns: Ns,
    ramp_ns: Ns,
    measure_from: Ns,
    /// Time of the pending HostSubmit wake-up, if any (Ns::MAX: none).
    wake_at: Ns,
    /// The trace this job replays, if it is a replay job.
    trace: Option<Box<TraceSource>>,
    trace_error: Option<String>,
    /// Driven from outside (a probe session), not by its generator.
    external: bool,
}

/// Options of one simulation run beyond device and workload.
#[derive(Clone, Debug)]
pub struct RunOptions {
    pub state: DriveState,
    pub seed: u64,
    /// Keep the read oracle (costs memory and time; for tests).
    pub verify: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions {
            state: DriveState::Full,
            seed: 1,
            verify: false,
        }
    }
}

pub struct Ssd {
    pub cfg: DeviceConfig,
    pub geo: Geometry,
    timing: Timing,
    q: EventQueue,
    pcie: Pcie,
    nvme: Nvme,
    cores: Cores,
    pub ftl: Ftl,
    dies: Vec<Die>,
    channels: Vec<Channel>,
    dq: Vec<DieQueues>,
    txns: Slab<Txn>,
    cmds: Slab<Cmd>,
    buffer: WriteBuffer,
    /// Writes whose data arrived but found no die able to take it.
    alloc_waiters: std::collections::VecDeque<u32>,
    /// Trims waiting for those writes to be placed first.
    trim_waiters: std::collections::VecDeque<u32>,
    /// Set when the run stopped because nothing could make progress.
    pub stalled: Option<String>,
    jobs: Vec<Job>,
    /// The first job's workload (queues, queue policy; the report's `workload`).
    workload: WorkloadConfig,
    /// Every job section's workload.
    job_cfgs: Vec<WorkloadConfig>,
    /// Reporting groups in run order, and the one running.
    groups: Vec<u32>,
    group_idx: usize,
    queue_policy: QueuePolicy,
    unit_bytes: u64,
    buffer_read_ns: Ns,
    pub prep: PrepInfo,
    opts: RunOptions,
    counters: Counters,
    /// Demand-paged map (None when the whole map is resident).
    map: Option<map::MapState>,
    /// Write buffer tier and the read cache.
    tiers: data_tiers::DataTiers,
    /// Scheduling policy, suspend and adaptive delay state.
    sched: sched::SchedState,
    /// Host commands outstanding, and the idle period they last ended.
    host_inflight: u32,
    idle_gen: u32,
    /// The host has been idle for the background-work delay.
    host_idle: bool,
    /// GC victims started in host idle time.
    background_gcs: u64,
    /// Time with at least one host command outstanding (fio's disk util).
    host_busy_ns: u64,
    host_busy_since: Ns,
    /// FTL counters over the measured window (after ramp_time).
    window: report::Window,
    /// The fabric path to the host, when the drive sits behind an NVMe-oF target.
    remote: Option<system_hooks::Remote>,
}

/// Flash-level counters.
#[derive(Clone, Debug, Default)]
pub struct Counters {
    pub read_ops: u64,
    pub multiplane_reads: u64,
    pub user_read_txns: u64,
    pub rmw_reads: u64,
    pub gc_reads: u64,
    pub program_ops: u64,
    pub gc_programs: u64,
    pub erase_ops: u64,
    pub buffer_hits: u64,
    pub unmapped_reads: u64,
    pub alloc_stalls: u64,
    /// Paced GC victims whose die reached the urgent floor (GC took the die).
    pub gc_urgent_victims: u64,
}

impl Ssd {
    /// Build the device, prepare the drive and set up one workload's jobs.
    pub fn new(cfg: DeviceConfig, workload: WorkloadConfig, opts: RunOptions) -> Self {
        Self::with_jobs(cfg, vec![workload], opts)
    }

    /// Build the device with several job sections (each with its own numjobs copies).
    pub fn with_jobs(cfg: DeviceConfig, job_cfgs: Vec<WorkloadConfig>, opts: RunOptions) -> Self {
        Self::with_jobs_reusing(cfg, job_cfgs, opts, false)
    }

    /// As `with_jobs`; `reuse_prep`: take the prepared drive from the process's cache
    /// of one prepared drive when it matches (see `prep_cache`).
    pub fn with_jobs_reusing(
        cfg: DeviceConfig,
        job_cfgs: Vec<WorkloadConfig>,
        opts: RunOptions,
        reuse_prep: bool,
    ) -> Self {
        assert!(!job_cfgs.is_empty(), "at least one job");
        let workload = job_cfgs[0].clone();
        let geo = Geometry::new(&cfg);
        let capacity = cfg.capacity_bytes();
        // The jobs' LBA area (what `normal-written` writes first), in mapping units.
        let unit = geo.unit_bytes;
        let lo = job_cfgs.iter().map(|w| w.offset.bytes()).min().unwrap_or(0);
        let hi = job_cfgs
            .iter()
            .map(|w| w.offset.bytes() + w.span(capacity))
            .max()
            .unwrap_or(capacity);
        let area = lo / unit..hi.min(capacity).div_ceil(unit);
        let (ftl, prep) =
            prep_cache::prepared(&cfg, opts.state, opts.seed, area, opts.verify, reuse_prep);
        let map = map::MapState::new(&cfg, ftl.host_units);
        let threads: u32 = job_cfgs.iter().map(|w| w.numjobs).sum();
        let queues = workload
            .queues
            .unwrap_or(match workload.queue_policy {
                QueuePolicy::PerThread => threads,
                QueuePolicy::RoundRobin => cfg.host.io_queues,
            })
            .min(cfg.host.io_queues)
            .max(1);
        let mut jobs = Vec::new();
        for (ci, w) in job_cfgs.iter().enumerate() {
            for _ in 0..w.numjobs {
                let j = jobs.len() as u32;
                let (trace, trace_error) = match &w.trace {
                    Some(t) => {
                        let end = w
                            .trace_stats
                            .as_ref()
                            .map_or(capacity, |s| s.offset_max_end);
                        match TraceSource::new(t, capacity, end) {
                            Ok(src) => (Some(Box::new(src)), None),
                            Err(e) => (None, Some(e)),
                        }
                    }
                    None => (None, None),
                };
                jobs.push(Job {
                    gen: JobGen::new(w, capacity, opts.seed, j),
                    inflight: 0,
                    done: false,
                    stats: JobStats::default(),
                    rr: j,
                    cfg: ci as u32,
                    // fio names every clone of a section after the section.
                    name: match &w.name {
                        Some(n) => n.clone(),
                        None if job_cfgs.len() == 1 => format!("job{j}"),
                        None => format!("job{ci}"),
                    },
                    group: w.group,
                    iodepth: w.iodepth,
                    start_ns: 0,
                    ramp_ns: w.ramp_time.ns(),
                    measure_from: 0,
                    wake_at: Ns::MAX,
                    trace,
                    trace_error,
                    external: false,
                });
            }
        }
        let mut groups: Vec<u32> = job_cfgs.iter().map(|w| w.group).collect();
        groups.sort_unstable();
        groups.dedup();
        Ssd {
            timing: Timing::new(&cfg),
            pcie: Pcie::new(&cfg),
            nvme: Nvme::new(&cfg, queues),
            cores: Cores::new(&cfg),
            dies: vec![Die::default(); geo.dies as usize],
            channels: vec![Channel::default(); geo.channels as usize],
            dq: vec![DieQueues::default(); geo.dies as usize],
            txns: Slab::default(),
            cmds: Slab::default(),
            buffer: WriteBuffer::new(&cfg),
            alloc_waiters: Default::default(),
            trim_waiters: Default::default(),
            stalled: None,
            jobs,
            job_cfgs,
            groups,
            group_idx: 0,
            queue_policy: workload.queue_policy,
            unit_bytes: geo.unit_bytes,
            buffer_read_ns: cfg.controller.buffer_read.ns(),
            q: EventQueue::new(),
            geo,
            ftl,
            workload,
            prep,
            opts,
            counters: Counters::default(),
            map,
            tiers: data_tiers::DataTiers::new(&cfg),
            host_inflight: 0,
            idle_gen: 0,
            host_idle: false,
            background_gcs: 0,
            host_busy_ns: 0,
            host_busy_since: 0,
            window: report::Window::default(),
            remote: None,
            sched: sched::SchedState::new(
                &cfg.scheduler,
                cfg.nand.channels * cfg.nand.dies_per_channel,
            ),
            cfg,
        }
    }

    pub fn now(&self) -> Ns {
        self.q.now()
    }

    /// Run until every job has finished. `progress` is called now and then with the
    /// fraction done (0..1); returning false stops the run early.
    pub fn run(&mut self, progress: &mut dyn FnMut(f64) -> bool) {
        self.window.open(self.now(), &self.ftl.stats);
        let mut active = self.start_group(0);
        let mut tick = 0u32;
        while active > 0 {
            let Some(ev) = self.q.pop() else {
                // Jobs wait for something no event will bring: a model error.
                self.stalled = Some(self.stall_state());
                break;
            };
            if let Some(job) = self.dispatch(ev) {
                if self.finish_job_if_done(job) {
                    active -= 1;
                }
            }
            if active == 0 && self.group_idx + 1 < self.groups.len() {
                // Stonewall: the next group starts once every job of this one is done.
                self.group_idx += 1;
                active = self.start_group(self.group_idx);
            }
            tick = tick.wrapping_add(1);
            if tick & 0xFFFF == 0 && !progress(self.progress()) {
                break;
            }
        }
    }

    /// What is holding the device up, for the stall message.
    fn stall_state(&self) -> String {
        let busy = self
            .dies
            .iter()
            .filter(|d| d.stage != crate::nand::DieStage::Idle)
            .count();
        let programs: usize = self
            .dq
            .iter()
            .map(|q| q.programs.len() + q.gc_programs.len())
            .sum();
        let reads: usize = self.dq.iter().map(|q| q.user_reads.len()).sum();
        format!(
            "buffer {}/{} units, {} waiting for room, {} waiting for a block, {} units in open \
             stripes, {} dies busy, {} programs and {} reads queued, {} commands live",
            self.buffer.used_units,
            self.buffer.capacity_units,
            self.buffer.waiters.len(),
            self.alloc_waiters.len(),
            self.ftl.open_partial_units(),
            busy,
            programs,
            reads,
            self.cmds.live()
        )
    }

    /// Handle one event; returns the host job it concerned, if any.
    #[inline]
    fn dispatch(&mut self, ev: Event) -> Option<u32> {
        match ev {
            Event::HostSubmit { job } => {
                self.jobs[job as usize].wake_at = Ns::MAX;
                self.fill_job(job);
                return Some(job);
            }
            Event::FetchKick => {
                if self.nvme.kick_at <= self.now() {
                    self.nvme.kick_at = Ns::MAX;
                }
                self.fetch();
            }
            Event::FetchDone { sq, count } => self.fetch_done(sq, count),
            Event::CmdReady { cmd } => self.cmd_ready(cmd),
            Event::WriteDataIn { cmd } => self.write_data_in(cmd),
            Event::DieStage { die, gen } => self.die_stage(die, gen),
            Event::MapReady { cmd } => self.start_read(cmd),
            Event::MapLoadDone { load } => self.map_load_done(load),
            Event::HostIdle { gen } => self.host_went_idle(gen),
            Event::RampEnd { group } => {
                if group as usize == self.group_idx {
                    self.window.open(self.q.now(), &self.ftl.stats);
                }
            }
            Event::HostComplete { cmd } => {
                let job = self.cmds.get(cmd).job;
                self.complete(cmd);
                self.fill_job(job);
                return Some(job);
            }
            Event::TargetSubmit { cmd } => self.queue_command(cmd),
        }
        None
    }

    /// A replay job: closed loop at its iodepth, or each request at its arrival time.
    fn fill_trace_job(&mut self, job: u32) {
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
            let io = tr.take().expect("a request was due");
            self.submit_io(job, io);
        }
    }

    /// Start the jobs of group `idx` now; returns how many there are.
    fn start_group(&mut self, idx: usize) -> usize {
        let now = self.now();
        let g = self.groups[idx];
        let mut n = 0;
        for j in 0..self.jobs.len() {
            let job = &mut self.jobs[j];
            if job.group != g {
                continue;
            }
            job.start_ns = now;
            job.measure_from = now + job.ramp_ns;
            job.gen.start_at(now);
            job.wake_at = now;
            self.q.schedule(now, Event::HostSubmit { job: j as u32 });
            n += 1;
        }
        // The device's measured window: from the end of the group's (shortest) ramp.
        let ramp = self
            .jobs
            .iter()
            .filter(|j| j.group == g)
            .map(|j| j.ramp_ns)
            .min()
            .unwrap_or(0);
        if ramp > 0 {
            self.window.close(&self.ftl.stats);
            let group = idx as u32;
            self.q.schedule(now + ramp, Event::RampEnd { group });
        }
        n
    }

    /// Submit what the job may: up to its iodepth, within its stop rule and pacing.
    fn fill_job(&mut self, job: u32) {
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
            if j.done || j.inflight >= j.iodepth || !j.gen.can_issue(now) {
                return;
            }
            if j.gen.next_at > now {
                let at = j.gen.next_at;
                if j.wake_at != at {
                    j.wake_at = at;
                    self.q.schedule(at, Event::HostSubmit { job });
                }
                return;
            }
            self.submit(job);
        }
    }

    fn progress(&self) -> f64 {
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
                    .map(|r| (now - j.start_ns) as f64 / r.ns() as f64)
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

    fn finish_job_if_done(&mut self, job: u32) -> bool {
        let now = self.now();
        let j = &mut self.jobs[job as usize];
        let more = match &j.trace {
            Some(t) => t.has_next(),
            None => j.trace_error.is_none() && j.gen.can_issue(now),
        };
        if !j.done && j.inflight == 0 && !more {
            j.done = true;
            j.stats.end_ns = now;
            j.stats.start_ns = j.measure_from.min(now);
            return true;
        }
        false
    }

    /// Issue the job's next command if it may.
    fn submit(&mut self, job: u32) {
        let now = self.now();
        let j = &mut self.jobs[job as usize];
        if !j.gen.can_issue(now) {
            return;
        }
        let io = j.gen.next_io(now);
        self.submit_io(job, io);
    }

    /// Put one host I/O of `job` into its submission queue; returns its command id
    /// (valid until its `HostComplete` has been dispatched).
    fn submit_io(&mut self, job: u32, io: Io) -> u32 {
        let now = self.now();
        let nq = self.nvme.sqs.len() as u32;
        let j = &mut self.jobs[job as usize];
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
            origin: Origin::Host,
        });
        if let Some(r) = &self.remote {
            // Through the fabric first: the target submits it when it arrives.
            let at = r.forward(now, io.kind, io.len);
            self.q.schedule(at, Event::TargetSubmit { cmd });
            return cmd;
        }
        self.queue_command(cmd);
        cmd
    }

    /// Write the command into its submission queue, or hold it while the queue is full.
    fn queue_command(&mut self, cmd: u32) {
        let sq = self.cmds.get(cmd).sq;
        if self.nvme.has_room(sq) {
            self.enqueue_sq(cmd, sq);
        } else {
            self.nvme.sqs[sq as usize].overflow.push_back(cmd);
        }
    }

    /// Write the command into its submission queue and ring the doorbell.
    fn enqueue_sq(&mut self, cmd: u32, sq: u32) {
        let now = self.now();
        let visible = self.pcie.send_down(now, DOORBELL_BYTES);
        let q = &mut self.nvme.sqs[sq as usize];
        q.used += 1;
        q.pending.push_back((cmd, visible));
        if self.nvme.can_fetch() && visible < self.nvme.kick_at {
            self.nvme.kick_at = visible;
            self.q.schedule(visible, Event::FetchKick);
        }
    }

    /// The fetch engine issues fetch reads while it has slots and commands are visible.
    fn fetch(&mut self) {
        let now = self.now();
        while self.nvme.can_fetch() {
            match self.nvme.arbitrate(now) {
                Ok((sq, count)) => {
                    let back = self
                        .pcie
                        .read_host(now, 0, count as u64 * crate::host::SQE_BYTES);
                    self.nvme.fetches_in_flight += 1;
                    self.q.schedule(back, Event::FetchDone { sq, count });
                }
                Err(Some(t)) => {
                    if t < self.nvme.kick_at {
                        self.nvme.kick_at = t;
                        self.q.schedule(t, Event::FetchKick);
                    }
                    return;
                }
                Err(None) => return,
            }
        }
    }

    fn fetch_done(&mut self, sq: u32, count: u32) {
        let now = self.now();
        for _ in 0..count {
            let cmd = self.nvme.sqs[sq as usize]
                .in_fetch
                .pop_front()
                .expect("a fetched command");
            self.cmds.get_mut(cmd).fetch_ns = now;
            let ready = self.cores.process(sq, now);
            self.q.schedule(ready, Event::CmdReady { cmd });
        }
        self.nvme.fetches_in_flight -= 1;
        self.fetch();
    }

    /// The host sees the completion: record latency, free the queue entry.
    fn complete(&mut self, cmd: u32) {
        let now = self.now();
        let c = *self.cmds.get(cmd);
        let j = &mut self.jobs[c.job as usize];
        j.inflight -= 1;
        j.gen.on_complete(now);
        self.host_inflight -= 1;
        if self.host_inflight == 0 {
            self.host_busy_ns += now - self.host_busy_since;
        }
        let background = (self.ftl.slc_active && self.cfg.slc.fold_when_idle)
            || self.cfg.ftl.background_gc_blocks > 0;
        if self.host_inflight == 0 && background {
            self.idle_gen = self.idle_gen.wrapping_add(1);
            let at = self.q.now() + self.cfg.ftl.idle_time.ns();
            self.q.schedule(at, Event::HostIdle { gen: self.idle_gen });
        }
        if c.submit_ns >= j.measure_from {
            let d = c.kind.index();
            j.stats.dirs[d].record(now - c.submit_ns, c.len);
            j.stats.slat[d].record(c.fetch_ns - c.submit_ns);
            j.stats.clat[d].record(now - c.fetch_ns);
            j.stats.samplers[d].record(now - j.measure_from, c.len, now - c.submit_ns);
        }
        self.cmds.remove(cmd);
        let q = &mut self.nvme.sqs[c.sq as usize];
        q.used -= 1;
        if let Some(next) = q.overflow.pop_front() {
            self.enqueue_sq(next, c.sq);
        }
    }

    /// The host has had nothing outstanding for the idle time: background work.
    fn host_went_idle(&mut self, gen: u32) {
        if gen != self.idle_gen || self.host_inflight > 0 {
            return;
        }
        self.host_idle = true;
        for die in 0..self.geo.dies {
            self.background_work(die);
        }
    }

    /// Finish a command: post its completion entry after `data_ready`.
    fn post_completion(&mut self, cmd: u32, data_ready: Ns) {
        let c = *self.cmds.get(cmd);
        if c.job == map::INTERNAL_JOB {
            self.cmds.remove(cmd); // a map write-back or a held write: nobody to tell
            if c.origin == Origin::MapFlush {
                self.map_flush_done(c.offset);
            }
            return;
        }
        let mut at_host = self
            .pcie
            .send_up(data_ready.max(self.now()), crate::host::CQE_BYTES);
        if let Some(r) = &self.remote {
            // The completion reached the target; back through the fabric to the host.
            at_host = r.backward(at_host, c.kind, c.len);
        }
        self.q.schedule(at_host, Event::HostComplete { cmd });
    }
}
