//! fio's random map: with `rw=randread|randwrite|randrw|randtrim` and the uniform
//! distribution, fio visits every block of the job's span once per pass before any
//! block repeats (fio keeps a bitmap, its "axmap", of the blocks done; `norandommap`
//! turns it off and offsets are drawn with replacement; `random_generator=lfsr`
//! walks a full-period LFSR instead, with no map). A pass ends when every block has
//! been visited; the next pass starts a fresh map (fio resets it for `time_based`,
//! `loops` and an `io_size` larger than the span).
//!
//! Modelled: each of the `n` slots (the job's smallest block size, fio's map unit) is
//! drawn exactly once per `n` draws, in a seeded pseudo-random order, with O(1)
//! memory and no allocation, so a 32 TB span costs nothing: a full-period LCG over
//! the next power of two `m >= n` (Hull-Dobell: odd increment, multiplier 1 mod 4)
//! whose states go through a keyed bijection of `[0, m)` (xor key, odd multiplies and
//! xorshifts, all modulo `m`), values `>= n` skipped (cycle walking: fewer than two
//! steps per draw on average, since `m < 2n`). Any `m` consecutive steps visit every
//! value of `[0, m)` once, so every run of `n` accepted draws from a pass boundary is
//! a permutation of `[0, n)`. `tausworthe`/`tausworthe64` (fio's default) draw a new
//! key each pass, as fio's generator runs on into a different order after the map is
//! reset; `lfsr` keeps the key, so every pass repeats the first pass's order, as fio's
//! LFSR is reset to its seed.
//!
//! Simplified: the order is not fio's (fio draws a block uniformly and, when it is
//! already done, takes the next free block after it; its LFSR has its own order):
//! the set of blocks per pass is the same, the sequence differs. fio's map also
//! marks every block an I/O longer than the map unit covers and shortens an I/O that
//! would run into blocks already done; here the map gives each slot once per pass
//! as the *start* of an I/O (what fio's `lfsr` does: "lfsr only works with single
//! block sizes"), so with `bsrange`/`bssplit` a longer I/O may overlap the next
//! slots, which are still drawn later in the pass. Doing fio's bookkeeping would
//! need a bit per block (the memory fio spends: 1 GiB for 32 TB of 4 KiB blocks).

use crate::sim::Rng;

/// LCG multiplier (Knuth's MMIX constant; 1 mod 4, so full period modulo any 2^k).
const LCG_MUL: u64 = 6_364_136_223_846_793_005;

/// A seeded permutation of `[0, n)`, drawn one value at a time, pass after pass.
#[derive(Clone, Debug)]
pub(crate) struct RandMap {
    n: u64,
    /// `m - 1`, `m` the next power of two `>= n`.
    mask: u64,
    /// Xorshift distance of the bijection (about half of log2 m, at least 1).
    shift: u32,
    state: u64,
    inc: u64,
    key: u64,
    mul1: u64,
    mul2: u64,
    /// Draws left in this pass.
    left: u64,
    /// Draw a new order for each pass (fio's tausworthe) or repeat it (lfsr).
    rekey: bool,
    rng: Rng,
}

impl RandMap {
    /// A map over `n >= 1` slots; `rng` is the map's own stream (keys only).
    pub(crate) fn new(n: u64, rng: Rng, rekey: bool) -> Self {
        let n = n.max(1);
        let m = n.next_power_of_two();
        let bits = m.trailing_zeros();
        let mut map = RandMap {
            n,
            mask: m - 1,
            shift: bits.div_ceil(2).max(1),
            state: 0,
            inc: 1,
            key: 0,
            mul1: 1,
            mul2: 1,
            left: n,
            rekey,
            rng,
        };
        map.new_key();
        map.state = map.rng.next_u64() & map.mask;
        map
    }

    fn new_key(&mut self) {
        self.inc = self.rng.next_u64() | 1;
        self.key = self.rng.next_u64() & self.mask;
        self.mul1 = self.rng.next_u64() | 1;
        self.mul2 = self.rng.next_u64() | 1;
    }

    /// The keyed bijection of `[0, m)`.
    #[inline]
    fn scramble(&self, x: u64) -> u64 {
        let mut x = (x ^ self.key).wrapping_mul(self.mul1) & self.mask;
        x ^= x >> self.shift;
        x = x.wrapping_mul(self.mul2) & self.mask;
        x ^ (x >> self.shift)
    }

    /// The next slot: every slot once in each pass of `n` draws.
    #[inline]
    pub(crate) fn next(&mut self) -> u64 {
        if self.left == 0 {
            self.left = self.n;
            if self.rekey {
                self.new_key();
            }
        }
        self.left -= 1;
        loop {
            self.state = self.state.wrapping_mul(LCG_MUL).wrapping_add(self.inc) & self.mask;
            let x = self.scramble(self.state);
            if x < self.n {
                return x;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pass(map: &mut RandMap, n: u64) -> Vec<u64> {
        (0..n).map(|_| map.next()).collect()
    }

    #[test]
    fn every_pass_is_a_permutation_for_many_sizes() {
        let sizes = (1..=70u64).chain([127, 128, 129, 255, 256, 257, 1000, 4095, 4097, 65_537]);
        for n in sizes {
            for (seed, rekey) in [(1, true), (2, false), (99, true)] {
                let mut map = RandMap::new(n, Rng::derive(seed, n), rekey);
                for p in 0..3 {
                    let mut v = pass(&mut map, n);
                    v.sort_unstable();
                    assert!(
                        v.iter().enumerate().all(|(i, &x)| i as u64 == x),
                        "n={n} seed={seed} pass {p} is not a permutation"
                    );
                }
            }
        }
    }

    #[test]
    fn tausworthe_reorders_each_pass_lfsr_repeats_it() {
        let n = 1000;
        let mut t = RandMap::new(n, Rng::derive(5, 1), true);
        let (a, b) = (pass(&mut t, n), pass(&mut t, n));
        assert_ne!(a, b);
        let mut l = RandMap::new(n, Rng::derive(5, 1), false);
        let (a, b, c) = (pass(&mut l, n), pass(&mut l, n), pass(&mut l, n));
        assert_eq!(a, b);
        assert_eq!(b, c);
        // Different seeds, different orders; the same seed, the same order.
        let mut other = RandMap::new(n, Rng::derive(6, 1), false);
        assert_ne!(a, pass(&mut other, n));
        let mut same = RandMap::new(n, Rng::derive(5, 1), false);
        assert_eq!(a, pass(&mut same, n));
    }

    #[test]
    fn order_looks_random_to_the_low_bits() {
        // A bare power-of-two LCG alternates its lowest bit and cycles its low bits
        // with short periods: striping by slot (dies, channels) would see a fixed
        // rotation. The bijection must leave consecutive draws' residues independent.
        let n = 1 << 20;
        let mut map = RandMap::new(n, Rng::derive(3, 3), true);
        let mut pairs = [[0u32; 16]; 16];
        let mut prev = map.next() % 16;
        let draws = 1 << 20;
        for _ in 0..draws {
            let x = map.next() % 16;
            pairs[prev as usize][x as usize] += 1;
            prev = x;
        }
        let expect = draws as f64 / 256.0;
        let chi2: f64 = pairs
            .iter()
            .flatten()
            .map(|&c| (c as f64 - expect).powi(2) / expect)
            .sum();
        // 255 degrees of freedom: mean 255, sd ~22.6; 400 is beyond 6 sd.
        assert!(chi2 < 400.0, "chi2 {chi2}");
        // And a non-power-of-two span: the halves of the span are drawn alike early on.
        let n = 3_000_001;
        let mut map = RandMap::new(n, Rng::derive(4, 4), true);
        let low = (0..30_000).filter(|_| map.next() < n / 2).count();
        assert!((14_000..16_000).contains(&low), "{low}");
    }
}
