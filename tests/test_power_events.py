"""Host HMB policy and host events (docs/power-events.md): the Python API, the CLI's
--event flag, validate's HMB line and the power-events study."""

import csv

import pytest
import ssdlab
from ssdlab.cli import main

RESET = {"at": "0.3s", "kind": "reset", "window": "5ms", "windows": 20}


def _run(mr: bool):
    wl = {"rw": "randread", "bs": "4KiB", "iodepth": 32, "size": "16GiB", "runtime": "0.5s",
          "events": [dict(RESET, memory_return=mr)]}  # fmt: skip
    return ssdlab.run("hmb-ssd", wl, state="full")


def test_reset_without_memory_return_reloads_the_map_cache():
    with_mr, without = _run(True).host_events[0], _run(False).host_events[0]
    assert with_mr["outage_ns"] == without["outage_ns"] == 50_000_000
    assert with_mr["map_loads_after"] == 0 and with_mr["map_segments_dropped"] == 0
    # 16 GiB of 4 KiB units -> 16 MiB of 4-byte entries -> 4,096 segments of 4 KiB.
    assert without["map_segments_dropped"] == 4096
    assert without["recovery_iops"][0] < 0.7 * without["iops_before"]
    assert with_mr["recovery_iops"][0] > 0.85 * with_mr["iops_before"]


def test_events_off_by_default_leave_no_key():
    r = ssdlab.run("hmb-ssd", {"rw": "randread", "number_ios": 2000})
    assert r.host_events == [] and "host_events" not in r.to_dict()
    assert "status" not in r.to_dict()["device"]["hmb"]


def test_bad_event_is_a_config_error():
    with pytest.raises(ssdlab.ConfigError, match="is not disabled then"):
        ssdlab.run("hmb-ssd", {"rw": "randread", "number_ios": 100,
                               "events": [{"at": "1ms", "kind": "hmb-enable"}]})  # fmt: skip


def test_cli_event_flag_prints_the_event_line(capsys):
    rc = main(["run", "--device", "dramless-ssd", "--size", "1GiB", "--runtime", "0.3",
               "--event", "0.1s:suspend-resume:duration=10ms"])  # fmt: skip
    assert rc == 0
    out = capsys.readouterr().out
    assert "event suspend-resume (memory return) at 0.1 s: outage 160.0 ms" in out


def test_cli_bad_event_flag_names_what_is_allowed(capsys):
    assert main(["run", "--device", "hmb-ssd", "--event", "soon:reset"]) == 2
    assert main(["run", "--device", "hmb-ssd", "--event", "1s:reset:memory_return=maybe"]) == 2
    err = capsys.readouterr().err
    assert "memory_return=maybe is not allowed (true or false)" in err


def test_validate_prints_the_hmb_outcome(capsys):
    assert main(["validate", "hmb-ssd", "--set", "hmb.host_limit=8MiB"]) == 0
    assert "HMB: denied" in capsys.readouterr().out
    assert main(["validate", "hmb-ssd", "--set", "hmb.host_max_alloc=1MiB"]) == 0
    assert "granted 64.0 MiB in 64 chunks of 1.00 MiB" in capsys.readouterr().out


def test_study_power_events_quick(tmp_path, capsys):
    assert main(["study", "power-events", "--quick", "--out", str(tmp_path)]) == 0
    rows = list(csv.DictReader(open(tmp_path / "results.csv")))
    assert len(rows) == 12
    cold = next(r for r in rows if r["device"] == "hmb-ssd" and "no memory" in r["scenario"])
    warm = next(r for r in rows if r["device"] == "hmb-ssd" and r["scenario"].startswith(
        "reset (memory"))  # fmt: skip
    assert float(cold["recovery_ms"]) > float(warm["recovery_ms"])
    assert int(cold["segments_dropped"]) == 4096
    assert "Host events" in capsys.readouterr().out


CUT = {"at": "0.2s", "kind": "power-loss", "duration": "10ms"}


def _cut(plp: bool):
    wl = {"rw": "randwrite", "bs": "4KiB", "iodepth": 32, "size": "16GiB", "runtime": "0.3s",
          "events": [CUT]}  # fmt: skip
    return ssdlab.run("dram-ssd", wl, set=[f"power_loss.plp={str(plp).lower()}"])


def test_power_loss_loses_the_volatile_buffer_without_plp_only():
    lost, kept = _cut(False).host_events[0], _cut(True).host_events[0]
    p, q = lost["power_loss"], kept["power_loss"]
    # At most the 4 MiB write buffer, counted in units and bytes.
    assert 0 < p["lost_units"] <= 1024 and p["lost_bytes"] == 4096 * p["lost_units"]
    assert q["lost_units"] == 0 and q["dump_ns"] > 0 and not q["hold_up_exceeded"]
    # The whole map (4 B per 4 KiB of 512 GB) reloaded from 16 KiB pages; PLP needs no scan.
    assert p["checkpoint_pages"] == q["checkpoint_pages"] == 30522
    assert p["scan_pages"] > 0 and q["scan_pages"] == 0
    assert p["rebuild_ns"] > q["rebuild_ns"]
    assert lost["outage_ns"] >= 10_000_000 + 100_000_000 + 50_000_000


def test_cli_power_loss_event_prints_its_line(capsys):
    rc = main(["run", "--device", "dram-ssd", "--rw", "randwrite", "--size", "1GiB",
               "--runtime", "0.3", "--event", "0.1s:power_loss:duration=10ms"])  # fmt: skip
    assert rc == 0
    out = capsys.readouterr().out
    assert "event power-loss at 0.1 s" in out
    assert "power loss (no PLP): lost" in out and "rebuild" in out


def test_power_loss_refuses_memory_return():
    with pytest.raises(ssdlab.ConfigError, match="does not apply to a power loss"):
        ssdlab.run("hmb-ssd", {"rw": "randread", "number_ios": 100,
                               "events": [dict(CUT, memory_return=True)]})  # fmt: skip


def test_study_power_off_rows(tmp_path, capsys):
    from ssdlab.studies.power_events import _power_study

    _power_study(tmp_path, quick=True, seed=1)
    rows = list(csv.DictReader(open(tmp_path / "power_off.csv")))
    assert len(rows) == 12
    assert all(int(r["log_pages"]) > 0 for r in rows if r["device"] == "seed000-hmb")
    plp = [r for r in rows if r["case"] == "plp"]
    assert all(float(r["lost_units"]) == 0 for r in plp if r["plp"] == "True")
    assert all(float(r["lost_units"]) > 0 for r in plp if r["plp"] == "False")
    dram = [r for r in rows if r["case"] == "capacity" and r["device"] == "dram-ssd"]
    assert float(dram[1]["rebuild_ms"]) > 1.8 * float(dram[0]["rebuild_ms"])
