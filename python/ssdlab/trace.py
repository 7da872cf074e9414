"""Block-trace replay: ``ssdlab trace FILE`` and ``ssdlab.replay`` / ``ssdlab.trace_stats``.

The Rust core reads the trace one line at a time (memory does not grow with its
length), checks every line in a first pass that also gathers the statistics, then
replays it as one host job: ``closed`` keeps ``iodepth`` requests outstanding,
``timed`` submits each at its arrival time divided by ``speedup``. Formats and their
quirks are in docs/traces.md.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import stat
import sys
from collections.abc import Iterable, Mapping
from typing import Any

from ssdlab import _core, api
from ssdlab.report import Report, human_bytes

FORMATS = ("msr", "blkparse", "fio-iolog", "mqsim", "ssdsim", "cloudphysics", "csv")
MODES = ("closed", "timed")
LBA_MODES = ("wrap", "scale")
# trace.speedup's range (the core's trace::replay::MIN_SPEEDUP/MAX_SPEEDUP): a replay at
# most 1,000 times slower than its trace, or a million times faster.
MIN_SPEEDUP = 1e-3
MAX_SPEEDUP = 1e6


# The iolog versions fio reads (iolog.c, init_iolog_read): the first line starts with one
# of these; anything else is version 1, which fio refuses ("no longer supported").
IOLOG_HEADERS = ("fio version 2 iolog", "fio version 3 iolog")


def iolog_version_error(path: str | os.PathLike, format: str | None = None) -> str | None:
    """Why ``path`` is an fio iolog that cannot be read as fio reads it (None if it is
    none, or is fine): a header of another version (version 1, "fio version 13 iolog"),
    or, for ``format="fio-iolog"``, no header at all (a version 1 log: ``file action
    offset length`` lines). An unreadable file is left to the core to report."""
    if format not in (None, "fio-iolog", "iolog"):
        return None
    try:
        # Not opened when it is a pipe or socket: open() would wait for a writer (an
        # fio read_iolog=FIFO hung --parse-only; the core refuses such a trace).
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
        with open(path, "rb", buffering=0) as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None
            head = f.read(4096)
    except OSError:
        return None
    first = next(
        (ln.strip() for ln in head.splitlines() if ln.strip() and not ln.startswith(b"#")), b""
    )
    text = first[:60].decode("utf-8", "replace")
    if first.startswith(b"fio version"):
        if any(first.startswith(h.encode()) for h in IOLOG_HEADERS):
            return None
        return (
            f"{api.clip(os.fspath(path))}: '{text}': not an iolog version fio reads (allowed: "
            f"'{IOLOG_HEADERS[0]}' or '{IOLOG_HEADERS[1]}' on the first line; fio no longer "
            "reads version 1)"
        )
    if format is not None:
        return (
            f"{api.clip(os.fspath(path))}: no iolog header on the first line (got '{text}'; "
            f"expected '{IOLOG_HEADERS[0]}' or '{IOLOG_HEADERS[1]}'; a version 1 log without "
            "one is not read, as fio no longer reads it)"
        )
    return None


def check_iolog(path: str | os.PathLike, format: str | None = None) -> None:
    """:func:`iolog_version_error` as a ConfigError."""
    why = iolog_version_error(path, format)
    if why:
        raise api.ConfigError(why)


@api.bounded_errors
def trace_stats(
    path: str, format: str | None = None, skip_bad_lines: int = 0, disk: int | None = None
) -> dict:
    """Statistics of a trace (requests, read share, size histogram, span, duration,
    requests per device); ``disk`` keeps one device's requests (msr, mqsim, ssdsim)."""
    if not isinstance(path, (str, os.PathLike)):
        raise api.ConfigError(f"path: {api.clip(path)} is not a trace file path")
    api.check_int("skip_bad_lines", skip_bad_lines)
    if disk is not None:
        api.check_int("disk", disk)
    if format is not None and not isinstance(format, str):
        raise api.ConfigError(f"format: {format!r} is not allowed ({', '.join(FORMATS)})")
    check_iolog(path, format)
    return json.loads(_core.trace_stats(os.fspath(path), format, skip_bad_lines, disk))


@api.bounded_errors
def trace_workload(
    path: str,
    *,
    format: str | None = None,
    mode: str = "closed",
    iodepth: int = 32,
    speedup: float = 1.0,
    lba: str = "wrap",
    max_requests: int | None = None,
    skip_bad_lines: int = 0,
    disk: int | None = None,
) -> dict[str, Any]:
    """The workload dict that replays ``path`` (usable wherever a workload is accepted)."""
    if not isinstance(path, (str, os.PathLike)):
        raise api.ConfigError(f"path: {api.clip(path)} is not a trace file path")
    api.check_int("iodepth", iodepth, 1, 65536)
    api.check_int("skip_bad_lines", skip_bad_lines)
    if max_requests is not None:
        api.check_int("max_requests", max_requests)
    if disk is not None:
        api.check_int("disk", disk)
    if (
        isinstance(speedup, bool)
        or not isinstance(speedup, (int, float))
        or not math.isfinite(speedup)
        or not MIN_SPEEDUP <= speedup <= MAX_SPEEDUP
    ):
        raise api.ConfigError(
            f"speedup: {api.clip(speedup)} is not allowed (a number from 0.001 to 1000000: "
            "arrival times are divided by it, so a replay is at most 1,000 times slower)"
        )
    if format is not None and not isinstance(format, str):
        raise api.ConfigError(f"format: {api.clip(format)} is not allowed ({', '.join(FORMATS)})")
    for name, value in (("mode", mode), ("lba", lba)):
        if not isinstance(value, str):
            raise api.ConfigError(f"{name}: {api.clip(value)} is not allowed (text)")
    check_iolog(path, format)
    trace: dict[str, Any] = {
        "path": str(path),
        "mode": mode,
        "speedup": float(speedup),
        "lba": lba,
        "skip_bad_lines": int(skip_bad_lines),
    }
    if format:
        trace["format"] = format
    if max_requests is not None:
        trace["max_requests"] = int(max_requests)
    if disk is not None:
        trace["device"] = int(disk)
    return {"iodepth": int(iodepth), "trace": trace}


@api.bounded_errors
def replay(
    path: str,
    device: api.DeviceLike = api.DEFAULT_DEVICE,
    *,
    state: str = "full",
    seed: int = 1,
    set: Mapping[str, Any] | Iterable[str] | None = None,
    **trace_opts: Any,
) -> Report:
    """Replay a block trace on ``device``; ``trace_opts`` as :func:`trace_workload`."""
    return api.run(device, trace_workload(path, **trace_opts), state=state, seed=seed, set=set)


def _binary(n: int) -> str:
    """Power-of-two sizes as 512 B, 4 KiB, 1 MiB."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= scale and n % scale == 0:
            return f"{n // scale} {unit}"
    return f"{n} B"


def format_stats(s: dict) -> str:
    """Per-trace statistics as a few lines of text."""
    dur = s["duration_ns"] / 1e9
    lines = [
        f"trace {s['format']}: {s['requests']:,} requests ({s['lines']:,} lines, "
        f"{s['skipped_lines']:,} skipped)  reads {s['read_share'] * 100:.1f}%  "
        f"writes {s['writes']:,}  trims {s['trims']:,}",
        f"  bytes {human_bytes(s['bytes'])}  span {human_bytes(s['offset_min'])} .. "
        f"{human_bytes(s['offset_max_end'])}  duration {dur:.3f} s  mean inter-arrival "
        f"{s['mean_interarrival_ns'] / 1e3:.1f} us",
        "  sizes (<= bytes: requests): "
        + "  ".join(f"{_binary(int(k))}: {v:,}" for k, v in s["size_histogram"].items()),
    ]
    if s.get("placement_ids"):
        lines[0] += "  writes by placement ID " + ", ".join(
            f"{k}: {v:,}" for k, v in s["placement_ids"].items()
        )
    if s.get("ruh_updates"):
        lines[0] += f"  reclaim unit handle updates {s['ruh_updates']:,}"
    if s.get("zone_ops") or s.get("zone_appends"):
        lines[0] += (
            f"  zone management {s.get('zone_ops', 0):,}  zone appends {s.get('zone_appends', 0):,}"
        )
    devs = s.get("devices") or {}
    if len(devs) > 1:
        shown = sorted(devs.items(), key=lambda kv: -kv[1])[:8]
        more = f" (+{len(devs) - 8} more)" if len(devs) > 8 else ""
        lines.append(
            "  devices (number: requests): "
            + "  ".join(f"{k}: {v:,}" for k, v in shown)
            + more
            + "; replay one with --disk N"
        )
    return "\n".join(lines)


def register(sub) -> None:
    p = sub.add_parser("trace", help="replay a block trace and print its statistics")
    p.add_argument("file", help="trace file")
    p.add_argument("--format", choices=FORMATS, help="trace format (default: detected)")
    p.add_argument(
        "--device",
        default=api.DEFAULT_DEVICE,
        help="preset name or device file, or several (A,B,C) compared in one table "
        "(--json then names a directory)",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="device override, e.g. nand.t_read=60us",
    )
    p.add_argument("--state", default="full", choices=api.STATES)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--mode",
        default="closed",
        choices=MODES,
        help="closed: keep --iodepth outstanding; timed: arrival times",
    )
    p.add_argument("--iodepth", type=int, default=32, help="closed-loop queue depth (default 32)")
    p.add_argument(
        "--speedup",
        type=float,
        default=1.0,
        help="timed: divide arrival times by this (0.001 to 1000000)",
    )
    p.add_argument(
        "--lba",
        default="wrap",
        choices=LBA_MODES,
        help="fit offsets: wrap modulo capacity or scale the span",
    )
    p.add_argument("--max-requests", type=int, default=None, help="stop after N requests")
    p.add_argument(
        "--skip-bad-lines",
        type=int,
        default=0,
        metavar="N",
        help="skip (and count) up to N malformed lines instead of failing",
    )
    p.add_argument(
        "--disk",
        type=int,
        default=None,
        metavar="N",
        help="replay only device/disk N's requests (msr, mqsim, ssdsim traces)",
    )
    p.add_argument("--stats-only", action="store_true", help="print the statistics, no replay")
    p.add_argument("--json", metavar="FILE", help="write the replay report as JSON ('-' = stdout)")
    p.add_argument("--quiet", "-q", action="store_true", help="no summary")
    from ssdlab.cliutil import add_max_memory_arg

    add_max_memory_arg(p)
    p.set_defaults(func=cmd_trace)


def _replay_args(args: argparse.Namespace, device: str) -> Report:
    return replay(
        args.file,
        device,
        state=args.state,
        seed=args.seed,
        set=args.set,
        format=args.format,
        mode=args.mode,
        iodepth=args.iodepth,
        speedup=args.speedup,
        lba=args.lba,
        max_requests=args.max_requests,
        skip_bad_lines=args.skip_bad_lines,
        disk=args.disk,
    )


def cmd_trace(args: argparse.Namespace) -> int:
    from ssdlab.cliutil import UsageError, write_atomically

    if args.iodepth < 1:
        raise UsageError(f"--iodepth: {args.iodepth} must be at least 1")
    if args.disk is not None and not 0 <= args.disk < 2**64:
        raise UsageError(f"--disk: {args.disk} is not a disk number (allowed: 0 or more)")
    if args.skip_bad_lines < 0:
        raise UsageError(f"--skip-bad-lines: {args.skip_bad_lines} must be >= 0")
    from ssdlab import outputs
    from ssdlab.comparison import split_devices

    outputs.check_json_flag(args.json, len(split_devices(args.device)) > 1)
    stats = trace_stats(args.file, args.format, args.skip_bad_lines, args.disk)
    if args.json != "-" and not args.quiet:
        print(format_stats(stats))
    if args.stats_only:
        return 0
    from ssdlab import comparison as compare

    devices = compare.check_devices(args.device)
    reports = {}
    for device in devices:
        reports[compare.device_label(device)] = _replay_args(args, device)
    if len(devices) > 1:
        if args.json == "-":
            print(json.dumps({k: r.to_dict() for k, r in reports.items()}, indent=2))
            return 0
        if args.json:
            compare.write_each({k: r.to_json() + "\n" for k, r in reports.items()}, args.json)
        if not args.quiet:
            print(compare.table_text(reports))
        return 0
    report = next(iter(reports.values()))
    if args.json == "-":
        print(report.to_json())
        return 0
    if args.json:
        write_atomically(args.json, report.to_json() + "\n", "--json")
    if not args.quiet:
        print(report.summary())
    err = report["jobs"][0].get("trace", {}).get("error")
    if err:
        print(f"ssdlab: error: replay stopped: {err}", file=sys.stderr)
        return 1
    return 0
