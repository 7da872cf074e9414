"""``ssdlab profile DEVICE``: the figures a data sheet or a drive review prints, measured
the way they are measured, so that a drive modelled from a data sheet is checked
against it in one command (``--device A,B`` puts drives side by side).

Rows (each states its method in the table and in ``method``):

- Data-sheet rows: sequential read and write, 128 KiB at QD32 with one thread; the SLC
  cache as a review measures it (sequential writes on an empty drive for 1.5x the SLC
  area: the data written before the cliff, and the rate after it); random
  read and write, 4 KiB at QD32 with 4 threads over the whole drive; random read and
  write, 4 KiB at QD1 with one thread over a 1 GiB span (the span a QD1 figure is taken
  on, so that the map is cached as it is in a short benchmark); the sequential write
  after the SLC cache is full (the sustained rate a review plots past the cliff).
- CrystalDiskMark-like rows (CDM 8's defaults on its 1 GiB test file): SEQ1M Q8T1,
  SEQ1M Q1T1, RND4K Q32T1 (called Q32T16 in some versions), RND4K Q1T1, read and write.

Reads run on a ``full`` drive (every LBA written, so reads find data, as on a drive
under test); writes on a ``fresh`` drive (empty, the SLC cache empty: where data sheets
take their figures); the sustained write on ``full-slc-exhausted`` (``full`` for a
drive without an SLC cache), at the LBAs after the ones the full cache holds (from LBA 0 it
would rewrite the cache's data and free it: :func:`past_slc_offset`). Each row is one
simulated run bounded by its number of I/Os (``--quick``: a quarter), from the same seed on
every device.

Simplifications: a row is a fixed number of I/Os, not a time (CDM runs 5 s, data
sheets say little); the QD1 and CDM spans start at LBA 0; a figure is the whole run's
mean after no ramp (sequential rows start in their steady rate within a few ms).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Row:
    key: str
    label: str
    unit: str  # "MB/s", "IOPS" or "GB"
    direction: str
    workload: dict[str, Any]
    state: str
    method: str
    ios: int  # I/Os per job (numjobs jobs); 0: the fill of derived rows
    extra: tuple[str, ...] = field(default=())  # also report: "lat" (mean and p99 µs)
    derive: str = ""  # "slc_size" / "past_slc": read off the fill's rate over time


GIB = "1GiB"
ROWS: tuple[Row, ...] = (
    Row("seq_read", "Sequential read", "MB/s", "read",
        {"rw": "read", "bs": "128KiB", "iodepth": 32}, "full",
        "128 KiB, QD32, 1 thread, sequential, full drive", 16384),
    Row("seq_write", "Sequential write", "MB/s", "write",
        {"rw": "write", "bs": "128KiB", "iodepth": 32}, "fresh",
        "128 KiB, QD32, 1 thread, sequential, empty drive (into the SLC cache)", 16384),
    Row("seq_write_sustained", "Sequential write after SLC cache", "MB/s", "write",
        {"rw": "write", "bs": "128KiB", "iodepth": 32}, "full-slc-exhausted",
        "128 KiB, QD32, 1 thread, sequential, SLC cache full (state full-slc-exhausted), "
        "at the LBAs after the SLC area's size",
        16384),
    Row("slc_cache_size", "SLC cache, written at SLC speed", "GB", "write",
        {"rw": "write", "bs": "128KiB", "iodepth": 32}, "fresh",
        "128 KiB, QD32, sequential on an empty drive for 1.5x the SLC area (at least 4 GiB): "
        "data written before the rate fell to the level after the cliff (500 ms windows)",
        0, derive="slc_size"),
    Row("seq_write_past_slc", "Sequential write past the SLC cache", "MB/s", "write",
        {"rw": "write", "bs": "128KiB", "iodepth": 32}, "fresh",
        "the same fill: its mean rate after the cliff", 0, derive="past_slc"),
    Row("rand_read_qd32", "Random read 4K QD32 T4", "IOPS", "read",
        {"rw": "randread", "bs": "4KiB", "iodepth": 32, "numjobs": 4}, "full",
        "4 KiB, QD32 x 4 threads, random over the whole drive, full drive", 50000),
    Row("rand_write_qd32", "Random write 4K QD32 T4", "IOPS", "write",
        {"rw": "randwrite", "bs": "4KiB", "iodepth": 32, "numjobs": 4}, "fresh",
        "4 KiB, QD32 x 4 threads, random over the whole drive, empty drive", 50000),
    Row("rand_read_qd1", "Random read 4K QD1 T1", "IOPS", "read",
        {"rw": "randread", "bs": "4KiB", "iodepth": 1, "size": GIB}, "full",
        "4 KiB, QD1, 1 thread, random over a 1 GiB span, full drive", 20000, ("lat",)),
    Row("rand_write_qd1", "Random write 4K QD1 T1", "IOPS", "write",
        {"rw": "randwrite", "bs": "4KiB", "iodepth": 1, "size": GIB}, "fresh",
        "4 KiB, QD1, 1 thread, random over a 1 GiB span, empty drive", 20000, ("lat",)),
    Row("cdm_seq1m_q8t1_read", "CDM SEQ1M Q8T1 read", "MB/s", "read",
        {"rw": "read", "bs": "1MiB", "iodepth": 8, "size": GIB}, "full",
        "CrystalDiskMark: 1 MiB, QD8, 1 thread, sequential over its 1 GiB file", 4096),
    Row("cdm_seq1m_q8t1_write", "CDM SEQ1M Q8T1 write", "MB/s", "write",
        {"rw": "write", "bs": "1MiB", "iodepth": 8, "size": GIB}, "fresh",
        "CrystalDiskMark: 1 MiB, QD8, 1 thread, sequential over its 1 GiB file", 4096),
    Row("cdm_seq1m_q1t1_read", "CDM SEQ1M Q1T1 read", "MB/s", "read",
        {"rw": "read", "bs": "1MiB", "iodepth": 1, "size": GIB}, "full",
        "CrystalDiskMark: 1 MiB, QD1, 1 thread, sequential over its 1 GiB file", 2048),
    Row("cdm_seq1m_q1t1_write", "CDM SEQ1M Q1T1 write", "MB/s", "write",
        {"rw": "write", "bs": "1MiB", "iodepth": 1, "size": GIB}, "fresh",
        "CrystalDiskMark: 1 MiB, QD1, 1 thread, sequential over its 1 GiB file", 2048),
    Row("cdm_rnd4k_q32t1_read", "CDM RND4K Q32T1 read", "MB/s", "read",
        {"rw": "randread", "bs": "4KiB", "iodepth": 32, "size": GIB}, "full",
        "CrystalDiskMark: 4 KiB, QD32, 1 thread, random over its 1 GiB file", 50000),
    Row("cdm_rnd4k_q32t1_write", "CDM RND4K Q32T1 write", "MB/s", "write",
        {"rw": "randwrite", "bs": "4KiB", "iodepth": 32, "size": GIB}, "fresh",
        "CrystalDiskMark: 4 KiB, QD32, 1 thread, random over its 1 GiB file", 50000),
    Row("cdm_rnd4k_q1t1_read", "CDM RND4K Q1T1 read", "MB/s", "read",
        {"rw": "randread", "bs": "4KiB", "iodepth": 1, "size": GIB}, "full",
        "CrystalDiskMark: 4 KiB, QD1, 1 thread, random over its 1 GiB file", 10000),
    Row("cdm_rnd4k_q1t1_write", "CDM RND4K Q1T1 write", "MB/s", "write",
        {"rw": "randwrite", "bs": "4KiB", "iodepth": 1, "size": GIB}, "fresh",
        "CrystalDiskMark: 4 KiB, QD1, 1 thread, random over its 1 GiB file", 10000),
)  # fmt: skip
ROW_KEYS = tuple(r.key for r in ROWS)
COLUMNS = ("row", "label", "method", "device", "unit", "value", "lat_mean_us", "lat_p99_us",
           "state")  # fmt: skip


def select_rows(keys: str | Iterable[str] | None) -> list[Row]:
    """The rows named (comma-separated or a list; None: every row). An unknown name is
    a ConfigError listing the rows."""
    from ssdlab import api

    if keys is None:
        return list(ROWS)
    names = [k.strip() for k in keys.split(",")] if isinstance(keys, str) else list(keys)
    by_key = {r.key: r for r in ROWS}
    bad = [k for k in names if k not in by_key]
    if bad or not names:
        raise api.ConfigError(
            f"rows: {', '.join(map(repr, bad)) or 'none given'} is not a profile row "
            f"(allowed: {', '.join(ROW_KEYS)})"
        )
    return [by_key[k] for k in dict.fromkeys(names)]


_UNITS = {"B": 1, "KiB": 2**10, "MiB": 2**20, "GiB": 2**30, "TiB": 2**40,
          "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}  # fmt: skip


def past_slc_offset(slc_bytes: int, capacity_bytes: int, run_bytes: int) -> int:
    """Where the sustained write starts: right after the LBAs a full SLC cache holds (the
    first ``slc_bytes``), 1 MiB aligned, moved back as far as the run needs to fit the
    drive. Written from LBA 0 it would rewrite the cache's own data, whose blocks the drive
    can then erase and write into at SLC speed: not a rate after the cache."""
    mib = 1 << 20
    return max(0, min(slc_bytes, capacity_bytes - run_bytes)) // mib * mib


def _drive(device: Any, set: Any) -> tuple[int, int]:
    """(SLC area in bytes, 0 without one; user capacity in bytes)."""
    import re

    from ssdlab import api

    cfg = api.validate(device, set=set)
    m = re.fullmatch(r"([\d.]+)\s*([A-Za-z]+)", str((cfg.get("slc") or {}).get("size", "0B")))
    slc = int(float(m.group(1)) * _UNITS.get(m.group(2), 0)) if m else 0
    if cfg.get("nand", {}).get("cell", "TLC").upper() == "SLC":
        slc = 0
    return slc, int(cfg["capacity_bytes"])


def _cliff(bw_log: list) -> tuple[float | None, float | None, int]:
    """From a sequential fill's 500 ms windows ``[[t_ms, KiB/s], ...]``: (bytes written
    at SLC speed, the rate after the cliff in bytes/s, windows) or (None, None, n) when
    the rate never fell below half its start. A window holding the cliff counts its
    share at the first window's rate: f = (bw - after) / (first - after)."""
    kib = [float(b) for _, b in bw_log]
    if len(kib) < 3:
        return None, None, len(kib)
    first = kib[0]
    drop = next((i for i, b in enumerate(kib) if b < first / 2), None)
    if drop is None:
        return None, None, len(kib)
    tail = kib[drop:-1] or kib[drop:]  # the last window is partial
    after = sum(tail) / len(tail)
    span = max(first - after, 1e-9)
    fast = sum(min(1.0, max(0.0, (b - after) / span)) for b in kib[: drop + 1])
    return fast * first * 1024 * 0.5, after * 1024, len(kib)


def profile(
    devices: Any,
    rows: str | Iterable[str] | None = None,
    quick: bool = False,
    seed: int = 1,
    set: Any = None,
) -> list[dict[str, Any]]:
    """Measure every row (or those named) on each device; one dict per (row, device)
    with :data:`COLUMNS`. ``devices``: a preset name, device file or dict, or a list of
    them; ``set``: overrides for every device (``{"nand.t_read": "50us"}``)."""
    from ssdlab import api
    from ssdlab.comparison import device_label

    if isinstance(devices, (str, os.PathLike, Mapping)):
        devices = [devices]
    devices = list(devices)
    if not devices:
        raise api.ConfigError("devices: give at least one device")
    chosen = select_rows(rows)
    runs: list[dict] = []
    index: dict[str, int] = {}  # one run for rows that share it (the SLC fill)
    meta = []
    for dev in devices:
        slc, cap = _drive(dev, set)
        for r in chosen:
            state = r.state if (r.state != "full-slc-exhausted" or slc) else "full"
            note = ""
            if r.derive:
                fill = min(cap, max(4 << 30, int(slc * 1.5)))
                wl = dict(r.workload, io_size=f"{fill // 4096 * 4096}B")
                if not slc:
                    note = " (no SLC cache configured)"
            else:
                n = max(1, r.ios // 4) if quick else r.ios
                wl = dict(r.workload, number_ios=n)
                if state == "full-slc-exhausted":
                    wl["offset"] = f"{past_slc_offset(slc, cap, n * 128 * 1024)}B"
            if state != r.state:
                note = " (no SLC cache: state full)"
            if wl.get("size") == GIB and cap < 1 << 30:
                wl["size"] = f"{cap // (1 << 20)}MiB"  # a drive smaller than the span
                note += f" (the drive holds {cap / (1 << 20):g} MiB: span {wl['size']})"
            key = json.dumps([device_label(dev), wl, state], sort_keys=True, default=str)
            if key not in index:
                index[key] = len(runs)
                runs.append(
                    {"device": dev, "workload": wl, "state": state, "seed": seed, "set": set}
                )
            meta.append((device_label(dev), r, state, note, index[key]))
    reports = api.run_many(runs)
    out = []
    for label, r, state, note, k in meta:
        s = reports[k][r.direction]
        lat = s["lat_ns"]
        method = r.method + note
        if r.derive:
            fast, after, n = _cliff(s.get("bw_log") or [])
            value = (fast / 1e9 if r.derive == "slc_size" else after / 1e6) if fast else None
            if fast is None:
                method += f" (no cliff in {n} windows, {s['io_bytes'] / 1e9:,.1f} GB written)"
        else:
            value = s["bw_bytes"] / 1e6 if r.unit == "MB/s" else s["iops"]
        out.append(
            {
                "row": r.key,
                "label": r.label,
                "method": method,
                "device": label,
                "unit": r.unit,
                "value": value,
                "lat_mean_us": lat["mean"] / 1e3,
                "lat_p99_us": lat.get("percentile", {}).get("99.000000", 0) / 1e3,
                "state": state,
            }
        )
    return out


def to_pandas(rows: Sequence[Mapping[str, Any]]):
    import pandas as pd

    return pd.DataFrame(list(rows), columns=list(COLUMNS))


def _fmt(row: Mapping[str, Any], with_lat: bool) -> str:
    v = row["value"]
    if v is None:
        return "-"
    if row["unit"] == "GB":
        return f"{v:,.1f} GB"
    text = f"{v:,.0f} MB/s" if row["unit"] == "MB/s" else f"{v / 1e3:,.1f}K IOPS"
    if with_lat:
        text += f" ({row['lat_mean_us']:,.1f} µs)"
    return text


def format_table(rows: Sequence[Mapping[str, Any]]) -> str:
    """One line per row: its label, each device's figure, then its method."""
    devices = list(dict.fromkeys(r["device"] for r in rows))
    keys = list(dict.fromkeys(r["row"] for r in rows))
    by = {(r["row"], r["device"]): r for r in rows}
    extra = {r.key: "lat" in r.extra for r in ROWS}
    head = ["row", *devices, "method"]
    cells = [head]
    for k in keys:
        first = by[(k, devices[0])]
        base = next((r.method for r in ROWS if r.key == k), first["method"])
        method = base
        for d in devices:  # a device measured otherwise (no SLC cache, a small drive)
            note = by[(k, d)]["method"][len(base) :].strip()
            if note:
                method += f"; {d}: {note}"
        cells.append(
            [first["label"]] + [_fmt(by[(k, d)], extra.get(k, False)) for d in devices] + [method]
        )
    widths = [max(len(c[i]) for c in cells) for i in range(len(head) - 1)]
    lines = []
    for c in cells:
        parts = [c[0].ljust(widths[0])]
        parts += [x.rjust(w) for x, w in zip(c[1:-1], widths[1:])]
        lines.append("  ".join(parts) + "  " + c[-1])
    return "\n".join(lines)


def register(sub) -> None:
    p = sub.add_parser(
        "profile",
        help="data-sheet and CrystalDiskMark-like figures of a drive, each with its method",
        description="Measure the figures a data sheet or a review prints (sequential "
        "128 KiB QD32, random 4 KiB QD32 x 4 threads and QD1, the write after the SLC "
        "cache, CrystalDiskMark-like rows), each measured as it is measured, the "
        "method printed beside it.",
    )
    p.add_argument("device", nargs="?", help="preset name or device file")
    p.add_argument("--device", dest="devices", help="several devices side by side: A,B,C")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="device override for every device, e.g. nand.t_read=60us")  # fmt: skip
    p.add_argument("--rows", help=f"only these rows, comma-separated ({', '.join(ROW_KEYS)})")
    p.add_argument("--quick", action="store_true", help="a quarter of the I/Os per row")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", metavar="FILE", help="write the rows as JSON ('-' = stdout)")
    p.set_defaults(func=cmd_profile)


def cmd_profile(args) -> int:
    from ssdlab import comparison
    from ssdlab.cliutil import UsageError, write_atomically

    if args.device and args.devices:
        raise UsageError("profile: give the device or --device A,B, not both")
    text = args.devices or args.device
    if not text:
        raise UsageError("profile: give a device (a preset name or a device file) or --device A,B")
    devices = comparison.check_devices(text)
    rows = profile(devices, args.rows, quick=args.quick, seed=args.seed, set=args.set or None)
    doc = json.dumps({"rows": rows}, indent=2) + "\n"
    if args.json == "-":
        print(doc, end="")
        return 0
    if args.json:
        write_atomically(args.json, doc, "--json")
    print(format_table(rows))
    return 0
