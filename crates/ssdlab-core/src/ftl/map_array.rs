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
//!
//! A chunk can also be *implicit*: no memory, its values a function of the index
//! (`implicit::Implicit`: `UNMAPPED` everywhere on a drive never written, or the maps
//! a sequential fill leaves). A read of an implicit chunk computes the value; the
//! first store computes the whole chunk into memory ("materialises" it). So a drive
//! costs map memory only for the chunks a run (or its preparation) stores into: a
//! `full` drive read at random costs none.
//!
//! A *sparse layer* keeps what a run changes in a chunk it does not own: once an
//! array is shared (a prepared drive and its clones), a store into a shared or
//! implicit chunk goes into that chunk's small overlay (an open-addressing table of
//! offset → value, linear probing, a multiplicative hash: no SipHash), and a read of
//! the chunk looks there first. Only when a chunk's overlay reaches 1/16 of its
//! entries is the chunk copied (or computed) and the overlay applied to it, as
//! before. So 24 identical aged 3.84 TB drives written at random cost 16 to 32 bytes
//! per distinct entry stored, not 2 MiB per chunk touched (their whole l2p within a
//! few thousand writes). A chunk whose only holder is this array is stored into in
//! place. Before `share` (a drive being prepared, a run's own drive) only implicit
//! chunks take stores aside, up to 1/32 of the chunk: a few thousand scattered stores
//! (translation pages, a map block per die) then cost table entries, not a 2 MiB chunk
//! each. Values are identical either way: only memory and speed differ.
//!
//! Simplifications: the copy-on-write check costs one predictable branch per store and
//! a lookup one more L1 load (the chunk's address) and one more branch (implicit or
//! overlaid, or neither) than a flat array; an implicit lookup is a few
//! multiplications instead of a memory access, an overlaid one a probe of the table
//! (one more cache miss) before the chunk's own value. Reads go through `get` (by
//! value), stores through `set`.

use std::alloc::{alloc, dealloc, handle_alloc_error, Layout};
use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use super::implicit::Implicit;

const CHUNK_SHIFT: u32 = 19;
/// Entries per chunk: 512 Ki u32 = 2 MiB, one huge page.
pub(crate) const CHUNK_LEN: usize = 1 << CHUNK_SHIFT;
const CHUNK_MASK: usize = CHUNK_LEN - 1;
const HUGE_PAGE_BYTES: usize = 2 << 20;

/// Bytes of map memory this process holds: chunks in use and in the pool, and the
/// chunks' overlay tables.
static ALLOCATED_BYTES: AtomicU64 = AtomicU64::new(0);

/// Bytes of map memory (chunks and overlay tables) the process holds now, over every drive of every run
/// (what a system run's `max_memory` guard watches: the maps grow as a run stores).
pub fn allocated_bytes() -> u64 {
    ALLOCATED_BYTES.load(Ordering::Relaxed)
}

/// Add (`grow`) or take back `bytes` of map memory in `allocated_bytes`.
fn count_bytes(bytes: u64, grow: bool) {
    if grow {
        ALLOCATED_BYTES.fetch_add(bytes, Ordering::Relaxed);
    } else {
        ALLOCATED_BYTES.fetch_sub(bytes, Ordering::Relaxed);
    }
}

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
        count_bytes(layout.size() as u64, true);
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
            let layout = Chunk::layout(CHUNK_LEN);
            count_bytes(layout.size() as u64, false);
            // SAFETY: a pooled chunk was allocated in `uninit` with CHUNK_LEN entries.
            unsafe { dealloc(ptr.as_ptr() as *mut u8, layout) };
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
        let layout = Self::layout(self.len);
        count_bytes(layout.size() as u64, false);
        // SAFETY: allocated in `uninit` with this layout.
        unsafe { dealloc(self.ptr.as_ptr() as *mut u8, layout) };
    }
}

/// Where a chunk's entries are and whether this array may store into it in place.
#[derive(Clone, Copy)]
struct Slot {
    /// Null for an implicit chunk (values computed by `MapArray::implicit`) and for an
    /// overlaid one (look in its overlay first).
    data: *mut u32,
    /// This array holds the only reference to the chunk (never with an overlay).
    owned: bool,
    /// The chunk's overlay holds entries.
    overlaid: bool,
}

const IMPLICIT_SLOT: Slot = Slot {
    data: std::ptr::null_mut(),
    owned: false,
    overlaid: false,
};

/// A free overlay entry (no offset is `u32::MAX`).
const EMPTY: u64 = u64::MAX;
/// The smallest overlay table (entries): 512 bytes.
const OVERLAY_MIN: usize = 64;
/// A chunk is copied and its overlay applied when the overlay holds 1/2^shift of the
/// chunk's entries. The default, 1/16: the table (at most half full) then takes 1/4 of
/// the chunk's memory, 512 KiB of a 2 MiB chunk; what many clones alive at once (a
/// system's identical drives) need to stay small.
pub const OVERLAY_SHIFT: u32 = 4;
/// The limit for the one clone a single-drive run makes of a cached prepared drive (a
/// sweep's point, `Ftl::keep_few_overlays`): 1/256 of a chunk (2,048 entries, a 32 KiB
/// table). An overlaid chunk costs every lookup a probe of its table (one more cache
/// miss) and every store a hash insert, so a run that stores into a chunk thousands
/// of times is faster with the chunk copied (2 MiB, about a tenth of a millisecond):
/// the aged 980 PRO 1 TB's 24 s of random writes (3 M host writes, 20 M GC moves)
/// simulate in 8.5 s this way against 16.5 s with the default limit, where its l2p
/// chunks stay overlaid all run long. A few stores spread over a big drive still cost
/// an overlay entry each, not a 2 MiB copy.
pub const SOLO_OVERLAY_SHIFT: u32 = 8;

/// The limit for an array not shared yet (a drive being prepared or a run's own
/// drive): 1/32 of an implicit chunk (16,384 entries, a table of at most 256 KiB).
/// Preparing a paged-map drive rewrites each die's few hundred translation pages until
/// its pool reaches its budget and collects the map blocks: a few thousand stores into
/// each die's reverse-map chunk (at most the pool's units: 8,669 on mqsim-default, by
/// `estimate`), which at 1/256 copied every die's chunk (a `full` mqsim-default drive:
/// 64 chunks, 148 MiB and 0.17 s) and at 1/32 copies none (21 MiB, 0.01 s). Preparing
/// a `steady` or `aging` drive stores everywhere and costs no more (2.9 s either way on
/// an aged seed000-dram: `apply_distribution` computes every chunk first).
pub const PREP_OVERLAY_SHIFT: u32 = 5;

/// Stores into a chunk this array does not own (see the module header): open
/// addressing with linear probing, entry `offset << 32 | value`, `EMPTY` when free;
/// a power of two long, at most half full. Empty, it holds no memory.
#[derive(Default)]
struct Overlay {
    table: Vec<u64>,
    len: usize,
}

/// Overlay tables count in `allocated_bytes` with the chunks (8 bytes per slot).
fn count_table(slots: usize, grow: bool) {
    count_bytes(8 * slots as u64, grow);
}

impl Clone for Overlay {
    fn clone(&self) -> Self {
        count_table(self.table.len(), true);
        Overlay {
            table: self.table.clone(),
            len: self.len,
        }
    }
}

impl Drop for Overlay {
    fn drop(&mut self) {
        count_table(self.table.len(), false);
    }
}

impl Overlay {
    /// First probe of offset `o`: the top bits of a Fibonacci (multiplicative) hash.
    #[inline]
    fn home(&self, o: usize) -> usize {
        let bits = self.table.len().trailing_zeros();
        ((o as u32).wrapping_mul(0x9E37_79B1) >> (32 - bits)) as usize
    }

    #[inline]
    fn get(&self, o: usize) -> Option<u32> {
        if self.len == 0 {
            return None;
        }
        let mask = self.table.len() - 1;
        let mut h = self.home(o);
        loop {
            let e = self.table[h];
            if e == EMPTY {
                return None;
            }
            if (e >> 32) as usize == o {
                return Some(e as u32);
            }
            h = (h + 1) & mask;
        }
    }

    fn insert(&mut self, o: usize, value: u32) {
        if (self.len + 1) * 2 > self.table.len() {
            let grown = vec![EMPTY; (self.table.len() * 2).max(OVERLAY_MIN)];
            count_table(grown.len(), true);
            count_table(self.table.len(), false);
            let old = std::mem::replace(&mut self.table, grown);
            for e in old.into_iter().filter(|&e| e != EMPTY) {
                self.place(e);
            }
        }
        let mask = self.table.len() - 1;
        let mut h = self.home(o);
        loop {
            let e = self.table[h];
            if e == EMPTY {
                self.len += 1;
                break;
            }
            if (e >> 32) as usize == o {
                break;
            }
            h = (h + 1) & mask;
        }
        self.table[h] = (o as u64) << 32 | value as u64;
    }

    /// Put an entry whose offset is not in the table into its first free place.
    fn place(&mut self, e: u64) {
        let mask = self.table.len() - 1;
        let mut h = self.home((e >> 32) as usize);
        while self.table[h] != EMPTY {
            h = (h + 1) & mask;
        }
        self.table[h] = e;
    }

    /// (offset, value) of every entry, in table order.
    fn entries(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.table
            .iter()
            .filter(|&&e| e != EMPTY)
            .map(|&e| ((e >> 32) as usize, e as u32))
    }

    /// Start loading the place of offset `o`.
    #[cfg(target_arch = "x86_64")]
    #[inline]
    fn prefetch(&self, o: usize) {
        if !self.table.is_empty() {
            // SAFETY: home(o) < table.len(); prefetching never faults.
            unsafe {
                std::arch::x86_64::_mm_prefetch(
                    self.table.as_ptr().add(self.home(o)) as *const i8,
                    std::arch::x86_64::_MM_HINT_T0,
                );
            }
        }
    }
}

/// An array of u32 in shared, copy-on-write chunks, some of them implicit (see the
/// module header).
pub struct MapArray {
    slots: Vec<Slot>,
    /// `None` for an implicit chunk.
    chunks: Vec<Option<Arc<Chunk>>>,
    /// Per chunk: stores not yet applied to it (empty for an owned chunk).
    overlays: Vec<Overlay>,
    /// Stores into a chunk this array does not own go into its overlay (set by
    /// `share`; before, they copy or compute the chunk at once).
    sparse: bool,
    /// A chunk's overlay holds at most 1/2^`overlay_shift` of its entries.
    overlay_shift: u32,
    /// Stores into an implicit chunk go into its overlay even before `share`, up to
    /// 1/2^`PREP_OVERLAY_SHIFT` of the chunk (see there).
    implicit_aside: bool,
    len: usize,
    /// The values of the implicit chunks.
    implicit: Implicit,
}

// SAFETY: the raw pointers in `slots` point into `chunks`, which the array keeps alive;
// stores happen through `&mut self` into owned chunks only.
unsafe impl Send for MapArray {}
unsafe impl Sync for MapArray {}

impl MapArray {
    /// `len` entries, each `value`, all implicit (no memory until stored into).
    pub fn filled(len: usize, value: u32) -> Self {
        Self::implicit(len, Implicit::Const(value))
    }

    /// `len` entries whose values `implicit` gives, all implicit.
    pub fn implicit(len: usize, implicit: Implicit) -> Self {
        let n = len.div_ceil(CHUNK_LEN).max(1);
        MapArray {
            slots: vec![IMPLICIT_SLOT; n],
            chunks: vec![None; n],
            overlays: vec![Overlay::default(); n],
            sparse: false,
            overlay_shift: OVERLAY_SHIFT,
            implicit_aside: true,
            len,
            implicit,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Entries of chunk `c`.
    fn chunk_len(&self, c: usize) -> usize {
        (self.len - c * CHUNK_LEN).min(CHUNK_LEN)
    }

    /// Chunks holding real memory (the others are implicit).
    pub fn materialised_chunks(&self) -> usize {
        self.chunks.iter().filter(|c| c.is_some()).count()
    }

    /// Chunks with an overlay (stores kept aside, see the module header).
    pub fn overlaid_chunks(&self) -> usize {
        self.slots.iter().filter(|s| s.overlaid).count()
    }

    /// Entries held in overlays.
    pub fn overlay_entries(&self) -> usize {
        self.overlays.iter().map(|o| o.len).sum()
    }

    /// Bytes this array keeps allocated: its chunk table, its overlays and its
    /// materialised chunks (shared ones included, so clones sharing chunks each count
    /// them).
    pub fn heap_bytes(&self) -> usize {
        let table = self.slots.capacity() * std::mem::size_of::<Slot>()
            + self.chunks.capacity() * std::mem::size_of::<Option<Arc<Chunk>>>()
            + self.overlays.capacity() * std::mem::size_of::<Overlay>();
        let overlays: usize = self.overlays.iter().map(|o| o.table.capacity() * 8).sum();
        let data: usize = self.chunks.iter().flatten().map(|c| c.len * 4).sum();
        table + overlays + data
    }

    /// Let clones share every chunk from now on, and keep later stores into a chunk
    /// this array does not own in the chunk's overlay (this array, too, keeps its
    /// stores aside or copies a chunk before its next store into it). Called on a
    /// prepared drive.
    pub fn share(&mut self) {
        for s in &mut self.slots {
            s.owned = false;
        }
        self.sparse = true;
    }

    /// Copy a chunk (and apply its overlay) once the overlay holds 1/2^`shift` of the
    /// chunk's entries (`OVERLAY_SHIFT`, `SOLO_OVERLAY_SHIFT`); overlays already past
    /// the new limit are applied at their chunk's next store. Values never change.
    pub fn set_overlay_shift(&mut self, shift: u32) {
        self.overlay_shift = shift.min(CHUNK_SHIFT);
    }

    /// Entry `i`.
    #[inline]
    pub fn get(&self, i: usize) -> u32 {
        if i >= self.len {
            out_of_range(i, self.len);
        }
        // SAFETY: i < len, so chunk i >> CHUNK_SHIFT exists.
        let s = unsafe { self.slots.get_unchecked(i >> CHUNK_SHIFT) };
        if s.data.is_null() {
            return self.indirect_value(i, s.overlaid);
        }
        // SAFETY: the chunk holds entry i & CHUNK_MASK; the array keeps it alive, and
        // no one stores into it meanwhile (this array needs `&mut self` to, others
        // only store into their own copies).
        unsafe { *s.data.add(i & CHUNK_MASK) }
    }

    /// Entry `i` of an implicit or overlaid chunk.
    #[inline(never)]
    fn indirect_value(&self, i: usize, overlaid: bool) -> u32 {
        if !overlaid {
            return self.implicit.value(i);
        }
        let c = i >> CHUNK_SHIFT;
        self.overlays[c]
            .get(i & CHUNK_MASK)
            .unwrap_or_else(|| self.base_value(i))
    }

    /// Entry `i` of chunk memory or implicit values, without the overlay.
    fn base_value(&self, i: usize) -> u32 {
        match &self.chunks[i >> CHUNK_SHIFT] {
            Some(ch) => ch.as_slice()[i & CHUNK_MASK],
            None => self.implicit.value(i),
        }
    }

    /// `self[i] = value` (into the chunk's overlay, or materialises or copies the
    /// chunk first, if this array does not own it).
    #[inline]
    pub fn set(&mut self, i: usize, value: u32) {
        if i >= self.len {
            out_of_range(i, self.len);
        }
        let c = i >> CHUNK_SHIFT;
        // SAFETY: c < slots.len() since i < len.
        if !unsafe { self.slots.get_unchecked(c) }.owned {
            return self.set_unowned(i, value);
        }
        // SAFETY: the chunk is owned (its only reference) and holds entry i & CHUNK_MASK.
        unsafe { *self.slots.get_unchecked(c).data.add(i & CHUNK_MASK) = value };
    }

    /// `set` into a chunk this array does not own: into its overlay while the chunk
    /// is overlaid, or held elsewhere (or implicit) in a sparse array, or implicit in
    /// any array, and the overlay is small; else own the chunk (applying the overlay)
    /// and store.
    #[cold]
    #[inline(never)]
    fn set_unowned(&mut self, i: usize, value: u32) {
        let c = i >> CHUNK_SHIFT;
        let held_elsewhere = |ch: &Option<Arc<Chunk>>| {
            ch.as_ref()
                .is_none_or(|a| Arc::strong_count(a) > 1 || Arc::weak_count(a) > 0)
        };
        let aside = self.slots[c].overlaid
            || (self.sparse && held_elsewhere(&self.chunks[c]))
            || (self.implicit_aside && self.chunks[c].is_none());
        if aside {
            // An implicit chunk keeps up to 1/2^PREP_OVERLAY_SHIFT aside (more in a
            // system's drives): a lookup there probes the table and computes the
            // value, about what a lookup in the computed chunk costs, while computing
            // the chunk costs its 2 MiB of fresh memory. A shared chunk in memory
            // keeps 1/2^overlay_shift aside: there a lookup costs a probe more.
            let shift = match (&self.chunks[c], self.sparse) {
                (None, true) => self.overlay_shift.min(PREP_OVERLAY_SHIFT),
                (None, false) => PREP_OVERLAY_SHIFT,
                (Some(_), _) => self.overlay_shift,
            };
            let limit = self.chunk_len(c) >> shift;
            let ov = &mut self.overlays[c];
            ov.insert(i & CHUNK_MASK, value);
            if ov.len < limit {
                self.slots[c] = Slot {
                    data: std::ptr::null_mut(),
                    owned: false,
                    overlaid: true,
                };
                return;
            }
        }
        self.own(c);
        // SAFETY: the chunk is owned (its only reference) and holds entry i & CHUNK_MASK.
        unsafe { *self.slots[c].data.add(i & CHUNK_MASK) = value };
    }

    /// The entries in order.
    pub fn iter(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len).map(|i| self.get(i))
    }

    /// How many of the first `end` entries differ from `value` (a loop per chunk,
    /// a loop per run of an implicit chunk).
    pub fn count_ne(&self, end: usize, value: u32) -> usize {
        let end = end.min(self.len);
        let mut n = 0;
        for (c, chunk) in self.chunks.iter().enumerate() {
            let start = c * CHUNK_LEN;
            if start >= end {
                break;
            }
            let stop = end.min(start + CHUNK_LEN);
            n += match chunk {
                Some(ch) => ch.as_slice()[..stop - start]
                    .iter()
                    .filter(|&&x| x != value)
                    .count(),
                None => self.implicit.count_ne(start, stop, value),
            };
            // Overlaid entries replace their chunk's values.
            for (o, v) in self.overlays[c].entries() {
                if start + o < stop {
                    n = n + usize::from(v != value)
                        - usize::from(self.base_value(start + o) != value);
                }
            }
        }
        n
    }

    /// Does any entry of `start..end` differ from `value`? Chunk by chunk: a slice scan
    /// that stops at the first difference, a run count for an implicit chunk, the
    /// entries one by one for an overlaid one.
    pub fn any_ne(&self, start: usize, end: usize, value: u32) -> bool {
        let end = end.min(self.len);
        let mut i = start;
        while i < end {
            let c = i >> CHUNK_SHIFT;
            let stop = end.min((c + 1) * CHUNK_LEN);
            let found = if self.slots[c].overlaid {
                (i..stop).any(|j| self.get(j) != value)
            } else {
                match &self.chunks[c] {
                    Some(ch) => {
                        let base = c * CHUNK_LEN;
                        ch.as_slice()[i - base..stop - base]
                            .iter()
                            .any(|&x| x != value)
                    }
                    None => self.implicit.count_ne(i, stop, value) > 0,
                }
            };
            if found {
                return true;
            }
            i = stop;
        }
        false
    }

    /// Start loading entry `i` into the CPU caches (a performance hint only).
    #[inline]
    pub fn prefetch(&self, i: usize) {
        #[cfg(target_arch = "x86_64")]
        if i < self.len {
            // SAFETY: i < len, so the chunk exists and the address is inside it (or
            // the chunk is implicit: nothing to load); prefetching never faults.
            unsafe {
                let s = self.slots.get_unchecked(i >> CHUNK_SHIFT);
                if !s.data.is_null() {
                    std::arch::x86_64::_mm_prefetch(
                        s.data.add(i & CHUNK_MASK) as *const i8,
                        std::arch::x86_64::_MM_HINT_T0,
                    );
                } else if s.overlaid {
                    self.prefetch_overlaid(i);
                }
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = i;
    }

    /// Start loading entry `i` of an overlaid chunk: its overlay place and its value
    /// in chunk memory.
    #[cfg(target_arch = "x86_64")]
    #[inline(never)]
    fn prefetch_overlaid(&self, i: usize) {
        let c = i >> CHUNK_SHIFT;
        self.overlays[c].prefetch(i & CHUNK_MASK);
        if let Some(ch) = &self.chunks[c] {
            // SAFETY: the entry lies inside the chunk; prefetching never faults.
            unsafe {
                std::arch::x86_64::_mm_prefetch(
                    ch.ptr.as_ptr().add(i & CHUNK_MASK) as *const i8,
                    std::arch::x86_64::_MM_HINT_T0,
                );
            }
        }
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

    /// Make every chunk this array's own (computed or copied, overlays applied): for a
    /// caller about to store into all of them.
    pub fn materialise(&mut self) {
        for c in 0..self.chunks.len() {
            if !self.slots[c].owned {
                self.own(c);
            }
        }
    }

    /// Make chunk `c` this array's own: compute an implicit chunk into memory, copy
    /// a shared one unless no one else holds it; then apply its overlay.
    #[cold]
    #[inline(never)]
    fn own(&mut self, c: usize) {
        crate::interrupt::poll(); // milliseconds each: preparation stops here on Ctrl-C
        let len = self.chunk_len(c);
        let implicit = self.implicit;
        let chunk = match &mut self.chunks[c] {
            slot @ None => {
                let ch = Chunk::uninit(len);
                // SAFETY: `len` entries were allocated and nothing else refers to them;
                // zeroing initialises them before the slice is formed.
                let out = unsafe {
                    std::ptr::write_bytes(ch.ptr.as_ptr(), 0, len);
                    std::slice::from_raw_parts_mut(ch.ptr.as_ptr(), len)
                };
                implicit.fill(c * CHUNK_LEN, out);
                slot.insert(Arc::new(ch))
            }
            Some(a) => {
                if Arc::get_mut(a).is_none() {
                    *a = Arc::new(a.copy());
                }
                a
            }
        };
        let data = chunk.ptr.as_ptr();
        let overlay = std::mem::take(&mut self.overlays[c]);
        for (o, v) in overlay.entries() {
            // SAFETY: the chunk is owned and holds `len` > o entries.
            unsafe { *data.add(o) = v };
        }
        self.slots[c] = Slot {
            data,
            owned: true,
            overlaid: false,
        };
    }
}

#[cold]
#[inline(never)]
fn out_of_range(i: usize, len: usize) -> ! {
    panic!("map index {i} out of range (len {len})")
}

impl Clone for MapArray {
    /// Shares the chunks this array does not own (all of them after `share`) and
    /// copies the ones it owns and the overlays; implicit chunks stay implicit.
    fn clone(&self) -> Self {
        let mut slots = Vec::with_capacity(self.slots.len());
        let chunks = self
            .chunks
            .iter()
            .zip(&self.slots)
            .map(|(c, s)| {
                let c = c.as_ref().map(|c| {
                    if s.owned {
                        Arc::new(c.copy())
                    } else {
                        c.clone()
                    }
                });
                slots.push(match &c {
                    Some(ch) if !s.overlaid => Slot {
                        data: ch.ptr.as_ptr(),
                        owned: s.owned,
                        overlaid: false,
                    },
                    _ => Slot {
                        overlaid: s.overlaid,
                        ..IMPLICIT_SLOT
                    },
                });
                c
            })
            .collect();
        MapArray {
            slots,
            chunks,
            overlays: self.overlays.clone(),
            sparse: self.sparse,
            overlay_shift: self.overlay_shift,
            implicit_aside: self.implicit_aside,
            len: self.len,
            implicit: self.implicit,
        }
    }
}

impl PartialEq for MapArray {
    /// Equal values at every index (however they are stored).
    fn eq(&self, other: &Self) -> bool {
        if self.len != other.len {
            return false;
        }
        self.chunks
            .iter()
            .zip(&other.chunks)
            .enumerate()
            .all(|(c, pair)| match pair {
                _ if self.slots[c].overlaid || other.slots[c].overlaid => {
                    let start = c * CHUNK_LEN;
                    (start..start + self.chunk_len(c)).all(|i| self.get(i) == other.get(i))
                }
                (Some(a), Some(b)) => a.as_slice() == b.as_slice(),
                (None, None) if self.implicit == other.implicit => true,
                _ => {
                    let start = c * CHUNK_LEN;
                    (start..start + self.chunk_len(c)).all(|i| self.get(i) == other.get(i))
                }
            })
    }
}

impl Eq for MapArray {}

impl std::fmt::Debug for MapArray {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "MapArray(len {}, {} of {} chunks materialised, {} overlaid)",
            self.len,
            self.materialised_chunks(),
            self.chunks.len(),
            self.overlaid_chunks()
        )
    }
}

#[path = "map_array_par.rs"]
mod par;

#[cfg(test)]
#[path = "map_array_tests.rs"]
mod tests;
