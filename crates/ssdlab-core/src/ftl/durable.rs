//! Which acknowledged writes are durable: the FTL's record of the host units whose
//! current data is still only in the volatile write buffer (placed in a page whose
//! program has not completed) and, for each, the newest copy of that logical unit
//! already on NAND. Kept only in runs with a `power_loss` event
//! (`Ftl::track_durability`), so no other run pays for it or changes.
//!
//! At a cut without power-loss protection (`Ftl::power_cut`) every such unit falls
//! back to that copy, as a recovery that scans the open blocks' spare areas would
//! find it: the newest version whose page was programmed, or unmapped when there is
//! none. The lost units are returned, never dropped silently.
//!
//! Simplifies: a trim is taken as durable when processed (its map update is assumed
//! journaled at once); GC copies keep their version, so a GC copy in flight at the cut
//! is taken to complete (real firmware keeps the source until the copy is programmed);
//! a previous copy whose block GC has erased since, or is collecting at the cut (the
//! model's GC erases a victim once its reads are done), cannot be fallen back to: that
//! unit reads unmapped and is counted apart (`older_lost`). Interrupted programs damage
//! no paired page.

use super::{Ftl, FullStripe, NO_BLOCK, UNMAPPED};
use crate::nand::Pun;
use std::collections::{BTreeMap, HashMap, HashSet};

/// The newest NAND copy of a unit whose current data is not durable.
#[derive(Clone, Copy, Debug)]
struct Fallback {
    /// UNMAPPED: none (never written, or trimmed).
    pun: Pun,
    erase_count: u32,
    /// Write sequence of that copy (0: from before the run's tracking).
    seq: u64,
}

/// Durability bookkeeping (see the module header).
#[derive(Clone, Debug, Default)]
pub struct Durability {
    /// Host units placed in pages not yet programmed: pun -> (lpn, write sequence).
    pending: HashMap<Pun, (u32, u64)>,
    /// Host units whose current data is not on NAND, by lpn.
    fallback: BTreeMap<u32, Fallback>,
    /// GC copies of durable units not yet programmed (taken to complete: see above).
    gc_copies: HashSet<Pun>,
    seq: u64,
}

/// What a power cut without PLP did to the map.
#[derive(Clone, Debug, Default)]
pub struct CutLoss {
    /// Host units whose acknowledged data was only in the write buffer, in lpn order.
    pub lost: Vec<u32>,
    /// Of those, units whose previous copy GC had erased: they read unmapped.
    pub older_lost: u64,
}

impl Ftl {
    /// Keep the durability record from now on (a run with a `power_loss` event).
    pub fn track_durability(&mut self) {
        self.durable = Some(Box::default());
    }

    /// Host units whose current data is not yet on NAND (0 when not tracked).
    pub fn volatile_units(&self) -> u64 {
        self.durable.as_ref().map_or(0, |d| d.fallback.len() as u64)
    }

    /// `bind` of a host unit: remember its newest durable copy, and the new one as pending.
    #[inline]
    pub(super) fn durable_bind(&mut self, lpn: u32, old: Pun, new: Pun) {
        if (lpn as u64) >= self.host_units {
            return;
        }
        let ec = if old == UNMAPPED {
            0
        } else {
            self.blocks[self.geo.block_of(old) as usize].erase_count
        };
        let Some(d) = self.durable.as_mut() else {
            return;
        };
        d.seq += 1;
        let seq = d.seq;
        d.fallback.entry(lpn).or_insert(Fallback {
            pun: old,
            erase_count: ec,
            seq: 0,
        });
        d.pending.insert(new, (lpn, seq));
    }

    /// A trim is durable at once: nothing to fall back to.
    #[inline]
    pub(super) fn durable_trim(&mut self, lpn: u32) {
        if let Some(d) = self.durable.as_mut() {
            d.fallback.remove(&lpn);
        }
    }

    /// GC moved a unit still pending: the pending copy moves with it.
    #[inline]
    pub(super) fn durable_moved(&mut self, old: Pun, new: Pun) {
        if let Some(d) = self.durable.as_mut() {
            if let Some(p) = d.pending.remove(&old) {
                d.pending.insert(new, p);
            } else {
                d.gc_copies.insert(new);
            }
        }
    }

    /// A stripe's program completed: its units are durable. A unit still current needs
    /// no fallback any more; an overwritten one is the newest NAND copy if no later
    /// write of the unit is programmed yet.
    pub(super) fn durable_programmed(&mut self, s: FullStripe) {
        let Some(mut d) = self.durable.take() else {
            return;
        };
        if !d.pending.is_empty() || !d.gc_copies.is_empty() {
            let pages = self.geo.program_pages(s.block);
            let ups = self.geo.units_per_stripe;
            let first = self.geo.block_base(s.block) + (s.page + 1 - pages) * ups;
            let ec = self.blocks[s.block as usize].erase_count;
            for pun in first..first + pages * ups {
                d.gc_copies.remove(&pun);
                let Some((lpn, seq)) = d.pending.remove(&pun) else {
                    continue;
                };
                if self.l2p.get(lpn as usize) == pun {
                    d.fallback.remove(&lpn);
                } else if let Some(f) = d.fallback.get_mut(&lpn) {
                    if seq > f.seq {
                        *f = Fallback {
                            pun,
                            erase_count: ec,
                            seq,
                        };
                    }
                }
            }
        }
        self.durable = Some(d);
    }

    /// A power cut without PLP: every host unit whose data was only in the write buffer
    /// falls back to its newest NAND copy (unmapped if none, or if GC erased it).
    pub fn power_cut(&mut self) -> CutLoss {
        let Some(mut d) = self.durable.take() else {
            return CutLoss::default();
        };
        let mut loss = CutLoss::default();
        if self.verify.is_some() {
            // The oracle, from the flash state alone: the host units whose current copy
            // sits in a page not yet programmed (GC copies aside) must be exactly the
            // units the record falls back.
            let volatile = self.volatile_on_flash(&d.gc_copies);
            let recorded: Vec<u32> = d.fallback.keys().copied().collect();
            if let Some(v) = &mut self.verify {
                v.checked += 1;
                if volatile != recorded {
                    v.mismatches += 1;
                }
            }
        }
        for (&lpn, f) in &d.fallback {
            let cur = self.l2p.get(lpn as usize);
            if cur != UNMAPPED {
                self.invalidate(cur);
                self.l2p.set(lpn as usize, UNMAPPED);
                self.mapped_units -= 1;
            }
            // The copy is still there unless its block was erased since, or is being
            // collected now (GC has read past it: the erase would take it).
            let alive = f.pun != UNMAPPED && {
                let block = self.geo.block_of(f.pun);
                let die = self.geo.die_of(f.pun) as usize;
                self.blocks[block as usize].erase_count == f.erase_count
                    && self.dies[die].victim != Some(block)
                    && self.p2l.get(f.pun as usize) == UNMAPPED
            };
            let back = if alive {
                self.bind(lpn, f.pun);
                f.pun
            } else {
                self.l2p.set(lpn as usize, UNMAPPED);
                if f.pun != UNMAPPED {
                    loss.older_lost += 1;
                }
                UNMAPPED
            };
            let on_nand =
                back == UNMAPPED || self.is_programmed(back) || d.gc_copies.contains(&back);
            if let Some(v) = &mut self.verify {
                // The oracle: what a read finds now must have been on NAND at the cut.
                v.checked += 1;
                if !on_nand {
                    v.mismatches += 1;
                }
                v.shadow[lpn as usize] = if back == UNMAPPED {
                    0
                } else {
                    v.tags[back as usize]
                };
            }
            loss.lost.push(lpn);
        }
        d.fallback.clear();
        d.pending.clear();
        d.gc_copies.clear();
        self.durable = Some(d);
        loss
    }

    /// Host units mapped to a unit of a page not yet programmed, in lpn order: a scan
    /// of every allocated block's unprogrammed pages (the oracle's own view).
    fn volatile_on_flash(&self, gc_copies: &HashSet<Pun>) -> Vec<u32> {
        let ups = self.geo.units_per_stripe;
        let mut out = Vec::new();
        for (b, info) in self.blocks.iter().enumerate() {
            if info.state == super::BlockState::Free {
                continue;
            }
            let pages = if self.geo.is_slc_block(b as u32) {
                self.geo.slc_pages_per_block
            } else {
                self.geo.pages_per_block
            };
            let base = self.geo.block_base(b as u32);
            for pun in base + self.programmed[b] as u32 * ups..base + pages * ups {
                let lpn = self.p2l.get(pun as usize);
                if lpn != UNMAPPED
                    && (lpn as u64) < self.host_units
                    && self.l2p.get(lpn as usize) == pun
                    && !gc_copies.contains(&pun)
                {
                    out.push(lpn);
                }
            }
        }
        out.sort_unstable();
        out
    }

    /// With PLP the buffer is dumped at the cut: everything acknowledged is durable.
    pub fn power_cut_protected(&mut self) {
        if let Some(d) = self.durable.as_mut() {
            d.fallback.clear();
            d.pending.clear();
            d.gc_copies.clear();
        }
    }

    /// Open blocks (every write stream of every die) and their programmed pages
    /// (stripes), in die order: what a recovery scans.
    pub fn open_blocks(&self) -> Vec<(u32, u32)> {
        let mut out = Vec::new();
        for d in &self.dies {
            for f in [d.host, d.gc, d.map, d.slc] {
                if f.block != NO_BLOCK {
                    out.push((f.block, self.programmed[f.block as usize] as u32));
                }
            }
        }
        out
    }
}
