//! The demand-paged map's state: the map cache (with its optional SRAM level in
//! front of the HMB), segment loads in flight, the update journal and the map's
//! counters. What the map does with them (lookups, loads, journal flushes,
//! write-backs) is in `map/mod.rs`; nothing outside `ssd::map` touches these fields.
//!
//! Simplifies: as `map/mod.rs` says (the journal is not persisted, the map-of-map
//! costs nothing to consult).

use super::NONE;
use crate::config::memory::{MapPlacement, MapTier, MAP_ENTRY_BYTES};
use crate::ftl::map_cache::MapCache;
use crate::sim::Ns;
use crate::ssd::stats::{JournalStats, MapHmbStats, PagedMapStats, WriteBackStats};
use std::collections::VecDeque;

pub(super) struct Load {
    pub(super) seg: u32,
    pub(super) waiters: Vec<u32>,
    pub(super) dirty: bool,
    /// Keep the segment in the map cache when it arrives (a read wants it); a
    /// journal flush alone only stages it in SRAM.
    pub(super) insert: bool,
    pub(super) pending: u32,
    /// A write-back cache's journal flush: frees a flush slot when it lands.
    pub(super) flush: bool,
}

/// Loads in flight, recycled so their waiter lists keep their capacity.
#[derive(Default)]
pub(super) struct Loads {
    pub(super) items: Vec<Load>,
    pub(super) free: Vec<u32>,
}

impl Loads {
    pub(super) fn insert(&mut self, seg: u32, dirty: bool, insert: bool) -> u32 {
        match self.free.pop() {
            Some(i) => {
                let l = &mut self.items[i as usize];
                l.seg = seg;
                l.dirty = dirty;
                l.insert = insert;
                l.pending = 0;
                l.flush = false;
                l.waiters.clear();
                i
            }
            None => {
                self.items.push(Load {
                    seg,
                    waiters: Vec::new(),
                    dirty,
                    insert,
                    pending: 0,
                    flush: false,
                });
                (self.items.len() - 1) as u32
            }
        }
    }
    pub(super) fn get_mut(&mut self, i: u32) -> &mut Load {
        &mut self.items[i as usize]
    }
    pub(super) fn remove(&mut self, i: u32) {
        self.free.push(i);
    }
}

/// The update journal: map entries changed in segments that are not cached,
/// counted per segment, with the segments in the order of their oldest entry.
pub(super) struct Journal {
    pub(super) capacity: u64,
    /// In the HMB (appends are posted writes, a flush reads its entries back).
    pub(super) in_hmb: bool,
    /// Entries logged per segment (0: none).
    pub(super) pending: Vec<u32>,
    /// Segments with logged entries, oldest first (a segment whose entries were
    /// applied meanwhile is skipped when it comes up).
    pub(super) order: VecDeque<u32>,
    pub(super) entries: u64,
    /// Segments being flushed (loaded or written back), and how many.
    pub(super) flushing: Vec<bool>,
    pub(super) flushes_in_flight: u32,
    pub(super) max_flushes: u32,
    /// Dies whose GC reads wait for room in the journal, and how many.
    pub(super) gc_waiting: Vec<bool>,
    pub(super) gc_waiting_dies: u32,
    /// Entries GC's released page reads will log when they are done, and host
    /// writes admitted but not yet placed will (room they have taken already).
    pub(super) gc_in_flight: u64,
    pub(super) host_in_flight: u64,
    /// GC entries released minus the GC share of host entries admitted (clamped):
    /// below zero, GC is owed room; above, host writes are.
    pub(super) share: f64,
    /// Next die to hand room to while several wait.
    pub(super) next_gc_die: usize,
    /// GC units per host unit of each die's last user-data victim (`v / (U - v)`):
    /// the GC share of the room a host write takes; and their mean (kept as each
    /// changes: a write reads it, a victim's claim changes it).
    pub(super) user_gc_ratio: Vec<f64>,
    pub(super) user_gc_ratio_mean: f64,
    /// Host writes waiting for room in the journal.
    pub(super) waiters: VecDeque<u32>,
}

/// The write-back map cache's map-update log: every changed entry is appended, a
/// mapping unit of entries at a time is persisted to a ring of log units in NAND,
/// and a dirty segment is written back before the log wraps past its first change.
pub(super) struct MapLog {
    /// Entries per persisted log page (one mapping unit of 8-byte entries).
    pub(super) entries_per_page: u64,
    /// Entries appended since the last persisted page.
    pub(super) unpersisted: u64,
    /// Entries appended in all (the log's sequence number).
    pub(super) seq: u64,
    /// Entries the ring holds; a dirty segment is written back once half a ring of
    /// entries has been appended after its first change.
    pub(super) ring_entries: u64,
    /// The ring's first logical unit and its length in units.
    pub(super) base_lpn: u64,
    pub(super) ring_units: u64,
    pub(super) next_unit: u64,
    /// Log position at which each segment became dirty (`u64::MAX`: clean).
    pub(super) dirty_since: Vec<u64>,
    /// Segments in the order they became dirty, with that position.
    pub(super) dirty_order: VecDeque<(u32, u64)>,
}

#[derive(Clone, Debug, Default)]
pub(super) struct MapCounters {
    pub(super) read_lookups: u64,
    pub(super) l1_hits: u64,
    pub(super) loads: u64,
    pub(super) nand_loads: u64,
    pub(super) load_reads: u64,
    pub(super) empty_reads: u64,
    pub(super) writebacks: u64,
    pub(super) write_updates: u64,
    pub(super) hmb_read_bytes: u64,
    pub(super) hmb_write_bytes: u64,
    pub(super) journal_entries: u64,
    pub(super) journal_absorbed: u64,
    pub(super) flushes: u64,
    pub(super) flush_loads: u64,
    pub(super) flush_entries: u64,
    pub(super) journal_waits: u64,
    pub(super) peak_journal: u64,
    pub(super) gc_deferrals: u64,
    pub(super) write_allocates: u64,
    pub(super) log_pages: u64,
    pub(super) log_writebacks: u64,
}

pub(in crate::ssd) struct MapState {
    pub(super) place: MapPlacement,
    pub(super) main: MapCache,
    pub(super) l1: Option<MapCache>,
    pub(super) loading: Vec<u32>,
    pub(super) loads: Loads,
    pub(super) journal: Journal,
    /// First logical unit of the map's own storage.
    pub(super) map_base_lpn: u64,
    pub(super) entries_per_seg: u64,
    pub(super) tier_latency_ns: Ns,
    pub(super) sram_latency_ns: Ns,
    pub(super) host_dram_ns: Ns,
    pub(super) hmb_read_granularity: u64,
    pub(super) granted_hmb: crate::config::memory::HmbGrant,
    /// `map.fill = "segment"`: a read's load caches its segment (else MQSim's CMT).
    pub(super) keep_loaded: bool,
    /// `map.update = "write-back"`: the map-update log (None: the journal writes
    /// flushed segments straight back).
    pub(super) log: Option<MapLog>,
    pub(super) c: MapCounters,
    pub(super) policy: crate::config::memory::ReplacementPolicy,
    /// The HMB level while the host holds the HMB (`map/hmb_loss.rs`).
    pub(super) aside: Option<Box<super::hmb_loss::HmbAside>>,
}

impl MapState {
    /// The map machinery for a device whose map is not all resident; None otherwise.
    pub(in crate::ssd) fn new(cfg: &crate::config::DeviceConfig, host_units: u64) -> Option<Self> {
        let place = cfg.map_placement();
        if place.whole {
            return None;
        }
        let seg = place.segment_bytes;
        let main = MapCache::new(place.segments, place.cache_bytes / seg, cfg.map.policy);
        let l1 = (place.l1_bytes > 0)
            .then(|| MapCache::new(place.segments, place.l1_bytes / seg, cfg.map.policy));
        let tier_latency_ns = match place.tier {
            MapTier::Sram => cfg.sram.latency.ns(),
            MapTier::Dram => cfg.dram.latency.ns(),
            MapTier::Hmb => 0, // timed on the PCIe link
        };
        let (journal_tier, journal_entries) = cfg.journal_placement();
        Some(MapState {
            main,
            l1,
            loading: vec![NONE; place.segments as usize],
            loads: Loads::default(),
            journal: Journal {
                capacity: journal_entries,
                in_hmb: journal_tier == crate::config::memory::JournalTier::Hmb,
                pending: vec![0; place.segments as usize],
                order: VecDeque::new(),
                entries: 0,
                flushing: vec![false; place.segments as usize],
                flushes_in_flight: 0,
                max_flushes: match cfg.map.flush_slots {
                    0 => cfg.dies().max(1),
                    n => n,
                },
                gc_waiting: vec![false; cfg.dies() as usize],
                gc_waiting_dies: 0,
                gc_in_flight: 0,
                host_in_flight: 0,
                share: 0.0,
                next_gc_die: 0,
                user_gc_ratio: vec![0.0; cfg.dies() as usize],
                user_gc_ratio_mean: 0.0,
                waiters: VecDeque::new(),
            },
            map_base_lpn: host_units,
            entries_per_seg: seg / MAP_ENTRY_BYTES,
            tier_latency_ns,
            sram_latency_ns: cfg.sram.latency.ns(),
            host_dram_ns: cfg.hmb.host_dram_latency.ns(),
            hmb_read_granularity: cfg.hmb.read_granularity.bytes().max(1),
            granted_hmb: cfg.hmb.negotiate(),
            keep_loaded: cfg.map.fill == crate::config::memory::MapFill::Segment,
            log: (cfg.map.update == crate::config::memory::MapUpdate::WriteBack).then(|| {
                let unit = cfg.ftl.mapping_unit.bytes().max(1);
                let entries_per_page = (unit / crate::config::memory::JOURNAL_ENTRY_BYTES).max(1);
                let ring_units = cfg.map_log_units();
                MapLog {
                    entries_per_page,
                    unpersisted: 0,
                    seq: 0,
                    ring_entries: ring_units * entries_per_page,
                    base_lpn: host_units + place.map_bytes.div_ceil(unit),
                    ring_units,
                    next_unit: 0,
                    dirty_since: vec![u64::MAX; place.segments as usize],
                    dirty_order: VecDeque::new(),
                }
            }),
            place,
            c: MapCounters::default(),
            policy: cfg.map.policy,
            aside: None,
        })
    }

    #[inline]
    pub(super) fn seg_of(&self, lpn: u32) -> u32 {
        (lpn as u64 / self.entries_per_seg) as u32
    }

    /// The entries of `first..=last` that segment `seg` holds, as indices inside it.
    #[inline]
    pub(super) fn entries_in(&self, seg: u32, first: u32, last: u32) -> (u32, u32) {
        let eps = self.entries_per_seg as u32;
        let base = seg * eps;
        (first.max(base) - base, last.min(base + eps - 1) - base)
    }

    /// Room left in the journal once what is on its way is logged.
    #[inline]
    pub(super) fn journal_room(&self) -> i64 {
        let j = &self.journal;
        j.capacity as i64 - (j.entries + j.gc_in_flight + j.host_in_flight) as i64
    }

    /// Is the journal full (host writes and GC reads wait for room)?
    #[inline]
    pub(super) fn journal_full(&self) -> bool {
        self.journal_room() <= 0
    }

    /// Should a flush start (three quarters full, or any entry for a write-back
    /// cache, and a flush slot free)?
    #[inline]
    pub(super) fn wants_flush(&self) -> bool {
        let j = &self.journal;
        // A write-back cache allocates at once (the journal only holds entries whose
        // segment is on its way); the journal alone waits until three quarters full.
        let due = if self.log.is_some() {
            j.entries > 0
        } else {
            j.entries * 4 >= j.capacity * 3
        };
        due && j.flushes_in_flight < j.max_flushes
    }

    /// The map's counters; `pcie_payload_bytes`: all PCIe payload, for the HMB share.
    pub(in crate::ssd) fn stats(&self, pcie_payload_bytes: u64) -> PagedMapStats {
        let s = &self.main.stats;
        let l1 = self
            .l1
            .as_ref()
            .map(|c| c.stats.clone())
            .unwrap_or_default();
        // Hit rate as a read sees it: segments found in some level of the cache
        // (or known to be empty, which needs no lookup at all).
        let lookups = self.c.read_lookups;
        let read_hits = lookups - self.c.load_reads;
        let hmb_bytes = self.c.hmb_read_bytes + self.c.hmb_write_bytes;
        let c = &self.c;
        PagedMapStats {
            placement: self.place.clone(),
            lookups,
            hits: read_hits,
            misses: lookups - read_hits,
            hit_rate: if lookups > 0 {
                read_hits as f64 / lookups as f64
            } else {
                0.0
            },
            l1_hits: l1.hits,
            cache_hits: s.hits,
            cache_misses: s.misses,
            empty_segment_reads: c.empty_reads,
            loads: c.loads,
            nand_loads: c.nand_loads,
            evictions: s.evictions,
            dirty_writebacks: c.writebacks,
            write_updates: c.write_updates,
            journal: JournalStats {
                tier: if self.journal.in_hmb { "hmb" } else { "sram" },
                capacity_entries: self.journal.capacity,
                entries_logged: c.journal_entries,
                entries_absorbed_by_loads: c.journal_absorbed,
                flushes: c.flushes,
                flush_loads: c.flush_loads,
                entries_per_flush: if c.flushes > 0 {
                    c.flush_entries as f64 / c.flushes as f64
                } else {
                    0.0
                },
                peak_entries: c.peak_journal,
                host_write_waits: c.journal_waits,
                gc_deferrals: c.gc_deferrals,
            },
            hmb: MapHmbStats {
                granted_bytes: self.granted_hmb.granted_bytes,
                read_granularity_bytes: self.hmb_read_granularity,
                read_bytes: c.hmb_read_bytes,
                write_bytes: c.hmb_write_bytes,
                pcie_share: if pcie_payload_bytes > 0 {
                    hmb_bytes as f64 / pcie_payload_bytes as f64
                } else {
                    0.0
                },
            },
            write_back: self.log.as_ref().map(|log| WriteBackStats {
                write_allocates: c.write_allocates,
                dirty_segments: log.dirty_since.iter().filter(|&&s| s != u64::MAX).count() as u64,
                log_pages: c.log_pages,
                log_entries: log.seq,
                log_writebacks: c.log_writebacks,
                log_ring_entries: log.ring_entries,
            }),
        }
    }
}
