//! Configuration: typed device and workload descriptions, units, presets,
//! dotted overrides (`nand.t_read=60us`) and validation.
//!
//! A device comes from a shipped preset, a TOML text or a JSON text (Python dicts
//! arrive as JSON). Unknown keys are errors; every error names where it came from
//! (file or preset), the field path, the value and what is allowed.

mod derived;
mod device;
pub mod fdp;
mod hmb_grant;
pub mod host_events;
pub mod host_log;
pub mod limits;
pub mod memory;
mod placement;
mod plausible;
pub mod power;
pub mod power_loss;
pub mod presets;
pub mod scheduling;
pub mod settle;
pub mod units;
pub mod workload;
pub mod zoned_job;

pub use device::{
    pcie_lane_bytes_per_s, BufferRelease, CellType, ControllerConfig, DeviceConfig, FtlConfig,
    GcBufferShare, GcDestination, GcPacing, GcPolicy, GcStaging, HostConfig, NandConfig,
    PerPageType,
};
pub use workload::{QueuePolicy, Rw, WorkloadConfig, RW_ALLOWED};

use std::fmt;

/// A configuration problem, with where it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct ConfigError {
    pub source: String,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.source.is_empty() {
            write!(f, "{}", self.message)
        } else {
            write!(f, "{}: {}", self.source, self.message)
        }
    }
}

impl std::error::Error for ConfigError {}

pub(crate) fn err(source: &str, message: impl Into<String>) -> ConfigError {
    ConfigError {
        source: source.to_string(),
        message: message.into(),
    }
}

/// Where a device description comes from.
#[derive(Debug, Clone)]
pub enum DeviceSpec {
    /// A preset shipped with ssdlab, by name.
    Preset(String),
    /// TOML text; `origin` names it in errors (usually the file path).
    Toml { origin: String, text: String },
    /// JSON text (from a Python dict); `origin` names it in errors.
    Json { origin: String, text: String },
}

impl DeviceSpec {
    pub fn origin(&self) -> String {
        match self {
            DeviceSpec::Preset(n) => format!("preset '{n}'"),
            DeviceSpec::Toml { origin, .. } | DeviceSpec::Json { origin, .. } => origin.clone(),
        }
    }
}

fn parse_tree(spec: &DeviceSpec) -> Result<toml::Value, ConfigError> {
    let origin = spec.origin();
    match spec {
        DeviceSpec::Preset(name) => {
            let text = presets::device_toml(name).ok_or_else(|| {
                err(
                    "",
                    format!(
                        "device: '{name}' is neither a preset nor a file (presets: {})",
                        presets::DEVICE_NAMES.join(", ")
                    ),
                )
            })?;
            toml::from_str(text).map_err(|e| err(&origin, e.to_string()))
        }
        DeviceSpec::Toml { text, .. } => {
            toml::from_str(text).map_err(|e| err(&origin, e.to_string().trim().to_string()))
        }
        DeviceSpec::Json { text, .. } => {
            let v: serde_json::Value =
                serde_json::from_str(text).map_err(|e| err(&origin, e.to_string()))?;
            json_to_toml(&v).map_err(|m| err(&origin, m))
        }
    }
}

fn json_to_toml(v: &serde_json::Value) -> Result<toml::Value, String> {
    json_to_toml_at(v, "")
}

fn json_to_toml_at(v: &serde_json::Value, path: &str) -> Result<toml::Value, String> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => {
            return Err(format!(
                "{path}: null is not allowed inside a list (allowed: numbers, text, true/false)"
            ))
        }
        J::Bool(b) => toml::Value::Boolean(*b),
        J::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        J::String(s) => toml::Value::String(s.clone()),
        J::Array(a) => toml::Value::Array(
            a.iter()
                .enumerate()
                .map(|(i, x)| json_to_toml_at(x, &format!("{path}[{i}]")))
                .collect::<Result<_, _>>()?,
        ),
        J::Object(o) => {
            let mut t = toml::map::Map::new();
            for (k, v) in o {
                // A null field means "the default", as in the Python API (and the
                // resolved config in a report, `lane_bandwidth: null`, loads again).
                if !v.is_null() {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    t.insert(k.clone(), json_to_toml_at(v, &p)?);
                }
            }
            toml::Value::Table(t)
        }
    })
}

/// Parse the right-hand side of an override: a TOML literal if it is one, else a string.
fn override_value(raw: &str) -> toml::Value {
    let doc = format!("v = {raw}");
    match toml::from_str::<toml::Table>(&doc) {
        Ok(mut t) => t
            .remove("v")
            .unwrap_or(toml::Value::String(raw.to_string())),
        Err(_) => toml::Value::String(raw.to_string()),
    }
}

/// A workload option given as a string that is a number or a boolean ("32", "true")
/// means that number, as it does in a `key=value` override or a fio job file; the
/// job's `name` stays text.
fn numbers_from_strings(tree: &mut toml::Value) {
    let Some(table) = tree.as_table_mut() else {
        return;
    };
    for (k, v) in table.iter_mut() {
        if let toml::Value::String(s) = v {
            let parsed = override_value(s.trim());
            if k != "name"
                && matches!(
                    parsed,
                    toml::Value::Integer(_) | toml::Value::Float(_) | toml::Value::Boolean(_)
                )
            {
                *v = parsed;
            }
        }
    }
}

/// Apply `a.b.c=value` overrides to a TOML tree. Unknown keys are caught later by
/// deserialisation, which rejects them with the list of allowed ones.
pub fn apply_overrides(tree: &mut toml::Value, overrides: &[String]) -> Result<(), ConfigError> {
    for o in overrides {
        let (path, raw) = o.split_once('=').ok_or_else(|| {
            err(
                "--set",
                format!("'{o}' is not of the form key=value (e.g. nand.t_read=60us)"),
            )
        })?;
        let keys: Vec<&str> = path.trim().split('.').collect();
        if keys.iter().any(|k| k.is_empty()) {
            return Err(err(
                "--set",
                format!("'{path}' is not a dotted key such as nand.t_read"),
            ));
        }
        let mut node = &mut *tree;
        for k in &keys[..keys.len() - 1] {
            let table = node.as_table_mut().ok_or_else(|| {
                err(
                    "--set",
                    format!("'{path}': '{k}' is inside a value, not a section"),
                )
            })?;
            node = table
                .entry(k.to_string())
                .or_insert_with(|| toml::Value::Table(Default::default()));
        }
        let table = node.as_table_mut().ok_or_else(|| {
            err(
                "--set",
                format!("'{path}' does not name a field inside a section"),
            )
        })?;
        table.insert(keys[keys.len() - 1].to_string(), override_value(raw.trim()));
    }
    Ok(())
}

pub(crate) fn deserialize_tree<T: serde::de::DeserializeOwned>(
    tree: toml::Value,
    origin: &str,
) -> Result<T, ConfigError> {
    serde_path_to_error::deserialize(tree).map_err(|e| {
        let path = e.path().to_string();
        // toml appends "in `section`" on later lines; the path already says where.
        let inner = e.into_inner().to_string();
        let inner = plain_message(inner.lines().next().unwrap_or("").trim());
        if path.is_empty() || path == "." {
            err(origin, inner)
        } else {
            err(origin, format!("{path}: {inner}"))
        }
    })
}

/// serde's wording in the user's terms: "expected u32" says what is allowed as a
/// range, an enum given a number says a name is expected, and so on.
fn plain_message(m: &str) -> String {
    let allowed = |ty: &str| -> Option<&'static str> {
        Some(match ty {
            "u8" => "a whole number from 0 to 255",
            "u16" => "a whole number from 0 to 65535",
            "u32" => "a whole number from 0 to 4294967295",
            "u64" | "usize" => "a whole number from 0 to 18446744073709551615",
            "i64" => "a whole number",
            "f32" | "f64" => "a number",
            "a boolean" => "true or false",
            _ => return None,
        })
    };
    // "invalid type: string \"abc\", expected u32" / "invalid value: integer `-1`, expected u32"
    if let Some((what, ty)) = m.rsplit_once(", expected ") {
        let got = what
            .trim_start_matches("invalid type: ")
            .trim_start_matches("invalid value: ");
        if got == "unit variant" {
            return "a number is not allowed here: expected one of this field's names, in quotes"
                .into();
        }
        let got = got
            .trim_start_matches("string ")
            .trim_start_matches("integer ")
            .trim_start_matches("floating point ")
            .trim_start_matches("boolean ")
            .replace('`', "");
        if let Some(a) = allowed(ty) {
            return format!("{got} is not allowed ({a})");
        }
    }
    m.to_string()
}

/// `nand.capacity = "1TB"` instead of `nand.blocks_per_plane`: the fewest blocks per
/// plane that give at least that user capacity are written into the tree.
fn capacity_to_blocks(tree: &mut toml::Value, origin: &str) -> Result<(), ConfigError> {
    let Some(nand) = tree.get_mut("nand").and_then(|n| n.as_table_mut()) else {
        return Ok(());
    };
    let Some(cap) = nand.remove("capacity") else {
        return Ok(());
    };
    if nand.contains_key("blocks_per_plane") {
        return Err(err(
            origin,
            "nand.capacity: give either capacity or blocks_per_plane, not both",
        ));
    }
    let text = match &cap {
        toml::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let target =
        units::parse_size_bytes(&text).map_err(|m| err(origin, format!("nand.capacity: {m}")))?;
    if target == 0 {
        return Err(err(origin, "nand.capacity: must be > 0"));
    }
    let set_blocks = |t: &mut toml::Value, b: u64| {
        if let Some(n) = t.get_mut("nand").and_then(|n| n.as_table_mut()) {
            n.insert("blocks_per_plane".into(), toml::Value::Integer(b as i64));
        }
    };
    let base = tree.clone();
    let blocks = derived::blocks_for_capacity(target, |b| {
        let mut t = base.clone();
        set_blocks(&mut t, b);
        let dev: DeviceConfig = t.try_into().ok()?;
        Some(dev.capacity_bytes())
    })
    .map_err(|m| err(origin, format!("nand.capacity: {text} {m}")))?;
    set_blocks(tree, blocks);
    Ok(())
}

/// Resolve a device description and overrides into a validated config.
pub fn load_device(spec: &DeviceSpec, overrides: &[String]) -> Result<DeviceConfig, ConfigError> {
    let origin = spec.origin();
    let mut tree = parse_tree(spec)?;
    apply_overrides(&mut tree, overrides)?;
    capacity_to_blocks(&mut tree, &origin)?;
    let dev: DeviceConfig = deserialize_tree(tree, &origin)?;
    dev.validate().map_err(|m| err(&origin, m))?;
    Ok(dev)
}

/// Parse a workload from JSON text (fio option names) with overrides, then check it
/// against the device capacity.
pub fn load_workload(
    json: &str,
    overrides: &[String],
    capacity: u64,
) -> Result<WorkloadConfig, ConfigError> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| err("workload", e.to_string()))?;
    let mut tree = json_to_toml(&v).map_err(|m| err("workload", m))?;
    numbers_from_strings(&mut tree);
    apply_overrides(&mut tree, overrides)?;
    // fio allows rw values such as "readwrite"; map unknown ones to a clear message.
    if let Some(rw) = tree.get("rw").and_then(|r| r.as_str()) {
        Rw::parse(rw).map_err(|m| err("workload", m))?;
    }
    let mut w: WorkloadConfig = deserialize_tree(tree, "workload")?;
    w.validate(capacity).map_err(|m| err("workload", m))?;
    if let Some(t) = &w.trace {
        // One streaming pass: every line parses (or is skipped within budget), and
        // the LBA range and statistics are known before the replay.
        let fmt = t.validate().map_err(|m| err("workload", m))?;
        let stats = crate::trace::scan(&t.path, fmt, t.skip_bad_lines, t.device)
            .map_err(|e| err("trace", e.message))?;
        if stats.requests == 0 {
            return Err(err(
                "trace",
                format!("{}: no requests in the trace", t.path),
            ));
        }
        let span = stats.duration_ns as f64 / t.speedup;
        if t.mode == crate::trace::replay::ReplayMode::Timed && span > units::MAX_TIME_NS as f64 {
            return Err(err(
                "trace",
                format!(
                    "{}: the requests arrive over {:.3e} s of trace time, {:.3e} s after trace.speedup {}: more than the 100 years of simulated time allowed (a bad timestamp, or --speedup too small?)",
                    t.path,
                    stats.duration_ns as f64 / 1e9,
                    span / 1e9,
                    t.speedup
                ),
            ));
        }
        w.trace_stats = Some(stats);
    }
    Ok(w)
}

/// What every constructor of a simulated drive checks first (`Ssd::new`, `Session`,
/// `AsyncSession`, `run_jobs`): the device and every job are valid, whatever built
/// them (a config deserialised or changed in code skips `load_device`).
pub fn check_run(dev: &DeviceConfig, jobs: &[WorkloadConfig]) -> Result<(), ConfigError> {
    let origin = format!("device '{}'", dev.name);
    dev.validate().map_err(|m| err(&origin, m))?;
    if jobs.is_empty() {
        return Err(err("workload", "jobs: must be a non-empty list of jobs"));
    }
    let cap = dev.capacity_bytes();
    for (i, w) in jobs.iter().enumerate() {
        let source = if jobs.len() == 1 {
            "workload".to_string()
        } else {
            format!("workload job {i}")
        };
        w.validate(cap).map_err(|m| err(&source, m))?;
        if let Some(f) = &w.fdp {
            f.validate(dev.fdp.as_ref(), &dev.name)
                .map_err(|m| err(&source, m))?;
        }
        for (k, op) in w.fdp_ops.iter().enumerate() {
            op.validate(k, dev.fdp.as_ref(), &dev.name)
                .map_err(|m| err(&source, m))?;
        }
        if i > 0 && !w.events.is_empty() {
            return Err(err(
                &source,
                "events: only the first job section's events apply (list them there)",
            ));
        }
    }
    host_events::validate_events(&jobs[0].events, dev).map_err(|m| err("workload", m))?;
    for (i, w) in jobs.iter().enumerate() {
        // A group settles as one: its jobs share the rule and the windows it reads.
        let first = jobs.iter().find(|o| o.group == w.group).expect("w itself");
        if (&w.settle, w.ramp_time.ns()) != (&first.settle, first.ramp_time.ns()) {
            return Err(err(
                &format!("workload job {i}"),
                format!(
                    "settle: the jobs of group {} must have the same settle rule and \
                     ramp_time (the group settles as one)",
                    w.group
                ),
            ));
        }
    }
    Ok(())
}

/// Load a workload of one job (fio options) or several: `{"jobs": [{...}, ...]}`,
/// each a complete job (the `group` field orders them into stonewall groups). The
/// overrides apply to every job.
pub fn load_jobs(
    json: &str,
    overrides: &[String],
    capacity: u64,
) -> Result<Vec<WorkloadConfig>, ConfigError> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| err("workload", e.to_string()))?;
    let Some(jobs) = v.get("jobs") else {
        return Ok(vec![load_workload(json, overrides, capacity)?]);
    };
    let list = jobs
        .as_array()
        .filter(|a| !a.is_empty())
        .ok_or_else(|| err("workload", "jobs: must be a non-empty list of jobs"))?;
    if let Some(k) = v.as_object().and_then(|o| o.keys().find(|k| *k != "jobs")) {
        return Err(err(
            "workload",
            format!("{k}: unknown key next to \"jobs\" (put job options inside each job)"),
        ));
    }
    list.iter()
        .enumerate()
        .map(|(i, j)| {
            let name = j.get("name").and_then(|n| n.as_str()).unwrap_or("");
            load_workload(&j.to_string(), overrides, capacity).map_err(|e| ConfigError {
                source: format!("workload job {i} ({name})"),
                message: e.message,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_preset_loads_and_validates() {
        for name in presets::DEVICE_NAMES {
            let d = load_device(&DeviceSpec::Preset(name.to_string()), &[])
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(&d.name, name);
        }
    }

    #[test]
    fn overrides_change_typed_fields() {
        let d = load_device(
            &DeviceSpec::Preset("mqsim-default".into()),
            &["nand.t_read=60us".into(), "controller.cores=2".into()],
        )
        .unwrap();
        assert_eq!(d.nand.t_read.get(0), 60_000);
        assert_eq!(d.controller.cores, 2);
    }

    #[test]
    fn unknown_key_is_named() {
        let e = load_device(
            &DeviceSpec::Preset("mqsim-default".into()),
            &["nand.t_raed=60us".into()],
        )
        .unwrap_err();
        let s = e.to_string();
        assert!(s.contains("t_raed"), "{s}");
        assert!(s.contains("unknown field"), "{s}");
    }

    #[test]
    fn bad_units_name_the_field() {
        let e = load_device(
            &DeviceSpec::Preset("mqsim-default".into()),
            &["nand.t_erase=3 fortnights".into()],
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("nand.t_erase"), "{e}");
        assert!(e.contains("unknown time unit"), "{e}");
    }

    #[test]
    fn device_timings_and_sizes_need_units() {
        for (ov, field) in [
            ("nand.t_read=60", "nand.t_read"),
            ("nand.t_read=[50, 70, 90]", "nand.t_read"),
            ("nand.t_erase=3000", "nand.t_erase"),
            ("nand.page_size=16384", "nand.page_size"),
        ] {
            let e = load_device(&DeviceSpec::Preset("client-tlc-dram".into()), &[ov.into()])
                .unwrap_err()
                .to_string();
            assert!(e.contains(field) && e.contains("no unit"), "{ov}: {e}");
        }
        // 0 needs no unit.
        assert!(load_device(
            &DeviceSpec::Preset("client-tlc-dram".into()),
            &["controller.buffer_read=0".into()]
        )
        .is_ok());
    }

    #[test]
    fn implausible_values_warn_and_presets_do_not() {
        for name in presets::DEVICE_NAMES {
            let d = load_device(&DeviceSpec::Preset(name.to_string()), &[]).unwrap();
            assert!(d.warnings().is_empty(), "{name}: {:?}", d.warnings());
        }
        let d = load_device(
            &DeviceSpec::Preset("client-tlc-dram".into()),
            &["nand.t_read=60ns".into()],
        )
        .unwrap();
        let w = d.warnings().join("\n");
        assert!(w.contains("nand.t_read") && w.contains("TLC"), "{w}");
        assert!(w.contains("did you mean 60us"), "{w}");
        let d = load_device(
            &DeviceSpec::Preset("client-tlc-dram".into()),
            &["nand.t_read=250us".into()],
        )
        .unwrap();
        assert!(d.warnings().join(" ").contains("nand.t_read"));
    }

    #[test]
    fn a_large_slc_area_on_top_of_the_capacity_is_said_loudly() {
        // Issue 29 item 4: a 1 TB DRAM-less drive given its 300 GB dynamic SLC cache.
        let text = presets::device_toml("seed000-hmb-1tb")
            .unwrap()
            .replace("[nand]", "[nand]\ncapacity = \"1TB\"")
            .lines()
            .filter(|l| !l.trim_start().starts_with("blocks_per_plane"))
            .collect::<Vec<_>>()
            .join("\n");
        let spec = DeviceSpec::Toml {
            origin: "user.toml".into(),
            text,
        };
        let sets = [
            "slc.mode=dynamic".into(),
            "slc.size=300GB".into(),
            "slc.min_size=6GB".into(),
        ];
        let d = load_device(&spec, &sets).unwrap();
        let w = d.warnings().join("\n");
        assert!(w.contains("slc.size") && w.contains("ON TOP"), "{w}");
        assert!(w.contains("dynamic SLC area (300 GB)"), "{w}");
        assert!(w.contains("slc.mode = \"free-space\""), "{w}");
        assert!(d.raw_bytes() > 19 * d.capacity_bytes() / 10, "{w}");
        // Carved from free native blocks instead: nothing on top but the static part.
        let sets = [
            "slc.mode=\"free-space\"".into(),
            "slc.size=300GB".into(),
            "slc.min_size=6GB".into(),
        ];
        let d = load_device(&spec, &sets).unwrap();
        let w = d.warnings().join("\n");
        assert!(!w.contains("ON TOP"), "{w}");
        assert!(d.raw_bytes() < 12 * d.capacity_bytes() / 10, "{w}");
    }

    #[test]
    fn fio_times_default_to_seconds() {
        let cap = 1 << 30;
        let w = load_workload(r#"{"runtime": 1, "ramp_time": "0.5"}"#, &[], cap).unwrap();
        assert_eq!(w.runtime.unwrap().ns(), 1_000_000_000);
        assert_eq!(w.ramp_time.ns(), 500_000_000);
        let w = load_workload("{}", &["runtime=1".into(), "thinktime=10".into()], cap).unwrap();
        assert_eq!(w.runtime.unwrap().ns(), 1_000_000_000);
        assert_eq!(w.thinktime.ns(), 10_000);
        let w = load_workload(r#"{"runtime": "250ms", "bs": 8192}"#, &[], cap).unwrap();
        assert_eq!(w.runtime.unwrap().ns(), 250_000_000);
        assert_eq!(w.bs.bytes(), 8192);
    }

    #[test]
    fn capacity_derives_blocks_per_plane() {
        let p = DeviceSpec::Preset("client-tlc-dram".into());
        let base = load_device(&p, &[]).unwrap();
        let want = 1_000_000_000_000u64;
        let d = load_device(&p, &["nand.capacity=\"1TB\"".into()]).unwrap_err();
        assert!(d.to_string().contains("not both"), "{d}");
        let mut tree = parse_tree(&p).unwrap();
        let nand = tree.get_mut("nand").unwrap().as_table_mut().unwrap();
        nand.remove("blocks_per_plane");
        nand.insert("capacity".into(), toml::Value::String("1TB".into()));
        let text = toml::to_string(&tree).unwrap();
        let spec = DeviceSpec::Toml {
            origin: "mine.toml".into(),
            text,
        };
        let d = load_device(&spec, &[]).unwrap();
        assert!(d.capacity_bytes() >= want);
        let mut fewer = d.clone();
        fewer.nand.blocks_per_plane -= 1;
        assert!(fewer.capacity_bytes() < want);
        assert!(d.nand.blocks_per_plane > base.nand.blocks_per_plane);
        let g = &d.derived()["geometry"];
        assert_eq!(g["blocks_per_plane"], d.nand.blocks_per_plane);
        let e = load_device(&spec, &["nand.capacity=\"5\"".into()]).unwrap_err();
        assert!(e.to_string().contains("nand.capacity") && e.to_string().contains("no unit"));
    }

    #[test]
    fn derived_ceilings() {
        let d = load_device(&DeviceSpec::Preset("client-tlc-dram".into()), &[]).unwrap();
        let v = d.derived();
        assert_eq!(v["pcie_bytes_per_s"], d.link_bytes_per_s());
        let qd1 = v["qd1_read_4k_ns_estimate"].as_f64().unwrap();
        assert!(
            qd1 > d.nand.t_read.max() as f64 * 0.5 && qd1 < 200_000.0,
            "{qd1}"
        );
        assert!(v["map_bytes"].as_u64().unwrap() > 0);
    }

    #[test]
    fn workload_errors() {
        let cap = 1 << 30;
        let e = load_workload(r#"{"rw":"randomread"}"#, &[], cap)
            .unwrap_err()
            .to_string();
        assert!(e.contains("randread") && e.contains("randomread"), "{e}");
        let e = load_workload(r#"{"bs":"1000"}"#, &[], cap)
            .unwrap_err()
            .to_string();
        assert!(e.contains("bs") && e.contains("512"), "{e}");
        let e = load_workload(r#"{"size":"2GiB"}"#, &[], cap)
            .unwrap_err()
            .to_string();
        assert!(e.contains("beyond the device capacity"), "{e}");
        let e = load_workload(r#"{"iodepht":4}"#, &[], cap)
            .unwrap_err()
            .to_string();
        assert!(e.contains("iodepht"), "{e}");
        assert!(load_workload(r#"{"rw":"randrw","bs":"8k","iodepth":4}"#, &[], cap).is_ok());
    }
}
