//! Block traces: streaming readers for the common formats, per-trace statistics,
//! and the request source that replays a trace through the host interface.
//!
//! Formats (one request per line, read one line at a time, so memory does not grow
//! with the trace): MSR Cambridge / SNIA IOTTA CSV (`Timestamp,Hostname,Disk,Type,
//! Offset,Size,ResponseTime`, timestamps in 100 ns Windows ticks), blkparse text
//! (`maj,min cpu seq time pid action rwbs sector + count [proc]`, `Q` events), fio
//! iolog v2 and v3, MQSim and SSDSim ASCII (`time_ns device sector size_sectors
//! type`, type 1 = read and 0 = write in both, as the traces' own read/write counts
//! confirm), CloudPhysics CSV as distributed with libCacheSim (`version,time,op,
//! size,lbn`: whole seconds, SCSI opcode in hex, bytes, 512 B blocks; the sample's
//! times span exactly 7,200 units, its two hours, so the unit is the second and
//! in timed replay the requests of one second arrive together), and ssdlab's own CSV
//! (`time_ns,op,offset_bytes,length_bytes`, op R/W/T, `#` comments).
//! Zoned commands (`TraceCmd`, replayed on a zoned drive only): ssdlab's CSV ops `ZR`,
//! `ZF`, `ZO`, `ZC` (Zone Management Send) and `ZA` (Zone Append), and blkparse's
//! RWBS `ZR`, `ZRA`, `ZF`, `ZO`, `ZC`, `ZA` (Linux 6.17 on; older kernels print zone
//! management as `N`, which is skipped). fio's iolog has no zone actions. FDP placement
//! IDs: the CSV's optional fifth column on a write, and its `RU` op, a Reclaim Unit
//! Handle Update of that column's placement ID (replayed on a drive with `[fdp]`).
//! Simplifies: blkparse lines other than queue (`Q`) events, iolog actions other
//! than read/write/trim/wait, and SCSI opcodes other than READ/WRITE/UNMAP are
//! skipped as not being requests.

pub mod replay;
mod stats;

pub use stats::{scan, TraceStats};

use crate::workload::OpKind;
use serde::{Deserialize, Serialize};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TraceFormat {
    Msr,
    Blkparse,
    FioIolog,
    Mqsim,
    Ssdsim,
    Cloudphysics,
    Csv,
}

pub const FORMATS_ALLOWED: &str = "msr, blkparse, fio-iolog, mqsim, ssdsim, cloudphysics, csv";

impl TraceFormat {
    pub fn parse(s: &str) -> Result<TraceFormat, String> {
        Ok(match s {
            "msr" | "snia" => TraceFormat::Msr,
            "blkparse" => TraceFormat::Blkparse,
            "fio-iolog" | "iolog" => TraceFormat::FioIolog,
            "mqsim" => TraceFormat::Mqsim,
            "ssdsim" => TraceFormat::Ssdsim,
            "cloudphysics" => TraceFormat::Cloudphysics,
            "csv" => TraceFormat::Csv,
            _ => {
                return Err(format!(
                    "trace format '{s}' is not known (allowed: {FORMATS_ALLOWED})"
                ))
            }
        })
    }
}

/// One request of a trace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record {
    pub time_ns: u64,
    pub kind: OpKind,
    pub offset: u64,
    pub len: u64,
    /// A command instead of a plain read, write or trim (zoned, or FDP's I/O Management).
    pub cmd: Option<TraceCmd>,
    /// The write's placement ID (FDP data placement directive DSPEC; csv's fifth
    /// column), replayed on a drive with `[fdp]` only.
    pub placement: Option<u32>,
}

/// A command a trace line carries besides plain I/O: zoned commands (replayed on a
/// zoned drive only) and FDP's Reclaim Unit Handle Update (on a drive with `[fdp]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceCmd {
    /// Zone Management Send of the zone holding the record's offset (csv `ZR`, `ZF`,
    /// `ZO`, `ZC`; blkparse RWBS `ZR`, `ZF`, `ZO`, `ZC`); `kind` is Trim and unused.
    Send(crate::zns::ZoneAction),
    /// Zone Management Send with Select All, reset (blkparse `ZRA`: every zone).
    ResetAll,
    /// Zone Append of the record's length to the zone holding its offset (blkparse
    /// `ZA`); `kind` is Write.
    Append,
    /// I/O Management Send, Reclaim Unit Handle Update of the record's placement ID
    /// (csv `RU`); `kind` is Trim and unused.
    RuhUpdate,
}

/// ssdlab's csv op column: the request's kind and the command it is, if any (None:
/// not an op the format has).
fn csv_op(op: &str) -> Option<(OpKind, Option<TraceCmd>)> {
    use crate::zns::ZoneAction;
    let send = |a| (OpKind::Trim, Some(TraceCmd::Send(a)));
    Some(match op {
        "R" | "r" | "read" => (OpKind::Read, None),
        "W" | "w" | "write" => (OpKind::Write, None),
        "T" | "t" | "trim" => (OpKind::Trim, None),
        "ZR" | "zr" | "zone_reset" => send(ZoneAction::Reset),
        "ZF" | "zf" | "zone_finish" => send(ZoneAction::Finish),
        "ZO" | "zo" | "zone_open" => send(ZoneAction::Open),
        "ZC" | "zc" | "zone_close" => send(ZoneAction::Close),
        "ZA" | "za" | "zone_append" => (OpKind::Write, Some(TraceCmd::Append)),
        "RU" | "ru" | "ruh_update" => (OpKind::Trim, Some(TraceCmd::RuhUpdate)),
        _ => return None,
    })
}

/// A blkparse RWBS field as Linux's `blk_fill_rwbs` writes it: an optional `F`
/// (preflush), the operation (`R`, `W`, `D` discard, `DE` secure erase, `WZ` write
/// zeroes, `N` none, `F` flush; since Linux 6.17 the zoned operations `ZA` append,
/// `ZR` reset, `ZRA` reset all, `ZF` finish, `ZO` open, `ZC` close), then flags (`F`
/// FUA, `A` readahead, `S` sync, `M` metadata, ...). `None`: no data and no zoned
/// command (flushes, barriers).
fn blkparse_op(rwbs: &str) -> Option<(OpKind, Option<TraceCmd>)> {
    use crate::zns::ZoneAction;
    let op = match rwbs.strip_prefix('F') {
        Some(rest) if rest.starts_with(['Z', 'R', 'W', 'D', 'N']) => rest,
        _ => rwbs,
    };
    if let Some(z) = op.strip_prefix('Z') {
        let cmd = if z.starts_with("RA") {
            TraceCmd::ResetAll
        } else {
            match z.chars().next()? {
                'A' => return Some((OpKind::Write, Some(TraceCmd::Append))),
                'R' => TraceCmd::Send(ZoneAction::Reset),
                'F' => TraceCmd::Send(ZoneAction::Finish),
                'O' => TraceCmd::Send(ZoneAction::Open),
                'C' => TraceCmd::Send(ZoneAction::Close),
                _ => return None,
            }
        };
        return Some((OpKind::Trim, Some(cmd)));
    }
    let kind = if op.contains('D') {
        OpKind::Trim
    } else if op.contains('W') {
        OpKind::Write
    } else if op.contains('R') {
        OpKind::Read
    } else {
        return None; // flushes and barriers carry no data
    };
    Some((kind, None))
}

/// A malformed line: where, what, and what was expected.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    pub message: String,
}

impl std::fmt::Display for TraceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// A streaming reader of one trace file.
pub struct TraceReader {
    path: String,
    lines: Box<dyn BufRead + Send + Sync>,
    pub format: TraceFormat,
    pub line_no: u64,
    buf: String,
    skip_budget: u64,
    pub skipped: u64,
    /// fio iolog v2: time is the sum of `wait` actions.
    clock_ns: u64,
    iolog_v3: bool,
    /// fio iolog: the header line was read (it must come first).
    iolog_header: bool,
    /// The error just returned may not be skipped (a wrong or missing iolog header:
    /// every line after it would be read wrongly).
    fatal: bool,
    /// Device (disk) number of the last record, for formats that carry one.
    pub last_device: Option<u64>,
    /// Keep only the requests of this device (MSR DiskNumber, MQSim/SSDSim device).
    device_filter: Option<u64>,
}

/// The fio iolog headers read (fio's `iolog_ver2` and its version 3), exactly.
const IOLOG_V2: &str = "fio version 2 iolog";
const IOLOG_V3: &str = "fio version 3 iolog";

fn bad(path: &str, line: u64, text: &str, expected: &str) -> TraceError {
    let t: String = text.trim_end().chars().take(120).collect();
    TraceError {
        message: format!("{path}:{line}: '{t}': expected {expected}"),
    }
}

/// The longest line a trace may have: a longer one is a bad line (read no further
/// than this, so a file without newlines, such as `/dev/zero`, cannot fill memory).
pub const MAX_LINE_BYTES: usize = 64 << 10;

/// One line into `buf` (reading no more than `MAX_LINE_BYTES` of it): the bytes
/// read (0 at the end) and an error message for a line that is too long or not UTF-8.
/// A line that is too long ends the reading: its rest is not read (it may never end).
fn read_line_bounded(
    r: &mut dyn BufRead,
    buf: &mut String,
) -> std::io::Result<(usize, Option<String>)> {
    let mut bytes = Vec::new();
    let n = Read::take(&mut *r, MAX_LINE_BYTES as u64 + 1).read_until(b'\n', &mut bytes)?;
    if bytes.len() > MAX_LINE_BYTES {
        return Ok((
            n,
            Some(format!("a line longer than {} KiB", MAX_LINE_BYTES >> 10)),
        ));
    }
    match String::from_utf8(bytes) {
        Ok(t) => {
            buf.push_str(&t);
            Ok((n, None))
        }
        Err(_) => Ok((n, Some("a line that is not UTF-8 text".into()))),
    }
}

/// Open a trace file, refusing what cannot be one before opening it: a directory, and
/// a named pipe or socket, whose `open` blocks until a writer comes (an audit's
/// `ssdlab trace FIFO` and fio `read_iolog=FIFO` waited forever, issue 31) and which
/// could not be read twice anyway (once for the statistics, once for the replay).
fn open_trace_file(path: &str) -> Result<File, TraceError> {
    let err = |why: String| TraceError {
        message: format!("{path}: cannot open trace: {why}"),
    };
    let meta = std::fs::metadata(path).map_err(|e| err(e.to_string()))?;
    if meta.is_dir() {
        return Err(err("it is a directory".into()));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let ft = meta.file_type();
        if ft.is_fifo() || ft.is_socket() {
            let what = if ft.is_fifo() {
                "a named pipe"
            } else {
                "a socket"
            };
            return Err(err(format!(
                "it is {what}; a trace is read twice (its statistics, then the replay), so give a regular file (decompress it to one first)"
            )));
        }
    }
    File::open(path).map_err(|e| err(e.to_string()))
}

/// Guess a trace's format from its first lines.
pub fn detect(path: &str) -> Result<TraceFormat, TraceError> {
    let f = open_trace_file(path)?;
    detect_in(path, &mut BufReader::new(f))
}

/// `detect` on any reader; `path` names it in errors.
pub fn detect_in(path: &str, r: &mut dyn BufRead) -> Result<TraceFormat, TraceError> {
    let mut line = String::new();
    for _ in 0..20 {
        line.clear();
        match read_line_bounded(r, &mut line) {
            Ok((0, _)) => break,
            Ok((_, None)) => {}
            Ok((_, Some(m))) => {
                return Err(TraceError {
                    message: format!("{path}: not a text trace: {m}"),
                })
            }
            Err(e) => {
                return Err(TraceError {
                    message: format!("{path}: not a text trace: {e}"),
                })
            }
        }
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            continue;
        }
        if l.starts_with("fio version") {
            return Ok(TraceFormat::FioIolog);
        }
        if l.starts_with("version,time,op") {
            return Ok(TraceFormat::Cloudphysics);
        }
        let csv: Vec<&str> = l.split(',').collect();
        if csv.len() >= 6 && (csv[3] == "Read" || csv[3] == "Write") {
            return Ok(TraceFormat::Msr);
        }
        // ssdlab's csv: four columns, or five with a write's placement ID.
        let csv_op = |op: &str| {
            matches!(
                op.trim().to_ascii_uppercase().as_str(),
                "R" | "W"
                    | "T"
                    | "ZR"
                    | "ZF"
                    | "ZO"
                    | "ZC"
                    | "ZA"
                    | "RU"
                    | "READ"
                    | "WRITE"
                    | "TRIM"
            )
        };
        if csv.len() == 4 || (csv.len() == 5 && csv_op(csv[1])) {
            return Ok(TraceFormat::Csv);
        }
        let ws: Vec<&str> = l.split_whitespace().collect();
        if ws.len() >= 7 && ws[0].contains(',') && ws.contains(&"+") {
            return Ok(TraceFormat::Blkparse);
        }
        if ws.len() == 5 && ws.iter().all(|w| w.parse::<u64>().is_ok()) {
            // MQSim and SSDSim share the layout; MQSim's times are absolute
            // nanoseconds of a long run, SSDSim's example starts at 0.
            let t: u64 = ws[0].parse().unwrap_or(0);
            return Ok(if t == 0 {
                TraceFormat::Ssdsim
            } else {
                TraceFormat::Mqsim
            });
        }
        break;
    }
    Err(TraceError {
        message: format!("{path}: cannot tell the trace format from its first lines; give --format ({FORMATS_ALLOWED})"),
    })
}

impl TraceReader {
    pub fn open(
        path: &str,
        format: Option<TraceFormat>,
        skip_bad_lines: u64,
    ) -> Result<Self, TraceError> {
        let format = match format {
            Some(f) => f,
            None => detect(path)?,
        };
        let f = open_trace_file(path)?;
        Ok(Self::from_reader(
            path,
            format,
            Box::new(BufReader::with_capacity(1 << 16, f)),
            skip_bad_lines,
        ))
    }

    /// A reader of trace text from any source; `name` stands for the file in errors.
    pub fn from_reader(
        name: &str,
        format: TraceFormat,
        lines: Box<dyn BufRead + Send + Sync>,
        skip_bad_lines: u64,
    ) -> Self {
        TraceReader {
            path: name.to_string(),
            lines,
            format,
            line_no: 0,
            buf: String::new(),
            skip_budget: skip_bad_lines,
            skipped: 0,
            clock_ns: 0,
            iolog_v3: false,
            iolog_header: false,
            fatal: false,
            last_device: None,
            device_filter: None,
        }
    }

    /// Replay only the requests of device (disk) `dev`; an error for formats without
    /// a device field.
    pub fn with_device(mut self, dev: Option<u64>) -> Result<Self, TraceError> {
        if dev.is_some()
            && !matches!(
                self.format,
                TraceFormat::Msr | TraceFormat::Mqsim | TraceFormat::Ssdsim
            )
        {
            return Err(TraceError {
                message: format!(
                    "{}: a device filter needs a format with a device field (msr, mqsim, ssdsim)",
                    self.path
                ),
            });
        }
        self.device_filter = dev;
        Ok(self)
    }

    /// The next request, None at the end; a bad line is an error unless the skip
    /// budget allows skipping it.
    pub fn next_record(&mut self) -> Result<Option<Record>, TraceError> {
        loop {
            self.buf.clear();
            let (n, unreadable) =
                read_line_bounded(&mut self.lines, &mut self.buf).map_err(|e| TraceError {
                    message: format!("{}:{}: cannot read: {e}", self.path, self.line_no + 1),
                })?;
            if n == 0 {
                return Ok(None);
            }
            self.line_no += 1;
            let line = std::mem::take(&mut self.buf);
            let r = match unreadable {
                Some(m) => {
                    let e = TraceError {
                        message: format!(
                            "{}:{}: {m} (a trace is text, one request a line)",
                            self.path, self.line_no
                        ),
                    };
                    if m.contains("longer") {
                        return Err(e); // its rest may never end: not skippable
                    }
                    Err(e)
                }
                None => self.parse_line(&line),
            };
            self.buf = line;
            match r {
                Ok(Some(_))
                    if self.device_filter.is_some() && self.last_device != self.device_filter =>
                {
                    continue
                }
                Ok(Some(rec)) => return Ok(Some(rec)),
                Ok(None) => continue,
                Err(e) => {
                    if self.skipped < self.skip_budget && !self.fatal {
                        self.skipped += 1;
                        continue;
                    }
                    return Err(e);
                }
            }
        }
    }

    fn parse_line(&mut self, line: &str) -> Result<Option<Record>, TraceError> {
        let l = line.trim();
        if l.is_empty() || l.starts_with('#') {
            return Ok(None);
        }
        let (p, n) = (self.path.as_str(), self.line_no);
        let num = |s: &str, what: &str| -> Result<u64, TraceError> {
            s.trim().parse::<u64>().map_err(|_| bad(p, n, l, what))
        };
        let rec = |time_ns, kind, offset, len| {
            Ok(Some(Record {
                time_ns,
                kind,
                offset,
                len,
                cmd: None,
                placement: None,
            }))
        };
        match self.format {
            TraceFormat::Msr => {
                let f: Vec<&str> = l.split(',').collect();
                let exp = "Timestamp,Hostname,DiskNumber,Read|Write,Offset,Size,ResponseTime";
                if f.len() < 6 {
                    return Err(bad(p, n, l, exp));
                }
                let kind = match f[3].trim() {
                    "Read" | "read" | "R" => OpKind::Read,
                    "Write" | "write" | "W" => OpKind::Write,
                    _ => return Err(bad(p, n, l, exp)),
                };
                let t = num(f[0], exp)?;
                self.last_device = Some(num(f[2], exp)?);
                rec(
                    t.saturating_mul(100),
                    kind,
                    num(f[4], exp)?,
                    num(f[5], exp)?,
                )
            }
            TraceFormat::Blkparse => {
                let exp = "blkparse text: maj,min cpu seq time pid action rwbs sector + count";
                let w: Vec<&str> = l.split_whitespace().collect();
                if w.len() < 6 || !w[0].contains(',') {
                    // Summary lines ("CPU0 (8,0):", "Total ...") are not requests.
                    return if l.starts_with("CPU") || l.starts_with("Total") || l.contains(':') {
                        Ok(None)
                    } else {
                        Err(bad(p, n, l, exp))
                    };
                }
                if w[5] != "Q" {
                    return Ok(None);
                }
                let Some((kind, zone)) = blkparse_op(w.get(6).copied().unwrap_or("")) else {
                    return Ok(None); // flushes and barriers carry no data
                };
                // Zone management carries no data: blkparse may print its sector alone.
                let sized = w.len() >= 10 && w[8] == "+";
                if !(sized
                    || (w.len() >= 8
                        && matches!(zone, Some(TraceCmd::Send(_) | TraceCmd::ResetAll))))
                {
                    return Err(bad(p, n, l, exp));
                }
                let secs: f64 = w[3]
                    .parse()
                    .ok()
                    .filter(|s: &f64| s.is_finite() && *s >= 0.0)
                    .ok_or_else(|| bad(p, n, l, exp))?;
                let sector = num(w[7], exp)?;
                let count = if sized { num(w[9], exp)? } else { 0 };
                let mut r = rec(
                    (secs * 1e9) as u64,
                    kind,
                    sector.saturating_mul(512),
                    count.saturating_mul(512),
                )?;
                if let Some(r) = r.as_mut() {
                    r.cmd = zone;
                }
                Ok(r)
            }
            TraceFormat::FioIolog => {
                // fio reads version 2 and 3 (iolog.c); version 1 it no longer reads.
                let header = match l {
                    IOLOG_V2 => Some(false),
                    IOLOG_V3 => Some(true),
                    _ => None,
                };
                if !self.iolog_header || l.starts_with("fio version") {
                    let Some(v3) = header.filter(|_| !self.iolog_header) else {
                        self.fatal = true;
                        let what = if self.iolog_header {
                            "a second iolog header"
                        } else if l.starts_with("fio version") {
                            "not an iolog version fio reads"
                        } else {
                            "no iolog header on the first line (a version 1 log, which fio no longer reads)"
                        };
                        let t: String = l.chars().take(80).collect();
                        return Err(TraceError {
                            message: format!(
                                "{p}:{n}: '{t}': {what} (allowed: '{IOLOG_V2}' or '{IOLOG_V3}' as the first line)"
                            ),
                        });
                    };
                    self.iolog_header = true;
                    self.iolog_v3 = v3;
                    return Ok(None);
                }
                let w: Vec<&str> = l.split_whitespace().collect();
                let (t, rest) = if self.iolog_v3 {
                    // fio writes microseconds since the log started (and reads them so).
                    let exp = "iolog v3: time_us filename action [offset length]";
                    if w.len() < 3 {
                        return Err(bad(p, n, l, exp));
                    }
                    (Some(num(w[0], exp)?.saturating_mul(1_000)), &w[1..])
                } else {
                    (None, &w[..])
                };
                let exp = "iolog: filename action [offset length]";
                if rest.len() < 2 {
                    return Err(bad(p, n, l, exp));
                }
                let kind = match rest[1] {
                    "read" => OpKind::Read,
                    "write" => OpKind::Write,
                    "trim" => OpKind::Trim,
                    "wait" => {
                        if rest.len() >= 3 {
                            self.clock_ns = self
                                .clock_ns
                                .saturating_add(num(rest[2], exp)?.saturating_mul(1000));
                        }
                        return Ok(None);
                    }
                    "add" | "open" | "close" | "sync" | "datasync" => return Ok(None),
                    _ => {
                        return Err(bad(
                            p,
                            n,
                            l,
                            "iolog action read, write, trim, wait, add, open, close or sync",
                        ))
                    }
                };
                if rest.len() < 4 {
                    return Err(bad(p, n, l, exp));
                }
                rec(
                    t.unwrap_or(self.clock_ns),
                    kind,
                    num(rest[2], exp)?,
                    num(rest[3], exp)?,
                )
            }
            TraceFormat::Mqsim | TraceFormat::Ssdsim => {
                let exp = "time_ns device start_sector size_sectors type(1 = read, 0 = write)";
                let w: Vec<&str> = l.split_whitespace().collect();
                if w.len() != 5 {
                    return Err(bad(p, n, l, exp));
                }
                let kind = match w[4] {
                    "1" => OpKind::Read,
                    "0" => OpKind::Write,
                    _ => return Err(bad(p, n, l, exp)),
                };
                self.last_device = Some(num(w[1], exp)?);
                rec(
                    num(w[0], exp)?,
                    kind,
                    num(w[2], exp)?.saturating_mul(512),
                    num(w[3], exp)?.saturating_mul(512),
                )
            }
            TraceFormat::Cloudphysics => {
                if l.starts_with("version") {
                    return Ok(None);
                }
                let exp = "version,time_s,scsi_opcode_hex,size_bytes,lbn";
                let f: Vec<&str> = l.split(',').collect();
                if f.len() != 5 {
                    return Err(bad(p, n, l, exp));
                }
                let op = u8::from_str_radix(f[2].trim(), 16).map_err(|_| bad(p, n, l, exp))?;
                let kind = match op {
                    0x08 | 0x28 | 0xa8 | 0x88 => OpKind::Read,
                    0x0a | 0x2a | 0xaa | 0x8a => OpKind::Write,
                    0x42 => OpKind::Trim,
                    _ => return Ok(None),
                };
                rec(
                    num(f[1], exp)?.saturating_mul(1_000_000_000),
                    kind,
                    num(f[4], exp)?.saturating_mul(512),
                    num(f[3], exp)?,
                )
            }
            TraceFormat::Csv => {
                let exp = "time_ns,op(R|W|T),offset_bytes,length_bytes[,placement_id] (or op ZR, ZF, ZO, ZC: zone management; ZA: zone append; RU: reclaim unit handle update of the placement ID)";
                let f: Vec<&str> = l.split(',').collect();
                if f.len() != 4 && f.len() != 5 {
                    return Err(bad(p, n, l, exp));
                }
                let op = csv_op(f[1].trim());
                // A placement ID (FDP's DSPEC, 0-65535) belongs to a write (W, ZA) or RU.
                let placement = match f.get(4).map(|v| v.trim()).filter(|v| !v.is_empty()) {
                    None => None,
                    Some(v) => {
                        let pid = v.parse::<u16>().map_err(|_| {
                            bad(
                                p,
                                n,
                                l,
                                "a placement ID from 0 to 65535 in the fifth column",
                            )
                        })?;
                        if !matches!(
                            op,
                            Some((OpKind::Write, _) | (_, Some(TraceCmd::RuhUpdate)))
                        ) {
                            return Err(bad(
                                p,
                                n,
                                l,
                                "a placement ID on a write only (op W or ZA), or on RU",
                            ));
                        }
                        Some(pid as u32)
                    }
                };
                let Some((kind, cmd)) = op else {
                    return Err(bad(p, n, l, exp));
                };
                if cmd == Some(TraceCmd::RuhUpdate) && placement.is_none() {
                    return Err(bad(
                        p,
                        n,
                        l,
                        "RU (Reclaim Unit Handle Update) with its placement ID in the fifth column",
                    ));
                }
                let mut r = rec(num(f[0], exp)?, kind, num(f[2], exp)?, num(f[3], exp)?)?;
                if let Some(r) = r.as_mut() {
                    r.cmd = cmd;
                    r.placement = placement;
                }
                Ok(r)
            }
        }
    }
}

#[cfg(test)]
mod tests;
