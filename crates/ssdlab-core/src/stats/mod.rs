//! Latency and throughput statistics, reported with fio's JSON key names.
//!
//! Latencies (submission to completion, ns) go into an HDR histogram (3 significant
//! digits) for percentiles; min, max, mean and standard deviation are exact.
//! Derived figures (IOPS, bandwidth, percentiles) are computed at report time.

use hdrhistogram::Histogram;
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

/// Per-job statistics: read, write, trim.
#[derive(Clone, Debug, Default)]
pub struct JobStats {
    pub dirs: [LatStats; 3],
    /// When measurement started (end of ramp) and when the job's last I/O completed.
    pub start_ns: u64,
    pub end_ns: u64,
}

impl JobStats {
    pub fn runtime_ns(&self) -> u64 {
        self.end_ns.saturating_sub(self.start_ns)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
