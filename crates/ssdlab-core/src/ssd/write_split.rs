//! Large host writes pulled into the write buffer part by part.
//!
//! An NVMe controller fetches a write's data (the pages its PRP list or SGL names) into
//! buffer room as room frees; it does not wait until the whole command fits. A host
//! write larger than `controller.write_chunk` (default: one program of one die) is
//! therefore admitted as parts of at most that size, in order: each part waits for its
//! own room (and journal room) in the same waiting line as every write, pulls its data
//! over the link and is placed as soon as it is buffered; the command completes when
//! its last part is. Without parts a command as large as the buffer waited until the
//! buffer had drained, so a DRAM-less drive's rate fell with the command size (576 KiB
//! of SRAM: 2,844 MB/s with 128 KiB writes, 1,790 with 1 MiB ones).
//!
//! Simplifies: parts are cut at multiples of the chunk from the command's first
//! mapping unit, so no two parts share a unit (a partly covered first or last unit was
//! read for its read-modify-write before the split); each part is a command of its own
//! inside the drive (its own buffer store and placement), but the host sees one
//! command: one completion entry, one latency. Parts are not re-split. A zoned drive's
//! writes are not split (ssd/zoned.rs takes a write at its zone's write pointer whole).

use super::{map::NONE, Cmd, Origin, Ssd};
use crate::config::DeviceConfig;
use crate::sim::Ns;

/// The write split: its part size and which parent each part belongs to.
pub(super) struct WriteSplit {
    /// Largest part, in mapping units.
    chunk_units: u32,
    /// Parent command of each command slot that is a part (`NONE` otherwise), indexed
    /// by the part's command id; grown as the command slab grows.
    parent_of: Vec<u32>,
    /// Host writes split, and parts made.
    pub(super) split_writes: u64,
    pub(super) parts: u64,
}

impl WriteSplit {
    pub(super) fn new(cfg: &DeviceConfig, unit_bytes: u64) -> WriteSplit {
        let chunk = cfg
            .controller
            .write_chunk
            .map(|s| s.bytes())
            .unwrap_or_else(|| cfg.program_unit_bytes());
        WriteSplit {
            chunk_units: (chunk / unit_bytes.max(1)).clamp(1, u32::MAX as u64) as u32,
            parent_of: Vec::new(),
            split_writes: 0,
            parts: 0,
        }
    }

    #[inline]
    fn parent(&self, cmd: u32) -> u32 {
        self.parent_of.get(cmd as usize).copied().unwrap_or(NONE)
    }

    fn set_parent(&mut self, cmd: u32, parent: u32) {
        let i = cmd as usize;
        if i >= self.parent_of.len() {
            self.parent_of.resize(i + 1, NONE);
        }
        self.parent_of[i] = parent;
    }
}

impl Ssd {
    /// A host write larger than the chunk: admit it as parts (true), else false.
    pub(super) fn split_write(&mut self, cmd: u32) -> bool {
        let c = *self.cmds.get(cmd);
        if c.origin != Origin::Host
            || self.zoned.is_some()
            || c.job == super::map::INTERNAL_JOB
            || self.split.parent(cmd) != NONE
        {
            return false;
        }
        let (first, n) = self.unit_range(c.offset, c.len);
        let chunk = self.split.chunk_units;
        if n <= chunk {
            return false;
        }
        // Every part is counted on the parent before the first is admitted.
        let parts = n.div_ceil(chunk);
        self.cmds.get_mut(cmd).pending = parts;
        self.split.split_writes += 1;
        self.split.parts += parts as u64;
        let ub = self.unit_bytes;
        let end = c.offset + c.len;
        let mut start = c.offset;
        for k in 1..=parts {
            let stop = if k == parts {
                end
            } else {
                (first as u64 + (k * chunk) as u64) * ub
            };
            let part = self.cmds.insert(Cmd {
                offset: start,
                len: stop - start,
                pending: 0,
                placed: 0,
                ..c
            });
            self.split.set_parent(part, cmd);
            self.admit_write(part);
            start = stop;
        }
        true
    }

    /// A part of a split write is buffered: count it off its parent, which completes
    /// with its last part (true); false if `cmd` is not a part.
    pub(super) fn write_part_done(&mut self, cmd: u32, data_ready: Ns) -> bool {
        let parent = self.split.parent(cmd);
        if parent == NONE {
            return false;
        }
        self.split.set_parent(cmd, NONE);
        self.cmds.remove(cmd);
        let p = self.cmds.get_mut(parent);
        p.pending -= 1;
        if p.pending == 0 {
            self.post_completion(parent, data_ready);
        }
        true
    }
}
