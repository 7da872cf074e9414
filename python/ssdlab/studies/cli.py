"""``ssdlab study NAME``: the seeds' experiments."""

from __future__ import annotations

import argparse
from pathlib import Path

STUDIES = ("map-cache", "lba-span", "program-delay", "drive-states")


def register(sub) -> None:
    p = sub.add_parser("study", help=f"reproduce a seed's experiment ({', '.join(STUDIES)})")
    p.add_argument("name", choices=STUDIES)
    p.add_argument("--out", default=None, help="output directory (default: out/study-NAME)")
    p.add_argument("--number_ios", type=int, default=None, help="I/Os per point")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--quick", action="store_true", help="fewer points and I/Os (smoke test)")
    p.add_argument("--device", default=None, help="device preset or file (drive-states)")
    p.set_defaults(func=cmd_study)


def cmd_study(args: argparse.Namespace) -> int:
    out = Path(args.out or f"out/study-{args.name}")
    if args.name == "map-cache":
        from ssdlab.studies.map_cache import run_study

        n = args.number_ios or (4000 if args.quick else 20_000)
        print(run_study(out, number_ios=n, seed=args.seed))
    elif args.name == "lba-span":
        from ssdlab.studies.lba_span import run_study

        n = args.number_ios or (20_000 if args.quick else 100_000)
        spans = [1, 16, 64] if args.quick else None
        print(run_study(out, number_ios=n, spans_gib=spans, seed=args.seed))
    elif args.name == "program-delay":
        from ssdlab.studies.program_delay import run_study

        print(run_study(out, quick=args.quick, seed=args.seed))
    else:
        from ssdlab.studies.drive_states import run_study

        device = args.device or "dram-ssd"
        print(run_study(out, device=device, quick=args.quick, seed=args.seed))
    return 0
