"""The same grid on a real two-worker Dask LocalCluster gives the local results."""

import os

import pytest
import ssdlab
from ssdlab.cli import main

pytest.importorskip("pyarrow")
pytest.importorskip("pandas")
distributed = pytest.importorskip("distributed")

GRID = {
    "base": {
        "device": "tiny-test",
        "state": "full",
        "workload": {"rw": "randwrite", "bs": "4KiB", "number_ios": 3000},
    },
    "axes": {"workload.iodepth": [1, 8, 32], "seed": [1, 2]},
    "zip": [{"set.nand.t_prog": ["600us", "900us"], "set.nand.t_read": ["40us", "70us"]}],
}


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as c:
        yield c


def test_local_cluster_matches_local_threads(cluster, tmp_path):
    local = ssdlab.sweep(GRID, out=tmp_path / "local")
    with distributed.Client(cluster) as client:
        assert len(client.nthreads()) == 2
        remote = ssdlab.sweep(GRID, client.get_executor(), out=tmp_path / "dask")
    assert len(remote) == len(local) == 12
    assert set(remote["status"]) == {"ok"}
    cols = sorted(c for c in local.columns if "wall" not in c)
    assert remote[cols].equals(local[cols])
    assert (remote["waf"] >= 1).all()  # writes on a full drive: GC moves data


def test_cli_scheduler_option(cluster, tmp_path, capsys):
    grid = tmp_path / "g.toml"
    grid.write_text(
        '[base]\ndevice = "tiny-test"\nworkload = { number_ios = 500 }\n'
        '[axes]\n"workload.iodepth" = [1, 2, 4]\n'
    )
    out = tmp_path / "out"
    args = ["sweep", str(grid), "--out", str(out), "--scheduler", cluster.scheduler_address]
    assert main(args) == 0
    assert "3 ok, 0 failed" in capsys.readouterr().out
    assert sorted(ssdlab.sweep_results(out)["workload.iodepth"]) == [1, 2, 4]


def test_ctrl_c_stops_the_runs_on_the_dask_workers(tmp_path):
    """Ctrl-C of a sweep on a Dask cluster stops its runs on the workers (issue 31): a
    cancelled Dask task that is running goes on, so before, the worker kept simulating
    the point to its end (here hours of simulated reads) after the sweep had returned.
    The points in progress leave no file; the worker is free for the next sweep."""
    import signal
    import threading
    import time

    from ssdlab.sweep.worker import running_chunks

    endless = {
        "base": {
            "device": "tiny-test",
            "state": "full",
            "workload": {"rw": "randread", "runtime": "10000s"},
        },
        "axes": {"seed": [1, 2, 3]},
    }
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=2, processes=True, dashboard_address=":0"
        ) as one,
        distributed.Client(one) as client,
    ):
        busy = threading.Event()

        def interrupt_once_running():
            for _ in range(1200):  # up to 60 s for the worker to start the chunks
                if sum(client.run(running_chunks).values()) >= 2:
                    busy.set()
                    break
                time.sleep(0.05)
            os.kill(os.getpid(), signal.SIGINT)

        t = threading.Thread(target=interrupt_once_running, daemon=True)
        old = signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            t.start()
            with pytest.raises(KeyboardInterrupt):
                ssdlab.sweep(endless, client.get_executor(), out=tmp_path / "out")
        finally:
            t.join()
            signal.signal(signal.SIGINT, old)
        assert busy.is_set(), "the worker never started the sweep's chunks"
        # The worker's runs stopped with the sweep (cancel_sweep waited for them).
        assert sum(client.run(running_chunks).values()) == 0
        assert not list((tmp_path / "out" / "runs").glob("*.parquet"))
        # and it takes the next sweep's work at once.
        df = ssdlab.sweep(GRID, client.get_executor(), out=tmp_path / "next")
        assert len(df) == 12 and set(df["status"]) == {"ok"}
