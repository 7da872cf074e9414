//! `cargo run --release --example gcphase -- DEVICE 'WORKLOAD_JSON' STATE SEED WINDOW_MS [KEY=VALUE ...]`
//!
//! Prints, per window of simulated time, the host units written and the units GC
//! copied (the window's WAF), the erases, and where the dies stand in their GC
//! cycle: how many are at each number of free blocks (relative to the threshold T),
//! how many have a victim, and the spread of their host blocks' fill. Measures the
//! transient an aged drive's preparation leaves (docs/validation.md, section 2).
use ssdlab_core::config::{load_device, load_workload, DeviceSpec};
use ssdlab_core::ftl::prep::DriveState;
use ssdlab_core::{RunOptions, Ssd};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dev_name = args.get(1).cloned().unwrap_or("tiny-test".into());
    let wl = args
        .get(2)
        .cloned()
        .unwrap_or(r#"{"rw":"randwrite","iodepth":32,"runtime":"1s"}"#.into());
    let state = DriveState::parse(args.get(3).map(|s| s.as_str()).unwrap_or("steady")).unwrap();
    let seed: u64 = args.get(4).map(|s| s.parse().unwrap()).unwrap_or(1);
    let window_ms: u64 = args.get(5).map(|s| s.parse().unwrap()).unwrap_or(100);
    let overrides: Vec<String> = args.iter().skip(6).cloned().collect();
    let dev = load_device(&DeviceSpec::Preset(dev_name), &overrides).unwrap();
    let wl = load_workload(&wl, &[], dev.capacity_bytes()).unwrap();
    let mut ssd = Ssd::new(
        dev,
        wl,
        RunOptions {
            state,
            seed,
            verify: false,
        },
    )
    .unwrap();
    let t = ssd.ftl.gc_threshold;
    let upb = ssd.ftl.geo.units_per_block as f64;
    println!(
        "prep {} steady_waf {:.3} dies {} threshold {t}",
        ssd.prep.method, ssd.prep.steady_waf, ssd.ftl.geo.dies
    );
    println!("t_ms host gc waf erases | dies by free-T (<=-1 0 +1 >=+2) | victims (translation blocks among them, their mean valid fraction now, their mean host fill) | host fill min/mean/max | units folded, map units written");
    let mut last = (0u64, 0u64, 0u64);
    let mut last_extra = (0u64, 0u64);
    let mut line = |s: &Ssd| {
        let st = &s.ftl.stats;
        let (h, g, e) = (
            st.host_units_written - last.0,
            st.gc_units_copied - last.1,
            st.erases - last.2,
        );
        last = (st.host_units_written, st.gc_units_copied, st.erases);
        let (fo, mw) = (
            st.units_folded - last_extra.0,
            st.map_units_written - last_extra.1,
        );
        last_extra = (st.units_folded, st.map_units_written);
        let mut by_free = [0u32; 4];
        let mut victims = 0;
        let mut map_victims = 0u32;
        let mut vvalid = 0.0;
        let mut fills = Vec::new();
        let mut vfill = 0.0;
        for d in 0..s.ftl.geo.dies {
            let f = s.ftl.free_blocks(d) as i64 - t as i64;
            by_free[(f.clamp(-1, 2) + 1) as usize] += 1;
            let fill = s.ftl.host_fill(d).map_or(0.0, |x| x as f64 / upb);
            if let Some(v) = s.ftl.dies[d as usize].victim {
                victims += 1;
                map_victims += s.ftl.is_map_block(v) as u32;
                vvalid += s.ftl.valid_count(v) as f64 / upb;
                vfill += fill;
            }
            fills.push(fill);
        }
        let mean = fills.iter().sum::<f64>() / fills.len() as f64;
        let (lo, hi) = fills
            .iter()
            .fold((1.0f64, 0.0f64), |(a, b), &x| (a.min(x), b.max(x)));
        println!(
            "{:>7.1} {h:>8} {g:>8} {:>5.2} {e:>4} | {:?} | {victims} ({map_victims} map, valid {:.2}, fill {:.2}) | {lo:.2}/{mean:.2}/{hi:.2} | folded {fo} map {mw}",
            s.now() as f64 / 1e6,
            (h + g) as f64 / h.max(1) as f64,
            by_free,
            vvalid / victims.max(1) as f64,
            vfill / victims.max(1) as f64
        );
    };
    ssd.run_observed(&mut |_| true, window_ms * 1_000_000, &mut line);
    if let Some(why) = ssd.stall_reason() {
        println!("stalled at {:.1} ms: {why}", ssd.now() as f64 / 1e6);
    }
}
