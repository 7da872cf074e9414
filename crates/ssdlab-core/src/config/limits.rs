//! Limits a device must respect to be simulated at all, and the memory a run needs.
//!
//! The FTL keeps one 32-bit entry per mapping unit in each direction (L2P and P2L), so
//! a drive may have at most 2^32 - 2 mapping units and 2^32 - 1 blocks. What a run
//! needs is estimated from the drive state and the workload by `ftl::estimate` (the
//! map chunks preparation and the run store into, the jobs); here are the bound for an
//! unknown state and workload (both whole maps), the error a run over `max_memory`
//! gets, and the process-wide reservation that parallel runs share
//! (docs/reliability.md).

use super::device::DeviceConfig;
use super::units::thousands;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use crate::ftl::estimate::{BASE_BYTES, JOB_BYTES, PER_BLOCK_BYTES};

impl DeviceConfig {
    /// Mapping units of raw flash (what the P2L map holds).
    pub fn raw_units(&self) -> u64 {
        self.raw_bytes() / self.ftl.mapping_unit.bytes().max(1)
    }

    /// Block numbers of the whole drive (a free-space SLC area's borrowing ones
    /// included).
    fn blocks(&self) -> u64 {
        self.dies() as u64 * self.nand.blocks_per_plane.max(self.block_ids_per_die()) as u64
    }

    /// Bytes of one 32-bit entry per mapping unit in each direction: the L2P and P2L
    /// maps (and, with `verify`, the oracle's tags: as much again).
    fn map_bytes(&self) -> u64 {
        4 * (self.raw_units() + self.capacity_bytes() / self.ftl.mapping_unit.bytes().max(1))
    }

    /// Errors for a geometry too large for 32-bit block numbers (mapping units are
    /// checked with the rest of the geometry in `validate`).
    pub(super) fn validate_limits(&self, errs: &mut Vec<String>) {
        let blocks = self.blocks();
        if blocks >= u32::MAX as u64 {
            errs.push(format!(
                "nand: {blocks} blocks (channels x dies_per_channel x blocks_per_plane) is more than the {} allowed",
                u32::MAX - 1
            ));
        }
    }

    /// Bytes of memory a run on this device needs at most, whatever its state and
    /// workload: both whole maps (an aged drive written everywhere), the oracle with
    /// `verify`, a second copy when a prepared drive is kept for reuse. A run's own
    /// estimate is `ftl::estimate::estimate` (what its state and workload store).
    pub fn memory_estimate_bytes(&self, verify: bool, keep_prepared: bool) -> u64 {
        let mut ftl = self.map_bytes() + PER_BLOCK_BYTES * self.blocks();
        if verify {
            ftl += self.map_bytes();
        }
        if keep_prepared {
            ftl *= 2;
        }
        BASE_BYTES + ftl
    }
}

fn mib(b: u64) -> String {
    format!("{:.0}MiB", b as f64 / (1u64 << 20) as f64)
}

/// The error for a run whose estimate exceeds `max_bytes` (None when it fits).
pub fn memory_error(estimate: u64, max_bytes: u64) -> Option<String> {
    jobs_memory_error(estimate, 0, max_bytes)
}

/// `memory_error` for a run whose estimate counts `jobs` jobs (0: not said).
pub fn jobs_memory_error(estimate: u64, jobs: u64, max_bytes: u64) -> Option<String> {
    (max_bytes > 0 && estimate > max_bytes).then(|| {
        let counted = if jobs > 0 {
            format!(
                ", and {} job(s) at about {}MiB each",
                thousands(jobs),
                JOB_BYTES as f64 / (1u64 << 20) as f64
            )
        } else {
            String::new()
        };
        let fewer = if jobs.saturating_mul(JOB_BYTES) >= max_bytes / 2 {
            ", or fewer jobs (numjobs=, job sections)"
        } else {
            ""
        };
        format!(
            "max_memory: the run needs about {} of memory (maps of the drive's mapping units{counted}), more than the {} allowed; raise --max-memory (max_memory=) if the machine has it, or simulate a smaller drive or a larger ftl.mapping_unit{fewer}",
            mib(estimate),
            mib(max_bytes)
        )
    })
}

/// The error for a system run whose maps grew past `max_bytes` while it ran.
pub fn grown_memory_error(now: u64, max_bytes: u64) -> String {
    format!(
        "max_memory: the run's drive maps grew to {} while it ran (each drive copies the parts of a shared prepared map its writes and garbage collection change), more than the {} allowed; the run was stopped and nothing was written. Raise --max-memory (max_memory=) if the machine has it, or run fewer drives, shorter or narrower writes (size=, number_ios=) or a larger ftl.mapping_unit",
        mib(now),
        mib(max_bytes)
    )
}

/// Memory reserved by the runs in progress in this process (bytes), so that runs in
/// parallel (`run_many`, sweeps on threads) share one limit rather than each having
/// it: a run that fits the limit alone waits until the runs before it leave room.
static RESERVED: Mutex<u64> = Mutex::new(0);
static RELEASED: Condvar = Condvar::new();

/// A run's share of the process's memory limit, given back on drop.
#[derive(Debug)]
pub struct Reservation(u64);

impl Drop for Reservation {
    fn drop(&mut self) {
        let mut used = RESERVED.lock().unwrap_or_else(|e| e.into_inner());
        *used -= self.0;
        RELEASED.notify_all();
    }
}

/// Reserve `estimate` bytes under `max_bytes` (0 = no limit) for one run: an error
/// when the run alone exceeds the limit; otherwise wait (asking the interrupt hook,
/// `crate::interrupt`, every 50 ms) until the runs in progress leave room. A run
/// always starts when nothing else is reserved.
pub fn reserve(estimate: u64, max_bytes: u64) -> Result<Reservation, String> {
    reserve_jobs(estimate, 0, max_bytes)
}

/// `reserve` for a run whose estimate counts `jobs` jobs (named in the error).
pub fn reserve_jobs(estimate: u64, jobs: u64, max_bytes: u64) -> Result<Reservation, String> {
    if let Some(m) = jobs_memory_error(estimate, jobs, max_bytes) {
        return Err(m);
    }
    if max_bytes == 0 {
        return Ok(Reservation(0));
    }
    let mut used = RESERVED.lock().unwrap_or_else(|e| e.into_inner());
    while *used > 0 && used.saturating_add(estimate) > max_bytes {
        used = RELEASED
            .wait_timeout(used, Duration::from_millis(50))
            .unwrap_or_else(|e| e.into_inner())
            .0;
        drop(used);
        crate::interrupt::poll();
        used = RESERVED.lock().unwrap_or_else(|e| e.into_inner());
    }
    *used += estimate;
    Ok(Reservation(estimate))
}

/// Bytes reserved by the runs in progress in this process.
pub fn reserved_bytes() -> u64 {
    *RESERVED.lock().unwrap_or_else(|e| e.into_inner())
}
