//! A whole trace's statistics in one streaming pass (`ssdlab trace stats`, and what a
//! replay reports of its trace): request counts by kind, zoned and FDP commands, bytes
//! and sizes, the offset span, times and inter-arrival, devices and placement IDs.
//!
//! Simplifies: devices and placement IDs are counted for the first 1,024 of each seen.

use super::{TraceCmd, TraceError, TraceFormat, TraceReader};
use crate::workload::OpKind;
use serde::Serialize;

fn is_zero(v: &u64) -> bool {
    *v == 0
}

/// Statistics of a whole trace, in one streaming pass.
#[derive(Clone, Debug, Default, Serialize)]
pub struct TraceStats {
    pub format: String,
    pub requests: u64,
    pub reads: u64,
    pub writes: u64,
    pub trims: u64,
    /// Zone management commands (csv `ZR`, `ZF`, `ZO`, `ZC`; blkparse also `ZRA`),
    /// counted in `requests`.
    #[serde(skip_serializing_if = "is_zero")]
    pub zone_ops: u64,
    /// Zone Appends (csv and blkparse `ZA`), counted in `requests` and `writes`.
    #[serde(skip_serializing_if = "is_zero")]
    pub zone_appends: u64,
    /// Reclaim Unit Handle Updates (csv `RU`), counted in `requests`.
    #[serde(skip_serializing_if = "is_zero")]
    pub ruh_updates: u64,
    /// Writes per placement ID (csv's fifth column; the first 1,024 IDs seen).
    #[serde(skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub placement_ids: std::collections::BTreeMap<u32, u64>,
    pub read_share: f64,
    pub bytes: u64,
    /// Requests per power-of-two size bucket: key = upper bound in bytes.
    pub size_histogram: std::collections::BTreeMap<u64, u64>,
    pub offset_min: u64,
    pub offset_max_end: u64,
    pub first_time_ns: u64,
    pub last_time_ns: u64,
    pub duration_ns: u64,
    pub mean_interarrival_ns: f64,
    pub skipped_lines: u64,
    pub lines: u64,
    /// Requests per device (disk) number, for formats that carry one (the first
    /// `MAX_DEVICES` devices seen).
    pub devices: std::collections::BTreeMap<u64, u64>,
}

/// Distinct devices counted in a trace's statistics.
const MAX_DEVICES: usize = 1024;

pub fn scan(
    path: &str,
    format: Option<TraceFormat>,
    skip_bad_lines: u64,
    device: Option<u64>,
) -> Result<TraceStats, TraceError> {
    let mut r = TraceReader::open(path, format, skip_bad_lines)?.with_device(device)?;
    let mut s = TraceStats {
        offset_min: u64::MAX,
        ..Default::default()
    };
    while let Some(rec) = r.next_record()? {
        if let Some(d) = r.last_device {
            if s.devices.len() < MAX_DEVICES || s.devices.contains_key(&d) {
                *s.devices.entry(d).or_insert(0) += 1;
            }
        }
        if s.requests == 0 {
            s.first_time_ns = rec.time_ns;
        }
        s.requests += 1;
        if let Some(pid) = rec
            .placement
            .filter(|_| rec.cmd != Some(TraceCmd::RuhUpdate))
        {
            if s.placement_ids.len() < MAX_DEVICES || s.placement_ids.contains_key(&pid) {
                *s.placement_ids.entry(pid).or_insert(0) += 1;
            }
        }
        if rec.cmd == Some(TraceCmd::RuhUpdate) {
            s.ruh_updates += 1;
            s.last_time_ns = s.last_time_ns.max(rec.time_ns);
            continue;
        }
        if rec.cmd == Some(TraceCmd::Append) {
            s.zone_appends += 1; // and a write below
        } else if rec.cmd.is_some() {
            s.zone_ops += 1; // no data, no span: the zone's own size
            s.last_time_ns = s.last_time_ns.max(rec.time_ns);
            continue;
        }
        match rec.kind {
            OpKind::Read => s.reads += 1,
            OpKind::Write => s.writes += 1,
            OpKind::Trim => s.trims += 1,
        }
        s.bytes = s.bytes.saturating_add(rec.len);
        *s.size_histogram
            .entry(rec.len.max(1).next_power_of_two())
            .or_insert(0) += 1;
        s.offset_min = s.offset_min.min(rec.offset);
        s.offset_max_end = s.offset_max_end.max(rec.offset.saturating_add(rec.len));
        s.last_time_ns = s.last_time_ns.max(rec.time_ns);
    }
    if s.requests == 0 {
        s.offset_min = 0;
    }
    s.format = serde_json::to_value(r.format)
        .ok()
        .and_then(|v| v.as_str().map(String::from))
        .unwrap_or_default();
    s.duration_ns = s.last_time_ns.saturating_sub(s.first_time_ns);
    s.mean_interarrival_ns = if s.requests > 1 {
        s.duration_ns as f64 / (s.requests - 1) as f64
    } else {
        0.0
    };
    s.read_share = if s.requests > 0 {
        s.reads as f64 / s.requests as f64
    } else {
        0.0
    };
    s.skipped_lines = r.skipped;
    s.lines = r.line_no;
    Ok(s)
}
