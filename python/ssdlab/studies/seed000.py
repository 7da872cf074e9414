"""What the two seed-000 studies share (`hmb-vs-dram`, `hmb-size`): the test matrix and its
command-line checks, the devices per density, the points in run order, and the figures.

A point is (density, drive state, workload, queue count, device or HMB size). The workload is
one of seed 000's six (python/ssdlab/workloads.py) with ``queues = N`` and ``queue_policy =
round-robin``: the seed's custom driver creates N NVMe I/O queues and the commands go to them
in turn; "max" is the device's ``host.io_queues``.

Random writes run until they have settled
-----------------------------------------
A random write's rate depends on how long it runs: a DRAM-less drive's map updates (journal
flushes, translation-page writes) and an aged drive's GC take seconds of simulated time to
reach their rate (``seed000-hmb``, Normal, Max-Q: 236 K IOPS in the first 500 ms, 131 K in
the second, 110 K from 2 s on), so a fixed I/O count gives a figure set by the count. Every
random-write point therefore runs until it has settled (:func:`run_matrix`):

1. It runs with the core's settle rule (the workload's ``settle`` table,
   crates/ssdlab-core/src/config/settle.rs), ``SETTLE_CAP_S`` of simulated time at most
   (fio's ``runtime``), logged after a ramp of ``SETTLE_RAMP`` of its first checkpoint
   (``ramp_time``) in 500 ms windows (``SETTLE_WINDOW_MS``: the core's IOPS log, fio's
   ``iops_avg_time``). Its checkpoints are ``SETTLE_START_S`` of simulated time (a point in
   one of ``SETTLE_AGED_STATES``: ``SETTLE_START_AGED_S``), twice that, and so on up to
   the cap. At a checkpoint T the run's figure is the mean IOPS of the windows of its
   second half [T/2, T], 2W windows (W at least ``SETTLE_MIN_WINDOWS``).
2. It has settled (:func:`settle_check`, the core's rule in Python, which checks the
   core's verdict) when the mean IOPS of the last W windows and of the W before differ
   by less than ``SETTLE_TOLERANCE`` of the figure, and the windows are steady enough
   for such a change to show: two standard errors of the difference of the two means
   (``resolution``, from the windows' scatter about their half's mean) below
   ``SETTLE_TOLERANCE`` too. A point on an aged drive must also hold its figure when the
   run doubles: the figure and the mean of the W windows before the 2W (the figure of
   the run half as long) differ by less than ``SETTLE_TOLERANCE``.
3. If so, the core stops the jobs there (the I/Os in flight complete); if not, the same
   run carries on to its next checkpoint. The windows up to T are those a run of length
   T would have logged (the simulator is deterministic and nothing after T changes them),
   so this is the rule of running the point again twice as long without repeating the
   first T. A point that has not settled at the cap is reported as such:
   ``settled=false`` in results.csv, its figures marked ``UNSETTLED_MARK`` in the
   tables, and the study's settle line counts them. The row's other figures (latency,
   WAF) cover the run from its ramp to where it stopped.

Why these values. W is half the second half, so it grows with the run: the test looks for
a drift on the time scale the run measures. 5 % is a drift the studies' conclusions do not
hinge on (their gaps are tens to hundreds of %); the smooth series (window scatter under
1 %) resolve it with W = 3. The resolution condition keeps a noisy series from passing by
luck: an aged DRAM-less drive's windows scatter by ~30 %, so the means of two 3 s halves
differ by up to 15 % with no drift, or by nothing while the rate is still falling. The
6 s start: the HMB drives' Normal and Sustain decays (time constant ~1 s) end within 3 % of
their 16 s rate by its second half. A run settles on the first plateau it reaches, and an
aged drive's first plateau can be a burst its preparation leaves (the aged HMB drive at
1 TB writes ~118 K IOPS at T16 for its first ~6 s, then ~25 K; a 6 s run's second half is
all burst and flat): so aged points start at 12 s, and must show the same figure as the run
half as long, which a burst shorter than 12 s cannot (its 3-6 s windows against the 6-12 s
ones). The Normal and Sustain states do not need that check: their first plateau is the
regime they stand for (a fresh drive writing into its empty SLC area; the DRAM drives fill
it after 9-16 s and then write at their Sustain rate), and their early transients are the
1 s decays above. The 24 s cap is set by the budget of both studies at both densities,
10 minutes on 2 cores; points that would need longer are flagged, not hidden.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from dataclasses import dataclass, field
from pathlib import Path

from ssdlab import api
from ssdlab.cliutil import UsageError
from ssdlab.studies import seed000_data as seed
from ssdlab.studies.common import plot, run_points
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

# I/Os per job of the fixed-length workloads (T16 workloads: per thread, 16 threads): 1 GiB
# per sequential point, 50,000 random reads per point (a read's rate is set from the first
# I/O: nothing it does changes the drive). --quick runs a quarter of each. Random writes
# run until they have settled instead (SETTLE_* below); --number_ios runs every workload,
# random writes too, for that many I/Os.
NUMBER_IOS = {
    seed.SEQ_WRITE: 8_000,
    seed.SEQ_READ: 8_000,
    seed.RR_T1: 50_000,
    seed.RR_T16: 3_125,
}
SETTLED_WORKLOADS = (seed.RW_T1, seed.RW_T16)
QUICK_DIVISOR = 4
QUICK_QUEUES = ("1", "max")
QUICK_DENSITIES = ("high",)


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
    # The host model of every test (workload options host_cpu_per_io, host_irq_per_io):
    # None, a host that costs nothing (the seed's custom driver's costs are not published).
    host_cpu_per_io: str | None = None
    host_irq_per_io: str | None = None
    # Other studies' output directories whose finished runs of the same points are taken
    # instead of being run again (--reuse); ``adopted`` counts them, round by round.
    reuse: list[Path] = field(default_factory=list)
    adopted: list[int] = field(default_factory=list)

    def settles(self, workload: str) -> bool:
        """Whether the workload's points run until they have settled (random writes,
        unless --number_ios fixes every point's length)."""
        return not self.number_ios and workload in SETTLED_WORKLOADS

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
    p.add_argument(
        "--reuse",
        metavar="DIR[,DIR]",
        help="take finished runs of the same points from other studies' --out directories "
        "instead of running them again (hmb-size's Max grant is hmb-vs-dram's HMB device: "
        "--reuse OUT_OF_HMB_VS_DRAM saves a third of hmb-size)",
    )
    p.add_argument(
        "--host-cpu-per-io",
        help="host CPU time a test thread spends per I/O, e.g. 5us (default 0: a host that "
        "costs nothing; the seed's custom driver, 'not built for performance', publishes none)",
    )
    p.add_argument(
        "--host-irq-per-io",
        help="interrupt-handler time per completion on its queue's CPU, e.g. 2us (default 0)",
    )


# The host model's workload options, each a study flag (--host-cpu-per-io, ...).
HOST_KEYS = ("host_cpu_per_io", "host_irq_per_io")
MATRIX_FLAGS = (
    "devices",
    "density",
    "states",
    "queues",
    "workloads",
    "span",
    "reuse",
    *HOST_KEYS,
)


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
        host_cpu_per_io=getattr(args, "host_cpu_per_io", None),
        host_irq_per_io=getattr(args, "host_irq_per_io", None),
        reuse=_reuse_dirs(getattr(args, "reuse", None)),
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
    for key in HOST_KEYS:
        value = getattr(m, key)
        if value is not None:
            try:
                api.validate_workload({key: value}, 1 << 40)
            except api.ConfigError as e:
                raise UsageError(f"--{key.replace('_', '-')}: '{value}': {e}") from None
    return m


def _reuse_dirs(text: str | None) -> list[Path]:
    """--reuse: results directories of earlier studies (each must hold a ``runs`` folder)."""
    if text is None:
        return []
    dirs = []
    for item in _split("reuse", text):
        d = Path(item)
        if not (d / "runs").is_dir():
            raise UsageError(
                f"--reuse: '{item}' is not a study's output directory (no {d / 'runs'} folder; "
                "give the --out of an earlier hmb-vs-dram or hmb-size run)"
            )
        dirs.append(d)
    return dirs


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


# --- random writes run until they have settled (the module docstring) -------------------

SETTLE_WINDOW_MS = 500  # the core's log window (BW_WINDOW_NS), not a free choice
SETTLE_START_S = 6.0
SETTLE_START_AGED_S = 12.0
SETTLE_AGED_STATES = ("aging",)
SETTLE_RAMP = 0.25
SETTLE_TOLERANCE = 0.05
SETTLE_MIN_WINDOWS = 3
SETTLE_CAP_S = 24.0


@dataclass
class Settle:
    """The settle test of one run.

    ``figure``: the mean IOPS of the run's second half, 2W windows (``windows``);
    ``change``: (mean of the last W windows - mean of the W before) / ``figure``;
    ``noise``: the windows' scatter about their half's mean, relative to ``figure`` (pooled
    standard deviation); ``resolution``: the smallest change two means of W such windows
    tell from noise, two standard errors of their difference, ``2 * noise * sqrt(2 / W)``;
    ``doubling``: (``figure`` - the figure of the run half as long, the mean of the W
    windows before the 2W) / ``figure``, for the points that must show it (NaN otherwise)."""

    settled: bool
    figure: float
    change: float
    noise: float
    resolution: float
    windows: int
    doubling: float = math.nan


def settle_check(
    iops: list[float],
    tolerance: float | None = None,
    min_windows: int | None = None,
    doubling: bool = False,
) -> Settle:
    """Whether a run's window rates (oldest first, the windows after its ramp) have
    settled. The run's figure is the mean of its last 2W windows, W at least
    ``min_windows``, and 2W the largest even count with W more before them when
    ``doubling`` (W when not: a series of 2W windows). Settled: the mean of the last W
    windows and the mean of the W before differ by less than ``tolerance`` of the figure,
    and the windows are steady enough for such a change to show (``resolution`` below it);
    with ``doubling``, also the figure and the mean of the W windows before the 2W (the
    figure of the run half as long) differ by less than ``tolerance``. A series without I/O
    has not settled. Defaults: SETTLE_TOLERANCE, SETTLE_MIN_WINDOWS."""
    tolerance = SETTLE_TOLERANCE if tolerance is None else tolerance
    min_windows = SETTLE_MIN_WINDOWS if min_windows is None else min_windows
    w = len(iops) // (3 if doubling else 2)
    nan = math.nan
    if w < min_windows:
        return Settle(False, nan, nan, nan, nan, 2 * w)
    before, last = iops[-2 * w : -w], iops[-w:]
    m0, m1 = sum(before) / w, sum(last) / w
    figure = (m0 + m1) / 2
    if figure <= 0:
        return Settle(False, figure, nan, nan, nan, 2 * w)
    change = (m1 - m0) / figure
    ss = sum((x - m0) ** 2 for x in before) + sum((x - m1) ** 2 for x in last)
    noise = math.sqrt(ss / (2 * w - 2)) / figure if w > 1 else nan  # nan: unknown
    resolution = 2 * noise * math.sqrt(2 / w)
    ok = abs(change) < tolerance and resolution < tolerance
    dbl = nan
    if doubling:
        dbl = (figure - sum(iops[-3 * w : -2 * w]) / w) / figure
        ok = ok and abs(dbl) < tolerance
    return Settle(ok, figure, change, noise, resolution, 2 * w, dbl)


def measured_windows(log: list | str | None, span_s: float) -> list[float]:
    """The IOPS of each whole 500 ms window of a measured span of ``span_s`` seconds, from
    a report's ``iops_log`` (``[[t_ms, iops], ...]``, t_ms the window's end after the ramp;
    JSON text in a sweep row). Windows without I/O are not logged: they count as 0. The
    partial window at the end of the run (its I/Os in flight) is left out."""
    if isinstance(log, str):
        log = json.loads(log)
    if not isinstance(log, list):  # no log (a row stored without one: NaN)
        log = []
    n = round(span_s * 1000) // SETTLE_WINDOW_MS
    out: list[float | None] = [None] * n
    for t_ms, iops in log:
        t = round(t_ms)
        k = t // SETTLE_WINDOW_MS - 1
        if t % SETTLE_WINDOW_MS == 0 and 0 <= k < n and out[k] is None:
            out[k] = float(iops)
    return [0.0 if v is None else v for v in out]


def settle_start(state: str) -> float:
    """The first run of a random-write point in ``state``."""
    return SETTLE_START_AGED_S if state in SETTLE_AGED_STATES else SETTLE_START_S


@dataclass
class Point:
    """One point of a study (its queue count resolved); ``extra``: more run() arguments
    (hmb-size's ``set``)."""

    device: str
    state: str
    workload: str
    queues: int
    extra: dict = field(default_factory=dict)


@dataclass
class Outcome:
    """A point's result: the sweep row of its last run and how long that run was."""

    row: dict
    # None for a fixed-length point (reads, sequential, --number_ios).
    settled: bool | None
    # Simulated seconds of the run (its runtime, and the I/Os in flight at its end).
    sim_s: float
    # A settling point: the runtime of its last run and that run's settle test.
    run_s: float | None = None
    check: Settle | None = None

    def value(self, workload: str) -> float:
        """The point's figure: a settling point's from its windows (:class:`Settle`), a
        fixed-length point's from its row (:func:`value_of`)."""
        if self.check is not None:
            return self.check.figure
        return value_of(self.row, workload)

    def csv(self) -> dict:
        """The settle columns of results.csv."""
        c = self.check
        return {
            "settled": {True: "true", False: "false", None: ""}[self.settled],
            "sim_s": round(self.sim_s, 3),
            "windows": "" if c is None else c.windows,
            "change_pct": _pct_text(c and c.change),
            "resolution_pct": _pct_text(c and c.resolution),
            "doubling_pct": _pct_text(c and c.doubling),
        }


def _pct_text(v: float | None) -> str | float:
    return "" if v is None or math.isnan(v) else round(v * 100, 2)


SETTLE_COLUMNS = [
    "settled",
    "sim_s",
    "windows",
    "change_pct",
    "resolution_pct",
    "doubling_pct",
]


def point_run(p: Point, m: Matrix, settle: bool = False) -> dict:
    """run_many() arguments of one point; ``settle``: run under the core's settle rule
    (the module docstring), else for the workload's I/O count."""
    wl = dict(NAMED[p.workload])
    if settle:
        start = settle_start(p.state)
        del wl["number_ios"]  # the run ends at its cap or where it has settled
        wl["runtime"] = f"{SETTLE_CAP_S:g}s"
        wl["ramp_time"] = f"{start * SETTLE_RAMP:g}s"
        wl["settle"] = {
            "first_check": f"{start:g}s",
            "tolerance": SETTLE_TOLERANCE,
            "min_windows": SETTLE_MIN_WINDOWS,
            "hold": p.state in SETTLE_AGED_STATES,
        }
    else:
        wl["number_ios"] = m.ios(p.workload)
    wl["queue_policy"] = "round-robin"
    if m.span is not None:
        wl["size"] = m.span
    for key in HOST_KEYS:
        if getattr(m, key) is not None:
            wl[key] = getattr(m, key)
    return {
        "device": p.device,
        "workload": wl,
        "queues": p.queues,
        "state": state_for(p.state, p.workload),
        "seed": m.seed,
        **p.extra,
    }


def settle_outcome(row: dict, state: str) -> tuple[float, Settle]:
    """Where a settling run of a point in ``state`` stopped (its last checkpoint, s) and
    the settle test there, from the row's windows; raises if the core's verdict differs
    from this one's."""
    run_s = float(row["settle.at_s"])
    aged = state in SETTLE_AGED_STATES
    ramp_s = settle_start(state) * SETTLE_RAMP
    logged = measured_windows(row.get("write_iops_log"), run_s - ramp_s)
    # The checked windows: [T/2, T], or [T/4, T] for an aged point.
    n = round(run_s * (0.75 if aged else 0.5) * 1000) // SETTLE_WINDOW_MS
    check = settle_check(logged[-n:], doubling=aged)
    core = row["settle.settled"]
    if bool(core) != check.settled:
        raise RuntimeError(
            f"the core's settle verdict ({core}) differs from the study's ({check}) at "
            f"{run_s:g} s: a bug, please report it"
        )
    return run_s, check


def run_matrix(points: list[Point], out_dir: Path, m: Matrix) -> list[Outcome]:
    """Run the points on the sweep engine; the random-write points run until they have
    settled (the core's settle rule, the module docstring). Every run is a point of its
    own under OUT/runs, so a study run again finds the runs it has made."""
    settling = [m.settles(p.workload) for p in points]
    rows = run_points(
        [point_run(p, m, settle) for p, settle in zip(points, settling)],
        out_dir,
        reuse=m.reuse,
        adopted=m.adopted,
    )
    out = []
    for p, settle, row in zip(points, settling, rows):
        sim_s = row["sim_time_ns"] / 1e9
        if not settle:
            out.append(Outcome(row, None, sim_s))
            continue
        run_s, check = settle_outcome(row, p.state)
        out.append(Outcome(row, check.settled, sim_s, run_s, check))
    return out


def reuse_line(m: Matrix) -> str:
    """How many runs --reuse took from other studies (empty without --reuse)."""
    if not m.reuse:
        return ""
    dirs = ", ".join(str(d) for d in m.reuse)
    return f"--reuse: {sum(m.adopted)} finished runs of the same points taken from {dirs}."


def settle_line(outcomes: list[Outcome], points: list[Point]) -> str:
    """How the random-write points settled (empty if the study ran none)."""
    settling = [(o, p) for o, p in zip(outcomes, points) if o.settled is not None]
    if not settling:
        return ""
    by_len: dict[float, int] = {}
    for o, _ in settling:
        if o.settled:
            by_len[o.run_s] = by_len.get(o.run_s, 0) + 1
    ok = sum(by_len.values())
    when = ", ".join(f"{n} in {t:g} s" for t, n in sorted(by_len.items()))
    text = (
        f"Random writes run until settled ({settle_rule()}): {ok} of {len(settling)} points "
        "settled" + (f" ({when})" if when else "")
    )
    left = [(o, p) for o, p in settling if not o.settled]
    if left:
        states: dict[str, int] = {}
        for _, p in left:
            states[p.state] = states.get(p.state, 0) + 1
        where = ", ".join(f"{n} {state}" for state, n in states.items())
        moving = sum(_moving(o.check) for o, _ in left)
        text += (
            f"; {len(left)} had not by {SETTLE_CAP_S:g} s ({where}; marked {UNSETTLED_MARK}: "
            f"{moving} still moving by {SETTLE_TOLERANCE:.0%} or more, {len(left) - moving} "
            f"too noisy to resolve {SETTLE_TOLERANCE:.0%}; settled=false, change_pct, "
            "resolution_pct and doubling_pct in results.csv)"
        )
    return text + "."


def _moving(c: Settle) -> bool:
    """A run that had not settled because its figure still moved (not for its noise)."""
    return any(abs(x) >= SETTLE_TOLERANCE for x in (c.change, c.doubling) if not math.isnan(x))


def settle_rule() -> str:
    """The settle rule in a few words."""
    aged = "/".join(SETTLE_AGED_STATES)
    return (
        f"the mean IOPS of the last W and the W before of the 500 ms windows of a run's "
        f"second half agree within {SETTLE_TOLERANCE:.0%} and resolve {SETTLE_TOLERANCE:.0%}; "
        f"{aged} points also within {SETTLE_TOLERANCE:.0%} of the run half as long; runs from "
        f"{SETTLE_START_S:g} s of simulated time ({aged}: {SETTLE_START_AGED_S:g} s), "
        f"checked there and at twice the length until settled, up to {SETTLE_CAP_S:g} s"
    )


UNSETTLED_MARK = "*"


def mark(*outcomes: Outcome) -> str:
    """UNSETTLED_MARK if any of the points had not settled at the cap."""
    return UNSETTLED_MARK if any(o.settled is False for o in outcomes) else ""


def fmt_outcome(v: float, workload: str, o: Outcome) -> str:
    """A value for the tables, marked if its point had not settled at the cap."""
    return fmt_value(v, workload) + mark(o)


def ios_line(m: Matrix) -> str:
    """Which run lengths the study used."""
    fixed = [wl for wl in m.workloads if not m.settles(wl)]
    per = ", ".join(f"{wl} {m.ios(wl):,}" for wl in fixed)
    how = f" (quick: 1/{QUICK_DIVISOR} of the full run)" if m.quick and not m.number_ios else ""
    span = f"the first {m.span} of the drive" if m.span else "the whole drive"
    host = ""
    if m.host_cpu_per_io or m.host_irq_per_io:
        host = (
            f" Host: {m.host_cpu_per_io or 0} of CPU per I/O per thread, "
            f"{m.host_irq_per_io or 0} per completion per queue."
        )
    text = f"I/Os per job{how}: {per}." if fixed else ""
    if len(fixed) < len(m.workloads):
        text += (
            f" Random writes: until settled, {SETTLE_START_S:g} s to {SETTLE_CAP_S:g} s "
            "of simulated time (below)."
        )
    return f"{text.strip()} LBA span: {span}.{host}"


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
    pct_axes([ax])


# The study's name on its figures: its authors and venue (docs/references.md).
STUDY = "Samsung, FMS 2023"
# A % diff axis spans at least -PCT_MIN..+PCT_MIN, so that differences of a few tenths
# of a percent (noise) are drawn flat instead of filling the axis.
PCT_MIN = 10.0


def pct_axes(axes) -> None:
    """One % range for every panel of a figure: 0 included, at least +-PCT_MIN %."""
    lims = [a.get_ylim() for a in axes]
    lo = min([0.0, -PCT_MIN] + [lo for lo, _ in lims])
    hi = max([0.0, PCT_MIN] + [hi for _, hi in lims])
    pad = (hi - lo) * 0.08
    for a in axes:
        a.set_ylim(lo - pad, hi + pad)


def slide(fig, axes, title: str) -> None:
    """A figure sized and lettered for a slide: one y-scale for its bar panels (the
    largest), the study named by authors and venue, readable labels."""
    top = max(a.get_ylim()[1] for a in axes)
    for a in axes:
        a.set_ylim(0, top)
        a.tick_params(labelsize=10)
        a.title.set_fontsize(12)
        a.yaxis.label.set_fontsize(11)
    fig.suptitle(f"{STUDY}: {title}", fontsize=15)


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
