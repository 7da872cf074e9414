//! Synthetic workload description with fio's option names and meanings.
//! `rw`, `bs`, `rwmixread`, `iodepth`, `numjobs`, `offset`, `size`, `number_ios`,
//! `io_size`, `runtime`, `ramp_time` mean what they mean in fio; `queues` and
//! `queue_policy` say how host threads spread commands over NVMe queues.

use super::units::{Duration, Size};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Rw {
    Read,
    Write,
    Trim,
    #[serde(rename = "randread")]
    RandRead,
    #[serde(rename = "randwrite")]
    RandWrite,
    #[serde(rename = "randtrim")]
    RandTrim,
    #[serde(alias = "readwrite")]
    Rw,
    #[serde(rename = "randrw")]
    RandRw,
}

pub const RW_ALLOWED: &str =
    "read, write, trim, randread, randwrite, randtrim, rw (readwrite), randrw";

impl Rw {
    pub fn parse(s: &str) -> Result<Rw, String> {
        Ok(match s {
            "read" => Rw::Read,
            "write" => Rw::Write,
            "trim" => Rw::Trim,
            "randread" => Rw::RandRead,
            "randwrite" => Rw::RandWrite,
            "randtrim" => Rw::RandTrim,
            "rw" | "readwrite" => Rw::Rw,
            "randrw" => Rw::RandRw,
            _ => {
                return Err(format!(
                    "rw: '{s}' is not a workload pattern (allowed: {RW_ALLOWED})"
                ))
            }
        })
    }
    pub fn is_random(self) -> bool {
        matches!(
            self,
            Rw::RandRead | Rw::RandWrite | Rw::RandTrim | Rw::RandRw
        )
    }
    pub fn is_mixed(self) -> bool {
        matches!(self, Rw::Rw | Rw::RandRw)
    }
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum QueuePolicy {
    /// Linux blk-mq style: thread i submits to queue i mod N.
    PerThread,
    /// Every command goes to the next of the N queues in turn.
    RoundRobin,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadConfig {
    /// Access pattern.
    #[serde(default = "default_rw")]
    pub rw: Rw,
    /// Block size of each I/O (a multiple of 512 bytes).
    #[serde(default = "default_bs")]
    pub bs: Size,
    /// Percentage of reads in a mixed workload.
    #[serde(default = "default_mix")]
    pub rwmixread: u32,
    /// Outstanding I/Os per job (closed loop).
    #[serde(default = "default_one")]
    pub iodepth: u32,
    /// Number of jobs (host threads), each with its own iodepth.
    #[serde(default = "default_one")]
    pub numjobs: u32,
    /// NVMe I/O queues the host driver creates (capped by the device's io_queues).
    #[serde(default)]
    pub queues: Option<u32>,
    /// How commands are spread over the queues.
    #[serde(default = "default_policy")]
    pub queue_policy: QueuePolicy,
    /// Start of the LBA span, bytes.
    #[serde(default)]
    pub offset: Size,
    /// Length of the LBA span, bytes (default: to the end of the device).
    #[serde(default)]
    pub size: Option<Size>,
    /// I/Os per job before it stops.
    #[serde(default)]
    pub number_ios: Option<u64>,
    /// Bytes per job before it stops (fio's default stop rule is io_size = size).
    #[serde(default)]
    pub io_size: Option<Size>,
    /// Simulated run time limit.
    #[serde(default)]
    pub runtime: Option<Duration>,
    /// Simulated warm-up time excluded from the statistics.
    #[serde(default)]
    pub ramp_time: Duration,
}

fn default_rw() -> Rw {
    Rw::RandRead
}
fn default_bs() -> Size {
    Size(4096)
}
fn default_mix() -> u32 {
    50
}
fn default_one() -> u32 {
    1
}
fn default_policy() -> QueuePolicy {
    QueuePolicy::PerThread
}

impl Default for WorkloadConfig {
    fn default() -> Self {
        serde_json::from_str("{}").expect("defaults")
    }
}

impl WorkloadConfig {
    /// Check the workload against a device of `capacity` bytes.
    pub fn validate(&self, capacity: u64) -> Result<(), String> {
        let mut errs = Vec::new();
        let bs = self.bs.bytes();
        if bs == 0 || !bs.is_multiple_of(512) {
            errs.push(format!(
                "bs: {} is not allowed (a positive multiple of 512 bytes)",
                self.bs
            ));
        }
        if bs > 128 << 20 {
            errs.push(format!("bs: {} is larger than the 128MiB allowed", self.bs));
        }
        if self.rwmixread > 100 {
            errs.push(format!(
                "rwmixread: {} is not a percentage (allowed: 0 to 100)",
                self.rwmixread
            ));
        }
        if self.iodepth == 0 || self.iodepth > 65536 {
            errs.push(format!(
                "iodepth: {} is not allowed (1 to 65536)",
                self.iodepth
            ));
        }
        if self.numjobs == 0 || self.numjobs > 4096 {
            errs.push(format!(
                "numjobs: {} is not allowed (1 to 4096)",
                self.numjobs
            ));
        }
        if let Some(q) = self.queues {
            if q == 0 {
                errs.push("queues: must be > 0".into());
            }
        }
        if !self.offset.bytes().is_multiple_of(512) {
            errs.push(format!(
                "offset: {} is not a multiple of 512 bytes",
                self.offset
            ));
        }
        if self.offset.bytes() >= capacity {
            errs.push(format!(
                "offset: {} is at or beyond the device capacity of {} bytes",
                self.offset, capacity
            ));
        } else {
            let span = self.span(capacity);
            if span == 0 {
                errs.push("size: must be > 0".into());
            }
            if self.offset.bytes() + span > capacity {
                errs.push(format!(
                    "size: offset {} + size {} = {} bytes goes beyond the device capacity of {} bytes",
                    self.offset.bytes(),
                    span,
                    self.offset.bytes() + span,
                    capacity
                ));
            }
            if span < bs {
                errs.push(format!(
                    "size: the span of {span} bytes is smaller than bs {}",
                    self.bs
                ));
            }
        }
        if self.number_ios == Some(0) {
            errs.push("number_ios: must be > 0".into());
        }
        if let Some(s) = self.io_size {
            if s.bytes() == 0 {
                errs.push("io_size: must be > 0".into());
            }
        }
        if let Some(r) = self.runtime {
            if r.ns() == 0 {
                errs.push("runtime: must be > 0".into());
            }
            if self.ramp_time.ns() >= r.ns() {
                errs.push(format!(
                    "ramp_time: {} is not shorter than runtime {}",
                    self.ramp_time, r
                ));
            }
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(errs.join("\n"))
        }
    }

    /// The LBA span in bytes on a device of `capacity` bytes.
    pub fn span(&self, capacity: u64) -> u64 {
        match self.size {
            Some(s) => s.bytes(),
            None => capacity.saturating_sub(self.offset.bytes()),
        }
    }
}
