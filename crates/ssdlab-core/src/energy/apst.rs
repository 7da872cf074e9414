//! NVMe power states over time: Autonomous Power State Transitions (APST) and the
//! link's ASPM states during the host's idle periods, and the wake-up latency the
//! first command after one of them pays.
//!
//! Models: the drive is idle when the host has no command outstanding (NVMe's
//! definition of controller idle for APST); after the idle time of the table's first
//! transition it enters that non-operational state (its entry latency counted in it),
//! and so on down the table; the link enters L1 after `aspm_l1_idle` and the
//! non-operational state's own link state (L1 or L1.2) with it. A command arriving in
//! a non-operational state waits for the rest of an unfinished entry plus the state's
//! exit latency; one arriving with the link in L1 waits `aspm_l1_exit`. The table is
//! the one the Linux driver programs [linux in config/power.rs]: each non-operational
//! state whose exit latency is within `ps_max_latency` gets the primary timeout
//! (100 ms) when its entry + exit latency is within 15 ms, else the secondary (2 s)
//! when within 100 ms; of states with the same timeout the deepest is used. The
//! heuristic variant waits 50 x (entry + exit latency) before each state.
//! Simplifies: the accounting is done in O(1) when an idle period ends, not by
//! events; background work the drive does while the host is idle (GC, folding) does
//! not delay the transitions (its energy is still counted by the component model).

use crate::config::power::PowerConfig;
use crate::sim::Ns;

/// Entering a non-operational state at `at_ns` of an idle period.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Step {
    /// The power state entered (index into the table).
    pub state: usize,
    /// Time from the start of the idle period to the start of its entry.
    pub at_ns: Ns,
    pub entry_ns: Ns,
    pub exit_ns: Ns,
    /// The link is in L1.2 (else L1) while the drive is in this state.
    pub l1_2: bool,
}

/// The transitions APST makes during an idle period, in order.
pub fn apst_steps(cfg: &PowerConfig) -> Vec<Step> {
    let nonop: Vec<usize> = (0..cfg.states.len())
        .filter(|&i| {
            !cfg.states[i].operational && cfg.states[i].exit_latency.ns() <= cfg.ps_max_latency.ns()
        })
        .collect();
    // (state, idle time in the previous state before its entry)
    let mut chosen: Vec<(usize, Ns)> = Vec::new();
    match cfg.apst.as_str() {
        "linux" => {
            const PRIMARY: (Ns, Ns) = (15_000_000, 100_000_000); // tolerance, timeout
            const SECONDARY: (Ns, Ns) = (100_000_000, 2_000_000_000);
            let mut primary = None;
            let mut secondary = None;
            for &i in &nonop {
                let s = &cfg.states[i];
                let total = s.entry_latency.ns() + s.exit_latency.ns();
                if total <= PRIMARY.0 {
                    primary = Some(i); // the deepest within tolerance wins
                } else if total <= SECONDARY.0 {
                    secondary = Some(i);
                }
            }
            if let Some(i) = primary {
                chosen.push((i, PRIMARY.1));
            }
            if let Some(i) = secondary {
                if primary.is_none_or(|p| i > p) {
                    chosen.push((i, SECONDARY.1));
                }
            }
        }
        "linux-heuristic" => {
            for &i in &nonop {
                let s = &cfg.states[i];
                chosen.push((i, 50 * (s.entry_latency.ns() + s.exit_latency.ns())));
            }
        }
        _ => {}
    }
    let mut at = 0;
    let mut prev_entry = 0;
    chosen
        .into_iter()
        .map(|(i, wait)| {
            let s = &cfg.states[i];
            at += prev_entry + wait;
            prev_entry = s.entry_latency.ns();
            Step {
                state: i,
                at_ns: at,
                entry_ns: s.entry_latency.ns(),
                exit_ns: s.exit_latency.ns(),
                l1_2: cfg.aspm == "L1.2" && s.link == "L1.2",
            }
        })
        .collect()
}

/// Time in each power state and link state, and the wake-ups, over a run.
#[derive(Clone, Debug)]
pub struct PowerTimeline {
    steps: Vec<Step>,
    /// Operational state the drive runs in while not idle in a deeper one.
    op_state: usize,
    /// Idle time before L1 (None: ASPM off).
    l1_after_ns: Option<Ns>,
    l1_exit_ns: Ns,
    /// Start of the current idle period (None: commands outstanding).
    idle_since: Option<Ns>,
    /// Time in each power state (ns), the operational state's including busy time.
    pub state_ns: Vec<u64>,
    /// Time in L0, L1 and L1.2 (ns).
    pub link_ns: [u64; 3],
    /// Commands that found the drive in a non-operational state or the link in L1.
    pub wakeups: u64,
    /// Their wake-up latencies, summed and the largest (ns).
    pub wake_ns: u64,
    pub max_wake_ns: u64,
    /// Until when the drive is still waking (the first command waits to then).
    pub awake_at: Ns,
    /// The last instant accounted.
    accounted_to: Ns,
}

impl PowerTimeline {
    pub fn new(cfg: &PowerConfig) -> Self {
        PowerTimeline {
            steps: apst_steps(cfg),
            op_state: cfg.operational_state as usize,
            l1_after_ns: (cfg.aspm != "off").then_some(cfg.aspm_l1_idle.ns()),
            l1_exit_ns: cfg.aspm_l1_exit.ns(),
            idle_since: Some(0),
            state_ns: vec![0; cfg.states.len()],
            link_ns: [0; 3],
            wakeups: 0,
            wake_ns: 0,
            max_wake_ns: 0,
            awake_at: 0,
            accounted_to: 0,
        }
    }

    /// The host has nothing outstanding from `now`; the time since the last
    /// accounting was busy (operational state, link in L0).
    pub fn idle_from(&mut self, now: Ns) {
        if self.idle_since.is_none() {
            let busy = now.saturating_sub(self.accounted_to);
            self.state_ns[self.op_state] += busy;
            self.link_ns[0] += busy;
            self.accounted_to = now;
            self.idle_since = Some(now);
        }
    }

    /// A command arrives at `now`: account the idle period it ends and return when
    /// the drive can take it (`now`, or later after a wake-up).
    pub fn busy_from(&mut self, now: Ns) -> Ns {
        let Some(start) = self.idle_since.take() else {
            return now.max(self.awake_at);
        };
        let wake = self.account_idle(start, now);
        if wake > 0 {
            self.wakeups += 1;
            self.wake_ns += wake;
            self.max_wake_ns = self.max_wake_ns.max(wake);
        }
        self.accounted_to = now;
        self.awake_at = now + wake;
        self.awake_at
    }

    /// Close the accounting at the end of the run (`end` >= every earlier time).
    pub fn finish(&mut self, end: Ns) {
        match self.idle_since {
            Some(start) => {
                self.account_idle(start, end);
            }
            None => {
                let busy = end.saturating_sub(self.accounted_to);
                self.state_ns[self.op_state] += busy;
                self.link_ns[0] += busy;
            }
        }
        self.accounted_to = end;
        self.idle_since = Some(end);
    }

    /// Split the idle period [start, end) among states; returns the wake-up latency
    /// a command arriving at `end` pays.
    fn account_idle(&mut self, start: Ns, end: Ns) -> Ns {
        let len = end.saturating_sub(start);
        // The part in the operational state, before the first non-operational one.
        let first_nonop = self.steps.first().map_or(Ns::MAX, |s| s.at_ns);
        let op_part = len.min(first_nonop);
        self.state_ns[self.op_state] += op_part;
        let mut wake = 0;
        match self.l1_after_ns {
            Some(l1) if op_part > l1 => {
                self.link_ns[0] += l1;
                self.link_ns[1] += op_part - l1;
                if len == op_part {
                    wake = self.l1_exit_ns;
                }
            }
            _ => self.link_ns[0] += op_part,
        }
        for (k, s) in self.steps.iter().enumerate() {
            if len <= s.at_ns {
                break;
            }
            let until = self.steps.get(k + 1).map_or(len, |n| n.at_ns.min(len));
            let here = until - s.at_ns;
            self.state_ns[s.state] += here;
            let link = match self.l1_after_ns {
                None => 0,
                Some(_) if s.l1_2 => 2,
                Some(_) => 1,
            };
            self.link_ns[link] += here;
            if until == len {
                let entering = (s.at_ns + s.entry_ns).saturating_sub(len);
                wake = entering + s.exit_ns;
            }
        }
        wake
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linux_default_table_on_the_970_evo_plus_states() {
        let cfg = PowerConfig::default();
        let steps = apst_steps(&cfg);
        // PS3: 0.21 + 1.2 ms within 15 ms -> 100 ms; PS4: 2 + 8 ms within 15 ms too,
        // deeper -> PS4 takes the primary timeout and PS3 is not used.
        assert_eq!(steps.len(), 1);
        assert_eq!(steps[0].state, 4);
        assert_eq!(steps[0].at_ns, 100_000_000);
    }

    #[test]
    fn secondary_timeout_for_a_slow_deep_state() {
        let mut cfg = PowerConfig::default();
        cfg.states[4].exit_latency = crate::config::units::Duration(40_000_000);
        let steps = apst_steps(&cfg);
        assert_eq!(steps.iter().map(|s| s.state).collect::<Vec<_>>(), [3, 4]);
        assert_eq!(steps[1].at_ns, 100_000_000 + 210_000 + 2_000_000_000);
        cfg.ps_max_latency = crate::config::units::Duration(10_000_000);
        assert_eq!(
            apst_steps(&cfg).len(),
            1,
            "PS4's exit is above the tolerance"
        );
    }

    #[test]
    fn heuristic_waits_fifty_times_the_latencies() {
        let cfg = PowerConfig {
            apst: "linux-heuristic".into(),
            ..PowerConfig::default()
        };
        let steps = apst_steps(&cfg);
        assert_eq!(steps[0].at_ns, 50 * (210_000 + 1_200_000));
        assert_eq!(steps[1].at_ns, steps[0].at_ns + 210_000 + 50 * 10_000_000);
    }

    #[test]
    fn idle_time_is_split_and_the_wakeup_charged() {
        let cfg = PowerConfig::default();
        let mut t = PowerTimeline::new(&cfg);
        assert_eq!(t.busy_from(0), 0);
        t.idle_from(1_000);
        // 1 s idle: 100 ms in PS0 (link L0 32 us, then L1), then PS4 with L1.2.
        let ready = t.busy_from(1_000 + 1_000_000_000);
        assert_eq!(ready - 1_000_001_000, 8_000_000, "PS4's exit latency");
        t.idle_from(1_000_001_100);
        t.finish(1_000_001_100 + 50_000); // short idle at the end: L0 then L1
        let total: u64 = t.state_ns.iter().sum();
        assert_eq!(total, 1_000_051_100);
        assert_eq!(t.link_ns.iter().sum::<u64>(), total);
        assert_eq!(t.state_ns[4], 900_000_000);
        assert_eq!(t.link_ns[2], 900_000_000);
        assert_eq!(t.link_ns[1], 100_000_000 - 32_000 + 50_000 - 32_000);
        assert_eq!(t.wakeups, 1);
    }

    #[test]
    fn a_short_gap_wakes_the_link_only() {
        let cfg = PowerConfig::default();
        let mut t = PowerTimeline::new(&cfg);
        t.busy_from(0);
        t.idle_from(10);
        assert_eq!(t.busy_from(10 + 20_000), 10 + 20_000, "within the L1 timer");
        t.idle_from(30_010);
        assert_eq!(t.busy_from(30_010 + 1_000_000), 1_030_010 + 8_000);
    }
}
