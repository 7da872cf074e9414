//! The demand-paged map in action: where a command's map entries come from.
//!
//! A read looks its segments up in the map cache (an SRAM level first, when there
//! is one in front of the HMB); a hit costs the tier's access: SRAM or DRAM latency,
//! or for the HMB a PCIe round trip (read request up, completion with the entry or
//! segment down, sharing the link with user data). A miss loads the segment from its
//! translation page in NAND (sense plus transfer of the segment's bytes only) and
//! holds the read until then; concurrent misses on one segment wait on one load. The
//! loaded segment is copied into the HMB (posted write up) when that is the tier.
//! Writes and GC moves update their segment: dirty if cached, else loaded in the
//! background and marked dirty; they do not wait for it. Evicting a dirty segment
//! writes it back as an internal write of the segment's bytes to the map's own
//! logical units, through the write buffer (with read-modify-write when the segment
//! is smaller than the mapping unit), so map writes take die time, GC and WAF.
//!
//! Simplifies: map pages share the host write stream and GC frontiers rather than
//! dedicated map blocks; a write's map update is not on its completion path; the
//! map-of-map is always in SRAM and costs nothing to consult.

use super::{Cmd, Ssd};
use crate::config::memory::{MapPlacement, MapTier};
use crate::controller::{Txn, TxnKind};
use crate::ftl::map_cache::MapCache;
use crate::ftl::UNMAPPED;
use crate::sim::{Event, Ns};
use crate::workload::OpKind;
use serde_json::{json, Value};

const NONE: u32 = u32::MAX;
/// `Cmd::job` of the controller's own map write-backs.
pub(super) const INTERNAL_JOB: u32 = u32::MAX;

struct Load {
    seg: u32,
    waiters: Vec<u32>,
    dirty: bool,
    pending: u32,
}

/// Loads in flight, recycled so their waiter lists keep their capacity.
#[derive(Default)]
struct Loads {
    items: Vec<Load>,
    free: Vec<u32>,
}

impl Loads {
    fn insert(&mut self, seg: u32, dirty: bool) -> u32 {
        match self.free.pop() {
            Some(i) => {
                let l = &mut self.items[i as usize];
                l.seg = seg;
                l.dirty = dirty;
                l.pending = 0;
                l.waiters.clear();
                i
            }
            None => {
                self.items.push(Load {
                    seg,
                    waiters: Vec::new(),
                    dirty,
                    pending: 0,
                });
                (self.items.len() - 1) as u32
            }
        }
    }
    fn get_mut(&mut self, i: u32) -> &mut Load {
        &mut self.items[i as usize]
    }
    fn remove(&mut self, i: u32) {
        self.free.push(i);
    }
}

#[derive(Clone, Debug, Default)]
struct MapCounters {
    read_lookups: u64,
    l1_hits: u64,
    loads: u64,
    nand_loads: u64,
    load_reads: u64,
    writebacks: u64,
    write_updates: u64,
    hmb_read_bytes: u64,
    hmb_write_bytes: u64,
}

pub(super) struct MapState {
    pub place: MapPlacement,
    main: MapCache,
    l1: Option<MapCache>,
    loading: Vec<u32>,
    loads: Loads,
    /// First logical unit of the map's own storage.
    map_base_lpn: u64,
    entries_per_seg: u64,
    tier_latency_ns: Ns,
    sram_latency_ns: Ns,
    host_dram_ns: Ns,
    granted_hmb: crate::config::memory::HmbGrant,
    c: MapCounters,
}

impl MapState {
    /// The map machinery for a device whose map is not all resident; None otherwise.
    pub fn new(cfg: &crate::config::DeviceConfig, host_units: u64) -> Option<Self> {
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
        Some(MapState {
            main,
            l1,
            loading: vec![NONE; place.segments as usize],
            loads: Loads::default(),
            map_base_lpn: host_units,
            entries_per_seg: seg / crate::config::memory::MAP_ENTRY_BYTES,
            tier_latency_ns,
            sram_latency_ns: cfg.sram.latency.ns(),
            host_dram_ns: cfg.hmb.host_dram_latency.ns(),
            granted_hmb: cfg.hmb.negotiate(),
            place,
            c: MapCounters::default(),
        })
    }

    #[inline]
    fn seg_of(&self, lpn: u32) -> u32 {
        (lpn as u64 / self.entries_per_seg) as u32
    }

    pub fn to_json(&self, pcie_payload_bytes: u64) -> Value {
        let s = &self.main.stats;
        let l1 = self
            .l1
            .as_ref()
            .map(|c| c.stats.clone())
            .unwrap_or_default();
        // Hit rate as a read sees it: segments found in some level of the cache.
        let lookups = self.c.read_lookups;
        let read_hits = lookups - self.c.load_reads;
        let hmb_bytes = self.c.hmb_read_bytes + self.c.hmb_write_bytes;
        json!({
            "placement": self.place,
            "lookups": lookups,
            "hits": read_hits,
            "misses": lookups - read_hits,
            "hit_rate": if lookups > 0 { read_hits as f64 / lookups as f64 } else { 0.0 },
            "l1_hits": l1.hits,
            "cache_hits": s.hits,
            "cache_misses": s.misses,
            "loads": self.c.loads,
            "nand_loads": self.c.nand_loads,
            "evictions": s.evictions,
            "dirty_writebacks": self.c.writebacks,
            "write_updates": self.c.write_updates,
            "hmb": {
                "granted_bytes": self.granted_hmb.granted_bytes,
                "read_bytes": self.c.hmb_read_bytes,
                "write_bytes": self.c.hmb_write_bytes,
                "pcie_share": if pcie_payload_bytes > 0 { hmb_bytes as f64 / pcie_payload_bytes as f64 } else { 0.0 },
            },
        })
    }
}

impl Ssd {
    fn map(&mut self) -> &mut MapState {
        self.map.as_mut().expect("map cache in use")
    }

    /// A read's command is decoded: find its map entries, then read the data.
    pub(super) fn map_read_lookup(&mut self, cmd: u32) {
        let now = self.now();
        let c = *self.cmds.get(cmd);
        let ub = self.unit_bytes;
        let first = (c.offset / ub) as u32;
        let last = ((c.offset + c.len - 1) / ub) as u32;
        let m = self.map.as_ref().expect("map cache in use");
        let (s0, s1) = (m.seg_of(first), m.seg_of(last));
        let mut ready = now;
        let mut waits = 0u32;
        for seg in s0..=s1 {
            let m = self.map();
            m.c.read_lookups += 1;
            if let Some(l1) = &mut m.l1 {
                if l1.lookup(seg) {
                    m.c.l1_hits += 1;
                    ready = ready.max(now + m.sram_latency_ns);
                    continue;
                }
            }
            if m.main.lookup(seg) {
                let t = self.tier_access(seg, true);
                ready = ready.max(t);
            } else {
                self.map().c.load_reads += 1;
                self.start_load(seg, Some(cmd), false);
                waits += 1;
            }
        }
        if waits > 0 {
            self.cmds.get_mut(cmd).pending = waits;
        } else if ready > now {
            self.q.schedule(ready, Event::MapReady { cmd });
        } else {
            self.start_read(cmd);
        }
    }

    /// Time when a cached segment's entries are at hand; for the HMB, a read request
    /// up the link and the data back down (the whole segment when it is copied into
    /// the SRAM level, else the command's entries).
    fn tier_access(&mut self, seg: u32, for_read: bool) -> Ns {
        let now = self.now();
        let m = self.map.as_mut().expect("map cache in use");
        if m.place.tier != MapTier::Hmb {
            return now + m.tier_latency_ns;
        }
        let bytes = if m.l1.is_some() {
            m.place.segment_bytes
        } else {
            crate::config::memory::MAP_ENTRY_BYTES * 2
        };
        m.c.hmb_read_bytes += bytes;
        let host_ns = m.host_dram_ns;
        if for_read {
            if let Some(l1) = &mut m.l1 {
                l1.insert(seg, false);
            }
        }
        let at_host = self.pcie.send_up(now, 0);
        self.pcie.send_down(at_host + host_ns, bytes)
    }

    /// Begin (or join) loading segment `seg` from NAND.
    fn start_load(&mut self, seg: u32, waiter: Option<u32>, dirty: bool) {
        let ub = self.unit_bytes;
        let m = self.map();
        let existing = m.loading[seg as usize];
        if existing != NONE {
            let l = m.loads.get_mut(existing);
            l.dirty |= dirty;
            if let Some(w) = waiter {
                l.waiters.push(w);
            }
            return;
        }
        m.c.loads += 1;
        let id = m.loads.insert(seg, dirty);
        if let Some(w) = waiter {
            m.loads.get_mut(id).waiters.push(w);
        }
        m.loading[seg as usize] = id;
        let seg_bytes = m.place.segment_bytes;
        let start = m.map_base_lpn * ub + seg as u64 * seg_bytes;
        let first = start / ub;
        let last = (start + seg_bytes - 1) / ub;
        let mut pending = 0;
        let mut buffered = false;
        for lpn in first..=last {
            let lpn = lpn as u32;
            let pun = self.ftl.translate(lpn);
            self.ftl.verify_translate(lpn, pun);
            if pun == UNMAPPED {
                continue; // never written: the segment is all "unmapped" entries
            }
            if !self.ftl.is_programmed(pun) {
                buffered = true;
                continue;
            }
            let t = self.read_txn(TxnKind::MapRead, id, pun, lpn, seg_bytes.min(ub));
            self.queue_user_read(t);
            pending += 1;
        }
        let m = self.map();
        if pending > 0 {
            m.c.nand_loads += 1;
            m.loads.get_mut(id).pending = pending;
        } else {
            let at = self.now() + if buffered { self.buffer_read_ns } else { 0 };
            self.q.schedule(at, Event::MapLoadDone { load: id });
        }
    }

    /// A translation-page read for load `t.cmd` is out of the die.
    pub(super) fn map_read_done(&mut self, tx: &Txn) {
        let l = self.map().loads.get_mut(tx.cmd);
        l.pending -= 1;
        if l.pending == 0 {
            self.map_load_done(tx.cmd);
        }
    }

    /// Segment loaded: cache it (writing back what it displaces), wake the reads.
    pub(super) fn map_load_done(&mut self, id: u32) {
        let now = self.now();
        let m = self.map();
        let l = m.loads.get_mut(id);
        let (seg, dirty) = (l.seg, l.dirty);
        let mut waiters = std::mem::take(&mut l.waiters);
        m.loading[seg as usize] = NONE;
        let evicted = m.main.insert(seg, dirty);
        if let Some(l1) = &mut m.l1 {
            if !l1.contains(seg) {
                l1.insert(seg, false);
            }
        }
        let seg_bytes = m.place.segment_bytes;
        let hmb = m.place.tier == MapTier::Hmb;
        let ready = now + m.sram_latency_ns;
        if hmb {
            // Copy the segment into host memory (a posted write).
            m.c.hmb_write_bytes += seg_bytes;
            self.pcie.send_up(now, seg_bytes);
        }
        if let Some(e) = evicted {
            if let Some(l1) = &mut self.map().l1 {
                // The SRAM level only holds segments the main level holds.
                l1.remove(e.segment);
            }
            if e.dirty {
                self.map_writeback(e.segment);
            }
        }
        for &w in &waiters {
            let c = self.cmds.get_mut(w);
            c.pending -= 1;
            if c.pending == 0 {
                self.q.schedule(ready, Event::MapReady { cmd: w });
            }
        }
        waiters.clear();
        let m = self.map();
        m.loads.get_mut(id).waiters = waiters;
        m.loads.remove(id);
    }

    /// A write or a GC move changed the entries of logical units `first..first+n`.
    pub(super) fn map_update(&mut self, first: u32, n: u32) {
        let m = self.map();
        if first as u64 >= m.map_base_lpn {
            return; // the map's own units are located by the map-of-map
        }
        let (s0, s1) = (m.seg_of(first), m.seg_of(first + n - 1));
        for seg in s0..=s1 {
            let m = self.map();
            m.c.write_updates += 1;
            if m.main.mark_dirty(seg) {
                if m.place.tier == MapTier::Hmb {
                    let bytes = crate::config::memory::MAP_ENTRY_BYTES * n as u64;
                    m.c.hmb_write_bytes += bytes;
                    let now = self.now();
                    self.pcie.send_up(now, bytes);
                }
            } else {
                self.start_load(seg, None, true);
            }
        }
    }

    /// Write a dirty segment back to its translation page.
    fn map_writeback(&mut self, seg: u32) {
        let now = self.now();
        let m = self.map();
        m.c.writebacks += 1;
        let seg_bytes = m.place.segment_bytes;
        let base = m.map_base_lpn;
        let offset = base * self.unit_bytes + seg as u64 * seg_bytes;
        let cmd = self.cmds.insert(Cmd {
            job: INTERNAL_JOB,
            sq: 0,
            kind: OpKind::Write,
            offset,
            len: seg_bytes,
            submit_ns: now,
            fetch_ns: now,
            pending: 0,
            placed: 0,
        });
        self.start_write(cmd);
    }

    /// Data of an internal write-back: from the HMB over the link, else from controller memory.
    pub(super) fn internal_write_data(&mut self, cmd: u32) {
        let now = self.now();
        let len = self.cmds.get(cmd).len;
        let m = self.map();
        let arrived = if m.place.tier == MapTier::Hmb {
            m.c.hmb_read_bytes += len;
            let host_ns = m.host_dram_ns;
            let at_host = self.pcie.send_up(now, 0);
            self.pcie.send_down(at_host + host_ns, len)
        } else {
            now + m.tier_latency_ns
        };
        self.q.schedule(arrived, Event::WriteDataIn { cmd });
    }
}
