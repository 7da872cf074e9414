"""``ssdlab fio JOBFILE``: shaped like the fio command."""

from __future__ import annotations

import argparse
import sys


def register(sub) -> None:
    p = sub.add_parser("fio", help="run a fio job file on a simulated drive (fio output formats)")
    p.add_argument("jobfile")
    p.add_argument("--device", default="client-tlc-dram",
                   help="preset name or device file, or several (A,B,C): the job on each, "
                        "one table; --output then names a directory")  # fmt: skip
    p.add_argument("--state", default="full", help="drive condition (default: full)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="device override, e.g. nand.t_read=60us")  # fmt: skip
    p.add_argument("--output-format", default="normal",
                   help="normal, json, json+ or terse (comma-separated for several)")  # fmt: skip
    p.add_argument("--output", default=None, help="write to FILE instead of stdout")
    p.add_argument("--parse-only", action="store_true", help="check the job file and exit")
    p.add_argument("--max-ios", type=int, default=None,
                   help="cap on I/Os per job (0 = none; default: 200000 for jobs without a "
                        "runtime, none for jobs with one)")  # fmt: skip
    from ssdlab.cliutil import add_max_memory_arg

    add_max_memory_arg(p)
    p.set_defaults(func=cmd_fio)


def cmd_fio(args: argparse.Namespace) -> int:
    from ssdlab import api
    from ssdlab.cliutil import UsageError, write_atomically
    from ssdlab.fio import (
        FORMATS,
        JobFileError,
        fio_doc,
        format_output,
        load_jobfile,
        simulate_jobfile,
    )

    fmts = [f.strip() for f in args.output_format.split(",") if f.strip()]
    for f in fmts:
        if f not in FORMATS:
            raise UsageError(
                f"--output-format: '{f}' is not a format (allowed: {', '.join(FORMATS)})"
            )
    if args.max_ios is not None and not 0 <= args.max_ios < 2**64:
        # Before (issue 31's audit) 2^64 and beyond were taken as no cap at all.
        raise UsageError(
            f"--max-ios: {args.max_ios} is not allowed (a whole number from 0 to {2**64 - 1})"
        )
    try:
        jf = load_jobfile(args.jobfile, max_ios="default" if args.max_ios is None else args.max_ios)
    except JobFileError as e:
        raise UsageError(str(e)) from None
    for w in jf.warnings:
        print(f"ssdlab: warning: {w}", file=sys.stderr)
    if jf.not_simulated:
        print(f"ssdlab: not simulated: {', '.join(jf.not_simulated)}", file=sys.stderr)
    if args.parse_only:
        for job in jf.jobs:
            print(job.describe())
        return 0
    from ssdlab import comparison as compare
    from ssdlab import outputs
    from ssdlab.cliutil import print_warnings

    devices = compare.check_devices(args.device)
    outputs.check_json_flag(args.output, len(devices) > 1, "--output")
    texts, reports = {}, {}
    for device in devices:
        api.validate(device, set=args.set)
        try:
            sim, report = simulate_jobfile(
                jf, device, state=args.state, seed=args.seed, set=args.set
            )
        except JobFileError as e:
            raise UsageError(str(e)) from None
        print_warnings(report)
        docs = {plus: fio_doc(sim, jf, plus) for plus in {f == "json+" for f in fmts}}
        text = ""
        for f in fmts:
            text += format_output(docs[f == "json+"], jf, f)
        label = compare.device_label(device)
        texts[label], reports[label] = text, report
    capped = [j.name for j in jf.jobs if j.capped]
    if capped:
        n = jf.jobs[[j.name for j in jf.jobs].index(capped[0])].spec["number_ios"]
        print(
            f"ssdlab: I/Os capped at {n:,} per job for: {', '.join(capped)} "
            "(--max-ios 0 lifts the cap)",
            file=sys.stderr,
        )
    if len(texts) > 1:
        if args.output:
            suffix = ".json" if fmts[0].startswith("json") else ".txt"
            compare.write_each(texts, args.output, suffix)
        print(compare.table_text(reports))
    elif args.output:
        write_atomically(args.output, text, "--output")
    else:
        sys.stdout.write(text)
    return 0
