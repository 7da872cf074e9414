//! A network port's busy intervals, so that a message reserved later but due earlier
//! fills a gap before messages already reserved for later times (a NIC interleaves the
//! packets of its queue pairs; a 64 B command capsule does not wait behind a 128 KiB
//! transfer that another command reserved for a millisecond from now).
//!
//! Simplifies: a message takes one contiguous interval of the port (no splitting
//! across gaps); intervals that ended before the fabric's current time are dropped,
//! and touching intervals are merged, so a saturated port holds a few intervals.

use crate::sim::Ns;
use std::collections::VecDeque;

#[derive(Clone, Debug, Default)]
pub(crate) struct Calendar {
    /// Busy intervals [start, end), sorted, disjoint, not touching.
    busy: VecDeque<(Ns, Ns)>,
}

impl Calendar {
    /// Reserve `dur` at the earliest start at or after `earliest` where the port is
    /// free for that long; intervals ending by `now` are forgotten first.
    pub fn reserve(&mut self, now: Ns, earliest: Ns, dur: Ns) -> Ns {
        while self.busy.front().is_some_and(|&(_, e)| e <= now) {
            self.busy.pop_front();
        }
        let mut start = earliest;
        // Intervals are sorted and disjoint, so their ends are sorted too: skip the
        // ones ending by `earliest` with a binary search (a loaded port holds many
        // intervals reserved ahead; most new messages go at or near the end).
        let mut at = self.busy.partition_point(|&(_, e)| e <= start);
        while at < self.busy.len() {
            let (s, e) = self.busy[at];
            if s >= start + dur {
                break;
            }
            start = start.max(e);
            at += 1;
        }
        let end = start + dur;
        // Insert [start, end) before index `at`, merging with touching neighbours.
        let touches_prev = at > 0 && self.busy[at - 1].1 == start;
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
        assert_eq!(c.busy.len(), 1, "{:?}", c.busy); // all merged: [0, 1600)
        assert_eq!(c.reserve(2000, 0, 10), 0); // the past is forgotten
        assert_eq!(c.busy.len(), 1);
    }
}
