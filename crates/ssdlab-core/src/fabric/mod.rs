//! NVMe over Fabrics: the path of a command between an initiator host and a target
//! that holds the drive.
//!
//! Per command (forward): the initiator's driver cost on one of the host's cores; the
//! command capsule (a 64 B SQE, plus the write data when it fits `in_capsule_data`)
//! through the host NIC, serialised at the host port's line rate, through the switch
//! (`switch_latency`) and serialised again at the target port; the target's CPU cost
//! per command on one of its cores; for a larger write, the target fetching the data
//! (RDMA READ, or an R2T and H2C data PDUs for TCP: one header-only message back, the
//! data forward); then the target submits the command to its drive (the drive's own
//! PCIe and NVMe model). Backward: the target's completion cost on a core; for a read,
//! the data to the host (RDMA WRITE, or C2H data PDUs); the completion capsule (16 B
//! CQE); the initiator's completion cost on a host core.
//! A message of `n` payload bytes is `n + ceil(n / mtu) * packet_overhead` bytes on the
//! wire (at least one packet); each NIC traversal adds `nic_latency`.
//!
//! Simplifies: a command reserves every resource on its way when it enters the path;
//! a port takes a message in the first gap of its busy intervals where it fits
//! (`calendar.rs`: a capsule does not wait behind bulk data reserved for later), a
//! CPU core is a FIFO in the order commands reach the path; packets of a message are pipelined through the switch (the
//! receiving port cannot finish before the sending one has, plus one packet) and a
//! receiving port is occupied for its own serialisation time only (messages from
//! slower senders interleave there, as their packets do); no
//! congestion control, loss or retransmission; a drive's traffic always uses the same
//! port pair (static multipath: drives take the ports of their host and target in
//! turn); cores are interchangeable
//! (no queue-to-core affinity).

mod calendar;
mod config;

use calendar::Calendar;
pub use config::{FabricConfig, Transport};

use crate::host::{CQE_BYTES, SQE_BYTES};
use crate::sim::{fs_per_byte, xfer_ns, Ns};
use crate::workload::OpKind;

/// One node's network ports and CPU cores, as FIFO resources.
#[derive(Clone, Debug)]
pub struct Node {
    pub name: String,
    fs_per_byte: u64,
    /// Per port: when its transmit and receive sides are busy.
    tx: Vec<Calendar>,
    rx: Vec<Calendar>,
    cores_free: Vec<Ns>,
    pub stats: NodeStats,
}

/// What a node's ports and cores did (for the report).
#[derive(Clone, Debug, Default)]
pub struct NodeStats {
    pub tx_wire_bytes: u64,
    pub rx_wire_bytes: u64,
    pub tx_busy_ns: u64,
    pub rx_busy_ns: u64,
    pub cpu_busy_ns: u64,
    pub commands: u64,
}

impl Node {
    pub fn new(name: &str, ports: u32, port_bytes_per_s: f64, cores: u32) -> Self {
        Node {
            name: name.to_string(),
            fs_per_byte: fs_per_byte(port_bytes_per_s),
            tx: vec![Calendar::default(); ports.max(1) as usize],
            rx: vec![Calendar::default(); ports.max(1) as usize],
            cores_free: vec![0; cores.max(1) as usize],
            stats: NodeStats::default(),
        }
    }

    /// CPU time spent within [0, `t`]: the work cores are booked for past `t` is not
    /// done yet (counted as one stretch per core up to when it is free: a lower bound
    /// where work was booked ahead with a gap before it).
    pub fn cpu_busy_by(&self, t: Ns) -> u64 {
        let ahead: u64 = self.cores_free.iter().map(|&f| f.saturating_sub(t)).sum();
        self.stats.cpu_busy_ns.saturating_sub(ahead)
    }

    pub fn ports(&self) -> usize {
        self.tx.len()
    }

    pub fn cores(&self) -> usize {
        self.cores_free.len()
    }

    /// Run `cost` on the first core free at or after `at`; returns when it is done.
    fn on_core(&mut self, at: Ns, cost: Ns) -> Ns {
        // The first core free by `at` if there is one (no core can do better), else
        // the first of the earliest free.
        let (i, free) = match self.cores_free.iter().position(|&f| f <= at) {
            Some(i) => (i, at),
            None => self
                .cores_free
                .iter()
                .enumerate()
                .min_by_key(|(_, &f)| f)
                .map(|(i, &f)| (i, f))
                .expect("a node has a core"),
        };
        let done = free.max(at) + cost;
        self.cores_free[i] = done;
        self.stats.cpu_busy_ns += cost;
        done
    }

    /// Serialising `wire` bytes takes this long at the port's line rate.
    fn wire_ns(&self, wire: u64) -> Ns {
        xfer_ns(wire, self.fs_per_byte)
    }
}

/// Which host, target and ports a drive's commands use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Path {
    pub host: u32,
    pub target: u32,
    pub host_port: u32,
    pub target_port: u32,
}

/// The fabric: its parameters, the initiator hosts and the targets.
#[derive(Clone, Debug)]
pub struct Fabric {
    pub cfg: FabricConfig,
    pub hosts: Vec<Node>,
    pub targets: Vec<Node>,
    /// The latest event time seen: port reservations that ended by then are dropped.
    now: Ns,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    HostToTarget,
    TargetToHost,
}

impl Fabric {
    pub fn new(cfg: FabricConfig, hosts: Vec<Node>, targets: Vec<Node>) -> Self {
        Fabric {
            cfg,
            hosts,
            targets,
            now: 0,
        }
    }

    /// Bytes on the wire for a message of `payload` bytes.
    pub fn wire_bytes(&self, payload: u64) -> u64 {
        let mtu = self.cfg.mtu.bytes().max(1);
        payload + payload.div_ceil(mtu).max(1) * self.cfg.packet_overhead.bytes()
    }

    /// Send a message handed to the NIC at `at`; returns when it has arrived in the
    /// receiving node's memory.
    fn send(&mut self, p: Path, dir: Dir, at: Ns, payload: u64) -> Ns {
        let nic = self.cfg.nic_latency.ns();
        self.send_from(p, dir, at + nic, payload).1
    }

    /// Send a message whose first packet may leave the sending port at `earliest_tx`;
    /// returns when its last packet has left the port and when it has arrived.
    fn send_from(&mut self, p: Path, dir: Dir, earliest_tx: Ns, payload: u64) -> (Ns, Ns) {
        let wire = self.wire_bytes(payload);
        let packet = wire.min(self.cfg.mtu.bytes() + self.cfg.packet_overhead.bytes());
        let nic = self.cfg.nic_latency.ns();
        let hop = self.cfg.switch_latency.ns();
        let (from, to, fp, tp) = match dir {
            Dir::HostToTarget => (
                &mut self.hosts[p.host as usize],
                &mut self.targets[p.target as usize],
                p.host_port as usize,
                p.target_port as usize,
            ),
            Dir::TargetToHost => (
                &mut self.targets[p.target as usize],
                &mut self.hosts[p.host as usize],
                p.target_port as usize,
                p.host_port as usize,
            ),
        };
        let tx_ns = from.wire_ns(wire);
        let now = self.now;
        let tx_start = from.tx[fp].reserve(now, earliest_tx, tx_ns);
        let tx_end = tx_start + tx_ns;
        from.stats.tx_wire_bytes += wire;
        from.stats.tx_busy_ns += tx_ns;
        let rx_ns = to.wire_ns(wire);
        let first_in = tx_start + from.wire_ns(packet) + hop;
        let rx_start = to.rx[tp].reserve(now, first_in, rx_ns);
        // The receiving port is busy for its own serialisation time only: when the
        // sender is slower, other messages' packets interleave with this one's (a
        // 100 Gb/s port takes four 25 Gb/s senders at once), but the message is not
        // complete before its last packet has left the sender and crossed the switch.
        let rx_end = (rx_start + rx_ns).max(tx_end + hop + to.wire_ns(packet));
        to.stats.rx_wire_bytes += wire;
        to.stats.rx_busy_ns += rx_ns;
        (tx_end, rx_end + nic)
    }

    /// A command issued by the host at `at`: when the target submits it to its drive.
    pub fn forward(&mut self, p: Path, at: Ns, kind: OpKind, len: u64) -> Ns {
        self.now = self.now.max(at);
        let c = &self.cfg;
        let (submit, command) = (c.host_submit.ns(), c.target_command.ns());
        let inline = kind == OpKind::Write && len <= c.in_capsule_data.bytes();
        let t = self.hosts[p.host as usize].on_core(at, submit);
        self.hosts[p.host as usize].stats.commands += 1;
        let capsule = SQE_BYTES + if inline { len } else { 0 };
        let t = self.send(p, Dir::HostToTarget, t, capsule);
        let mut t = self.targets[p.target as usize].on_core(t, command);
        self.targets[p.target as usize].stats.commands += 1;
        if kind == OpKind::Write && !inline {
            // The target asks for the data (RDMA READ request / R2T) and receives it.
            t = self.send(p, Dir::TargetToHost, t, 0);
            t = self.send(p, Dir::HostToTarget, t, len);
        }
        t
    }

    /// The drive's completion reached the target's memory at `at`: when the host's
    /// driver has completed the command.
    pub fn backward(&mut self, p: Path, at: Ns, kind: OpKind, len: u64) -> Ns {
        self.now = self.now.max(at);
        let (complete, host_complete) =
            (self.cfg.target_complete.ns(), self.cfg.host_complete.ns());
        let t = self.targets[p.target as usize].on_core(at, complete);
        // Read data and the completion capsule are posted together on the command's
        // queue pair, which delivers in order: the capsule leaves the port after the
        // data's last packet and is not complete at the host before the data is (else,
        // on a busy port, a capsule would fit an earlier gap and overtake its data).
        let nic = self.cfg.nic_latency.ns();
        let (mut earliest_tx, mut data_in) = (t + nic, 0);
        if kind == OpKind::Read {
            let (tx_end, arrival) = self.send_from(p, Dir::TargetToHost, t + nic, len);
            (earliest_tx, data_in) = (tx_end, arrival);
        }
        let (_, capsule_in) = self.send_from(p, Dir::TargetToHost, earliest_tx, CQE_BYTES);
        self.hosts[p.host as usize].on_core(capsule_in.max(data_in), host_complete)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fabric(hosts: u32) -> Fabric {
        let cfg = FabricConfig::preset("rdma-kernel-2016").unwrap();
        let hosts = (0..hosts)
            .map(|h| Node::new(&format!("h{h}"), 1, 25e9 / 8.0, 16))
            .collect();
        Fabric::new(cfg, hosts, vec![Node::new("t", 1, 100e9 / 8.0, 28)])
    }

    fn path(host: u32) -> Path {
        Path {
            host,
            target: 0,
            host_port: 0,
            target_port: 0,
        }
    }

    /// A 100 Gb/s port receives four 25 Gb/s senders at once: four 1 MiB messages
    /// sent together arrive as fast as one (the port is not held for a slow sender's
    /// whole transmission), while the port itself is busy a quarter of that time each.
    #[test]
    fn a_fast_port_takes_slow_senders_in_parallel() {
        let one = fabric(1).send(path(0), Dir::HostToTarget, 0, 1 << 20);
        let mut f = fabric(4);
        let last = (0..4)
            .map(|h| f.send(path(h), Dir::HostToTarget, 0, 1 << 20))
            .max()
            .unwrap();
        assert!(
            last <= one + one / 20,
            "{last} ns vs {one} ns for one message"
        );
        let wire = f.wire_bytes(1 << 20);
        let rx_one = f.targets[0].wire_ns(wire);
        assert_eq!(f.targets[0].stats.rx_busy_ns, 4 * rx_one);
        // Eight senders' worth of bytes at 100 Gb/s cannot arrive faster than the port.
        let mut f = fabric(8);
        let last = (0..8)
            .map(|h| f.send(path(h), Dir::HostToTarget, 0, 1 << 20))
            .max()
            .unwrap();
        assert!(
            last >= 8 * rx_one,
            "{last} ns < 8 x {rx_one} ns on the target port"
        );
    }

    /// A read's completion capsule follows its data on the queue pair: on a target
    /// port with a gap too small for the data but big enough for a capsule, the
    /// capsule does not take the gap and overtake the data.
    #[test]
    fn a_read_completion_never_overtakes_its_data() {
        let mut f = fabric(1);
        let (nic, target_cost) = (f.cfg.nic_latency.ns(), f.cfg.target_complete.ns());
        let cqe_ns = f.targets[0].wire_ns(f.wire_bytes(CQE_BYTES));
        let data_ns = f.targets[0].wire_ns(f.wire_bytes(4096));
        // The data may leave at `earliest`; another queue pair's message holds the
        // port from two capsules' time after that.
        let earliest = 1_000 + target_cost + nic;
        let (gap, blocker) = (2 * cqe_ns, 10 * data_ns);
        assert!(gap < data_ns);
        f.targets[0].tx[0].reserve(0, earliest + gap, blocker);
        let done = f.backward(path(0), 1_000, OpKind::Read, 4096);
        let data_left = earliest + gap + blocker + data_ns;
        assert!(
            done >= data_left + f.cfg.host_complete.ns(),
            "completed at {done} ns, before the data left the port at {data_left} ns"
        );
    }
}
