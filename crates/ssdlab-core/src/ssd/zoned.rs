//! A zoned namespace (`[zns]`) driven by the event loop: zoned commands take the same
//! host, NVMe, firmware-core, write-buffer, channel and die path as conventional I/O,
//! but the map is the zone layout (`zns::Layout`), not the page-level FTL.
//!
//! - Write: checked by the namespace (`zns::Namespace::write`: at the write pointer,
//!   open/active limits, boundaries) when its core has decoded it; a zoned error
//!   completes it with that NVMe status (counted by code in the report's
//!   `device.zns.errors`, and not in the job's I/O statistics, as no data moved).
//!   Otherwise it takes write-buffer room, its data crosses the link, and it completes
//!   once buffered, as a conventional write. Each program unit of a zone (page size x
//!   planes x pages per program) whose data is all in the buffer is programmed on the
//!   die the layout gives it; its room returns when the program ends.
//! - Read: checked by the namespace; the LBAs below the data written are read from the
//!   flash pages `Layout::page_of_lba` gives (one transaction per page, merged over
//!   planes by the die scheduler), or from the write buffer while their unit is not yet
//!   programmed; LBAs without data read as zeroes (deallocated), with no flash read.
//! - Zone reset: the workloads have no Zone Management command, so a trim (Deallocate)
//!   of whole zones is sent as a Zone Management Send Reset of each (what fio's zbd
//!   mode does with its trims on a zoned drive); a trim of part of a zone completes
//!   with Invalid Field. A reset erases the zone's blocks that hold programmed data
//!   (one multi-plane erase per block on its die, `Layout::blocks_holding`), drops its
//!   unprogrammed data from the buffer, and completes when the last erase ends. Writes
//!   to the zone wait for those erases; a reset (or finish) waits for the writes to
//!   the zone whose data is still on its way.
//! - fio's `zonemode=zbd` jobs on a zoned drive use its zones (`zoned_zbd.rs`): the
//!   drive's zone size (a different `zonesize` is an error, as in fio), capacity and
//!   open-zone limit, write pointers read from the drive at the start, and every reset
//!   a write needs sent as a Zone Reset just before it (fio resets synchronously; here
//!   the write queues behind the reset in the drive, so it may take one more slot of
//!   the job's iodepth while the reset runs).
//! - Zone finish (`zone_send`: a workload's `zone_ops`, fio's finish of a zone whose
//!   remainder is below the block size): the write pointer moves to the zone's
//!   capacity (ZNS 1.1, Finish Zone); a partly filled program unit is padded and
//!   programmed; the command completes once that program is queued. Open and close
//!   (`zone_ops`) change the zone's state only. Zone Append: `zoned_ops.rs`.
//!
//! - Zone Random Write Area (`zns.zrwa_bytes`; a zone opened with `OpenZrwa`): writes
//!   anywhere in the ZRWA stay in the buffer until a commit moves the write pointer
//!   (`zoned_zrwa.rs`).
//!
//! Simplifies: no page map, no GC, no SLC cache, no read cache (validation refuses the
//! last two with `[zns]`); the page-map settings of the device (`[map]`) are unused:
//! the per-zone map (8 bytes a zone) is always resident. Zone data arrives in the order
//! the namespace accepted the writes (the link is FIFO; early arrivals wait for the
//! gap to close before they count). A drive prepared `full` has every zone full and
//! programmed; `fresh` has every zone empty; other states are refused. Flush waits
//! for queued programs only (a zone's partly filled unit stays in the buffer).

use super::zoned_read::LbaSource;
use super::{Cmd, Ssd};
use crate::controller::{Txn, TxnKind};
use crate::ftl::prep::DriveState;
use crate::workload::OpKind;
use crate::zns::{Layout, Namespace, ZnsStatus, ZoneAction};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// One zone's data path state (the namespace holds its write pointer and state).
#[derive(Clone, Debug, Default)]
struct ZoneRun {
    /// Bumped by each reset: programs of older data do not count as this zone's.
    gen: u32,
    /// Bytes from the zone's start whose data is in the controller (contiguous).
    arrived_bytes: u64,
    /// Writes that arrived ahead of a gap: offset -> bytes.
    early: BTreeMap<u64, u64>,
    /// Program units queued (units 0..queued_units).
    queued_units: u64,
    /// Units 0..programmed_units are programmed; `done_above` those done beyond.
    programmed_units: u64,
    done_above: BTreeSet<u64>,
    /// Writes accepted by the namespace whose data has not arrived.
    in_flight: u32,
    /// Erases of a reset still to end.
    erasing: u32,
    /// Commands waiting for the zone (writes for its erases; resets and finishes for
    /// its writes in flight), in arrival order.
    waiting: Vec<u32>,
    /// The zone's ZRWA data (`zoned_zrwa.rs`), from its open with a ZRWA to its reset.
    zrwa: Option<Box<super::zoned_zrwa::ZrwaRun>>,
}

impl ZoneRun {
    fn programmed(&self, unit: u64) -> bool {
        unit < self.programmed_units || self.done_above.contains(&unit)
    }
    fn busy(&self) -> bool {
        self.in_flight > 0 || self.erasing > 0
    }
}

/// A write accepted by the namespace, on its way into the buffer.
#[derive(Clone, Copy, Debug)]
struct PendingWrite {
    zone: u64,
    gen: u32,
    /// Byte offset in the zone.
    off: u64,
}

/// A reset command's erases still to end.
#[derive(Clone, Copy, Debug)]
struct ResetRun {
    /// The command to complete (u32::MAX: it already completed with an error).
    cmd: u32,
    erases: u32,
}

/// The read oracle on a zoned drive (`RunOptions::verify`): the version each LBA
/// holds (0: no data), and what each physical unit holds (LBA, version).
#[derive(Clone, Debug, Default)]
pub(super) struct Oracle {
    next: u32,
    pub(super) shadow: Vec<u32>,
    pub(super) flash: Vec<(u32, u32)>,
    /// Program transactions' data, and read transactions' expectations.
    programs: HashMap<u32, Vec<(u32, u32, u32)>>,
    pub(super) reads: HashMap<u32, Vec<(u32, u32, u32)>>,
    pub(super) checked: u64,
    pub(super) mismatches: u64,
}

/// Counters of the zoned drive (the namespace counts host LBAs and resets).
#[derive(Clone, Debug, Default)]
pub(super) struct Counters {
    pub(super) finishes: u64,
    pub(super) opens: u64,
    pub(super) closes: u64,
    /// Zone Append commands that wrote (each completion carries the LBA it got).
    pub(super) appends: u64,
    pub(super) erases: u64,
    pub(super) programs: u64,
    pub(super) pad_programs: u64,
    pub(super) flash_reads: u64,
    /// LBAs rewritten in a ZRWA (replaced in the buffer, never programmed).
    pub(super) zrwa_rewritten_lbas: u64,
    pub(super) errors: BTreeMap<u8, u64>,
}

pub(super) struct ZonedRun {
    pub(super) ns: Namespace,
    pub(super) layout: Layout,
    pub(super) lba_bytes: u64,
    pub(super) zone_lbas: u64,
    /// Program unit: bytes, and mapping units (= LBAs) in it.
    pub(super) unit_bytes: u64,
    unit_lbas: u64,
    zones: Vec<ZoneRun>,
    writes: HashMap<u32, PendingWrite>,
    /// Zone Management Send commands (`zone_send`): command -> action.
    pub(super) actions: HashMap<u32, ZoneAction>,
    /// Zone Append commands not yet completed (`zoned_ops.rs`).
    pub(super) appends: std::collections::HashSet<u32>,
    /// Resets with Select All (`zone_reset_all`) not yet applied: they skip read-only
    /// and offline zones, as NVMe's Select All does.
    pub(super) select_all: std::collections::HashSet<u32>,
    resets: HashMap<u32, ResetRun>,
    next_reset: u32,
    /// Commands completing with a zoned error status (taken when the host sees them).
    pub(super) failed: HashMap<u32, ZnsStatus>,
    pub(super) c: Counters,
    pub(super) oracle: Option<Oracle>,
}

impl ZonedRun {
    /// The zoned drive of `cfg` (None if it has no `[zns]`), prepared in `state`.
    pub(super) fn new(
        cfg: &crate::config::DeviceConfig,
        state: DriveState,
        verify: bool,
        total_units: u64,
    ) -> Result<Option<Box<ZonedRun>>, String> {
        let (Some(z), Some(layout)) = (&cfg.zns, crate::zns::layout_of(cfg)) else {
            return Ok(None);
        };
        let layout = layout?;
        let mut ns = Namespace::new(z, layout.zones());
        let lba_bytes = z.lba_bytes.bytes();
        let unit_bytes = layout.unit_bytes();
        let zone_lbas = ns.zone_lbas();
        let mut zones = vec![ZoneRun::default(); layout.zones() as usize];
        let mut oracle = verify.then(|| Oracle {
            next: 1,
            shadow: vec![0; (layout.zones() * zone_lbas) as usize],
            flash: vec![(0, 0); total_units as usize],
            ..Default::default()
        });
        match state {
            DriveState::Fresh => {}
            DriveState::Full => {
                for (i, zr) in zones.iter_mut().enumerate() {
                    let zd = *ns.zone(i as u64);
                    ns.write(zd.start, zd.cap).map_err(|s| format!("{s:?}"))?;
                    zr.arrived_bytes = zd.cap * lba_bytes;
                    zr.queued_units = zr.arrived_bytes / unit_bytes;
                    zr.programmed_units = zr.queued_units;
                }
                ns.host_lbas_written = 0;
                if let Some(o) = &mut oracle {
                    // Every LBA written once (version 1), at its flash page.
                    for zone in 0..layout.zones() {
                        for k in 0..ns.zone(zone).cap {
                            let lba = zone * zone_lbas + k;
                            o.shadow[lba as usize] = 1;
                        }
                    }
                    o.next = 2;
                }
            }
            other => {
                return Err(format!(
                    "state: {} is not modelled on a zoned drive (allowed: fresh, full)",
                    serde_json::to_value(other)
                        .ok()
                        .and_then(|v| v.as_str().map(String::from))
                        .unwrap_or_default()
                ))
            }
        }
        Ok(Some(Box::new(ZonedRun {
            ns,
            lba_bytes,
            zone_lbas,
            unit_bytes,
            unit_lbas: unit_bytes / lba_bytes,
            zones,
            writes: HashMap::new(),
            actions: HashMap::new(),
            appends: Default::default(),
            select_all: Default::default(),
            resets: HashMap::new(),
            next_reset: 0,
            failed: HashMap::new(),
            c: Counters::default(),
            oracle,
            layout,
        })))
    }

    /// Units of partly filled program units in the buffer: only more data (or a
    /// finish) turns them into a program, so the buffer may lend room past them.
    pub(super) fn partial_units(&self) -> u64 {
        let u = self.unit_bytes;
        self.zones
            .iter()
            .map(|z| {
                z.arrived_bytes.saturating_sub(z.queued_units * u) / self.lba_bytes
                    + z.zrwa.as_ref().map_or(0, |r| r.held_lbas())
            })
            .sum()
    }

    /// LBAs (mapping units) in a program unit.
    pub(super) fn unit_lbas(&self) -> u64 {
        self.unit_lbas
    }
    pub(super) fn zone_zrwa(&self, zone: u64) -> Option<&super::zoned_zrwa::ZrwaRun> {
        self.zones[zone as usize].zrwa.as_deref()
    }
    pub(super) fn zone_zrwa_mut(&mut self, zone: u64) -> Option<&mut super::zoned_zrwa::ZrwaRun> {
        self.zones[zone as usize].zrwa.as_deref_mut()
    }
    pub(super) fn zone_queued_units(&self, zone: u64) -> u64 {
        self.zones[zone as usize].queued_units
    }
    pub(super) fn zone_set_queued(&mut self, zone: u64, units: u64) {
        self.zones[zone as usize].queued_units = units;
    }
    pub(super) fn zone_programmed(&self, zone: u64, unit: u64) -> bool {
        self.zones[zone as usize].programmed(unit)
    }
    pub(super) fn has_zrwa(&self, zone: u64) -> bool {
        self.zones[zone as usize].zrwa.is_some()
    }

    /// Where a read of byte `off` of zone `zone` (no ZRWA) finds its data: beyond what
    /// arrived nowhere, in the buffer until its unit of `unit_bytes` is programmed.
    pub(super) fn plain_source(&self, zone: u64, off: u64, unit_bytes: u64) -> LbaSource {
        let zr = &self.zones[zone as usize];
        if off >= zr.arrived_bytes {
            LbaSource::Zero
        } else if !zr.programmed(off / unit_bytes) {
            LbaSource::Buffer
        } else {
            LbaSource::Flash
        }
    }

    /// The host sees command `cmd`'s completion: its zoned error, if it failed.
    pub(super) fn take_failed(&mut self, cmd: u32) -> Option<ZnsStatus> {
        self.failed.remove(&cmd)
    }

    /// Bytes of the per-zone map (for memory figures).
    pub(super) fn map_bytes(&self) -> u64 {
        self.layout.map_bytes()
    }
}

impl Ssd {
    /// Build the zoned drive's state for `state` (None on a conventional drive).
    pub(super) fn zoned_init(&mut self, state: DriveState) -> Result<(), String> {
        let total = self.geo.total_units();
        self.zoned = ZonedRun::new(&self.cfg, state, self.opts.verify, total)?;
        if let (Some(z), DriveState::Full) = (&mut self.zoned, state) {
            if let Some(o) = &mut z.oracle {
                for lba in 0..o.shadow.len() as u64 {
                    if o.shadow[lba as usize] != 0 {
                        let pun = pun_of(&self.geo, &z.layout, z.zone_lbas, lba);
                        o.flash[pun as usize] = (lba as u32, 1);
                    }
                }
            }
        }
        Ok(())
    }

    pub(super) fn zoned(&mut self) -> &mut ZonedRun {
        self.zoned.as_mut().expect("a zoned drive")
    }

    /// A zoned command has been decoded by its core.
    pub(super) fn zoned_cmd_ready(&mut self, cmd: u32) {
        let c = *self.cmds.get(cmd);
        if let Some(&action) = self.zoned().actions.get(&cmd) {
            self.zoned_action(cmd, action, c);
            return;
        }
        match c.kind {
            OpKind::Write => self.zoned_write(cmd, c),
            OpKind::Read => self.zoned_read(cmd, c),
            OpKind::Trim => self.zoned_action(cmd, ZoneAction::Reset, c),
        }
    }

    /// The command's LBA range, or Invalid Field if it is not in whole LBAs.
    pub(super) fn zoned_lbas(&mut self, c: &Cmd) -> Result<(u64, u64), ZnsStatus> {
        let lba = self.zoned().lba_bytes;
        if !c.offset.is_multiple_of(lba) || !c.len.is_multiple_of(lba) || c.len == 0 {
            return Err(ZnsStatus::InvalidField);
        }
        Ok((c.offset / lba, c.len / lba))
    }

    /// Complete `cmd` with zoned status `s`.
    pub(super) fn zoned_fail(&mut self, cmd: u32, s: ZnsStatus) {
        let z = self.zoned();
        *z.c.errors.entry(s.code()).or_default() += 1;
        z.failed.insert(cmd, s);
        self.post_completion(cmd, self.now());
    }

    fn zoned_write(&mut self, cmd: u32, c: Cmd) {
        let (slba, nlb) = match self.zoned_lbas(&c) {
            Ok(r) => r,
            Err(s) => return self.zoned_fail(cmd, s),
        };
        let z = self.zoned();
        let zone = slba / z.zone_lbas;
        if let Some(zr) = z.zones.get_mut(zone as usize) {
            if zr.erasing > 0 || !zr.waiting.is_empty() {
                zr.waiting.push(cmd); // behind the zone's reset (erasing, or waiting)
                return;
            }
        }
        let append = z.appends.contains(&cmd);
        let res = if append {
            z.ns.append(slba, nlb) // the LBA the drive wrote it at
        } else {
            z.ns.write(slba, nlb).map(|_| slba)
        };
        let slba = match res {
            Ok(lba) => lba,
            Err(s) => {
                z.appends.remove(&cmd);
                return self.zoned_fail(cmd, s);
            }
        };
        if append {
            z.c.appends += 1;
            let lba_bytes = z.lba_bytes;
            self.cmds.get_mut(cmd).offset = slba * lba_bytes; // the completion's LBA
        }
        let z = self.zoned();
        let zr = &mut z.zones[zone as usize];
        zr.in_flight += 1;
        let zrwa = zr.zrwa.is_some();
        let w = PendingWrite {
            zone,
            gen: zr.gen,
            off: (slba - zone * z.zone_lbas) * z.lba_bytes,
        };
        z.writes.insert(cmd, w);
        if zrwa {
            let first = slba - zone * z.zone_lbas;
            self.zrwa_write_accepted(zone, first, nlb);
        }
        self.admit_write_now(cmd);
    }

    /// A zoned write's data is in the controller: into its zone's buffer, programs for
    /// every unit it completes, and the completion.
    pub(super) fn zoned_data_in(&mut self, cmd: u32) {
        let c = *self.cmds.get(cmd);
        let stored = self.write_buffer_store(c.len);
        let z = self.zoned.as_mut().expect("zoned");
        let w = z.writes.remove(&cmd).expect("a zoned write");
        let zr = &mut z.zones[w.zone as usize];
        zr.in_flight -= 1;
        let mut units = Vec::new();
        let mut drop_units = 0;
        let zrwa = zr.zrwa.is_some();
        let same_gen = w.gen == zr.gen;
        if !same_gen {
            drop_units = c.len / z.lba_bytes; // reset under it: nothing to keep
        } else {
            if !zrwa {
                zr.early.insert(w.off, c.len);
                while let Some(len) = zr.early.remove(&zr.arrived_bytes) {
                    zr.arrived_bytes += len;
                }
                while (zr.queued_units + 1) * z.unit_bytes <= zr.arrived_bytes {
                    units.push(zr.queued_units);
                    zr.queued_units += 1;
                }
            }
            if let Some(o) = &mut z.oracle {
                let first = w.zone * z.zone_lbas + w.off / z.lba_bytes;
                for lba in first..first + c.len / z.lba_bytes {
                    o.shadow[lba as usize] = o.next;
                    o.next += 1;
                }
            }
        }
        let (zone, idle) = (w.zone, zr.in_flight == 0);
        let lba_bytes = z.lba_bytes;
        for u in units {
            self.zoned_queue_program(zone, u, false);
        }
        if zrwa && same_gen {
            self.zrwa_data_in(zone, w.off / lba_bytes, c.len / lba_bytes);
        }
        self.post_completion(cmd, stored);
        if drop_units > 0 {
            self.release_buffer_room(drop_units);
        }
        if idle {
            self.zoned_wake(zone);
        }
        if self.buffer.has_waiters() {
            self.wake_buffer_waiters();
        }
    }

    /// Queue the program of unit `unit` of `zone` on its die (`pad`: a finish's).
    pub(super) fn zoned_queue_program(&mut self, zone: u64, unit: u64, pad: bool) {
        let z = self.zoned.as_mut().expect("zoned");
        let p = z.layout.page_at(zone, unit * z.unit_bytes);
        let gen = z.zones[zone as usize].gen;
        z.c.programs += 1;
        z.c.pad_programs += pad as u64;
        let geo = &self.geo;
        let block = geo.block_id(p.die, p.block);
        let pps = geo.pages_per_program;
        let pun = geo.block_base(block) + p.page * geo.units_per_stripe;
        let n = pps * geo.units_per_stripe;
        let t = self.txns.insert(Txn {
            kind: TxnKind::Program { gc: false },
            cmd: zone as u32,
            die: p.die,
            plane: 0,
            page: p.page + pps - 1,
            block,
            pun,
            lpn: unit as u32,
            n,
            bytes: (geo.planes * pps) as u64 * geo.page_bytes,
            erase_count: gen,
            seq: 0,
        });
        let zrwa = z.zones[zone as usize].zrwa.is_some();
        if let Some(o) = &mut z.oracle {
            // What the program writes: each unit's LBA and version (pads hold none; a
            // ZRWA unit's LBAs never written are programmed, reading as version 0).
            let first = zone * z.zone_lbas + unit * z.unit_lbas;
            let data: Vec<(u32, u32, u32)> = (0..z.unit_lbas)
                .map(|k| {
                    let lba = first + k;
                    let v = o.shadow[lba as usize];
                    let pun = pun_of(geo, &z.layout, z.zone_lbas, lba);
                    (pun, lba as u32, v)
                })
                .filter(|e| e.2 != 0 || zrwa)
                .collect();
            o.programs.insert(t, data);
        }
        self.stamp(t);
        self.flushes.program_queued(p.die);
        self.dq[p.die as usize].programs.push_back(t);
        self.kick_die(p.die);
    }

    /// A zoned program ended: its room back, its unit programmed.
    pub(super) fn zoned_program_done(&mut self, t: u32) {
        let tx = *self.txns.get(t);
        self.txns.remove(t);
        if !self.buffer_release_at_data_in {
            self.release_buffer_room(tx.n as u64);
        }
        let z = self.zoned.as_mut().expect("zoned");
        if let Some(o) = &mut z.oracle {
            for (pun, lba, v) in o.programs.remove(&t).unwrap_or_default() {
                o.flash[pun as usize] = (lba, v);
            }
        }
        let zr = &mut z.zones[tx.cmd as usize];
        let unit = tx.lpn as u64;
        if zr.gen == tx.erase_count {
            if unit == zr.programmed_units {
                zr.programmed_units += 1;
                while zr.done_above.remove(&zr.programmed_units) {
                    zr.programmed_units += 1;
                }
            } else {
                zr.done_above.insert(unit);
            }
        }
        self.host_program_done(tx.die);
    }

    /// A zone management action (a trim of whole zones is a reset of each).
    fn zoned_action(&mut self, cmd: u32, action: ZoneAction, c: Cmd) {
        let (slba, nlb) = match self.zoned_lbas(&c) {
            Ok(r) => r,
            Err(s) => return self.zoned_fail(cmd, s),
        };
        let z = self.zoned();
        let zl = z.zone_lbas;
        let (first, last) = if action == ZoneAction::Reset {
            if !slba.is_multiple_of(zl) || !nlb.is_multiple_of(zl) {
                return self.zoned_fail(cmd, ZnsStatus::InvalidField);
            }
            (slba / zl, (slba + nlb) / zl)
        } else {
            (slba / zl, slba / zl + 1)
        };
        if last > z.ns.zone_count() {
            return self.zoned_fail(cmd, ZnsStatus::LbaOutOfRange);
        }
        if let Some(busy) = (first..last).find(|&i| z.zones[i as usize].busy()) {
            z.zones[busy as usize].waiting.push(cmd);
            return; // after the zone's writes in flight, or its reset's erases
        }
        let id = z.next_reset;
        z.next_reset = z.next_reset.wrapping_add(1);
        let all = z.select_all.remove(&cmd);
        let mut erases = 0;
        for zone in first..last {
            let start = zone * zl;
            if all
                && matches!(
                    self.zoned().ns.zone(zone).state,
                    crate::zns::ZoneState::ReadOnly | crate::zns::ZoneState::Offline
                )
            {
                continue; // Select All leaves them as they are
            }
            match self.zoned_apply(zone, start, action, id, slba) {
                Ok(n) => erases += n,
                Err(s) => {
                    if erases > 0 {
                        let r = ResetRun {
                            cmd: u32::MAX,
                            erases,
                        };
                        self.zoned().resets.insert(id, r);
                    }
                    return self.zoned_fail(cmd, s);
                }
            }
        }
        if erases == 0 {
            self.post_completion(cmd, self.now());
        } else {
            self.zoned().resets.insert(id, ResetRun { cmd, erases });
        }
    }

    /// Apply `action` to one zone; returns the erases it queued (under reset id `id`).
    fn zoned_apply(
        &mut self,
        zone: u64,
        start: u64,
        action: ZoneAction,
        id: u32,
        zslba: u64,
    ) -> Result<u32, ZnsStatus> {
        let z = self.zoned();
        let target = if action == ZoneAction::Reset {
            start
        } else {
            zslba
        };
        z.ns.send(action, target, false)?;
        let zr = &mut z.zones[zone as usize];
        match action {
            ZoneAction::Reset => {
                let u = z.unit_bytes;
                let partial = zr.arrived_bytes.saturating_sub(zr.queued_units * u) / z.lba_bytes
                    + zr.zrwa.as_ref().map_or(0, |r| r.held_lbas());
                let blocks = z.layout.blocks_holding(zone, zr.queued_units * u);
                let gen = zr.gen.wrapping_add(1);
                *zr = ZoneRun {
                    gen,
                    erasing: blocks.len() as u32,
                    waiting: std::mem::take(&mut zr.waiting),
                    ..Default::default()
                };
                if let Some(o) = &mut z.oracle {
                    let s = (zone * z.zone_lbas) as usize;
                    o.shadow[s..s + z.zone_lbas as usize].fill(0);
                }
                for &(die, b) in &blocks {
                    self.zoned_queue_erase(die, b, id, zone);
                }
                if partial > 0 {
                    self.release_buffer_room(partial);
                }
                Ok(blocks.len() as u32)
            }
            ZoneAction::Finish if zr.zrwa.is_some() => {
                z.c.finishes += 1;
                self.zrwa_commit(zone, true); // all it holds, padded to whole units
                Ok(0)
            }
            ZoneAction::Finish => {
                z.c.finishes += 1;
                let u = z.unit_bytes;
                if zr.arrived_bytes > zr.queued_units * u {
                    // Pad the partly filled unit to a whole program.
                    let held = (zr.arrived_bytes - zr.queued_units * u) / z.lba_bytes;
                    let unit = zr.queued_units;
                    zr.queued_units += 1;
                    let pad = z.unit_lbas - held;
                    self.buffer.take(pad);
                    self.zoned_queue_program(zone, unit, true);
                }
                Ok(0)
            }
            ZoneAction::Open => {
                z.c.opens += 1;
                Ok(0)
            }
            ZoneAction::OpenZrwa => {
                z.c.opens += 1;
                zr.zrwa = Some(Default::default());
                Ok(0)
            }
            ZoneAction::FlushZrwa => {
                self.zrwa_commit(zone, false);
                Ok(0)
            }
            ZoneAction::Close => {
                z.c.closes += 1;
                Ok(0)
            }
            _ => Ok(0),
        }
    }

    fn zoned_queue_erase(&mut self, die: u32, b: u32, id: u32, zone: u64) {
        let block = self.geo.block_id(die, b);
        let pun = self.geo.block_base(block);
        self.queue_erase_txn(die, block, id, pun, zone as u32);
        self.kick_die(die);
    }

    /// A zoned erase ended: the reset completes with its last erase.
    pub(super) fn zoned_erase_done(&mut self, t: u32) {
        let tx = *self.txns.get(t);
        self.txns.remove(t);
        let upb = self.geo.units_per_block as usize;
        let z = self.zoned.as_mut().expect("zoned");
        z.c.erases += 1;
        if let Some(o) = &mut z.oracle {
            let base = tx.pun as usize;
            o.flash[base..base + upb].fill((0, 0));
        }
        let zr = &mut z.zones[tx.lpn as usize];
        zr.erasing -= 1;
        let idle = zr.erasing == 0;
        let mut done = None;
        if let Some(r) = z.resets.get_mut(&tx.cmd) {
            r.erases -= 1;
            if r.erases == 0 {
                done = Some(r.cmd);
                z.resets.remove(&tx.cmd);
            }
        }
        if let Some(cmd) = done.filter(|&c| c != u32::MAX) {
            self.post_completion(cmd, self.now());
        }
        if idle {
            self.zoned_wake(tx.lpn as u64);
        }
    }

    /// The zone has no writes in flight and no erases: run the commands waiting for it.
    fn zoned_wake(&mut self, zone: u64) {
        let z = self.zoned();
        let zr = &mut z.zones[zone as usize];
        if zr.busy() || zr.waiting.is_empty() {
            return;
        }
        let waiting = std::mem::take(&mut zr.waiting);
        for cmd in waiting {
            self.zoned_cmd_ready(cmd);
        }
    }

    /// The host sees `cmd`: was it a zoned command that failed, or a zone management
    /// command (then it is not counted in the job's I/O statistics)?
    pub(super) fn zoned_completed(&mut self, cmd: u32) -> bool {
        let Some(z) = self.zoned.as_mut() else {
            return false;
        };
        let action = z.actions.remove(&cmd).is_some();
        let failed = z.take_failed(cmd).is_some();
        if failed {
            z.appends.remove(&cmd);
        }
        failed || action
    }
}

/// The physical unit holding `lba` (LBA = mapping unit on a zoned drive).
pub(super) fn pun_of(
    geo: &crate::nand::Geometry,
    layout: &Layout,
    zone_lbas: u64,
    lba: u64,
) -> u32 {
    let p = layout.page_of_lba(lba);
    let in_page = ((lba % zone_lbas) * geo.unit_bytes % geo.page_bytes / geo.unit_bytes) as u32;
    geo.block_base(geo.block_id(p.die, p.block))
        + p.page * geo.units_per_stripe
        + p.plane * geo.units_per_page
        + in_page
}
