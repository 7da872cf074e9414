"""Issue 29, item 8: one table schema. compare, Report.to_pandas, sweep rows and
fio.to_pandas name the p99 read latency one way (lat_p99_us, read_lat_p99_us in a
sweep row), with the same value, and keep the old names as deprecated aliases."""

import json

import pytest
import ssdlab
from ssdlab import schema
from ssdlab.cli import main

WL = {"rw": "randread", "bs": "4KiB", "iodepth": 4, "number_ios": 2000}


def test_every_table_names_the_p99_latency_one_way(tmp_path):
    pytest.importorskip("pandas")
    rep = ssdlab.run("tiny-test", WL, state="full", seed=1)
    p99_us = rep["read"]["lat_ns"]["percentile"]["99.000000"] / 1e3
    cmp_row = ssdlab.compare(["tiny-test"], WL, state="full", seed=1).iloc[0]
    assert cmp_row["lat_p99_us"] == pytest.approx(p99_us)
    rp = rep.to_pandas()
    assert rp.loc[rp["job"] == "all", "lat_p99_us"].iloc[0] == pytest.approx(p99_us)
    sw = ssdlab.sweep({"base": {"device": "tiny-test", "workload": WL, "state": "full",
                                "seed": 1}, "axes": {"workload.iodepth": [4]}},
                      out=tmp_path / "sw")  # fmt: skip
    assert sw["read_lat_p99_us"].iloc[0] == pytest.approx(p99_us)
    assert sw["read_mb_per_s"].iloc[0] == pytest.approx(rep["read"]["bw_bytes"] / 1e6)
    job = tmp_path / "j.fio"
    job.write_text("[rr]\nrw=randread\nbs=4k\niodepth=4\nnumber_ios=2000\n")
    out = tmp_path / "f.json"
    assert main(["fio", str(job), "--device", "tiny-test", "--state", "full",
                 "--output-format", "json", "--output", str(out)]) == 0  # fmt: skip
    fio_df = ssdlab.fio.to_pandas(str(out))
    doc = json.loads(out.read_text())["jobs"][0]["read"]
    assert fio_df["clat_p99_us"].iloc[0] == doc["clat_ns"]["percentile"]["99.000000"] / 1e3
    assert fio_df["job"].iloc[0] == "rr"
    for df in (rp, fio_df):
        assert {"iops", "mb_per_s", "direction"} <= set(df.columns)


def test_old_names_stay_as_deprecated_aliases(tmp_path):
    pytest.importorskip("pandas")
    rep = ssdlab.run("tiny-test", WL)
    rp = rep.to_pandas()
    assert (rp["lat_p99_ns"] == rp["lat_p99_us"] * 1e3).all()
    assert (rp["lat_p99.9_ns"] == rp["lat_p99_9_us"] * 1e3).all()
    aliases = schema.deprecated_columns(rp.columns)
    assert aliases["lat_p99_ns"] == "lat_p99_us" and aliases["lat_p99.9_ns"] == "lat_p99_9_us"
    assert all(new in rp.columns for new in aliases.values())
    cmp_df = ssdlab.compare(["tiny-test"], WL)
    assert (cmp_df["lat_p99.99_us"] == cmp_df["lat_p99_99_us"]).all()
    sw = ssdlab.sweep({"base": {"device": "tiny-test", "workload": WL},
                       "axes": {"workload.iodepth": [1]}}, out=tmp_path / "sw")  # fmt: skip
    assert sw["read_lat_p99_ns"].iloc[0] == sw["read_lat_p99_us"].iloc[0] * 1e3
    assert schema.replacement("read_lat_p99_9_ns") == "read_lat_p99_9_us"
    assert schema.replacement("jobname") == "job"
    assert schema.replacement("read_iops") is None


def test_sweep_report_shows_the_new_names_only(tmp_path):
    pytest.importorskip("pandas")
    from ssdlab.sweep.report import columns

    sw = ssdlab.sweep({"base": {"device": "tiny-test", "workload": WL},
                       "axes": {"workload.iodepth": [1, 4]}}, out=tmp_path / "sw")  # fmt: skip
    _, metrics = columns(sw)
    assert "read_lat_p99_us" in metrics and "read_lat_p99_ns" not in metrics
