//! A zoned namespace (NVMe Zoned Namespace Command Set, TP 4053 / ZNS 1.1): the LBA
//! space cut into zones that are written sequentially at a write pointer, opened and
//! closed implicitly by writes or explicitly by Zone Management Send, reset, finished
//! and reported; and where a zone's data lives on flash: a map per zone, not per page.
//!
//! - `config.rs`: the namespace's parameters (zone size and capacity, width over dies,
//!   open/active limits, conventional zones, zone append size limit, ZRWA size, flush
//!   granularity and resources).
//! - `zone.rs`: one zone's state machine (empty, implicitly/explicitly open, closed,
//!   full, read-only, offline) and the NVMe status codes of zoned commands.
//! - `namespace.rs`: the commands (write at the write pointer, zone append, read,
//!   zone management send and receive) over all zones, with the open/active limits.
//! - `layout.rs`: the per-zone map: each zone owns erase blocks striped over its dies,
//!   an LBA's flash page follows from arithmetic, so the map holds a few bytes a zone.
//!
//! The event loop drives it through `ssd/zoned.rs` (a device's `[zns]` section): the
//! timing of zoned commands comes from the same host, channel and die model as
//! conventional I/O. `layout_of` and `validate_device` give a device's layout and check
//! its `[zns]` section against the drive (and against what the event loop models).
//!
//! Simplifies (issue 27): a zone's erase blocks are fixed (no wear
//! levelling across zones); a ZRWA's data is held in the write buffer (its rewrites and
//! commits in the event loop: `ssd/zoned_zrwa.rs`);
//! reads of unwritten LBAs succeed (the NVMe default: deallocated data), reads across
//! zone boundaries are refused (RAZB not supported).

pub mod config;
pub mod layout;
pub mod namespace;
pub mod zone;

pub use config::ZnsConfig;
pub use layout::Layout;
pub use namespace::{Namespace, ZoneAction, ZoneDescriptor};
pub use zone::{ZnsStatus, ZoneState, ZoneType};

#[cfg(test)]
mod tests;

use crate::config::DeviceConfig;

/// The flash geometry of a device, as the zone layout needs it.
pub fn geometry_of(dev: &DeviceConfig) -> layout::Geometry {
    let n = &dev.nand;
    layout::Geometry {
        dies: dev.dies(),
        planes_per_die: n.planes_per_die,
        blocks_per_plane: n.blocks_per_plane,
        pages_per_block: n.pages_per_block,
        page_bytes: n.page_size.bytes(),
        pages_per_program: n.pages_per_program.max(1),
    }
}

/// The zone layout of a zoned device (None: the device is not zoned).
pub fn layout_of(dev: &DeviceConfig) -> Option<Result<Layout, String>> {
    let z = dev.zns.as_ref()?;
    if dev.nand.channels == 0 || dev.nand.dies_per_channel == 0 || dev.nand.page_size.bytes() == 0 {
        return Some(Err("zns: the drive's nand geometry is not valid".into()));
    }
    Some(Layout::new(z, geometry_of(dev)))
}

/// Problems with a device's `[zns]` section on that device: its own fields, the
/// layout on the drive's flash, and what the event loop does not model with zones
/// (each message names the field and what is allowed).
pub fn validate_device(dev: &DeviceConfig) -> Result<(), String> {
    let Some(z) = &dev.zns else {
        return Ok(());
    };
    z.validate(dev.dies())?;
    let layout = Layout::new(z, geometry_of(dev))?;
    let mut errs = Vec::new();
    let unit = layout.unit_bytes();
    if z.lba_bytes.bytes() != dev.ftl.mapping_unit.bytes() {
        errs.push(format!(
            "zns.lba_bytes: {} is not allowed on this drive, whose mapping unit is {} (allowed: ftl.mapping_unit: the simulated zoned drive's logical block is its mapping unit)",
            z.lba_bytes, dev.ftl.mapping_unit
        ));
    }
    if !z.capacity_bytes().is_multiple_of(unit) {
        errs.push(format!(
            "zns.zone_capacity_bytes: {} is not a whole number of the zone's program units of {unit} bytes (allowed: a multiple of the program unit, nand.page_size x planes_per_die x pages_per_program)",
            crate::config::units::Bytes(z.capacity_bytes())
        ));
    }
    if z.conventional_zones > 0 {
        errs.push(format!(
            "zns.conventional_zones: {} is not allowed on an NVMe zoned drive, whose Zoned Namespace Command Set has one zone type, Sequential Write Required (conventional zones are SCSI ZBC's and ATA ZAC's; an NVMe drive offers random writes in another namespace) (allowed: 0)",
            z.conventional_zones
        ));
    }
    if dev.slc.size.bytes() > 0 {
        errs.push(format!(
            "slc.size: {} is not allowed with [zns] (a zoned drive here has no SLC cache; allowed: 0)",
            dev.slc.size
        ));
    }
    if dev.read_cache.size.bytes() > 0 {
        errs.push(format!(
            "read_cache.size: {} is not allowed with [zns] (not modelled on a zoned drive; allowed: 0)",
            dev.read_cache.size
        ));
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join("\n"))
    }
}
