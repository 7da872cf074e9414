//! Garbage collection: victim choice, relocation of valid units, block release;
//! plus the functional (untimed) write path used by drive preparation and the
//! FTL oracle tests.
//!
//! Greedy victim = the fully programmed block with the fewest valid units
//! (Rosenblum & Ousterhout's cleaning rule; optimal for uniform random writes).

use super::{BlockState, Ftl, FullStripe, UNMAPPED};
use crate::nand::Pun;

impl Ftl {
    /// Does this die need collecting (and is it not already)?
    pub fn needs_gc(&self, die: u32) -> bool {
        let d = &self.dies[die as usize];
        d.victim.is_none() && (d.free.len() as u32) <= self.gc_threshold
    }

    /// Should collection on this die continue after a victim is erased?
    pub fn wants_more_gc(&self, die: u32) -> bool {
        (self.dies[die as usize].free.len() as u32) < self.gc_target
    }

    /// Choose and claim a victim on `die`: the fully programmed block with the fewest
    /// valid units, if collecting it frees anything.
    pub fn start_gc(&mut self, die: u32) -> Option<u32> {
        let geo = &self.geo;
        let first = geo.block_id(die, 0) as usize;
        let last = first + geo.blocks_per_die as usize;
        let mut best: Option<(u32, u32)> = None;
        for (i, b) in self.blocks[first..last].iter().enumerate() {
            if b.state == BlockState::Full
                && self.programmed[first + i] as u32 == geo.pages_per_block
                && b.valid < geo.units_per_block
                && best.is_none_or(|(_, v)| b.valid < v)
            {
                best = Some(((first + i) as u32, b.valid));
            }
        }
        let (victim, _) = best?;
        self.dies[die as usize].victim = Some(victim);
        self.stats.gc_victims += 1;
        Some(victim)
    }

    /// Still-valid units of a block, in physical order.
    pub fn valid_units(&self, block: u32) -> impl Iterator<Item = Pun> + '_ {
        let base = self.geo.block_base(block);
        (base..base + self.geo.units_per_block).filter(move |&p| self.p2l[p as usize] != UNMAPPED)
    }

    /// Copy one unit of the victim to the die's GC frontier if it is still valid.
    /// Returns the new location and any stripe it completes.
    pub fn relocate(&mut self, old: Pun) -> Option<(Pun, Option<FullStripe>)> {
        let lpn = self.p2l[old as usize];
        if lpn == UNMAPPED {
            return None; // overwritten or trimmed since the victim was chosen
        }
        let die = self.geo.die_of(old);
        debug_assert!(self.can_take(die, true), "GC frontier always has a block");
        let (new, full) = self.alloc(die, true);
        // The old location is known: invalidate it without reading the map.
        self.invalidate(old);
        self.l2p[lpn as usize] = new;
        self.p2l[new as usize] = lpn;
        self.blocks[self.geo.block_of(new) as usize].valid += 1;
        self.stats.gc_units_copied += 1;
        if let Some(v) = &mut self.verify {
            v.tags[new as usize] = v.tags[old as usize];
        }
        Some((new, full))
    }

    /// Erase a collected block and return it to its die's free list.
    pub fn erase_done(&mut self, block: u32) {
        let die = block / self.geo.blocks_per_die;
        let b = &mut self.blocks[block as usize];
        debug_assert_eq!(b.valid, 0, "erasing a block with valid data");
        b.state = BlockState::Free;
        b.erase_count += 1;
        self.programmed[block as usize] = 0;
        self.stats.erases += 1;
        let d = &mut self.dies[die as usize];
        if d.victim == Some(block) {
            d.victim = None;
        }
        d.free.push_back(block);
        if let Some(v) = &mut self.verify {
            let base = self.geo.block_base(block) as usize;
            v.tags[base..base + self.geo.units_per_block as usize].fill(0);
        }
    }

    /// Collect one victim on `die` at once (no timing): copies, programs, erase.
    pub fn gc_functional(&mut self, die: u32) -> bool {
        let Some(victim) = self.start_gc(die) else {
            return false;
        };
        let base = self.geo.block_base(victim);
        for p in base..base + self.geo.units_per_block {
            if let Some((_, Some(s))) = self.relocate(p) {
                self.program_done(s);
            }
        }
        self.erase_done(victim);
        true
    }

    /// Write one unit with no timing: place it, program full stripes at once, and
    /// collect garbage synchronously whenever a die runs low.
    pub fn write_functional(&mut self, lpn: u32) {
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
