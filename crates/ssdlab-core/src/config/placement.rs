//! Where the device's memory-resident structures end up: the map (cache), the
//! data read cache and the write buffer, across controller SRAM, DRAM and the HMB
//! the host granted. The HMB grant is shared in a fixed order (write buffer, read
//! cache, then the map cache takes the rest); a structure that does not fit in
//! what is left falls back: the write buffer to one program unit of SRAM (a
//! staging buffer), the read cache to none, the map cache to its SRAM level.
//! Controller SRAM is a budget: the write buffer (or the staging buffer it falls
//! back to), an SRAM read cache, the map cache or its SRAM level, the map update
//! journal and the map-of-map share `sram.size`, and a device whose parts do not
//! fit is an error that lists them (`sram_parts`).
//! Simplifies: DRAM sizes are checked per structure, not summed; firmware code,
//! stacks and per-block tables are not counted against the SRAM (no public figure
//! for any controller; they are taken to live outside the modelled `sram.size`).

use super::device::DeviceConfig;
use super::memory::{
    CacheSize, DataTier, HmbLayout, JournalTier, MapPlacement, MapTier, JOURNAL_ENTRY_BYTES,
    MAP_ENTRY_BYTES,
};
use super::units::Size;

impl DeviceConfig {
    /// Bytes of one multi-plane program (the smallest useful write staging buffer).
    pub fn program_unit_bytes(&self) -> u64 {
        self.nand.planes_per_die as u64
            * self.nand.pages_per_program.max(1) as u64
            * self.nand.page_size.bytes()
    }

    /// Logical units of the map-update log's ring in NAND (write-back map cache on a
    /// demand-paged map only; 0 otherwise). They follow the map's own units.
    pub fn map_log_units(&self) -> u64 {
        let place = self.map_placement();
        if place.whole || self.map.update != super::memory::MapUpdate::WriteBack {
            return 0;
        }
        let unit = self.ftl.mapping_unit.bytes().max(1);
        (self.map.log_entries as u64 * JOURNAL_ENTRY_BYTES).div_ceil(unit)
    }

    /// How the negotiated HMB is shared between its uses.
    pub fn hmb_layout(&self) -> HmbLayout {
        let granted = self.hmb.negotiate().granted_bytes;
        let mut left = granted;
        let mut take = |tier: DataTier, bytes: u64| {
            if tier == DataTier::Hmb && bytes > 0 && bytes <= left {
                left -= bytes;
                bytes
            } else {
                0
            }
        };
        let write_buffer_bytes = take(
            self.controller.write_buffer_tier,
            self.controller.write_buffer.bytes(),
        );
        let read_cache_bytes = take(self.read_cache.tier, self.read_cache.size.bytes());
        let journal_bytes = if self.map.journal_tier == JournalTier::Hmb {
            take(
                DataTier::Hmb,
                self.map.journal_entries as u64 * JOURNAL_ENTRY_BYTES,
            )
        } else {
            0
        };
        HmbLayout {
            granted_bytes: granted,
            write_buffer_bytes,
            read_cache_bytes,
            journal_bytes,
            map_bytes: left,
        }
    }

    /// Where the map update journal ends up and how many entries it holds.
    pub fn journal_placement(&self) -> (JournalTier, u64) {
        let want = self.map.journal_entries as u64;
        match self.map.journal_tier {
            JournalTier::Hmb if self.hmb_layout().journal_bytes > 0 => (JournalTier::Hmb, want),
            JournalTier::Hmb => (
                JournalTier::Sram,
                want.min(super::memory::DEFAULT_JOURNAL_ENTRIES as u64),
            ),
            JournalTier::Sram => (JournalTier::Sram, want),
        }
    }

    /// The write buffer's tier and size once the HMB is negotiated.
    pub fn write_buffer_placement(&self) -> (DataTier, u64) {
        let c = &self.controller;
        match c.write_buffer_tier {
            DataTier::Hmb => match self.hmb_layout().write_buffer_bytes {
                0 => (DataTier::Sram, self.program_unit_bytes()),
                b => (DataTier::Hmb, b),
            },
            t => (t, c.write_buffer.bytes()),
        }
    }

    /// The read cache's tier and size (None: no read cache).
    pub fn read_cache_placement(&self) -> Option<(DataTier, u64)> {
        let rc = &self.read_cache;
        match (rc.size.bytes(), rc.tier) {
            (0, _) => None,
            (_, DataTier::Hmb) => match self.hmb_layout().read_cache_bytes {
                0 => None,
                b => Some((DataTier::Hmb, b)),
            },
            (b, t) => Some((t, b)),
        }
    }

    /// Where the map (cache) lives once the HMB is negotiated.
    pub fn map_placement(&self) -> MapPlacement {
        let mu = self.ftl.mapping_unit.bytes().max(1);
        // A zoned drive maps zones, not pages: its map is the per-zone map (8 bytes a
        // zone, `zns::Layout::map_bytes`), whatever tier holds it.
        let map_bytes = match crate::zns::layout_of(self) {
            Some(Ok(l)) => l.map_bytes(),
            _ => self.capacity_bytes() / mu * MAP_ENTRY_BYTES,
        };
        let seg = self.map.segment.bytes().max(1);
        let segments = map_bytes.div_ceil(seg);
        let granted = self.hmb_layout().map_bytes;
        let want = |limit: u64| match self.map.cache {
            CacheSize::All => limit,
            CacheSize::Bytes(b) => b.bytes().min(limit),
        };
        let (tier, cache, l1) = match self.map.tier {
            MapTier::Dram => (MapTier::Dram, want(map_bytes), 0),
            MapTier::Sram => (MapTier::Sram, want(map_bytes), 0),
            MapTier::Hmb if granted >= seg => (
                MapTier::Hmb,
                want(granted).min(map_bytes),
                self.map.sram_cache.bytes(),
            ),
            MapTier::Hmb => (MapTier::Sram, self.map.sram_cache.bytes(), 0),
        };
        let whole = cache >= map_bytes;
        let round = |b: u64| (b / seg).max(1) * seg;
        MapPlacement {
            tier,
            whole,
            cache_bytes: if whole { map_bytes } else { round(cache) },
            l1_bytes: if l1 > 0 && !whole { round(l1) } else { 0 },
            segment_bytes: seg,
            map_bytes,
            segments,
            map_of_map_bytes: segments * MAP_ENTRY_BYTES,
        }
    }

    /// What lives in controller SRAM once the HMB is negotiated, in bytes, by name:
    /// the parts that share `sram.size`.
    pub fn sram_parts(&self) -> Vec<(&'static str, u64)> {
        let mut parts = Vec::new();
        let (wb_tier, wb_bytes) = self.write_buffer_placement();
        if wb_tier == DataTier::Sram {
            parts.push(("write buffer (controller.write_buffer)", wb_bytes));
        }
        if let Some((DataTier::Sram, b)) = self.read_cache_placement() {
            parts.push(("read cache (read_cache.size)", b));
        }
        let place = self.map_placement();
        match place.tier {
            MapTier::Sram => parts.push(("map cache (map.cache)", place.cache_bytes)),
            MapTier::Hmb if place.l1_bytes > 0 => {
                parts.push(("SRAM map level (map.sram_cache)", place.l1_bytes))
            }
            _ => {}
        }
        if !place.whole {
            let (jt, entries) = self.journal_placement();
            if jt == JournalTier::Sram {
                parts.push((
                    "map update journal (map.journal_entries x 8 B)",
                    entries * JOURNAL_ENTRY_BYTES,
                ));
            }
            parts.push(("map-of-map (4 B per map segment)", place.map_of_map_bytes));
        }
        parts
    }

    pub(super) fn validate_sram_budget(&self, errs: &mut Vec<String>) {
        let parts = self.sram_parts();
        let total: u64 = parts.iter().map(|p| p.1).sum();
        let size = self.sram.size.bytes();
        if total > size {
            let list = parts
                .iter()
                .map(|(name, b)| format!("{name} {}", Size(*b)))
                .collect::<Vec<_>>()
                .join(", ");
            errs.push(format!(
                "sram.size: {} does not hold what the controller keeps in SRAM ({} in all: {list}); give sram.size at least {} or shrink a part",
                self.sram.size,
                Size(total),
                Size(total)
            ));
        }
    }

    pub(super) fn validate_map(&self, errs: &mut Vec<String>) {
        let m = &self.map;
        let seg = m.segment.bytes();
        if !(512..=65536).contains(&seg) || !seg.is_power_of_two() {
            errs.push(format!(
                "map.segment: {} is not allowed (a power of two from 512B to 64KiB)",
                m.segment
            ));
            return;
        }
        self.hmb.validate(errs);
        let mu = self.ftl.mapping_unit.bytes().max(1);
        // A zoned drive maps zones, not pages: its map is the per-zone map (8 bytes a
        // zone, `zns::Layout::map_bytes`), whatever tier holds it.
        let map_bytes = match crate::zns::layout_of(self) {
            Some(Ok(l)) => l.map_bytes(),
            _ => self.capacity_bytes() / mu * MAP_ENTRY_BYTES,
        };
        if let CacheSize::Bytes(b) = m.cache {
            let b = b.bytes();
            if b < seg {
                errs.push(format!(
                    "map.cache: {} is smaller than one map segment ({}); the cache must hold at least one segment",
                    m.cache_text(),
                    m.segment
                ));
            }
            let (tier_name, tier_bytes) = match m.tier {
                MapTier::Dram => ("dram.size", self.dram.size),
                MapTier::Sram => ("sram.size", self.sram.size),
                MapTier::Hmb => ("hmb.hmpre", self.hmb.hmpre),
            };
            if b > tier_bytes.bytes() {
                errs.push(format!(
                    "map.cache: {} is larger than its tier ({tier_name} = {tier_bytes})",
                    m.cache_text()
                ));
            }
        } else {
            match m.tier {
                MapTier::Dram if map_bytes > self.dram.size.bytes() => errs.push(format!(
                    "map.cache: \"all\" needs the whole map ({}) in DRAM but dram.size is {}; give map.cache a size or more DRAM",
                    Size(map_bytes),
                    self.dram.size
                )),
                MapTier::Sram if map_bytes > self.sram.size.bytes() => errs.push(format!(
                    "map.cache: \"all\" needs the whole map ({}) in SRAM but sram.size is {}; give map.cache a size",
                    Size(map_bytes),
                    self.sram.size
                )),
                _ => {}
            }
        }
        if m.journal_tier == JournalTier::Hmb && self.hmb.hmpre.bytes() == 0 {
            errs.push(
                "map.journal_tier: \"hmb\" needs a device that asks for an HMB (hmb.hmpre > 0)"
                    .into(),
            );
        }
        if !(1..=1 << 24).contains(&m.journal_entries) {
            errs.push(format!(
                "map.journal_entries: {} is not allowed (1 to 16777216 entries of 8 bytes)",
                m.journal_entries
            ));
        }
        if !(1024..=1 << 26).contains(&m.log_entries) {
            errs.push(format!(
                "map.log_entries: {} is not allowed (1024 to 67108864 entries of 8 bytes)",
                m.log_entries
            ));
        }
        if m.update == super::memory::MapUpdate::WriteBack
            && m.fill != super::memory::MapFill::Segment
        {
            errs.push(
                "map.update: \"write-back\" caches the segments writes change, which map.fill = \"waiters\" (nothing cached) does not allow".into(),
            );
        }
        if !(0.0..=16.0).contains(&m.translation_spare) {
            errs.push(format!(
                "map.translation_spare: {} is not allowed (0 to 16: spare of the translation pool as a share of the map)",
                m.translation_spare
            ));
        }
        let sc = m.sram_cache.bytes();
        if sc > self.sram.size.bytes() {
            errs.push(format!(
                "map.sram_cache: {} is larger than sram.size {}",
                m.sram_cache, self.sram.size
            ));
        }
        if m.tier == MapTier::Hmb {
            if self.hmb.hmpre.bytes() == 0 {
                errs.push(
                    "map.tier: \"hmb\" needs a device that asks for an HMB (hmb.hmpre > 0)".into(),
                );
            }
            if sc < seg {
                errs.push(format!(
                    "map.sram_cache: {} is smaller than one segment ({}); an HMB drive needs an SRAM map cache for when no HMB is granted",
                    m.sram_cache, m.segment
                ));
            }
        }
    }

    pub(super) fn validate_data_tiers(&self, errs: &mut Vec<String>) {
        let tier_size = |t: DataTier| match t {
            DataTier::Sram => ("sram.size", self.sram.size),
            DataTier::Dram => ("dram.size", self.dram.size),
            DataTier::Hmb => ("hmb.hmpre", self.hmb.hmpre),
            DataTier::Slc => ("the drive's raw flash", Size(self.raw_bytes())),
        };
        let c = &self.controller;
        if c.write_buffer_tier == DataTier::Slc {
            errs.push(
                "controller.write_buffer_tier: slc is not allowed for the write buffer (sram, \
                 dram or hmb); an SLC write cache is the [slc] section"
                    .into(),
            );
        }
        let (name, size) = tier_size(c.write_buffer_tier);
        if c.write_buffer_tier != DataTier::Sram && c.write_buffer.bytes() > size.bytes() {
            errs.push(format!(
                "controller.write_buffer: {} is larger than its tier ({name} = {size})",
                c.write_buffer
            ));
        }
        let rc = &self.read_cache;
        if !(1..=64).contains(&rc.ways) {
            errs.push(format!(
                "read_cache.ways: {} is not allowed (1 to 64 mapping units per set)",
                rc.ways
            ));
        }
        let unit = self.ftl.mapping_unit.bytes();
        let ra = rc.read_ahead.bytes();
        if ra > 0 {
            if rc.size.bytes() == 0 {
                errs.push(format!(
                    "read_cache.read_ahead: {} needs a read cache to read ahead into (read_cache.size is 0; allowed: a read_cache.size of at least the window)",
                    rc.read_ahead
                ));
            } else if ra > rc.size.bytes() / 2 {
                errs.push(format!(
                    "read_cache.read_ahead: {} is more than half the read cache it fills (read_cache.size = {}; the window is topped up in whole pages ahead of what the host has read, so the cache must hold more than one window)",
                    rc.read_ahead, rc.size
                ));
            }
            if !ra.is_multiple_of(unit.max(1)) {
                errs.push(format!(
                    "read_cache.read_ahead: {} is not a multiple of the mapping unit ({})",
                    rc.read_ahead, self.ftl.mapping_unit
                ));
            }
            if rc.tier == DataTier::Slc {
                errs.push("read_cache.read_ahead: a read cache in SLC cannot be read ahead into (its fills are programs; allowed tiers: sram, dram, hmb)".into());
            }
            if !(1..=64).contains(&rc.read_ahead_streams) {
                errs.push(format!(
                    "read_cache.read_ahead_streams: {} is not allowed (1 to 64)",
                    rc.read_ahead_streams
                ));
            }
            if !(1..=1024).contains(&rc.read_ahead_trigger) {
                errs.push(format!(
                    "read_cache.read_ahead_trigger: {} is not allowed (1 to 1024 commands)",
                    rc.read_ahead_trigger
                ));
            }
        }
        if rc.size.bytes() == 0 {
            return;
        }
        if rc.size.bytes() < unit || !rc.size.bytes().is_multiple_of(unit) {
            errs.push(format!(
                "read_cache.size: {} is not a positive multiple of the mapping unit ({})",
                rc.size, self.ftl.mapping_unit
            ));
        }
        let units = rc.size.bytes() / unit.max(1);
        let ways = rc.ways.max(1) as u64;
        if units > ways && !units.is_multiple_of(ways) {
            // The cache holds whole sets of `ways` units: anything beyond would be lost.
            let set = Size(ways * unit);
            errs.push(format!(
                "read_cache.size: {} is not a whole number of sets (read_cache.ways x ftl.mapping_unit = {set}); it would hold only {} (allowed: a multiple of {set}, or at most one set)",
                rc.size,
                Size(units / ways * ways * unit)
            ));
        }
        let (name, size) = tier_size(rc.tier);
        if rc.tier == DataTier::Slc && self.nand.cell == super::device::CellType::Slc {
            errs.push("read_cache.tier: slc needs a drive whose native cells are not SLC".into());
        }
        if rc.size.bytes() > size.bytes() {
            errs.push(format!(
                "read_cache.size: {} is larger than its tier ({name} = {size})",
                rc.size
            ));
        }
    }
}
