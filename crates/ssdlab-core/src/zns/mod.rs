//! A zoned namespace (NVMe Zoned Namespace Command Set, TP 4053 / ZNS 1.1): the LBA
//! space cut into zones that are written sequentially at a write pointer, opened and
//! closed implicitly by writes or explicitly by Zone Management Send, reset, finished
//! and reported; and where a zone's data lives on flash: a map per zone, not per page.
//!
//! - `config.rs`: the namespace's parameters (zone size and capacity, width over dies,
//!   open/active limits, conventional zones, zone append size limit, ZRWA).
//! - `zone.rs`: one zone's state machine (empty, implicitly/explicitly open, closed,
//!   full, read-only, offline) and the NVMe status codes of zoned commands.
//! - `namespace.rs`: the commands (write at the write pointer, zone append, read,
//!   zone management send and receive) over all zones, with the open/active limits.
//! - `layout.rs`: the per-zone map: each zone owns erase blocks striped over its dies,
//!   an LBA's flash page follows from arithmetic, so the map holds a few bytes a zone.
//!
//! Simplifies (and what is not built yet, issue 27): the namespace is a functional and
//! placement model; it is not yet driven by the event loop (`Ssd`), so zoned commands
//! have no simulated timing yet, only the flash operations each one needs
//! (`Layout::pages_of`, erases per reset). A zone's erase blocks are fixed (no wear
//! levelling across zones); ZRWA is a parameter, its in-place updates are not modelled;
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
