//! Many stores into a materialised map array from two threads at once (the drive
//! preparation's l2p stores, `ftl::prep::apply_distribution`): the stores come sorted
//! into two runs whose indices lie in disjoint ranges, so each thread writes its own
//! part of the array and the result is the one a single thread would leave.
//!
//! Simplifies: only owned chunks (a materialised array, no overlay, no sharing) take
//! these stores; anything else goes through `MapArray::set` on one thread.

use super::{MapArray, CHUNK_MASK, CHUNK_SHIFT};

/// The chunks' addresses, sent to a second thread (each thread stores only indices of
/// its own range, see `store_split`).
#[derive(Clone, Copy)]
struct Chunks<'a> {
    data: &'a [usize],
}

impl Chunks<'_> {
    /// `array[i] = v`, prefetched `AHEAD` stores ahead.
    fn store_all(self, pairs: &[(u32, u32)]) {
        const AHEAD: usize = 32;
        for (k, &(i, v)) in pairs.iter().enumerate() {
            #[cfg(target_arch = "x86_64")]
            if let Some(&(j, _)) = pairs.get(k + AHEAD) {
                let p = self.data[j as usize >> CHUNK_SHIFT] as *const u32;
                // SAFETY: the chunk holds entry j & CHUNK_MASK; prefetching never faults.
                unsafe {
                    std::arch::x86_64::_mm_prefetch(
                        p.add(j as usize & CHUNK_MASK) as *const i8,
                        std::arch::x86_64::_MM_HINT_T0,
                    )
                };
            }
            let p = self.data[i as usize >> CHUNK_SHIFT] as *mut u32;
            // SAFETY: the chunk is owned by the array (checked in `store_split`) and
            // holds entry i & CHUNK_MASK; no other thread stores into entry i (the two
            // runs' indices are disjoint) and no one reads the array meanwhile (it is
            // borrowed mutably).
            unsafe { *p.add(i as usize & CHUNK_MASK) = v };
        }
    }
}

impl MapArray {
    /// `self[i] = v` for every pair of `first` and of `second`, on two threads, where
    /// every index of `first` is below every index of `second`. On an array with a
    /// chunk it does not own, the stores go through `set` on this thread.
    pub fn store_split(&mut self, first: &[(u32, u32)], second: &[(u32, u32)]) {
        debug_assert!(match (
            first.iter().map(|p| p.0).max(),
            second.iter().map(|p| p.0).min()
        ) {
            (Some(a), Some(b)) => a < b,
            _ => true,
        });
        let owned = self.slots.iter().all(|s| s.owned && !s.data.is_null());
        if !owned || first.is_empty() || second.is_empty() {
            for &(i, v) in first.iter().chain(second) {
                self.set(i as usize, v);
            }
            return;
        }
        let addrs: Vec<usize> = self.slots.iter().map(|s| s.data as usize).collect();
        let chunks = Chunks { data: &addrs };
        std::thread::scope(|s| {
            s.spawn(move || chunks.store_all(second));
            chunks.store_all(first);
        });
    }
}
