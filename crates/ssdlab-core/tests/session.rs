//! Host-driven sessions (the probes' interface): random request sequences on small
//! drives with tight buffers, a demand-paged map, an SLC area and an SLC read cache
//! never stall the device, and every read returns the last write of its LBA.

mod common;

use common::device;
use proptest::prelude::*;
use ssdlab_core::workload::OpKind;
use ssdlab_core::{DriveState, RunOptions, Session};

fn variants() -> Vec<Vec<&'static str>> {
    vec![
        vec![],
        // A write buffer of two stripes: admissions depend on open-stripe data.
        vec!["controller.write_buffer=\"32KiB\""],
        // A DRAM-less drive with a four-segment SRAM map cache.
        vec![
            "dram.size=\"0B\"",
            "map.tier=\"sram\"",
            "map.cache=\"16KiB\"",
            "map.segment=\"4KiB\"",
        ],
        // An SLC area that fills, and a read cache in SLC.
        vec![
            "nand.pages_per_block=9",
            "nand.blocks_per_plane=40",
            "slc.size=\"768KiB\"",
            "read_cache.size=\"64KiB\"",
            "read_cache.tier=\"slc\"",
        ],
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]
    #[test]
    fn random_requests_never_stall_and_reads_are_fresh(
        v in 0usize..4,
        ops in proptest::collection::vec((0u8..10, 0u64..4096, 1u64..48), 20..160),
    ) {
        let over = variants()[v].clone();
        let dev = device("tiny-test", &over);
        let cap_units = dev.capacity_bytes() / 4096;
        let opts = RunOptions { state: DriveState::Full, seed: 3, verify: true };
        let mut s = Session::with_options(dev, opts).unwrap();
        for (kind, unit, units) in ops {
            let unit = unit % cap_units;
            let len = units.min(cap_units - unit) * 4096;
            let r = match kind {
                0..=3 => s.request(OpKind::Read, unit * 4096, len),
                4..=7 => s.request(OpKind::Write, unit * 4096, len),
                8 => s.request(OpKind::Trim, unit * 4096, len),
                _ => Ok(s.flush()),
            };
            prop_assert!(r.is_ok(), "variant {v}: {}", r.unwrap_err());
        }
        s.flush();
        let rep = s.report();
        prop_assert_eq!(&rep["device"]["oracle"]["mismatches"], &serde_json::json!(0));
    }
}

/// Writes that find no free block complete from the buffer and are placed later: with
/// trims and reads running alongside, every read still returns the last write (or the
/// trim) of its LBA, and some writes really were held.
#[test]
fn held_writes_keep_reads_fresh_and_trims_ordered() {
    let dev = device(
        "tiny-test",
        &[
            "controller.write_buffer=\"4MiB\"",
            "sram.size=\"16MiB\"",
            "ftl.over_provisioning=0.5",
        ],
    );
    let jobs = ssdlab_core::config::load_jobs(
        r#"{"jobs":[{"rw":"randwrite","bs":"64KiB","iodepth":64,"number_ios":20000},
                    {"rw":"randtrim","bs":"16KiB","iodepth":4,"number_ios":3000},
                    {"rw":"randread","bs":"4KiB","iodepth":16,"number_ios":30000}]}"#,
        &[],
        dev.capacity_bytes(),
    )
    .unwrap();
    let opts = RunOptions {
        state: DriveState::Steady,
        seed: 1,
        verify: true,
    };
    let r = ssdlab_core::run_jobs(dev, jobs, opts, &mut |_| true)
        .unwrap()
        .json;
    assert!(r["stalled"].is_null(), "{}", r["stalled"]);
    assert!(
        r["device"]["ftl"]["alloc_stalls"].as_u64().unwrap() > 0,
        "no write was held"
    );
    assert_eq!(r["device"]["oracle"]["mismatches"], 0);
    assert_eq!(r["write"]["total_ios"], 20000);
}

#[test]
fn a_write_buffer_larger_than_the_usable_spare_is_refused() {
    let e = ssdlab_core::config::load_device(
        &ssdlab_core::DeviceSpec::Preset("tiny-test".into()),
        &[
            "controller.write_buffer=\"2MiB\"".into(),
            "sram.size=\"16MiB\"".into(),
        ],
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("larger than the spare flash GC can use (1MiB"),
        "{e}"
    );
}
