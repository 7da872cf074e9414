//! Where a zone's data lives: the per-zone map of a zoned drive.
//!
//! The drive's dies form groups of `zone_width_dies`; zone z lives in die group
//! z mod groups, on the same `rows` erase blocks of every plane of each of its dies
//! (block base (z div groups) × rows). Inside a zone, data is striped over its dies in
//! program units (a die's multi-plane, `pages_per_program`-page program: e.g. 3 × 32 KiB
//! TLC pages × planes), so a sequential zone write keeps every die of its group busy,
//! as in NVMeVirt's ZNS model and WD's ZN540 (a zone over all dies). An LBA's flash
//! page is arithmetic on (zone, offset): the map holds one block base per zone, where
//! a page-level map holds an entry per logical page. A reset erases the zone's blocks
//! that hold data.
//!
//! Simplifies: a zone keeps its blocks for life (no wear levelling, no spare blocks);
//! zone capacity is what its blocks hold (a zone's size beyond it is LBA space only).

use super::config::ZnsConfig;

/// A flash page: die (over the whole drive), plane, block, page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FlashPage {
    pub die: u32,
    pub plane: u32,
    pub block: u32,
    pub page: u32,
}

#[derive(Clone, Debug)]
pub struct Layout {
    width: u64,
    groups: u64,
    planes: u64,
    page_bytes: u64,
    pages_per_block: u64,
    pages_per_program: u64,
    /// Blocks per plane per die a zone uses.
    rows: u64,
    zones: u64,
    lba_bytes: u64,
    zone_lbas: u64,
}

/// The drive's flash geometry, as `NandConfig` gives it.
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    pub dies: u32,
    pub planes_per_die: u32,
    pub blocks_per_plane: u32,
    pub pages_per_block: u32,
    pub page_bytes: u64,
    pub pages_per_program: u32,
}

impl Layout {
    /// The layout of `cfg`'s zones on `geo`, with as many zones as the blocks hold.
    pub fn new(cfg: &ZnsConfig, geo: Geometry) -> Result<Layout, String> {
        let width = if cfg.zone_width_dies == 0 {
            geo.dies
        } else {
            cfg.zone_width_dies
        } as u64;
        if width == 0 || !(geo.dies as u64).is_multiple_of(width) {
            return Err(format!(
                "zns.zone_width_dies: {width} does not divide the drive's {} dies (allowed: 0 for every die, or a divisor of the drive's dies)",
                geo.dies
            ));
        }
        let planes = geo.planes_per_die.max(1) as u64;
        let block_bytes = geo.page_bytes * geo.pages_per_block as u64;
        let rows = cfg.capacity_bytes().div_ceil(width * planes * block_bytes);
        let groups = geo.dies as u64 / width;
        let zones = groups * (geo.blocks_per_plane as u64 / rows.max(1));
        if zones == 0 {
            return Err(format!(
                "zns.zone_capacity_bytes: {} needs {rows} blocks per plane on each of {width} dies; the drive has {} a plane",
                cfg.capacity_bytes(),
                geo.blocks_per_plane
            ));
        }
        let unit = geo.page_bytes * planes * geo.pages_per_program.max(1) as u64;
        if !cfg
            .capacity_bytes()
            .is_multiple_of(unit.min(cfg.capacity_bytes()))
        {
            return Err(format!(
                "zns.zone_capacity_bytes: {} is not a whole number of program units ({unit} bytes: page size x planes x pages per program)",
                cfg.capacity_bytes()
            ));
        }
        Ok(Layout {
            width,
            groups,
            planes,
            page_bytes: geo.page_bytes,
            pages_per_block: geo.pages_per_block as u64,
            pages_per_program: geo.pages_per_program.max(1) as u64,
            rows,
            zones,
            lba_bytes: cfg.lba_bytes.bytes(),
            zone_lbas: cfg.zone_size_bytes.bytes() / cfg.lba_bytes.bytes(),
        })
    }

    /// Zones the flash holds.
    pub fn zones(&self) -> u64 {
        self.zones
    }

    /// The namespace's LBA space: every zone's size (capacity and the rest), bytes.
    pub fn namespace_bytes(&self) -> u64 {
        self.zones * self.zone_lbas * self.lba_bytes
    }

    /// Bytes of one program unit (page size x planes x pages per program): what one
    /// program operation on one die writes.
    pub fn unit_bytes(&self) -> u64 {
        self.page_bytes * self.planes * self.pages_per_program
    }

    /// Dies a zone is striped over.
    pub fn width_dies(&self) -> u64 {
        self.width
    }

    /// The erase blocks (die, block of the die) holding the first `written` bytes of
    /// zone `zone`, in (die, block) order; one multi-plane erase each.
    pub fn blocks_holding(&self, zone: u64, written: u64) -> Vec<(u32, u32)> {
        let unit = self.unit_bytes();
        let mut v: Vec<(u32, u32)> = (0..written.div_ceil(unit))
            .map(|u| {
                let p = self.page_at(zone, u * unit);
                (p.die, p.block)
            })
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Bytes of the per-zone map: a block base and a die group per zone (8 bytes).
    pub fn map_bytes(&self) -> u64 {
        self.zones * 8
    }

    /// The flash page holding byte `offset` of zone `zone`.
    pub fn page_at(&self, zone: u64, offset: u64) -> FlashPage {
        let group = zone % self.groups;
        let base = (zone / self.groups) * self.rows;
        let mp = self.page_bytes * self.planes; // a multi-plane page of one die
        let unit = mp * self.pages_per_program;
        let u = offset / unit;
        let die = group * self.width + u % self.width;
        let row = u / self.width;
        let in_unit = offset % unit;
        let die_page = row * self.pages_per_program + in_unit / mp;
        FlashPage {
            die: die as u32,
            plane: ((in_unit % mp) / self.page_bytes) as u32,
            block: (base + die_page / self.pages_per_block) as u32,
            page: (die_page % self.pages_per_block) as u32,
        }
    }

    /// The flash page of logical block `lba`.
    pub fn page_of_lba(&self, lba: u64) -> FlashPage {
        let zone = lba / self.zone_lbas;
        self.page_at(zone, (lba % self.zone_lbas) * self.lba_bytes)
    }

    /// Erase blocks a reset of a zone with `written` bytes erases (each plane's block
    /// on each die that data reached).
    pub fn blocks_to_erase(&self, written: u64) -> u64 {
        if written == 0 {
            return 0;
        }
        let unit = self.page_bytes * self.planes * self.pages_per_program;
        let units = written.div_ceil(unit);
        let dies = units.min(self.width);
        let unit_rows = units.div_ceil(self.width);
        let pages = unit_rows * self.pages_per_program;
        dies * self.planes * pages.div_ceil(self.pages_per_block)
    }
}
