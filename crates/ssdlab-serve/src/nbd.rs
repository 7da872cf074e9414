//! The NBD protocol, server side, as bytes in and bytes out (no sockets here):
//! the fixed newstyle handshake (NBD_OPT_EXPORT_NAME, NBD_OPT_INFO, NBD_OPT_GO,
//! NBD_OPT_LIST, NBD_OPT_ABORT; every other option is answered NBD_REP_ERR_UNSUP) and
//! simple replies in transmission. Follows the public protocol description
//! (github.com/NetworkBlockDevice/nbd, doc/proto.md). Simplified: one export of any
//! name; no TLS, structured replies, block status or extended headers.

pub const NBDMAGIC: u64 = 0x4e42_444d_4147_4943;
pub const IHAVEOPT: u64 = 0x4948_4156_454F_5054;
const OPT_REPLY_MAGIC: u64 = 0x0003_e889_0455_65a9;
const REQUEST_MAGIC: u32 = 0x2560_9513;
const SIMPLE_REPLY_MAGIC: u32 = 0x6744_6698;

const FLAG_FIXED_NEWSTYLE: u16 = 1;
const FLAG_NO_ZEROES: u16 = 2;
const FLAG_C_NO_ZEROES: u32 = 2;
/// Buffers larger than this are freed, not kept, once empty.
const SPARE_BYTES: usize = 1 << 20;

pub const OPT_EXPORT_NAME: u32 = 1;
pub const OPT_ABORT: u32 = 2;
pub const OPT_LIST: u32 = 3;
pub const OPT_INFO: u32 = 6;
pub const OPT_GO: u32 = 7;

const REP_ACK: u32 = 1;
const REP_SERVER: u32 = 2;
const REP_INFO: u32 = 3;
const REP_ERR_UNSUP: u32 = 0x8000_0001;
const REP_ERR_INVALID: u32 = 0x8000_0003;

const INFO_EXPORT: u16 = 0;
const INFO_BLOCK_SIZE: u16 = 3;

// Transmission flags: has flags, flush, FUA, trim, write zeroes, multi-connection safe.
const TRANSMISSION_FLAGS: u16 = 1 | (1 << 2) | (1 << 3) | (1 << 5) | (1 << 6) | (1 << 8);

pub const CMD_READ: u16 = 0;
pub const CMD_WRITE: u16 = 1;
pub const CMD_DISC: u16 = 2;
pub const CMD_FLUSH: u16 = 3;
pub const CMD_TRIM: u16 = 4;
pub const CMD_WRITE_ZEROES: u16 = 6;
/// Force Unit Access: reply once the data is on stable storage.
pub const CMD_FLAG_FUA: u16 = 1;
/// Write zeroes: the client wants the range allocated, not a hole.
pub const CMD_FLAG_NO_HOLE: u16 = 1 << 1;

pub const EIO: u32 = 5;
pub const EINVAL: u32 = 22;
pub const ENOSPC: u32 = 28;
pub const ENOTSUP: u32 = 95;

/// The largest write payload or read length accepted (what common servers allow).
pub const MAX_REQUEST_BYTES: u32 = 32 << 20;
const MAX_OPTION_BYTES: u32 = 64 << 10;
/// Options are not handled while more than this many bytes of option replies wait to
/// be sent: a client that sends options and never reads the replies is not read.
pub const MAX_OPTION_REPLY_BYTES: usize = 1 << 20;
/// A request header.
pub const REQUEST_HEADER_BYTES: usize = 28;
/// A simple reply header.
pub const REPLY_HEADER_BYTES: u64 = 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    ClientFlags,
    Options,
    Transmission,
    Closed,
}

/// One request in transmission (`data`: a write's payload).
#[derive(Debug)]
pub struct Request {
    pub cookie: u64,
    pub flags: u16,
    pub kind: u16,
    pub offset: u64,
    pub len: u32,
    pub data: Vec<u8>,
}

/// One connection's protocol state: bytes received and not yet parsed, bytes to send.
pub struct Proto {
    inbuf: Vec<u8>,
    pos: usize,
    /// Replies queued; `out[sent..]` are still to be sent.
    pub out: Vec<u8>,
    sent: usize,
    phase: Phase,
    no_zeroes: bool,
    export_bytes: u64,
}

fn be_u16(b: &[u8]) -> u16 {
    u16::from_be_bytes([b[0], b[1]])
}
fn be_u32(b: &[u8]) -> u32 {
    u32::from_be_bytes(b[..4].try_into().expect("4 bytes"))
}
fn be_u64(b: &[u8]) -> u64 {
    u64::from_be_bytes(b[..8].try_into().expect("8 bytes"))
}

impl Proto {
    /// A new connection: the server's greeting is queued in `out`.
    pub fn new(export_bytes: u64) -> Proto {
        let mut out = Vec::with_capacity(18);
        out.extend_from_slice(&NBDMAGIC.to_be_bytes());
        out.extend_from_slice(&IHAVEOPT.to_be_bytes());
        out.extend_from_slice(&(FLAG_FIXED_NEWSTYLE | FLAG_NO_ZEROES).to_be_bytes());
        Proto {
            inbuf: Vec::new(),
            pos: 0,
            out,
            sent: 0,
            phase: Phase::ClientFlags,
            no_zeroes: false,
            export_bytes,
        }
    }

    pub fn received(&mut self, bytes: &[u8]) {
        // Parsed bytes are dropped once they are at least half the buffer, so a client
        // that always has a partial request in flight does not grow it without end.
        if self.pos > 0 && self.pos >= self.inbuf.len() - self.pos {
            self.inbuf.drain(..self.pos);
            self.pos = 0;
            if self.inbuf.is_empty() && self.inbuf.capacity() > SPARE_BYTES {
                self.inbuf = Vec::new();
            }
        }
        self.inbuf.extend_from_slice(bytes);
    }

    /// Bytes received and not yet parsed.
    pub fn buffered_input(&self) -> usize {
        self.inbuf.len() - self.pos
    }

    /// Replies queued and not yet sent.
    pub fn pending(&self) -> &[u8] {
        &self.out[self.sent..]
    }

    /// `n` bytes of `pending()` were sent.
    pub fn consumed(&mut self, n: usize) {
        self.sent += n;
        if self.sent == self.out.len() {
            self.out.clear();
            self.sent = 0;
            if self.out.capacity() > SPARE_BYTES {
                self.out = Vec::new(); // a burst's buffer is not kept for ever
            }
        } else if self.sent >= self.out.len() - self.sent {
            // Sent bytes go once they are half the buffer: a client that reads slowly
            // but never lets it empty does not keep every byte it was sent.
            self.out.drain(..self.sent);
            self.sent = 0;
        }
    }

    /// Should more bytes be read from the client? Not once it is closed, nor while
    /// option replies pile up unread (`MAX_OPTION_REPLY_BYTES`).
    pub fn wants_input(&self) -> bool {
        match self.phase {
            Phase::Closed => false,
            Phase::ClientFlags | Phase::Options => self.pending().len() <= MAX_OPTION_REPLY_BYTES,
            Phase::Transmission => true,
        }
    }

    /// The client asked to end, or broke the protocol: send what is queued and close.
    pub fn closed(&self) -> bool {
        self.phase == Phase::Closed
    }

    #[cfg(test)]
    pub fn in_transmission(&self) -> bool {
        self.phase == Phase::Transmission
    }

    fn avail(&self) -> &[u8] {
        &self.inbuf[self.pos..]
    }

    /// Handle handshake messages and return the next complete request, if any.
    /// `Err` is a protocol violation (the connection should be closed).
    pub fn next_request(&mut self) -> Result<Option<Request>, String> {
        loop {
            match self.phase {
                Phase::Closed => return Ok(None),
                Phase::ClientFlags => {
                    if self.avail().len() < 4 {
                        return Ok(None);
                    }
                    let flags = be_u32(self.avail());
                    self.pos += 4;
                    if flags & !3 != 0 {
                        self.phase = Phase::Closed;
                        return Err(format!("unknown client flags {flags:#x}"));
                    }
                    self.no_zeroes = flags & FLAG_C_NO_ZEROES != 0;
                    self.phase = Phase::Options;
                }
                Phase::Options => {
                    if self.pending().len() > MAX_OPTION_REPLY_BYTES {
                        return Ok(None); // until the client reads its replies
                    }
                    let a = self.avail();
                    if a.len() < 16 {
                        return Ok(None);
                    }
                    if be_u64(a) != IHAVEOPT {
                        self.phase = Phase::Closed;
                        return Err("bad option magic".into());
                    }
                    let (opt, len) = (be_u32(&a[8..]), be_u32(&a[12..]));
                    if len > MAX_OPTION_BYTES {
                        self.phase = Phase::Closed;
                        return Err(format!("option {opt} of {len} bytes is too long"));
                    }
                    if a.len() < 16 + len as usize {
                        return Ok(None);
                    }
                    let data = a[16..16 + len as usize].to_vec();
                    self.pos += 16 + len as usize;
                    self.option(opt, &data);
                }
                Phase::Transmission => {
                    let a = self.avail();
                    if a.len() < REQUEST_HEADER_BYTES {
                        return Ok(None);
                    }
                    if be_u32(a) != REQUEST_MAGIC {
                        self.phase = Phase::Closed;
                        return Err("bad request magic".into());
                    }
                    let flags = be_u16(&a[4..]);
                    let kind = be_u16(&a[6..]);
                    let cookie = be_u64(&a[8..]);
                    let offset = be_u64(&a[16..]);
                    let len = be_u32(&a[24..]);
                    let payload = if kind == CMD_WRITE { len as usize } else { 0 };
                    if kind == CMD_WRITE && len > MAX_REQUEST_BYTES {
                        self.phase = Phase::Closed;
                        return Err(format!("write of {len} bytes is over {MAX_REQUEST_BYTES}"));
                    }
                    if a.len() < REQUEST_HEADER_BYTES + payload {
                        return Ok(None);
                    }
                    let data = a[REQUEST_HEADER_BYTES..REQUEST_HEADER_BYTES + payload].to_vec();
                    self.pos += REQUEST_HEADER_BYTES + payload;
                    if kind == CMD_DISC {
                        self.phase = Phase::Closed;
                    }
                    return Ok(Some(Request {
                        cookie,
                        flags,
                        kind,
                        offset,
                        len,
                        data,
                    }));
                }
            }
        }
    }

    fn option_reply(&mut self, opt: u32, kind: u32, data: &[u8]) {
        self.out.extend_from_slice(&OPT_REPLY_MAGIC.to_be_bytes());
        self.out.extend_from_slice(&opt.to_be_bytes());
        self.out.extend_from_slice(&kind.to_be_bytes());
        self.out
            .extend_from_slice(&(data.len() as u32).to_be_bytes());
        self.out.extend_from_slice(data);
    }

    fn option(&mut self, opt: u32, data: &[u8]) {
        match opt {
            OPT_EXPORT_NAME => {
                self.out.extend_from_slice(&self.export_bytes.to_be_bytes());
                self.out
                    .extend_from_slice(&TRANSMISSION_FLAGS.to_be_bytes());
                if !self.no_zeroes {
                    self.out.extend_from_slice(&[0u8; 124]);
                }
                self.phase = Phase::Transmission;
            }
            OPT_ABORT => {
                self.option_reply(opt, REP_ACK, &[]);
                self.phase = Phase::Closed;
            }
            OPT_LIST => {
                if data.is_empty() {
                    self.option_reply(opt, REP_SERVER, &0u32.to_be_bytes());
                    self.option_reply(opt, REP_ACK, &[]);
                } else {
                    self.option_reply(opt, REP_ERR_INVALID, b"NBD_OPT_LIST takes no data");
                }
            }
            OPT_INFO | OPT_GO => {
                // name length, name, number of info requests, the requests.
                let ok = data.len() >= 6 && {
                    let n = be_u32(data) as usize;
                    data.len() >= 6 + n && {
                        let k = be_u16(&data[4 + n..]) as usize;
                        data.len() == 6 + n + 2 * k
                    }
                };
                if !ok {
                    self.option_reply(opt, REP_ERR_INVALID, b"malformed NBD_OPT_INFO/GO");
                    return;
                }
                let n = be_u32(data) as usize;
                let k = be_u16(&data[4 + n..]) as usize;
                let wants_sizes = (0..k).any(|i| be_u16(&data[6 + n + 2 * i..]) == INFO_BLOCK_SIZE);
                let mut info = Vec::with_capacity(12);
                info.extend_from_slice(&INFO_EXPORT.to_be_bytes());
                info.extend_from_slice(&self.export_bytes.to_be_bytes());
                info.extend_from_slice(&TRANSMISSION_FLAGS.to_be_bytes());
                self.option_reply(opt, REP_INFO, &info);
                if wants_sizes {
                    let mut b = Vec::with_capacity(14);
                    b.extend_from_slice(&INFO_BLOCK_SIZE.to_be_bytes());
                    b.extend_from_slice(&512u32.to_be_bytes());
                    b.extend_from_slice(&4096u32.to_be_bytes());
                    b.extend_from_slice(&MAX_REQUEST_BYTES.to_be_bytes());
                    self.option_reply(opt, REP_INFO, &b);
                }
                self.option_reply(opt, REP_ACK, &[]);
                if opt == OPT_GO {
                    self.phase = Phase::Transmission;
                }
            }
            _ => self.option_reply(opt, REP_ERR_UNSUP, b"not supported by ssdlab serve"),
        }
    }

    /// Queue a simple reply (`data` only for a successful read).
    pub fn reply(&mut self, cookie: u64, error: u32, data: &[u8]) {
        self.out
            .extend_from_slice(&SIMPLE_REPLY_MAGIC.to_be_bytes());
        self.out.extend_from_slice(&error.to_be_bytes());
        self.out.extend_from_slice(&cookie.to_be_bytes());
        if error == 0 {
            self.out.extend_from_slice(data);
        }
    }

    /// Start of a read reply whose `len` data bytes the caller appends to `out`.
    pub fn reply_header(&mut self, cookie: u64) {
        self.reply(cookie, 0, &[]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn option(opt: u32, data: &[u8]) -> Vec<u8> {
        let mut v = IHAVEOPT.to_be_bytes().to_vec();
        v.extend_from_slice(&opt.to_be_bytes());
        v.extend_from_slice(&(data.len() as u32).to_be_bytes());
        v.extend_from_slice(data);
        v
    }

    fn request(kind: u16, cookie: u64, offset: u64, len: u32) -> Vec<u8> {
        let mut v = REQUEST_MAGIC.to_be_bytes().to_vec();
        v.extend_from_slice(&0u16.to_be_bytes());
        v.extend_from_slice(&kind.to_be_bytes());
        v.extend_from_slice(&cookie.to_be_bytes());
        v.extend_from_slice(&offset.to_be_bytes());
        v.extend_from_slice(&len.to_be_bytes());
        v
    }

    #[test]
    fn go_handshake_then_requests_arrive_byte_by_byte() {
        let mut p = Proto::new(1 << 30);
        assert_eq!(be_u64(&p.out), NBDMAGIC);
        assert_eq!(be_u64(&p.out[8..]), IHAVEOPT);
        p.out.clear();
        let mut bytes = 3u32.to_be_bytes().to_vec();
        // GO with name "x" and one info request (block size).
        let mut go = 1u32.to_be_bytes().to_vec();
        go.push(b'x');
        go.extend_from_slice(&1u16.to_be_bytes());
        go.extend_from_slice(&INFO_BLOCK_SIZE.to_be_bytes());
        bytes.extend(option(OPT_GO, &go));
        let mut w = request(CMD_WRITE, 7, 4096, 3);
        w.extend_from_slice(b"abc");
        bytes.extend(&w);
        bytes.extend(request(CMD_READ, 8, 0, 512));
        let mut got = Vec::new();
        for b in bytes {
            p.received(&[b]);
            while let Some(r) = p.next_request().unwrap() {
                got.push(r);
            }
        }
        assert!(p.in_transmission());
        // Replies: INFO export, INFO block size, ACK.
        assert_eq!(be_u64(&p.out), OPT_REPLY_MAGIC);
        assert_eq!(be_u32(&p.out[12..]), REP_INFO);
        assert_eq!(be_u64(&p.out[22..]), 1 << 30);
        assert_eq!(be_u32(&p.out[32 + 12..]), REP_INFO);
        assert_eq!(be_u32(&p.out[32 + 34 + 12..]), REP_ACK);
        assert_eq!(p.out.len(), 32 + 34 + 20);
        assert_eq!(got.len(), 2);
        assert_eq!(
            (got[0].kind, got[0].cookie, got[0].offset),
            (CMD_WRITE, 7, 4096)
        );
        assert_eq!(got[0].data, b"abc");
        assert_eq!((got[1].kind, got[1].cookie, got[1].len), (CMD_READ, 8, 512));
    }

    #[test]
    fn export_name_without_no_zeroes_pads_and_unknown_options_are_refused() {
        let mut p = Proto::new(4096);
        p.out.clear();
        p.received(&1u32.to_be_bytes()); // fixed newstyle, zeroes wanted
        p.received(&option(8, &[])); // structured replies: not supported
        p.received(&option(OPT_EXPORT_NAME, b""));
        assert!(p.next_request().unwrap().is_none());
        assert_eq!(be_u32(&p.out[12..]), REP_ERR_UNSUP);
        let rest = &p.out[20 + be_u32(&p.out[16..]) as usize..];
        assert_eq!(rest.len(), 8 + 2 + 124);
        assert_eq!(be_u64(rest), 4096);
        assert!(p.in_transmission());
    }

    #[test]
    fn unread_option_replies_stop_the_options_and_buffers_do_not_keep_what_was_sent() {
        let mut p = Proto::new(4096);
        p.received(&2u32.to_be_bytes());
        let flood: Vec<u8> = (0..100_000).flat_map(|_| option(OPT_LIST, &[])).collect();
        p.received(&flood);
        assert!(p.next_request().unwrap().is_none());
        // Stopped just past the bound, with most options left unread.
        let pending = p.pending().len();
        assert!(pending > MAX_OPTION_REPLY_BYTES && pending < MAX_OPTION_REPLY_BYTES + 64);
        assert!(!p.wants_input());
        assert!(p.buffered_input() > 16 * 50_000);
        // The client reads its replies: options are handled again.
        p.consumed(pending);
        assert!(p.wants_input() && p.pending().is_empty());
        assert!(p.next_request().unwrap().is_none());
        assert!(p.pending().len() > MAX_OPTION_REPLY_BYTES);
        // Half of what is queued sent: the sent half is dropped from the buffer.
        let before = p.out.len();
        p.consumed(before / 2 + 1);
        assert_eq!(p.out.len(), before - (before / 2 + 1));
        // A stream that always ends in a partial request keeps only what is unparsed.
        let mut p = Proto::new(4096);
        p.received(&2u32.to_be_bytes());
        p.received(&option(OPT_EXPORT_NAME, b""));
        let req = request(CMD_READ, 1, 0, 512);
        p.received(&req[..20]);
        let chunk: Vec<u8> = req[20..].iter().chain(&req[..20]).copied().collect();
        for _ in 0..10_000 {
            p.received(&chunk); // the end of one request and the start of the next
            assert!(p.next_request().unwrap().is_some());
            assert!(p.next_request().unwrap().is_none());
        }
        assert!(p.inbuf.len() < 1000, "{}", p.inbuf.len());
    }

    #[test]
    fn a_bad_magic_closes_and_disconnect_ends() {
        let mut p = Proto::new(4096);
        p.received(&2u32.to_be_bytes());
        p.received(&[0u8; 16]);
        assert!(p.next_request().is_err());
        assert!(p.closed());
        let mut p = Proto::new(4096);
        p.received(&2u32.to_be_bytes());
        p.received(&option(OPT_EXPORT_NAME, b""));
        p.received(&request(CMD_DISC, 1, 0, 0));
        let r = p.next_request().unwrap().unwrap();
        assert_eq!(r.kind, CMD_DISC);
        assert!(p.closed());
    }
}
