//! Flexible Data Placement parameters (NVMe TP 4146, FDP configuration descriptor):
//! reclaim groups, reclaim-unit handles and their isolation; the reclaim unit's size
//! follows from the group's dies. What they do is in `ftl/fdp.rs`.
//!
//! Simplifies: one FDP configuration (the descriptor's index 0), one namespace whose
//! placement handles are the handles themselves (placement handle i = RUH i), every
//! handle of one type (the `isolation` field).

use super::units::Duration;
use serde::{Deserialize, Serialize};

/// Most reclaim-unit handles a device may have (the simulator keeps their write points
/// in a per-die table; real drives report 8 to 128).
pub const MAX_HANDLES: u32 = 128;

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum Isolation {
    /// Initially isolated: host data of different handles never shares a reclaim unit
    /// when written, but GC may move it into one shared destination.
    #[default]
    Initial,
    /// Persistently isolated: GC moves a handle's data only into reclaim units of the
    /// same handle.
    Persistent,
}

fn default_handles() -> u32 {
    8
}
fn default_groups() -> u32 {
    1
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FdpConfig {
    /// Reclaim-unit handles (RUHs): the write points hosts place data with, 1 to 128.
    #[serde(default = "default_handles")]
    pub handles: u32,
    /// Reclaim groups: the dies split into this many equal sets (consecutive die
    /// numbers, so a group spans channels); a divisor of the drive's dies.
    #[serde(default = "default_groups")]
    pub reclaim_groups: u32,
    /// Isolation of every handle: initial (GC may mix handles' data) or persistent
    /// (GC keeps each handle's data in its own reclaim units).
    #[serde(default)]
    pub isolation: Isolation,
    /// Reclaim unit time limit (the configuration's ERUTL; 0, the default: none): a
    /// handle that has referenced one reclaim unit this long since its first write is
    /// moved to an empty one by the controller, as a Reclaim Unit Handle Update would
    /// (a Reclaim Unit Time Limit Exceeded event).
    #[serde(default, skip_serializing_if = "is_zero_duration")]
    pub ru_time_limit: Duration,
}

fn is_zero_duration(d: &Duration) -> bool {
    d.ns() == 0
}

impl Default for FdpConfig {
    fn default() -> Self {
        FdpConfig {
            handles: default_handles(),
            reclaim_groups: default_groups(),
            isolation: Isolation::Initial,
            ru_time_limit: Default::default(),
        }
    }
}

impl FdpConfig {
    /// Problems with the section on a drive of `dies` dies (each message names the
    /// field, the value and what is allowed).
    pub fn validate(&self, dies: u32, errs: &mut Vec<String>) {
        if self.handles == 0 || self.handles > MAX_HANDLES {
            errs.push(format!(
                "fdp.handles: {} is not allowed (allowed: 1 to 128)",
                self.handles
            ));
        }
        if self.reclaim_groups == 0 || !dies.is_multiple_of(self.reclaim_groups) {
            errs.push(format!(
                "fdp.reclaim_groups: {} is not allowed on a drive of {dies} dies (allowed: a divisor of the drive's dies, 1 to {dies})",
                self.reclaim_groups
            ));
        } else if self.handles > 0 && self.handles > 1 << (16 - self.rgif()) {
            errs.push(format!(
                "fdp.handles: {} do not fit the placement identifier beside {} reclaim groups (allowed: up to {})",
                self.handles,
                self.reclaim_groups,
                1u32 << (16 - self.rgif())
            ));
        }
    }

    /// Blocks a die keeps open for the handles: a host block each, and a GC block each
    /// under persistent isolation (one shared GC block under initial).
    pub fn open_blocks_per_die(&self) -> u32 {
        match self.isolation {
            Isolation::Initial => self.handles + 1,
            Isolation::Persistent => 2 * self.handles,
        }
    }

    /// Bits of a placement identifier that name the reclaim group (RGIF): the fewest
    /// that count the groups (0 for one group).
    pub fn rgif(&self) -> u32 {
        if self.reclaim_groups <= 1 {
            0
        } else {
            32 - (self.reclaim_groups - 1).leading_zeros()
        }
    }

    /// The placement identifier (DSPEC) of handle `h` in group `rg`: the group in the
    /// top RGIF bits of 16, the placement handle below.
    pub fn pid(&self, rg: u32, h: u32) -> u32 {
        let rgif = self.rgif();
        if rgif == 0 {
            h
        } else {
            (rg << (16 - rgif)) | h
        }
    }

    /// (group, handle) of a placement identifier, or None when it names neither.
    pub fn parse_pid(&self, pid: u32) -> Option<(u32, u32)> {
        if pid > 0xFFFF {
            return None;
        }
        let rgif = self.rgif();
        let (rg, h) = if rgif == 0 {
            (0, pid)
        } else {
            (pid >> (16 - rgif), pid & ((1 << (16 - rgif)) - 1))
        };
        (rg < self.reclaim_groups && h < self.handles).then_some((rg, h))
    }

    /// The Reclaim Unit Handle Status list a host reads (fio's `plids` index it):
    /// every handle of group 0, then of group 1, ...; entry i is a placement ID.
    pub fn status_pids(&self) -> Vec<u32> {
        (0..self.reclaim_groups)
            .flat_map(|rg| (0..self.handles).map(move |h| self.pid(rg, h)))
            .collect()
    }
}

/// How a job picks the placement ID of each write (fio's `plid_select`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq, Default)]
#[serde(rename_all = "lowercase")]
pub enum PlidSelect {
    /// The job's placement IDs in turn, one per write.
    #[default]
    Roundrobin,
    /// One of the job's placement IDs at random per write.
    Random,
    /// By the write's offset, from the `scheme` ranges.
    Scheme,
}

/// A job's data placement (fio's `fdp=1` with `plids`, `plid_select`, `dp_scheme`):
/// its writes carry a data placement directive (type 2) whose DSPEC is a placement ID.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct FdpJob {
    /// Indices into the drive's Reclaim Unit Handle Status list (group 0's handles,
    /// then group 1's, ...): the placement IDs the job writes with (fio's
    /// `plids`/`fdp_pli`); empty: all of them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plids: Vec<u32>,
    /// roundrobin (default), random, or scheme (fio's `plid_select`).
    #[serde(default)]
    pub select: PlidSelect,
    /// `select = "scheme"`: [start_bytes, end_bytes, placement_id] entries (fio's
    /// `dp_scheme` file); a write at an offset in [start, end) of the first entry
    /// holding it carries that placement ID (DSPEC, not an index), any other write
    /// placement ID 0.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scheme: Vec<(u64, u64, u32)>,
}

impl FdpJob {
    /// Problems with a job's placement on a drive with FDP section `dev` (None: the
    /// drive has none).
    pub fn validate(&self, dev: Option<&FdpConfig>, drive: &str) -> Result<(), String> {
        let Some(dev) = dev else {
            return Err(format!(
                "fdp: the drive '{drive}' has no flexible data placement (allowed: fdp on a \
                 drive with an [fdp] section, e.g. --set fdp.handles=8)"
            ));
        };
        let n = dev.reclaim_groups * dev.handles;
        if let Some(&i) = self.plids.iter().find(|&&i| i >= n) {
            return Err(format!(
                "fdp.plids: index {i} is out of range (allowed: 0 to {}, the drive's {n} \
                 reclaim unit handle status entries: {} handles x {} reclaim groups)",
                n - 1,
                dev.handles,
                dev.reclaim_groups
            ));
        }
        if self.select == PlidSelect::Scheme && self.scheme.is_empty() {
            return Err(
                "fdp.scheme: plid_select = scheme needs scheme entries (allowed: a non-empty \
                 list of [start_bytes, end_bytes, placement_id], fio's dp_scheme file)"
                    .into(),
            );
        }
        if let Some(&(s, e, _)) = self.scheme.iter().find(|&&(s, e, _)| e <= s) {
            return Err(format!(
                "fdp.scheme: entry [{s}, {e}, ...] is empty (allowed: start_bytes < end_bytes)"
            ));
        }
        if let Some(&(_, _, p)) = self.scheme.iter().find(|&&(_, _, p)| p > 0xFFFF) {
            return Err(format!(
                "fdp.scheme: placement ID {p} does not fit DSPEC (allowed: 0 to 65535)"
            ));
        }
        Ok(())
    }
}

/// What an I/O Management Send a workload sends at a set time does (`fdp_ops`).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum FdpOpAction {
    /// Reclaim Unit Handle Update (management operation 01h): each listed placement
    /// ID's handle leaves its reclaim unit for an empty one.
    RuhUpdate,
}

/// One I/O Management Send at a set time (the workload's `fdp_ops`), on a drive with
/// `[fdp]`: e.g. `{at = "5ms", action = "ruh_update", pids = [1, 2]}`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FdpOpConfig {
    /// Simulated time from the start of the run (bare number: seconds).
    pub at: super::units::Secs,
    /// ruh_update.
    pub action: FdpOpAction,
    /// The placement identifiers (DSPEC values, as writes carry them) whose handles
    /// move to new reclaim units.
    pub pids: Vec<u32>,
}

impl FdpOpConfig {
    /// Problems with operation `k` of a workload on a drive with FDP section `dev`.
    pub fn validate(&self, k: usize, dev: Option<&FdpConfig>, drive: &str) -> Result<(), String> {
        let Some(dev) = dev else {
            return Err(format!(
                "fdp_ops[{k}]: the drive '{drive}' has no flexible data placement (allowed: \
                 fdp_ops on a drive with an [fdp] section, e.g. --set fdp.handles=8)"
            ));
        };
        if self.pids.is_empty() {
            return Err(format!(
                "fdp_ops[{k}].pids: empty (allowed: one or more placement IDs, e.g. [1])"
            ));
        }
        if let Some(&p) = self.pids.iter().find(|&&p| dev.parse_pid(p).is_none()) {
            let ids = dev.status_pids();
            return Err(format!(
                "fdp_ops[{k}].pids: {p} names no reclaim unit handle of the drive (allowed: \
                 its placement IDs {}..{}: {} handles x {} reclaim groups)",
                ids.first().copied().unwrap_or(0),
                ids.last().copied().unwrap_or(0),
                dev.handles,
                dev.reclaim_groups
            ));
        }
        Ok(())
    }
}
