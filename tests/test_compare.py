"""Issue 17, item 4: compare devices in one call (``--device A,B,C`` on run, fio and
trace; ``ssdlab.compare``), fio JSON to pandas, and Report.from_json refusing
documents that are not ssdlab reports."""

import json

import pytest
import ssdlab
from ssdlab.cli import main

WL = {"rw": "randrw", "rwmixread": 70, "bs": "4KiB", "iodepth": 8, "number_ios": 1500}
HMB_TINY = {"hmb.hmpre": "4MiB", "hmb.hmmin": "1MiB"}


def test_compare_returns_one_row_per_device_and_direction():
    df = ssdlab.compare(["tiny-test", "client-tlc-dram"], WL, seed=3)
    assert list(df["device"]) == ["tiny-test", "tiny-test", "client-tlc-dram", "client-tlc-dram"]
    assert list(df["direction"]) == ["read", "write"] * 2
    for col in ("iops", "mb_per_s", "lat_mean_us", "lat_p50_us", "lat_p99_us", "lat_p99.99_us",
                "waf", "map_hit_rate", "hmb_granted_bytes"):  # fmt: skip
        assert col in df.columns
    # the figures are each device's own report, not copies
    alone = ssdlab.run("client-tlc-dram", WL, seed=3)
    row = df[(df.device == "client-tlc-dram") & (df.direction == "read")].iloc[0]
    assert row.iops == alone["read"]["iops"]
    assert row.lat_p99_us == alone["read"]["lat_ns"]["percentile"]["99.000000"] / 1e3
    assert df.iops.iloc[0] != df.iops.iloc[2]
    # neither device has an HMB: no grant is claimed
    assert df.hmb_granted_bytes.isna().all()


def test_compare_rejects_a_device_given_twice():
    with pytest.raises(ssdlab.ConfigError, match="more than once"):
        ssdlab.compare(["tiny-test", "tiny-test"], WL)


def test_run_with_several_devices_prints_one_table(tmp_path, capsys):
    out = tmp_path / "reports"
    args = ["run", "--device", "tiny-test,client-tlc-dram", "--rw", "randread",
            "--number_ios", "800", "--iodepth", "4", "--json", str(out)]  # fmt: skip
    assert main(args) == 0
    text = capsys.readouterr().out
    lines = text.splitlines()
    assert lines[0].split()[:4] == ["device", "dir", "IOPS", "MB/s"]
    assert "p99.99 µs" in lines[0] and "map hit" in lines[0] and "HMB granted" in lines[0]
    assert [ln.split()[0] for ln in lines[1:]] == ["tiny-test", "client-tlc-dram"]
    saved = {p.name for p in out.iterdir()}
    assert saved == {"tiny-test.json", "client-tlc-dram.json"}
    r = ssdlab.Report.from_json((out / "tiny-test.json").read_text())
    assert f"{r['read']['iops']:,.0f}" in lines[1]


def test_run_with_an_empty_device_entry_is_an_error(capsys):
    assert main(["run", "--device", "tiny-test,,dram-ssd", "-q"]) == 2
    assert "--device" in capsys.readouterr().err


def test_fio_with_several_devices(tmp_path, capsys):
    job = tmp_path / "job.fio"
    job.write_text("[rr]\nrw=randread\nbs=4k\niodepth=4\nruntime=20ms\ntime_based\n")
    out = tmp_path / "out"
    args = ["fio", str(job), "--device", "tiny-test,client-tlc-dram",
            "--output-format", "json+", "--output", str(out)]  # fmt: skip
    assert main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [ln.split()[0] for ln in lines[1:]] == ["tiny-test", "client-tlc-dram"]
    doc = json.loads((out / "client-tlc-dram.json").read_text())
    assert doc["ssdlab"]["device"] == "client-tlc-dram"
    assert doc["jobs"][0]["read"]["clat_ns"]["bins"]
    df = ssdlab.fio.to_pandas(doc)
    assert list(df["direction"]) == ["read"]
    assert df.iops.iloc[0] == doc["jobs"][0]["read"]["iops"]
    assert df.runtime_ms.iloc[0] == 20
    # the same from a path
    assert ssdlab.fio.to_pandas(out / "tiny-test.json").jobname.iloc[0] == "rr"


def test_trace_with_several_devices(tmp_path, capsys):
    trace = tmp_path / "t.csv"
    trace.write_text(
        "".join(f"{i * 1000},h,0,Read,{(i * 7919 % 1000) * 4096},4096,10\n" for i in range(300))
    )
    assert main(["trace", str(trace), "--device", "tiny-test,client-tlc-dram", "-q"]) == 0
    assert main(["trace", str(trace), "--device", "tiny-test,client-tlc-dram"]) == 0
    text = capsys.readouterr().out
    assert "tiny-test" in text and "client-tlc-dram" in text and "IOPS" in text


def test_report_from_json_refuses_other_documents(tmp_path):
    with pytest.raises(ValueError, match="not an ssdlab report"):
        ssdlab.Report.from_json(json.dumps({"fio version": "fio-3.33", "jobs": []}))
    with pytest.raises(ValueError, match="not an ssdlab report"):
        ssdlab.Report.from_json("[1, 2]")
    with pytest.raises(ValueError, match="not JSON"):
        ssdlab.Report.from_json("read: IOPS=5")
    r = ssdlab.run("tiny-test", {"number_ios": 100})
    assert ssdlab.Report.from_json(r.to_json())["read"]["total_ios"] == 100
