//! `ssdlab serve`: an NBD server on a Unix socket or a localhost TCP port whose
//! replies are timed by a simulated drive. Each request becomes a host request of an
//! `AsyncSession` submitted at the simulated time that corresponds to its arrival on
//! the wall clock (fixed origin, `time_scale` wall ns per simulated ns); its reply is
//! sent once the wall clock reaches its simulated completion time. The simulation's
//! event queue is the deadline heap: the loop sleeps (ppoll) until the next event is
//! due less a margin (what the machine's wake-ups take, 20 to 300 us), then
//! busy-polls the rest.
//!
//! With `realtime` the thread runs at SCHED_FIFO where permitted (`realtime.rs`):
//! under load, replies are late mostly because another program holds the core when a
//! deadline comes, not because of the wake-up itself (docs/serve.md).
//!
//! Single-threaded. Simplified: the model sees requests rounded out to 512-byte
//! sectors (trims rounded in); a write is stored when received; write zeroes with
//! NBD_CMD_FLAG_NO_HOLE is a write to the model, without it a deallocate; the time
//! to parse and copy data is the host's, not the drive's. A reply sent more than
//! `late_tolerance_ns` after its due time counts as late. A flush and a write with
//! NBD_CMD_FLAG_FUA complete once the data is on NAND in simulated time (the
//! session's NVMe Flush, `ssdlab_core::AsyncSession::submit_flush`).
//!
//! Back-pressure: the reply bytes a client has queued (unsent, and those of its
//! requests in the model) are bounded per client and in all; a request that does not
//! fit is held and its client not read until replies drain (docs/reliability.md).
//! Connections are bounded (`max_clients`; more are closed at once, with a log line),
//! and a client that leaves its replies unread for `client_timeout` is disconnected,
//! so that clients that never read hold the shared reply budget for a bounded time.

mod nbd;
mod net;
mod realtime;
mod signals;
mod store;

use nbd::{Proto, Request};
use net::{bind, wait, Listener, Stream};
use serde_json::{json, Value};
use ssdlab_core::workload::OpKind;
use ssdlab_core::AsyncSession;
use std::collections::HashMap;
use std::io::ErrorKind;
use std::time::{Duration, Instant};
use store::Store;

/// The wait ends this long before a due event, at least; the rest is busy-polled.
const MIN_SPIN_NS: u64 = 20_000;
/// ... and at most (a longer wake-up is the machine preempting us, not its timers).
const MAX_SPIN_NS: u64 = 300_000;

/// How early to wake: how late this machine's timed wake-ups come back (on a virtual
/// machine, often 50-150 us), from the last 64 of them: the 60th smallest plus 10 us,
/// within MIN_SPIN_NS..MAX_SPIN_NS.
struct SpinMargin {
    oversleeps_ns: [u64; 64],
    next: usize,
    margin_ns: u64,
}

impl SpinMargin {
    fn new() -> SpinMargin {
        SpinMargin {
            oversleeps_ns: [0; 64],
            next: 0,
            margin_ns: 50_000,
        }
    }
    fn record(&mut self, oversleep_ns: u64) {
        self.oversleeps_ns[self.next % 64] = oversleep_ns;
        self.next += 1;
        if self.next >= 64 {
            let mut v = self.oversleeps_ns;
            v.sort_unstable();
            self.margin_ns = (v[59] + 10_000).clamp(MIN_SPIN_NS, MAX_SPIN_NS);
        }
    }
}

pub enum Listen {
    Unix(String),
    /// A TCP port on 127.0.0.1 (0: any free port).
    Tcp(u16),
}

pub struct ServeOptions {
    pub listen: Listen,
    /// Wall ns per simulated ns (10: the drive runs ten times slower).
    pub time_scale: f64,
    pub backing: Option<String>,
    pub late_tolerance_ns: u64,
    /// Reply bytes one client may have queued (replies not yet sent, and the replies
    /// of its requests in the model); past it, its requests wait unread.
    pub client_reply_bytes: u64,
    /// Reply bytes all clients together may have queued.
    pub total_reply_bytes: u64,
    /// Clients connected at once; a connection beyond them is closed as it comes.
    pub max_clients: u32,
    /// A client with replies waiting that takes none of their bytes for this long is
    /// disconnected (its queued bytes freed for the others); None: never.
    pub client_timeout: Option<Duration>,
    /// Serve at real-time priority (SCHED_FIFO 1) where the system permits it, so that
    /// other programs on the machine do not delay replies; else a warning and the
    /// normal priority.
    pub realtime: bool,
}

/// Default `ServeOptions::client_reply_bytes`: two 24 MiB reads, or 16,384 of 4 KiB.
pub const DEFAULT_CLIENT_REPLY_BYTES: u64 = 64 << 20;
/// Default `ServeOptions::total_reply_bytes`.
pub const DEFAULT_TOTAL_REPLY_BYTES: u64 = 256 << 20;
/// Default `ServeOptions::max_clients`: fio's numjobs of 32, or nbd-client's
/// connections, with room; at most 32 x 33 MiB of buffered input.
pub const DEFAULT_MAX_CLIENTS: u32 = 32;
/// The allowed `max_clients`: each costs a descriptor and up to 33 MiB of input.
pub const MAX_CLIENTS_LIMIT: u32 = 4096;
/// Default `ServeOptions::client_timeout`, in seconds (the Linux NBD client's own
/// default request timeout is 30 s as well).
pub const DEFAULT_CLIENT_TIMEOUT_S: u64 = 30;
/// The longest `client_timeout` allowed, in seconds (a day).
pub const MAX_CLIENT_TIMEOUT_S: u64 = 86_400;
/// A client's received and unparsed bytes are not read beyond this: one whole
/// request of the largest size, and some.
const MAX_INPUT_BYTES: usize = nbd::MAX_REQUEST_BYTES as usize + (1 << 20);

/// Why the server stopped with an error: bad options, or a model error.
#[derive(Debug)]
pub enum ServeError {
    Usage(String),
    Model(String),
}

impl Conn {
    /// Reply bytes this client has queued or will have once its requests complete.
    fn queued(&self) -> u64 {
        self.proto.pending().len() as u64 + self.reserved
    }

    /// Read from the socket? Not while a request is held, option replies pile up, or a
    /// whole request is already buffered.
    fn wants_input(&self) -> bool {
        self.held.is_none()
            && self.proto.wants_input()
            && self.proto.buffered_input() < MAX_INPUT_BYTES
    }
}

/// Bytes of the reply to `r` (a read's data included, error or not).
fn reply_bytes(r: &Request) -> u64 {
    nbd::REPLY_HEADER_BYTES
        + if r.kind == nbd::CMD_READ {
            r.len as u64
        } else {
            0
        }
}

struct Conn {
    stream: Stream,
    proto: Proto,
    outstanding: u32,
    /// Reply bytes of this client's requests in the model (header and read data).
    reserved: u64,
    /// A request parsed but not admitted (its reply would exceed a bound): until it
    /// is, nothing more is read from this client.
    held: Option<Request>,
    /// The peer went away or broke the protocol: drop it.
    dead: bool,
    /// Since when it has had reply bytes waiting and taken none of them (None: it has
    /// none waiting, or took some at the last send).
    unread_since: Option<Instant>,
}

/// A request in the model, and where its reply goes.
struct InFlight {
    conn: u64,
    cookie: u64,
    kind: u16,
    offset: u64,
    len: u32,
    /// Reply bytes reserved for it (`Conn::reserved`).
    reply_bytes: u64,
}

/// Queued reply bytes: the bounds, the peak, and how often clients were held back.
#[derive(Default)]
struct ReplyBudget {
    client_bytes: u64,
    total_bytes: u64,
    peak_bytes: u64,
    /// Requests that had to wait for room.
    held_requests: u64,
}

#[derive(Default)]
struct Lateness {
    replies: u64,
    late: u64,
    worst_ns: u64,
    sum_ns: u128,
}

impl Lateness {
    /// Late replies / timed replies (percent; 0 without replies).
    fn late_pct(&self) -> f64 {
        if self.replies == 0 {
            0.0
        } else {
            100.0 * self.late as f64 / self.replies as f64
        }
    }

    /// Timed replies per wall-clock second.
    fn per_wall_s(&self, wall_s: f64) -> f64 {
        if wall_s > 0.0 {
            self.replies as f64 / wall_s
        } else {
            0.0
        }
    }

    fn json(&self, tolerance_ns: u64) -> Value {
        let pct = self.late_pct();
        json!({
            "timed_replies": self.replies,
            "late_replies": self.late,
            "late_pct": pct,
            "late_tolerance_ns": tolerance_ns,
            "worst_lateness_ns": self.worst_ns,
            "mean_lateness_ns": if self.replies == 0 { 0.0 } else { self.sum_ns as f64 / self.replies as f64 },
        })
    }
}

/// Maps simulated time to wall time: a fixed origin on each and the scale.
struct Clock {
    wall0: Instant,
    sim0: u64,
    scale: f64,
}

impl Clock {
    fn sim_at(&self, t: Instant) -> u64 {
        self.sim0 + (t.duration_since(self.wall0).as_nanos() as f64 / self.scale) as u64
    }
    fn wall_of(&self, sim_ns: u64) -> Instant {
        let d = (sim_ns.saturating_sub(self.sim0) as f64 * self.scale).ceil() as u64;
        self.wall0 + Duration::from_nanos(d)
    }
}

struct Server {
    sess: AsyncSession,
    store: Store,
    clock: Clock,
    conns: HashMap<u64, Conn>,
    next_conn: u64,
    inflight: HashMap<u64, InFlight>,
    late: Lateness,
    tolerance_ns: u64,
    requests: [u64; 7],
    /// Writes (and write zeroes) with NBD_CMD_FLAG_FUA.
    fua_writes: u64,
    errors: u64,
    connections: u64,
    budget: ReplyBudget,
    max_clients: u32,
    client_timeout: Option<Duration>,
    /// Connections closed at once: `max_clients` were connected.
    refused: u64,
    /// Refused since the last log line about it (logged at most once a second).
    refused_unlogged: u64,
    refused_logged_at: Option<Instant>,
    /// Clients disconnected by `client_timeout`.
    timed_out: u64,
    /// The scheduling policy the server ran at ("fifo" or "normal").
    policy: &'static str,
}

impl Server {
    /// Take the requests each connection has received; submit them to the model now,
    /// as long as their replies fit the client's and the server's bounds. A request
    /// that does not fit is held (and its client not read) until replies drain; one
    /// always fits a client with nothing queued, or a server with nothing queued.
    fn take_requests(&mut self) {
        let mut total: u64 = self.conns.values().map(Conn::queued).sum();
        let mut ids: Vec<u64> = self.conns.keys().copied().collect();
        ids.sort_unstable(); // the oldest client first, every time
        for cid in ids {
            loop {
                let c = self.conns.get_mut(&cid).expect("a connection");
                if c.dead {
                    break;
                }
                let (r, again) = match c.held.take() {
                    Some(r) => (r, true),
                    None => match c.proto.next_request() {
                        Ok(Some(r)) => (r, false),
                        Ok(None) => break,
                        Err(e) => {
                            eprintln!("ssdlab serve: connection {cid}: {e}; closing it");
                            c.dead = true;
                            break;
                        }
                    },
                };
                let (need, mine) = (reply_bytes(&r), c.queued());
                let fits_client = mine == 0 || mine + need <= self.budget.client_bytes;
                let fits_total = total == 0 || total + need <= self.budget.total_bytes;
                if !(fits_client && fits_total) {
                    c.held = Some(r);
                    self.budget.held_requests += u64::from(!again);
                    break;
                }
                self.request(cid, r);
                let after = self.conns.get(&cid).map_or(mine, Conn::queued);
                total = (total + after).saturating_sub(mine);
                self.budget.peak_bytes = self.budget.peak_bytes.max(total);
            }
        }
    }

    fn request(&mut self, cid: u64, r: Request) {
        if (r.kind as usize) < self.requests.len() {
            self.requests[r.kind as usize] += 1;
        }
        let cap = self.sess.capacity_bytes();
        let c = self.conns.get_mut(&cid).expect("a connection");
        let end = r.offset.checked_add(r.len as u64);
        let in_range = end.is_some_and(|e| e <= cap);
        let error = match r.kind {
            nbd::CMD_DISC => return,
            nbd::CMD_FLUSH => 0,
            nbd::CMD_READ if r.len > nbd::MAX_REQUEST_BYTES => nbd::EINVAL,
            nbd::CMD_READ | nbd::CMD_TRIM if !in_range => nbd::EINVAL,
            nbd::CMD_WRITE | nbd::CMD_WRITE_ZEROES if !in_range => nbd::ENOSPC,
            nbd::CMD_READ | nbd::CMD_WRITE | nbd::CMD_TRIM | nbd::CMD_WRITE_ZEROES => 0,
            _ => nbd::ENOTSUP,
        };
        if error == 0 && r.len == 0 && r.kind != nbd::CMD_FLUSH {
            c.proto.reply(r.cookie, 0, &[]); // nothing to do
            return;
        }
        if error != 0 {
            self.errors += 1;
            c.proto.reply(r.cookie, error, &[]);
            return;
        }
        // What the data store does now; what the model is asked to do.
        let stored = match r.kind {
            nbd::CMD_WRITE => self.store.write(r.offset, &r.data),
            nbd::CMD_TRIM | nbd::CMD_WRITE_ZEROES => self.store.zero(r.offset, r.len as u64),
            _ => Ok(()),
        };
        if let Err(e) = stored {
            eprintln!("ssdlab serve: storing request at {}: {e}", r.offset);
            self.errors += 1;
            c.proto.reply(r.cookie, nbd::EIO, &[]);
            return;
        }
        let (lo_out, hi_out) = (
            r.offset / 512 * 512,
            (r.offset + r.len as u64).div_ceil(512) * 512,
        );
        let (lo_in, hi_in) = (
            r.offset.div_ceil(512) * 512,
            (r.offset + r.len as u64) / 512 * 512,
        );
        let submitted: Option<Result<u64, String>> = match r.kind {
            nbd::CMD_FLUSH => Some(Ok(self.sess.submit_flush())),
            nbd::CMD_READ => Some(self.sess.submit(OpKind::Read, lo_out, hi_out - lo_out)),
            nbd::CMD_WRITE | nbd::CMD_WRITE_ZEROES
                if r.kind == nbd::CMD_WRITE || r.flags & nbd::CMD_FLAG_NO_HOLE != 0 =>
            {
                if r.flags & nbd::CMD_FLAG_FUA != 0 {
                    self.fua_writes += 1;
                    Some(self.sess.submit_fua_write(lo_out, hi_out - lo_out))
                } else {
                    Some(self.sess.submit(OpKind::Write, lo_out, hi_out - lo_out))
                }
            }
            _ if hi_in > lo_in => Some(self.sess.submit(OpKind::Trim, lo_in, hi_in - lo_in)),
            _ => None, // a trim of less than a sector: nothing for the drive to do
        };
        let id = match submitted {
            None => {
                c.proto.reply(r.cookie, 0, &[]);
                return;
            }
            Some(Ok(id)) => id,
            Some(Err(e)) => {
                eprintln!("ssdlab serve: {e}");
                self.errors += 1;
                c.proto.reply(r.cookie, nbd::EINVAL, &[]);
                return;
            }
        };
        let reply_bytes = reply_bytes(&r);
        c.outstanding += 1;
        c.reserved += reply_bytes;
        self.inflight.insert(
            id,
            InFlight {
                conn: cid,
                cookie: r.cookie,
                kind: r.kind,
                offset: r.offset,
                len: r.len,
                reply_bytes,
            },
        );
    }

    /// Send the reply of a request whose simulated completion is due.
    fn complete(&mut self, id: u64, due: Instant, now: Instant) {
        let late_ns = now.saturating_duration_since(due).as_nanos() as u64;
        self.late.replies += 1;
        self.late.sum_ns += late_ns as u128;
        self.late.worst_ns = self.late.worst_ns.max(late_ns);
        if late_ns > self.tolerance_ns {
            self.late.late += 1;
        }
        let Some(f) = self.inflight.remove(&id) else {
            return;
        };
        let Some(c) = self.conns.get_mut(&f.conn) else {
            return; // the client has gone
        };
        c.outstanding -= 1;
        c.reserved -= f.reply_bytes;
        if f.kind != nbd::CMD_READ {
            c.proto.reply(f.cookie, 0, &[]);
            return;
        }
        c.proto.reply_header(f.cookie);
        let start = c.proto.out.len();
        if f.len >= 1 << 16 {
            c.proto.out.reserve_exact(f.len as usize); // not doubled: the bound is on bytes
        }
        c.proto.out.resize(start + f.len as usize, 0);
        if let Err(e) = self.store.read(f.offset, &mut c.proto.out[start..]) {
            eprintln!("ssdlab serve: reading {} bytes at {}: {e}", f.len, f.offset);
            // Too late for an error reply: the header went out as success. Drop the client.
            c.dead = true;
        }
    }

    fn send(&mut self) {
        let now = Instant::now();
        for (cid, c) in self.conns.iter_mut() {
            let mut took = false;
            while !c.proto.pending().is_empty() && !c.dead {
                match c.stream.write(c.proto.pending()) {
                    Ok(0) => c.dead = true,
                    Ok(n) => {
                        c.proto.consumed(n);
                        took = true;
                    }
                    Err(e) if e.kind() == ErrorKind::WouldBlock => break,
                    Err(e) if e.kind() == ErrorKind::Interrupted => {}
                    Err(_) => c.dead = true,
                }
            }
            c.unread_since = match (c.proto.pending().is_empty() || took, c.unread_since) {
                (true, _) => None,
                (false, None) => Some(now),
                (false, since) => since,
            };
            if let (Some(since), Some(limit)) = (c.unread_since, self.client_timeout) {
                if !c.dead && now.duration_since(since) >= limit {
                    eprintln!(
                        "ssdlab serve: connection {cid}: {} reply bytes unread for {} s; \
                         closing it (--client-timeout {})",
                        c.queued(),
                        limit.as_secs(),
                        limit.as_secs()
                    );
                    self.timed_out += 1;
                    c.dead = true;
                }
            }
        }
        let inflight = &mut self.inflight;
        self.conns.retain(|cid, c| {
            let done = c.dead
                || (c.proto.closed()
                    && c.outstanding == 0
                    && c.held.is_none()
                    && c.proto.pending().is_empty());
            if done {
                inflight.retain(|_, f| f.conn != *cid);
            }
            !done
        });
    }

    fn receive(&mut self, cid: u64, buf: &mut [u8]) {
        let c = self.conns.get_mut(&cid).expect("a connection");
        // Bounded per wake-up so one busy client cannot hold the loop.
        for _ in 0..16 {
            if !c.wants_input() {
                return;
            }
            match c.stream.read(buf) {
                Ok(0) => {
                    c.dead = true;
                    return;
                }
                Ok(n) => c.proto.received(&buf[..n]),
                Err(e) if e.kind() == ErrorKind::WouldBlock => return,
                Err(e) if e.kind() == ErrorKind::Interrupted => {}
                Err(_) => {
                    c.dead = true;
                    return;
                }
            }
        }
    }

    fn summary(&mut self, wall: Duration) -> Value {
        let wall_s = wall.as_secs_f64();
        let names = [
            "read",
            "write",
            "disconnect",
            "flush",
            "trim",
            "cache",
            "write_zeroes",
        ];
        let mut counts = serde_json::Map::new();
        for (n, c) in names.iter().zip(self.requests) {
            counts.insert((*n).to_string(), json!(c));
        }
        let mut s = self.late.json(self.tolerance_ns);
        s["requests"] = Value::Object(counts);
        s["fua_writes"] = json!(self.fua_writes);
        s["error_replies"] = json!(self.errors);
        s["connections"] = json!(self.connections);
        s["time_scale"] = json!(self.clock.scale);
        s["wall_time_s"] = json!(wall_s);
        s["sim_time_ns"] = json!(self.sess.now_ns());
        s["replies_per_wall_s"] = json!(self.late.per_wall_s(wall_s));
        s["stored_bytes_in_memory"] = json!(self.store.memory_bytes());
        let b = &self.budget;
        s["reply_bytes_per_client"] = json!(b.client_bytes);
        s["reply_bytes_total"] = json!(b.total_bytes);
        s["queued_reply_bytes_peak"] = json!(b.peak_bytes);
        s["held_requests"] = json!(b.held_requests);
        s["max_clients"] = json!(self.max_clients);
        s["refused_connections"] = json!(self.refused);
        s["client_timeout_s"] = json!(self.client_timeout.map(|d| d.as_secs()));
        s["timed_out_clients"] = json!(self.timed_out);
        s["scheduling"] = json!(self.policy);
        s
    }

    /// The earliest time a client's unread replies reach `client_timeout`.
    fn next_timeout(&self) -> Option<Instant> {
        let limit = self.client_timeout?;
        self.conns
            .values()
            .filter_map(|c| c.unread_since)
            .min()
            .map(|t| t + limit)
    }

    /// A new connection: served, or closed at once when `max_clients` are connected.
    fn accept(&mut self, s: Stream) {
        if self.conns.len() >= self.max_clients as usize {
            drop(s); // closed before the greeting: the client sees the end of the stream
            self.refused += 1;
            self.refused_unlogged += 1;
            let now = Instant::now();
            if self
                .refused_logged_at
                .is_none_or(|t| now.duration_since(t) >= Duration::from_secs(1))
            {
                eprintln!(
                    "ssdlab serve: refused {} connection(s): {} clients connected, the most \
                     allowed (--max-clients {})",
                    self.refused_unlogged,
                    self.conns.len(),
                    self.max_clients
                );
                self.refused_unlogged = 0;
                self.refused_logged_at = Some(now);
            }
            return;
        }
        let id = self.next_conn;
        self.next_conn += 1;
        self.connections += 1;
        let proto = Proto::new(self.sess.capacity_bytes());
        self.conns.insert(
            id,
            Conn {
                stream: s,
                proto,
                outstanding: 0,
                reserved: 0,
                held: None,
                dead: false,
                unread_since: None,
            },
        );
    }

    fn status_line(&mut self, wall: Duration) -> String {
        let l = &self.late;
        format!(
            "ssdlab serve: {} replies timed, {} late ({:.3} % over {:.1} us), worst lateness {:.1} us, \
             {:.0} replies/s wall, simulated {:.3} s",
            l.replies,
            l.late,
            l.late_pct(),
            self.tolerance_ns as f64 / 1e3,
            l.worst_ns as f64 / 1e3,
            l.per_wall_s(wall.as_secs_f64()),
            self.sess.now_ns() as f64 / 1e9
        )
    }
}

/// Run the server until SIGINT or SIGTERM; returns `{"serve": lateness and counts,
/// "report": the drive's report}`.
pub fn serve(sess: AsyncSession, opts: &ServeOptions, what: &str) -> Result<Value, ServeError> {
    if !(opts.time_scale.is_finite() && opts.time_scale > 0.0) {
        return Err(ServeError::Usage(format!(
            "--time-scale {}: must be a number > 0 (10 = ten times slower than the drive)",
            opts.time_scale
        )));
    }
    if !(1..=MAX_CLIENTS_LIMIT).contains(&opts.max_clients) {
        return Err(ServeError::Usage(format!(
            "--max-clients {}: not allowed (a number from 1 to {MAX_CLIENTS_LIMIT})",
            opts.max_clients
        )));
    }
    if let Some(t) = opts.client_timeout {
        if t < Duration::from_secs(1) || t > Duration::from_secs(MAX_CLIENT_TIMEOUT_S) {
            return Err(ServeError::Usage(format!(
                "--client-timeout {} s: not allowed (whole seconds from 1 to {MAX_CLIENT_TIMEOUT_S}, or 0 for never)",
                t.as_secs_f64()
            )));
        }
    }
    for (name, v) in [
        ("--reply-bytes-per-client", opts.client_reply_bytes),
        ("--reply-bytes-total", opts.total_reply_bytes),
    ] {
        if v < 1 << 20 {
            return Err(ServeError::Usage(format!(
                "{name} {v}: too small (at least 1 MiB, 1048576 bytes)"
            )));
        }
    }
    let store = match &opts.backing {
        Some(p) => Store::file(p, sess.capacity_bytes()).map_err(ServeError::Usage)?,
        None => Store::memory(),
    };
    let (listener, uri) = bind(&opts.listen)?;
    let handlers = signals::Handlers::install();
    // Wake-ups within a microsecond of the asked time (restored on exit).
    // SAFETY: prctl with integer arguments on the calling thread.
    let old_slack = unsafe { libc::prctl(libc::PR_GET_TIMERSLACK, 0, 0, 0, 0) };
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, 1000u64, 0, 0, 0) };
    eprintln!(
        "ssdlab serve: {what} ({} bytes) on {uri}, time scale {}; Ctrl-C or SIGTERM stops, SIGUSR1 prints lateness",
        sess.capacity_bytes(),
        opts.time_scale
    );
    let wall0 = Instant::now();
    let sim0 = sess.now_ns();
    let mut srv = Server {
        sess,
        store,
        clock: Clock {
            wall0,
            sim0,
            scale: opts.time_scale,
        },
        conns: HashMap::new(),
        next_conn: 0,
        inflight: HashMap::new(),
        late: Lateness::default(),
        tolerance_ns: opts.late_tolerance_ns,
        requests: [0; 7],
        fua_writes: 0,
        errors: 0,
        connections: 0,
        budget: ReplyBudget {
            client_bytes: opts.client_reply_bytes,
            total_bytes: opts.total_reply_bytes,
            ..ReplyBudget::default()
        },
        max_clients: opts.max_clients,
        client_timeout: opts.client_timeout,
        refused: 0,
        refused_unlogged: 0,
        refused_logged_at: None,
        timed_out: 0,
        policy: "normal",
    };
    let old_policy = if opts.realtime {
        match realtime::enter() {
            Ok(old) => {
                srv.policy = "fifo";
                Some(old)
            }
            Err(e) => {
                eprintln!(
                    "ssdlab serve: --realtime: SCHED_FIFO not permitted ({e}); serving at normal priority (needs CAP_SYS_NICE or an RLIMIT_RTPRIO of 1 or more)"
                );
                None
            }
        }
    } else {
        None
    };
    let result = run_loop(&mut srv, &listener, &handlers);
    if let Some(old) = old_policy {
        realtime::leave(old);
    }
    if old_slack > 0 {
        unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, old_slack as u64, 0, 0, 0) };
    }
    drop(handlers);
    drop(listener);
    result?;
    let wall = wall0.elapsed();
    eprintln!("{}", srv.status_line(wall));
    let serve = srv.summary(wall);
    let report = srv.sess.report(wall.as_secs_f64());
    Ok(json!({ "serve": serve, "report": report }))
}

fn run_loop(
    srv: &mut Server,
    listener: &Listener,
    h: &signals::Handlers,
) -> Result<(), ServeError> {
    let mut buf = vec![0u8; 256 << 10];
    let mut fds: Vec<libc::pollfd> = Vec::new();
    let mut order: Vec<u64> = Vec::new();
    let mut spin = SpinMargin::new();
    while !h.stop_requested() {
        if h.take_status_request() {
            eprintln!("{}", srv.status_line(srv.clock.wall0.elapsed()));
        }
        let now = Instant::now();
        let done = srv
            .sess
            .advance(srv.clock.sim_at(now))
            .map_err(ServeError::Model)?;
        for c in done {
            let due = srv.clock.wall_of(c.done_ns);
            srv.complete(c.id, due, now);
        }
        // Send first: what drains makes room for requests held back.
        srv.send();
        srv.take_requests();
        srv.send();
        let timeout = if srv.sess.has_completions() {
            Some(Duration::ZERO)
        } else {
            srv.sess.next_event_ns().map(|t| {
                let left = srv
                    .clock
                    .wall_of(t)
                    .saturating_duration_since(Instant::now());
                left.saturating_sub(Duration::from_nanos(spin.margin_ns))
            })
        };
        fds.clear();
        order.clear();
        fds.push(libc::pollfd {
            fd: listener.fd(),
            events: libc::POLLIN,
            revents: 0,
        });
        for (id, c) in &srv.conns {
            // A client held back is not read (back-pressure), only written to.
            let mut events = if c.wants_input() { libc::POLLIN } else { 0 };
            if !c.proto.pending().is_empty() {
                events |= libc::POLLOUT;
            }
            fds.push(libc::pollfd {
                fd: c.stream.fd(),
                events,
                revents: 0,
            });
            order.push(*id);
        }
        // Wake up for the first client timeout, too.
        let timeout = match (timeout, srv.next_timeout()) {
            (t, None) => t,
            (None, Some(at)) => Some(at.saturating_duration_since(Instant::now())),
            (Some(t), Some(at)) => Some(t.min(at.saturating_duration_since(Instant::now()))),
        };
        let asked = timeout.filter(|t| !t.is_zero()).map(|t| Instant::now() + t);
        if wait(&mut fds, timeout, h.wait_mask()) == 0 {
            if let Some(a) = asked {
                spin.record(Instant::now().saturating_duration_since(a).as_nanos() as u64);
            }
        }
        if fds[0].revents & libc::POLLIN != 0 {
            while let Some(s) = listener.accept() {
                srv.accept(s);
            }
        }
        for (i, id) in order.iter().enumerate() {
            let r = fds[i + 1].revents;
            if r & (libc::POLLHUP | libc::POLLERR) != 0 && !srv.conns[id].wants_input() {
                // Gone while held back: nothing it asked for can reach it.
                srv.conns.get_mut(id).expect("a connection").dead = true;
            } else if r & (libc::POLLIN | libc::POLLHUP | libc::POLLERR) != 0 {
                srv.receive(*id, &mut buf);
            }
        }
    }
    Ok(())
}
