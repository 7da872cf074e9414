"""The ``ssdlab`` command line: run, presets, workloads, validate, bench.

Every subcommand lives in a function ``cmd_<name>`` registered in ``build_parser``;
user errors print ``ssdlab: error: …`` on stderr and exit with status 2.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import sys
from pathlib import Path

from ssdlab import api, outputs
from ssdlab.api import ConfigError
from ssdlab.cliutil import (  # ssdlab.cli.UsageError etc. stay importable
    UsageError,
    add_max_memory_arg,
    print_warnings,
    write_atomically,
)
from ssdlab.workloads import IOMETER_PREFIX, WORKLOADS, named_workload

# fio options that `ssdlab run` takes as flags (fio's names and meanings).
FIO_FLAGS = [
    (
        "rw",
        "access pattern: read, write, randread, randwrite, rw/readwrite, randrw, trim, randtrim",
    ),
    ("bs", "block size, e.g. 4k, 128KiB (multiple of 512)"),
    ("rwmixread", "percentage of reads in a mixed workload"),
    ("iodepth", "outstanding I/Os per job"),
    ("numjobs", "number of jobs (host threads)"),
    ("queues", "NVMe I/O queues the host creates (default: one per job, capped by the device)"),
    ("queue_policy", "per-thread (blk-mq) or round-robin"),
    ("offset", "start of the LBA span, e.g. 0, 1GiB"),
    ("size", "length of the LBA span, e.g. 1GiB"),
    ("number_ios", "I/Os per job before it stops"),
    ("io_size", "bytes per job before it stops"),
    ("runtime", "simulated time limit; a bare number is seconds (as in fio), e.g. 30, 100ms"),
    ("ramp_time", "simulated warm-up excluded from statistics (bare number: seconds), e.g. 10ms"),
    (
        "host_cpu_per_io",
        "host model (not fio): CPU time a job's thread spends per I/O, e.g. 5us (bare: us; "
        "default 0)",
    ),
    (
        "host_irq_per_io",
        "host model (not fio): interrupt-handler time per completion on its queue's CPU, "
        "e.g. 2us (bare: us; default 0)",
    ),
    (
        "random_generator",
        "tausworthe (default) or tausworthe64: fio's random map, a new order "
        "each pass; lfsr: the same order each pass",
    ),
]

DEFAULT_WORKLOAD = {"rw": "randread", "bs": "4KiB", "iodepth": 32, "number_ios": 200_000}


def apply_max_memory(args: argparse.Namespace) -> None:
    """Set the process's memory limit from ``--max-memory`` (checked before any run)."""
    value = getattr(args, "max_memory", None)
    if value is None:
        return
    from ssdlab.probe.cli import parse_size

    api.DEFAULT_MAX_MEMORY = parse_size(value, "--max-memory")


class _DuplicateKey(Exception):
    pass


def _no_duplicate_keys(pairs: list) -> dict:
    seen: dict = {}
    for k, v in pairs:
        if k in seen:
            raise _DuplicateKey(k)
        seen[k] = v
    return seen


def _load_workload_arg(value: str) -> dict:
    if value in WORKLOADS or value.startswith(IOMETER_PREFIX):
        return named_workload(value)
    p = Path(value)
    try:
        is_file = p.is_file()
    except OSError as e:  # a name too long, a loop of symlinks
        raise UsageError(f"--workload: '{outputs.shown(value)}': {e.strerror or e}") from None
    if is_file:
        try:
            data = json.loads(p.read_text(), object_pairs_hook=_no_duplicate_keys)
        except _DuplicateKey as e:
            raise UsageError(
                f"{p}: option '{e}' is given twice in one object (allowed: each option once)"
            ) from None
        except json.JSONDecodeError as e:
            raise UsageError(f"{p}:{e.lineno}: not valid JSON: {e.msg}") from None
        except UnicodeDecodeError as e:
            raise UsageError(
                f"{p}: not a text file (byte 0x{e.object[e.start]:02x} at offset {e.start} is "
                "not UTF-8; expected a JSON object of fio options)"
            ) from None
        except RecursionError:
            raise UsageError(
                f"{p}: JSON nested too deeply (expected one JSON object of fio options)"
            ) from None
        except OSError as e:
            raise UsageError(f"{p}: cannot read workload file: {e.strerror or e}") from None
        if not isinstance(data, dict):
            raise UsageError(
                f"{p}: a workload file holds one JSON object of fio options "
                f"(expected {{...}}, got a {type(data).__name__})"
            )
        return data
    raise UsageError(
        f"--workload: '{value}' is neither a named workload ({', '.join(WORKLOADS)}), "
        "an iometer:SIZE,%SPEC,%READ,%RANDOM access spec, nor a JSON file"
    )


def add_device_args(p: argparse.ArgumentParser, default: str | None = api.DEFAULT_DEVICE) -> None:
    p.add_argument(
        "--device",
        default=default,
        help=f"preset name or .toml/.json device file, or several (A,B,C) to compare "
        f"them in one table (default: {default})",
    )
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a device field, e.g. --set nand.t_read=60us (repeatable)",
    )
    p.add_argument(
        "--energy",
        action="store_true",
        help="model energy and NVMe power states (power.enabled=true): the report gains an "
        "energy block, the summary a power line, a comparison energy columns (docs/power.md)",
    )


def _run_compare(args: argparse.Namespace, devices: list[str], workload: dict) -> int:
    """``ssdlab run --device A,B,C``: the same work on each device, one table."""
    from ssdlab import comparison as compare

    reports = {}
    for dev in devices:
        label = compare.device_label(dev)
        reports[label] = api.run(
            dev,
            workload,
            state=args.state,
            seed=args.seed,
            set=args.set,
            verify=args.verify,
            threads=args.threads,
        )
        print_warnings(reports[label])
    if args.json == "-":
        print(json.dumps({k: r.to_dict() for k, r in reports.items()}, indent=2))
    else:
        if args.json:
            compare.write_each({k: r.to_json() + "\n" for k, r in reports.items()}, args.json)
        if not args.quiet:
            print(compare.table_text(reports))
    if args.verify:
        return max(verify_verdict(r.to_dict(), label) for label, r in reports.items())
    return 0


def parse_settle(text: str) -> dict:
    """``--settle FIRST[:TOL[:hold]]`` to the workload's ``settle`` table."""
    parts = text.split(":")
    allowed = "FIRST[:TOL[:hold]], e.g. 6s, 6s:5%, 12s:5%:hold"
    if not parts[0] or len(parts) > 3 or (len(parts) == 3 and parts[2] != "hold"):
        raise UsageError(f"--settle: '{text}' is not allowed ({allowed})")
    rule: dict = {"first_check": parts[0]}
    if len(parts) > 1 and parts[1]:
        tol = parts[1]
        try:
            rule["tolerance"] = float(tol[:-1]) / 100 if tol.endswith("%") else float(tol)
        except ValueError:
            raise UsageError(
                f"--settle: tolerance '{tol}' is not a number (a percentage such as 5% or a "
                "fraction such as 0.05)"
            ) from None
    if len(parts) == 3:
        rule["hold"] = True
    return rule


def parse_host_log(text: str) -> dict:
    """``--host_log [STREAMS[:GC_FREE_ZONES[:BG_FREE_ZONES]]]``: the host store's table
    (docs/zns-fdp.md); empty for its defaults (one stream per job, 2 empty zones, no
    background collection)."""
    parts = text.split(":") if text else []
    if len(parts) > 3 or not all(p.isdigit() for p in parts):
        raise UsageError(
            f"--host_log: '{outputs.shown(text)}' is not STREAMS[:GC_FREE_ZONES[:BG_FREE_ZONES]] "
            "(whole numbers, e.g. 8:2 or 8:2:4; '' or 0 streams: one per job)"
        )
    out: dict = {}
    if parts:
        out["streams"] = int(parts[0])
    if len(parts) >= 2:
        out["gc_free_zones"] = int(parts[1])
    if len(parts) == 3:
        out["bg_free_zones"] = int(parts[2])
    return out


def cmd_run(args: argparse.Namespace) -> int:
    workload = dict(DEFAULT_WORKLOAD)
    if args.workload:
        workload = _load_workload_arg(args.workload)
    given = {name: getattr(args, name) for name, _ in FIO_FLAGS if getattr(args, name) is not None}
    if args.norandommap:
        given["norandommap"] = True
    if args.fdp or args.plids or args.plid_select:
        from ssdlab.fio.parser import JobFileError
        from ssdlab.fio.zones import plid_list

        place: dict = {"select": args.plid_select or "roundrobin"}
        if args.plids:
            try:
                place["plids"] = plid_list(args.plids, "--plids", "plids")
            except JobFileError as e:
                raise UsageError(str(e)) from None
        given["fdp"] = place
    if args.event:
        given["events"] = [parse_event(e) for e in args.event]
    if args.zone_append:
        given["zone_append"] = True
    if args.zone_op:
        given["zone_ops"] = [parse_zone_op(z) for z in args.zone_op]
    if args.fdp_op:
        given["fdp_ops"] = [parse_fdp_op(z) for z in args.fdp_op]
    if args.host_log is not None:
        given["host_log"] = parse_host_log(args.host_log)
    if args.settle:
        given["settle"] = parse_settle(args.settle)
    # An explicit stop rule replaces the default one rather than adding to it.
    if any(k in given for k in ("number_ios", "io_size", "runtime")) and not args.workload:
        workload.pop("number_ios", None)
    if "jobs" in workload:
        jobs = workload["jobs"]
        if not isinstance(jobs, list) or not jobs or not all(isinstance(j, dict) for j in jobs):
            raise UsageError(
                f"--workload: jobs: {json.dumps(jobs)[:60]} is not allowed "
                "(a non-empty list of job objects of fio options)"
            )
        for j in jobs:
            j.update(given)
    else:
        workload.update(given)
    from ssdlab.comparison import check_devices

    devices = check_devices(args.device)
    outputs.check_json_flag(args.json, len(devices) > 1)
    if len(devices) > 1:
        return _run_compare(args, devices, workload)
    report = api.run(
        args.device,
        workload,
        state=args.state,
        seed=args.seed,
        set=args.set,
        verify=args.verify,
        progress=not args.quiet and sys.stderr.isatty(),
        threads=args.threads,
    )
    print_warnings(report)
    if args.json == "-":
        print(report.to_json())
    else:
        if args.json:
            write_atomically(args.json, report.to_json() + "\n", "--json")
        if not args.quiet:
            print(report.summary())
    if args.verify:
        return verify_verdict(report.to_dict())
    return 0


EVENT_KINDS = ("reset", "suspend-resume", "hmb-disable", "hmb-enable", "power-loss")
EVENT_KEYS = ("memory_return", "duration", "window", "windows")


def parse_event(text: str) -> dict:
    """``--event AT:KIND[:KEY=VALUE...]`` (e.g. ``0.3s:reset:memory_return=false``,
    ``1s:suspend-resume:duration=2s``) as one entry of the workload's ``events``."""
    parts = text.split(":")
    if len(parts) > 1 and parts[1] == "power_loss":
        parts[1] = "power-loss"
    allowed = f"AT:KIND[:KEY=VALUE...], KIND one of {', '.join(EVENT_KINDS)}"
    if len(parts) < 2 or not parts[0] or parts[1] not in EVENT_KINDS:
        raise UsageError(f"--event: '{outputs.shown(text)}' is not allowed ({allowed})")
    event: dict = {"at": parts[0], "kind": parts[1]}
    for kv in parts[2:]:
        key, sep, value = kv.partition("=")
        if not sep or key not in EVENT_KEYS:
            raise UsageError(
                f"--event: '{outputs.shown(kv)}' in '{outputs.shown(text)}' is not allowed "
                f"(KEY=VALUE, KEY one of {', '.join(EVENT_KEYS)})"
            )
        if key == "memory_return":
            if value not in ("true", "false"):
                raise UsageError(f"--event: memory_return={outputs.shown(value)} is not allowed "
                                 "(true or false)")
            event[key] = value == "true"
        elif key == "windows":
            if not value.isdigit():
                raise UsageError(f"--event: windows={outputs.shown(value)} is not allowed "
                                 "(a whole number)")
            event[key] = int(value)
        else:
            event[key] = value
    return event


ZONE_ACTIONS = ("open", "close", "finish", "reset", "open_zrwa", "flush")


def parse_zone_op(text: str) -> dict:
    """``--zone-op AT:ACTION:ZONE`` (e.g. ``5ms:finish:3``), or ``AT:flush:ZONE:UPTO``
    (e.g. ``2ms:flush:3:64KiB``: commit the zone's ZRWA up to its first 64 KiB), as one
    entry of the workload's ``zone_ops``: a Zone Management Send on a zoned drive."""
    parts = text.split(":")
    allowed = (
        f"AT:ACTION:ZONE, ACTION one of {', '.join(ZONE_ACTIONS)}, ZONE a zone number; "
        "flush takes AT:flush:ZONE:UPTO, UPTO the bytes from the zone's start it commits"
    )
    flush = len(parts) == 4 and parts[1] == "flush" and bool(parts[3])
    if (
        not ((len(parts) == 3 and parts[1] != "flush") or flush)
        or not parts[0]
        or parts[1] not in ZONE_ACTIONS
        or not parts[2].isdigit()
    ):
        raise UsageError(f"--zone-op: '{outputs.shown(text)}' is not allowed ({allowed})")
    op = {"at": parts[0], "action": parts[1], "zone": int(parts[2])}
    if flush:
        op["upto"] = parts[3]
    return op


def parse_fdp_op(text: str) -> dict:
    """``--fdp-op AT:ruh_update:PID[,PID...]`` (e.g. ``5ms:ruh_update:1,2``) as one entry
    of the workload's ``fdp_ops``: an I/O Management Send (Reclaim Unit Handle Update of
    the placement IDs listed) on a drive with FDP."""
    parts = text.split(":")
    allowed = "AT:ruh_update:PIDS, PIDS placement IDs separated by commas, e.g. 5ms:ruh_update:1,2"
    pids = parts[2].split(",") if len(parts) == 3 else []
    if (
        len(parts) != 3
        or not parts[0]
        or parts[1] != "ruh_update"
        or not pids
        or not all(p.isdigit() for p in pids)
    ):
        raise UsageError(f"--fdp-op: '{outputs.shown(text)}' is not allowed ({allowed})")
    return {"at": parts[0], "action": parts[1], "pids": [int(p) for p in pids]}


def verify_verdict(data: dict, label: str = "") -> int:
    """``--verify``: 1 with one error line per drive whose FTL oracle found stale reads
    (or that the core did not check), else 0. Works for a drive's and a system's report."""
    from ssdlab.report import oracles

    rc = 0
    for drive, oracle in oracles(data):
        where = " ".join(x for x in (label, f"drive {drive}" if drive else "") if x)
        where = f"{where}: " if where else ""
        if oracle is None:
            print(
                f"ssdlab: error: {where}the FTL oracle did not run (--verify was not applied)",
                file=sys.stderr,
            )
            rc = 1
        elif oracle.get("mismatches"):
            print(
                f"ssdlab: error: {where}FTL oracle found {oracle['mismatches']} stale reads "
                f"of {oracle.get('checked', '?')} checked",
                file=sys.stderr,
            )
            rc = 1
    return rc


def cmd_presets(args: argparse.Namespace) -> int:
    if args.show:
        from ssdlab.configdoc import resolved_toml

        sys.stdout.write(resolved_toml(args.show))
        return 0
    names = api.presets()
    width = max(len(n) for n in names)
    for name, desc in names.items():
        print(f"{name:<{width}}  {desc}")
    return 0


def cmd_workloads(args: argparse.Namespace) -> int:
    width = max(len(n) for n in WORKLOADS)
    for name, opts in WORKLOADS.items():
        print(f"{name:<{width}}  " + " ".join(f"{k}={v}" for k, v in opts.items()))
    print(
        "\nAlso: iometer:SIZE,%SPEC,%READ,%RANDOM[,DELAY,BURST,ALIGN,REPLY] (IOMeter access-spec"
        " lines, ';'-separated), a JSON file of fio options, or a fio job file (ssdlab fio)."
    )
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    from ssdlab.configdoc import describe_derived, describe_system

    cfg = api.validate(args.file, set=args.set)
    if "system" in cfg:
        text = describe_system(cfg)  # validates each distinct drive: its warnings first
    else:
        print_warnings(cfg)
        text = describe_derived(cfg)
    if args.workload:
        api.validate_workload(_load_workload_arg(args.workload), cfg["capacity_bytes"])
    gb = cfg["capacity_bytes"] / 1e9
    if "system" in cfg:
        from ssdlab.report import human_bytes

        smallest = human_bytes(cfg["capacity_bytes"])
        print(f"{args.file}: ok (system {cfg['system']}, smallest drive {smallest} user capacity)")
    else:
        print(f"{args.file}: ok ({cfg['name']}, {gb:.1f} GB user capacity)")
    print(text)
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    if args.mqsim:
        from ssdlab import bench_mqsim

        return bench_mqsim.main(args)
    for flag in ("mqsim_bin", "mqsim_build", "instructions"):
        if getattr(args, flag):
            raise UsageError(f"--{flag.replace('_', '-')} needs --mqsim DIR")
    from ssdlab import bench

    return bench.main(args)


def _threads_arg(text: str) -> int:
    """``--threads N``: a whole number from 1 to 1024."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if not 1 <= n <= 1024:
        raise argparse.ArgumentTypeError(f"'{text}' is not allowed (a whole number from 1 to 1024)")
    return n


class _Parser(argparse.ArgumentParser):
    """argparse with the house error line: ``ssdlab: error: …`` and exit status 2."""

    def error(self, message: str):
        self.print_usage(sys.stderr)
        self.exit(2, f"ssdlab: error: {self.prog}: {api.clip_message(message)}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="ssdlab",
        description="Fast, deterministic NVMe SSD simulator (DRAM, DRAM-less and HMB drives).",
    )
    parser.add_argument("--version", action="version", version=f"ssdlab {api._core.__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("run", help="simulate one workload on one device and print a summary")
    add_device_args(p)
    p.add_argument("--workload", help=f"named workload ({', '.join(WORKLOADS)}) or JSON file")
    for name, help_text in FIO_FLAGS:
        p.add_argument(f"--{name}", help=help_text)
    p.add_argument(
        "--norandommap",
        action="store_true",
        help="random offsets drawn with replacement (default: as fio, every block of the "
        "span once per pass before any repeats)",
    )
    p.add_argument(
        "--fdp",
        action="store_true",
        help="writes carry FDP placement IDs (fio's fdp=1; a drive with [fdp], e.g. "
        "--set fdp.handles=4; docs/zns-fdp.md)",
    )
    p.add_argument(
        "--plids",
        help="placement-ID indices the writes use, e.g. 0,2-3 (fio's plids; implies --fdp)",
    )
    p.add_argument(
        "--plid_select",
        choices=["roundrobin", "random"],
        help="one of the placement IDs per write, in turn or at random (fio's plid_select; "
        "implies --fdp)",
    )
    p.add_argument(
        "--event",
        action="append",
        metavar="AT:KIND[:KEY=VALUE]",
        help="a host event in the run (repeatable): KIND reset, suspend-resume, power-loss, "
        "hmb-disable or "
        "hmb-enable; KEY memory_return, duration, window, windows; e.g. 0.3s:reset:"
        "memory_return=false (docs/power-events.md)",
    )
    p.add_argument(
        "--zone_append",
        "--zone-append",
        action="store_true",
        help="zoned drive: writes go out as Zone Append to the zone of their offset (fio's "
        "write_mode=zone_append); the completion returns the LBA written (docs/zns-fdp.md)",
    )
    p.add_argument(
        "--host_log",
        "--host-log",
        nargs="?",
        const="",
        metavar="STREAMS[:GC_FREE[:BG_FREE]]",
        help="zoned drive: the jobs write through a log-structured host store that places "
        "their data in zones and collects zones itself (streams: open zones for the jobs' "
        "writes, 0 = one per job; GC_FREE: empty zones kept, default 2; BG_FREE: collect in "
        "the background below this many empty zones, writers going on; docs/zns-fdp.md)",
    )
    p.add_argument(
        "--settle",
        metavar="FIRST[:TOL[:hold]]",
        help="run until the rate has settled, checked at FIRST (e.g. 6s), twice that and so "
        "on up to --runtime (the cap): the two halves of the run's second half agree within "
        "TOL (default 5%%) and resolve it; hold: the run half as long agrees too "
        "(docs/flash-management.md, settle)",
    )
    p.add_argument(
        "--zone-op",
        action="append",
        metavar="AT:ACTION:ZONE",
        help="zoned drive: a Zone Management Send at a set time (repeatable): ACTION open, "
        "close, finish, reset or open_zrwa (open with a Zone Random Write Area); e.g. "
        "5ms:finish:3; AT:flush:ZONE:UPTO commits a ZRWA, e.g. 2ms:flush:3:64KiB "
        "(docs/zns-fdp.md)",
    )
    p.add_argument(
        "--fdp-op",
        action="append",
        metavar="AT:ruh_update:PIDS",
        help="FDP drive: an I/O Management Send at a set time (repeatable): a Reclaim Unit "
        "Handle Update moving each listed placement ID's handle to an empty reclaim unit, "
        "e.g. 5ms:ruh_update:1,2 (docs/zns-fdp.md)",
    )
    p.add_argument(
        "--state",
        default="full",
        choices=api.STATES,
        help="drive condition before the run (default: full)",
    )
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument(
        "--json",
        metavar="FILE",
        help="write the full report as JSON ('-' = stdout); with several devices a "
        "directory that gets one DEVICE.json each",
    )
    p.add_argument(
        "--verify",
        action="store_true",
        help="check every read against the last write of its LBA (FTL oracle)",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no summary, no progress bar")
    p.add_argument(
        "--threads",
        type=_threads_arg,
        metavar="N",
        help="a system file's drives on N threads (default: one per core, at most one per "
        "drive; 1 for a single drive); the report is the same for every N",
    )
    add_max_memory_arg(p)
    p.set_defaults(func=cmd_run)

    p = sub.add_parser("presets", help="list shipped device presets")
    p.add_argument(
        "--show", metavar="NAME", help="print a preset's every section, defaults resolved (TOML)"
    )
    p.set_defaults(func=cmd_presets)

    p = sub.add_parser("workloads", help="list named workloads")
    p.set_defaults(func=cmd_workloads)

    p = sub.add_parser("validate", help="check a device file (and optionally a workload)")
    p.add_argument("file", help="device .toml/.json file or preset name")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--workload", help="named workload or JSON file to check against the device")
    p.set_defaults(func=cmd_validate)

    p = sub.add_parser("bench", help="measure simulator speed and memory (BENCHMARKS.md)")
    p.add_argument("--repeat", type=int, default=3, help="runs per case; the median is reported")
    p.add_argument("--case", action="append", help="run only these cases (repeatable)")
    p.add_argument("--quick", action="store_true", help="tiny cases, for smoke tests")
    p.add_argument(
        "--threads",
        type=_threads_arg,
        metavar="N",
        help="system cases' loop threads (default: one per core, at most one per drive)",
    )
    p.add_argument("--json", metavar="FILE", help="write results as JSON")
    p.add_argument(
        "--mqsim",
        metavar="DIR",
        help="instead: ssdlab beside MQSim, whole process against whole process, on the "
        "MQSim workload-*.xml files and ssdconfig.xml in DIR; "
        "MQSim is built from DIR/source/mqsim-src.tar.gz; --case picks workload files by name",
    )
    p.add_argument("--mqsim-bin", metavar="FILE", help="a built MQSim binary to use instead")
    p.add_argument(
        "--mqsim-build", metavar="DIR", help="where to build MQSim (default ~/.cache/ssdlab/...)"
    )
    p.add_argument(
        "--instructions", action="store_true", help="with --mqsim: count instructions (perf)"
    )
    p.set_defaults(func=cmd_bench)

    for hook in _EXTRA_COMMANDS:
        hook(sub)
    return parser


# Modules that add subcommands through a ``register(subparsers)`` function.
EXTRA_COMMAND_MODULES: list[str] = [
    "ssdlab.plot",
    "ssdlab.profiling",
    "ssdlab.studies.cli",
    "ssdlab.fio.cli",
    "ssdlab.trace",
    "ssdlab.probe.cli",
    "ssdlab.sweep.cli",
    "ssdlab.serve",
]
_EXTRA_COMMANDS: list = []


def _register_extras() -> None:
    import importlib

    if not _EXTRA_COMMANDS:
        for mod in EXTRA_COMMAND_MODULES:
            _EXTRA_COMMANDS.append(importlib.import_module(mod).register)


# Subcommands `build_parser` defines itself: a run of one of them needs none of the
# extra modules (their imports, the sweep engine's asyncio and the fio parser among
# them, are most of a short run's start-up).
CORE_COMMANDS = frozenset({"run", "presets", "workloads", "validate", "bench"})


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    command = next((w for w in words if not w.startswith("-")), None)
    if command not in CORE_COMMANDS:
        _register_extras()
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        for flag in ("json", "output", "out", "csv"):
            if getattr(args, flag, None) == "":
                raise UsageError(f"--{flag}: an empty file name (expected a file name, or -)")
        apply_max_memory(args)
        if getattr(args, "energy", False) and isinstance(getattr(args, "set", None), list):
            args.set.append("power.enabled=true")
        rc = args.func(args)
        sys.stdout.flush()  # a full disk or closed pipe shows here, not at exit
        return rc
    except (ConfigError, UsageError, outputs.OutputError) as e:
        # an echoed value is cut to 80 characters and its length (api.clip_message)
        print(f"ssdlab: error: {api.clip_message(str(e))}", file=sys.stderr)
        return 2
    except api.SimulationError as e:
        print(
            f"ssdlab: error: {api.clip_message(str(e))} (please report it with the device file)",
            file=sys.stderr,
        )
        return 1
    except api.InternalError as e:
        print(f"ssdlab: {api.clip_message(str(e))}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("ssdlab: interrupted", file=sys.stderr)
        return 130
    except OSError as e:
        if e.filename is not None and e.errno in _PATH_ERRNOS:
            # an input path the system cannot resolve, wherever it was checked
            name = outputs.shown(os.fsdecode(e.filename))
            print(f"ssdlab: error: {name}: {e.strerror}", file=sys.stderr)
            return 2
        if e.filename is not None or e.errno not in _OUTPUT_ERRNOS:
            raise
        # standard output on a full disk, a closed pipe, ...: one line, no traceback
        try:
            print(f"ssdlab: error: standard output: cannot write: {e.strerror}", file=sys.stderr)
            # what is still buffered cannot be written either: drop it quietly at exit
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 2


_OUTPUT_ERRNOS = {errno.ENOSPC, errno.EPIPE, errno.EIO, errno.EDQUOT, errno.EFBIG}
_PATH_ERRNOS = {errno.ENAMETOOLONG, errno.ELOOP}


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
