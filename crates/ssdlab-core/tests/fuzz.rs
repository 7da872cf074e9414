//! Fuzz harness for every parser of the core (issue 14): units, device TOML and JSON,
//! `--set` overrides, workload JSON (one job and `jobs`), every trace format and
//! format detection, and whole runs of small devices with random overrides.
//!
//! Each target mutates a seed corpus of valid inputs (presets, example workloads and
//! trace lines) with proptest: tokens that broke parsers before (huge numbers, NaN,
//! negative values, odd units, broken brackets) inserted, values replaced, bytes
//! flipped, lines cut. Every input must give a value or an error, never a panic; no
//! input may take longer than `MAX_CASE` (no hang); and what a parser accepts must
//! hold its documented ranges (sizes <= 2^62, I/Os inside the device, ...).
//!
//! `cargo test --release --test fuzz` runs a few thousand inputs per target (a few seconds
//! in all, part of CI). The long run (docs/reliability.md) sets the number per target:
//! `SSDLAB_FUZZ_CASES=200000 cargo test --release --test fuzz -- --nocapture`;
//! each target prints its inputs, time, slowest input and the process's peak memory.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use ssdlab_core::config::{self, presets, units, DeviceSpec};
use ssdlab_core::trace::{self, TraceFormat, TraceReader};
use ssdlab_core::workload::JobGen;
use ssdlab_core::DriveState;
use std::time::{Duration, Instant};

/// No single input may take longer than this (a hang shows as a failure).
const MAX_CASE: Duration = Duration::from_secs(2);

fn cases(default: u32) -> u32 {
    std::env::var("SSDLAB_FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .map(|n: u32| {
            if default < 1000 {
                (n / 100).max(default)
            } else {
                n
            }
        })
        .unwrap_or(default)
}

fn peak_rss_mib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|k| k.parse().ok()))
        })
        .map_or(0, |kib: u64| kib / 1024)
}

/// Least share of a target's inputs that must be accepted, about half of what the
/// mutations give today (accepted / inputs at the default counts): a change that made
/// the generator produce only invalid inputs would test the refusals alone.
const MIN_ACCEPTED: &[(&str, f64)] = &[
    ("units", 0.008),             // 356 / 20,000
    ("device-json", 0.15),        // 929 / 3,000
    ("device-toml", 0.2),         // 1,854 / 4,000
    ("set-overrides", 0.1),       // 777 / 4,000
    ("workload-json", 0.08),      // 863 / 5,000
    ("workload-overrides", 0.02), // 201 / 5,000
    ("traces", 0.035),            // 754 / 10,000
    ("device-runs", 0.3),         // 133 / 200
];
/// Least share that must be refused: the mutations must reach the error paths too.
const MIN_REFUSED: f64 = 0.1;

/// Run `check` on `n` inputs from `strategy` (deterministic seed per target, so a
/// failure reproduces), timing each; prints a summary line and checks that both
/// accepted and refused inputs were generated (`MIN_ACCEPTED`, `MIN_REFUSED`).
fn fuzz<S: Strategy>(name: &str, n: u32, strategy: S, check: impl Fn(S::Value) -> bool)
where
    S::Value: std::fmt::Debug,
{
    let mut seed = [0u8; 32];
    for (i, b) in name.bytes().enumerate() {
        seed[i % 32] ^= b;
    }
    let mut runner = TestRunner::new_with_rng(
        Config {
            cases: n,
            failure_persistence: None,
            max_shrink_iters: 2000,
            ..Config::default()
        },
        TestRng::from_seed(RngAlgorithm::ChaCha, &seed),
    );
    let t0 = Instant::now();
    let slowest = std::cell::Cell::new(Duration::ZERO);
    let accepted = std::cell::Cell::new(0u64);
    let result = runner.run(&strategy, |v| {
        let t = Instant::now();
        accepted.set(accepted.get() + check(v) as u64);
        let took = t.elapsed();
        slowest.set(slowest.get().max(took));
        prop_assert!(took < MAX_CASE, "one input took {took:?}");
        Ok(())
    });
    println!(
        "fuzz {name}: {n} inputs ({} accepted) in {:.1} s, slowest {:.1} ms, peak memory {} MiB",
        accepted.get(),
        t0.elapsed().as_secs_f64(),
        slowest.get().as_secs_f64() * 1e3,
        peak_rss_mib()
    );
    if let Err(e) = result {
        panic!("fuzz {name}: {e}");
    }
    let min = MIN_ACCEPTED
        .iter()
        .find(|(t, _)| *t == name)
        .map_or(0.01, |&(_, f)| f);
    let share = accepted.get() as f64 / n.max(1) as f64;
    assert!(
        accepted.get() > 0 && share >= min,
        "fuzz {name}: {} of {n} inputs accepted, fewer than {:.1} %",
        accepted.get(),
        min * 100.0
    );
    assert!(
        1.0 - share >= MIN_REFUSED,
        "fuzz {name}: {} of {n} inputs accepted, fewer than {:.0} % refused",
        accepted.get(),
        MIN_REFUSED * 100.0
    );
}

/// Tokens that broke parsers before, or sit on a boundary.
const TOKENS: &[&str] = &[
    "0",
    "-1",
    "1",
    "2",
    "3",
    "511",
    "512",
    "4095",
    "65535",
    "65536",
    "4294967295",
    "4294967296",
    "9223372036854775807",
    "-9223372036854775808",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999",
    "1e308",
    "1e-308",
    "-0",
    "0.5",
    "1.5",
    "nan",
    "inf",
    "-inf",
    "NaN",
    "true",
    "false",
    "\"\"",
    "\"x\"",
    "[]",
    "{}",
    "[1, 2]",
    "\"1e3us\"",
    "\"4kB\"",
    "\"4kb\"",
    "\"4KiB\"",
    "\"16KiB\"",
    "\"1GiB\"",
    "\"99999999999999P\"",
    "\"1h\"",
    "\"2h\"",
    "\"0us\"",
    "\"-5us\"",
    "\"50us\"",
    "\"1ms\"",
    "\"800MT/s\"",
    "\"1GB/s\"",
    "\"0B\"",
    "\"1e30s\"",
    "\"150%\"",
    "\"100%\"",
    "\"1.5x\"",
    "\"randread\"",
    "\"write\"",
    "\"\\u0000\"",
    "[[",
    "]]",
    "[",
    "]",
    "{",
    "}",
    "\n",
    "=",
    ",",
    ":",
    "\"",
    "#",
    ".",
    "1e",
    "0x10",
    "4k",
    "8K",
    "1M",
    "1G",
    "1T",
    "1P",
    "1E",
    "1Z",
    "4096",
    "131072",
    "1048576",
    "128M",
    "256M",
    "7",
    "64",
    "100",
    "101",
    "255",
    "256",
    "1024",
    "100000",
    "1000000",
    "\u{e9}",
    "\u{ff}",
    "\t",
    " ",
];

#[derive(Clone, Debug)]
enum Mutation {
    /// Insert a token at a position (fraction of the length).
    Insert(f64, usize),
    /// Replace the value of the n-th `=` or `:` (to the end of its line) by a token.
    Value(usize, usize),
    /// Delete a byte range.
    Delete(f64, u8),
    /// Replace one character by an arbitrary one.
    Byte(f64, char),
    /// Duplicate a line.
    Dup(f64),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (0.0..1.0f64, 0..TOKENS.len()).prop_map(|(p, t)| Mutation::Insert(p, t)),
        (0..64usize, 0..TOKENS.len()).prop_map(|(n, t)| Mutation::Value(n, t)),
        (0.0..1.0f64, 1..16u8).prop_map(|(p, l)| Mutation::Delete(p, l)),
        (0.0..1.0f64, any::<char>()).prop_map(|(p, c)| Mutation::Byte(p, c)),
        (0.0..1.0f64).prop_map(Mutation::Dup),
    ]
}

fn at(s: &str, frac: f64) -> usize {
    let mut i = ((s.len() as f64) * frac) as usize;
    while i < s.len() && !s.is_char_boundary(i) {
        i += 1;
    }
    i.min(s.len())
}

fn apply(mut s: String, muts: &[Mutation]) -> String {
    for m in muts {
        match *m {
            Mutation::Insert(p, t) => {
                let i = at(&s, p);
                s.insert_str(i, TOKENS[t]);
            }
            Mutation::Value(n, t) => {
                let seps: Vec<usize> = s.match_indices(['=', ':']).map(|(i, _)| i).collect();
                if !seps.is_empty() {
                    let i = seps[n % seps.len()] + 1;
                    let end = s[i..].find(['\n', ',', '}']).map_or(s.len(), |e| i + e);
                    s.replace_range(i..end, TOKENS[t]);
                }
            }
            Mutation::Delete(p, l) => {
                let i = at(&s, p);
                let j = at(&s, (i + l as usize) as f64 / s.len().max(1) as f64).max(i);
                s.replace_range(i..j, "");
            }
            Mutation::Byte(p, c) => {
                let i = at(&s, p);
                if i < s.len() {
                    let w = s[i..].chars().next().map_or(0, char::len_utf8);
                    s.replace_range(i..i + w, c.encode_utf8(&mut [0; 4]));
                }
            }
            Mutation::Dup(p) => {
                let lines: Vec<&str> = s.lines().collect();
                if !lines.is_empty() {
                    let k = ((lines.len() as f64 * p) as usize).min(lines.len() - 1);
                    let mut v: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                    v.insert(k, lines[k].to_string());
                    s = v.join("\n");
                }
            }
        }
    }
    s
}

/// A seed from `corpus`, mutated 0-4 times.
fn mutated(corpus: Vec<String>) -> impl Strategy<Value = String> {
    (0..corpus.len(), prop::collection::vec(mutation(), 0..4))
        .prop_map(move |(i, m)| apply(corpus[i].clone(), &m))
}

fn preset_texts() -> Vec<String> {
    presets::DEVICE_NAMES
        .iter()
        .map(|n| presets::device_toml(n).unwrap().to_string())
        .collect()
}

/// A value near `v` (a preset's value of a field): its number scaled, unit kept.
fn near(v: &serde_json::Value, factor: f64) -> String {
    let text = match v {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let end = text
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(text.len());
    match text[..end].parse::<f64>() {
        Ok(n) if end > 0 => {
            let x = n * factor;
            let num = if x.fract() == 0.0 && x.abs() < 1e15 {
                format!("{}", x as i64)
            } else {
                format!("{x}")
            };
            format!("{num}{}", &text[end..])
        }
        _ => text,
    }
}

/// `key=value` overrides with values near a preset's (scaled by 0 ... 1000).
fn near_sets() -> impl Strategy<Value = String> {
    let dev = config::load_device(&DeviceSpec::Preset("tiny-test".into()), &[]).unwrap();
    let v = serde_json::to_value(&dev).unwrap();
    let keys = device_keys();
    let factors = [0.0, 0.001, 0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 8.0, 1000.0];
    (0..keys.len(), 0..factors.len()).prop_map(move |(k, f)| {
        let mut x = &v;
        for part in keys[k].split('.') {
            x = x.get(part).unwrap_or(&serde_json::Value::Null);
        }
        format!("{}={}", keys[k], near(x, factors[f]))
    })
}

/// Dotted keys of every field of a preset (what `--set` may name).
fn device_keys() -> Vec<String> {
    let dev = config::load_device(&DeviceSpec::Preset("client-tlc-dram".into()), &[]).unwrap();
    let v = serde_json::to_value(&dev).unwrap();
    let mut keys = Vec::new();
    fn walk(prefix: &str, v: &serde_json::Value, keys: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(o) => {
                for (k, x) in o {
                    let p = if prefix.is_empty() {
                        k.clone()
                    } else {
                        format!("{prefix}.{k}")
                    };
                    walk(&p, x, keys);
                }
            }
            _ => keys.push(prefix.to_string()),
        }
    }
    walk("", &v, &mut keys);
    keys.extend(
        [
            "nand.capacity",
            "map.tier",
            "hmb.hmpre",
            "nand.nonsense",
            "x",
            "nand",
            "nand.t_read.x",
        ]
        .map(String::from),
    );
    keys
}

fn value_token() -> impl Strategy<Value = String> {
    prop_oneof![
        (0..TOKENS.len()).prop_map(|t| TOKENS[t].trim_matches('"').to_string()),
        (0..TOKENS.len()).prop_map(|t| TOKENS[t].to_string()),
        "[ -~]{0,12}",
        (any::<u64>(), 0..12usize).prop_map(|(n, u)| {
            let units = [
                "", "B", "KiB", "MiB", "GiB", "us", "ms", "s", "h", "ns", "KB", "MT/s",
            ];
            format!("{n}{}", units[u])
        }),
    ]
}

// ---------------------------------------------------------------------------------

#[test]
fn units() {
    let text = prop_oneof![
        "\\PC{0,24}",
        (value_token(), value_token()).prop_map(|(a, b)| format!("{a}{b}")),
        (any::<f64>(), "[a-zA-Z/%]{0,4}").prop_map(|(f, u)| format!("{f}{u}")),
    ];
    fuzz("units", cases(20_000), text, |s| {
        let ok = units::parse_bytes(&s).is_ok();
        if let Ok(b) = units::parse_bytes(&s) {
            assert!(b <= units::MAX_BYTES, "{s:?} -> {b}");
        }
        if let Ok(b) = units::parse_size_bytes(&s) {
            assert!(b <= units::MAX_BYTES, "{s:?} -> {b}");
        }
        if let Ok(t) = units::parse_duration_ns(&s) {
            assert!(t <= units::MAX_DEVICE_TIME_NS, "{s:?} -> {t}");
        }
        for f in [units::parse_secs_ns, units::parse_usecs_ns] {
            if let Ok(t) = f(&s) {
                assert!(t <= units::MAX_TIME_NS, "{s:?} -> {t}");
            }
        }
        for f in [units::parse_bandwidth, units::parse_mts] {
            if let Ok(v) = f(&s) {
                assert!(v.is_finite() && v >= 0.0, "{s:?} -> {v}");
            }
        }
        ok
    });
}

/// A device that loads resolves to a config that dumps and loads again to the same
/// config (the resolved config kept beside every report), and its derived figures
/// and memory estimate do not panic.
fn check_device(dev: &config::DeviceConfig) {
    let _ = dev.capacity_bytes();
    let _ = dev.raw_bytes();
    let _ = dev.memory_estimate_bytes(true, true);
    for state in [
        DriveState::Full,
        DriveState::FullSlcExhausted,
        DriveState::Steady,
    ] {
        let _ = ssdlab_core::ftl::estimate::estimate(
            dev,
            state,
            &[],
            true,
            true,
            ssdlab_core::ftl::map_array::OVERLAY_SHIFT,
        );
    }
    let _ = dev.warnings();
    let _ = dev.derived();
    let json = serde_json::to_string(dev).unwrap();
    let again = config::load_device(
        &DeviceSpec::Json {
            origin: "<dump>".into(),
            text: json.clone(),
        },
        &[],
    )
    .unwrap_or_else(|e| panic!("the dump of a valid device does not load: {e}\n{json}"));
    assert_eq!(serde_json::to_string(&again).unwrap(), json);
}

#[test]
fn device_toml() {
    fuzz(
        "device-toml",
        cases(4_000),
        mutated(preset_texts()),
        |text| {
            let spec = DeviceSpec::Toml {
                origin: "fuzz.toml".into(),
                text,
            };
            if let Ok(dev) = config::load_device(&spec, &[]) {
                check_device(&dev);
                return true;
            }
            false
        },
    );
}

#[test]
fn device_json() {
    let corpus: Vec<String> = presets::DEVICE_NAMES
        .iter()
        .map(|n| {
            let d = config::load_device(&DeviceSpec::Preset(n.to_string()), &[]).unwrap();
            serde_json::to_string_pretty(&d).unwrap()
        })
        .collect();
    fuzz("device-json", cases(3_000), mutated(corpus), |text| {
        let spec = DeviceSpec::Json {
            origin: "<dict>".into(),
            text,
        };
        if let Ok(dev) = config::load_device(&spec, &[]) {
            check_device(&dev);
            return true;
        }
        false
    });
}

#[test]
fn set_overrides() {
    let keys = device_keys();
    let names: Vec<&str> = presets::DEVICE_NAMES.to_vec();
    let set = (0..keys.len(), value_token()).prop_map(move |(k, v)| format!("{}={v}", keys[k]));
    let s = (
        0..names.len(),
        prop::collection::vec(
            prop_oneof![4 => set, 5 => near_sets(), 1 => "[ -~]{0,16}"],
            1..4,
        ),
    );
    fuzz("set-overrides", cases(4_000), s, |(p, sets)| {
        let spec = DeviceSpec::Preset(names[p].to_string());
        if let Ok(dev) = config::load_device(&spec, &sets) {
            check_device(&dev);
            return true;
        }
        false
    });
}

fn workload_corpus() -> Vec<String> {
    [
        r#"{"rw": "randread", "bs": "4k", "iodepth": 32, "number_ios": 1000}"#,
        r#"{"rw": "randrw", "rwmixread": 70, "bs": "16k", "size": "50%", "offset": "1MiB"}"#,
        r#"{"rw": "write", "bs": "128k", "io_size": "64MiB", "numjobs": 4, "thinktime": 100}"#,
        r#"{"rw": "randwrite", "bssplit": "4k/50:64k/50", "runtime": "1s", "ramp_time": 0}"#,
        r#"{"rw": "trim", "bs": "1M", "queues": 2, "queue_policy": "round-robin"}"#,
        r#"{"rw": "randread", "random_distribution": "zipf:1.2", "norandommap": true}"#,
        r#"{"jobs": [{"name": "a", "rw": "randread", "group": 0, "number_ios": 10},
                    {"name": "b", "rw": "write", "group": 1, "bs": "8k", "iodepth": "4"}]}"#,
        r#"{"rw": "rw", "bs": "4k", "offset_increment": "1M", "numjobs": 2, "size": "8M"}"#,
        r#"{"rw": "randread", "rate_iops": 1000, "number_ios": 100}"#,
    ]
    .map(String::from)
    .to_vec()
}

/// A workload that loads issues only I/Os inside the device, aligned to 512 B.
fn check_jobs(jobs: &[ssdlab_core::WorkloadConfig], cap: u64) {
    for (i, w) in jobs.iter().enumerate() {
        let _ = serde_json::to_string(w).unwrap();
        let mut g = JobGen::new(w, cap, 7, i as u32);
        for _ in 0..200 {
            if !g.can_issue(0) {
                break;
            }
            let io = g.next_io(0);
            assert!(
                io.len > 0 && io.len.is_multiple_of(512) && io.offset.is_multiple_of(512),
                "{io:?}"
            );
            assert!(io.offset + io.len <= cap, "{io:?} beyond {cap}");
            g.on_complete(0);
        }
    }
}

#[test]
fn workload_json() {
    let cap = 1u64 << 30;
    fuzz(
        "workload-json",
        cases(5_000),
        mutated(workload_corpus()),
        |json| {
            if let Ok(jobs) = config::load_jobs(&json, &[], cap) {
                check_jobs(&jobs, cap);
                return true;
            }
            false
        },
    );
}

#[test]
fn workload_overrides() {
    let keys = [
        "rw",
        "bs",
        "iodepth",
        "numjobs",
        "size",
        "offset",
        "io_size",
        "number_ios",
        "runtime",
        "ramp_time",
        "thinktime",
        "rwmixread",
        "bssplit",
        "queues",
        "queue_policy",
        "random_distribution",
        "offset_increment",
        "rate_iops",
        "group",
        "name",
        "nothere",
        "jobs",
        "trace",
        "trace.path",
        "zonesize",
        "zonerange",
        "zoneskip",
    ];
    let set = (0..keys.len(), value_token()).prop_map(move |(k, v)| format!("{}={v}", keys[k]));
    let s = (
        mutated(workload_corpus()),
        prop::collection::vec(prop_oneof![9 => set, 1 => "[ -~]{0,16}"], 0..5),
    );
    let cap = 1u64 << 30;
    fuzz("workload-overrides", cases(5_000), s, |(json, sets)| {
        if let Ok(jobs) = config::load_jobs(&json, &sets, cap) {
            check_jobs(&jobs, cap);
            return true;
        }
        false
    });
}

const FORMATS: [TraceFormat; 7] = [
    TraceFormat::Msr,
    TraceFormat::Blkparse,
    TraceFormat::FioIolog,
    TraceFormat::Mqsim,
    TraceFormat::Ssdsim,
    TraceFormat::Cloudphysics,
    TraceFormat::Csv,
];

fn trace_corpus() -> Vec<String> {
    [
        "128166385295514663,hm,0,Write,9056014336,2048,2833\n128166385295514863,hm,1,Read,4096,4096,10\n",
        "  8,0    3        1     0.000000000  4162  Q   W 2048 + 8 [kworker]\n  8,0    3        2     0.000100000  4162  Q   R 4096 + 16 [fio]\nCPU0 (8,0):\n",
        "fio version 2 iolog\n/dev/nvme0n1 add\n/dev/nvme0n1 open\n/dev/nvme0n1 write 0 4096\n/dev/nvme0n1 wait 100\n/dev/nvme0n1 read 8192 4096\n",
        "fio version 3 iolog\n0 /dev/sda add\n0 /dev/sda open\n5 /dev/sda read 0 4096\n9 /dev/sda trim 4096 8192\n",
        "1000 0 2048 8 1\n2000 0 4096 16 0\n",
        "0 0 2048 8 1\n100 1 4096 16 0\n",
        "version,time,op,size,lbn\n1,0,28,4096,100\n1,1,2a,8192,200\n1,2,42,4096,0\n",
        "# ssdlab csv\n0,R,0,4096\n1000,W,4096,8192\n2000,T,0,4096\n",
    ]
    .map(String::from)
    .to_vec()
}

/// Read every record of `text` as `fmt` (at most 10^4), skipping up to `skip` bad lines.
fn read_all(text: &[u8], fmt: TraceFormat, skip: u64, device: Option<u64>) -> bool {
    let r = TraceReader::from_reader(
        "fuzz.trace",
        fmt,
        Box::new(std::io::Cursor::new(text.to_vec())),
        skip,
    );
    let Ok(mut r) = r.with_device(device) else {
        return false;
    };
    let mut records = 0;
    for _ in 0..10_000 {
        match r.next_record() {
            Ok(Some(_)) => records += 1,
            Ok(None) => break,
            Err(e) => {
                assert!(e.message.starts_with("fuzz.trace:"), "{}", e.message);
                break;
            }
        }
    }
    let _ = trace::detect_in("fuzz.trace", &mut std::io::Cursor::new(text.to_vec()));
    records > 0
}

#[test]
fn traces() {
    let s = (
        prop_oneof![
            4 => mutated(trace_corpus()).prop_map(String::into_bytes),
            1 => prop::collection::vec(any::<u8>(), 0..256),
        ],
        0..FORMATS.len(),
        0..3u64,
        prop::option::of(0..3u64),
    );
    fuzz("traces", cases(10_000), s, |(text, f, skip, dev)| {
        read_all(&text, FORMATS[f], skip, dev)
    });
}

#[test]
fn trace_lines_longer_than_the_limit_are_bad_lines_not_memory() {
    // A trace without newlines (like /dev/zero) is read no further than one line's limit.
    let big = vec![b'0'; 10 << 20];
    let mut r = TraceReader::from_reader(
        "big.csv",
        TraceFormat::Csv,
        Box::new(std::io::Cursor::new(big)),
        0,
    );
    let e = r.next_record().unwrap_err();
    assert!(
        e.message.contains("big.csv:1: a line longer than 64 KiB"),
        "{}",
        e.message
    );
    let mut zeros = std::io::BufReader::new(std::io::Read::take(std::io::repeat(0), 1 << 40));
    let e = trace::detect_in("z", &mut zeros).unwrap_err();
    assert!(e.message.contains("not a text trace"), "{}", e.message);
}

/// Small devices with random overrides and small workloads run to the end: no panic,
/// no stall, within the time limit.
#[test]
fn device_runs() {
    let sets: &[(&str, &[&str])] = &[
        ("nand.channels", &["1", "2", "3", "8"]),
        ("nand.dies_per_channel", &["1", "2", "3"]),
        ("nand.planes_per_die", &["1", "2", "4"]),
        ("nand.pages_per_block", &["4", "8", "17", "64"]),
        ("nand.blocks_per_plane", &["16", "33", "64"]),
        ("nand.page_size", &["4KiB", "8KiB", "16KiB"]),
        ("nand.t_read", &["1us", "50us", "1ms"]),
        ("nand.t_prog", &["10us", "500us"]),
        ("ftl.over_provisioning", &["0.05", "0.07", "0.3", "0.5"]),
        ("ftl.mapping_unit", &["4KiB", "8KiB", "16KiB"]),
        ("host.queue_entries", &["2", "3", "64"]),
        ("host.io_queues", &["1", "2", "8"]),
        ("controller.cores", &["1", "2", "5"]),
        ("controller.write_buffer", &["64KiB", "1MiB", "4MiB"]),
        ("map.cache", &["4KiB", "64KiB", "1MiB"]),
    ];
    let wl: &[&str] = &[
        r#"{"rw": "randread", "bs": "4k", "iodepth": 8, "number_ios": 300}"#,
        r#"{"rw": "randwrite", "bs": "4k", "iodepth": 16, "number_ios": 400}"#,
        r#"{"rw": "randrw", "bs": "16k", "iodepth": 4, "number_ios": 300}"#,
        r#"{"rw": "write", "bs": "128k", "iodepth": 2, "number_ios": 100}"#,
        r#"{"rw": "randtrim", "bs": "8k", "iodepth": 4, "number_ios": 200}"#,
        r#"{"rw": "randwrite", "bssplit": "4k/50:64k/50", "numjobs": 3, "number_ios": 100}"#,
    ];
    let states = ["fresh", "full", "steady"];
    let s = (
        prop::collection::vec(
            prop_oneof![
                3 => (0..sets.len(), 0..4usize)
                    .prop_map(move |(k, v)| format!("{}={}", sets[k].0, sets[k].1[v % sets[k].1.len()])),
                1 => near_sets(),
            ],
            0..4,
        ),
        0..wl.len(),
        0..states.len(),
        any::<u64>(),
    );
    fuzz("device-runs", cases(200), s, |(ov, w, st, seed)| {
        let o = ov;
        let spec = DeviceSpec::Preset("tiny-test".into());
        let t0 = Instant::now();
        let r = ssdlab_core::run_from_specs(
            &spec,
            &o,
            wl[w],
            &[],
            states[st],
            seed,
            true,
            false,
            256 << 20,
            &mut |_| t0.elapsed() < MAX_CASE,
        );
        match r {
            Ok(r) => {
                assert!(
                    r.json["stalled"].is_null(),
                    "{o:?} {}: {}",
                    wl[w],
                    r.json["stalled"]
                );
                true
            }
            Err(_) => false,
        }
    });
}
