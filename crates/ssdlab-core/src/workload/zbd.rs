//! fio's zone modes on the host side of a job (fio's HOWTO "I/O zones"; fio's
//! `zbd.c` and `io_u.c`, read for their rules, not their code).
//!
//! `strided`: the job works in one zone of `zone_range` bytes until it has done
//! `zone_size` bytes there, then moves `zone_range + zone_skip` on (from the span's
//! start again past its end); skipped bytes count towards the job's stop, as fio's
//! `io_skip_bytes` do.
//!
//! `zbd` over zones the host keeps itself, as fio does on a drive that is not zoned
//! (its `init_zone_info`): every zone starts empty; a write goes to its zone's write
//! pointer and is cut at the zone's capacity; a write to a full zone resets it first;
//! `zone_reset_threshold`/`zone_reset_frequency` reset zones once that share of the
//! span holds data; with `max_open_zones` (`job_max_open_zones`) a write to a zone
//! not open goes to an open one (picked from its offset as fio picks it) or opens the
//! next closed zone; a zone whose write fills it is closed; reads stay below write
//! pointers (unless `read_beyond_wp`), moving to the next zone with data (nearest
//! either side for random reads) and ending the job when none has any; a trim resets
//! its zone (random trims pick a zone with data). Resets of emulated zones send
//! nothing to the drive (fio's), except trims, which are sent as a Deallocate of the
//! zone so that the drive, too, forgets the zone's data.
//!
//! Simplifies: each job (each `numjobs` clone) keeps its own write pointers and open
//! zones, where fio shares them among the jobs of one file; a zone closes when the
//! write that fills it is issued (fio: when it completes), so fio's wait for zones to
//! close does not arise; reads and writes align to the job's smallest block size.

use crate::config::zoned_job::{ZoneMode, ZonedJob};

use super::OpKind;

/// One job's zone state (boxed in `JobGen`, only for jobs with a zone mode).
#[derive(Clone, Debug)]
pub(crate) struct ZoneEmu {
    mode: ZoneMode,
    zone_size: u64,
    cap: u64,
    range: u64,
    skip: u64,
    read_beyond_wp: bool,
    /// The job's span: [start, start + span), zone-aligned for zbd.
    start: u64,
    span: u64,
    /// zbd: bytes written in each zone of the span (its write pointer less its start).
    wp: Vec<u64>,
    is_open: Vec<bool>,
    open: Vec<u32>,
    open_limit: u32,
    with_data: u64,
    reset_at: u64,
    reset_every: u32,
    write_cnt: u32,
    /// strided: the current zone's start (span-relative) and the bytes done in it.
    origin: u64,
    zone_bytes: u64,
    /// Zone resets (fio's `nr_zone_resets`).
    pub resets: u64,
}

/// The zone-aligned span of a zbd job (fio rounds the offset up and the end down to
/// zone boundaries), or None when it holds no whole zone.
pub fn zbd_span(z: &ZonedJob, offset: u64, span: u64) -> Option<(u64, u64)> {
    let zs = z.zone_size.bytes().max(1);
    let lo = offset.div_ceil(zs) * zs;
    let hi = (offset + span) / zs * zs;
    (hi > lo).then_some((lo, hi - lo))
}

impl ZoneEmu {
    /// `start`/`span`: the job's span (already zone-aligned for zbd).
    pub fn new(z: &ZonedJob, start: u64, span: u64) -> Self {
        let zs = z.zone_size.bytes().max(512);
        let zones = if z.mode == ZoneMode::Zbd {
            (span / zs) as usize
        } else {
            0
        };
        let limit = match (z.max_open_zones, z.job_max_open_zones) {
            (0, j) => j,
            (m, 0) => m,
            (m, j) => m.min(j),
        };
        let every = if z.zone_reset_frequency > 0.0 {
            (1.0 / z.zone_reset_frequency).min(u32::MAX as f64) as u32
        } else {
            u32::MAX
        };
        ZoneEmu {
            mode: z.mode,
            zone_size: zs,
            cap: z.capacity(),
            range: z.zone_range.map_or(zs, |r| r.bytes()).max(512),
            skip: z.zone_skip.bytes(),
            read_beyond_wp: z.read_beyond_wp,
            start,
            span,
            wp: vec![0; zones],
            is_open: vec![false; zones],
            open: Vec::with_capacity(limit as usize),
            open_limit: limit,
            with_data: 0,
            reset_at: if z.zone_reset_frequency > 0.0 {
                (span as f64 * z.zone_reset_threshold) as u64
            } else {
                u64::MAX
            },
            reset_every: every.max(1),
            write_cnt: every.max(1),
            origin: 0,
            zone_bytes: 0,
            resets: 0,
        }
    }

    /// zbd: is there data to read (or may reads go past write pointers)?
    pub fn readable(&self) -> bool {
        self.mode != ZoneMode::Zbd || self.read_beyond_wp || self.with_data > 0
    }

    pub fn is_strided(&self) -> bool {
        self.mode == ZoneMode::Strided
    }

    /// strided, before an I/O: the next zone once this one has had its bytes.
    /// Returns the sequential position to use (span-relative) and the bytes skipped.
    pub fn strided_next(&mut self, next_seq: u64) -> (u64, u64) {
        let mut pos = next_seq;
        let mut skipped = 0;
        if self.zone_bytes >= self.zone_size {
            self.zone_bytes = 0;
            self.origin += self.range + self.skip;
            if self.origin >= self.span {
                self.origin = 0;
            }
            pos = self.origin;
            skipped = self.skip;
        }
        if pos >= self.origin + self.range || pos < self.origin {
            pos = self.origin;
        }
        (pos, skipped)
    }

    /// strided: a random offset kept inside the current zone.
    pub fn strided_random(&self, off: u64, align: u64) -> u64 {
        let r = self.range.min(self.span - self.origin).max(align);
        self.origin + (off % r) / align * align
    }

    /// strided, after an I/O of `len` bytes.
    pub fn strided_done(&mut self, len: u64) {
        self.zone_bytes += len;
    }

    fn zone_of(&self, abs: u64) -> usize {
        (((abs - self.start) / self.zone_size) as usize).min(self.wp.len() - 1)
    }

    fn zstart(&self, z: usize) -> u64 {
        self.start + z as u64 * self.zone_size
    }

    fn reset(&mut self, z: usize) {
        if self.wp[z] > 0 {
            self.with_data -= self.wp[z];
            self.wp[z] = 0;
            self.resets += 1;
        }
    }

    fn close(&mut self, z: usize) {
        if self.is_open[z] {
            self.is_open[z] = false;
            if let Some(i) = self.open.iter().position(|&o| o as usize == z) {
                self.open.remove(i);
            }
        }
    }

    /// fio's zbd_open_zone: true if `z` is open (and not full) or may be opened.
    fn try_open(&mut self, z: usize) -> bool {
        if self.open_limit == 0 {
            return true;
        }
        if self.is_open[z] {
            return self.wp[z] < self.cap;
        }
        if self.open.len() as u32 >= self.open_limit {
            return false;
        }
        self.open.push(z as u32);
        self.is_open[z] = true;
        true
    }

    /// fio's zbd_convert_to_open_zone: an open zone with room, or the next one that
    /// may be opened; None when there is none.
    fn open_zone_for(&mut self, abs: u64, min_bs: u64) -> Option<usize> {
        let n = self.wp.len();
        let mut z = self.zone_of(abs);
        if !self.open.is_empty() {
            let pick = ((abs - self.start) as u128 * self.open.len() as u128
                / self.span.max(1) as u128) as usize;
            z = self.open[pick.min(self.open.len() - 1)] as usize;
            if self.wp[z] + min_bs <= self.cap {
                return Some(z);
            }
        }
        for _ in 0..n {
            z = (z + 1) % n;
            if self.is_open[z] {
                continue;
            }
            if self.try_open(z) {
                return Some(z);
            }
        }
        (0..self.open.len())
            .map(|i| self.open[i] as usize)
            .find(|&o| self.wp[o] + min_bs <= self.cap)
    }

    /// A zone with at least `min` bytes of data after `from` (and, for random I/O,
    /// before it, nearest first); fio's zbd_find_zone.
    fn find_data(&self, from: usize, min: u64, random: bool) -> Option<usize> {
        let n = self.wp.len();
        for d in 1..n {
            if from + d < n && self.wp[from + d] >= min {
                return Some(from + d);
            }
            if !random && from + d >= n {
                return None;
            }
            if random && d <= from && self.wp[from - d] >= min {
                return Some(from - d);
            }
        }
        None
    }

    /// zbd: where an I/O the job picked at `abs` (absolute bytes) of `len` goes, as
    /// fio's zbd_adjust_block moves it: Some((offset, length)), or None when the job
    /// can do no more (fio's end of file for the job).
    pub fn adjust(
        &mut self,
        kind: OpKind,
        abs: u64,
        len: u64,
        min_bs: u64,
        random: bool,
    ) -> Option<(u64, u64)> {
        let zb = self.zone_of(abs);
        match kind {
            OpKind::Read => {
                if self.read_beyond_wp {
                    return Some((abs, len));
                }
                let mut z = zb;
                let mut off = abs;
                let mut range = self.wp[z];
                if range < min_bs || (!random && abs + min_bs > self.zstart(z) + range) {
                    z = self.find_data(zb, min_bs, random)?;
                    range = self.wp[z];
                    if !random {
                        off = self.zstart(z);
                    }
                }
                let zs = self.zstart(z);
                if range <= len {
                    off = zs;
                } else if random {
                    off = zs + ((abs - self.zstart(zb)) % (range - len)) / min_bs * min_bs;
                }
                let l = len.min(zs + range - off) / min_bs * min_bs;
                Some((off, l))
            }
            OpKind::Write => {
                if len > self.zone_size {
                    return None; // fio: "I/O buflen exceeds zone size"
                }
                let mut z = zb;
                if !self.try_open(z) {
                    z = self.open_zone_for(abs, min_bs)?;
                }
                if self.with_data >= self.reset_at {
                    self.write_cnt -= 1;
                    if self.write_cnt == 0 {
                        self.write_cnt = self.reset_every;
                        self.reset(z);
                    }
                }
                if self.wp[z] + min_bs > self.cap {
                    self.reset(z);
                }
                let off = self.zstart(z) + self.wp[z];
                let l = len.min(self.cap - self.wp[z]) / min_bs * min_bs;
                if l < min_bs {
                    return None; // fio: "zone remainder too small"
                }
                self.wp[z] += l;
                self.with_data += l;
                if self.wp[z] >= self.cap {
                    self.close(z);
                }
                Some((off, l))
            }
            OpKind::Trim => {
                let mut z = zb;
                if random && self.wp[z] == 0 {
                    z = self.find_data(zb, 1, true)?;
                }
                self.close(z);
                self.reset(z);
                Some((self.zstart(z), len.min(self.zone_size)))
            }
        }
    }

    /// zbd, sequential: where the next I/O starts after one ended at `end`
    /// (span-relative), and the bytes skipped: past a zone's capacity, the next zone
    /// (fio jumps to the zone's end and counts the rest as skipped).
    pub fn seq_after(&self, end: u64) -> (u64, u64) {
        let zs = self.zone_size;
        let (next, skipped) = if end % zs >= self.cap {
            let n = end.div_ceil(zs) * zs;
            (n, n - end)
        } else {
            (end, 0)
        };
        (if next >= self.span { 0 } else { next }, skipped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn zj(json: &str) -> ZonedJob {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn writes_go_to_the_write_pointer_and_full_zones_reset() {
        let z = zj(r#"{"mode":"zbd","zone_size":"64KiB","zone_capacity":"48KiB"}"#);
        let mut e = ZoneEmu::new(&z, 0, 4 * 65536);
        // A random write in zone 1 lands at its write pointer, then after it.
        assert_eq!(
            e.adjust(OpKind::Write, 65536 + 8192, 16384, 4096, true),
            Some((65536, 16384))
        );
        assert_eq!(
            e.adjust(OpKind::Write, 65536 + 40960, 16384, 4096, true),
            Some((81920, 16384))
        );
        // Cut at the capacity (48 KiB), then the zone is full and is reset.
        assert_eq!(
            e.adjust(OpKind::Write, 65536, 32768, 4096, true),
            Some((98304, 16384))
        );
        assert_eq!(e.resets, 0);
        assert_eq!(
            e.adjust(OpKind::Write, 65536, 4096, 4096, true),
            Some((65536, 4096))
        );
        assert_eq!(e.resets, 1);
    }

    #[test]
    fn reads_stay_below_the_write_pointer_and_end_without_data() {
        let z = zj(r#"{"mode":"zbd","zone_size":"64KiB"}"#);
        let mut e = ZoneEmu::new(&z, 0, 4 * 65536);
        assert_eq!(e.adjust(OpKind::Read, 0, 4096, 4096, false), None);
        e.adjust(OpKind::Write, 2 * 65536, 8192, 4096, false);
        // A sequential read in empty zone 0 moves to zone 2, and is cut at its wp.
        assert_eq!(
            e.adjust(OpKind::Read, 0, 16384, 4096, false),
            Some((131072, 8192))
        );
        // Random reads look both ways: from zone 3 back to zone 2.
        let (o, l) = e
            .adjust(OpKind::Read, 3 * 65536 + 4096, 4096, 4096, true)
            .unwrap();
        assert!((131072..131072 + 8192).contains(&o) && l == 4096, "{o} {l}");
        let mut e2 = ZoneEmu::new(
            &zj(r#"{"mode":"zbd","zone_size":"64KiB","read_beyond_wp":true}"#),
            0,
            65536,
        );
        assert_eq!(
            e2.adjust(OpKind::Read, 4096, 4096, 4096, false),
            Some((4096, 4096))
        );
    }

    #[test]
    fn open_zone_limit_sends_writes_to_open_zones() {
        let z = zj(r#"{"mode":"zbd","zone_size":"64KiB","max_open_zones":2}"#);
        let mut e = ZoneEmu::new(&z, 0, 8 * 65536);
        let mut zones = std::collections::BTreeSet::new();
        for i in 0..8u64 {
            let (o, _) = e
                .adjust(OpKind::Write, i * 65536, 4096, 4096, true)
                .unwrap();
            zones.insert(o / 65536);
        }
        assert_eq!(zones.len(), 2, "{zones:?}");
        assert!(e.open.len() <= 2);
        // A write that fills a zone closes it; the next opens another.
        let z0 = *zones.iter().next().unwrap() as usize;
        let left = 65536 - e.wp[z0];
        e.wp[z0] += left - 4096;
        e.with_data += left - 4096;
        let (o, _) = e
            .adjust(OpKind::Write, z0 as u64 * 65536, 4096, 4096, true)
            .unwrap();
        assert_eq!(o, z0 as u64 * 65536 + 61440);
        assert!(!e.is_open[z0] && e.open.len() == 1);
    }

    #[test]
    fn reset_threshold_and_frequency_reset_zones() {
        let z = zj(
            r#"{"mode":"zbd","zone_size":"64KiB","zone_reset_threshold":0.5,"zone_reset_frequency":0.5}"#,
        );
        let mut e = ZoneEmu::new(&z, 0, 4 * 65536);
        for i in 0..4u64 {
            e.adjust(OpKind::Write, i * 65536, 32768, 4096, true);
        }
        assert_eq!(e.resets, 0); // exactly at the threshold: the next writes count down
        e.adjust(OpKind::Write, 0, 4096, 4096, true);
        assert_eq!(e.resets, 0);
        let (o, _) = e.adjust(OpKind::Write, 65536, 4096, 4096, true).unwrap();
        assert_eq!((e.resets, o), (1, 65536));
    }

    #[test]
    fn trims_reset_zones_with_data_and_strided_skips() {
        let z = zj(r#"{"mode":"zbd","zone_size":"64KiB"}"#);
        let mut e = ZoneEmu::new(&z, 0, 4 * 65536);
        assert_eq!(e.adjust(OpKind::Trim, 0, 65536, 4096, true), None);
        e.adjust(OpKind::Write, 3 * 65536, 4096, 4096, true);
        assert_eq!(
            e.adjust(OpKind::Trim, 0, 65536, 4096, true),
            Some((3 * 65536, 65536))
        );
        assert_eq!((e.resets, e.with_data), (1, 0));
        let s = zj(r#"{"mode":"strided","zone_size":"8KiB","zone_skip":"56KiB"}"#);
        let mut e = ZoneEmu::new(&s, 0, 4 * 65536);
        let mut offs = vec![];
        let mut next = 0;
        let mut skipped = 0;
        for _ in 0..5 {
            let (pos, sk) = e.strided_next(next);
            skipped += sk;
            offs.push(pos);
            e.strided_done(4096);
            next = pos + 4096;
        }
        assert_eq!(offs, vec![0, 4096, 65536, 69632, 131072]);
        assert_eq!(skipped, 2 * 57344);
    }
}
