//! The system loop on several threads: a conservative (lookahead) parallel
//! discrete-event loop that gives exactly the single-threaded loop's result.
//!
//! Drives meet only in the fabric (`Fabric::forward` when a host issues a command to a
//! drive behind a target, `Fabric::backward` when the drive's completion goes back):
//! the ports, switch and cores of hosts and targets are shared, and what a call
//! answers depends on every call made before it. Nothing else is shared while the
//! drives run (a local drive's host side is its own: `host_irq_per_io`), so between
//! fabric calls the drives are independent.
//!
//! Every answer lies at least the fabric's lookahead after the call (`lookahead_ns`:
//! the CPU costs of both ends, two NIC traversals and the switch), and a call is never
//! made for a time before the event that makes it. The loop runs in windows. In a
//! window each drive handles its own events on one thread (drives are handed out one
//! at a time to whichever thread asks, so a thread the machine does not run for a
//! while holds up one drive, not a fixed share) and *records* its fabric calls instead
//! of making them
//! (`Ssd::defer_fabric_calls`), taking the queue sequence number the answer's event
//! would have had; it stops when its next event reaches its horizon: the lookahead
//! after its first call not answered yet (the earliest that answer can come), or the
//! window's bound. Between windows one thread finds the frontier, the earliest time
//! any running drive can still make a call (its next event, or the lookahead after its
//! first unanswered call), and makes every recorded call made before the frontier on
//! the fabric, in the single-threaded loop's order: event time, then drive index, then
//! the order one drive made them (that loop handles the earliest event of any drive,
//! ties to the lower drive index). No call can come before those any more, so each
//! sees the fabric state it would have seen on one thread; calls at or after the
//! frontier wait for a later window. Each drive then schedules the answers' events
//! with their reserved sequence numbers (a completion through its queue's interrupt
//! handler, in the order posted), so every event pops where it would have on one
//! thread: the report is byte-identical for any number of threads
//! (`tests/golden_system.rs`). When the drives are busy every drive calls within a
//! lookahead of the frontier and a window is about one lookahead long; when they are
//! sparse a drive runs on to its next call.
//!
//! Simplifies (costs time, not results): windows end at most `MAX_WINDOW_NS` after the
//! frontier (a system without a fabric has no lookahead; the bound keeps the progress
//! and memory checks regular); the thread that makes the calls does so alone, the
//! others waiting (a target's cores and each port are one FIFO: the calls cannot be
//! split without changing their order, hence the result); a drive may run on a
//! different thread in each window (no affinity); when every running drive's queue
//! is empty at once (jobs
//! waiting for write-buffer room, or a stall) the run finishes on the single-threaded
//! loop, which handles that case. The memory limit is checked after every window
//! (every 64 events on one thread): a run stopped for it reports the memory it saw,
//! which can differ with the number of threads.

use super::Member;
use crate::fabric::Fabric;
use crate::sim::Ns;
use crate::ssd::Ssd;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard};

/// Longest window: the progress callback and the memory limit are looked at between
/// windows, so a system without a fabric (unlimited lookahead) still stops for them.
const MAX_WINDOW_NS: Ns = 1_000_000;

/// The least time any fabric call's answer lies after its argument (0: no lookahead,
/// the loop cannot run drives in parallel).
pub(super) fn lookahead_ns(f: &Fabric) -> Ns {
    let c = &f.cfg;
    let wire = 2 * c.nic_latency.ns() + c.switch_latency.ns();
    let forward = c.host_submit.ns() + c.target_command.ns();
    let backward = c.target_complete.ns() + c.host_complete.ns();
    wire + forward.min(backward)
}

/// How the parallel loop ended.
pub(super) enum Outcome {
    /// Every drive is done, or the run was stopped (progress or memory).
    Finished,
    /// Every running drive's queue is empty: the single-threaded loop goes on.
    Serial,
}

/// How long a thread waiting for the next window spins before it sleeps.
const SPIN: std::time::Duration = std::time::Duration::from_micros(50);

/// One running drive as the threads share it.
struct Slot<'a> {
    ssd: &'a mut Ssd,
    active: &'a mut usize,
}

/// What the threads share: the drives, the window's bound, and the window's work:
/// its drives, handed out one at a time to whichever thread asks (a thread the
/// machine does not run for a while holds up one drive, not a fixed share).
struct Shared<'a> {
    slots: Vec<Mutex<Slot<'a>>>,
    lookahead: Ns,
    /// Per thread, a run of drives it takes first (its own, warm in its caches) and
    /// the others take once they have none left: the window's number (high 32 bits)
    /// and the next drive of the run to hand out.
    work: Vec<AtomicU64>,
    /// Where each thread's run of drives begins (and, last, the number of drives).
    runs: Vec<usize>,
    /// No drive goes past this in the window (`MAX_WINDOW_NS` after the frontier).
    bound: AtomicU64,
    /// Drives of the window handled so far.
    finished: AtomicUsize,
    stop: AtomicBool,
    /// Threads asleep until the next window.
    sleepers: AtomicUsize,
    lock: Mutex<()>,
    wake: Condvar,
    /// The first panic of any thread in a window.
    panic: Mutex<Option<Box<dyn std::any::Any + Send>>>,
}

fn lock<'a, 'b>(m: &'b Mutex<Slot<'a>>) -> MutexGuard<'b, Slot<'a>> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A window's number as the `work` words hold it.
fn tag(number: u64) -> u64 {
    (number & 0xFFFF_FFFF) << 32
}

impl Shared<'_> {
    /// Open window `number` (up to `bound`) to every thread.
    fn publish(&self, number: u64, bound: Ns) {
        self.finished.store(0, Ordering::Relaxed);
        self.bound.store(bound, Ordering::Relaxed);
        // The first run last: the threads watch it for the window to open.
        for (w, &first) in self.work.iter().zip(&self.runs).rev() {
            w.store(tag(number) | first as u64, Ordering::SeqCst);
        }
        if self.sleepers.load(Ordering::SeqCst) > 0 {
            let _g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
            self.wake.notify_all();
        }
    }

    /// Handle drives of window `number` until none is left: thread `t`'s own run
    /// first, then the others'.
    fn help(&self, t: usize, number: u64) {
        let runs = self.work.len();
        for r in (0..runs).map(|k| (t + k) % runs) {
            while let Some(i) = self.take(r, number) {
                self.handle(i);
            }
        }
    }

    /// The next drive of run `r` in window `number`, if any is left.
    fn take(&self, r: usize, number: u64) -> Option<usize> {
        let (work, end) = (&self.work[r], self.runs[r + 1] as u64);
        loop {
            let w = work.load(Ordering::Acquire);
            if w & !0xFFFF_FFFF != tag(number) || w & 0xFFFF_FFFF >= end {
                return None;
            }
            if work
                .compare_exchange_weak(w, w + 1, Ordering::AcqRel, Ordering::Acquire)
                .is_ok()
            {
                return Some((w & 0xFFFF_FFFF) as usize);
            }
        }
    }

    /// Handle drive `i` in the window just taken from.
    fn handle(&self, i: usize) {
        // The bound was stored before the window opened (seen through `work`).
        let bound = self.bound.load(Ordering::Acquire);
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.run_drive(i, bound)));
        if let Err(payload) = r {
            // Kept for the thread that started the loop to resume once every thread
            // has stopped (a panic, or `interrupt::check` unwinding on Ctrl-C).
            let mut p = self.panic.lock().unwrap_or_else(|e| e.into_inner());
            p.get_or_insert(payload);
        }
        self.finished.fetch_add(1, Ordering::Release);
    }

    /// A drive's share of a window: schedule the answers resolved since the last
    /// window, then handle its events until its next one is due at or after its
    /// horizon: the window's bound, or the lookahead after its first call not resolved
    /// yet (the earliest its answer can come).
    fn run_drive(&self, i: usize, bound: Ns) {
        let mut s = lock(&self.slots[i]);
        let Slot { ssd, active } = &mut *s;
        ssd.apply_fabric_calls();
        let first = ssd.first_pending_call_ns();
        let mut horizon = first.map_or(bound, |c| bound.min(c.saturating_add(self.lookahead)));
        let mut waiting = first.is_some();
        while **active > 0 && ssd.next_event_ns() < horizon {
            ssd.step(active);
            if !waiting {
                if let Some(c) = ssd.first_pending_call_ns() {
                    horizon = horizon.min(c.saturating_add(self.lookahead));
                    waiting = true;
                }
            }
        }
    }

    /// Wait for a window after `seen` (spinning a little, then asleep); returns its
    /// number, None when the loop stops.
    ///
    /// The number returned is the one read when the window was seen open, and `stop`
    /// is read after it: the last window (published after `stop` is set) is never
    /// taken for one to work in. (Until 2026-11-29 the number was read again after
    /// `stop`: a window could end and the last one open in between, and a thread then
    /// worked in the last window, waited for a window after it, and the loop's end
    /// waited for that thread: a hang seen twice in hundreds of multi-drive runs.)
    fn next_window(&self, seen: u64) -> Option<u64> {
        let open = || {
            let w = self.work[0].load(Ordering::SeqCst);
            (w & !0xFFFF_FFFF != tag(seen)).then_some(w >> 32)
        };
        let give_up = std::time::Instant::now() + SPIN;
        let mut i = 0u32;
        let number = loop {
            if let Some(n) = open() {
                break n;
            }
            i = i.wrapping_add(1);
            if i.is_multiple_of(64) && std::time::Instant::now() >= give_up {
                let mut g = self.lock.lock().unwrap_or_else(|e| e.into_inner());
                self.sleepers.fetch_add(1, Ordering::SeqCst);
                let n = loop {
                    if let Some(n) = open() {
                        break n;
                    }
                    g = self.wake.wait(g).unwrap_or_else(|e| e.into_inner());
                };
                self.sleepers.fetch_sub(1, Ordering::SeqCst);
                break n;
            }
            std::hint::spin_loop();
        };
        // `stop` is stored before the last window opens: seeing that window (through
        // `work[0]`, SeqCst) means seeing `stop`.
        if self.stop.load(Ordering::Acquire) {
            return None;
        }
        Some(number)
    }

    fn worker(&self, t: usize) {
        let mut seen = 0;
        while let Some(number) = self.next_window(seen) {
            self.help(t, number);
            seen = number;
        }
    }

    /// Wait until every drive of the window has been handled (by any thread).
    fn wait_finished(&self) {
        let n = self.slots.len();
        let mut i = 0u32;
        while self.finished.load(Ordering::Acquire) < n {
            i = i.wrapping_add(1);
            if i < 4096 {
                std::hint::spin_loop();
            } else {
                // The thread with the last drive is not running: let it.
                std::thread::yield_now();
            }
        }
    }
}

/// Run the drives (each with its jobs begun: `active` > 0) on `threads` threads
/// (more than one) until they are done or the single-threaded loop must go on.
/// `fabric` and its `lookahead` (more than 0) as `lookahead_ns`, None and `Ns::MAX`
/// for a system without one. `stop` is asked after every window (progress, memory
/// limit) with the fraction of drives done; true ends the run.
pub(super) fn run(
    drives: &mut [Member],
    fabric: Option<&Mutex<Fabric>>,
    lookahead: Ns,
    threads: usize,
    stop: &mut dyn FnMut(f64) -> bool,
) -> Outcome {
    let total = drives.len().max(1);
    let slots: Vec<Mutex<Slot>> = drives
        .iter_mut()
        .filter_map(|d| {
            let ssd = d.ssd.as_mut()?;
            (d.active > 0).then(|| {
                Mutex::new(Slot {
                    ssd,
                    active: &mut d.active,
                })
            })
        })
        .collect();
    let idle = total - slots.len();
    for s in &slots {
        lock(s).ssd.defer_fabric_calls(true);
    }
    let n = slots.len();
    let threads = threads.min(n).max(1);
    let shared = Shared {
        slots,
        lookahead,
        work: (0..threads).map(|_| AtomicU64::new(0)).collect(),
        runs: (0..=threads).map(|t| t * n / threads).collect(),
        bound: AtomicU64::new(0),
        finished: AtomicUsize::new(0),
        stop: AtomicBool::new(false),
        sleepers: AtomicUsize::new(0),
        lock: Mutex::new(()),
        wake: Condvar::new(),
        panic: Mutex::new(None),
    };
    let mut outcome = Outcome::Finished;
    std::thread::scope(|scope| {
        for t in 1..threads {
            let shared = &shared;
            scope.spawn(move || shared.worker(t));
        }
        let mut order: Vec<u128> = Vec::new();
        let mut frontier = resolve(&shared.slots, fabric, lookahead, &mut order);
        let mut number = 0u64;
        // Until every drive is done (None).
        while let Some(at) = frontier.at {
            if at == Ns::MAX {
                outcome = Outcome::Serial;
                break;
            }
            number += 1;
            shared.publish(number, at.saturating_add(MAX_WINDOW_NS));
            shared.help(0, number);
            shared.wait_finished();
            if shared
                .panic
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .is_some()
            {
                break;
            }
            frontier = resolve(&shared.slots, fabric, lookahead, &mut order);
            if stop((idle + frontier.done) as f64 / total as f64) {
                break;
            }
        }
        shared.stop.store(true, Ordering::Release);
        shared.publish(number + 1, 0);
    });
    if let Some(payload) = shared.panic.into_inner().unwrap_or_else(|e| e.into_inner()) {
        std::panic::resume_unwind(payload);
    }
    for s in &shared.slots {
        let mut s = lock(s);
        s.ssd.apply_fabric_calls();
        s.ssd.defer_fabric_calls(false);
    }
    outcome
}

/// A recorded fabric call's place in the single-threaded loop's order as one integer:
/// its event's time, then its drive's slot `g`, then its index `k` among that drive's
/// calls (one integer compare sorts them; time is below 2^64 ns, `g` and `k` below 2^32).
fn call_key(event_ns: Ns, g: usize, k: usize) -> u128 {
    ((event_ns as u128) << 64) | ((g as u128) << 32) | k as u128
}

/// The slot `g` and the index `k` of the call `call_key` gave `key`.
fn call_of(key: u128) -> (usize, usize) {
    ((key as u64 >> 32) as usize, key as u32 as usize)
}

/// Where the drives stand between windows.
struct Frontier {
    /// No drive will make a fabric call or handle an event before this (None: every
    /// drive is done; `Ns::MAX`: every running drive's queue is empty).
    at: Option<Ns>,
    /// Drives done.
    done: usize,
}

/// Between windows: find the frontier, the earliest time any running drive can still
/// make a fabric call (its next event, or the lookahead after its first call not yet
/// resolved, whose answer it waits for), and make every call made before it on the
/// fabric, in the single-threaded loop's order (event time, drive index, the order one
/// drive made them): no call can come before them any more. Calls at or after the
/// frontier wait for a later window.
fn resolve(
    slots: &[Mutex<Slot>],
    fabric: Option<&Mutex<Fabric>>,
    lookahead: Ns,
    order: &mut Vec<u128>,
) -> Frontier {
    let mut guards: Vec<MutexGuard<Slot>> = slots.iter().map(lock).collect();
    let mut at: Option<Ns> = None;
    let mut done = 0;
    for s in guards.iter() {
        if *s.active == 0 {
            done += 1;
            continue;
        }
        let mut t = s.ssd.next_event_ns();
        if let Some(c) = s.ssd.first_pending_call_ns() {
            t = t.min(c.saturating_add(lookahead));
        }
        at = Some(at.map_or(t, |a| a.min(t)));
    }
    // Drives that are done make no more calls: with all done, every call resolves.
    let before = at.unwrap_or(Ns::MAX);
    if let Some(fabric) = fabric {
        order.clear();
        for (g, s) in guards.iter_mut().enumerate() {
            let calls = s.ssd.pending_fabric_calls();
            for (k, c) in calls.iter().enumerate() {
                if c.event_ns >= before && before != Ns::MAX {
                    break;
                }
                order.push(call_key(c.event_ns, g, k));
            }
        }
        // Slots are in drive order, so (time, slot, k) is the loop's order.
        order.sort_unstable();
        let mut f = fabric.lock().unwrap_or_else(|e| e.into_inner());
        for &key in order.iter() {
            let (g, k) = call_of(key);
            let s = &mut guards[g];
            let path = s.ssd.remote_path().expect("a remote drive");
            let c = &mut s.ssd.pending_fabric_calls()[k];
            c.done = if c.backward {
                f.backward(path, c.at, c.kind, c.len)
            } else {
                f.forward(path, c.at, c.kind, c.len)
            };
        }
        drop(f);
        for (g, s) in guards.iter_mut().enumerate() {
            let n = s
                .ssd
                .pending_fabric_calls()
                .iter()
                .take_while(|c| c.event_ns < before || before == Ns::MAX)
                .count();
            debug_assert!(order.iter().filter(|&&o| call_of(o).0 == g).count() == n);
            s.ssd.fabric_calls_resolved(n);
        }
    }
    Frontier { at, done }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fabric::{FabricConfig, Node, Path};
    use crate::workload::OpKind;

    /// What the loop rests on: no fabric call answers sooner than the lookahead after
    /// the time it is made for, on an idle fabric and on one loaded by many calls
    /// (queued cores and ports only add time), for every fabric preset.
    #[test]
    fn no_answer_comes_before_the_lookahead() {
        for name in ["rdma-kernel-2016", "rdma-spdk", "tcp-kernel"] {
            let cfg = FabricConfig::preset(name).unwrap();
            let hosts = (0..2)
                .map(|h| Node::new(&format!("h{h}"), 2, 25e9 / 8.0, 2))
                .collect();
            let mut f = Fabric::new(cfg, hosts, vec![Node::new("t", 1, 100e9 / 8.0, 3)]);
            let l = lookahead_ns(&f);
            assert!(l > 1_000, "{name}: {l} ns");
            let mut x = 7u64;
            let mut at = 0;
            for i in 0..20_000u32 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                at += (x >> 60) * 100; // bursts of calls at the same time, and gaps
                let p = Path {
                    host: i % 2,
                    target: 0,
                    host_port: (i / 2) % 2,
                    target_port: 0,
                };
                let kind = if x >> 63 == 0 {
                    OpKind::Read
                } else {
                    OpKind::Write
                };
                let len = 512 << ((x >> 40) % 9);
                // A completion is sent for when its data is ready, which can be ahead
                // of the event that sends it (and of later calls).
                let (t, done) = if (x >> 20) & 1 == 0 {
                    (at, f.forward(p, at, kind, len))
                } else {
                    let t = at + (x >> 50) % 10_000;
                    (t, f.backward(p, t, kind, len))
                };
                assert!(done >= t + l, "{name}: call {i} for {t} answered at {done}");
            }
        }
    }
}
