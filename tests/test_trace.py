"""Trace replay: every real trace in ../shared replays with the statistics its
provenance file lists; the CLI prints them; bad lines are reported or skipped."""

import json
from pathlib import Path

import pytest
import ssdlab
from ssdlab.cli import main

TRACES = Path(__file__).resolve().parents[2] / "shared" / "data" / "traces"
needs_traces = pytest.mark.skipif(
    not (TRACES / "trace_stats.json").is_file(), reason="../shared/data/traces is not present"
)


def _expected():
    if not (TRACES / "trace_stats.json").is_file():
        return []
    return json.loads((TRACES / "trace_stats.json").read_text())


@needs_traces
@pytest.mark.parametrize("exp", _expected(), ids=lambda e: e["file"])
def test_every_shared_trace_replays_with_its_listed_statistics(exp):
    path = TRACES / exp["file"]
    s = ssdlab.trace_stats(path)
    reads, writes = exp["ops"].get("R", 0), exp["ops"].get("W", 0)
    if path.suffix == ".iolog":
        # The provenance script counted the iolog's data requests only (no trims).
        assert (s["reads"], s["writes"]) == (reads, writes)
    else:
        assert s["requests"] == exp["requests"]
        assert (s["reads"], s["writes"]) == (reads, writes)
        assert s["offset_max_end"] == exp["offset_max_end"]
        assert s["offset_min"] == exp["offset_min"]
    r = ssdlab.replay(path, "tiny-test", iodepth=16, max_requests=20_000)
    done = sum(r[d]["total_ios"] for d in ("read", "write", "trim"))
    assert done == min(s["requests"], 20_000)
    assert r["jobs"][0]["trace"]["error"] is None


def test_cli_prints_statistics_then_replays(tmp_path, capsys):
    t = tmp_path / "t.csv"
    t.write_text("# mine\n0,R,0,4096\n1000,W,8192,8192\n2000,R,4096,512\n")
    assert main(["trace", str(t), "--device", "tiny-test", "--mode", "timed"]) == 0
    out = capsys.readouterr().out
    assert "trace csv: 3 requests" in out
    assert "reads 66.7%" in out
    assert "4 KiB: 1" in out and "8 KiB: 1" in out and "512 B: 1" in out
    assert "IOPS=" in out
    assert main(["trace", str(t), "--stats-only"]) == 0
    assert "IOPS=" not in capsys.readouterr().out


def test_a_timed_replay_on_several_drives_splits_each_drives_latency(tmp_path, capsys):
    """The comparison table's latency of a timed replay is host queueing + device time;
    a line under the table gives the split per drive, as a one-drive replay prints it."""
    t = tmp_path / "t.csv"
    t.write_text("".join(f"{i * 1000},W,{i * 4096},4096\n" for i in range(50)))
    argv = ["trace", str(t), "--device", "tiny-test,hmb-ssd", "--mode", "timed"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    for dev in ("tiny-test", "hmb-ssd"):
        assert f"{dev}: write latency: host queueing" in out, out


def test_json_report_carries_trace_section(tmp_path, capsys):
    t = tmp_path / "t.csv"
    t.write_text("".join(f"{i * 100},R,{i * 4096},4096\n" for i in range(500)))
    out = tmp_path / "r.json"
    assert main(["trace", str(t), "--device", "tiny-test", "--json", str(out), "-q"]) == 0
    rep = json.loads(out.read_text())
    assert rep["jobs"][0]["trace"]["requests_replayed"] == 500
    assert rep["read"]["total_ios"] == 500
    assert rep["workload"]["trace"]["mode"] == "closed"


def test_bad_line_is_reported_with_file_and_line(tmp_path, capsys):
    t = tmp_path / "bad.csv"
    t.write_text("0,R,0,4096\n1,Q,0,4096\n2,R,0,4096\n")
    assert main(["trace", str(t), "--device", "tiny-test"]) == 2
    err = capsys.readouterr().err
    assert f"{t}:2: '1,Q,0,4096': expected time_ns,op(R|W|T)" in err
    assert main(["trace", str(t), "--device", "tiny-test", "--skip-bad-lines", "1"]) == 0
    assert "1 skipped" in capsys.readouterr().out


def test_unknown_format_and_missing_file(tmp_path, capsys):
    t = tmp_path / "x.txt"
    t.write_text("hello there\n")
    assert main(["trace", str(t)]) == 2
    assert "give --format" in capsys.readouterr().err
    assert main(["trace", str(tmp_path / "nope.csv")]) == 2
    assert "cannot open trace" in capsys.readouterr().err


def test_trace_workload_in_run_and_nothing_else_changes(tmp_path):
    t = tmp_path / "t.csv"
    t.write_text("".join(f"0,W,{i * 4096},4096\n" for i in range(200)))
    w = ssdlab.trace_workload(t, iodepth=4)
    a = ssdlab.run("tiny-test", w, seed=3)
    b = ssdlab.run("tiny-test", w, seed=3)
    assert a["write"]["total_ios"] == 200
    assert a["write"]["lat_ns"] == b["write"]["lat_ns"]  # deterministic
    with pytest.raises(ssdlab.ConfigError, match="numjobs"):
        ssdlab.run("tiny-test", {**w, "numjobs": 2})


@needs_traces
def test_fio_job_file_with_read_iolog_replays_the_log(capsys):
    """fio's own t0038 job: read_iolog=t0038.iolog (beside the job file), iodepth 128."""
    job = TRACES / "fio-iolog" / "t0038-397f1338.fio"
    assert main(["fio", str(job), "--device", "tiny-test", "--output-format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    j = out["jobs"][0]
    assert (j["write"]["total_ios"], j["trim"]["total_ios"]) == (10, 10)
    # Timed as fio replays a v3 log: its stamps are microseconds (fio 3.33 writes
    # utime_since_now), 10,736 .. 10,809 us: 73 us, so 0 ms (real fio 3.33 with the null
    # engine: 15 ms, its own sleeps between the 20 commands).
    assert j["job_runtime"] <= 1


def test_fio_replay_options(tmp_path, capsys):
    log = tmp_path / "a.iolog"
    log.write_text(
        "fio version 2 iolog\n/dev/x add\n/dev/x open\n"
        + "".join(f"/dev/x read {i * 4096} 4096\n/dev/x wait 1000\n" for i in range(50))
    )
    job = tmp_path / "j.fio"
    job.write_text("[r]\nread_iolog=a.iolog\nreplay_no_stall=1\niodepth=4\n")
    assert main(["fio", str(job), "--device", "tiny-test", "--output-format", "json"]) == 0
    fast = json.loads(capsys.readouterr().out)["jobs"][0]
    assert fast["read"]["total_ios"] == 50 and fast["job_runtime"] < 5
    job.write_text("[r]\nread_iolog=a.iolog\nreplay_time_scale=50\n")
    assert main(["fio", str(job), "--device", "tiny-test", "--output-format", "json"]) == 0
    half = json.loads(capsys.readouterr().out)["jobs"][0]
    assert 20 <= half["job_runtime"] <= 30  # 49 waits of 1 ms, twice as fast
    job.write_text("[r]\nreplay_no_stall=1\n")
    assert main(["fio", str(job), "--device", "tiny-test"]) == 2
    assert "need read_iolog" in capsys.readouterr().err


@needs_traces
def test_multi_device_trace_counts_and_replays_one_disk(capsys):
    path = TRACES / "mqsim" / "tpcc-small.trace"
    s = ssdlab.trace_stats(path)
    assert len(s["devices"]) == 16 and sum(s["devices"].values()) == s["requests"]
    busiest, count = max(s["devices"].items(), key=lambda kv: kv[1])
    one = ssdlab.trace_stats(path, disk=int(busiest))
    assert one["requests"] == count and one["devices"] == {busiest: count}
    r = ssdlab.replay(path, "tiny-test", disk=int(busiest))
    assert r["read"]["total_ios"] + r["write"]["total_ios"] == count
    assert main(["trace", str(path), "--stats-only"]) == 0
    assert "replay one with --disk N" in capsys.readouterr().out
    with pytest.raises(ssdlab.ConfigError, match="device field"):
        ssdlab.trace_stats(TRACES / "libcachesim-cloudphysics" / "cloudPhysicsIO.csv", disk=1)


def test_speedup_outside_its_range_is_refused_naming_the_field(tmp_path, capsys):
    """trace.speedup is 0.001 .. 1,000,000 (issue 31): a replay at most 1,000 times slower
    than its trace. Before, any positive value ran: 1e-300 on a trace of one timestamp
    (nothing for the century check to see) and 1e-4 on a short one were replayed."""
    one = tmp_path / "one.csv"
    one.write_text("0,R,0,4096\n")
    short = tmp_path / "short.csv"
    short.write_text("0,R,0,4096\n1000,W,4096,4096\n")
    for path, speedup in [(one, "1e-300"), (short, "1e-4"), (short, "2e6")]:
        argv = ["trace", str(path), "--device", "tiny-test", "--mode", "timed"]
        assert main([*argv, "--speedup", speedup]) == 2, speedup
        err = capsys.readouterr().err
        assert "speedup" in err and "0.001 to 1000000" in err, err
        with pytest.raises(ssdlab.ConfigError, match=r"speedup.*0\.001 to 1000000"):
            ssdlab.trace_workload(path, mode="timed", speedup=float(speedup))
        # The core refuses it too, for a workload built without trace_workload.
        wl = {"trace": {"path": str(path), "mode": "timed", "speedup": float(speedup)}}
        with pytest.raises(ssdlab.ConfigError, match=r"trace\.speedup.*0\.001 to 1000000"):
            ssdlab.run("tiny-test", wl)
    for speedup in (0.001, 1e6):
        r = ssdlab.run("tiny-test", ssdlab.trace_workload(short, mode="timed", speedup=speedup))
        assert r["read"]["total_ios"] + r["write"]["total_ios"] == 2
    # fio's replay_time_scale (a percentage; speedup = 100 / it) has the same bound.
    log = tmp_path / "a.iolog"
    log.write_text("fio version 2 iolog\n/dev/x add\n/dev/x open\n/dev/x read 0 4096\n")
    job = tmp_path / "j.fio"
    job.write_text("[r]\nread_iolog=a.iolog\nreplay_time_scale=1000000\n")
    assert main(["fio", str(job), "--device", "tiny-test"]) == 2
    assert "replay_time_scale=1000000" in capsys.readouterr().err
