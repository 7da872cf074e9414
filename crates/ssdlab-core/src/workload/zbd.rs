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
//! next closed zone; a zone whose write fills it is closed, and one whose remainder
//! is below the job's block size is finished (fio's zbd_finish_zone: a Zone Finish on
//! a zoned drive) and the write goes to the next zone; reads stay below write
//! pointers (unless `read_beyond_wp`), moving to the next zone with data (nearest
//! either side for random reads) and ending the job when none has any; a trim resets
//! its zone (random trims pick a zone with data). Resets of emulated zones send
//! nothing to the drive (fio's), except trims, which are sent as a Deallocate of the
//! zone so that the drive, too, forgets the zone's data.
//!
//! As in fio, the drive's zones (`ZoneSet`: write pointers, the open zones under
//! `max_open_zones`, the data held, the reset countdown) are shared by every zbd job
//! of the run (fio's zone info per file); each job works in its own span's zones and
//! counts the zones it opened against `job_max_open_zones`.
//!
//! Simplifies: a zone closes when the write that fills it is issued (fio: when it
//! completes), so fio's wait for zones to close does not arise; one zone size,
//! capacity and `max_open_zones` serve every job (the first zbd job's; fio, too,
//! refuses different `max_open_zones`); reads and writes align to the job's smallest
//! block size.

use crate::config::zoned_job::{ZoneMode, ZonedJob};
use crate::config::WorkloadConfig;

use super::OpKind;

/// The drive's zones as fio keeps them, shared by the run's zbd jobs.
#[derive(Clone, Debug)]
pub struct ZoneSet {
    zone_size: u64,
    cap: u64,
    /// Absolute start of zone 0 of the set (the lowest zbd span's start).
    base: u64,
    /// Bytes written in each zone (its write pointer less its start).
    wp: Vec<u64>,
    is_open: Vec<bool>,
    open: Vec<u32>,
    max_open: u32,
    /// Bytes holding data over every zone (fio's wp_sectors_with_data).
    with_data: u64,
    /// fio's zone reset countdown (write_cnt), per drive.
    write_cnt: u32,
    /// The drive is zoned: the zones are its own, so a reset a write needs is sent to
    /// it (a Zone Reset before the write) rather than kept on the host side.
    real: bool,
    /// Starts (bytes) of the zones the next write's resets are for, to send first.
    pub(crate) pending_resets: Vec<u64>,
    /// Starts (bytes) of the zones fio finishes before the next write (a remainder
    /// below the block size), to send first.
    pub(crate) pending_finishes: Vec<u64>,
}

/// fio's limit on zones a run keeps (a larger area needs larger zones).
pub const MAX_ZONES: u64 = 1 << 24;

impl ZoneSet {
    /// The zones of the run's zbd jobs (None without any).
    pub fn for_jobs(jobs: &[WorkloadConfig], capacity: u64) -> Option<Box<ZoneSet>> {
        let mut spans = jobs.iter().filter_map(|w| {
            let z = w.zoned.as_ref().filter(|z| z.mode == ZoneMode::Zbd)?;
            let (lo, n) = zbd_span(z, w.offset.bytes(), w.span(capacity))?;
            Some((z, lo, lo + n))
        });
        let (z, mut lo, mut hi) = spans.next()?;
        for (_, l, h) in spans {
            lo = lo.min(l);
            hi = hi.max(h);
        }
        let zs = z.zone_size.bytes().max(512);
        let n = ((hi - lo) / zs).min(MAX_ZONES) as usize;
        Some(Box::new(ZoneSet {
            zone_size: zs,
            cap: z.capacity(),
            base: lo,
            wp: vec![0; n],
            is_open: vec![false; n],
            open: Vec::with_capacity(z.max_open_zones as usize),
            max_open: z.max_open_zones,
            with_data: 0,
            write_cnt: 0,
            real: false,
            pending_resets: Vec::new(),
            pending_finishes: Vec::new(),
        }))
    }

    /// The zones are a zoned drive's own: take each zone's written bytes from the
    /// drive (`written(start)`, the zone at byte `start`), as fio reads a zoned
    /// drive's write pointers when it starts, and send resets to the drive.
    pub(crate) fn use_drive_zones(&mut self, written: impl Fn(u64) -> u64) {
        self.real = true;
        self.with_data = 0;
        for z in 0..self.wp.len() {
            self.wp[z] = written(self.zstart(z)).min(self.cap);
            self.with_data += self.wp[z];
        }
    }

    /// A set over [base, base + zones × zone size) for one job (tests).
    #[cfg(test)]
    fn one(z: &ZonedJob, base: u64, span: u64) -> ZoneSet {
        let w = WorkloadConfig {
            offset: crate::config::units::Bytes(base),
            size: Some(crate::config::units::Bytes(span)),
            zoned: Some(z.clone()),
            ..Default::default()
        };
        *Self::for_jobs(&[w], base + span).unwrap()
    }

    fn zstart(&self, z: usize) -> u64 {
        self.base + z as u64 * self.zone_size
    }
}

/// One job's view of the zones (boxed in `JobGen`, only for jobs with a zone mode).
#[derive(Clone, Debug)]
pub(crate) struct ZoneEmu {
    mode: ZoneMode,
    zone_size: u64,
    range: u64,
    skip: u64,
    read_beyond_wp: bool,
    /// The job's span: [start, start + span), zone-aligned for zbd.
    start: u64,
    span: u64,
    /// zbd: the set's zones of the span, [lo, hi).
    lo: usize,
    hi: usize,
    /// `job_max_open_zones` and the zones this job opened.
    job_limit: u32,
    job_open: u32,
    reset_at: u64,
    reset_every: u32,
    /// strided: the current zone's start (span-relative) and the bytes done in it.
    origin: u64,
    zone_bytes: u64,
    /// Zone resets this job made (fio's `nr_zone_resets`).
    pub resets: u64,
    /// Zones this job finished (a remainder below its block size).
    pub finishes: u64,
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
        let every = if z.zone_reset_frequency > 0.0 {
            (1.0 / z.zone_reset_frequency).min(u32::MAX as f64) as u32
        } else {
            u32::MAX
        };
        ZoneEmu {
            mode: z.mode,
            zone_size: zs,
            range: z.zone_range.map_or(zs, |r| r.bytes()).max(512),
            skip: z.zone_skip.bytes(),
            read_beyond_wp: z.read_beyond_wp,
            start,
            span,
            lo: 0,
            hi: 0,
            job_limit: z.job_max_open_zones,
            job_open: 0,
            reset_at: if z.zone_reset_frequency > 0.0 {
                (span as f64 * z.zone_reset_threshold) as u64
            } else {
                u64::MAX
            },
            reset_every: every.max(1),
            origin: 0,
            zone_bytes: 0,
            resets: 0,
            finishes: 0,
        }
    }

    /// zbd: is there data to read (or may reads go past write pointers)?
    pub fn readable(&self, set: Option<&ZoneSet>) -> bool {
        self.mode != ZoneMode::Zbd || self.read_beyond_wp || set.is_some_and(|s| s.with_data > 0)
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

    /// The job's zones in `set` (first use).
    fn bind(&mut self, set: &ZoneSet) {
        if self.hi == 0 {
            self.lo = ((self.start - set.base) / set.zone_size) as usize;
            self.hi = (self.lo + (self.span / set.zone_size) as usize).min(set.wp.len());
        }
    }

    fn zone_of(&self, set: &ZoneSet, abs: u64) -> usize {
        (((abs - set.base) / set.zone_size) as usize).clamp(self.lo, self.hi - 1)
    }

    fn reset(&mut self, set: &mut ZoneSet, z: usize) {
        if set.wp[z] > 0 {
            set.with_data -= set.wp[z];
            set.wp[z] = 0;
            self.resets += 1;
        }
    }

    fn close(&mut self, set: &mut ZoneSet, z: usize) {
        if set.is_open[z] {
            set.is_open[z] = false;
            if let Some(i) = set.open.iter().position(|&o| o as usize == z) {
                set.open.remove(i);
            }
            self.job_open = self.job_open.saturating_sub(1);
        }
    }

    /// fio's zbd_open_zone: true if `z` is open (and not full) or may be opened.
    fn try_open(&mut self, set: &mut ZoneSet, z: usize) -> bool {
        if set.max_open == 0 {
            return true;
        }
        if set.is_open[z] {
            return set.wp[z] < set.cap;
        }
        if self.job_limit > 0 && self.job_open >= self.job_limit {
            return false;
        }
        if set.open.len() as u32 >= set.max_open {
            return false;
        }
        set.open.push(z as u32);
        set.is_open[z] = true;
        self.job_open += 1;
        true
    }

    /// fio's zbd_convert_to_open_zone: an open zone of the job's span with room, or
    /// the next one that may be opened; None when there is none.
    fn open_zone_for(&mut self, set: &mut ZoneSet, abs: u64, min_bs: u64) -> Option<usize> {
        let (lo, hi) = (self.lo, self.hi);
        let mine = move |z: u32| (lo..hi).contains(&(z as usize));
        let mut z = self.zone_of(set, abs);
        let n_open = set.open.len();
        if n_open > 0 {
            let pick =
                ((abs - self.start) as u128 * n_open as u128 / self.span.max(1) as u128) as usize;
            // The first open zone of the job's span from the pick on.
            if let Some(c) = (0..n_open)
                .map(|i| set.open[(pick + i) % n_open])
                .find(|&c| mine(c))
            {
                z = c as usize;
                if set.wp[z] + min_bs <= set.cap {
                    return Some(z);
                }
            }
        }
        let n = self.hi - self.lo;
        for _ in 0..n {
            z = if z + 1 >= self.hi { self.lo } else { z + 1 };
            if set.is_open[z] {
                continue;
            }
            if self.try_open(set, z) {
                return Some(z);
            }
        }
        (0..set.open.len())
            .map(|i| set.open[i] as usize)
            .find(|&o| mine(o as u32) && set.wp[o] + min_bs <= set.cap)
    }

    /// A zone of the span with at least `min` bytes of data after `from` (and, for
    /// random I/O, before it, nearest first); fio's zbd_find_zone.
    fn find_data(&self, set: &ZoneSet, from: usize, min: u64, random: bool) -> Option<usize> {
        for d in 1..(self.hi - self.lo) {
            if from + d < self.hi && set.wp[from + d] >= min {
                return Some(from + d);
            }
            if !random && from + d >= self.hi {
                return None;
            }
            if random && from >= self.lo + d && set.wp[from - d] >= min {
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
        set: &mut ZoneSet,
        kind: OpKind,
        abs: u64,
        len: u64,
        min_bs: u64,
        random: bool,
    ) -> Option<(u64, u64)> {
        self.bind(set);
        if self.hi <= self.lo {
            return None;
        }
        let zb = self.zone_of(set, abs);
        match kind {
            OpKind::Read => {
                if self.read_beyond_wp {
                    return Some((abs, len));
                }
                let mut z = zb;
                let mut off = abs;
                let mut range = set.wp[z];
                if range < min_bs || (!random && abs + min_bs > set.zstart(z) + range) {
                    z = self.find_data(set, zb, min_bs, random)?;
                    range = set.wp[z];
                    if !random {
                        off = set.zstart(z);
                    }
                }
                let zs = set.zstart(z);
                if range <= len {
                    off = zs;
                } else if random {
                    off = zs + ((abs - set.zstart(zb)) % (range - len)) / min_bs * min_bs;
                }
                let l = len.min(zs + range - off) / min_bs * min_bs;
                Some((off, l))
            }
            OpKind::Write => {
                if len > self.zone_size {
                    return None; // fio: "I/O buflen exceeds zone size"
                }
                let resets = self.resets;
                let mut z = zb;
                let rem = set.cap.saturating_sub(set.wp[z]);
                if rem > 0 && rem < min_bs {
                    // fio's zbd_convert_to_write_zone: a zone whose remainder is below
                    // the block size is finished (a Zone Finish on a zoned drive; its
                    // write pointer moves to the zone's end) and the write goes on to
                    // the next zone (a sequential job past its last zone ends).
                    self.close(set, z);
                    set.wp[z] = set.cap;
                    set.with_data += rem;
                    self.finishes += 1;
                    if set.real {
                        set.pending_finishes.push(set.zstart(z));
                    }
                    if !random && z + 1 >= self.hi {
                        return None;
                    }
                    z = if z + 1 >= self.hi { self.lo } else { z + 1 };
                }
                if !self.try_open(set, z) {
                    z = self.open_zone_for(set, abs, min_bs)?;
                }
                if set.with_data >= self.reset_at {
                    if set.write_cnt == 0 {
                        set.write_cnt = self.reset_every;
                    }
                    set.write_cnt -= 1;
                    if set.write_cnt == 0 {
                        self.reset(set, z);
                    }
                }
                if set.wp[z] + min_bs > set.cap {
                    self.reset(set, z);
                }
                if set.real && self.resets > resets {
                    set.pending_resets.push(set.zstart(z));
                }
                let off = set.zstart(z) + set.wp[z];
                let l = len.min(set.cap - set.wp[z]) / min_bs * min_bs;
                if l < min_bs {
                    return None; // fio: "zone remainder too small"
                }
                set.wp[z] += l;
                set.with_data += l;
                if set.wp[z] >= set.cap {
                    self.close(set, z);
                }
                Some((off, l))
            }
            OpKind::Trim => {
                let mut z = zb;
                if random && set.wp[z] == 0 {
                    z = self.find_data(set, zb, 1, true)?;
                }
                self.close(set, z);
                self.reset(set, z);
                Some((set.zstart(z), len.min(self.zone_size)))
            }
        }
    }

    /// zbd, sequential: where the next I/O starts after one ended at `end`
    /// (span-relative), and the bytes skipped: past a zone's capacity, the next zone
    /// (fio jumps to the zone's end and counts the rest as skipped).
    pub fn seq_after(&self, set: &ZoneSet, end: u64) -> (u64, u64) {
        let zs = self.zone_size;
        let (next, skipped) = if end % zs >= set.cap {
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

    /// A job over [0, span) and its own zone set.
    fn emu(z: &ZonedJob, span: u64) -> (ZoneEmu, ZoneSet) {
        (ZoneEmu::new(z, 0, span), ZoneSet::one(z, 0, span))
    }

    #[test]
    fn writes_go_to_the_write_pointer_and_full_zones_reset() {
        let z = zj(r#"{"mode":"zbd","zone_size":"64KiB","zone_capacity":"48KiB"}"#);
        let (mut e, mut set_e) = emu(&z, 4 * 65536);
        // A random write in zone 1 lands at its write pointer, then after it.
        assert_eq!(
            e.adjust(&mut set_e, OpKind::Write, 65536 + 8192, 16384, 4096, true),
            Some((65536, 16384))
        );
        assert_eq!(
            e.adjust(&mut set_e, OpKind::Write, 65536 + 40960, 16384, 4096, true),
            Some((81920, 16384))
        );
        // Cut at the capacity (48 KiB), then the zone is full and is reset.
        assert_eq!(
            e.adjust(&mut set_e, OpKind::Write, 65536, 32768, 4096, true),
            Some((98304, 16384))
        );
        assert_eq!(e.resets, 0);
        assert_eq!(
            e.adjust(&mut set_e, OpKind::Write, 65536, 4096, 4096, true),
            Some((65536, 4096))
        );
        assert_eq!(e.resets, 1);
    }

    #[test]
    fn reads_stay_below_the_write_pointer_and_end_without_data() {
        let z = zj(r#"{"mode":"zbd","zone_size":"64KiB"}"#);
        let (mut e, mut set_e) = emu(&z, 4 * 65536);
        assert_eq!(
            e.adjust(&mut set_e, OpKind::Read, 0, 4096, 4096, false),
            None
        );
        e.adjust(&mut set_e, OpKind::Write, 2 * 65536, 8192, 4096, false);
        // A sequential read in empty zone 0 moves to zone 2, and is cut at its wp.
        assert_eq!(
            e.adjust(&mut set_e, OpKind::Read, 0, 16384, 4096, false),
            Some((131072, 8192))
        );
        // Random reads look both ways: from zone 3 back to zone 2.
        let (o, l) = e
            .adjust(&mut set_e, OpKind::Read, 3 * 65536 + 4096, 4096, 4096, true)
            .unwrap();
        assert!((131072..131072 + 8192).contains(&o) && l == 4096, "{o} {l}");
        let (mut e2, mut set_e2) = emu(
            &zj(r#"{"mode":"zbd","zone_size":"64KiB","read_beyond_wp":true}"#),
            65536,
        );
        assert_eq!(
            e2.adjust(&mut set_e2, OpKind::Read, 4096, 4096, 4096, false),
            Some((4096, 4096))
        );
    }

    #[test]
    fn open_zone_limit_sends_writes_to_open_zones() {
        let z = zj(r#"{"mode":"zbd","zone_size":"64KiB","max_open_zones":2}"#);
        let (mut e, mut set_e) = emu(&z, 8 * 65536);
        let mut zones = std::collections::BTreeSet::new();
        for i in 0..8u64 {
            let (o, _) = e
                .adjust(&mut set_e, OpKind::Write, i * 65536, 4096, 4096, true)
                .unwrap();
            zones.insert(o / 65536);
        }
        assert_eq!(zones.len(), 2, "{zones:?}");
        assert!(set_e.open.len() <= 2);
        // A write that fills a zone closes it; the next opens another.
        let z0 = *zones.iter().next().unwrap() as usize;
        let left = 65536 - set_e.wp[z0];
        set_e.wp[z0] += left - 4096;
        set_e.with_data += left - 4096;
        let (o, _) = e
            .adjust(
                &mut set_e,
                OpKind::Write,
                z0 as u64 * 65536,
                4096,
                4096,
                true,
            )
            .unwrap();
        assert_eq!(o, z0 as u64 * 65536 + 61440);
        assert!(!set_e.is_open[z0] && set_e.open.len() == 1);
    }

    #[test]
    fn reset_threshold_and_frequency_reset_zones() {
        let z = zj(
            r#"{"mode":"zbd","zone_size":"64KiB","zone_reset_threshold":0.5,"zone_reset_frequency":0.5}"#,
        );
        let (mut e, mut set_e) = emu(&z, 4 * 65536);
        for i in 0..4u64 {
            e.adjust(&mut set_e, OpKind::Write, i * 65536, 32768, 4096, true);
        }
        assert_eq!(e.resets, 0); // exactly at the threshold: the next writes count down
        e.adjust(&mut set_e, OpKind::Write, 0, 4096, 4096, true);
        assert_eq!(e.resets, 0);
        let (o, _) = e
            .adjust(&mut set_e, OpKind::Write, 65536, 4096, 4096, true)
            .unwrap();
        assert_eq!((e.resets, o), (1, 65536));
    }

    #[test]
    fn trims_reset_zones_with_data_and_strided_skips() {
        let z = zj(r#"{"mode":"zbd","zone_size":"64KiB"}"#);
        let (mut e, mut set_e) = emu(&z, 4 * 65536);
        assert_eq!(
            e.adjust(&mut set_e, OpKind::Trim, 0, 65536, 4096, true),
            None
        );
        e.adjust(&mut set_e, OpKind::Write, 3 * 65536, 4096, 4096, true);
        assert_eq!(
            e.adjust(&mut set_e, OpKind::Trim, 0, 65536, 4096, true),
            Some((3 * 65536, 65536))
        );
        assert_eq!((e.resets, set_e.with_data), (1, 0));
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

    #[test]
    fn jobs_share_the_drives_zones() {
        let z = zj(r#"{"mode":"zbd","zone_size":"64KiB","max_open_zones":1}"#);
        let mut set = ZoneSet::one(&z, 0, 4 * 65536);
        let mut writer = ZoneEmu::new(&z, 0, 4 * 65536);
        let mut trimmer = ZoneEmu::new(&z, 0, 4 * 65536);
        let mut other = ZoneEmu::new(&z, 0, 4 * 65536);
        assert_eq!(
            writer.adjust(&mut set, OpKind::Write, 2 * 65536, 4096, 4096, true),
            Some((2 * 65536, 4096))
        );
        // The drive's one open zone is taken: another job's write goes to it too.
        assert_eq!(
            other.adjust(&mut set, OpKind::Write, 0, 4096, 4096, true),
            Some((2 * 65536 + 4096, 4096))
        );
        // A trim job finds the zone the writers filled, and resets it for everyone.
        assert_eq!(
            trimmer.adjust(&mut set, OpKind::Trim, 0, 65536, 4096, true),
            Some((2 * 65536, 65536))
        );
        assert_eq!((set.with_data, trimmer.resets), (0, 1));
        assert_eq!(
            writer.adjust(&mut set, OpKind::Read, 0, 4096, 4096, true),
            None
        );
    }
}
