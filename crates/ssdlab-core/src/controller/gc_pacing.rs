//! GC pacing: how much of a victim's collection a die may queue, and when.
//!
//! Paced (`ftl.gc_pacing = "paced"`, the default): a victim's valid data is read a
//! multi-plane page at a time (a stripe row's pages that hold valid data, in one
//! multi-plane read) as host programs are dispatched on its die. A victim with `v`
//! valid units out of `U` frees `U - v` units of room once erased, while its copies
//! take `v`; so the die's free blocks stay level when GC copies `v / (U - v)` units
//! per host unit programmed, and that is the pace (`v` as counted when the victim is
//! claimed). The programs of the relocated data go before host programs (the pace
//! bounds them), so the die alternates a host program with about `v / (U - v)`
//! programs' worth of copies. Collection in steps interleaved with writes is partial
//! block cleaning (Choudhuri & Givargis, "Deterministic service guarantees for NAND
//! flash using partial block cleaning", CODES+ISSS 2008); the ratio is this model's
//! own. A die with nothing else queued reads ahead (its time is free), and at
//! `ftl.gc_urgent_blocks` free blocks the pace is dropped: every remaining read of
//! the victim is queued at once, as in burst.
//!
//! Burst (`"burst"`): every read of a victim is queued when it is claimed. Under
//! read-first scheduling they all run before the die's next program, and programs
//! go in arrival order, so the copies run ahead of host programs that arrive
//! meanwhile: host writes to the die wait for the whole victim.
//!
//! Foreground folding (an SLC block folded below `slc.fold_watermark_blocks` while the
//! host writes) is paced one for one: a unit folded per host unit programmed on the
//! die, the rate at which host writes refill the area it empties; folding while the
//! host is idle is not paced.
//!
//! Simplifies: the pace is set per victim, not per host command.

/// A die's collection in progress.
#[derive(Clone, Copy, Debug, Default)]
pub struct GcPace {
    /// A victim is being collected (its erase is not yet queued).
    pub(crate) active: bool,
    pub(crate) victim: u32,
    /// Next unit (offset in the victim) whose page has not been looked at, and the
    /// victim's size in units.
    pub(crate) next: u32,
    pub(crate) end: u32,
    /// Read transactions issued and not yet done.
    pub(crate) reads_left: u32,
    /// Reads are released with host programs (else all at once).
    paced: bool,
    /// GC units per host unit: v / (U - v).
    ratio: f64,
    /// GC units the die may still queue.
    credit: f64,
}

/// What may be released now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Release {
    /// Nothing: wait for host programs (or an idle die).
    Wait,
    /// One more stripe row's page reads, paid for by host programs.
    One,
    /// One more stripe row's page reads on an idle die (free: not charged to the pace).
    Ahead,
    /// Every remaining read of the victim.
    All,
}

impl GcPace {
    /// A victim of `upb` units with `valid` of them valid was claimed; its reads are
    /// paced unless `paced` is false (burst mode, or a fold while the host is idle).
    pub fn start(&mut self, victim: u32, valid: u32, upb: u32, paced: bool) {
        let valid = valid.min(upb - 1);
        self.start_at(victim, upb, paced, valid as f64 / (upb - valid) as f64);
    }

    /// An SLC block of `upb` units claimed for folding in the foreground: one unit
    /// folded per host unit programmed.
    pub fn start_fold(&mut self, victim: u32, upb: u32) {
        self.start_at(victim, upb, true, 1.0);
    }

    fn start_at(&mut self, victim: u32, upb: u32, paced: bool, ratio: f64) {
        *self = GcPace {
            active: true,
            victim,
            next: 0,
            end: upb,
            reads_left: 0,
            paced,
            ratio,
            credit: 0.0,
        };
    }

    /// A program of `units` that is not GC's was dispatched on the die (fractional:
    /// a translation page pays for the host's share of its entries): GC earns its share.
    #[inline]
    pub fn host_programmed(&mut self, units: f64) {
        if self.paced && self.active {
            self.credit += units * self.ratio;
        }
    }

    /// Are some of the victim's pages not yet looked at?
    #[inline]
    pub fn unreleased(&self) -> bool {
        self.active && self.next < self.end
    }

    /// What to release now: `free_blocks` on the die, the urgent floor, and whether
    /// the die has nothing else to do.
    pub fn decide(&mut self, free_blocks: u32, urgent_blocks: u32, die_idle: bool) -> Release {
        if !self.paced {
            Release::All
        } else if free_blocks <= urgent_blocks {
            self.paced = false; // GC takes the die for the rest of this victim
            Release::All
        } else if self.credit > 0.0 {
            Release::One
        } else if die_idle {
            Release::Ahead
        } else {
            Release::Wait
        }
    }

    /// A read of `units` valid units was released.
    #[inline]
    pub fn charge(&mut self, units: u32) {
        self.credit -= units as f64;
    }

    /// Is the victim still paced (not burst, not gone urgent)?
    pub fn is_paced(&self) -> bool {
        self.paced
    }

    /// Every read of the victim is done: its erase is queued, the victim is over.
    #[inline]
    pub(crate) fn finish(&mut self) {
        self.active = false;
    }

    /// A page read of the victim was queued.
    #[inline]
    pub(crate) fn read_queued(&mut self) {
        self.reads_left += 1;
    }

    /// A page read of the victim is done.
    #[inline]
    pub(crate) fn read_done(&mut self) {
        self.reads_left -= 1;
    }

    /// Pages before unit `next` of the victim have been looked at.
    #[inline]
    pub(crate) fn advance_to(&mut self, next: u32) {
        self.next = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credit_follows_the_victims_valid_share() {
        // 48 of 64 valid: 3 GC units per host unit.
        let mut p = GcPace::default();
        p.start(7, 48, 64, true);
        assert_eq!(p.decide(5, 2, false), Release::Wait);
        p.host_programmed(8.0); // 24 units of credit
        for _ in 0..6 {
            assert_eq!(p.decide(5, 2, false), Release::One);
            p.charge(4);
        }
        assert_eq!(p.decide(5, 2, false), Release::Wait);
        // An idle die reads ahead; at the urgent floor everything goes.
        assert_eq!(p.decide(5, 2, true), Release::Ahead);
        assert_eq!(p.decide(2, 2, false), Release::All);
        assert!(!p.is_paced());
        p.host_programmed(8.0);
        assert_eq!(p.decide(5, 2, false), Release::All);
    }

    #[test]
    fn burst_releases_everything() {
        let mut p = GcPace::default();
        p.start(1, 10, 64, false);
        assert_eq!(p.decide(9, 2, false), Release::All);
    }
}
