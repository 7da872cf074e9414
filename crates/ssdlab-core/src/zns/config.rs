//! A zoned namespace's parameters, as NVMe ZNS reports them (Identify Namespace for
//! the Zoned Namespace Command Set: zone size ZSZE, MAR/MOR (limits less one), ZASL,
//! ZRWA size and flush granularity) plus where zones live (width over dies).
//! Units are in the names or in the value strings ("2GiB").

use crate::config::units::Bytes;
use serde::{Deserialize, Serialize};

fn default_lba() -> Bytes {
    Bytes(4096)
}
fn is_zero(v: &u32) -> bool {
    *v == 0
}
fn is_zero_bytes(v: &Bytes) -> bool {
    v.bytes() == 0
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ZnsConfig {
    /// Zone size (ZSZE): the LBA span of a zone, a whole number of LBAs.
    pub zone_size_bytes: Bytes,
    /// Zone capacity: the writable bytes from a zone's start (default: the zone size).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zone_capacity_bytes: Option<Bytes>,
    /// Dies a zone is striped over (0: every die of the drive).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub zone_width_dies: u32,
    /// Zones that may be open (implicitly or explicitly) at once (0: no limit).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub max_open_zones: u32,
    /// Zones that may be open or closed at once (0: no limit).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub max_active_zones: u32,
    /// Conventional zones at the start of the namespace (random writes, no pointer):
    /// the namespace model's (for ZBC-like devices); a drive must have 0, since NVMe's
    /// Zoned Namespace Command Set defines only sequential-write-required zones.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub conventional_zones: u32,
    /// Zone append size limit (ZASL), bytes (0: no limit below the transfer limit).
    #[serde(default, skip_serializing_if = "is_zero_bytes")]
    pub zone_append_max_bytes: Bytes,
    /// Zone random write area per zone (0: none).
    #[serde(default, skip_serializing_if = "is_zero_bytes")]
    pub zrwa_bytes: Bytes,
    /// ZRWA flush granularity (ZRWAFG), bytes: the write pointer moves by multiples
    /// of it.
    #[serde(default, skip_serializing_if = "is_zero_bytes")]
    pub zrwa_flush_bytes: Bytes,
    /// Zones that may hold a ZRWA at once (NUMZRWA, the Maximum ZRWA Resources; 0: as
    /// many as may be active).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub max_zrwa_zones: u32,
    /// Logical block size.
    #[serde(default = "default_lba")]
    pub lba_bytes: Bytes,
}

impl ZnsConfig {
    pub fn capacity_bytes(&self) -> u64 {
        self.zone_capacity_bytes
            .map_or(self.zone_size_bytes.bytes(), |c| c.bytes())
    }

    /// Problems with the parameters on a drive of `dies` dies, each message naming its
    /// field, the value and what is allowed.
    pub fn validate(&self, dies: u32) -> Result<(), String> {
        let mut errs = Vec::new();
        let lba = self.lba_bytes.bytes();
        if lba < 512 || !lba.is_power_of_two() || lba > 65536 {
            errs.push(format!(
                "zns.lba_bytes: {} is not allowed (allowed: a power of two from 512 bytes to 64KiB)",
                self.lba_bytes
            ));
            return Err(errs.join("\n"));
        }
        let zs = self.zone_size_bytes.bytes();
        if zs == 0 || !zs.is_multiple_of(lba) {
            errs.push(format!(
                "zns.zone_size_bytes: {} is not a multiple of lba_bytes {} (allowed: a positive multiple of lba_bytes)",
                self.zone_size_bytes, self.lba_bytes
            ));
        }
        let cap = self.capacity_bytes();
        if cap == 0 || cap > zs || !cap.is_multiple_of(lba) {
            errs.push(format!(
                "zns.zone_capacity_bytes: {} with zone_size_bytes {} (allowed: a multiple of lba_bytes, above 0, at most zone_size_bytes)",
                Bytes(cap),
                self.zone_size_bytes
            ));
        }
        if self.zone_width_dies > dies {
            errs.push(format!(
                "zns.zone_width_dies: {} is more than the drive's {dies} dies (allowed: 0 for every die, or a divisor of the drive's dies)",
                self.zone_width_dies
            ));
        }
        if self.max_active_zones > 0 && self.max_open_zones > self.max_active_zones {
            errs.push(format!(
                "zns.max_open_zones: {} is more than max_active_zones {}, and open zones are active zones (allowed: 0 for no limit, or up to max_active_zones)",
                self.max_open_zones, self.max_active_zones
            ));
        }
        let zasl = self.zone_append_max_bytes.bytes();
        if !zasl.is_multiple_of(lba) {
            errs.push(format!(
                "zns.zone_append_max_bytes: {} is not a multiple of lba_bytes {} (allowed: 0, or a multiple of lba_bytes)",
                self.zone_append_max_bytes, self.lba_bytes
            ));
        }
        let zrwa = self.zrwa_bytes.bytes();
        let fg = self.zrwa_flush_bytes.bytes();
        if zrwa > 0 && (fg == 0 || !zrwa.is_multiple_of(fg) || !fg.is_multiple_of(lba)) {
            errs.push(format!(
                "zns.zrwa_flush_bytes: {} is not allowed with zrwa_bytes {} (allowed: a multiple of lba_bytes that divides zrwa_bytes)",
                self.zrwa_flush_bytes, self.zrwa_bytes
            ));
        }
        if zrwa > 0 && (!zrwa.is_multiple_of(lba) || zrwa > cap) {
            errs.push(format!(
                "zns.zrwa_bytes: {} with zone capacity {} (allowed: 0 for none, or a multiple of lba_bytes up to the zone capacity)",
                self.zrwa_bytes,
                Bytes(cap)
            ));
        }
        if zrwa == 0 && (fg > 0 || self.max_zrwa_zones > 0) {
            errs.push(
                "zns.zrwa_flush_bytes / max_zrwa_zones: set without zrwa_bytes (allowed: only with a ZRWA, zrwa_bytes > 0)"
                    .into(),
            );
        }
        if errs.is_empty() {
            Ok(())
        } else {
            Err(errs.join("\n"))
        }
    }
}
