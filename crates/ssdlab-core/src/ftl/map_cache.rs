//! Demand-paged map cache (DFTL-style): a fixed number of slots, each holding one
//! map segment, found through a per-segment index (the map-of-map / global
//! translation directory). Replacement is LRU (intrusive doubly-linked list) or
//! CLOCK (reference bits and a sweeping hand); dirty segments are returned on
//! eviction so the caller can write them back.
//!
//! Simplifies: this models which segments are resident and dirty, not their
//! contents; the simulator keeps the authoritative map in `Ftl::l2p`, so a cached
//! segment can never go stale.

use crate::config::memory::ReplacementPolicy;

const NONE: u32 = u32::MAX;

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MapCacheStats {
    pub hits: u64,
    pub misses: u64,
    pub inserts: u64,
    pub evictions: u64,
    pub dirty_evictions: u64,
}

/// A segment pushed out of the cache.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Evicted {
    pub segment: u32,
    pub dirty: bool,
}

#[derive(Clone, Debug)]
pub struct MapCache {
    policy: ReplacementPolicy,
    capacity: u32,
    /// Segment -> slot (NONE when not cached).
    slot_of: Vec<u32>,
    /// Slot -> segment.
    seg_of: Vec<u32>,
    dirty: Vec<bool>,
    /// LRU list: `prev` towards the most recent end, `next` towards the least.
    prev: Vec<u32>,
    next: Vec<u32>,
    mru: u32,
    lru: u32,
    /// CLOCK reference bits and hand.
    referenced: Vec<bool>,
    hand: u32,
    pub stats: MapCacheStats,
}

impl MapCache {
    /// A cache of `capacity` segments (at least one) over `segments` map segments.
    pub fn new(segments: u64, capacity: u64, policy: ReplacementPolicy) -> Self {
        let capacity = capacity.clamp(1, segments.max(1)) as u32;
        let n = capacity as usize;
        MapCache {
            policy,
            capacity,
            slot_of: vec![NONE; segments as usize],
            seg_of: Vec::with_capacity(n),
            dirty: Vec::with_capacity(n),
            prev: Vec::with_capacity(n),
            next: Vec::with_capacity(n),
            mru: NONE,
            lru: NONE,
            referenced: Vec::with_capacity(n),
            hand: 0,
            stats: MapCacheStats::default(),
        }
    }

    pub fn capacity(&self) -> u32 {
        self.capacity
    }

    pub fn len(&self) -> u32 {
        self.seg_of.len() as u32
    }

    pub fn is_empty(&self) -> bool {
        self.seg_of.is_empty()
    }

    #[inline]
    pub fn contains(&self, seg: u32) -> bool {
        self.slot_of[seg as usize] != NONE
    }

    /// Look a segment up, counting a hit or a miss; a hit refreshes its recency.
    #[inline]
    pub fn lookup(&mut self, seg: u32) -> bool {
        let slot = self.slot_of[seg as usize];
        if slot == NONE {
            self.stats.misses += 1;
            return false;
        }
        self.stats.hits += 1;
        self.touch(slot);
        true
    }

    /// Mark a cached segment dirty (its entries changed); false if not cached.
    #[inline]
    pub fn mark_dirty(&mut self, seg: u32) -> bool {
        let slot = self.slot_of[seg as usize];
        if slot == NONE {
            return false;
        }
        self.dirty[slot as usize] = true;
        self.touch(slot);
        true
    }

    /// Mark a cached segment clean (written back while it stays cached); false if
    /// it is not cached.
    pub fn mark_clean(&mut self, seg: u32) -> bool {
        let slot = self.slot_of[seg as usize];
        if slot == NONE {
            return false;
        }
        self.dirty[slot as usize] = false;
        true
    }

    pub fn is_dirty(&self, seg: u32) -> bool {
        let slot = self.slot_of[seg as usize];
        slot != NONE && self.dirty[slot as usize]
    }

    /// Insert a segment that is not cached; returns the segment it displaced.
    pub fn insert(&mut self, seg: u32, dirty: bool) -> Option<Evicted> {
        debug_assert!(!self.contains(seg));
        self.stats.inserts += 1;
        if (self.seg_of.len() as u32) < self.capacity {
            let slot = self.seg_of.len() as u32;
            self.seg_of.push(seg);
            self.dirty.push(dirty);
            self.prev.push(NONE);
            self.next.push(NONE);
            self.referenced.push(true);
            self.slot_of[seg as usize] = slot;
            self.link_front(slot);
            return None;
        }
        let slot = self.victim();
        let old = self.seg_of[slot as usize];
        let was_dirty = self.dirty[slot as usize];
        self.stats.evictions += 1;
        if was_dirty {
            self.stats.dirty_evictions += 1;
        }
        self.slot_of[old as usize] = NONE;
        self.slot_of[seg as usize] = slot;
        self.seg_of[slot as usize] = seg;
        self.dirty[slot as usize] = dirty;
        self.referenced[slot as usize] = true;
        if self.policy == ReplacementPolicy::Lru {
            self.unlink(slot);
            self.link_front(slot);
        }
        Some(Evicted {
            segment: old,
            dirty: was_dirty,
        })
    }

    /// Drop a segment (clean or not) without counting an eviction; false if absent.
    pub fn remove(&mut self, seg: u32) -> bool {
        let slot = self.slot_of[seg as usize];
        if slot == NONE {
            return false;
        }
        // Move the last slot into the hole so slots stay dense.
        let last = self.seg_of.len() as u32 - 1;
        if self.policy == ReplacementPolicy::Lru {
            self.unlink(slot);
        }
        if slot != last {
            let moved = self.seg_of[last as usize];
            let was_linked_lru = self.policy == ReplacementPolicy::Lru;
            if was_linked_lru {
                // Relink `last` at `slot`'s index.
                let (p, n) = (self.prev[last as usize], self.next[last as usize]);
                self.prev[slot as usize] = p;
                self.next[slot as usize] = n;
                if p != NONE {
                    self.next[p as usize] = slot;
                } else {
                    self.mru = slot;
                }
                if n != NONE {
                    self.prev[n as usize] = slot;
                } else {
                    self.lru = slot;
                }
            }
            self.seg_of[slot as usize] = moved;
            self.dirty[slot as usize] = self.dirty[last as usize];
            self.referenced[slot as usize] = self.referenced[last as usize];
            self.slot_of[moved as usize] = slot;
        }
        self.slot_of[seg as usize] = NONE;
        self.seg_of.pop();
        self.dirty.pop();
        self.prev.pop();
        self.next.pop();
        self.referenced.pop();
        if self.hand >= self.seg_of.len() as u32 {
            self.hand = 0;
        }
        true
    }

    /// Segments from most to least recently used (LRU) or in slot order (CLOCK).
    pub fn order(&self) -> Vec<u32> {
        match self.policy {
            ReplacementPolicy::Lru => {
                let mut out = Vec::with_capacity(self.seg_of.len());
                let mut s = self.mru;
                while s != NONE {
                    out.push(self.seg_of[s as usize]);
                    s = self.next[s as usize];
                }
                out
            }
            ReplacementPolicy::Clock => self.seg_of.clone(),
        }
    }

    #[inline]
    fn touch(&mut self, slot: u32) {
        match self.policy {
            ReplacementPolicy::Lru => {
                if self.mru != slot {
                    self.unlink(slot);
                    self.link_front(slot);
                }
            }
            ReplacementPolicy::Clock => self.referenced[slot as usize] = true,
        }
    }

    fn victim(&mut self) -> u32 {
        match self.policy {
            ReplacementPolicy::Lru => self.lru,
            ReplacementPolicy::Clock => loop {
                let h = self.hand;
                self.hand = (self.hand + 1) % self.capacity;
                if self.referenced[h as usize] {
                    self.referenced[h as usize] = false;
                } else {
                    return h;
                }
            },
        }
    }

    fn link_front(&mut self, slot: u32) {
        if self.policy != ReplacementPolicy::Lru {
            return;
        }
        self.prev[slot as usize] = NONE;
        self.next[slot as usize] = self.mru;
        if self.mru != NONE {
            self.prev[self.mru as usize] = slot;
        }
        self.mru = slot;
        if self.lru == NONE {
            self.lru = slot;
        }
    }

    fn unlink(&mut self, slot: u32) {
        let (p, n) = (self.prev[slot as usize], self.next[slot as usize]);
        if p != NONE {
            self.next[p as usize] = n;
        } else {
            self.mru = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        } else {
            self.lru = p;
        }
        self.prev[slot as usize] = NONE;
        self.next[slot as usize] = NONE;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Rng;
    use std::collections::VecDeque;

    #[test]
    fn lru_evicts_least_recently_used() {
        let mut c = MapCache::new(10, 3, ReplacementPolicy::Lru);
        assert_eq!(c.insert(1, false), None);
        assert_eq!(c.insert(2, false), None);
        assert_eq!(c.insert(3, false), None);
        assert_eq!(c.order(), vec![3, 2, 1]);
        assert!(c.lookup(1));
        assert_eq!(c.order(), vec![1, 3, 2]);
        assert_eq!(
            c.insert(4, false),
            Some(Evicted {
                segment: 2,
                dirty: false
            })
        );
        assert_eq!(c.order(), vec![4, 1, 3]);
        assert!(!c.lookup(2));
        assert_eq!(c.stats.hits, 1);
        assert_eq!(c.stats.misses, 1);
    }

    #[test]
    fn dirty_segments_come_back_on_eviction() {
        let mut c = MapCache::new(10, 2, ReplacementPolicy::Lru);
        c.insert(5, false);
        c.insert(6, false);
        assert!(c.mark_dirty(5)); // 5 becomes most recent and dirty
        assert!(!c.mark_dirty(7));
        let e = c.insert(7, false).unwrap();
        assert_eq!((e.segment, e.dirty), (6, false));
        let e = c.insert(8, true).unwrap();
        assert_eq!((e.segment, e.dirty), (5, true));
        assert!(c.is_dirty(8));
        assert_eq!(c.stats.dirty_evictions, 1);
    }

    #[test]
    fn clock_gives_a_second_chance() {
        let mut c = MapCache::new(10, 3, ReplacementPolicy::Clock);
        c.insert(1, false);
        c.insert(2, false);
        c.insert(3, false);
        // All referenced: the hand clears 1, 2, 3 and then takes slot 0 (segment 1).
        assert_eq!(c.insert(4, false).unwrap().segment, 1);
        // 2 and 3 now have clear bits; touching 2 spares it.
        assert!(c.lookup(2));
        assert_eq!(c.insert(5, false).unwrap().segment, 3);
    }

    /// Exact hit counts against a straightforward reference LRU on a random trace.
    #[test]
    fn lru_hit_count_matches_reference() {
        let mut rng = Rng::new(42);
        for cap in [1u64, 2, 7, 32] {
            let mut c = MapCache::new(64, cap, ReplacementPolicy::Lru);
            let mut reference: VecDeque<u32> = VecDeque::new();
            let mut ref_hits = 0u64;
            for _ in 0..5000 {
                // Skewed: half the accesses go to 8 hot segments.
                let seg = if rng.next_u64().is_multiple_of(2) {
                    (rng.next_u64() % 8) as u32
                } else {
                    (rng.next_u64() % 64) as u32
                };
                if let Some(pos) = reference.iter().position(|&s| s == seg) {
                    ref_hits += 1;
                    reference.remove(pos);
                } else if reference.len() as u64 == cap {
                    reference.pop_back();
                }
                reference.push_front(seg);
                if !c.lookup(seg) {
                    c.insert(seg, false);
                }
                assert_eq!(c.order(), Vec::from(reference.clone()));
            }
            assert_eq!(c.stats.hits, ref_hits, "capacity {cap}");
        }
    }

    #[test]
    fn remove_keeps_the_order_of_the_rest() {
        let mut c = MapCache::new(10, 4, ReplacementPolicy::Lru);
        for s in [1, 2, 3, 4] {
            c.insert(s, false);
        }
        assert!(c.remove(2));
        assert!(!c.remove(2));
        assert_eq!(c.order(), vec![4, 3, 1]);
        assert!(c.remove(4));
        assert_eq!(c.order(), vec![3, 1]);
        c.insert(7, false);
        c.insert(8, false);
        assert_eq!(c.insert(9, false).unwrap().segment, 1);
        assert_eq!(c.order(), vec![9, 8, 7, 3]);
    }

    /// Uniform random access over S segments with C cached hits at about C/S.
    #[test]
    fn uniform_hit_rate_is_the_cached_fraction() {
        let mut rng = Rng::new(7);
        for policy in [ReplacementPolicy::Lru, ReplacementPolicy::Clock] {
            let mut c = MapCache::new(1000, 250, policy);
            for _ in 0..200_000 {
                let seg = (rng.next_u64() % 1000) as u32;
                if !c.lookup(seg) {
                    c.insert(seg, false);
                }
            }
            let rate = c.stats.hits as f64 / (c.stats.hits + c.stats.misses) as f64;
            assert!((rate - 0.25).abs() < 0.01, "{policy:?}: {rate}");
        }
    }
}
