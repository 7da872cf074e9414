//! Many stores into a big map array at random indices, made local: the drive
//! preparation deals every logical unit of a drive to a physical slot
//! (`prep::apply_distribution`), which stores the l2p entries in random order over the
//! whole array (a cache and TLB miss each: 1 G stores on a 4 TB drive). Here the
//! stores are gathered in batches, sorted into buckets by the index's high bits
//! (a counting sort, each half of a batch counted and scattered on its own thread),
//! and applied bucket by bucket, the lower and upper halves of the buckets on two
//! threads (`MapArray::store_split`). Each index is stored once, so the result is
//! what storing them in order would leave. The calling thread asks the interrupt hook
//! as it goes (Ctrl-C) and its helper stops with it (`interrupt::Halt`).
//!
//! Simplifies: the batch is at most 32 Mi stores (two 256 MiB buffers while it runs,
//! 1/16 of the array's entries on smaller drives); an array with chunks it does not
//! own takes the stores on one thread, through `MapArray::set`.

use super::map_array::MapArray;
use crate::interrupt::Halt;

/// Stores `array[index] = value` gathered in a batch and applied bucket by bucket of
/// the index's high bits (a counting sort): a bucket's stores land in one region of at
/// most 1/512 of the array (a few huge pages' TLB entries, few DRAM rows) where the
/// preparation's stores in logical-unit order would hit the whole array at random.
/// Each index is stored once, so the order of the stores does not change the result;
/// the lower and upper halves of the buckets are stored on two threads.
pub(super) struct BucketedStores {
    pairs: Vec<(u32, u32)>,
    sorted: Vec<(u32, u32)>,
    shift: u32,
    batch: usize,
}

/// Buckets per batch (the top bits of the index), and the largest batch of stores.
const STORE_BUCKET_BITS: u32 = 9;
const STORE_BUCKETS: usize = 1 << STORE_BUCKET_BITS;
const STORE_BATCH_MAX: usize = 1 << 25;

/// Stores a batch gathers on an array of `len` entries (each takes 8 bytes in each of
/// the batch's two buffers: `ftl::estimate` counts them).
pub(super) fn batch_len(len: usize) -> usize {
    (len / 16).clamp(1 << 12, STORE_BATCH_MAX)
}

impl BucketedStores {
    pub(super) fn new(len: usize) -> Self {
        let bits = usize::BITS - len.max(2).saturating_sub(1).leading_zeros();
        let shift = bits.saturating_sub(STORE_BUCKET_BITS);
        let batch = batch_len(len);
        BucketedStores {
            pairs: Vec::with_capacity(batch),
            sorted: Vec::new(),
            shift,
            batch,
        }
    }

    #[inline]
    pub(super) fn push(&mut self, array: &mut MapArray, index: u32, value: u32) {
        self.pairs.push((index, value));
        if self.pairs.len() == self.batch {
            self.flush(array);
        }
    }

    /// Apply the gathered stores, bucket by bucket: each half of the batch counted and
    /// scattered into the buckets on its own thread (the first half's pairs before the
    /// second's in every bucket), then the lower and upper halves of the buckets
    /// stored on two threads.
    pub(super) fn flush(&mut self, array: &mut MapArray) {
        let shift = self.shift;
        let (a, b) = self.pairs.split_at(self.pairs.len() / 2);
        // Ctrl-C: this thread asks the interrupt hook, the helper stops with it.
        let halt = Halt::default();
        let count = |part: &[(u32, u32)], main: bool| {
            let mut c = vec![0usize; STORE_BUCKETS];
            let _g = main.then(|| halt.guard());
            for (k, &(i, _)) in part.iter().enumerate() {
                if !halt.go_on(main, k) {
                    break;
                }
                c[(i >> shift) as usize] += 1;
            }
            c
        };
        let (ca, cb) = std::thread::scope(|s| {
            let hb = s.spawn(|| count(b, false));
            (count(a, true), hb.join().expect("counting thread"))
        });
        // Where each half's pairs of each bucket go.
        let (mut at_a, mut at_b) = (vec![0usize; STORE_BUCKETS], vec![0usize; STORE_BUCKETS]);
        let mut next = 0;
        for k in 0..STORE_BUCKETS {
            at_a[k] = next;
            at_b[k] = next + ca[k];
            next += ca[k] + cb[k];
        }
        self.sorted.resize(self.pairs.len(), (0, 0));
        let out = SharedSlice(self.sorted.as_mut_ptr());
        let scatter = |part: &[(u32, u32)], mut at: Vec<usize>, main: bool| {
            let _g = main.then(|| halt.guard());
            for (n, &(i, v)) in part.iter().enumerate() {
                if !halt.go_on(main, n) {
                    break;
                }
                let k = (i >> shift) as usize;
                // SAFETY: `at` walks this half's own slots of each bucket (disjoint from
                // the other half's), all inside `sorted`, whose length is the batch's.
                unsafe { *out.get().add(at[k]) = (i, v) };
                at[k] += 1;
            }
        };
        std::thread::scope(|s| {
            s.spawn(|| scatter(b, at_b, false));
            scatter(a, at_a, true);
        });
        // The two halves of the buckets hold disjoint index ranges: two threads.
        let mid: usize = ca[..STORE_BUCKETS / 2].iter().sum::<usize>()
            + cb[..STORE_BUCKETS / 2].iter().sum::<usize>();
        let (first, second) = self.sorted.split_at(mid);
        array.store_split(first, second);
        self.pairs.clear();
    }
}

/// The output of `BucketedStores::flush`'s scatter, written by two threads at disjoint
/// places.
#[derive(Clone, Copy)]
struct SharedSlice(*mut (u32, u32));
// SAFETY: the two threads write disjoint elements (see `flush`), and the slice outlives
// the scope they run in.
unsafe impl Send for SharedSlice {}
unsafe impl Sync for SharedSlice {}
impl SharedSlice {
    fn get(self) -> *mut (u32, u32) {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::Rng;

    /// A permutation's stores through the buckets (several flushes on the larger
    /// arrays) leave the array as storing them one by one does, on arrays of several
    /// sizes, materialised (two threads) or not (one, through `set`).
    #[test]
    fn bucketed_stores_leave_what_plain_stores_leave() {
        for n in [1usize, 3, 4_096, 100_000, 1_300_000] {
            let mut rng = Rng::new(n as u64);
            let mut idx: Vec<u32> = (0..n as u32).collect();
            for i in (1..n).rev() {
                idx.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let mut want = MapArray::filled(n, u32::MAX);
            let mut got = MapArray::filled(n, u32::MAX);
            if n % 2 == 0 {
                got.materialise(); // owned chunks: two threads; else through `set`
            }
            let mut stores = BucketedStores::new(n);
            for (k, &i) in idx.iter().enumerate() {
                want.set(i as usize, k as u32);
                stores.push(&mut got, i, k as u32);
            }
            stores.flush(&mut got);
            assert!((0..n).all(|i| got.get(i) == want.get(i)), "n = {n}");
        }
    }

    /// Ctrl-C (the interrupt hook saying stop) ends a flush on both threads: the call
    /// returns `Interrupted` instead of finishing the batch.
    #[test]
    fn the_interrupt_hook_stops_a_flush_and_its_helper() {
        let n = 1usize << 22;
        let mut a = MapArray::filled(n, u32::MAX);
        a.materialise();
        let r = crate::interrupt::with_hook(Box::new(|| false), || {
            let mut stores = BucketedStores::new(n);
            stores.pairs.extend((0..n as u32).map(|i| (i, i)));
            stores.flush(&mut a);
        });
        assert_eq!(r, Err(crate::interrupt::Interrupted));
        // Without the hook the same batch is stored whole.
        let mut stores = BucketedStores::new(n);
        stores.pairs.extend((0..n as u32).map(|i| (i, i)));
        stores.flush(&mut a);
        assert!((0..n).step_by(4099).all(|i| a.get(i) == i as u32));
    }
}
