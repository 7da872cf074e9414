"""``ssdlab study NAME``: the seeds' experiments."""

from __future__ import annotations

import argparse
from pathlib import Path

from ssdlab.cliutil import UsageError
from ssdlab.studies import seed000

STUDIES = (
    "map-cache",
    "lba-span",
    "program-delay",
    "drive-states",
    "hmb-vs-dram",
    "hmb-size",
    "nvmeof",
    "mqsim",
    "power",
    "power-events",
    "placement",
)


def register(sub) -> None:
    p = sub.add_parser("study", help=f"reproduce a seed's experiment ({', '.join(STUDIES)})")
    p.add_argument("name", choices=STUDIES)
    p.add_argument("--out", default=None, help="output directory (default: out/study-NAME)")
    p.add_argument("--number_ios", type=int, default=None, help="I/Os per point")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--quick", action="store_true", help="fewer points and I/Os (smoke test)")
    p.add_argument(
        "--device", default=None, help="device preset or file (drive-states, mqsim, nvmeof)"
    )
    p.add_argument(
        "--alpha",
        default=None,
        help="program-delay: adaptive delay's alpha, or a comma-separated list to sweep "
        "(e.g. 0us,20us,100us; default 20us)",
    )
    p.add_argument(
        "--scale",
        default=None,
        help="program-delay: the drives' size: full (default), 1/4 (the --quick default) or 1/16",
    )
    seed000.add_args(p)
    p.set_defaults(func=cmd_study)


def cmd_study(args: argparse.Namespace) -> int:
    out = Path(args.out or f"out/study-{args.name}")
    from ssdlab import outputs

    outputs.check_dir(out, "--out")
    if args.name in ("hmb-vs-dram", "hmb-size"):
        return _seed000(args, out)
    given = [
        f"--{f.replace('_', '-')}" for f in seed000.MATRIX_FLAGS if getattr(args, f) is not None
    ]
    if given:
        raise UsageError(f"{', '.join(given)}: only for the hmb-vs-dram and hmb-size studies")
    own = [f"--{f}" for f in ("alpha", "scale") if getattr(args, f) is not None]
    if own and args.name != "program-delay":
        raise UsageError(f"{', '.join(own)}: only for the program-delay study")
    if args.name == "map-cache":
        from ssdlab.studies.map_cache import run_study

        n = args.number_ios or (4000 if args.quick else 20_000)
        print(run_study(out, number_ios=n, seed=args.seed))
    elif args.name == "lba-span":
        from ssdlab.studies.lba_span import run_study

        n = args.number_ios or (20_000 if args.quick else 100_000)
        spans = [1, 16, 64] if args.quick else None
        print(run_study(out, number_ios=n, spans_gib=spans, seed=args.seed))
    elif args.name == "nvmeof":
        from ssdlab.studies.nvmeof import DEVICE, run_study

        print(run_study(out, quick=args.quick, seed=args.seed, device=args.device or DEVICE))
    elif args.name == "mqsim":
        from ssdlab.studies.mqsim import run_study

        print(
            run_study(out, quick=args.quick, seed=args.seed, device=args.device or "mqsim-default")
        )
    elif args.name == "power":
        from ssdlab.studies.power import run_study

        print(run_study(out, quick=args.quick, seed=args.seed))
    elif args.name == "power-events":
        from ssdlab.studies.power_events import run_study

        print(run_study(out, quick=args.quick, seed=args.seed))
    elif args.name == "placement":
        from ssdlab.studies.placement import run_study

        print(run_study(out, quick=args.quick, seed=args.seed))
    elif args.name == "program-delay":
        from ssdlab.studies.program_delay import parse_alphas, run_study

        alphas = parse_alphas(args.alpha) if args.alpha is not None else None
        print(run_study(out, quick=args.quick, seed=args.seed, alphas=alphas, scale=args.scale))
    else:
        from ssdlab.studies.drive_states import run_study

        device = args.device or "dram-ssd"
        print(run_study(out, device=device, quick=args.quick, seed=args.seed))
    return 0


def _seed000(args: argparse.Namespace, out: Path) -> int:
    if args.device is not None:
        raise UsageError(f"--device: {args.name} takes --devices (comma-separated)")
    if args.name == "hmb-vs-dram":
        from ssdlab.studies.hmb_vs_dram import run_study

        m = seed000.matrix_from_args(
            args,
            n_devices=(2,),
            default=seed000.DEFAULT_DEVICES,
            hint="the DRAM device, then the HMB device",
        )
    else:
        from ssdlab.studies.hmb_size import run_study

        m = seed000.matrix_from_args(
            args,
            n_devices=(1, 2),
            default=seed000.DEFAULT_DEVICES[1:],
            hint="the HMB device, or the DRAM and HMB devices of hmb-vs-dram",
        )
    print(run_study(out, m))
    return 0
