"""Issue 29, item 7: resume per point. On another executor (processes, Dask) every
point is its own task, so each is written as soon as it finishes (not per chunk of up
to 8); a rerun says how many points it skipped and how many it ran."""

from concurrent.futures import Executor, Future, ThreadPoolExecutor

import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("pandas")

import ssdlab
from ssdlab.cli import main
from ssdlab.sweep import engine

GRID = {
    "base": {"device": "tiny-test", "workload": {"rw": "randread", "number_ios": 500}},
    "axes": {"workload.iodepth": [1, 2, 4, 8, 16, 32], "seed": [1, 2]},
}


class Remote(Executor):
    """An executor that is not this process's thread pool (as Dask's or a process
    pool is to the engine), recording what each task carried."""

    def __init__(self):
        self.pool = ThreadPoolExecutor(2)
        self.tasks: list[int] = []

    def submit(self, fn, *args, **kwargs) -> Future:
        self.tasks.append(len(args[1]))  # run_chunk(prep_key, items, ...)
        return self.pool.submit(fn, *args, **kwargs)

    def shutdown(self, wait=True, **kw):
        self.pool.shutdown(wait=wait)


def test_another_executor_runs_one_point_per_task(tmp_path):
    remote = Remote()
    try:
        df = ssdlab.sweep(GRID, out=tmp_path / "sw", executor=remote)
    finally:
        remote.shutdown()
    assert len(df) == 12 and set(df["status"]) == {"ok"}
    assert remote.tasks == [1] * 12
    # make_chunks cuts a group into chunks of at most max_chunk points, one drive each
    chunks = engine.make_chunks([{"prep_key": "k", "run_id": str(i), "kwargs": {},
                                  "params": {}} for i in range(12)], 1, 8)  # fmt: skip
    assert [len(c) for _, c in chunks] == [8, 4]


def test_a_killed_remote_sweep_keeps_each_finished_point(tmp_path):
    """The driver dies (here: an error) after some tasks came back: every point that
    came back is on disk, not only whole chunks."""
    remote = Remote()
    seen = []
    real_write = engine.Store.write

    def write_then_die(self, row):
        real_write(self, row)
        seen.append(row["run_id"])
        if len(seen) == 3:
            raise OSError("disk gone")  # the sweep stops here

    engine.Store.write = write_then_die
    try:
        with pytest.raises(OSError):
            ssdlab.sweep(GRID, out=tmp_path / "sw", executor=remote)
    finally:
        engine.Store.write = real_write
        remote.shutdown()
    kept = list((tmp_path / "sw" / "runs").glob("*.parquet"))
    assert len(kept) >= 3


def test_a_rerun_says_what_it_skipped_and_ran(tmp_path, capsys):
    grid = tmp_path / "g.toml"
    grid.write_text(
        '[base]\ndevice = "tiny-test"\nworkload = { rw = "randread", number_ios = 300 }\n'
        '[axes]\n"workload.iodepth" = [1, 2, 4, 8]\n'
    )
    out = tmp_path / "o"
    assert main(["sweep", str(grid), "--out", str(out)]) == 0
    assert "4 points: 4 run now, 0 skipped" in capsys.readouterr().out
    for f in sorted((out / "runs").glob("*.parquet"))[:2]:
        f.unlink()
    assert main(["sweep", str(grid), "--out", str(out)]) == 0
    assert "4 points: 2 run now, 2 skipped" in capsys.readouterr().out
    df = ssdlab.sweep(str(grid), out=out)
    assert (df.attrs["skipped"], df.attrs["ran"]) == (4, 0)
