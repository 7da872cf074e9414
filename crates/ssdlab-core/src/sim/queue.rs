//! The event queue: pending events keyed by (time, sequence) with small `Copy`
//! payloads; equal-time events pop in scheduling order. A drive usually has a few
//! dozen events pending (one or two per command in flight and per busy die), and
//! there an array kept sorted from the earliest to the latest key with free slots on
//! both sides (the next event is the first; an event due after all the others, such
//! as a die's stage end, is appended; another walks in from the nearer end, moving
//! the events it passes one slot outwards) costs far fewer instructions than a binary
//! heap's sift down to the bottom and back. Past `SORTED_MAX` pending events the queue
//! becomes a binary min-heap (an ascending array is one already) and back to a sorted
//! array below `SORTED_MIN`. Keys are unique, so both forms pop the same events in the
//! same order.

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
    Sorted(Window),
    Heap(BinaryHeap<Entry>),
}

/// More pending events than this: a heap.
const SORTED_MAX: usize = 64;
/// Fewer pending events than this (in heap form): a sorted array again.
const SORTED_MIN: usize = 32;
/// Slots of the sorted array's buffer: room on both sides of up to `SORTED_MAX` events.
const WINDOW_SLOTS: usize = 4 * SORTED_MAX;

/// Events sorted from the earliest to the latest key in `buf[head..tail]`, with free
/// slots on both sides: the next event is at `head`, an event due after all others
/// goes to `tail` without moving any, and another walks in from the nearer end (as
/// the middle event says), moving the events it passes one slot outwards.
struct Window {
    buf: Box<[Entry; WINDOW_SLOTS]>,
    head: usize,
    tail: usize,
}

const BLANK: Entry = Entry {
    key: 0,
    ev: Event::FetchKick,
};

impl Window {
    fn new() -> Self {
        Window {
            buf: Box::new([BLANK; WINDOW_SLOTS]),
            head: WINDOW_SLOTS / 2,
            tail: WINDOW_SLOTS / 2,
        }
    }

    /// A window holding `sorted` (ascending keys, at most `SORTED_MAX`), centred.
    fn from_sorted(sorted: &[Entry]) -> Self {
        let mut w = Window::new();
        w.head = (WINDOW_SLOTS - sorted.len()) / 2;
        w.tail = w.head + sorted.len();
        w.buf[w.head..w.tail].copy_from_slice(sorted);
        w
    }

    #[inline]
    fn len(&self) -> usize {
        self.tail - self.head
    }

    #[inline]
    fn first(&self) -> Option<&Entry> {
        // SAFETY: head < tail <= WINDOW_SLOTS.
        (self.head < self.tail).then(|| unsafe { self.buf.get_unchecked(self.head) })
    }

    #[inline]
    fn pop_first(&mut self) -> Option<Entry> {
        if self.head == self.tail {
            return None;
        }
        // SAFETY: head < tail <= WINDOW_SLOTS.
        let e = unsafe { *self.buf.get_unchecked(self.head) };
        self.head += 1;
        Some(e)
    }

    /// Move the events to the middle of the buffer (one side ran out of slots).
    #[cold]
    fn recentre(&mut self) {
        let len = self.len();
        let head = (WINDOW_SLOTS - len) / 2;
        self.buf.copy_within(self.head..self.tail, head);
        self.head = head;
        self.tail = head + len;
    }

    /// Insert `e`. `NEWEST`: its sequence number is the largest yet, so it goes after
    /// every pending event due at its time or earlier and the walk compares times.
    #[inline]
    fn insert<const NEWEST: bool>(&mut self, e: Entry) {
        let t = (e.key >> 64) as u64;
        let goes_before = |p: &Entry| {
            if NEWEST {
                (p.key >> 64) as u64 > t
            } else {
                p.key > e.key
            }
        };
        // SAFETY (here and below): head <= tail <= WINDOW_SLOTS, and every index read
        // or written is in head - 1 ..= tail.
        if self.head == self.tail || !goes_before(unsafe { self.buf.get_unchecked(self.tail - 1) })
        {
            // Due after every pending event (a die's stage end): nothing moves.
            if self.tail == WINDOW_SLOTS {
                self.recentre();
            }
            unsafe { *self.buf.get_unchecked_mut(self.tail) = e };
            self.tail += 1;
            return;
        }
        let mid = self.head + (self.tail - self.head) / 2;
        if !goes_before(unsafe { self.buf.get_unchecked(mid) }) {
            // Due after half the pending events: from the latest end, moving each
            // event due after it one slot towards the back. The walk stops after
            // `mid`, which goes before `e`.
            if self.tail == WINDOW_SLOTS {
                self.recentre();
            }
            let mut j = self.tail;
            loop {
                let prev = unsafe { *self.buf.get_unchecked(j - 1) };
                if !goes_before(&prev) {
                    break;
                }
                unsafe { *self.buf.get_unchecked_mut(j) = prev };
                j -= 1;
            }
            unsafe { *self.buf.get_unchecked_mut(j) = e };
            self.tail += 1;
            return;
        }
        // From the earliest end, moving each event due first one slot towards the
        // front: most other new events are due before most pending ones, so few move.
        // The middle pending event goes after `e`, so the walk stops before it.
        if self.head == 0 {
            self.recentre();
        }
        self.head -= 1;
        let mut j = self.head;
        loop {
            let next = unsafe { *self.buf.get_unchecked(j + 1) };
            if goes_before(&next) {
                break;
            }
            unsafe { *self.buf.get_unchecked_mut(j) = next };
            j += 1;
        }
        unsafe { *self.buf.get_unchecked_mut(j) = e };
    }
}

pub struct EventQueue {
    pending: Pending,
    seq: u64,
    now: Ns,
    processed: u64,
}

impl Default for EventQueue {
    fn default() -> Self {
        EventQueue {
            pending: Pending::Sorted(Window::new()),
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

    /// Insert `e`. `NEWEST`: its sequence number is the largest yet (`schedule`), so
    /// every pending event due at its time or earlier goes before it, and the sorted
    /// array's scan compares times alone.
    #[inline(always)]
    fn push<const NEWEST: bool>(&mut self, e: Entry) {
        match &mut self.pending {
            Pending::Sorted(w) if w.len() < SORTED_MAX => w.insert::<NEWEST>(e),
            _ => self.push_heap(e),
        }
    }

    /// `push` when the sorted array is full (it becomes a heap) or a heap already.
    #[cold]
    #[inline(never)]
    fn push_heap(&mut self, e: Entry) {
        match &mut self.pending {
            Pending::Sorted(w) => {
                // Ascending keys are a valid min-heap (Entry's order is reversed).
                let all = w.buf[w.head..w.tail].to_vec();
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
            Pending::Sorted(w) => w.len(),
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
        self.push::<true>(Entry {
            key: ((at as u128) << 64) | self.seq as u128,
            ev,
        });
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
        self.push::<false>(Entry {
            key: ((at as u128) << 64) | seq as u128,
            ev,
        });
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
            Pending::Sorted(w) => w.first(),
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
    #[inline(always)]
    pub fn pop(&mut self) -> Option<Event> {
        let e = match &mut self.pending {
            Pending::Sorted(w) => w.pop_first()?,
            Pending::Heap(_) => self.pop_heap()?,
        };
        self.now = (e.key >> 64) as Ns;
        self.processed += 1;
        Some(e.ev)
    }

    /// `pop` from the heap form (many events pending), back to a sorted array when few
    /// are left.
    #[cold]
    #[inline(never)]
    fn pop_heap(&mut self) -> Option<Entry> {
        let Pending::Heap(h) = &mut self.pending else {
            unreachable!("called on the heap form")
        };
        let e = h.pop()?;
        if h.len() < SORTED_MIN {
            let mut v = std::mem::take(h).into_vec();
            v.sort_unstable_by_key(|e| e.key);
            self.pending = Pending::Sorted(Window::from_sorted(&v));
        }
        Some(e)
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

    /// Events due before every pending one (inserted before the head) and after
    /// every pending one (appended) run the sorted array off both ends of its buffer
    /// many times over; events pop in (time, sequence) order, as a reference sort says.
    #[test]
    fn the_sorted_array_recentres_at_both_ends() {
        let mut q = EventQueue::new();
        let mut pending: Vec<(u128, u32)> = Vec::new(); // ((time, seq), id)
        let mut id = 0u32;
        for round in 0..3_000u64 {
            let early = q.reserve_seq();
            for _ in 0..2 {
                let at = q.now() + 1_000 + round;
                q.schedule(at, Event::HostComplete { cmd: id });
                pending.push((((at as u128) << 64) | q.seq as u128, id));
                id += 1;
            }
            let at = q.now() + 1;
            q.schedule_seq(at, early, Event::HostComplete { cmd: id });
            pending.push((((at as u128) << 64) | early as u128, id));
            id += 1;
            while pending.len() > 12 {
                pending.sort_unstable_by_key(|p| std::cmp::Reverse(p.0));
                let (key, want) = pending.pop().unwrap();
                assert_eq!(q.pop(), Some(Event::HostComplete { cmd: want }));
                assert_eq!(q.now(), (key >> 64) as Ns);
            }
        }
        assert!(matches!(q.pending, Pending::Sorted(_)));
    }

    /// An insert before the head when the head is at the buffer's start (no sequence
    /// of pushes and pops reaches it, since the window grows only to `SORTED_MAX`).
    #[test]
    fn an_insert_before_a_head_at_the_start_recentres() {
        let entry = |t: u64, seq: u64| Entry {
            key: ((t as u128) << 64) | seq as u128,
            ev: Event::HostComplete { cmd: t as u32 },
        };
        let mut w = Window::new();
        for (i, t) in [10u64, 20, 30].into_iter().enumerate() {
            w.buf[i] = entry(t, i as u64);
        }
        (w.head, w.tail) = (0, 3);
        w.insert::<true>(entry(15, 9));
        let keys: Vec<u64> = std::iter::from_fn(|| w.pop_first())
            .map(|e| (e.key >> 64) as u64)
            .collect();
        assert_eq!(keys, vec![10, 15, 20, 30]);
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
