//! The device: owns every component and the event queue, builds and prepares the
//! drive, and runs the dispatch loop (`dispatch` hands each event to the module of
//! its component). The host's jobs live in `host_jobs.rs`, since they only submit
//! commands and take completions; docs/model.md maps every file to its component.
//!
//! Path of a command: host writes it to a submission queue and rings the doorbell
//! (PCIe down) -> fetch engine arbitrates and fetches it (PCIe up request, PCIe down
//! data) -> its firmware core decodes it and looks up the map -> reads: flash
//! transactions per physical page, data-out over the channel, data to the host
//! (PCIe up); writes: room in the write buffer, data from the host (PCIe down),
//! placement in the FTL -> completion entry (PCIe up) -> host.

mod chips;
mod data_tiers;
mod energy;
mod fdp_ops;
mod fdp_report;
mod fetch;
mod flash;
mod flush;
mod gc;
mod gc_staging;
mod hmb_whole;
mod host_events;
mod host_jobs;
mod io;
mod map;
mod power_loss;
mod prep_cache;
mod read_ahead;
mod report;
mod sched;
mod session;
mod session_async;
mod settle;
mod stats;
mod system_hooks;
#[cfg(test)]
mod tests;
mod write_split;
mod zoned;
mod zoned_hostlog;
mod zoned_ops;
mod zoned_read;
mod zoned_report;
#[cfg(test)]
mod zoned_tests;
mod zoned_zbd;
mod zoned_zrwa;

use crate::config::{ConfigError, DeviceConfig, QueuePolicy, WorkloadConfig};
use crate::controller::{Cores, DieQueues, Slab, Txn, WriteBuffer};
use crate::ftl::prep::{DriveState, PrepInfo};
use crate::ftl::Ftl;
use crate::host::{Nvme, Pcie};
use crate::nand::{Channel, Die, Geometry, Timing};
use crate::sim::{Event, EventQueue, Ns};
use crate::stats::JobStats;
use crate::trace::replay::TraceSource;
use crate::workload::placement::PidSelect;
use crate::workload::{Io, JobGen, OpKind};
use host_jobs::Job;

pub use chips::ChipStats;
pub use power_loss::PowerLossStats;
pub use prep_cache::{clear as clear_prepared, prep_key};
pub(crate) use report::dirs_json_timed;
pub use report::Report;
pub use session::Session;
pub use session_async::{AsyncSession, Completion};
pub use stats::DeviceStats;
pub use zoned_report::ZnsStats;

/// A host command in flight.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cmd {
    pub(crate) job: u32,
    pub(crate) sq: u32,
    pub(crate) kind: OpKind,
    pub(crate) offset: u64,
    pub(crate) len: u64,
    pub(crate) submit_ns: Ns,
    /// When the device fetched it from its submission queue.
    pub(crate) fetch_ns: Ns,
    /// Flash transactions (or RMW reads) still outstanding.
    pub(crate) pending: u32,
    /// Mapping units placed so far (writes waiting for free blocks resume here).
    pub(crate) placed: u32,
    /// Who issued it: the host, or the map machinery writing a segment back.
    pub(crate) origin: Origin,
    /// FDP: the placement slot of a write (`Ftl::resolve_pid`; `NO_PID`: none).
    pub(crate) pid: u32,
}

/// Where a command comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Origin {
    Host,
    /// A dirty map segment evicted from the map cache, written back.
    MapEviction,
    /// A map segment updated from the journal (loaded, entries applied), written back.
    MapFlush,
    /// A host Flush (no data; `flush.rs`).
    HostFlush,
    /// A page of the write-back map cache's map-update log, persisted to its ring.
    MapLog,
    /// An I/O Management Send (FDP's Reclaim Unit Handle Update: `fdp_ops.rs`).
    IoMgmt,
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
    pub(crate) cfg: DeviceConfig,
    pub(crate) geo: Geometry,
    timing: Timing,
    q: EventQueue,
    pcie: Pcie,
    nvme: Nvme,
    cores: Cores,
    /// Public for the integration tests that run an FTL aged by hand (`tests/prep.rs`).
    pub ftl: Ftl,
    dies: Vec<Die>,
    channels: Vec<Channel>,
    dq: Vec<DieQueues>,
    txns: Slab<Txn>,
    cmds: Slab<Cmd>,
    buffer: WriteBuffer,
    /// Where GC and fold data is staged (`controller.gc_staging`): nowhere counted,
    /// in the write buffer from a complete stripe to the end of tPROG ("write-buffer"),
    /// or from each page's read to the end of its program ("gather", `gather` below).
    gc_staging: crate::config::GcStaging,
    /// The gathered staging's per-die state (empty unless `gc_staging = "gather"`).
    gather: gc_staging::Gather,
    /// Per die, the units of its open translation stripe that hold write-buffer room
    /// (the map's own writes, and pads). GC's moves of translation pages share that
    /// stripe without room, so its program returns exactly these, whichever of the two
    /// completes it.
    map_stripe_room: Vec<u32>,
    /// `host_irq_per_io` (the first job's): a completion handler's host CPU time, and
    /// per completion queue when its CPU is next free (empty when 0).
    irq_per_io: Ns,
    irq_free_at: Vec<Ns>,
    /// `controller.write_path`: the ceiling of the host write data path, if set.
    write_path: Option<crate::controller::WritePath>,
    /// Writes whose data arrived but found no die able to take it.
    alloc_waiters: std::collections::VecDeque<u32>,
    /// Trims and flushes waiting for those writes to be placed first.
    trim_waiters: std::collections::VecDeque<u32>,
    /// Host flushes waiting for programs (`flush.rs`).
    flushes: flush::Flushes,
    /// Set when the run stopped because nothing could make progress.
    pub(crate) stalled: Option<String>,
    jobs: Vec<Job>,
    /// The zones fio keeps for the run's `zonemode=zbd` jobs (workload/zbd.rs).
    zbd: Option<Box<crate::workload::ZoneSet>>,
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
    /// Host programs return their write-buffer room at the end of data-in.
    buffer_release_at_data_in: bool,
    /// `nand.cache_program`: the next program's data-in overlaps the current program.
    cache_program: bool,
    /// How the drive was prepared (also in the report's `prep` block).
    pub prep: PrepInfo,
    opts: RunOptions,
    counters: Counters,
    /// Demand-paged map (None when the whole map is resident).
    map: Option<map::MapState>,
    /// The whole map in the HMB (every lookup and update crosses the link).
    hmb_whole: Option<hmb_whole::HmbWholeMap>,
    /// Write buffer tier and the read cache.
    tiers: data_tiers::DataTiers,
    /// Read-ahead into the read cache (`read_cache.read_ahead`).
    read_ahead: Option<Box<read_ahead::ReadAheadRun>>,
    split: write_split::WriteSplit,
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
    /// Power states and peak-power windows (`power.enabled` only).
    power: Option<Box<energy::PowerRun>>,
    /// A sleeping drive takes no command before this time (0: awake).
    awake_at: Ns,
    /// The power cap's limit on dies working at once (`power.limit_w`, or a lower
    /// operational state).
    die_cap: Option<energy::DieCap>,
    /// The workload's host events (resets, suspend-resume, HMB loss), if any.
    host_events: Option<Box<host_events::HostEvents>>,
    /// The power loss in progress (a `power-loss` host event), if any.
    power_cut: Option<Box<power_loss::PowerCut>>,
    /// Chips whose dies share one command interface (`nand.chip_interface = "one-command"`).
    chips: Option<chips::ChipGate>,
    /// The zoned namespace (`[zns]`), which replaces the FTL's map (`zoned.rs`).
    zoned: Option<Box<zoned::ZonedRun>>,
    /// FDP's I/O Management Sends in flight and RU time limits (`fdp_ops.rs`).
    fdp_cmds: fdp_ops::FdpCmds,
    /// The host's log-structured store the jobs write through (`host_log`).
    host_log: Option<Box<zoned_hostlog::HostLogRun>>,
    /// The groups' settle rules and their checks (`settle.rs`).
    settle: settle::SettleRun,
}

/// Flash-level counters.
#[derive(Clone, Debug, Default)]
pub(crate) struct Counters {
    pub(crate) read_ops: u64,
    pub(crate) multiplane_reads: u64,
    pub(crate) user_read_txns: u64,
    pub(crate) rmw_reads: u64,
    pub(crate) gc_reads: u64,
    pub(crate) program_ops: u64,
    pub(crate) cached_programs: u64,
    pub(crate) gc_programs: u64,
    pub(crate) erase_ops: u64,
    pub(crate) buffer_hits: u64,
    pub(crate) unmapped_reads: u64,
    pub(crate) alloc_stalls: u64,
    /// Paced GC victims whose die reached the urgent floor (GC took the die).
    pub(crate) gc_urgent_victims: u64,
}

impl Ssd {
    /// Build the device, prepare the drive and set up one workload's jobs.
    /// The device and workload are validated first (`config::check_run`).
    pub fn new(
        cfg: DeviceConfig,
        workload: WorkloadConfig,
        opts: RunOptions,
    ) -> Result<Self, ConfigError> {
        Self::with_jobs(cfg, vec![workload], opts)
    }

    /// Build the device with several job sections (each with its own numjobs copies).
    pub fn with_jobs(
        cfg: DeviceConfig,
        job_cfgs: Vec<WorkloadConfig>,
        opts: RunOptions,
    ) -> Result<Self, ConfigError> {
        Self::with_jobs_reusing(cfg, job_cfgs, opts, false)
    }

    /// As `with_jobs`; `reuse_prep`: take the prepared drive from the process's cache
    /// of one prepared drive when it matches (see `prep_cache`).
    pub fn with_jobs_reusing(
        cfg: DeviceConfig,
        job_cfgs: Vec<WorkloadConfig>,
        opts: RunOptions,
        reuse_prep: bool,
    ) -> Result<Self, ConfigError> {
        let job_cfgs = zoned_zbd::fit_zbd_jobs(&cfg, job_cfgs)?;
        crate::config::check_run(&cfg, &job_cfgs)?;
        let workload = job_cfgs[0].clone();
        let geo = Geometry::new(&cfg);
        let capacity = cfg.capacity_bytes();
        // The jobs' LBA area (what `normal-written` writes first), in mapping units.
        let unit = geo.unit_bytes;
        let bytes = crate::config::workload::jobs_area_bytes(&job_cfgs, capacity);
        let area = bytes.start / unit..bytes.end.div_ceil(unit);
        // A zoned drive's FTL stays empty (its map is per zone, `zoned.rs`).
        let zns = cfg.zns.is_some();
        let ftl_state = if zns { DriveState::Fresh } else { opts.state };
        let ftl_verify = opts.verify && !zns;
        let threads: u32 = job_cfgs.iter().map(|w| w.numjobs).sum();
        let queues = workload
            .queues
            .unwrap_or(match workload.queue_policy {
                QueuePolicy::PerThread => threads,
                QueuePolicy::RoundRobin => cfg.host.io_queues,
            })
            .min(cfg.host.io_queues)
            .max(1);
        // Checked before preparing: a refused host store costs no preparation.
        let host_log = zoned_hostlog::fit_host_log(&cfg, &job_cfgs, queues, opts.state)?;
        let (ftl, mut prep) =
            prep_cache::prepared(&cfg, ftl_state, opts.seed, area, ftl_verify, reuse_prep);
        prep.state = opts.state;
        let map = map::MapState::new(&cfg, ftl.host_units()).filter(|_| !zns);
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
                    placement: match (&w.fdp, &cfg.fdp) {
                        (Some(p), Some(d)) => Some(Box::new(PidSelect::new(p, d, opts.seed, j))),
                        _ => None,
                    },
                    trace_pid: None,
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
                    sync: host_jobs::JobSync::new(w.fsync, w.end_fsync),
                    readback: host_jobs::Readback::new(w.verify_readback),
                    iolog: w.log_ios.then(Vec::new),
                    completions: w.log_completions.then(Vec::new),
                });
            }
        }
        let host_events = host_events::HostEvents::new(&job_cfgs[0].events);
        let mut groups: Vec<u32> = job_cfgs.iter().map(|w| w.group).collect();
        groups.sort_unstable();
        groups.dedup();
        let settle = settle::SettleRun::new(&groups, &job_cfgs);
        let mut ssd = Ssd {
            settle,
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
            gc_staging: cfg.controller.gc_staging,
            gather: gc_staging::Gather::new(
                cfg.controller.gc_staging == crate::config::GcStaging::Gather,
                geo.dies,
                geo.units_per_program,
                cfg.controller.gc_buffer_share == crate::config::GcBufferShare::Paced,
                cfg.ftl.gc_destination == crate::config::GcDestination::Striped,
            ),
            map_stripe_room: vec![0; geo.dies as usize],
            irq_per_io: workload.host_irq_per_io.ns(),
            irq_free_at: if workload.host_irq_per_io.ns() > 0 {
                vec![0; queues as usize]
            } else {
                Vec::new()
            },
            write_path: cfg
                .controller
                .write_path
                .map(|b| crate::controller::WritePath::new(b.0 as u64)),
            alloc_waiters: Default::default(),
            trim_waiters: Default::default(),
            flushes: flush::Flushes::new(geo.dies),
            stalled: None,
            jobs,
            zbd: crate::workload::ZoneSet::for_jobs(&job_cfgs, capacity),
            job_cfgs,
            groups,
            group_idx: 0,
            queue_policy: workload.queue_policy,
            unit_bytes: geo.unit_bytes,
            buffer_read_ns: cfg.controller.buffer_read.ns(),
            buffer_release_at_data_in: cfg.controller.buffer_release
                == crate::config::BufferRelease::DataIn,
            cache_program: cfg.nand.cache_program,
            q: EventQueue::new(),
            geo,
            ftl,
            workload,
            prep,
            opts,
            counters: Counters::default(),
            map,
            hmb_whole: hmb_whole::HmbWholeMap::new(&cfg),
            tiers: data_tiers::DataTiers::new(&cfg),
            read_ahead: read_ahead::ReadAheadRun::new(&cfg),
            split: write_split::WriteSplit::new(&cfg, unit),
            host_inflight: 0,
            idle_gen: 0,
            host_idle: false,
            background_gcs: 0,
            host_busy_ns: 0,
            host_busy_since: 0,
            window: report::Window::default(),
            remote: None,
            power: energy::PowerRun::new(&cfg),
            awake_at: 0,
            die_cap: energy::DieCap::new(&cfg),
            host_events,
            power_cut: None,
            chips: chips::ChipGate::new(&cfg),
            sched: sched::SchedState::new(
                &cfg.scheduler,
                cfg.nand.channels * cfg.nand.dies_per_channel,
            ),
            zoned: None,
            fdp_cmds: fdp_ops::FdpCmds::new(&cfg),
            host_log,
            cfg,
        };
        if zns {
            ssd.hmb_whole = None;
            ssd.zoned_init(ssd.opts.state)
                .map_err(|m| crate::config::err("run", m))?;
            ssd.zoned_bind_zbd();
        }
        Ok(ssd)
    }

    pub fn now(&self) -> Ns {
        self.q.now()
    }

    /// Run until every job has finished. `progress` is called now and then with the
    /// fraction done (0..1); returning false stops the run early.
    pub fn run(&mut self, progress: &mut dyn FnMut(f64) -> bool) {
        self.run_observed(progress, 0, &mut |_| {});
    }

    /// `run`, with `observe` called with the drive about every `every_ns` of simulated
    /// time (checked every 4,096 events; 0: never), for time series of its state
    /// (free blocks, victims, FTL counters) in tests and measurements.
    pub fn run_observed(
        &mut self,
        progress: &mut dyn FnMut(f64) -> bool,
        every_ns: Ns,
        observe: &mut dyn FnMut(&Ssd),
    ) {
        let mut next_obs = if every_ns == 0 { Ns::MAX } else { self.now() };
        self.window.open(self.now(), &self.ftl.stats);
        self.power_measure_open(self.now());
        self.schedule_host_events();
        self.schedule_zone_ops();
        self.schedule_fdp_ops();
        let mut active = self.start_group(0);
        let mut tick = 0u32;
        while active > 0 {
            let Some(ev) = self.q.pop() else {
                if self.recheck_buffer_waiters() {
                    continue;
                }
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
            if tick & 0xFFF == 0 {
                if self.now() >= next_obs {
                    observe(self);
                    next_obs = self.now() + every_ns;
                }
                if tick & 0xFFFF == 0 && !progress(self.progress()) {
                    break;
                }
            }
        }
    }

    /// Nothing is left to happen: look at the writes waiting for buffer room once more,
    /// as firmware's main loop does when it has nothing else to do. Room can become
    /// usable without being returned (everything buffered stranded in open stripes and
    /// GC's gathering, which only more data completes: `try_buffer_room`), and the last
    /// event may have made it so without a wake-up; waking now, at that event's time,
    /// is what a wake-up then would have done. Returns whether anything was scheduled.
    pub(super) fn recheck_buffer_waiters(&mut self) -> bool {
        if !self.buffer.has_waiters() {
            return false;
        }
        self.wake_buffer_waiters();
        !self.q.is_empty()
    }

    /// Why the run stopped before its jobs were done (a model error), if it did.
    pub fn stall_reason(&self) -> Option<&str> {
        self.stalled.as_deref()
    }

    /// What is holding the device up (the stall message; also sampled by examples/stallwatch.rs).
    pub fn stall_state(&self) -> String {
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
             stripes, {} dies busy, {} programs and {} reads queued, {} commands live; free \
             blocks per die {:?}, GC active on {} dies, {} claiming a victim, {} erases queued, \
             {} GC reads queued, {} units held by gathering GC, {} dies waiting for a stripe's \
             room{}",
            self.buffer.used_units(),
            self.buffer.capacity_units(),
            self.buffer.waiting(),
            self.alloc_waiters.len(),
            self.ftl.open_partial_units() + self.ftl.open_map_partial_units(),
            busy,
            programs,
            reads,
            self.cmds.live(),
            (0..self.geo.dies)
                .map(|d| self.ftl.free_blocks(d))
                .collect::<Vec<_>>(),
            self.dq.iter().filter(|q| q.gc.active).count(),
            (0..self.geo.dies)
                .filter(|&d| self.ftl.collecting(d))
                .count(),
            self.dq.iter().map(|q| q.erases.len()).sum::<usize>(),
            self.dq.iter().map(|q| q.gc_reads.len()).sum::<usize>(),
            self.gather.stranded_units(),
            self.gather.waiting_dies(),
            self.map_stall_note()
        )
    }

    /// Handle one event; returns the host job it concerned, if any.
    #[inline(always)]
    fn dispatch(&mut self, ev: Event) -> Option<u32> {
        match ev {
            Event::HostSubmit { job } => {
                self.jobs[job as usize].wake_at = Ns::MAX;
                self.fill_job(job);
                return Some(job);
            }
            Event::FetchKick => {
                self.nvme.kick_fired(self.now());
                self.fetch();
            }
            Event::FetchDone { sq, count } => self.fetch_done(sq, count),
            Event::CmdReady { cmd } => self.cmd_ready(cmd),
            Event::WriteDataIn { cmd } => self.write_data_in(cmd),
            Event::DieStage { die, gen } => self.die_stage(die, gen),
            Event::MapReady { cmd } => self.start_read(cmd),
            Event::MapLoadDone { load } => self.map_load_done(load),
            Event::HostIdle { gen } => self.host_went_idle(gen),
            Event::SettleCheck { group, k } => self.settle_due(group, k),
            Event::RampEnd { group } => {
                if group as usize == self.group_idx {
                    self.window.open(self.q.now(), &self.ftl.stats);
                    self.power_measure_open(self.q.now());
                }
            }
            Event::HostComplete { cmd } => {
                let job = self.cmds.get(cmd).job;
                self.complete(cmd);
                self.fill_job(job);
                return Some(job);
            }
            Event::TargetSubmit { cmd } => self.queue_command(cmd),
            Event::HostEvent { idx, phase } => self.host_event(idx, phase),
            Event::ZoneOp { idx } => self.zone_op_due(idx),
            Event::FdpOp { idx } => self.fdp_op_due(idx),
            Event::FdpRuLimit { slot, gen } => self.ru_time_limit_due(slot, gen),
        }
        None
    }
}
