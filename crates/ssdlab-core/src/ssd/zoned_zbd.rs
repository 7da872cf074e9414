//! fio's `zonemode=zbd` jobs on a zoned drive (`zoned.rs`): they use the drive's own
//! zones, as fio does on a zoned block device. `fit_zbd_jobs` gives the jobs the
//! drive's zone capacity and open-zone limit and refuses a `zonesize` that is not the
//! drive's (fio refuses it too); `zoned_bind_zbd` reads the drive's write pointers into
//! fio's zone set when the run starts; `zoned_send_zbd_resets` sends the resets a write
//! needs (recorded by `workload/zbd.rs`) as Zone Resets just before it, which the drive
//! queues the write behind. Simplifies: fio resets synchronously in the job's thread;
//! here the reset takes one more slot of the job's iodepth while it runs. Zone
//! management commands (`zone_send`) are not I/O in the job's statistics.

use super::Ssd;
use crate::workload::OpKind;
use crate::zns::ZoneAction;

/// The run's jobs on a zoned drive: no host events (not modelled with zones yet), and
/// fio's zbd jobs use the drive's zones: the drive's zone capacity
/// and open-zone limit (the job's `max_open_zones` at most the drive's, 0 taking it),
/// and a `zonesize` that must be the drive's, as fio requires on a zoned device.
pub(super) fn fit_zbd_jobs(
    cfg: &crate::config::DeviceConfig,
    mut jobs: Vec<crate::config::WorkloadConfig>,
) -> Result<Vec<crate::config::WorkloadConfig>, crate::config::ConfigError> {
    use crate::config::units::Bytes;
    use crate::config::zoned_job::ZoneMode;
    let Some(d) = &cfg.zns else {
        for (i, w) in jobs.iter().enumerate() {
            let what = if w.zone_append {
                "zone_append"
            } else if !w.zone_ops.is_empty() {
                "zone_ops"
            } else {
                continue;
            };
            return Err(crate::config::err(
                &format!("workload job {i}"),
                format!(
                    "{what}: needs a zoned drive (a device with [zns]); '{}' is not zoned \
                     (Zone Append and Zone Management Send are zoned commands)",
                    cfg.name
                ),
            ));
        }
        return Ok(jobs);
    };
    let zones = crate::zns::layout_of(cfg)
        .and_then(|l| l.ok())
        .map_or(0, |l| l.zones());
    for (i, w) in jobs.iter().enumerate() {
        use crate::config::zoned_job::ZoneOpAction;
        let zone_bytes = d.zone_size_bytes.bytes();
        for (k, op) in w.zone_ops.iter().enumerate() {
            let flush = op.action == ZoneOpAction::Flush;
            let lba = d.lba_bytes.bytes();
            let bad = match op.upto {
                None => flush,
                Some(b) => {
                    !flush
                        || b.bytes() == 0
                        || b.bytes() > zone_bytes
                        || !b.bytes().is_multiple_of(lba)
                }
            };
            if bad {
                return Err(crate::config::err(
                    &format!("workload job {i}"),
                    format!(
                        "zone_ops[{k}].upto: {} with action {} (allowed: with flush only, and there a \
                         multiple of the drive's {lba}-byte logical block from {lba} to the zone size {zone_bytes})",
                        op.upto.map_or("none".to_string(), |b| b.to_string()),
                        op.action.name()
                    ),
                ));
            }
        }
        if let Some((k, op)) = w.zone_ops.iter().enumerate().find(|(_, o)| o.zone >= zones) {
            return Err(crate::config::err(
                &format!("workload job {i}"),
                format!(
                    "zone_ops[{k}].zone: {} is not a zone of the drive (allowed: 0 to {})",
                    op.zone,
                    zones.saturating_sub(1)
                ),
            ));
        }
    }
    if jobs.first().is_some_and(|w| !w.events.is_empty()) {
        return Err(crate::config::err(
            "workload",
            "events: host events (resets, suspend, HMB loss, power loss) are not modelled on \
             a zoned drive yet (allowed: none with [zns])",
        ));
    }
    for (i, w) in jobs.iter_mut().enumerate() {
        let Some(z) = w.zoned.as_mut().filter(|z| z.mode == ZoneMode::Zbd) else {
            continue;
        };
        let fail = |m: String| Err(crate::config::err(&format!("workload job {i}"), m));
        if z.zone_size.bytes() != d.zone_size_bytes.bytes() {
            return fail(format!(
                "zoned.zone_size: {} does not match the zoned drive's zone size {} (fio \
                 requires zonesize to be the device's on a zoned drive)",
                z.zone_size, d.zone_size_bytes
            ));
        }
        if z.zone_capacity
            .is_some_and(|c| c.bytes() != d.capacity_bytes())
        {
            return fail(format!(
                "zoned.zone_capacity: not allowed on a zoned drive, whose zones have \
                 their own capacity ({})",
                Bytes(d.capacity_bytes())
            ));
        }
        z.zone_capacity = Some(Bytes(d.capacity_bytes()));
        let dev = d.max_open_zones;
        if dev > 0 && z.max_open_zones > dev {
            return fail(format!(
                "zoned.max_open_zones: {} is more than the zoned drive's {dev} (allowed: 0, \
                 the drive's limit, to {dev})",
                z.max_open_zones
            ));
        }
        if z.max_open_zones == 0 {
            z.max_open_zones = dev;
        }
    }
    Ok(jobs)
}

impl Ssd {
    /// fio's zones of the run's zbd jobs are the zoned drive's: their write pointers
    /// from the drive, their resets sent to it.
    pub(super) fn zoned_bind_zbd(&mut self) {
        if let (Some(set), Some(z)) = (self.zbd.as_mut(), self.zoned.as_ref()) {
            set.use_drive_zones(|start| {
                let zd = z.ns.zone(start / (z.zone_lbas * z.lba_bytes));
                (zd.wp - zd.start) * z.lba_bytes
            });
        }
    }

    /// Send the Zone Finishes and Zone Resets a zbd job's next write needs
    /// (`workload/zbd.rs`) before it.
    pub(super) fn zoned_send_zbd_resets(&mut self, job: u32) {
        let Some((finishes, resets)) = self
            .zbd
            .as_mut()
            .filter(|s| !s.pending_resets.is_empty() || !s.pending_finishes.is_empty())
            .map(|s| {
                (
                    std::mem::take(&mut s.pending_finishes),
                    std::mem::take(&mut s.pending_resets),
                )
            })
        else {
            return;
        };
        for start in finishes {
            self.zone_send(job, ZoneAction::Finish, start);
        }
        for start in resets {
            self.zone_send(job, ZoneAction::Reset, start);
        }
    }

    /// Submit a Zone Management Send `action` for the zone starting at byte `zslba` as
    /// host job `job`'s command; returns the command. Management commands are not
    /// I/O: they are left out of the job's statistics.
    pub(super) fn zone_send(&mut self, job: u32, action: ZoneAction, zslba: u64) -> u32 {
        let len = self.zoned().zone_lbas * self.zoned().lba_bytes;
        self.zone_cmd(job, action, zslba, len)
    }

    /// A Zone Management Send with Select All, reset: one command over the whole
    /// namespace that resets every zone but the read-only and offline ones.
    pub(super) fn zone_reset_all(&mut self, job: u32) -> u32 {
        let z = self.zoned();
        let len = z.ns.zone_count() * z.zone_lbas * z.lba_bytes;
        let cmd = self.zone_cmd(job, ZoneAction::Reset, 0, len);
        self.zoned().select_all.insert(cmd);
        cmd
    }

    /// A Zone Management Send `action` over `len` bytes from `offset` (whole zones).
    fn zone_cmd(&mut self, job: u32, action: ZoneAction, offset: u64, len: u64) -> u32 {
        let io = crate::workload::Io {
            kind: OpKind::Trim,
            offset,
            len,
        };
        let cmd = self.submit_cmd(job, io, super::Origin::Host);
        self.zoned().actions.insert(cmd, action);
        cmd
    }
}
