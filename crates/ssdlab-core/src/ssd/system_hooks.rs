//! What the system level (`crate::system`) needs of a drive: its fabric path when it
//! sits behind an NVMe-oF target, and its event loop one event at a time, so that many
//! drives' events interleave in time order on one clock.

use super::Ssd;
use crate::fabric::{Fabric, Path};
use crate::sim::Ns;
use crate::stats::{max_dirs, JobStats};
use crate::workload::OpKind;
use std::sync::{Arc, Mutex};

/// A drive's path through the fabric (shared with every other remote drive).
pub(crate) struct Remote {
    pub fabric: Arc<Mutex<Fabric>>,
    pub path: Path,
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
        self.remote = Some(Remote { fabric, path });
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
