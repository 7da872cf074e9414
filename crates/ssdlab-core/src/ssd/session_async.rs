//! An asynchronous host interface: an outside program (the NBD server of `ssdlab
//! serve`) submits host requests at the current simulated time, any number of them
//! outstanding at once, and advances the simulation to a time of its choosing,
//! taking back the requests that completed with their completion times.
//!
//! A request is split into commands of at most `max_io_bytes` (deallocate: 1 GiB), all
//! submitted at once through the same NVMe/PCIe path as a job's; it completes when
//! its last command does. A flush waits for every write and deallocate submitted
//! before it to complete, then sends an NVMe Flush, which completes once their data is
//! on NAND (`flush.rs`: the open stripes are padded and programmed). A FUA write is a
//! write followed by such a flush, as the Linux block layer issues one to a drive
//! without FUA support: it completes when its data is on NAND.

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
    /// A FUA write: a flush follows its commands.
    fua: bool,
}

struct Flush {
    id: u64,
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
    /// Flushes waiting for earlier writes before their Flush command goes out.
    flushes: Vec<Flush>,
    done: Vec<Completion>,
    origin_ns: Ns,
}

impl AsyncSession {
    /// Build and prepare the device (`opts.state` as for a run); no I/O is issued yet.
    pub fn new(cfg: DeviceConfig, opts: super::RunOptions) -> Result<AsyncSession, ConfigError> {
        if cfg.zns.is_some() {
            return Err(ConfigError {
                source: format!("device '{}'", cfg.name),
                message: "zns: a zoned drive cannot be served as a block device (NBD has no \
                          zones: its writes would not follow the write pointers)"
                    .into(),
            });
        }
        let w: WorkloadConfig = serde_json::from_str("{}").map_err(|e| ConfigError {
            source: "session".into(),
            message: e.to_string(),
        })?;
        let mut ssd = Ssd::new(cfg, w, opts)?;
        ssd.jobs[0].external = true;
        let origin_ns = ssd.now();
        ssd.window.open(origin_ns, &ssd.ftl.stats);
        ssd.power_measure_open(origin_ns);
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

    /// Give the session's writes placement IDs (a drive with `[fdp]`): by offset from
    /// `job.scheme` (fio's `dp_scheme`: NBD writes carry no directive), or in turn or
    /// at random from `job.plids`, as a workload's `fdp` table does. Err says why not.
    pub fn set_placement(
        &mut self,
        job: &crate::config::fdp::FdpJob,
        seed: u64,
    ) -> Result<(), String> {
        let name = self.ssd.cfg.name.clone();
        job.validate(self.ssd.cfg.fdp.as_ref(), &name)?;
        let dev = self.ssd.cfg.fdp.as_ref().expect("validated");
        self.ssd.jobs[0].placement = Some(Box::new(crate::workload::placement::PidSelect::new(
            job, dev, seed, 0,
        )));
        Ok(())
    }

    pub fn capacity_bytes(&self) -> u64 {
        self.ssd.cfg.capacity_bytes()
    }

    pub fn now_ns(&self) -> Ns {
        self.ssd.now()
    }

    /// Requests (and flushes) submitted and not yet completed.
    pub fn outstanding(&self) -> usize {
        self.pending.len()
    }

    /// Completions waiting to be taken by `advance`.
    pub fn has_completions(&self) -> bool {
        !self.done.is_empty()
    }

    /// When the next simulated event is due (None: nothing will ever happen again).
    pub fn next_event_ns(&self) -> Option<Ns> {
        self.ssd.q.peek_time()
    }

    /// Submit a read, write or deallocate of `len` bytes at `offset` now; returns its id.
    pub fn submit(&mut self, kind: OpKind, offset: u64, len: u64) -> Result<u64, String> {
        self.submit_request(kind, offset, len, false)
    }

    /// Submit a write with Force Unit Access: it completes once its data is on NAND.
    pub fn submit_fua_write(&mut self, offset: u64, len: u64) -> Result<u64, String> {
        self.submit_request(OpKind::Write, offset, len, true)
    }

    fn submit_request(
        &mut self,
        kind: OpKind,
        offset: u64,
        len: u64,
        fua: bool,
    ) -> Result<u64, String> {
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
                fua,
            },
        );
        if kind != OpKind::Read {
            self.writes.insert(id);
        }
        Ok(id)
    }

    /// Submit a flush now; returns its id. Its NVMe Flush goes out once the writes
    /// outstanding now have completed.
    pub fn submit_flush(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        self.pending.insert(
            id,
            Pending {
                submit_ns: self.ssd.now(),
                commands_left: 0,
                fua: false,
            },
        );
        if self.writes.is_empty() {
            self.send_flush(id);
        } else {
            self.flushes.push(Flush {
                id,
                waits_for: self.writes.clone(),
            });
        }
        id
    }

    /// Send the NVMe Flush of request `id` now.
    fn send_flush(&mut self, id: u64) {
        let cmd = self.ssd.submit_flush(0);
        self.cmd_req.insert(cmd, id);
        self.pending
            .get_mut(&id)
            .expect("a pending request")
            .commands_left += 1;
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
        if p.fua {
            p.fua = false;
            self.send_flush(id);
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
            let mut ready = Vec::new();
            self.flushes.retain_mut(|f| {
                f.waits_for.remove(&id);
                if f.waits_for.is_empty() {
                    ready.push(f.id);
                }
                !f.waits_for.is_empty()
            });
            for f in ready {
                self.send_flush(f);
            }
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

    /// Time from submission to completion of request `id` among `c`.
    fn took(c: &[Completion], id: u64) -> Ns {
        let c = c.iter().find(|c| c.id == id).expect("completed");
        c.done_ns - c.submit_ns
    }

    #[test]
    fn a_flush_on_an_empty_buffer_costs_a_command_without_data() {
        // The prepared drive has nothing buffered: the flush is a command that carries
        // no data, timed exactly as a deallocate (doorbell, fetch, 1 us of firmware,
        // completion entry), a few microseconds.
        let mut a = AsyncSession::new(dev(), opts()).unwrap();
        let t = a.submit(OpKind::Trim, 0, 4096).unwrap();
        let trim = took(&run_all(&mut a), t);
        let f = a.submit_flush();
        let flush = took(&run_all(&mut a), f);
        assert_eq!(flush, trim);
        assert!((1_000..10_000).contains(&flush), "{flush} ns");
    }

    #[test]
    fn a_flush_after_buffered_writes_waits_for_their_program() {
        // tiny-test: tPROG = 600 us. Three 4 KiB writes are acknowledged from the write
        // buffer in microseconds; their stripe is not full, so nothing is programmed
        // until the flush pads it. By hand, the flush takes: the command without data
        // (as a deallocate), the stripe's program command (t_cmd 100 ns), its 2 planes x
        // 16 KiB over an 8-bit 800 MT/s channel (32768 x 1.25 ns = 40.96 us) and tPROG.
        let mut a = AsyncSession::new(dev(), opts()).unwrap();
        let t = a.submit(OpKind::Trim, 1 << 20, 4096).unwrap();
        let command = took(&run_all(&mut a), t);
        let before = a.report(0.0)["device"]["nand"]["program_ops"]
            .as_u64()
            .unwrap();
        let ws: Vec<u64> = (0..3)
            .map(|i| a.submit(OpKind::Write, i * 4096, 4096).unwrap())
            .collect();
        let c = run_all(&mut a);
        for w in ws {
            assert!(
                took(&c, w) < 50_000,
                "a buffered write took {} ns",
                took(&c, w)
            );
        }
        let f = a.submit_flush();
        let c = run_all(&mut a);
        let by_hand = command + 100 + 40_960 + 600_000;
        let got = took(&c, f);
        assert!(
            got >= by_hand && got <= by_hand + 2_000,
            "flush took {got} ns, by hand {by_hand} ns"
        );
        let after = a.report(0.0)["device"]["nand"]["program_ops"]
            .as_u64()
            .unwrap();
        assert!(after > before, "{before} -> {after}");
        // Now nothing is buffered: the next flush costs a command again.
        let f = a.submit_flush();
        assert!(took(&run_all(&mut a), f) < 10_000);
    }

    #[test]
    fn a_flush_waits_for_earlier_writes_only() {
        let mut a = AsyncSession::new(dev(), opts()).unwrap();
        let w = a.submit(OpKind::Write, 0, 128 << 10).unwrap();
        let r = a.submit(OpKind::Read, 1 << 20, 4096).unwrap();
        let f = a.submit_flush();
        let c = run_all(&mut a);
        let at = |id: u64| c.iter().find(|c| c.id == id).unwrap().done_ns;
        assert!(at(f) > at(w));
        assert!(at(r) > 0);
        // A write submitted after the flush is not waited for.
        let f2 = a.submit_flush();
        let w2 = a.submit(OpKind::Write, 4 << 20, 128 << 10).unwrap();
        let c = run_all(&mut a);
        assert_eq!(c.len(), 2);
        let at = |id: u64| c.iter().find(|c| c.id == id).unwrap().done_ns;
        assert!(at(f2) < 10_000 + c[0].submit_ns, "{c:?}");
        assert!(at(w2) > 0);
    }

    #[test]
    fn a_fua_write_completes_once_programmed() {
        let mut a = AsyncSession::new(dev(), opts()).unwrap();
        let w = a.submit(OpKind::Write, 0, 4096).unwrap();
        let plain = took(&run_all(&mut a), w);
        let w = a.submit_fua_write(8192, 4096).unwrap();
        let fua = took(&run_all(&mut a), w);
        assert!(plain < 50_000, "{plain}");
        assert!(fua >= plain + 600_000, "plain {plain} ns, FUA {fua} ns");
        let r = a.report(0.0);
        assert_eq!(r["write"]["total_ios"], 2);
        assert_eq!(r["jobs"][0]["sync"]["total_ios"], 1);
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
