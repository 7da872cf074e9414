//! The SLC cache's side of the FTL: placing host units in SLC-mode blocks, the
//! (dynamic) allowance of SLC blocks per die, and padding the SLC frontier. Folding
//! the area back to native blocks runs through GC (`gc.rs`).

use super::{BlockState, Ftl, FullStripe, Pun, NO_BLOCK};

impl Ftl {
    /// Place one host unit in the SLC area, if some die has room there.
    pub(super) fn place_slc(&mut self, lpn: u32) -> Option<(Pun, Option<FullStripe>)> {
        let die = self.die_from_cursor(|f, d| f.slc_room(d))?;
        let (pun, full) = self.alloc_slc(die);
        self.cursor_after(die, &full);
        self.stats.host_units_to_slc += 1;
        self.host_placed(lpn, pun);
        Some((pun, full))
    }

    /// Allocate the next unit of a die's SLC frontier.
    pub(super) fn alloc_slc(&mut self, die: u32) -> (Pun, Option<FullStripe>) {
        let ups = self.geo.units_per_stripe;
        let upb_slc = ups * self.geo.slc_pages_per_block;
        let d = &mut self.dies[die as usize];
        if d.slc.block == NO_BLOCK {
            let b = d.slc_free.pop_front().expect("caller checked room");
            d.slc.block = b;
            d.slc.next = 0;
            self.blocks[b as usize].state = BlockState::Open;
        }
        let block = d.slc.block;
        let pun = self.geo.block_base(block) + d.slc.next;
        d.slc.next += 1;
        self.write_clock += 1;
        let mut full = None;
        if d.slc.next.is_multiple_of(ups) {
            full = Some(FullStripe {
                die,
                block,
                page: d.slc.next / ups - 1,
            });
            if d.slc.next == upb_slc {
                d.slc.block = NO_BLOCK;
                d.slc_full.push_back(block);
                let b = &mut self.blocks[block as usize];
                b.state = BlockState::Full;
                b.closed_at = self.write_clock;
            }
        }
        (pun, full)
    }

    /// Does some die still have room in its SLC area?
    pub fn slc_has_room(&self) -> bool {
        (0..self.geo.dies).any(|die| self.slc_room(die))
    }

    /// SLC blocks a die may use now: all of them, or with dynamic SLC a share that
    /// shrinks to `slc_min_blocks` as the host's logical space fills.
    pub fn slc_allowed_blocks(&self) -> u32 {
        let all = self.geo.slc_blocks_per_die();
        if !self.slc_dynamic {
            return all;
        }
        let empty = 1.0 - self.mapped_units as f64 / self.host_units.max(1) as f64;
        let extra = ((all - self.slc_min_blocks) as f64 * empty.clamp(0.0, 1.0)).ceil() as u32;
        self.slc_min_blocks + extra
    }

    /// Can die `die` take a unit in SLC mode (an open SLC block, or a free one it may
    /// open within its allowance)?
    #[inline]
    pub(super) fn slc_room(&self, die: u32) -> bool {
        let d = &self.dies[die as usize];
        if d.slc.block != NO_BLOCK {
            return true;
        }
        let all = self.geo.slc_blocks_per_die();
        let in_use = all - d.slc_free.len() as u32;
        !d.slc_free.is_empty() && in_use < self.slc_allowed_blocks()
    }

    /// Free SLC blocks die `die` may still open: with dynamic SLC, only those within
    /// its allowance (the rest wait for the drive to empty again).
    pub fn slc_usable_free_blocks(&self, die: u32) -> u32 {
        let d = &self.dies[die as usize];
        let free = d.slc_free.len() as u32;
        let in_use = self.geo.slc_blocks_per_die() - free;
        free.min(self.slc_allowed_blocks().saturating_sub(in_use))
    }

    /// Free SLC-mode blocks over all dies.
    pub fn slc_free_blocks(&self) -> u64 {
        self.dies.iter().map(|d| d.slc_free.len() as u64).sum()
    }

    /// Pad the die's SLC frontier to a whole stripe (SLC programs one page at a time).
    pub(super) fn seal_slc(&mut self, die: u32) {
        let ups = self.geo.units_per_stripe;
        let upb_slc = ups * self.geo.slc_pages_per_block;
        let d = &mut self.dies[die as usize];
        if d.slc.block == NO_BLOCK {
            return;
        }
        let block = d.slc.block;
        d.slc.next = d.slc.next.div_ceil(ups) * ups;
        let pages = d.slc.next / ups;
        if d.slc.next == upb_slc {
            d.slc.block = NO_BLOCK;
            d.slc_full.push_back(block);
            self.blocks[block as usize].state = BlockState::Full;
        }
        let p = &mut self.programmed[block as usize];
        while (*p as u32) < pages {
            *p += 1;
            self.stats.pages_programmed += self.geo.planes as u64;
            self.stats.units_programmed += ups as u64;
        }
    }
}
