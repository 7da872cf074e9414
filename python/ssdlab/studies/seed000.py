"""What the two seed-000 studies share (`hmb-vs-dram`, `hmb-size`): the test matrix and its
command-line checks, the devices per density, the points in run order, and the figures.

A point is (density, drive state, workload, queue count, device or HMB size). The workload is
one of seed 000's six (python/ssdlab/workloads.py) with ``queues = N`` and ``queue_policy =
round-robin``: the seed's custom driver creates N NVMe I/O queues and the commands go to them
in turn; "max" is the device's ``host.io_queues``.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

from ssdlab import api
from ssdlab.cli import UsageError
from ssdlab.studies import seed000_data as seed
from ssdlab.studies.common import plot, run_points  # noqa: F401 (s.run_points)
from ssdlab.workloads import WORKLOADS as NAMED

# The drive states the studies run, by ssdlab name (docs/flash-management.md). The seed's
# wording -> ssdlab: Normal "No Pre-Condition" -> normal (fresh); Sustain "Turbo area
# Pre-Conditioned" -> sustain (SLC area full); Aging "Full Drive Pre-conditioned" -> aging
# (every LBA written, GC steady, SLC area full). STATE_FOR maps a (state, workload) to the
# ssdlab state that prepares it, so a read test can later run on a drive whose read area was
# written first (a state the core does not have yet) without changing the study.
STATES: tuple[str, ...] = seed.STATES
# The sequential tests' "Aging" (a full drive) is the full sequential fill with the SLC
# area exhausted; the random tests' is random steady state (docs/seed000.md).
STATE_FOR: dict[tuple[str, str], str] = {
    ("aging", "seq-write-128k-t1-qd32"): "full-slc-exhausted",
    ("aging", "seq-read-128k-t1-qd32"): "full-slc-exhausted",
}
WORKLOADS: tuple[str, ...] = seed.WORKLOADS
DENSITIES: tuple[str, ...] = seed.DENSITIES
QUEUES: tuple[str, ...] = seed.QUEUES
DEFAULT_DEVICES = ("seed000-dram", "seed000-hmb")
HIGH_SUFFIX = "-1tb"

# I/Os per job for each workload (T16 workloads: per thread, 16 threads). Chosen so that a
# point's simulation costs well under a second on one core beside its drive preparation (the
# aging preparation, 3-9 s, dominates until prepared drives are reused): 1 GiB per sequential
# point, 50,000 random I/Os per point. --quick runs a quarter of each.
NUMBER_IOS = {
    seed.SEQ_WRITE: 8_000,
    seed.SEQ_READ: 8_000,
    seed.RR_T1: 50_000,
    seed.RR_T16: 3_125,
    seed.RW_T1: 50_000,
    seed.RW_T16: 3_125,
}
QUICK_DIVISOR = 4
# Aged random writes run for simulated time instead, measured after a ramp: a DRAM-less
# drive's rate there is set by its map journal's flushes against GC's relocations, which
# settle only after the journal has filled and the dies' GC cycles have turned over (a
# 50,000-write run ends within the first 1.3 s, before that: HMB and DRAM within 1 %,
# while 30 s runs measured after 10 s give DRAM +183 %; docs/seed000.md).
# --quick keeps them: over 3-6 s the HMB drive is still spending free blocks that its GC,
# waiting for room in the journal, has not yet made up (it came out 20 % ahead of the DRAM
# drive there); by 10 s the debt is paid and it settles below.
AGED_RANDOM_WRITE = {"runtime": "20s", "ramp_time": "10s"}
QUICK_QUEUES = ("1", "max")
QUICK_DENSITIES = ("low",)


@dataclass
class Matrix:
    """What a study runs; built from the command line by :func:`matrix_from_args`."""

    devices: list[str]
    densities: list[str] = field(default_factory=lambda: list(DENSITIES))
    states: list[str] = field(default_factory=lambda: list(STATES))
    queues: list[str] = field(default_factory=lambda: list(QUEUES))
    workloads: list[str] = field(default_factory=lambda: list(WORKLOADS))
    quick: bool = False
    number_ios: int | None = None
    seed: int = 1
    # LBA span of every test (fio's size); None: the whole drive.
    span: str | None = None

    def timed(self, state: str, workload: str) -> dict | None:
        """fio time options of a point that runs for simulated time (aged random
        writes), or None for a point that runs a number of I/Os."""
        if self.number_ios or state != "aging" or workload not in (seed.RW_T1, seed.RW_T16):
            return None
        return dict(AGED_RANDOM_WRITE)

    def ios(self, workload: str) -> int:
        if self.number_ios:
            return self.number_ios
        n = NUMBER_IOS[workload]
        return max(1, n // QUICK_DIVISOR) if self.quick else n


def add_args(p: argparse.ArgumentParser) -> None:
    """The matrix flags of `ssdlab study hmb-vs-dram|hmb-size`."""
    p.add_argument(
        "--devices",
        help="hmb-vs-dram: DRAM device then HMB device, comma-separated (default "
        "seed000-dram,seed000-hmb); hmb-size: the HMB device (the last one given). High density "
        "uses each device's -1tb variant",
    )
    p.add_argument("--density", help=f"comma-separated: {', '.join(DENSITIES)} (default both)")
    p.add_argument("--states", help=f"comma-separated: {', '.join(STATES)} (default all)")
    p.add_argument("--queues", help=f"comma-separated: {', '.join(QUEUES)} or any count")
    p.add_argument("--workloads", help=f"comma-separated: {', '.join(WORKLOADS)}")
    p.add_argument(
        "--span",
        help="LBA span of every test, e.g. 16GiB (default: the whole drive; the seed does not "
        "say how much of the drive its IOMeter tests covered)",
    )


MATRIX_FLAGS = ("devices", "density", "states", "queues", "workloads", "span")


def _split(flag: str, text: str) -> list[str]:
    items = [x.strip() for x in text.split(",")]
    if not text.strip() or any(not x for x in items):
        raise UsageError(f"--{flag}: '{text}' has an empty item (a comma-separated list)")
    return list(dict.fromkeys(items))


NOUNS = {"density": "a density", "states": "a drive state", "workloads": "a seed-000 workload"}


def _choose(flag: str, text: str | None, allowed, default) -> list[str]:
    if text is None:
        return list(default)
    items = _split(flag, text)
    for x in items:
        if x not in allowed:
            raise UsageError(
                f"--{flag}: '{x}' is not {NOUNS[flag]} (allowed: {', '.join(allowed)})"
            )
    return items


def _queues(text: str | None, default) -> list[str]:
    if text is None:
        return list(default)
    out = []
    for x in _split("queues", text):
        x = x.lower()
        if x != "max" and not (x.isdigit() and int(x) > 0):
            raise UsageError(
                f"--queues: '{x}' is not a queue count (allowed: {', '.join(QUEUES)}, or any "
                "positive count up to the device's host.io_queues)"
            )
        out.append(x if x == "max" else str(int(x)))
    return list(dict.fromkeys(out))


def matrix_from_args(
    args: argparse.Namespace, *, n_devices: tuple[int, ...], default, hint: str
) -> Matrix:
    """Check the flags (ssdlab: error naming the flag and the allowed values on bad input)."""
    quick = bool(args.quick)
    devices = _split("devices", args.devices) if args.devices else list(default)
    if len(devices) not in n_devices:
        want = " or ".join(str(n) for n in n_devices)
        raise UsageError(
            f"--devices: expected {want} device(s) ({hint}), got {len(devices)}: {args.devices}"
        )
    m = Matrix(
        devices=devices,
        densities=_choose(
            "density", args.density, DENSITIES, QUICK_DENSITIES if quick else DENSITIES
        ),
        states=_choose("states", args.states, STATES, STATES),
        queues=_queues(args.queues, QUICK_QUEUES if quick else QUEUES),
        workloads=_choose("workloads", args.workloads, WORKLOADS, WORKLOADS),
        quick=quick,
        number_ios=args.number_ios,
        seed=args.seed,
        span=getattr(args, "span", None),
    )
    if m.number_ios is not None and m.number_ios <= 0:
        raise UsageError(f"--number_ios: {m.number_ios} must be a positive count")
    if m.span is not None:
        for device in m.devices:
            cap = int(api.validate(device)["capacity_bytes"])
            try:
                api.validate_workload({"size": m.span}, cap)
            except api.ConfigError as e:
                raise UsageError(f"--span: '{m.span}' on {device}: {e}") from None
    return m


def device_for(device: str, density: str) -> str:
    """The device of a density: low is the device as given, high its "-1tb" variant (a
    preset NAME-1tb, or a file STEM-1tb.SUFFIX next to the given file)."""
    if density == "low":
        return device
    if device in api.presets():
        want = device + HIGH_SUFFIX
        if want in api.presets():
            return want
        want = f"a preset '{want}'"
    else:
        p = Path(device)
        q = p.with_name(p.stem + HIGH_SUFFIX + p.suffix)
        if q.is_file():
            return str(q)
        want = f"a file {q}"
    raise UsageError(
        f"--density: high needs a high-density variant of '{device}' ({want}); "
        "run with --density low"
    )


_MAX_QUEUES: dict[str, int] = {}


def max_queues(device: str) -> int:
    """The device's host.io_queues: the seed's "Max-Q"."""
    if device not in _MAX_QUEUES:
        _MAX_QUEUES[device] = int(api.validate(device)["host"]["io_queues"])
    return _MAX_QUEUES[device]


def queue_count(device: str, q: str) -> int:
    top = max_queues(device)
    if q == "max":
        return top
    n = int(q)
    if n > top:
        raise UsageError(f"--queues: {n} is more than {device}'s host.io_queues ({top})")
    return n


def state_for(state: str, workload: str) -> str:
    return STATE_FOR.get((state, workload), state)


def point_run(device: str, state: str, workload: str, n_queues: int, m: Matrix, **extra) -> dict:
    """run_many() arguments of one point."""
    wl = dict(NAMED[workload])
    timed = m.timed(state, workload)
    if timed:
        del wl["number_ios"]  # the run ends at its runtime
        wl.update(timed)
    else:
        wl["number_ios"] = m.ios(workload)
    wl["queue_policy"] = "round-robin"
    if m.span is not None:
        wl["size"] = m.span
    return {
        "device": device,
        "workload": wl,
        "queues": n_queues,
        "state": state_for(state, workload),
        "seed": m.seed,
        **extra,
    }


def ios_line(m: Matrix) -> str:
    """Which run lengths the study used."""
    per = ", ".join(f"{wl} {m.ios(wl):,}" for wl in m.workloads)
    how = f" (quick: 1/{QUICK_DIVISOR} of the full run)" if m.quick and not m.number_ios else ""
    span = f"the first {m.span} of the drive" if m.span else "the whole drive"
    aged = m.timed("aging", seed.RW_T1)
    timed = (
        f" Aged random writes: {aged['runtime']} of simulated time, measured after a "
        f"{aged['ramp_time']} ramp."
        if aged and any(wl in (seed.RW_T1, seed.RW_T16) for wl in m.workloads)
        else ""
    )
    return f"I/Os per job{how}: {per}.{timed} LBA span: {span}."


def is_seq(workload: str) -> bool:
    return workload.startswith("seq-")


def unit_of(workload: str) -> str:
    return "MB/s" if is_seq(workload) else "IOPS"


def value_of(row: dict, workload: str) -> float:
    """MB/s (10^6 B/s) for the sequential workloads, IOPS for the random ones, from a
    result row of the sweep engine."""
    direction = "write" if "write" in workload else "read"
    if is_seq(workload):
        return row[f"{direction}_bw_bytes"] / 1e6
    return row[f"{direction}_iops"]


def pct(x: float, base: float) -> float:
    """(x - base) / base x 100; NaN when the base is zero."""
    return (x - base) / base * 100.0 if base else math.nan


def fmt_value(v: float, workload: str) -> str:
    return f"{v:,.0f}" if is_seq(workload) else f"{v / 1e3:,.1f}K"


def fmt_pct(v: float | None) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "-"
    return f"{v:+.2f}"


def pct_axis(ax) -> None:
    """A % axis that includes 0, so that a flat line looks flat."""
    lo, hi = ax.get_ylim()
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    pad = (hi - lo) * 0.08 or 1.0
    ax.set_ylim(lo - pad, hi + pad)


def fmt_bytes(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):g} {unit}"
    return f"{n} B"


def qlabel(q: str) -> str:
    return "Max-Q" if q == "max" else f"{q}Q"


def write_plots(out_dir: Path, csv_path: Path, m: Matrix, draw) -> str:
    """One PNG per workload (``draw(plt, workload)``); the study's "wrote ..." line."""
    written = [csv_path]
    for wl in m.workloads:
        png = out_dir / f"{wl}.png"
        if plot(png, lambda plt, wl=wl: draw(plt, wl)):
            written.append(png)
    if len(written) == 1:
        return f"wrote {csv_path} (no plots: matplotlib not installed)"
    n = len(written) - 1
    return f"wrote {csv_path} and {n} plot{'s' if n > 1 else ''} in {out_dir}"


class Timer:
    def __init__(self):
        self.t0 = time.perf_counter()

    def line(self) -> str:
        return f"wall time {time.perf_counter() - self.t0:.1f} s"
