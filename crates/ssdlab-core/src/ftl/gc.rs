//! Garbage collection: victim choice, relocation of valid units, block release;
//! plus the functional (untimed) write path used by drive preparation and the
//! FTL oracle tests. When a die collects is decided here (threshold, and on to the
//! target in burst mode); how fast, against host writes, in `controller::gc_pacing`.
//!
//! Greedy victim = the fully programmed block with the fewest valid units (optimal
//! for uniform random writes). Cost-benefit victim = the block with the highest
//! (1 - u) x age / (1 + u), u its valid share and age the write clock since it
//! filled (Rosenblum & Ousterhout, "The Design and Implementation of a
//! Log-Structured File System", 1992): reading the block costs 1, writing its
//! valid data back u, and older (colder) blocks are worth more.

use super::{BlockState, Ftl, FullStripe, Stream, NO_BLOCK, UNMAPPED};
use crate::config::{GcPacing, GcPolicy};
use crate::nand::Pun;

impl Ftl {
    /// Does this die need collecting (and is it not already)?
    pub fn needs_gc(&self, die: u32) -> bool {
        let d = &self.dies[die as usize];
        d.victim.is_none() && (d.free.len() as u32) <= self.gc_threshold
    }

    /// Should collection on this die continue after a victim is erased? Burst: until
    /// the target; paced: while at or below the threshold (a paced die keeps level,
    /// so collecting on to the target would only leave it idle later).
    pub fn wants_more_gc(&self, die: u32) -> bool {
        let free = self.dies[die as usize].free.len() as u32;
        match self.gc_pacing {
            GcPacing::Burst => free < self.gc_target,
            GcPacing::Paced => free <= self.gc_threshold,
        }
    }

    /// Choose and claim a victim on `die`: the fully programmed block with the fewest
    /// valid units (or the best cost-benefit score), if collecting it frees anything.
    /// Translation blocks form a pool of their own: while the die holds more of them
    /// than its budget, the victim comes from that pool, else from the user pool
    /// (each falls back to the other when it has no candidate). Map pages are
    /// rewritten far more often than user data, so their pool, given its spare,
    /// is collected when nearly empty and costs little to collect.
    pub fn start_gc(&mut self, die: u32) -> Option<u32> {
        let want_map = self.dies[die as usize].map_blocks > self.map_budget_blocks;
        let found = self
            .best_victim(die, want_map)
            .or_else(|| self.best_victim(die, !want_map));
        let victim = match (found, self.fdp.is_some()) {
            (Some(v), _) => v,
            (None, false) => return None,
            (None, true) => self.close_open_ru(die)?,
        };
        self.dies[die as usize].victim = Some(victim);
        self.stats.gc_victims += 1;
        if self.fdp.is_some() {
            self.fdp_victim(victim);
        }
        if self.blocks[victim as usize].map {
            self.stats.translation_victims += 1;
        }
        Some(victim)
    }

    fn best_victim(&self, die: u32, translation: bool) -> Option<u32> {
        let geo = &self.geo;
        let first = geo.block_id(die, 0) as usize;
        let last = first + geo.blocks_per_die as usize;
        let upb = geo.units_per_block as f64;
        let cost_benefit = self.gc_policy == GcPolicy::CostBenefit;
        let mut best: Option<(u32, f64)> = None;
        let native_last = first + geo.native_blocks_per_die as usize;
        for (i, b) in self.blocks[first..native_last.min(last)].iter().enumerate() {
            if b.state == BlockState::Full
                && b.map == translation
                && self.programmed[first + i] as u32 == geo.pages_per_block
                && b.valid < geo.units_per_block
            {
                // Higher score wins: -valid (greedy) or benefit/cost.
                let score = if cost_benefit {
                    let u = b.valid as f64 / upb;
                    let age = (self.write_clock - b.closed_at.min(self.write_clock)) as f64 + 1.0;
                    (1.0 - u) * age / (1.0 + u)
                } else {
                    -(b.valid as f64)
                };
                if best.is_none_or(|(_, s)| score > s) {
                    best = Some(((first + i) as u32, score));
                }
            }
        }
        best.map(|(b, _)| b)
    }

    /// Should `die` fold an SLC block now (`idle`: the host is idle)? Only with a
    /// full, programmed SLC block and native free blocks to spare for its data: above
    /// the GC threshold (paced GC keeps a die there), by one more block in burst mode.
    /// The watermark counts the free SLC blocks the die may still open (with dynamic
    /// SLC, those within its allowance), not every free SLC-mode block.
    pub fn wants_fold(&self, die: u32, watermark: u32, idle: bool) -> bool {
        let d = &self.dies[die as usize];
        let Some(&b) = d.slc_full.front() else {
            return false;
        };
        let spare = self.fold_spare();
        d.victim.is_none()
            && (idle
                || (watermark > 0
                    && self.slc_usable_free_blocks_up_to(die, watermark + 1) <= watermark))
            && self.programmed[b as usize] as u32 == self.geo.slc_pages_per_block
            && d.free.len() as u32 > spare
    }

    /// Free native blocks a die keeps beyond what it folds into: the GC threshold
    /// (paced GC keeps a die there), one more in burst mode.
    pub(super) fn fold_spare(&self) -> u32 {
        match self.gc_pacing {
            GcPacing::Burst => self.gc_threshold + 1,
            GcPacing::Paced => self.gc_threshold,
        }
    }

    /// Claim the die's oldest full SLC block for folding.
    pub fn start_fold(&mut self, die: u32) -> Option<u32> {
        let d = &mut self.dies[die as usize];
        let b = d.slc_full.pop_front()?;
        d.victim = Some(b);
        self.stats.folds += 1;
        Some(b)
    }

    /// Still-valid units of a block, in physical order.
    pub fn valid_units(&self, block: u32) -> impl Iterator<Item = Pun> + '_ {
        let base = self.geo.block_base(block);
        (base..base + self.geo.units_per_block)
            .filter(move |&p| self.p2l.get(p as usize) != UNMAPPED)
    }

    /// Copy one unit of the victim to the die's GC frontier if it is still valid.
    /// Returns the new location and any stripe it completes.
    pub fn relocate(&mut self, old: Pun) -> Option<(Pun, Option<FullStripe>)> {
        let lpn = self.p2l.get(old as usize);
        if lpn == UNMAPPED {
            return None; // overwritten or trimmed since the victim was chosen
        }
        let die = self.geo.die_of(old);
        // Map pages move within the translation pool, user data to the GC stream.
        let stream = if lpn as u64 >= self.host_units {
            self.stats.map_units_relocated += 1;
            Stream::Map
        } else if self.fdp.is_some() {
            self.gc_stream_for(self.geo.block_of(old))
        } else {
            Stream::Gc
        };
        debug_assert!(
            self.dies[die as usize].frontier(stream).block != NO_BLOCK
                || !self.dies[die as usize].free.is_empty(),
            "GC frontiers always have a block"
        );
        // Striped GC writes: native victims' data only (a fold writes its SLC block's
        // data into its own die's native blocks, which lent it the block).
        let striped = self.gc_cursor.is_some()
            && stream == Stream::Gc
            && !self.geo.is_slc_block(self.geo.block_of(old));
        let die = if striped {
            self.gc_stripe_die(die)
        } else {
            die
        };
        let (new, full) = self.alloc(die, stream);
        if full.is_some() && striped {
            self.gc_cursor = Some((die + 1) % self.geo.dies);
        }
        // The old location is known: invalidate it without reading the map.
        self.invalidate(old);
        self.l2p.set(lpn as usize, new);
        self.p2l.set(new as usize, lpn);
        self.blocks[self.geo.block_of(new) as usize].valid += 1;
        if self.geo.is_slc_block(self.geo.block_of(old)) {
            self.stats.units_folded += 1;
        } else {
            self.stats.gc_units_copied += 1;
        }
        if let Some(v) = &mut self.verify {
            v.tags[new as usize] = v.tags[old as usize];
        }
        if self.durable.is_some() {
            self.durable_moved(old, new);
        }
        Some((new, full))
    }

    /// `gc_destination = "striped"`: the die whose GC frontier takes the next moved
    /// unit. The cursor's die while its stripe is open; at a stripe boundary the first
    /// die from the cursor on with an open GC block or a free block to spare beyond
    /// the one its own GC may need, else any die that can take it, else the victim's
    /// own die (`victim_die`, whose GC can always take its last free block).
    fn gc_stripe_die(&mut self, victim_die: u32) -> u32 {
        let cursor = self.gc_cursor.unwrap_or(0);
        let spare = |f: &Self, d: u32| {
            let die = &f.dies[d as usize];
            die.gc.block != NO_BLOCK || die.free.len() > 1
        };
        let found = self
            .first_die_from(cursor, spare)
            .or_else(|| self.first_die_from(cursor, |f, d| f.can_take(d, Stream::Gc)))
            .unwrap_or(victim_die);
        self.gc_cursor = Some(found);
        found
    }

    /// Erase a collected block and return it to its die's free list.
    pub fn erase_done(&mut self, block: u32) {
        let die = block / self.geo.blocks_per_die;
        let b = &mut self.blocks[block as usize];
        debug_assert_eq!(b.valid, 0, "erasing a block with valid data");
        b.state = BlockState::Free;
        b.erase_count += 1;
        let was_map = std::mem::take(&mut b.map);
        self.programmed[block as usize] = 0;
        self.stats.erases += 1;
        let d = &mut self.dies[die as usize];
        if was_map {
            d.map_blocks -= 1;
        }
        if d.victim == Some(block) {
            d.victim = None;
        }
        if self.geo.is_slc_block(block) {
            d.slc_free.push_back(block);
            self.slc_in_use -= 1;
            self.return_lent(die);
        } else {
            d.free.push_back(block);
        }
        if let Some(v) = &mut self.verify {
            let base = self.geo.block_base(block) as usize;
            v.tags[base..base + self.geo.units_per_block as usize].fill(0);
        }
    }

    /// Collect one victim on `die` at once (no timing): copies, programs, erase.
    pub fn gc_functional(&mut self, die: u32) -> bool {
        crate::interrupt::check(); // preparation stops here on Ctrl-C
        let Some(victim) = self.start_gc(die) else {
            return false;
        };
        let base = self.geo.block_base(victim);
        for p in base..base + self.geo.units_per_block {
            crate::interrupt::check();
            if let Some((_, Some(s))) = self.relocate(p) {
                self.program_done(s);
            }
        }
        self.erase_done(victim);
        true
    }

    /// Write one unit with no timing: place it, program full stripes at once, and
    /// collect garbage synchronously whenever a die runs low (until `wants_more_gc`
    /// says stop: just above the threshold when paced, the target in burst mode,
    /// where timed runs leave a die too).
    pub fn write_functional(&mut self, lpn: u32) {
        crate::interrupt::check(); // preparation stops here on Ctrl-C
        loop {
            let die = self.host_cursor;
            if self.free_blocks(die) <= self.gc_threshold {
                while self.wants_more_gc(die) && self.gc_functional(die) {}
            }
            if let Some((_, full)) = self.place_host(lpn) {
                if let Some(s) = full {
                    self.program_done(s);
                }
                return;
            }
            // No die could take the unit: collect everywhere and retry.
            let mut progressed = false;
            for d in 0..self.geo.dies {
                progressed |= self.gc_functional(d);
            }
            assert!(
                progressed,
                "drive full: no reclaimable space (over-provisioning too small)"
            );
        }
    }

    /// Read one unit with no timing: the version the oracle sees (0 if unmapped).
    pub fn read_functional(&mut self, lpn: u32) -> u32 {
        let pun = self.translate(lpn);
        self.verify_translate(lpn, pun);
        match (&self.verify, pun) {
            (_, UNMAPPED) => 0,
            (Some(v), p) => v.tags[p as usize],
            (None, _) => 1,
        }
    }
}
