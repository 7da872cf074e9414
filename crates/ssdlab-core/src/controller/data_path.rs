//! The controller's host write data path: the DMA engine and internal bus that move a
//! write's data from the PCIe link into the write buffer.
//!
//! Models one FIFO resource of a fixed rate (`controller.write_path`): a write's data
//! is in the buffer no earlier than the link delivers it and no earlier than the path
//! has moved every byte booked before it. Unset (the default), the path never binds
//! and the link alone sets the arrival, as before. A source gives such a ceiling when
//! a controller writes at one rate over capacities whose flash parallelism differs by
//! 2-4x (the 980 PRO: 5,000 MB/s at 500 GB and 1 TB, 5,100 MB/s at 2 TB, from 8, 16
//! and 32 dies; docs/seed000-calibration.md).
//! Simplifies: the path is booked when the data is pulled, for the whole transfer,
//! and is not shared with reads, GC or map traffic (no source gives their share).

use crate::sim::{fs_per_byte, xfer_ns, Ns};

#[derive(Clone, Debug)]
pub struct WritePath {
    fs_per_byte: u64,
    free_at: Ns,
    busy_ns: u64,
}

impl WritePath {
    /// A path moving `bytes_per_s`.
    pub fn new(bytes_per_s: u64) -> Self {
        WritePath {
            fs_per_byte: fs_per_byte(bytes_per_s as f64),
            free_at: 0,
            busy_ns: 0,
        }
    }

    /// Move `bytes` whose transfer starts at `now` and whose link delivery ends at
    /// `link_arrival`: returns when the data is in the buffer.
    #[inline]
    pub fn book(&mut self, now: Ns, bytes: u64, link_arrival: Ns) -> Ns {
        let dur = xfer_ns(bytes, self.fs_per_byte);
        let start = self.free_at.max(now);
        self.free_at = start + dur;
        self.busy_ns += dur;
        self.free_at.max(link_arrival)
    }

    /// Busy time within [0, `t`] (bookings past `t` are not spent yet).
    pub fn busy_by(&self, t: Ns) -> u64 {
        self.busy_ns.saturating_sub(self.free_at.saturating_sub(t))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_to_back_transfers_pace_at_the_rate() {
        // 1 GB/s: 128 KiB takes 131,072 ns; four booked at once end 4 x that later.
        let mut p = WritePath::new(1_000_000_000);
        let mut end = 0;
        for _ in 0..4 {
            end = p.book(0, 128 << 10, 10);
        }
        assert_eq!(end, 4 * 131_072);
        assert_eq!(p.busy_by(end), 4 * 131_072);
    }

    #[test]
    fn a_slower_link_decides_the_arrival() {
        let mut p = WritePath::new(10_000_000_000);
        assert_eq!(p.book(0, 4096, 5_000), 5_000);
    }

    #[test]
    fn idle_gaps_are_not_busy() {
        let mut p = WritePath::new(1_000_000_000);
        p.book(0, 1000, 0);
        let end = p.book(1_000_000, 1000, 0);
        assert_eq!(end, 1_001_000);
        assert_eq!(p.busy_by(end), 2_000);
    }
}
