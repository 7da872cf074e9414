//! The zoned namespace's commands over its zones (NVMe ZNS Command Set 1.1):
//! Write (at the write pointer), Zone Append (the controller picks the LBA and returns
//! it), Read, Zone Management Send (Open, Close, Finish, Reset, Offline; one zone or
//! Select All) and Zone Management Receive (Report Zones), with the maximum open and
//! active zone limits. A write to an empty or closed zone opens it implicitly; when
//! that would pass the open limit, the controller closes an implicitly opened zone
//! (the lowest-numbered, a choice the spec leaves to the controller) or, if none is,
//! fails with Too Many Open Zones. A write that reaches a zone's capacity makes it
//! full, releasing its resources.
//!
//! Zone Random Write Area (ZNS 1.1, TP 4076): a zone opened explicitly with a ZRWA
//! (`OpenZrwa`, ZRWAA set; at most NUMZRWA zones at once, else 0xB7) takes writes
//! anywhere from its write pointer to the end of the ZRWA, as often as the host likes
//! (the data stays in the controller), and writes up to one more ZRWA size beyond it
//! (the implicit flush region): such a write first commits as many flush-granularity
//! units (ZRWAFG) from the write pointer as it needs, moving the write pointer. Flush
//! Explicit ZRWA Range (`FlushZrwa`, its LBA the last to commit) moves the write
//! pointer by a multiple of ZRWAFG (or to the zone's capacity). Finish commits it all;
//! full, reset (empty), read-only and offline zones give their ZRWA back. A Zone
//! Append to a zone with a ZRWA, and a flush of a zone without one, are 0xB6.
//!
//! LBAs and lengths are in logical blocks. Counters: host LBAs written, zone resets,
//! and LBAs that were holding data when reset (what the resets erase).

use super::config::ZnsConfig;
use super::zone::{ZnsStatus, Zone, ZoneState, ZoneType};

/// A Zone Management Send action.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneAction {
    Open,
    Close,
    Finish,
    Reset,
    Offline,
    /// Open explicitly with a ZRWA allocated (Open Zone with ZRWAA set; from empty).
    OpenZrwa,
    /// Flush Explicit ZRWA Range: commit the ZRWA up to and including the LBA given.
    FlushZrwa,
}

/// A Report Zones descriptor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ZoneDescriptor {
    pub zone_type: ZoneType,
    pub state: ZoneState,
    pub capacity: u64,
    pub start: u64,
    pub wp: u64,
    /// The ZRWA Valid attribute (ZRWAV).
    pub zrwa: bool,
}

#[derive(Clone, Debug)]
pub struct Namespace {
    zones: Vec<Zone>,
    zone_lbas: u64,
    max_open: u32,
    max_active: u32,
    append_max_lbas: u64,
    /// ZRWA size and flush granularity, LBAs (0: the namespace has no ZRWA).
    zrwa_lbas: u64,
    zrwa_fg_lbas: u64,
    /// NUMZRWA (0: no limit but the active zones), and zones holding a ZRWA now.
    max_zrwa: u32,
    zrwa_zones: u32,
    open: u32,
    active: u32,
    /// LBAs written by the host (writes and appends).
    pub host_lbas_written: u64,
    /// Zone resets that discarded data.
    pub resets: u64,
    /// LBAs holding data when their zone was reset.
    pub reset_lbas: u64,
    /// ZRWA commits: by writes past the ZRWA (implicit), by Flush Explicit ZRWA Range.
    pub zrwa_implicit_flushes: u64,
    pub zrwa_explicit_flushes: u64,
}

impl Namespace {
    /// A namespace of `zones` zones (the first `cfg.conventional_zones` conventional).
    pub fn new(cfg: &ZnsConfig, zones: u64) -> Self {
        let lba = cfg.lba_bytes.bytes();
        let zone_lbas = cfg.zone_size_bytes.bytes() / lba;
        let cap = cfg.capacity_bytes() / lba;
        let conv = cfg.conventional_zones as u64;
        let zones = (0..zones)
            .map(|i| {
                let start = i * zone_lbas;
                if i < conv {
                    Zone {
                        kind: ZoneType::Conventional,
                        state: ZoneState::Empty,
                        start,
                        cap: zone_lbas,
                        wp: start,
                        zrwa: false,
                    }
                } else {
                    Zone {
                        kind: ZoneType::SequentialWriteRequired,
                        state: ZoneState::Empty,
                        start,
                        cap,
                        wp: start,
                        zrwa: false,
                    }
                }
            })
            .collect();
        Namespace {
            zones,
            zone_lbas,
            max_open: cfg.max_open_zones,
            max_active: cfg.max_active_zones,
            append_max_lbas: match cfg.zone_append_max_bytes.bytes() {
                0 => u64::MAX,
                b => b / lba,
            },
            zrwa_lbas: cfg.zrwa_bytes.bytes() / lba,
            zrwa_fg_lbas: (cfg.zrwa_flush_bytes.bytes() / lba).max(1),
            max_zrwa: cfg.max_zrwa_zones,
            zrwa_zones: 0,
            open: 0,
            active: 0,
            host_lbas_written: 0,
            resets: 0,
            reset_lbas: 0,
            zrwa_implicit_flushes: 0,
            zrwa_explicit_flushes: 0,
        }
    }

    pub fn zone_count(&self) -> u64 {
        self.zones.len() as u64
    }
    pub fn zone_lbas(&self) -> u64 {
        self.zone_lbas
    }
    pub fn zone(&self, z: u64) -> &Zone {
        &self.zones[z as usize]
    }
    /// Zones open now (implicitly or explicitly), and open or closed.
    pub fn open_zones(&self) -> u32 {
        self.open
    }
    pub fn active_zones(&self) -> u32 {
        self.active
    }
    /// Zones holding a ZRWA now.
    pub fn zrwa_zones(&self) -> u32 {
        self.zrwa_zones
    }

    fn index(&self, slba: u64, nlb: u64) -> Result<usize, ZnsStatus> {
        let end = self.zones.len() as u64 * self.zone_lbas;
        if nlb == 0 || slba >= end || slba + nlb > end {
            return Err(ZnsStatus::LbaOutOfRange);
        }
        Ok((slba / self.zone_lbas) as usize)
    }

    /// Take an open resource, closing an implicitly open zone if the limit is reached.
    fn take_open(&mut self) -> Result<(), ZnsStatus> {
        if self.max_open > 0 && self.open >= self.max_open {
            let victim = self
                .zones
                .iter()
                .position(|z| z.state == ZoneState::ImplicitlyOpen)
                .ok_or(ZnsStatus::TooManyOpenZones)?;
            self.zones[victim].state = ZoneState::Closed;
            self.open -= 1;
        }
        self.open += 1;
        Ok(())
    }

    /// Resources for zone `i` to become open (explicitly or not) from its state.
    fn make_open(&mut self, i: usize, explicit: bool) -> Result<(), ZnsStatus> {
        let state = self.zones[i].state;
        match state {
            ZoneState::Empty => {
                if self.max_active > 0 && self.active >= self.max_active {
                    return Err(ZnsStatus::TooManyActiveZones);
                }
                self.take_open()?;
                self.active += 1;
            }
            ZoneState::Closed => self.take_open()?,
            ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen => {}
            _ => return Err(ZnsStatus::InvalidZoneStateTransition),
        }
        let z = &mut self.zones[i];
        z.state = if explicit || state == ZoneState::ExplicitlyOpen {
            ZoneState::ExplicitlyOpen
        } else {
            ZoneState::ImplicitlyOpen
        };
        Ok(())
    }

    /// Zone `i` leaves the open/closed states for `to` (resources released).
    fn release(&mut self, i: usize, to: ZoneState) {
        let s = self.zones[i].state;
        if s.is_open() {
            self.open -= 1;
        }
        if s.is_active() {
            self.active -= 1;
        }
        self.zones[i].state = to;
        if self.zones[i].zrwa {
            self.zones[i].zrwa = false; // full, empty, read-only, offline: no ZRWA
            self.zrwa_zones -= 1;
        }
    }

    /// Write `nlb` LBAs at `slba`: at the zone's write pointer in a sequential zone.
    pub fn write(&mut self, slba: u64, nlb: u64) -> Result<(), ZnsStatus> {
        let i = self.index(slba, nlb)?;
        let z = self.zones[i];
        if z.kind == ZoneType::Conventional {
            let next = self.zones.get(i + 1);
            if slba + nlb > z.start + self.zone_lbas
                && next.is_some_and(|n| n.kind != ZoneType::Conventional)
            {
                return Err(ZnsStatus::ZoneBoundaryError);
            }
            self.host_lbas_written += nlb;
            return Ok(());
        }
        match z.state {
            ZoneState::Offline => return Err(ZnsStatus::ZoneIsOffline),
            ZoneState::ReadOnly => return Err(ZnsStatus::ZoneIsReadOnly),
            ZoneState::Full => return Err(ZnsStatus::ZoneIsFull),
            _ => {}
        }
        if z.zrwa {
            return self.write_zrwa(i, slba, nlb);
        }
        if slba != z.wp {
            return Err(ZnsStatus::ZoneInvalidWrite);
        }
        if slba + nlb > z.start + z.cap {
            return Err(ZnsStatus::ZoneBoundaryError);
        }
        self.make_open(i, false)?;
        let z = &mut self.zones[i];
        z.wp += nlb;
        self.host_lbas_written += nlb;
        if z.wp == z.start + z.cap {
            self.release(i, ZoneState::Full);
        }
        Ok(())
    }

    /// A write to zone `i`, which holds a ZRWA: anywhere in the ZRWA or the implicit
    /// flush region after it; a write into that region first commits what it needs.
    fn write_zrwa(&mut self, i: usize, slba: u64, nlb: u64) -> Result<(), ZnsStatus> {
        let z = self.zones[i];
        let end = slba + nlb;
        if end > z.start + z.cap {
            return Err(ZnsStatus::ZoneBoundaryError);
        }
        let zrwa_end = z.wp + self.zrwa_lbas;
        if slba < z.wp || end > zrwa_end + self.zrwa_lbas {
            return Err(ZnsStatus::ZoneInvalidWrite);
        }
        self.make_open(i, false)?;
        self.host_lbas_written += nlb;
        if end > zrwa_end {
            let fg = self.zrwa_fg_lbas;
            let wp = (z.wp + (end - zrwa_end).div_ceil(fg) * fg).min(z.start + z.cap);
            self.zrwa_implicit_flushes += 1;
            self.commit(i, wp);
        }
        Ok(())
    }

    /// Move zone `i`'s write pointer to `wp` (a ZRWA commit); full at its capacity.
    fn commit(&mut self, i: usize, wp: u64) {
        let z = &mut self.zones[i];
        z.wp = wp;
        if z.wp == z.start + z.cap {
            self.release(i, ZoneState::Full);
        }
    }

    /// Flush Explicit ZRWA Range: commit zone `i`'s ZRWA up to and including `lba`.
    fn flush_zrwa(&mut self, i: usize, lba: u64) -> Result<(), ZnsStatus> {
        let z = self.zones[i];
        if !z.zrwa {
            return Err(ZnsStatus::InvalidZoneOperation);
        }
        let end = lba + 1;
        let at_cap = end == z.start + z.cap;
        if end <= z.wp
            || end > z.wp + self.zrwa_lbas
            || end > z.start + z.cap
            || (!at_cap && !(end - z.wp).is_multiple_of(self.zrwa_fg_lbas))
        {
            return Err(ZnsStatus::InvalidField);
        }
        self.zrwa_explicit_flushes += 1;
        self.commit(i, end);
        Ok(())
    }

    /// Zone Append of `nlb` LBAs to the zone starting at `zslba`: the LBA written.
    pub fn append(&mut self, zslba: u64, nlb: u64) -> Result<u64, ZnsStatus> {
        let i = self.index(zslba, nlb)?;
        let z = self.zones[i];
        if zslba != z.start || z.kind == ZoneType::Conventional || nlb > self.append_max_lbas {
            return Err(ZnsStatus::InvalidField);
        }
        if z.zrwa {
            return Err(ZnsStatus::InvalidZoneOperation);
        }
        match z.state {
            ZoneState::Offline => return Err(ZnsStatus::ZoneIsOffline),
            ZoneState::ReadOnly => return Err(ZnsStatus::ZoneIsReadOnly),
            ZoneState::Full => return Err(ZnsStatus::ZoneIsFull),
            _ => {}
        }
        if z.wp + nlb > z.start + z.cap {
            return Err(ZnsStatus::ZoneBoundaryError);
        }
        self.write(z.wp, nlb)?;
        Ok(z.wp)
    }

    /// Read `nlb` LBAs at `slba` (unwritten LBAs read as deallocated).
    pub fn read(&self, slba: u64, nlb: u64) -> Result<(), ZnsStatus> {
        let i = self.index(slba, nlb)?;
        let z = &self.zones[i];
        if z.state == ZoneState::Offline {
            return Err(ZnsStatus::ZoneIsOffline);
        }
        if slba + nlb > z.start + self.zone_lbas {
            return Err(ZnsStatus::ZoneBoundaryError);
        }
        Ok(())
    }

    /// Zone Management Send: `action` on the zone starting at `zslba`, or on every zone
    /// it applies to with `select_all` (zslba ignored).
    pub fn send(
        &mut self,
        action: ZoneAction,
        zslba: u64,
        select_all: bool,
    ) -> Result<(), ZnsStatus> {
        if select_all {
            if matches!(action, ZoneAction::OpenZrwa | ZoneAction::FlushZrwa) {
                return Err(ZnsStatus::InvalidField);
            }
            return self.send_all(action);
        }
        let i = self.index(zslba, 1)?;
        if action == ZoneAction::FlushZrwa {
            if self.zones[i].kind == ZoneType::Conventional {
                return Err(ZnsStatus::InvalidField);
            }
            return self.flush_zrwa(i, zslba);
        }
        if self.zones[i].start != zslba || self.zones[i].kind == ZoneType::Conventional {
            return Err(ZnsStatus::InvalidField);
        }
        self.act(i, action)
    }

    fn act(&mut self, i: usize, action: ZoneAction) -> Result<(), ZnsStatus> {
        let z = self.zones[i];
        use ZoneState::*;
        match (action, z.state) {
            (ZoneAction::Open, Empty | Closed | ImplicitlyOpen | ExplicitlyOpen) => {
                self.make_open(i, true)
            }
            (ZoneAction::OpenZrwa, Empty) => {
                if self.zrwa_lbas == 0 {
                    return Err(ZnsStatus::InvalidField); // the namespace has no ZRWA
                }
                if self.max_zrwa > 0 && self.zrwa_zones >= self.max_zrwa {
                    return Err(ZnsStatus::ZrwaResourcesUnavailable);
                }
                self.make_open(i, true)?;
                self.zones[i].zrwa = true;
                self.zrwa_zones += 1;
                Ok(())
            }
            (ZoneAction::Close, ImplicitlyOpen | ExplicitlyOpen) => {
                // An open zone with nothing written goes back to empty (one with a
                // ZRWA may hold uncommitted data: it is closed).
                let to = if z.wp == z.start && !z.zrwa {
                    Empty
                } else {
                    Closed
                };
                self.open -= 1;
                if to == Empty {
                    self.active -= 1;
                }
                self.zones[i].state = to;
                Ok(())
            }
            (ZoneAction::Close, Closed) => Ok(()),
            (ZoneAction::Finish, Empty) => {
                if self.max_active > 0 && self.active >= self.max_active {
                    return Err(ZnsStatus::TooManyActiveZones);
                }
                self.zones[i].wp = z.start + z.cap;
                self.zones[i].state = Full;
                Ok(())
            }
            (ZoneAction::Finish, ImplicitlyOpen | ExplicitlyOpen | Closed) => {
                self.zones[i].wp = z.start + z.cap;
                self.release(i, Full);
                Ok(())
            }
            (ZoneAction::Finish, Full) => Ok(()),
            (ZoneAction::Reset, Empty) => Ok(()),
            (ZoneAction::Reset, ImplicitlyOpen | ExplicitlyOpen | Closed | Full) => {
                if z.wp > z.start {
                    self.resets += 1;
                    self.reset_lbas += z.written();
                }
                self.zones[i].wp = z.start;
                self.release(i, Empty);
                Ok(())
            }
            (ZoneAction::Offline, ReadOnly) => {
                self.zones[i].state = Offline;
                Ok(())
            }
            (ZoneAction::Offline, Offline) => Ok(()),
            _ => Err(ZnsStatus::InvalidZoneStateTransition),
        }
    }

    fn send_all(&mut self, action: ZoneAction) -> Result<(), ZnsStatus> {
        use ZoneState::*;
        let applies = |s: ZoneState| match action {
            ZoneAction::Open => s == Closed,
            ZoneAction::Close => s.is_open(),
            ZoneAction::Finish => s.is_active(),
            ZoneAction::Reset => s.is_active() || s == Full,
            ZoneAction::Offline => s == ReadOnly,
            ZoneAction::OpenZrwa | ZoneAction::FlushZrwa => false,
        };
        let picked: Vec<usize> = (0..self.zones.len())
            .filter(|&i| {
                self.zones[i].kind == ZoneType::SequentialWriteRequired
                    && applies(self.zones[i].state)
            })
            .collect();
        if action == ZoneAction::Open && self.max_open > 0 {
            // All or nothing: every closed zone must fit under the open limit.
            let implicit = self
                .zones
                .iter()
                .filter(|z| z.state == ImplicitlyOpen)
                .count();
            if self.open as usize - implicit + picked.len() > self.max_open as usize {
                return Err(ZnsStatus::TooManyOpenZones);
            }
        }
        for i in picked {
            self.act(i, action)?;
        }
        Ok(())
    }

    /// Zone Management Receive (Report Zones): up to `max` descriptors from the zone
    /// holding `slba`, only those in `state` if given.
    pub fn report(
        &self,
        slba: u64,
        max: usize,
        state: Option<ZoneState>,
    ) -> Result<Vec<ZoneDescriptor>, ZnsStatus> {
        let i = self.index(slba, 1)?;
        Ok(self.zones[i..]
            .iter()
            .filter(|z| state.is_none_or(|s| z.state == s))
            .take(max)
            .map(|z| ZoneDescriptor {
                zone_type: z.kind,
                state: z.state,
                capacity: z.cap,
                start: z.start,
                wp: if z.kind == ZoneType::Conventional {
                    u64::MAX
                } else {
                    z.wp
                },
                zrwa: z.zrwa,
            })
            .collect())
    }

    /// A media event: the zone becomes read-only (its data stays readable).
    pub fn set_read_only(&mut self, z: u64) {
        self.release(z as usize, ZoneState::ReadOnly);
    }
    /// A media event: the zone goes offline (nothing can be read or written).
    pub fn set_offline(&mut self, z: u64) {
        self.release(z as usize, ZoneState::Offline);
    }
}
