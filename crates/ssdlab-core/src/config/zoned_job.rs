//! A job's zone mode: fio's `zonemode` and its options (`zonesize`, `zonerange`,
//! `zonecapacity`, `zoneskip`, `read_beyond_wp`, `max_open_zones`,
//! `job_max_open_zones`, `zone_reset_threshold`, `zone_reset_frequency`), with fio's
//! meanings (fio's HOWTO, "I/O zones"; its `zbd.c` for `zonemode=zbd`).
//!
//! `strided`: the job moves `zone_range + zone_skip` on after every `zone_size` bytes.
//! `zbd`: writes go to zone write pointers, reads stay below them, trims reset zones,
//! and open-zone limits and reset rules apply, over zones the host keeps itself
//! (fio's emulated zones on a drive that is not zoned). What the generator does with
//! them is `workload/zbd.rs`.
//!
//! Also a job's zone management commands at set times (`zone_ops`: open, close,
//! finish, reset of a zone, as NVMe Zone Management Send), for a zoned drive.

use super::units::{Bytes, Secs};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ZoneMode {
    /// fio's `zonemode=strided`.
    Strided,
    /// fio's `zonemode=zbd`.
    Zbd,
}

fn is_false(b: &bool) -> bool {
    !*b
}
fn is_zero(v: &u32) -> bool {
    *v == 0
}
fn is_zero_f(v: &f64) -> bool {
    *v == 0.0
}
fn is_zero_bytes(v: &Bytes) -> bool {
    v.bytes() == 0
}

/// fio's zone options of one job.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ZonedJob {
    /// `strided` or `zbd`.
    pub mode: ZoneMode,
    /// fio's `zonesize`: a zone's size (zbd) or the bytes done before a skip (strided).
    pub zone_size: Bytes,
    /// fio's `zonerange` (strided): the size of one zone (default: zone_size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone_range: Option<Bytes>,
    /// fio's `zonecapacity` (zbd): the writable bytes from a zone's start (default:
    /// zone_size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone_capacity: Option<Bytes>,
    /// fio's `zoneskip`: bytes skipped after each zone (a multiple of zone_size for zbd).
    #[serde(default, skip_serializing_if = "is_zero_bytes")]
    pub zone_skip: Bytes,
    /// fio's `read_beyond_wp` (zbd): reads may go past a zone's write pointer.
    #[serde(default, skip_serializing_if = "is_false")]
    pub read_beyond_wp: bool,
    /// fio's `max_open_zones` (zbd): zones open for writing at once (0: no limit).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub max_open_zones: u32,
    /// fio's `job_max_open_zones` (zbd): the same limit for this job alone.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub job_max_open_zones: u32,
    /// fio's `zone_reset_threshold` (zbd): share of the span holding data above
    /// which writes reset zones (with zone_reset_frequency).
    #[serde(default, skip_serializing_if = "is_zero_f")]
    pub zone_reset_threshold: f64,
    /// fio's `zone_reset_frequency` (zbd): above the threshold, one write in 1/f
    /// resets its zone first (0: never).
    #[serde(default, skip_serializing_if = "is_zero_f")]
    pub zone_reset_frequency: f64,
}

/// fio's limit on open zones (`ZBD_MAX_OPEN_ZONES`).
pub const MAX_OPEN_ZONES: u32 = 4096;

impl ZonedJob {
    /// The writable bytes of a zone.
    pub fn capacity(&self) -> u64 {
        self.zone_capacity
            .map_or(self.zone_size.bytes(), |c| c.bytes())
    }

    pub(crate) fn validate(&self, errs: &mut Vec<String>) {
        let zs = self.zone_size.bytes();
        if zs < 512 || !zs.is_multiple_of(512) {
            errs.push(format!(
                "zoned.zone_size: {} is not allowed (a multiple of 512 bytes, at least 512)",
                self.zone_size
            ));
            return;
        }
        if self.mode == ZoneMode::Zbd {
            let cap = self.capacity();
            if cap > zs || cap == 0 || !cap.is_multiple_of(512) {
                errs.push(format!(
                    "zoned.zone_capacity: {} is not allowed (a multiple of 512 bytes, above 0, \
                     at most zone_size {})",
                    Bytes(cap),
                    self.zone_size
                ));
            }
            if !self.zone_skip.bytes().is_multiple_of(zs) {
                errs.push(format!(
                    "zoned.zone_skip: {} is not a multiple of the zone size {} (as fio requires \
                     with zonemode=zbd)",
                    self.zone_skip, self.zone_size
                ));
            }
        }
        for (name, v) in [
            ("max_open_zones", self.max_open_zones),
            ("job_max_open_zones", self.job_max_open_zones),
        ] {
            if v > MAX_OPEN_ZONES {
                errs.push(format!(
                    "zoned.{name}: {v} is not allowed (0, no limit, to {MAX_OPEN_ZONES}, fio's limit)"
                ));
            }
        }
        if self.job_max_open_zones > 0 && self.max_open_zones == 0 {
            errs.push(
                "zoned.job_max_open_zones: needs max_open_zones (as in fio: open zones are \
                 tracked only under a global limit)"
                    .into(),
            );
        }
        for (name, v) in [
            ("zone_reset_threshold", self.zone_reset_threshold),
            ("zone_reset_frequency", self.zone_reset_frequency),
        ] {
            if !(0.0..=1.0).contains(&v) {
                errs.push(format!("zoned.{name}: {v} is not allowed (0 to 1)"));
            }
        }
        if self.zone_range.is_some_and(|r| r.bytes() == 0) {
            errs.push("zoned.zone_range: must be > 0".into());
        }
    }
}

/// What a scheduled Zone Management Send does (NVMe ZNS, Zone Send Action).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum ZoneOpAction {
    Open,
    Close,
    Finish,
    Reset,
    /// Open explicitly with a Zone Random Write Area (Open Zone, ZRWAA set; the drive
    /// needs `zns.zrwa_bytes`).
    OpenZrwa,
    /// Flush Explicit ZRWA Range: commit the zone's first `upto` bytes.
    Flush,
}

impl ZoneOpAction {
    /// The action as a workload spells it (`open_zrwa`), for messages.
    pub fn name(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Close => "close",
            Self::Finish => "finish",
            Self::Reset => "reset",
            Self::OpenZrwa => "open_zrwa",
            Self::Flush => "flush",
        }
    }
}

/// One Zone Management Send a job sends at a set time (the workload's `zone_ops`), on
/// a zoned drive (`[zns]`): e.g. `{at = "5ms", action = "finish", zone = 3}`.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ZoneOpConfig {
    /// Simulated time from the start of the run (bare number: seconds).
    pub at: Secs,
    /// open (explicitly), close, finish, reset, open_zrwa (open with a ZRWA) or flush
    /// (commit a ZRWA up to `upto`).
    pub action: ZoneOpAction,
    /// The zone (zone i starts at byte i x the drive's zone size).
    pub zone: u64,
    /// flush only: the bytes from the zone's start committed after it (a multiple of
    /// the drive's ZRWA flush granularity past the write pointer, or the capacity).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upto: Option<Bytes>,
}
