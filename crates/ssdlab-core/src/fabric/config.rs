//! A fabric profile: transport, framing and per-command software costs (what a
//! `[fabric]` table or a fabric preset holds). Line rates, ports and cores belong to
//! the hosts and targets of a system file.

use crate::config::units::{Bytes, Duration};
use crate::config::{deserialize_tree, err, ConfigError};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// RoCE / InfiniBand: the target moves data with RDMA READ and WRITE.
    Rdma,
    /// NVMe/TCP: data in H2C / C2H PDUs, an R2T before write data.
    Tcp,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FabricConfig {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub transport: Transport,
    /// Payload bytes per packet.
    pub mtu: Bytes,
    /// Bytes each packet adds on the wire (headers, trailers, preamble and gap).
    pub packet_overhead: Bytes,
    /// One NIC traversal (transmit or receive pipeline, DMA included).
    pub nic_latency: Duration,
    /// Port-to-port latency of the switch between hosts and targets.
    pub switch_latency: Duration,
    /// Write data carried in the command capsule up to this size (0: never).
    pub in_capsule_data: Bytes,
    /// Initiator driver CPU time to issue one command.
    pub host_submit: Duration,
    /// Initiator driver CPU time to complete one command (interrupt included).
    pub host_complete: Duration,
    /// Target CPU time to receive a command and submit it to the drive.
    pub target_command: Duration,
    /// Target CPU time to take the drive's completion and answer the host.
    pub target_complete: Duration,
}

/// Fabric presets shipped with ssdlab.
pub const FABRIC_NAMES: &[&str] = &["rdma-kernel-2016", "rdma-spdk", "tcp-kernel"];

fn preset_text(name: &str) -> Option<&'static str> {
    Some(match name {
        "rdma-kernel-2016" => include_str!("../../presets/fabric/rdma-kernel-2016.toml"),
        "rdma-spdk" => include_str!("../../presets/fabric/rdma-spdk.toml"),
        "tcp-kernel" => include_str!("../../presets/fabric/tcp-kernel.toml"),
        _ => return None,
    })
}

impl FabricConfig {
    /// A preset by name.
    pub fn preset(name: &str) -> Result<Self, ConfigError> {
        let text = preset_text(name).ok_or_else(|| {
            err(
                "fabric",
                format!(
                    "'{name}' is not a fabric preset (presets: {})",
                    FABRIC_NAMES.join(", ")
                ),
            )
        })?;
        let tree: toml::Value = toml::from_str(text)
            .map_err(|e| err(&format!("fabric preset '{name}'"), e.to_string()))?;
        Self::from_tree(tree, &format!("fabric preset '{name}'"))
    }

    pub(crate) fn from_tree(tree: toml::Value, origin: &str) -> Result<Self, ConfigError> {
        let f: FabricConfig = deserialize_tree(tree, origin)?;
        if f.mtu.bytes() < 256 {
            return Err(err(
                origin,
                format!(
                    "fabric.mtu: {} is below 256B (allowed: 256B to 64KiB)",
                    f.mtu
                ),
            ));
        }
        if f.mtu.bytes() > 65536 {
            return Err(err(
                origin,
                format!(
                    "fabric.mtu: {} is above 64KiB (allowed: 256B to 64KiB)",
                    f.mtu
                ),
            ));
        }
        Ok(f)
    }
}
