//! `cargo run --release --example run -- DEVICE 'WORKLOAD_JSON' STATE [KEY=VALUE ...]`
//! prints a report (KEY=VALUE: device overrides, as `--set`). With `RUN_REUSE=N` in the
//! environment it runs N times through the prepared-drive cache (`reuse_prep`), as a
//! sweep does, and reports each (the first prepares, the rest clone).
fn main() {
    let runs: usize = std::env::var("RUN_REUSE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0);
    for _ in 0..runs.max(1) {
        run_once(runs > 0);
    }
}

fn run_once(reuse_prep: bool) {
    let args: Vec<String> = std::env::args().collect();
    let dev = args.get(1).cloned().unwrap_or("client-tlc-dram".into());
    let wl = args
        .get(2)
        .cloned()
        .unwrap_or(r#"{"rw":"randread","iodepth":32,"number_ios":200000}"#.into());
    let state = args.get(3).cloned().unwrap_or("full".into());
    let overrides: Vec<String> = args.iter().skip(4).cloned().collect();
    let r = ssdlab_core::run_from_specs(
        &ssdlab_core::DeviceSpec::Preset(dev),
        &overrides,
        &wl,
        &[],
        &state,
        1,
        false,
        reuse_prep,
        0,
        &mut |_| true,
    );
    match r {
        Ok(r) => {
            let j = &r.json;
            for d in ["read", "write"] {
                println!(
                    "{d}: iops {:.0} (500 ms windows {}..{}, sd {:.0}) bw {} MB/s mean {:.1} us p99 {} p99.9 {} ios {}",
                    j[d]["iops"].as_f64().unwrap(),
                    j[d]["iops_min"],
                    j[d]["iops_max"],
                    j[d]["iops_stddev"].as_f64().unwrap_or(0.0),
                    j[d]["bw_bytes"].as_u64().unwrap() / 1_000_000,
                    j[d]["lat_ns"]["mean"].as_f64().unwrap() / 1e3,
                    j[d]["lat_ns"]["percentile"]["99.000000"],
                    j[d]["lat_ns"]["percentile"]["99.900000"],
                    j[d]["total_ios"]
                );
            }
            println!(
                "sim {} ns wall {:.3}s simwall {} events {} waf {}",
                j["sim_time_ns"],
                j["wall_time_s"],
                j["sim_wall_time_s"],
                j["events"],
                j["device"]["ftl"]["waf"]
            );
            if !j["stalled"].is_null() {
                println!("stalled: {}", j["stalled"]);
            }
            println!("prep {}", j["prep"]);
            println!("{}", serde_json::to_string(&j["device"]).unwrap());
        }
        Err(e) => eprintln!("error: {e}"),
    }
}
