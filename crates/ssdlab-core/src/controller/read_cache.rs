//! Data read cache: mapping units read from NAND are kept so that a later read of
//! the same logical unit skips the flash.
//!
//! Organisation: set-associative, `ways` units per set, set = lpn mod sets, LRU
//! inside a set (a per-entry stamp from a global counter). A contiguous range of
//! at most `capacity` units therefore always fits, as in a fully associative LRU
//! cache, while the lookup stays a short scan with no hashing or allocation.
//! Writes and trims invalidate the units they cover (the new data lives in the
//! write buffer and then in NAND). Units read ahead (`ReadAhead`) are kept for one
//! use: the hit that serves them makes them the set's least recently used, so a
//! sequential stream's consumed data goes before data it has not reached yet.
//! Simplifies: no admission policy.

const EMPTY: u32 = u32::MAX;

#[derive(Clone, Debug, Default)]
pub struct ReadCacheStats {
    pub hits: u64,
    pub misses: u64,
    pub fills: u64,
    pub evictions: u64,
    pub invalidations: u64,
}

#[derive(Clone, Debug)]
pub struct ReadCache {
    sets: u64,
    ways: usize,
    tags: Vec<u32>,
    stamps: Vec<u64>,
    /// Oracle version of the cached data (0 when the oracle is off).
    versions: Vec<u32>,
    /// Read ahead and not used yet: its first hit demotes it.
    once: Vec<bool>,
    clock: u64,
    pub stats: ReadCacheStats,
}

impl ReadCache {
    /// A cache of `capacity_units` mapping units, `ways` per set.
    pub fn new(capacity_units: u64, ways: u32) -> Self {
        let ways = (ways.max(1) as u64).min(capacity_units.max(1)) as usize;
        let sets = (capacity_units / ways as u64).max(1);
        let n = sets as usize * ways;
        ReadCache {
            sets,
            ways,
            tags: vec![EMPTY; n],
            stamps: vec![0; n],
            versions: vec![0; n],
            once: vec![false; n],
            clock: 0,
            stats: ReadCacheStats::default(),
        }
    }

    pub fn capacity_units(&self) -> u64 {
        self.tags.len() as u64
    }

    #[inline]
    fn set_range(&self, lpn: u32) -> std::ops::Range<usize> {
        let s = (lpn as u64 % self.sets) as usize * self.ways;
        s..s + self.ways
    }

    #[inline]
    fn find(&self, lpn: u32) -> Option<usize> {
        let r = self.set_range(lpn);
        let start = r.start;
        self.tags[r]
            .iter()
            .position(|&t| t == lpn)
            .map(|i| start + i)
    }

    /// Is `lpn` cached? A hit refreshes its recency and gives the data's oracle version.
    #[inline]
    pub fn lookup(&mut self, lpn: u32) -> Option<u32> {
        match self.find(lpn) {
            Some(i) => {
                self.clock += 1;
                self.stamps[i] = if self.once[i] { 0 } else { self.clock };
                self.once[i] = false;
                self.stats.hits += 1;
                Some(self.versions[i])
            }
            None => {
                self.stats.misses += 1;
                None
            }
        }
    }

    /// Is `lpn` cached (no effect on recency or statistics)?
    #[inline]
    pub fn contains(&self, lpn: u32) -> bool {
        self.find(lpn).is_some()
    }

    /// Keep `lpn` (its data just came from NAND), evicting the set's LRU unit;
    /// `once`: read ahead, to be demoted by its first hit.
    #[inline]
    pub fn insert(&mut self, lpn: u32, version: u32, once: bool) {
        self.clock += 1;
        if let Some(i) = self.find(lpn) {
            self.stamps[i] = self.clock;
            self.versions[i] = version;
            self.once[i] = once;
            return;
        }
        let r = self.set_range(lpn);
        let mut victim = r.start;
        for i in r {
            if self.tags[i] == EMPTY {
                victim = i;
                break;
            }
            if self.stamps[i] < self.stamps[victim] {
                victim = i;
            }
        }
        if self.tags[victim] != EMPTY {
            self.stats.evictions += 1;
        }
        self.tags[victim] = lpn;
        self.stamps[victim] = self.clock;
        self.versions[victim] = version;
        self.once[victim] = once;
        self.stats.fills += 1;
    }

    /// Drop `lpn` (it was overwritten or trimmed).
    #[inline]
    pub fn invalidate(&mut self, lpn: u32) {
        if let Some(i) = self.find(lpn) {
            self.tags[i] = EMPTY;
            self.stamps[i] = 0;
            self.stats.invalidations += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contiguous_range_up_to_capacity_fits_and_one_more_evicts_lru() {
        let mut c = ReadCache::new(64, 16);
        for l in 100..164 {
            assert!(c.lookup(l).is_none());
            c.insert(l, 0, false);
        }
        for l in 100..164 {
            assert!(c.lookup(l).is_some(), "{l}");
        }
        // One more unit in lpn 164's set evicts that set's least recently used unit.
        c.insert(164, 0, false);
        assert_eq!(c.stats.evictions, 1);
        assert!(c.lookup(100).is_none(), "lpn 100 was the set's LRU");
        assert!(c.lookup(104).is_some());
    }

    #[test]
    fn recency_protects_a_unit() {
        let mut c = ReadCache::new(2, 2);
        c.insert(1, 0, false);
        c.insert(2, 0, false);
        assert!(c.lookup(1).is_some()); // 2 is now the LRU
        c.insert(3, 0, false);
        assert!(c.lookup(1).is_some());
        assert!(c.lookup(2).is_none());
        assert!(c.lookup(3).is_some());
    }

    #[test]
    fn a_unit_read_ahead_is_demoted_by_its_first_hit() {
        let mut c = ReadCache::new(2, 2);
        c.insert(1, 0, false);
        c.insert(2, 0, true);
        assert!(c.lookup(1).is_some()); // 2 is the LRU...
        assert!(c.lookup(2).is_some()); // ...and its use demotes it below 1
        c.insert(3, 0, false);
        assert!(
            c.lookup(2).is_none(),
            "the consumed read-ahead unit went first"
        );
        assert!(c.lookup(1).is_some());
        c.insert(4, 0, false);
        assert!(c.lookup(3).is_none(), "a second hit is an ordinary refresh");
    }

    #[test]
    fn invalidate_removes_only_that_unit() {
        let mut c = ReadCache::new(8, 4);
        c.insert(5, 0, false);
        c.insert(6, 0, false);
        c.invalidate(5);
        c.invalidate(99);
        assert!(c.lookup(5).is_none());
        assert!(c.lookup(6).is_some());
        assert_eq!(c.stats.invalidations, 1);
    }

    #[test]
    fn hit_count_matches_a_reference_lru_on_a_small_trace() {
        // Fully associative (one set) against a straightforward reference LRU list.
        let mut c = ReadCache::new(8, 8);
        let mut reference: Vec<u32> = Vec::new();
        let mut rng = crate::sim::Rng::new(7);
        let mut hits = 0;
        for _ in 0..5000 {
            let l = rng.below(20) as u32;
            let hit_ref = if let Some(p) = reference.iter().position(|&x| x == l) {
                reference.remove(p);
                true
            } else {
                if reference.len() == 8 {
                    reference.remove(0);
                }
                false
            };
            reference.push(l);
            let hit = c.lookup(l).is_some();
            if !hit {
                c.insert(l, 0, false);
            }
            assert_eq!(hit, hit_ref);
            hits += hit as u32;
        }
        assert!(hits > 1000 && hits < 4000, "{hits}");
    }
}
