//! The `[power]` section: what each component of the drive draws (the energy model's
//! coefficients), the NVMe power-state table, Autonomous Power State Transitions
//! (APST), the link's ASPM states and a run-level power limit.
//!
//! Models: power per NAND die in each phase of its operations and in standby, energy
//! per byte on the flash channels, controller cores busy and idle, the controller's
//! always-on logic, SRAM, on-board DRAM (standby, self-refresh, per byte accessed),
//! the PCIe link per byte and per link state, and host DRAM per byte of HMB traffic.
//! Simplifies: one figure per component and phase (no voltage, temperature or
//! process corners; multi-plane operations draw one die's phase power); defaults are
//! typical figures of public data sheets, rounded, and are assumptions where a drive's
//! own figure is not published (each says which). Off by default (`enabled = false`):
//! the section is then left out of the resolved config and reports keep their shape.
//!
//! Sources of the defaults:
//!   [onfi-tlc]  ONFI-class 3D TLC NAND data sheets (e.g. Micron's MT29F 3D TLC parts): Vcc 3.3 V,
//!               VccQ 1.2 V; array read/program/erase currents ICC1/ICC2/ICC3 25 mA typical;
//!               standby ISB 10 uA typical (50 uA maximum); I/O burst current about 40 mA
//!               at 800 MT/s on VccQ.
//!   [lpddr4]    LPDDR4 8 Gbit x16 data sheets' IDD tables (VDD2 1.1 V): IDD3N about 30 mA
//!               (active standby), IDD4R about 250 mA (read burst), IDD6 about 1 mA (self
//!               refresh), 3,200 MT/s x16 = 6.4 GB/s.
//!   [lpddr4-sr] Self refresh: DRAMPower's memspec of Micron's 6 Gbit LPDDR4-3200 part
//!               (tukl-msd/DRAMPower, memspecs/MICRON_6Gb_LPDDR4-3200_32bit_A.json, from
//!               the part's IDD table): IDD6 0.3 mA at VDD1 1.8 V, IDD62 0.5 mA at VDD2
//!               1.1 V, IDD6Q 0.1 mA at VDDQ 1.1 V, 1.2 mW per 6 Gbit; scaled by capacity
//!               (refresh current grows with the cells refreshed; an approximation) to
//!               1.6 mW per GiB. Replaces the round "IDD6 about 1 mA" of [lpddr4] (3 mW/GiB).
//!   [ddr4]      Host DDR4 access energy of the order of 20 pJ/bit including I/O (O'Connor et
//!               al., "Fine-Grained DRAM", MICRO 2017, whose introduction compares DRAM
//!               generations' energy per bit).
//!   [serdes]    PCIe Gen3-class SerDes at 5 pJ/bit (ISSCC serial-link surveys put 8 Gb/s
//!               transceivers at a few pJ/bit): about 80 mW per lane (both directions) in L0.
//!   [970ps]     AnandTech, Samsung 970 EVO Plus review, "NVMe Power States" (what the drive
//!               reports to the OS): PS0 7.8 W, PS1 6.0 W, PS2 3.4 W operational; PS3 70 mW
//!               (entry 0.21 ms, exit 1.2 ms) and PS4 10 mW (entry 2 ms, exit 8 ms) idle.
//!   [linux]     Linux drivers/nvme/host/core.c, nvme_configure_apst (v5.14 on): module
//!               parameters apst_primary_timeout_ms = 100, apst_secondary_timeout_ms = 2000,
//!               apst_primary_latency_tol_us = 15000, apst_secondary_latency_tol_us = 100000,
//!               default_ps_max_latency_us = 100000; without the primary/secondary
//!               parameters, the heuristic "idle 50 x (entry + exit latency)".

use super::units::Duration;
use serde::{Deserialize, Serialize};

/// One entry of the NVMe power-state descriptor table (Identify Controller).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PowerStateConfig {
    /// Maximum power the state allows (W; NVMe's MP field).
    pub max_w: f64,
    /// The controller processes I/O in this state (an operational state).
    pub operational: bool,
    /// Time to enter the state (NVMe ENLAT).
    #[serde(default)]
    pub entry_latency: Duration,
    /// Time to leave it for the operational state (NVMe EXLAT): the first I/O after
    /// a stay here waits this long.
    #[serde(default)]
    pub exit_latency: Duration,
    /// Non-operational states: what the controller's always-on logic draws here (W;
    /// the rest of the controller is power-gated).
    #[serde(default)]
    pub controller_w: f64,
    /// Non-operational states: the link's state here, "L1" or "L1.2".
    #[serde(default = "default_state_link")]
    pub link: String,
}

fn default_state_link() -> String {
    "L1".into()
}

fn ps(max_w: f64, op: bool, en_us: u64, ex_us: u64, ctrl_w: f64, link: &str) -> PowerStateConfig {
    PowerStateConfig {
        max_w,
        operational: op,
        entry_latency: Duration(en_us * 1000),
        exit_latency: Duration(ex_us * 1000),
        controller_w: ctrl_w,
        link: link.into(),
    }
}

/// The default table: [970ps]'s (a client drive of 2019); the controller's always-on
/// power in PS3 and PS4 is an assumption (a few mW of retention logic).
fn default_states() -> Vec<PowerStateConfig> {
    vec![
        ps(7.8, true, 0, 0, 0.0, "L1"),
        ps(6.0, true, 0, 0, 0.0, "L1"),
        ps(3.4, true, 0, 0, 0.0, "L1"),
        ps(0.07, false, 210, 1200, 0.015, "L1"),
        ps(0.01, false, 2000, 8000, 0.002, "L1.2"),
    ]
}

/// The `[power]` section (see the module header for sources).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct PowerConfig {
    /// Compute the energy model and add an `energy` block to the report (default false).
    pub enabled: bool,
    /// NAND die power while sensing a page (W per die; [onfi-tlc] 3.3 V x 25 mA).
    pub nand_read_w: f64,
    /// NAND die power while programming (W per die; [onfi-tlc] 3.3 V x 25 mA).
    pub nand_program_w: f64,
    /// NAND die power while erasing (W per die; [onfi-tlc] 3.3 V x 25 mA).
    pub nand_erase_w: f64,
    /// NAND die power in standby, between operations (W per die; [onfi-tlc] 3.3 V x 10 uA
    /// typical).
    pub nand_standby_w: f64,
    /// Energy per byte moved on a flash channel, NAND and controller I/O together
    /// (J/byte; [onfi-tlc] 1.2 V x 40 mA at 800 MB/s is 60 pJ/B on each side).
    pub channel_j_per_byte: f64,
    /// Power of a firmware core while busy (W per core; assumption: a Cortex-R-class
    /// core near 1 GHz).
    pub core_busy_w: f64,
    /// Power of a firmware core while idle, clock-gated (W per core; assumption).
    pub core_idle_w: f64,
    /// The rest of the controller while operational: NVMe front end, DMA, flash PHYs,
    /// clocks (W; assumption).
    pub controller_static_w: f64,
    /// Controller data-path energy per byte between host and flash: DMA, ECC encode
    /// or decode, encryption (J/byte; assumption: LDPC decoders of tens of pJ/bit).
    pub datapath_j_per_byte: f64,
    /// Controller SRAM leakage while operational (W; assumption).
    pub sram_w: f64,
    /// On-board DRAM standby power per GiB (W/GiB; [lpddr4] 1.1 V x IDD3N 30 mA per 8 Gbit).
    pub dram_standby_w_per_gib: f64,
    /// On-board DRAM self-refresh power per GiB, in non-operational states (W/GiB;
    /// [lpddr4-sr]: 1.2 mW per 6 Gbit, 1.6 mW per GiB scaled by capacity).
    pub dram_self_refresh_w_per_gib: f64,
    /// On-board DRAM energy per byte read or written (J/byte; [lpddr4] (IDD4R - IDD3N) x
    /// VDD2 / 6.4 GB/s is about 38 pJ/B, rounded up for I/O).
    pub dram_j_per_byte: f64,
    /// PCIe link power per lane in L0, both directions, whether or not data moves
    /// (W/lane; [serdes]).
    pub pcie_l0_w_per_lane: f64,
    /// PCIe link power per lane in L1 (W/lane; assumption: PLL on, SerDes off).
    pub pcie_l1_w_per_lane: f64,
    /// PCIe link power per lane in L1.2 (W/lane; assumption: clock request off).
    pub pcie_l1_2_w_per_lane: f64,
    /// Link-layer energy per byte on the wire, above L0 (J/byte; assumption).
    pub pcie_j_per_byte: f64,
    /// ASPM: "off" (the link stays in L0), "L1" (L1 after `aspm_l1_idle` with no command
    /// outstanding, and in non-operational states), or "L1.2" (as L1; non-operational
    /// states whose `link` is "L1.2" use L1.2).
    pub aspm: String,
    /// Host idle time before the link enters L1 (ASPM's L1 entry timer).
    pub aspm_l1_idle: Duration,
    /// Time to bring the link from L1 back to L0 (the first I/O after it waits).
    pub aspm_l1_exit: Duration,
    /// Host DRAM energy per byte the drive reads or writes in the HMB (J/byte; [ddr4]).
    pub host_dram_j_per_byte: f64,
    /// NVMe power states, PS0 first (default: [970ps]'s table).
    pub states: Vec<PowerStateConfig>,
    /// Autonomous Power State Transitions: "linux" (the Linux driver's default table
    /// [linux]), "linux-heuristic" (idle 50 x (entry + exit) per state) or "off".
    pub apst: String,
    /// The host's latency tolerance: non-operational states whose exit latency exceeds
    /// it are not used (Linux's default_ps_max_latency_us [linux]).
    pub ps_max_latency: Duration,
    /// The operational power state the host sets (NVMe Set Features, Power Management);
    /// a state below PS0 caps the drive's power at its `max_w`.
    pub operational_state: u32,
    /// A run-level power cap (W), below the operational state's: NAND operations
    /// wait so that the drive's worst-case power stays under it. 0: none.
    pub limit_w: f64,
    /// Window over which peak power is measured.
    pub peak_window: Duration,
}

impl Default for PowerConfig {
    fn default() -> Self {
        PowerConfig {
            enabled: false,
            nand_read_w: 0.0825,
            nand_program_w: 0.0825,
            nand_erase_w: 0.0825,
            nand_standby_w: 0.000033,
            channel_j_per_byte: 1.2e-10,
            core_busy_w: 0.15,
            core_idle_w: 0.02,
            controller_static_w: 0.6,
            datapath_j_per_byte: 1.6e-10,
            sram_w: 0.05,
            dram_standby_w_per_gib: 0.037,
            dram_self_refresh_w_per_gib: 0.0016,
            dram_j_per_byte: 4.0e-11,
            pcie_l0_w_per_lane: 0.08,
            pcie_l1_w_per_lane: 0.01,
            pcie_l1_2_w_per_lane: 0.0002,
            pcie_j_per_byte: 1.0e-11,
            aspm: "L1.2".into(),
            aspm_l1_idle: Duration(32_000),
            aspm_l1_exit: Duration(8_000),
            host_dram_j_per_byte: 1.6e-10,
            states: default_states(),
            apst: "linux".into(),
            ps_max_latency: Duration(100_000_000),
            operational_state: 0,
            limit_w: 0.0,
            peak_window: Duration(10_000_000),
        }
    }
}

pub const APST_ALLOWED: &str = "linux, linux-heuristic, off";
pub const ASPM_ALLOWED: &str = "off, L1, L1.2";

impl PowerConfig {
    /// Left out of the resolved config (and so of every report) while disabled.
    pub fn is_off(&self) -> bool {
        !self.enabled
    }

    /// Every problem, each naming its field and what is allowed.
    pub fn validate(&self, errs: &mut Vec<String>) {
        if !self.enabled {
            return;
        }
        let nonneg = [
            ("power.nand_read_w", self.nand_read_w),
            ("power.nand_program_w", self.nand_program_w),
            ("power.nand_erase_w", self.nand_erase_w),
            ("power.nand_standby_w", self.nand_standby_w),
            ("power.channel_j_per_byte", self.channel_j_per_byte),
            ("power.core_busy_w", self.core_busy_w),
            ("power.core_idle_w", self.core_idle_w),
            ("power.controller_static_w", self.controller_static_w),
            ("power.datapath_j_per_byte", self.datapath_j_per_byte),
            ("power.sram_w", self.sram_w),
            ("power.dram_standby_w_per_gib", self.dram_standby_w_per_gib),
            (
                "power.dram_self_refresh_w_per_gib",
                self.dram_self_refresh_w_per_gib,
            ),
            ("power.dram_j_per_byte", self.dram_j_per_byte),
            ("power.pcie_l0_w_per_lane", self.pcie_l0_w_per_lane),
            ("power.pcie_l1_w_per_lane", self.pcie_l1_w_per_lane),
            ("power.pcie_l1_2_w_per_lane", self.pcie_l1_2_w_per_lane),
            ("power.pcie_j_per_byte", self.pcie_j_per_byte),
            ("power.host_dram_j_per_byte", self.host_dram_j_per_byte),
            ("power.limit_w", self.limit_w),
        ];
        for (field, v) in nonneg {
            if !(v.is_finite() && v >= 0.0) {
                errs.push(format!(
                    "{field}: {v} is not allowed (allowed: a number >= 0)"
                ));
            }
        }
        if !matches!(self.apst.as_str(), "linux" | "linux-heuristic" | "off") {
            errs.push(format!(
                "power.apst: '{}' is not allowed (allowed: {APST_ALLOWED})",
                self.apst
            ));
        }
        if !matches!(self.aspm.as_str(), "off" | "L1" | "L1.2") {
            errs.push(format!(
                "power.aspm: '{}' is not allowed (allowed: {ASPM_ALLOWED})",
                self.aspm
            ));
        }
        if self.peak_window.ns() == 0 {
            errs.push("power.peak_window: must be > 0".into());
        }
        if self.states.is_empty() || !self.states[0].operational {
            errs.push("power.states: the first state (PS0) must exist and be operational".into());
        }
        if self.states.len() > 32 {
            errs.push(format!(
                "power.states: {} states (allowed: 1 to 32, NVMe's limit)",
                self.states.len()
            ));
        }
        for (i, s) in self.states.iter().enumerate() {
            if !(s.max_w.is_finite() && s.max_w > 0.0) {
                errs.push(format!(
                    "power.states[{i}].max_w: {} is not allowed (allowed: a number > 0)",
                    s.max_w
                ));
            }
            if !(s.controller_w.is_finite() && s.controller_w >= 0.0) {
                errs.push(format!(
                    "power.states[{i}].controller_w: {} is not allowed (allowed: a number >= 0)",
                    s.controller_w
                ));
            }
            if !matches!(s.link.as_str(), "L1" | "L1.2") {
                errs.push(format!(
                    "power.states[{i}].link: '{}' is not allowed (allowed: L1, L1.2)",
                    s.link
                ));
            }
        }
        let op = self.operational_state as usize;
        if op >= self.states.len() || !self.states.get(op).is_some_and(|s| s.operational) {
            errs.push(format!(
                "power.operational_state: {op} is not an operational state of power.states \
                 (allowed: {})",
                self.states
                    .iter()
                    .enumerate()
                    .filter(|(_, s)| s.operational)
                    .map(|(i, _)| i.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
    }
}

/// The run-level power cap and what it allows: NAND operations that may run at once.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PowerCap {
    /// The cap (W): `limit_w`, or the operational state's `max_w`, whichever is lower.
    pub limit_w: f64,
    /// The drive's worst case with no die working (W): every core busy, static logic,
    /// SRAM, DRAM at full bandwidth, the link in L0 at full rate both ways.
    pub base_w: f64,
    /// Extra power of one working die: its highest phase, and its channel (with the
    /// controller's data path) at the bus rate (W).
    pub die_w: f64,
    /// Dies that may work the array at once.
    pub max_active_dies: u32,
}

impl super::DeviceConfig {
    /// The power cap in force (None: no cap, or one the drive never reaches). Error:
    /// a cap below the drive's draw with one die working.
    pub fn power_cap(&self) -> Result<Option<PowerCap>, String> {
        let p = &self.power;
        if !p.enabled {
            return Ok(None);
        }
        let state_w = p
            .states
            .get(p.operational_state as usize)
            .map_or(f64::INFINITY, |s| {
                if p.operational_state == 0 {
                    f64::INFINITY
                } else {
                    s.max_w
                }
            });
        let limit_w = if p.limit_w > 0.0 {
            p.limit_w.min(state_w)
        } else {
            state_w
        };
        if !limit_w.is_finite() {
            return Ok(None);
        }
        let (base_w, die_w) = self.power_parts();
        let dies = self.nand.channels * self.nand.dies_per_channel;
        let room = limit_w - base_w;
        if room < die_w {
            return Err(format!(
                "power.limit_w: a cap of {limit_w:.3} W is below what the drive may draw with \
                 one die working ({:.3} W: {base_w:.3} W without the array, {die_w:.3} W per die)",
                base_w + die_w
            ));
        }
        let n = if die_w > 0.0 {
            (room / die_w).floor()
        } else {
            f64::INFINITY
        };
        if n >= dies as f64 {
            return Ok(None);
        }
        Ok(Some(PowerCap {
            limit_w,
            base_w,
            die_w,
            max_active_dies: n as u32,
        }))
    }

    /// (W) The drive's worst case with no die working the array, and one die's extra
    /// power in its highest phase (the power cap's two terms).
    pub fn power_parts(&self) -> (f64, f64) {
        let p = &self.power;
        let dies = self.nand.channels * self.nand.dies_per_channel;
        let dram_gib = self.dram.size.bytes() as f64 / (1u64 << 30) as f64;
        let dram_bw = if dram_gib > 0.0 {
            self.dram.bandwidth.0
        } else {
            0.0
        };
        let base_w = self.controller.cores as f64 * p.core_busy_w
            + p.controller_static_w
            + p.sram_w
            + dram_gib * p.dram_standby_w_per_gib
            + dram_bw * p.dram_j_per_byte
            + self.host.pcie_lanes as f64 * p.pcie_l0_w_per_lane
            + 2.0 * self.link_bytes_per_s() * p.pcie_j_per_byte
            + dies as f64 * p.nand_standby_w;
        // A working die may also keep its channel busy (data-in of a cached program
        // while it programs): the channel and data-path energy at the bus rate.
        let die_w = p.nand_read_w.max(p.nand_program_w).max(p.nand_erase_w) - p.nand_standby_w
            + self.channel_bytes_per_s() * (p.channel_j_per_byte + p.datapath_j_per_byte);
        (base_w, die_w)
    }
}
