//! A host-driven session: the device lives across requests and an outside program
//! (seed 002's probes) submits one host request at a time and reads back how long
//! it took, in simulated nanoseconds, through the same NVMe/PCIe path as any job.
//!
//! A request of `len` bytes is split, as the Linux block layer does, into commands
//! of at most `max_io_bytes` that are all submitted at once (up to
//! `max_outstanding`); its time runs from submission to the last completion.
//! Between requests the host thinks for no time unless `idle` is called, during
//! which background work (GC, SLC folding) may run. `flush` pads the open stripes and
//! waits until the write buffer has been programmed, as an NVMe Flush does.
//! Simplified: the flush command's own fetch and completion are not timed (only the
//! drain); deallocate goes in commands of at most 1 GiB.

use super::{Io, Ssd};
use crate::config::{ConfigError, DeviceConfig, WorkloadConfig};
use crate::ftl::prep::DriveState;
use crate::sim::Ns;
use crate::workload::OpKind;

/// The largest deallocate range sent in one command.
const TRIM_CMD_BYTES: u64 = 1 << 30;

pub struct Session {
    ssd: Ssd,
    /// Largest command a request is split into (Linux `max_sectors_kb`).
    pub max_io_bytes: u64,
    /// Commands of one request outstanding at once (the block layer's queue).
    pub max_outstanding: u32,
    /// Host requests and commands issued so far.
    pub requests: u64,
}

impl Session {
    /// Build and prepare the device (`state` as for a run); no I/O is issued yet.
    pub fn new(cfg: DeviceConfig, state: DriveState, seed: u64) -> Result<Session, ConfigError> {
        Self::with_options(
            cfg,
            super::RunOptions {
                state,
                seed,
                verify: false,
            },
        )
    }

    /// As `new`, with every run option (`verify` keeps the read oracle).
    pub fn with_options(
        cfg: DeviceConfig,
        opts: super::RunOptions,
    ) -> Result<Session, ConfigError> {
        let w: WorkloadConfig = serde_json::from_str("{}").map_err(|e| ConfigError {
            source: "session".into(),
            message: e.to_string(),
        })?;
        let mut ssd = Ssd::new(cfg, w, opts)?;
        ssd.jobs[0].external = true;
        Ok(Session {
            ssd,
            max_io_bytes: 128 << 10,
            max_outstanding: 1024,
            requests: 0,
        })
    }

    pub fn capacity_bytes(&self) -> u64 {
        self.ssd.cfg.capacity_bytes()
    }

    pub fn now_ns(&self) -> Ns {
        self.ssd.now()
    }

    /// HMB the host granted at initialisation (what the host itself allocated).
    pub fn hmb_granted_bytes(&self) -> u64 {
        self.ssd.cfg.hmb_layout().granted_bytes
    }

    fn check(&self, what: &str, offset: u64, len: u64) -> Result<(), String> {
        let cap = self.capacity_bytes();
        if len == 0 || !offset.is_multiple_of(512) || !len.is_multiple_of(512) {
            return Err(format!(
                "{what}: offset {offset} and length {len} must be multiples of 512 (length > 0)"
            ));
        }
        if offset.checked_add(len).is_none_or(|e| e > cap) {
            return Err(format!(
                "{what}: {offset} + {len} runs past the end of the device ({cap} bytes)"
            ));
        }
        Ok(())
    }

    /// One host request; returns its time in ns.
    pub fn request(&mut self, kind: OpKind, offset: u64, len: u64) -> Result<Ns, String> {
        let what = match kind {
            OpKind::Read => "read",
            OpKind::Write => "write",
            OpKind::Trim => "deallocate",
        };
        self.check(what, offset, len)?;
        let cmd = match kind {
            OpKind::Trim => TRIM_CMD_BYTES,
            _ => self.max_io_bytes,
        };
        self.run_request(kind, offset, len, cmd)
    }

    /// Reads of `len` bytes at each offset, one after another; the time of each.
    pub fn read_many(&mut self, offsets: &[u64], len: u64) -> Result<Vec<Ns>, String> {
        for &o in offsets {
            self.check("read", o, len)?;
        }
        let cmd = self.max_io_bytes;
        offsets
            .iter()
            .map(|&o| self.run_request(OpKind::Read, o, len, cmd))
            .collect()
    }

    fn run_request(
        &mut self,
        kind: OpKind,
        offset: u64,
        len: u64,
        cmd_bytes: u64,
    ) -> Result<Ns, String> {
        self.requests += 1;
        let ssd = &mut self.ssd;
        let start = ssd.now();
        let end = offset + len;
        let mut next = offset;
        loop {
            while next < end && ssd.jobs[0].inflight < self.max_outstanding {
                let l = cmd_bytes.min(end - next);
                ssd.submit_io(
                    0,
                    Io {
                        kind,
                        offset: next,
                        len: l,
                    },
                );
                next += l;
            }
            if next >= end && ssd.jobs[0].inflight == 0 {
                break;
            }
            let Some(ev) = ssd.q.pop() else {
                return Err(format!(
                    "the simulated device stalled with {} commands outstanding at {} ns \
                     (a model error: please report it with the device file; {})",
                    ssd.jobs[0].inflight,
                    ssd.now(),
                    ssd.stall_state()
                ));
            };
            ssd.dispatch(ev);
        }
        Ok(ssd.now() - start)
    }

    /// Pad the open stripes and wait until the write buffer is programmed.
    pub fn flush(&mut self) -> Ns {
        let ssd = &mut self.ssd;
        let start = ssd.now();
        ssd.pad_open_stripes();
        while ssd.buffer.used_units() > 0 || !ssd.alloc_waiters.is_empty() {
            let Some(ev) = ssd.q.pop() else { break };
            ssd.dispatch(ev);
        }
        ssd.now() - start
    }

    /// Let `ns` pass with no host I/O (background work runs).
    pub fn idle(&mut self, ns: Ns) {
        let ssd = &mut self.ssd;
        let until = ssd.now().saturating_add(ns);
        while let Some(t) = ssd.q.peek_time() {
            if t > until {
                break;
            }
            let ev = ssd.q.pop().expect("peeked");
            ssd.dispatch(ev);
        }
        ssd.q.advance_to(until);
    }

    /// The device's full report so far (for inspection and tests; a probe must not
    /// read the device's structure sizes from it).
    pub fn report(&self) -> serde_json::Value {
        self.ssd.report(0.0).json
    }
}
