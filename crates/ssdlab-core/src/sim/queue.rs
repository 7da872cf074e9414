//! The event queue: pending events keyed by (time, sequence) with small `Copy`
//! payloads; equal-time events pop in scheduling order. A drive usually has a few
//! dozen events pending (one or two per command in flight and per busy die), and
//! there an array kept sorted from the latest to the earliest key (the next event is
//! the last; an insert is a short scan from the earliest end and a short move, or
//! for an event due after all the others, such as a die's stage end, no scan) costs
//! far fewer instructions than a binary heap's sift down to the bottom and back. Past
//! `SORTED_MAX` pending events the queue becomes a binary min-heap (a sorted array
//! reversed is one already) and back to a sorted array below `SORTED_MIN`. Keys are
//! unique, so both orders pop the same events in the same order.

use super::Ns;
use std::cmp::Ordering;
use std::collections::BinaryHeap;

/// Every kind of thing that can happen in the device. Payloads are indices into
/// the owners' tables; `gen` fields let an owner skip events it has superseded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// The host submits the next command of job `job` (start, think time, ramp).
    HostSubmit { job: u32 },
    /// The controller's command-fetch engine may look at the submission queues.
    FetchKick,
    /// A burst of commands fetched from a submission queue has arrived.
    FetchDone { sq: u32, count: u32 },
    /// Firmware finished decoding command `cmd` and looking up its mapping.
    CmdReady { cmd: u32 },
    /// Host-to-device data of write command `cmd` is in the controller.
    WriteDataIn { cmd: u32 },
    /// The current operation of die `die` finished a stage (sense, transfer, program, erase).
    DieStage { die: u32, gen: u32 },
    /// The completion entry of `cmd` is visible to the host.
    HostComplete { cmd: u32 },
    /// The map entries of read `cmd` are at hand (map cache hit or load done).
    MapReady { cmd: u32 },
    /// Map segment load `load` finished without a NAND read (unmapped or buffered).
    MapLoadDone { load: u32 },
    /// The host has had nothing outstanding since idle period `gen` began.
    HostIdle { gen: u32 },
    /// Reporting group `group`'s ramp time is over: the measured window opens.
    RampEnd { group: u32 },
    /// Checkpoint `k` of group `group`'s settle rule (`ssd/settle.rs`).
    SettleCheck { group: u32, k: u32 },
    /// A remote command reached the drive's target, which now submits it to the drive.
    TargetSubmit { cmd: u32 },
    /// Host event `idx` of the workload begins, ends its outage or closes its curve.
    HostEvent { idx: u32, phase: u32 },
    /// Zone Management Send `idx` of the run's `zone_ops` is due (a zoned drive).
    ZoneOp { idx: u32 },
    /// I/O Management Send `idx` of the run's `fdp_ops` is due (a drive with `[fdp]`).
    FdpOp { idx: u32 },
    /// The RU time limit of placement slot `slot`'s reclaim unit `gen` ran out.
    FdpRuLimit { slot: u32, gen: u32 },
}

#[derive(Clone, Copy)]
struct Entry {
    key: u128, // (time << 64) | seq, so one integer compare orders the heap
    ev: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.key == o.key
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        o.key.cmp(&self.key) // reversed: BinaryHeap is a max-heap
    }
}

/// Pending events: a sorted array while few, a binary heap while many.
enum Pending {
    /// Sorted by key from the latest to the earliest: the next event is the last.
    Sorted(Vec<Entry>),
    Heap(BinaryHeap<Entry>),
}

/// More pending events than this: a heap.
const SORTED_MAX: usize = 64;
/// Fewer pending events than this (in heap form): a sorted array again.
const SORTED_MIN: usize = 32;

pub struct EventQueue {
    pending: Pending,
    seq: u64,
    now: Ns,
    processed: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            pending: Pending::Sorted(Vec::with_capacity(SORTED_MAX + 1)),
            seq: 0,
            now: 0,
            processed: 0,
        }
    }
}

impl EventQueue {
    pub fn new() -> Self {
        Self::default()
    }

    /// Insert `e`. `newest`: its sequence number is the largest yet (`schedule`), so
    /// every pending event due at its time or earlier goes before it, and the sorted
    /// array's scan compares times alone.
    #[inline]
    fn push(&mut self, e: Entry, newest: bool) {
        match &mut self.pending {
            Pending::Sorted(v) if v.len() < SORTED_MAX => {
                // From the earliest end: most new events are due before most pending
                // ones, so the scan and the move are both short.
                let mut i = v.len();
                if newest {
                    let t = (e.key >> 64) as u64;
                    if v.first().is_some_and(|f| (f.key >> 64) as u64 <= t) {
                        i = 0; // due after every pending event (a die's stage end)
                    } else {
                        while i > 0 && (v[i - 1].key >> 64) as u64 <= t {
                            i -= 1;
                        }
                    }
                } else {
                    while i > 0 && v[i - 1].key < e.key {
                        i -= 1;
                    }
                }
                v.insert(i, e);
            }
            Pending::Sorted(v) => {
                // Ascending keys are a valid min-heap (Entry's order is reversed).
                let mut all = std::mem::take(v);
                all.reverse();
                let mut h = BinaryHeap::from(all);
                h.push(e);
                self.pending = Pending::Heap(h);
            }
            Pending::Heap(h) => h.push(e),
        }
    }

    #[inline]
    pub fn now(&self) -> Ns {
        self.now
    }

    pub fn processed(&self) -> u64 {
        self.processed
    }

    pub fn len(&self) -> usize {
        match &self.pending {
            Pending::Sorted(v) => v.len(),
            Pending::Heap(h) => h.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Schedule `ev` at absolute time `at` (never earlier than now).
    #[inline]
    pub fn schedule(&mut self, at: Ns, ev: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let at = at.max(self.now);
        self.seq += 1;
        self.push(
            Entry {
                key: ((at as u128) << 64) | self.seq as u128,
                ev,
            },
            true,
        );
    }

    /// Take the next sequence number without scheduling: the event is scheduled later
    /// with it (`schedule_seq`) and pops exactly where `schedule` now would have put it
    /// (a system's drive whose fabric call is resolved after a parallel window).
    #[inline]
    pub fn reserve_seq(&mut self) -> u64 {
        self.seq += 1;
        self.seq
    }

    /// Schedule `ev` at `at` with a sequence number from `reserve_seq`.
    #[inline]
    pub fn schedule_seq(&mut self, at: Ns, seq: u64, ev: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        let at = at.max(self.now);
        self.push(
            Entry {
                key: ((at as u128) << 64) | seq as u128,
                ev,
            },
            false,
        );
    }

    /// Time of the earliest pending event.
    /// When the next event is due (`Ns::MAX` when there is none).
    #[inline]
    pub fn next_ns(&self) -> Ns {
        self.peek_time().unwrap_or(Ns::MAX)
    }

    #[inline]
    pub fn peek_time(&self) -> Option<Ns> {
        let e = match &self.pending {
            Pending::Sorted(v) => v.last(),
            Pending::Heap(h) => h.peek(),
        };
        e.map(|e| (e.key >> 64) as Ns)
    }

    /// Move the clock forward to `t` (no event may be pending before it).
    pub fn advance_to(&mut self, t: Ns) {
        debug_assert!(self.peek_time().is_none_or(|p| p >= t));
        self.now = self.now.max(t);
    }

    /// Pop the earliest event and advance time to it.
    #[inline]
    pub fn pop(&mut self) -> Option<Event> {
        let e = match &mut self.pending {
            Pending::Sorted(v) => v.pop()?,
            Pending::Heap(h) => {
                let e = h.pop()?;
                if h.len() < SORTED_MIN {
                    let mut v = std::mem::take(h).into_vec();
                    v.sort_unstable_by_key(|e| std::cmp::Reverse(e.key));
                    v.reserve(SORTED_MAX + 1 - v.len().min(SORTED_MAX + 1));
                    self.pending = Pending::Sorted(v);
                }
                e
            }
        };
        self.now = (e.key >> 64) as Ns;
        self.processed += 1;
        Some(e.ev)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_by_time_then_sequence() {
        let mut q = EventQueue::new();
        q.schedule(10, Event::HostComplete { cmd: 1 });
        q.schedule(5, Event::HostComplete { cmd: 2 });
        q.schedule(10, Event::HostComplete { cmd: 3 });
        q.schedule(5, Event::HostComplete { cmd: 4 });
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        let cmds: Vec<u32> = order
            .iter()
            .map(|e| match e {
                Event::HostComplete { cmd } => *cmd,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(cmds, vec![2, 4, 1, 3]);
        assert_eq!(q.now(), 10);
        assert_eq!(q.processed(), 4);
        // A reserved sequence number keeps its place among later ones.
        let seq = q.reserve_seq();
        q.schedule(20, Event::HostComplete { cmd: 6 });
        q.schedule_seq(20, seq, Event::HostComplete { cmd: 5 });
        assert_eq!(q.pop(), Some(Event::HostComplete { cmd: 5 }));
        assert_eq!(q.pop(), Some(Event::HostComplete { cmd: 6 }));
    }

    /// Through both forms and the switches between them (up to 300 pending, many
    /// equal times), events pop in (time, scheduling order), as a reference sort says.
    #[test]
    fn sorted_and_heap_forms_pop_the_same_order() {
        let mut rng = crate::sim::Rng::new(7);
        let mut q = EventQueue::new();
        let mut pending: Vec<(Ns, u32)> = Vec::new(); // (time, id): ids rise with scheduling
        let mut id = 0u32;
        let mut most = 0;
        for round in 0..4000u32 {
            // Grow in bursts past SORTED_MAX, then drain below SORTED_MIN.
            let grow = (round / 500) % 2 == 0;
            let schedules = if grow { 1 + rng.below(3) } else { rng.below(2) };
            for _ in 0..schedules {
                let at = q.now() + rng.below(50);
                q.schedule(at, Event::HostComplete { cmd: id });
                pending.push((at, id));
                id += 1;
            }
            assert_eq!(q.len(), pending.len());
            most = most.max(pending.len());
            if pending.is_empty() {
                continue;
            }
            pending.sort_unstable_by_key(|&(t, i)| std::cmp::Reverse((t, i)));
            let (t, want) = pending.pop().unwrap();
            assert_eq!(q.peek_time(), Some(t));
            assert_eq!(q.pop(), Some(Event::HostComplete { cmd: want }));
            assert_eq!(q.now(), t);
        }
        assert!(most > 2 * SORTED_MAX, "{most}");
        assert!(matches!(q.pending, Pending::Sorted(_)) || q.len() >= SORTED_MIN);
    }
}
