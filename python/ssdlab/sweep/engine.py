"""The sweep engine: validate every point, skip finished ones, run the rest on an executor.

``run_points(points, out)`` is the engine every grid and study runs on: points are the
keyword arguments of :func:`ssdlab.run` (plus ``params``, extra columns for the row).
Every point is resolved by the core before the first run (a bad point stops the sweep
with ``ssdlab run``'s error, naming the point). A point's key, ``run_id``, is a hash of
the resolved device, resolved workload, state, seed and ssdlab version: a point whose
file exists in ``out`` is not run again (a failed one only with ``retry_failed``).

Points sharing a prepared drive (same state, seed and LBA area, and devices that
prepare alike: the core's ``prep_key``, e.g. devices differing only in HMB size) are
grouped and cut into chunks, submitted group by group, so each worker prepares a drive
once and clones it for the group's other points. Any ``concurrent.futures.Executor``
runs the chunks (a thread pool by default; a Dask client's ``get_executor()``; a
process pool; submitit's or dask-jobqueue's through Dask). Rows come back to this
process, which writes them (so workers need no shared file system).

A point whose prepared drive no other point (still to run) shares runs without the cache,
so such points run in parallel rather than one drive at a time.

On threads of this process (the default pool, or a ``ThreadPoolExecutor`` given) each
point's row is written as soon as the point finishes; another executor runs one point
per task (``REMOTE_CHUNK``), so its rows too are written point by point as they come
back. The frame returned says how many points were found finished and skipped and how
many were run (``df.attrs["skipped"]``, ``df.attrs["ran"]``; the CLI prints them).
Ctrl-C stops a sweep within about a second: no chunk is started, the runs in progress
stop (the core checks every 50 ms and drops them), every finished point is kept, and
KeyboardInterrupt is raised; the same call (or command) again resumes with the points
not yet run.

Simplifications: from another executor, a kill loses the points in flight (they are
rerun); local tasks are ``MAX_CHUNK`` points (one).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import signal
import sys
import tempfile
import threading
from collections import Counter
from collections.abc import Iterable, Mapping
from concurrent.futures import Executor, ThreadPoolExecutor, wait
from typing import Any

from ssdlab import _core, api
from ssdlab.api import ConfigError
from ssdlab.interrupt import completed, sigint_deferred
from ssdlab.sweep.progress import Progress
from ssdlab.sweep.store import Store, need
from ssdlab.sweep.worker import flatten, run_chunk

POINT_KEYS = ("device", "workload", "state", "seed", "set", "queues", "params")
# On this process's threads, one point per task as well: the threads take turns by
# prepared drive (worker._KeyTurns: the core caches one), so a thread that reaches the
# next drive's points waits until the others have finished the current drive's; with
# one-point tasks that is the other thread's point in progress, not a chunk of up to 8
# points (seed 000's studies on 2 threads: 78 % busy with chunks of 8).
MAX_CHUNK = 1
# On another executor (processes, Dask) a chunk's rows come back when it ends: one
# point per task, so each point is written as soon as it finishes (a worker keeps its
# prepared drive for the next point of the same group).
REMOTE_CHUNK = 1
STOP_WAIT_S = 5.0  # after Ctrl-C: how long interrupted worker processes may take to answer


def run_points(
    points: Iterable[Mapping[str, Any]],
    out: str | os.PathLike | None = None,
    *,
    executor: Executor | None = None,
    workers: int | None = None,
    retry_failed: bool = False,
    reuse_prep: bool = True,
    progress: bool | None = None,
):
    """Run ``points`` and return their rows as a pandas DataFrame (in the points' order).

    ``out`` is the results directory (Parquet files under ``out/runs``; runs already
    there are not repeated); ``None`` uses a temporary directory. ``executor`` is any
    ``concurrent.futures.Executor``; ``None`` runs on a pool of ``workers`` threads
    (default: every core). ``progress``: a bar on stderr (default: when it is a TTY).
    """
    need("pandas", "a sweep")
    jobs = resolve_points(points)
    if out is None:
        with tempfile.TemporaryDirectory(prefix="ssdlab-sweep-") as tmp:
            return _run(jobs, tmp, executor, workers, retry_failed, reuse_prep, progress)
    return _run(jobs, out, executor, workers, retry_failed, reuse_prep, progress)


def _run(jobs, out, executor, workers, retry_failed, reuse_prep, progress):
    store = Store(out)
    done = store.statuses()
    todo = [
        j
        for j in jobs
        if j["run_id"] not in done or (retry_failed and done[j["run_id"]] == "failed")
    ]
    n_workers = workers or _executor_workers(executor) or os.cpu_count() or 1
    own = executor is None
    # Chunks on threads of this process (ours or the caller's thread pool): rows written
    # as each point finishes, and Ctrl-C reaches their runs through the core's cancel flag.
    local = own or isinstance(executor, ThreadPoolExecutor)
    chunks = make_chunks(todo, n_workers, MAX_CHUNK if local else REMOTE_CHUNK)
    if progress is None:
        progress = sys.stderr.isatty()
    bar = Progress(total=len(jobs), done=len(jobs) - len(todo), enabled=progress)
    pool = executor or ThreadPoolExecutor(max_workers=n_workers)
    written: set[str] = set()
    lock = threading.Lock()

    def keep(row: dict) -> None:
        """Write a finished point's row (once: a chunk's rows may come back twice)."""
        with lock:
            if row["run_id"] in written:
                return
            store.write(row)
            written.add(row["run_id"])
            bar.advance(failed=row["status"] != "ok")

    futures: list = []
    token = None
    try:
        # A drive only one point uses is not kept: such points run side by side instead of
        # taking turns at the process's one cached drive (see worker.run_chunk).
        shared = Counter(j["prep_key"] for j in todo)
        on_row = keep if local else None
        token = os.urandom(8).hex()  # names this sweep's chunks, to cancel them remotely
        futures = [
            pool.submit(run_chunk, key, items, reuse_prep and shared[key] > 1, on_row, token)
            for key, items in chunks
        ]
        # Ctrl-C only sets a flag while waiting, checked between waits (ssdlab.interrupt)
        with sigint_deferred() as interrupted:
            for fut in completed(futures, interrupted):
                for row in fut.result():
                    keep(row)
        if len(written) < len(todo):  # a worker stopped its chunk early: interrupted
            raise KeyboardInterrupt
    except BaseException:  # Ctrl-C, or results that cannot be written: stop everything
        _stop(futures, local, keep, pool, token)
        raise
    finally:
        if own:
            pool.shutdown(wait=True, cancel_futures=True)
            if reuse_prep:
                api.clear_prepared()
        bar.close()
    table = store.table()
    df = table.to_pandas()
    order = {j["run_id"]: i for i, j in enumerate(jobs)}
    df = df[df["run_id"].isin(order)]
    df = df.assign(_order=df["run_id"].map(order)).sort_values("_order")
    df = df.drop(columns="_order").reset_index(drop=True)
    # What this call did: points found finished in ``out`` (skipped) and points run.
    df.attrs["skipped"] = len(jobs) - len(todo)
    df.attrs["ran"] = len(todo)
    return df


def _stop(futures: list, local: bool, keep, executor=None, token=None) -> None:
    """After Ctrl-C (or an error): start no more chunks, stop the runs in progress on this
    process's threads (the core checks every 50 ms), and keep every point that finished
    (as far as they can be written)."""
    for fut in futures:
        fut.cancel()
    if not local:
        # Another executor's workers: a local process pool's took the same Ctrl-C (one
        # process group) and return their chunks' finished points within ~50 ms; those
        # still running after 0.5 s (a signal to this process alone) are sent it. A Dask
        # cluster's chunks are cancelled (the cancel above, for those not started) and
        # stopped on every worker (``worker.cancel_sweep``); what came back within the
        # wait is kept.
        _cancel_on_dask(executor, token)
        running = [f for f in futures if not f.cancelled()]
        _, pending = wait(running, timeout=0.5)
        if pending and _interrupt_local_workers(executor):
            wait(pending, timeout=STOP_WAIT_S)
        for fut in running:
            if fut.done() and fut.exception() is None:
                for row in fut.result():
                    _keep_quietly(keep, row)
        return
    _core.cancel_runs(True)
    try:
        for fut in futures:
            if fut.cancelled():
                continue
            try:
                rows = fut.result()
            except BaseException:  # the interrupted chunk: its finished rows are written
                continue
            for row in rows:
                _keep_quietly(keep, row)
    finally:
        _core.cancel_runs(False)


def _cancel_on_dask(executor, token) -> None:
    """On a Dask cluster: cancel the sweep's tasks that are queued, and stop the chunks
    running on the workers (a cancelled Dask task that is running goes on otherwise,
    holding its worker until its chunk ends)."""
    client = getattr(executor, "_client", None)  # dask.distributed's ClientExecutor
    if client is None or token is None:
        return
    from ssdlab.sweep.worker import cancel_sweep

    try:
        client.cancel(list(getattr(executor, "_futures", ())))
        # Returns once every worker's runs of this sweep have stopped (each waits at
        # most worker.CANCEL_WAIT_S).
        client.run(cancel_sweep, token, wait=True, on_error="ignore")
    except Exception:  # a cluster gone or unreachable: nothing more to stop
        pass


def _interrupt_local_workers(executor) -> bool:
    """Ctrl-C to the worker processes of a local process pool (True if it is one)."""
    procs = getattr(executor, "_processes", None)  # ProcessPoolExecutor's, by pid
    if not isinstance(procs, dict) or not procs:
        return False
    for proc in list(procs.values()):
        try:
            os.kill(proc.pid, signal.SIGINT)
        except (OSError, AttributeError, TypeError):
            pass
    return True


def _keep_quietly(keep, row: dict) -> None:
    try:
        keep(row)
    except Exception:  # the error that stopped the sweep is the one raised
        pass


def _executor_workers(executor: Executor | None) -> int | None:
    """How many chunks the executor runs at once, where it says."""
    if executor is None:
        return None
    client = getattr(executor, "_client", None)  # dask.distributed's ClientExecutor
    if client is not None:
        try:
            return sum(client.nthreads().values()) or None
        except Exception:
            return None
    n = getattr(executor, "_max_workers", None)
    return n if isinstance(n, int) and n > 0 else None


def make_chunks(
    jobs: list[dict], workers: int, max_chunk: int = MAX_CHUNK
) -> list[tuple[str, list[dict]]]:
    """Jobs grouped by prepared drive, each group cut so that all workers have work
    (chunks of at most ``max_chunk`` points)."""
    groups: dict[str, list[dict]] = {}
    for j in jobs:
        groups.setdefault(j["prep_key"], []).append(j)
    if not groups:
        return []
    per_group = max(1, math.ceil(workers / len(groups)))
    chunks = []
    for key, items in groups.items():
        size = max(1, min(max_chunk, math.ceil(len(items) / per_group)))
        for i in range(0, len(items), size):
            chunk = [
                {"run_id": j["run_id"], "kwargs": j["kwargs"], "params": j["params"]}
                for j in items[i : i + size]
            ]
            chunks.append((key, chunk))
    return chunks


def resolve_points(points: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Check every point through the core; each job: run_id, prep_key, kwargs, params.

    Points that resolve to the same run (same run_id) are run once.
    """
    jobs, seen = [], set()
    devices: dict[str, dict] = {}
    for i, point in enumerate(points):
        if not isinstance(point, Mapping):
            raise ConfigError(f"point {i}: expected a dict of run() arguments, got {point!r}")
        try:
            job = _resolve(point, devices)
        except ConfigError as e:
            raise ConfigError(f"point {i} ({_describe(point)}): {e}") from None
        if job["run_id"] not in seen:
            seen.add(job["run_id"])
            jobs.append(job)
    return jobs


def _describe(point: Mapping[str, Any]) -> str:
    params = point.get("params") or {}
    if params:
        return ", ".join(f"{k}={v}" for k, v in params.items())
    return ", ".join(f"{k}={point[k]}" for k in ("device", "state", "seed") if k in point)


def _resolve(point: Mapping[str, Any], devices: dict[str, dict]) -> dict[str, Any]:
    bad = sorted(set(point) - set(POINT_KEYS))
    if bad:
        raise ConfigError(f"unknown key(s) {', '.join(bad)} (allowed: {', '.join(POINT_KEYS)})")
    device = point.get("device", api.DEFAULT_DEVICE)
    overrides = point.get("set") or {}
    state = api._check_state(point.get("state", "full"))
    seed = point.get("seed", 1)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ConfigError(f"seed: '{seed}' must be a non-negative integer")
    dev_key = json.dumps([str(device), api._overrides(overrides)], default=str)
    if isinstance(device, Mapping):
        dev_key = json.dumps([device, api._overrides(overrides)], sort_keys=True, default=str)
    if dev_key not in devices:
        devices[dev_key] = (api.validate(device, set=overrides), api._prep_key(device, overrides))
    config, device_prep = devices[dev_key]
    workload = point.get("workload")
    if isinstance(workload, str):
        from ssdlab.workloads import named_workload

        workload = named_workload(workload)
    if point.get("queues") is not None:
        workload = api._with_queues(workload, point["queues"])
    resolved_wl = _resolve_workload(workload, config["capacity_bytes"])
    version = _core.__version__
    ident = json.dumps(
        {"device": config, "workload": resolved_wl, "state": state, "seed": seed, "v": version},
        sort_keys=True,
    )
    run_id = hashlib.sha256(ident.encode()).hexdigest()[:20]
    area = [resolved_wl.get("offset"), resolved_wl.get("size")]
    prep_key = hashlib.sha256(
        json.dumps([device_prep, state, seed, area], sort_keys=True).encode()
    ).hexdigest()[:20]
    params: dict[str, Any] = {
        "device": device if isinstance(device, str) else config.get("name"),
        "state": state,
        "seed": seed,
    }
    for k, v in overrides.items():
        params[f"set.{k}"] = api._value_text(v)
    for k, v in (point.get("params") or {}).items():
        params[k] = api._value_text(v) if k.startswith("set.") else v
    flatten(resolved_wl, "workload", params)
    flatten(config, "config", params)
    kwargs = {
        "device": device if not isinstance(device, os.PathLike) else os.fspath(device),
        "workload": workload,
        "state": state,
        "seed": seed,
        "set": dict(overrides),
    }
    return {"run_id": run_id, "prep_key": prep_key, "kwargs": kwargs, "params": params}


def _resolve_workload(workload: Any, capacity: int) -> dict[str, Any]:
    if workload is None:
        return json.loads(_core.validate_workload("{}", [], capacity))
    if not isinstance(workload, Mapping):
        raise ConfigError(
            "workload: expected a dict of fio options or a workload name, "
            f"got {type(workload).__name__}"
        )
    if "jobs" in workload or any(isinstance(v, Mapping) for v in workload.values()):
        text = json.dumps(api._drop_none(workload))
        return json.loads(_core.validate_workload(text, [], capacity))
    return json.loads(_core.validate_workload("{}", api._workload_args(workload), capacity))


def sweep(
    grid,
    executor: Executor | None = None,
    *,
    out: str | os.PathLike | None = None,
    workers: int | None = None,
    retry_failed: bool = False,
    reuse_prep: bool = True,
    progress: bool | None = None,
    max_points: int | None = None,
):
    """Run a grid (a TOML file or a dict: base, axes, zip, repeats) and return the
    DataFrame of its runs, one row per point. ``max_points`` raises the limit on the
    grid's size (default: the grid's ``max_points``, else 10,000). See docs/sweeps.md."""
    from ssdlab.sweep.grid import expand

    return run_points(
        expand(grid, max_points),
        out,
        executor=executor,
        workers=workers,
        retry_failed=retry_failed,
        reuse_prep=reuse_prep,
        progress=progress,
    )


def process_pool(workers: int | None = None) -> Executor:
    """A local pool of worker processes (spawned: safe beside threads), one per core.

    The processes share this machine's memory budget: each run's default ``max_memory``
    is the usual half of physical memory divided among the processes."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from ssdlab.sweep.worker import share_memory

    n = workers or os.cpu_count() or 1
    return ProcessPoolExecutor(
        max_workers=n,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=share_memory,
        initargs=(n,),
    )
