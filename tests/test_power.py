"""The energy model and NVMe power states from Python and the command line (issue 25)."""

from __future__ import annotations

import csv

import pytest
import ssdlab
from ssdlab.cli import main

SMALL = {"rw": "randread", "bs": "4KiB", "iodepth": 8, "number_ios": 3000}


def test_energy_is_opt_in_and_reports_keep_their_shape():
    off = ssdlab.run("tiny-test", SMALL).to_dict()
    assert "energy" not in off and "power" not in off["config"]
    on = ssdlab.run("tiny-test", SMALL, energy=True).to_dict()
    e = on["energy"]
    assert e["total_j"] == pytest.approx(sum(e["components"].values()), rel=1e-12)
    assert e["avg_w"] > e["idle_w"] > 0
    assert on["config"]["power"]["enabled"] is True
    # The simulated I/O is the same with the model on (no cap, no idle periods).
    assert on["read"]["iops"] == off["read"]["iops"]
    assert on["read"]["lat_ns"]["mean"] == off["read"]["lat_ns"]["mean"]


def test_bad_power_fields_name_the_field_and_what_is_allowed():
    with pytest.raises(ssdlab.ConfigError, match=r"power\.apst: 'sometimes'.*allowed: linux"):
        ssdlab.run("tiny-test", SMALL, set={"power.enabled": True, "power.apst": "sometimes"})
    with pytest.raises(ssdlab.ConfigError, match=r"power\.nand_read_w: -1"):
        ssdlab.run("tiny-test", SMALL, set={"power.enabled": True, "power.nand_read_w": -1})
    with pytest.raises(ssdlab.ConfigError, match=r"power.*unknown field `watts`"):
        ssdlab.run("tiny-test", SMALL, set={"power.watts": 3})
    with pytest.raises(ssdlab.ConfigError, match=r"energy: .*true or false|energy"):
        ssdlab.run("tiny-test", SMALL, energy="yes")


def test_run_energy_flag_prints_the_energy_lines(capsys):
    rc = main(["run", "--device", "tiny-test", "--rw", "randread", "--number_ios", "2000",
               "--energy"])  # fmt: skip
    assert rc == 0
    out = capsys.readouterr().out
    assert "energy:" in out and " J drive" in out and "uJ/IO" in out
    assert "power states:" in out


def test_idle_heavy_workload_shows_the_wakeup_latency(capsys):
    wl = {"rw": "randread", "bs": "4KiB", "iodepth": 1, "number_ios": 6,
          "thinktime": "300ms", "thinktime_blocks": 2}  # fmt: skip
    r = ssdlab.run("tiny-test", wl, energy=True).to_dict()
    e = r["energy"]
    assert e["wakeups"] == 2
    # The default table's PS4 exit latency (8 ms) is in the first read after idle.
    assert r["read"]["lat_ns"]["max"] >= 8e6
    assert e["power_state_ns"]["PS4"] > 0


def test_compare_gets_energy_columns():
    pytest.importorskip("pandas")
    df = ssdlab.compare(["tiny-test"], SMALL)
    assert "avg_w" not in df.columns
    df = ssdlab.compare(["tiny-test"], SMALL, energy=True)
    for col in ("avg_w", "peak_w", "idle_w", "uj_per_io", "j_per_gb", "host_hmb_j"):
        assert col in df.columns
    assert (df["avg_w"] > 0).all()


def test_device_comparison_table_has_energy_columns(capsys):
    rc = main(["run", "--device", "tiny-test,hmb-ssd", "--rw", "randread", "--number_ios",
               "2000", "--energy"])  # fmt: skip
    assert rc == 0
    out = capsys.readouterr().out
    assert "avg W" in out and "µJ/IO" in out and "host HMB J" in out


def test_study_power_grid_has_the_seed_states_and_both_capacities():
    from ssdlab.studies import power

    assert {"seed000-dram-1tb", "seed000-hmb-1tb"} <= set(power.SEED_PAIRS)
    assert set(power.SEED_PAIRS) <= set(power.DEVICES)
    states = {state for _, state, _ in power.state_workloads(quick=False)}
    assert states == set(power.SEED_STATES) == {"sustain", "aging"}


def test_study_power_quick(tmp_path, capsys, monkeypatch):
    from ssdlab.studies import power

    # The 500 GB pair only (the 1 TB drives' states take minutes to prepare here).
    pair = ("seed000-dram", "seed000-hmb")
    monkeypatch.setattr(power, "SEED_PAIRS", pair)
    monkeypatch.setattr(power, "DEVICES", (*pair, "dram-ssd", "hmb-ssd", "dramless-ssd"))
    rc = main(["study", "power", "--quick", "--out", str(tmp_path)])
    assert rc == 0
    out = capsys.readouterr().out
    assert "Data sheet vs model" in out
    rows = list(csv.DictReader((tmp_path / "results.csv").open()))
    devices = {r["device"] for r in rows}
    assert {"seed000-dram", "seed000-hmb", "dram-ssd", "hmb-ssd", "dramless-ssd"} <= devices
    hmb = [r for r in rows if r["device"] == "seed000-hmb" and r["workload"] == "rand-read-4k-qd32"]
    assert float(hmb[0]["host_hmb_j"]) > 0, "the host pays for HMB traffic"
    client = [r for r in rows if r["workload"] == "client-idle-heavy"]
    assert all(float(r["sleep_share"]) > 0.3 for r in client)
    assert all(float(r["wake_mean_us"]) > 0 for r in client)
    # The seed's drive states past the SLC cache, for both drives of the pair.
    states = {(r["device"], r["state"]) for r in rows}
    assert {(d, s) for d in pair for s in ("sustain", "aging")} <= states
    ds = list(csv.DictReader((tmp_path / "datasheet.csv").open()))
    assert {d["preset"] for d in ds} >= {"samsung-970-evo-plus-1tb", "seed000-hmb", "seed000-dram"}
    # Each calibrated value reproduces its one figure; every check stays within 20 %; no
    # run of a preset draws more, over any 10 ms window, than its data sheet's maximum.
    open_rows: set[tuple[str, str]] = set()
    assert any(d["bound"] == "True" for d in ds)
    for d in ds:
        ratio = float(d["ratio"])
        if d["bound"] == "True":
            assert 0 < ratio <= 1, d
        elif d["calibrated"]:
            assert abs(ratio - 1) < 0.01, d
        elif (d["preset"], d["figure"]) not in open_rows:
            assert abs(ratio - 1) <= 0.2, d


def test_timeline_draws_power_over_time(tmp_path):
    pytest.importorskip("matplotlib")
    from ssdlab.plot import timeline

    wl = {"rw": "randwrite", "bs": "4KiB", "iodepth": 16, "number_ios": 40_000}
    rep = ssdlab.run("tiny-test", wl, energy=True)
    assert len(rep["energy"]["window_w"]) >= 2
    p = tmp_path / "r.json"
    p.write_text(rep.to_json())
    out = timeline([p], tmp_path / "t.png")
    assert out.exists() and out.stat().st_size > 0


def test_energy_per_io_is_over_the_measured_window():
    # With a ramp, the I/Os counted are the measured window's, and so is the energy
    # divided by them (window_j), not the whole run's.
    wl = {"rw": "randread", "bs": "4KiB", "iodepth": 8, "runtime": "60ms", "ramp_time": "30ms"}
    e = ssdlab.run("tiny-test", wl, state="full", energy=True).to_dict()
    en, ios = e["energy"], e["read"]["total_ios"]
    assert 0 < en["window_j"] < en["total_j"]
    assert en["j_per_io"] * ios == pytest.approx(en["window_j"], rel=1e-12)
    assert en["window_j"] / en["total_j"] == pytest.approx(0.5, abs=0.05)
