"""Python API: ``ssdlab.run``, ``ssdlab.run_many``, ``ssdlab.presets``, ``ssdlab.validate``.

Everything is resolved and checked by the Rust core; this module only turns Python
values (preset names, paths, dicts) into what the core takes.
"""

from __future__ import annotations

import functools
import inspect
import json
import math
import os
import re
from collections.abc import Iterable, Mapping
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Union

from ssdlab import _core
from ssdlab.interrupt import completed, sigint_deferred
from ssdlab.report import Report

ConfigError = _core.ConfigError


# A bug in the simulator (a panic in the Rust core): every binding of ``ssdlab._core``
# raises it, with a short message and a request to report it (a RuntimeError).
InternalError = _core.InternalError


def _core_call(fn, *args):
    """Call the core. Every binding already turns a panic into InternalError; a
    PanicException that still escapes (pyo3's own, outside a binding) does too."""
    try:
        return fn(*args)
    except BaseException as e:
        if type(e).__name__ != "PanicException":
            raise
        raise InternalError(
            f"internal error in the simulator: {e} "
            "(please report it with the device, workload and command)"
        ) from None


def clip(value: Any, limit: int = 80) -> str:
    """``value`` as text for an error message: at most ``limit`` characters, then "…" and
    the full length (an error never echoes a 5 MB value whole)."""
    text = value if isinstance(value, str) else repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(text):,} chars)"


_LONG_QUOTED = re.compile(r"(['\"`])([^'\"`\n]{257,})\1")
_LONG_TOKEN = re.compile(r"\S{257,}")
MAX_MESSAGE = 2000


def clip_message(msg: str) -> str:
    """An error message with every echoed value longer than 256 characters (a quoted one,
    or one without spaces) cut to its first 80 and its length, and the whole to at most
    MAX_MESSAGE characters: a 5 MB value given by mistake is not printed back. Returns
    ``msg`` itself when nothing was cut (and a clipped message unchanged)."""
    if len(msg) <= 256:
        return msg
    out = _LONG_QUOTED.sub(lambda m: m.group(1) + clip(m.group(2)) + m.group(1), msg)
    out = _LONG_TOKEN.sub(lambda m: clip(m.group()), out)
    if len(out) > MAX_MESSAGE:
        tail = f"… (message of {len(msg):,} chars)"
        out = out[: MAX_MESSAGE - len(tail)] + tail
    return out if out != msg else msg


def bounded_errors(fn):
    """The public API's error contract: ConfigError with a bounded message (see
    :func:`clip_message`); a value nested beyond Python's recursion limit is a
    ConfigError, not a RecursionError."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except ConfigError as e:
            msg = str(e)
            short = clip_message(msg)
            if short is msg:
                raise
            raise ConfigError(short) from None
        except RecursionError:
            raise ConfigError(
                f"{fn.__name__}: an argument is nested too deeply (allowed: at most "
                f"{MAX_DEPTH} levels of dicts and lists)"
            ) from None

    return wrapper


# The deepest nesting of dicts and lists a device, workload or override may have (a
# device file is 2 deep, a multi-job workload with a trace section 4).
MAX_DEPTH = 32
_SCALARS = (str, int, float, bool, type(None))


def _a(value: Any) -> str:
    """'a list', 'an int': the type of ``value`` with its article, for messages."""
    name = type(value).__name__
    return f"{'an' if name[:1] in 'aeiouAEIOU' else 'a'} {name}"


def check_value(value: Any, what: str) -> None:
    """Refuse, with ConfigError naming the field, what a device or workload cannot hold:
    nesting deeper than MAX_DEPTH, a key that is not text, NaN or infinity, and values
    other than text, numbers, true/false, None, lists and dicts. Iterative, so a value
    nested 100,000 deep is refused, not a RecursionError."""
    stack = [(value, "", 0)]
    while stack:
        v, path, depth = stack.pop()
        where = f"{what}: {clip(path)}" if path else what
        if depth > MAX_DEPTH:
            raise ConfigError(
                f"{where}: nested deeper than {MAX_DEPTH} levels (allowed: at most "
                f"{MAX_DEPTH} levels of dicts and lists)"
            )
        if isinstance(v, float) and not math.isfinite(v):
            raise ConfigError(f"{where}: {v!r}: NaN and infinity are not allowed (a finite number)")
        if isinstance(v, Mapping):
            for k, x in v.items():
                if not isinstance(k, str):
                    raise ConfigError(
                        f"{where}: key {clip(k)} is {_a(k)} (keys are text: field or option names)"
                    )
                stack.append((x, f"{path}.{k}" if path else k, depth + 1))
        elif isinstance(v, (list, tuple)):
            for i, x in enumerate(v):
                stack.append((x, f"{path}[{i}]", depth + 1))
        elif not isinstance(v, _SCALARS) and not isinstance(v, os.PathLike):
            raise ConfigError(
                f"{where}: {_a(v)} is not allowed (text, a number, true/false, a list or a dict)"
            )


def check_int(name: str, value: Any, lo: int = 0, hi: int = 2**64 - 1) -> int:
    """`value` as an int in [lo, hi], else a ConfigError naming `name`."""
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise ConfigError(f"{name}: {value!r} is not allowed (an integer from {lo} to {hi})")
    return value


def check_bool(name: str, value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{name}: {value!r} is not allowed (True or False)")
    return value


def physical_memory_bytes() -> int:
    """This machine's physical memory (0 when unknown)."""
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return 0


# The default memory limit of a run: half the machine's physical memory (0 = none).
# ``ssdlab run/fio/trace --max-memory`` changes it for the process.
DEFAULT_MAX_MEMORY = physical_memory_bytes() // 2


class SimulationError(RuntimeError):
    """The simulated device stopped making progress (a model error worth reporting)."""

DeviceLike = Union[str, os.PathLike, Mapping[str, Any]]
WorkloadLike = Union[None, str, Mapping[str, Any]]

DEFAULT_DEVICE = "client-tlc-dram"
STATES = (
    "fresh",
    "full",
    "steady",
    "normal",
    "normal-written",
    "sustain",
    "aging",
    "full-slc-exhausted",
)


def presets() -> dict[str, str]:
    """Shipped device presets: name → one-line description."""
    return dict(_core.presets())


@bounded_errors
def preset_toml(name: str) -> str:
    """The TOML text of a shipped preset (a starting point for your own device file)."""
    if not isinstance(name, str):
        raise ConfigError(f"device: {name!r} is not a preset name (a string)")
    text = _core.preset_toml(name)
    if text is None:
        raise ConfigError(f"device: '{name}' is not a preset (allowed: {', '.join(presets())})")
    return text


def _device_args(device: DeviceLike) -> tuple[str, str, str]:
    """(kind, text, origin) for the core."""
    if isinstance(device, Mapping):
        check_value(device, "device")
        return "json", _to_json(_drop_none(device), "device"), "<dict>"
    if not isinstance(device, (str, os.PathLike)):
        raise ConfigError(
            f"device: {device!r} is a {type(device).__name__}; expected a preset name, "
            "a path to a .toml/.json device file, or a dict"
        )
    name = os.fspath(device)
    if isinstance(name, bytes):
        raise ConfigError(f"device: {clip(device)} is a bytes path; expected text")
    if isinstance(device, str) and name in presets():
        return "preset", name, name
    path = Path(name)
    try:
        is_file = "\0" not in name and path.is_file()
    except OSError as e:  # a name too long, a loop of symlinks, ...
        raise ConfigError(f"device: '{clip(name)}': {e.strerror or e}") from None
    if is_file:
        suffix = path.suffix.lower()
        if suffix not in (".toml", ".json"):
            raise ConfigError(
                f"{path}: a device file must end in .toml or .json (got '{suffix or 'no suffix'}')"
            )
        try:
            text = path.read_text()
        except (OSError, UnicodeDecodeError) as e:
            raise ConfigError(f"{path}: cannot read device file: {e}") from e
        return suffix[1:], text, str(path)
    raise ConfigError(
        f"device: '{clip(name)}' is neither a preset ({', '.join(presets())}) nor an existing "
        ".toml/.json file"
    )


def _nonfinite_path(v: Any, path: str) -> str | None:
    """Where a NaN or infinity sits in a nested value (None if nowhere)."""
    if isinstance(v, float) and not math.isfinite(v):
        return path
    if isinstance(v, Mapping):
        items = [(f"{path}.{k}" if path else str(k), x) for k, x in v.items()]
    elif isinstance(v, (list, tuple)):
        items = [(f"{path}[{i}]", x) for i, x in enumerate(v)]
    else:
        return None
    for p, x in items:
        found = _nonfinite_path(x, p)
        if found:
            return found
    return None


def _to_json(value: Any, what: str) -> str:
    """JSON text for the core; NaN, infinity or a value JSON cannot hold is a
    ConfigError naming the field."""
    try:
        return json.dumps(value, allow_nan=False)
    except ValueError:
        where = _nonfinite_path(value, "") or "?"
        raise ConfigError(
            f"{what}: {where}: NaN and infinity are not allowed (a finite number)"
        ) from None
    except (TypeError, RecursionError) as e:
        raise ConfigError(
            f"{what}: {e} (allowed: numbers, text, true/false, lists and dicts)"
        ) from None


def _drop_none(v: Any) -> Any:
    """None means "use the default": leave such keys out (TOML has no null)."""
    if isinstance(v, Mapping):
        return {k: _drop_none(x) for k, x in v.items() if x is not None}
    return v


def _overrides(items: Mapping[str, Any] | Iterable[str] | None) -> list[str]:
    """Accept {"nand.t_read": "60us"}, ["nand.t_read=60us"] or one "nand.t_read=60us"."""
    if items is None:
        return []
    if isinstance(items, str):
        return [items]
    if isinstance(items, Mapping):
        for k in items:
            if not isinstance(k, str):
                raise ConfigError(
                    f"set: key {clip(k)} is {_a(k)} (keys are text: device "
                    "fields such as nand.t_read)"
                )
        return [f"{k}={_value_text(v, k)}" for k, v in items.items()]
    if not isinstance(items, Iterable):
        raise ConfigError(
            f"set: {_a(items)} is not allowed (a dict of device fields, a list "
            "of key=value texts, or one key=value text)"
        )
    out = []
    for x in items:
        if not isinstance(x, str):
            raise ConfigError(
                f"set: {clip(x)} is {_a(x)}, not a key=value text (e.g. nand.t_read=60us)"
            )
        out.append(x)
    return out


def _value_text(v: Any, key: str = "value") -> str:
    key = clip(key)
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float) and not math.isfinite(v):
        raise ConfigError(f"{key}: {v!r}: NaN and infinity are not allowed (a finite number)")
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, (list, tuple)):
        check_value(v, key)
        return _to_json(list(v), key)
    if isinstance(v, os.PathLike):
        v = os.fspath(v)
    if not isinstance(v, str):
        raise ConfigError(f"{key}: {_a(v)} is not allowed (text, a number, true/false or a list)")
    return v


def _workload_args(workload: WorkloadLike) -> list[str]:
    """The workload as key=value overrides, so that "32" and 32 mean the same."""
    if workload is None:
        return []
    if isinstance(workload, str):
        from ssdlab.workloads import named_workload

        workload = named_workload(workload)
    if not isinstance(workload, Mapping):
        raise ConfigError(
            "workload: expected a dict of fio options or a workload name, "
            f"got {type(workload).__name__}"
        )
    return [f"{k}={_value_text(v, k)}" for k, v in workload.items() if v is not None]


def _check_state(state: str) -> str:
    if not isinstance(state, str) or state not in STATES:
        raise ConfigError(
            f"state: '{clip(state)}' is not a drive state (allowed: {', '.join(STATES)})"
        )
    return state


@bounded_errors
def run(
    device: DeviceLike = DEFAULT_DEVICE,
    workload: WorkloadLike = None,
    *,
    state: str = "full",
    seed: int = 1,
    set: Mapping[str, Any] | Iterable[str] | None = None,
    queues: int | None = None,
    verify: bool = False,
    progress: bool = False,
    reuse_prep: bool = False,
    max_memory: int | None = None,
    energy: bool = False,
    threads: int | None = None,
) -> Report:
    """Simulate ``workload`` (fio option names) on ``device`` and return a :class:`Report`.

    ``device`` is a preset name, a path to a .toml/.json device file, or a dict with the
    same sections. ``set`` overrides device fields by dotted name (``{"nand.t_read": "60us"}``).
    ``workload`` may also be ``{"jobs": [{...}, ...]}``: several jobs, each with a
    ``group`` (groups run one after another) and a ``name``.
    ``state`` is the drive's condition before the run: fresh, full or steady, or seed
    000's normal (= fresh), normal-written (the workload's area written once first),
    sustain (SLC cache full), aging (steady, SLC cache full) or full-slc-exhausted
    (every LBA written sequentially, SLC cache full).
    ``queues`` sets the workload's ``queues`` option (NVMe I/O queues the host creates; of
    every job for a multi-job workload), e.g. ``queues=4`` with ``queue_policy`` round-robin
    in the workload for seed 000's N-queue driver.
    ``reuse_prep=True`` keeps the prepared drive (one per process) and reuses it for
    the next run with the same device, state, seed and area: the same report, without
    preparing an aged drive again (for sweeps; :func:`clear_prepared` frees it).
    ``energy=True`` turns the device's energy model on (``power.enabled``): the report
    gains an ``energy`` block (joules per component, average and peak watts, J per I/O,
    time in each NVMe power state; docs/power.md).
    ``max_memory`` (bytes; default :data:`DEFAULT_MAX_MEMORY`, half the physical memory;
    0 = no limit) refuses, with ConfigError, a run whose memory estimate exceeds it.
    ``threads`` runs a system file's drives on that many threads (default None: one per
    available core, at most one per drive; a single drive always runs on one): the
    report is byte-identical whatever the number (docs/nvmeof.md, "Threads").
    The GIL is released while the simulation runs; Ctrl-C stops it within about 50 ms
    (KeyboardInterrupt, no report).
    """
    kind, text, origin = _device_args(device)
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ConfigError(f"seed: '{seed}' is not allowed (an integer from 0 to 2^64-1)")
    for name, flag in (
        ("verify", verify),
        ("reuse_prep", reuse_prep),
        ("progress", progress),
        ("energy", energy),
    ):
        check_bool(name, flag)
    overrides = _overrides(set) + (["power.enabled=true"] if energy else [])
    if isinstance(workload, str):
        from ssdlab.workloads import named_workload

        workload = named_workload(workload)
    if queues is not None:
        workload = _with_queues(workload, queues)
    wl_json, wl_args = _workload_core_args(workload)
    limit = _check_max_memory(max_memory)
    n_threads = 0 if threads is None else check_int("threads", threads, 1, 1024)
    # The core's estimate counts the workload's jobs (JOB_BYTES each) and names them.
    out = _core_call(
        _core.run,
        kind,
        text,
        origin,
        overrides,
        wl_json,
        wl_args,
        _check_state(state),
        seed,
        verify,
        progress,
        reuse_prep,
        limit,
        n_threads,
    )
    report = Report.from_json(out)
    if report.to_dict().get("stalled"):
        raise SimulationError(f"the simulated device stalled: {report['stalled']}")
    return report


def _workload_core_args(workload: WorkloadLike) -> tuple[str, list[str]]:
    """(JSON, key=value overrides) of a workload for the core."""
    if isinstance(workload, str):
        from ssdlab.workloads import named_workload

        workload = named_workload(workload)
    if isinstance(workload, Mapping):
        check_value(workload, "workload")
    elif workload is not None:
        raise ConfigError(
            "workload: expected a dict of fio options or a workload name, "
            f"got {type(workload).__name__}"
        )
    if isinstance(workload, Mapping) and (
        "jobs" in workload or any(isinstance(v, (Mapping, list)) for v in workload.values())
    ):
        # Several jobs (e.g. from a fio job file), or a job with a section such as
        # "trace": passed whole as JSON (the core reads "32" as 32 there too).
        return _to_json(_drop_none(workload), "workload"), []
    return "{}", _workload_args(workload)


#: Memory each job of a workload costs (bytes), besides the drive: its latency
#: statistics (HDR histograms, made for every job whatever it does). Measured 1.24 MiB
#: per job on tiny-test (numjobs 1 / 256 / 1024: peak RSS 27 / 342 / 1292 MiB). The
#: core's estimate counts them (``ftl::estimate::JOB_BYTES``, the same figure; issue 31:
#: 3 jobs x numjobs=4096 peaked at 15 GB under --max-memory 300M).
JOB_BYTES = 5 << 18  # 1.25 MiB


def workload_jobs(workload: Any) -> int:
    """Jobs a workload starts: each job's ``numjobs`` clones counted (a value the core
    will refuse counts as 1: its error is the one to show)."""

    def clones(job: Any) -> int:
        n = job.get("numjobs", 1) if isinstance(job, Mapping) else 1
        try:
            n = int(str(n).strip())
        except ValueError:
            return 1
        return n if 1 <= n <= 4096 else 1

    if isinstance(workload, Mapping) and isinstance(workload.get("jobs"), list):
        return max(1, sum(clones(j) for j in workload["jobs"]))
    return clones(workload)


def _check_max_memory(value: Any) -> int:
    if value is None:
        return DEFAULT_MAX_MEMORY
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 2**64:
        raise ConfigError(
            f"max_memory: '{value}' is not allowed (a number of bytes from 0 to 2^64-1; "
            "0 = no limit)"
        )
    return value


def _with_queues(workload: WorkloadLike, queues: Any) -> dict:
    if isinstance(queues, bool) or not isinstance(queues, int) or queues <= 0:
        raise ConfigError(f"queues: '{queues}' must be a positive integer")
    if workload is None:
        return {"queues": queues}
    if not isinstance(workload, Mapping):
        raise ConfigError(
            "workload: expected a dict of fio options or a workload name, "
            f"got {type(workload).__name__}"
        )
    if "jobs" in workload:
        jobs = workload["jobs"]
        if not isinstance(jobs, list) or not all(isinstance(j, Mapping) for j in jobs):
            raise ConfigError("workload: jobs: must be a non-empty list of jobs (dicts)")
        return {**workload, "jobs": [{**j, "queues": queues} for j in jobs]}
    return {**workload, "queues": queues}


def clear_prepared() -> None:
    """Free the prepared drive kept by ``run(..., reuse_prep=True)``."""
    _core.clear_prepared()


@bounded_errors
def run_many(runs: Iterable[Mapping[str, Any]], *, workers: int | None = None) -> list[Report]:
    """Run several simulations in parallel threads (the core releases the GIL).

    Each item holds keyword arguments of :func:`run`; results keep the input order.
    Ctrl-C stops every run (KeyboardInterrupt, no results).
    """
    if not isinstance(runs, Iterable) or isinstance(runs, (str, Mapping)):
        raise ConfigError(
            f"run_many: runs: {_a(runs)} is not allowed (a list of dicts of run() arguments)"
        )
    runs = list(runs)
    allowed = set(inspect.signature(run).parameters)
    for i, r in enumerate(runs):
        if not isinstance(r, Mapping):
            raise ConfigError(
                f"run_many: run {i}: {_a(r)} is not allowed (each run is a dict of run() arguments)"
            )
        unknown = sorted(set(r) - allowed, key=str)
        if unknown:
            raise ConfigError(
                f"run_many: run {i}: unknown argument {clip(unknown[0])} "
                f"(allowed: {', '.join(sorted(allowed))})"
            )
    if workers is not None:
        check_int("workers", workers, 1, 4096)
    workers = workers or min(len(runs), os.cpu_count() or 1) or 1
    if workers > 1:
        # The runs already fill the cores: a system run's loop keeps to one thread
        # unless the run says otherwise (same report either way).
        runs = [{"threads": 1, **r} for r in runs]
    pool = ThreadPoolExecutor(max_workers=workers)
    try:
        futures = [pool.submit(run, **kw) for kw in runs]
        # Ctrl-C only sets a flag while waiting, checked between waits (ssdlab.interrupt)
        with sigint_deferred() as interrupted:
            for _ in completed(futures, interrupted):
                pass
        return [f.result() for f in futures]
    except KeyboardInterrupt:
        # Ctrl-C reaches only this thread: stop the runs on the workers too (within
        # about 50 ms each), drop the ones not started, and report no partial result.
        _core.cancel_runs(True)
        try:
            pool.shutdown(wait=True, cancel_futures=True)
        finally:
            _core.cancel_runs(False)
        raise
    finally:
        pool.shutdown(wait=True)


@bounded_errors
def validate(device: DeviceLike, set: Mapping[str, Any] | Iterable[str] | None = None) -> dict:
    """Resolve and check a device; returns the resolved config (with capacity_bytes)."""
    kind, text, origin = _device_args(device)
    return json.loads(_core_call(_core.validate, kind, text, origin, _overrides(set)))


def _prep_key(device: DeviceLike, set: Mapping[str, Any] | Iterable[str] | None = None) -> str:
    """What preparing the device reads of its config (runs with equal keys, states,
    seeds and LBA areas share one prepared drive under ``reuse_prep``)."""
    kind, text, origin = _device_args(device)
    return _core_call(_core.prep_key, kind, text, origin, _overrides(set))


@bounded_errors
def validate_workload(workload: WorkloadLike, capacity_bytes: int) -> dict:
    """Check a workload against a device capacity; returns the resolved workload."""
    check_int("capacity_bytes", capacity_bytes)
    wl_json, wl_args = _workload_core_args(workload)
    return json.loads(_core_call(_core.validate_workload, wl_json, wl_args, capacity_bytes))
