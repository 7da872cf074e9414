//! A job group's settle rule: run until the rate has settled, checked at doubling
//! run lengths, with `runtime` as the cap (the workload's `settle` table).
//!
//! The rule is the one `ssdlab study hmb-vs-dram` and `hmb-size` apply to random writes
//! (python/ssdlab/studies/seed000.py, its docstring says why): at each checkpoint T
//! (`first_check`, then twice that, and so on, and `runtime` last), the run's second
//! half [T/2, T] is split into two halves of W whole 500 ms windows each (the core's
//! IOPS windows, fio's `iops_avg_time`). The rate has settled when the mean IOPS of the
//! two halves differ by less than `tolerance` of their mean (the figure), two standard
//! errors of that difference (from the windows' scatter) are below `tolerance` too,
//! and, with `hold`, the figure of the run half as long (the W windows before the
//! second half) is within `tolerance` of it. Once settled the group's jobs stop
//! issuing; the I/Os in flight complete. fio's `steadystate` is a different rule
//! (a rolling window checked every second); this one tests a drift on the time scale
//! the run measures, and stops only at a checkpoint, so a settled run's length is one
//! of a few values.
//!
//! Simplified: the rate counted is every direction's I/Os together (a job group that
//! mixes reads and writes settles on their sum).

use super::units::Secs;
use serde::{Deserialize, Serialize};

/// The windows of the core's IOPS log (stats::BW_WINDOW_NS), in ns.
const WINDOW_NS: u64 = crate::stats::BW_WINDOW_NS;

fn default_tolerance() -> f64 {
    0.05
}
fn default_min_windows() -> u32 {
    3
}
fn is_false(b: &bool) -> bool {
    !*b
}

/// The `settle` table of a workload.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SettleConfig {
    /// The first checkpoint, from the group's start (bare number: seconds); later ones
    /// double it, up to the job's `runtime`.
    pub first_check: Secs,
    /// Largest relative change (and resolution) that counts as settled (0.05: 5 %).
    #[serde(default = "default_tolerance")]
    pub tolerance: f64,
    /// Fewest windows W per half for a check to pass.
    #[serde(default = "default_min_windows")]
    pub min_windows: u32,
    /// Also require the figure of the run half as long to agree (a plateau that a
    /// run twice as long still shows, not a burst the drive's preparation left).
    #[serde(default, skip_serializing_if = "is_false")]
    pub hold: bool,
}

impl SettleConfig {
    /// The checkpoints, ns from the group's start: first_check, doubling, then runtime.
    pub fn checkpoints_ns(&self, runtime_ns: u64) -> Vec<u64> {
        let mut out = Vec::new();
        let mut t = self.first_check.ns().max(1);
        while t < runtime_ns {
            out.push(t);
            t = t.saturating_mul(2);
        }
        out.push(runtime_ns);
        out
    }

    /// Problems with the rule on a job of this `runtime` and `ramp_time` (ns).
    pub fn problems(&self, runtime_ns: Option<u64>, ramp_ns: u64) -> Vec<String> {
        let mut errs = Vec::new();
        let first = self.first_check.ns();
        let Some(runtime) = runtime_ns else {
            errs.push("settle: needs a runtime (the cap of the run)".into());
            return errs;
        };
        if !(self.tolerance > 0.0 && self.tolerance < 1.0) {
            errs.push(format!(
                "settle.tolerance: {} is not allowed (a fraction in (0, 1), such as 0.05)",
                self.tolerance
            ));
        }
        if self.min_windows < 2 {
            errs.push(format!(
                "settle.min_windows: {} is not allowed (at least 2: a scatter needs two windows per half)",
                self.min_windows
            ));
        }
        if first == 0 || first > runtime {
            errs.push(format!(
                "settle.first_check: {} is not allowed (more than 0 and at most runtime {})",
                self.first_check,
                Secs(runtime)
            ));
            return errs;
        }
        // The windows a check reads start at T/2 (T/4 with hold): after the ramp.
        let reach = if self.hold { first / 4 } else { first / 2 };
        if ramp_ns > reach {
            errs.push(format!(
                "settle: ramp_time {} is longer than {} of first_check {} (the check reads \
                 the windows from there on)",
                Secs(ramp_ns),
                if self.hold { "a quarter" } else { "half" },
                self.first_check
            ));
        }
        let need = (if self.hold { 3 } else { 2 }) * self.min_windows as u64 * WINDOW_NS;
        let span = if self.hold {
            first - first / 4
        } else {
            first / 2
        };
        if span < need {
            errs.push(format!(
                "settle.first_check: {} is too short for min_windows {} (the checked span \
                 must hold {} windows of 500 ms)",
                self.first_check,
                self.min_windows,
                need / WINDOW_NS
            ));
        }
        errs
    }
}

/// The result of one check.
#[derive(Clone, Debug, PartialEq)]
pub struct SettleCheck {
    /// The checkpoint, ns from the group's start.
    pub at_ns: u64,
    pub settled: bool,
    /// Mean IOPS of the 2W windows checked (NaN: fewer than min_windows per half).
    pub figure_iops: f64,
    /// (last half - half before) / figure.
    pub change: f64,
    /// Windows' pooled scatter about their half's mean, / figure.
    pub noise: f64,
    /// 2 * noise * sqrt(2 / W).
    pub resolution: f64,
    /// 2W.
    pub windows: u32,
    /// (figure - mean of the W windows before) / figure (NaN without hold).
    pub hold_change: f64,
}

/// The check of one checkpoint from the IOPS of the windows (oldest first) that end
/// at or before it, `first_index` being the window that starts at T/2 (T/4 with hold)
/// of the series, the series' windows being contiguous from there to the checkpoint.
pub fn check(rule: &SettleConfig, at_ns: u64, iops: &[f64]) -> SettleCheck {
    let tol = rule.tolerance;
    let w = iops.len() / if rule.hold { 3 } else { 2 };
    let nan = f64::NAN;
    let mut out = SettleCheck {
        at_ns,
        settled: false,
        figure_iops: nan,
        change: nan,
        noise: nan,
        resolution: nan,
        windows: 2 * w as u32,
        hold_change: nan,
    };
    if w < rule.min_windows as usize {
        return out;
    }
    let n = iops.len();
    let (before, last) = (&iops[n - 2 * w..n - w], &iops[n - w..]);
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (m0, m1) = (mean(before), mean(last));
    let figure = (m0 + m1) / 2.0;
    out.figure_iops = figure;
    if figure <= 0.0 {
        return out;
    }
    out.change = (m1 - m0) / figure;
    let ss: f64 = before.iter().map(|x| (x - m0).powi(2)).sum::<f64>()
        + last.iter().map(|x| (x - m1).powi(2)).sum::<f64>();
    out.noise = (ss / (2 * w - 2) as f64).sqrt() / figure;
    out.resolution = 2.0 * out.noise * (2.0 / w as f64).sqrt();
    let mut ok = out.change.abs() < tol && out.resolution < tol;
    if rule.hold {
        out.hold_change = (figure - mean(&iops[n - 3 * w..n - 2 * w])) / figure;
        ok = ok && out.hold_change.abs() < tol;
    }
    out.settled = ok;
    out
}

/// The windows a check at `at_ns` reads: indices (of windows counted from the end of
/// the ramp, `ramp_ns` after the group's start) from the first that starts at or after
/// T/2 (T/4 with hold) to the last that ends at or before T.
pub fn window_range(rule: &SettleConfig, at_ns: u64, ramp_ns: u64) -> (u64, u64) {
    let from_ns = if rule.hold { at_ns / 4 } else { at_ns / 2 };
    let lo = from_ns.saturating_sub(ramp_ns).div_ceil(WINDOW_NS);
    let hi = at_ns.saturating_sub(ramp_ns) / WINDOW_NS; // exclusive
    (lo, hi.max(lo))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(hold: bool) -> SettleConfig {
        SettleConfig {
            first_check: Secs(6_000_000_000),
            tolerance: 0.05,
            min_windows: 3,
            hold,
        }
    }

    #[test]
    fn checkpoints_double_up_to_the_runtime() {
        let r = rule(false);
        let s = 1_000_000_000;
        assert_eq!(r.checkpoints_ns(24 * s), vec![6 * s, 12 * s, 24 * s]);
        assert_eq!(r.checkpoints_ns(20 * s), vec![6 * s, 12 * s, 20 * s]);
        assert_eq!(r.checkpoints_ns(6 * s), vec![6 * s]);
    }

    #[test]
    fn a_flat_series_settles_a_drifting_or_noisy_one_does_not() {
        let flat = vec![100.0; 6];
        let c = check(&rule(false), 0, &flat);
        assert!(c.settled, "{c:?}");
        assert_eq!(c.figure_iops, 100.0);
        assert_eq!(c.windows, 6);
        // A 10 % step between the halves: change 0.1/1.05.
        let step = [100.0, 100.0, 100.0, 110.0, 110.0, 110.0];
        let c = check(&rule(false), 0, &step);
        assert!(!c.settled);
        assert!((c.change - 10.0 / 105.0).abs() < 1e-12);
        // No drift but 30 % scatter: resolution 2 * 0.3 * sqrt(2/3) ~ 0.49.
        let noisy = [70.0, 130.0, 100.0, 130.0, 70.0, 100.0];
        let c = check(&rule(false), 0, &noisy);
        assert!(
            c.change.abs() < 1e-12 && !c.settled && c.resolution > 0.4,
            "{c:?}"
        );
    }

    #[test]
    fn hold_compares_with_the_run_half_as_long() {
        // A burst that ended: flat second half, but the quarter before ran at twice the rate.
        let burst = [
            200.0, 200.0, 200.0, 100.0, 100.0, 100.0, 100.0, 100.0, 100.0,
        ];
        assert!(check(&rule(false), 0, &burst[3..]).settled);
        let c = check(&rule(true), 0, &burst);
        assert!(!c.settled && (c.hold_change + 1.0).abs() < 1e-12, "{c:?}");
    }

    #[test]
    fn the_windows_of_a_check_start_at_half_or_a_quarter_of_the_run() {
        let s = 1_000_000_000;
        // Ramp 1.5 s: a check at 12 s reads [6, 12) s, windows 9..21 after the ramp.
        assert_eq!(window_range(&rule(false), 12 * s, 3 * s / 2), (9, 21));
        assert_eq!(window_range(&rule(true), 12 * s, 3 * s / 2), (3, 21));
    }

    #[test]
    fn bad_rules_are_named() {
        let s = 1_000_000_000;
        let r = rule(true);
        assert!(r.problems(None, 0)[0].contains("needs a runtime"));
        assert!(r.problems(Some(24 * s), 2 * s)[0].contains("a quarter"));
        assert!(r.problems(Some(24 * s), 3 * s / 2).is_empty());
        let short = SettleConfig {
            first_check: Secs(2 * s),
            ..rule(false)
        };
        assert!(short.problems(Some(24 * s), 0)[0].contains("too short"));
    }
}
