//! Data held in memory tiers: the write buffer's tier and the optional read cache.
//!
//! Access costs by tier: SRAM, its latency; DRAM, latency plus bytes at the DRAM
//! bandwidth; HMB, the PCIe link: a read is a request up and the data down after
//! the host DRAM latency, a write is a posted write up; both share the link with
//! user data. A write buffer in the HMB costs each host write a copy up to host
//! memory before it completes and each host program a fetch back down before the
//! die's data-in; reads of buffered data fetch it from the HMB. A read cache hit
//! is served from its tier instead of NAND; units read from NAND are filled in
//! (for the HMB, a posted write up). A read cache in SLC-mode flash serves a hit
//! with an SLC page read on the unit's die (die and channel time, SLC tR).
//! Simplifies: SRAM and DRAM accesses do not contend with each other; read-cache
//! fills copy whole mapping units; an SLC cache's fills (SLC programs) take no die
//! time and its blocks no capacity (they would run in idle time, from spare area).

use super::stats::{ReadCacheOn, ReadCacheReport, WriteBufferStats};
use super::Ssd;
use crate::config::memory::DataTier;
use crate::config::DeviceConfig;
use crate::controller::ReadCache;
use crate::sim::{fs_per_byte, xfer_ns, Ns};

#[derive(Clone, Debug, Default)]
struct TierCounters {
    rc_hit_bytes: u64,
    rc_hmb_read_bytes: u64,
    rc_hmb_write_bytes: u64,
    wb_hmb_read_bytes: u64,
    wb_hmb_write_bytes: u64,
}

pub(super) struct DataTiers {
    pub read_cache: Option<ReadCache>,
    pub rc_tier: DataTier,
    pub wb_tier: DataTier,
    pub wb_bytes: u64,
    sram_ns: Ns,
    dram_ns: Ns,
    dram_fs_per_byte: u64,
    host_dram_ns: Ns,
    c: TierCounters,
}

impl DataTiers {
    pub fn new(cfg: &DeviceConfig) -> Self {
        let unit = cfg.ftl.mapping_unit.bytes().max(1);
        let (rc_tier, read_cache) = match cfg.read_cache_placement() {
            Some((t, bytes)) => (t, Some(ReadCache::new(bytes / unit, cfg.read_cache.ways))),
            None => (cfg.read_cache.tier, None),
        };
        let (wb_tier, wb_bytes) = cfg.write_buffer_placement();
        DataTiers {
            read_cache,
            rc_tier,
            wb_tier,
            wb_bytes,
            sram_ns: cfg.sram.latency.ns(),
            dram_ns: cfg.dram.latency.ns(),
            dram_fs_per_byte: fs_per_byte(cfg.dram.bandwidth.0),
            host_dram_ns: cfg.hmb.host_dram_latency.ns(),
            c: TierCounters::default(),
        }
    }

    /// The read cache's counters (`unit_bytes`: the mapping unit).
    pub fn read_cache_stats(&self, unit_bytes: u64) -> ReadCacheReport {
        let on = self.read_cache.as_ref().map(|rc| {
            let s = &rc.stats;
            let lookups = s.hits + s.misses;
            ReadCacheOn {
                tier: self.rc_tier,
                size_bytes: rc.capacity_units() * unit_bytes,
                hits: s.hits,
                misses: s.misses,
                hit_rate: if lookups > 0 {
                    s.hits as f64 / lookups as f64
                } else {
                    0.0
                },
                hit_bytes: self.c.rc_hit_bytes,
                fills: s.fills,
                evictions: s.evictions,
                invalidations: s.invalidations,
                hmb_read_bytes: self.c.rc_hmb_read_bytes,
                hmb_write_bytes: self.c.rc_hmb_write_bytes,
                read_ahead: None,
            }
        });
        ReadCacheReport {
            enabled: on.is_some(),
            on,
        }
    }

    /// The write buffer's memory and its HMB traffic.
    pub fn write_buffer_stats(&self) -> WriteBufferStats {
        WriteBufferStats {
            tier: self.wb_tier,
            size_bytes: self.wb_bytes,
            hmb_read_bytes: self.c.wb_hmb_read_bytes,
            hmb_write_bytes: self.c.wb_hmb_write_bytes,
        }
    }

    /// HMB bytes moved for data (read cache and write buffer): (read, written).
    pub fn hmb_bytes(&self) -> (u64, u64) {
        (
            self.c.rc_hmb_read_bytes + self.c.wb_hmb_read_bytes,
            self.c.rc_hmb_write_bytes + self.c.wb_hmb_write_bytes,
        )
    }
}

impl Ssd {
    /// When `bytes` read from `tier` at `now` are in the controller.
    fn tier_read(&mut self, tier: DataTier, now: Ns, bytes: u64) -> Ns {
        let t = &self.tiers;
        match tier {
            DataTier::Sram => now + t.sram_ns,
            DataTier::Dram => now + t.dram_ns + xfer_ns(bytes, t.dram_fs_per_byte),
            DataTier::Hmb => {
                let host_ns = t.host_dram_ns;
                self.pcie.read_host(now, host_ns, bytes)
            }
            // SLC copies are read by flash transactions (`TxnKind::CacheRead`).
            DataTier::Slc => now,
        }
    }

    /// When `bytes` written to `tier` at `now` are stored there; for the HMB, when
    /// the posted write has left the device (PCIe ordering lands it before anything
    /// the device sends later, such as the command's completion entry).
    fn tier_write(&mut self, tier: DataTier, now: Ns, bytes: u64) -> Ns {
        let t = &self.tiers;
        match tier {
            DataTier::Sram => now + t.sram_ns,
            DataTier::Dram => now + t.dram_ns + xfer_ns(bytes, t.dram_fs_per_byte),
            DataTier::Hmb => self.pcie.send_up(now, bytes) - self.pcie.latency,
            // Not a write buffer tier (validation refuses it); fills are untimed.
            DataTier::Slc => now,
        }
    }

    /// Host write data has arrived: store it in the write buffer's tier; returns
    /// when it is there (the write may then complete).
    pub(super) fn write_buffer_store(&mut self, bytes: u64) -> Ns {
        let now = self.now();
        let tier = self.tiers.wb_tier;
        if tier == DataTier::Hmb {
            self.tiers.c.wb_hmb_write_bytes += bytes;
        }
        self.tier_write(tier, now, bytes)
    }

    /// A host program is about to start: when its data is in the controller
    /// (fetched from the HMB when the write buffer is there).
    pub(super) fn write_buffer_fetch(&mut self, now: Ns, bytes: u64) -> Ns {
        if self.tiers.wb_tier != DataTier::Hmb {
            return now;
        }
        self.tiers.c.wb_hmb_read_bytes += bytes;
        self.tier_read(DataTier::Hmb, now, bytes)
    }

    /// A read of data still in the write buffer: when it is in the controller.
    pub(super) fn write_buffer_read(&mut self, now: Ns, bytes: u64) -> Ns {
        if self.tiers.wb_tier != DataTier::Hmb {
            return now + self.buffer_read_ns;
        }
        self.tiers.c.wb_hmb_read_bytes += bytes;
        self.tier_read(DataTier::Hmb, now + self.buffer_read_ns, bytes)
    }

    /// Is logical unit `lpn` in the read cache (a hit refreshes it)?
    #[inline]
    pub(super) fn read_cache_lookup(&mut self, lpn: u32) -> bool {
        let hit = match &mut self.tiers.read_cache {
            Some(rc) => rc.lookup(lpn),
            None => return false,
        };
        match hit {
            Some(version) => {
                self.ftl.verify_cached(lpn, version);
                true
            }
            None => false,
        }
    }

    /// Would every unit of `first..first+n` hit in the read cache (no side effects)?
    pub(super) fn read_cache_covers(&self, first: u32, n: u32) -> bool {
        match &self.tiers.read_cache {
            Some(rc) => (first..first + n).all(|l| rc.contains(l)),
            None => false,
        }
    }

    /// Bytes of an SLC read-cache hit (served by a flash read).
    pub(super) fn read_cache_count_hit(&mut self, bytes: u64) {
        self.tiers.c.rc_hit_bytes += bytes;
    }

    /// Bytes found in the read cache: when they are in the controller.
    pub(super) fn read_cache_serve(&mut self, now: Ns, bytes: u64) -> Ns {
        let tier = self.tiers.rc_tier;
        self.tiers.c.rc_hit_bytes += bytes;
        if tier == DataTier::Hmb {
            self.tiers.c.rc_hmb_read_bytes += bytes;
        }
        self.tier_read(tier, now, bytes)
    }

    /// Is unit `lpn` in the read cache (no effect on recency or statistics)?
    #[inline]
    pub(super) fn read_cache_holds(&self, lpn: u32) -> bool {
        self.tiers
            .read_cache
            .as_ref()
            .is_some_and(|rc| rc.contains(lpn))
    }

    /// Data of `n` units from `lpn` (at physical `pun`) came from NAND: keep it,
    /// unless the unit was rewritten or moved while the read was in flight; returns
    /// how many units were kept. `once`: read ahead (kept for one use).
    pub(super) fn read_cache_fill(&mut self, lpn: u32, pun: u32, n: u32, once: bool) -> u32 {
        if self.tiers.read_cache.is_none() {
            return 0;
        }
        let mut filled = 0u64;
        let pending = !self.alloc_waiters.is_empty();
        for i in 0..n {
            if self.ftl.translate(lpn + i) != pun + i
                || (pending && self.pending_write_covers(lpn + i))
            {
                continue;
            }
            let version = self.ftl.verify_version(pun + i);
            if let Some(rc) = &mut self.tiers.read_cache {
                rc.insert(lpn + i, version, once);
            }
            filled += 1;
        }
        if filled > 0 && self.tiers.rc_tier == DataTier::Hmb {
            let bytes = filled * self.unit_bytes;
            self.tiers.c.rc_hmb_write_bytes += bytes;
            let now = self.now();
            self.pcie.send_up(now, bytes);
        }
        filled as u32
    }

    /// Units `first..first+n` were overwritten or trimmed.
    #[inline]
    pub(super) fn read_cache_invalidate(&mut self, first: u32, n: u32) {
        if let Some(rc) = &mut self.tiers.read_cache {
            for l in first..first + n {
                rc.invalidate(l);
            }
        }
    }
}
