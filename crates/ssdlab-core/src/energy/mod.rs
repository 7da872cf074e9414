//! The energy model: joules per component, integrated from the simulation's own busy
//! times and byte counts (die time per phase, channel bytes, firmware-core busy time,
//! link bytes, time in each NVMe power state and link state), with the coefficients
//! of the device's `[power]` section (config/power.rs, which cites their sources).
//!
//! Models: E = sum over components of (power in each state x time in that state) +
//! (energy per byte x bytes moved). NAND dies draw their phase power while sensing,
//! programming (suspending counts as programming) and erasing, and standby power
//! otherwise; channel transfers and the controller's data path cost per byte; cores
//! draw busy or idle power; the controller's static logic, SRAM and on-board DRAM
//! standby are drawn while the drive is in an operational state, and in a
//! non-operational state the controller's always-on power and DRAM self-refresh
//! replace them; the link draws its L0, L1 or L1.2 power per lane plus energy per
//! wire byte; the host DRAM pays per byte of HMB traffic (a separate, host-side
//! component, so that an HMB drive's saving is not overstated).
//! Simplifies: on-board DRAM traffic is counted from the data paths that use it (the
//! write buffer, the read cache and map entries; 32 bytes, one LPDDR4 burst, per map
//! access); no thermal model, no voltage-regulator losses; peak power is the highest
//! mean over windows of at least `power.peak_window`, each closed by the first
//! completion after its end (a run with fewer completions has fewer windows).

pub mod apst;

use crate::config::power::PowerConfig;
use serde::Serialize;

/// What the run did, as the energy model needs it (filled from the components'
/// counters at report time).
#[derive(Clone, Debug, Default)]
pub struct Activity {
    /// Simulated time (ns).
    pub sim_ns: u64,
    pub dies: u32,
    /// Die time sensing, programming and erasing, all dies (ns).
    pub sense_ns: u64,
    pub program_ns: u64,
    pub erase_ns: u64,
    /// Bytes on all flash channels.
    pub channel_bytes: u64,
    /// Firmware cores and their busy time, all cores (ns).
    pub cores: u32,
    pub core_busy_ns: u64,
    /// On-board DRAM (GiB; 0: none) and the bytes read and written in it.
    pub dram_gib: f64,
    pub dram_bytes: u64,
    pub pcie_lanes: u32,
    /// Bytes on the link's wire, both directions.
    pub pcie_wire_bytes: u64,
    /// Bytes the drive read and wrote in the HMB.
    pub hmb_bytes: u64,
    /// Time in each power state (ns; sums to `sim_ns`).
    pub state_ns: Vec<u64>,
    /// Time with the link in L0, L1 and L1.2 (ns).
    pub link_ns: [u64; 3],
}

/// Joules per component.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct ComponentsJ {
    pub nand_read_j: f64,
    pub nand_program_j: f64,
    pub nand_erase_j: f64,
    pub nand_standby_j: f64,
    pub channel_j: f64,
    pub controller_cores_j: f64,
    pub controller_static_j: f64,
    pub controller_datapath_j: f64,
    pub sram_j: f64,
    pub dram_j: f64,
    pub pcie_j: f64,
    /// Host DRAM energy of the drive's HMB traffic (host side).
    pub host_hmb_j: f64,
}

impl ComponentsJ {
    /// Every component's joules, named.
    pub fn entries(&self) -> [(&'static str, f64); 12] {
        [
            ("nand_read_j", self.nand_read_j),
            ("nand_program_j", self.nand_program_j),
            ("nand_erase_j", self.nand_erase_j),
            ("nand_standby_j", self.nand_standby_j),
            ("channel_j", self.channel_j),
            ("controller_cores_j", self.controller_cores_j),
            ("controller_static_j", self.controller_static_j),
            ("controller_datapath_j", self.controller_datapath_j),
            ("sram_j", self.sram_j),
            ("dram_j", self.dram_j),
            ("pcie_j", self.pcie_j),
            ("host_hmb_j", self.host_hmb_j),
        ]
    }

    /// The drive's own energy (every component but the host's DRAM).
    pub fn drive_j(&self) -> f64 {
        self.entries()
            .iter()
            .filter(|(n, _)| *n != "host_hmb_j")
            .map(|(_, j)| j)
            .sum()
    }

    pub fn total_j(&self) -> f64 {
        self.entries().iter().map(|(_, j)| j).sum()
    }
}

const NS: f64 = 1e-9;

/// Integrate the energy of a run's activity.
pub fn integrate(cfg: &PowerConfig, a: &Activity) -> ComponentsJ {
    let t = a.sim_ns as f64 * NS;
    let nonop_ns: u64 = a
        .state_ns
        .iter()
        .zip(&cfg.states)
        .filter(|(_, s)| !s.operational)
        .map(|(ns, _)| ns)
        .sum();
    let t_nonop = nonop_ns as f64 * NS;
    let t_op = (t - t_nonop).max(0.0);
    let phase_ns = a.sense_ns + a.program_ns + a.erase_ns;
    let die_idle = (a.dies as f64 * t - phase_ns as f64 * NS).max(0.0);
    let core_idle = (a.cores as f64 * t_op - a.core_busy_ns as f64 * NS).max(0.0);
    let retention: f64 = a
        .state_ns
        .iter()
        .zip(&cfg.states)
        .filter(|(_, s)| !s.operational)
        .map(|(ns, s)| *ns as f64 * NS * s.controller_w)
        .sum();
    let lanes = a.pcie_lanes as f64;
    ComponentsJ {
        nand_read_j: a.sense_ns as f64 * NS * cfg.nand_read_w,
        nand_program_j: a.program_ns as f64 * NS * cfg.nand_program_w,
        nand_erase_j: a.erase_ns as f64 * NS * cfg.nand_erase_w,
        nand_standby_j: die_idle * cfg.nand_standby_w,
        channel_j: a.channel_bytes as f64 * cfg.channel_j_per_byte,
        controller_cores_j: a.core_busy_ns as f64 * NS * cfg.core_busy_w
            + core_idle * cfg.core_idle_w,
        controller_static_j: t_op * cfg.controller_static_w + retention,
        controller_datapath_j: a.channel_bytes as f64 * cfg.datapath_j_per_byte,
        sram_j: t_op * cfg.sram_w,
        dram_j: a.dram_gib
            * (t_op * cfg.dram_standby_w_per_gib + t_nonop * cfg.dram_self_refresh_w_per_gib)
            + a.dram_bytes as f64 * cfg.dram_j_per_byte,
        pcie_j: lanes
            * (a.link_ns[0] as f64 * NS * cfg.pcie_l0_w_per_lane
                + a.link_ns[1] as f64 * NS * cfg.pcie_l1_w_per_lane
                + a.link_ns[2] as f64 * NS * cfg.pcie_l1_2_w_per_lane)
            + a.pcie_wire_bytes as f64 * cfg.pcie_j_per_byte,
        host_hmb_j: a.hmb_bytes as f64 * cfg.host_dram_j_per_byte,
    }
}

/// The drive's power with nothing to do in an operational state and the link in L0
/// (W): what an idle drive draws without APST or ASPM.
pub fn idle_w(cfg: &PowerConfig, dies: u32, cores: u32, dram_gib: f64, lanes: u32) -> f64 {
    dies as f64 * cfg.nand_standby_w
        + cores as f64 * cfg.core_idle_w
        + cfg.controller_static_w
        + cfg.sram_w
        + dram_gib * cfg.dram_standby_w_per_gib
        + lanes as f64 * cfg.pcie_l0_w_per_lane
}

/// The drive's power in each non-operational state (W), "PS3": ..., integrated by
/// the same model over a stay in it with nothing else happening.
pub fn sleep_w(cfg: &PowerConfig, base: &Activity) -> serde_json::Map<String, serde_json::Value> {
    let mut out = serde_json::Map::new();
    for (i, s) in cfg.states.iter().enumerate() {
        if s.operational {
            continue;
        }
        let mut state_ns = vec![0; cfg.states.len()];
        state_ns[i] = 1_000_000_000;
        let mut link_ns = [0; 3];
        let link = match cfg.aspm.as_str() {
            "off" => 0,
            "L1.2" if s.link == "L1.2" => 2,
            _ => 1,
        };
        link_ns[link] = 1_000_000_000;
        let a = Activity {
            sim_ns: 1_000_000_000,
            dies: base.dies,
            cores: base.cores,
            dram_gib: base.dram_gib,
            pcie_lanes: base.pcie_lanes,
            state_ns,
            link_ns,
            ..Activity::default()
        };
        out.insert(
            format!("PS{i}"),
            serde_json::json!(integrate(cfg, &a).drive_j()),
        );
    }
    out
}

/// The report's `energy` block.
#[derive(Clone, Debug, Serialize)]
pub struct EnergyStats {
    /// Joules per component.
    pub components: ComponentsJ,
    /// The drive's energy: every component but `host_hmb_j` (J).
    pub drive_j: f64,
    /// Drive and host HMB energy: the sum of the components (J).
    pub total_j: f64,
    /// drive_j / simulated time (W).
    pub avg_w: f64,
    /// Highest mean drive power over a window of at least power.peak_window (W).
    pub peak_w: f64,
    /// What the drive draws idle in its operational state, link in L0 (W).
    pub idle_w: f64,
    /// What it draws in each non-operational state (W).
    pub sleep_w: serde_json::Map<String, serde_json::Value>,
    /// All components' energy over the measured window: from the end of ramp_time (the
    /// start of the run without one) to the end, the span whose I/Os the report counts (J).
    pub window_j: f64,
    /// window_j per I/O completed in the measured window (J).
    pub j_per_io: f64,
    /// window_j per GB (1e9 bytes) the host read and wrote in the measured window (J/GB).
    pub j_per_gb: f64,
    /// Time in each NVMe power state, "PS0".. (ns).
    pub power_state_ns: serde_json::Map<String, serde_json::Value>,
    /// Time with the link in L0, L1 and L1.2 (ns).
    pub link_state_ns: serde_json::Map<String, serde_json::Value>,
    /// Commands that found the drive asleep (non-operational state or link in L1).
    pub wakeups: u64,
    /// Mean and largest wake-up latency those commands waited (ns).
    pub mean_wake_ns: f64,
    pub max_wake_ns: u64,
    /// The run-level power cap in force (W; absent: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit_w: Option<f64>,
    /// NAND operations that could start at once under the cap (absent: no cap).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_active_dies: Option<u32>,
    /// Drive power per peak window: (window end in s, mean W), in order.
    pub window_w: Vec<[f64; 2]>,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn activity() -> Activity {
        Activity {
            sim_ns: 1_000_000_000,
            dies: 8,
            sense_ns: 300_000_000,
            program_ns: 200_000_000,
            erase_ns: 10_000_000,
            channel_bytes: 1 << 30,
            cores: 2,
            core_busy_ns: 500_000_000,
            dram_gib: 1.0,
            dram_bytes: 1 << 28,
            pcie_lanes: 4,
            pcie_wire_bytes: 1 << 30,
            hmb_bytes: 1 << 20,
            state_ns: vec![1_000_000_000, 0, 0, 0, 0],
            link_ns: [1_000_000_000, 0, 0],
        }
    }

    #[test]
    fn total_is_the_sum_of_the_components() {
        let cfg = PowerConfig::default();
        let e = integrate(&cfg, &activity());
        let sum: f64 = e.entries().iter().map(|(_, j)| j).sum();
        assert!((e.total_j() - sum).abs() < 1e-12);
        assert!((e.drive_j() + e.host_hmb_j - sum).abs() < 1e-12);
        assert!(e.entries().iter().all(|(_, j)| *j > 0.0));
    }

    #[test]
    fn nothing_to_do_draws_the_idle_power() {
        let cfg = PowerConfig::default();
        let a = Activity {
            sim_ns: 2_000_000_000,
            dies: 16,
            cores: 4,
            dram_gib: 0.5,
            pcie_lanes: 4,
            state_ns: vec![2_000_000_000, 0, 0, 0, 0],
            link_ns: [2_000_000_000, 0, 0],
            ..Activity::default()
        };
        let e = integrate(&cfg, &a);
        let w = e.total_j() / 2.0;
        let idle = idle_w(&cfg, 16, 4, 0.5, 4);
        assert!((w - idle).abs() < 1e-12 * idle, "{w} vs {idle}");
    }

    #[test]
    fn a_non_operational_state_replaces_the_operational_idle_power() {
        let cfg = PowerConfig::default();
        let a = Activity {
            sim_ns: 1_000_000_000,
            dies: 16,
            cores: 4,
            dram_gib: 1.0,
            pcie_lanes: 4,
            state_ns: vec![0, 0, 0, 0, 1_000_000_000],
            link_ns: [0, 0, 1_000_000_000],
            ..Activity::default()
        };
        let w = integrate(&cfg, &a).total_j();
        let expect = cfg.states[4].controller_w
            + cfg.dram_self_refresh_w_per_gib
            + 16.0 * cfg.nand_standby_w
            + 4.0 * cfg.pcie_l1_2_w_per_lane;
        assert!((w - expect).abs() < 1e-12, "{w} vs {expect}");
        assert!(
            w < cfg.states[4].max_w,
            "within the state's declared maximum"
        );
    }
}
