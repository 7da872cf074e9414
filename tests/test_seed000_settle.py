"""Seed 000's studies run random writes until they have settled: the settle test on window
series, the run lengths it asks for, and the studies' settle columns and marks."""

import contextlib
import csv
import io
import math
import random

import pytest
from seed000_tiny import HMB_VS_DRAM_COLUMNS, SETTLE_COLUMNS
from ssdlab.cli import main
from ssdlab.studies import seed000 as s

# --- the settle test on synthetic 500 ms window series -----------------------------------


def test_a_flat_series_has_settled():
    check = s.settle_check([250_000.0] * 12)
    assert check.settled
    assert check.windows == 12 and check.change == 0 and check.resolution == 0


def test_a_series_that_settled_after_a_transient_is_accepted():
    """The rate falls for a few windows (the ramp would hold them), then holds: the
    measured span is its flat end."""
    fall = [400_000.0 * 0.6**i for i in range(6)]
    plateau = [100_000.0 + (i % 3) * 500 for i in range(16)]
    assert not s.settle_check(fall + plateau[:2]).settled
    check = s.settle_check(plateau)
    assert check.settled and abs(check.change) < 0.01


def test_a_declining_series_is_rejected():
    # 1 % a window: the last 8 windows average 8 % below the 8 before.
    declining = [100_000.0 * (1 - 0.01 * i) for i in range(16)]
    check = s.settle_check(declining)
    assert not check.settled
    assert check.change < -s.SETTLE_TOLERANCE
    # A slow exponential approach still 6 % above its floor is rejected too.
    approach = [100_000.0 * (1 + 0.5 * math.exp(-(i + 4) / 6)) for i in range(8)]
    assert not s.settle_check(approach).settled


def test_a_noisy_but_flat_series_is_accepted():
    rng = random.Random(7)
    noisy = [100_000.0 * (1 + rng.uniform(-0.1, 0.1)) for _ in range(48)]
    check = s.settle_check(noisy)
    assert check.settled, check
    assert 0.04 < check.noise < 0.08  # uniform +-10 %: sd 5.8 %
    assert abs(check.change) < s.SETTLE_TOLERANCE and check.resolution < s.SETTLE_TOLERANCE
    # The same scatter over 8 windows cannot tell a 5 % change: not settled yet.
    assert not s.settle_check(noisy[:8]).settled


def test_a_series_too_noisy_to_tell_is_rejected_until_it_has_enough_windows():
    """+-50 % scatter over 4 windows a half: equal means say nothing about a 5 % change.
    2W windows resolve it once 2 * noise * sqrt(2 / W) < 5 %: noise 0.5, W > 800."""
    noisy = [50_000.0, 150_000.0, 150_000.0, 50_000.0] * 2
    check = s.settle_check(noisy)
    assert check.change == 0 and not check.settled
    assert check.resolution > s.SETTLE_TOLERANCE
    longer = s.settle_check(noisy * 150)  # W = 600: resolution 5.8 %
    assert not longer.settled and longer.resolution == pytest.approx(0.0577, abs=1e-3)
    assert s.settle_check(noisy * 250).settled  # W = 1000: 4.5 %


# --- aged points: the figure must not move when the run doubles --------------------------


def test_an_aged_burst_is_not_taken_for_a_settled_rate():
    """An aged DRAM-less drive writes a burst for its first seconds (here 6 s at 118 K),
    then falls to its rate (~25 K, scattered). A 6 s run's second half is all burst: flat,
    the halves alone pass it. An aged point runs 12 s, logged after 3 s: the 3-6 s figure
    (the run half as long) against the 6-12 s one gives the burst away."""
    burst, rate = [118_000.0] * 12, [25_000.0, 30_000.0, 20_000.0, 27_000.0] * 3
    assert s.settle_check(burst[6:12]).settled
    logged = (burst + rate)[6:]  # 3-12 s
    check = s.settle_check(logged, doubling=True)
    assert not check.settled and check.doubling < -1
    assert check.windows == 12 and check.figure == pytest.approx(25_500)


def test_an_aged_point_that_holds_its_figure_settles():
    flat = [78_400.0 + (i % 2) * 200 for i in range(18)]
    check = s.settle_check(flat, doubling=True)
    assert check.settled and check.windows == 12 and abs(check.doubling) < 0.01
    # The same last 12 windows after 6 windows 10 % higher: the figure moved on doubling.
    moved = [86_000.0] * 6 + flat[6:]
    check = s.settle_check(moved, doubling=True)
    assert not check.settled and check.doubling < -s.SETTLE_TOLERANCE
    assert s.settle_check(moved[6:]).settled  # the halves alone would pass


def test_aged_points_start_longer():
    assert s.settle_start("aging") == s.SETTLE_START_AGED_S > s.SETTLE_START_S
    assert s.settle_start("normal") == s.settle_start("sustain") == s.SETTLE_START_S


# --- the studies' settle columns on tiny devices -----------------------------------------


def _study(argv) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(argv) == 0
    return buf.getvalue()


def _csv(path) -> list[dict]:
    with open(path) as f:
        return list(csv.DictReader(f))


def test_hmb_vs_dram_random_writes_run_until_settled(tmp_path, tiny_pair):
    dram, hmb = tiny_pair
    out = tmp_path / "out"
    argv = ["study", "hmb-vs-dram", "--devices", f"{dram},{hmb}", "--density", "low"]
    argv += ["--workloads", "rand-write-4k-t1-qd32,rand-read-4k-t1-qd32"]
    argv += ["--states", "normal,aging", "--queues", "1", "--out", str(out)]
    text = _study(argv)
    with open(out / "results.csv") as f:
        header = next(csv.reader(f))
    assert header[:8] == HMB_VS_DRAM_COLUMNS
    assert header[8:] == SETTLE_COLUMNS
    rows = _csv(out / "results.csv")
    assert len(rows) == 8
    for r in rows:
        if r["workload"] == "rand-read-4k-t1-qd32":  # a fixed count of reads
            assert r["settled"] == r["windows"] == r["change_pct"] == ""
            assert float(r["sim_s"]) > 0
            continue
        assert r["settled"] in ("true", "false")
        run_s = float(r["sim_s"])
        # 6, 12 or 24 s, and the I/Os in flight at the end.
        assert any(t <= run_s < t + 0.5 for t in (6, 12, 24)), run_s
        assert int(r["windows"]) == round(run_s)  # the second half's 500 ms windows
        if r["state"] == "aging":
            assert run_s >= s.SETTLE_START_AGED_S and r["doubling_pct"] != ""
        else:
            assert r["doubling_pct"] == ""
        if r["settled"] == "true":
            assert abs(float(r["change_pct"])) < 5 and float(r["resolution_pct"]) < 5
            assert r["doubling_pct"] == "" or abs(float(r["doubling_pct"])) < 5
        else:
            assert run_s >= s.SETTLE_CAP_S
    assert any(r["settled"] == "true" for r in rows)
    assert "Random writes run until settled" in text
    n_settled = sum(r["settled"] == "true" for r in rows)
    assert f"{n_settled} of 4 points settled" in text
    # Run again: every round is a point under OUT/runs, nothing runs twice.
    runs = sorted(p.name for p in (out / "runs").glob("*.parquet"))
    assert _study(argv).count("Random writes run until settled") == 1
    assert sorted(p.name for p in (out / "runs").glob("*.parquet")) == runs
    assert _csv(out / "results.csv") == rows


def test_a_point_that_does_not_settle_is_flagged(tmp_path, tiny_pair, monkeypatch):
    """Nothing settles under a tolerance no run meets: every random-write point runs to the
    cap, says settled=false, and its figures are marked in the table."""
    monkeypatch.setattr(s, "SETTLE_TOLERANCE", 1e-12)
    monkeypatch.setattr(s, "SETTLE_CAP_S", 12.0)
    _, hmb = tiny_pair
    out = tmp_path / "out"
    argv = ["study", "hmb-size", "--devices", hmb, "--density", "low", "--states", "aging"]
    argv += ["--workloads", "rand-write-4k-t16-qd32", "--queues", "2", "--out", str(out)]
    text = _study(argv)
    rows = _csv(out / "results.csv")
    assert [r["hmb"] for r in rows] == ["max", "half", "min"]
    assert list(rows[0])[8:] == SETTLE_COLUMNS
    for r in rows:
        assert r["settled"] == "false" and 12 <= float(r["sim_s"]) < 12.5
        assert r["windows"] == "12"
    line = next(x for x in text.splitlines() if x.strip().startswith("aging"))
    assert line.split()[2].endswith(s.UNSETTLED_MARK)  # the Max figure
    assert "0 of 3 points settled; 3 had not by 12 s (3 aging; marked *" in text
