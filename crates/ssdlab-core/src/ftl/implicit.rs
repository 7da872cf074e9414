//! Map contents that are a function of the index, so a map chunk nobody has stored
//! into needs no memory (`MapArray`'s implicit chunks).
//!
//! Two kinds: a constant (`UNMAPPED` everywhere: a drive never written), and the maps
//! a sequential fill leaves (`prep::fill_sequential`, the `full` state): logical
//! unit k·U + i (U = units per program operation) sits at unit i of stripe k / D of die
//! k mod D (D = dies), stripe s of a die being page row s mod P of the die's block
//! s / P (P = program operations per block). `l2p` and `p2l` follow from that with a
//! few exact divisions by constants (`FastDiv`, one multiplication each).
//!
//! Simplifies: nothing is modelled here; the formulas must give exactly what the
//! element-by-element fill stores (tests compare every index). Both arrays are
//! ascending within runs of at most U entries, which materialising a chunk and
//! counting use (`run`).

use super::UNMAPPED;
use crate::nand::{FastDiv, Geometry};

/// A divisor with its fast division.
#[derive(Clone, Copy, Debug)]
struct Div {
    d: u32,
    fast: FastDiv,
}

impl Div {
    fn new(d: u32) -> Self {
        Div {
            d,
            fast: FastDiv::new(d),
        }
    }
    /// (n / d, n mod d).
    #[inline]
    fn split(self, n: u32) -> (u32, u32) {
        let q = self.fast.quot(n);
        (q, n.wrapping_sub(q.wrapping_mul(self.d)))
    }
}

/// The layout a sequential fill of `units` logical units leaves (see the header).
#[derive(Clone, Copy, Debug)]
pub struct SeqFill {
    /// Logical units written (0..units).
    units: u64,
    /// Units per program operation (U).
    ups: Div,
    /// Dies (D).
    dies: Div,
    /// Program operations (stripes) per block (P).
    pages: Div,
    /// Block groups per die.
    bpd: Div,
    /// Units per block group.
    upb: Div,
}

impl SeqFill {
    pub fn new(geo: &Geometry, units: u64) -> Self {
        SeqFill {
            units,
            ups: Div::new(geo.units_per_program),
            dies: Div::new(geo.dies),
            pages: Div::new(geo.pages_per_block / geo.pages_per_program),
            bpd: Div::new(geo.blocks_per_die),
            upb: Div::new(geo.units_per_block),
        }
    }

    fn key(&self) -> [u64; 6] {
        [
            self.units,
            self.ups.d as u64,
            self.dies.d as u64,
            self.pages.d as u64,
            self.bpd.d as u64,
            self.upb.d as u64,
        ]
    }

    /// Physical unit of logical unit `lpn`.
    #[inline]
    fn l2p(&self, lpn: u32) -> u32 {
        if lpn as u64 >= self.units {
            return UNMAPPED;
        }
        let (k, i) = self.ups.split(lpn);
        let (s, die) = self.dies.split(k);
        let (local, page) = self.pages.split(s);
        let block = die * self.bpd.d + local;
        block * self.upb.d + page * self.ups.d + i
    }

    /// Logical unit stored at physical unit `pun`, or UNMAPPED.
    #[inline]
    fn p2l(&self, pun: u32) -> u32 {
        let (block, off) = self.upb.split(pun);
        let (die, local) = self.bpd.split(block);
        let (page, i) = self.ups.split(off);
        let s = local as u64 * self.pages.d as u64 + page as u64;
        let k = s * self.dies.d as u64 + die as u64;
        let lpn = k * self.ups.d as u64 + i as u64;
        if lpn < self.units {
            lpn as u32
        } else {
            UNMAPPED
        }
    }
}

/// What an implicit chunk holds.
#[derive(Clone, Copy, Debug)]
pub enum Implicit {
    /// The same value everywhere.
    Const(u32),
    /// The forward map of a sequential fill.
    SeqL2p(SeqFill),
    /// The reverse map of a sequential fill.
    SeqP2l(SeqFill),
}

impl PartialEq for Implicit {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Implicit::Const(a), Implicit::Const(b)) => a == b,
            (Implicit::SeqL2p(a), Implicit::SeqL2p(b)) => a.key() == b.key(),
            (Implicit::SeqP2l(a), Implicit::SeqP2l(b)) => a.key() == b.key(),
            _ => false,
        }
    }
}

impl Implicit {
    /// The value at index `i`.
    #[inline]
    pub fn value(&self, i: usize) -> u32 {
        match self {
            Implicit::Const(v) => *v,
            Implicit::SeqL2p(f) => f.l2p(i as u32),
            Implicit::SeqP2l(f) => f.p2l(i as u32),
        }
    }

    /// The run starting at `i` and ending at most at `end`: (first value, length);
    /// the run's values are first, first + 1, ... (or UNMAPPED throughout if first is).
    #[inline]
    pub fn run(&self, i: usize, end: usize) -> (u32, usize) {
        let first = self.value(i);
        let len = match self {
            Implicit::Const(_) => end - i,
            Implicit::SeqL2p(f) | Implicit::SeqP2l(f) => {
                // Runs stop at program-operation boundaries (both arrays' strides),
                // and a reverse-map run at the end of the filled units.
                let u = f.ups.d as usize;
                let n = (u - i % u).min(end - i);
                // Logical units at and past `units` are unmapped (an l2p index, a
                // p2l value).
                let lpn = match self {
                    Implicit::SeqL2p(_) => i as u64,
                    _ => first as u64,
                };
                if first != UNMAPPED && lpn < f.units {
                    n.min((f.units - lpn) as usize)
                } else {
                    n
                }
            }
        };
        (first, len)
    }

    /// Write indices `start..start + out.len()` into `out`.
    pub fn fill(&self, start: usize, out: &mut [u32]) {
        let end = start + out.len();
        let mut i = start;
        while i < end {
            let (first, n) = self.run(i, end);
            let run = &mut out[i - start..i - start + n];
            if first == UNMAPPED || matches!(self, Implicit::Const(_)) {
                run.fill(first);
            } else {
                for (j, x) in run.iter_mut().enumerate() {
                    *x = first + j as u32;
                }
            }
            i += n;
        }
    }

    /// How many of indices `start..end` hold a value other than `value`.
    pub fn count_ne(&self, start: usize, end: usize, value: u32) -> usize {
        match self {
            Implicit::Const(v) => return if *v == value { 0 } else { end - start },
            // Mapped below `units`, unmapped from there (how a drive counts its data).
            Implicit::SeqL2p(f) if value == UNMAPPED => {
                return (end as u64).min(f.units).saturating_sub(start as u64) as usize
            }
            _ => {}
        }
        let mut n = 0;
        let mut i = start;
        while i < end {
            let (first, len) = self.run(i, end);
            n += if first == UNMAPPED || matches!(self, Implicit::Const(_)) {
                if first == value {
                    0
                } else {
                    len
                }
            } else {
                let hit = value >= first && ((value - first) as usize) < len;
                len - hit as usize
            };
            i += len;
        }
        n
    }
}
