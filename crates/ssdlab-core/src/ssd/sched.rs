//! Flash scheduling on the device's timeline: which policy picks a die's next
//! operation, when a host read suspends a program or erase, and when adaptive
//! program delay holds a program for an expected read.
//!
//! Suspend: a read arriving at a die in tPROG (never during data-in) or tBERS
//! stops the operation after `t_suspend`; the die then serves the waiting host
//! reads and resumes with the remaining array time plus `t_resume`. A read refused
//! during data-in may suspend the program as soon as its array phase starts. At
//! most `max_suspends` per operation, and never when the operation would finish
//! before it could be stopped. A suspension serves every read waiting on the die
//! before the resume, or at most `reads_per_suspend` read operations (seed 003's
//! bounded suspends). With `program_loops` / `erase_loops` the array time is a
//! sequence of equal program-verify (erase-verify) loops, and a suspend loses the loop
//! under way: the resumed operation runs it again (its array time so far, rounded down
//! to whole loops, is kept), then the rest, after `t_resume`. Simplifies: GC reads do
//! not suspend; loops are of equal length.

use super::stats::{AdaptiveStats, SchedStats, SuspendMechanismStats};
use super::Ssd;
use crate::config::scheduling::{HoldTime, SchedPolicy, SchedulerConfig};
use crate::config::GcPacing;
use crate::controller::{AdaptiveDelay, Decision, Pick};
use crate::nand::{DieStage, Suspended};
use crate::sim::Ns;

#[derive(Clone, Debug, Default)]
struct SchedCounters {
    program_suspends: u64,
    erase_suspends: u64,
    refused_during_data_in: u64,
    refused_at_limit: u64,
    /// Time operations spent suspended (reads served meanwhile included).
    suspended_ns: u64,
    /// Suspend and resume overheads added to operations.
    overhead_ns: u64,
    /// Read operations served while their die's program or erase was suspended.
    suspend_reads: u64,
    /// Host read data-outs that found their channel reserved by a program's data-in,
    /// and the time they waited for the bus in all.
    reads_behind_data_in: u64,
    data_in_wait_ns: u64,
    /// Die time spent holding programs (answered or expired holds).
    hold_idle_ns: u64,
    /// Array time run again after suspends: the loops they interrupted.
    loop_redo_ns: u64,
    /// GC reads served on a die whose program was held (the hold went on after them).
    hold_gc_reads: u64,
}

/// A die's program or erase array work, for the loop model: its whole array time, and
/// what was left of it when its current stage began (a resumed stage first spends
/// `t_resume`, which does no array work).
#[derive(Clone, Copy, Debug, Default)]
struct ArrayWork {
    total_ns: Ns,
    left_at_start_ns: Ns,
}

pub(super) struct SchedState {
    policy: SchedPolicy,
    program_suspend: bool,
    erase_suspend: bool,
    t_suspend_ns: Ns,
    t_resume_ns: Ns,
    max_suspends: u32,
    /// Read operations a suspension serves before the resume (0: all waiting).
    reads_per_suspend: u32,
    /// Read operations each die's current suspension has served.
    served: Vec<u32>,
    /// Program-verify and erase-verify loops per operation (0: no loop model).
    program_loops: u32,
    erase_loops: u32,
    /// Each die's program or erase array work (only with a loop model).
    array: Vec<ArrayWork>,
    /// Adaptive delay: when each die's current hold ends (it goes on after GC reads
    /// served during it); 0 when none.
    hold_until: Vec<Ns>,
    /// Report the mechanism counters (seed 003's options are in use).
    mechanism: bool,
    seq: u32,
    adaptive: Option<AdaptiveDelay>,
    c: SchedCounters,
}

impl SchedState {
    pub fn new(cfg: &SchedulerConfig, dies: u32) -> Self {
        SchedState {
            policy: cfg.policy,
            program_suspend: cfg.program_suspend,
            erase_suspend: cfg.erase_suspend,
            t_suspend_ns: cfg.t_suspend.ns(),
            t_resume_ns: cfg.t_resume.ns(),
            max_suspends: cfg.max_suspends,
            reads_per_suspend: cfg.reads_per_suspend,
            served: vec![0; dies as usize],
            program_loops: cfg.program_loops,
            erase_loops: cfg.erase_loops,
            hold_until: if cfg.policy == SchedPolicy::AdaptiveDelay {
                vec![0; dies as usize]
            } else {
                Vec::new()
            },
            array: if cfg.program_loops > 0 || cfg.erase_loops > 0 {
                vec![ArrayWork::default(); dies as usize]
            } else {
                Vec::new()
            },
            mechanism: cfg.reads_per_suspend > 0 || cfg.hold == HoldTime::Average,
            seq: 0,
            adaptive: (cfg.policy == SchedPolicy::AdaptiveDelay).then(|| {
                AdaptiveDelay::with_hold(
                    dies,
                    cfg.window.ns(),
                    cfg.alpha.ns(),
                    cfg.hold == HoldTime::Average,
                )
            }),
            c: SchedCounters::default(),
        }
    }

    /// The scheduler's counters.
    pub fn stats(&self) -> SchedStats {
        let c = &self.c;
        let suspends = c.program_suspends + c.erase_suspends;
        SchedStats {
            policy: self.policy,
            program_suspend: self.program_suspend,
            erase_suspend: self.erase_suspend,
            program_suspends: c.program_suspends,
            erase_suspends: c.erase_suspends,
            suspends,
            refused_during_data_in: c.refused_during_data_in,
            refused_at_limit: c.refused_at_limit,
            suspended_ns: c.suspended_ns,
            added_op_time_ns: c.overhead_ns,
            loop_redo_ns: (!self.array.is_empty()).then_some(c.loop_redo_ns),
            // Only with seed 003's options, so earlier reports keep their keys.
            mechanism: self.mechanism.then(|| SuspendMechanismStats {
                reads_per_suspend_limit: self.reads_per_suspend,
                suspend_reads: c.suspend_reads,
                reads_per_suspend: if suspends > 0 {
                    c.suspend_reads as f64 / suspends as f64
                } else {
                    0.0
                },
                reads_behind_data_in: c.reads_behind_data_in,
                data_in_wait_ns: c.data_in_wait_ns,
                hold_idle_ns: c.hold_idle_ns,
            }),
            adaptive: self.adaptive.as_ref().map(|a| AdaptiveStats {
                holds: a.holds,
                hold_read_arrived: a.hold_read_arrived,
                hold_expired: a.hold_expired,
                gc_reads_during_holds: self.c.hold_gc_reads,
                dispatch_now: a.dispatch_now,
                dispatch_default: a.dispatch_default,
            }),
        }
    }

    /// With a loop model for `stage`'s operation: (array time left, the part of the
    /// interrupted loop to run again) for a suspend with `stage_left_ns` of the stage
    /// to go. The stage after a resume begins with `t_resume` of no array work.
    fn loop_redo(&self, die: u32, stage: DieStage, stage_left_ns: Ns) -> Option<(Ns, Ns)> {
        let loops = match stage {
            DieStage::Program => self.program_loops,
            DieStage::Erase => self.erase_loops,
            _ => 0,
        };
        let w = self.array.get(die as usize)?;
        if loops == 0 || w.total_ns == 0 {
            return None;
        }
        let left = stage_left_ns.min(w.left_at_start_ns);
        let done = w.total_ns - left.min(w.total_ns);
        let step = w.total_ns.div_ceil(loops as u64);
        Some((left, done % step))
    }
}

impl Ssd {
    /// Give transaction `t` its arrival number on its die.
    #[inline]
    pub(super) fn stamp(&mut self, t: u32) {
        self.txns.get_mut(t).seq = self.sched.seq;
        self.sched.seq = self.sched.seq.wrapping_add(1);
    }

    /// The policy's choice of the die's next operation.
    pub(super) fn pick(&self, die: u32) -> Pick {
        let dq = &self.dq[die as usize];
        match self.sched.policy {
            SchedPolicy::Fifo => dq.pick_fifo(|t| self.txns.get(t).seq),
            SchedPolicy::ReadFirst | SchedPolicy::AdaptiveDelay => dq.pick(
                self.ftl.free_blocks(die) <= self.ftl.gc_threshold() || self.slc_erase_urgent(die),
                self.cfg.ftl.gc_pacing == GcPacing::Paced,
                |t| self.txns.get(t).seq,
            ),
        }
    }

    /// Is the die's next erase that of a folded SLC block while its SLC area is at the
    /// fold watermark (out of blocks it may open)? Folding was started to give the host
    /// SLC room back, and the room is back only once the block is erased: behind a
    /// stream of host programs the erase would otherwise wait for a gap that never
    /// comes, and the die, still holding the block as its victim, would fold no more.
    fn slc_erase_urgent(&self, die: u32) -> bool {
        let Some(&t) = self.dq[die as usize].erases.front() else {
            return false;
        };
        if !self.geo.is_slc_block(self.txns.get(t).block) {
            return false;
        }
        let wm = self.cfg.slc.fold_watermark_blocks;
        self.ftl.slc_usable_free_blocks_up_to(die, wm + 1) <= wm
    }

    /// A read was queued on `die` (`host`: for a host read command).
    pub(super) fn read_arrived(&mut self, die: u32, host: bool) {
        let now = self.now();
        let d = die as usize;
        if host {
            if let Some(a) = &mut self.sched.adaptive {
                a.on_host_read(die, now);
                if self.sched.hold_until[d] > now && self.dies[d].stage != DieStage::Hold {
                    // The expected read came while the die served a GC read in the hold.
                    a.hold_read_arrived += 1;
                    self.sched.hold_until[d] = 0;
                    self.dies[d].held = true;
                }
            }
        }
        match self.dies[d].stage {
            DieStage::Idle => self.kick_die(die),
            DieStage::Hold if host => {
                // The expected read came: it goes first, then the held program.
                if let Some(a) = &mut self.sched.adaptive {
                    a.hold_read_arrived += 1;
                }
                self.sched.hold_until[d] = 0;
                self.sched.c.hold_idle_ns += now - self.dies[d].op_start;
                self.go_idle(die);
                self.kick_die(die);
            }
            DieStage::Hold => {
                // A GC read: the die serves it, and the hold goes on after it (the
                // program is picked again and held until the hold's end).
                self.sched.c.hold_gc_reads += 1;
                self.sched.hold_until[d] = self.dies[d].until;
                self.sched.c.hold_idle_ns += now - self.dies[d].op_start;
                self.dies[d].held = false;
                self.go_idle(die);
                self.kick_die(die);
            }
            DieStage::DataIn if self.sched.program_suspend => {
                self.sched.c.refused_during_data_in += 1;
            }
            DieStage::Program | DieStage::Erase => self.try_suspend(die, true),
            _ => {}
        }
    }

    /// Suspend the die's program or erase for its waiting reads, if allowed.
    pub(super) fn try_suspend(&mut self, die: u32, count_refusal: bool) {
        let d = die as usize;
        let stage = self.dies[d].stage;
        let allowed = match stage {
            DieStage::Program => self.sched.program_suspend,
            DieStage::Erase => self.sched.erase_suspend,
            _ => false,
        };
        if !allowed || self.dq[d].user_reads.is_empty() {
            return;
        }
        if self.dies[d].op_suspends >= self.sched.max_suspends {
            if count_refusal {
                self.sched.c.refused_at_limit += 1;
            }
            return;
        }
        let now = self.now();
        let mut remaining = self.dies[d].until.saturating_sub(now);
        if remaining <= self.sched.t_suspend_ns {
            return; // it finishes before it could be stopped
        }
        let redo = self.sched.loop_redo(die, stage, remaining);
        if let Some((array_left, redo)) = redo {
            remaining = array_left + redo;
            self.sched.c.loop_redo_ns += redo;
            self.sched.c.overhead_ns += redo;
        }
        let die_state = &mut self.dies[d];
        die_state.suspended = Some(Suspended {
            stage,
            remaining_ns: remaining,
            op_txns: die_state.op_txns,
            op_len: die_state.op_len,
            op_gc: die_state.op_gc,
            at_ns: now,
        });
        die_state.op_suspends += 1;
        self.sched.served[d] = 0;
        if stage == DieStage::Program {
            self.sched.c.program_suspends += 1;
        } else {
            self.sched.c.erase_suspends += 1;
        }
        let until = now + self.sched.t_suspend_ns;
        self.begin(die, DieStage::Suspending, until);
    }

    /// A suspended die has reads waiting: may it serve one more read operation before
    /// resuming? (Counts it if so.)
    pub(super) fn suspend_serves_another(&mut self, die: u32) -> bool {
        let served = &mut self.sched.served[die as usize];
        if self.sched.reads_per_suspend > 0 && *served >= self.sched.reads_per_suspend {
            return false;
        }
        *served += 1;
        self.sched.c.suspend_reads += 1;
        true
    }

    /// A host read's data-out is about to be queued on channel `ch` at `now`: count it
    /// if a program's data-in holds the bus.
    #[inline]
    pub(super) fn note_data_out(&mut self, ch: usize, now: Ns) {
        let c = &self.channels[ch];
        if c.data_in_until > now && c.free_at > now {
            self.sched.c.reads_behind_data_in += 1;
            self.sched.c.data_in_wait_ns += c.free_at - now;
        }
    }

    /// Resume the die's suspended operation: what was left plus the resume overhead.
    pub(super) fn resume(&mut self, die: u32) {
        let now = self.now();
        let d = die as usize;
        let s = self.dies[d]
            .suspended
            .take()
            .expect("a suspended operation");
        self.dies[d].op_txns = s.op_txns;
        self.dies[d].op_len = s.op_len;
        self.dies[d].op_gc = s.op_gc;
        self.sched.c.suspended_ns += now - s.at_ns;
        self.sched.c.overhead_ns += self.sched.t_suspend_ns + self.sched.t_resume_ns;
        if let Some(w) = self.sched.array.get_mut(d) {
            w.left_at_start_ns = s.remaining_ns;
        }
        self.begin(die, s.stage, now + s.remaining_ns + self.sched.t_resume_ns);
    }

    /// A program's or erase's array work of `total_ns` starts on the die (loop model).
    #[inline]
    pub(super) fn array_started(&mut self, die: u32, total_ns: Ns) {
        if let Some(w) = self.sched.array.get_mut(die as usize) {
            *w = ArrayWork {
                total_ns,
                left_at_start_ns: total_ns,
            };
        }
    }

    /// Adaptive delay: hold program `t`, picked to run next on the die? (Starts the hold,
    /// or goes on with one that served GC reads.) A holding die has nothing else to do,
    /// so its collection's victim is read ahead first (GC reads do not end the hold).
    pub(super) fn hold_program(&mut self, die: u32, t: u32) -> bool {
        let d = die as usize;
        if self.sched.adaptive.is_none() || self.dies[d].held {
            return false;
        }
        let now = self.now();
        let open = self.sched.hold_until[d];
        let until = if open != 0 {
            // A hold that served GC reads: it goes on, or it ran out while they ran.
            if open <= now {
                self.close_expired_hold(die);
                self.dies[d].held = true;
                return false;
            }
            open
        } else {
            let tx = *self.txns.get(t);
            let t_prog = self.prog_time(t);
            let data_in = self.data_in_ns(tx.bytes);
            let a = self.sched.adaptive.as_mut().expect("adaptive");
            match a.decide(die, now, t_prog, data_in) {
                Decision::Dispatch => return false,
                Decision::Hold(ns) => now + ns,
            }
        };
        self.sched.hold_until[d] = until;
        if self.read_victim_ahead(die) {
            // The die reads its victim ahead; the program is picked again after it.
            self.sched.c.hold_gc_reads += 1;
            self.kick_die(die);
            return true;
        }
        self.dies[d].held = true;
        self.begin(die, DieStage::Hold, until);
        true
    }

    /// No read came while a program was held: run it.
    pub(super) fn hold_expired(&mut self, die: u32) {
        self.close_expired_hold(die);
        self.sched.c.hold_idle_ns += self.now() - self.dies[die as usize].op_start;
        self.go_idle(die);
        self.kick_die(die);
    }

    /// Count the die's hold as expired and close it.
    fn close_expired_hold(&mut self, die: u32) {
        if let Some(a) = &mut self.sched.adaptive {
            a.hold_expired += 1;
        }
        self.sched.hold_until[die as usize] = 0;
    }

    /// A program was dispatched on the die (for the adaptive delay's measurement).
    pub(super) fn on_program_dispatch(&mut self, die: u32) {
        let now = self.now();
        if let Some(a) = &mut self.sched.adaptive {
            a.on_program(die, now);
        }
    }
}

#[cfg(test)]
mod tests {
    //! One program and one host read on one die, timed by hand (tiny-test: data-in
    //! = 100 ns + 32 KiB at 800 MB/s = 41,060 ns; tPROG 600 us; read = 100 ns
    //! command + 50 us tR + 4 KiB data-out 5,120 ns = 55,220 ns).
    use super::super::{map::INTERNAL_JOB, Cmd, Origin, RunOptions, Ssd};
    use crate::config::{load_device, load_workload, DeviceSpec};
    use crate::controller::TxnKind;
    use crate::ftl::prep::DriveState;
    use crate::sim::{Event, Ns};
    use crate::workload::OpKind;

    const DATA_IN: Ns = 41_060;
    const T_PROG: Ns = 600_000;
    const READ: Ns = 55_220;

    /// (read done, program done, scheduler stats) for a read arriving at `read_at`.
    fn scenario(overrides: &[&str], read_at: Ns) -> (Ns, Ns, serde_json::Value) {
        let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
        let dev = load_device(&DeviceSpec::Preset("tiny-test".into()), &o).unwrap();
        let wl = load_workload("{}", &[], dev.capacity_bytes()).unwrap();
        let opts = RunOptions {
            state: DriveState::Full,
            seed: 1,
            verify: false,
        };
        let mut ssd = Ssd::new(dev, wl, opts).unwrap();
        // Fill one stripe: its program is dispatched at t = 0.
        let mut stripe = None;
        let mut lpn = 0;
        while stripe.is_none() {
            stripe = ssd.ftl.place_host(lpn).unwrap().1;
            lpn += 1;
        }
        let s = stripe.unwrap();
        // A programmed unit on the same die, for the read.
        let lpn = (lpn..ssd.ftl.host_units() as u32)
            .find(|&l| {
                let p = ssd.ftl.translate(l);
                ssd.geo.die_of(p) == s.die && ssd.ftl.is_programmed(p)
            })
            .unwrap();
        ssd.queue_program(s, false);
        ssd.q.schedule(read_at, Event::FetchKick); // marker: the read arrives
        let (mut read_done, mut prog_done) = (0, 0);
        let mut cmd = u32::MAX;
        while let Some(ev) = ssd.q.pop() {
            match ev {
                Event::FetchKick => {
                    cmd = ssd.cmds.insert(Cmd {
                        job: INTERNAL_JOB,
                        sq: 0,
                        kind: OpKind::Read,
                        offset: 0,
                        len: 4096,
                        submit_ns: read_at,
                        fetch_ns: read_at,
                        pending: 1,
                        placed: 0,
                        origin: Origin::Host,
                        pid: crate::ftl::fdp::NO_PID,
                    });
                    let pun = ssd.ftl.translate(lpn);
                    let t = ssd.read_txn(TxnKind::UserRead, cmd, pun, lpn, 4096);
                    ssd.queue_user_read(t);
                }
                Event::DieStage { die, gen } => {
                    let programmed = ssd.ftl.stats.units_programmed;
                    let live = ssd.cmds.live();
                    ssd.die_stage(die, gen);
                    if cmd != u32::MAX && live > 0 && ssd.cmds.live() == 0 {
                        read_done = ssd.now();
                    }
                    if ssd.ftl.stats.units_programmed > programmed {
                        prog_done = ssd.now();
                    }
                }
                _ => {}
            }
        }
        let st = serde_json::to_value(ssd.sched.stats()).expect("stats");
        (read_done, prog_done, st)
    }

    #[test]
    fn without_suspend_the_read_waits_for_the_whole_program() {
        let (read, prog, st) = scenario(&[], 100_000);
        assert_eq!(prog, DATA_IN + T_PROG);
        assert_eq!(read, DATA_IN + T_PROG + READ);
        assert_eq!(st["suspends"], 0);
    }

    #[test]
    fn a_read_suspends_the_program_which_ends_later_by_the_overheads() {
        let on = ["scheduler.program_suspend=true"];
        let (read, prog, st) = scenario(&on, 100_000);
        // Suspend latency, then the read; the program's rest plus tRESUME after it.
        assert_eq!(read, 100_000 + 20_000 + READ);
        assert_eq!(prog, read + (DATA_IN + T_PROG - 100_000) + 50_000);
        assert_eq!(st["program_suspends"], 1);
        assert_eq!(st["added_op_time_ns"], 70_000);
        assert_eq!(st["suspended_ns"], read - 100_000);
    }

    #[test]
    fn no_suspend_during_data_in_but_right_after_it() {
        let on = ["scheduler.program_suspend=true"];
        let (read, prog, st) = scenario(&on, 20_000);
        assert_eq!(st["refused_during_data_in"], 1);
        assert_eq!(read, DATA_IN + 20_000 + READ);
        assert_eq!(prog, read + T_PROG + 50_000);
    }

    #[test]
    fn a_suspend_loses_the_program_loop_under_way() {
        // 10 loops of 60 us. At 100 us the program has run 58.94 us of its first loop:
        // all of it is run again, so the program still needs its whole 600 us.
        let on = [
            "scheduler.program_suspend=true",
            "scheduler.program_loops=10",
        ];
        let (read, prog, st) = scenario(&on, 100_000);
        assert_eq!(read, 100_000 + 20_000 + READ);
        let lost = 100_000 - DATA_IN;
        assert_eq!(st["loop_redo_ns"], lost);
        assert_eq!(prog, read + T_PROG + 50_000);
        assert_eq!(st["added_op_time_ns"], 70_000 + lost);
        // 125 us into the program: two whole loops are kept, 5 us of the third is lost.
        let (read, prog, st) = scenario(&on, DATA_IN + 125_000);
        assert_eq!(st["loop_redo_ns"], 5_000);
        assert_eq!(prog, read + (T_PROG - 120_000) + 50_000);
        // Without the loop model the key is absent and nothing is run again.
        let (_, _, st) = scenario(&["scheduler.program_suspend=true"], DATA_IN + 125_000);
        assert!(st.get("loop_redo_ns").is_none());
    }

    #[test]
    fn loop_counts_out_of_range_are_errors_naming_the_field() {
        for key in ["program_loops", "erase_loops"] {
            let o = vec![format!("scheduler.{key}=1001")];
            let e = load_device(&DeviceSpec::Preset("tiny-test".into()), &o)
                .expect_err("refused")
                .to_string();
            assert!(
                e.contains(&format!("scheduler.{key}")) && e.contains("1 to 1000"),
                "{e}"
            );
        }
    }

    #[test]
    fn no_suspend_past_the_limit_or_near_the_end() {
        let limit = ["scheduler.program_suspend=true", "scheduler.max_suspends=1"];
        let (_, _, st) = scenario(&limit, 100_000);
        assert_eq!(st["program_suspends"], 1);
        // 10 us before the program ends: stopping it would take longer than finishing.
        let on = ["scheduler.program_suspend=true"];
        let (read, _, st) = scenario(&on, DATA_IN + T_PROG - 10_000);
        assert_eq!(st["suspends"], 0);
        assert_eq!(read, DATA_IN + T_PROG + READ);
    }
}
