//! Zoned commands a workload issues on a zoned drive (`zoned.rs`) besides reads,
//! writes and resets: Zone Append and Zone Management Send at set times.
//!
//! - Zone Append (`zone_append`, fio's `write_mode=zone_append`): a job's write goes to
//!   the zone holding its offset, as a Zone Append whose SLBA is the zone's start
//!   (ZSLBA); the drive writes it at the zone's write pointer when its core has decoded
//!   it (`Namespace::append`) and the completion returns the LBA written: the
//!   command's offset becomes that LBA, so the job's `completions` log and its verify
//!   pass see where the data went. Append limits (ZASL), full zones and zone
//!   capacity give their NVMe statuses, counted as the drive's other zoned errors.
//! - `zone_ops`: `{at, action, zone}` entries, each a Zone Management Send (explicit
//!   open, close, finish or reset of one zone; `open_zrwa`, an open with a Zone Random
//!   Write Area, and `flush` with `upto`, Flush Explicit ZRWA Range committing the
//!   zone's first `upto` bytes: `zoned_zrwa.rs`) submitted at `at` through the same NVMe
//!   path, as a command of the first job not yet done, and timed as `zoned.rs` times zone
//!   management. Like fio's zone resets they are not I/O in the job's figures; an
//!   action the zone's state does not allow completes with 0xBF (invalid transition).
//!
//! Simplifies: a scheduled operation takes one more slot of that job's iodepth
//! while it runs (as the zbd resets do, `zoned_zbd.rs`); operations due after the
//! run's jobs have ended are not sent (the run ends with its jobs); they are
//! scheduled in single-drive runs (a system run's drives ignore them).

use super::Ssd;
use crate::config::zoned_job::ZoneOpAction;
use crate::sim::Event;
use crate::zns::ZoneAction;

impl Ssd {
    /// Schedule the workload's `zone_ops` (a zoned drive; at the start of the run).
    pub(super) fn schedule_zone_ops(&mut self) {
        if self.zoned.is_none() {
            return;
        }
        let ats: Vec<u64> = self
            .job_cfgs
            .iter()
            .flat_map(|w| w.zone_ops.iter().map(|o| o.at.ns()))
            .collect();
        self.schedule_at_times(ats, |idx| Event::ZoneOp { idx });
    }

    /// Zone Management Send `idx` of the run's `zone_ops` is due: submit it.
    pub(super) fn zone_op_due(&mut self, idx: u32) {
        let Some(op) = self
            .job_cfgs
            .iter()
            .flat_map(|w| w.zone_ops.iter())
            .nth(idx as usize)
            .cloned()
        else {
            return;
        };
        let Some(job) = self.first_running_job() else {
            return; // the run is over
        };
        let action = match op.action {
            ZoneOpAction::Open => ZoneAction::Open,
            ZoneOpAction::Close => ZoneAction::Close,
            ZoneOpAction::Finish => ZoneAction::Finish,
            ZoneOpAction::Reset => ZoneAction::Reset,
            ZoneOpAction::OpenZrwa => ZoneAction::OpenZrwa,
            ZoneOpAction::Flush => ZoneAction::FlushZrwa,
        };
        let (zone_bytes, lba_bytes) = {
            let z = self.zoned();
            (z.zone_lbas * z.lba_bytes, z.lba_bytes)
        };
        // A flush names the last LBA it commits (validated: upto >= one LBA).
        let at = match (action, op.upto) {
            (ZoneAction::FlushZrwa, Some(upto)) => upto.bytes() - lba_bytes,
            _ => 0,
        };
        self.zone_send(job, action, op.zone * zone_bytes + at);
    }

    /// The start (bytes) of the zone holding `offset`: a Zone Append's ZSLBA.
    pub(super) fn zoned_zone_start(&self, offset: u64) -> u64 {
        let z = self.zoned.as_ref().expect("a zoned drive");
        let zone_bytes = z.zone_lbas * z.lba_bytes;
        offset - offset % zone_bytes
    }

    /// Command `cmd` is a Zone Append.
    pub(super) fn zoned_mark_append(&mut self, cmd: u32) {
        self.zoned().appends.insert(cmd);
    }

    /// The host sees `cmd`: was it a Zone Append that wrote (its offset is the LBA
    /// the drive returned)?
    pub(super) fn zoned_take_append(&mut self, cmd: u32) -> bool {
        self.zoned.as_mut().is_some_and(|z| z.appends.remove(&cmd))
    }
}
