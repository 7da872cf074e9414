//! The system file: `[[host]]`, `[[target]]`, `[fabric]` and `[[drive]]` tables, checked
//! with the same clear errors as a device file (unknown keys are errors).
//!
//! ```toml
//! name = "seed001"
//! fabric = "rdma-kernel-2016"       # a preset, or a [fabric] table (preset = "..." + fields)
//! [[host]]
//! name = "init0"
//! nic_ports = 2
//! port_rate = "25Gb/s"
//! cores = 16
//! [[target]]
//! name = "target"
//! nic_ports = 2
//! port_rate = "100Gb/s"
//! cores = 28
//! [[drive]]
//! device = "dc-mlc-2016"            # a preset, or a device file next to this file
//! count = 24
//! target = "target"                 # absent: attached to its host's PCIe
//! hosts = ["init0"]                 # the drives go round these hosts (or host = "...")
//! ```

use crate::config::units::{check_bandwidth, Bandwidth};
use crate::config::{deserialize_tree, err, load_device, ConfigError, DeviceConfig, DeviceSpec};
use crate::fabric::{Fabric, FabricConfig, Node};
use serde::Deserialize;
use std::path::PathBuf;

/// Most drives a system may hold.
pub const MAX_DRIVES: u32 = 1024;

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    pub name: String,
    #[serde(default = "one")]
    pub nic_ports: u32,
    /// Line rate of each NIC port (needed when the host uses remote drives).
    #[serde(default)]
    pub port_rate: Option<Bandwidth>,
    #[serde(default = "default_cores")]
    pub cores: u32,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TargetSpec {
    pub name: String,
    #[serde(default = "one")]
    pub nic_ports: u32,
    pub port_rate: Bandwidth,
    #[serde(default = "default_cores")]
    pub cores: u32,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DriveSpec {
    /// A device preset, or a device file (relative to the system file).
    pub device: String,
    /// The drive's name, as a job's `filename=` names it (with `count` > 1: the name
    /// followed by 0, 1, ...; default: `drive` and the drive's index in the system).
    #[serde(default)]
    pub name: Option<String>,
    /// Device overrides, `key=value` as `--set`.
    #[serde(default)]
    pub set: Vec<String>,
    #[serde(default = "one")]
    pub count: u32,
    #[serde(default)]
    pub target: Option<String>,
    #[serde(default)]
    pub host: Option<String>,
    /// The hosts the drives go round (absent: `host`, or the first host; an empty
    /// list is refused).
    #[serde(default)]
    pub hosts: Option<Vec<String>>,
}

#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SystemConfig {
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub fabric: Option<toml::Value>,
    #[serde(default)]
    pub host: Vec<HostSpec>,
    #[serde(default)]
    pub target: Vec<TargetSpec>,
    /// Defaulted so that `check` says what a system without drives needs.
    #[serde(default)]
    pub drive: Vec<DriveSpec>,
    /// Where the file came from (errors), and its folder (device files).
    #[serde(skip)]
    pub origin: String,
    #[serde(skip)]
    pub dir: Option<PathBuf>,
}

fn one() -> u32 {
    1
}
fn default_cores() -> u32 {
    8
}

/// One drive, resolved.
pub(crate) struct DriveInstance {
    pub name: String,
    pub device: DeviceConfig,
    pub host: u32,
    pub target: Option<u32>,
}

/// Is this TOML text a system file? It has `[[drive]]` tables, or, with them
/// forgotten, what only a system has: `[[host]]` tables (a device's `[host]` is one
/// table), `[[target]]` or `fabric`. Such a file without drives is then told it needs
/// one, where before it was read as a device file and refused for an unknown field
/// `fabric` (issue 31's second audit).
pub fn is_system_toml(text: &str) -> bool {
    toml::from_str::<toml::Value>(text).is_ok_and(|v| {
        v.get("drive").is_some_and(toml::Value::is_array)
            || v.get("host").is_some_and(toml::Value::is_array)
            || v.get("target").is_some()
            || v.get("fabric").is_some()
    })
}

impl SystemConfig {
    /// Parse and check a system file's text; `dir` is where relative device files are.
    pub fn load(text: &str, origin: &str, dir: Option<PathBuf>) -> Result<Self, ConfigError> {
        let tree: toml::Value = toml::from_str(text).map_err(|e| err(origin, e.to_string()))?;
        let mut s: SystemConfig = deserialize_tree(tree, origin)?;
        s.origin = origin.to_string();
        s.dir = dir;
        s.check()?;
        s.fabric_model()?;
        Ok(s)
    }

    fn check(&self) -> Result<(), ConfigError> {
        let e = |m: String| err(&self.origin, m);
        if self.drive.is_empty() {
            return Err(e("drive: a system needs at least one [[drive]]".into()));
        }
        let mut names = std::collections::HashSet::new();
        for (kind, name) in self
            .host
            .iter()
            .map(|h| ("host", &h.name))
            .chain(self.target.iter().map(|t| ("target", &t.name)))
        {
            if name.is_empty() || !names.insert(name.clone()) {
                return Err(e(format!(
                    "{kind}.name: '{name}' is empty or used twice (every host and target needs a name of its own)"
                )));
            }
        }
        for (i, h) in self.host.iter().enumerate() {
            if !(1..=64).contains(&h.nic_ports) || !(1..=1024).contains(&h.cores) {
                return Err(e(format!(
                    "host[{i}] '{}': nic_ports {} and cores {} (allowed: 1 to 64 ports, 1 to 1024 cores)",
                    h.name, h.nic_ports, h.cores
                )));
            }
            if let Some(r) = h.port_rate {
                check_bandwidth(&format!("host[{i}].port_rate"), r.0, true).map_err(e)?;
            }
        }
        for (i, t) in self.target.iter().enumerate() {
            if !(1..=64).contains(&t.nic_ports) || !(1..=1024).contains(&t.cores) {
                return Err(e(format!(
                    "target[{i}] '{}': nic_ports {} and cores {} (allowed: 1 to 64 ports, 1 to 1024 cores)",
                    t.name, t.nic_ports, t.cores
                )));
            }
            check_bandwidth(&format!("target[{i}].port_rate"), t.port_rate.0, true).map_err(e)?;
        }
        let mut total = 0u32;
        for (i, d) in self.drive.iter().enumerate() {
            if d.count == 0 || d.count > MAX_DRIVES {
                return Err(e(format!(
                    "drive[{i}].count: {} (allowed: 1 to {MAX_DRIVES})",
                    d.count
                )));
            }
            total += d.count;
            if d.host.is_some() && d.hosts.is_some() {
                return Err(e(format!("drive[{i}]: give host or hosts, not both")));
            }
            if d.hosts.as_ref().is_some_and(Vec::is_empty) {
                return Err(e(format!(
                    "drive[{i}] ('{}').hosts: [] names no host (name at least one [[host]]: {}; or leave hosts out for the first host)",
                    d.name.as_deref().unwrap_or(&d.device),
                    self.host_names()
                )));
            }
            for h in d.host.iter().chain(d.hosts.iter().flatten()) {
                if self.host_index(h).is_none() {
                    return Err(e(format!(
                        "drive[{i}].host: '{h}' is not a [[host]] (hosts: {})",
                        self.host_names()
                    )));
                }
            }
            if let Some(t) = &d.target {
                if !self.target.iter().any(|x| &x.name == t) {
                    let have: Vec<&str> = self.target.iter().map(|t| t.name.as_str()).collect();
                    return Err(e(format!(
                        "drive[{i}].target: '{t}' is not a [[target]] (targets: {})",
                        if have.is_empty() {
                            "none".to_string()
                        } else {
                            have.join(", ")
                        }
                    )));
                }
                if self.fabric.is_none() {
                    return Err(e(format!(
                        "drive[{i}] is behind target '{t}' but the system has no fabric (add fabric = \"rdma-kernel-2016\", a preset, or a [fabric] table)"
                    )));
                }
                for h in self.drive_hosts(d) {
                    if self
                        .host
                        .get(h as usize)
                        .is_some_and(|x| x.port_rate.is_none())
                    {
                        return Err(e(format!(
                            "host '{}' uses remote drives and needs port_rate (e.g. \"25Gb/s\")",
                            self.host_name(h)
                        )));
                    }
                }
            }
        }
        if total > MAX_DRIVES {
            return Err(e(format!(
                "drive: {total} drives in all (allowed: up to {MAX_DRIVES})"
            )));
        }
        let mut seen = std::collections::BTreeSet::new();
        for (i, d) in self.drive.iter().enumerate() {
            if let Some(n) = &d.name {
                if n.is_empty() || n.contains(':') || n.chars().any(char::is_whitespace) {
                    return Err(e(format!(
                        "drive[{i}].name: '{n}' is not allowed (a non-empty name without ':' or spaces)"
                    )));
                }
            }
        }
        for name in self.drive_names() {
            if !seen.insert(name.clone()) {
                return Err(e(format!(
                    "drive: two drives are named '{name}' (names must be unique; with count > 1 the name is followed by 0, 1, ...)"
                )));
            }
        }
        Ok(())
    }

    fn host_index(&self, name: &str) -> Option<u32> {
        self.host
            .iter()
            .position(|h| h.name == name)
            .map(|i| i as u32)
    }

    fn host_names(&self) -> String {
        if self.host.is_empty() {
            return "none".into();
        }
        self.host
            .iter()
            .map(|h| h.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Hosts count: the declared ones, or one implicit host.
    pub(crate) fn host_count(&self) -> usize {
        self.host.len().max(1)
    }

    pub(crate) fn host_name(&self, h: u32) -> String {
        self.host
            .get(h as usize)
            .map_or_else(|| "host".to_string(), |x| x.name.clone())
    }

    pub(crate) fn host_cores(&self, h: u32) -> u32 {
        self.host.get(h as usize).map_or(1, |x| x.cores)
    }

    pub(crate) fn target_name(&self, t: u32) -> String {
        self.target[t as usize].name.clone()
    }

    fn drive_hosts(&self, d: &DriveSpec) -> Vec<u32> {
        let named: Vec<&String> = d.host.iter().chain(d.hosts.iter().flatten()).collect();
        if named.is_empty() {
            return vec![0];
        }
        named.iter().filter_map(|h| self.host_index(h)).collect()
    }

    /// The fabric profile and node states, if the system has a fabric.
    pub(crate) fn fabric_model(&self) -> Result<Option<Fabric>, ConfigError> {
        let Some(f) = &self.fabric else {
            return Ok(None);
        };
        let origin = format!("{} [fabric]", self.origin);
        let cfg = match f {
            toml::Value::String(name) => FabricConfig::preset(name)
                .map_err(|e| err(&self.origin, format!("fabric: {}", e.message)))?,
            toml::Value::Table(t) => {
                let mut tree = match t.get("preset") {
                    Some(toml::Value::String(name)) => {
                        let base = FabricConfig::preset(name)
                            .map_err(|e| err(&origin, format!("preset: {}", e.message)))?;
                        toml::Value::try_from(&base).expect("fabric serialises")
                    }
                    Some(_) => return Err(err(&origin, "preset: expected a preset name")),
                    None => toml::Value::Table(Default::default()),
                };
                for (k, v) in t.iter().filter(|(k, _)| k.as_str() != "preset") {
                    tree.as_table_mut()
                        .expect("a table")
                        .insert(k.clone(), v.clone());
                }
                FabricConfig::from_tree(tree, &origin)?
            }
            _ => {
                return Err(err(
                    &self.origin,
                    "fabric: expected a preset name or a [fabric] table",
                ))
            }
        };
        let hosts = (0..self.host_count())
            .map(|h| {
                let spec = self.host.get(h);
                Node::new(
                    &self.host_name(h as u32),
                    spec.map_or(1, |s| s.nic_ports),
                    spec.and_then(|s| s.port_rate).map_or(1e12, |r| r.0),
                    spec.map_or(1, |s| s.cores),
                )
            })
            .collect();
        let targets = self
            .target
            .iter()
            .map(|t| Node::new(&t.name, t.nic_ports, t.port_rate.0, t.cores))
            .collect();
        Ok(Some(Fabric::new(cfg, hosts, targets)))
    }

    /// Every drive, resolved, in order (a `count` expands to that many drives).
    pub(crate) fn drives(&self) -> Result<Vec<DriveInstance>, ConfigError> {
        let names = self.drive_names();
        let mut out = Vec::new();
        for (i, d) in self.drive.iter().enumerate() {
            let spec = self
                .device_spec(&d.device)
                .map_err(|m| err(&self.origin, format!("drive[{i}].device: {m}")))?;
            let device = load_device(&spec, &d.set).map_err(|e| {
                err(
                    &self.origin,
                    format!("drive[{i}] ({}): {}: {}", d.device, e.source, e.message),
                )
            })?;
            let hosts = self.drive_hosts(d);
            let target = d
                .target
                .as_ref()
                .and_then(|t| self.target.iter().position(|x| &x.name == t))
                .map(|t| t as u32);
            for k in 0..d.count as usize {
                out.push(DriveInstance {
                    name: names[out.len()].clone(),
                    device: device.clone(),
                    host: hosts[k % hosts.len()],
                    target,
                });
            }
        }
        Ok(out)
    }

    /// Every drive's name, in order (see `DriveSpec::name`).
    pub(crate) fn drive_names(&self) -> Vec<String> {
        let mut out = Vec::new();
        for d in &self.drive {
            for k in 0..d.count {
                out.push(match (&d.name, d.count) {
                    (Some(n), 1) => n.clone(),
                    (Some(n), _) => format!("{n}{k}"),
                    (None, _) => format!("drive{}", out.len()),
                });
            }
        }
        out
    }

    fn device_spec(&self, device: &str) -> Result<DeviceSpec, String> {
        if crate::config::presets::device_toml(device).is_some() {
            return Ok(DeviceSpec::Preset(device.to_string()));
        }
        let path = match &self.dir {
            Some(d) => d.join(device),
            None => PathBuf::from(device),
        };
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!(
                "'{device}' is neither a preset nor a readable file ({}: {e}; presets: {})",
                path.display(),
                crate::config::presets::DEVICE_NAMES.join(", ")
            )
        })?;
        Ok(DeviceSpec::Toml {
            origin: path.display().to_string(),
            text,
        })
    }
}
