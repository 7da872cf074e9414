"""Sweeps under careless use (issue 31): absurd grids are refused before they are
expanded, and Ctrl-C stops a threaded sweep promptly, keeping every finished point."""

import os
import signal
import subprocess
import sys
import time

import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("pandas")

import ssdlab
from ssdlab.sweep.grid import MAX_POINTS, expand, grid_size, load_grid

# ---- absurd grids ---------------------------------------------------------------------

# The subprocesses run this ssdlab (the tests may run with a relative PYTHONPATH and
# the subprocesses from their tmp directory).
ENV = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(ssdlab.__file__))}
SSDLAB = [sys.executable, "-m", "ssdlab"]

BASE = {"device": "tiny-test", "workload": {"rw": "randread", "number_ios": 1000}}


def _refused_quickly(grid, *, match, **kw):
    t0 = time.monotonic()
    with pytest.raises(ssdlab.ConfigError, match=match) as e:
        expand(grid, **kw)
    assert time.monotonic() - t0 < 2.0  # counted, not enumerated
    return str(e.value)


def test_a_grid_of_a_million_points_is_refused_naming_its_axes():
    grid = {
        "base": BASE,
        "axes": {"workload.iodepth": list(range(1, 1001)), "nand.t_read": list(range(1000))},
    }
    msg = _refused_quickly(grid, match="1,000,000 points")
    assert "workload.iodepth (1000) x nand.t_read (1000)" in msg
    assert f"{MAX_POINTS:,} allowed" in msg and "max_points" in msg


def test_a_grid_of_10_to_the_12_points_with_zips_is_refused():
    grid = {
        "base": BASE,
        "axes": {"workload.iodepth": list(range(10_000))},
        "zip": [{"workload.bs": ["4KiB"] * 10_000, "workload.rw": ["read"] * 10_000}],
        "repeats": 10_000,
    }
    msg = _refused_quickly(grid, match=r"1,000,000,000,000 points")
    assert "workload.iodepth (10000) x zip[0] (10000) x repeats (10000)" in msg


def test_repeats_beyond_32_bits_is_refused_from_the_cli(tmp_path):
    (tmp_path / "g.toml").write_text('repeats = 4294967297\n[base]\ndevice = "tiny-test"\n')
    r = subprocess.run(
        [*SSDLAB, "sweep", "g.toml", "--out", "out", "-q"],
        cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert r.returncode == 2, r.stderr
    assert "4,294,967,297 points (repeats (4294967297))" in r.stderr
    assert "Traceback" not in r.stderr
    assert not (tmp_path / "out").exists()  # refused before anything was made


def test_the_limit_can_be_raised_by_the_grid_the_cli_and_python(tmp_path):
    grid = {"base": BASE, "axes": {"workload.iodepth": [1, 2, 3]}, "repeats": 2}
    assert grid_size([load_grid(grid)["axes"]], 2) == 6
    with pytest.raises(ssdlab.ConfigError, match=r"6 points .* more than the 5 allowed"):
        expand(grid, max_points=5)
    assert len(expand(grid, max_points=6)) == 6
    assert len(expand({**grid, "max_points": 6})) == 6
    with pytest.raises(ssdlab.ConfigError, match="more than the 4 allowed"):
        expand({**grid, "max_points": 4})
    with pytest.raises(ssdlab.ConfigError, match="max_points: '0' must be a positive"):
        expand({**grid, "max_points": 0})
    (tmp_path / "g.toml").write_text(
        'repeats = 2\n[base]\ndevice = "tiny-test"\n'
        'workload = { rw = "randread", number_ios = 500 }\n'
        '[axes]\n"workload.iodepth" = [1, 2, 3]\n'
    )
    cmd = [*SSDLAB, "sweep", "g.toml", "--out", "out", "-q", "--max-points"]
    kw = {"cwd": tmp_path, "env": ENV, "capture_output": True, "text": True, "timeout": 120}
    r = subprocess.run([*cmd, "5"], **kw)
    assert r.returncode == 2 and "more than the 5 allowed" in r.stderr, r.stderr
    r = subprocess.run([*cmd, "6"], **kw)
    assert r.returncode == 0, r.stderr
    assert len(list((tmp_path / "out" / "runs").glob("*.parquet"))) == 6


# ---- Ctrl-C during a threaded sweep --------------------------------------------------

# Two prepared drives (seeds), so two chunks run side by side: six short points, and
# two long ones (~7 s each on a 2-core machine).
STOP_GRID = """\
[base]
device = "tiny-test"
state = "full"
workload = { rw = "randread", bs = "4KiB" }
[[zip]]
seed = [1, 1, 1, 1, 1, 1, 2, 2]
"workload.iodepth" = [4, 5, 6, 7, 8, 9, 4, 5]
"workload.number_ios" = [100000, 100000, 100000, 100000, 100000, 100000, 25000000, 25000000]
"""
N_STOP = 8


def _default_sigint() -> None:
    # A background job of a non-interactive shell starts with SIGINT ignored, and its
    # children inherit that: give the sweep Python's usual Ctrl-C.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _stamps(runs):
    return {f.name: f.stat().st_mtime_ns for f in runs.glob("*.parquet")}


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")
def test_ctrl_c_stops_a_threaded_sweep_keeps_finished_points_and_resumes(tmp_path):
    (tmp_path / "grid.toml").write_text(STOP_GRID)
    runs = tmp_path / "out" / "runs"
    cmd = [*SSDLAB, "sweep", "grid.toml", "--out", "out", "--workers", "2", "-q"]
    # The engine before issue 31 wrote a chunk's points only when the whole chunk was
    # done, and after Ctrl-C waited for every chunk in flight (here ~15 s of long points)
    # and threw their points away.
    p = subprocess.Popen(
        cmd, cwd=tmp_path, env=ENV, stderr=subprocess.PIPE, text=True,
        preexec_fn=_default_sigint,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    while p.poll() is None and len(_stamps(runs)) < 2 and time.monotonic() < deadline:
        time.sleep(0.005)
    seen = len(_stamps(runs))
    assert p.poll() is None and 2 <= seen < N_STOP - 2, seen
    p.send_signal(signal.SIGINT)
    try:
        err = p.communicate(timeout=10)[1]  # it takes ~0.2 s
    except subprocess.TimeoutExpired:
        p.kill()
        raise
    assert p.returncode == 130, err
    assert "Traceback" not in err and "interrupted" in err
    kept = _stamps(runs)
    # Every point seen finished is kept; at most the two in flight finished meanwhile;
    # nothing else ran after the signal.
    assert seen <= len(kept) <= seen + 2, (seen, len(kept))
    assert f"{len(kept)} finished point(s) kept" in err
    assert not list(runs.glob("*.tmp-*"))
    # The same command resumes: only the missing points run, the kept files untouched.
    r = subprocess.run(cmd, cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    after = _stamps(runs)
    assert len(after) == N_STOP
    assert {k: after[k] for k in kept} == kept
    df = ssdlab.sweep_results(tmp_path / "out")
    assert len(df) == N_STOP and set(df["status"]) == {"ok"}
    assert sorted(df["read_total_ios"]) == [100_000] * 6 + [25_000_000] * 2


# ---- the DuckDB that `sweep query` needs ---------------------------------------------


def test_duckdb_minimum_is_the_one_whose_confinement_holds(tmp_path, monkeypatch):
    """pyproject.toml asks for the DuckDB that store.py needs: extract_statements (0.10.1)
    and a sniff_csv that obeys disabled external access (1.1.0; 0.10.1 to 1.0.0 read any
    file with it, as tests/test_sweep_query_security.py showed on each release)."""
    import re
    from pathlib import Path

    duckdb = pytest.importorskip("duckdb")
    from ssdlab.sweep import store

    pyproject = (Path(__file__).parent.parent / "pyproject.toml").read_text()
    wanted = ".".join(map(str, store.MIN_DUCKDB[:2]))
    found = re.findall(r'"duckdb>=([0-9.]+)"', pyproject)
    assert found and set(found) == {wanted}, found  # dependencies and the test extra
    assert hasattr(duckdb.connect(), "extract_statements")  # what check_query parses with
    out = tmp_path / "out"
    ssdlab.sweep({"base": BASE}, out=out)
    con, cur = store.query(out, "SELECT count(*) FROM runs")
    assert cur.fetchall() == [(1,)]
    con.close()
    monkeypatch.setattr(duckdb, "__version__", "1.0.0")
    with pytest.raises(ssdlab.ConfigError, match=r"needs duckdb >= 1\.1\.0 \(this is 1\.0\.0"):
        store.query(out, "SELECT count(*) FROM runs")
    monkeypatch.setattr(duckdb, "__version__", "1.1.0.dev123")
    store.query(out, "SELECT 1")[0].close()


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs POSIX signals")
def test_ctrl_c_to_a_process_pool_sweep_stops_its_workers(tmp_path):
    """With --processes, a Ctrl-C to the sweep alone (not its process group: `kill -INT`)
    reaches the workers too; the points they finished are kept."""
    (tmp_path / "grid.toml").write_text(STOP_GRID)
    runs = tmp_path / "out" / "runs"
    cmd = [*SSDLAB, "sweep", "grid.toml", "--out", "out", "--workers", "2", "--processes", "-q"]
    p = subprocess.Popen(
        cmd, cwd=tmp_path, env=ENV, stderr=subprocess.PIPE, text=True,
        preexec_fn=_default_sigint,
    )  # fmt: skip
    deadline = time.monotonic() + 120
    # From a process pool, points come back a chunk at a time: the six short ones.
    while p.poll() is None and len(_stamps(runs)) < 6 and time.monotonic() < deadline:
        time.sleep(0.005)
    assert p.poll() is None and len(_stamps(runs)) == 6
    p.send_signal(signal.SIGINT)
    try:
        err = p.communicate(timeout=10)[1]  # ~1 s; before, it waited for the long points
    except subprocess.TimeoutExpired:
        p.kill()
        raise
    assert p.returncode == 130, err
    assert "Traceback" not in err and "6 finished point(s) kept" in err
    assert len(_stamps(runs)) == 6 and not list(runs.glob("*.tmp-*"))


# ssdlab.sweep from Python on the caller's thread pool: a Ctrl-C once two points are
# written; prints how long the sweep took to raise KeyboardInterrupt after it and to
# leave the pool idle (its threads see the signal only through the core's cancel flag).
API_SCRIPT = """
import os, pathlib, signal, sys, threading, time
from concurrent.futures import ThreadPoolExecutor
import ssdlab
signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started ignored
runs = pathlib.Path("out/runs")
t0 = None
def later():
    global t0
    while len(list(runs.glob("*.parquet"))) < 2:
        time.sleep(0.005)
    t0 = time.monotonic()
    os.kill(os.getpid(), signal.SIGINT)
threading.Thread(target=later, daemon=True).start()
pool = ThreadPoolExecutor(2)
try:
    ssdlab.sweep("grid.toml", pool, out="out")
except KeyboardInterrupt:
    raised = time.monotonic() - t0
pool.shutdown()
print("interrupted after", raised, time.monotonic() - t0, len(list(runs.glob("*.parquet"))))
"""


def test_python_sweep_on_a_callers_thread_pool_stops_on_ctrl_c(tmp_path):
    (tmp_path / "grid.toml").write_text(STOP_GRID)
    r = subprocess.run(
        [sys.executable, "-c", API_SCRIPT],
        cwd=tmp_path, env=ENV, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("interrupted after"), r.stdout + r.stderr
    raised, idle, kept = r.stdout.split()[-3:]
    # before: raised at once, but the pool ran the long points on (~15 s)
    assert float(raised) < 5.0 and float(idle) < 5.0, r.stdout
    assert 2 <= int(kept) < N_STOP, r.stdout
