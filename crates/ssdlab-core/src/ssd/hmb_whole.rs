//! The HMB holding the whole map: a DRAM-less drive granted enough host memory for
//! every map segment keeps no demand-paged cache, but its map still lives across the
//! PCIe link. Every lookup is a read of host memory (a read request up, the host
//! DRAM's `hmb.host_dram_latency`, the aligned `hmb.read_granularity` lines holding
//! the command's entries down), and every changed entry a posted write up the link,
//! on the same link as user data. So an HMB holding the whole map is never as cheap
//! as controller DRAM.
//!
//! Simplifies: the segments are in host memory from the start of the run (loaded at
//! power-on, before the workload); the SRAM level in front of a demand-paged HMB
//! cache is not modelled here (every lookup goes to the HMB).

use super::Ssd;
use crate::config::memory::{entry_line_bytes, MapTier, MAP_ENTRY_BYTES};
use crate::sim::{Event, Ns};

/// The whole map in the HMB: access costs and what crossed the link for it.
#[derive(Clone, Debug)]
pub(super) struct HmbWholeMap {
    host_dram_ns: Ns,
    read_granularity: u64,
    pub(super) lookups: u64,
    pub(super) read_bytes: u64,
    pub(super) write_bytes: u64,
}

impl HmbWholeMap {
    /// Some when the map tier is the HMB and the grant holds the whole map.
    pub(super) fn new(cfg: &crate::config::DeviceConfig) -> Option<Self> {
        let place = cfg.map_placement();
        (place.whole && place.tier == MapTier::Hmb).then(|| HmbWholeMap {
            host_dram_ns: cfg.hmb.host_dram_latency.ns(),
            read_granularity: cfg.hmb.read_granularity.bytes().max(1),
            lookups: 0,
            read_bytes: 0,
            write_bytes: 0,
        })
    }
}

impl Ssd {
    /// A read's map entries for units `first..first+n` come from the HMB: the read
    /// goes on once they are at the controller.
    pub(super) fn hmb_whole_lookup(&mut self, cmd: u32, first: u32, n: u32) {
        let now = self.now();
        let Some(h) = self.hmb_whole.as_mut() else {
            self.start_read(cmd);
            return;
        };
        let last = (first + n - 1) as u64;
        let bytes = entry_line_bytes(first as u64, last, h.read_granularity);
        h.lookups += 1;
        h.read_bytes += bytes;
        let host_ns = h.host_dram_ns;
        let ready = self.pcie.read_host(now, host_ns, bytes);
        self.q.schedule(ready, Event::MapReady { cmd });
    }

    /// `n` entries changed (a host write placed, a GC move): a posted write of them.
    pub(super) fn hmb_whole_update(&mut self, n: u32) {
        let now = self.now();
        if let Some(h) = self.hmb_whole.as_mut() {
            let bytes = n as u64 * MAP_ENTRY_BYTES;
            h.write_bytes += bytes;
            self.pcie.send_up(now, bytes);
        }
    }
}
