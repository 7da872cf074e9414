"""Sweeps under careless use (issue 31): absurd grids are refused before they are
expanded, and Ctrl-C stops a threaded sweep promptly, keeping every finished point."""

import os
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
