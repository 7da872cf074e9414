//! Host Flush (NVMe Flush): the command completes once every write the drive had
//! acknowledged when it was processed is on NAND. The drive's write buffer is
//! volatile: an acknowledged write may sit in it, in a stripe that waits for more data.
//!
//! A flush travels as any command (doorbell, SQE fetch, firmware, completion entry),
//! carrying no data. When the firmware has it, writes still waiting for a free block
//! are placed first (as a trim waits for them); then every die's open host stripes are
//! padded to their program boundary and queued (as `Session::flush` does), and the
//! flush waits until each die has finished the host programs queued up to then. Host
//! programs run in queue order on a die, so a count per die is the mark.
//!
//! Simplified: the map's journal and cached map segments are not made durable (a
//! recovery after a power loss rebuilds the map from NAND: power_loss.rs); padding
//! takes buffer room the program returns.

use super::{Io, Origin, Ssd};
use crate::workload::OpKind;

/// Host programs queued and finished per die, and the flushes waiting for programs.
pub(super) struct Flushes {
    pub(super) queued: Vec<u64>,
    done: Vec<u64>,
    /// (command, the per-die count of host programs it waits for).
    waiting: Vec<(u32, Vec<u64>)>,
}

impl Flushes {
    pub(super) fn new(dies: u32) -> Flushes {
        Flushes {
            queued: vec![0; dies as usize],
            done: vec![0; dies as usize],
            waiting: Vec::new(),
        }
    }

    #[inline]
    pub(super) fn program_queued(&mut self, die: u32) {
        self.queued[die as usize] += 1;
    }

    pub(super) fn met(&self, mark: &[u64]) -> bool {
        self.done.iter().zip(mark).all(|(d, m)| d >= m)
    }
}

impl Ssd {
    /// Submit a Flush for `job` now, through the NVMe path; returns its command id.
    pub(super) fn submit_flush(&mut self, job: u32) -> u32 {
        let io = Io {
            kind: OpKind::Write,
            offset: 0,
            len: 0,
        };
        self.submit_cmd(job, io, Origin::HostFlush)
    }

    /// Pad every die's open host stripes (native and SLC) so that all data placed so
    /// far is queued for programming; the pad units take buffer room.
    pub(super) fn pad_open_stripes(&mut self) {
        for die in 0..self.geo.dies {
            for (pad, stripe) in self.ftl.pad_host_frontiers(die) {
                if self.ftl.is_map_block(stripe.block) {
                    self.map_stripe_room[die as usize] += pad as u32;
                }
                self.buffer.take(pad);
                self.queue_program(stripe, false);
            }
        }
    }

    /// The firmware has the flush: place held writes first, then pad and wait.
    pub(super) fn flush_ready(&mut self, cmd: u32) {
        if !self.alloc_waiters.is_empty() {
            self.trim_waiters.push_back(cmd);
            return;
        }
        self.pad_open_stripes();
        let mark = self.flushes.queued.clone();
        if self.flushes.met(&mark) {
            self.post_completion(cmd, self.now());
        } else {
            self.flushes.waiting.push((cmd, mark));
        }
    }

    /// A host program finished on `die`: complete the flushes it was the last for.
    #[inline]
    pub(super) fn host_program_done(&mut self, die: u32) {
        self.flushes.done[die as usize] += 1;
        if self.power_cut.is_some() {
            self.power_dump_check();
        }
        if self.flushes.waiting.is_empty() {
            return;
        }
        let mut i = 0;
        while i < self.flushes.waiting.len() {
            if self.flushes.met(&self.flushes.waiting[i].1) {
                let (cmd, _) = self.flushes.waiting.remove(i);
                self.post_completion(cmd, self.now());
            } else {
                i += 1;
            }
        }
    }
}
