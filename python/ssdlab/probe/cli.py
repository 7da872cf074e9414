"""``ssdlab probe read-cache|write-buffer|map-cache|all TARGET``: seed 002's probes."""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

from ssdlab.probe.target import DEFAULT_MAX_IO

CHOICES = ("read-cache", "write-buffer", "map-cache", "all")
_SIZE = re.compile(r"^\s*(\d+)\s*([kmgt]?)(i?b?)\s*$", re.IGNORECASE)


def parse_size(text: str, flag: str) -> int:
    """8K, 2048KiB, 512M, 4096 (bytes); binary multiples, as the paper's KB/MB."""
    m = _SIZE.match(text)
    if not m:
        from ssdlab.cliutil import UsageError

        raise UsageError(f"{flag}: '{text}' is not a size (e.g. 8K, 2048KiB, 512M)")
    mult = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[m.group(2).lower()]
    if len(m.group(1)) > 30 or int(m.group(1)) * mult >= 1 << 64:
        from ssdlab.cliutil import UsageError
        from ssdlab.outputs import shown

        raise UsageError(
            f"{flag}: '{shown(text.strip())}' is too large (at most 2^64-1 bytes, 16 EiB)"
        )
    return int(m.group(1)) * mult


# The largest --max-io: a real target keeps a buffer of this size.
MAX_IO_LIMIT = 1 << 30


def register(sub) -> None:
    p = sub.add_parser(
        "probe",
        help="seed 002's probes: find a drive's read cache, write buffer and map cache",
    )
    p.add_argument("probe", choices=CHOICES)
    p.add_argument(
        "target",
        help="device preset or .toml/.json file (simulated), or a block device / file (real)",
    )
    p.add_argument(
        "--hmb",
        default=None,
        help="HMB settings to run and compare, comma-separated: on, off, max, half, min, "
        "or sizes the host offers such as 16MiB,32MiB (simulated; default on,off when the "
        "device has an HMB)",
    )
    p.add_argument("--out", default=None, help="output directory (default out/probe-NAME)")
    p.add_argument(
        "--destructive",
        action="store_true",
        help="allow the writing probes on a real block device (never mounted)",
    )
    p.add_argument("--state", default="full", help="simulated drive's state (default full)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="device override for a simulated target",
    )
    p.add_argument(
        "--max-io",
        default=None,
        help="largest command a request is split into (default 128K, Linux max_sectors_kb; "
        "at most 1G)",
    )
    p.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="read-cache / write-buffer: runs per size, medians kept (real drives: 5)",
    )
    p.add_argument("--quick", action="store_true", help="coarser steps (smoke test)")
    for flag, what in (
        ("--s-min", "S_MIN"),
        ("--s-max", "S_MAX"),
        ("--s-inc", "S_INC"),
        ("--s-cache", "S_CACHE (read cache probe)"),
        ("--s-buffer", "S_BUFFER (write probe)"),
    ):
        p.add_argument(flag, default=None, help=f"{what}, a size")
    for flag, what in (
        ("--d-min", "D_MIN"),
        ("--d-max", "D_MAX"),
        ("--d-inc", "D_INC"),
        ("--n", "N reads per d (default 2 x D_MAX)"),
    ):
        p.add_argument(flag, type=int, default=None, help=what)
    p.add_argument(
        "--no-fill", action="store_true", help="map-cache: skip the deallocate + sequential fill"
    )
    p.add_argument("--json", default=None, metavar="FILE", help="write the summary JSON ('-')")
    p.set_defaults(func=cmd_probe)


def _params(args):
    from ssdlab.probe import MapCacheParams, ReadCacheParams, WriteBufferParams

    K, M = 1 << 10, 1 << 20
    if args.quick:
        rp = ReadCacheParams(s_min=8 * K, s_max=1024 * K, s_inc=16 * K, s_cache=64 * M)
        wp = WriteBufferParams(s_min=64 * K, s_max=2048 * K, s_inc=32 * K, s_buffer=64 * M)
        mp = MapCacheParams(d_min=500, d_max=20_000, d_inc=500)
    else:
        rp, wp, mp = ReadCacheParams(), WriteBufferParams(), MapCacheParams()
    sizes = {k: getattr(args, k) for k in ("s_min", "s_max", "s_inc")}
    for k, v in sizes.items():
        if v is not None:
            b = parse_size(v, "--" + k.replace("_", "-"))
            setattr(rp, k, b)
            setattr(wp, k, b)
    if args.s_cache:
        rp.s_cache = parse_size(args.s_cache, "--s-cache")
    if args.s_buffer:
        wp.s_buffer = parse_size(args.s_buffer, "--s-buffer")
    for k in ("d_min", "d_max", "d_inc", "n"):
        if getattr(args, k) is not None:
            setattr(mp, k, getattr(args, k))
    mp.fill = not args.no_fill
    rp.repeat = wp.repeat = args.repeat
    return rp, wp, mp


def cmd_probe(args: argparse.Namespace) -> int:
    from ssdlab.cliutil import UsageError
    from ssdlab.probe import PROBES, ProbeError, run_probes
    from ssdlab.probe.output import write_results

    probes = PROBES if args.probe == "all" else (args.probe,)
    hmb = [h.strip() for h in args.hmb.split(",") if h.strip()] if args.hmb else None
    rp, wp, mp = _params(args)
    max_io = parse_size(args.max_io, "--max-io") if args.max_io is not None else DEFAULT_MAX_IO
    if max_io <= 0 or max_io % 512 or max_io > MAX_IO_LIMIT:
        raise UsageError(
            f"--max-io: {args.max_io} is not allowed (a positive multiple of 512 bytes "
            "up to 1G, e.g. 128K)"
        )
    target = str(args.target)
    from ssdlab.api import presets

    if target in presets() and os.path.exists(target):
        print(
            f"ssdlab: note: '{target}' is the preset; the file of that name is not probed "
            f"(write ./{target} to probe the file)",
            file=sys.stderr,
        )
    if not 0 <= args.seed < 2**64:
        raise UsageError(f"--seed: {args.seed} is not allowed (an integer from 0 to 2^64-1)")
    show = sys.stderr.isatty()
    from ssdlab import outputs

    out = Path(args.out or f"out/probe-{Path(str(args.target)).stem or 'target'}")
    outputs.check_dir(out, "--out")
    outputs.check_json_flag(args.json, False)

    def progress(setting, probe, frac):
        if show:
            print(f"\r{probe} (hmb {setting}): {frac * 100:5.1f}%", end="", file=sys.stderr)

    try:
        res = run_probes(
            args.target,
            probes,
            hmb=hmb,
            read_params=rp,
            write_params=wp,
            map_params=mp,
            destructive=args.destructive,
            state=args.state,
            seed=args.seed,
            set=args.set,
            max_io_bytes=max_io,
            progress=progress,
        )
    except ProbeError as e:
        raise UsageError(str(e)) from None
    if show:
        print("\r" + " " * 60 + "\r", end="", file=sys.stderr)
    written = write_results(res, out)
    if args.json == "-":
        print(json.dumps(res.to_dict(), indent=2))
        return 0
    if args.json:
        from ssdlab.cliutil import write_atomically

        write_atomically(args.json, json.dumps(res.to_dict(), indent=2) + "\n", "--json")
    print(res.summary())
    print("took " + ", ".join(f"{s}: {t:.1f} s" for s, t in res.elapsed_s.items()))
    print("wrote " + ", ".join(str(p) for p in written))
    return 0
