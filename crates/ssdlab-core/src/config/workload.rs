//! Synthetic workload description with fio's option names and meanings.
//! `rw`, `bs`, `rwmixread`, `iodepth`, `numjobs`, `offset`, `size`, `number_ios`,
//! `io_size`, `runtime`, `ramp_time` mean what they mean in fio; `queues` and
//! `queue_policy` say how host threads spread commands over NVMe queues.

// fio's conventions: bare sizes are bytes, bare runtime/ramp_time seconds, bare
// thinktime microseconds.
use super::units::{Bytes as Size, Secs, Usecs};
use serde::{Deserialize, Serialize};

fn is_zero_usecs(v: &Usecs) -> bool {
    v.ns() == 0
}

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
    /// fio's `trimwrite`: each block is trimmed, then written (sequential).
    #[serde(rename = "trimwrite")]
    TrimWrite,
    /// fio's `randtrimwrite`: the same at random offsets.
    #[serde(rename = "randtrimwrite")]
    RandTrimWrite,
}

pub const RW_ALLOWED: &str =
    "read, write, trim, randread, randwrite, randtrim, rw (readwrite), randrw, trimwrite, randtrimwrite";

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
            "trimwrite" => Rw::TrimWrite,
            "randtrimwrite" => Rw::RandTrimWrite,
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
            Rw::RandRead | Rw::RandWrite | Rw::RandTrim | Rw::RandRw | Rw::RandTrimWrite
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
    /// Simulated run time limit (a bare number is seconds, as in fio).
    #[serde(default)]
    pub runtime: Option<Secs>,
    /// Simulated warm-up time excluded from the statistics (bare number: seconds).
    #[serde(default)]
    pub ramp_time: Secs,
    /// Host events at simulated times: controller reset, suspend-resume, HMB disable
    /// and enable (config/host_events.rs); the first job section's apply.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<super::host_events::HostEventConfig>,
    /// Job name (a fio job section's name).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// fio's `filename`: in a system run, the drives this job uses (`:`-separated
    /// drive names; default: every drive). A single drive ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub filename: Option<String>,
    /// Reporting group / stonewall phase: groups run one after another on the same
    /// drive, the jobs of one group together.
    #[serde(default)]
    pub group: u32,
    /// Block size of writes when it differs from reads (fio's `bs=read,write`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bs_write: Option<Size>,
    /// Random block size per I/O, a multiple of 512 in [min, max] (fio's `bsrange`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bsrange: Option<(Size, Size)>,
    /// Weighted block sizes: [[bs, percent], ...] (fio's `bssplit`); percentages sum to 100.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bssplit: Vec<(Size, u32)>,
    /// Offsets of random I/O: random (uniform), zipf:θ, pareto:h, normal:σ% or
    /// zoned:pct/range%:... (fio's `random_distribution`).
    #[serde(default = "default_distribution")]
    pub random_distribution: String,
    /// Pause after every `thinktime_blocks` I/Os issued (fio's `thinktime`; bare: µs).
    #[serde(default)]
    pub thinktime: Usecs,
    #[serde(default = "default_one")]
    pub thinktime_blocks: u32,
    /// Host CPU time the job's thread spends per I/O (its I/O stack and the benchmark
    /// tool: submitting and reaping); the job issues no faster than one I/O per this
    /// time (ssdlab's host model; bare: µs; 0, the default: a host that costs nothing).
    #[serde(default, skip_serializing_if = "is_zero_usecs")]
    pub host_cpu_per_io: Usecs,
    /// Host CPU time of a completion's interrupt handler, on the CPU that serves its
    /// completion queue (one per queue); a queue's handlers run one at a time and the
    /// job sees a completion once its handler ran (the first job's value serves every
    /// queue; bare: µs; default 0).
    #[serde(default, skip_serializing_if = "is_zero_usecs")]
    pub host_irq_per_io: Usecs,
    /// Cap on this job's I/Os per second (fio's `rate_iops`; open-loop pacing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_iops: Option<u64>,
    /// fio's `rw=...:N` for random patterns: N I/Os at consecutive offsets per random pick.
    #[serde(default = "default_one")]
    pub random_run: u32,
    /// fio's `percentage_random`: of a random pattern's I/Os, this share (in %) is
    /// random and the rest continue sequentially after the previous one.
    #[serde(default = "default_hundred")]
    pub percentage_random: u32,
    /// fio's `norandommap`: uniform random offsets are drawn with replacement (blocks
    /// may repeat or be missed within a pass). Default (fio's): a random map gives
    /// every block of the span once per pass before any repeats.
    #[serde(default, skip_serializing_if = "is_false")]
    pub norandommap: bool,
    /// fio's `random_generator`: `tausworthe` (default) or `tausworthe64` (the random
    /// map, a new order each pass; without it, draws with replacement) or `lfsr` (each
    /// block once per pass, the same order each pass, even with `norandommap`).
    #[serde(default = "default_generator", skip_serializing_if = "is_tausworthe")]
    pub random_generator: String,
    /// fio's `rw=...:size` for sequential patterns: bytes skipped after each I/O.
    #[serde(default)]
    pub seq_skip: Size,
    /// fio's `rw=...:-size` for sequential patterns: bytes moved back after each I/O
    /// (more than the block size reads or writes backwards; wraps to the span's end).
    #[serde(default, skip_serializing_if = "is_zero_size")]
    pub seq_skip_back: Size,
    /// fio's `startdelay`: the job starts this long after its group (bare: seconds).
    #[serde(default, skip_serializing_if = "is_zero_secs")]
    pub startdelay: Secs,
    /// Cap on this job's bytes per second (fio's `rate`): each I/O's gap is its length
    /// at this rate (open-loop pacing, like `rate_iops`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate_bytes: Option<Size>,
    /// fio's `rate_process`: `linear` (even gaps of 1/rate_iops) or `poisson`
    /// (exponentially distributed gaps with that mean).
    #[serde(default = "default_rate_process", skip_serializing_if = "is_linear")]
    pub rate_process: String,
    /// Seed of this job's random numbers (default: derived from the run's seed).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub randseed: Option<u64>,
    /// Issue a Flush after every N writes, before the next I/O: once the job's
    /// outstanding I/Os have completed, and nothing else until it completes (fio's
    /// `fsync`/`fdatasync`=N; none after the job's last write, as in fio).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fsync: Option<u64>,
    /// Issue a Flush once the job's I/O is done; the job ends when it completes (fio's
    /// `end_fsync`; as in fio, not counted in the job's `sync` statistics).
    #[serde(default, skip_serializing_if = "is_false")]
    pub end_fsync: bool,
    /// fio's verify pass: once the job's I/O is done, read back every block it wrote
    /// (in write order; sorted by offset, each once, for random patterns) at its
    /// iodepth, within its runtime. The reads count as the job's reads.
    #[serde(default, skip_serializing_if = "is_false")]
    pub verify_readback: bool,
    /// Keep every command the job issues, with its issue time (the report's `iolog`
    /// per job: [ns since the job's group started, 0 read | 1 write | 2 trim |
    /// 3 flush, offset, length]), for fio's `write_iolog`.
    #[serde(default, skip_serializing_if = "is_false")]
    pub log_ios: bool,
    /// Keep every measured I/O's completion (the report's `completions` per job:
    /// [ns since the job's measurement started, 0 read | 1 write | 2 trim, length,
    /// offset, slat ns, clat ns]), for fio's `write_lat_log`, `write_bw_log`,
    /// `write_iops_log` and `write_hist_log` (48 bytes per I/O).
    #[serde(default, skip_serializing_if = "is_false")]
    pub log_completions: bool,
    /// Replay a block trace instead of generating I/O (rw, bs and the stop rules
    /// other than the trace's own do not apply).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<crate::trace::replay::TraceConfig>,
    /// Statistics of the trace from the loading pass (not an option).
    #[serde(skip)]
    pub trace_stats: Option<crate::trace::TraceStats>,
    /// fio's zone mode (`zonemode=strided` or `zbd` and their options).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zoned: Option<super::zoned_job::ZonedJob>,
    /// Send the job's writes as NVMe Zone Append commands to the zone holding each
    /// write's offset (its zone start LBA) on a zoned drive (`[zns]`): the drive writes
    /// them at the zone's write pointer, and the completion returns the LBA written (the
    /// offset of the `completions` log and of the verify pass). fio's
    /// `write_mode=zone_append` (io_uring_cmd engine).
    #[serde(default, skip_serializing_if = "is_false")]
    pub zone_append: bool,
    /// Zone Management Send commands (open, close, finish, reset of a zone) the job sends
    /// at set times on a zoned drive: `[{at = "5ms", action = "finish", zone = 3}]`. Sent
    /// as commands of the first job not yet done, while the run lasts (not in its I/O
    /// figures).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zone_ops: Vec<super::zoned_job::ZoneOpConfig>,
    /// Flexible Data Placement: the placement IDs the job's writes carry (fio's `fdp=1`,
    /// `plids`, `plid_select`, `dp_scheme`); needs a drive with `[fdp]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fdp: Option<super::fdp::FdpJob>,
    /// I/O Management Send commands the job sends at set times on a drive with `[fdp]`:
    /// `[{at = "5ms", action = "ruh_update", pids = [1]}]` (Reclaim Unit Handle Update:
    /// each listed placement ID's handle moves to an empty reclaim unit). Sent as
    /// commands of the first job not yet done, while the run lasts (not in its I/O
    /// figures).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fdp_ops: Vec<super::fdp::FdpOpConfig>,
    /// Write through a log-structured store on the host that places the data in a
    /// zoned drive's zones and collects them itself (`workload/hostlog.rs`):
    /// `host_log = { streams = 8, gc_free_zones = 2 }`; needs a drive with `[zns]`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host_log: Option<super::host_log::HostLogConfig>,
    /// Run until the rate has settled, checked at doubling run lengths up to `runtime`
    /// (config/settle.rs): `settle = { first_check = "6s", tolerance = 0.05 }`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settle: Option<super::settle::SettleConfig>,
}

// New fields are left out of a report at their defaults (reports stay as they were).
fn is_zero_size(s: &Size) -> bool {
    s.bytes() == 0
}
fn is_zero_secs(s: &Secs) -> bool {
    s.ns() == 0
}
fn is_false(b: &bool) -> bool {
    !*b
}
fn is_tausworthe(s: &str) -> bool {
    s == "tausworthe"
}
fn default_generator() -> String {
    "tausworthe".into()
}
fn is_linear(s: &str) -> bool {
    s == "linear"
}

fn default_rate_process() -> String {
    "linear".into()
}

fn default_hundred() -> u32 {
    100
}

fn default_distribution() -> String {
    "random".into()
}

/// A parsed `random_distribution`.
#[derive(Clone, Debug, PartialEq)]
pub enum Distribution {
    Uniform,
    Zipf(f64),
    Pareto(f64),
    /// Standard deviation as a fraction of the span, centred in the span.
    Normal(f64),
    /// (share of accesses, share of the span) per zone, in order.
    Zoned(Vec<(f64, f64)>),
}

impl Distribution {
    pub fn parse(s: &str) -> Result<Distribution, String> {
        let bad = |why: &str| {
            format!(
                "random_distribution: '{s}' {why} (allowed: random, zipf:θ, pareto:h, normal:σ%, zoned:pct/range%:...)"
            )
        };
        let (kind, arg) = match s.split_once(':') {
            Some((k, a)) => (k, Some(a)),
            None => (s, None),
        };
        let num = |a: Option<&str>| -> Result<f64, String> {
            a.ok_or_else(|| bad("needs a parameter"))?
                .trim()
                .parse::<f64>()
                .map_err(|_| bad("has a parameter that is not a number"))
        };
        Ok(match kind {
            "random" if arg.is_none() => Distribution::Uniform,
            "zipf" => {
                let t = num(arg)?;
                if !(t > 0.0 && t.is_finite()) {
                    return Err(bad("needs θ > 0"));
                }
                Distribution::Zipf(t)
            }
            "pareto" => {
                let h = num(arg)?;
                if !(h > 0.0 && h < 1.0) {
                    return Err(bad("needs 0 < h < 1"));
                }
                Distribution::Pareto(h)
            }
            "normal" | "gauss" => {
                let d = num(arg)?;
                if !(d > 0.0 && d <= 100.0) {
                    return Err(bad("needs 0 < σ% <= 100"));
                }
                Distribution::Normal(d / 100.0)
            }
            "zoned" => {
                let mut zones: Vec<(f64, f64)> = Vec::new();
                let parts: Vec<&str> = arg.ok_or_else(|| bad("needs zones"))?.split(':').collect();
                for (i, z) in parts.iter().enumerate() {
                    let (a, r) = z
                        .split_once('/')
                        .ok_or_else(|| bad("has a zone without '/'"))?;
                    let a: f64 = a.trim().parse().map_err(|_| bad("has a bad zone"))?;
                    // fio: the last zone's range may be left out (the rest of the span).
                    let r: f64 = if r.trim().is_empty() && i + 1 == parts.len() {
                        100.0 - zones.iter().map(|z| z.1 * 100.0).sum::<f64>()
                    } else {
                        r.trim().parse().map_err(|_| bad("has a bad zone"))?
                    };
                    zones.push((a / 100.0, r / 100.0));
                }
                let sa: f64 = zones.iter().map(|z| z.0).sum();
                let sr: f64 = zones.iter().map(|z| z.1).sum();
                if (sa - 1.0).abs() > 1e-6 || (sr - 1.0).abs() > 1e-6 {
                    return Err(bad(
                        "has zones whose access and range shares do not each sum to 100",
                    ));
                }
                Distribution::Zoned(zones)
            }
            _ => return Err(bad("is not a distribution")),
        })
    }
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
                "bs: {} is not allowed (a positive multiple of 512 bytes){}",
                self.bs,
                super::units::decimal_note(bs)
            ));
        }
        // A zbd trim resets a zone: its block size is the zone size (up to 4 GiB).
        let zone_trims = matches!(self.rw, Rw::Trim | Rw::RandTrim)
            && self.zoned.as_ref().is_some_and(|z| {
                z.mode == super::zoned_job::ZoneMode::Zbd && z.zone_size.bytes() == bs
            });
        if bs > 128 << 20 && !(zone_trims && bs <= 4 << 30) {
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
                "offset: {} is not a multiple of 512 bytes{}",
                self.offset,
                super::units::decimal_note(self.offset.bytes())
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
            match self.offset.bytes().checked_add(span) {
                Some(end) if end <= capacity => {}
                end => errs.push(format!(
                    "size: offset {} + size {} = {} bytes goes beyond the device capacity of {} bytes",
                    self.offset.bytes(),
                    span,
                    end.map_or("more than 2^64".to_string(), |e| e.to_string()),
                    capacity
                )),
            }
            if span < self.max_bs() {
                errs.push(format!(
                    "size: the span of {span} bytes is smaller than the block size {}",
                    Size(self.max_bs())
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
        self.validate_fio_extras(&mut errs);
        if let Some(rule) = &self.settle {
            errs.extend(rule.problems(self.runtime.map(|r| r.ns()), self.ramp_time.ns()));
            if self.trace.is_some() {
                errs.push("settle: a trace replay runs the trace, not until settled".into());
            }
        }
        if let Some(z) = &self.zoned {
            self.validate_zbd(z, capacity, &mut errs);
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(errs.join("\n"))
        }
    }

    /// fio's checks of a zbd job against its span and block sizes (zbd_verify_sizes,
    /// zbd_verify_bs).
    fn validate_zbd(&self, z: &super::zoned_job::ZonedJob, capacity: u64, errs: &mut Vec<String>) {
        use super::zoned_job::ZoneMode;
        if z.mode != ZoneMode::Zbd || z.zone_size.bytes() < 512 {
            return;
        }
        let span = self.span(capacity);
        if crate::workload::zbd_span(z, self.offset.bytes(), span).is_none() {
            errs.push(format!(
                "zoned: the span from offset {} of {span} bytes holds no whole zone of {} \
                 (as in fio, a zbd job's span must hold at least one zone)",
                self.offset, z.zone_size
            ));
        }
        if self.max_bs() > z.zone_size.bytes() {
            errs.push(format!(
                "zoned: the block size {} exceeds the zone size {} (fio: I/O buflen exceeds \
                 zone size)",
                Size(self.max_bs()),
                z.zone_size
            ));
        }
        let trims = matches!(
            self.rw,
            Rw::Trim | Rw::RandTrim | Rw::TrimWrite | Rw::RandTrimWrite
        );
        if trims
            && (self.bs.bytes() != z.zone_size.bytes()
                || self.bsrange.is_some()
                || !self.bssplit.is_empty())
        {
            errs.push(format!(
                "zoned: trims reset zones, so their block size must be the zone size {} \
                 (bs is {}; as fio requires with zonemode=zbd)",
                z.zone_size, self.bs
            ));
        }
    }

    fn validate_fio_extras(&self, errs: &mut Vec<String>) {
        let ok_bs = |b: u64| b > 0 && b.is_multiple_of(512) && b <= 128 << 20;
        if let Some(b) = self.bs_write {
            if !ok_bs(b.bytes()) {
                errs.push(format!("bs_write: {b} is not allowed (a positive multiple of 512 bytes, at most 128MiB)"));
            }
        }
        if let Some((lo, hi)) = self.bsrange {
            if !ok_bs(lo.bytes()) || !ok_bs(hi.bytes()) || lo.bytes() > hi.bytes() {
                errs.push(format!("bsrange: {lo}-{hi} is not allowed (multiples of 512 bytes, min <= max, at most 128MiB)"));
            }
        }
        if !self.bssplit.is_empty() {
            let total: u64 = self.bssplit.iter().map(|x| x.1 as u64).sum();
            if let Some((b, p)) = self.bssplit.iter().find(|x| x.1 > 100) {
                errs.push(format!(
                    "bssplit: {b}/{p}: {p} is not a percentage (allowed: 0 to 100)"
                ));
            } else if total != 100 {
                errs.push(format!("bssplit: the percentages sum to {total}, not 100"));
            }
            if let Some((b, _)) = self.bssplit.iter().find(|(b, _)| !ok_bs(b.bytes())) {
                errs.push(format!(
                    "bssplit: block size {b} is not allowed (a positive multiple of 512 bytes)"
                ));
            }
        }
        if let Err(m) = Distribution::parse(&self.random_distribution) {
            errs.push(m);
        }
        if let Some(t) = &self.trace {
            if let Err(m) = t.validate() {
                errs.push(m);
            }
            if self.numjobs != 1 {
                errs.push("numjobs: a trace is replayed by one job (numjobs = 1)".into());
            }
        }
        if let Some(z) = &self.zoned {
            z.validate(errs);
        }
        if self.thinktime_blocks == 0 {
            errs.push("thinktime_blocks: must be > 0".into());
        }
        if self.fsync == Some(0) {
            errs.push("fsync: must be > 0 (writes per flush; leave it out for none)".into());
        }
        if self.trace.is_some() && (self.fsync.is_some() || self.end_fsync || self.verify_readback)
        {
            errs.push(
                "fsync, end_fsync, verify_readback: not with a trace replay (it issues the \
                 trace's requests only)"
                    .into(),
            );
        }
        if self.rate_iops == Some(0) {
            errs.push("rate_iops: must be > 0".into());
        }
        if self.rate_bytes.is_some_and(|r| r.bytes() == 0) {
            errs.push("rate_bytes: must be > 0".into());
        }
        if self.percentage_random > 100 {
            errs.push(format!(
                "percentage_random: {} must be 0..100",
                self.percentage_random
            ));
        }
        if self.random_run == 0 {
            errs.push("random_run: must be > 0".into());
        }
        if !self.seq_skip_back.bytes().is_multiple_of(512) {
            errs.push(format!(
                "seq_skip_back: {} is not a multiple of 512 bytes",
                self.seq_skip_back
            ));
        }
        if self.seq_skip.bytes() > 0 && self.seq_skip_back.bytes() > 0 {
            errs.push("seq_skip, seq_skip_back: give one of them, not both".into());
        }
        if self.rate_process != "linear" && self.rate_process != "poisson" {
            errs.push(format!(
                "rate_process: '{}' is not allowed (linear or poisson)",
                self.rate_process
            ));
        }
        if !["tausworthe", "tausworthe64", "lfsr"].contains(&self.random_generator.as_str()) {
            errs.push(format!(
                "random_generator: '{}' is not allowed (tausworthe, tausworthe64 or lfsr)",
                self.random_generator
            ));
        }
        if !self.seq_skip.bytes().is_multiple_of(512) {
            errs.push(format!(
                "seq_skip: {} is not a multiple of 512 bytes",
                self.seq_skip
            ));
        }
    }

    /// The largest block size this job may issue.
    pub fn max_bs(&self) -> u64 {
        let mut m = self.bs.bytes().max(self.bs_write.map_or(0, |b| b.bytes()));
        if let Some((_, hi)) = self.bsrange {
            m = m.max(hi.bytes());
        }
        for (b, _) in &self.bssplit {
            m = m.max(b.bytes());
        }
        m
    }

    /// The LBA span in bytes on a device of `capacity` bytes.
    pub fn span(&self, capacity: u64) -> u64 {
        match self.size {
            Some(s) => s.bytes(),
            None => capacity.saturating_sub(self.offset.bytes()),
        }
    }
}

/// The LBA area of several jobs in bytes, from the lowest offset to the highest end
/// (capped at `capacity`): what the `normal-written` state writes first.
pub fn jobs_area_bytes(jobs: &[WorkloadConfig], capacity: u64) -> std::ops::Range<u64> {
    let lo = jobs.iter().map(|w| w.offset.bytes()).min().unwrap_or(0);
    let hi = jobs
        .iter()
        .map(|w| w.offset.bytes() + w.span(capacity))
        .max()
        .unwrap_or(capacity);
    lo..hi.min(capacity)
}
