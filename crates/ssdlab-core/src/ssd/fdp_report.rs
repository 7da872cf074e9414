//! The report's `device.fdp` block: an FDP drive's configuration and its statistics
//! log (host bytes with metadata written HBMW, media bytes written MBMW, media bytes
//! erased MBE, as NVMe's FDP Statistics log page names them), per-handle bytes and
//! reclaim-unit switches, and its event counts. Derived at report time from the FTL's
//! counters (`ftl/fdp.rs`); nothing here changes the run.

use super::Ssd;
use crate::config::fdp::Isolation;
use serde::Serialize;

/// One reclaim-unit handle's figures.
#[derive(Clone, Debug, Serialize)]
pub struct HandleStats {
    pub handle: u32,
    /// Host bytes written with this handle (all reclaim groups).
    pub host_bytes_written: u64,
    /// Bytes GC moved out of this handle's reclaim units.
    pub gc_bytes_moved: u64,
    /// Blocks (one per plane of a die) opened for the handle's host data.
    pub blocks_opened: u64,
    /// Reclaim units the handle filled and left for a new one (blocks opened / dies
    /// per reclaim group).
    pub ru_switches: u64,
}

/// One entry of the Reclaim Unit Handle Status a host reads with I/O Management
/// Receive, at the end of the run.
#[derive(Clone, Debug, Serialize)]
pub struct RuhStatus {
    /// The placement identifier (DSPEC) writes use for this handle in this group.
    pub pid: u32,
    pub reclaim_group: u32,
    pub handle: u32,
    /// Reclaim Unit Available Media Writes: bytes the handle can still write before its
    /// reclaim unit is full.
    pub ru_available_bytes: u64,
}

/// FDP events, as the FDP Events log page would list them (counts).
#[derive(Clone, Debug, Serialize)]
pub struct FdpEvents {
    /// GC moved valid data out of a reclaim unit (one per GC victim holding data).
    pub media_reallocated: u64,
    /// Units GC moved (the events' "number of LBAs moved", in mapping units).
    pub media_reallocated_units: u64,
    /// Writes whose placement ID named no handle or group (written to handle 0).
    pub invalid_placement_identifier: u64,
    /// Reclaim units left before they were full (Reclaim Unit Not Fully Written): by
    /// a Reclaim Unit Handle Update that found its handle's unit partly written, or
    /// closed by the controller so GC could reclaim their invalid data (no full block
    /// held any; counted per block).
    pub ru_not_written_fully: u64,
    /// Handles the controller moved to an empty reclaim unit at the RU time limit
    /// (`fdp.ru_time_limit`): Reclaim Unit Time Limit Exceeded.
    pub ru_time_limit_exceeded: u64,
}

/// The report's `device.fdp` block.
#[derive(Clone, Debug, Serialize)]
pub struct FdpReport {
    pub handles: u32,
    pub reclaim_groups: u32,
    pub isolation: &'static str,
    pub dies_per_reclaim_group: u32,
    /// One block per plane on every die of a reclaim group.
    pub reclaim_unit_bytes: u64,
    /// The RU time limit, ns (0: none).
    pub ru_time_limit_ns: u64,
    /// HBMW: host bytes written (mapping units the host wrote).
    pub host_bytes_written: u64,
    /// MBMW: bytes programmed on the media (host, GC moves, map pages, pads).
    pub media_bytes_written: u64,
    /// MBE: bytes of the blocks erased.
    pub media_bytes_erased: u64,
    /// MBMW / HBMW.
    pub waf: f64,
    /// Bytes GC moved out of shared GC destinations (initial isolation only).
    pub shared_gc_bytes_moved: u64,
    pub ru_switches: u64,
    /// Reclaim Unit Handle Updates (I/O Management Send, one per placement ID).
    pub ruh_updates: u64,
    pub per_handle: Vec<HandleStats>,
    /// The Reclaim Unit Handle Status list (group 0's handles, then group 1's, ...).
    pub ruh_status: Vec<RuhStatus>,
    pub events: FdpEvents,
}

impl Ssd {
    /// The `device.fdp` block (None: the drive has no `[fdp]`).
    pub(crate) fn fdp_stats(&self) -> Option<FdpReport> {
        let f = self.ftl.fdp.as_ref()?;
        let geo = &self.geo;
        let ub = geo.unit_bytes;
        let st = &self.ftl.stats;
        let dpg = f.dies_per_group as u64;
        let per_handle: Vec<HandleStats> = (0..f.cfg.handles as usize)
            .map(|h| HandleStats {
                handle: h as u32,
                host_bytes_written: f.stats.host_units[h] * ub,
                gc_bytes_moved: f.stats.gc_units[h] * ub,
                blocks_opened: f.stats.blocks_opened[h],
                ru_switches: f.stats.blocks_opened[h] / dpg,
            })
            .collect();
        let hbmw = st.host_units_written * ub;
        let mbmw = st.units_programmed * ub;
        Some(FdpReport {
            handles: f.cfg.handles,
            reclaim_groups: f.cfg.reclaim_groups,
            isolation: match f.cfg.isolation {
                Isolation::Initial => "initial",
                Isolation::Persistent => "persistent",
            },
            dies_per_reclaim_group: f.dies_per_group,
            reclaim_unit_bytes: dpg * geo.units_per_block as u64 * ub,
            ru_time_limit_ns: f.cfg.ru_time_limit.ns(),
            host_bytes_written: hbmw,
            media_bytes_written: mbmw,
            media_bytes_erased: st.erases * geo.units_per_block as u64 * ub,
            waf: if hbmw == 0 {
                0.0
            } else {
                mbmw as f64 / hbmw as f64
            },
            shared_gc_bytes_moved: f.stats.shared_gc_units * ub,
            ru_switches: per_handle.iter().map(|h| h.ru_switches).sum(),
            ruh_updates: f.stats.ruh_updates,
            per_handle,
            ruh_status: (0..f.cfg.reclaim_groups)
                .flat_map(|rg| (0..f.cfg.handles).map(move |h| (rg, h)))
                .map(|(rg, h)| RuhStatus {
                    pid: f.cfg.pid(rg, h),
                    reclaim_group: rg,
                    handle: h,
                    ru_available_bytes: self.ftl.ru_available_units(rg * f.cfg.handles + h) * ub,
                })
                .collect(),
            events: FdpEvents {
                media_reallocated: f.stats.media_reallocated,
                media_reallocated_units: f.stats.gc_units.iter().sum::<u64>()
                    + f.stats.shared_gc_units,
                invalid_placement_identifier: f.stats.invalid_placement_ids,
                ru_not_written_fully: f.stats.ru_closed_early + f.stats.ruh_updates_partial,
                ru_time_limit_exceeded: f.stats.ru_time_limits,
            },
        })
    }
}
