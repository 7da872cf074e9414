"""Sweep throughput and preparation reuse, for BENCHMARKS.md (issue 13).

    python scripts/sweep_bench.py kill      # 200 points, SIGKILLed twice, resumed: 200 rows?
    python scripts/sweep_bench.py rate      # points/min: 1 and 2 threads, 2 processes, Dask
    python scripts/sweep_bench.py rate --sim   # the same on a simulation-bound grid
    python scripts/sweep_bench.py reuse     # one prepared drive per group vs one per point

Each figure is the median of --repeat runs on a fresh results directory. The grid is
200 points on client-tlc-dram (full drive, one prepared drive shared by every point,
2,000 I/Os per point), so a point is dominated by cloning the prepared drive (copying
its 1 GiB map: memory-bound); --sim gives a grid whose points are simulation-bound.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import ssdlab

GRID_200 = """\
[base]
device = "client-tlc-dram"
state = "full"
seed = 1
workload = { number_ios = 2000 }
[axes]
"workload.iodepth" = [1, 2, 4, 8, 16, 32, 64, 128]
"workload.bs" = ["4KiB", "8KiB", "16KiB", "64KiB", "128KiB"]
"workload.rw" = ["randread", "read", "randwrite", "write", "randrw"]
"""


# Simulation-bound: 48 points on tiny-test with 100,000 I/Os each (preparing and
# cloning the 32 MiB drive is negligible).
GRID_SIM = """\
[base]
device = "tiny-test"
state = "full"
workload = { rw = "randrw", bs = "4KiB", number_ios = 100000 }
[axes]
"workload.iodepth" = [1, 2, 4, 8, 16, 32]
"set.nand.t_read" = ["40us", "60us"]
seed = [1, 2, 3, 4]
"""


def grid_file(tmp: Path, text: str = GRID_200) -> Path:
    p = tmp / "grid.toml"
    p.write_text(text)
    return p


def cmd_kill(args) -> None:
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        grid = grid_file(tmp)
        cmd = [sys.executable, "-m", "ssdlab", "sweep", str(grid), "--out", str(tmp / "o"), "-q"]
        t0 = time.monotonic()
        for i in range(2):
            proc = subprocess.Popen(cmd, start_new_session=True)
            delay = rng.uniform(5, 25)
            time.sleep(delay)
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
            n = len(list((tmp / "o" / "runs").glob("*.parquet")))
            print(f"kill {i + 1} after {delay:.1f} s: {n} results on disk")
        subprocess.run(cmd, check=True)
        df = ssdlab.sweep_results(tmp / "o")
        print(
            f"resumed: {len(df)} rows, {df['run_id'].nunique()} distinct run_ids, "
            f"status {df['status'].value_counts().to_dict()}, "
            f"{time.monotonic() - t0:.0f} s in all"
        )


def timed_sweep(grid, frames=None, **kw) -> float:
    with tempfile.TemporaryDirectory() as out:
        t0 = time.monotonic()
        df = ssdlab.sweep(grid, out=out, progress=False, **kw)
        dt = time.monotonic() - t0
    assert len(df) and set(df["status"]) == {"ok"}, df["error"].dropna().head()
    if frames is not None:
        frames.append(df)
    return len(df) / dt * 60


def cmd_rate(args) -> None:
    from ssdlab.sweep.engine import process_pool

    with tempfile.TemporaryDirectory() as tmp:
        grid = grid_file(Path(tmp), GRID_SIM if args.sim else GRID_200)
        cases = {
            "1 thread": lambda: timed_sweep(grid, workers=1),
            "2 threads": lambda: timed_sweep(grid, workers=2),
        }

        def procs():
            with process_pool(2) as pool:
                return timed_sweep(grid, executor=pool)

        def dask():
            from dask.distributed import Client, LocalCluster

            with (
                LocalCluster(
                    n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
                ) as c,
                Client(c) as client,
            ):
                return timed_sweep(grid, executor=client.get_executor())

        cases["2 processes"] = procs
        cases["Dask LocalCluster, 2 workers"] = dask
        for name, fn in cases.items():
            if args.case and name not in args.case:
                continue
            rates = [fn() for _ in range(args.repeat)]
            print(
                f"{name:32s} {statistics.median(rates):7.0f} points/min  "
                f"(runs: {', '.join(f'{r:.0f}' for r in rates)})",
                flush=True,
            )


def cmd_reuse(args) -> None:
    grid = {
        "base": {"device": "client-tlc-dram", "state": "full", "workload": {"number_ios": 2000}},
        "axes": {
            "workload.iodepth": [1, 2, 4, 8, 16, 32, 64, 128],
            "workload.rw": ["randread", "randwrite"],
        },
    }
    for reuse in (False, True):
        frames = []
        rates = [timed_sweep(grid, frames, workers=2, reuse_prep=reuse) for _ in range(args.repeat)]
        prep = statistics.median(t for df in frames for t in df["prep_wall_time_s"])
        print(
            f"reuse_prep={reuse!s:5s} {statistics.median(rates):7.1f} points/min  "
            f"(runs: {', '.join(f'{r:.1f}' for r in rates)}); "
            f"median drive preparation per point {prep:.3f} s",
            flush=True,
        )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("kill", "rate", "reuse"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=13)
    ap.add_argument("--case", action="append")
    ap.add_argument("--sim", action="store_true", help="rate: the simulation-bound grid")
    args = ap.parse_args()
    print(
        f"# {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}, "
        f"ssdlab {ssdlab.__version__}",
        flush=True,
    )
    {"kill": cmd_kill, "rate": cmd_rate, "reuse": cmd_reuse}[args.what](args)
    print(f"# load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
