"""A sweep killed with SIGKILL at random moments resumes with no result lost or doubled."""

import os
import random
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("pandas")

import ssdlab

GRID = """\
[base]
device = "tiny-test"
state = "full"
workload = { rw = "randread", bs = "4KiB", number_ios = 20000 }
[axes]
"workload.iodepth" = [1, 2, 4, 8, 16, 32]
"set.nand.t_read" = ["40us", "60us", "80us"]
seed = [1, 2]
"""
N_POINTS = 36


def _count(runs):
    return len(list(runs.glob("*.parquet"))) if runs.is_dir() else 0


def _snapshot(runs):
    return {f.name: f.read_bytes() for f in runs.glob("*.parquet")}


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")
def test_sigkill_at_random_moments_then_resume(tmp_path):
    seed = int(os.environ.get("SSDLAB_KILL_SEED", time.time_ns() % 10**6))
    rng = random.Random(seed)
    (tmp_path / "grid.toml").write_text(GRID)
    out, runs = tmp_path / "out", tmp_path / "out" / "runs"
    cmd = [sys.executable, "-m", "ssdlab", "sweep", "grid.toml", "--out", "out", "-q"]
    kills = 0
    for _ in range(2):
        before = _snapshot(runs) if runs.is_dir() else {}
        proc = subprocess.Popen(cmd, cwd=tmp_path, start_new_session=True)
        # The kill moment is chosen by progress, not wall time, so that a faster or
        # slower machine kills at the same kind of moment: after a random number of
        # this run's results are written (none: during start-up), then a random few ms
        # later (often inside the next point or the write of its file).
        wait_for = len(before) + rng.randrange(0, (N_POINTS - len(before)) // 2)
        while proc.poll() is None and _count(runs) < wait_for:
            time.sleep(0.002)
        time.sleep(rng.uniform(0.0, 0.03))
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            kills += 1
        proc.wait()
        after = _snapshot(runs)
        # Every result written before survives, byte for byte; every file reads back.
        assert all(after[name] == data for name, data in before.items()), f"seed {seed}"
        if after:
            assert len(ssdlab.sweep_results(out)) == len(after)
    assert kills >= 1, f"the sweep finished before any kill (seed {seed})"
    partial = _snapshot(runs)
    r = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    final = _snapshot(runs)
    assert all(final[name] == data for name, data in partial.items())
    df = ssdlab.sweep_results(out)
    assert len(df) == N_POINTS and df["run_id"].is_unique, f"seed {seed}"
    assert set(df["status"]) == {"ok"}
    assert not [p for p in runs.iterdir() if not p.name.endswith(".parquet")]
    # The resumed results are the uninterrupted sweep's results.
    ref = ssdlab.sweep(tmp_path / "grid.toml")
    cols = sorted(c for c in df.columns if "wall" not in c)
    got = df[cols].sort_values("run_id").reset_index(drop=True)
    assert got.equals(ref[cols].sort_values("run_id").reset_index(drop=True))
