//! The map cache when the host takes its HMB back and hands it again, and when the
//! controller's SRAM loses power (the host events of `ssd/host_events.rs`).
//!
//! Taking the HMB back: the controller may not touch host memory once the Set
//! Features command that disables the HMB completes, so the HMB level's dirty
//! segments are written back to their translation pages and the level is set
//! aside; until the HMB returns, the drive caches map segments in its SRAM level
//! alone (a cache of the SRAM level's size with SRAM latency, as a drive granted no
//! HMB runs). Entries that change meanwhile mark their segment stale.
//! Handing it back with Memory Return (NVMe: the buffer's contents are as they were
//! when it was disabled) restores the set-aside level minus the stale segments (a
//! load on its way for a segment it holds then lands on the copy it finds); without
//! it the level starts empty and refills as reads miss, or, with
//! `reset.hmb_rebuild = "eager"`, every segment it held is loaded again at once.
//! The SRAM level starts empty in both cases.
//!
//! Simplifies: the write-backs are ordinary map write-backs issued at the event;
//! the interim SRAM cache's dirty segments are written back when the HMB returns,
//! not kept.

use super::MapState;
use crate::config::memory::MapTier;
use crate::ftl::map_cache::MapCache;
use crate::ssd::Ssd;

/// The HMB level set aside while the host holds the HMB.
pub(in crate::ssd) struct HmbAside {
    main: MapCache,
    l1_capacity: Option<u32>,
    /// Segments whose entries changed while the HMB was away.
    stale: Vec<bool>,
}

impl MapState {
    /// Segment loads that read NAND so far.
    pub(in crate::ssd) fn nand_loads(&self) -> u64 {
        self.c.nand_loads
    }

    /// Note that segments `s0..=s1` changed (stale in a set-aside HMB level).
    #[inline]
    pub(super) fn note_changed(&mut self, s0: u32, s1: u32) {
        if let Some(a) = &mut self.aside {
            for s in s0..=s1 {
                a.stale[s as usize] = true;
            }
        }
    }
}

impl Ssd {
    /// Write back every dirty segment of the current main level; returns how many.
    fn write_back_all_dirty(&mut self) -> u64 {
        let segs = self.map().main.order();
        let mut written = 0;
        for seg in segs {
            let m = self.map();
            if m.main.is_dirty(seg) {
                m.main.mark_clean(seg);
                self.map_writeback(seg);
                written += 1;
            }
        }
        written
    }

    /// The host takes the HMB back: returns (segments dropped, dirty written back),
    /// or None when the map cache is not in the HMB (or is set aside already).
    pub(in crate::ssd) fn map_hmb_take_back(&mut self) -> Option<(u64, u64)> {
        let m = self.map.as_ref()?;
        if m.place.tier != MapTier::Hmb || m.aside.is_some() {
            return None;
        }
        let written = self.write_back_all_dirty();
        let m = self.map();
        let seg_bytes = m.place.segment_bytes;
        let segments = m.place.segments;
        let policy = m.policy;
        let l1_capacity = m.l1.as_ref().map(|c| c.capacity());
        let interim = (m.place.l1_bytes / seg_bytes).max(1);
        let main = std::mem::replace(&mut m.main, MapCache::new(segments, interim, policy));
        m.l1 = None;
        m.place.tier = MapTier::Sram;
        m.tier_latency_ns = m.sram_latency_ns;
        m.aside = Some(Box::new(HmbAside {
            main,
            l1_capacity,
            stale: vec![false; segments as usize],
        }));
        Some((0, written))
    }

    /// The host hands the HMB back (`memory_return`: with its contents); returns
    /// the segments of the HMB level lost. Nothing to do when it was not taken.
    pub(in crate::ssd) fn map_hmb_hand_back(&mut self, memory_return: bool) -> u64 {
        let Some(m) = self.map.as_mut() else {
            return 0;
        };
        let Some(aside) = m.aside.take() else {
            return 0;
        };
        // The interim SRAM cache's dirty segments go back to NAND.
        self.write_back_all_dirty();
        let eager = self.cfg.reset.hmb_rebuild == crate::config::host_events::HmbRebuild::Eager;
        let mut reload = Vec::new();
        let m = self.map();
        let HmbAside {
            mut main,
            l1_capacity,
            stale,
        } = *aside;
        let held = main.len() as u64;
        let dropped = if memory_return {
            let mut lost = 0;
            for seg in main.order() {
                if stale[seg as usize] {
                    main.remove(seg);
                    lost += 1;
                }
            }
            lost
        } else {
            if eager {
                reload = main.order();
                reload.reverse();
            }
            main = MapCache::new(m.place.segments, main.capacity() as u64, m.policy);
            held
        };
        m.main = main;
        m.l1 = l1_capacity.map(|c| MapCache::new(m.place.segments, c as u64, m.policy));
        m.place.tier = MapTier::Hmb;
        m.tier_latency_ns = 0;
        // Eager rebuild: load what the cache held, least recently used first, so that
        // the segments land in their old order of recency.
        for seg in reload {
            if !self.seg_never_written(seg) {
                self.start_load(seg, None, false, true);
            }
        }
        dropped
    }

    /// The controller loses power: its SRAM (or DRAM) map cache is gone once its
    /// dirty segments are written back (a normal shutdown). Returns (dropped,
    /// written back). An HMB level is the host's: it is set aside before this.
    pub(in crate::ssd) fn map_power_off_sram(&mut self) -> (u64, u64) {
        let Some(m) = self.map.as_ref() else {
            return (0, 0);
        };
        if m.place.tier == MapTier::Hmb {
            return (0, 0);
        }
        let written = self.write_back_all_dirty();
        let m = self.map();
        let dropped = m.main.len() as u64;
        m.main = MapCache::new(m.place.segments, m.main.capacity() as u64, m.policy);
        if let Some(l1) = &m.l1 {
            m.l1 = Some(MapCache::new(
                m.place.segments,
                l1.capacity() as u64,
                m.policy,
            ));
        }
        (dropped, written)
    }
}
