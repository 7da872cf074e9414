//! How the controller orders flash work on each die: the transaction scheduling
//! policy, program/erase suspend and resume, and the adaptive program delay of
//! seed 003. All optional: the default is read-first without suspend.

use super::units::Duration;
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum SchedPolicy {
    /// One queue per die in arrival order, whatever the kind of work.
    Fifo,
    /// Host reads, then GC reads, programs, erases (erases first when a die is out of blocks).
    ReadFirst,
    /// Read-first, but a program may be held back when a host read is expected soon
    /// (seed 003's adaptive program delay).
    AdaptiveDelay,
}

/// How long adaptive-delay holds a program it decided to hold.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum HoldTime {
    /// Data-in + α (the first model).
    #[default]
    DataIn,
    /// The die's measured average program-to-read delay, AVG_DELAY_TIME (seed 003:
    /// "program IOP is selectively delayed by AVG_DELAY_TIME").
    Average,
}

impl HoldTime {
    fn is_data_in(&self) -> bool {
        *self == HoldTime::DataIn
    }
}

fn is_zero(v: &u32) -> bool {
    *v == 0
}

#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SchedulerConfig {
    /// fifo, read-first (default) or adaptive-delay.
    #[serde(default = "default_policy")]
    pub policy: SchedPolicy,
    /// A host read arriving at a die busy programming may suspend the program
    /// (never during its data-in).
    #[serde(default)]
    pub program_suspend: bool,
    /// A host read arriving at a die busy erasing may suspend the erase.
    #[serde(default)]
    pub erase_suspend: bool,
    /// Time for the die to stop the array operation (tPSPD / tESPD).
    #[serde(default = "default_t_suspend")]
    pub t_suspend: Duration,
    /// Time added to the rest of the operation when it resumes (lengthens tPROG / tBERS).
    #[serde(default = "default_t_resume")]
    pub t_resume: Duration,
    /// Suspends allowed per program or erase operation.
    #[serde(default = "default_max_suspends")]
    pub max_suspends: u32,
    /// adaptive-delay: the window over which the program-to-read delay is averaged.
    #[serde(default = "default_window")]
    pub window: Duration,
    /// adaptive-delay: margin α over the data-in time below which a program is held.
    #[serde(default = "default_alpha")]
    pub alpha: Duration,
    /// adaptive-delay: how long a held program waits for a read: data-in (data-in + α,
    /// the default) or average (the measured average program-to-read delay, seed 003).
    #[serde(default, skip_serializing_if = "HoldTime::is_data_in")]
    pub hold: HoldTime,
    /// Host reads (read operations) a suspended program or erase serves before it
    /// resumes; 0 (default) = every read waiting on the die.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reads_per_suspend: u32,
    /// Program-verify loops (ISPP steps) a program's array time is made of; a suspend
    /// loses the loop under way, which runs again after the resume. 0 (default): a
    /// resumed program continues exactly where it stopped.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub program_loops: u32,
    /// Erase-verify loops (ISPE steps) of an erase, as `program_loops` for erases.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub erase_loops: u32,
}

impl Default for SchedulerConfig {
    fn default() -> Self {
        SchedulerConfig {
            policy: default_policy(),
            program_suspend: false,
            erase_suspend: false,
            t_suspend: default_t_suspend(),
            t_resume: default_t_resume(),
            max_suspends: default_max_suspends(),
            window: default_window(),
            alpha: default_alpha(),
            hold: HoldTime::DataIn,
            reads_per_suspend: 0,
            program_loops: 0,
            erase_loops: 0,
        }
    }
}

impl SchedulerConfig {
    pub fn validate(&self, errs: &mut Vec<String>) {
        if self.window.ns() == 0 {
            errs.push(
                "scheduler.window: must be > 0 (the averaging window of adaptive-delay)".into(),
            );
        }
        for (name, loops) in [
            ("program_loops", self.program_loops),
            ("erase_loops", self.erase_loops),
        ] {
            if loops > 1000 {
                errs.push(format!(
                    "scheduler.{name}: {loops} is out of range (allowed: 0, no loop model, \
                     or 1 to 1000 loops per operation)"
                ));
            }
        }
        if (self.program_suspend || self.erase_suspend) && self.max_suspends == 0 {
            errs.push(
                "scheduler.max_suspends: 0 with suspend enabled; allow at least 1 or turn suspend off"
                    .into(),
            );
        }
    }
}

fn default_policy() -> SchedPolicy {
    SchedPolicy::ReadFirst
}
fn default_t_suspend() -> Duration {
    Duration(20_000)
}
fn default_t_resume() -> Duration {
    Duration(50_000)
}
fn default_max_suspends() -> u32 {
    4
}
fn default_window() -> Duration {
    Duration(10_000_000)
}
fn default_alpha() -> Duration {
    Duration(20_000)
}

/// How the dies of one chip (one package target, one chip enable) take commands.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum ChipInterface {
    /// Each die (ONFI: LUN) takes a command while another die of its chip is busy
    /// (ONFI's multiple LUN operations; Read Status Enhanced 78h addresses one LUN):
    /// what real controllers do.
    #[default]
    Interleaved,
    /// A chip takes one command at a time: a die may start an operation only when no
    /// other die of its chip is between its command and the end of its data-out,
    /// program or erase (MQSim's transaction scheduler, `TSU_Base::issue_command_to_chip`).
    OneCommand,
}

impl ChipInterface {
    pub fn is_interleaved(&self) -> bool {
        *self == ChipInterface::Interleaved
    }
}

pub(crate) fn is_one(v: &u32) -> bool {
    *v == 1
}

/// `nand.dies_per_chip` and `nand.chip_interface` against the channel's dies.
pub(crate) fn validate_chips(
    dies_per_channel: u32,
    dies_per_chip: u32,
    iface: ChipInterface,
) -> Option<String> {
    if dies_per_chip == 0 || !dies_per_channel.is_multiple_of(dies_per_chip) {
        return Some(format!(
            "nand.dies_per_chip: {dies_per_chip} does not divide nand.dies_per_channel {dies_per_channel} \
             (allowed: a divisor of it; 1, the default, makes every die its own chip)"
        ));
    }
    if dies_per_chip > 32 {
        return Some(format!(
            "nand.dies_per_chip: {dies_per_chip} is out of range (allowed: 1 to 32)"
        ));
    }
    if !iface.is_interleaved() && dies_per_chip == 1 {
        return Some(
            "nand.chip_interface: \"one-command\" needs nand.dies_per_chip > 1 (with one die \
             per chip it changes nothing)"
                .into(),
        );
    }
    None
}
