"""Issue 29, item 5: plots that answer at a glance. plot sweep straight from a sweep
directory (short axis names, a second axis as colour in its natural order, log x, units,
one legend off the data); plot timeline from fio JSON with its logs or the logs alone."""

import json
import math

import pytest
import ssdlab
from ssdlab import plot
from ssdlab.cli import main

pytest.importorskip("matplotlib")
pytest.importorskip("pyarrow")


@pytest.fixture(scope="module")
def sweep_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("sw") / "sw"
    ssdlab.sweep({"base": {"device": "tiny-test", "workload": {"rw": "randread",
                                                               "number_ios": 800}},
                  "axes": {"workload.iodepth": [1, 4, 32],
                           "set.nand.t_read": ["80us", "40us", "1ms"]}}, out=out)  # fmt: skip
    return out


def test_sweep_plot_from_a_sweep_directory(sweep_dir, tmp_path):
    fig = plot.sweep_figure(sweep_dir, "iodepth", ["read_iops", "read_lat_p99_us"],
                            color="t_read")  # fmt: skip
    top, bottom = fig.axes
    assert top.get_ylabel() == "read IOPS"
    assert bottom.get_ylabel() == "read p99 latency (µs)"
    assert bottom.get_xlabel() == "iodepth"
    assert top.get_xscale() == "log"  # 1..32 spans 32x
    # the second axis as colour, in its natural order (times by size, not by text)
    labels = [t.get_text() for t in top.get_legend().get_texts()]
    assert labels == ["t_read=40us", "t_read=80us", "t_read=1ms"]
    assert bottom.get_legend() is None  # one legend, beside the first panel
    assert [len(line.get_xdata()) for line in top.get_lines()] == [3, 3, 3]
    assert "read IOPS, read p99 latency vs iodepth" == top.get_title()
    out = tmp_path / "s.png"
    assert main(["plot", "sweep", str(sweep_dir), "--x", "iodepth", "--y", "read_iops",
                 "--color", "t_read", "-o", str(out)]) == 0  # fmt: skip
    assert out.read_bytes()[:4] == b"\x89PNG"


def test_sweep_plot_names_a_missing_column_briefly(sweep_dir, tmp_path, capsys):
    assert main(["plot", "sweep", str(sweep_dir), "--x", "qd", "--y", "read_iops",
                 "-o", str(tmp_path / "s.png")]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "--x: 'qd' is not a column" in err and "workload.iodepth" in err
    assert len(err) < 4000


def test_natural_order_of_axis_values():
    key = plot._order_key
    assert sorted(["1GiB", "64MiB", "256KiB"], key=key) == ["256KiB", "64MiB", "1GiB"]
    assert sorted(["max", "min", "half", "off"], key=key) == ["off", "min", "half", "max"]


def test_timeline_from_fio_json_with_its_logs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    job = tmp_path / "t.fio"
    job.write_text("[w]\nrw=randwrite\nbs=4k\niodepth=8\nruntime=0.3\ntime_based=1\n"
                   "write_iops_log=w\nwrite_lat_log=w\nlog_avg_msec=20\n")  # fmt: skip
    out = tmp_path / "w.json"
    assert main(["fio", str(job), "--device", "tiny-test", "--output-format", "json",
                 "--output", str(out)]) == 0  # fmt: skip
    fig = plot.timeline_figure([out], window_ms=50)
    a1, a2 = fig.axes
    assert [line.get_label() for line in a1.get_lines()] == ["w write"]
    assert [line.get_label() for line in a2.get_lines()] == ["w write (lat)"]
    assert a1.get_ylabel() == "IOPS" and a2.get_ylabel() == "mean latency (µs)"
    xs = a1.get_lines()[0].get_xdata()
    # 50 ms windows to the job's end: runtime 0.3 s plus the drain of the writes in flight
    # at 0.3 s (fio reaps them too), which on tiny-test can wait for GC a few ms.
    runtime_ms = json.loads(out.read_text())["jobs"][0]["job_runtime"]
    assert 300 <= runtime_ms < 350, runtime_ms
    windows = math.ceil(runtime_ms / 50)
    assert xs[0] == 0 and xs[-1] == pytest.approx(windows * 0.05)
    assert len(xs) == windows + 1
    # the logs alone plot the same
    fig2 = plot.timeline_figure([tmp_path / "w_iops.1.log"], window_ms=50)
    assert list(fig2.axes[0].get_lines()[0].get_ydata()) == list(a1.get_lines()[0].get_ydata())


def test_timeline_of_fio_json_without_logs_says_how_to_get_them(tmp_path, capsys):
    job = tmp_path / "t.fio"
    job.write_text("[w]\nrw=randwrite\nnumber_ios=100\n")
    out = tmp_path / "w.json"
    assert main(["fio", str(job), "--device", "tiny-test", "--output-format", "json",
                 "--output", str(out)]) == 0  # fmt: skip
    assert main(["plot", "timeline", str(out), "-o", str(tmp_path / "t.png")]) == 2
    assert "write_iops_log=NAME" in capsys.readouterr().err
