//! Host events in a run: controller resets, suspend-resume cycles and the host
//! taking the HMB back and handing it again (the workload's `events`;
//! config/host_events.rs says what each does and where its times come from).
//!
//! Models: at an event the fetch engine stops taking commands until the outage is
//! over (reset: `[reset] ready`; suspend-resume: the time asleep, PCIe power-on and
//! ready); commands already fetched finish (the host waits for them, as Linux's
//! `nvme_dev_disable` drains a live controller), commands submitted meanwhile wait
//! in their queues. Taking the HMB back writes the HMB map cache's dirty segments
//! back to NAND and sets the cache aside; the drive runs on its SRAM level alone.
//! Handing it back with Memory Return restores the cache minus the segments whose
//! entries changed meanwhile; without it the cache starts empty and refills on
//! demand, one NAND load per segment a read touches. A power-off (suspend-resume)
//! also empties the controller's SRAM map cache.
//!
//! Reports per event: the outage, the latency of the first command fetched after
//! it (from its submission, so its wait is in it), the IOPS of the window before
//! the event and of `windows` windows after the outage (the recovery curve), and
//! what became of the map cache.
//!
//! A power loss (`power-loss`) is run by power_loss.rs: the cut, the lost writes,
//! the recovery at power-on; this module holds its outage and report entry.
//!
//! Simplifies: the shutdown before a suspend takes no time of its own (the drive
//! keeps working through the outage on what it had: programs, GC, the journal is
//! kept as a normal shutdown persists it); a DRAM drive's whole map survives the
//! power-off (its load at power-on is not modelled); write-backs of dirty
//! segments run alongside the outage, their data read from SRAM if they start
//! after the HMB is gone; an event aborts nothing.

use super::Ssd;
use crate::config::host_events::{HostEventConfig, HostEventKind};
use crate::sim::{Event, Ns};
use serde::Serialize;

/// One event's figures, as the report gives them.
#[derive(Clone, Debug, Serialize)]
pub struct HostEventStats {
    pub kind: HostEventKind,
    pub at_ns: Ns,
    pub memory_return: bool,
    /// From the event to the first command fetch it allows (0: none held).
    pub outage_ns: Ns,
    /// Submission to completion of the first command fetched after the outage
    /// (0: none completed).
    pub first_io_latency_ns: Ns,
    /// Fetch to completion of that command.
    pub first_io_service_ns: Ns,
    /// Completions per second in the window just before the event.
    pub iops_before: f64,
    pub window_ns: Ns,
    /// Completions per second in each window after the outage.
    pub recovery_iops: Vec<f64>,
    /// From the end of the outage to the end of the first window at 90 % of
    /// `iops_before` or more (None: never within the curve, or no reference).
    pub recovery_ns: Option<Ns>,
    /// Segments of the map cache dropped (not handed back) and dirty ones written
    /// back when the HMB was taken back or the power went.
    pub map_segments_dropped: u64,
    pub map_dirty_written_back: u64,
    /// Map segment loads from NAND in the recovery curve's windows.
    pub map_loads_after: u64,
    /// A power loss's figures (lost writes, PLP dump, recovery phases).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_loss: Option<super::PowerLossStats>,
}

struct Record {
    cfg: HostEventConfig,
    end_ns: Ns,
    before: u64,
    after: Vec<u64>,
    first_io: Option<(Ns, Ns)>,
    dropped: u64,
    written_back: u64,
    loads_at_end: u64,
    loads_at_close: Option<u64>,
    power: Option<super::PowerLossStats>,
}

/// The run's host events and the outage they impose on the fetch engine.
pub(super) struct HostEvents {
    records: Vec<Record>,
    /// No command is fetched before this time.
    pub(super) blocked_until: Ns,
}

/// `Event::HostEvent` phases.
pub(super) const PHASE_START: u32 = 0;
pub(super) const PHASE_END: u32 = 1;
/// The recovery curve's last window is over.
pub(super) const PHASE_CLOSE: u32 = 2;
/// A power loss's power comes back (its recovery starts).
pub(super) const PHASE_POWER_ON: u32 = 3;

impl HostEvents {
    pub(super) fn new(events: &[HostEventConfig]) -> Option<Box<Self>> {
        (!events.is_empty()).then(|| {
            Box::new(HostEvents {
                records: events
                    .iter()
                    .map(|e| Record {
                        cfg: e.clone(),
                        end_ns: Ns::MAX,
                        before: 0,
                        after: vec![0; e.windows() as usize],
                        first_io: None,
                        dropped: 0,
                        written_back: 0,
                        loads_at_end: 0,
                        loads_at_close: None,
                        power: None,
                    })
                    .collect(),
                blocked_until: 0,
            })
        })
    }

    /// A host command completed at `now` (submitted at `submit`, fetched at `fetch`).
    #[inline]
    pub(super) fn on_complete(&mut self, now: Ns, submit: Ns, fetch: Ns) {
        for r in &mut self.records {
            let at = r.cfg.at.ns();
            let w = r.cfg.window_ns();
            if now < at && now + w >= at {
                r.before += 1;
            }
            if now >= r.end_ns {
                let i = ((now - r.end_ns) / w) as usize;
                if let Some(b) = r.after.get_mut(i) {
                    *b += 1;
                }
                if r.first_io.is_none() && fetch >= r.end_ns {
                    r.first_io = Some((now - submit, now - fetch));
                }
            }
        }
    }

    pub(super) fn stats(&self, loads_now: u64) -> Vec<HostEventStats> {
        self.records
            .iter()
            .map(|r| {
                let w = r.cfg.window_ns();
                let per_s = |n: u64| n as f64 * 1e9 / w as f64;
                let before = per_s(r.before);
                let curve: Vec<f64> = r.after.iter().map(|&n| per_s(n)).collect();
                let recovery_ns = (before > 0.0)
                    .then(|| curve.iter().position(|&x| x >= 0.9 * before))
                    .flatten()
                    .map(|i| (i as u64 + 1) * w);
                let ended = r.end_ns != Ns::MAX;
                HostEventStats {
                    kind: r.cfg.kind,
                    at_ns: r.cfg.at.ns(),
                    memory_return: r.cfg.memory_return(),
                    outage_ns: if ended { r.end_ns - r.cfg.at.ns() } else { 0 },
                    first_io_latency_ns: r.first_io.map_or(0, |f| f.0),
                    first_io_service_ns: r.first_io.map_or(0, |f| f.1),
                    iops_before: before,
                    window_ns: w,
                    recovery_iops: curve,
                    recovery_ns,
                    map_segments_dropped: r.dropped,
                    map_dirty_written_back: r.written_back,
                    map_loads_after: if ended {
                        r.loads_at_close.unwrap_or(loads_now) - r.loads_at_end
                    } else {
                        0
                    },
                    power_loss: r.power.clone(),
                }
            })
            .collect()
    }
}

impl Ssd {
    /// Schedule the run's events (at the start of the run).
    pub(super) fn schedule_host_events(&mut self) {
        let Some(ev) = &self.host_events else {
            return;
        };
        let ats: Vec<Ns> = ev.records.iter().map(|r| r.cfg.at.ns()).collect();
        if ev
            .records
            .iter()
            .any(|r| r.cfg.kind == HostEventKind::PowerLoss)
        {
            self.ftl.track_durability();
        }
        for (i, at) in ats.into_iter().enumerate() {
            let at = at.max(self.now());
            self.q.schedule(
                at,
                Event::HostEvent {
                    idx: i as u32,
                    phase: PHASE_START,
                },
            );
        }
    }

    /// An event begins (`PHASE_START`) or its outage ends (`PHASE_END`).
    pub(super) fn host_event(&mut self, idx: u32, phase: u32) {
        let now = self.now();
        let (kind, mr, outage) = {
            let ev = self.host_events.as_ref().expect("host events");
            let c = &ev.records[idx as usize].cfg;
            (c.kind, c.memory_return(), c.outage_ns(&self.cfg.reset))
        };
        if phase == PHASE_START && self.power_defer(idx) {
            return;
        }
        if phase == PHASE_POWER_ON {
            self.power_on();
            return;
        }
        if phase == PHASE_START {
            let (mut dropped, mut written) = (0, 0);
            match kind {
                HostEventKind::Reset
                | HostEventKind::SuspendResume
                | HostEventKind::HmbDisable
                | HostEventKind::PowerLoss => {
                    if let Some((d, w)) = self.map_hmb_take_back() {
                        dropped += d;
                        written += w;
                    }
                }
                HostEventKind::HmbEnable => {}
            }
            if matches!(
                kind,
                HostEventKind::SuspendResume | HostEventKind::PowerLoss
            ) {
                let (d, w) = self.map_power_off_sram();
                dropped += d;
                written += w;
            }
            if kind == HostEventKind::HmbEnable {
                let loads = self.map_nand_loads();
                self.host_events.as_mut().expect("host events").records[idx as usize]
                    .loads_at_end = loads;
                dropped += self.map_hmb_hand_back(mr);
            }
            let ev = self.host_events.as_mut().expect("host events");
            let r = &mut ev.records[idx as usize];
            r.dropped += dropped;
            r.written_back += written;
            if kind == HostEventKind::PowerLoss {
                // The recovery at power-on sets the outage's end.
                ev.blocked_until = Ns::MAX;
                let off = r
                    .cfg
                    .duration
                    .map_or(crate::config::host_events::DEFAULT_SLEEP_NS, |d| d.ns());
                self.power_loss_start(idx, off);
                return;
            }
            let end = now + outage;
            ev.blocked_until = ev.blocked_until.max(end);
            self.q.schedule(
                end,
                Event::HostEvent {
                    idx,
                    phase: PHASE_END,
                },
            );
        } else if phase == PHASE_CLOSE {
            let loads = self.map_nand_loads();
            let ev = self.host_events.as_mut().expect("host events");
            ev.records[idx as usize].loads_at_close = Some(loads);
        } else {
            // Loads counted from before the hand-back (an eager rebuild issues its own).
            let loads = self.map_nand_loads();
            if matches!(
                kind,
                HostEventKind::Reset | HostEventKind::SuspendResume | HostEventKind::PowerLoss
            ) {
                let d = self.map_hmb_hand_back(mr);
                self.host_events.as_mut().expect("host events").records[idx as usize].dropped += d;
            }
            if kind == HostEventKind::PowerLoss {
                let (stats, deferred) = self.power_loss_end();
                self.host_events.as_mut().expect("host events").records[idx as usize].power =
                    Some(stats);
                for i in deferred {
                    self.q.schedule(
                        now,
                        Event::HostEvent {
                            idx: i,
                            phase: PHASE_START,
                        },
                    );
                }
            }
            let ev = self.host_events.as_mut().expect("host events");
            let r = &mut ev.records[idx as usize];
            r.end_ns = now;
            if kind != HostEventKind::HmbEnable {
                r.loads_at_end = loads; // an enable counted them at its start
            }
            let close = now + r.cfg.window_ns() * r.cfg.windows() as u64;
            self.q.schedule(
                close,
                Event::HostEvent {
                    idx,
                    phase: PHASE_CLOSE,
                },
            );
            // The fetch engine looks at its queues again.
            self.fetch();
        }
    }

    /// Is the fetch engine held by an outage? Schedules the kick for its end.
    #[inline]
    pub(super) fn fetch_held(&mut self) -> bool {
        let Some(ev) = &self.host_events else {
            return false;
        };
        let until = ev.blocked_until;
        if self.now() >= until {
            return false;
        }
        if until == Ns::MAX {
            return true; // a power-on recovery: its end fetches
        }
        if self.nvme.kick_needed(until) {
            self.q.schedule(until, Event::FetchKick);
        }
        true
    }

    /// A host command completed: count it in the events' windows.
    #[inline]
    pub(super) fn host_events_complete(&mut self, submit: Ns, fetch: Ns) {
        let now = self.now();
        if let Some(ev) = &mut self.host_events {
            ev.on_complete(now, submit, fetch);
        }
    }

    pub(super) fn host_event_stats(&self) -> Option<Vec<HostEventStats>> {
        let loads = self.map.as_ref().map_or(0, |m| m.nand_loads());
        self.host_events.as_ref().map(|e| e.stats(loads))
    }

    fn map_nand_loads(&self) -> u64 {
        self.map.as_ref().map_or(0, |m| m.nand_loads())
    }
}
