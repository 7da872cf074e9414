"""What runs on a sweep worker: a chunk of points, one result row per point.

A chunk holds points that share a prepared drive (device, state, seed, area); they run
one after another with ``reuse_prep``, so the drive is prepared once per worker process
and cloned for each point. The core keeps one prepared drive per process, so threads of
one process (a thread pool, a Dask worker with several threads) take turns by key: any
number of threads may run chunks of the drive that is cached, a chunk of another drive
waits until they finish, instead of each evicting the other's drive.

A row holds the point's parameters (given by the driver, with the resolved device
``config.*`` and workload ``workload.*``), the metrics (with ``DIR_iops_log``, the IOPS of
each 500 ms window as JSON text) and the device counters (``stats.*``, ``prep.*``), all
flattened to dotted column names. A point that raises
is a row with ``status = "failed"`` and its ``error``; the chunk goes on.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from ssdlab.schema import latency_columns

DIRECTIONS = ("read", "write", "trim")


class _KeyTurns:
    """Threads holding the same key run together; another key waits for them."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._key: str | None = None
        self._holders = 0

    def acquire(self, key: str) -> None:
        with self._cond:
            while self._holders and self._key != key:
                self._cond.wait()
            self._key = key
            self._holders += 1

    def release(self) -> None:
        with self._cond:
            self._holders -= 1
            if not self._holders:
                self._cond.notify_all()


_TURNS = _KeyTurns()


# Chunks running in this process (a Ctrl-C stops them; an idle pool worker ignores it).
# Read only by a pool worker's handler, where chunks run one at a time.
_IN_CHUNK = 0


# Chunks running in this process by sweep (the driver's token), and the sweeps the
# driver cancelled (their chunks start no further point): see ``cancel_sweep``.
_RUNNING: Counter = Counter()
_CANCELLED: set = set()
_LOCK = threading.Lock()
# How long ``cancel_sweep`` waits for a cancelled sweep's runs to stop (they check every
# 50 ms) before it clears the process's cancel flag anyway.
CANCEL_WAIT_S = 5.0


def _sigint_in_pool_worker(signum, frame) -> None:
    if _IN_CHUNK:
        raise KeyboardInterrupt  # stops the run within ~50 ms; the chunk returns its rows
    # idle, waiting for a chunk: nothing to stop (the pool then shuts down normally)


def share_memory(processes: int) -> None:
    """The initializer of a local pool's worker process: its share of the machine's
    default memory budget (threads of one process share it already), and Ctrl-C that
    stops a chunk in progress but leaves an idle worker alone (no traceback from the
    pool's loop)."""
    import signal

    from ssdlab import api

    api.DEFAULT_MAX_MEMORY = api.physical_memory_bytes() // 2 // max(1, processes)
    signal.signal(signal.SIGINT, _sigint_in_pool_worker)


def default_max_memory() -> int:
    """The default memory budget of runs in this process (for tests)."""
    from ssdlab import api

    return api.DEFAULT_MAX_MEMORY


def run_chunk(
    prep_key: str,
    items: list[dict[str, Any]],
    reuse_prep: bool,
    on_row: Callable[[dict], None] | None = None,
    token: str | None = None,
) -> list[dict]:
    """Run ``items`` (each ``{"run_id", "kwargs", "params"}``); one row per item.

    ``on_row`` (in the driver's process only) is called with each row as its point
    finishes. A run stopped by Ctrl-C (or the driver's cancel) ends the chunk: the rows
    of the points before it are returned, the stopped one and the rest are left to a
    rerun. ``token`` names the sweep, for ``cancel_sweep``."""
    from ssdlab._core import __version__

    global _IN_CHUNK
    rows = []
    if reuse_prep:
        _TURNS.acquire(prep_key)
    _IN_CHUNK += 1
    with _LOCK:
        _RUNNING[token] += 1
    try:
        for item in items:
            if token is not None and token in _CANCELLED:
                break
            row: dict[str, Any] = {"run_id": item["run_id"], "ssdlab_version": __version__}
            row.update(item["params"])
            t0 = time.perf_counter()
            try:
                from ssdlab import api

                report = api.run(**item["kwargs"], reuse_prep=reuse_prep)
            except KeyboardInterrupt:
                break
            except Exception as e:  # recorded with the point, not raised
                row.update(status="failed", error=f"{type(e).__name__}: {e}")
                row["wall_time_s"] = time.perf_counter() - t0
            else:
                row.update(status="ok", error=None)
                row.update(report_columns(report.to_dict()))
            rows.append(row)
            if on_row is not None:
                on_row(row)
    finally:
        with _LOCK:
            _RUNNING[token] -= 1
            if not _RUNNING[token]:
                del _RUNNING[token]
        _IN_CHUNK -= 1
        if reuse_prep:
            _TURNS.release()
    return rows


async def cancel_sweep(token: str) -> int:
    """Stop sweep ``token``'s chunks in this worker process (run by the driver on every
    Dask worker after Ctrl-C, ``Client.run``, in the worker's event loop): none starts
    another point, and when only this sweep's chunks are running their runs are stopped
    through the core's cancel flag (within ~50 ms), which is cleared once they have
    ended (at most ``CANCEL_WAIT_S``). The flag is the process's: with another sweep's
    chunk running beside them, the runs in progress finish and only later points are
    skipped, so that the other sweep is not interrupted. Returns this sweep's chunks
    still running at the call."""
    from ssdlab import _core

    with _LOCK:
        _CANCELLED.add(token)
        mine = _RUNNING.get(token, 0)
        alone = mine > 0 and sum(_RUNNING.values()) == mine
    if alone:
        _core.cancel_runs(True)
        try:
            deadline = time.monotonic() + CANCEL_WAIT_S
            while _RUNNING.get(token, 0) and time.monotonic() < deadline:
                await asyncio.sleep(0.02)
        finally:
            _core.cancel_runs(False)
    return mine


def running_chunks() -> int:
    """Chunks running in this process (for tests, through ``Client.run``)."""
    return sum(_RUNNING.values())


def report_columns(d: Mapping[str, Any]) -> dict[str, Any]:
    """A report flattened to one row: metrics, device counters, preparation."""
    row: dict[str, Any] = {}
    for direction in DIRECTIONS:
        s = d.get(direction) or {}
        lat = s.get("lat_ns") or {}
        for key in ("iops", "bw_bytes", "io_bytes", "total_ios"):
            row[f"{direction}_{key}"] = s.get(key)
        if s.get("iops_log"):
            # IOPS per 500 ms window after ramp_time ([[t_ms, iops], ...] as JSON text), so
            # that a study can tell from the stored row whether the rate had settled.
            row[f"{direction}_iops_log"] = json.dumps(s["iops_log"])
        row[f"{direction}_mb_per_s"] = None if s.get("bw_bytes") is None else s["bw_bytes"] / 1e6
        # read_lat_p99_us, ... and the deprecated read_lat_p99_ns, ... (ssdlab.schema)
        row.update(latency_columns(lat if s else None, "lat", f"{direction}_", old="underscore"))
    dev = d.get("device") or {}
    ftl = dev.get("ftl") or {}
    row["waf"] = ftl.get("waf")
    row["measured_waf"] = (ftl.get("measured") or {}).get("waf")
    for key in (
        "sim_time_ns",
        "wall_time_s",
        "prep_wall_time_s",
        "sim_wall_time_s",
        "events",
        "queues",
    ):
        row[key] = d.get(key)
    flatten(dev, "stats", row)
    flatten(d.get("prep") or {}, "prep", row)
    # A run under a settle rule: settle.settled, settle.at_s (where it stopped), and
    # settle.checks (every checkpoint's test, JSON text).
    flatten(d.get("settle") or {}, "settle", row)
    return row


def flatten(value: Any, prefix: str, out: dict[str, Any]) -> None:
    """Nested dicts to dotted keys; lists are kept as JSON text (one column each)."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            flatten(v, f"{prefix}.{k}", out)
    elif isinstance(value, (list, tuple)):
        out[prefix] = json.dumps(value)
    elif isinstance(value, bool) or value is None or isinstance(value, (int, float, str)):
        out[prefix] = value
    else:
        out[prefix] = str(value)
