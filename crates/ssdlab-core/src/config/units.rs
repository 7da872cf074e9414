//! Typed units for config values: durations ("75us", "3.8ms"), sizes ("16KiB",
//! "512GB"), transfer rates ("800MT/s") and bandwidths ("1GB/s").
//!
//! Sizes follow the usual storage convention: KiB/MiB/GiB/TiB are powers of two,
//! KB/MB/GB/TB powers of ten, and a bare K/M/G/T (fio's style) means powers of two.
//! Device timings and sizes (`Duration`, `Size`) must carry a unit: a bare number other
//! than 0 is an error, since "60" could mean ns, us or s. Workload options follow fio:
//! `Secs` (runtime, ramp_time) take bare numbers as seconds, `Usecs` (thinktime) as
//! microseconds and `Bytes` (bs, size, offset, ...) as bytes.

use serde::{de, Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A value as an error shows it: quoted, and past 80 characters cut, with its
/// length (`'99999…' (5,000,002 chars)`), so that an error never echoes megabytes.
pub fn quoted(s: &str) -> String {
    const MAX_CHARS: usize = 80;
    let n = s.chars().count();
    if n <= MAX_CHARS {
        return format!("'{s}'");
    }
    let head: String = s.chars().take(MAX_CHARS).collect();
    format!("'{head}…' ({} chars)", thousands(n as u64))
}

/// `n` with a comma between thousands (12,288).
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

fn split_number(s: &str) -> Option<(f64, &str)> {
    let s = s.trim();
    let end = s
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_digit() || *c == '.' || *c == '_'))
        .map(|(i, _)| i)
        .unwrap_or(s.len());
    if end == 0 {
        return None;
    }
    let num: f64 = s[..end].replace('_', "").parse().ok()?;
    Some((num, s[end..].trim()))
}

/// An unknown unit that is really an exponent ("1e3us"): say so rather than
/// "unknown unit 'e3us'".
fn exponent_error(s: &str, unit: &str) -> Option<String> {
    let rest = unit.strip_prefix(['e', 'E'])?;
    rest.trim_start_matches(['+', '-'])
        .starts_with(|c: char| c.is_ascii_digit())
        .then(|| {
            format!("{}: a number with an exponent is not allowed here; write it in full (e.g. \"1000us\" for \"1e3us\", \"1000000B\" for \"1e6B\")", quoted(s))
        })
}

/// Parse a duration into nanoseconds; a bare number is multiplied by `bare_ns`
/// (None: a bare number other than 0 is an error).
fn duration_with_default(s: &str, bare_ns: Option<f64>, max_ns: u64) -> Result<u64, String> {
    let (n, unit) = split_number(s).ok_or_else(|| {
        format!(
            "{} is not a duration (use e.g. \"50us\", \"3.8ms\", \"500ns\")",
            quoted(s)
        )
    })?;
    let mult = match unit {
        "" if n == 0.0 => 1.0,
        "" => bare_ns.ok_or_else(|| {
            format!(
                "{} has no unit: a device timing needs one (allowed: ns, us, ms, s; e.g. \"50us\")",
                quoted(s)
            )
        })?,
        "ns" => 1.0,
        "us" | "µs" | "usec" => 1e3,
        "ms" | "msec" => 1e6,
        "s" | "sec" => 1e9,
        "m" | "min" => 60e9,
        "h" => 3600e9,
        _ => {
            return Err(exponent_error(s, unit).unwrap_or_else(|| {
                format!(
                    "{} has an unknown time unit {} (allowed: ns, us, ms, s, min, h)",
                    quoted(s),
                    quoted(unit)
                )
            }))
        }
    };
    let ns = (n * mult).round();
    if !ns.is_finite() || ns > max_ns as f64 {
        return Err(if max_ns == MAX_DEVICE_TIME_NS {
            format!(
                "{} is longer than the 1h allowed for a device timing",
                quoted(s)
            )
        } else {
            format!(
                "{} is too long (at most about 100 years of simulated time)",
                quoted(s)
            )
        });
    }
    Ok(ns as u64)
}

/// The longest time any config value may give: about 100 years, so that sums of a few
/// times never overflow 64-bit nanoseconds.
pub const MAX_TIME_NS: u64 = 100 * 365 * 24 * 3600 * 1_000_000_000;
/// The longest device timing (a NAND, link or firmware time): one hour.
pub const MAX_DEVICE_TIME_NS: u64 = 3600 * 1_000_000_000;
/// The largest size any config value may give: 2^62 bytes (4 EiB), so that an offset
/// plus a size never overflows.
pub const MAX_BYTES: u64 = 1 << 62;

/// Parse a device duration (a unit is required) into nanoseconds; at most an hour.
pub fn parse_duration_ns(s: &str) -> Result<u64, String> {
    duration_with_default(s, None, MAX_DEVICE_TIME_NS)
}

/// Parse a fio time in seconds by default (`runtime`, `ramp_time`) into nanoseconds.
pub fn parse_secs_ns(s: &str) -> Result<u64, String> {
    duration_with_default(s, Some(1e9), MAX_TIME_NS)
}

/// Parse a fio time in microseconds by default (`thinktime`) into nanoseconds.
pub fn parse_usecs_ns(s: &str) -> Result<u64, String> {
    duration_with_default(s, Some(1e3), MAX_TIME_NS)
}

/// Parse a device size (a unit is required, "B" for bytes) into bytes.
pub fn parse_size_bytes(s: &str) -> Result<u64, String> {
    match split_number(s) {
        Some((n, "")) if n != 0.0 => Err(format!(
            "{} has no unit: a device size needs one (allowed: B, KiB, MiB, GiB, TiB, KB, MB, \
             GB, TB; e.g. \"4096B\", \"4KiB\")",
            quoted(s)
        )),
        _ => parse_bytes(s),
    }
}

/// A note for a size that is a whole number of kB/MB/GB but not of 512 bytes: the
/// user probably meant KiB (ssdlab reads kB, MB, GB as powers of 1000, like fio's
/// `kb_base=1000`; KiB, MiB, GiB and bare k, M, G are powers of 1024).
pub fn decimal_note(bytes: u64) -> &'static str {
    if bytes > 0 && bytes.is_multiple_of(1000) && !bytes.is_multiple_of(512) {
        " (kB, MB and GB are powers of 1000; KiB, MiB, GiB or a bare k, M, G are powers of 1024: 4KiB = 4k = 4096 bytes)"
    } else {
        ""
    }
}

/// Parse a size into bytes; a bare number is bytes (fio's convention).
pub fn parse_bytes(s: &str) -> Result<u64, String> {
    let (n, unit) = split_number(s).ok_or_else(|| {
        format!(
            "{} is not a size (use e.g. \"4KiB\", \"16KiB\", \"512GB\")",
            quoted(s)
        )
    })?;
    let mult: f64 = match unit
        .trim_end_matches(['B', 'b'])
        .to_ascii_lowercase()
        .as_str()
    {
        "" => 1.0,
        "k" | "ki" => 1024.0,
        "m" | "mi" => 1024f64.powi(2),
        "g" | "gi" => 1024f64.powi(3),
        "t" | "ti" => 1024f64.powi(4),
        "p" | "pi" => 1024f64.powi(5),
        _ => {
            return Err(exponent_error(s, unit).unwrap_or_else(|| {
                format!(
                "{} has an unknown size unit {} (allowed: B, KiB, MiB, GiB, TiB, KB, MB, GB, TB)"
            , quoted(s), quoted(unit))
            }))
        }
    };
    // Decimal units: "KB", "MB", ... (an explicit B after a plain prefix) are powers of ten.
    let decimal = matches!(unit, "KB" | "MB" | "GB" | "TB" | "PB" | "kB");
    let mult = if decimal {
        match unit {
            "KB" | "kB" => 1e3,
            "MB" => 1e6,
            "GB" => 1e9,
            "TB" => 1e12,
            _ => 1e15,
        }
    } else {
        mult
    };
    let v = n * mult;
    if v.fract() != 0.0 {
        return Err(format!("{} is not a whole number of bytes", quoted(s)));
    }
    if !v.is_finite() || v > MAX_BYTES as f64 {
        return Err(format!(
            "{} is too large (at most 4EiB, 2^62 bytes)",
            quoted(s)
        ));
    }
    Ok(v as u64)
}

/// Parse a bandwidth ("1GB/s", "985MB/s", "3.5GiB/s") into bytes per second.
pub fn parse_bandwidth(s: &str) -> Result<f64, String> {
    let t = s.trim();
    let body = t.strip_suffix("/s").ok_or_else(|| {
        format!(
            "{} is not a bandwidth (use e.g. \"1GB/s\", \"985MB/s\")",
            quoted(s)
        )
    })?;
    let (n, unit) =
        split_number(body).ok_or_else(|| format!("{} is not a bandwidth", quoted(s)))?;
    let mult = match unit {
        "B" => 1.0,
        "KB" | "kB" => 1e3,
        "MB" => 1e6,
        "GB" => 1e9,
        "KiB" => 1024.0,
        "MiB" => 1024f64.powi(2),
        "GiB" => 1024f64.powi(3),
        // Network line rates are in bits per second.
        "Mb" => 1e6 / 8.0,
        "Gb" => 1e9 / 8.0,
        _ => return Err(format!("{} has an unknown bandwidth unit {} (allowed: B/s, KB/s, MB/s, GB/s, KiB/s, MiB/s, GiB/s, and bits: Mb/s, Gb/s)", quoted(s), quoted(&format!("{unit}/s")))),
    };
    Ok(n * mult)
}

/// The slowest bandwidth a config may give (1 MB/s: 8 Mb/s); every transfer time is
/// bytes over a bandwidth, so 0 (or near it) would make a run of simulated years.
pub const MIN_BYTES_PER_S: f64 = 1e6;
/// The fastest (10 TB/s: 80 Tb/s); beyond it transfers would take no time at all.
pub const MAX_BYTES_PER_S: f64 = 1e13;

/// Check a bandwidth field (bytes/s) against MIN_BYTES_PER_S..=MAX_BYTES_PER_S;
/// `bits`: say it in bits per second, as network line rates are written.
pub fn check_bandwidth(field: &str, bytes_per_s: f64, bits: bool) -> Result<(), String> {
    if (MIN_BYTES_PER_S..=MAX_BYTES_PER_S).contains(&bytes_per_s) {
        return Ok(());
    }
    let (shown, range) = if bits {
        (
            format!("{}Gb/s", bytes_per_s * 8.0 / 1e9),
            "8Mb/s to 80Tb/s (1MB/s to 10TB/s)",
        )
    } else {
        (format!("{}MB/s", bytes_per_s / 1e6), "1MB/s to 10TB/s")
    };
    Err(format!(
        "{field}: {shown} is out of range (allowed: {range}): a transfer takes its bytes over the rate"
    ))
}

/// The slowest and fastest NAND channel rates, MT/s.
pub const CHANNEL_MTS_RANGE: std::ops::RangeInclusive<f64> = 1.0..=100_000.0;

/// Parse a transfer rate in mega-transfers per second ("800MT/s").
pub fn parse_mts(s: &str) -> Result<f64, String> {
    let (n, unit) = split_number(s).ok_or_else(|| {
        format!(
            "{} is not a transfer rate (use e.g. \"800MT/s\")",
            quoted(s)
        )
    })?;
    match unit {
        "MT/s" | "" => Ok(n),
        "GT/s" => Ok(n * 1000.0),
        _ => Err(format!(
            "{} has an unknown rate unit {} (allowed: MT/s, GT/s)",
            quoted(s),
            quoted(unit)
        )),
    }
}

fn fmt_duration(ns: u64) -> String {
    for (unit, div) in [("s", 1_000_000_000u64), ("ms", 1_000_000), ("us", 1_000)] {
        if ns >= div && ns.is_multiple_of(div) {
            return format!("{}{unit}", ns / div);
        }
    }
    if ns >= 1000 && ns.is_multiple_of(100) {
        return format!("{}us", ns as f64 / 1000.0);
    }
    format!("{ns}ns")
}

fn fmt_size(b: u64) -> String {
    for (unit, div) in [
        ("TiB", 1u64 << 40),
        ("GiB", 1 << 30),
        ("MiB", 1 << 20),
        ("KiB", 1 << 10),
    ] {
        if b >= div && b.is_multiple_of(div) {
            return format!("{}{unit}", b / div);
        }
    }
    for (unit, div) in [
        ("TB", 1_000_000_000_000u64),
        ("GB", 1_000_000_000),
        ("MB", 1_000_000),
    ] {
        if b >= div && b.is_multiple_of(div) {
            return format!("{}{unit}", b / div);
        }
    }
    format!("{b}B")
}

#[derive(Deserialize)]
#[serde(untagged)]
enum NumOrStr {
    Int(u64),
    Float(f64),
    Str(String),
}

macro_rules! unit_type {
    ($name:ident, $inner:ty, $parse:expr, $fmt:expr, $what:literal) => {
        #[derive(Clone, Copy, Debug, PartialEq, PartialOrd, Default)]
        pub struct $name(pub $inner);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let v = NumOrStr::deserialize(d)
                    .map_err(|_| de::Error::custom(concat!("expected ", $what)))?;
                let s = match v {
                    NumOrStr::Int(i) => i.to_string(),
                    NumOrStr::Float(f) => f.to_string(),
                    NumOrStr::Str(s) => s,
                };
                let parse: fn(&str) -> Result<$inner, String> = $parse;
                parse(&s).map($name).map_err(de::Error::custom)
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                let f: fn($inner) -> String = $fmt;
                s.serialize_str(&f(self.0))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let g: fn($inner) -> String = $fmt;
                write!(f, "{}", g(self.0))
            }
        }
    };
}

unit_type!(
    Duration,
    u64,
    parse_duration_ns,
    fmt_duration,
    "a duration such as \"50us\""
);
unit_type!(
    Size,
    u64,
    parse_size_bytes,
    fmt_size,
    "a size such as \"16KiB\""
);
unit_type!(
    Bytes,
    u64,
    parse_bytes,
    fmt_size,
    "a size such as \"4KiB\" (a bare number is bytes)"
);
unit_type!(
    Secs,
    u64,
    parse_secs_ns,
    fmt_duration,
    "a time such as \"30s\" or \"100ms\" (a bare number is seconds, as in fio)"
);
unit_type!(
    Usecs,
    u64,
    parse_usecs_ns,
    fmt_duration,
    "a time such as \"100us\" (a bare number is microseconds, as in fio)"
);
unit_type!(
    Bandwidth,
    f64,
    parse_bandwidth,
    |v| format!("{}MB/s", v / 1e6),
    "a bandwidth such as \"1GB/s\""
);
unit_type!(
    Rate,
    f64,
    parse_mts,
    |v| format!("{v}MT/s"),
    "a transfer rate such as \"800MT/s\""
);

impl Duration {
    pub fn ns(self) -> u64 {
        self.0
    }
}
impl Size {
    pub fn bytes(self) -> u64 {
        self.0
    }
}
impl Bytes {
    pub fn bytes(self) -> u64 {
        self.0
    }
}
impl Secs {
    pub fn ns(self) -> u64 {
        self.0
    }
}
impl Usecs {
    pub fn ns(self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration_ns("75us").unwrap(), 75_000);
        assert_eq!(parse_duration_ns("3.8ms").unwrap(), 3_800_000);
        assert_eq!(parse_duration_ns("500ns").unwrap(), 500);
        assert_eq!(parse_duration_ns("2s").unwrap(), 2_000_000_000);
        assert!(parse_duration_ns("120").unwrap_err().contains("no unit"));
        assert_eq!(parse_duration_ns("0").unwrap(), 0);
        assert_eq!(parse_secs_ns("1").unwrap(), 1_000_000_000);
        assert_eq!(parse_secs_ns("0.5").unwrap(), 500_000_000);
        assert_eq!(parse_secs_ns("100ms").unwrap(), 100_000_000);
        assert_eq!(parse_usecs_ns("10").unwrap(), 10_000);
        assert!(parse_duration_ns("5 parsecs")
            .unwrap_err()
            .contains("unknown time unit"));
        assert!(parse_duration_ns("fast").is_err());
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size_bytes("4KiB").unwrap(), 4096);
        assert_eq!(parse_size_bytes("4k").unwrap(), 4096);
        assert_eq!(parse_size_bytes("16KiB").unwrap(), 16384);
        assert_eq!(parse_size_bytes("512GB").unwrap(), 512_000_000_000);
        assert_eq!(parse_size_bytes("512GiB").unwrap(), 512 << 30);
        assert_eq!(parse_size_bytes("1.5KiB").unwrap(), 1536);
        assert!(parse_size_bytes("1.3B").is_err());
        assert!(parse_size_bytes("4096").unwrap_err().contains("no unit"));
        assert_eq!(parse_size_bytes("0").unwrap(), 0);
        assert_eq!(parse_bytes("4096").unwrap(), 4096);
        assert!(parse_size_bytes("4 furlongs").is_err());
    }

    #[test]
    fn errors_say_the_value_once_and_cut_a_long_one() {
        // Issue 31: "'60' has no unit: ... e.g. \"60us\" or \"60ns\"" said it three times.
        assert_eq!(
            parse_duration_ns("60").unwrap_err(),
            "'60' has no unit: a device timing needs one (allowed: ns, us, ms, s; e.g. \"50us\")"
        );
        assert_eq!(
            parse_size_bytes("4096").unwrap_err(),
            "'4096' has no unit: a device size needs one (allowed: B, KiB, MiB, GiB, TiB, KB, MB, GB, TB; e.g. \"4096B\", \"4KiB\")"
        );
        let long = "9".repeat(1_000_000);
        for e in [
            parse_duration_ns(&long).unwrap_err(),
            parse_size_bytes(&long).unwrap_err(),
        ] {
            assert!(
                e.starts_with(&format!(
                    "'{}…' (1,000,000 chars) has no unit",
                    "9".repeat(80)
                )),
                "{e}"
            );
            assert!(e.len() < 300, "{}", e.len());
        }
        let unit = format!("1{}", "x".repeat(5000));
        let e = parse_bytes(&unit).unwrap_err();
        assert!(
            e.contains("(5,001 chars) has an unknown size unit 'xxx")
                && e.contains("(5,000 chars)"),
            "{e}"
        );
        assert!(e.len() < 500, "{}", e.len());
        assert_eq!(quoted(&"é".repeat(80)), format!("'{}'", "é".repeat(80)));
    }

    #[test]
    fn rates_and_bandwidth() {
        assert_eq!(parse_mts("800MT/s").unwrap(), 800.0);
        assert_eq!(parse_bandwidth("1GB/s").unwrap(), 1e9);
        assert!(parse_bandwidth("1GB").is_err());
    }

    #[test]
    fn display_round_trips() {
        for s in ["75us", "3ms", "16KiB", "512GB", "60ns", "3800us"] {
            let d = parse_duration_ns(s).ok().map(fmt_duration);
            let b = parse_size_bytes(s).ok().map(fmt_size);
            if let Some(d) = d {
                assert_eq!(
                    parse_duration_ns(&d).unwrap(),
                    parse_duration_ns(s).unwrap()
                );
            }
            if let Some(b) = b {
                assert_eq!(parse_size_bytes(&b).unwrap(), parse_size_bytes(s).unwrap());
            }
        }
    }
}
