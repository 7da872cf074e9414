//! Figures derived from a device config, shown by `ssdlab validate`: the ceilings each
//! stage puts on throughput (PCIe link, channels, dies), a QD1 4 KiB read latency
//! estimate and the map's size against the memories that can hold it; and the geometry
//! derived from a `capacity` given instead of `blocks_per_plane`.
//!
//! The QD1 estimate is the sum of the stages one uncontended read passes through (five
//! link crossings: doorbell, command fetch request and data, read data, completion;
//! firmware time; map lookup; command cycles; mean tR; 4 KiB on the channel and the
//! link); it leaves out queueing, map misses and interrupt handling, so a run's figure
//! is at least this.

use super::device::{DeviceConfig, PerPageType};
use serde_json::{json, Value};

fn mean_ns(t: &PerPageType) -> f64 {
    match t {
        PerPageType::One(d) => d.ns() as f64,
        PerPageType::PerType(v) => v.iter().map(|d| d.ns() as f64).sum::<f64>() / v.len() as f64,
    }
}

impl DeviceConfig {
    /// Throughput ceilings, a QD1 read latency estimate and the map's size.
    pub fn derived(&self) -> Value {
        let n = &self.nand;
        let dies = self.dies() as f64;
        let plane_bytes = n.page_size.bytes() as f64 * n.planes_per_die as f64;
        let t_read = mean_ns(&n.t_read);
        let t_prog = mean_ns(&n.t_prog);
        let die_read = plane_bytes / (t_read / 1e9);
        let die_prog = plane_bytes * n.pages_per_program as f64 / (t_prog / 1e9);
        let chan = self.channel_bytes_per_s();
        let link = self.link_bytes_per_s();
        let unit = 4096.0;
        let qd1 = 5.0 * self.host.pcie_latency.ns() as f64
            + self.controller.cmd_time.ns() as f64
            + self.controller.map_lookup.ns() as f64
            + n.t_cmd.ns() as f64
            + t_read
            + unit / chan * 1e9
            + unit / link * 1e9;
        let place = self.map_placement();
        let g = self.hmb.negotiate();
        let grant_json = json!({
            "status": g.status,
            "policy": g.policy,
            "requested_bytes": g.requested_bytes,
            "granted_bytes": g.granted_bytes,
            "descriptors": g.chunks.len(),
            "chunk_bytes": g.chunks.first().copied().unwrap_or(0),
            "host_limit_bytes": self.hmb.host_limit.bytes(),
            "note": g.note,
        });
        json!({
            "pcie_bytes_per_s": link,
            "channel_bytes_per_s": chan,
            "channels_bytes_per_s": chan * n.channels as f64,
            "die_read_bytes_per_s": die_read,
            "die_program_bytes_per_s": die_prog,
            "dies_read_bytes_per_s": die_read * dies,
            "dies_program_bytes_per_s": die_prog * dies,
            "qd1_read_4k_ns_estimate": qd1.round(),
            "map_bytes": place.map_bytes,
            "map_tier": place.tier,
            "map_whole": place.whole,
            "map_cache_bytes": place.cache_bytes,
            "dram_bytes": self.dram.size.bytes(),
            "hmb_preferred_bytes": self.hmb.hmpre.bytes(),
            "hmb_grant": grant_json,
            "sram_bytes": self.sram.size.bytes(),
            "sram_parts": self
                .sram_parts()
                .into_iter()
                .map(|(name, bytes)| json!({"part": name, "bytes": bytes}))
                .collect::<Vec<_>>(),
            "geometry": {
                "channels": n.channels,
                "dies_per_channel": n.dies_per_channel,
                "planes_per_die": n.planes_per_die,
                "blocks_per_plane": n.blocks_per_plane,
                "pages_per_block": n.pages_per_block,
                "page_bytes": n.page_size.bytes(),
                "raw_bytes": self.raw_bytes(),
                "capacity_bytes": self.capacity_bytes(),
            },
        })
    }
}

/// Largest blocks_per_plane tried when deriving the geometry from a capacity.
pub const MAX_BLOCKS_PER_PLANE: u64 = 1 << 20;

/// The fewest blocks per plane whose user capacity reaches `target` bytes, with
/// `capacity_of(blocks)` giving the user capacity (None: that geometry does not load).
pub fn blocks_for_capacity(
    target: u64,
    mut capacity_of: impl FnMut(u64) -> Option<u64>,
) -> Result<u64, String> {
    let (mut lo, mut hi) = (1u64, MAX_BLOCKS_PER_PLANE);
    if capacity_of(hi).is_none_or(|c| c < target) {
        return Err(format!(
            "needs more than {MAX_BLOCKS_PER_PLANE} blocks per plane with this geometry; \
             add channels, dies, planes or pages per block"
        ));
    }
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if capacity_of(mid).is_some_and(|c| c >= target) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Ok(lo)
}
