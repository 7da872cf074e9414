//! Trace readers: every format on hand-written lines, bad lines with file:line,
//! the skip budget, format detection, LBA fitting, and a fuzz that no input panics.

use super::replay::{LbaMode, ReplayMode, TraceConfig, TraceSource};
use super::*;
use proptest::prelude::*;
use std::io::Write;
use std::sync::atomic::{AtomicU64, Ordering};

static N: AtomicU64 = AtomicU64::new(0);

/// A temporary trace file, removed on drop.
pub(crate) struct TempTrace(pub String);

impl TempTrace {
    pub fn new(text: &str) -> Self {
        let n = N.fetch_add(1, Ordering::Relaxed);
        let p = std::env::temp_dir().join(format!("ssdlab-trace-{}-{n}.txt", std::process::id()));
        std::fs::File::create(&p)
            .unwrap()
            .write_all(text.as_bytes())
            .unwrap();
        TempTrace(p.to_string_lossy().into_owned())
    }
}

impl Drop for TempTrace {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn records(text: &str, fmt: TraceFormat) -> Vec<Record> {
    let t = TempTrace::new(text);
    let mut r = TraceReader::open(&t.0, Some(fmt), 0).unwrap();
    let mut v = Vec::new();
    while let Some(rec) = r.next_record().unwrap() {
        v.push(rec);
    }
    v
}

fn rec(time_ns: u64, kind: OpKind, offset: u64, len: u64) -> Record {
    Record {
        cmd: None,
        placement: None,
        time_ns,
        kind,
        offset,
        len,
    }
}

#[test]
fn msr_csv_ticks_are_100ns() {
    let v = records(
        "128166385295514663,hm,0,Write,9056014336,2048,2833\n128166385295514863,hm,0,Read,4096,4096,10\n",
        TraceFormat::Msr,
    );
    assert_eq!(
        v[0],
        rec(12816638529551466300, OpKind::Write, 9056014336, 2048)
    );
    assert_eq!(v[1].kind, OpKind::Read);
    assert_eq!(v[1].time_ns - v[0].time_ns, 20_000);
}

#[test]
fn mqsim_and_ssdsim_type_one_is_read() {
    for fmt in [TraceFormat::Mqsim, TraceFormat::Ssdsim] {
        let v = records("1000 4 8 16 1\n2000 4 24 8 0\n", fmt);
        assert_eq!(
            v,
            vec![
                rec(1000, OpKind::Read, 4096, 8192),
                rec(2000, OpKind::Write, 12288, 4096)
            ]
        );
    }
}

#[test]
fn blkparse_takes_queue_events_only() {
    let text = "\
  8,0    3        1     0.000000000  4162  Q  WS 3417048 + 8 [kworker]
  8,0    3        2     0.000001000  4162  G  WS 3417048 + 8 [kworker]
  8,0    3        3     0.000500000  4162  Q   R 100 + 16 [fio]
  8,0    3        4     0.000600000  4162  Q   D 200 + 8 [fstrim]
  8,0    3        5     0.000700000  4162  Q  FN [fio]
CPU3 (8,0):
 Reads Queued:           1,        8KiB\n";
    let v = records(text, TraceFormat::Blkparse);
    assert_eq!(
        v,
        vec![
            rec(0, OpKind::Write, 3417048 * 512, 4096),
            rec(500_000, OpKind::Read, 51200, 8192),
            rec(600_000, OpKind::Trim, 102400, 4096),
        ]
    );
}

#[test]
fn fio_iolog_v2_waits_and_v3_timestamps() {
    let v2 = "fio version 2 iolog\n/dev/sda add\n/dev/sda open\n/dev/sda write 0 4096\n/dev/sda wait 150\n/dev/sda read 4096 8192\n/dev/sda close\n";
    assert_eq!(
        records(v2, TraceFormat::FioIolog),
        vec![
            rec(0, OpKind::Write, 0, 4096),
            rec(150_000, OpKind::Read, 4096, 8192)
        ]
    );
    let v3 = "fio version 3 iolog\n30 /dev/null add\n10736 /dev/null trim 0 8192\n10752 /dev/null write 0 4096\n";
    assert_eq!(
        records(v3, TraceFormat::FioIolog),
        vec![
            rec(10_736_000, OpKind::Trim, 0, 8192),
            rec(10_752_000, OpKind::Write, 0, 4096)
        ]
    );
}

#[test]
fn fio_iolog_headers_other_than_v2_and_v3_are_refused_even_when_skipping() {
    // Issue 31: any "fio version..." line was a header, and contains('3') picked v3.
    for (text, what) in [
        (
            "fio version 1 iolog\nf write 0 4096\n",
            "'fio version 1 iolog': not an iolog version fio reads",
        ),
        (
            "fio version 13 iolog\n0 f write 0 4096\n",
            "'fio version 13 iolog': not an iolog version fio reads",
        ),
        (
            "fio version 2 iolog extra\nf write 0 4096\n",
            "not an iolog version fio reads",
        ),
        (
            "fio versions\nf write 0 4096\n",
            "'fio versions': not an iolog version",
        ),
        (
            "f add\nf write 0 4096\n",
            "'f add': no iolog header on the first line",
        ),
        (
            "fio version 2 iolog\nf write 0 4096\nfio version 3 iolog\n",
            "'fio version 3 iolog': a second iolog header",
        ),
    ] {
        let t = TempTrace::new(text);
        let mut r = TraceReader::open(&t.0, Some(TraceFormat::FioIolog), 100).unwrap();
        let e = loop {
            match r.next_record() {
                Ok(Some(_)) => {}
                Ok(None) => panic!("{text:?} was read"),
                Err(e) => break e,
            }
        };
        assert!(e.message.contains(what), "{text:?}: {}", e.message);
        assert!(
            e.message.ends_with(
                "(allowed: 'fio version 2 iolog' or 'fio version 3 iolog' as the first line)"
            ),
            "{}",
            e.message
        );
    }
    // Comments and blank lines may come first, as before.
    let t = TempTrace::new("# made by hand\n\nfio version 3 iolog\n5 f read 0 4096\n");
    let mut r = TraceReader::open(&t.0, Some(TraceFormat::FioIolog), 0).unwrap();
    assert_eq!(r.next_record().unwrap().unwrap().time_ns, 5_000);
}

#[test]
fn cloudphysics_scsi_opcodes() {
    let text = "version,time,op,size,lbn\n1,5633898,2a,512,42932745\n1,5633900,28,4096,8\n1,5633901,35,0,0\n1,5633902,42,4096,16\n";
    assert_eq!(
        records(text, TraceFormat::Cloudphysics),
        vec![
            rec(5_633_898_000_000_000, OpKind::Write, 42932745 * 512, 512),
            rec(5_633_900_000_000_000, OpKind::Read, 4096, 4096),
            rec(5_633_902_000_000_000, OpKind::Trim, 8192, 4096),
        ]
    );
}

#[test]
fn simple_csv_with_comments() {
    let text = "# time_ns,op,offset,len\n0,R,0,4096\n10,W,8192,8192\n20,T,0,4096\n";
    let v = records(text, TraceFormat::Csv);
    assert_eq!(v.len(), 3);
    assert_eq!(v[1], rec(10, OpKind::Write, 8192, 8192));
}

#[test]
fn bad_line_names_file_line_text_and_expectation() {
    let t = TempTrace::new("0,R,0,4096\n5,X,0,4096\n6,R,0,4096\n");
    let mut r = TraceReader::open(&t.0, Some(TraceFormat::Csv), 0).unwrap();
    assert!(r.next_record().unwrap().is_some());
    let e = r.next_record().unwrap_err().message;
    assert!(
        e.starts_with(&format!("{}:2: '5,X,0,4096': expected time_ns,op", t.0)),
        "{e}"
    );
}

#[test]
fn skip_budget_counts_skipped_lines() {
    let t = TempTrace::new("0,R,0,4096\nbad\n1,R,0,4096\nworse\n2,W,0,4096\n");
    let s = scan(&t.0, Some(TraceFormat::Csv), 2, None).unwrap();
    assert_eq!(
        (s.requests, s.skipped_lines, s.reads, s.writes),
        (3, 2, 2, 1)
    );
    assert!(scan(&t.0, Some(TraceFormat::Csv), 1, None)
        .unwrap_err()
        .message
        .contains(":4: 'worse'"));
}

#[test]
fn detects_each_format() {
    let cases = [
        (
            "128166385295514663,hm,0,Write,9056014336,2048,2833\n",
            TraceFormat::Msr,
        ),
        (
            "  8,0    3        1     0.000000000  4162  Q  WS 3417048 + 8 [kworker]\n",
            TraceFormat::Blkparse,
        ),
        ("fio version 3 iolog\n", TraceFormat::FioIolog),
        ("938513000 4 264719034 16 0\n", TraceFormat::Mqsim),
        ("0 0 303567 7 0\n", TraceFormat::Ssdsim),
        ("version,time,op,size,lbn\n", TraceFormat::Cloudphysics),
        ("0,R,0,4096\n", TraceFormat::Csv),
    ];
    for (text, fmt) in cases {
        let t = TempTrace::new(text);
        assert_eq!(detect(&t.0).unwrap(), fmt, "{text}");
    }
    let t = TempTrace::new("hello world\n");
    assert!(detect(&t.0).unwrap_err().message.contains("give --format"));
}

#[test]
fn stats_size_histogram_and_span() {
    let t = TempTrace::new("0,R,0,4096\n1000,W,1048576,8192\n3000,R,4096,512\n");
    let s = scan(&t.0, None, 0, None).unwrap();
    assert_eq!(s.format, "csv");
    assert_eq!(
        (s.requests, s.bytes, s.offset_min, s.offset_max_end),
        (3, 12800, 0, 1048576 + 8192)
    );
    assert_eq!(s.size_histogram.get(&4096), Some(&1));
    assert_eq!(s.size_histogram.get(&8192), Some(&1));
    assert_eq!(s.size_histogram.get(&512), Some(&1));
    assert_eq!(s.duration_ns, 3000);
    assert!((s.read_share - 2.0 / 3.0).abs() < 1e-12);
}

fn source(text: &str, lba: LbaMode, cap: u64, end: u64) -> (TempTrace, TraceSource) {
    let t = TempTrace::new(text);
    let cfg = TraceConfig {
        path: t.0.clone(),
        format: Some("csv".into()),
        mode: ReplayMode::Timed,
        speedup: 2.0,
        lba,
        max_requests: None,
        skip_bad_lines: 0,
        device: None,
    };
    let s = TraceSource::new(&cfg, cap, end).unwrap();
    (t, s)
}

#[test]
fn replay_fits_offsets_and_scales_time() {
    let cap = 1 << 20;
    let (_t, mut s) = source(
        "100,R,1049600,1000\n300,W,1048064,8192\n",
        LbaMode::Wrap,
        cap,
        0,
    );
    assert_eq!(s.due(50), Some(50));
    let a = s.take().unwrap();
    // 1049600 wraps to 1024; 1000 bytes round up to 1024.
    assert_eq!((a.offset, a.len), (1024, 1024));
    assert_eq!(s.due(50), Some(50 + 100)); // 200 ns later, at speed-up 2
    let b = s.take().unwrap();
    // Wrapped to 1048064 - 1 MiB = 1048064 - 1048576 < 0 ... i.e. it stays, and must end inside.
    assert!(b.offset + b.len <= cap);
    assert!(s.take().is_none() && !s.has_next());

    let (_t, mut s) = source(
        "0,R,1048576,4096\n0,R,2093056,4096\n",
        LbaMode::Scale,
        cap,
        2 << 20,
    );
    assert_eq!(s.take().unwrap().offset, 512 << 10);
    let last = s.take().unwrap();
    assert_eq!(last.offset + last.len, cap);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    /// Arbitrary bytes in any format give records or errors, never a panic.
    #[test]
    fn parsers_never_panic(lines in proptest::collection::vec("[ -~]{0,80}", 1..20), f in 0usize..7) {
        let fmts = [TraceFormat::Msr, TraceFormat::Blkparse, TraceFormat::FioIolog, TraceFormat::Mqsim,
                    TraceFormat::Ssdsim, TraceFormat::Cloudphysics, TraceFormat::Csv];
        let t = TempTrace::new(&lines.join("\n"));
        let mut r = TraceReader::open(&t.0, Some(fmts[f]), 5).unwrap();
        while let Ok(Some(_)) = r.next_record() {}
        let _ = detect(&t.0);
    }
}

#[cfg(unix)]
#[test]
fn a_named_pipe_is_refused_before_it_is_opened() {
    // Opening a FIFO for reading waits for a writer: before this check, `ssdlab trace
    // FIFO` and fio's `read_iolog=FIFO` hung forever (issue 31's second audit).
    let n = N.fetch_add(1, Ordering::Relaxed);
    let p = std::env::temp_dir().join(format!("ssdlab-fifo-{}-{n}", std::process::id()));
    let c = std::ffi::CString::new(p.to_string_lossy().as_bytes()).unwrap();
    // SAFETY: a valid NUL-terminated path; mkfifo only creates the file.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    let path = p.to_string_lossy().into_owned();
    let e = TraceReader::open(&path, Some(TraceFormat::Msr), 0)
        .err()
        .unwrap();
    assert!(e.message.contains("a named pipe"), "{}", e.message);
    let e = detect(&path).err().unwrap();
    assert!(e.message.contains("a named pipe"), "{}", e.message);
    let _ = std::fs::remove_file(&p);
}

/// blkparse's RWBS field, as Linux's `blk_fill_rwbs` writes it (zoned operations since
/// 6.17): the operation after an optional preflush `F`, then flags.
#[test]
fn blkparse_rwbs_operations() {
    use crate::zns::ZoneAction;
    use OpKind::*;
    let send = |a| Some(TraceCmd::Send(a));
    for (rwbs, want) in [
        ("R", Some((Read, None))),
        ("RA", Some((Read, None))),
        ("RM", Some((Read, None))),
        ("W", Some((Write, None))),
        ("WS", Some((Write, None))),
        ("FWS", Some((Write, None))),
        ("WFS", Some((Write, None))),
        ("WZ", Some((Write, None))),
        ("D", Some((Trim, None))),
        ("DE", Some((Trim, None))),
        ("N", None),
        ("FN", None),
        ("F", None),
        ("FF", None),
        ("", None),
        ("ZA", Some((Write, Some(TraceCmd::Append)))),
        ("ZR", Some((Trim, send(ZoneAction::Reset)))),
        ("ZRA", Some((Trim, Some(TraceCmd::ResetAll)))),
        ("ZF", Some((Trim, send(ZoneAction::Finish)))),
        ("ZO", Some((Trim, send(ZoneAction::Open)))),
        ("ZC", Some((Trim, send(ZoneAction::Close)))),
        ("FZR", Some((Trim, send(ZoneAction::Reset)))),
        ("Z", None),
        ("ZX", None),
    ] {
        assert_eq!(blkparse_op(rwbs), want, "{rwbs}");
    }
}

/// csv's fifth column: a write's placement ID (FDP DSPEC, 0-65535), or empty.
#[test]
fn csv_placement_ids() {
    let v = records(
        "0,W,0,4096,3\n1,W,4096,4096,\n2,ZA,0,4096,65535\n3,R,0,4096\n",
        TraceFormat::Csv,
    );
    let pids: Vec<_> = v.iter().map(|r| r.placement).collect();
    assert_eq!(pids, vec![Some(3), None, Some(65535), None]);
    assert_eq!(v[2].cmd, Some(TraceCmd::Append));
    let t = TempTrace::new("0,W,0,4096,1\n");
    assert_eq!(detect(&t.0).unwrap(), TraceFormat::Csv);
    for (line, why) in [
        ("0,R,0,4096,1\n", "on a write only"),
        ("0,T,0,4096,1\n", "on a write only"),
        ("0,W,0,4096,x\n", "0 to 65535"),
        ("0,W,0,4096,65536\n", "0 to 65535"),
        ("0,W,0,4096,-1\n", "0 to 65535"),
    ] {
        let t = TempTrace::new(line);
        let mut r = TraceReader::open(&t.0, Some(TraceFormat::Csv), 0).unwrap();
        let e = r.next_record().unwrap_err().message;
        assert!(e.contains(why) && e.contains(":1:"), "{line}: {e}");
    }
}

/// csv `RU`: a Reclaim Unit Handle Update, which needs its placement ID.
#[test]
fn csv_ruh_update_lines() {
    let v = records("0,RU,0,0,2\n", TraceFormat::Csv);
    assert_eq!(
        (v[0].cmd, v[0].placement),
        (Some(TraceCmd::RuhUpdate), Some(2))
    );
    let t = TempTrace::new("0,RU,0,0\n");
    let mut r = TraceReader::open(&t.0, Some(TraceFormat::Csv), 0).unwrap();
    let e = r.next_record().unwrap_err().message;
    assert!(e.contains("RU (Reclaim Unit Handle Update)"), "{e}");
}
