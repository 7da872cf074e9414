//! The host's side of the Host Memory Buffer: how much it grants, in which chunks,
//! and when it grants nothing, the way Linux's NVMe PCIe driver does it.
//!
//! Models (`drivers/nvme/host/pci.c`, `nvme_setup_host_mem` and
//! `nvme_alloc_host_mem`, Linux 5.x-6.x): the host takes the size its policy asks
//! for (HMPRE for `max`) and caps it at `max_host_mem_size_mb` (`hmb.host_limit`,
//! 128 MiB by default); if HMMIN alone exceeds the cap it grants nothing ("min host
//! memory above limit", status `denied`). It then allocates chunks of
//! `min(size, 4 MiB)` (`hmb.host_chunk`: PAGE_SIZE x MAX_ORDER_NR_PAGES on x86-64),
//! at most HMMAXD of them, each at least HMMINDS (`hmb.min_chunk`), stopping at the
//! first chunk it cannot get; if what it got is below HMMIN it frees it all and
//! retries with chunks half the size, down to max(HMMINDS, 8 KiB). If no chunk
//! size gives HMMIN the allocation failed and, as the NVMe base specification
//! requires of a device whose HMMIN is not met (Host Memory Buffer feature, section
//! 5.27.1.10 in revision 2.0), the drive runs without an HMB (status
//! `allocation-failed`).
//!
//! Simplifies: the host's memory is two numbers, what its allocator can give in all
//! (`hmb.host_available`) and its largest contiguous chunk (`hmb.host_max_alloc`);
//! both unlimited by default, so the default grant is what the policy and the cap
//! give. The allocation takes no simulated time (it happens before the run).

use super::memory::{HmbConfig, HmbPolicy};
use serde::Serialize;

/// What became of the HMB the device asked for.
#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum HmbStatus {
    /// The host granted an HMB (at least HMMIN).
    Granted,
    /// The device asks for none (HMPRE 0).
    Unsupported,
    /// The host's policy is `off`.
    Off,
    /// HMMIN exceeds the host's cap (`hmb.host_limit`): the host does not try.
    Denied,
    /// The host could not allocate HMMIN in chunks the device accepts.
    AllocationFailed,
}

impl HmbStatus {
    /// The grant is what a device asking for an HMB normally gets, or it asked for
    /// none: reports name the status only otherwise.
    pub fn is_ordinary(&self) -> bool {
        matches!(self, HmbStatus::Granted | HmbStatus::Unsupported)
    }
}

/// The outcome of HMB negotiation (Set Features, Host Memory Buffer).
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct HmbGrant {
    pub policy: HmbPolicy,
    pub status: HmbStatus,
    pub requested_bytes: u64,
    pub granted_bytes: u64,
    /// Descriptor list: one chunk size per entry.
    pub chunks: Vec<u64>,
    /// Why the grant is what it is, in a line (empty for an ordinary grant).
    pub note: String,
}

/// Linux's smallest chunk: two 4 KiB pages.
const MIN_HOST_CHUNK_BYTES: u64 = 8192;

impl HmbConfig {
    /// What the host grants (see the module header).
    pub fn negotiate(&self) -> HmbGrant {
        let hmpre = self.hmpre.bytes();
        let hmmin = self.hmmin.bytes();
        let limit = self.host_limit.bytes();
        let want = match self.host_policy {
            HmbPolicy::Off => 0,
            HmbPolicy::Max => hmpre,
            HmbPolicy::Half => (hmpre / 2).max(hmmin),
            HmbPolicy::Min => hmmin,
        };
        let want = want.min(limit);
        let none = |status, note: String| HmbGrant {
            policy: self.host_policy,
            status,
            requested_bytes: want,
            granted_bytes: 0,
            chunks: Vec::new(),
            note,
        };
        if hmpre == 0 {
            return none(HmbStatus::Unsupported, String::new());
        }
        if self.host_policy == HmbPolicy::Off {
            return none(HmbStatus::Off, "the host policy is off".into());
        }
        if hmmin > limit {
            return none(
                HmbStatus::Denied,
                format!(
                    "HMMIN {hmmin} B exceeds the host cap hmb.host_limit {limit} B \
                     (Linux: min host memory above limit): no HMB"
                ),
            );
        }
        let min_chunk = self.min_chunk.bytes();
        let mut chunk = self.host_chunk.bytes().max(min_chunk).max(1);
        let floor = min_chunk.max(MIN_HOST_CHUNK_BYTES).min(chunk);
        let available = self.host_available.map_or(u64::MAX, |s| s.bytes());
        let max_alloc = self.host_max_alloc.map_or(u64::MAX, |s| s.bytes());
        let mut best = 0u64;
        while chunk >= floor {
            let chunks = self.allocate(want, chunk, available, max_alloc);
            let got: u64 = chunks.iter().sum();
            if got > 0 && got >= hmmin {
                return HmbGrant {
                    policy: self.host_policy,
                    status: HmbStatus::Granted,
                    requested_bytes: want,
                    granted_bytes: got,
                    chunks,
                    note: String::new(),
                };
            }
            best = best.max(got);
            chunk /= 2;
        }
        none(
            HmbStatus::AllocationFailed,
            format!(
                "the host allocated at most {best} B of the {want} B asked for (HMMIN {hmmin} B; \
                 chunks of {floor} B to {} B, at most {} descriptors, host_available {}, \
                 host_max_alloc {}): the drive runs without an HMB",
                self.host_chunk.bytes().max(min_chunk),
                self.max_descriptors,
                self.host_available
                    .map_or("unlimited".to_string(), |s| s.to_string()),
                self.host_max_alloc
                    .map_or("unlimited".to_string(), |s| s.to_string()),
            ),
        )
    }

    /// One allocation pass at chunk size `chunk`: chunks of `min(chunk, left)`, at
    /// most HMMAXD, each at least HMMINDS, until the host has no more to give.
    fn allocate(&self, want: u64, chunk: u64, available: u64, max_alloc: u64) -> Vec<u64> {
        let mut chunks = Vec::new();
        let (mut left, mut free) = (want, available);
        while left > 0 && (chunks.len() as u32) < self.max_descriptors {
            let c = left.min(chunk);
            if c < self.min_chunk.bytes() || c > max_alloc || c > free {
                break;
            }
            chunks.push(c);
            left -= c;
            free -= c;
        }
        chunks
    }
}
