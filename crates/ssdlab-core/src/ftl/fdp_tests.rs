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
