//! The device's behaviour at a sudden power-off (`[power_loss]`; the workload's
//! `power_loss` host event, docs/power-events.md).
//!
//! - `plp`: power-loss protection. With it, capacitors hold the drive up long enough
//!   to program what its volatile write buffer holds and to save its map state, so
//!   every acknowledged write is durable. Without it (the default, as on client
//!   drives), a write is durable only once its page is programmed (after a Flush,
//!   or when its stripe fills): what sits in the write buffer at the cut is lost.
//! - `hold_up`: how long the capacitors keep the drive powered after the cut. An
//!   assumption (20 ms): vendors do not publish hold-up times; the capacitors are
//!   sized to finish the buffer's dump, which the report compares with it.
//!
//! Recovery reads at the next power-on are modelled from the drive's own geometry
//! (ssd/power_loss.rs): the map checkpoint, the persisted map-update log and, without
//! PLP, the spare area (`nand.page_spare` bytes) of every programmed page of every open
//! block.

use super::units::Duration;
use serde::{Deserialize, Serialize};

/// Sudden power-off: power-loss protection and hold-up time.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PowerLossConfig {
    /// Power-loss protection: capacitors dump the write buffer and the map state at a
    /// cut, so every acknowledged write survives (default false).
    #[serde(default)]
    pub plp: bool,
    /// Time the capacitors hold the drive up after a cut (an assumption, 20 ms).
    #[serde(default = "default_hold_up")]
    pub hold_up: Duration,
}

impl Default for PowerLossConfig {
    fn default() -> Self {
        PowerLossConfig {
            plp: false,
            hold_up: default_hold_up(),
        }
    }
}

impl PowerLossConfig {
    pub fn is_default(&self) -> bool {
        *self == PowerLossConfig::default()
    }
}

fn default_hold_up() -> Duration {
    Duration(20_000_000)
}
