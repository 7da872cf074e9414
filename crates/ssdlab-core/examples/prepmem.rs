//! Preparation time and peak memory of one run (issue 12 item 5's measurements):
//! `cargo run --release --example prepmem -- PRESET 'WORKLOAD_JSON' STATE [KEY=VALUE ...]`
//! prints prep_wall_time_s, sim_wall_time_s, read IOPS and the process's peak RSS
//! (VmHWM, Linux).
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dev = args.get(1).cloned().unwrap_or("client-tlc-dram".into());
    let wl = args
        .get(2)
        .cloned()
        .unwrap_or(r#"{"rw":"randread","iodepth":32,"number_ios":200000}"#.into());
    let state = args.get(3).cloned().unwrap_or("full".into());
    let overrides: Vec<String> = args.iter().skip(4).cloned().collect();
    let r = ssdlab_core::run_from_specs(
        &ssdlab_core::DeviceSpec::Preset(dev.clone()),
        &overrides,
        &wl,
        &[],
        &state,
        1,
        false,
        false,
        0,
        &mut |_| true,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let j = &r.json;
    let hwm = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM"))
                .map(|l| l.to_string())
        })
        .unwrap_or_default();
    println!(
        "{dev} {state} capacity_bytes {} prep_wall_time_s {} sim_wall_time_s {} read_iops {:.0} write_iops {:.0} {hwm}",
        j["device"]["capacity_bytes"],
        j["prep_wall_time_s"],
        j["sim_wall_time_s"],
        j["read"]["iops"].as_f64().unwrap_or(0.0),
        j["write"]["iops"].as_f64().unwrap_or(0.0),
    );
}
