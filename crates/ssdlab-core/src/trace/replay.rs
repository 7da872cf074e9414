//! Replaying a trace as a host job: `closed` keeps `iodepth` requests outstanding
//! (arrival times ignored), `timed` submits each request at its arrival time divided
//! by `speedup` (open loop: requests beyond the queues' room wait in the host).
//! Offsets are made valid for the drive: aligned down to 512 B, lengths rounded up
//! to 512 B (at most 128 MiB), and either wrapped modulo the capacity (`wrap`) or
//! scaled from the trace's LBA range onto the drive (`scale`).

use super::{Record, TraceFormat, TraceReader};
use crate::sim::Ns;
use crate::workload::Io;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum ReplayMode {
    Timed,
    Closed,
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum LbaMode {
    Wrap,
    Scale,
}

/// The `trace` section of a job.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceConfig {
    pub path: String,
    /// Format (default: detected from the first lines).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    #[serde(default = "default_mode")]
    pub mode: ReplayMode,
    /// Timed mode: arrival times are divided by this.
    #[serde(default = "default_speedup")]
    pub speedup: f64,
    #[serde(default = "default_lba")]
    pub lba: LbaMode,
    /// Stop after this many requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_requests: Option<u64>,
    /// Malformed lines to skip (and count) before giving up.
    #[serde(default)]
    pub skip_bad_lines: u64,
    /// Replay only this device's (disk's) requests (msr, mqsim and ssdsim traces).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<u64>,
}

fn default_mode() -> ReplayMode {
    ReplayMode::Closed
}
fn default_speedup() -> f64 {
    1.0
}
fn default_lba() -> LbaMode {
    LbaMode::Wrap
}

impl TraceConfig {
    pub fn validate(&self) -> Result<Option<TraceFormat>, String> {
        if !(MIN_SPEEDUP..=MAX_SPEEDUP).contains(&self.speedup) {
            return Err(format!(
                "trace.speedup: {:e} is not allowed (a number from 0.001 to 1000000: \
                 arrival times are divided by it, so a replay is at most 1,000 times slower)",
                self.speedup
            ));
        }
        if self.max_requests == Some(0) {
            return Err("trace.max_requests: must be > 0".into());
        }
        self.format
            .as_deref()
            .map(TraceFormat::parse)
            .transpose()
            .map_err(|m| format!("trace.format: {m}"))
    }
}

const MAX_LEN: u64 = 128 << 20;

/// The smallest `trace.speedup`: a replay stretched at most 1,000 times (a smaller
/// factor is a typo or a unit slip, and with a trace of one timestamp no other check
/// would catch it).
pub const MIN_SPEEDUP: f64 = 1e-3;
/// The largest `trace.speedup`: beyond it a nanosecond-stamped trace arrives all at once
/// (use `mode = "closed"` for "as fast as the drive goes").
pub const MAX_SPEEDUP: f64 = 1e6;

/// A trace being replayed by one host job.
pub struct TraceSource {
    reader: TraceReader,
    pub mode: ReplayMode,
    speedup: f64,
    lba: LbaMode,
    capacity: u64,
    trace_end: u64,
    t0: Option<u64>,
    next: Option<Record>,
    pub issued: u64,
    max: u64,
    pub error: Option<String>,
}

impl TraceSource {
    /// `trace_end` is the end of the trace's LBA range (from a first pass) for `scale`.
    pub fn new(cfg: &TraceConfig, capacity: u64, trace_end: u64) -> Result<Self, String> {
        let fmt = cfg.validate()?;
        let reader = TraceReader::open(&cfg.path, fmt, cfg.skip_bad_lines)
            .and_then(|r| r.with_device(cfg.device))
            .map_err(|e| e.message)?;
        let mut s = TraceSource {
            reader,
            mode: cfg.mode,
            speedup: cfg.speedup,
            lba: cfg.lba,
            capacity,
            trace_end: trace_end.max(1),
            t0: None,
            next: None,
            issued: 0,
            max: cfg.max_requests.unwrap_or(u64::MAX),
            error: None,
        };
        s.advance();
        Ok(s)
    }

    fn advance(&mut self) {
        self.next = if self.issued >= self.max {
            None
        } else {
            match self.reader.next_record() {
                Ok(r) => r,
                Err(e) => {
                    self.error = Some(e.message);
                    None
                }
            }
        };
        if let (Some(r), None) = (self.next, self.t0) {
            self.t0 = Some(r.time_ns);
        }
    }

    pub fn has_next(&self) -> bool {
        self.next.is_some()
    }

    /// The command (zoned, or FDP's handle update) the next request is, if it is one.
    pub fn next_command(&self) -> Option<super::TraceCmd> {
        self.next.and_then(|r| r.cmd)
    }

    /// The placement ID the next request carries, if any (csv's fifth column).
    pub fn next_placement(&self) -> Option<u32> {
        self.next.and_then(|r| r.placement)
    }

    /// End the replay with `message` (a request this drive cannot take).
    pub fn stop_with(&mut self, message: String) {
        self.error.get_or_insert(message);
        self.next = None;
    }

    pub fn skipped_lines(&self) -> u64 {
        self.reader.skipped
    }

    /// When the next request is due, for a replay that started at `start`.
    pub fn due(&self, start: Ns) -> Option<Ns> {
        let r = self.next?;
        Some(match self.mode {
            ReplayMode::Closed => start,
            ReplayMode::Timed => {
                let rel = r.time_ns.saturating_sub(self.t0.unwrap_or(0));
                start + (rel as f64 / self.speedup) as Ns
            }
        })
    }

    /// Take the next request, made valid for the drive.
    pub fn take(&mut self) -> Option<Io> {
        let r = self.next?;
        self.issued += 1;
        self.advance();
        let cap = self.capacity;
        let len = r
            .len
            .div_ceil(512)
            .max(1)
            .saturating_mul(512)
            .min(MAX_LEN)
            .min(cap / 512 * 512);
        let off = match self.lba {
            LbaMode::Wrap => (r.offset / 512 * 512) % cap,
            LbaMode::Scale => {
                ((r.offset as u128 * cap as u128 / self.trace_end as u128) as u64) / 512 * 512
            }
        };
        let off = if off + len > cap {
            (cap - len) / 512 * 512
        } else {
            off
        };
        Some(Io {
            kind: r.kind,
            offset: off,
            len,
        })
    }
}
