//! Where the FTL's mapping table lives: controller SRAM, controller DRAM or the
//! NVMe Host Memory Buffer (HMB), and how much of it is cached.
//!
//! `[map]` chooses the tier and the demand-paged cache (segment size, capacity,
//! replacement policy); `[sram]`, `[dram]` describe the controller memories;
//! `[hmb]` holds what the device advertises (HMPRE, HMMIN, descriptor limits) and
//! what the host grants (Linux-style policy and cap); `[read_cache]` is an optional
//! data read cache in SRAM, DRAM or the HMB. All sections are optional: the default
//! is a DRAM drive with the whole map in DRAM and no read cache.

use super::units::{Bandwidth, Duration, Size};
use serde::{Deserialize, Serialize};

/// Bytes per logical-to-physical entry (a 32-bit physical unit number).
pub const MAP_ENTRY_BYTES: u64 = 4;

/// Bytes of the aligned `granularity`-byte lines that hold map entries `lo..=hi`
/// (what a read of them from the HMB moves).
pub fn entry_line_bytes(lo: u64, hi: u64, granularity: u64) -> u64 {
    let first_line = lo * MAP_ENTRY_BYTES / granularity;
    let last_line = (hi * MAP_ENTRY_BYTES + MAP_ENTRY_BYTES - 1) / granularity;
    (last_line - first_line + 1) * granularity
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum MapTier {
    Sram,
    Dram,
    Hmb,
}

/// Where a data structure (read cache, write buffer) lives.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum DataTier {
    /// Controller SRAM.
    Sram,
    /// Controller DRAM.
    Dram,
    /// Host Memory Buffer, across the PCIe link.
    Hmb,
    /// SLC-mode flash (read cache only): a hit is an SLC page read on the die.
    Slc,
}

/// A data read cache: units read from NAND are kept, later reads of them skip NAND.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReadCacheConfig {
    /// Capacity (0 = no read cache, the default).
    #[serde(default)]
    pub size: Size,
    /// Memory holding it: sram, dram or hmb.
    #[serde(default = "default_read_cache_tier")]
    pub tier: DataTier,
    /// Associativity: mapping units per set (LRU inside a set).
    #[serde(default = "default_read_cache_ways")]
    pub ways: u32,
    /// Read-ahead window per sequential stream (0 = no read-ahead, the default): units
    /// ahead of a detected sequential read stream are read from NAND into this cache.
    #[serde(default)]
    pub read_ahead: Size,
    /// Sequential read streams the read-ahead follows at once (least recently used
    /// replaced).
    #[serde(default = "default_read_ahead_streams")]
    pub read_ahead_streams: u32,
    /// Host reads in a row, each starting where the last ended, that make a stream
    /// sequential and start its read-ahead.
    #[serde(default = "default_read_ahead_trigger")]
    pub read_ahead_trigger: u32,
}

impl Default for ReadCacheConfig {
    fn default() -> Self {
        ReadCacheConfig {
            size: Size(0),
            tier: default_read_cache_tier(),
            ways: default_read_cache_ways(),
            read_ahead: Size(0),
            read_ahead_streams: default_read_ahead_streams(),
            read_ahead_trigger: default_read_ahead_trigger(),
        }
    }
}

fn default_read_ahead_streams() -> u32 {
    4
}
fn default_read_ahead_trigger() -> u32 {
    2
}

fn default_read_cache_tier() -> DataTier {
    DataTier::Dram
}
fn default_read_cache_ways() -> u32 {
    16
}

/// How the HMB grant is shared: the write buffer first, then the read cache, then
/// the map cache takes what is left. A data structure that does not fit falls back
/// (the write buffer to one program unit of SRAM, the read cache to none).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct HmbLayout {
    pub granted_bytes: u64,
    pub write_buffer_bytes: u64,
    pub read_cache_bytes: u64,
    /// The map update journal, when `map.journal_tier` is hmb and it fits.
    pub journal_bytes: u64,
    /// What is left for the map cache.
    pub map_bytes: u64,
}

/// What a map-segment load caches when it was started by a read.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum MapFill {
    /// The whole segment read from NAND is cached (what a real FTL does with a
    /// translation page it has read).
    #[default]
    Segment,
    /// MQSim's cached mapping table: a load serves only the lookups waiting on it and
    /// caches nothing else, so the next read of that segment misses again (MQSim
    /// inserts only the requested LPAs' entries into its CMT). For validation.
    Waiters,
}

impl MapFill {
    /// The default (left out of the resolved config, which reports embed).
    pub fn is_segment(&self) -> bool {
        *self == MapFill::Segment
    }
}

/// How changed map entries of segments that are not cached reach flash.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum MapUpdate {
    /// The SRAM journal applies a segment's logged entries by loading it, applying
    /// them and writing it straight back to its translation page (the map cache
    /// holds only what reads loaded).
    #[default]
    Journal,
    /// The map cache is a write-back cache (write-allocate): a segment whose entries
    /// changed is loaded into the cache and stays there dirty, so that several
    /// updates of it cost one write-back, on eviction or when the map-update log
    /// is about to wrap past its first change. Every changed entry is also
    /// appended to the map-update log, persisted to NAND in log pages, so that
    /// dirty segments held only in host memory can be rebuilt.
    WriteBack,
}

impl MapUpdate {
    /// The default (left out of the resolved config, which reports embed).
    pub fn is_journal(&self) -> bool {
        *self == MapUpdate::Journal
    }
}

/// Where the map update journal lives.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum JournalTier {
    /// Controller SRAM (free to append to and read).
    #[default]
    Sram,
    /// The Host Memory Buffer: each logged entry is a posted write up the link, a
    /// flush reads its segment's entries back; room comes out of the grant.
    Hmb,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ReplacementPolicy {
    /// Least recently used segment is evicted.
    Lru,
    /// Second-chance CLOCK: a reference bit per segment, a sweeping hand.
    Clock,
}

/// Map cache size: a byte count, or "all" for the whole map.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CacheSize {
    All,
    Bytes(Size),
}

impl Serialize for CacheSize {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            CacheSize::All => s.serialize_str("all"),
            CacheSize::Bytes(b) => b.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for CacheSize {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let v = toml::Value::deserialize(d)?;
        match &v {
            toml::Value::String(s) if s == "all" => Ok(CacheSize::All),
            _ => Size::deserialize(v)
                .map(CacheSize::Bytes)
                .map_err(|e| serde::de::Error::custom(format!("{e} (or \"all\")"))),
        }
    }
}

/// The mapping table: tier, caching and segment size.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MapConfig {
    /// Memory holding the map (or its cache): sram, dram or hmb.
    #[serde(default = "default_tier")]
    pub tier: MapTier,
    /// Map cache capacity in the tier; "all" is all the tier holds: the whole map in DRAM
    /// or SRAM (a DRAM drive), as much of it as the HMB grant holds in an HMB.
    #[serde(default = "default_cache")]
    pub cache: CacheSize,
    /// Map segment: the unit loaded from NAND, cached and written back (512B..64KiB).
    #[serde(default = "default_segment")]
    pub segment: Size,
    /// Replacement policy of the map cache.
    #[serde(default = "default_policy")]
    pub policy: ReplacementPolicy,
    /// SRAM map cache used in front of an HMB tier, and alone when no HMB is granted.
    #[serde(default)]
    pub sram_cache: Size,
    /// Map update journal in controller SRAM, in entries (8 bytes each: logical and
    /// new physical unit). Updates of segments that are not cached are logged here
    /// and applied segment by segment (load, apply every logged entry of that
    /// segment, write back to a translation block), oldest segment first, once the
    /// journal is three quarters full; host writes wait while it is full.
    #[serde(default = "default_journal_entries")]
    pub journal_entries: u32,
    /// Journal flushes (segment load, apply, write back) in flight at once; 0 (default) = one per die. Each holds a segment in SRAM: an assumption no controller publishes.
    #[serde(default, skip_serializing_if = "is_zero_u32")]
    pub flush_slots: u32,
    /// Where the journal lives: sram (default) or hmb (taken from the HMB grant before
    /// the map cache; without a grant large enough it falls back to SRAM with at most
    /// the default 32 Ki entries).
    #[serde(default)]
    pub journal_tier: JournalTier,
    /// Spare of the translation-block pool, as a share of the map's size: each die
    /// keeps up to (1 + spare) x its share of the map in translation blocks before
    /// GC collects from that pool. Default 1.0 (the pool may hold twice the map):
    /// an assumption, costing about 1 % of a 7 % over-provisioning.
    #[serde(default = "default_translation_spare")]
    pub translation_spare: f64,
    /// What a read's segment load caches: segment (default: the whole segment) or
    /// waiters (MQSim's cached mapping table: only the reads waiting on it are served,
    /// nothing stays cached; see docs/validation.md).
    #[serde(default, skip_serializing_if = "MapFill::is_segment")]
    pub fill: MapFill,
    /// How updates of segments that are not cached reach flash: journal (default)
    /// or write-back (the map cache as a write-allocate write-back cache, with the
    /// map-update log persisted in NAND log pages).
    #[serde(default, skip_serializing_if = "MapUpdate::is_journal")]
    pub update: MapUpdate,
    /// Write-back only: the map-update log's ring in NAND, in entries (8 bytes each,
    /// persisted one mapping unit at a time). A dirty segment is written back
    /// before the log wraps past its first change, which bounds what a rebuild
    /// after a power loss replays. Default 512 Ki entries (4 MiB): an assumption.
    #[serde(default = "default_log", skip_serializing_if = "is_default_log")]
    pub log_entries: u32,
}

fn default_log() -> u32 {
    DEFAULT_LOG_ENTRIES
}
fn is_zero_u32(v: &u32) -> bool {
    *v == 0
}

fn is_default_log(n: &u32) -> bool {
    *n == DEFAULT_LOG_ENTRIES
}
/// The map-update log ring's default size in entries (4 MiB of 8-byte entries).
pub const DEFAULT_LOG_ENTRIES: u32 = 512 * 1024;

impl MapConfig {
    pub fn cache_text(&self) -> String {
        match self.cache {
            CacheSize::All => "all".into(),
            CacheSize::Bytes(b) => b.to_string(),
        }
    }
}

impl Default for MapConfig {
    fn default() -> Self {
        MapConfig {
            tier: default_tier(),
            cache: default_cache(),
            segment: default_segment(),
            policy: default_policy(),
            sram_cache: Size(0),
            journal_entries: default_journal_entries(),
            flush_slots: 0,
            journal_tier: JournalTier::Sram,
            translation_spare: default_translation_spare(),
            fill: MapFill::Segment,
            update: MapUpdate::Journal,
            log_entries: DEFAULT_LOG_ENTRIES,
        }
    }
}

/// Controller SRAM.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SramConfig {
    /// Controller SRAM: the write buffer (in SRAM), an SRAM read cache, the map cache
    /// or its SRAM level, the map journal and the map-of-map share it; a device whose
    /// parts do not fit is an error listing them (`ssdlab validate` shows the budget).
    #[serde(default = "default_sram_size")]
    pub size: Size,
    /// Access latency.
    #[serde(default = "default_sram_latency")]
    pub latency: Duration,
}

impl Default for SramConfig {
    fn default() -> Self {
        SramConfig {
            size: default_sram_size(),
            latency: default_sram_latency(),
        }
    }
}

/// Controller DRAM.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DramConfig {
    /// DRAM size (0 = a DRAM-less controller).
    #[serde(default = "default_dram_size")]
    pub size: Size,
    /// Access latency (row miss, as a random map lookup sees it).
    #[serde(default = "default_dram_latency")]
    pub latency: Duration,
    /// Bandwidth for segment copies.
    #[serde(default = "default_dram_bw")]
    pub bandwidth: Bandwidth,
}

impl Default for DramConfig {
    fn default() -> Self {
        DramConfig {
            size: default_dram_size(),
            latency: default_dram_latency(),
            bandwidth: default_dram_bw(),
        }
    }
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum HmbPolicy {
    /// HMPRE, capped by the host limit (Linux's behaviour).
    Max,
    /// Half of HMPRE (not below HMMIN), capped by the host limit.
    Half,
    /// HMMIN.
    Min,
    /// No HMB.
    Off,
}

/// NVMe Host Memory Buffer: what the device asks for and what the host grants.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HmbConfig {
    /// Host Memory Buffer Preferred Size advertised by the device (0 = no HMB support).
    #[serde(default)]
    pub hmpre: Size,
    /// Host Memory Buffer Minimum Size: below this the device cannot use an HMB.
    #[serde(default)]
    pub hmmin: Size,
    /// Minimum descriptor entry (chunk) size the device accepts (HMMINDS).
    #[serde(default = "default_hmb_chunk")]
    pub min_chunk: Size,
    /// Maximum descriptor entries the device accepts (HMMAXD).
    #[serde(default = "default_hmb_descriptors")]
    pub max_descriptors: u32,
    /// Host policy: max, half, min or off.
    #[serde(default = "default_hmb_policy")]
    pub host_policy: HmbPolicy,
    /// Host cap on the grant (Linux nvme `max_host_mem_size_mb`, default 128 MiB).
    #[serde(default = "default_hmb_limit")]
    pub host_limit: Size,
    /// Chunk size the host allocates (Linux tries large chunks first, e.g. 4 MiB).
    #[serde(default = "default_hmb_host_chunk")]
    pub host_chunk: Size,
    /// Host memory the host's allocator can give the HMB in all (none: as much as
    /// asked). Below HMMIN the allocation fails and the drive runs without an HMB.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_available: Option<Size>,
    /// Largest physically contiguous chunk the host can allocate (none: any size);
    /// Linux halves its chunk size until chunks can be had (fragmented memory).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_max_alloc: Option<Size>,
    /// Host DRAM access latency behind the PCIe round trip.
    #[serde(default = "default_host_dram_latency")]
    pub host_dram_latency: Duration,
    /// Smallest read the controller makes from the HMB: a map lookup that hits the
    /// HMB reads the aligned lines holding its entries, not the whole segment.
    /// Default 64 B: the PCIe Read Completion Boundary (64 B on root complexes,
    /// PCIe Base Specification 4.0, section 2.3.1.1) and the host's cache line.
    #[serde(default = "default_hmb_read_granularity")]
    pub read_granularity: Size,
}

impl Default for HmbConfig {
    fn default() -> Self {
        HmbConfig {
            hmpre: Size(0),
            hmmin: Size(0),
            min_chunk: default_hmb_chunk(),
            max_descriptors: default_hmb_descriptors(),
            host_policy: default_hmb_policy(),
            host_limit: default_hmb_limit(),
            host_chunk: default_hmb_host_chunk(),
            host_available: None,
            host_max_alloc: None,
            host_dram_latency: default_host_dram_latency(),
            read_granularity: default_hmb_read_granularity(),
        }
    }
}

pub use super::hmb_grant::{HmbGrant, HmbStatus};

impl HmbConfig {
    pub fn validate(&self, errs: &mut Vec<String>) {
        let (pre, min) = (self.hmpre.bytes(), self.hmmin.bytes());
        if min > pre {
            errs.push(format!(
                "hmb.hmmin: {} is larger than hmb.hmpre {} (HMMIN must not exceed HMPRE)",
                self.hmmin, self.hmpre
            ));
        }
        if self.max_descriptors == 0 {
            errs.push("hmb.max_descriptors: must be > 0".into());
        }
        let g = self.read_granularity.bytes();
        if !(4..=4096).contains(&g) || !g.is_power_of_two() {
            errs.push(format!(
                "hmb.read_granularity: {} is not allowed (a power of two from 4B to 4KiB)",
                self.read_granularity
            ));
        }
        let c = self.min_chunk.bytes();
        if c < 4096 || !c.is_power_of_two() {
            errs.push(format!(
                "hmb.min_chunk: {} is not allowed (a power of two, at least 4KiB: the memory page size)",
                self.min_chunk
            ));
        }
    }
}

/// Map cache placement resolved against the memories and the HMB grant.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct MapPlacement {
    /// Tier of the main map cache level ("dram", "sram" or "hmb").
    pub tier: MapTier,
    /// Whole map resident: no demand paging.
    pub whole: bool,
    /// Capacity of the main level, bytes (whole map size when `whole`).
    pub cache_bytes: u64,
    /// SRAM level in front of an HMB level, bytes (0 = none).
    pub l1_bytes: u64,
    pub segment_bytes: u64,
    pub map_bytes: u64,
    pub segments: u64,
    /// Map-of-map (global translation directory) in SRAM: 4 bytes per segment.
    pub map_of_map_bytes: u64,
}

fn default_tier() -> MapTier {
    MapTier::Dram
}
fn default_cache() -> CacheSize {
    CacheSize::All
}
fn default_segment() -> Size {
    Size(4096)
}
fn default_policy() -> ReplacementPolicy {
    ReplacementPolicy::Lru
}
/// 32 Ki entries x 8 B = 256 KiB of SRAM: an assumption (an eighth of the 2 MiB SRAM
/// of the DRAM-less presets); controller vendors do not publish their journal sizes.
fn default_journal_entries() -> u32 {
    DEFAULT_JOURNAL_ENTRIES
}

/// The SRAM journal's default size (and its size when an HMB journal falls back).
pub const DEFAULT_JOURNAL_ENTRIES: u32 = 32 * 1024;
/// Bytes per journal entry (logical unit and new physical unit).
pub const JOURNAL_ENTRY_BYTES: u64 = 8;
fn default_translation_spare() -> f64 {
    1.0
}
fn default_sram_size() -> Size {
    Size(4 << 20)
}
fn default_sram_latency() -> Duration {
    Duration(20)
}
fn default_dram_size() -> Size {
    Size(1 << 30)
}
fn default_dram_latency() -> Duration {
    Duration(100)
}
fn default_dram_bw() -> Bandwidth {
    Bandwidth(12.8e9)
}
fn default_hmb_chunk() -> Size {
    Size(4096)
}
fn default_hmb_descriptors() -> u32 {
    256
}
fn default_hmb_policy() -> HmbPolicy {
    HmbPolicy::Max
}
fn default_hmb_limit() -> Size {
    Size(128 << 20)
}
fn default_hmb_host_chunk() -> Size {
    Size(4 << 20)
}
fn default_hmb_read_granularity() -> Size {
    Size(64)
}
fn default_host_dram_latency() -> Duration {
    Duration(100)
}

/// SLC cache ("turbo write"): blocks of the die operated in SLC mode that take
/// host writes first. Static size; folded to the native cell type when idle or
/// below a watermark.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SlcConfig {
    /// User data the SLC area holds, over all dies (0 = no SLC cache, the default).
    #[serde(default)]
    pub size: Size,
    /// Read time of an SLC-mode page.
    #[serde(default = "default_slc_t_read")]
    pub t_read: Duration,
    /// Program time of an SLC-mode page.
    #[serde(default = "default_slc_t_prog")]
    pub t_prog: Duration,
    /// Fold in the foreground when a die has this many free SLC blocks it may still open
    /// or fewer (dynamic SLC: within its allowance; 0 = fold only when the host is idle).
    #[serde(default)]
    pub fold_watermark_blocks: u32,
    /// Fold when the host has had nothing outstanding for `ftl.idle_time`.
    #[serde(default = "default_true")]
    pub fold_when_idle: bool,
    /// `static`: the whole `size` is always there. `dynamic`: the SLC area shrinks as
    /// the drive fills, from `size` on an empty drive to `min_size` on a full one (in
    /// proportion to the logical space not holding data); both keep the SLC-mode
    /// blocks apart from the native ones that hold the capacity. `free-space`: only
    /// `min_size` is kept apart (the static part); the rest, up to `size`, is carved
    /// from free native blocks: an SLC block beyond the static part is opened only
    /// while the die keeps enough free native blocks for GC and for folding every SLC
    /// block it holds, and its native block is free again once it is folded. So the
    /// cache is as large as `size` on an empty drive and shrinks with the free space,
    /// as real drives' dynamic caches do (docs/flash-management.md).
    #[serde(default)]
    pub mode: SlcMode,
    /// Dynamic mode: what is left of the SLC area on a full drive. Free-space mode:
    /// the static part, always there.
    #[serde(default)]
    pub min_size: Size,
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SlcMode {
    #[default]
    Static,
    Dynamic,
    FreeSpace,
}

impl Default for SlcConfig {
    fn default() -> Self {
        SlcConfig {
            size: Size(0),
            t_read: default_slc_t_read(),
            t_prog: default_slc_t_prog(),
            fold_watermark_blocks: 0,
            fold_when_idle: true,
            mode: SlcMode::Static,
            min_size: Size(0),
        }
    }
}

fn default_slc_t_read() -> Duration {
    Duration(25_000)
}
fn default_slc_t_prog() -> Duration {
    Duration(200_000)
}
fn default_true() -> bool {
    true
}
