//! fio's latency histogram ("plat"), so that completion-latency percentiles and the
//! json+ `bins` come out the way fio computes them.
//!
//! Bucket scheme (fio's stat.h/stat.c, as documented there): values below 2 x 64 ns
//! have a bucket each; above, every power-of-two range [2^k, 2^(k+1)) is split into
//! 64 equal buckets, 29 groups in all (1,856 buckets). A bucket is reported at its
//! midpoint. Percentiles are the value of the bucket where the running count first
//! reaches p% of the samples, as fio does.

use serde_json::{json, Map, Value};

const PLAT_BITS: u32 = 6;
const PLAT_VAL: u64 = 1 << PLAT_BITS;
const PLAT_GROUP_NR: u64 = 29;
pub const PLAT_NR: usize = (PLAT_GROUP_NR * PLAT_VAL) as usize;

/// The bucket of a latency in ns.
#[inline]
pub fn val_to_idx(val: u64) -> usize {
    if val == 0 {
        return 0;
    }
    let msb = 63 - val.leading_zeros();
    if msb <= PLAT_BITS {
        return val as usize;
    }
    let error_bits = msb - PLAT_BITS;
    let base = ((error_bits + 1) as u64) << PLAT_BITS;
    let offset = (PLAT_VAL - 1) & (val >> error_bits);
    ((base + offset) as usize).min(PLAT_NR - 1)
}

/// The value a bucket stands for (its midpoint).
pub fn idx_to_val(idx: usize) -> u64 {
    let idx = idx as u64;
    if idx < (PLAT_VAL << 1) {
        return idx;
    }
    let error_bits = (idx >> PLAT_BITS) - 1;
    let base = 1u64 << (error_bits + PLAT_BITS as u64);
    let k = idx % PLAT_VAL;
    base + ((k as f64 + 0.5) * (1u64 << error_bits) as f64) as u64
}

/// Exact moments plus a fio histogram of one latency kind (slat or clat).
#[derive(Clone, Debug)]
pub struct PlatStats {
    counts: Vec<u64>,
    pub n: u64,
    pub min: u64,
    pub max: u64,
    sum: f64,
    sumsq: f64,
}

impl Default for PlatStats {
    fn default() -> Self {
        PlatStats {
            counts: vec![0; PLAT_NR],
            n: 0,
            min: u64::MAX,
            max: 0,
            sum: 0.0,
            sumsq: 0.0,
        }
    }
}

impl PlatStats {
    #[inline]
    pub fn record(&mut self, v: u64) {
        self.counts[val_to_idx(v)] += 1;
        self.n += 1;
        self.min = self.min.min(v);
        self.max = self.max.max(v);
        let f = v as f64;
        self.sum += f;
        self.sumsq += f * f;
    }

    pub fn merge(&mut self, o: &PlatStats) {
        for (a, b) in self.counts.iter_mut().zip(&o.counts) {
            *a += b;
        }
        self.n += o.n;
        self.min = self.min.min(o.min);
        self.max = self.max.max(o.max);
        self.sum += o.sum;
        self.sumsq += o.sumsq;
    }

    pub fn mean(&self) -> f64 {
        if self.n == 0 {
            0.0
        } else {
            self.sum / self.n as f64
        }
    }

    pub fn stddev(&self) -> f64 {
        if self.n < 2 {
            return 0.0;
        }
        let n = self.n as f64;
        ((self.sumsq - self.sum * self.sum / n) / (n - 1.0))
            .max(0.0)
            .sqrt()
    }

    /// fio's percentile: the first bucket whose running count reaches p% of samples.
    pub fn percentile(&self, p: f64) -> u64 {
        if self.n == 0 {
            return 0;
        }
        let want = ((p / 100.0) * self.n as f64).ceil().max(1.0) as u64;
        let mut acc = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            acc += c;
            if acc >= want {
                return idx_to_val(i);
            }
        }
        idx_to_val(PLAT_NR - 1)
    }

    /// fio's block: min, max, mean, stddev, N (+ percentiles, + json+ bins).
    pub fn to_json(&self, percentiles: bool, bins: bool) -> Value {
        let mut o = json!({
            "min": if self.n > 0 { self.min } else { 0 },
            "max": self.max,
            "mean": self.mean(),
            "stddev": self.stddev(),
            "N": self.n,
        });
        if percentiles && self.n > 0 {
            let mut pct = Map::new();
            for p in super::PERCENTILES {
                pct.insert(format!("{p:.6}"), json!(self.percentile(p)));
            }
            o["percentile"] = Value::Object(pct);
        }
        if bins && self.n > 0 {
            let mut b = Map::new();
            for (i, &c) in self.counts.iter().enumerate() {
                if c > 0 {
                    b.insert(idx_to_val(i).to_string(), json!(c));
                }
            }
            o["bins"] = Value::Object(b);
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_are_monotonic_and_values_fall_in_their_bucket() {
        assert_eq!(val_to_idx(0), 0);
        assert_eq!(val_to_idx(127), 127);
        let mut last = 0;
        for v in (1..50_000_000u64).step_by(997) {
            let i = val_to_idx(v);
            assert!(i >= last);
            last = i;
            // The bucket's midpoint is within 1/64 of the value (one bucket width).
            let mid = idx_to_val(i) as f64;
            assert!(
                (mid - v as f64).abs() <= (v as f64 / 64.0).max(1.0),
                "{v} -> {mid}"
            );
        }
    }

    #[test]
    fn percentiles_walk_the_cumulative_count() {
        let mut s = PlatStats::default();
        for v in 1..=100u64 {
            s.record(v * 1000);
        }
        let p50 = s.percentile(50.0) as f64;
        assert!((p50 - 50_000.0).abs() / 50_000.0 < 0.016, "{p50}");
        assert_eq!(s.n, 100);
        let j = s.to_json(true, true);
        assert!(j["percentile"]["99.000000"].as_u64().unwrap() >= 98_000);
        let total: u64 = j["bins"]
            .as_object()
            .unwrap()
            .values()
            .map(|v| v.as_u64().unwrap())
            .sum();
        assert_eq!(total, 100);
    }
}
