//! The drive's side of the energy model (`crate::energy`): the power-state timeline
//! kept as commands come and go, the peak-power windows, the energy of the measured
//! window (after ramp_time, the span whose I/Os `j_per_io` and `j_per_gb` count), and
//! the activity read from the components' own busy-time and byte counters for the
//! report's `energy` block. Only built when `power.enabled`; otherwise nothing here runs.

use super::Ssd;
use crate::config::memory::{DataTier, MapTier};
use crate::energy::apst::PowerTimeline;
use crate::energy::{idle_w, integrate, sleep_w, Activity, ComponentsJ, EnergyStats};
use crate::sim::Ns;
use serde_json::{json, Map, Value};

/// Bytes of one on-board DRAM access for a map entry (one LPDDR4 burst, BL16 x 16 bit).
const DRAM_MAP_ACCESS_BYTES: u64 = 32;

/// Power-state timeline and peak-power windows of a run.
#[derive(Clone, Debug)]
pub(crate) struct PowerRun {
    pub timeline: PowerTimeline,
    window_ns: Ns,
    /// The open window: when it started and the drive's energy then.
    window_start: (Ns, f64),
    pub peak_w: f64,
    /// (window end in s, mean W) of every closed window.
    pub windows: Vec<[f64; 2]>,
    /// Energy (J, all components, host HMB included) of the measured window's closed
    /// spans, and the total energy when its open span started (None: closed).
    measured_j: f64,
    measured_since: Option<f64>,
}

impl PowerRun {
    pub fn new(cfg: &crate::config::DeviceConfig) -> Option<Box<Self>> {
        cfg.power.enabled.then(|| {
            Box::new(PowerRun {
                timeline: PowerTimeline::new(&cfg.power),
                window_ns: cfg.power.peak_window.ns(),
                window_start: (0, 0.0),
                peak_w: 0.0,
                windows: Vec::new(),
                measured_j: 0.0,
                measured_since: None,
            })
        })
    }
}

/// The power cap's mechanism: at most `max` dies work the array (or their bus
/// transfers) at once; a die that would start an operation past it waits for one to
/// finish.
#[derive(Clone, Debug)]
pub(crate) struct DieCap {
    pub max: u32,
    pub active: u32,
    /// A die was refused since the last slot freed.
    pub waiting: bool,
    /// Where the next scan for waiting dies starts (fairness).
    cursor: u32,
    pub limit_w: f64,
}

impl DieCap {
    pub fn new(cfg: &crate::config::DeviceConfig) -> Option<DieCap> {
        let cap = cfg.power_cap().ok().flatten()?;
        Some(DieCap {
            max: cap.max_active_dies,
            active: 0,
            waiting: false,
            cursor: 0,
            limit_w: cap.limit_w,
        })
    }
}

/// A stage that holds one of the cap's slots (anything but idle and holding).
#[inline]
pub(super) fn holds_slot(stage: crate::nand::DieStage) -> bool {
    !matches!(
        stage,
        crate::nand::DieStage::Idle | crate::nand::DieStage::Hold
    )
}

impl Ssd {
    /// Under the power cap: may an idle die start an operation now? (Refused: it is
    /// kicked again when a slot frees.)
    #[inline]
    pub(super) fn cap_refuses(&mut self) -> bool {
        match &mut self.die_cap {
            Some(c) if c.active >= c.max => {
                c.waiting = true;
                true
            }
            _ => false,
        }
    }

    /// A die's stage changes from `from` to `to`: take or give back its slot.
    #[inline]
    pub(super) fn cap_track(&mut self, from: crate::nand::DieStage, to: crate::nand::DieStage) {
        if let Some(c) = &mut self.die_cap {
            match (holds_slot(from), holds_slot(to)) {
                (false, true) => c.active += 1,
                (true, false) => c.active -= 1,
                _ => {}
            }
        }
    }

    /// Slots are free and dies were refused: kick idle dies, from the cursor on, until
    /// the slots are taken.
    pub(super) fn cap_kick_waiting(&mut self) {
        let Some(c) = &mut self.die_cap else { return };
        if !c.waiting || c.active >= c.max {
            return;
        }
        c.waiting = false;
        let start = c.cursor;
        let dies = self.geo.dies;
        for k in 0..dies {
            let die = (start + k) % dies;
            if self.dies[die as usize].stage == crate::nand::DieStage::Idle {
                self.kick_die(die);
            }
            let c = self.die_cap.as_mut().expect("set");
            if c.active >= c.max {
                c.cursor = (die + 1) % dies;
                c.waiting = true; // others may still wait
                return;
            }
        }
    }

    /// A command arrives with nothing outstanding: the idle period ends (a sleeping
    /// drive wakes; commands wait in their queue until it has).
    pub(super) fn power_busy(&mut self, now: Ns) {
        if let Some(p) = &mut self.power {
            self.awake_at = p.timeline.busy_from(now);
        }
    }

    /// The last outstanding command completed: an idle period starts; a window ends.
    pub(super) fn power_idle(&mut self, now: Ns) {
        if let Some(p) = &mut self.power {
            p.timeline.idle_from(now);
        }
        self.power_window(now);
    }

    /// Every component's energy over [0, `now`] (the timeline closed at `now`).
    fn energy_to(&self, now: Ns) -> Option<ComponentsJ> {
        let p = self.power.as_ref()?;
        let mut timeline = p.timeline.clone();
        timeline.finish(now);
        Some(integrate(&self.cfg.power, &self.activity(now, &timeline)))
    }

    /// The measured window opens (the run starts, or a group's ramp_time ends): the
    /// energy from here on is what `j_per_io` and `j_per_gb` divide.
    pub(super) fn power_measure_open(&mut self, now: Ns) {
        if self
            .power
            .as_ref()
            .is_none_or(|p| p.measured_since.is_some())
        {
            return;
        }
        let j = self.energy_to(now).map_or(0.0, |e| e.total_j());
        if let Some(p) = &mut self.power {
            p.measured_since = Some(j);
        }
    }

    /// The measured window closes (a later group starts its ramp_time).
    pub(super) fn power_measure_close(&mut self, now: Ns) {
        if self
            .power
            .as_ref()
            .is_none_or(|p| p.measured_since.is_none())
        {
            return;
        }
        let j = self.energy_to(now).map_or(0.0, |e| e.total_j());
        if let Some(p) = &mut self.power {
            let since = p.measured_since.take().unwrap_or(j);
            p.measured_j += j - since;
        }
    }

    /// Close the peak-power window if it has run its length (at a completion).
    pub(super) fn power_window(&mut self, now: Ns) {
        let Some(p) = &self.power else { return };
        if now < p.window_start.0 + p.window_ns {
            return;
        }
        let j = self.energy_to(now).map_or(0.0, |e| e.drive_j());
        let p = self.power.as_mut().expect("checked");
        let (t0, j0) = p.window_start;
        let w = (j - j0) / ((now - t0) as f64 * 1e-9);
        p.peak_w = p.peak_w.max(w);
        p.windows.push([now as f64 * 1e-9, w]);
        p.window_start = (now, j);
    }

    /// What the components did within [0, `t`], read from their own counters.
    fn activity(&self, t: Ns, timeline: &PowerTimeline) -> Activity {
        let mut phase = [0u64; 3];
        for d in &self.dies {
            let p = d.phase_by(t);
            for i in 0..3 {
                phase[i] += p[i];
            }
        }
        let f = &self.ftl.stats;
        let c = &self.counters;
        let unit = self.unit_bytes;
        let dram_gib = self.cfg.dram.size.bytes() as f64 / (1u64 << 30) as f64;
        let mut dram_bytes = 0;
        if dram_gib > 0.0 {
            if self.tiers.wb_tier == DataTier::Dram {
                dram_bytes += 2 * f.host_units_written * unit; // in from the host, out to flash
            }
            if self.tiers.rc_tier == DataTier::Dram {
                let rc = self.tiers.read_cache_stats(unit);
                if let Some(r) = rc.on {
                    dram_bytes += r.hit_bytes + r.fills * unit;
                }
            }
            if self.cfg.map_placement().tier == MapTier::Dram {
                dram_bytes += (c.user_read_txns + f.host_units_written) * DRAM_MAP_ACCESS_BYTES;
            }
        }
        let hmb = {
            let s = self.hmb_bytes();
            s.0 + s.1
        };
        Activity {
            sim_ns: t,
            dies: self.geo.dies,
            sense_ns: phase[0],
            program_ns: phase[1],
            erase_ns: phase[2],
            channel_bytes: self.channels.iter().map(|ch| ch.bytes).sum(),
            cores: self.cores.busy_ns.len() as u32,
            core_busy_ns: (0..self.cores.busy_ns.len())
                .map(|i| self.cores.busy_by(i, t))
                .sum(),
            dram_gib,
            dram_bytes,
            pcie_lanes: self.cfg.host.pcie_lanes,
            pcie_wire_bytes: self.pcie.up.wire_bytes + self.pcie.down.wire_bytes,
            hmb_bytes: hmb,
            state_ns: timeline.state_ns.clone(),
            link_ns: timeline.link_ns,
        }
    }

    /// HMB bytes read and written (map and data).
    fn hmb_bytes(&self) -> (u64, u64) {
        let h = self.device_stats().hmb;
        (h.read_bytes, h.write_bytes)
    }

    /// The report's `energy` block (None when the model is off).
    pub(super) fn energy_json(&self) -> Option<Value> {
        let p = self.power.as_ref()?;
        let now = self.now();
        let mut timeline = p.timeline.clone();
        timeline.finish(now);
        let cfg = &self.cfg.power;
        let a = self.activity(now, &timeline);
        let e = integrate(cfg, &a);
        let secs = now as f64 * 1e-9;
        let (ios, bytes) = self
            .jobs
            .iter()
            .map(|j| {
                let d = &j.stats.dirs;
                (d[0].ios + d[1].ios, d[0].bytes + d[1].bytes)
            })
            .fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        let per = |x: f64, n: u64| if n == 0 { 0.0 } else { x / n as f64 };
        // The I/Os counted are those of the measured window (after ramp_time): so is the
        // energy divided by them.
        let window_j = p.measured_j + p.measured_since.map_or(0.0, |since| e.total_j() - since);
        let mut ps = Map::new();
        for (i, ns) in timeline.state_ns.iter().enumerate() {
            ps.insert(format!("PS{i}"), json!(ns));
        }
        let mut link = Map::new();
        for (name, ns) in ["L0", "L1", "L1.2"].iter().zip(timeline.link_ns) {
            link.insert(name.to_string(), json!(ns));
        }
        let drive_j = e.drive_j();
        let avg_w = if secs > 0.0 { drive_j / secs } else { 0.0 };
        let stats = EnergyStats {
            drive_j,
            total_j: e.total_j(),
            avg_w,
            peak_w: p.peak_w.max(if p.windows.is_empty() { avg_w } else { 0.0 }),
            idle_w: idle_w(cfg, a.dies, a.cores, a.dram_gib, a.pcie_lanes),
            sleep_w: sleep_w(cfg, &a),
            window_j,
            j_per_io: per(window_j, ios),
            j_per_gb: per(window_j * 1e9, bytes),
            power_state_ns: ps,
            link_state_ns: link,
            wakeups: timeline.wakeups,
            mean_wake_ns: per(timeline.wake_ns as f64, timeline.wakeups),
            max_wake_ns: timeline.max_wake_ns,
            limit_w: self.die_cap.as_ref().map(|c| c.limit_w),
            max_active_dies: self.die_cap.as_ref().map(|c| c.max),
            window_w: p.windows.clone(),
            components: e,
        };
        Some(serde_json::to_value(stats).expect("energy stats"))
    }
}
