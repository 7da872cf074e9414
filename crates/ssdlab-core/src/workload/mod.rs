//! Synthetic I/O generators with fio's semantics: sequential or uniformly random
//! offsets aligned to `bs` inside [offset, offset+size), read/write mix by
//! `rwmixread`, stop after `number_ios`, `io_size` bytes or `runtime`.
//!
//! Simplifies: random offsets may repeat (fio's `norandommap` behaviour); every job
//! of a run starts sequential access at `offset` (fio without `offset_increment`).

use crate::config::{Rw, WorkloadConfig};
use crate::sim::{Ns, Rng};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    Read,
    Write,
    Trim,
}

impl OpKind {
    pub fn index(self) -> usize {
        self as usize
    }
}

/// One host I/O to issue.
#[derive(Clone, Copy, Debug)]
pub struct Io {
    pub kind: OpKind,
    pub offset: u64,
    pub len: u64,
}

/// The per-job generator and its stop rule.
#[derive(Clone, Debug)]
pub struct JobGen {
    rng: Rng,
    rw: Rw,
    bs: u64,
    mix_read: u64,
    start: u64,
    slots: u64,
    next_seq: u64,
    max_ios: u64,
    max_bytes: u64,
    deadline: Ns,
    pub issued_ios: u64,
    pub issued_bytes: u64,
}

impl JobGen {
    pub fn new(w: &WorkloadConfig, capacity: u64, seed: u64, job: u32) -> Self {
        let span = w.span(capacity);
        let bs = w.bs.bytes();
        let io_size = w.io_size.map(|s| s.bytes());
        let (max_ios, max_bytes) = match (w.number_ios, io_size, w.runtime) {
            (Some(n), _, _) => (n, u64::MAX),
            (None, Some(b), _) => (u64::MAX, b),
            (None, None, Some(_)) => (u64::MAX, u64::MAX),
            (None, None, None) => (u64::MAX, span), // fio: io_size defaults to size
        };
        JobGen {
            rng: Rng::derive(seed, 1 + job as u64),
            rw: w.rw,
            bs,
            mix_read: w.rwmixread as u64,
            start: w.offset.bytes(),
            slots: (span / bs).max(1),
            next_seq: 0,
            max_ios,
            max_bytes,
            deadline: w.runtime.map(|r| r.ns()).unwrap_or(Ns::MAX),
            issued_ios: 0,
            issued_bytes: 0,
        }
    }

    /// May the job issue another I/O at time `now`?
    #[inline]
    pub fn can_issue(&self, now: Ns) -> bool {
        self.issued_ios < self.max_ios && self.issued_bytes < self.max_bytes && now < self.deadline
    }

    /// The next I/O (call only when `can_issue`).
    #[inline]
    pub fn next_io(&mut self) -> Io {
        let kind = match self.rw {
            Rw::Read | Rw::RandRead => OpKind::Read,
            Rw::Write | Rw::RandWrite => OpKind::Write,
            Rw::Trim | Rw::RandTrim => OpKind::Trim,
            Rw::Rw | Rw::RandRw => {
                if self.rng.below(100) < self.mix_read {
                    OpKind::Read
                } else {
                    OpKind::Write
                }
            }
        };
        let slot = if self.rw.is_random() {
            self.rng.below(self.slots)
        } else {
            let s = self.next_seq;
            self.next_seq = (self.next_seq + 1) % self.slots;
            s
        };
        self.issued_ios += 1;
        self.issued_bytes += self.bs;
        Io {
            kind,
            offset: self.start + slot * self.bs,
            len: self.bs,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(json: &str) -> WorkloadConfig {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn sequential_wraps_inside_span() {
        let mut g = JobGen::new(
            &w(r#"{"rw":"read","bs":"4KiB","offset":"8KiB","size":"16KiB","number_ios":6}"#),
            1 << 20,
            1,
            0,
        );
        let offs: Vec<u64> =
            std::iter::from_fn(|| g.can_issue(0).then(|| g.next_io().offset)).collect();
        assert_eq!(offs, vec![8192, 12288, 16384, 20480, 8192, 12288]);
    }

    #[test]
    fn random_is_aligned_in_span_and_mix_is_respected() {
        let mut g = JobGen::new(
            &w(r#"{"rw":"randrw","bs":"8KiB","rwmixread":70,"number_ios":20000}"#),
            1 << 30,
            1,
            0,
        );
        let mut reads = 0;
        while g.can_issue(0) {
            let io = g.next_io();
            assert_eq!(io.offset % 8192, 0);
            assert!(io.offset + io.len <= 1 << 30);
            reads += (io.kind == OpKind::Read) as u32;
        }
        let share = reads as f64 / 20000.0;
        assert!((share - 0.7).abs() < 0.02, "{share}");
    }

    #[test]
    fn default_stop_is_one_pass_over_size() {
        let mut g = JobGen::new(
            &w(r#"{"rw":"write","bs":"4KiB","size":"64KiB"}"#),
            1 << 20,
            1,
            0,
        );
        let mut n = 0;
        while g.can_issue(0) {
            g.next_io();
            n += 1;
        }
        assert_eq!(n, 16);
    }
}
