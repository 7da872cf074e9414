"""Flexible Data Placement (a device's ``[fdp]`` section, issue 27) from fio job files,
the command line and the Python API: placement IDs reach the drive's handles with
fio's semantics, lifetimes kept apart give WAF 1, and a drive without FDP refuses."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import ssdlab
from ssdlab.cli import main
from ssdlab.fio import load_jobfile, simulate_jobfile

HOT_COLD = """[global]
rw=write
bs=64k
iodepth=4
io_size=24m
fdp=1
[hot]
offset=0
size=2m
plids=0
[cold]
offset=8m
size=14m
plids=1
"""


def _fio(tmp_path: Path, text: str, device="tiny-test", set=None):
    p = tmp_path / "j.fio"
    p.write_text(text)
    jf = load_jobfile(p)
    return simulate_jobfile(jf, device, state="fresh", set=set)[1]


def test_fio_plids_keep_lifetimes_apart(tmp_path):
    rep = _fio(tmp_path, HOT_COLD, set={"fdp.handles": 2})
    d = rep["device"]["fdp"]
    assert [h["host_bytes_written"] for h in d["per_handle"]] == [24 << 20, 24 << 20]
    assert d["per_handle"][0]["gc_bytes_moved"] == d["per_handle"][1]["gc_bytes_moved"] == 0
    assert rep["device"]["ftl"]["gc_victims"] > 10
    assert d["waf"] < 1.01
    # The same job file without fdp=1 on the conventional drive: the ranges share blocks.
    conv = _fio(tmp_path, HOT_COLD.replace("fdp=1\n", ""))
    assert conv["device"]["ftl"]["waf"] > d["waf"] + 0.1
    assert "fdp" not in conv["device"]


def test_fio_dp_scheme_maps_offsets_to_placement_ids(tmp_path):
    (tmp_path / "scheme").write_text("0,1048576,2\n1048576,2097152,1\n")
    text = ("[j]\nrw=write\nbs=64k\nsize=3m\nfdp=1\nplid_select=scheme\n"
            "dp_scheme=scheme\n")  # fmt: skip
    d = _fio(tmp_path, text, set={"fdp.handles": 4})["device"]["fdp"]
    got = [h["host_bytes_written"] for h in d["per_handle"]]
    # The third MiB is in no range: placement ID 0.
    assert got == [1 << 20, 1 << 20, 1 << 20, 0]


def test_fio_roundrobin_spreads_writes_and_bad_index_is_refused(tmp_path):
    text = "[j]\nrw=write\nbs=4k\nsize=1m\nfdp=1\nplids=1-2\n"
    d = _fio(tmp_path, text, set={"fdp.handles": 4})["device"]["fdp"]
    assert [h["host_bytes_written"] for h in d["per_handle"]] == [0, 512 << 10, 512 << 10, 0]
    with pytest.raises(ValueError, match=r"fdp\.plids: index 4 is out of range"):
        _fio(tmp_path, "[j]\nrw=write\nbs=4k\nsize=1m\nfdp=1\nplids=4\n",
             set={"fdp.handles": 4})  # fmt: skip


def test_fio_fdp_on_a_drive_without_fdp_is_refused(tmp_path):
    with pytest.raises(ValueError, match="has no flexible data placement"):
        _fio(tmp_path, HOT_COLD)


def test_cli_plids_and_report(tmp_path, capsys):
    out = tmp_path / "r.json"
    args = ["run", "--device", "tiny-test", "--set", "fdp.handles=4", "--rw", "randwrite"]
    args += ["--bs", "4k", "--number_ios", "4000", "--plids", "0-3", "--plid_select", "random"]
    args += ["--state", "fresh", "--json", str(out), "--verify"]
    assert main(args) == 0
    d = json.loads(out.read_text())["device"]["fdp"]
    assert sum(h["host_bytes_written"] for h in d["per_handle"]) == 4000 * 4096
    assert all(h["host_bytes_written"] > 0 for h in d["per_handle"])


def test_api_and_preset():
    wl = {"rw": "write", "bs": "4k", "number_ios": 256, "fdp": {"plids": [3]}}
    r = ssdlab.run("tiny-test", wl, state="fresh",
                   set={"fdp.handles": 4, "fdp.isolation": "persistent"})  # fmt: skip
    d = r["device"]["fdp"]
    assert d["isolation"] == "persistent" and d["per_handle"][3]["host_bytes_written"] == 1 << 20
    assert ssdlab.validate("dc-mlc-2016-fdp")["fdp"]["handles"] == 8
    with pytest.raises(ssdlab.ConfigError, match=r"fdp\.reclaim_groups: 3"):
        ssdlab.validate("tiny-test", set={"fdp.reclaim_groups": 3})


def test_trace_placement_ids_from_the_api_and_cli(tmp_path, capsys):
    """ssdlab's csv trace with a fifth column: each write's placement ID reaches its handle."""
    from ssdlab.trace import trace_workload

    t = tmp_path / "p.csv"
    t.write_text("".join(f"{k},W,{k * 65536},65536,{k % 3}\n" for k in range(30)))
    st = ssdlab.trace_stats(str(t))
    assert st["placement_ids"] == {"0": 10, "1": 10, "2": 10}
    assert main(["trace", str(t), "--stats-only"]) == 0
    assert "writes by placement ID 0: 10, 1: 10, 2: 10" in capsys.readouterr().out
    r = ssdlab.run("tiny-test", trace_workload(str(t), iodepth=2), state="fresh",
                   set={"fdp.handles": 4})  # fmt: skip
    hb = [h["host_bytes_written"] for h in r["device"]["fdp"]["per_handle"]]
    assert hb == [10 * 65536, 10 * 65536, 10 * 65536, 0]
    out = tmp_path / "r.json"
    assert main(["trace", str(t), "--device", "tiny-test", "--set", "fdp.handles=4",
                 "--state", "fresh", "--json", str(out)]) == 0  # fmt: skip
    d = json.loads(out.read_text())["device"]["fdp"]
    assert [h["host_bytes_written"] for h in d["per_handle"]] == hb
    # A drive without FDP: the replay stops at the first write with a placement ID.
    r = ssdlab.run("tiny-test", trace_workload(str(t), iodepth=2), state="fresh")
    assert "Flexible Data Placement" in r["jobs"][0]["trace"]["error"]


def test_ruh_update_from_the_api_and_cli(tmp_path, capsys):
    """fdp_ops / --fdp-op: a Reclaim Unit Handle Update moves handle 1 to a new reclaim
    unit: its blocks opened grow by the group's dies, one unit is left partly written."""
    wl = {"rw": "write", "bs": "4k", "iodepth": 1, "size": "2MiB", "fdp": {"plids": [1]}}
    base = ssdlab.run("tiny-test", wl, state="fresh", set={"fdp.handles": 2})["device"]["fdp"]
    ops = [{"at": "1ms", "action": "ruh_update", "pids": [1]}]
    r = ssdlab.run("tiny-test", {**wl, "fdp_ops": ops}, state="fresh", set={"fdp.handles": 2})
    d = r["device"]["fdp"]
    assert (base["ruh_updates"], d["ruh_updates"]) == (0, 1)
    assert d["events"]["ru_not_written_fully"] == 1
    opened = d["per_handle"][1]["blocks_opened"] - base["per_handle"][1]["blocks_opened"]
    assert opened == d["dies_per_reclaim_group"] == 4
    out = tmp_path / "r.json"
    args = ["run", "--device", "tiny-test", "--set", "fdp.handles=2", "--rw", "write",
            "--bs", "4k", "--iodepth", "1", "--size", "2MiB", "--number_ios", "512", "--plids", "1",
            "--fdp-op", "1ms:ruh_update:1", "--state", "fresh", "--json", str(out)]  # fmt: skip
    assert main(args) == 0
    assert json.loads(out.read_text())["device"]["fdp"] == d
    for bad in ("1ms:ruh_update:", "1ms:reset:1", "ruh_update:1", "1ms:ruh_update:a"):
        assert main(["run", "--device", "tiny-test", "--fdp-op", bad]) == 2
        assert "--fdp-op" in capsys.readouterr().err
    with pytest.raises(ssdlab.ConfigError, match=r"fdp_ops\[0\]: the drive 'tiny-test' has no"):
        ssdlab.run("tiny-test", {**wl, "fdp": None, "fdp_ops": ops}, state="fresh")


def test_trace_ruh_update_and_status(tmp_path, capsys):
    """A csv trace's RU line updates a handle; the report lists the handles' status."""
    from ssdlab.trace import trace_workload

    t = tmp_path / "ru.csv"
    lines = [f"{2 * k + 1},W,{k * 4096},4096,1\n" for k in range(300)]
    lines.insert(100, "200,RU,0,0,1\n")
    t.write_text("".join(lines))
    assert ssdlab.trace_stats(str(t))["ruh_updates"] == 1
    assert main(["trace", str(t), "--stats-only"]) == 0
    assert "reclaim unit handle updates 1" in capsys.readouterr().out
    r = ssdlab.run("tiny-test", trace_workload(str(t), iodepth=1), state="fresh",
                   set={"fdp.handles": 2})  # fmt: skip
    d = r["device"]["fdp"]
    assert (d["ruh_updates"], d["events"]["ru_not_written_fully"]) == (1, 1)
    assert [s["pid"] for s in d["ruh_status"]] == [0, 1]
    assert d["ruh_status"][0]["ru_available_bytes"] == d["reclaim_unit_bytes"]
    assert 0 < d["ruh_status"][1]["ru_available_bytes"] < d["reclaim_unit_bytes"]


def test_ru_time_limit_from_the_api():
    """fdp.ru_time_limit: a slow handle is moved to empty reclaim units by the controller."""
    wl = {"rw": "write", "bs": "4k", "iodepth": 1, "number_ios": 256, "rate_iops": 10000,
          "fdp": {"plids": [1]}}  # fmt: skip
    d = ssdlab.run("tiny-test", wl, state="fresh",
                   set={"fdp.handles": 2, "fdp.ru_time_limit": "5ms"})["device"]["fdp"]  # fmt: skip
    assert d["ru_time_limit_ns"] == 5_000_000
    assert 4 <= d["events"]["ru_time_limit_exceeded"] <= 5
    cfg = ssdlab.validate("tiny-test", set={"fdp.handles": 2, "fdp.ru_time_limit": "5ms"})
    assert cfg["fdp"]["ru_time_limit"]
    with pytest.raises(ssdlab.ConfigError, match="ru_time_limit"):
        ssdlab.validate("tiny-test", set={"fdp.handles": 2, "fdp.ru_time_limit": "soon"})
