//! The host interface: NVMe submission queues and doorbells, the fetch engine
//! (arbitration and SQE fetch reads over PCIe) and completion entries back to the
//! host (through the fabric for a drive behind a target).
//!
//! Simplifies: a doorbell write is one small TLP down per command; completion
//! queues never fill; interrupts are not modelled (the host sees a completion when
//! its entry lands).

use super::{map, Origin, Ssd};
use crate::host::DOORBELL_BYTES;
use crate::sim::{Event, Ns};

impl Ssd {
    /// Write the command into its submission queue, or hold it while the queue is full.
    #[inline]
    pub(super) fn queue_command(&mut self, cmd: u32) {
        let sq = self.cmds.get(cmd).sq;
        if self.nvme.has_room(sq) {
            self.enqueue_sq(cmd, sq);
        } else {
            self.nvme.hold(sq, cmd);
        }
    }

    /// Write the command into its submission queue and ring the doorbell.
    pub(super) fn enqueue_sq(&mut self, cmd: u32, sq: u32) {
        let now = self.now();
        // A sleeping drive (power states): the doorbell crosses once the link and the
        // controller are awake, so the whole wake-up is in the command's latency.
        let wake = self.awake_at.saturating_sub(now);
        let visible = self.pcie.send_down(now, DOORBELL_BYTES) + wake;
        self.nvme.post(sq, cmd, visible);
        if self.nvme.can_fetch() && self.nvme.kick_needed(visible) {
            self.q.schedule(visible, Event::FetchKick);
        }
    }

    /// The fetch engine issues fetch reads while it has slots and commands are visible.
    pub(super) fn fetch(&mut self) {
        if self.fetch_held() {
            return; // a reset or power cycle: nothing is fetched before it ends
        }
        let now = self.now();
        while self.nvme.can_fetch() {
            match self.nvme.arbitrate(now) {
                Ok((sq, count)) => {
                    let back = self
                        .pcie
                        .read_host(now, 0, count as u64 * crate::host::SQE_BYTES);
                    self.nvme.fetch_issued();
                    self.q.schedule(back, Event::FetchDone { sq, count });
                }
                Err(Some(t)) => {
                    if self.nvme.kick_needed(t) {
                        self.q.schedule(t, Event::FetchKick);
                    }
                    return;
                }
                Err(None) => return,
            }
        }
    }

    pub(super) fn fetch_done(&mut self, sq: u32, count: u32) {
        let now = self.now();
        for _ in 0..count {
            let cmd = self.nvme.take_fetched(sq);
            self.cmds.get_mut(cmd).fetch_ns = now;
            let ready = self.cores.process(sq, now);
            self.q.schedule(ready, Event::CmdReady { cmd });
        }
        self.nvme.fetch_done();
        self.fetch();
    }

    /// Finish a command: post its completion entry after `data_ready`.
    pub(super) fn post_completion(&mut self, cmd: u32, data_ready: Ns) {
        let c = *self.cmds.get(cmd);
        if c.job == map::INTERNAL_JOB {
            self.cmds.remove(cmd); // a map write-back or a held write: nobody to tell
            if c.origin == Origin::MapFlush {
                self.map_flush_done(c.offset);
            }
            return;
        }
        if self.write_part_done(cmd, data_ready) {
            return; // a part of a larger write: its parent tells the host
        }
        let at_host = self
            .pcie
            .send_up(data_ready.max(self.now()), crate::host::CQE_BYTES);
        if self.remote.is_some() {
            // The completion reached the target; back through the fabric to the host.
            self.remote_backward(cmd, c.sq, at_host, c.kind, c.len);
            return;
        }
        let seq = self.q.reserve_seq();
        self.host_sees_completion(cmd, c.sq, at_host, seq);
    }

    /// The completion of `cmd` (queue `sq`) reached host memory at `at_host`: the
    /// host sees it when the queue's interrupt handler has run (`seq`: the event's
    /// queue sequence number, taken when the completion was posted).
    pub(super) fn host_sees_completion(&mut self, cmd: u32, sq: u32, at_host: Ns, seq: u64) {
        let mut at_host = at_host;
        if let Some(free) = self.irq_free_at.get_mut(sq as usize) {
            // The queue's interrupt handler runs on its CPU, one completion at a time.
            let start = at_host.max(*free);
            *free = start + self.irq_per_io;
            at_host = *free;
        }
        self.q
            .schedule_seq(at_host, seq, Event::HostComplete { cmd });
    }
}
