//! Work on map arrays from two threads at once (the drive preparation,
//! `ftl::prep::apply_distribution`): materialising one array on a helper thread, and
//! many stores into a materialised array: the stores come sorted
//! into two runs whose indices lie in disjoint ranges, so each thread writes its own
//! part of the array and the result is the one a single thread would leave.
//!
//! Simplifies: only owned chunks (a materialised array, no overlay, no sharing) take
//! these stores; anything else goes through `MapArray::set` on one thread.

use super::{MapArray, CHUNK_MASK, CHUNK_SHIFT};
use crate::interrupt::Halt;

/// The chunks' addresses, sent to a second thread (each thread stores only indices of
/// its own range, see `store_split`).
#[derive(Clone, Copy)]
struct Chunks<'a> {
    data: &'a [usize],
}

impl Chunks<'_> {
    /// `array[i] = v`, prefetched `AHEAD` stores ahead (`main`: the thread that asks
    /// the interrupt hook; the other stops when it has).
    fn store_all(self, pairs: &[(u32, u32)], main: bool, halt: &Halt) {
        const AHEAD: usize = 32;
        let _g = main.then(|| halt.guard());
        for (k, &(i, v)) in pairs.iter().enumerate() {
            if !halt.go_on(main, k) {
                return;
            }
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
    /// `materialise` on a helper thread (no interrupt hook): stops early, leaving the
    /// rest implicit, once `halt` says the thread with the hook has stopped.
    pub fn materialise_unless_halted(&mut self, halt: &Halt) {
        for c in 0..self.chunks.len() {
            if halt.stopped(0) {
                return;
            }
            if !self.slots[c].owned {
                self.own(c);
            }
        }
    }

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
        let halt = Halt::default();
        std::thread::scope(|s| {
            s.spawn(|| chunks.store_all(second, false, &halt));
            chunks.store_all(first, true, &halt);
        });
    }
}
