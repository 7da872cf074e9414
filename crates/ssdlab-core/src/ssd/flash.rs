//! Die operations: the scheduler picks a die's next operation, the channel and die
//! are occupied for its stages, and finished transactions are handed back to the
//! host path, the FTL or GC (`gc.rs` drives GC and SLC folding).

use super::Ssd;
use crate::config::memory::DataTier;
use crate::config::GcStaging;
use crate::controller::{Pick, Txn, TxnKind};
use crate::ftl::FullStripe;
use crate::nand::{CachedProgram, DieStage, Geometry, Timing};
use crate::sim::Event;

/// tR of a read transaction's page (SLC-mode blocks read faster).
#[inline]
fn read_time(geo: &Geometry, timing: &Timing, tx: &Txn) -> u64 {
    if geo.is_slc_block(tx.block) || tx.kind == TxnKind::CacheRead {
        timing.t_read_slc
    } else {
        timing.t_read[geo.page_type(tx.page)]
    }
}

impl Ssd {
    /// Queue the program of a full stripe (or one-shot wordline group) on its die.
    pub(super) fn queue_program(&mut self, s: FullStripe, gc: bool) {
        let pps = self.geo.program_pages(s.block);
        let first_page = s.page + 1 - pps;
        let base = self.geo.block_base(s.block) + first_page * self.geo.units_per_stripe;
        let units = pps * self.geo.units_per_stripe;
        // A program carries in `lpn` (unused by programs) the buffer room it returns when
        // it ends, where that is not all its units: a translation stripe's (its map
        // writes and pads; GC's moves of translation pages took none), or with gathered
        // staging a GC program's (the units its die gathered for it).
        let staged = if self.ftl.is_map_block(s.block) {
            std::mem::take(&mut self.map_stripe_room[s.die as usize])
        } else if gc && self.gc_staging == GcStaging::Gather {
            self.gather.program_queued(s.die, units)
        } else {
            0
        };
        let t = self.txns.insert(Txn {
            kind: TxnKind::Program { gc },
            cmd: 0,
            die: s.die,
            plane: 0,
            page: s.page,
            block: s.block,
            pun: base,
            lpn: staged,
            n: units,
            bytes: (self.geo.planes * pps) as u64 * self.geo.page_bytes,
            erase_count: 0,
            seq: 0,
        });
        self.stamp(t);
        if !gc {
            self.flushes.program_queued(s.die);
        } else if self.gc_staging == GcStaging::WriteBuffer && !self.ftl.is_map_block(s.block) {
            // The moved data of a complete stripe is in the controller's buffer from now
            // to the end of its program (taken without asking: GC is never refused room,
            // host writes wait for it instead).
            self.buffer.take(units as u64);
        }
        // A block's pages program in order. Map writes and GC's moves of translation
        // pages both fill a translation block: a stripe whose block has an earlier
        // stripe still waiting in the other program queue waits behind it there (in
        // its own, paced GC's priority let a moved stripe program before the map
        // writes' stripes below it).
        let mut queue_gc = gc;
        if self.ftl.is_map_block(s.block) {
            let (dq, txns) = (&self.dq[s.die as usize], &self.txns);
            let other = if gc { &dq.programs } else { &dq.gc_programs };
            if other.iter().any(|&o| txns.get(o).block == s.block) {
                queue_gc = !gc;
            }
        }
        self.dq[s.die as usize].program_queue(queue_gc).push_back(t);
        if !gc || self.cfg.ftl.gc_destination == crate::config::GcDestination::Striped {
            // A die also runs low on free blocks by taking other dies' moved data
            // (`ftl.gc_destination = "striped"`).
            self.maybe_start_gc(s.die);
        }
        self.kick_die(s.die);
    }

    /// Start the die's next operation if it is idle.
    pub(super) fn kick_die(&mut self, die: u32) {
        let d = die as usize;
        if self.dies[d].stage != DieStage::Idle || self.chip_refuses(die) || self.cap_refuses() {
            return;
        }
        if self.dies[d].suspended.is_some() {
            // Serve the reads that suspended the operation, then resume it.
            if self.dq[d].user_reads.is_empty() || !self.suspend_serves_another(die) {
                self.resume(die);
            } else {
                self.start_read_op(die, Pick::Read);
            }
            return;
        }
        if let Some(c) = self.dies[d].cached_program.take() {
            self.start_cached_program(die, c);
            return;
        }
        let now = self.now();
        let pick = self.pick(die);
        let ch = self.geo.channel_of(die) as usize;
        match pick {
            Pick::Nothing => {
                if self.read_victim_ahead(die) {
                    self.kick_die(die);
                }
            }
            Pick::Read | Pick::GcRead => self.start_read_op(die, pick),
            Pick::Program | Pick::GcProgram => {
                let gc = pick == Pick::GcProgram;
                let t = *self.dq[d].program_queue(gc).front().expect("picked");
                if self.hold_program(die, t) {
                    return;
                }
                self.dq[d].program_queue(gc).pop_front();
                let tx = *self.txns.get(t);
                self.set_program_op(die, t, matches!(tx.kind, TxnKind::Program { gc: true }));
                self.program_dispatched(die, &tx);
                let data_at = match tx.kind {
                    TxnKind::Program { gc: false } => self.write_buffer_fetch(now, tx.bytes),
                    _ => now,
                };
                if data_at > now {
                    self.begin(die, DieStage::Fetch, data_at);
                } else {
                    self.program_data_in(die);
                }
            }
            Pick::Erase => {
                let t = self.dq[d].erases.pop_front().expect("picked");
                let end =
                    self.channels[ch].interleave_cmd(now, self.timing.t_cmd) + self.timing.t_erase;
                self.dies[d].op_txns[0] = t;
                self.dies[d].op_len = 1;
                self.dies[d].op_gc = true;
                self.dies[d].op_suspends = 0;
                self.counters.erase_ops += 1;
                self.array_started(die, self.timing.t_erase);
                self.begin(die, DieStage::Erase, end);
            }
        }
    }

    /// The die has nothing else to do (idle, or holding a program): queue reads of its
    /// victim ahead of their pace, unless the map's journal is full (the moves would be
    /// logged while host writes wait for room there: the die's time is not free then).
    /// Returns whether anything was queued.
    pub(super) fn read_victim_ahead(&mut self, die: u32) -> bool {
        self.dq[die as usize].gc.unreleased()
            && !self.journal_is_full()
            && self.release_gc(die, true)
    }

    /// Make program transaction `t` the die's current operation.
    fn set_program_op(&mut self, die: u32, t: u32, gc: bool) {
        let d = &mut self.dies[die as usize];
        d.op_txns[0] = t;
        d.op_len = 1;
        d.op_gc = gc;
        d.op_suspends = 0;
        d.held = false;
    }

    /// Bookkeeping of a program leaving its queue for the die.
    fn program_dispatched(&mut self, die: u32, tx: &Txn) {
        self.counters.program_ops += 1;
        self.on_program_dispatch(die);
        if tx.kind == (TxnKind::Program { gc: false }) {
            // GC earns its share of the die with every program that is not its own.
            let units = if self.ftl.is_map_block(tx.block) {
                self.host_share_of_map_units(tx.n)
            } else {
                tx.n as f64
            };
            self.dq[die as usize].gc.host_programmed(units);
            self.release_gc(die, false);
        }
    }

    /// The part of a translation-page program of `units` that pays GC's pace: the
    /// share of the map's changes that host writes made. Every unit GC moves (or folds)
    /// changes a map entry too; had the map writes those moves cause paid GC's pace,
    /// the pace would pay for its own moves (with a write-back map each move dirties a
    /// segment whose write-back earned more moves, and GC kept the die while the host
    /// wrote nothing). The map writes host writes cause consume free blocks like the
    /// host's own, so they pay.
    fn host_share_of_map_units(&self, units: u32) -> f64 {
        let st = &self.ftl.stats;
        let host = st.host_units_written as f64;
        let moved = (st.gc_units_copied + st.units_folded) as f64;
        if host + moved == 0.0 {
            return units as f64;
        }
        units as f64 * host / (host + moved)
    }

    /// Cache program: while the die programs, send the data of the program the
    /// scheduler would start next into its cache register (only when nothing else,
    /// a read or an erase, would go first, and the data is already in the controller).
    fn load_cached_program(&mut self, die: u32) {
        let d = die as usize;
        if self.dies[d].cached_program.is_some() || self.tiers.wb_tier == DataTier::Hmb {
            return;
        }
        let gc = match self.pick(die) {
            Pick::Program => false,
            Pick::GcProgram => true,
            _ => return,
        };
        let Some(t) = self.dq[d].program_queue(gc).pop_front() else {
            return;
        };
        let tx = *self.txns.get(t);
        self.program_dispatched(die, &tx);
        let din_end = self.reserve_data_in(die, tx.bytes);
        self.counters.cached_programs += 1;
        self.dies[d].cached_program = Some(CachedProgram {
            txn: t,
            data_in_end: din_end,
            gc: matches!(tx.kind, TxnKind::Program { gc: true }),
        });
    }

    /// The previous program ended: start the cached one (waiting for the end of its
    /// data-in if that is still under way).
    fn start_cached_program(&mut self, die: u32, c: CachedProgram) {
        self.set_program_op(die, c.txn, c.gc);
        if c.data_in_end > self.now() {
            self.begin(die, DieStage::DataIn, c.data_in_end);
        } else {
            self.start_program_stage(die);
        }
    }

    /// The program's data is in the die: tPROG starts.
    fn start_program_stage(&mut self, die: u32) {
        let d = die as usize;
        let t = self.dies[d].op_txns[0];
        if self.buffer_release_at_data_in {
            let tx = *self.txns.get(t);
            if let TxnKind::Program { gc: false } = tx.kind {
                self.release_buffer_room(self.host_program_room(&tx));
            }
        }
        let now = self.now();
        let t_prog = self.prog_time(t);
        self.array_started(die, t_prog);
        self.begin(die, DieStage::Program, now + t_prog);
        // Reads refused during data-in may suspend the program now.
        self.try_suspend(die, false);
        if self.cache_program {
            self.load_cached_program(die);
        }
    }

    /// Start a (multi-plane) read on the die: host reads or GC reads.
    fn start_read_op(&mut self, die: u32, pick: Pick) {
        let d = die as usize;
        let now = self.now();
        let ch = self.geo.channel_of(die) as usize;
        let t_cmd = self.timing.t_cmd;
        // Merge queued reads on distinct planes into one multi-plane read.
        let queue = if pick == Pick::Read {
            &mut self.dq[d].user_reads
        } else {
            &mut self.dq[d].gc_reads
        };
        let first = queue.pop_front().expect("picked");
        let die_state = &mut self.dies[d];
        die_state.op_gc = pick == Pick::GcRead;
        die_state.op_txns[0] = first;
        die_state.op_len = 1;
        let mut planes_used = 1u32 << self.txns.get(first).plane;
        let mut t_read = read_time(&self.geo, &self.timing, self.txns.get(first));
        let max_planes = self.geo.planes as usize;
        let mut i = 0;
        while (die_state.op_len as usize) < max_planes && i < queue.len() && i < 16 {
            let t = queue[i];
            let tx = self.txns.get(t);
            let bit = 1u32 << tx.plane;
            if planes_used & bit == 0 {
                planes_used |= bit;
                t_read = t_read.max(read_time(&self.geo, &self.timing, tx));
                die_state.op_txns[die_state.op_len as usize] = t;
                die_state.op_len += 1;
                queue.remove(i);
            } else {
                i += 1;
            }
        }
        let n = die_state.op_len as u64;
        if n > 1 {
            self.counters.multiplane_reads += 1;
        }
        self.counters.read_ops += 1;
        let cmd_end = self.channels[ch].interleave_cmd(now, t_cmd * n);
        self.begin(die, DieStage::Sense, cmd_end + t_read);
    }

    /// tPROG of a program transaction.
    #[inline]
    pub(super) fn prog_time(&self, t: u32) -> u64 {
        let tx = self.txns.get(t);
        if self.geo.is_slc_block(tx.block) {
            self.timing.t_prog_slc
        } else {
            self.timing.t_prog[self.geo.page_type(tx.page)]
        }
    }

    /// Channel time of a program's data-in: command cycles plus data and spare bytes.
    pub(super) fn data_in_ns(&self, data_bytes: u64) -> u64 {
        let pages = data_bytes / self.geo.page_bytes.max(1);
        self.timing.t_cmd
            + self
                .timing
                .bus_ns(data_bytes + pages * self.geo.page_spare_bytes)
    }

    /// Data-in of the die's program over the channel; tPROG follows.
    fn program_data_in(&mut self, die: u32) {
        let t = self.dies[die as usize].op_txns[0];
        let din_end = self.reserve_data_in(die, self.txns.get(t).bytes);
        self.begin(die, DieStage::DataIn, din_end);
    }

    /// Book the channel for a program's data-in of `bytes` to `die`; returns its end.
    fn reserve_data_in(&mut self, die: u32, bytes: u64) -> u64 {
        let now = self.now();
        let ch = self.geo.channel_of(die) as usize;
        let din = self.data_in_ns(bytes);
        let din_end = self.channels[ch].reserve(now, din);
        self.channels[ch].bytes += bytes;
        self.channels[ch].data_in_until = din_end;
        din_end
    }

    /// Enter `stage` until `until`; the time of the stage being left counts as busy
    /// unless the die was idle or holding.
    pub(super) fn begin(&mut self, die: u32, stage: DieStage, until: u64) {
        let now = self.now();
        let from = self.dies[die as usize].stage;
        self.cap_track(from, stage);
        self.chip_track(die, from, stage);
        let d = &mut self.dies[die as usize];
        d.end_stage(now);
        d.stage = stage;
        d.gen = d.gen.wrapping_add(1);
        d.op_start = now;
        d.until = until;
        let gen = d.gen;
        self.q.schedule(until, Event::DieStage { die, gen });
    }

    /// Leave the current stage for idle, counting its time as busy.
    pub(super) fn go_idle(&mut self, die: u32) {
        let now = self.now();
        let from = self.dies[die as usize].stage;
        self.cap_track(from, DieStage::Idle);
        self.chip_track(die, from, DieStage::Idle);
        let d = &mut self.dies[die as usize];
        d.end_stage(now);
        d.stage = DieStage::Idle;
        d.gen = d.gen.wrapping_add(1);
    }

    /// The die finished a stage of its operation.
    pub(super) fn die_stage(&mut self, die: u32, gen: u32) {
        let d = die as usize;
        if self.dies[d].gen != gen {
            return; // stale
        }
        let now = self.now();
        match self.dies[d].stage {
            DieStage::Sense => {
                // Data-out of every plane's transaction over the channel.
                let mut bytes = 0;
                for i in 0..self.dies[d].op_len as usize {
                    bytes += self.txns.get(self.dies[d].op_txns[i]).bytes;
                }
                let ch = self.geo.channel_of(die) as usize;
                if !self.dies[d].op_gc {
                    self.note_data_out(ch, now);
                }
                let end = self.channels[ch].reserve(now, self.timing.bus_ns(bytes));
                self.channels[ch].bytes += bytes;
                self.begin(die, DieStage::DataOut, end);
            }
            DieStage::Fetch => self.program_data_in(die),
            DieStage::DataIn => self.start_program_stage(die),
            DieStage::Suspending => {
                self.go_idle(die);
                self.kick_die(die);
            }
            DieStage::Hold => {
                self.hold_expired(die);
            }
            DieStage::DataOut | DieStage::Program | DieStage::Erase => {
                let stage = self.dies[d].stage;
                self.go_idle(die);
                let len = self.dies[d].op_len as usize;
                let txns = self.dies[d].op_txns;
                for &t in &txns[..len] {
                    match stage {
                        DieStage::DataOut => match self.txns.get(t).kind {
                            TxnKind::GcRead => self.gc_read_done(t),
                            _ => self.user_read_done(t),
                        },
                        DieStage::Program => self.program_done(t),
                        _ => self.erase_done(t),
                    }
                }
                if self.chips.is_some() {
                    // One command per chip: its other dies have the chip first.
                    self.chip_offer(die);
                }
                self.kick_die(die);
            }
            DieStage::Idle => {}
        }
        if self.chips.is_some() {
            self.chip_offer(die);
        }
        if self.die_cap.is_some() {
            self.cap_kick_waiting();
        }
    }

    fn program_done(&mut self, t: u32) {
        if self.zoned.is_some() {
            self.zoned_program_done(t);
            return;
        }
        let tx = *self.txns.get(t);
        self.txns.remove(t);
        self.ftl.program_done(FullStripe {
            die: tx.die,
            block: tx.block,
            page: tx.page,
        });
        if let TxnKind::Program { gc: false } = tx.kind {
            if !self.buffer_release_at_data_in {
                self.release_buffer_room(self.host_program_room(&tx));
            }
            self.host_program_done(tx.die);
        } else {
            self.counters.gc_programs += 1;
            self.release_gc_staging(&tx);
        }
        if self.ftl.fdp_starved(tx.die) {
            // An FDP die short of blocks may find its victim among open reclaim units
            // once their stripes are programmed (`Ftl::close_open_ru`).
            self.start_victim(tx.die);
        }
    }

    /// The write-buffer room a program that is not GC's returns: all its units, or a
    /// translation stripe's own (`queue_program`).
    fn host_program_room(&self, tx: &Txn) -> u64 {
        if self.ftl.is_map_block(tx.block) {
            tx.lpn as u64
        } else {
            tx.n as u64
        }
    }

    /// A GC program ended: with `controller.gc_staging = "write-buffer"` its units give
    /// their write-buffer room back (GC's moves of translation pages were never staged).
    /// With `"gather"` it gives back the room of the gathered units it carries. A
    /// translation stripe GC completed returns the room of the map writes in it.
    fn release_gc_staging(&mut self, tx: &Txn) {
        if self.ftl.is_map_block(tx.block) {
            if tx.lpn > 0 {
                self.release_buffer_room(tx.lpn as u64);
            }
        } else if self.gc_staging == GcStaging::WriteBuffer {
            self.release_buffer_room(tx.n as u64);
        } else if self.gc_staging == GcStaging::Gather && tx.lpn > 0 {
            self.release_buffer_room(tx.lpn as u64);
        }
    }

    /// Return write-buffer room (a host program's, or GC's) and let waiting writes in.
    pub(super) fn release_buffer_room(&mut self, units: u64) {
        self.buffer.release(units);
        self.wake_buffer_waiters();
    }

    fn erase_done(&mut self, t: u32) {
        if self.zoned.is_some() {
            self.zoned_erase_done(t);
            return;
        }
        let tx = *self.txns.get(t);
        self.txns.remove(t);
        self.ftl.erase_done(tx.block);
        if self.ftl.wants_more_gc(tx.die) {
            self.start_victim(tx.die);
        } else {
            self.background_work(tx.die);
        }
        self.wake_alloc_waiters();
    }
}
