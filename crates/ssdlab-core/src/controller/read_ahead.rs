//! Read-ahead: the controller spots sequential read streams and reads the units
//! ahead of them from NAND into its read cache, so that the stream's next commands
//! find their data in the controller (DRAM on a DRAM drive, SRAM on a DRAM-less one,
//! or the HMB) instead of waiting a tR.
//!
//! Detection, per stream (a small table, least recently used replaced): a host read
//! that starts at the unit after the stream's last read (or inside that last unit:
//! sub-unit reads) continues it; after `trigger` such commands in a row the stream
//! is sequential and the controller keeps `window_units` read ahead of it, topping
//! the window up by at least half a window at a time (so that prefetches go out as
//! page-sized reads, not one unit after each command). A read that continues no
//! stream starts a new one.
//!
//! In flight: each prefetch read is remembered until its data is in the cache, so
//! that a host read of a unit on its way waits for it rather than reading the page
//! a second time.
//!
//! Simplifies: forward streams only (no backward or strided detection); the window
//! is fixed (no adaptive growth as in Linux's readahead); prefetches take the host
//! reads' queue on their die (no lower priority); a prefetch whose map entry is not
//! at hand stops the window there (no map load is started for a guess).

/// Counters of the read-ahead (in the report under `device.read_cache.read_ahead`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReadAheadStats {
    /// Host read commands that continued a sequential stream past its trigger.
    pub sequential_reads: u64,
    /// Mapping units read ahead from NAND.
    pub units: u64,
    /// Flash read transactions issued for them (one per page touched).
    pub reads: u64,
    /// Host units that arrived while their prefetch was still in flight (they wait
    /// for it instead of reading NAND again).
    pub joined: u64,
    /// Prefetched units dropped before use because they were rewritten or moved while
    /// in flight.
    pub dropped: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Stream {
    /// The unit after the stream's last read.
    next: u32,
    /// First unit not yet read ahead.
    ahead: u32,
    /// Commands in a row that continued the stream.
    run: u32,
    /// Last use (for replacement).
    stamp: u64,
    used: bool,
}

/// One prefetch read in flight: units `lpn..lpn + n`, flash transaction `txn`.
#[derive(Clone, Copy, Debug)]
struct InFlight {
    lpn: u32,
    n: u32,
    txn: u32,
}

#[derive(Clone, Debug)]
pub struct ReadAhead {
    streams: Vec<Stream>,
    window_units: u32,
    /// Top-ups end on a multiple of this (a flash page's units), so that read-ahead
    /// goes out in whole pages.
    align_units: u32,
    trigger: u32,
    clock: u64,
    /// The stream of the last range handed out.
    last: usize,
    in_flight: Vec<InFlight>,
    pub stats: ReadAheadStats,
}

impl ReadAhead {
    /// A read-ahead of `window_units` mapping units per stream, `streams` streams,
    /// starting after `trigger` sequential commands, in whole runs of `align_units`.
    pub fn new(window_units: u32, streams: u32, trigger: u32, align_units: u32) -> Self {
        ReadAhead {
            streams: vec![Stream::default(); streams.max(1) as usize],
            window_units: window_units.max(1),
            align_units: align_units.max(1),
            trigger: trigger.max(1),
            clock: 0,
            last: 0,
            in_flight: Vec::new(),
            stats: ReadAheadStats::default(),
        }
    }

    /// A host read of units `first..first + n` arrived: the units to read ahead now
    /// (`lo..hi`), if any. If the drive reads ahead less (`stopped_at`), the rest is
    /// offered again at the stream's next command.
    pub fn on_read(&mut self, first: u32, n: u32) -> Option<(u32, u32)> {
        self.clock += 1;
        let end = first.saturating_add(n);
        let hit = self
            .streams
            .iter()
            .position(|s| s.used && (first == s.next || (first < s.next && end >= s.next)));
        let Some(i) = hit else {
            let lru = (0..self.streams.len())
                .min_by_key(|&i| (self.streams[i].used, self.streams[i].stamp))
                .expect("at least one stream");
            self.streams[lru] = Stream {
                next: end,
                ahead: end,
                run: 1,
                stamp: self.clock,
                used: true,
            };
            return None;
        };
        let s = &mut self.streams[i];
        s.stamp = self.clock;
        s.run = s.run.saturating_add(1);
        s.next = s.next.max(end);
        s.ahead = s.ahead.max(s.next);
        if s.run < self.trigger {
            return None;
        }
        self.stats.sequential_reads += 1;
        let a = self.align_units;
        let target = s
            .next
            .saturating_add(self.window_units)
            .saturating_add(a - 1)
            / a
            * a;
        // Top up once at least half the window is used.
        if target.saturating_sub(s.ahead) < self.window_units.div_ceil(2) {
            return None;
        }
        let lo = s.ahead;
        s.ahead = target;
        self.last = i;
        Some((lo, target))
    }

    /// The range `on_read` last gave was read ahead only up to `lpn` (a map entry
    /// not at hand): the stream's window ends there for now.
    pub fn stopped_at(&mut self, lpn: u32) {
        let s = &mut self.streams[self.last];
        s.ahead = s.ahead.min(lpn);
    }

    /// A prefetch read of `lpn..lpn + n` went out as transaction `txn`.
    pub fn issued(&mut self, lpn: u32, n: u32, txn: u32) {
        self.stats.units += n as u64;
        self.stats.reads += 1;
        self.in_flight.push(InFlight { lpn, n, txn });
    }

    /// The prefetch transaction holding unit `lpn` in flight, if any.
    pub fn in_flight(&self, lpn: u32) -> Option<u32> {
        self.in_flight
            .iter()
            .find(|f| lpn >= f.lpn && lpn - f.lpn < f.n)
            .map(|f| f.txn)
    }

    /// Prefetch transaction `txn` has its data out of the die.
    pub fn landed(&mut self, txn: u32) {
        if let Some(p) = self.in_flight.iter().position(|f| f.txn == txn) {
            self.in_flight.swap_remove(p);
        }
    }

    #[cfg(test)]
    pub fn in_flight_reads(&self) -> usize {
        self.in_flight.len()
    }

    pub fn window_units(&self) -> u32 {
        self.window_units
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_is_read_ahead_after_its_trigger_and_topped_up_by_half_windows() {
        let mut ra = ReadAhead::new(8, 2, 2, 1);
        assert_eq!(ra.on_read(100, 1), None, "first command: not yet a stream");
        assert_eq!(
            ra.on_read(101, 1),
            Some((102, 110)),
            "second: trigger reached"
        );
        assert_eq!(ra.on_read(102, 1), None, "window still 7 of 8 ahead");
        assert_eq!(ra.on_read(103, 1), None);
        assert_eq!(ra.on_read(104, 1), None);
        // After 105 the stream's next is 106: 4 of 8 ahead, half the window used: top up.
        assert_eq!(ra.on_read(105, 1), Some((110, 114)));
        assert_eq!(ra.stats.sequential_reads, 5);
    }

    #[test]
    fn sub_unit_reads_continue_a_stream_and_random_reads_do_not() {
        let mut ra = ReadAhead::new(4, 1, 3, 1);
        assert_eq!(ra.on_read(10, 1), None);
        assert_eq!(ra.on_read(10, 1), None, "inside the last unit: run 2");
        assert_eq!(
            ra.on_read(10, 2),
            Some((12, 16)),
            "run 3 reaches the trigger"
        );
        assert_eq!(ra.on_read(500, 1), None, "a jump starts a new stream");
        assert_eq!(
            ra.on_read(12, 1),
            None,
            "the old stream was replaced (one slot)"
        );
    }

    #[test]
    fn top_ups_end_on_whole_pages() {
        let mut ra = ReadAhead::new(8, 1, 2, 4);
        ra.on_read(1, 1);
        assert_eq!(ra.on_read(2, 1), Some((3, 12)), "3 + 8 = 11, up to 12");
        assert_eq!(ra.on_read(3, 1), None);
        assert_eq!(ra.on_read(4, 1), Some((12, 16)), "5 + 8 = 13, up to 16");
        for l in 5..8 {
            assert_eq!(ra.on_read(l, 1), None, "{l}");
        }
        assert_eq!(ra.on_read(8, 1), Some((16, 20)));
    }

    #[test]
    fn a_window_cut_short_is_offered_again() {
        let mut ra = ReadAhead::new(8, 1, 2, 1);
        ra.on_read(0, 1);
        assert_eq!(ra.on_read(1, 1), Some((2, 10)));
        ra.stopped_at(5);
        assert_eq!(ra.on_read(2, 1), Some((5, 11)), "from where it stopped");
    }

    #[test]
    fn two_interleaved_streams_are_both_followed() {
        let mut ra = ReadAhead::new(4, 2, 2, 1);
        ra.on_read(0, 1);
        ra.on_read(1000, 1);
        assert_eq!(ra.on_read(1, 1), Some((2, 6)));
        assert_eq!(ra.on_read(1001, 1), Some((1002, 1006)));
    }

    #[test]
    fn in_flight_units_are_found_until_they_land() {
        let mut ra = ReadAhead::new(8, 1, 1, 1);
        ra.issued(40, 4, 7);
        ra.issued(44, 4, 9);
        assert_eq!(ra.in_flight(43), Some(7));
        assert_eq!(ra.in_flight(44), Some(9));
        assert_eq!(ra.in_flight(48), None);
        ra.landed(7);
        assert_eq!(ra.in_flight(41), None);
        assert_eq!(ra.in_flight_reads(), 1);
        assert_eq!((ra.stats.units, ra.stats.reads), (8, 2));
    }
}
