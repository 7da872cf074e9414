//! FDP in the FTL, untimed: isolation of the handles' data through GC on an aged
//! drive, and the read oracle.

use super::super::Ftl;
use super::OWNER_SHARED;
use crate::config::{load_device, DeviceConfig, DeviceSpec};
use crate::sim::Rng;

fn tiny_fdp(handles: u32, isolation: &str) -> DeviceConfig {
    let o = vec![
        format!("fdp.handles={handles}"),
        format!("fdp.isolation=\"{isolation}\""),
    ];
    load_device(&DeviceSpec::Preset("tiny-test".into()), &o).unwrap()
}

/// Age a drive: random 4 KiB writes over the whole drive, each with a random handle,
/// for `passes` times its capacity (GC collects thousands of victims). Returns the
/// handle of each logical unit's last write.
fn age(ftl: &mut Ftl, handles: u32, passes: u64, seed: u64) -> Vec<u32> {
    let n = ftl.host_units();
    let mut last = vec![u32::MAX; n as usize];
    let mut rng = Rng::new(seed);
    for _ in 0..passes * n {
        let lpn = rng.below(n) as u32;
        let h = rng.below(handles as u64) as u32;
        let slot = ftl.resolve_pid(h);
        ftl.write_functional_pid(lpn, slot);
        last[lpn as usize] = h;
        // Reads check the oracle as they go.
        let probe = rng.below(n) as u32;
        ftl.read_functional(probe);
    }
    last
}

#[test]
fn persistent_isolation_never_mixes_handles_in_a_block() {
    let handles = 4;
    let mut ftl = Ftl::new(&tiny_fdp(handles, "persistent"), true);
    let last = age(&mut ftl, handles, 6, 11);
    assert!(
        ftl.stats.gc_victims > 500,
        "GC ran: {}",
        ftl.stats.gc_victims
    );
    assert!(ftl.stats.gc_units_copied > 1000, "GC moved data");
    let blocks = ftl.blocks_with_data();
    assert!(blocks.len() > 50);
    for (b, owner, lpns) in blocks {
        let owner = owner.unwrap_or_else(|| panic!("block {b} holds data but has no owner"));
        assert_ne!(owner, OWNER_SHARED, "block {b}: a shared GC block");
        for l in lpns {
            assert_eq!(
                last[l as usize], owner as u32,
                "block {b} of handle {owner} holds unit {l} of handle {}",
                last[l as usize]
            );
        }
    }
    let (checked, bad) = ftl.oracle().unwrap();
    assert!(checked > 10_000);
    assert_eq!(bad, 0);
    // Every unit holding data is where the map says (the same data, through GC).
    for l in 0..ftl.host_units() as u32 {
        let v = ftl.read_functional(l);
        assert_eq!(v == 0, last[l as usize] == u32::MAX, "unit {l}");
    }
    assert_eq!(ftl.oracle().unwrap().1, 0);
}

#[test]
fn initial_isolation_mixes_handles_only_in_gc_blocks() {
    let handles = 4;
    let mut ftl = Ftl::new(&tiny_fdp(handles, "initial"), true);
    let last = age(&mut ftl, handles, 6, 12);
    let mut mixed = 0;
    for (b, owner, lpns) in ftl.blocks_with_data() {
        let owner = owner.unwrap();
        let hs: std::collections::BTreeSet<u32> = lpns.iter().map(|&l| last[l as usize]).collect();
        if owner == OWNER_SHARED {
            mixed += (hs.len() > 1) as u32;
        } else {
            // Host-written blocks: one handle's data only.
            assert!(hs.iter().all(|&h| h == owner as u32), "block {b}: {hs:?}");
        }
    }
    // GC moved the handles' data into shared blocks: what persistent isolation forbids.
    assert!(mixed > 5, "{mixed} mixed GC blocks");
    assert_eq!(ftl.oracle().unwrap().1, 0);
}

/// A Reclaim Unit Handle Update on a handle three units into a block: it pads the
/// program unit, closes the block short (state full, frontier empty), and once the
/// block's pages are programmed GC may collect it like any full block; the handle's
/// next unit opens another block, and the oracle holds through it all.
#[test]
fn a_handle_update_pads_closes_short_and_gc_collects_the_block() {
    use super::super::BlockState;
    let mut ftl = Ftl::new(&tiny_fdp(2, "persistent"), true);
    let slot = ftl.resolve_pid(1);
    let upg = ftl.geo.units_per_program;
    let ppb = ftl.geo.pages_per_block as u16;
    assert!(upg > 3, "tiny-test's program unit: {upg} units");
    let mut first = None;
    for lpn in 0..3 {
        let (pun, full) = ftl.place_host_pid(lpn, slot).unwrap();
        assert!(full.is_none());
        first.get_or_insert(pun);
    }
    let pun = first.unwrap();
    let (die, block) = (ftl.geo.die_of(pun), ftl.geo.block_of(pun));
    let pads = ftl.ruh_update(slot);
    assert_eq!(pads.len(), 1, "one die had units");
    let (pad, stripe) = pads[0];
    assert_eq!(pad, (upg - 3) as u64);
    assert_eq!(stripe.block, block);
    assert_eq!(ftl.blocks[block as usize].state, BlockState::Full);
    let f = ftl.fdp.as_ref().unwrap();
    assert_eq!((f.stats.ruh_updates, f.stats.ruh_updates_partial), (1, 1));
    // Not collectable while its pages are not all programmed; then counted whole.
    assert!(ftl.programmed[block as usize] < ppb);
    ftl.program_done(stripe);
    assert_eq!(ftl.programmed[block as usize], ppb);
    // The handle's next unit goes to another block.
    let (next, _) = ftl.place_host_pid(3, slot).unwrap();
    assert_ne!(ftl.geo.block_of(next), block);
    // GC takes the short block (the die's only full one) and keeps its three units.
    assert!(ftl.gc_functional(die));
    assert_eq!(ftl.blocks[block as usize].state, BlockState::Free);
    for lpn in 0..4 {
        assert_ne!(ftl.read_functional(lpn), 0, "unit {lpn}");
    }
    // An update of a handle with nothing written since does nothing.
    let slot0 = ftl.resolve_pid(0);
    assert!(ftl.ruh_update(slot0).is_empty());
    assert_eq!(ftl.fdp.as_ref().unwrap().stats.ruh_updates_partial, 1);
}
