//! One zone: its type, state and write pointer, and the NVMe status codes zoned
//! commands complete with (NVMe ZNS Command Set 1.1, "Command Set Specific Status
//! Values": 0xB6..0xBF; Zone Append's size and start checks use the generic Invalid
//! Field in Command, 0x02). The transitions themselves live in `namespace.rs`, which
//! also holds the open/active counts they depend on.

/// A zone's state (ZNS's ZSE, ZSIO, ZSEO, ZSC, ZSF, ZSRO, ZSO).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneState {
    Empty,
    ImplicitlyOpen,
    ExplicitlyOpen,
    Closed,
    Full,
    ReadOnly,
    Offline,
}

impl ZoneState {
    pub fn is_open(self) -> bool {
        matches!(self, ZoneState::ImplicitlyOpen | ZoneState::ExplicitlyOpen)
    }
    /// Open or closed: holding one of the active-zone resources.
    pub fn is_active(self) -> bool {
        self.is_open() || self == ZoneState::Closed
    }
    /// The Zone State field of a Report Zones descriptor.
    pub fn code(self) -> u8 {
        match self {
            ZoneState::Empty => 0x1,
            ZoneState::ImplicitlyOpen => 0x2,
            ZoneState::ExplicitlyOpen => 0x3,
            ZoneState::Closed => 0x4,
            ZoneState::ReadOnly => 0xD,
            ZoneState::Full => 0xE,
            ZoneState::Offline => 0xF,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZoneType {
    /// Written at random, no write pointer (a namespace's conventional zones).
    Conventional,
    /// Sequential Write Required (Zone Type 2h).
    SequentialWriteRequired,
}

/// Why a zoned command failed: NVMe's status code for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ZnsStatus {
    /// 0x02: Invalid Field in Command (Zone Append not at a zone's start, beyond ZASL).
    InvalidField,
    /// 0x80: LBA Out of Range.
    LbaOutOfRange,
    /// 0xB6: Invalid Zone Operation Request (a ZRWA flush of a zone without a ZRWA,
    /// a Zone Append to a zone with one).
    InvalidZoneOperation,
    /// 0xB7: ZRWA Resources Unavailable (an open with a ZRWA past NUMZRWA).
    ZrwaResourcesUnavailable,
    /// 0xB8: the command crosses a zone boundary (or its writable capacity).
    ZoneBoundaryError,
    /// 0xB9: write to a full zone.
    ZoneIsFull,
    /// 0xBA: write to a read-only zone.
    ZoneIsReadOnly,
    /// 0xBB: any I/O to an offline zone.
    ZoneIsOffline,
    /// 0xBC: a write not at the zone's write pointer.
    ZoneInvalidWrite,
    /// 0xBD: the command would exceed the maximum active zones.
    TooManyActiveZones,
    /// 0xBE: the command would exceed the maximum open zones.
    TooManyOpenZones,
    /// 0xBF: a zone management action not allowed in the zone's state.
    InvalidZoneStateTransition,
}

impl ZnsStatus {
    /// The status code (Status Code Type 1h for 0xB6..0xBF, 0h for the others).
    pub fn code(self) -> u8 {
        match self {
            ZnsStatus::InvalidField => 0x02,
            ZnsStatus::LbaOutOfRange => 0x80,
            ZnsStatus::InvalidZoneOperation => 0xB6,
            ZnsStatus::ZrwaResourcesUnavailable => 0xB7,
            ZnsStatus::ZoneBoundaryError => 0xB8,
            ZnsStatus::ZoneIsFull => 0xB9,
            ZnsStatus::ZoneIsReadOnly => 0xBA,
            ZnsStatus::ZoneIsOffline => 0xBB,
            ZnsStatus::ZoneInvalidWrite => 0xBC,
            ZnsStatus::TooManyActiveZones => 0xBD,
            ZnsStatus::TooManyOpenZones => 0xBE,
            ZnsStatus::InvalidZoneStateTransition => 0xBF,
        }
    }
}

/// One zone: start LBA, writable LBAs, write pointer and state.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Zone {
    pub kind: ZoneType,
    pub state: ZoneState,
    pub start: u64,
    /// Writable LBAs from `start` (the zone capacity).
    pub cap: u64,
    /// The next LBA a write must start at (start + cap when full); in a zone with a
    /// ZRWA, the first LBA not yet committed (the ZRWA's start).
    pub wp: u64,
    /// A Zone Random Write Area is allocated to the zone (ZRWAV).
    pub zrwa: bool,
}

impl Zone {
    pub fn written(&self) -> u64 {
        self.wp - self.start
    }
}
