//! An asynchronous host interface: an outside program (the NBD server of `ssdlab
//! serve`) submits host requests at the current simulated time, any number of them
//! outstanding at once, and advances the simulation to a time of its choosing,
//! taking back the requests that completed with their completion times.
//!
//! A request is split into commands of at most `max_io_bytes` (deallocate: 1 GiB), all
//! submitted at once through the same NVMe/PCIe path as a job's; it completes when
//! its last command does. Simplified: a flush is a barrier, complete once every
//! write submitted before it has completed; the write buffer is taken as power-loss
//! protected, so a flush neither pads the open stripes nor waits for programs (the
//! probes' `Session::flush` drains the buffer, which later writes would keep
//! extending). The flush command's own fetch and completion are not timed.

use super::{Io, Ssd};
use crate::config::{ConfigError, DeviceConfig, WorkloadConfig};
use crate::sim::{Event, Ns};
use crate::workload::OpKind;
use std::collections::{BTreeSet, HashMap};

/// The largest deallocate range sent in one command.
const TRIM_CMD_BYTES: u64 = 1 << 30;

/// A request that has completed: its id, when it was submitted and when the host saw
/// its completion (simulated ns).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    pub id: u64,
    pub submit_ns: Ns,
    pub done_ns: Ns,
}

struct Pending {
    submit_ns: Ns,
    commands_left: u32,
}

struct Flush {
    id: u64,
    submit_ns: Ns,
    /// Writes (request ids) outstanding when the flush was submitted.
    waits_for: BTreeSet<u64>,
}

pub struct AsyncSession {
    ssd: Ssd,
    /// Largest command a read or write request is split into (Linux `max_sectors_kb`).
    pub max_io_bytes: u64,
    next_id: u64,
    /// Command id -> request id, for commands in flight.
    cmd_req: HashMap<u32, u64>,
    pending: HashMap<u64, Pending>,
    /// Outstanding write and deallocate requests (what a flush waits for).
    writes: BTreeSet<u64>,
    flushes: Vec<Flush>,
    done: Vec<Completion>,
    origin_ns: Ns,
}

impl AsyncSession {
    /// Build and prepare the device (`opts.state` as for a run); no I/O is issued yet.
    pub fn new(cfg: DeviceConfig, opts: super::RunOptions) -> Result<AsyncSession, ConfigError> {
        let w: WorkloadConfig = serde_json::from_str("{}").map_err(|e| ConfigError {
            source: "session".into(),
            message: e.to_string(),
        })?;
        let mut ssd = Ssd::new(cfg, w, opts)?;
        ssd.jobs[0].external = true;
        let origin_ns = ssd.now();
        ssd.window.open(origin_ns, &ssd.ftl.stats);
        Ok(AsyncSession {
            ssd,
            max_io_bytes: 128 << 10,
            next_id: 0,
            cmd_req: HashMap::new(),
            pending: HashMap::new(),
            writes: BTreeSet::new(),
            flushes: Vec::new(),
            done: Vec::new(),
            origin_ns,
        })
    }

    pub fn capacity_bytes(&self) -> u64 {
        self.ssd.cfg.capacity_bytes()
    }

    pub fn now_ns(&self) -> Ns {
        self.ssd.now()
    }

    /// Requests (and flushes) submitted and not yet completed.
    pub fn outstanding(&self) -> usize {
        self.pending.len() + self.flushes.len()
    }

    /// Completions waiting to be taken by `advance` (a flush with nothing to wait for
    /// completes at once, with no event to wake the caller).
    pub fn has_completions(&self) -> bool {
        !self.done.is_empty()
    }

    /// When the next simulated event is due (None: nothing will ever happen again).
    pub fn next_event_ns(&self) -> Option<Ns> {
        self.ssd.q.peek_time()
    }

    /// Submit a read, write or deallocate of `len` bytes at `offset` now; returns its id.
    pub fn submit(&mut self, kind: OpKind, offset: u64, len: u64) -> Result<u64, String> {
        let what = match kind {
            OpKind::Read => "read",
            OpKind::Write => "write",
            OpKind::Trim => "deallocate",
        };
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
        let cmd_bytes = match kind {
            OpKind::Trim => TRIM_CMD_BYTES,
            _ => self.max_io_bytes,
        };
        let id = self.next_id;
        self.next_id += 1;
        let mut next = offset;
        let mut commands = 0;
        while next < offset + len {
            let l = cmd_bytes.min(offset + len - next);
            let cmd = self.ssd.submit_io(
                0,
                Io {
                    kind,
                    offset: next,
                    len: l,
                },
            );
            self.cmd_req.insert(cmd, id);
            commands += 1;
            next += l;
        }
        self.pending.insert(
            id,
            Pending {
                submit_ns: self.ssd.now(),
                commands_left: commands,
            },
        );
        if kind != OpKind::Read {
            self.writes.insert(id);
        }
        Ok(id)
    }

    /// Submit a flush now (a barrier on the writes outstanding); returns its id.
    pub fn submit_flush(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let now = self.ssd.now();
        if self.writes.is_empty() {
            self.done.push(Completion {
                id,
                submit_ns: now,
                done_ns: now,
            });
        } else {
            self.flushes.push(Flush {
                id,
                submit_ns: now,
                waits_for: self.writes.clone(),
            });
        }
        id
    }

    /// Run every event due at or before `until_ns` and move the clock there; returns
    /// the requests that completed (in completion order), or a model error if
    /// requests are outstanding but nothing is left to happen.
    pub fn advance(&mut self, until_ns: Ns) -> Result<Vec<Completion>, String> {
        let until = until_ns.max(self.ssd.now());
        while let Some(t) = self.ssd.q.peek_time() {
            if t > until {
                break;
            }
            let ev = self.ssd.q.pop().expect("peeked");
            if let Event::HostComplete { cmd } = ev {
                if let Some(id) = self.cmd_req.remove(&cmd) {
                    self.command_done(id);
                }
            }
            self.ssd.dispatch(ev);
        }
        if self.ssd.q.is_empty() && !self.pending.is_empty() {
            return Err(format!(
                "the simulated device stalled with {} requests outstanding at {} ns \
                 (a model error: please report it with the device file; {})",
                self.pending.len(),
                self.ssd.now(),
                self.ssd.stall_state()
            ));
        }
        self.ssd.q.advance_to(until);
        Ok(std::mem::take(&mut self.done))
    }

    fn command_done(&mut self, id: u64) {
        let p = self.pending.get_mut(&id).expect("a pending request");
        p.commands_left -= 1;
        if p.commands_left > 0 {
            return;
        }
        let now = self.ssd.now();
        let submit_ns = p.submit_ns;
        self.pending.remove(&id);
        self.done.push(Completion {
            id,
            submit_ns,
            done_ns: now,
        });
        if self.writes.remove(&id) {
            let done = &mut self.done;
            self.flushes.retain_mut(|f| {
                f.waits_for.remove(&id);
                if f.waits_for.is_empty() {
                    done.push(Completion {
                        id: f.id,
                        submit_ns: f.submit_ns,
                        done_ns: now,
                    });
                }
                !f.waits_for.is_empty()
            });
        }
    }

    /// The device's report since the session started, in `ssdlab run`'s keys (the
    /// host's requests as one job; `wall_time_s` as given).
    pub fn report(&mut self, wall_time_s: f64) -> serde_json::Value {
        let now = self.ssd.now();
        let st = &mut self.ssd.jobs[0].stats;
        st.start_ns = self.origin_ns;
        st.end_ns = now;
        self.ssd.jobs[0].name = "serve".into();
        let mut json = self.ssd.report(wall_time_s).json;
        // As `ssdlab run` reports them: values far outside what the cell or link can be.
        json["warnings"] = self.ssd.cfg.warnings().into();
        json
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{load_device, DeviceSpec};
    use crate::ftl::prep::DriveState;
    use crate::ssd::{RunOptions, Session};

    fn dev() -> DeviceConfig {
        load_device(&DeviceSpec::Preset("tiny-test".into()), &[]).unwrap()
    }

    fn opts() -> RunOptions {
        RunOptions {
            state: DriveState::Full,
            seed: 3,
            verify: false,
        }
    }

    fn run_all(s: &mut AsyncSession) -> Vec<Completion> {
        let mut out = Vec::new();
        while s.outstanding() > 0 {
            let t = s.next_event_ns().expect("events while outstanding");
            out.extend(s.advance(t).unwrap());
        }
        out
    }

    #[test]
    fn one_request_at_a_time_times_as_the_probe_session_does() {
        let mut a = AsyncSession::new(dev(), opts()).unwrap();
        let mut s = Session::with_options(dev(), opts()).unwrap();
        for (i, kind) in [OpKind::Read, OpKind::Write, OpKind::Read, OpKind::Trim]
            .into_iter()
            .enumerate()
        {
            let off = (i as u64 * 7919 * 4096) % (16 << 20);
            let want = s.request(kind, off, 256 << 10).unwrap();
            let now = a.now_ns();
            let id = a.submit(kind, off, 256 << 10).unwrap();
            let c = run_all(&mut a);
            assert_eq!(c.len(), 1);
            assert_eq!(c[0].id, id);
            assert_eq!(c[0].submit_ns, now);
            assert_eq!(
                c[0].done_ns - c[0].submit_ns,
                want,
                "request {i} ({kind:?})"
            );
            // The probe session runs on from its last completion; stay in step.
            a.advance(s.now_ns()).unwrap();
        }
    }

    #[test]
    fn overlapping_requests_complete_later_than_alone_and_in_time_order() {
        let mut a = AsyncSession::new(dev(), opts()).unwrap();
        let id = a.submit(OpKind::Read, 0, 4096).unwrap();
        let alone = run_all(&mut a)[0];
        assert_eq!(alone.id, id);
        let t0 = a.now_ns() + 1_000_000;
        a.advance(t0).unwrap();
        assert_eq!(a.now_ns(), t0);
        // Eight reads at once on the same die: queueing makes the last one slower.
        let ids: Vec<u64> = (0..8)
            .map(|_| a.submit(OpKind::Read, 0, 4096).unwrap())
            .collect();
        let c = run_all(&mut a);
        assert_eq!(c.len(), 8);
        let mut got: Vec<u64> = c.iter().map(|c| c.id).collect();
        got.sort_unstable();
        assert_eq!(got, ids);
        assert!(c.windows(2).all(|w| w[0].done_ns <= w[1].done_ns));
        assert!(c.iter().all(|c| c.submit_ns == t0));
        let alone_ns = alone.done_ns - alone.submit_ns;
        assert!(c.last().unwrap().done_ns - t0 > alone_ns);
    }

    #[test]
    fn a_flush_waits_for_earlier_writes_only() {
        let mut a = AsyncSession::new(dev(), opts()).unwrap();
        let f0 = a.submit_flush();
        let c = a.advance(a.now_ns()).unwrap();
        assert_eq!(
            c,
            vec![Completion {
                id: f0,
                submit_ns: 0,
                done_ns: 0
            }]
        );
        let w = a.submit(OpKind::Write, 0, 128 << 10).unwrap();
        let r = a.submit(OpKind::Read, 1 << 20, 4096).unwrap();
        let f = a.submit_flush();
        let c = run_all(&mut a);
        let at = |id: u64| c.iter().find(|c| c.id == id).unwrap().done_ns;
        assert_eq!(at(f), at(w));
        assert!(at(r) > 0);
    }

    #[test]
    fn bad_requests_are_refused_with_the_reason() {
        let mut a = AsyncSession::new(dev(), opts()).unwrap();
        let cap = a.capacity_bytes();
        let e = a.submit(OpKind::Read, 100, 4096).unwrap_err();
        assert!(e.contains("multiples of 512"), "{e}");
        let e = a.submit(OpKind::Write, cap - 4096, 8192).unwrap_err();
        assert!(e.contains("past the end"), "{e}");
        assert_eq!(a.outstanding(), 0);
    }

    #[test]
    fn the_report_counts_the_requests() {
        let mut a = AsyncSession::new(dev(), opts()).unwrap();
        for i in 0..10 {
            a.submit(OpKind::Read, i * 4096, 4096).unwrap();
        }
        run_all(&mut a);
        let r = a.report(0.5);
        assert_eq!(r["read"]["total_ios"], 10);
        assert_eq!(r["wall_time_s"], 0.5);
        assert!(r["read"]["iops"].as_f64().unwrap() > 0.0);
    }
}
