//! Latency and throughput statistics, reported with fio's JSON key names.
//!
//! Latencies (submission to completion, ns) go into an HDR histogram (3 significant
//! digits) for percentiles; min, max, mean and standard deviation are exact.
//! Derived figures (IOPS, bandwidth, percentiles) are computed at report time.

pub mod plat;

use hdrhistogram::Histogram;
pub use plat::PlatStats;
use serde_json::{json, Map, Value};

/// fio's default completion-latency percentiles.
pub const PERCENTILES: [f64; 17] = [
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0, 99.5, 99.9, 99.95,
    99.99,
];

#[derive(Clone, Debug)]
pub struct LatStats {
    hist: Histogram<u64>,
    pub ios: u64,
    pub bytes: u64,
    pub min: u64,
    pub max: u64,
    sum: f64,
    sumsq: f64,
}

impl Default for LatStats {
    fn default() -> Self {
        LatStats {
            hist: Histogram::new_with_bounds(1, 1 << 42, 3).expect("histogram"), // 1 ns .. 73 min
            ios: 0,
            bytes: 0,
            min: u64::MAX,
            max: 0,
            sum: 0.0,
            sumsq: 0.0,
        }
    }
}

impl LatStats {
    #[inline]
    pub fn record(&mut self, lat_ns: u64, bytes: u64) {
        self.hist.saturating_record(lat_ns.max(1));
        self.ios += 1;
        self.bytes += bytes;
        self.min = self.min.min(lat_ns);
        self.max = self.max.max(lat_ns);
        let l = lat_ns as f64;
        self.sum += l;
        self.sumsq += l * l;
    }

    pub fn merge(&mut self, o: &LatStats) {
        self.hist.add(&o.hist).expect("same histogram bounds");
        self.ios += o.ios;
        self.bytes += o.bytes;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        self.sum += o.sum;
        self.sumsq += o.sumsq;
    }

    pub fn mean(&self) -> f64 {
        if self.ios == 0 {
            0.0
        } else {
            self.sum / self.ios as f64
        }
    }

    pub fn stddev(&self) -> f64 {
        if self.ios < 2 {
            return 0.0;
        }
        let n = self.ios as f64;
        let var = (self.sumsq - self.sum * self.sum / n) / (n - 1.0);
        var.max(0.0).sqrt()
    }

    pub fn percentile(&self, p: f64) -> u64 {
        // The histogram reports the top of a bucket; never beyond the observed extremes.
        self.hist
            .value_at_quantile(p / 100.0)
            .clamp(self.min.min(self.max), self.max)
    }

    /// fio-style block for one direction: iops, bw, lat_ns with percentiles.
    pub fn to_json(&self, runtime_ns: u64) -> Value {
        let secs = runtime_ns as f64 / 1e9;
        let (iops, bw_bytes) = if secs > 0.0 {
            (self.ios as f64 / secs, self.bytes as f64 / secs)
        } else {
            (0.0, 0.0)
        };
        let mut pct = Map::new();
        if self.ios > 0 {
            for p in PERCENTILES {
                pct.insert(format!("{p:.6}"), json!(self.percentile(p)));
            }
        }
        json!({
            "io_bytes": self.bytes,
            "io_kbytes": self.bytes / 1024,
            "bw_bytes": bw_bytes.round() as u64,
            "bw": (bw_bytes / 1024.0).round() as u64,
            "iops": iops,
            "runtime": (runtime_ns as f64 / 1e6).round() as u64,
            "total_ios": self.ios,
            "lat_ns": {
                "min": if self.ios > 0 { self.min } else { 0 },
                "max": self.max,
                "mean": self.mean(),
                "stddev": self.stddev(),
                "N": self.ios,
                "percentile": Value::Object(pct),
            },
        })
    }
}

impl LatStats {
    /// Share of I/Os (percent) with a latency in (lo, hi] ns, as a difference of
    /// cumulative counts so that consecutive buckets add up exactly.
    fn share_between(&self, lo: u64, hi: u64) -> f64 {
        if self.ios == 0 {
            return 0.0;
        }
        let le = |x: u64| {
            if x >= self.max {
                self.ios
            } else if x == 0 {
                0
            } else {
                self.hist.count_between(0, x)
            }
        };
        le(hi).saturating_sub(le(lo)) as f64 * 100.0 / self.ios as f64
    }

    /// fio's `latency_ns`, `latency_us`, `latency_ms` buckets: the percentage of I/Os
    /// whose latency falls at or below each bound and above the previous one.
    pub fn latency_buckets(&self) -> (Value, Value, Value) {
        const NS: [u64; 10] = [2, 4, 10, 20, 50, 100, 250, 500, 750, 1000];
        let mut out = [Map::new(), Map::new(), Map::new()];
        for (k, scale) in [1u64, 1_000, 1_000_000].into_iter().enumerate() {
            let mut prev = if k == 0 { 0 } else { 1000 * scale / 1000 };
            for b in NS {
                let hi = b * scale;
                let share = if k == 0 || b > 1 {
                    self.share_between(prev, hi)
                } else {
                    0.0
                };
                out[k].insert(b.to_string(), json!(share));
                prev = hi;
            }
            if k == 2 {
                out[k].insert("2000".into(), json!(self.share_between(prev, 2000 * scale)));
                out[k].insert(
                    ">=2000".into(),
                    json!(self.share_between(2000 * scale, u64::MAX)),
                );
            }
        }
        let [a, b, c] = out;
        (Value::Object(a), Value::Object(b), Value::Object(c))
    }
}

/// fio's bandwidth and IOPS samples: bytes and I/Os completed in each window of
/// `BW_WINDOW_NS` (fio's default `bw_avg_time`/`iops_avg_time` of 500 ms) since the
/// job's measurement began, plus the latency sum for a per-window mean. Only windows
/// that saw an I/O are stored, so an idle stretch of any length costs nothing; the
/// statistics count the empty windows as zero samples, as fio does.
pub const BW_WINDOW_NS: u64 = 500_000_000;

/// One window with I/O in it.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Window {
    pub index: u64,
    pub bytes: u64,
    pub ios: u64,
    pub lat_sum_ns: u64,
}

#[derive(Clone, Debug, Default)]
pub struct Sampler {
    /// The open window (closed once an I/O lands in a later one).
    open: Window,
    /// Closed windows that saw I/O, by increasing index.
    pub samples: Vec<Window>,
}

impl Sampler {
    #[inline]
    pub fn record(&mut self, since_start_ns: u64, bytes: u64, lat_ns: u64) {
        let w = since_start_ns / BW_WINDOW_NS;
        if w > self.open.index {
            if self.open.ios > 0 {
                self.samples.push(self.open);
            }
            self.open = Window {
                index: w,
                ..Window::default()
            };
        }
        self.open.bytes += bytes;
        self.open.ios += 1;
        self.open.lat_sum_ns += lat_ns;
    }

    /// Add the I/Os of windows `lo..hi` to `out[index - lo]` (the open window too).
    pub fn add_ios(&self, lo: u64, hi: u64, out: &mut [u64]) {
        let from = self.samples.partition_point(|w| w.index < lo);
        for w in self.samples[from..]
            .iter()
            .chain(std::iter::once(&self.open))
        {
            if w.index >= hi {
                break;
            }
            if w.index >= lo {
                out[(w.index - lo) as usize] += w.ios;
            }
        }
    }

    /// Add another job's samples window by window (group reporting).
    pub fn merge(&mut self, o: &Sampler) {
        let mut out = Vec::with_capacity(self.samples.len().max(o.samples.len()));
        let (mut a, mut b) = (self.samples.iter().peekable(), o.samples.iter().peekable());
        loop {
            let next = match (a.peek(), b.peek()) {
                (Some(x), Some(y)) if x.index == y.index => {
                    let (x, y) = (a.next().unwrap(), b.next().unwrap());
                    Window {
                        index: x.index,
                        bytes: x.bytes + y.bytes,
                        ios: x.ios + y.ios,
                        lat_sum_ns: x.lat_sum_ns + y.lat_sum_ns,
                    }
                }
                (Some(x), Some(y)) if x.index < y.index => *a.next().unwrap(),
                (Some(_), Some(_)) | (None, Some(_)) => *b.next().unwrap(),
                (Some(_), None) => *a.next().unwrap(),
                (None, None) => break,
            };
            out.push(next);
        }
        self.samples = out;
        let (mine, theirs) = (self.open, o.open);
        if theirs.index == mine.index {
            self.open.bytes += theirs.bytes;
            self.open.ios += theirs.ios;
            self.open.lat_sum_ns += theirs.lat_sum_ns;
        } else if theirs.index > mine.index {
            // The earlier open window is closed relative to the later one.
            if mine.ios > 0 {
                self.insert_closed(mine);
            }
            self.open = theirs;
        } else if theirs.ios > 0 {
            self.insert_closed(theirs);
        }
    }

    fn insert_closed(&mut self, w: Window) {
        match self.samples.binary_search_by_key(&w.index, |x| x.index) {
            Ok(i) => {
                let x = &mut self.samples[i];
                x.bytes += w.bytes;
                x.ios += w.ios;
                x.lat_sum_ns += w.lat_sum_ns;
            }
            Err(i) => self.samples.insert(i, w),
        }
    }

    /// (min, max, mean, stddev) over `n` windows: the stored ones' `values` and
    /// n - values.len() empty windows (zeros), in time proportional to the stored ones.
    fn stats(values: &[f64], n: u64) -> (f64, f64, f64, f64) {
        let zeros = n.saturating_sub(values.len() as u64) as f64;
        let nf = n as f64;
        let mean = values.iter().sum::<f64>() / nf;
        let var = if n > 1 {
            (values.iter().map(|x| (x - mean).powi(2)).sum::<f64>() + zeros * mean * mean)
                / (nf - 1.0)
        } else {
            0.0
        };
        let min = if zeros > 0.0 {
            0.0
        } else {
            values.iter().cloned().fold(f64::MAX, f64::min)
        };
        let max = values.iter().cloned().fold(0.0, f64::max);
        (min, max, mean, var.sqrt())
    }

    /// fio's bw_min/max/mean/dev/samples (KiB/s) and iops_min/.../samples; a run
    /// shorter than one window gives one sample scaled from its length. Also the
    /// logs of every window with I/O, as fio's `write_iops_log`/`write_bw_log`/
    /// `write_lat_log` with `log_avg_msec=500` would hold them: `[[t_ms, value], ...]`
    /// with t_ms the end of the window (the last, partial one at the end of the run).
    pub fn to_json(&self, runtime_ns: u64) -> Value {
        let secs = BW_WINDOW_NS as f64 / 1e9;
        let tail_ns = runtime_ns.saturating_sub(self.open.index * BW_WINDOW_NS);
        let mut logs = (Vec::new(), Vec::new(), Vec::new());
        let window_ms = BW_WINDOW_NS / 1_000_000;
        let tail = (self.open.ios > 0 && tail_ns > 0).then_some(self.open);
        for w in self.samples.iter().chain(tail.as_ref()) {
            let (t_ms, len_s) = if w.index == self.open.index {
                (runtime_ns / 1_000_000, tail_ns as f64 / 1e9)
            } else {
                ((w.index + 1) * window_ms, secs)
            };
            logs.0.push(json!([t_ms, w.ios as f64 / len_s]));
            logs.1.push(json!([t_ms, w.bytes as f64 / 1024.0 / len_s]));
            logs.2
                .push(json!([t_ms, w.lat_sum_ns as f64 / w.ios as f64]));
        }
        let mut o = if self.open.index == 0 {
            if let Some(w) = tail {
                let t = tail_ns as f64 / 1e9;
                let (kib, iops) = (w.bytes as f64 / 1024.0 / t, w.ios as f64 / t);
                json!({
                    "bw_min": kib as u64, "bw_max": kib as u64, "bw_agg": 100.0,
                    "bw_mean": kib, "bw_dev": 0.0, "bw_samples": 1,
                    "iops_min": iops as u64, "iops_max": iops as u64, "iops_mean": iops,
                    "iops_stddev": 0.0, "iops_samples": 1,
                })
            } else {
                json!({
                    "bw_min": 0, "bw_max": 0, "bw_agg": 0.0, "bw_mean": 0.0, "bw_dev": 0.0,
                    "bw_samples": 0, "iops_min": 0, "iops_max": 0, "iops_mean": 0.0,
                    "iops_stddev": 0.0, "iops_samples": 0,
                })
            }
        } else {
            let n = self.open.index;
            let kib: Vec<f64> = self
                .samples
                .iter()
                .map(|w| w.bytes as f64 / 1024.0 / secs)
                .collect();
            let iops: Vec<f64> = self.samples.iter().map(|w| w.ios as f64 / secs).collect();
            let (bmin, bmax, bmean, bdev) = Self::stats(&kib, n);
            let (imin, imax, imean, idev) = Self::stats(&iops, n);
            json!({
                "bw_min": bmin as u64, "bw_max": bmax as u64, "bw_agg": 100.0, "bw_mean": bmean,
                "bw_dev": bdev, "bw_samples": n,
                "iops_min": imin as u64, "iops_max": imax as u64, "iops_mean": imean,
                "iops_stddev": idev, "iops_samples": n,
            })
        };
        o["log_avg_msec"] = json!(window_ms);
        o["iops_log"] = Value::Array(logs.0);
        o["bw_log"] = Value::Array(logs.1);
        o["lat_log"] = Value::Array(logs.2);
        o
    }
}

/// fio's I/O depth buckets: 1, 2, 4, 8, 16, 32, >=64.
pub const IODEPTH_KEYS: [&str; 7] = ["1", "2", "4", "8", "16", "32", ">=64"];

/// Per-job statistics: read, write, trim.
#[derive(Clone, Debug, Default)]
pub struct JobStats {
    /// Total latency (submission to completion seen by the host).
    pub dirs: [LatStats; 3],
    /// Submission latency: the host writes the command until the device fetches it.
    pub slat: [PlatStats; 3],
    /// Completion latency: fetched until the completion is seen by the host.
    pub clat: [PlatStats; 3],
    /// I/Os submitted at each depth bucket (depth including the new I/O).
    pub depth: [u64; 7],
    /// Bandwidth/IOPS samples per direction.
    pub samplers: [Sampler; 3],
    /// When measurement started (end of ramp) and when the job's last I/O completed.
    pub start_ns: u64,
    pub end_ns: u64,
    /// Flush commands: submission to completion seen by the host (fio's `sync`).
    pub sync: LatStats,
    /// When a verify job's read-back pass started (0: no read-back): its writes are
    /// timed up to here and its reads from here, as fio times the two phases.
    pub verify_from_ns: u64,
}

/// Per-direction runtimes of several jobs together: each direction's longest (fio's
/// group `run=` per direction).
pub fn max_dirs(a: [u64; 3], b: [u64; 3]) -> [u64; 3] {
    [a[0].max(b[0]), a[1].max(b[1]), a[2].max(b[2])]
}

impl JobStats {
    pub fn runtime_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }

    /// Runtime per direction (read, write, trim): the job's runtime, except for a job
    /// with a verify pass, whose writes end and whose reads start with that pass; 0 for
    /// a direction the job did no I/O in, as fio counts it (a group's or the run's
    /// figure for a direction is then timed over the jobs that did that direction only:
    /// a read job and a shorter write job side by side each get their own IOPS).
    pub fn dir_runtimes_ns(&self) -> [u64; 3] {
        let rt = self.runtime_ns();
        let mut out = if self.verify_from_ns == 0 {
            [rt; 3]
        } else {
            let split = self.verify_from_ns.clamp(self.start_ns, self.end_ns);
            [self.end_ns - split, split - self.start_ns, rt]
        };
        for (d, t) in out.iter_mut().enumerate() {
            if self.dirs[d].ios == 0 {
                *t = 0;
            }
        }
        out
    }

    /// Count a submission at `depth` outstanding I/Os.
    #[inline]
    pub fn record_depth(&mut self, depth: u32) {
        let b = (31 - depth.max(1).leading_zeros()).min(6) as usize;
        self.depth[b] += 1;
    }

    pub fn merge(&mut self, o: &JobStats) {
        for d in 0..3 {
            self.dirs[d].merge(&o.dirs[d]);
            self.slat[d].merge(&o.slat[d]);
            self.clat[d].merge(&o.clat[d]);
            self.samplers[d].merge(&o.samplers[d]);
        }
        self.sync.merge(&o.sync);
        for (a, b) in self.depth.iter_mut().zip(o.depth) {
            *a += b;
        }
    }

    /// fio's `iodepth_level` (percent of submissions per depth bucket).
    pub fn iodepth_json(&self) -> Value {
        let total: u64 = self.depth.iter().sum();
        let mut m = Map::new();
        for (k, &c) in IODEPTH_KEYS.iter().zip(&self.depth) {
            let pct = if total > 0 {
                c as f64 * 100.0 / total as f64
            } else {
                0.0
            };
            m.insert(k.to_string(), json!(pct));
        }
        Value::Object(m)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_buckets_and_depth_levels() {
        let mut s = LatStats::default();
        for v in [500u64, 1500, 3_000_000, 3_000_000] {
            s.record(v, 4096);
        }
        let (ns, us, ms) = s.latency_buckets();
        assert_eq!(ns["500"], 25.0);
        assert_eq!(us["2"], 25.0);
        assert_eq!(ms["4"], 50.0);
        let mut j = JobStats::default();
        for d in [1, 2, 3, 4, 32, 33, 64, 100] {
            j.record_depth(d);
        }
        assert_eq!(j.depth, [1, 2, 1, 0, 0, 2, 2]);
    }

    #[test]
    fn sampler_stores_only_windows_with_io() {
        let w = BW_WINDOW_NS;
        let mut s = Sampler::default();
        s.record(w / 10, 4096, 100);
        s.record(w / 5, 4096, 300);
        // a thousand hours later: nothing is stored for the idle windows
        let late = 3_600_000 * 1_000_000_000 * 1000; // a million hours: 7.2e9 windows
        s.record(late, 8192, 1000);
        s.record(late + w, 4096, 500);
        assert_eq!(s.samples.len(), 2);
        let rt = late + w + w / 2;
        let j = s.to_json(rt);
        let n = (late + w) / w;
        assert_eq!(j["iops_samples"], n);
        assert_eq!(j["iops_min"], 0);
        assert_eq!(j["iops_max"], 4);
        assert!((j["iops_mean"].as_f64().unwrap() - 3.0 / (n as f64 * 0.5)).abs() < 1e-9);
        let log = j["iops_log"].as_array().unwrap();
        assert_eq!(log.len(), 3);
        assert_eq!(log[0], json!([500, 4.0]));
        assert_eq!(j["lat_log"][0], json!([500, 200.0]));
        assert_eq!(j["lat_log"][1][1], json!(1000.0));
        // the last, partial window: 1 I/O in half a window (0.25 s)
        assert_eq!(log[2], json!([rt / 1_000_000, 4.0]));
    }

    #[test]
    fn sampler_merge_adds_windows() {
        let w = BW_WINDOW_NS;
        let (mut a, mut b) = (Sampler::default(), Sampler::default());
        a.record(0, 10, 1);
        a.record(3 * w, 10, 1);
        b.record(w, 20, 2);
        b.record(3 * w + 1, 20, 2);
        b.record(5 * w, 20, 2);
        a.merge(&b);
        let idx: Vec<_> = a.samples.iter().map(|x| (x.index, x.bytes)).collect();
        assert_eq!(idx, vec![(0, 10), (1, 20), (3, 30)]);
        let j = a.to_json(5 * w + w / 2);
        assert_eq!(j["iops_samples"], 5);
        assert_eq!(j["iops_log"].as_array().unwrap().len(), 4);
    }

    #[test]
    fn exact_moments_and_percentiles() {
        let mut s = LatStats::default();
        for v in 1..=1000u64 {
            s.record(v * 1000, 4096);
        }
        assert_eq!(s.min, 1000);
        assert_eq!(s.max, 1_000_000);
        assert!((s.mean() - 500_500.0).abs() < 1e-6);
        let p50 = s.percentile(50.0) as f64;
        assert!((p50 - 500_000.0).abs() / 500_000.0 < 0.002, "{p50}");
        let j = s.to_json(1_000_000_000);
        assert_eq!(j["iops"], 1000.0);
        assert_eq!(j["bw_bytes"], 4_096_000);
        assert!(j["lat_ns"]["percentile"]["99.000000"].as_u64().unwrap() > 980_000);
    }
}
