//! Sudden power-off and recovery at the next power-on (the workload's `power-loss`
//! host event; `[power_loss]` in config/power_loss.rs).
//!
//! At the cut the fetch engine stops. With power-loss protection the capacitors hold
//! the drive up while it pads and programs every open stripe of its write buffer (the
//! dump, timed by the model's own programs and compared with `hold_up`): every
//! acknowledged write survives. Without it, the host units whose data was only in the
//! volatile write buffer (placed in a page not yet programmed, or waiting for a free
//! block) are lost: each falls back to its newest copy on NAND, or unmapped
//! (ftl/durable.rs), and the report counts them (units, bytes). A Flush (fio's
//! `fsync=N`, `end_fsync`) completes only once every write acknowledged before it is
//! programmed (flush.rs), so flushed writes are never lost.
//!
//! After `duration` without power the drive rebuilds its map from NAND with read
//! transactions of its own dies and channels, in three phases:
//! 1. checkpoint load: the whole map (a drive whose map is all resident: its DRAM
//!    copy is rebuilt from the checkpoint) or the map-of-map (a demand-paged map: its
//!    segments load on demand afterwards), `ceil(bytes / page)` page reads spread
//!    round-robin over the dies and planes;
//! 2. log replay: the persisted map-update log ring (`map.log_entries`, write-back map
//!    cache only), page reads spread the same way;
//! 3. without PLP only: the open-block scan, a read of the spare area (`nand.page_spare`
//!    bytes, or 64 B of FTL metadata when it is not given) of every programmed page of every open block (host, GC, map and SLC
//!    streams of every die), which finds the writes the checkpoint and log miss.
//!
//! The host can send commands again at the later of the recovery's end and power-on
//! plus the PCIe wait (`[reset] power_on`), plus `[reset] ready`; commands submitted
//! meanwhile wait. The map cache starts empty (an HMB comes back without contents).
//!
//! Simplifies: the checkpoint and log are read as lower pages of each die's first block
//! (the reads' cost, not their place, is modelled) and always whole; the flash work
//! already queued at the cut (programs, GC, erases) still runs in the model during the
//! off time, as do commands already fetched (nothing is aborted; data placed after the
//! cut is new data); the map cache's dirty segments are written back at the cut as at a
//! suspend; the read cache keeps its contents; a dump longer than `hold_up` is reported
//! (`hold_up_exceeded`), not turned into loss; no paired-page damage.

use super::host_events::{PHASE_END, PHASE_POWER_ON};
use super::{map::INTERNAL_JOB, Origin, Ssd};
use crate::controller::TxnKind;
use crate::sim::{Event, Ns};
use serde::Serialize;

/// Bytes the open-block scan moves per page when the device gives no `nand.page_spare`:
/// the FTL's metadata in the spare area (logical address, sequence): an assumption.
pub(super) const SCAN_META_BYTES: u64 = 64;

/// A power loss's figures, in its host event's report entry.
#[derive(Clone, Debug, Default, Serialize)]
pub struct PowerLossStats {
    pub plp: bool,
    /// Time without power.
    pub off_ns: Ns,
    pub hold_up_ns: Ns,
    /// PLP: from the cut to the end of the last program of the dumped buffer.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dump_ns: Option<Ns>,
    /// PLP: the dump took longer than the capacitors hold the drive up.
    pub hold_up_exceeded: bool,
    /// Acknowledged host units lost (only in the volatile write buffer at the cut).
    pub lost_units: u64,
    pub lost_bytes: u64,
    /// Of those, units whose previous copy GC had already erased (they read unmapped).
    pub older_lost_units: u64,
    /// Recovery at power-on: page reads and time of each phase, and in all.
    pub checkpoint_pages: u64,
    pub checkpoint_ns: Ns,
    pub log_pages: u64,
    pub log_ns: Ns,
    /// Physical pages whose spare area the open-block scan read.
    pub scan_pages: u64,
    pub open_blocks: u64,
    pub scan_ns: Ns,
    /// Power-on to the map rebuilt (the three phases).
    pub rebuild_ns: Ns,
}

/// The power loss in progress (one at a time).
pub(super) struct PowerCut {
    idx: u32,
    stats: PowerLossStats,
    cut_at: Ns,
    /// PLP: the host programs per die the dump waits for.
    dump_mark: Option<Vec<u64>>,
    /// 0 before power-on, then 1..=3 (the phase running), 4 done.
    phase: u8,
    phase_start: Ns,
    power_on_at: Ns,
    reads_pending: u64,
    /// Host events falling in the recovery: started when it ends.
    deferred: Vec<u32>,
}

impl Ssd {
    /// The power goes (`idx`: the host event).
    pub(super) fn power_loss_start(&mut self, idx: u32, off_ns: Ns) {
        let now = self.now();
        let plp = self.cfg.power_loss.plp;
        let mut stats = PowerLossStats {
            plp,
            off_ns,
            hold_up_ns: self.cfg.power_loss.hold_up.ns(),
            ..PowerLossStats::default()
        };
        let mut dump_mark = None;
        if plp {
            self.ftl.power_cut_protected();
            self.pad_open_stripes();
            let mark = self.flushes.queued.clone();
            if self.flushes.met(&mark) {
                stats.dump_ns = Some(0);
            } else {
                dump_mark = Some(mark);
            }
        } else {
            let loss = self.ftl.power_cut();
            for &lpn in &loss.lost {
                self.read_cache_invalidate(lpn, 1);
            }
            stats.older_lost_units = loss.older_lost;
            stats.lost_units = loss.lost.len() as u64 + self.drop_held_writes();
            stats.lost_bytes = stats.lost_units * self.unit_bytes;
        }
        self.power_cut = Some(Box::new(PowerCut {
            idx,
            stats,
            cut_at: now,
            dump_mark,
            phase: 0,
            phase_start: 0,
            power_on_at: now + off_ns,
            reads_pending: 0,
            deferred: Vec::new(),
        }));
        self.q.schedule(
            now + off_ns,
            Event::HostEvent {
                idx,
                phase: PHASE_POWER_ON,
            },
        );
    }

    /// Acknowledged host writes still waiting for a free block lose their unplaced
    /// units (their buffer room is returned); returns how many units.
    fn drop_held_writes(&mut self) -> u64 {
        let mut lost = 0;
        let mut keep = std::collections::VecDeque::new();
        while let Some(cmd) = self.alloc_waiters.pop_front() {
            let c = *self.cmds.get(cmd);
            if c.origin == Origin::Host && c.job == INTERNAL_JOB {
                let (_, n) = self.unit_range(c.offset, c.len);
                let left = (n - c.placed) as u64;
                lost += left;
                self.cmds.remove(cmd);
                if !self.buffer_release_at_data_in && left > 0 {
                    self.release_buffer_room(left);
                }
            } else {
                keep.push_back(cmd);
            }
        }
        self.alloc_waiters = keep;
        if self.alloc_waiters.is_empty() && !self.trim_waiters.is_empty() {
            self.wake_alloc_waiters();
        }
        lost
    }

    /// A host program finished: is the PLP dump complete?
    #[inline]
    pub(super) fn power_dump_check(&mut self) {
        let Some(pc) = &self.power_cut else {
            return;
        };
        let Some(mark) = &pc.dump_mark else {
            return;
        };
        if self.flushes.met(mark) {
            let now = self.now();
            let pc = self.power_cut.as_mut().expect("power cut");
            pc.dump_mark = None;
            let dump = now - pc.cut_at;
            pc.stats.dump_ns = Some(dump);
            pc.stats.hold_up_exceeded = dump > pc.stats.hold_up_ns;
        }
    }

    /// An event that falls in a power-on recovery waits for its end.
    pub(super) fn power_defer(&mut self, idx: u32) -> bool {
        match &mut self.power_cut {
            Some(pc) if pc.idx != idx => {
                pc.deferred.push(idx);
                true
            }
            _ => false,
        }
    }

    /// Power is back: rebuild the map.
    pub(super) fn power_on(&mut self) {
        let now = self.now();
        let pc = self.power_cut.as_mut().expect("power cut");
        pc.power_on_at = now;
        pc.phase = 0;
        self.recovery_next_phase();
    }

    /// Start the next recovery phase that has reads (or finish).
    fn recovery_next_phase(&mut self) {
        loop {
            let now = self.now();
            let pc = self.power_cut.as_mut().expect("power cut");
            let took = now - pc.phase_start;
            match pc.phase {
                1 => pc.stats.checkpoint_ns = took,
                2 => pc.stats.log_ns = took,
                3 => pc.stats.scan_ns = took,
                _ => {}
            }
            pc.phase += 1;
            pc.phase_start = now;
            let phase = pc.phase;
            let reads = match phase {
                1 => self.recovery_spread_reads(self.checkpoint_bytes()),
                2 => {
                    let bytes = self.cfg.map_log_units() * self.unit_bytes;
                    self.recovery_spread_reads(bytes)
                }
                3 if !self.cfg.power_loss.plp => self.recovery_scan_reads(),
                3 => 0,
                _ => {
                    self.recovery_done();
                    return;
                }
            };
            let pc = self.power_cut.as_mut().expect("power cut");
            match phase {
                1 => pc.stats.checkpoint_pages = reads,
                2 => pc.stats.log_pages = reads,
                _ => pc.stats.scan_pages = reads,
            }
            if reads > 0 {
                pc.reads_pending = reads;
                return;
            }
        }
    }

    /// Bytes of the map checkpoint read at power-on: the whole map when it is all
    /// resident, else the map-of-map.
    fn checkpoint_bytes(&self) -> u64 {
        let place = self.cfg.map_placement();
        if place.whole {
            place.map_bytes
        } else {
            place.map_of_map_bytes
        }
    }

    /// Queue `ceil(bytes / page)` whole-page reads round-robin over dies and planes.
    fn recovery_spread_reads(&mut self, bytes: u64) -> u64 {
        let geo = &self.geo;
        let pages = bytes.div_ceil(geo.page_bytes);
        let (dies, planes, upp, page_bytes) = (
            geo.dies as u64,
            geo.planes as u64,
            geo.units_per_page,
            geo.page_bytes,
        );
        for k in 0..pages {
            let die = (k % dies) as u32;
            let plane = ((k / dies) % planes) as u32;
            let pun = self.geo.block_base(self.geo.block_id(die, 0)) + plane * upp;
            self.recovery_read(pun, page_bytes);
        }
        pages
    }

    /// Queue a spare-area read of every programmed page of every open block.
    fn recovery_scan_reads(&mut self) -> u64 {
        let blocks = self.ftl.open_blocks();
        let (planes, upp, ups, spare) = (
            self.geo.planes,
            self.geo.units_per_page,
            self.geo.units_per_stripe,
            if self.geo.page_spare_bytes > 0 {
                self.geo.page_spare_bytes
            } else {
                SCAN_META_BYTES
            },
        );
        let mut n = 0;
        for &(block, pages) in &blocks {
            let base = self.geo.block_base(block);
            for p in 0..pages {
                for plane in 0..planes {
                    self.recovery_read(base + p * ups + plane * upp, spare);
                    n += 1;
                }
            }
        }
        self.power_cut
            .as_mut()
            .expect("power cut")
            .stats
            .open_blocks = blocks.len() as u64;
        n
    }

    fn recovery_read(&mut self, pun: u32, bytes: u64) {
        let t = self.read_txn(TxnKind::RecoveryRead, 0, pun, 0, bytes);
        self.queue_user_read(t);
    }

    /// A recovery read's data is out of the die.
    pub(super) fn recovery_read_done(&mut self) {
        let pc = self.power_cut.as_mut().expect("power cut");
        pc.reads_pending -= 1;
        if pc.reads_pending == 0 {
            self.recovery_next_phase();
        }
    }

    /// The map is rebuilt: the host may send commands once the link and the
    /// controller are ready.
    fn recovery_done(&mut self) {
        let now = self.now();
        let ready = self.cfg.reset.ready.ns();
        let pcie = self.cfg.reset.power_on.ns();
        let pc = self.power_cut.as_mut().expect("power cut");
        pc.stats.rebuild_ns = now - pc.power_on_at;
        let end = now.max(pc.power_on_at + pcie) + ready;
        let idx = pc.idx;
        if let Some(ev) = self.host_events.as_mut() {
            ev.blocked_until = end;
        }
        self.q.schedule(
            end,
            Event::HostEvent {
                idx,
                phase: PHASE_END,
            },
        );
    }

    /// The power loss's outage is over: its figures, and the events it held back.
    pub(super) fn power_loss_end(&mut self) -> (PowerLossStats, Vec<u32>) {
        let pc = self.power_cut.take().expect("power cut");
        (pc.stats, pc.deferred)
    }
}
