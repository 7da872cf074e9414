//! The `full` state: every logical unit written once, sequentially, built directly.
//!
//! Models: what a sequential fill of a fresh drive leaves: stripe k of the logical
//! space (one program operation's units) on die k mod dies, each die's stripes in
//! its free-list order (`implicit` gives the formulas). The maps are not written:
//! both become implicit (`MapArray::implicit`), so the fill costs memory and time
//! per block, not per mapping unit; a run materialises the 2 MiB map chunks it
//! stores into.
//! Simplifies: nothing beyond what host placement itself does (a test checks the
//! result against writing every unit through the functional FTL, and the implicit
//! maps against the element-by-element fill at every index).

use super::implicit::{Implicit, SeqFill};
use super::{BlockState, Ftl, MapArray};

/// Fill every logical unit once, in order, by writing through the functional FTL.
/// Reference for `fill_sequential`, which builds the same state directly.
pub fn fill_by_writing(ftl: &mut Ftl) {
    for lpn in 0..ftl.user_units as u32 {
        ftl.write_functional(lpn);
    }
    ftl.seal_open_stripes();
}

/// Fill every logical unit once, in order, on a fresh drive: stripe k of the
/// logical space goes to die k mod dies, in each die's free-list order, exactly as
/// host placement would put it (a test checks the two agree). The maps become
/// implicit; blocks, frontiers and counters are set per block.
pub fn fill_sequential(ftl: &mut Ftl) {
    let geo = ftl.geo.clone();
    let n = ftl.user_units;
    // A "stripe" here is one program operation's worth of units (one page row, or
    // pages_per_program rows for one-shot programming).
    let ups = geo.units_per_program as u64;
    let pps = geo.pages_per_program as u64;
    let dies = geo.dies as u64;
    let pages = geo.pages_per_block as u64 / pps;
    assert!(
        ftl.stats.host_units_written == 0
            && ftl
                .dies
                .iter()
                .all(|d| d.free.len() as u32 == geo.native_blocks_per_die),
        "fill_sequential needs a fresh drive"
    );
    let stripes = n.div_ceil(ups);
    let fill = SeqFill::new(&geo, n);
    ftl.l2p = MapArray::implicit(n as usize, Implicit::SeqL2p(fill));
    ftl.p2l = MapArray::implicit(geo.total_units() as usize, Implicit::SeqP2l(fill));
    // The last stripe (k = stripes - 1) holds the units left over.
    let last = stripes.checked_sub(1).map(|k| {
        let die = (k % dies) as u32;
        let local = (k / dies / pages) as u32;
        (geo.block_id(die, local), ups - (n - k * ups))
    });
    for die in 0..geo.dies {
        let die_stripes = stripes / dies + ((die as u64) < stripes % dies) as u64;
        let used = die_stripes.div_ceil(pages) as u32;
        assert!(
            used <= geo.native_blocks_per_die,
            "a sequential fill fits in native-mode blocks"
        );
        let d = &mut ftl.dies[die as usize];
        for _ in 0..used {
            d.free.pop_front();
        }
        for local in 0..used {
            let id = geo.block_id(die, local);
            let in_block = (die_stripes - local as u64 * pages).min(pages);
            let mut valid = (in_block * ups) as u32;
            if let Some((b, missing)) = last {
                if b == id {
                    valid -= missing as u32;
                }
            }
            let b = &mut ftl.blocks[id as usize];
            b.valid += valid;
            ftl.programmed[id as usize] = (in_block * pps) as u16;
            if in_block == pages {
                b.state = BlockState::Full;
            } else {
                b.state = BlockState::Open;
                d.host.block = id;
                d.host.next = (in_block * ups) as u32;
            }
        }
    }
    ftl.host_cursor = (stripes % dies) as u32;
    ftl.stats.host_units_written += n;
    ftl.stats.units_programmed += stripes * ups;
    ftl.stats.pages_programmed += stripes * pps * geo.planes as u64;
    if let Some(v) = &mut ftl.verify {
        for lpn in 0..n as usize {
            v.version += 1;
            v.tags[ftl.l2p.get(lpn) as usize] = v.version;
            v.shadow[lpn] = v.version;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::UNMAPPED;
    use super::*;
    use crate::config::{load_device, DeviceSpec};

    /// The element-by-element fill `fill_sequential` replaced: the maps as stores.
    fn fill_maps_by_stripes(ftl: &mut Ftl) {
        let geo = ftl.geo.clone();
        let n = ftl.user_units;
        let ups = geo.units_per_program as u64;
        let dies = geo.dies as u64;
        let pages = geo.pages_per_block as u64 / geo.pages_per_program as u64;
        for k in 0..n.div_ceil(ups) {
            let die = (k % dies) as u32;
            let s = k / dies;
            let block = geo.block_id(die, (s / pages) as u32);
            let base = geo.block_base(block) + ((s % pages) * ups) as u32;
            let first = k * ups;
            for i in 0..ups.min(n - first) as u32 {
                let lpn = (first + i as u64) as u32;
                ftl.l2p.set(lpn as usize, base + i);
                ftl.p2l.set((base + i) as usize, lpn);
            }
        }
    }

    fn device(preset: &str, over: &[&str]) -> crate::config::DeviceConfig {
        let over: Vec<String> = over.iter().map(|s| s.to_string()).collect();
        load_device(&DeviceSpec::Preset(preset.into()), &over).unwrap()
    }

    #[test]
    fn direct_fill_equals_writing_every_unit() {
        for over in [&[][..], &["ftl.over_provisioning=0.3"][..]] {
            let d = device("tiny-test", over);
            let mut a = Ftl::new(&d, false);
            let mut b = Ftl::new(&d, false);
            fill_sequential(&mut a);
            fill_by_writing(&mut b);
            assert_eq!(a.l2p, b.l2p);
            assert_eq!(a.p2l, b.p2l);
            for (x, y) in a.blocks.iter().zip(&b.blocks) {
                assert_eq!((x.valid, x.state), (y.valid, y.state));
            }
            assert_eq!(a.programmed, b.programmed);
            assert_eq!(a.host_cursor, b.host_cursor);
            for (x, y) in a.dies.iter().zip(&b.dies) {
                assert_eq!(x.free, y.free);
                let open = |f: &super::super::Frontier| {
                    (
                        f.block,
                        if f.block == super::super::NO_BLOCK {
                            0
                        } else {
                            f.next
                        },
                    )
                };
                assert_eq!(open(&x.host), open(&y.host));
            }
            assert_eq!(a.stats.units_programmed, b.stats.units_programmed);
        }
    }

    /// Every index of the implicit maps, their runs and their counts, against the
    /// maps stored element by element (a partial last stripe, one-shot programming
    /// and an SLC area included).
    #[test]
    fn implicit_maps_equal_the_stored_fill_at_every_index() {
        let cases = [
            device("tiny-test", &[]),
            device("tiny-test", &["ftl.over_provisioning=0.3"]),
            device("client-tlc-dram", &["nand.blocks_per_plane=200"]),
            device("mqsim-default", &["nand.blocks_per_plane=200"]),
        ];
        for d in &cases {
            let mut a = Ftl::new(d, false);
            fill_sequential(&mut a);
            let mut b = Ftl::new(d, false);
            fill_maps_by_stripes(&mut b);
            assert_eq!(
                (a.l2p.materialised_chunks(), a.p2l.materialised_chunks()),
                (0, 0)
            );
            assert!(a.l2p.iter().eq(b.l2p.iter()), "l2p");
            assert!(a.p2l.iter().eq(b.p2l.iter()), "p2l");
            for v in [UNMAPPED, 0, 5, a.l2p.get(a.l2p.len() / 2)] {
                assert_eq!(a.l2p.count_ne(usize::MAX, v), b.l2p.count_ne(usize::MAX, v));
                assert_eq!(a.p2l.count_ne(usize::MAX, v), b.p2l.count_ne(usize::MAX, v));
            }
            // Materialising the chunks computes exactly what the stores left.
            let mut c = a.clone();
            c.l2p.materialise();
            c.p2l.materialise();
            let chunks = |m: &MapArray| m.len().div_ceil(super::super::map_array::CHUNK_LEN);
            assert_eq!(
                (c.l2p.materialised_chunks(), c.p2l.materialised_chunks()),
                (chunks(&c.l2p), chunks(&c.p2l))
            );
            assert_eq!(c.l2p, b.l2p);
            assert_eq!(c.p2l, b.p2l);
            assert_eq!(
                a.l2p.materialised_chunks(),
                0,
                "the clone's chunks are its own"
            );
        }
    }
}
