//! Chips as well as dies: the dies of one chip (package target, one chip enable)
//! sharing one command interface, with `nand.chip_interface = "one-command"`.
//!
//! Models: a chip runs one operation at a time. A die takes the chip when it leaves
//! idle for an operation (command, sense or data-in, program or erase) and gives it
//! back when it is idle again, so a read holds its chip until its last byte is out
//! and a program until tPROG ends; the chip's other dies wait meanwhile. When an
//! operation ends, the chip's other idle dies are offered it in turn, starting with the
//! die after the one that had it, before that die may start its next operation, so
//! that busy dies alternate (work its completion itself starts, e.g. a GC step, may
//! still go first). This is MQSim's transaction
//! scheduler (CMU-SAFARI/MQSim 7ec40e3, `TSU_Base::issue_command_to_chip` issues to
//! one die of an idle chip; `TSU_Priority_OutOfOrder` checks the chip's status, not
//! the die's), read in its source.
//!
//! Simplifies: MQSim picks the die of the oldest transaction of the chip's queue
//! (highest priority class first); here the chip alternates between its dies with
//! work. A held program (adaptive delay) does not hold its chip; a die that suspends
//! its operation gives the chip back while it serves its reads.
//!
//! Not a realistic interface: the ONFI specification (chapter 3, "Multiple LUN
//! Operations") lets a host issue Read Page commands to several LUNs (dies) of one
//! target and select each LUN's data with Read Status Enhanced (78h), and NAND data
//! sheets state that each die (LUN) reports its status independently of the other dies
//! on its target (e.g. Micron's MT29F NAND, "Status Operations"); controllers interleave
//! a chip's dies that way. The default, `interleaved`, is that: every die independent,
//! sharing only its channel.

use super::Ssd;
use crate::config::scheduling::ChipInterface;
use crate::config::DeviceConfig;
use crate::nand::DieStage;
use serde::Serialize;

const FREE: u32 = u32::MAX;

/// Which die of each chip holds the chip's interface (one-command chips only).
#[derive(Clone, Debug)]
pub(crate) struct ChipGate {
    channels: u32,
    dies_per_chip: u32,
    /// Per chip: the die holding it, or FREE.
    holder: Vec<u32>,
    /// Kicks of an idle die refused because another die of its chip held the chip.
    refusals: u64,
    /// Operations started (each took its chip).
    takes: u64,
}

/// The chips' counters (`device.dies.chips`, with `nand.chip_interface = "one-command"`).
#[derive(Clone, Debug, Serialize)]
pub struct ChipStats {
    pub dies_per_chip: u32,
    pub chips: u32,
    pub interface: ChipInterface,
    /// Kicks of an idle die refused because another die of its chip held the chip.
    pub refusals: u64,
    /// Operations started on the dies (each took its chip).
    pub operations: u64,
}

impl ChipGate {
    pub fn new(cfg: &DeviceConfig) -> Option<Self> {
        let n = &cfg.nand;
        if n.chip_interface.is_interleaved() || n.dies_per_chip <= 1 {
            return None;
        }
        let chips = n.channels * n.dies_per_channel / n.dies_per_chip;
        Some(ChipGate {
            channels: n.channels,
            dies_per_chip: n.dies_per_chip,
            holder: vec![FREE; chips as usize],
            refusals: 0,
            takes: 0,
        })
    }

    /// The chip of a die. Dies are numbered channel-first (die d on channel
    /// d mod channels, the (d / channels)-th die of that channel); a chip is
    /// `dies_per_chip` consecutive dies of one channel.
    #[inline]
    fn chip_of(&self, die: u32) -> u32 {
        let ch = die % self.channels;
        let k = die / self.channels;
        ch + self.channels * (k / self.dies_per_chip)
    }

    /// The dies of `die`'s chip, starting with the one after it.
    fn others(&self, die: u32) -> impl Iterator<Item = u32> + '_ {
        let ch = die % self.channels;
        let k = die / self.channels;
        let first = k - k % self.dies_per_chip;
        let dpc = self.dies_per_chip;
        (1..dpc).map(move |i| ch + self.channels * (first + (k - first + i) % dpc))
    }

    pub fn stats(&self) -> ChipStats {
        ChipStats {
            dies_per_chip: self.dies_per_chip,
            chips: self.holder.len() as u32,
            interface: ChipInterface::OneCommand,
            refusals: self.refusals,
            operations: self.takes,
        }
    }
}

/// A stage that occupies the chip (anything but idle and holding).
#[inline]
fn occupies(stage: DieStage) -> bool {
    !matches!(stage, DieStage::Idle | DieStage::Hold)
}

impl Ssd {
    /// May idle `die` start an operation, or does another die hold its chip? (A refused
    /// die is offered the chip again when it is given back.)
    #[inline]
    pub(super) fn chip_refuses(&mut self, die: u32) -> bool {
        let Some(g) = &mut self.chips else {
            return false;
        };
        let h = g.holder[g.chip_of(die) as usize];
        if h != FREE && h != die {
            g.refusals += 1;
            return true;
        }
        false
    }

    /// A die's stage changes from `from` to `to`: take or give back its chip.
    #[inline]
    pub(super) fn chip_track(&mut self, die: u32, from: DieStage, to: DieStage) {
        let Some(g) = &mut self.chips else { return };
        let c = g.chip_of(die) as usize;
        match (occupies(from), occupies(to)) {
            (false, true) => {
                debug_assert!(g.holder[c] == FREE || g.holder[c] == die);
                g.holder[c] = die;
                g.takes += 1;
            }
            (true, false) => g.holder[c] = FREE,
            _ => {}
        }
    }

    /// After a stage of `die` ended: if its chip is free, offer it to the chip's other
    /// idle dies, the one after `die` first, until one takes it.
    pub(super) fn chip_offer(&mut self, die: u32) {
        let Some(g) = &self.chips else { return };
        if g.holder[g.chip_of(die) as usize] != FREE {
            return;
        }
        let others: Vec<u32> = g.others(die).collect();
        for o in others {
            if self.dies[o as usize].stage == DieStage::Idle {
                self.kick_die(o);
            }
            let g = self.chips.as_ref().expect("set");
            if g.holder[g.chip_of(die) as usize] != FREE {
                return;
            }
        }
    }

    /// The chips' counters, when a chip runs one operation at a time.
    pub(super) fn chip_stats(&self) -> Option<ChipStats> {
        self.chips.as_ref().map(ChipGate::stats)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(channels: u32, dpc: u32, dies_per_channel: u32) -> ChipGate {
        ChipGate {
            channels,
            dies_per_chip: dpc,
            holder: vec![FREE; (channels * dies_per_channel / dpc) as usize],
            refusals: 0,
            takes: 0,
        }
    }

    #[test]
    fn chips_group_consecutive_dies_of_a_channel() {
        // 8 channels x 8 dies, 2 dies per chip: dies 3 and 11 (channel 3, 1st and 2nd
        // die of it) share chip 3; die 19 (3rd die of channel 3) is on chip 11.
        let g = gate(8, 2, 8);
        assert_eq!(g.chip_of(3), 3);
        assert_eq!(g.chip_of(11), 3);
        assert_eq!(g.chip_of(19), 11);
        assert_eq!(g.chip_of(27), 11);
        assert_eq!(g.others(3).collect::<Vec<_>>(), vec![11]);
        assert_eq!(g.others(27).collect::<Vec<_>>(), vec![19]);
        // 4 dies per chip on 2 channels: die 5 (channel 1, 3rd die) turns to 7, 1, 3.
        let g = gate(2, 4, 4);
        assert_eq!(g.others(5).collect::<Vec<_>>(), vec![7, 1, 3]);
        let all: Vec<u32> = (0..8).map(|d| g.chip_of(d)).collect();
        assert_eq!(all, vec![0, 1, 0, 1, 0, 1, 0, 1]);
    }
}
