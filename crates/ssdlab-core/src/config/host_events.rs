//! Host events scheduled in a run (the workload's `events`) and the device's reset
//! and power-on times (`[reset]`).
//!
//! A workload may list `events = [{at = "5s", kind = "reset"}, ...]`:
//! - `reset`: a controller reset. As Linux's `nvme_dev_disable` does, the host first
//!   disables the HMB (Set Features, Host Memory Buffer, EHM = 0), resets the
//!   controller, and when it is ready again re-enables the same buffer with the
//!   Memory Return bit set (`nvme_setup_host_mem`: MR when the old descriptor list
//!   is handed back). `memory_return = false` hands back a fresh buffer instead.
//! - `suspend-resume`: a system suspend with a full shutdown (Linux uses the
//!   "simple suspend" whenever an HMB is enabled, since a host in S3 cannot serve
//!   the drive's DRAM reads), `duration` asleep, then power-on: the PCIe link's
//!   100 ms from a fundamental reset to the first configuration request (PCIe Base
//!   Specification 4.0, section 6.6.1) and the controller's ready time. Controller
//!   SRAM does not hold across the power-off.
//! - `power-loss`: a sudden power-off (no shutdown notification), `duration` without
//!   power (default 1 s), then power-on as after a suspend, plus the drive's recovery
//!   (map checkpoint load, log replay, open-block scan: ssd/power_loss.rs) before it
//!   is ready. Without power-loss protection (`[power_loss] plp`) the writes still
//!   only in the volatile write buffer are lost (config/power_loss.rs). The host's
//!   memory loses power too: an HMB comes back without its contents.
//! - `hmb-disable` / `hmb-enable`: the host takes the HMB back and later gives it
//!   again, with or without Memory Return (NVMe Base Specification 2.0, Host Memory
//!   Buffer feature: MR set means the buffer's contents are as they were when it
//!   was disabled); between them the drive runs without an HMB.
//!
//! `[reset] ready` is the time from a reset (CC.EN 1 -> 0 -> 1) to CSTS.RDY = 1 plus
//! the host re-creating its queues: an assumption (50 ms), since the specification
//! bounds it only by CAP.TO (in 500 ms units) and vendors publish no figure.

use super::units::{Duration, Secs};
use serde::{Deserialize, Serialize};

/// What happens at an event.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum HostEventKind {
    Reset,
    SuspendResume,
    HmbDisable,
    HmbEnable,
    #[serde(alias = "power_loss")]
    PowerLoss,
}

impl HostEventKind {
    pub fn name(self) -> &'static str {
        match self {
            HostEventKind::Reset => "reset",
            HostEventKind::SuspendResume => "suspend-resume",
            HostEventKind::HmbDisable => "hmb-disable",
            HostEventKind::HmbEnable => "hmb-enable",
            HostEventKind::PowerLoss => "power-loss",
        }
    }
}

/// One host event of a run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct HostEventConfig {
    /// Simulated time of the event from the start of the run (bare number: seconds).
    pub at: Secs,
    pub kind: HostEventKind,
    /// Is the HMB handed back with its contents (Memory Return)? Default true for
    /// `reset`, `suspend-resume` and `hmb-enable` (what Linux does).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_return: Option<bool>,
    /// `suspend-resume`: time asleep; `power-loss`: time without power (default 1 s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration: Option<Secs>,
    /// Width of the windows of the report's IOPS recovery curve (default 10 ms).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Secs>,
    /// How many windows the curve has after the outage (default 50).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub windows: Option<u32>,
}

pub const DEFAULT_SLEEP_NS: u64 = 1_000_000_000;
pub const DEFAULT_WINDOW_NS: u64 = 10_000_000;
pub const DEFAULT_WINDOWS: u32 = 50;
/// PCIe Base Specification 4.0, section 6.6.1: software waits 100 ms after a
/// fundamental reset (power-on) before its first configuration request.
pub const PCIE_POWER_ON_NS: u64 = 100_000_000;

impl HostEventConfig {
    pub fn memory_return(&self) -> bool {
        // A power cut takes the host's memory (the HMB) down too.
        self.kind != HostEventKind::PowerLoss && self.memory_return.unwrap_or(true)
    }
    pub fn window_ns(&self) -> u64 {
        self.window.map_or(DEFAULT_WINDOW_NS, |w| w.ns())
    }
    pub fn windows(&self) -> u32 {
        self.windows.unwrap_or(DEFAULT_WINDOWS)
    }
    /// How long the drive fetches no command (0 for an HMB disable or enable; for a
    /// power loss the least it can be: the recovery at power-on adds to it).
    pub fn outage_ns(&self, reset: &ResetConfig) -> u64 {
        match self.kind {
            HostEventKind::Reset => reset.ready.ns(),
            HostEventKind::SuspendResume | HostEventKind::PowerLoss => {
                self.duration.map_or(DEFAULT_SLEEP_NS, |d| d.ns())
                    + reset.power_on.ns()
                    + reset.ready.ns()
            }
            HostEventKind::HmbDisable | HostEventKind::HmbEnable => 0,
        }
    }
}

/// How the drive refills its HMB map cache when the HMB comes back without its
/// contents (a firmware policy; vendors do not say which they use).
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum HmbRebuild {
    /// Each segment is loaded when a read first needs it.
    #[default]
    OnDemand,
    /// Every segment the cache held is loaded again at once, most recently used
    /// first, competing with host reads for the dies.
    Eager,
}

/// The device's reset and power-on times.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ResetConfig {
    /// Controller reset to ready, host queues re-created (an assumption, 50 ms).
    #[serde(default = "default_ready")]
    pub ready: Duration,
    /// Power-on to the first configuration request (PCIe: 100 ms).
    #[serde(default = "default_power_on")]
    pub power_on: Duration,
    /// Refilling the HMB map cache after the HMB returns without its contents:
    /// on-demand (default) or eager.
    #[serde(default)]
    pub hmb_rebuild: HmbRebuild,
}

impl Default for ResetConfig {
    fn default() -> Self {
        ResetConfig {
            ready: default_ready(),
            power_on: default_power_on(),
            hmb_rebuild: HmbRebuild::OnDemand,
        }
    }
}

impl ResetConfig {
    pub fn is_default(&self) -> bool {
        *self == ResetConfig::default()
    }
}

fn default_ready() -> Duration {
    Duration(50_000_000)
}
fn default_power_on() -> Duration {
    Duration(PCIE_POWER_ON_NS)
}

/// Check a run's events against its device: in time order, no event inside an
/// earlier one's outage, an enable only after a disable, and only HMB uses the
/// model can take back (the demand-paged map cache).
pub fn validate_events(
    events: &[HostEventConfig],
    dev: &super::DeviceConfig,
) -> Result<(), String> {
    let mut errs = Vec::new();
    let mut hmb_off = false;
    let mut busy_until = 0u64;
    let mut last_at = 0u64;
    for (i, e) in events.iter().enumerate() {
        let at = e.at.ns();
        let name = format!("events[{i}] ({} at {})", e.kind.name(), e.at);
        if i > 0 && at < last_at {
            errs.push(format!("{name}: events must be listed in time order"));
        }
        if at < busy_until {
            errs.push(format!(
                "{name}: falls inside the outage of an earlier event (until {busy_until} ns)"
            ));
        }
        last_at = at;
        busy_until = at + e.outage_ns(&dev.reset);
        if e.windows() == 0 || e.windows() > 10_000 {
            errs.push(format!(
                "{name}: windows {} is out of range (allowed: 1 to 10000)",
                e.windows()
            ));
        }
        if e.window_ns() == 0 {
            errs.push(format!("{name}: window must be > 0"));
        }
        if e.duration.is_some()
            && !matches!(
                e.kind,
                HostEventKind::SuspendResume | HostEventKind::PowerLoss
            )
        {
            errs.push(format!(
                "{name}: duration applies only to suspend-resume and power-loss events"
            ));
        }
        if e.memory_return.is_some() && e.kind == HostEventKind::PowerLoss {
            errs.push(format!(
                "{name}: memory_return does not apply to a power loss (the host's memory \
                 loses power too: the HMB always comes back without its contents)"
            ));
        }
        if e.memory_return.is_some() && e.kind == HostEventKind::HmbDisable {
            errs.push(format!(
                "{name}: memory_return belongs to the hmb-enable that hands the buffer back"
            ));
        }
        match e.kind {
            HostEventKind::HmbDisable if hmb_off => {
                errs.push(format!("{name}: the HMB is already disabled"))
            }
            HostEventKind::HmbEnable if !hmb_off => errs.push(format!(
                "{name}: the HMB is not disabled then (an hmb-enable follows an hmb-disable)"
            )),
            HostEventKind::Reset | HostEventKind::SuspendResume | HostEventKind::PowerLoss
                if hmb_off =>
            {
                errs.push(format!("{name}: the HMB is disabled then; enable it first"))
            }
            _ => {}
        }
        match e.kind {
            HostEventKind::HmbDisable => hmb_off = true,
            HostEventKind::HmbEnable => hmb_off = false,
            _ => {}
        }
    }
    let layout = dev.hmb_layout();
    let whole_in_hmb =
        dev.map_placement().whole && dev.map_placement().tier == super::memory::MapTier::Hmb;
    if !events.is_empty()
        && (layout.write_buffer_bytes > 0
            || layout.read_cache_bytes > 0
            || layout.journal_bytes > 0
            || whole_in_hmb)
    {
        errs.push(
            "events: taking the HMB back is modelled for a demand-paged map cache only; this \
             device keeps its write buffer, read cache, journal or whole map in the HMB \
             (not modelled yet)"
                .into(),
        );
    }
    if errs.is_empty() {
        Ok(())
    } else {
        Err(errs.join("; "))
    }
}
