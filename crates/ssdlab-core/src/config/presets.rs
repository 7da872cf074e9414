//! Devices shipped with ssdlab. The TOML files live in `crates/ssdlab-core/presets/`
//! and are compiled in, so the Python package and the Rust tests see the same ones.

pub const DEVICE_NAMES: &[&str] = &[
    "client-tlc-dram",
    "dc-mlc-2016",
    "dc-mlc-2016-fdp",
    "dram-ssd",
    "hmb-ssd",
    "dramless-ssd",
    "seed000-dram",
    "seed000-hmb",
    "seed000-dram-1tb",
    "seed000-hmb-1tb",
    "samsung-970-evo-plus",
    "samsung-970-evo-plus-1tb",
    "emmc-32g",
    "mqsim-default",
    "tiny-test",
    "zn540",
    "zn540-dramless",
];

/// The TOML text of a shipped device preset.
pub fn device_toml(name: &str) -> Option<&'static str> {
    Some(match name {
        "client-tlc-dram" => include_str!("../../presets/client-tlc-dram.toml"),
        "dc-mlc-2016" => include_str!("../../presets/dc-mlc-2016.toml"),
        "dc-mlc-2016-fdp" => include_str!("../../presets/dc-mlc-2016-fdp.toml"),
        "dram-ssd" => include_str!("../../presets/dram-ssd.toml"),
        "hmb-ssd" => include_str!("../../presets/hmb-ssd.toml"),
        "dramless-ssd" => include_str!("../../presets/dramless-ssd.toml"),
        "seed000-dram" => include_str!("../../presets/seed000-dram.toml"),
        "seed000-hmb" => include_str!("../../presets/seed000-hmb.toml"),
        "seed000-dram-1tb" => include_str!("../../presets/seed000-dram-1tb.toml"),
        "seed000-hmb-1tb" => include_str!("../../presets/seed000-hmb-1tb.toml"),
        "samsung-970-evo-plus" => include_str!("../../presets/samsung-970-evo-plus.toml"),
        "samsung-970-evo-plus-1tb" => {
            include_str!("../../presets/samsung-970-evo-plus-1tb.toml")
        }
        "emmc-32g" => include_str!("../../presets/emmc-32g.toml"),
        "mqsim-default" => include_str!("../../presets/mqsim-default.toml"),
        "tiny-test" => include_str!("../../presets/tiny-test.toml"),
        "zn540" => include_str!("../../presets/zn540.toml"),
        "zn540-dramless" => include_str!("../../presets/zn540-dramless.toml"),
        _ => return None,
    })
}

/// One-line description of every preset, from its `description` field.
pub fn describe() -> Vec<(String, String)> {
    DEVICE_NAMES
        .iter()
        .map(|n| {
            let t: toml::Table = toml::from_str(device_toml(n).unwrap()).unwrap();
            let d = t
                .get("description")
                .and_then(|v| v.as_str())
                .unwrap_or("")
                .to_string();
            (n.to_string(), d)
        })
        .collect()
}
