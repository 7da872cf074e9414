//! The FTL's two big arrays, `l2p` and `p2l` (a u32 per mapping unit: about 1 GB
//! each on a TB-class drive), stored in 2 MiB chunks that clones share copy-on-write.
//!
//! A sweep clones one prepared drive for every point. A plain copy of both maps took
//! about 0.7 s per point on a 1 TB drive (memory bandwidth, two points copying at
//! once), more than most points' simulation. Here a clone of a *shared* array (see
//! [`MapArray::share`]) holds the same chunks and copies a chunk only when it first
//! stores into it: a read or sequential test copies almost nothing, a random-write
//! test what it touches. Chunks are 2 MiB-aligned and marked for transparent huge
//! pages, so random lookups keep the TLB reach of one huge-page array.
//!
//! Simplifications: the copy-on-write check costs one predictable branch per store and
//! a lookup one more L1 load (the chunk's address) than a flat array.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::mem::MaybeUninit;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

const CHUNK_SHIFT: u32 = 19;
/// Entries per chunk: 512 Ki u32 = 2 MiB, one huge page.
const CHUNK_LEN: usize = 1 << CHUNK_SHIFT;
const CHUNK_MASK: usize = CHUNK_LEN - 1;
const HUGE_PAGE_BYTES: usize = 2 << 20;

/// One allocation of up to `CHUNK_LEN` entries.
struct Chunk {
    ptr: NonNull<u32>,
    len: usize,
}

// SAFETY: a chunk is plain memory it owns; `MapArray` writes to a chunk only while it
// holds the only reference to it (`Slot::owned`), and otherwise only reads it.
unsafe impl Send for Chunk {}
unsafe impl Sync for Chunk {}

impl Chunk {
    fn layout(len: usize) -> Layout {
        let bytes = (len * 4).max(4);
        let align = if bytes >= HUGE_PAGE_BYTES {
            HUGE_PAGE_BYTES
        } else {
            64
        };
        Layout::from_size_align(bytes, align).expect("chunk layout")
    }

    fn uninit(len: usize) -> Chunk {
        if len == CHUNK_LEN {
            if let Some(ptr) = pool().and_then(|mut p| p.pop()) {
                return Chunk { ptr: ptr.0, len };
            }
        }
        let layout = Self::layout(len);
        // SAFETY: the layout has a non-zero size.
        let raw = unsafe { alloc(layout) } as *mut u32;
        let Some(ptr) = NonNull::new(raw) else {
            handle_alloc_error(layout)
        };
        #[cfg(target_os = "linux")]
        if layout.align() == HUGE_PAGE_BYTES {
            // SAFETY: the range is the allocation just made; madvise only changes how
            // the kernel backs it.
            unsafe {
                libc::madvise(raw as *mut libc::c_void, layout.size(), libc::MADV_HUGEPAGE);
            }
        }
        Chunk { ptr, len }
    }

    fn filled(len: usize, value: u32) -> Chunk {
        let c = Self::uninit(len);
        // SAFETY: `len` entries were allocated; writing through MaybeUninit initialises them.
        let cells =
            unsafe { std::slice::from_raw_parts_mut(c.ptr.as_ptr() as *mut MaybeUninit<u32>, len) };
        cells.fill(MaybeUninit::new(value));
        c
    }

    fn copy(&self) -> Chunk {
        let c = Self::uninit(self.len);
        // SAFETY: both allocations hold `len` entries and do not overlap.
        unsafe { std::ptr::copy_nonoverlapping(self.ptr.as_ptr(), c.ptr.as_ptr(), self.len) };
        c
    }

    fn as_slice(&self) -> &[u32] {
        // SAFETY: `len` initialised entries; writers hold the chunk exclusively (above).
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

/// A whole chunk's memory kept for the next copy-on-write copy (see `recycle_chunks`).
struct FreeChunk(NonNull<u32>);
// SAFETY: freed memory owned by the pool alone.
unsafe impl Send for FreeChunk {}

static POOL: Mutex<Vec<FreeChunk>> = Mutex::new(Vec::new());
static RECYCLE: AtomicBool = AtomicBool::new(false);
/// At most this many chunks (4 GiB) wait in the pool.
const POOL_MAX_CHUNKS: usize = 2048;

/// The pool, while recycling is on.
fn pool() -> Option<std::sync::MutexGuard<'static, Vec<FreeChunk>>> {
    if !RECYCLE.load(Ordering::Relaxed) {
        return None;
    }
    Some(POOL.lock().unwrap_or_else(|e| e.into_inner()))
}

/// Keep the memory of dropped chunks for later copies (on), or free it (off). On
/// while a prepared drive is cached for reuse: each run copies the chunks it stores
/// into, and a new 2 MiB allocation costs a page fault and zeroing the kernel does
/// not need to do again for memory already mapped.
pub fn recycle_chunks(on: bool) {
    RECYCLE.store(on, Ordering::Relaxed);
    if !on {
        let freed = std::mem::take(&mut *POOL.lock().unwrap_or_else(|e| e.into_inner()));
        for FreeChunk(ptr) in freed {
            // SAFETY: a pooled chunk was allocated in `uninit` with CHUNK_LEN entries.
            unsafe { dealloc(ptr.as_ptr() as *mut u8, Chunk::layout(CHUNK_LEN)) };
        }
    }
}

impl Drop for Chunk {
    fn drop(&mut self) {
        if self.len == CHUNK_LEN {
            if let Some(mut p) = pool() {
                if p.len() < POOL_MAX_CHUNKS {
                    p.push(FreeChunk(self.ptr));
                    return;
                }
            }
        }
        // SAFETY: allocated in `uninit` with this layout.
        unsafe { dealloc(self.ptr.as_ptr() as *mut u8, Self::layout(self.len)) };
    }
}

/// Where a chunk's entries are and whether this array may store into it in place.
#[derive(Clone, Copy)]
struct Slot {
    data: *mut u32,
    /// This array holds the only reference to the chunk.
    owned: bool,
}

/// An array of u32 in shared, copy-on-write chunks (see the module header).
pub struct MapArray {
    slots: Vec<Slot>,
    chunks: Vec<Arc<Chunk>>,
    len: usize,
}

// SAFETY: the raw pointers in `slots` point into `chunks`, which the array keeps alive;
// stores happen through `&mut self` into owned chunks only.
unsafe impl Send for MapArray {}
unsafe impl Sync for MapArray {}

impl MapArray {
    /// `len` entries, each `value`.
    pub fn filled(len: usize, value: u32) -> Self {
        let chunks: Vec<Arc<Chunk>> = (0..len.div_ceil(CHUNK_LEN).max(1))
            .map(|c| Arc::new(Chunk::filled((len - c * CHUNK_LEN).min(CHUNK_LEN), value)))
            .collect();
        Self::from_chunks(chunks, len, true)
    }

    fn from_chunks(chunks: Vec<Arc<Chunk>>, len: usize, owned: bool) -> Self {
        let slots = chunks
            .iter()
            .map(|c| Slot {
                data: c.ptr.as_ptr(),
                owned,
            })
            .collect();
        MapArray { slots, chunks, len }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Let clones share every chunk from now on (this array copies a chunk too before
    /// its next store into it). Called on a prepared drive kept for reuse.
    pub fn share(&mut self) {
        for s in &mut self.slots {
            s.owned = false;
        }
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        self.chunks
            .iter()
            .flat_map(|c| c.as_slice().iter().copied())
    }

    /// How many of the first `end` entries `keep` accepts (a loop per chunk).
    pub fn count_below(&self, end: usize, keep: impl Fn(u32) -> bool) -> usize {
        let mut left = end.min(self.len);
        let mut n = 0;
        for c in &self.chunks {
            let s = &c.as_slice()[..left.min(c.len)];
            n += s.iter().filter(|&&x| keep(x)).count();
            left -= s.len();
        }
        n
    }

    /// Start loading entry `i` into the CPU caches (a performance hint only).
    #[inline]
    pub fn prefetch(&self, i: usize) {
        #[cfg(target_arch = "x86_64")]
        if i < self.len {
            // SAFETY: i < len, so the chunk exists and the address is inside it;
            // prefetching never faults.
            unsafe {
                let s = self.slots.get_unchecked(i >> CHUNK_SHIFT);
                std::arch::x86_64::_mm_prefetch(
                    s.data.add(i & CHUNK_MASK) as *const i8,
                    std::arch::x86_64::_MM_HINT_T0,
                );
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }

    /// `self[start + i] = first + i` for i in 0..count: one run of a sequential fill,
    /// stored chunk by chunk (a plain loop, without a copy-on-write check per entry).
    pub fn set_ascending(&mut self, start: usize, count: usize, first: u32) {
        assert!(start + count <= self.len, "run past the end of the map");
        let mut done = 0;
        while done < count {
            let at = start + done;
            let (c, o) = (at >> CHUNK_SHIFT, at & CHUNK_MASK);
            let n = (count - done).min(CHUNK_LEN - o);
            if !self.slots[c].owned {
                self.own(c);
            }
            // SAFETY: the chunk is owned (its only reference) and holds entries o..o + n,
            // which lie below len.
            let run = unsafe { std::slice::from_raw_parts_mut(self.slots[c].data.add(o), n) };
            let mut v = first.wrapping_add(done as u32);
            for x in run {
                *x = v;
                v = v.wrapping_add(1);
            }
            done += n;
        }
    }

    /// Make chunk `c` this array's own: copy it unless no one else holds it.
    #[cold]
    #[inline(never)]
    fn own(&mut self, c: usize) {
        if Arc::get_mut(&mut self.chunks[c]).is_none() {
            self.chunks[c] = Arc::new(self.chunks[c].copy());
        }
        self.slots[c] = Slot {
            data: self.chunks[c].ptr.as_ptr(),
            owned: true,
        };
    }
}

#[cold]
#[inline(never)]
fn out_of_range(i: usize, len: usize) -> ! {
    panic!("map index {i} out of range (len {len})")
}

impl std::ops::Index<usize> for MapArray {
    type Output = u32;
    #[inline]
    fn index(&self, i: usize) -> &u32 {
        if i >= self.len {
            out_of_range(i, self.len);
        }
        // SAFETY: i < len: the chunk exists and holds entry i & CHUNK_MASK; the array
        // keeps the chunk alive for the borrow, and no one stores into it meanwhile
        // (this array needs `&mut self` to, others only store into their own copies).
        unsafe {
            let s = self.slots.get_unchecked(i >> CHUNK_SHIFT);
            &*s.data.add(i & CHUNK_MASK)
        }
    }
}

impl std::ops::IndexMut<usize> for MapArray {
    #[inline]
    fn index_mut(&mut self, i: usize) -> &mut u32 {
        if i >= self.len {
            out_of_range(i, self.len);
        }
        let c = i >> CHUNK_SHIFT;
        // SAFETY: c < slots.len() since i < len.
        if !unsafe { self.slots.get_unchecked(c) }.owned {
            self.own(c);
        }
        // SAFETY: as in `index`; the chunk is owned, so this is its only reference.
        unsafe { &mut *self.slots.get_unchecked(c).data.add(i & CHUNK_MASK) }
    }
}

impl Clone for MapArray {
    /// Shares the chunks this array does not own (all of them after `share`) and
    /// copies the ones it owns.
    fn clone(&self) -> Self {
        let mut owned = Vec::with_capacity(self.chunks.len());
        let chunks = self
            .chunks
            .iter()
            .zip(&self.slots)
            .map(|(c, s)| {
                owned.push(s.owned);
                if s.owned {
                    Arc::new(c.copy())
                } else {
                    c.clone()
                }
            })
            .collect();
        let mut out = Self::from_chunks(chunks, self.len, false);
        for (s, o) in out.slots.iter_mut().zip(owned) {
            s.owned = o;
        }
        out
    }
}

impl PartialEq for MapArray {
    fn eq(&self, other: &Self) -> bool {
        self.len == other.len
            && self
                .chunks
                .iter()
                .zip(&other.chunks)
                .all(|(a, b)| a.as_slice() == b.as_slice())
    }
}

impl Eq for MapArray {}

impl std::fmt::Debug for MapArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MapArray(len {})", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clones_share_until_they_store() {
        let n = CHUNK_LEN * 2 + 5;
        let mut a = MapArray::filled(n, 7);
        a[3] = 1;
        a[CHUNK_LEN + 1] = 2;
        a[n - 1] = 3;
        a.share();
        let mut b = a.clone();
        assert!(Arc::ptr_eq(&a.chunks[0], &b.chunks[0]));
        b[3] = 9;
        assert!(!Arc::ptr_eq(&a.chunks[0], &b.chunks[0]));
        assert!(Arc::ptr_eq(&a.chunks[1], &b.chunks[1]));
        assert_eq!((a[3], b[3], b[CHUNK_LEN + 1], b[n - 1]), (1, 9, 2, 3));
        // The shared array copies too before it stores: a clone never sees the store.
        a[CHUNK_LEN + 1] = 4;
        assert_eq!((a[CHUNK_LEN + 1], b[CHUNK_LEN + 1]), (4, 2));
        // A clone of an array that owns its chunks copies them.
        let c = b.clone();
        b[3] = 10;
        assert_eq!((b[3], c[3]), (10, 9));
        assert_eq!(c.iter().count(), n);
        assert_eq!(c.iter().filter(|&x| x == 7).count(), n - 3);
        assert_eq!(c.count_below(CHUNK_LEN + 2, |x| x == 7), CHUNK_LEN);
        // The last holder of a chunk stores in place.
        drop((a, c));
        let p = b.chunks[1].ptr;
        b[CHUNK_LEN] = 5;
        assert_eq!(b.chunks[1].ptr, p);
    }

    #[test]
    fn recycled_chunks_hold_what_is_copied_into_them() {
        recycle_chunks(true);
        let mut a = MapArray::filled(CHUNK_LEN * 3, 1);
        a.share();
        for round in 0..3u32 {
            let mut b = a.clone();
            for c in 0..3 {
                b[c * CHUNK_LEN + 7] = round + 10;
            }
            assert_eq!(b.count_below(usize::MAX, |x| x == 1), CHUNK_LEN * 3 - 3);
            drop(b); // its copies go to the pool; the next round's copies come from it
        }
        let fresh = MapArray::filled(CHUNK_LEN * 2, 9);
        assert!(fresh.iter().all(|x| x == 9));
        assert!(a.iter().all(|x| x == 1));
        recycle_chunks(false);
    }

    #[test]
    fn ascending_runs_cross_chunks() {
        let mut a = MapArray::filled(CHUNK_LEN + 10, 0);
        a.share();
        let b = a.clone();
        a.set_ascending(CHUNK_LEN - 2, 5, 100);
        let got: Vec<u32> = (CHUNK_LEN - 3..CHUNK_LEN + 4).map(|i| a[i]).collect();
        assert_eq!(got, [0, 100, 101, 102, 103, 104, 0]);
        assert_eq!(b.iter().filter(|&x| x != 0).count(), 0);
    }

    #[test]
    #[should_panic(expected = "out of range")]
    fn index_past_the_end_panics() {
        let a = MapArray::filled(10, 0);
        let _ = a[10];
    }
}
