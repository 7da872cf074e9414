//! What the system level (`crate::system`) needs of a drive: its fabric path when it
//! sits behind an NVMe-oF target, and its event loop one event at a time, so that many
//! drives' events interleave in time order on one clock.

use super::Ssd;
use crate::fabric::{Fabric, Path};
use crate::sim::{Event, Ns};
use crate::stats::{max_dirs, JobStats};
use crate::workload::OpKind;
use std::sync::{Arc, Mutex};

/// A drive's path through the fabric (shared with every other remote drive).
pub(crate) struct Remote {
    pub fabric: Arc<Mutex<Fabric>>,
    pub path: Path,
    /// In the parallel system loop (`system::parallel`): the fabric calls the drive
    /// made, in order, resolved by the system between windows. None: calls go to the
    /// fabric at once.
    deferred: Option<Vec<FabricCall>>,
    /// How many of the first `deferred` calls are resolved (answered, not yet applied).
    resolved: usize,
}

/// A fabric call made inside a parallel window: what it asked, where its answer goes
/// (the event it schedules, with the queue sequence number taken when it was made, so
/// that the event pops where it would have if the call had been answered at once),
/// and, once resolved, the answer.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FabricCall {
    /// The time of the event that made the call: the calls of all drives are resolved
    /// in (this, drive index, order made) order, the single-threaded loop's order.
    pub event_ns: Ns,
    /// `Fabric::backward` (a completion), else `Fabric::forward` (a command).
    pub backward: bool,
    pub at: Ns,
    pub kind: OpKind,
    pub len: u64,
    cmd: u32,
    sq: u32,
    seq: u64,
    /// The fabric's answer (when the target submits the command, or when the host's
    /// driver has completed it).
    pub done: Ns,
}

impl Remote {
    pub fn forward(&self, at: Ns, kind: OpKind, len: u64) -> Ns {
        let mut f = self.fabric.lock().unwrap_or_else(|e| e.into_inner());
        f.forward(self.path, at, kind, len)
    }

    pub fn backward(&self, at: Ns, kind: OpKind, len: u64) -> Ns {
        let mut f = self.fabric.lock().unwrap_or_else(|e| e.into_inner());
        f.backward(self.path, at, kind, len)
    }
}

impl Ssd {
    /// Put the drive behind a target: its commands travel `path` through `fabric`.
    pub(crate) fn set_remote(&mut self, fabric: Arc<Mutex<Fabric>>, path: Path) {
        self.remote = Some(Remote {
            fabric,
            path,
            deferred: None,
            resolved: 0,
        });
    }

    /// The drive's fabric path, when it sits behind a target.
    pub(crate) fn remote_path(&self) -> Option<Path> {
        self.remote.as_ref().map(|r| r.path)
    }

    /// Send command `cmd`, issued by the host at `now`, through the fabric: the target
    /// submits it to the drive when it arrives (now, or when the call is resolved).
    pub(super) fn remote_forward(&mut self, cmd: u32, now: Ns, kind: OpKind, len: u64) {
        let seq = self.q.reserve_seq();
        let event_ns = self.q.now();
        let r = self.remote.as_mut().expect("a remote drive");
        if let Some(calls) = &mut r.deferred {
            calls.push(FabricCall {
                event_ns,
                backward: false,
                at: now,
                kind,
                len,
                cmd,
                sq: 0,
                seq,
                done: 0,
            });
            return;
        }
        let at = r.forward(now, kind, len);
        self.q.schedule_seq(at, seq, Event::TargetSubmit { cmd });
    }

    /// Send the completion of `cmd` (queue `sq`), in the target's memory at `at`, back
    /// through the fabric to the host (now, or when the call is resolved).
    pub(super) fn remote_backward(&mut self, cmd: u32, sq: u32, at: Ns, kind: OpKind, len: u64) {
        let seq = self.q.reserve_seq();
        let event_ns = self.q.now();
        let r = self.remote.as_mut().expect("a remote drive");
        if let Some(calls) = &mut r.deferred {
            calls.push(FabricCall {
                event_ns,
                backward: true,
                at,
                kind,
                len,
                cmd,
                sq,
                seq,
                done: 0,
            });
            return;
        }
        let at_host = r.backward(at, kind, len);
        self.host_sees_completion(cmd, sq, at_host, seq);
    }

    /// Defer the drive's fabric calls (true: the parallel loop begins) or make them at
    /// once again (false; calls not applied by then are dropped: a run stopped early).
    pub(crate) fn defer_fabric_calls(&mut self, on: bool) {
        if let Some(r) = &mut self.remote {
            r.deferred = on.then(Vec::new);
            r.resolved = 0;
        }
    }

    /// The deferred fabric calls not resolved yet, in the order made.
    pub(crate) fn pending_fabric_calls(&mut self) -> &mut [FabricCall] {
        match &mut self.remote {
            Some(Remote {
                deferred: Some(c),
                resolved,
                ..
            }) => &mut c[*resolved..],
            _ => &mut [],
        }
    }

    /// When the first deferred call not resolved yet was made.
    #[inline]
    pub(crate) fn first_pending_call_ns(&self) -> Option<Ns> {
        let r = self.remote.as_ref()?;
        r.deferred.as_ref()?.get(r.resolved).map(|c| c.event_ns)
    }

    /// The first `n` pending calls have their answers (`done`).
    pub(crate) fn fabric_calls_resolved(&mut self, n: usize) {
        if let Some(r) = &mut self.remote {
            r.resolved += n;
        }
    }

    /// Schedule what the resolved fabric calls bring (in the order they were made: a
    /// queue's interrupt handler takes completions in that order) and forget them.
    pub(crate) fn apply_fabric_calls(&mut self) {
        let Some(r) = &mut self.remote else {
            return;
        };
        let (Some(calls), n) = (&mut r.deferred, r.resolved) else {
            return;
        };
        if n == 0 {
            return;
        }
        let mut calls = std::mem::take(calls);
        for c in &calls[..n] {
            if c.backward {
                self.host_sees_completion(c.cmd, c.sq, c.done, c.seq);
            } else {
                self.q
                    .schedule_seq(c.done, c.seq, Event::TargetSubmit { cmd: c.cmd });
            }
        }
        calls.drain(..n);
        let r = self.remote.as_mut().expect("a remote drive");
        r.deferred = Some(calls);
        r.resolved = 0;
    }

    /// Start the run (as `run` does before its loop); returns the jobs running.
    pub(crate) fn begin_run(&mut self) -> usize {
        self.window.open(self.now(), &self.ftl.stats);
        self.power_measure_open(self.now());
        self.start_group(0)
    }

    /// When the drive's next event is due (`Ns::MAX`: none).
    #[inline]
    pub(crate) fn next_event_ns(&self) -> Ns {
        self.q.next_ns()
    }

    /// Handle the next event (as one turn of `run`'s loop); `active` counts the jobs
    /// still running. Returns false when the drive is done or stalled.
    pub(crate) fn step(&mut self, active: &mut usize) -> bool {
        if *active == 0 {
            return false;
        }
        let Some(ev) = self.q.pop() else {
            if self.recheck_buffer_waiters() {
                return true;
            }
            self.stalled = Some(self.stall_state());
            *active = 0;
            return false;
        };
        if let Some(job) = self.dispatch(ev) {
            if self.finish_job_if_done(job) {
                *active -= 1;
            }
        }
        if *active == 0 && self.group_idx + 1 < self.groups.len() {
            self.group_idx += 1;
            *active = self.start_group(self.group_idx);
        }
        *active > 0
    }

    /// Give the jobs their own random streams (`seed`), as if the drive ran alone
    /// with that seed (the drive's preparation keeps the run's seed).
    pub(crate) fn reseed_jobs(&mut self, seed: u64) {
        let capacity = self.cfg.capacity_bytes();
        for (j, job) in self.jobs.iter_mut().enumerate() {
            job.gen = crate::workload::JobGen::new(
                &self.job_cfgs[job.cfg as usize],
                capacity,
                seed,
                j as u32,
            );
        }
        self.zbd = crate::workload::ZoneSet::for_jobs(&self.job_cfgs, capacity);
        self.zoned_bind_zbd();
    }

    /// Every job's statistics merged, and the longest job runtime.
    pub(crate) fn total_stats(&self) -> (JobStats, u64, [u64; 3]) {
        let mut total = JobStats::default();
        let mut runtime = 0;
        let mut dirs = [0; 3];
        for j in &self.jobs {
            total.merge(&j.stats);
            runtime = runtime.max(j.stats.runtime_ns());
            dirs = max_dirs(dirs, j.stats.dir_runtimes_ns());
        }
        (total, runtime, dirs)
    }

    /// Each job thread's statistics with its job section (index into the drive's
    /// jobs), in order; the clones of one section follow each other.
    pub(crate) fn job_threads(&self) -> impl Iterator<Item = (usize, &JobStats)> {
        self.jobs.iter().map(|j| (j.cfg as usize, &j.stats))
    }

    /// Simulated time reached and events handled.
    pub(crate) fn clock(&self) -> (Ns, u64) {
        (self.now(), self.q.processed())
    }
}
