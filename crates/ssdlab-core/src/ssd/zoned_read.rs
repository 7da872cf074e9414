//! Reads on a zoned drive (`zoned.rs`): each LBA of a read is found on flash (the page
//! the zone layout gives it, once its program unit is programmed), in the write buffer
//! (its unit not yet programmed, or held in a ZRWA: `zoned_zrwa.rs`), or nowhere (no
//! data: it reads as zeroes, with no flash read). Flash reads go out a transaction per
//! page, merged over planes by the die scheduler; buffer and zero bytes cross the link
//! together. With `--verify` the read oracle checks every LBA read from flash against
//! the last write of it, and that LBAs read as zeroes hold no data.
//!
//! Simplifies: a read across the end of a zone's data reads zeroes for the rest, as a
//! deallocated range does (NVMe's default); no read cache.

use super::zoned::pun_of;
use super::{Cmd, Ssd};
use crate::controller::TxnKind;
use crate::sim::Ns;

/// Where a read of one LBA finds its data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum LbaSource {
    Flash,
    Buffer,
    Zero,
}

impl Ssd {
    pub(super) fn zoned_read(&mut self, cmd: u32, c: Cmd) {
        let (slba, nlb) = match self.zoned_lbas(&c) {
            Ok(r) => r,
            Err(s) => return self.zoned_fail(cmd, s),
        };
        if let Err(s) = self.zoned().ns.read(slba, nlb) {
            return self.zoned_fail(cmd, s);
        }
        let now = self.now();
        let (mut zero_bytes, mut buffer_bytes, mut pending) = (0u64, 0u64, 0u32);
        let mut open: Option<u32> = None;
        let mut expect: Vec<(u32, u32, u32)> = Vec::new();
        let (lba_bytes, zone_lbas, unit_bytes) = {
            let z = self.zoned();
            (z.lba_bytes, z.zone_lbas, z.unit_bytes)
        };
        let zone = slba / zone_lbas;
        for lba in slba..slba + nlb {
            let z = self.zoned.as_ref().expect("zoned");
            let off = (lba - zone * zone_lbas) * lba_bytes;
            let verify = z.oracle.as_ref().map(|o| o.shadow[lba as usize]);
            let src = if z.has_zrwa(zone) {
                self.zrwa_source(zone, lba - zone * zone_lbas)
            } else {
                z.plain_source(zone, off, unit_bytes)
            };
            if src == LbaSource::Zero {
                zero_bytes += lba_bytes; // no data: deallocated, read as zeroes
                self.zoned_expect_none(verify);
                continue;
            }
            if src == LbaSource::Buffer {
                buffer_bytes += lba_bytes;
                self.counters.buffer_hits += 1;
                continue;
            }
            let z = self.zoned.as_ref().expect("zoned");
            let pun = pun_of(&self.geo, &z.layout, zone_lbas, lba);
            let e = (pun, lba as u32, verify.unwrap_or(0));
            let verifying = verify.is_some();
            if let Some(t) = open {
                if self.extend_read_txn(t, TxnKind::UserRead, pun, lba as u32, lba_bytes) {
                    if verifying {
                        expect.push(e);
                    }
                    continue;
                }
                self.zoned_queue_read(t, std::mem::take(&mut expect));
            }
            open = Some(self.read_txn(TxnKind::UserRead, cmd, pun, lba as u32, lba_bytes));
            if verifying {
                expect.push(e);
            }
            pending += 1;
        }
        if let Some(t) = open {
            self.zoned_queue_read(t, expect);
        }
        self.zoned().c.flash_reads += pending as u64;
        self.counters.user_read_txns += pending as u64;
        let mut ready: Ns = now;
        if zero_bytes + buffer_bytes > 0 {
            let at = self.write_buffer_read(now, buffer_bytes);
            ready = self.pcie.send_up(at, zero_bytes + buffer_bytes) - self.pcie.latency;
        }
        if pending == 0 {
            self.post_completion(cmd, ready);
        } else {
            self.cmds.get_mut(cmd).pending = pending;
        }
    }

    /// The oracle: an LBA read as deallocated must hold no data.
    fn zoned_expect_none(&mut self, shadow: Option<u32>) {
        if let (Some(v), Some(o)) = (shadow, &mut self.zoned().oracle) {
            o.checked += 1;
            o.mismatches += (v != 0) as u64;
        }
    }

    /// Queue read transaction `t`, with the oracle's expectations of its units.
    fn zoned_queue_read(&mut self, t: u32, expect: Vec<(u32, u32, u32)>) {
        if let Some(o) = &mut self.zoned().oracle {
            o.reads.insert(t, expect);
        }
        self.queue_user_read(t);
    }

    /// A zoned read transaction sensed its page: the oracle checks what it holds.
    pub(super) fn zoned_sensed(&mut self, t: u32) {
        let Some(o) = self.zoned.as_mut().and_then(|z| z.oracle.as_mut()) else {
            return;
        };
        for (pun, lba, v) in o.reads.remove(&t).unwrap_or_default() {
            o.checked += 1;
            o.mismatches += (o.flash[pun as usize] != (lba, v)) as u64;
        }
    }
}
