//! The `mqsim-default` preset against MQSim's own runs of its default device
//! (MQSim commit 7ec40e3, docs/validation.md): 4 KiB random reads at QD32 within 15 % of
//! MQSim's IOPS and mean latency; 128 KiB sequential reads at the channels' bound, which
//! MQSim's figure reaches once its idle tR per channel round is taken out; and the two
//! `map.fill` modes.

mod common;

use common::{device, f, simulate};
use ssdlab_core::nand::Timing;
use ssdlab_core::DriveState;

/// MQSim (commit 7ec40e3, ssdconfig.xml unchanged): 1,608,918 requests in 10 s, mean 198 us.
const MQSIM_RANDREAD_IOPS: f64 = 160_891.8;
const MQSIM_RANDREAD_MEAN_US: f64 = 198.0;
/// MQSim: 5,487,984,640 bytes in 3 s.
const MQSIM_SEQREAD_BPS: f64 = 1_829_328_213.3;

fn within(x: f64, reference: f64, tol: f64) -> bool {
    (x / reference - 1.0).abs() <= tol
}

#[test]
fn random_read_4k_qd32_is_within_15_percent_of_mqsim() {
    let dev = device("mqsim-default", &[]);
    let r = simulate(
        &dev,
        // MQSim draws each random address afresh: no random map.
        r#"{"rw":"randread","bs":"4k","iodepth":32,"runtime":"300ms","norandommap":true}"#,
        DriveState::Full,
        1,
        false,
    );
    let iops = f(&r["read"]["iops"]);
    let mean_us = f(&r["read"]["lat_ns"]["mean"]) / 1e3;
    assert!(within(iops, MQSIM_RANDREAD_IOPS, 0.15), "IOPS {iops}");
    assert!(
        within(mean_us, MQSIM_RANDREAD_MEAN_US, 0.15),
        "mean {mean_us} us"
    );
    // Every read misses the 2 MiB map cache (MQSim: 0.35 % hits) and loads 512 B.
    let m = &r["device"]["map"];
    assert!(f(&m["hit_rate"]) < 0.01, "{m}");
    assert!(
        f(&m["nand_loads"]) >= 0.99 * f(&r["read"]["total_ios"]),
        "{m}"
    );
}

/// MQSim's 1.83 GB/s is 69 % of its channels' bound: its PHY moves every waiting
/// data-out before it lets the scheduler issue a command, so the chips of a channel
/// sense together and the channel idles one tR per round of 4 chips x 1.72 pages
/// (MQSim's own command counts). ssdlab overlaps senses with transfers: it sits at the
/// bound, which is MQSim's figure with that idle time taken out.
#[test]
fn sequential_read_128k_qd32_sits_at_the_channel_bound_mqsim_reaches_without_its_idle_tr() {
    let dev = device("mqsim-default", &[]);
    let r = simulate(
        &dev,
        r#"{"rw":"read","bs":"128k","iodepth":32,"runtime":"300ms"}"#,
        DriveState::Full,
        1,
        false,
    );
    let bw = f(&r["read"]["bw_bytes"]);
    let t = Timing::new(&dev);
    let page_ns = t.bus_ns(8192) as f64;
    let bound = dev.nand.channels as f64 * 8192.0 / (page_ns * 1e-9);
    // MQSim: 112,461 single- and 284,095 two-plane reads = 1.72 pages per command.
    let pages_per_cmd = (112_461.0 + 2.0 * 284_095.0) / (112_461.0 + 284_095.0);
    let busy = 4.0 * pages_per_cmd * page_ns;
    let mqsim_share = busy / (busy + dev.nand.t_read.get(0) as f64);
    assert!((0.65..0.73).contains(&mqsim_share), "{mqsim_share}");
    assert!(within(bw, bound, 0.10), "bw {bw} vs channel bound {bound}");
    assert!(
        within(bw, MQSIM_SEQREAD_BPS / mqsim_share, 0.15),
        "bw {bw} vs MQSim without its idle tR {}",
        MQSIM_SEQREAD_BPS / mqsim_share
    );
}

/// `map.fill`: MQSim's CMT keeps nothing a sequential stream can reuse (its own run:
/// CMT_Hits = 0); a whole-segment fill hits on every read after the first of a segment.
/// At QD1 (no read joins another's load) a 512 B segment of 128 entries x 8 KiB = 1 MiB
/// serves 8 reads of 128 KiB: 1 miss and 7 hits.
#[test]
fn map_fill_waiters_never_hits_a_sequential_stream_segment_fill_does() {
    let wl = r#"{"rw":"read","bs":"128k","iodepth":1,"number_ios":800}"#;
    let waiters = simulate(
        &device("mqsim-default", &[]),
        wl,
        DriveState::Full,
        1,
        false,
    );
    let segment = simulate(
        &device("mqsim-default", &["map.fill=\"segment\""]),
        wl,
        DriveState::Full,
        1,
        false,
    );
    let (mw, ms) = (&waiters["device"]["map"], &segment["device"]["map"]);
    assert_eq!(f(&mw["hits"]), 0.0, "{mw}");
    assert_eq!(f(&mw["loads"]), 800.0, "{mw}");
    assert_eq!(f(&ms["loads"]), 100.0, "{ms}");
    assert_eq!(f(&ms["hit_rate"]), 7.0 / 8.0, "{ms}");
    // The six-times-longer lookups cost a translation read each: tR + 512 B + command.
    let t = Timing::new(&device("mqsim-default", &[]));
    let penalty = (t.t_cmd + 75_000 + t.bus_ns(512)) as f64 * 7.0 / 8.0;
    let extra = f(&waiters["read"]["lat_ns"]["mean"]) - f(&segment["read"]["lat_ns"]["mean"]);
    assert!((extra / penalty - 1.0).abs() < 0.05, "{extra} vs {penalty}");
}
