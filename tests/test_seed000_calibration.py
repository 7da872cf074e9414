"""Tests of the seed000 calibration table: its public figures and sources, the verdict
rule, and one preset's table built with tiny run lengths (no assertion on how close the
model comes: the presets may change)."""

from __future__ import annotations

import csv
import json

import pytest
from ssdlab.cli import UsageError
from ssdlab.studies import seed000_calibration as cal


def test_verdict_on_synthetic_numbers():
    assert cal.verdict(100.0, 100.0) == "within"
    assert cal.verdict(115.0, 100.0) == "within"  # both ends included
    assert cal.verdict(85.0, 100.0) == "within"
    assert cal.verdict(115.1, 100.0) == "outside"
    assert cal.verdict(84.9, 100.0) == "outside"
    assert cal.verdict(361.0, 100.0) == "outside"
    assert cal.verdict(0.0, 100.0) == "outside"
    assert cal.verdict(1_150_000, 1_000_000) == "within"  # IOPS-sized numbers
    assert cal.verdict(None, 100.0) == "not run"
    assert cal.verdict(float("nan"), 100.0) == "not run"
    assert cal.verdict(100.0, None) == "not published"
    assert cal.verdict(None, None) == "not published"
    assert cal.verdict(120.0, 100.0, tol=0.25) == "within"
    assert cal.ratio(50.0, 100.0) == 0.5 and cal.ratio(None, 1.0) is None


def test_every_drive_and_figure_has_exactly_one_source():
    for drive in cal.DRIVES:
        for f in cal.FIGURES:
            holders = [k for k, s in cal.PUBLIC.items() if (drive, f.key) in s["figures"]]
            assert len(holders) == 1, (drive, f.key, holders)
    for key, src in cal.PUBLIC.items():
        assert src["cite"], key
        for (drive, figure), value in src["figures"].items():
            assert drive in cal.DRIVES and figure in cal.FIGURE_BY_KEY, (key, drive, figure)
            assert (value is None) == (key == "none"), (key, drive, figure)
        if key != "none":
            assert src["url"].startswith("https://") and src["quotes"], key
            assert all(len(q) <= 100 for q in src["quotes"]), key  # short quotes only


def test_public_figures_as_the_sources_state_them():
    assert cal.public_figure("970-evo-plus-1tb", "seq_write_after_slc") == (1700, "samsung970ds")
    assert cal.public_figure("970-evo-plus-500gb", "slc_full") == (4, "digit970")
    assert cal.public_figure("980-1tb", "slc_empty") == (160, "anand980")
    assert cal.public_figure("980-500gb", "seq_write_after_slc") == (None, "none")
    assert cal.public_figure("980-1tb", "rand_read_qd32") == (500_000, "guru980")
    assert cal.public_figure("980-pro-1tb", "seq_write") == (5000, "hwluxx980p")
    assert cal.public_figure("980-pro-1tb", "seq_write_after_slc") == (2000, "hwluxx980p")
    assert cal.public_figure("980-pro-500gb", "rand_read_qd32") == (800_000, "hwluxx980p")
    assert cal.public_figure("980-pro-1tb", "slc_empty") == (114, "anand980p")


def test_device_a_is_the_980_pro_and_the_970_evo_plus_is_kept():
    assert cal.PRESET_DRIVE["seed000-dram"] == "980-pro-500gb"
    assert cal.PRESET_DRIVE["seed000-dram-1tb"] == "980-pro-1tb"
    assert cal.PRESET_DRIVE["samsung-970-evo-plus-1tb"] == "970-evo-plus-1tb"


def test_parse_devices():
    assert cal.parse_devices(None) == list(cal.PRESET_DRIVE.items())
    assert cal.parse_devices("seed000-hmb, x.toml=980-1tb") == [
        ("seed000-hmb", "980-500gb"),
        ("x.toml", "980-1tb"),
    ]
    for bad in ("dram-ssd", "seed000-hmb,", "x.toml=980-2tb"):
        with pytest.raises(UsageError):
            cal.parse_devices(bad)


def test_config_bytes():
    assert cal.config_bytes("21484375KiB") == 22_000_000_000
    assert cal.config_bytes("64MiB") == 64 << 20
    assert cal.config_bytes("0B") == 0 and cal.config_bytes("4GB") == 4 * 10**9
    with pytest.raises(ValueError):
        cal.config_bytes("4 parsecs")


def test_table_from_given_values_needs_no_runs():
    got = {f.key: (100.0, "given") for f in cal.FIGURES}
    rows = cal.table_rows([("seed000-hmb-1tb", "980-1tb")], measured={"seed000-hmb-1tb": got})
    assert [r["figure_key"] for r in rows] == [f.key for f in cal.FIGURES]
    slc = next(r for r in rows if r["figure_key"] == "slc_empty")
    assert slc["ratio"] == pytest.approx(100 / 160) and slc["verdict"] == "outside"
    mem = next(r for r in rows if r["figure_key"] == "map_memory")
    assert mem["verdict"] == "outside" and mem["public"] == 64
    assert sum(r["verdict"] == "not published" for r in rows) == 2
    assert "not published" in cal.markdown(rows) and "rows 11" in cal.summary(rows)


def test_second_sources_are_shown_beside_the_first_and_not_counted():
    got = {f.key: (106_000.0, "given") for f in cal.FIGURES}
    rows = cal.table_rows(
        [("samsung-970-evo-plus-1tb", "970-evo-plus-1tb"), ("seed000-hmb-1tb", "980-1tb")],
        measured={"samsung-970-evo-plus-1tb": got, "seed000-hmb-1tb": got},
    )
    extra = cal.second_source_rows(rows)
    # KitGuru's QD1 write of the 970 EVO Plus 1 TB, and nothing for the 980.
    assert [(r["device"], r["figure_key"], r["public"]) for r in extra] == [
        ("samsung-970-evo-plus-1tb", "rand_write_qd1", 163_140)
    ]
    (r,) = extra
    assert r["first_public"] == 60_000 and r["first_source"] == "digit970"
    assert r["ratio"] == pytest.approx(106_000 / 163_140) and r["verdict"] == "outside"
    md = cal.second_sources_markdown(rows)
    assert "| 60,000 (digit970) | 163,140 (kitguru970) | 106,000 | 1.77 | 0.65 |" in md
    # The summary counts the first sources only.
    assert "rows 22" in cal.summary(rows)
    # Every second source is a row the first sources have, with its quotes.
    for src in cal.SECOND_SOURCES.values():
        assert src["url"] and src["quotes"]
        for drive, figure in src["figures"]:
            cal.public_figure(drive, figure)


@pytest.fixture(scope="module")
def quick_rows():
    """One preset's table with tiny run lengths (the SLC fills still write past the cache)."""
    return cal.table_rows([("samsung-970-evo-plus", "970-evo-plus-500gb")], scale=0.01)


def test_table_builds_for_one_preset(quick_rows):
    rows = quick_rows
    assert len(rows) == len(cal.FIGURES)
    for r in rows:
        assert r["source"] in cal.PUBLIC, r
        assert r["device"] == "samsung-970-evo-plus" and r["drive"] == "970 EVO Plus"
        assert r["capacity"] == "500 GB" and r["unit"] == cal.FIGURE_BY_KEY[r["figure_key"]].unit
        assert r["model"] is not None and r["model"] > 0, r  # every figure was measured
        assert r["verdict"] == cal.verdict(r["model"], r["public"])
        assert r["ratio"] == pytest.approx(r["model"] / r["public"])
    text = cal.markdown(rows)
    assert text.count("\n") == len(rows) + 1 and "`samsung-970-evo-plus`" in text


def test_points_follow_the_stated_assumptions():
    import ssdlab

    cfg = ssdlab.validate("seed000-hmb")
    pts = {p.figure: p for p in cal.points(cfg)}
    assert set(pts) == {f.key for f in cal.FIGURES} - {"map_memory"}
    rr = pts["rand_read_qd32"]
    assert rr.state == "normal-written" and rr.workload["numjobs"] == 4
    assert rr.workload["iodepth"] == 32 and rr.workload["size"] == 8 << 30
    assert pts["rand_read_qd1"].workload["iodepth"] == 1
    assert pts["seq_write_after_slc"].state == "sustain"
    assert pts["seq_write"].workload["size"] < cal.config_bytes(cfg["slc"]["min_size"])
    assert pts["slc_empty"].workload["io_size"] > cal.config_bytes(cfg["slc"]["size"])
    assert pts["slc_full"].state == "full"
    by8 = {p.figure: p for p in cal.points(cfg, t4_iodepth=8)}
    assert by8["rand_write_qd32"].workload["iodepth"] == 8


def test_main_writes_outputs_and_rejects_bad_input(tmp_path, capsys, monkeypatch):
    got = {f.key: (1.0, "given") for f in cal.FIGURES}
    monkeypatch.setattr(cal, "measure", lambda device, *a, **k: got)
    out, js = tmp_path / "out", tmp_path / "rows.json"
    assert cal.main(["--devices", "seed000-dram", "--out", str(out), "--json", str(js)]) == 0
    assert "| 980 PRO | 500 GB |" in capsys.readouterr().out
    rows = json.loads(js.read_text())
    assert len(rows) == len(cal.FIGURES) and all(r["source"] in cal.PUBLIC for r in rows)
    with (out / "calibration.csv").open() as f:
        assert len(list(csv.DictReader(f))) == len(cal.FIGURES)
    assert "rows 11" in (out / "calibration.md").read_text()
    assert cal.main(["--devices", "nope"]) == 2
    assert cal.main(["--devices", "seed000-dram", "--set", "nand.t_read=banana"]) == 2
    assert "ssdlab: error:" in capsys.readouterr().err
