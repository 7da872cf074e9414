//! A job group's settle rule at run time (the rule: config/settle.rs). At each of the
//! group's checkpoints the group's IOPS windows (every job's, every direction's, summed
//! window by window) are checked; once they have settled the group's jobs stop issuing
//! and the run ends (or the next group starts) when their I/Os in flight complete.
//! The report's `settle` lists every check.
//!
//! Simplified: a single drive only (a system's jobs do not take the rule yet:
//! `system::` refuses it); the checkpoints count from the group's start, not from each
//! job's `startdelay`.

use super::Ssd;
use crate::config::settle::{check, window_range, SettleCheck, SettleConfig};
use crate::sim::{Event, Ns};
use serde_json::{json, Value};

/// The settle rules of a run's groups and the checks made so far.
#[derive(Default)]
pub(super) struct SettleRun {
    /// Per group index (position in `Ssd::groups`): its rule, ramp and checkpoints.
    groups: Vec<Option<GroupRule>>,
    /// (group id, check), in time order.
    checks: Vec<(u32, SettleCheck)>,
}

struct GroupRule {
    rule: SettleConfig,
    ramp_ns: Ns,
    checkpoints_ns: Vec<Ns>,
}

impl SettleRun {
    /// The rules of `groups` (ids in run order), from their jobs' configs.
    pub(super) fn new(groups: &[u32], job_cfgs: &[crate::config::WorkloadConfig]) -> SettleRun {
        let groups = groups
            .iter()
            .map(|&g| {
                let w = job_cfgs.iter().find(|w| w.group == g)?;
                let rule = w.settle.clone()?;
                let runtime = w.runtime.map_or(Ns::MAX, |r| r.ns());
                Some(GroupRule {
                    checkpoints_ns: rule.checkpoints_ns(runtime),
                    ramp_ns: w.ramp_time.ns(),
                    rule,
                })
            })
            .collect();
        SettleRun {
            groups,
            checks: Vec::new(),
        }
    }

    /// The report's `settle` (None without a rule).
    pub(super) fn json(&self) -> Option<Value> {
        if self.groups.iter().all(Option::is_none) {
            return None;
        }
        let num = |v: f64| if v.is_finite() { json!(v) } else { Value::Null };
        let checks: Vec<Value> = self
            .checks
            .iter()
            .map(|(g, c)| {
                json!({
                    "groupid": g,
                    "at_s": c.at_ns as f64 / 1e9,
                    "settled": c.settled,
                    "figure_iops": num(c.figure_iops),
                    "change": num(c.change),
                    "noise": num(c.noise),
                    "resolution": num(c.resolution),
                    "windows": c.windows,
                    "hold_change": num(c.hold_change),
                })
            })
            .collect();
        // The last check of each group says whether it settled and when.
        let mut last: Vec<&(u32, SettleCheck)> = Vec::new();
        for c in &self.checks {
            match last.iter_mut().find(|l| l.0 == c.0) {
                Some(l) => *l = c,
                None => last.push(c),
            }
        }
        let settled = !last.is_empty() && last.iter().all(|l| l.1.settled);
        let at_s = last.iter().map(|l| l.1.at_ns).max().unwrap_or(0) as f64 / 1e9;
        Some(json!({ "settled": settled, "at_s": at_s, "checks": checks }))
    }
}

impl Ssd {
    /// Group index `idx` starts now: schedule its first checkpoint, if it has a rule.
    pub(super) fn settle_start_group(&mut self, idx: usize) {
        let now = self.now();
        if let Some(Some(g)) = self.settle.groups.get(idx) {
            let at = now.saturating_add(g.checkpoints_ns[0]);
            self.q.schedule(
                at,
                Event::SettleCheck {
                    group: idx as u32,
                    k: 0,
                },
            );
        }
    }

    /// Checkpoint `k` of group index `idx`: check, then stop its jobs or wait for the next.
    pub(super) fn settle_due(&mut self, idx: u32, k: u32) {
        let idx = idx as usize;
        if idx != self.group_idx {
            return; // the group ended before its checkpoint
        }
        let gid = self.groups[idx];
        let Some(Some(g)) = self.settle.groups.get(idx) else {
            return;
        };
        let now = self.now();
        let at_ns = g.checkpoints_ns[k as usize];
        let (lo, hi) = window_range(&g.rule, at_ns, g.ramp_ns);
        let mut ios = vec![0u64; (hi - lo) as usize];
        for j in self.jobs.iter().filter(|j| j.group == gid) {
            for s in &j.stats.samplers {
                s.add_ios(lo, hi, &mut ios);
            }
        }
        let secs = crate::stats::BW_WINDOW_NS as f64 / 1e9;
        let iops: Vec<f64> = ios.iter().map(|&n| n as f64 / secs).collect();
        let c = check(&g.rule, at_ns, &iops);
        let settled = c.settled;
        let next = g.checkpoints_ns.get(k as usize + 1).copied();
        self.settle.checks.push((gid, c));
        if settled {
            for job in 0..self.jobs.len() {
                let j = &mut self.jobs[job];
                if j.group != gid || j.done {
                    continue;
                }
                j.gen.stop_at(now);
                if j.inflight == 0 && j.wake_at == Ns::MAX {
                    // Nothing would wake it to see it is done.
                    j.wake_at = now;
                    self.q.schedule(now, Event::HostSubmit { job: job as u32 });
                }
            }
        } else if let Some(t) = next {
            let start = now - at_ns; // the group's start
            self.q.schedule(
                start + t,
                Event::SettleCheck {
                    group: idx as u32,
                    k: k + 1,
                },
            );
        }
    }
}
