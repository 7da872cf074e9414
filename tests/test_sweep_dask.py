"""The same grid on a real two-worker Dask LocalCluster gives the local results."""

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
    assert "3 points: 3 ok, 0 failed" in capsys.readouterr().out
    assert sorted(ssdlab.sweep_results(out)["workload.iodepth"]) == [1, 2, 4]
