//! Drive preparation built directly must match what timed writes produce.

use ssdlab_core::config::{load_device, load_workload, DeviceConfig, DeviceSpec};
use ssdlab_core::ftl::prep::{prepare, DriveState};
use ssdlab_core::ftl::Ftl;
use ssdlab_core::{RunOptions, Ssd};

fn device() -> DeviceConfig {
    load_device(&DeviceSpec::Preset("tiny-test".into()), &[]).unwrap()
}

fn random_writes(dev: &DeviceConfig, units: u64, state: DriveState) -> Ssd {
    let wl = format!(r#"{{"rw":"randwrite","bs":"4k","iodepth":16,"number_ios":{units}}}"#);
    let wl = load_workload(&wl, &[], dev.capacity_bytes()).unwrap();
    let mut ssd = Ssd::new(
        dev.clone(),
        wl,
        RunOptions {
            state,
            seed: 11,
            verify: false,
        },
    );
    ssd.run(&mut |_| true);
    ssd
}

fn valid_fractions(f: &Ftl) -> (f64, f64, f64) {
    let mut v = f.valid_histogram();
    v.sort_unstable();
    let n = v.len();
    let upb = f.geo.units_per_block as f64;
    (
        v.iter().map(|&x| x as f64).sum::<f64>() / n as f64 / upb,
        v[n / 4] as f64 / upb,
        v[n / 2] as f64 / upb,
    )
}

/// WAF of `units` timed random writes starting from the given FTL state.
fn timed_waf_from(dev: &DeviceConfig, mut ftl: Ftl, units: u64) -> f64 {
    ftl.seal_open_stripes();
    ftl.drop_in_flight_gc();
    ftl.reset_stats();
    let wl = format!(r#"{{"rw":"randwrite","bs":"4k","iodepth":16,"number_ios":{units}}}"#);
    let wl = load_workload(&wl, &[], dev.capacity_bytes()).unwrap();
    let mut ssd = Ssd::new(
        dev.clone(),
        wl,
        RunOptions {
            state: DriveState::Fresh,
            seed: 12,
            verify: false,
        },
    );
    ssd.ftl = ftl;
    ssd.run(&mut |_| true);
    let s = &ssd.ftl.stats;
    (s.host_units_written + s.gc_units_copied) as f64 / s.host_units_written as f64
}

#[test]
fn steady_preparation_matches_a_timed_aging_run() {
    let dev = device();
    let cap_units = dev.capacity_bytes() / 4096;
    // Timed: sequential fill (proved equal to writing every unit by a unit test),
    // then four capacities of timed random writes through the whole device model.
    let aged = random_writes(&dev, 4 * cap_units, DriveState::Full);
    // Direct: the functional preparation.
    let mut direct = Ftl::new(&dev, false);
    let info = prepare(&mut direct, &dev, DriveState::Steady, 5);
    assert_eq!(info.method, "direct");

    let (m_t, q1_t, q2_t) = valid_fractions(&aged.ftl);
    let (m_d, q1_d, q2_d) = valid_fractions(&direct);
    assert!(
        (m_t - m_d).abs() < 0.03,
        "mean valid fraction: timed {m_t} vs direct {m_d}"
    );
    assert!(
        (q1_t - q1_d).abs() < 0.1,
        "lower quartile: timed {q1_t} vs direct {q1_d}"
    );
    assert!(
        (q2_t - q2_d).abs() < 0.1,
        "median: timed {q2_t} vs direct {q2_d}"
    );
    let free_t = aged.ftl.total_free_blocks() as f64;
    let free_d = direct.total_free_blocks() as f64;
    let dies = aged.ftl.geo.dies as f64;
    assert!(
        (free_t - free_d).abs() <= 2.0 * dies,
        "free blocks: timed {free_t} vs direct {free_d}"
    );
    // Both states amplify further random writes alike.
    let waf_t = timed_waf_from(&dev, aged.ftl, cap_units);
    let waf_d = timed_waf_from(&dev, direct, cap_units);
    assert!(
        waf_t > 1.5 && waf_d > 1.5,
        "steady state must amplify: {waf_t} {waf_d}"
    );
    assert!(
        (waf_t - waf_d).abs() / waf_t < 0.08,
        "WAF of further writes: timed-aged {waf_t} vs directly prepared {waf_d}"
    );
}
