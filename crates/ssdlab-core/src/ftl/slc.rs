//! The SLC cache's side of the FTL: placing host units in SLC-mode blocks, the
//! (dynamic) allowance of SLC blocks per die, and padding the SLC frontier. Folding
//! the area back to native blocks runs through GC (`gc.rs`).
//!
//! Free-space SLC (`slc.mode = "free-space"`) carves the cache from free native
//! blocks: beyond its static part, each SLC-mode block a die opens takes one free
//! native block off the die's free list (lent, `DieFtl::lent`) and gives it back when
//! it is folded and erased. A die lends only while it keeps GC's spare plus room to
//! fold every SLC block it holds (a third of a native block each, for TLC), so the
//! cache is `slc.size` on an empty drive, shrinks as the free space shrinks, and is
//! only the static part on a drive at GC's steady state. Simplifies: an SLC-mode block
//! has a block number of its own (the numbers past the native ones) standing for the
//! lent native block, so the lent block's own wear and the erase that turns it from
//! SLC to native mode are not modelled; which native block is lent does not matter.

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
        let all = self.geo.slc_blocks_per_die();
        let lend = self.slc_free_space;
        let static_blocks = self.slc_static_blocks;
        let d = &mut self.dies[die as usize];
        if d.slc.block == NO_BLOCK {
            if lend && all - d.slc_free.len() as u32 >= static_blocks {
                let native = d.free.pop_front().expect("caller checked a block to lend");
                d.lent.push(native);
            }
            let b = d.slc_free.pop_front().expect("caller checked room");
            self.slc_in_use += 1;
            self.stats.slc_peak_blocks = self.stats.slc_peak_blocks.max(self.slc_in_use);
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
    /// shrinks to `slc_min_blocks` as the host's logical space fills (free-space SLC:
    /// all of them here; what a die may open is `slc_room`'s per-die rule).
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
        if d.slc_free.is_empty() {
            return false;
        }
        if self.slc_free_space {
            return self.may_open_slc(in_use, d.free.len() as u32);
        }
        in_use < self.slc_allowed_blocks()
    }

    /// Free-space SLC: may a die holding `in_use` SLC blocks and `free` free native
    /// blocks open one more? Within the static part always; beyond it only if, with
    /// one native block lent, the die keeps GC's spare (what folding asks for), one
    /// block to fold into, and room to fold every SLC block it would hold.
    #[inline]
    fn may_open_slc(&self, in_use: u32, free: u32) -> bool {
        if in_use < self.slc_static_blocks {
            return true;
        }
        let fold_room = (in_use + 1).div_ceil(self.geo.bits_per_cell.max(1));
        free > self.fold_spare() + 1 + fold_room
    }

    /// Free SLC blocks die `die` may still open: with dynamic SLC, only those within
    /// its allowance (the rest wait for the drive to empty again); with free-space
    /// SLC, those its free native blocks allow (counted up to `cap`).
    pub fn slc_usable_free_blocks_up_to(&self, die: u32, cap: u32) -> u32 {
        let d = &self.dies[die as usize];
        let slc_free = d.slc_free.len() as u32;
        let in_use = self.geo.slc_blocks_per_die() - slc_free;
        if !self.slc_free_space {
            return slc_free.min(self.slc_allowed_blocks().saturating_sub(in_use));
        }
        let (mut n, mut free) = (0, d.free.len() as u32);
        while n < slc_free.min(cap) && self.may_open_slc(in_use + n, free) {
            if in_use + n >= self.slc_static_blocks {
                free -= 1;
            }
            n += 1;
        }
        n
    }

    /// Free-space SLC: after an SLC block of `die` is erased, give back the native
    /// blocks lent to SLC blocks no longer in use.
    pub(super) fn return_lent(&mut self, die: u32) {
        if !self.slc_free_space {
            return;
        }
        let all = self.geo.slc_blocks_per_die();
        let static_blocks = self.slc_static_blocks;
        let d = &mut self.dies[die as usize];
        let in_use = all - d.slc_free.len() as u32;
        while d.lent.len() as u32 > in_use.saturating_sub(static_blocks) {
            let b = d.lent.pop().expect("checked above");
            d.free.push_back(b);
        }
    }

    /// Native blocks lent to SLC-mode blocks, over all dies (free-space SLC).
    pub fn slc_lent_blocks(&self) -> u64 {
        self.dies.iter().map(|d| d.lent.len() as u64).sum()
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
