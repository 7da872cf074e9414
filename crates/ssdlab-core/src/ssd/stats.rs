//! Typed device statistics: the report's `device` block as Rust structs, one per
//! component, each field with its unit (in its name or its doc) and a line saying
//! what it counts. They serialise, in field order, to exactly the JSON the report
//! has always had (the golden reports pin it byte for byte), and code that wants
//! a figure reads a field here instead of parsing the JSON back.
//!
//! The components fill their own parts (`MapState::stats`, `SchedState::stats`,
//! `DataTiers::stats`); `Ssd::device_stats` assembles the rest. Derived figures
//! (utilisations, rates, shares) are computed when the stats are taken, never kept.
//! "units" are mapping units (`ftl.mapping_unit` bytes each); a utilisation is busy
//! time over simulated time (0..1); a rate or share is a fraction (0..1).

use crate::config::memory::{DataTier, HmbLayout, HmbPolicy, HmbStatus, MapPlacement, SlcMode};
use crate::config::scheduling::SchedPolicy;
use crate::config::GcPacing;
use crate::sim::Ns;
use serde::Serialize;

/// Everything the device reports about a run (the report's `device` block).
#[derive(Clone, Debug, Serialize)]
pub struct DeviceStats {
    /// Host-visible capacity (bytes).
    pub capacity_bytes: u64,
    /// Raw NAND capacity, spare area included (bytes).
    pub raw_bytes: u64,
    pub nand: NandStats,
    pub ftl: FtlReport,
    pub channels: ChannelStats,
    pub dies: DieStats,
    pub controller: ControllerStats,
    pub pcie: PcieStats,
    pub nvme: NvmeStats,
    pub map: MapStats,
    pub scheduler: SchedStats,
    /// Time with at least one host command outstanding (ns; fio's disk util).
    pub host_busy_ns: u64,
    pub slc: SlcStats,
    pub read_cache: ReadCacheReport,
    pub write_buffer: WriteBufferStats,
    pub hmb: HmbStats,
    /// The read oracle's verdict (verify runs only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oracle: Option<OracleStats>,
}

/// Flash operations (counts).
#[derive(Clone, Debug, Serialize)]
pub struct NandStats {
    /// Page reads issued to dies (a multi-plane read counts once).
    pub read_ops: u64,
    /// Reads that sensed more than one plane at once.
    pub multiplane_read_ops: u64,
    /// Read transactions on behalf of host reads.
    pub user_read_txns: u64,
    /// Reads of partly overwritten units (read-modify-write).
    pub rmw_reads: u64,
    /// Read transactions of GC (valid data of victims).
    pub gc_read_txns: u64,
    /// Program operations (host, map and GC data).
    pub program_ops: u64,
    /// With `nand.cache_program`: programs whose data-in overlapped the previous program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached_program_ops: Option<u64>,
    /// Program operations of GC.
    pub gc_program_ops: u64,
    /// Block erases.
    pub erase_ops: u64,
    /// Bytes moved over all channels (bytes).
    pub channel_bytes: u64,
}

/// The FTL's counters over the whole run (units are mapping units).
#[derive(Clone, Debug, Serialize)]
pub struct FtlReport {
    /// Units written by the host (units).
    pub host_units_written: u64,
    /// Valid units GC copied out of victims (units).
    pub gc_units_copied: u64,
    /// Units programmed, for any reason (units).
    pub units_programmed: u64,
    /// Write amplification: units programmed / host units written.
    pub waf: f64,
    /// Blocks GC reclaimed.
    pub gc_victims: u64,
    /// Victims started in host idle time.
    pub background_gc_victims: u64,
    /// Block erases the FTL issued.
    pub erases: u64,
    /// Units unmapped by trims (units).
    pub trimmed_units: u64,
    /// Free blocks at the end of the run (blocks).
    pub free_blocks: u64,
    /// Host reads served from the write buffer.
    pub buffer_read_hits: u64,
    /// Host reads of never-written units (served without flash).
    pub unmapped_reads: u64,
    /// Writes that found no die able to take their data.
    pub alloc_stalls: u64,
    /// The GC pacing policy.
    pub gc_pacing: GcPacing,
    /// Paced GC victims whose die reached the urgent floor.
    pub gc_urgent_victims: u64,
    /// The same counters over the measured window (after ramp_time).
    pub measured: WindowStats,
    /// Map units written back to translation blocks (units).
    pub map_units_written: u64,
    /// Map units GC moved out of translation blocks (units).
    pub map_units_relocated: u64,
    /// Translation blocks GC reclaimed.
    pub translation_victims: u64,
    /// Translation blocks in use at the end of the run (blocks).
    pub translation_blocks: u64,
}

/// FTL counters over the measured window (units are mapping units).
#[derive(Clone, Debug, Serialize)]
pub struct WindowStats {
    /// When the window first opened (ns; null: it never held anything).
    pub from_ns: Option<Ns>,
    /// Units written by the host (units).
    pub host_units_written: u64,
    /// Map units written back (units).
    pub map_units_written: u64,
    /// Units programmed (units).
    pub units_programmed: u64,
    /// Valid units GC copied (units).
    pub gc_units_copied: u64,
    /// Blocks GC reclaimed.
    pub gc_victims: u64,
    /// Block erases.
    pub erases: u64,
    /// units_programmed / host_units_written (0 when nothing was written).
    pub waf: f64,
}

/// Channel (flash bus) utilisation. Every utilisation of the report counts the busy
/// time spent within the run, [0, sim_time_ns]: bus, core and link time already booked
/// for work past the end (programs still queued when the last I/O completed) is not
/// (it was, and put a channel at 1.044); a die's stage in progress is.
#[derive(Clone, Debug, Serialize)]
pub struct ChannelStats {
    /// Busy time / simulated time, per channel (0..1).
    pub util: Vec<f64>,
    /// Mean of `util` (0..1).
    pub mean_util: f64,
    /// Highest of `util` (0..1).
    pub max_util: f64,
}

/// Die utilisation.
#[derive(Clone, Debug, Serialize)]
pub struct DieStats {
    /// Mean busy time / simulated time over dies (0..1).
    pub mean_util: f64,
    /// Highest busy time / simulated time of a die (0..1).
    pub max_util: f64,
    /// Die time spent on GC, all dies (ns).
    pub gc_busy_ns: u64,
    /// gc_busy_ns / die busy time (0..1).
    pub gc_share: f64,
    /// With `nand.chip_interface = "one-command"`: the chips' counters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chips: Option<super::ChipStats>,
}

/// Firmware cores and the write buffer.
#[derive(Clone, Debug, Serialize)]
pub struct ControllerStats {
    /// Busy time / simulated time, per firmware core (0..1).
    pub core_util: Vec<f64>,
    /// Most write buffer space in use at once (bytes).
    pub write_buffer_peak_bytes: u64,
    /// Host writes that waited for room in the write buffer.
    pub write_buffer_waits: u64,
    /// `controller.write_path` busy time / simulated time (0..1); absent when unset.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_path_util: Option<f64>,
}

/// The PCIe link (up: device to host; down: host to device).
#[derive(Clone, Debug, Serialize)]
pub struct PcieStats {
    /// TLP payload sent up (bytes).
    pub up_payload_bytes: u64,
    /// TLP payload sent down (bytes).
    pub down_payload_bytes: u64,
    /// Bytes on the wire up, headers and encoding included (bytes).
    pub up_wire_bytes: u64,
    /// Bytes on the wire down (bytes).
    pub down_wire_bytes: u64,
    /// Up direction busy time / simulated time (0..1).
    pub up_util: f64,
    /// Down direction busy time / simulated time (0..1).
    pub down_util: f64,
}

/// NVMe queues and the fetch engine.
#[derive(Clone, Debug, Serialize)]
pub struct NvmeStats {
    /// I/O submission queues in use.
    pub queues: u32,
    /// Fetch reads issued (each fetches one or more commands).
    pub fetches: u64,
    /// Commands fetched, per submission queue.
    pub fetched_per_queue: Vec<u64>,
}

/// The mapping table: all resident, or demand-paged through the map cache.
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum MapStats {
    /// The whole map is in the map tier: every lookup hits.
    Resident {
        /// Where the map lives and how it is cut.
        placement: MapPlacement,
        /// Always 1.0.
        hit_rate: f64,
        /// When the whole map is in the HMB: what its lookups and updates moved
        /// across the link (absent for DRAM and SRAM maps).
        #[serde(skip_serializing_if = "Option::is_none")]
        hmb: Option<ResidentHmbStats>,
    },
    Paged(Box<PagedMapStats>),
}

/// The whole map in the HMB: lookups and what crossed the link for it.
#[derive(Clone, Debug, Serialize)]
pub struct ResidentHmbStats {
    /// Read lookups answered from the HMB (one per command).
    pub lookups: u64,
    /// Bytes read from the HMB by lookups (whole `hmb.read_granularity` lines).
    pub read_bytes: u64,
    /// Bytes of changed entries posted to the HMB.
    pub write_bytes: u64,
}

/// The demand-paged map (counts of segment lookups and loads).
#[derive(Clone, Debug, Serialize)]
pub struct PagedMapStats {
    /// Where the map lives and how it is cut.
    pub placement: MapPlacement,
    /// Segment lookups by reads.
    pub lookups: u64,
    /// Lookups found in some cache level, or known to be empty.
    pub hits: u64,
    /// Lookups that loaded their segment from NAND.
    pub misses: u64,
    /// hits / lookups (0 without lookups).
    pub hit_rate: f64,
    /// Hits in the SRAM level in front of the HMB.
    pub l1_hits: u64,
    /// Hits of the main map cache.
    pub cache_hits: u64,
    /// Misses of the main map cache.
    pub cache_misses: u64,
    /// Reads of segments never written (no load, no copy).
    pub empty_segment_reads: u64,
    /// Segment loads started.
    pub loads: u64,
    /// Loads that read a translation page from NAND.
    pub nand_loads: u64,
    /// Segments evicted from the map cache.
    pub evictions: u64,
    /// Dirty segments written back on eviction.
    pub dirty_writebacks: u64,
    /// Map entries updated in place in cached segments.
    pub write_updates: u64,
    pub journal: JournalStats,
    pub hmb: MapHmbStats,
    /// `map.update = "write-back"`: the write-back cache and its map-update log.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub write_back: Option<WriteBackStats>,
}

/// The write-back map cache (write-allocate) and its map-update log in NAND.
#[derive(Clone, Debug, Serialize)]
pub struct WriteBackStats {
    /// Segments brought into the cache because writes changed them.
    pub write_allocates: u64,
    /// Dirty segments in the cache at the end of the run.
    pub dirty_segments: u64,
    /// Map-update log pages persisted (one mapping unit each).
    pub log_pages: u64,
    /// Entries appended to the log.
    pub log_entries: u64,
    /// Dirty segments written back because the log was about to wrap past them
    /// (the rest of `dirty_writebacks` were evictions).
    pub log_writebacks: u64,
    /// Entries the log's ring holds.
    pub log_ring_entries: u64,
}

/// The map update journal.
#[derive(Clone, Debug, Serialize)]
pub struct JournalStats {
    /// Memory holding the journal ("sram" or "hmb").
    pub tier: &'static str,
    /// Room in the journal (entries).
    pub capacity_entries: u64,
    /// Entries logged (entries).
    pub entries_logged: u64,
    /// Logged entries applied by segment loads instead of flushes (entries).
    pub entries_absorbed_by_loads: u64,
    /// Segment flushes (load, apply, write back).
    pub flushes: u64,
    /// Flushes that had to load their segment from NAND.
    pub flush_loads: u64,
    /// Entries applied per flush (entries; 0 without flushes).
    pub entries_per_flush: f64,
    /// Most entries held at once (entries).
    pub peak_entries: u64,
    /// Host writes that waited for room in the journal.
    pub host_write_waits: u64,
    /// GC reads deferred for room in the journal.
    pub gc_deferrals: u64,
}

/// The map's traffic to the host memory buffer.
#[derive(Clone, Debug, Serialize)]
pub struct MapHmbStats {
    /// HMB granted by the host (bytes).
    pub granted_bytes: u64,
    /// Size of an HMB map read (bytes).
    pub read_granularity_bytes: u64,
    /// Map bytes read from the HMB (bytes).
    pub read_bytes: u64,
    /// Map bytes written to the HMB (bytes).
    pub write_bytes: u64,
    /// (read_bytes + write_bytes) / PCIe payload bytes (0..1).
    pub pcie_share: f64,
}

/// The flash transaction scheduler.
#[derive(Clone, Debug, Serialize)]
pub struct SchedStats {
    /// The scheduling policy.
    pub policy: SchedPolicy,
    /// Reads may suspend programs.
    pub program_suspend: bool,
    /// Reads may suspend erases.
    pub erase_suspend: bool,
    /// Programs suspended for reads.
    pub program_suspends: u64,
    /// Erases suspended for reads.
    pub erase_suspends: u64,
    /// program_suspends + erase_suspends.
    pub suspends: u64,
    /// Suspends refused because the program was in data-in.
    pub refused_during_data_in: u64,
    /// Suspends refused at `max_suspends`.
    pub refused_at_limit: u64,
    /// Time operations spent suspended (ns).
    pub suspended_ns: u64,
    /// Suspend and resume overheads added to operations (ns), interrupted loops run
    /// again included.
    pub added_op_time_ns: u64,
    /// Array time run again after suspends: the program-verify or erase-verify loops
    /// they interrupted (ns; only with `program_loops` or `erase_loops`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub loop_redo_ns: Option<u64>,
    /// How suspensions served reads (only with `reads_per_suspend` or average holds).
    #[serde(flatten)]
    pub mechanism: Option<SuspendMechanismStats>,
    /// Adaptive program delay (the `adaptive-delay` policy only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub adaptive: Option<AdaptiveStats>,
}

/// What suspensions and holds did (seed 003's mechanism counters).
#[derive(Clone, Debug, Serialize)]
pub struct SuspendMechanismStats {
    /// Read operations a suspension may serve (0: every read waiting).
    pub reads_per_suspend_limit: u32,
    /// Read operations served while their die's operation was suspended.
    pub suspend_reads: u64,
    /// suspend_reads / suspends (0 without suspends).
    pub reads_per_suspend: f64,
    /// Host read data-outs that found their channel held by a program's data-in.
    pub reads_behind_data_in: u64,
    /// Time those data-outs waited for the bus, in all (ns).
    pub data_in_wait_ns: u64,
    /// Die time spent holding programs (ns).
    pub hold_idle_ns: u64,
}

/// Adaptive program delay decisions.
#[derive(Clone, Debug, Serialize)]
pub struct AdaptiveStats {
    /// Programs held for an expected read.
    pub holds: u64,
    /// Holds ended by a read arriving.
    pub hold_read_arrived: u64,
    /// Holds ended by their time running out.
    pub hold_expired: u64,
    /// GC reads a die served while its program was held; the hold went on after each.
    pub gc_reads_during_holds: u64,
    /// Programs dispatched at once (no read expected).
    pub dispatch_now: u64,
    /// Programs dispatched by the default rule.
    pub dispatch_default: u64,
}

/// The SLC cache.
#[derive(Clone, Debug, Serialize)]
pub struct SlcStats {
    /// The drive has SLC-mode blocks.
    pub enabled: bool,
    /// SLC-mode blocks per die (blocks).
    pub blocks_per_die: u32,
    /// SLC capacity, all dies (bytes).
    pub size_bytes: u64,
    /// Free SLC blocks at the end of the run (blocks).
    pub free_blocks: u64,
    /// Static or dynamic SLC.
    pub mode: SlcMode,
    /// SLC blocks per die the FTL may use now (blocks).
    pub allowed_blocks_per_die: u32,
    /// Mapped units / host units (0..1).
    pub mapped_share: f64,
    /// Host units written to SLC (units).
    pub host_units_to_slc: u64,
    /// Host units written to native blocks (units).
    pub host_units_to_native: u64,
    /// host_units_to_slc / all host units written (0..1).
    pub slc_hit_rate: f64,
    /// Fold operations (SLC to native).
    pub folds: u64,
    /// Units folded (units).
    pub units_folded: u64,
    /// Bytes folded (bytes).
    pub bytes_folded: u64,
    /// Most SLC-mode blocks in use at once during the run, as bytes of SLC data they
    /// hold when full (all dies): the cache's size as a long write sees it (absent
    /// without an SLC area).
    #[serde(skip_serializing_if = "is_zero")]
    pub peak_bytes: u64,
    /// Free-space SLC: native blocks lent to SLC-mode blocks at the end of the run
    /// (blocks, all dies; absent in the other modes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lent_blocks: Option<u64>,
}

/// The read cache: disabled, or its counters.
#[derive(Clone, Debug, Serialize)]
pub struct ReadCacheReport {
    /// The drive has a read cache.
    pub enabled: bool,
    #[serde(flatten)]
    pub on: Option<ReadCacheOn>,
}

/// Counters of an enabled read cache.
#[derive(Clone, Debug, Serialize)]
pub struct ReadCacheOn {
    /// Memory holding the cache.
    pub tier: DataTier,
    /// Capacity (bytes).
    pub size_bytes: u64,
    /// Unit lookups that hit.
    pub hits: u64,
    /// Unit lookups that missed.
    pub misses: u64,
    /// hits / (hits + misses) (0 without lookups).
    pub hit_rate: f64,
    /// Bytes served from the cache (bytes).
    pub hit_bytes: u64,
    /// Units filled in after NAND reads.
    pub fills: u64,
    /// Units evicted.
    pub evictions: u64,
    /// Units invalidated by writes and trims.
    pub invalidations: u64,
    /// Bytes read from the HMB (bytes).
    pub hmb_read_bytes: u64,
    /// Bytes written to the HMB (bytes).
    pub hmb_write_bytes: u64,
    /// Read-ahead into the cache (only when `read_cache.read_ahead` is set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_ahead: Option<ReadAheadReport>,
}

/// Read-ahead of sequential read streams into the read cache.
#[derive(Clone, Debug, Serialize)]
pub struct ReadAheadReport {
    /// Window kept read ahead of each sequential stream (bytes).
    pub window_bytes: u64,
    /// Host read commands that continued a sequential stream past its trigger.
    pub sequential_reads: u64,
    /// Mapping units read ahead from NAND.
    pub units: u64,
    /// Flash reads issued for them (one per page touched).
    pub reads: u64,
    /// Host read units that found their prefetch in flight and waited for it.
    pub joined: u64,
    /// Prefetched units not kept: rewritten or moved while in flight.
    pub dropped: u64,
}

/// The write buffer's memory.
#[derive(Clone, Debug, Serialize)]
pub struct WriteBufferStats {
    /// Memory holding the buffer.
    pub tier: DataTier,
    /// Capacity (bytes).
    pub size_bytes: u64,
    /// Bytes read from the HMB (bytes).
    pub hmb_read_bytes: u64,
    /// Bytes written to the HMB (bytes).
    pub hmb_write_bytes: u64,
}

/// The host memory buffer: what was granted and what moved through it.
#[derive(Clone, Debug, Serialize)]
pub struct HmbStats {
    /// Preferred size the device asks for (bytes).
    pub hmpre_bytes: u64,
    /// Minimum size the device accepts (bytes).
    pub hmmin_bytes: u64,
    /// The host's granting policy.
    pub policy: HmbPolicy,
    /// What became of the HMB the device asked for: named only when the host did
    /// not grant one (`off`, `denied`: HMMIN above the host cap, `allocation-failed`).
    #[serde(skip_serializing_if = "HmbStatus::is_ordinary")]
    pub status: HmbStatus,
    /// Why (only with `status`).
    #[serde(skip_serializing_if = "String::is_empty")]
    pub note: String,
    /// Size requested (bytes).
    pub requested_bytes: u64,
    /// Size granted (bytes).
    pub granted_bytes: u64,
    /// Descriptor entries of the grant.
    pub descriptors: usize,
    /// Size of one chunk of the grant (bytes).
    pub chunk_bytes: u64,
    /// What lives where in the granted memory.
    pub layout: HmbLayout,
    /// Bytes read from the HMB, map and data (bytes).
    pub read_bytes: u64,
    /// Bytes written to the HMB, map and data (bytes).
    pub write_bytes: u64,
    /// Map bytes moved (bytes).
    pub map_bytes: u64,
    /// Read cache bytes moved (bytes).
    pub read_cache_bytes: u64,
    /// Write buffer bytes moved (bytes).
    pub write_buffer_bytes: u64,
    /// All HMB bytes moved / PCIe payload bytes (0..1).
    pub pcie_share: f64,
}

/// The read oracle (verify runs): every mapped read checked against the data written.
#[derive(Clone, Debug, Serialize)]
pub struct OracleStats {
    /// Reads checked.
    pub checked: u64,
    /// Reads that returned other data than last written.
    pub mismatches: u64,
}

fn is_zero(v: &u64) -> bool {
    *v == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The enabled read cache's keys, in the order the report has always had (no
    /// golden run enables the read cache).
    #[test]
    fn read_cache_keys_in_report_order() {
        let on = ReadCacheOn {
            tier: DataTier::Dram,
            size_bytes: 1,
            hits: 2,
            misses: 3,
            hit_rate: 0.4,
            hit_bytes: 5,
            fills: 6,
            evictions: 7,
            invalidations: 8,
            hmb_read_bytes: 9,
            hmb_write_bytes: 10,
            read_ahead: None,
        };
        let want = json!({
            "enabled": true,
            "tier": DataTier::Dram,
            "size_bytes": 1,
            "hits": 2,
            "misses": 3,
            "hit_rate": 0.4,
            "hit_bytes": 5,
            "fills": 6,
            "evictions": 7,
            "invalidations": 8,
            "hmb_read_bytes": 9,
            "hmb_write_bytes": 10,
        });
        let got = ReadCacheReport {
            enabled: true,
            on: Some(on),
        };
        let s = |v: &serde_json::Value| serde_json::to_string(v).unwrap();
        assert_eq!(s(&serde_json::to_value(&got).unwrap()), s(&want));
        let off = ReadCacheReport {
            enabled: false,
            on: None,
        };
        assert_eq!(serde_json::to_string(&off).unwrap(), r#"{"enabled":false}"#);
    }
}
