//! The host's log-structured store (`workload/hostlog.rs`) on a zoned drive: the jobs'
//! writes go through it to zone write pointers, and the collections it runs send
//! their reads, writes and Zone Resets through the same NVMe path as every command.
//! `fit_host_log` checks the run can use it; `hostlog_submit` sends a job's next
//! command; `hostlog_completed` tells the store a command of its own completed (not
//! I/O in the job's statistics: the report's `device.zns.host_log` counts them).
//!
//! Simplifies: see the store's header; the store's commands are the jobs' commands on
//! the wire (their queue slots, their submission queues).

use std::collections::HashMap;

use super::{Event, Ssd};
use crate::config::{ConfigError, DeviceConfig, Rw, WorkloadConfig};
use crate::workload::hostlog::{HostCmd, HostLog, HostLogCounters};
use crate::workload::{Io, OpKind};
use crate::zns::ZoneAction;

/// What one of the store's own commands is.
#[derive(Clone, Copy, Debug)]
enum Tag {
    GcRead(u32),
    GcWrite,
    Reset(u32),
}

/// The store and its commands in flight.
pub(super) struct HostLogRun {
    pub(super) log: HostLog,
    tags: HashMap<u32, Tag>,
    /// The counters when each group of jobs started.
    marks: Vec<HostLogCounters>,
}

/// One group's share of the store's counters (`device.zns.host_log.groups`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct HostLogGroupStats {
    pub app_writes: u64,
    pub gc_reads: u64,
    pub gc_writes: u64,
    pub victims: u64,
    pub resets: u64,
    pub waf: f64,
}

/// The report's `device.zns.host_log` block.
#[derive(Clone, Debug, serde::Serialize)]
pub struct HostLogStats {
    pub streams: u32,
    pub gc_free_zones: u32,
    /// Empty zones below which a background collection starts (0: none).
    pub bg_free_zones: u32,
    pub extent_bytes: u64,
    /// The jobs' own writes, and the extents collections read and wrote again.
    pub app_writes: u64,
    pub gc_reads: u64,
    pub gc_writes: u64,
    /// Zones collected, resets sent, times a job had to wait.
    pub victims: u64,
    pub resets: u64,
    pub waits: u64,
    /// Victims whose collection started in the background.
    pub background_victims: u64,
    /// Host write amplification: (app_writes + gc_writes) / app_writes.
    pub waf: f64,
    /// Each group of jobs' share (from its start to the next group's), in order.
    pub groups: Vec<HostLogGroupStats>,
}

/// Check the run's jobs can write through the host store and build it (None when no
/// job has `host_log`). `jobs`: the job sections; `queues`: the drive's submission
/// queues; `state`: the drive's (the store starts on an empty drive).
pub(super) fn fit_host_log(
    cfg: &DeviceConfig,
    jobs: &[WorkloadConfig],
    queues: u32,
    state: crate::ftl::prep::DriveState,
) -> Result<Option<Box<HostLogRun>>, ConfigError> {
    let Some(first) = jobs.iter().find_map(|w| w.host_log.as_ref()) else {
        return Ok(None);
    };
    let fail = |what: &str, m: String| Err(crate::config::err(what, m));
    let Some(z) = &cfg.zns else {
        return fail(
            "workload",
            format!(
                "host_log: needs a zoned drive (a device with [zns]); '{}' is not zoned",
                cfg.name
            ),
        );
    };
    if state != crate::ftl::prep::DriveState::Fresh {
        return fail(
            "run",
            "state: the host store (host_log) starts on an empty zoned drive (allowed: \
             fresh)"
                .into(),
        );
    }
    let mut threads = 0u32;
    let mut logical = 0u64;
    let capacity = cfg.capacity_bytes();
    let extent = jobs[0].bs.bytes();
    for (i, w) in jobs.iter().enumerate() {
        let what = format!("workload job {i}");
        if w.host_log.as_ref() != Some(first) {
            return fail(
                &what,
                "host_log: every job writes through the one host store: give every job \
                 the same host_log table"
                    .into(),
            );
        }
        if !matches!(w.rw, Rw::Write | Rw::RandWrite) {
            return fail(
                &what,
                format!(
                    "rw: '{}' with host_log (allowed: write, randwrite; the store's jobs \
                     only write)",
                    serde_json::to_value(w.rw)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default()
                ),
            );
        }
        let fixed = w.bssplit.is_empty()
            && w.bsrange.is_none()
            && w.bs_write.is_none_or(|b| b.bytes() == w.bs.bytes());
        if !fixed || w.bs.bytes() != extent {
            return fail(
                &what,
                format!(
                    "bs: host_log needs one fixed block size for every job (the store's \
                     extent; the first job's is {extent} B)"
                ),
            );
        }
        let other = if w.zoned.is_some() {
            Some("zonemode")
        } else if w.zone_append {
            Some("zone_append")
        } else if !w.zone_ops.is_empty() {
            Some("zone_ops")
        } else if w.fdp.is_some() {
            Some("fdp")
        } else if w.trace.is_some() {
            Some("trace")
        } else if w.verify_readback {
            Some("verify_readback")
        } else {
            None
        };
        if let Some(o) = other {
            return fail(
                &what,
                format!("{o}: not with host_log (the store places every write itself)"),
            );
        }
        threads += w.numjobs.max(1);
        logical = logical.max(w.offset.bytes() + w.span(capacity));
    }
    // Job i of a group of J jobs (the jobs run in order of their sections) writes to
    // stream i x streams / J; 0 streams: as many as the largest group has jobs.
    let mut group_jobs: std::collections::BTreeMap<u32, u32> = Default::default();
    for w in jobs {
        *group_jobs.entry(w.group).or_default() += w.numjobs.max(1);
    }
    let widest = group_jobs.values().copied().max().unwrap_or(1);
    let streams = if first.streams == 0 {
        widest
    } else {
        first.streams
    };
    let mut seen: std::collections::BTreeMap<u32, u32> = Default::default();
    let mut job_stream = Vec::with_capacity(threads as usize);
    for w in jobs {
        for _ in 0..w.numjobs.max(1) {
            let k = seen.entry(w.group).or_default();
            let n = group_jobs[&w.group] as u64;
            job_stream.push((*k as u64 * streams as u64 / n) as u32);
            *k += 1;
        }
    }
    let open = streams + 1;
    for (limit, name) in [
        (z.max_open_zones, "max_open_zones"),
        (z.max_active_zones, "max_active_zones"),
    ] {
        if limit > 0 && open > limit {
            return fail(
                "workload",
                format!(
                    "host_log: {streams} stream(s) and GC's keep {open} zones open, more \
                     than the drive's zns.{name} {limit}"
                ),
            );
        }
    }
    if queues > 1 && threads > 1 {
        // Two jobs writing one zone from two queues could reach it out of order.
        let mut first_q = vec![u32::MAX; streams as usize];
        for (job, &s) in job_stream.iter().enumerate() {
            let (s, q) = (s as usize, job as u32 % queues);
            if first_q[s] == u32::MAX {
                first_q[s] = q;
            } else if first_q[s] != q {
                return fail(
                    "workload",
                    format!(
                        "host_log.streams: {streams} stream(s) shared by jobs on different \
                         submission queues ({queues}) could reach a zone out of order \
                         (0xBC); use one queue per stream or streams = 0 (one per job)"
                    ),
                );
            }
        }
    }
    let zones = crate::zns::layout_of(cfg)
        .and_then(|l| l.ok())
        .map_or(0, |l| l.zones()) as u32;
    let log = HostLog::new(
        extent,
        z.zone_size_bytes.bytes(),
        z.capacity_bytes(),
        zones,
        logical,
        job_stream,
        streams,
        first.gc_free_zones,
    )
    .and_then(|l| l.with_background(first.bg_free_zones))
    .map_err(|m| crate::config::err("workload.host_log", m))?;
    Ok(Some(Box::new(HostLogRun {
        log,
        tags: HashMap::new(),
        marks: Vec::new(),
    })))
}

impl Ssd {
    /// Send job `job`'s next command through the host store: a collection's read,
    /// write or reset, or the job's own write at its stream's write pointer. False
    /// when the job must wait (another job's collection, reads in flight, no empty
    /// zone yet) or has nothing left to send.
    pub(super) fn hostlog_submit(&mut self, job: u32) -> bool {
        let now = self.now();
        let hl = self.host_log.as_mut().expect("a host store");
        let len = hl.log.extent_bytes();
        let (io, tag) = match hl.log.gc_step(job) {
            Some(HostCmd::Wait) => return false,
            Some(HostCmd::GcRead { offset, slot }) => (
                Io {
                    kind: OpKind::Read,
                    offset,
                    len,
                },
                Tag::GcRead(slot),
            ),
            Some(HostCmd::GcWrite { offset }) => (
                Io {
                    kind: OpKind::Write,
                    offset,
                    len,
                },
                Tag::GcWrite,
            ),
            Some(HostCmd::Reset { zone }) => {
                let start = hl.log.zone_start(zone);
                let cmd = self.zone_send(job, ZoneAction::Reset, start);
                self.host_log_tag(cmd, Tag::Reset(zone));
                // The others' writes waited for this collection.
                self.wake_other_jobs(job);
                return true;
            }
            None => {
                if !hl.log.can_place(job) {
                    return false;
                }
                let g = &mut self.jobs[job as usize].gen;
                if !g.can_issue(now) {
                    return false;
                }
                let io = g.next_io_in(now, None);
                if io.len == 0 {
                    return false;
                }
                let hl = self.host_log.as_mut().expect("a host store");
                let offset = hl.log.write(job, io.offset);
                self.submit_io(job, Io { offset, ..io });
                return true;
            }
        };
        let cmd = self.submit_io(job, io);
        self.host_log_tag(cmd, tag);
        true
    }

    fn host_log_tag(&mut self, cmd: u32, tag: Tag) {
        self.host_log
            .as_mut()
            .expect("a host store")
            .tags
            .insert(cmd, tag);
    }

    /// Let every other job that is not done try to send again now.
    fn wake_other_jobs(&mut self, job: u32) {
        let now = self.now();
        for (k, j) in self.jobs.iter_mut().enumerate() {
            if k as u32 != job && !j.done && j.wake_at != now {
                j.wake_at = now;
                self.q.schedule(now, Event::HostSubmit { job: k as u32 });
            }
        }
    }

    /// The host sees `cmd`: was it one of the store's own commands (not I/O in the
    /// job's statistics)? A collection's read done makes its write due; a reset done
    /// empties its zone (and wakes the jobs that waited for one).
    pub(super) fn hostlog_completed(&mut self, cmd: u32) -> bool {
        let Some(hl) = self.host_log.as_mut() else {
            return false;
        };
        let Some(tag) = hl.tags.remove(&cmd) else {
            return false;
        };
        match tag {
            Tag::GcRead(slot) => hl.log.read_done(slot),
            Tag::GcWrite => {}
            Tag::Reset(zone) => {
                hl.log.reset_done(zone);
                let job = self.cmds.get(cmd).job;
                self.wake_other_jobs(job);
            }
        }
        true
    }

    /// A group of jobs starts: keep the counters, for the group's share.
    pub(super) fn host_log_group_starts(&mut self) {
        if let Some(h) = self.host_log.as_mut() {
            h.marks.push(h.log.c.clone());
        }
    }

    /// The report's `device.zns.host_log` block (None without a host store).
    pub(crate) fn host_log_stats(&self) -> Option<HostLogStats> {
        let hl = self.host_log.as_ref()?;
        let c = &hl.log.c;
        Some(HostLogStats {
            streams: hl.log.streams(),
            gc_free_zones: hl.log.gc_free_zones(),
            bg_free_zones: hl.log.bg_free_zones(),
            extent_bytes: hl.log.extent_bytes(),
            app_writes: c.app_writes,
            gc_reads: c.gc_reads,
            gc_writes: c.gc_writes,
            victims: c.victims,
            resets: c.resets,
            waits: c.waits,
            background_victims: c.background_victims,
            waf: hl.log.waf(),
            groups: (0..hl.marks.len())
                .map(|i| {
                    let g = hl.marks.get(i + 1).unwrap_or(c).since(&hl.marks[i]);
                    HostLogGroupStats {
                        app_writes: g.app_writes,
                        gc_reads: g.gc_reads,
                        gc_writes: g.gc_writes,
                        victims: g.victims,
                        resets: g.resets,
                        waf: g.waf(),
                    }
                })
                .collect(),
        })
    }
}
