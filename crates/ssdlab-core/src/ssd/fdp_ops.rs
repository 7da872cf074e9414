//! FDP's I/O Management Send from a workload (`fdp_ops`) or a trace (csv `RU`): a
//! Reclaim Unit Handle Update (management operation 01h) at a set time, submitted through the same NVMe
//! path as the host's I/O (fetched, decoded by a core), then applied by the FTL
//! (`Ftl::ruh_update`): each listed placement ID's handle pads its open blocks to a
//! program boundary and leaves them, so its next write starts an empty reclaim unit.
//! A reclaim unit left partly written is a Reclaim Unit Not Fully Written event.
//!
//! The RU time limit (`fdp.ru_time_limit`): when a handle's write lands in a reclaim
//! unit it had not written before, a timer starts; if the handle still references that
//! unit when it runs out, the controller moves it to an empty one the same way (a
//! Reclaim Unit Time Limit Exceeded event).
//!
//! Simplifies: one command carries all of an operation's placement IDs, as NVMe's
//! does, and takes one slot of the sending job's iodepth while it runs; the update
//! is applied when the firmware has decoded the command, with no time of its own
//! beyond the pad programs it queues (the completion does not wait for them);
//! operations due after the run's jobs have ended are not sent; I/O Management
//! Receive (the Reclaim Unit Handle Status a host reads) is not modelled: the report's
//! `device.fdp` gives what it would show at the end.

use super::{Origin, Ssd};
use crate::sim::{Event, Ns};
use crate::workload::{Io, OpKind};
use std::collections::HashMap;

/// The FDP commands and timers of a run.
#[derive(Default)]
pub(super) struct FdpCmds {
    /// I/O Management Sends in flight: their reclaim-unit handle slots.
    pending: HashMap<u32, Vec<u32>>,
    /// The RU time limit (0: none), and per placement slot the reclaim unit whose
    /// timer runs (u32::MAX: none yet).
    limit_ns: Ns,
    timed: Vec<u32>,
}

impl FdpCmds {
    pub(super) fn new(cfg: &crate::config::DeviceConfig) -> Self {
        let Some(f) = &cfg.fdp else {
            return Self::default();
        };
        FdpCmds {
            pending: HashMap::new(),
            limit_ns: f.ru_time_limit.ns(),
            timed: vec![u32::MAX; (f.reclaim_groups * f.handles) as usize],
        }
    }
}

impl Ssd {
    /// Schedule the workload's `fdp_ops` (a drive with `[fdp]`; at the start of the run).
    pub(super) fn schedule_fdp_ops(&mut self) {
        if self.ftl.fdp.is_none() {
            return;
        }
        let ats: Vec<u64> = self
            .job_cfgs
            .iter()
            .flat_map(|w| w.fdp_ops.iter().map(|o| o.at.ns()))
            .collect();
        self.schedule_at_times(ats, |idx| Event::FdpOp { idx });
    }

    /// I/O Management Send `idx` of the run's `fdp_ops` is due: submit it.
    pub(super) fn fdp_op_due(&mut self, idx: u32) {
        let Some(op) = self
            .job_cfgs
            .iter()
            .flat_map(|w| w.fdp_ops.iter())
            .nth(idx as usize)
            .cloned()
        else {
            return;
        };
        let Some(job) = self.first_running_job() else {
            return; // the run is over
        };
        self.submit_ruh_update(job, &op.pids);
    }

    /// Submit a Reclaim Unit Handle Update of placement IDs `pids` as a command of
    /// job `job` (a workload's `fdp_ops`, a trace's `RU` line).
    pub(super) fn submit_ruh_update(&mut self, job: u32, pids: &[u32]) {
        let slots: Vec<u32> = pids.iter().map(|&p| self.ftl.resolve_pid(p)).collect();
        let io = Io {
            kind: OpKind::Trim,
            offset: 0,
            len: 0,
        };
        let cmd = self.submit_cmd(job, io, Origin::IoMgmt);
        self.fdp_cmds.pending.insert(cmd, slots);
    }

    /// The firmware has decoded I/O Management Send `cmd`: update the handles, queue
    /// the pad programs, complete it.
    pub(super) fn io_mgmt_ready(&mut self, cmd: u32) {
        let slots = self.fdp_cmds.pending.remove(&cmd).unwrap_or_default();
        for slot in slots {
            let pads = self.ftl.ruh_update(slot);
            self.program_pads(pads);
        }
        self.post_completion(cmd, self.now());
    }

    fn program_pads(&mut self, pads: Vec<(u64, crate::ftl::FullStripe)>) {
        for (pad, stripe) in pads {
            self.buffer.take(pad);
            self.queue_program(stripe, false);
        }
    }

    /// A write of placement slot `slot` was placed: start the RU time limit of the
    /// reclaim unit its handle now references, if it has not started.
    #[inline]
    pub(super) fn ru_time_check(&mut self, slot: u32) {
        if self.fdp_cmds.limit_ns == 0 {
            return;
        }
        let slot = crate::ftl::fdp::slot_of(slot);
        let gen = self.ftl.ru_generation(slot);
        let t = &mut self.fdp_cmds.timed[slot as usize];
        if *t != gen {
            *t = gen;
            let at = self.now() + self.fdp_cmds.limit_ns;
            self.q.schedule(at, Event::FdpRuLimit { slot, gen });
        }
    }

    /// Slot `slot`'s RU time limit for reclaim unit `gen` ran out.
    pub(super) fn ru_time_limit_due(&mut self, slot: u32, gen: u32) {
        let pads = self.ftl.ru_time_limit(slot, gen);
        self.program_pads(pads);
    }
}
