//! The device description: host interface, controller, NAND and FTL parameters.
//! Every field is declared once here, typed, with its unit and a one-line doc;
//! defaults live in the `default_*` functions; `validate()` checks consistency.

use super::host_events::ResetConfig;
use super::memory::{
    DataTier, DramConfig, HmbConfig, MapConfig, ReadCacheConfig, SlcConfig, SlcMode, SramConfig,
};
use super::power::PowerConfig;
use super::power_loss::PowerLossConfig;
use super::scheduling::{is_one, ChipInterface, SchedulerConfig};
use super::units::{Bandwidth, Duration, Rate, Size};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceConfig {
    /// Short name of the device (preset name or user's own).
    pub name: String,
    /// One line saying what this device is.
    #[serde(default)]
    pub description: String,
    pub host: HostConfig,
    pub controller: ControllerConfig,
    pub nand: NandConfig,
    pub ftl: FtlConfig,
    /// Where the mapping table lives and how it is cached (default: whole map in DRAM).
    #[serde(default)]
    pub map: MapConfig,
    #[serde(default)]
    pub sram: SramConfig,
    #[serde(default)]
    pub dram: DramConfig,
    /// NVMe Host Memory Buffer (default: not supported).
    #[serde(default)]
    pub hmb: HmbConfig,
    /// Data read cache (default: none).
    #[serde(default)]
    pub read_cache: ReadCacheConfig,
    /// Flash transaction scheduling and program/erase suspend (default: read-first, no suspend).
    #[serde(default)]
    pub scheduler: SchedulerConfig,
    /// SLC cache (default: none).
    #[serde(default)]
    pub slc: SlcConfig,
    /// Energy model, NVMe power states, APST and ASPM (default: off, and then absent
    /// from the resolved config).
    #[serde(default, skip_serializing_if = "PowerConfig::is_off")]
    pub power: PowerConfig,
    /// Reset and power-on times for the workload's host `events` (docs/power-events.md);
    /// left out of a resolved config while at their defaults (50 ms, 100 ms).
    #[serde(default, skip_serializing_if = "ResetConfig::is_default")]
    pub reset: ResetConfig,
    /// Sudden power-off: power-loss protection and hold-up time, for the workload's
    /// `power_loss` events; left out of a resolved config while at its defaults.
    #[serde(default, skip_serializing_if = "PowerLossConfig::is_default")]
    pub power_loss: PowerLossConfig,
    /// A zoned namespace (NVMe ZNS): the drive's LBA space cut into zones written at
    /// write pointers, mapped per zone (docs/zns-fdp.md); absent: a conventional drive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zns: Option<crate::zns::ZnsConfig>,
    /// Flexible Data Placement (NVMe FDP): reclaim groups, reclaim-unit handles that
    /// writes name with a placement ID, and their isolation through GC
    /// (docs/zns-fdp.md); absent: a conventional drive.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fdp: Option<super::fdp::FdpConfig>,
}

/// PCIe link and NVMe queue limits of the device.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostConfig {
    /// PCIe generation 1..=6 (sets the per-lane rate and line encoding).
    pub pcie_gen: u32,
    /// PCIe lanes: 1, 2, 4, 8 or 16.
    pub pcie_lanes: u32,
    /// Optional per-lane bandwidth after encoding, overriding the generation's value.
    #[serde(default)]
    pub lane_bandwidth: Option<Bandwidth>,
    /// One-way latency of a transaction layer packet across the link (each direction).
    #[serde(default = "default_pcie_latency")]
    pub pcie_latency: Duration,
    /// Maximum TLP payload; transfers are split into TLPs of this size.
    #[serde(default = "default_max_payload")]
    pub max_payload: Size,
    /// Header, framing and CRC bytes added to every TLP.
    #[serde(default = "default_tlp_overhead")]
    pub tlp_overhead: Size,
    /// Number of I/O submission/completion queue pairs the device supports ("Max-Q").
    pub io_queues: u32,
    /// Maximum entries per I/O submission queue.
    #[serde(default = "default_queue_entries")]
    pub queue_entries: u32,
    /// Commands fetched from one submission queue per arbitration turn (NVMe arbitration burst).
    #[serde(default = "default_arb_burst")]
    pub arbitration_burst: u32,
    /// Command fetches (PCIe reads of submission queue entries) the controller keeps
    /// in flight at once. Default 32: the outstanding non-posted requests a PCIe
    /// function can have with 5-bit tags (PCIe Base Specification 4.0, 2.2.6.2);
    /// 1 serialises fetches (one read round trip at a time).
    #[serde(default = "default_outstanding_fetches")]
    pub outstanding_fetches: u32,
}

/// Controller processors and memory.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ControllerConfig {
    /// Firmware cores handling I/O commands; submission queue i is served by core i mod cores.
    pub cores: u32,
    /// Firmware time per command on its core (decode, FTL bookkeeping, DMA setup).
    pub cmd_time: Duration,
    /// Latency of one lookup in a fully resident map (the map cache's tiers time a cached map).
    #[serde(default = "default_map_lookup")]
    pub map_lookup: Duration,
    /// Write buffer (write-back cache) in controller memory; writes complete once buffered.
    pub write_buffer: Size,
    /// Latency to serve a read from data still in the write buffer.
    #[serde(default = "default_buffer_read")]
    pub buffer_read: Duration,
    /// Memory holding the write buffer: sram (default), dram or hmb.
    #[serde(default = "default_write_buffer_tier")]
    pub write_buffer_tier: DataTier,
    /// When a host program's room in the write buffer is returned: `program` (default) when the die has programmed it; `data-in` once its data is in the die's page buffers, so the buffer stages transfers rather than whole programs.
    #[serde(default)]
    pub buffer_release: BufferRelease,
    /// Where GC and SLC-fold data wait between their read and their program: `none` (default) holds no buffer room, as on a controller with DRAM to spare; `write-buffer` holds room in the write buffer for each GC or fold program's data from when its stripe is complete to the end of its program, as on a DRAM-less controller whose SRAM stages every page it moves, so host writes get the room GC leaves; `gather` holds it from each page's read to the end of its program, a die reserving a program stripe's room before it reads the pages that fill it.
    #[serde(default, skip_serializing_if = "GcStaging::is_none")]
    pub gc_staging: GcStaging,
    /// With `gc_staging = "gather"`, who gets write-buffer room first when GC and host writes both wait for it: `paced` (default) a die whose GC the pace says is behind (it waits for a stripe's room) is served before waiting host writes and new host writes queue behind it, in the buffer and in the map's update journal (a GC read needs room in both at once), so GC keeps its paced share of them as it does of the dies; `host-first` GC gets only the room host writes waiting leave, so under a saturating host it falls behind until the urgent floor of free blocks and then runs alone (the drive stalls).
    #[serde(default, skip_serializing_if = "GcBufferShare::is_paced")]
    pub gc_buffer_share: GcBufferShare,
    /// Optional ceiling of the host write data path (DMA engine / internal bus into the write buffer): host write data enters the buffer no faster than this, whatever the link allows. Unset: the link alone paces it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_path: Option<Bandwidth>,
    /// Largest part of a host write the controller pulls into the write buffer at once: a larger write takes its buffer room and pulls its data part by part, as room frees, and completes when its last part is buffered. Unset: one program of one die (`planes_per_die x pages_per_program x page_size`). A multiple of the mapping unit.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub write_chunk: Option<Size>,
}

/// Where the data of internal moves (GC relocations, SLC folds) is staged.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum GcStaging {
    /// Not counted against any buffer (a DRAM controller stages in ample DRAM).
    #[default]
    None,
    /// In the write buffer, from a complete stripe to the end of its program.
    WriteBuffer,
    /// In the write buffer, from each page's read to the end of its program; room is
    /// reserved a stripe at a time before the reads (`ssd/gc_staging.rs`).
    Gather,
}

impl GcStaging {
    /// The default (left out of a resolved config, as reports before it had none).
    pub fn is_none(&self) -> bool {
        *self == GcStaging::None
    }
}

/// Who is served first when GC's gathering and host writes both wait for write-buffer
/// room (`controller.gc_buffer_share`).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum GcBufferShare {
    /// A die whose GC is behind its pace is served first (bounded: its stripe must fit).
    #[default]
    Paced,
    /// Host writes first; GC gets what waiting host writes leave.
    HostFirst,
}

impl GcBufferShare {
    /// The default (left out of a resolved config, as reports before it had none).
    pub fn is_paced(&self) -> bool {
        *self == GcBufferShare::Paced
    }
}

/// When the write buffer gets a host program's room back.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum BufferRelease {
    /// At the end of tPROG: the buffer holds every program in flight.
    #[default]
    Program,
    /// At the end of the data-in transfer: the die's page buffers hold the data
    /// while it programs; reads of it are still answered as buffer hits.
    DataIn,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "UPPERCASE")]
pub enum CellType {
    Slc,
    Mlc,
    Tlc,
    Qlc,
}

impl CellType {
    pub fn bits(self) -> usize {
        match self {
            CellType::Slc => 1,
            CellType::Mlc => 2,
            CellType::Tlc => 3,
            CellType::Qlc => 4,
        }
    }
}

/// A timing that is either one value or one value per page type (LSB, CSB, MSB, TSB).
#[derive(Clone, Debug, Serialize)]
#[serde(untagged)]
pub enum PerPageType {
    One(Duration),
    PerType(Vec<Duration>),
}

impl<'de> Deserialize<'de> for PerPageType {
    // By hand rather than `untagged`, so that a value without a unit gets the
    // duration's own message instead of "did not match any variant".
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            List(Vec<toml::Value>),
            One(toml::Value),
        }
        fn one<E: serde::de::Error>(v: toml::Value) -> Result<Duration, E> {
            let text = match v {
                toml::Value::String(s) => s,
                toml::Value::Integer(i) => i.to_string(),
                toml::Value::Float(f) => f.to_string(),
                other => {
                    return Err(E::custom(format!(
                        "expected a duration such as \"50us\", got {other}"
                    )))
                }
            };
            super::units::parse_duration_ns(&text)
                .map(Duration)
                .map_err(E::custom)
        }
        match Raw::deserialize(d)? {
            Raw::One(v) => one(v).map(PerPageType::One),
            Raw::List(vs) => vs
                .into_iter()
                .map(one)
                .collect::<Result<Vec<_>, _>>()
                .map(PerPageType::PerType),
        }
    }
}

impl PerPageType {
    /// The value for a page of the given type index.
    pub fn get(&self, page_type: usize) -> u64 {
        match self {
            PerPageType::One(d) => d.ns(),
            PerPageType::PerType(v) => v[page_type.min(v.len() - 1)].ns(),
        }
    }
    pub fn max(&self) -> u64 {
        match self {
            PerPageType::One(d) => d.ns(),
            PerPageType::PerType(v) => v.iter().map(|d| d.ns()).max().unwrap_or(0),
        }
    }
    fn check(&self, field: &str, bits: usize) -> Result<(), String> {
        match self {
            PerPageType::One(d) if d.ns() == 0 => Err(format!("{field}: must be > 0")),
            PerPageType::PerType(v) if v.len() != bits => Err(format!(
                "{field}: has {} values but the cell type has {bits} page types; give one value or exactly {bits}",
                v.len()
            )),
            PerPageType::PerType(v) if v.iter().any(|d| d.ns() == 0) => {
                Err(format!("{field}: every value must be > 0"))
            }
            _ => Ok(()),
        }
    }
}

/// NAND array geometry, timings and the channel bus.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NandConfig {
    pub channels: u32,
    pub dies_per_channel: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    /// Bytes of user data per page (spare area not counted).
    pub page_size: Size,
    /// SLC, MLC, TLC or QLC.
    pub cell: CellType,
    /// Array read time tR (sense), one value or one per page type.
    pub t_read: PerPageType,
    /// Program time tPROG, one value or one per page type.
    pub t_prog: PerPageType,
    /// Block erase time tBERS.
    pub t_erase: Duration,
    /// Channel bus rate in mega-transfers per second.
    pub channel_rate: Rate,
    /// Channel bus width in bits (8 for ONFI/Toggle x8).
    #[serde(default = "default_channel_width")]
    pub channel_width_bits: u32,
    /// Command and address cycles on the channel before each operation.
    #[serde(default = "default_t_cmd")]
    pub t_cmd: Duration,
    /// Pages (wordline page types) programmed by one program operation: 1, or the
    /// bits per cell for one-shot programming (all of a wordline's pages at once).
    #[serde(default = "default_one_u32")]
    pub pages_per_program: u32,
    /// Cache program (ONFI Cache Program): the next program's data-in goes to the die's cache register while the current program runs, so the die programs back to back.
    #[serde(default)]
    pub cache_program: bool,
    /// Spare (ECC/metadata) bytes per page, moved on the channel with the page's data.
    #[serde(default)]
    pub page_spare: Size,
    /// Dies per chip (package target sharing one chip enable); a divisor of dies_per_channel. Default 1. Only `chip_interface` gives it an effect.
    #[serde(default = "default_one_u32", skip_serializing_if = "is_one")]
    pub dies_per_chip: u32,
    /// How a chip's dies take commands: `interleaved` (default; each die takes a command while another of its chip is busy, as ONFI's multi-LUN operations allow and real controllers do) or `one-command` (a chip runs one operation at a time, its other dies waiting until the die's data-out, program or erase ends: MQSim's scheduler; docs/validation.md).
    #[serde(default, skip_serializing_if = "ChipInterface::is_interleaved")]
    pub chip_interface: ChipInterface,
}

/// Where GC writes the valid data it moves.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum GcDestination {
    /// Each die's GC writes into a GC block of the victim's own die (MQSim's
    /// per-plane GC; every collecting die fills a stripe of its own).
    #[default]
    VictimDie,
    /// GC writes go round the dies a stripe at a time, whichever die the data was
    /// read from, as a superblock's GC stream does: every collecting die's reads fill
    /// the one open GC stripe, so a controller gathers one stripe in its buffer, not
    /// one per collecting die.
    Striped,
}

impl GcDestination {
    pub fn is_victim_die(&self) -> bool {
        *self == GcDestination::VictimDie
    }
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum GcPolicy {
    /// Victim = block with the fewest valid units.
    Greedy,
    /// Victim = block with the highest (1 - u) x age / (1 + u) (u = valid share).
    CostBenefit,
}

/// How a die's garbage collection shares the die with host writes.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum GcPacing {
    /// Below the threshold GC copies about v / (U - v) units per host unit written
    /// (v valid of U units in the victim); it takes the die outright only at
    /// `gc_urgent_blocks`.
    Paced,
    /// At the threshold GC takes the die and collects until `gc_target_blocks`.
    Burst,
}

/// Flash translation layer.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FtlConfig {
    /// Mapping unit: the granularity of the logical-to-physical map (4KiB, 8KiB, ...).
    #[serde(default = "default_mapping_unit")]
    pub mapping_unit: Size,
    /// Fraction of the raw flash hidden from the host (spare for GC).
    #[serde(default = "default_op")]
    pub over_provisioning: f64,
    /// Start garbage collection on a die when its free blocks fall to this many.
    #[serde(default = "default_gc_threshold")]
    pub gc_threshold_blocks: u32,
    /// Burst GC: stop collecting on a die once it has this many free blocks again.
    #[serde(default = "default_gc_target")]
    pub gc_target_blocks: u32,
    /// Victim selection.
    #[serde(default = "default_gc_policy")]
    pub gc_policy: GcPolicy,
    /// Where GC writes what it moves: `victim-die` (default; a GC block on the
    /// victim's die) or `striped` (round the dies a stripe at a time, as a
    /// superblock's GC stream: the collecting dies' reads fill one open GC stripe,
    /// which a DRAM-less controller gathers in its SRAM; docs/flash-management.md).
    #[serde(default, skip_serializing_if = "GcDestination::is_victim_die")]
    pub gc_destination: GcDestination,
    /// paced (default): GC interleaved with host writes in proportion to what the victim
    /// needs; burst: GC takes the die from the threshold until the target.
    #[serde(default = "default_gc_pacing")]
    pub gc_pacing: GcPacing,
    /// paced: at or below this many free blocks a die's GC no longer waits for host
    /// writes (it takes the die outright, as burst does).
    #[serde(default = "default_gc_urgent")]
    pub gc_urgent_blocks: u32,
    /// Background GC: while the host is idle, collect on dies with fewer free blocks
    /// than this (0 = off; foreground GC still runs at gc_threshold_blocks).
    #[serde(default)]
    pub background_gc_blocks: u32,
    /// Host idle time before background work (GC, SLC folding) starts.
    #[serde(default = "default_idle_time")]
    pub idle_time: Duration,
}

fn default_pcie_latency() -> Duration {
    Duration(300)
}
fn default_max_payload() -> Size {
    Size(256)
}
fn default_tlp_overhead() -> Size {
    Size(24)
}
fn default_queue_entries() -> u32 {
    1024
}
fn default_outstanding_fetches() -> u32 {
    32
}
fn default_arb_burst() -> u32 {
    8
}
fn default_map_lookup() -> Duration {
    Duration(100)
}
fn default_idle_time() -> Duration {
    Duration(1_000_000)
}
fn default_one_u32() -> u32 {
    1
}
fn default_write_buffer_tier() -> DataTier {
    DataTier::Sram
}
fn default_buffer_read() -> Duration {
    Duration(1000)
}
fn default_channel_width() -> u32 {
    8
}
fn default_t_cmd() -> Duration {
    Duration(100)
}
fn default_mapping_unit() -> Size {
    Size(4096)
}
fn default_op() -> f64 {
    0.07
}
fn default_gc_threshold() -> u32 {
    3
}
fn default_gc_target() -> u32 {
    5
}
fn default_gc_policy() -> GcPolicy {
    GcPolicy::Greedy
}
fn default_gc_pacing() -> GcPacing {
    GcPacing::Paced
}
fn default_gc_urgent() -> u32 {
    2
}

/// Per-lane bandwidth after line encoding, bytes/s, by PCIe generation.
pub fn pcie_lane_bytes_per_s(gen: u32) -> f64 {
    match gen {
        1 => 2.5e9 * 8.0 / 10.0 / 8.0,
        2 => 5.0e9 * 8.0 / 10.0 / 8.0,
        3 => 8.0e9 * 128.0 / 130.0 / 8.0,
        4 => 16.0e9 * 128.0 / 130.0 / 8.0,
        5 => 32.0e9 * 128.0 / 130.0 / 8.0,
        _ => 64.0e9 * 242.0 / 256.0 / 8.0, // gen 6: PAM4 FLIT mode, 242/256 FLIT efficiency
    }
}

impl DeviceConfig {
    pub fn dies(&self) -> u32 {
        self.nand.channels * self.nand.dies_per_channel
    }
    pub fn raw_bytes(&self) -> u64 {
        self.dies() as u64
            * self.nand.planes_per_die as u64
            * self.nand.blocks_per_plane as u64
            * self.nand.pages_per_block as u64
            * self.nand.page_size.bytes()
    }
    /// User data one SLC-mode block (group) holds: a page per wordline.
    pub fn slc_block_bytes(&self) -> u64 {
        self.nand.planes_per_die as u64
            * (self.nand.pages_per_block / self.nand.cell.bits() as u32) as u64
            * self.nand.page_size.bytes()
    }
    /// Blocks per die operated in SLC mode (the last ones of each die).
    pub fn slc_blocks_per_die(&self) -> u32 {
        let per_die = self.slc_block_bytes() * self.dies() as u64;
        if self.slc.size.bytes() == 0 || per_die == 0 || self.nand.cell == CellType::Slc {
            return 0;
        }
        self.slc.size.bytes().div_ceil(per_die).min(u32::MAX as u64) as u32
    }
    /// SLC-mode blocks per die kept apart from the native ones: all of them, except in
    /// free-space mode, where only the static part (`slc.min_size`) is; the rest are
    /// block numbers that borrow a free native block while they are in use.
    pub fn slc_static_blocks_per_die(&self) -> u32 {
        let all = self.slc_blocks_per_die();
        if self.slc.mode != SlcMode::FreeSpace || all == 0 {
            return all;
        }
        let per_die = self.slc_block_bytes() * self.dies() as u64;
        (self.slc.min_size.bytes().div_ceil(per_die.max(1)) as u32).min(all)
    }
    /// Blocks per die in native (TLC/QLC/...) mode.
    pub fn native_blocks_per_die(&self) -> u32 {
        self.nand
            .blocks_per_plane
            .saturating_sub(self.slc_static_blocks_per_die())
    }
    /// Block numbers per die: the native blocks, then the SLC-mode ones (in free-space
    /// mode more than the die's physical blocks: those beyond borrow native ones).
    pub fn block_ids_per_die(&self) -> u32 {
        self.native_blocks_per_die()
            .saturating_add(self.slc_blocks_per_die())
    }
    /// Host-visible capacity: native-mode flash less over-provisioning, in whole
    /// mapping units (SLC-cache blocks hold no capacity of their own).
    pub fn capacity_bytes(&self) -> u64 {
        if let Some(Ok(l)) = crate::zns::layout_of(self) {
            return l.namespace_bytes(); // a zoned namespace: its zones' LBA space
        }
        let mu = self.ftl.mapping_unit.bytes();
        let native = self.raw_bytes() / self.nand.blocks_per_plane.max(1) as u64
            * self.native_blocks_per_die() as u64;
        let user = (native as f64 * (1.0 - self.ftl.over_provisioning)) as u64;
        user / mu * mu
    }
    /// Link bandwidth (bytes/s, after encoding, before TLP overhead), both directions alike.
    pub fn link_bytes_per_s(&self) -> f64 {
        let lane = self
            .host
            .lane_bandwidth
            .map(|b| b.0)
            .unwrap_or_else(|| pcie_lane_bytes_per_s(self.host.pcie_gen));
        lane * self.host.pcie_lanes as f64
    }
    /// Channel bus bandwidth, bytes/s.
    pub fn channel_bytes_per_s(&self) -> f64 {
        self.nand.channel_rate.0 * 1e6 * self.nand.channel_width_bits as f64 / 8.0
    }

    /// Check every field and their consistency; errors name the field and what is allowed.
    pub fn validate(&self) -> Result<(), String> {
        let mut errs: Vec<String> = Vec::new();
        let mut pos = |v: u64, field: &str| {
            if v == 0 {
                errs.push(format!("{field}: must be > 0"));
            }
        };
        let h = &self.host;
        pos(h.io_queues as u64, "host.io_queues");
        pos(h.queue_entries as u64, "host.queue_entries");
        pos(h.arbitration_burst as u64, "host.arbitration_burst");
        pos(h.outstanding_fetches as u64, "host.outstanding_fetches");
        let c = &self.controller;
        pos(c.cores as u64, "controller.cores");
        pos(c.write_buffer.bytes(), "controller.write_buffer");
        let n = &self.nand;
        pos(n.channels as u64, "nand.channels");
        pos(n.dies_per_channel as u64, "nand.dies_per_channel");
        pos(n.planes_per_die as u64, "nand.planes_per_die");
        pos(n.blocks_per_plane as u64, "nand.blocks_per_plane");
        pos(n.pages_per_block as u64, "nand.pages_per_block");
        pos(n.page_size.bytes(), "nand.page_size");
        pos(n.t_erase.ns(), "nand.t_erase");
        pos(n.channel_width_bits as u64, "nand.channel_width_bits");
        let geometry_errs = errs.len();
        let mut range = |v: u64, field: &str, hi: u64, what: &str| {
            if v > hi {
                errs.push(format!(
                    "{field}: {v} is out of range (allowed: 1 to {what})"
                ));
            }
        };
        range(n.channels as u64, "nand.channels", 256, "256");
        range(
            n.dies_per_channel as u64,
            "nand.dies_per_channel",
            256,
            "256",
        );
        range(
            n.blocks_per_plane as u64,
            "nand.blocks_per_plane",
            1 << 20,
            "1048576",
        );
        range(
            n.page_size.bytes(),
            "nand.page_size",
            1 << 20,
            "1048576 bytes, 1MiB",
        );
        range(c.cores as u64, "controller.cores", 1024, "1024");
        if h.queue_entries == 1 || h.queue_entries > 65536 {
            errs.push(format!(
                "host.queue_entries: {} is out of range (allowed: 2 to 65536; an NVMe queue of N entries holds N-1 commands)",
                h.queue_entries
            ));
        }
        if errs.len() == geometry_errs {
            let raw = [
                n.channels as u64,
                n.dies_per_channel as u64,
                n.planes_per_die.min(16) as u64,
                n.blocks_per_plane as u64,
                n.pages_per_block.min(65535) as u64,
                n.page_size.bytes(),
            ]
            .iter()
            .try_fold(1u64, |acc, &x| acc.checked_mul(x));
            if raw.is_none_or(|r| r > 1 << 60) {
                errs.push(format!(
                    "nand: channels {} x dies_per_channel {} x planes_per_die {} x blocks_per_plane {} x pages_per_block {} x page_size {} is more than the 1EiB (2^60 bytes) of raw flash allowed",
                    n.channels, n.dies_per_channel, n.planes_per_die, n.blocks_per_plane, n.pages_per_block, n.page_size
                ));
            }
        }
        if errs.len() > geometry_errs {
            // Sizes derived below would overflow or divide by zero.
            return Err(errs.join("\n"));
        }
        if !(1..=6).contains(&h.pcie_gen) {
            errs.push(format!(
                "host.pcie_gen: {} is not a PCIe generation (allowed: 1, 2, 3, 4, 5, 6)",
                h.pcie_gen
            ));
        }
        if ![1, 2, 4, 8, 16].contains(&h.pcie_lanes) {
            errs.push(format!(
                "host.pcie_lanes: {} is not a link width (allowed: 1, 2, 4, 8, 16)",
                h.pcie_lanes
            ));
        }
        if let Some(b) = h.lane_bandwidth {
            if let Err(e) = super::units::check_bandwidth("host.lane_bandwidth", b.0, false) {
                errs.push(e);
            }
        }
        if let Err(e) =
            super::units::check_bandwidth("dram.bandwidth", self.dram.bandwidth.0, false)
        {
            errs.push(e);
        }
        if let Some(chunk) = self.controller.write_chunk {
            let unit = self.ftl.mapping_unit.bytes();
            if chunk.bytes() == 0 || unit == 0 || chunk.bytes() % unit != 0 {
                errs.push(format!(
                    "controller.write_chunk: {} must be a positive multiple of the mapping unit (ftl.mapping_unit = {})",
                    chunk, self.ftl.mapping_unit
                ));
            }
        }
        if let Some(b) = self.controller.write_path {
            if let Err(e) = super::units::check_bandwidth("controller.write_path", b.0, false) {
                errs.push(e);
            }
        }
        if !(128..=4096).contains(&h.max_payload.bytes())
            || !h.max_payload.bytes().is_power_of_two()
        {
            errs.push(format!(
                "host.max_payload: {} is not allowed (a power of two from 128B to 4KiB)",
                h.max_payload
            ));
        }
        if h.io_queues > 65535 {
            errs.push(format!(
                "host.io_queues: {} exceeds NVMe's 65535 I/O queues (allowed: 1 to 65535)",
                h.io_queues
            ));
        }
        if !super::units::CHANNEL_MTS_RANGE.contains(&n.channel_rate.0) {
            errs.push(format!(
                "nand.channel_rate: {}MT/s is out of range (allowed: 1MT/s to 100000MT/s): a transfer takes its bytes over the rate",
                n.channel_rate.0
            ));
        }
        if n.pages_per_block > 65535 {
            errs.push(format!(
                "nand.pages_per_block: {} (allowed: 1 to 65535)",
                n.pages_per_block
            ));
        }
        if n.planes_per_die > 16 {
            errs.push(format!(
                "nand.planes_per_die: {} (allowed: 1 to 16)",
                n.planes_per_die
            ));
        }
        if let Err(e) = n.t_read.check("nand.t_read", n.cell.bits()) {
            errs.push(e);
        }
        if let Err(e) = n.t_prog.check("nand.t_prog", n.cell.bits()) {
            errs.push(e);
        }
        let mu = self.ftl.mapping_unit.bytes();
        let page = n.page_size.bytes();
        if mu < 512 || !mu.is_power_of_two() {
            errs.push(format!(
                "ftl.mapping_unit: {} is not allowed (a power of two, at least 512B)",
                self.ftl.mapping_unit
            ));
        } else if page > 0 && !page.is_multiple_of(mu) {
            errs.push(format!(
                "ftl.mapping_unit: {} does not divide nand.page_size {} (the page must hold whole mapping units){}",
                self.ftl.mapping_unit,
                n.page_size,
                super::units::decimal_note(page.max(mu))
            ));
        }
        let op = self.ftl.over_provisioning;
        if !(0.0..0.9).contains(&op) || op.is_nan() {
            errs.push(format!(
                "ftl.over_provisioning: {op} is outside the allowed range 0.0 to 0.9"
            ));
        }
        let f = &self.ftl;
        if f.gc_threshold_blocks < 2 {
            errs.push(format!(
                "ftl.gc_threshold_blocks: {} is too small (at least 2: one block is kept for GC itself)",
                f.gc_threshold_blocks
            ));
        }
        if f.gc_pacing == GcPacing::Paced
            && (f.gc_urgent_blocks == 0 || f.gc_urgent_blocks >= f.gc_threshold_blocks)
        {
            errs.push(format!(
                "ftl.gc_urgent_blocks: {} is not allowed with ftl.gc_threshold_blocks = {} (allowed: 1 to {}; at 1 free block host writes stop, so GC must take the die by then)",
                f.gc_urgent_blocks,
                f.gc_threshold_blocks,
                f.gc_threshold_blocks.saturating_sub(1).max(1)
            ));
        }
        if f.gc_target_blocks <= f.gc_threshold_blocks {
            errs.push(format!(
                "ftl.gc_target_blocks: {} must be greater than ftl.gc_threshold_blocks ({})",
                f.gc_target_blocks, f.gc_threshold_blocks
            ));
        }
        if self.slc.size.bytes() > 0 {
            let slc = self.slc_blocks_per_die() as u64;
            if n.cell == CellType::Slc {
                errs.push(
                    "slc.size: the NAND is SLC already; an SLC cache needs MLC, TLC or QLC".into(),
                );
            } else if self.slc.min_size.bytes() > self.slc.size.bytes() {
                errs.push(format!(
                    "slc.min_size: {} is larger than slc.size ({})",
                    self.slc.min_size, self.slc.size
                ));
            } else if self.slc.mode == SlcMode::FreeSpace
                && slc > self.native_blocks_per_die() as u64
            {
                errs.push(format!(
                    "slc.size: {} needs {slc} SLC blocks per die, more than the die's {} native blocks it would borrow them from; in free-space mode slc.size is at most the native capacity in SLC mode",
                    self.slc.size,
                    self.native_blocks_per_die()
                ));
            } else if self.slc_static_blocks_per_die() as u64 + f.gc_target_blocks as u64 + 4
                > n.blocks_per_plane as u64 / 2
            {
                // The SLC blocks kept apart: the static part in free-space mode, else all.
                let (what, size, blocks) = if self.slc.mode == SlcMode::FreeSpace {
                    let blocks = self.slc_static_blocks_per_die() as u64;
                    ("slc.min_size", self.slc.min_size, blocks)
                } else {
                    ("slc.size", self.slc.size, slc)
                };
                errs.push(format!(
                    "{what}: {size} needs {blocks} SLC blocks per die, more than half of the die's {} blocks; the SLC cache must be much smaller than the drive",
                    n.blocks_per_plane
                ));
            }
            if !n.pages_per_block.is_multiple_of(n.cell.bits() as u32) {
                errs.push(format!(
                    "nand.pages_per_block: {} is not a multiple of the bits per cell ({}), needed for SLC mode",
                    n.pages_per_block,
                    n.cell.bits()
                ));
            }
        }
        if errs.is_empty() {
            let blocks_per_die = self.native_blocks_per_die() as u64;
            let spare_blocks = (blocks_per_die as f64 * op).floor() as u64;
            if spare_blocks < f.gc_target_blocks as u64 + 2 {
                errs.push(format!(
                    "ftl.over_provisioning: {op} leaves {spare_blocks} spare blocks per die, fewer than gc_target_blocks + 2 = {}; raise over_provisioning or blocks_per_plane",
                    f.gc_target_blocks as u64 + 2
                ));
            } else {
                // Writes held in the buffer invalidate their old copies only once placed:
                // a buffer larger than the spare area GC can work with could hold the
                // very writes whose placement would give GC its victims (a deadlock).
                let dies = self.dies() as u64;
                let block_bytes = self.raw_bytes() / n.blocks_per_plane.max(1) as u64 / dies;
                let usable = (spare_blocks - (f.gc_target_blocks as u64 + 2)) * block_bytes * dies;
                let wb = self.controller.write_buffer.bytes();
                if wb > usable.max(block_bytes) {
                    errs.push(format!(
                        "controller.write_buffer: {} is larger than the spare flash GC can use ({}: over-provisioning less gc_target_blocks + 2 blocks per die); writes held in it could starve GC of victims: shrink it or raise over_provisioning",
                        self.controller.write_buffer,
                        Size(usable)
                    ));
                }
                // A demand-paged map's own pages, and a write-back map's update log, are
                // stored in the spare area too: what they take GC cannot use.
                let place = self.map_placement();
                if !place.whole {
                    let log_bytes = self.map_log_units() * mu;
                    let map_blocks = (place.map_bytes + log_bytes).div_ceil(block_bytes * dies);
                    if spare_blocks < map_blocks + f.gc_target_blocks as u64 + 2 {
                        errs.push(format!(
                            "map: the map's pages ({}) and its update log ({}, map.log_entries) take {map_blocks} of the {spare_blocks} spare blocks per die and leave {} for GC, fewer than gc_target_blocks + 2 = {}; raise ftl.over_provisioning or nand.blocks_per_plane, or lower map.log_entries",
                            Size(place.map_bytes),
                            Size(log_bytes),
                            spare_blocks.saturating_sub(map_blocks),
                            f.gc_target_blocks as u64 + 2
                        ));
                    }
                }
            }
            // Unit numbers: every block number's (a free-space SLC area's included).
            let ids = self.block_ids_per_die().max(n.blocks_per_plane) as u64;
            let units = self.raw_bytes() / n.blocks_per_plane.max(1) as u64 * ids / mu;
            if units >= u32::MAX as u64 {
                errs.push(format!(
                    "nand: the drive has {units} mapping units, more than the 2^32-1 this simulator addresses; use a larger ftl.mapping_unit"
                ));
            }
            let bits = n.cell.bits() as u32;
            if n.pages_per_program != 1 && n.pages_per_program != bits {
                errs.push(format!(
                    "nand.pages_per_program: {} is not allowed for {:?} (1, or {bits} for one-shot programming)",
                    n.pages_per_program, n.cell
                ));
            } else if !n.pages_per_block.is_multiple_of(n.pages_per_program) {
                errs.push(format!(
                    "nand.pages_per_block: {} is not a multiple of nand.pages_per_program {}",
                    n.pages_per_block, n.pages_per_program
                ));
            }
            if let Some(e) = crate::config::scheduling::validate_chips(
                n.dies_per_channel,
                n.dies_per_chip,
                n.chip_interface,
            ) {
                errs.push(e);
            }
            let stripe = self.program_unit_bytes();
            if c.write_buffer.bytes() < stripe {
                errs.push(format!(
                    "controller.write_buffer: {} is smaller than one program ({} = planes_per_die x pages_per_program x page_size)",
                    c.write_buffer,
                    Size(stripe)
                ));
            }
        }
        if errs.is_empty() {
            self.validate_limits(&mut errs);
        }
        if errs.is_empty() {
            if let Err(e) = crate::zns::validate_device(self) {
                errs.push(e);
            }
        }
        if let Some(f) = &self.fdp {
            f.validate(self.dies(), &mut errs);
            let n = &self.nand;
            let die_block =
                n.planes_per_die as u64 * n.pages_per_block as u64 * n.page_size.bytes();
            let per_die = (self.dies() as u64 * die_block).max(1);
            let used = self.capacity_bytes().div_ceil(per_die);
            let spare = (n.blocks_per_plane as u64).saturating_sub(used);
            if errs.is_empty() && f.open_blocks_per_die() as u64 > spare {
                errs.push(format!(
                    "fdp.handles: {} handles with {:?} isolation keep {} blocks open on every die, more than the drive's {spare} spare blocks per die (allowed: at most {spare} open blocks a die: fewer handles, initial isolation or more ftl.over_provisioning)",
                    f.handles,
                    f.isolation,
                    f.open_blocks_per_die()
                ));
            }
            if self.zns.is_some() {
                errs.push(
                    "fdp: not allowed together with [zns] (allowed: one of fdp or zns)".into(),
                );
            }
            if self.slc.size.bytes() > 0 {
                errs.push(format!(
                    "fdp: not modelled with an SLC cache (slc.size = {}; allowed: slc.size = \"0B\" on an FDP drive)",
                    self.slc.size
                ));
            }
        }
        if errs.is_empty() {
            self.validate_map(&mut errs);
            self.validate_data_tiers(&mut errs);
            if errs.is_empty() {
                self.validate_sram_budget(&mut errs);
            }
            self.scheduler.validate(&mut errs);
            self.power.validate(&mut errs);
            if errs.is_empty() {
                if let Err(e) = self.power_cap() {
                    errs.push(e);
                }
            }
            if self.nand.cache_program
                && (self.scheduler.program_suspend
                    || self.scheduler.policy
                        == crate::config::scheduling::SchedPolicy::AdaptiveDelay)
            {
                errs.push(
                    "nand.cache_program: not modelled together with scheduler.program_suspend \
                     or scheduler.policy = \"adaptive-delay\" (set one of them off)"
                        .into(),
                );
            }
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(errs.join("\n"))
        }
    }
}
