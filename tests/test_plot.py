"""Issue 17, item 5: plots built in (lat-cdf, sweep, timeline), Report.latency_histogram
and Report.timeline; labels carry units and only HMB devices are labelled with a grant."""

import json

import pytest
import ssdlab
from ssdlab import plot
from ssdlab.cli import main

pytest.importorskip("matplotlib")
PNG = b"\x89PNG"
WL = {"rw": "randread", "bs": "4KiB", "iodepth": 8, "number_ios": 3000}


def _report(tmp_path, device, name, **kw):
    r = ssdlab.run(device, WL, **kw)
    p = tmp_path / f"{name}.json"
    p.write_text(r.to_json())
    return r, p


def test_latency_histogram_matches_the_percentiles(tmp_path):
    r, _ = _report(tmp_path, "tiny-test", "a")
    hist = r.latency_histogram("read")
    assert sum(c for _, c in hist) == r["read"]["total_ios"]
    assert [v for v, _ in hist] == sorted(v for v, _ in hist)
    # fio's rule: p99 is the first bin whose running count reaches 99 %
    run, total, p99 = 0, r["read"]["total_ios"], None
    for v, c in hist:
        run += c
        if p99 is None and run >= 0.99 * total:
            p99 = v
    assert p99 == r["read"]["clat_ns"]["percentile"]["99.000000"]
    assert r.latency_histogram("write") == []
    with pytest.raises(ValueError, match="direction"):
        r.latency_histogram("reads")


def test_lat_cdf_from_reports_and_fio_json(tmp_path, capsys):
    _, a = _report(tmp_path, "tiny-test", "a")
    _, b = _report(tmp_path, "hmb-ssd", "b")
    job = tmp_path / "j.fio"
    job.write_text("[rr]\nrw=randread\nbs=4k\niodepth=4\nnumber_ios=2000\n")
    fj = tmp_path / "fio.json"
    assert main(["fio", str(job), "--device", "tiny-test", "--output-format", "json",
                 "--output", str(fj)]) == 0  # fmt: skip
    out = tmp_path / "lat.png"
    assert main(["plot", "lat-cdf", str(a), str(b), str(fj), "-o", str(out)]) == 0
    assert out.read_bytes()[:4] == PNG
    assert "wrote" in capsys.readouterr().out


def test_labels_name_an_hmb_grant_only_for_hmb_devices(tmp_path):
    _, a = _report(tmp_path, "tiny-test", "a")
    _, b = _report(tmp_path, "hmb-ssd", "b")
    assert plot._label(plot.load_doc(a), "a") == "tiny-test"
    assert plot._label(plot.load_doc(b), "b") == "hmb-ssd (HMB 64 MiB granted)"


def test_lat_cdf_refuses_other_files(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps({"hello": 1}))
    assert main(["plot", "lat-cdf", str(bad), "-o", str(tmp_path / "o.png")]) == 2
    assert "neither an ssdlab report nor fio JSON" in capsys.readouterr().err


def test_sweep_from_a_directory_of_reports_and_a_csv(tmp_path, capsys):
    d = tmp_path / "runs"
    d.mkdir()
    for q in (1, 4, 16):
        r = ssdlab.run("tiny-test", {**WL, "iodepth": q, "number_ios": 1000})
        (d / f"q{q}.json").write_text(r.to_json())
    rows = plot.load_rows(d)
    assert sorted(r["iodepth"] for r in rows) == [1, 4, 16]
    assert all("lat_p99_us" in r for r in rows)
    out = tmp_path / "s.png"
    assert main(["plot", "sweep", str(d), "--x", "iodepth", "--y", "iops,lat_p99_us",
                 "-o", str(out)]) == 0  # fmt: skip
    assert out.read_bytes()[:4] == PNG
    assert plot._unit_label("lat_p99_us") == "p99 latency (µs)"
    csvf = tmp_path / "r.csv"
    csvf.write_text("iodepth,iops\n1,100\n2,190\n")
    assert main(["plot", "sweep", str(csvf), "--x", "iodepth", "--y", "lat_p99_us",
                 "-o", str(out)]) == 2  # fmt: skip
    assert "'lat_p99_us' is not a column" in capsys.readouterr().err


def test_timeline_shows_windows_of_simulated_time(tmp_path):
    r = ssdlab.run("tiny-test", {"rw": "randwrite", "bs": "4KiB", "iodepth": 8,
                                 "runtime": "1.6s"}, state="full")  # fmt: skip
    tl = r.timeline("write")
    assert [w["t_ms"] for w in tl][:3] == [500, 1000, 1500]
    assert abs(tl[-1]["t_ms"] - r["write"]["runtime"]) <= 1
    tail_s = (tl[-1]["t_ms"] - 1500) / 1e3
    ios = sum(w["iops"] * 0.5 for w in tl[:3]) + tl[-1]["iops"] * tail_s
    assert abs(ios - r["write"]["total_ios"]) <= 0.02 * r["write"]["total_ios"]
    mean = sum(w["lat_mean_us"] * w["iops"] for w in tl[:3]) / sum(w["iops"] for w in tl[:3])
    assert mean > 0
    p = tmp_path / "w.json"
    p.write_text(r.to_json())
    out = tmp_path / "t.png"
    assert main(["plot", "timeline", str(p), "-o", str(out)]) == 0
    assert out.read_bytes()[:4] == PNG


def test_fio_job_on_three_drives_with_a_cdf_in_two_commands(tmp_path, capsys):
    """The README's newcomer recipe, as written there (with a short job)."""
    job = tmp_path / "my.fio"
    job.write_text("[randread-4k]\nrw=randread\nbs=4k\niodepth=16\nnumber_ios=2000\n")
    out = tmp_path / "out"
    assert main(["fio", str(job), "--device", "dram-ssd,hmb-ssd,dramless-ssd",
                 "--output-format", "json+", "--output", str(out)]) == 0  # fmt: skip
    table = capsys.readouterr().out.splitlines()
    assert [ln.split()[0] for ln in table[1:]] == ["dram-ssd", "hmb-ssd", "dramless-ssd"]
    files = sorted(str(p) for p in out.glob("*.json"))
    assert len(files) == 3
    png = tmp_path / "lat.png"
    assert main(["plot", "lat-cdf", *files, "-o", str(png)]) == 0
    assert png.read_bytes()[:4] == PNG
