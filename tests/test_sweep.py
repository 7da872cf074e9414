"""Sweeps: grid expansion, validation before the first run, results, resume, failures."""

import subprocess
import sys

import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("pandas")

import ssdlab
from ssdlab.sweep.grid import expand

ISSUE_GRID = """\
[base]
device = "tiny-test"
state = "full"
workload = { rw = "randread", bs = "4KiB", number_ios = 20000 }
[axes]
"workload.iodepth" = [1, 4, 16, 32]
"set.nand.t_read" = ["40us", "60us"]
seed = [1, 2]
"""

SMALL_GRID = {
    "base": {
        "device": "tiny-test",
        "state": "full",
        "workload": {"rw": "randread", "bs": "4KiB", "number_ios": 1000},
    },
    "axes": {"workload.iodepth": [1, 8], "nand.t_read": ["40us", "80us"]},
}


def metrics(df):
    """The simulated figures of a results frame (wall-clock columns left out)."""
    cols = sorted(c for c in df.columns if "wall" not in c)
    return df[cols].sort_values("run_id").reset_index(drop=True)


def test_issue_grid_runs_and_resumes(tmp_path):
    grid = tmp_path / "grid.toml"
    grid.write_text(ISSUE_GRID)
    out = tmp_path / "out"
    df = ssdlab.sweep(grid, out=out)
    assert len(df) == 16 and df["run_id"].is_unique
    assert set(df["status"]) == {"ok"}
    assert sorted(set(df["workload.iodepth"])) == [1, 4, 16, 32]
    assert set(df["set.nand.t_read"]) == {"40us", "60us"}
    assert (df["read_total_ios"] == 20000).all()
    # Physics, not bookkeeping: a slower read lowers IOPS at every depth and seed.
    piv = df.pivot_table(
        index=["workload.iodepth", "seed"], columns="set.nand.t_read", values="read_iops"
    )
    assert (piv["60us"] < piv["40us"]).all()
    # Resume: nothing is run again; the files are untouched.
    files = sorted((out / "runs").glob("*.parquet"))
    assert len(files) == 16
    stamps = [f.stat().st_mtime_ns for f in files]
    again = ssdlab.sweep(grid, out=out)
    assert [f.stat().st_mtime_ns for f in files] == stamps
    assert metrics(again).equals(metrics(df))
    assert len(ssdlab.sweep_results(out)) == 16


def test_expand_product_zip_repeats():
    pts = expand(
        {
            "base": {"device": "tiny-test", "workload": "rand-read-4k-t1-qd32", "seed": 5},
            "axes": {"state": ["fresh", "full"]},
            "zip": [{"workload.bs": ["4KiB", "128KiB"], "workload.rw": ["randread", "read"]}],
            "repeats": 3,
        }
    )
    assert len(pts) == 2 * 2 * 3
    assert {p["seed"] for p in pts} == {5, 6, 7}
    pairs = {(p["workload"]["bs"], p["workload"]["rw"]) for p in pts}
    assert pairs == {("4KiB", "randread"), ("128KiB", "read")}
    assert all(p["workload"]["iodepth"] == 32 for p in pts)  # the named workload's options


@pytest.mark.parametrize(
    "grid, message",
    [
        ({"axes": {"iodepth": [1]}}, "'iodepth' is not an axis (allowed: device, state"),
        ({"axes": {"seed": []}}, "'seed' must be a non-empty list"),
        ({"zip": [{"seed": [1, 2], "state": ["full"]}]}, "lists must have one length"),
        ({"base": {"devise": "x"}}, "unknown key(s) devise (allowed: device, workload"),
        ({"axes": {"seed": [1, 2]}, "repeats": 2}, "repeats and a seed axis"),
        ({"bases": {}}, "unknown key(s) bases"),
    ],
)
def test_grid_shape_errors(grid, message):
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.sweep(grid)
    assert message in str(e.value)


def test_every_point_is_validated_before_the_first_run(tmp_path):
    grid = {
        "base": SMALL_GRID["base"],
        "axes": {"workload.iodepth": [1, 8], "set.nand.t_read": ["40us", "fast"]},
    }
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.sweep(grid, out=tmp_path / "out")
    msg = str(e.value)
    assert msg.startswith("point 1 (workload.iodepth=1, set.nand.t_read=fast): ")
    assert "nand.t_read" in msg and "fast" in msg
    assert not list((tmp_path / "out").glob("runs/*.parquet"))
    bad_state = {"base": SMALL_GRID["base"], "axes": {"state": ["full", "aged"]}}
    with pytest.raises(ssdlab.ConfigError, match="state: 'aged' is not a drive state"):
        ssdlab.sweep(bad_state)
    bad_wl = {"base": SMALL_GRID["base"], "axes": {"workload.rw": ["randread", "sideways"]}}
    with pytest.raises(ssdlab.ConfigError, match="sideways"):
        ssdlab.sweep(bad_wl)


def test_failed_point_is_recorded_and_retried_only_on_request(tmp_path, monkeypatch):
    from ssdlab import api

    real = api.run

    def flaky(**kw):
        if kw["workload"]["iodepth"] == 8 and kw["set"]["nand.t_read"] == "80us":
            raise api.SimulationError("boom for the test")
        return real(**kw)

    monkeypatch.setattr(api, "run", flaky)
    out = tmp_path / "out"
    df = ssdlab.sweep(SMALL_GRID, out=out)
    bad = df[df["status"] == "failed"]
    assert len(df) == 4 and len(bad) == 1
    assert bad["error"].iloc[0] == "SimulationError: boom for the test"
    assert bad["set.nand.t_read"].iloc[0] == "80us"
    # Without --retry-failed the failure stands, even though it would now pass.
    monkeypatch.setattr(api, "run", real)
    assert (ssdlab.sweep(SMALL_GRID, out=out)["status"] == "failed").sum() == 1
    df2 = ssdlab.sweep(SMALL_GRID, out=out, retry_failed=True)
    assert set(df2["status"]) == {"ok"} and len(ssdlab.sweep_results(out)) == 4


def test_prep_reuse_and_processes_give_the_same_results(tmp_path):
    base = ssdlab.sweep(SMALL_GRID, reuse_prep=True)
    fresh = ssdlab.sweep(SMALL_GRID, reuse_prep=False, workers=1)
    from ssdlab.sweep.engine import process_pool

    with process_pool(2) as pool:
        procs = ssdlab.sweep(SMALL_GRID, executor=pool)
    assert metrics(base).equals(metrics(fresh))
    assert metrics(base).equals(metrics(procs))


def test_sweep_points_engine_for_studies(tmp_path):
    pts = [
        {
            "device": "tiny-test",
            "workload": {"iodepth": q, "number_ios": 500},
            "params": {"study": "qd", "qd": q},
        }
        for q in (1, 2, 2)
    ]
    df = ssdlab.sweep_points(pts, tmp_path / "o")
    assert list(df["qd"]) == [1, 2]  # the duplicate point runs once
    assert set(df["study"]) == {"qd"} and set(df["status"]) == {"ok"}
    with pytest.raises(ssdlab.ConfigError, match=r"point 0 .*unknown key\(s\) iodepth"):
        ssdlab.sweep_points([{"device": "tiny-test", "iodepth": 4}])


def _cli(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "ssdlab", *args], capture_output=True, text=True, cwd=cwd
    )


def test_cli_sweep_query_and_errors(tmp_path):
    (tmp_path / "grid.toml").write_text(
        '[base]\ndevice = "tiny-test"\nworkload = { number_ios = 500 }\n'
        '[axes]\n"workload.iodepth" = [1, 4]\n'
    )
    r = _cli("sweep", "grid.toml", "-q", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""  # no progress bar when stderr is not a terminal
    r = _cli(
        "sweep",
        "query",
        "out/sweep-grid",
        'SELECT "workload.iodepth" AS qd, read_total_ios FROM runs ORDER BY qd',
        cwd=tmp_path,
    )
    assert r.returncode == 0, r.stderr
    assert r.stdout == "qd,read_total_ios\n1,500\n4,500\n"
    # Floats print with 15 significant digits: no binary noise from an average.
    sql = "SELECT 0.1::DOUBLE + 0.2::DOUBLE AS a FROM runs LIMIT 1"  # 0.30000000000000004
    r = _cli("sweep", "query", "out/sweep-grid", sql, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "a\n0.3\n", r.stdout
    r = _cli("sweep", "query", "out/sweep-grid", "SELEC", cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.startswith("ssdlab: error: sweep query:")
    r = _cli("sweep", "query", "nowhere", "SELECT 1", cwd=tmp_path)
    assert r.returncode == 2 and "no sweep results" in r.stderr
    r = _cli("sweep", "missing.toml", cwd=tmp_path)
    assert r.returncode == 2 and "'missing.toml' is not a grid file" in r.stderr


def test_chunks_hold_one_prepared_drive_each():
    from ssdlab.sweep.engine import make_chunks, resolve_points

    jobs = resolve_points(expand(SMALL_GRID))  # 2 t_read values: 2 prepared drives
    assert len({j["prep_key"] for j in jobs}) == 2
    chunks = make_chunks(jobs, workers=2)
    by_id = {j["run_id"]: j["prep_key"] for j in jobs}
    assert all({by_id[i["run_id"]] for i in items} == {key} for key, items in chunks)
    assert sorted(i["run_id"] for _, items in chunks for i in items) == sorted(by_id)
    # One group and four workers: the group is cut so that every worker has a chunk.
    one = [j for j in jobs if j["prep_key"] == jobs[0]["prep_key"]]
    assert len(make_chunks(one, workers=4)) == len(one)


def test_devices_that_prepare_alike_share_one_prepared_drive(tmp_path):
    """HMB sizes (seed 000's Max/Half/Min) do not change preparation: one group, and
    the runs that reuse its drive equal runs that prepare their own."""
    from ssdlab.sweep.engine import resolve_points

    def points(**extra):
        return [
            {
                "device": "hmb-ssd",
                "state": "full",
                "set": {"hmb.host_policy": policy, **extra},
                "workload": {"rw": "randread", "number_ios": 20000, "size": "24GiB"},
            }
            for policy in ("max", "half", "min")
        ]

    assert len({j["prep_key"] for j in resolve_points(points())}) == 1
    spare = resolve_points(points() + points(**{"ftl.over_provisioning": 0.2}))
    assert len({j["prep_key"] for j in spare}) == 2
    shared = ssdlab.sweep_points(points(), tmp_path / "a", reuse_prep=True)
    own = ssdlab.sweep_points(points(), tmp_path / "b", reuse_prep=False, workers=1)
    assert metrics(shared).equals(metrics(own))
    # The HMB size does change the runs: a 24 MiB map fits in Max and Half, not in Min.
    assert shared["read_lat_mean_ns"].nunique() == 2


def test_only_drives_that_points_share_are_kept_for_reuse(tmp_path, monkeypatch):
    """A prepared drive of one point is not cached: such points run side by side instead of
    waiting for each other's turn at the process's one cached drive."""
    from ssdlab.sweep import engine

    calls = []
    real = engine.run_chunk

    def spy(key, items, reuse_prep, *rest):
        calls.append((key, len(items), reuse_prep))
        return real(key, items, reuse_prep, *rest)

    monkeypatch.setattr(engine, "run_chunk", spy)
    grid = dict(SMALL_GRID, axes=dict(SMALL_GRID["axes"], seed=[1, 2]))
    points = expand(grid)  # 2 t_read x 2 seeds = 4 drives, 2 points each
    lone = [dict(p, seed=3 + i) for i, p in enumerate(points[:2])]  # 2 drives of 1 point
    df = engine.run_points(points + lone, tmp_path, workers=2)
    assert len(df) == 10 and set(df["status"]) == {"ok"}
    flags = {}
    for key, _, reuse in calls:
        flags.setdefault(key, set()).add(reuse)
    assert sorted(tuple(v) for v in flags.values()) == [(False,)] * 2 + [(True,)] * 4
    # Again with one point of a shared drive lost: it runs alone, without the cache.
    calls.clear()
    first = sorted((tmp_path / "runs").glob("*.parquet"))
    by_key = {}
    for job in engine.resolve_points(points):
        by_key.setdefault(job["prep_key"], []).append(job["run_id"])
    gone = next(iter(by_key.values()))[0]
    (tmp_path / "runs" / f"{gone}.parquet").unlink()
    engine.run_points(points + lone, tmp_path, workers=2)
    assert [(n, reuse) for _, n, reuse in calls] == [(1, False)]
    assert len(first) == 10


def test_progress_line():
    import io

    from ssdlab.sweep.progress import Progress

    s = io.StringIO()
    bar = Progress(total=10, done=2, enabled=True, stream=s)
    bar.advance()
    bar.advance(failed=True)
    line = bar.line()
    assert line.startswith("sweep [") and "4/10 done, 1 failed" in line
    assert "points/min" in line and "ETA" in line
    quiet = io.StringIO()
    Progress(total=3, enabled=False, stream=quiet).advance()
    assert quiet.getvalue() == ""


def test_missing_dependency_says_what_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas now fails
    with pytest.raises(ssdlab.ConfigError) as e:
        ssdlab.sweep(SMALL_GRID)
    assert "needs the 'pandas' package: pip install ssdlab" in str(e.value)


def test_device_file_beside_the_grid_and_device_axis(tmp_path):
    sub = tmp_path / "grids"
    sub.mkdir()
    text = ssdlab.preset_toml("tiny-test").replace('t_read = "50us"', 't_read = "80us"')
    (sub / "slow.toml").write_text(text.replace('name = "tiny-test"', 'name = "slow-tiny"'))
    (sub / "g.toml").write_text(
        "repeats = 2\n[base]\nworkload = { number_ios = 500 }\n"
        '[axes]\ndevice = ["slow.toml", "tiny-test"]\n'
    )
    df = ssdlab.sweep(sub / "g.toml")
    assert len(df) == 4 and set(df["seed"]) == {1, 2}
    assert set(df["config.name"]) == {"slow-tiny", "tiny-test"}
    slow = df[df["config.name"] == "slow-tiny"].sort_values("seed")
    fast = df[df["config.name"] == "tiny-test"].sort_values("seed")
    assert set(slow["device"]) == {str(sub / "slow.toml")}
    assert (slow["read_iops"].values < fast["read_iops"].values).all()


def test_a_grid_that_is_neither_a_path_nor_a_dict_is_a_config_error():
    import ssdlab

    for bad in (None, 5, ["base"]):
        with pytest.raises(ssdlab.ConfigError, match="expected a TOML file path or a dict"):
            ssdlab.sweep(bad)


def test_local_worker_processes_share_the_memory_budget():
    from ssdlab import api
    from ssdlab.sweep.engine import process_pool
    from ssdlab.sweep.worker import default_max_memory

    with process_pool(2) as pool:
        budgets = {pool.submit(default_max_memory).result() for _ in range(4)}
    assert budgets == {api.physical_memory_bytes() // 2 // 2}
