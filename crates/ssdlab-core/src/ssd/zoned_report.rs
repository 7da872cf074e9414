//! The report's `device.zns` block: a zoned drive's zones by state, its host bytes,
//! resets, finishes and flash operations, its zoned errors by status code, its Zone
//! Random Write Areas (commits and rewrites, when it has them), and the
//! memory of its per-zone map beside what a page-level map of the same namespace
//! would take (4 bytes per mapping unit). Derived at report time from the counters
//! `zoned.rs` keeps; nothing here changes the run.

use super::Ssd;
use crate::zns::ZoneState;
use serde::Serialize;
use std::collections::BTreeMap;

/// The report's `device.zns` block.
#[derive(Clone, Debug, Serialize)]
pub struct ZnsStats {
    pub zones: u64,
    pub zone_size_bytes: u64,
    pub zone_capacity_bytes: u64,
    pub zone_width_dies: u64,
    /// Bytes one program on one die writes (page x planes x pages per program).
    pub program_unit_bytes: u64,
    /// The per-zone map (a block base and die group a zone), resident in the controller.
    pub map_bytes: u64,
    /// What a page-level map of the same namespace would hold (4 bytes per mapping unit).
    pub page_map_bytes: u64,
    /// Zones by state at the end of the run.
    pub zones_by_state: BTreeMap<&'static str, u64>,
    pub open_zones: u32,
    pub active_zones: u32,
    pub host_bytes_written: u64,
    /// Zone resets that discarded data, and the bytes they discarded.
    pub resets: u64,
    pub reset_bytes: u64,
    pub finishes: u64,
    /// Explicit opens and closes (Zone Management Send) that succeeded.
    pub opens: u64,
    pub closes: u64,
    /// Zone Append commands that wrote.
    pub appends: u64,
    /// Multi-plane block erases, programs (pads among them) and page reads on flash.
    pub erases: u64,
    pub programs: u64,
    pub pad_programs: u64,
    pub flash_reads: u64,
    /// Commands that completed with a zoned status, by code ("0xbc": n).
    pub errors: BTreeMap<String, u64>,
    pub errors_total: u64,
    /// The host's log-structured store, when the jobs write through one (`host_log`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_log: Option<super::zoned_hostlog::HostLogStats>,
    /// Zone Random Write Areas, on a drive with `zns.zrwa_bytes`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zrwa: Option<ZrwaStats>,
}

/// The report's `device.zns.zrwa` block.
#[derive(Clone, Debug, Serialize)]
pub struct ZrwaStats {
    pub zrwa_bytes: u64,
    pub flush_granularity_bytes: u64,
    /// Zones holding a ZRWA at the end of the run.
    pub zones: u32,
    /// Commits by writes past a ZRWA (implicit) and by Flush Explicit ZRWA Range.
    pub implicit_flushes: u64,
    pub explicit_flushes: u64,
    /// Host bytes rewritten inside a ZRWA: replaced in the buffer, never programmed.
    pub rewritten_bytes: u64,
}

fn state_name(s: ZoneState) -> &'static str {
    match s {
        ZoneState::Empty => "empty",
        ZoneState::ImplicitlyOpen => "implicitly_open",
        ZoneState::ExplicitlyOpen => "explicitly_open",
        ZoneState::Closed => "closed",
        ZoneState::Full => "full",
        ZoneState::ReadOnly => "read_only",
        ZoneState::Offline => "offline",
    }
}

impl Ssd {
    /// The zoned drive's read oracle (`--verify`): LBAs read and checked against their
    /// last write, and mismatches (the report's `device.oracle`, as the FTL's).
    pub(crate) fn zoned_oracle(&self) -> Option<(u64, u64)> {
        let o = self.zoned.as_ref()?.oracle.as_ref()?;
        Some((o.checked, o.mismatches))
    }

    /// The report's `device.zns` block (None on a conventional drive).
    pub(crate) fn zoned_stats(&self) -> Option<ZnsStats> {
        let z = self.zoned.as_ref()?;
        let cfg = self.cfg.zns.as_ref()?;
        let mut by_state: BTreeMap<&'static str, u64> = BTreeMap::new();
        for i in 0..z.ns.zone_count() {
            *by_state.entry(state_name(z.ns.zone(i).state)).or_default() += 1;
        }
        let errors_total = z.c.errors.values().sum();
        Some(ZnsStats {
            zones: z.ns.zone_count(),
            zone_size_bytes: cfg.zone_size_bytes.bytes(),
            zone_capacity_bytes: cfg.capacity_bytes(),
            zone_width_dies: z.layout.width_dies(),
            program_unit_bytes: z.unit_bytes,
            map_bytes: z.map_bytes(),
            page_map_bytes: z.layout.namespace_bytes() / self.unit_bytes * 4,
            zones_by_state: by_state,
            open_zones: z.ns.open_zones(),
            active_zones: z.ns.active_zones(),
            host_bytes_written: z.ns.host_lbas_written * z.lba_bytes,
            resets: z.ns.resets,
            reset_bytes: z.ns.reset_lbas * z.lba_bytes,
            finishes: z.c.finishes,
            opens: z.c.opens,
            closes: z.c.closes,
            appends: z.c.appends,
            erases: z.c.erases,
            programs: z.c.programs,
            pad_programs: z.c.pad_programs,
            flash_reads: z.c.flash_reads,
            errors: z
                .c
                .errors
                .iter()
                .map(|(k, v)| (format!("{k:#04x}"), *v))
                .collect(),
            errors_total,
            host_log: self.host_log_stats(),
            zrwa: (cfg.zrwa_bytes.bytes() > 0).then(|| ZrwaStats {
                zrwa_bytes: cfg.zrwa_bytes.bytes(),
                flush_granularity_bytes: cfg.zrwa_flush_bytes.bytes(),
                zones: z.ns.zrwa_zones(),
                implicit_flushes: z.ns.zrwa_implicit_flushes,
                explicit_flushes: z.ns.zrwa_explicit_flushes,
                rewritten_bytes: z.c.zrwa_rewritten_lbas * z.lba_bytes,
            }),
        })
    }
}
