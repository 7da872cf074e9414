//! Synthetic I/O generators with fio's semantics: sequential or random offsets
//! inside [offset, offset+size), read/write mix by `rwmixread`, block size fixed,
//! per direction, from `bsrange` or weighted by `bssplit`; random offsets uniform
//! or skewed (zipf, pareto, normal, zoned); `rw=...:N` modifiers; stop after
//! `number_ios`, `io_size` bytes or `runtime`; pacing by `rate_iops` (submissions
//! at most every 1/rate), `thinktime` (after every `thinktime_blocks` I/Os, the
//! job stalls for the think time from the next completion) and the host model's
//! `host_cpu_per_io` (the job's thread is busy that long after each submission).
//!
//! Uniform random offsets follow fio's random map by default: every block of the
//! span once per pass before any repeats, one map per job shared by its reads,
//! writes and trims (`randmap.rs`: how, and what differs from fio's bitmap);
//! `norandommap` draws with replacement; `random_generator=lfsr` keeps the map
//! (fio's LFSR never repeats within a pass, with or without `norandommap`) and
//! repeats the same order each pass. As in fio, non-uniform distributions draw
//! with replacement (fio turns its map off for them), and only the random picks
//! use the map: the sequential I/Os of `percentage_random` and `rw=...:N` do not
//! (fio issues them "busy OK", unmarked).
//!
//! Simplifies: offsets are aligned to the smallest block size the job issues (fio's
//! default `blockalign`); every job starts sequential access at `offset` (no
//! `offset_increment`). Zipf and pareto draw a rank by inverting the continuous
//! power law (zipf: density ∝ x^-θ; pareto: the first fraction f of the ranks gets
//! f^h of the accesses... see `Distribution`) and scatter ranks over the span with
//! a fixed multiplicative permutation, so hot blocks are spread as fio's hashing
//! spreads them.

pub mod hostlog;
pub mod placement;
mod randmap;
mod zbd;

use crate::config::workload::Distribution;
use crate::config::{Rw, WorkloadConfig};
use crate::sim::{Ns, Rng};
use randmap::RandMap;
use zbd::ZoneEmu;
pub use zbd::{zbd_span, ZoneSet};

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

#[derive(Clone, Debug)]
enum BlockSizes {
    Fixed {
        read: u64,
        write: u64,
    },
    Range {
        lo: u64,
        hi: u64,
    },
    /// Cumulative percentages with their sizes.
    Split(Vec<(u32, u64)>),
}

/// The per-job generator, its stop rule and its pacing.
#[derive(Clone, Debug)]
pub struct JobGen {
    rng: Rng,
    rw: Rw,
    sizes: BlockSizes,
    align: u64,
    dist: Distribution,
    /// fio's random map for uniform random offsets (None: drawn with replacement).
    map: Option<RandMap>,
    mix_read: u64,
    start: u64,
    span: u64,
    slots: u64,
    next_seq: u64,
    seq_skip: u64,
    seq_back: u64,
    startdelay_ns: Ns,
    poisson: bool,
    rate_bytes: u64,
    /// trimwrite: the block just trimmed, to be written next.
    trimmed: Option<(u64, u64)>,
    random_run: u32,
    pct_random: u64,
    run_left: u32,
    run_next: u64,
    max_ios: u64,
    max_bytes: u64,
    runtime_ns: Option<Ns>,
    deadline: Ns,
    /// Pacing: minimum gap between submissions (rate_iops), think time per block.
    gap_ns: Ns,
    think_ns: Ns,
    think_blocks: u64,
    /// A think period starts at the next completion.
    think_pending: bool,
    /// `host_cpu_per_io`: the job's thread is busy this long after each submission.
    cpu_ns: Ns,
    /// Earliest time of the next submission.
    pub next_at: Ns,
    pub issued_ios: u64,
    pub issued_bytes: u64,
    /// fio's zone modes (`zbd.rs`); None for most jobs.
    zones: Option<Box<ZoneEmu>>,
}

/// A large odd multiplier for scattering ranks over the span.
const SCATTER: u64 = 0x9E37_79B9_7F4A_7C15;

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

impl JobGen {
    pub fn new(w: &WorkloadConfig, capacity: u64, seed: u64, job: u32) -> Self {
        let mut span = w.span(capacity);
        let mut start = w.offset.bytes();
        let zones = w.zoned.as_ref().map(|z| {
            if z.mode == crate::config::zoned_job::ZoneMode::Zbd {
                if let Some((lo, n)) = zbd_span(z, start, span) {
                    (start, span) = (lo, n);
                }
            }
            Box::new(ZoneEmu::new(z, start, span))
        });
        let sizes = if !w.bssplit.is_empty() {
            let mut acc = 0;
            BlockSizes::Split(
                w.bssplit
                    .iter()
                    .map(|(b, p)| {
                        acc += p;
                        (acc, b.bytes())
                    })
                    .collect(),
            )
        } else if let Some((lo, hi)) = w.bsrange {
            BlockSizes::Range {
                lo: lo.bytes(),
                hi: hi.bytes(),
            }
        } else {
            BlockSizes::Fixed {
                read: w.bs.bytes(),
                write: w.bs_write.map_or(w.bs.bytes(), |b| b.bytes()),
            }
        };
        let align = match &sizes {
            BlockSizes::Fixed { read, write } => *read.min(write),
            BlockSizes::Range { lo, .. } => *lo,
            BlockSizes::Split(v) => v.iter().map(|x| x.1).min().unwrap_or(512),
        }
        .max(512);
        let io_size = w.io_size.map(|s| s.bytes());
        let (max_ios, max_bytes) = match (w.number_ios, io_size, w.runtime) {
            // Both bounds, as in fio: number_ios only ever stops a job sooner.
            (Some(n), b, _) => (n, b.unwrap_or(u64::MAX)),
            (None, Some(b), _) => (u64::MAX, b),
            (None, None, Some(_)) => (u64::MAX, u64::MAX),
            (None, None, None) => (u64::MAX, span), // fio: io_size defaults to size
        };
        let rng = match w.randseed {
            Some(s) => Rng::derive(s, 1 + job as u64),
            None => Rng::derive(seed, 1 + job as u64),
        };
        let dist = Distribution::parse(&w.random_distribution).unwrap_or(Distribution::Uniform);
        let slots = (span / align).max(1);
        let lfsr = w.random_generator == "lfsr";
        let map = (w.rw.is_random() && dist == Distribution::Uniform && (lfsr || !w.norandommap))
            .then(|| {
                // The map's own stream: the job's other draws stay as without a map.
                let key = w.randseed.unwrap_or(seed) ^ 0x5241_4E44_4D41_5000;
                RandMap::new(slots, Rng::derive(key, 1 + job as u64), !lfsr)
            });
        JobGen {
            rng,
            rw: w.rw,
            sizes,
            align,
            dist,
            map,
            mix_read: w.rwmixread as u64,
            start,
            span,
            slots,
            next_seq: 0,
            seq_skip: w.seq_skip.bytes(),
            seq_back: w.seq_skip_back.bytes(),
            startdelay_ns: w.startdelay.ns(),
            poisson: w.rate_process == "poisson",
            rate_bytes: w.rate_bytes.map_or(0, |r| r.bytes()),
            trimmed: None,
            random_run: w.random_run.max(1),
            pct_random: w.percentage_random as u64,
            run_left: 0,
            run_next: 0,
            max_ios,
            max_bytes,
            runtime_ns: w.runtime.map(|r| r.ns()),
            deadline: w.runtime.map(|r| r.ns()).unwrap_or(Ns::MAX),
            gap_ns: w.rate_iops.map_or(0, |r| 1_000_000_000 / r.max(1)),
            think_ns: w.thinktime.ns(),
            think_blocks: w.thinktime_blocks.max(1) as u64,
            think_pending: false,
            cpu_ns: w.host_cpu_per_io.ns(),
            next_at: 0,
            issued_ios: 0,
            issued_bytes: 0,
            zones,
        }
    }

    /// Zone resets of a job with `zonemode=zbd` (fio's `nr_zone_resets`).
    pub fn zone_resets(&self) -> u64 {
        self.zones.as_ref().map_or(0, |z| z.resets)
    }

    /// The job's group begins at `now`: the job starts `startdelay` later, and its
    /// runtime counts from then (as fio starts a delayed job's thread only then).
    /// Returns when the job starts.
    pub fn start_at(&mut self, now: Ns) -> Ns {
        let start = now.saturating_add(self.startdelay_ns);
        self.deadline = self.runtime_ns.map_or(Ns::MAX, |r| start.saturating_add(r));
        self.next_at = start;
        start
    }

    /// The job issues nothing from `now` on (its group has settled, `ssd/settle.rs`).
    pub fn stop_at(&mut self, now: Ns) {
        self.deadline = self.deadline.min(now);
    }

    /// May the job issue another I/O at time `now` (stop rule only, not pacing)?
    #[inline]
    pub fn can_issue(&self, now: Ns) -> bool {
        self.issued_ios < self.max_ios && self.issued_bytes < self.max_bytes && now < self.deadline
    }

    fn pick_bs(&mut self, kind: OpKind) -> u64 {
        match &self.sizes {
            BlockSizes::Fixed { read, write } => {
                if kind == OpKind::Write {
                    *write
                } else {
                    *read
                }
            }
            BlockSizes::Range { lo, hi } => {
                let steps = (hi - lo) / 512 + 1;
                lo + self.rng.below(steps) * 512
            }
            BlockSizes::Split(v) => {
                let r = self.rng.below(100) as u32;
                v.iter()
                    .find(|(acc, _)| r < *acc)
                    .map_or(v[v.len() - 1].1, |x| x.1)
            }
        }
    }

    /// A random slot under the job's distribution.
    fn random_slot(&mut self) -> u64 {
        let n = self.slots;
        let rank = match &self.dist {
            Distribution::Uniform => {
                return match &mut self.map {
                    Some(map) => map.next(),
                    None => self.rng.below(n),
                }
            }
            Distribution::Zipf(theta) => {
                let u = self.rng.unit_f64();
                let nf = n as f64;
                let x = if (theta - 1.0).abs() < 1e-9 {
                    nf.powf(u)
                } else {
                    let a = 1.0 - theta;
                    ((nf.powf(a) - 1.0) * u + 1.0).powf(1.0 / a)
                };
                (x as u64).saturating_sub(1).min(n - 1)
            }
            Distribution::Pareto(h) => {
                // The first fraction f of the ranks receives f^h of the accesses.
                let u = self.rng.unit_f64();
                ((u.powf(1.0 / h) * n as f64) as u64).min(n - 1)
            }
            Distribution::Normal(sd) => {
                // Box-Muller, centred in the span, clamped to it.
                let (u1, u2) = (self.rng.unit_f64().max(1e-300), self.rng.unit_f64());
                let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
                let x = 0.5 + z * sd;
                return ((x.clamp(0.0, 1.0 - 1e-12)) * n as f64) as u64;
            }
            Distribution::Zoned(zones) => {
                let mut r = self.rng.unit_f64();
                let mut base = 0.0;
                for &(acc, range) in zones {
                    if r < acc || acc == zones[zones.len() - 1].0 {
                        let within = (r / acc.max(1e-12)).min(1.0 - 1e-12);
                        let x = (base + within * range).min(1.0 - 1e-12);
                        return (x * n as f64) as u64;
                    }
                    r -= acc;
                    base += range;
                }
                return self.rng.below(n);
            }
        };
        // Spread ranks over the span by a fixed bijection.
        let mut m = SCATTER % n;
        while n > 1 && gcd(m, n) != 1 {
            m += 1;
        }
        ((rank as u128 * m.max(1) as u128) % n as u128) as u64
    }

    /// One of the job's I/Os completed at `now`: a due think period starts (fio's
    /// thinktime stalls the job after `thinktime_blocks` I/Os have been issued and
    /// one completes).
    #[inline]
    pub fn on_complete(&mut self, now: Ns) {
        if self.think_pending {
            self.think_pending = false;
            self.next_at = self.next_at.max(now + self.think_ns);
        }
    }

    /// The next I/O (call only when `can_issue`); also advances the pacing clock.
    #[inline]
    pub fn next_io(&mut self, now: Ns) -> Io {
        self.next_io_in(now, None)
    }

    /// `next_io` with the drive's zones for a zbd job (`ZoneSet`, shared by its jobs).
    #[inline]
    pub fn next_io_in(&mut self, now: Ns, zones: Option<&mut ZoneSet>) -> Io {
        if let Some((offset, len)) = self.trimmed.take() {
            // trimwrite: the block trimmed last is written now.
            return self.issued(now, OpKind::Write, offset, len);
        }
        let mut kind = match self.rw {
            Rw::Read | Rw::RandRead => OpKind::Read,
            Rw::Write | Rw::RandWrite => OpKind::Write,
            Rw::Trim | Rw::RandTrim | Rw::TrimWrite | Rw::RandTrimWrite => OpKind::Trim,
            Rw::Rw | Rw::RandRw => {
                if self.rng.below(100) < self.mix_read {
                    OpKind::Read
                } else {
                    OpKind::Write
                }
            }
        };
        let mut len = self.pick_bs(kind);
        if let Some(z) = self.zones.as_deref_mut() {
            if z.is_strided() && !self.rw.is_random() {
                let (pos, skipped) = z.strided_next(self.next_seq);
                self.next_seq = pos;
                self.issued_bytes += skipped;
            }
        }
        let mut off = if self.rw.is_random() {
            if self.run_left == 0 {
                // percentage_random < 100: the others continue where the last ended.
                if self.pct_random >= 100 || self.rng.below(100) < self.pct_random {
                    self.run_next = self.random_slot() * self.align;
                }
                self.run_left = self.random_run;
            }
            self.run_left -= 1;
            let o = self.run_next;
            self.run_next = (self.run_next + len) % self.span.max(1);
            o
        } else {
            let o = self.next_seq;
            if self.seq_back > len {
                // Backwards: from the end of the span once the start is passed.
                let back = self.seq_back - len;
                self.next_seq = match self.next_seq.checked_sub(back) {
                    Some(n) => n,
                    None => (self.span.saturating_sub(len) / self.align) * self.align,
                };
            } else {
                self.next_seq += len + self.seq_skip - self.seq_back;
                if self.next_seq + self.align > self.span {
                    self.next_seq = 0;
                }
            }
            o
        };
        if off + len > self.span && self.map.is_some() && off + self.align <= self.span {
            // A random map's pick keeps its offset and gets a block that fits (fio
            // picks the block size after the offset, among those that fit).
            len = (self.span - off) / 512 * 512;
        } else if off + len > self.span {
            // Keep the I/O inside the span (aligned down).
            off = (self.span - len.min(self.span)) / self.align * self.align;
        }
        if self.zones.is_some() {
            match self.zoned(kind, off, len, zones) {
                Some((k, o, l)) => (kind, off, len) = (k, o, l),
                None => {
                    // The job can do no more (fio's end of file): an empty I/O,
                    // which is not submitted, and the job stops.
                    self.max_ios = self.issued_ios;
                    return Io {
                        kind,
                        offset: 0,
                        len: 0,
                    };
                }
            }
        }
        if matches!(self.rw, Rw::TrimWrite | Rw::RandTrimWrite) {
            self.trimmed = Some((self.start + off, len));
        }
        self.issued(now, kind, self.start + off, len)
    }

    /// A zone mode's move of the I/O picked at `off` (span-relative), `len` bytes.
    #[cold]
    fn zoned(
        &mut self,
        kind: OpKind,
        off: u64,
        len: u64,
        set: Option<&mut ZoneSet>,
    ) -> Option<(OpKind, u64, u64)> {
        let random = self.rw.is_random();
        let z = self.zones.as_deref_mut()?;
        // fio's zbd_adjust_ddir: a mixed job's read with nothing written yet is a write.
        let readable = z.readable(set.as_deref());
        let kind = if kind == OpKind::Read && self.rw.is_mixed() && !readable {
            OpKind::Write
        } else {
            kind
        };
        if z.is_strided() {
            let off = if random {
                z.strided_random(off, self.align)
            } else {
                off
            };
            z.strided_done(len);
            return Some((kind, off, len.min(self.span - off)));
        }
        let set = set?; // a zbd job runs with the drive's zones (Ssd passes them)
        let (abs, l) = z.adjust(set, kind, self.start + off, len, self.align, random)?;
        let off = abs - self.start;
        if !random {
            let (next, skipped) = z.seq_after(set, off + l);
            self.next_seq = next;
            self.issued_bytes += skipped;
        }
        Some((kind, off, l))
    }

    /// Count an I/O and advance the pacing clock.
    fn issued(&mut self, now: Ns, kind: OpKind, offset: u64, len: u64) -> Io {
        self.issued_ios += 1;
        self.issued_bytes += len;
        // Pacing for the next submission.
        let mut next = self.next_at.max(now);
        let mean_gap = if self.rate_bytes > 0 {
            // fio's `rate`: this I/O's length at the byte rate (the larger gap wins).
            let g = (len as u128 * 1_000_000_000 / self.rate_bytes as u128).min(1 << 60) as Ns;
            g.max(self.gap_ns)
        } else {
            self.gap_ns
        };
        if mean_gap > 0 {
            let gap = if self.poisson {
                // Exponential gaps with the same mean: Poisson arrivals.
                let u = self.rng.unit_f64().max(1e-12);
                ((-u.ln()) * mean_gap as f64).min(1e15) as Ns
            } else {
                mean_gap
            };
            next = self.next_at.saturating_add(gap).max(now);
        }
        if self.think_ns > 0 && self.issued_ios.is_multiple_of(self.think_blocks) {
            self.think_pending = true;
        }
        if self.cpu_ns > 0 {
            // The host thread spent its time on this I/O before it can issue another.
            next = next.max(now.saturating_add(self.cpu_ns));
        }
        self.next_at = next;
        Io { kind, offset, len }
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
            std::iter::from_fn(|| g.can_issue(0).then(|| g.next_io(0).offset)).collect();
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
            let io = g.next_io(0);
            assert_eq!(io.offset % 8192, 0);
            assert!(io.offset + io.len <= 1 << 30);
            reads += (io.kind == OpKind::Read) as u32;
        }
        let share = reads as f64 / 20000.0;
        assert!((share - 0.7).abs() < 0.02, "{share}");
    }

    #[test]
    fn trimwrite_writes_each_trimmed_block_and_backwards_wraps() {
        let mut g = JobGen::new(
            &w(r#"{"rw":"trimwrite","bs":"4KiB","size":"16KiB","number_ios":4}"#),
            1 << 20,
            1,
            0,
        );
        let ios: Vec<(OpKind, u64)> = std::iter::from_fn(|| {
            g.can_issue(0).then(|| {
                let io = g.next_io(0);
                (io.kind, io.offset)
            })
        })
        .collect();
        assert_eq!(
            ios,
            vec![
                (OpKind::Trim, 0),
                (OpKind::Write, 0),
                (OpKind::Trim, 4096),
                (OpKind::Write, 4096)
            ]
        );
        let mut g = JobGen::new(
            &w(r#"{"rw":"read","bs":"4KiB","size":"16KiB","seq_skip_back":"8KiB","number_ios":5}"#),
            1 << 20,
            1,
            0,
        );
        let offs: Vec<u64> =
            std::iter::from_fn(|| g.can_issue(0).then(|| g.next_io(0).offset)).collect();
        assert_eq!(offs, vec![0, 12288, 8192, 4096, 0]);
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
            g.next_io(0);
            n += 1;
        }
        assert_eq!(n, 16);
    }
}
