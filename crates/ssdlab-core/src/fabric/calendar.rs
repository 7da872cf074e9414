//! A network port's busy intervals, so that a message reserved later but due earlier
//! fills a gap before messages already reserved for later times (a NIC interleaves the
//! packets of its queue pairs; a 64 B command capsule does not wait behind a 128 KiB
//! transfer that another command reserved for a millisecond from now).
//!
//! Simplifies: a message takes one contiguous interval of the port (no splitting
//! across gaps); intervals that ended before the fabric's current time are dropped,
//! and touching intervals are merged, so a saturated port holds a few intervals.

use crate::sim::Ns;

/// Forgotten intervals are dropped from the array's front once this many pile up
/// (a port holds about two live intervals, so the drop is rare and short).
const DROP_AFTER: usize = 32;

#[derive(Clone, Debug, Default)]
pub(crate) struct Calendar {
    /// Busy intervals [start, end) from `head` on, sorted, disjoint, not touching;
    /// those before `head` ended by the fabric's current time and are forgotten.
    busy: Vec<(Ns, Ns)>,
    head: usize,
}

impl Calendar {
    /// Reserve `dur` at the earliest start at or after `earliest` where the port is
    /// free for that long; intervals ending by `now` are forgotten first.
    pub fn reserve(&mut self, now: Ns, earliest: Ns, dur: Ns) -> Ns {
        while self.head < self.busy.len() && self.busy[self.head].1 <= now {
            self.head += 1;
        }
        if self.head >= DROP_AFTER {
            self.busy.drain(..self.head);
            self.head = 0;
        }
        // Most messages go after every interval reserved so far, or queue behind the
        // last one (a port's reservations mostly come in time order): append, or
        // extend the last interval.
        let live = self.head < self.busy.len();
        match self.busy.last_mut() {
            Some(last) if live && last.0 <= earliest => {
                let start = earliest.max(last.1);
                if last.1 == start {
                    last.1 = start + dur;
                } else {
                    self.busy.push((start, start + dur));
                }
                return start;
            }
            None => {
                self.busy.push((earliest, earliest + dur));
                return earliest;
            }
            _ => {}
        }
        let mut start = earliest;
        // Intervals are sorted and disjoint, so their ends are sorted too: skip the
        // ones ending by `earliest` with a binary search (a loaded port holds many
        // intervals reserved ahead; most new messages go at or near the end).
        let live = &self.busy[self.head..];
        let mut at = self.head + live.partition_point(|&(_, e)| e <= start);
        while let Some(&(s, e)) = self.busy.get(at) {
            if s >= start + dur {
                break;
            }
            start = start.max(e);
            at += 1;
        }
        let end = start + dur;
        // Insert [start, end) before index `at`, merging with touching neighbours.
        let touches_prev = at > self.head && self.busy[at - 1].1 == start;
        let touches_next = at < self.busy.len() && self.busy[at].0 == end;
        match (touches_prev, touches_next) {
            (true, true) => {
                let next_end = self.busy[at].1;
                self.busy[at - 1].1 = next_end;
                self.busy.remove(at);
            }
            (true, false) => self.busy[at - 1].1 = end,
            (false, true) => self.busy[at].0 = start,
            (false, false) => self.busy.insert(at, (start, end)),
        }
        start
    }

    /// Live intervals (a test's view).
    #[cfg(test)]
    fn live(&self) -> usize {
        self.busy.len() - self.head
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn later_reservations_fill_earlier_gaps() {
        let mut c = Calendar::default();
        assert_eq!(c.reserve(0, 1000, 500), 1000); // [1000, 1500)
        assert_eq!(c.reserve(0, 0, 100), 0); // fits before it
        assert_eq!(c.reserve(0, 950, 100), 1500); // overlaps: after it
        assert_eq!(c.reserve(0, 100, 900), 100); // [100, 1000): exactly the gap
        assert_eq!(c.live(), 1, "{:?}", c.busy); // all merged: [0, 1600)
        assert_eq!(c.reserve(2000, 0, 10), 0); // the past is forgotten
        assert_eq!(c.live(), 1);
    }

    /// The shortcut for messages at or behind the last interval gives what the
    /// general search gives: a reference port (a list of busy intervals searched from
    /// the start) takes the same random reservations, most of them in time order.
    #[test]
    fn reservations_match_a_first_fit_reference() {
        let mut rng = crate::sim::Rng::new(3);
        let mut c = Calendar::default();
        let mut reference: Vec<(Ns, Ns)> = Vec::new();
        let mut now = 0;
        for _ in 0..20_000 {
            now += rng.below(40);
            let earliest = now
                + if rng.below(8) == 0 {
                    rng.below(3_000)
                } else {
                    rng.below(50)
                };
            let dur = 1 + rng.below(300);
            let mut start = earliest;
            reference.sort_unstable();
            for &(s, e) in &reference {
                if s < start + dur && e > start {
                    start = e;
                }
            }
            reference.push((start, start + dur));
            reference.retain(|&(_, e)| e > now);
            assert_eq!(c.reserve(now, earliest, dur), start);
        }
        assert!(c.busy.len() < 4 * DROP_AFTER, "{}", c.busy.len());
    }
}
