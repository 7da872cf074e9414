//! MapArray's tests: chunks shared copy-on-write, overlays, implicit chunks, recycling.

use super::*;

fn ptr(a: &MapArray, c: usize) -> *const Chunk {
    Arc::as_ptr(a.chunks[c].as_ref().expect("materialised"))
}

/// `a` copying a chunk at its first store into it, without an overlay (the path
/// a sparse array takes when an overlay reaches its limit).
fn dense(mut a: MapArray) -> MapArray {
    a.sparse = false;
    a.implicit_aside = false;
    a
}

#[test]
fn clones_share_until_they_store() {
    let n = CHUNK_LEN * 2 + 5;
    let mut a = dense(MapArray::filled(n, 7));
    a.set(3, 1);
    a.set(CHUNK_LEN + 1, 2);
    a.set(n - 1, 3);
    a.share();
    let mut b = dense(a.clone());
    assert_eq!(ptr(&a, 0), ptr(&b, 0));
    b.set(3, 9);
    assert_ne!(ptr(&a, 0), ptr(&b, 0));
    assert_eq!(ptr(&a, 1), ptr(&b, 1));
    assert_eq!(
        (a.get(3), b.get(3), b.get(CHUNK_LEN + 1), b.get(n - 1)),
        (1, 9, 2, 3)
    );
    // The shared array copies too before it stores: a clone never sees the store.
    a.set(CHUNK_LEN + 1, 4);
    assert_eq!((a.get(CHUNK_LEN + 1), b.get(CHUNK_LEN + 1)), (4, 2));
    // A clone of an array that owns its chunks copies them.
    let c = b.clone();
    b.set(3, 10);
    assert_eq!((b.get(3), c.get(3)), (10, 9));
    assert_eq!(c.iter().count(), n);
    assert_eq!(c.iter().filter(|&x| x == 7).count(), n - 3);
    assert_eq!(c.count_ne(CHUNK_LEN + 2, 7), 2);
    // The last holder of a chunk stores in place.
    drop((a, c));
    let p = ptr(&b, 1);
    b.set(CHUNK_LEN, 5);
    assert_eq!(ptr(&b, 1), p);
}

#[test]
fn implicit_chunks_cost_nothing_until_a_store_materialises_one() {
    let n = CHUNK_LEN * 3 + 100;
    let mut a = dense(MapArray::filled(n, 7));
    assert_eq!(a.materialised_chunks(), 0);
    assert!(a.heap_bytes() < 1024);
    assert_eq!((a.get(0), a.get(n - 1)), (7, 7));
    a.set(CHUNK_LEN * 3 + 1, 5);
    assert_eq!(a.materialised_chunks(), 1);
    assert_eq!(
        a.heap_bytes() - MapArray::filled(n, 7).heap_bytes(),
        100 * 4
    );
    assert_eq!(a.count_ne(usize::MAX, 7), 1);
    assert_eq!(a.get(CHUNK_LEN * 3), 7);
    // Clones keep the implicit chunks implicit, and stay equal by value.
    a.share();
    let mut b = a.clone();
    assert_eq!(b.materialised_chunks(), 1);
    assert_eq!(a, b);
    b.set(5, 7); // same value as the implicit one: still equal
    assert_eq!((a.materialised_chunks(), b.materialised_chunks()), (1, 1));
    assert_eq!(b.overlaid_chunks(), 1);
    assert_eq!(a, b);
    b.set(6, 8);
    assert_ne!(a, b);
}

#[test]
fn an_unshared_array_keeps_few_stores_into_an_implicit_chunk_aside() {
    let n = CHUNK_LEN * 2;
    let limit = CHUNK_LEN >> PREP_OVERLAY_SHIFT;
    let mut a = MapArray::filled(n, 7);
    let mut b = dense(MapArray::filled(n, 7));
    for k in 0..limit - 1 {
        let i = CHUNK_LEN + k * 61 % CHUNK_LEN;
        a.set(i, k as u32);
        b.set(i, k as u32);
    }
    // Aside: no 2 MiB chunk, a table of (limit - 1) entries; the same values.
    assert_eq!((a.materialised_chunks(), a.overlaid_chunks()), (0, 1));
    assert_eq!(a.overlay_entries(), limit - 1);
    assert!(a.heap_bytes() < CHUNK_LEN, "{}", a.heap_bytes());
    assert_eq!(b.materialised_chunks(), 1);
    assert!(a == b);
    assert_eq!(a.count_ne(usize::MAX, 7), b.count_ne(usize::MAX, 7));
    assert_eq!(a.any_ne(CHUNK_LEN, n, 7), b.any_ne(CHUNK_LEN, n, 7));
    // The store that reaches the limit computes the chunk and applies the table.
    a.set(CHUNK_LEN + 5, 99);
    b.set(CHUNK_LEN + 5, 99);
    assert_eq!((a.materialised_chunks(), a.overlaid_chunks()), (1, 0));
    assert_eq!(a.overlay_entries(), 0);
    assert!(a == b);
    // A single-drive clone of a shared array keeps as much aside in an implicit
    // chunk (a lookup there costs no more than in the computed chunk), and its
    // SOLO limit in a chunk in memory (see a_solo_clone_copies_a_chunk_...).
    let mut shared = MapArray::filled(n, 7);
    shared.share();
    let mut solo = shared.clone();
    solo.set_overlay_shift(SOLO_OVERLAY_SHIFT);
    for k in 0..limit - 1 {
        solo.set(k * 61 % CHUNK_LEN, k as u32);
    }
    assert_eq!((solo.materialised_chunks(), solo.overlaid_chunks()), (0, 1));
    solo.set(5, 1);
    assert_eq!((solo.materialised_chunks(), solo.overlaid_chunks()), (1, 0));
    // A caller about to store everywhere computes every chunk at once.
    let mut c = MapArray::filled(n, 3);
    c.materialise();
    assert_eq!((c.materialised_chunks(), c.overlaid_chunks()), (2, 0));
    assert_eq!(c.count_ne(usize::MAX, 3), 0);
}

#[test]
fn recycled_chunks_hold_what_is_copied_into_them() {
    recycle_chunks(true);
    let mut a = MapArray::filled(CHUNK_LEN * 3, 1);
    a.materialise();
    assert_eq!(a.materialised_chunks(), 3);
    a.share();
    for round in 0..3u32 {
        let mut b = dense(a.clone());
        for c in 0..3 {
            b.set(c * CHUNK_LEN + 7, round + 10);
        }
        assert_eq!(b.count_ne(usize::MAX, 1), 3);
        drop(b); // its copies go to the pool; the next round's copies come from it
    }
    let mut fresh = MapArray::filled(CHUNK_LEN * 2, 9);
    fresh.set(0, 9);
    fresh.set(CHUNK_LEN, 9);
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
    let got: Vec<u32> = (CHUNK_LEN - 3..CHUNK_LEN + 4).map(|i| a.get(i)).collect();
    assert_eq!(got, [0, 100, 101, 102, 103, 104, 0]);
    assert_eq!(b.iter().filter(|&x| x != 0).count(), 0);
}

#[test]
fn any_ne_agrees_with_a_scan_over_every_kind_of_chunk() {
    // Chunk 0 implicit, 1 materialised while preparing, 2 overlaid in a clone.
    let n = CHUNK_LEN * 3;
    let mut a = MapArray::filled(n, 7);
    a.set(CHUNK_LEN + 10, 5);
    a.share();
    let mut b = a.clone();
    b.set(2 * CHUNK_LEN + 700, 9);
    let ranges = [
        (0, 100),
        (CHUNK_LEN - 1, CHUNK_LEN + 10),
        (CHUNK_LEN - 1, CHUNK_LEN + 11),
        (CHUNK_LEN + 11, 2 * CHUNK_LEN + 700),
        (CHUNK_LEN + 11, 2 * CHUNK_LEN + 701),
        (5, 2 * CHUNK_LEN),
        (2 * CHUNK_LEN + 701, n + 5),
    ];
    for (lo, hi) in ranges {
        for v in [7, 5, 9] {
            let scan = (lo..hi.min(n)).any(|i| b.get(i) != v);
            assert_eq!(b.any_ne(lo, hi, v), scan, "{lo}..{hi} != {v}");
        }
    }
}

#[test]
fn a_solo_clone_copies_a_chunk_after_fewer_stores() {
    // Two clones of one shared array: the default keeps 2,048 stores of a chunk in
    // its overlay (1/16 of it allows 32,768); the single-drive limit copies the
    // chunk at its 2,048th store (1/256), the overlay applied, values the same.
    let mut a = dense(MapArray::filled(CHUNK_LEN, 7));
    a.set(0, 1); // computed while preparing
    a.share();
    let (mut fleet, mut solo) = (a.clone(), a.clone());
    solo.set_overlay_shift(SOLO_OVERLAY_SHIFT);
    let limit = CHUNK_LEN >> SOLO_OVERLAY_SHIFT;
    for k in 0..limit - 1 {
        fleet.set(k * 97 % CHUNK_LEN, k as u32);
        solo.set(k * 97 % CHUNK_LEN, k as u32);
    }
    assert_eq!(
        (solo.overlaid_chunks(), solo.overlay_entries()),
        (1, limit - 1)
    );
    let k = limit - 1;
    fleet.set(k * 97 % CHUNK_LEN, k as u32);
    solo.set(k * 97 % CHUNK_LEN, k as u32);
    assert_eq!(
        (fleet.overlaid_chunks(), fleet.overlay_entries()),
        (1, limit)
    );
    assert_eq!((solo.overlaid_chunks(), solo.overlay_entries()), (0, 0));
    assert_eq!(solo.materialised_chunks(), 1);
    assert!(fleet == solo);
    assert_eq!((solo.get(97), solo.get(1), a.get(97)), (1, 7, 7));
    // The original still holds its own values.
    assert_eq!(a.count_ne(CHUNK_LEN, 7), 1);
}

#[test]
fn shared_arrays_keep_stores_in_overlays_until_the_limit() {
    let n = CHUNK_LEN * 2 + 100;
    let mut a = dense(MapArray::filled(n, 7));
    a.set(CHUNK_LEN, 1); // chunk 1 materialised while preparing, chunks 0 and 2 implicit
    a.share();
    let mut b = a.clone();
    let before = b.heap_bytes();
    for k in 0..1000 {
        b.set(k * 97 % CHUNK_LEN, k as u32);
        b.set(CHUNK_LEN + k * 131 % CHUNK_LEN, k as u32);
    }
    assert_eq!((b.materialised_chunks(), b.overlaid_chunks()), (1, 2));
    assert_eq!(b.overlay_entries(), 2000);
    assert!(
        b.heap_bytes() - before <= 2 * 4096 * 8,
        "{}",
        b.heap_bytes()
    );
    assert_eq!((b.get(97), b.get(CHUNK_LEN + 131), b.get(1)), (1, 1, 7));
    assert_eq!(b.get(CHUNK_LEN), 0); // k = 0 overwrote the prepared 1
    assert_eq!(a.get(CHUNK_LEN), 1);
    assert_eq!(b.count_ne(CHUNK_LEN, 7), 999); // k = 0 stored 0 at 0
                                               // The short last chunk (100 entries) takes 100 / 16 = 6 stores before it is
                                               // materialised.
    for k in 0..5 {
        b.set(CHUNK_LEN * 2 + k, 3);
    }
    assert_eq!(b.overlaid_chunks(), 3);
    b.set(CHUNK_LEN * 2 + 5, 3);
    assert_eq!((b.materialised_chunks(), b.overlaid_chunks()), (2, 2));
    assert_eq!(b.count_ne(usize::MAX, 7), 999 + 999 + 6);
    // Past 1/16 of the chunk, it is copied and the overlay applied.
    for k in 0..CHUNK_LEN / 16 {
        b.set(k, 5);
    }
    assert_eq!((b.materialised_chunks(), b.overlaid_chunks()), (3, 1));
    assert_eq!(
        (b.get(0), b.get(CHUNK_LEN / 16), b.get(CHUNK_LEN - 97)),
        (5, 7, 7)
    );
    assert_eq!(b.get(97 * 3000 % CHUNK_LEN), 7);
    // The sole holder of a shared chunk stores in place (no overlay).
    let mut c = dense(MapArray::filled(CHUNK_LEN, 0));
    c.set(0, 1);
    c.share();
    c.set(1, 2);
    assert_eq!((c.overlaid_chunks(), c.materialised_chunks()), (0, 1));
}

mod prop {
    use super::super::*;
    use proptest::prelude::*;

    const N: usize = CHUNK_LEN + 3000;

    #[derive(Debug, Clone)]
    enum Op {
        Set(usize, usize, u32),
        /// `n` consecutive stores from an index: crosses an overlay's limit.
        Run(usize, usize, usize, u32),
        Get(usize, usize),
        Clone(usize),
        Share(usize),
        Drop(usize),
        Check(usize, u32),
    }

    fn op() -> impl Strategy<Value = Op> {
        let value = prop_oneof![Just(7u32), Just(u32::MAX), 0u32..50];
        let index = prop_oneof![0..N, CHUNK_LEN - 50..N, 0..100usize];
        prop_oneof![
            8 => (0..8usize, index.clone(), value.clone()).prop_map(|(a, i, v)| Op::Set(a, i, v)),
            1 => (0..8usize, index.clone(), 1..40_000usize, value.clone())
                .prop_map(|(a, i, n, v)| Op::Run(a, i, n, v)),
            4 => (0..8usize, index).prop_map(|(a, i)| Op::Get(a, i)),
            2 => (0..8usize).prop_map(Op::Clone),
            1 => (0..8usize).prop_map(Op::Share),
            1 => (0..8usize).prop_map(Op::Drop),
            1 => (0..8usize, value).prop_map(|(a, v)| Op::Check(a, v)),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 32, ..ProptestConfig::default() })]
        #[test]
        fn behaves_as_a_vec(prepared in proptest::collection::vec((0..N, 0u32..9), 0..40),
                            ops in proptest::collection::vec(op(), 1..120)) {
            let mut base = MapArray::filled(N, 7);
            let mut oracle = vec![7u32; N];
            for (i, v) in prepared {
                base.set(i, v);
                oracle[i] = v;
            }
            base.share();
            let mut arrays = vec![(base, oracle)];
            for op in ops {
                match op {
                    Op::Set(a, i, v) => {
                        let k = a % arrays.len();
                        let (m, o) = &mut arrays[k];
                        m.set(i, v);
                        o[i] = v;
                    }
                    Op::Run(a, i, n, v) => {
                        let k = a % arrays.len();
                        let (m, o) = &mut arrays[k];
                        for (j, x) in o.iter_mut().enumerate().take(i + n).skip(i) {
                            m.set(j, v ^ j as u32);
                            *x = v ^ j as u32;
                        }
                    }
                    Op::Get(a, i) => {
                        let (m, o) = &arrays[a % arrays.len()];
                        prop_assert_eq!(m.get(i), o[i]);
                    }
                    Op::Clone(a) => {
                        let (m, o) = &arrays[a % arrays.len()];
                        let c = (m.clone(), o.clone());
                        if arrays.len() < 4 {
                            arrays.push(c);
                        } else {
                            arrays[(a + 1) % 4] = c;
                        }
                    }
                    Op::Share(a) => {
                        let k = a % arrays.len();
                        arrays[k].0.share();
                    }
                    Op::Drop(a) => {
                        if arrays.len() > 1 {
                            arrays.swap_remove(a % arrays.len());
                        }
                    }
                    Op::Check(a, v) => {
                        let (m, o) = &arrays[a % arrays.len()];
                        prop_assert!(m.iter().eq(o.iter().copied()));
                        prop_assert_eq!(m.count_ne(usize::MAX, v), o.iter().filter(|&&x| x != v).count());
                        prop_assert_eq!(m.count_ne(CHUNK_LEN + 10, v), o[..CHUNK_LEN + 10].iter().filter(|&&x| x != v).count());
                        let mut flat = MapArray::filled(N, 7);
                        for (i, &x) in o.iter().enumerate() {
                            if x != 7 {
                                flat.set(i, x);
                            }
                        }
                        prop_assert!(*m == flat);
                    }
                }
            }
            for (m, o) in &arrays {
                prop_assert!(m.iter().eq(o.iter().copied()));
                for (c, ov) in m.overlays.iter().enumerate() {
                    prop_assert!(ov.len < m.chunk_len(c) >> OVERLAY_SHIFT || ov.len == 0);
                    prop_assert_eq!(ov.len > 0, m.slots[c].overlaid);
                }
            }
        }
    }
}

#[test]
#[should_panic(expected = "out of range")]
fn index_past_the_end_panics() {
    let a = MapArray::filled(10, 0);
    let _ = a.get(10);
}
