//! Host interface: the PCIe link and the NVMe submission queues with round-robin
//! arbitration and burst fetch.
//!
//! PCIe: each direction is one FIFO resource whose rate is lanes x per-lane rate
//! after line encoding (8b/10b for Gen1-2, 128b/130b for Gen3-5); a transfer is split
//! into TLPs of at most `max_payload` bytes, each carrying `tlp_overhead` bytes of
//! header/framing/CRC; every TLP arrives `pcie_latency` after it is sent. Doorbells,
//! command fetches (64-byte entries), data and completions (16-byte entries) all use
//! these links, so they slow one another.
//! NVMe: the host writes a command into a submission queue and rings its doorbell;
//! the fetch engine visits the queues in round-robin order, fetching up to
//! `arbitration_burst` commands from one queue per turn, with up to
//! `outstanding_fetches` fetch reads in flight at once (each its own PCIe read).
//! Simplifies: interrupts are folded into the completion entry's arrival; flow-control
//! credits and link-layer acks are not modelled.

use crate::config::DeviceConfig;
use crate::sim::{fs_per_byte, xfer_ns, Ns};
use std::collections::VecDeque;

pub const SQE_BYTES: u64 = 64;
pub const CQE_BYTES: u64 = 16;
pub const DOORBELL_BYTES: u64 = 4;

#[derive(Clone, Debug, Default)]
pub struct LinkDir {
    pub free_at: Ns,
    pub busy_ns: u64,
    pub payload_bytes: u64,
    pub wire_bytes: u64,
}

impl LinkDir {
    /// Busy time within [0, `t`]: transfers booked past `t` are not spent yet. Counted
    /// as one stretch from `t` to `free_at`, exact when the booking has no gap there (a
    /// transfer booked ahead of a host-memory delay may leave one: then a little less).
    pub fn busy_by(&self, t: Ns) -> u64 {
        self.busy_ns.saturating_sub(self.free_at.saturating_sub(t))
    }
}

#[derive(Clone, Debug)]
pub struct Pcie {
    fs_per_byte: u64,
    max_payload: u64,
    overhead: u64,
    pub latency: Ns,
    /// Device to host.
    pub up: LinkDir,
    /// Host to device.
    pub down: LinkDir,
}

impl Pcie {
    pub fn new(d: &DeviceConfig) -> Self {
        Pcie {
            fs_per_byte: fs_per_byte(d.link_bytes_per_s()),
            max_payload: d.host.max_payload.bytes(),
            overhead: d.host.tlp_overhead.bytes(),
            latency: d.host.pcie_latency.ns(),
            up: LinkDir::default(),
            down: LinkDir::default(),
        }
    }

    /// Bytes on the wire for a payload (a zero-byte payload is one header-only TLP).
    #[inline]
    pub fn wire_bytes(&self, payload: u64) -> u64 {
        payload + payload.div_ceil(self.max_payload).max(1) * self.overhead
    }

    /// Time the link needs to serialise a payload.
    #[inline]
    pub fn wire_ns(&self, payload: u64) -> Ns {
        xfer_ns(self.wire_bytes(payload), self.fs_per_byte)
    }

    #[inline]
    fn send(&mut self, up: bool, now: Ns, payload: u64) -> Ns {
        let dur = self.wire_ns(payload);
        let wire = self.wire_bytes(payload);
        let d = if up { &mut self.up } else { &mut self.down };
        let start = d.free_at.max(now);
        d.free_at = start + dur;
        d.busy_ns += dur;
        d.payload_bytes += payload;
        d.wire_bytes += wire;
        d.free_at + self.latency
    }

    /// Send device -> host; returns the arrival time at the host.
    #[inline]
    pub fn send_up(&mut self, now: Ns, payload: u64) -> Ns {
        self.send(true, now, payload)
    }

    /// A device read of host memory (command fetch, write data, HMB): a read request
    /// up, then `bytes` down once the host's memory has answered after `host_ns`;
    /// returns when the data is at the device.
    #[inline]
    pub fn read_host(&mut self, now: Ns, host_ns: Ns, bytes: u64) -> Ns {
        let at_host = self.send_up(now, 0);
        self.send_down(at_host + host_ns, bytes)
    }

    /// Send host -> device; returns the arrival time at the device.
    #[inline]
    pub fn send_down(&mut self, now: Ns, payload: u64) -> Ns {
        self.send(false, now, payload)
    }
}

/// One NVMe I/O submission queue (with its completion queue).
#[derive(Clone, Debug, Default)]
pub struct Sq {
    /// Commands written to the queue, not yet fetched: (cmd, time the doorbell arrives).
    pub pending: VecDeque<(u32, Ns)>,
    /// Commands the host holds back because the queue is full.
    pub overflow: VecDeque<u32>,
    /// Entries in use (pending + fetched, not yet completed).
    pub used: u32,
    pub fetched: u64,
    /// Commands whose fetch read is in flight, in order (fetches of one queue come
    /// back in the order they were issued: the link is FIFO).
    pub in_fetch: VecDeque<u32>,
}

/// Submission queues and the controller's fetch engine.
#[derive(Clone, Debug)]
pub struct Nvme {
    sqs: Vec<Sq>,
    /// One bit per queue: set while its `pending` is not empty, so that arbitration
    /// visits only queues with commands (a drive with 128 queues, most of them empty,
    /// would otherwise scan them all for every fetch).
    nonempty: Vec<u64>,
    rr: usize,
    burst: u32,
    entries: u32,
    /// Fetch reads in flight, and how many may be.
    fetches_in_flight: u32,
    max_fetches: u32,
    /// Time of the earliest scheduled fetch kick (Ns::MAX if none).
    kick_at: Ns,
    fetches: u64,
}

impl Nvme {
    pub fn new(d: &DeviceConfig, queues: u32) -> Self {
        Nvme {
            sqs: vec![Sq::default(); queues as usize],
            nonempty: vec![0; (queues as usize).div_ceil(64)],
            rr: 0,
            burst: d.host.arbitration_burst,
            entries: d.host.queue_entries,
            fetches_in_flight: 0,
            max_fetches: d.host.outstanding_fetches.max(1),
            kick_at: Ns::MAX,
            fetches: 0,
        }
    }

    /// Can queue `sq` take another entry? (A queue of N entries holds N-1 commands.)
    #[inline]
    pub fn has_room(&self, sq: u32) -> bool {
        self.sqs[sq as usize].used + 1 < self.entries
    }

    /// Can another fetch read be issued?
    #[inline]
    pub fn can_fetch(&self) -> bool {
        self.fetches_in_flight < self.max_fetches
    }

    /// I/O submission queues.
    #[inline]
    pub(crate) fn queues(&self) -> u32 {
        self.sqs.len() as u32
    }

    /// Fetch reads issued so far.
    pub(crate) fn fetches(&self) -> u64 {
        self.fetches
    }

    /// Commands fetched from each queue.
    pub(crate) fn fetched_per_queue(&self) -> Vec<u64> {
        self.sqs.iter().map(|q| q.fetched).collect()
    }

    /// The host holds `cmd` back: queue `sq` is full.
    #[inline]
    pub(crate) fn hold(&mut self, sq: u32, cmd: u32) {
        self.sqs[sq as usize].overflow.push_back(cmd);
    }

    /// `cmd` is written into queue `sq`; its doorbell reaches the device at `visible`.
    #[inline]
    pub(crate) fn post(&mut self, sq: u32, cmd: u32, visible: Ns) {
        let q = &mut self.sqs[sq as usize];
        q.used += 1;
        q.pending.push_back((cmd, visible));
        self.nonempty[sq as usize / 64] |= 1 << (sq % 64);
    }

    /// The first queue in `from..end` with pending commands.
    #[inline]
    fn next_nonempty(&self, from: usize, end: usize) -> Option<usize> {
        let mut w = from / 64;
        if w >= self.nonempty.len() || from >= end {
            return None;
        }
        let mut bits = self.nonempty[w] & (!0u64 << (from % 64));
        loop {
            if bits != 0 {
                let q = w * 64 + bits.trailing_zeros() as usize;
                return (q < end).then_some(q);
            }
            w += 1;
            if w >= self.nonempty.len() || w * 64 >= end {
                return None;
            }
            bits = self.nonempty[w];
        }
    }

    /// A command of queue `sq` completed: its entry is free again. Returns the
    /// command the host held back for the room, if any.
    #[inline]
    pub(crate) fn complete(&mut self, sq: u32) -> Option<u32> {
        let q = &mut self.sqs[sq as usize];
        q.used -= 1;
        q.overflow.pop_front()
    }

    /// Should a fetch kick be scheduled at `t` (none is due earlier)? Records it if so.
    #[inline]
    pub(crate) fn kick_needed(&mut self, t: Ns) -> bool {
        if t < self.kick_at {
            self.kick_at = t;
            true
        } else {
            false
        }
    }

    /// A fetch kick fired at `now`: the next one may be scheduled anew.
    #[inline]
    pub(crate) fn kick_fired(&mut self, now: Ns) {
        if self.kick_at <= now {
            self.kick_at = Ns::MAX;
        }
    }

    /// A fetch read was issued.
    #[inline]
    pub(crate) fn fetch_issued(&mut self) {
        self.fetches_in_flight += 1;
    }

    /// A fetch read of queue `sq` came back: the next command it fetched.
    #[inline]
    pub(crate) fn take_fetched(&mut self, sq: u32) -> u32 {
        self.sqs[sq as usize]
            .in_fetch
            .pop_front()
            .expect("a fetched command")
    }

    /// A fetch read is done (all its commands taken).
    #[inline]
    pub(crate) fn fetch_done(&mut self) {
        self.fetches_in_flight -= 1;
    }

    /// Choose the next queue with a visible command (round robin) and move up to a
    /// burst of visible commands into its `in_fetch`. Returns (queue, commands), or
    /// None and the earliest time a pending command becomes visible.
    pub fn arbitrate(&mut self, now: Ns) -> Result<(u32, u32), Option<Ns>> {
        let n = self.sqs.len();
        let start = self.rr.min(n);
        let mut earliest: Option<Ns> = None;
        // The queues with pending commands, in round-robin order from `rr`.
        let mut from = start;
        let mut end = n;
        loop {
            let Some(qi) = self.next_nonempty(from, end) else {
                if end == n && start > 0 {
                    (from, end) = (0, start);
                    continue;
                }
                break;
            };
            from = qi + 1;
            let q = &mut self.sqs[qi];
            match q.pending.front() {
                Some(&(_, vis)) if vis <= now => {
                    let mut count = 0;
                    while count < self.burst {
                        match q.pending.front() {
                            Some(&(c, v)) if v <= now => {
                                q.in_fetch.push_back(c);
                                q.pending.pop_front();
                                count += 1;
                            }
                            _ => break,
                        }
                    }
                    if q.pending.is_empty() {
                        self.nonempty[qi / 64] &= !(1 << (qi % 64));
                    }
                    q.fetched += count as u64;
                    self.rr = (qi + 1) % n;
                    self.fetches += 1;
                    return Ok((qi as u32, count));
                }
                Some(&(_, vis)) => earliest = Some(earliest.map_or(vis, |e: Ns| e.min(vis))),
                None => {}
            }
        }
        Err(earliest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{load_device, DeviceSpec};

    #[test]
    fn gen3_x4_link_rate_and_tlp_overhead() {
        let d = load_device(&DeviceSpec::Preset("client-tlc-dram".into()), &[]).unwrap();
        let p = Pcie::new(&d);
        // 4 lanes x 8 GT/s x 128/130 / 8 = 3.938 GB/s; 4 KiB = 16 TLPs of 256 B + 24 B.
        assert_eq!(p.wire_bytes(4096), 4096 + 16 * 24);
        let ns = p.wire_ns(4096) as f64;
        let expect = (4096.0 + 384.0) / 3.938_461_5e9 * 1e9;
        assert!((ns - expect).abs() <= 1.0, "{ns} vs {expect}");
    }

    #[test]
    fn round_robin_with_burst() {
        let d = load_device(&DeviceSpec::Preset("tiny-test".into()), &[]).unwrap();
        let mut n = Nvme::new(&d, 3);
        for c in 0..6 {
            n.post(0, c, 0);
        }
        n.post(2, 100, 0);
        n.post(1, 50, 10);
        assert_eq!(n.arbitrate(0), Ok((0, 4))); // burst 4
        assert_eq!(n.sqs[0].in_fetch, vec![0, 1, 2, 3]);
        assert_eq!(n.arbitrate(0), Ok((2, 1))); // queue 1's command is not visible yet
        assert_eq!(n.arbitrate(0), Ok((0, 2)));
        assert_eq!(n.sqs[0].in_fetch, vec![0, 1, 2, 3, 4, 5]);
        assert_eq!(n.arbitrate(0), Err(Some(10)));
        assert_eq!(n.arbitrate(10), Ok((1, 1)));
    }

    #[test]
    fn round_robin_skips_empty_queues_past_64_and_wraps() {
        let d = load_device(&DeviceSpec::Preset("tiny-test".into()), &[]).unwrap();
        let mut n = Nvme::new(&d, 130);
        n.post(129, 1, 0);
        n.post(3, 2, 0);
        n.post(70, 3, 0);
        n.post(64, 4, 50);
        assert_eq!(n.arbitrate(0), Ok((3, 1)));
        assert_eq!(n.arbitrate(0), Ok((70, 1))); // 64 is not visible until 50
        assert_eq!(n.arbitrate(0), Ok((129, 1)));
        n.post(0, 5, 0);
        n.post(100, 6, 0);
        assert_eq!(n.arbitrate(0), Ok((0, 1))); // wrapped past the last queue
        assert_eq!(n.arbitrate(0), Ok((100, 1)));
        assert_eq!(n.arbitrate(0), Err(Some(50)));
        assert_eq!(n.arbitrate(60), Ok((64, 1)));
        assert_eq!(n.arbitrate(60), Err(None));
    }
}
