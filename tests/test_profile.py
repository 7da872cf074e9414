"""Issue 29, item 9: ``ssdlab profile DEVICE``: data-sheet and CrystalDiskMark-like rows,
each measured as it is measured and printed with its method; ``--device A,B``."""

import json

import pytest
import ssdlab
from ssdlab import profiling
from ssdlab.cli import main

ROWS = "seq_read,seq_write_sustained,rand_read_qd1,cdm_rnd4k_q32t1_read"


def test_rows_state_their_method_and_measure_what_they_say():
    rows = ssdlab.profile("tiny-test", rows=ROWS, quick=True)
    assert [r["row"] for r in rows] == ROWS.split(",")
    by = {r["row"]: r for r in rows}
    assert by["seq_read"]["unit"] == "MB/s" and "128 KiB, QD32" in by["seq_read"]["method"]
    assert by["rand_read_qd1"]["unit"] == "IOPS" and "1 GiB span" in by["rand_read_qd1"]["method"]
    # QD1: IOPS is one over the mean latency
    r = by["rand_read_qd1"]
    assert r["value"] == pytest.approx(1e6 / r["lat_mean_us"], rel=0.05)
    # tiny-test has no SLC cache: the sustained row says it ran on a full drive
    assert by["seq_write_sustained"]["state"] == "full"
    assert "no SLC cache" in by["seq_write_sustained"]["method"]
    # a row is the run it describes
    wl = dict(profiling.ROWS[0].workload, number_ios=profiling.ROWS[0].ios // 4)
    rep = ssdlab.run("tiny-test", wl, state="full", seed=1)
    assert by["seq_read"]["value"] == pytest.approx(rep["read"]["bw_bytes"] / 1e6)


def test_sustained_write_runs_past_the_slc_cache():
    rows = ssdlab.profile("hmb-ssd", rows="seq_write,seq_write_sustained", quick=True)
    into, after = rows[0], rows[1]
    assert after["state"] == "full-slc-exhausted"
    assert after["value"] < into["value"]


def test_sustained_write_does_not_rewrite_the_cache_it_says_is_full():
    # The 980 PRO 1 TB preset past its cache folds while it writes (fold_watermark_blocks =
    # 1): every host byte is programmed once in SLC and once more in TLC on the same 32
    # dies (4 planes x 16 KiB a program; SLC 200 us, TLC 450 us), so the host gets at most
    # 1 / (1 / 10.5 + 1 / 4.66) = 3.2 GB/s. Written from LBA 0, the run rewrote the full
    # cache's own data, the drive erased those SLC blocks and wrote into them with nothing
    # to fold (3,704 MB/s here "after the SLC cache", against a rated 2,000).
    (row,) = ssdlab.profile("seed000-dram-1tb", rows="seq_write_sustained", quick=True)
    assert row["state"] == "full-slc-exhausted"
    assert "after the SLC area" in row["method"]
    program_bytes = 32 * 4 * 16384
    slc_b_s, tlc_b_s = program_bytes / 200e-6, program_bytes / 450e-6
    fold_bound_mb_s = 1 / (1 / slc_b_s + 1 / tlc_b_s) / 1e6
    assert row["value"] < fold_bound_mb_s
    assert profiling.past_slc_offset(114 * 10**9, 10**12, 2 << 30) == 114 * 10**9 >> 20 << 20
    assert profiling.past_slc_offset(8 << 30, 9 << 30, 2 << 30) == 7 << 30  # moved back to fit


def test_cli_puts_devices_side_by_side_with_the_method(tmp_path, capsys):
    out = tmp_path / "p.json"
    assert main(["profile", "--device", "tiny-test,dramless-ssd", "--rows", ROWS, "--quick",
                 "--json", str(out)]) == 0  # fmt: skip
    text = capsys.readouterr().out
    head = text.splitlines()[0].split()
    assert head[:3] == ["row", "tiny-test", "dramless-ssd"] and head[-1] == "method"
    assert "Random read 4K QD1 T1" in text and "µs)" in text and "K IOPS" in text
    assert "CrystalDiskMark: 4 KiB, QD32, 1 thread" in text
    doc = json.loads(out.read_text())
    assert {r["device"] for r in doc["rows"]} == {"tiny-test", "dramless-ssd"}


def test_bad_input_names_the_field(capsys):
    assert main(["profile", "tiny-test", "--rows", "seq_reed"]) == 2
    err = capsys.readouterr().err
    assert "'seq_reed' is not a profile row" in err and "seq_read" in err
    assert main(["profile"]) == 2
    assert "give a device" in capsys.readouterr().err
    assert main(["profile", "no-such-drive"]) == 2
    assert "no-such-drive" in capsys.readouterr().err


def test_a_device_measured_otherwise_says_so_in_the_table():
    rows = ssdlab.profile(["hmb-ssd", "tiny-test"], rows="seq_write_sustained", quick=True)
    text = profiling.format_table(rows)
    assert "tiny-test: " in text and "no SLC cache" in text


def test_the_slc_cache_as_a_review_measures_it():
    rows = ssdlab.profile("hmb-ssd", rows="slc_cache_size,seq_write_past_slc,seq_write")
    size, past, into = rows
    # hmb-ssd's static SLC area is 6 GiB (6.44 GB): found from the fill's cliff
    assert size["unit"] == "GB" and size["value"] == pytest.approx(6.44, rel=0.1)
    assert past["value"] < into["value"] / 2
    assert "before the rate fell" in size["method"]
    # a drive without an SLC cache has no cliff: said, no figure
    none = ssdlab.profile("tiny-test", rows="slc_cache_size")[0]
    assert none["value"] is None and "no SLC cache configured" in none["method"]


def test_cliff_arithmetic():
    # 2 windows at 1000 KiB/s, one half at the cliff (600 = 0.5 x 1000 + 0.5 x 200), then 200
    fast, after, n = profiling._cliff([[500, 1000], [1000, 1000], [1500, 600], [2000, 200],
                                       [2500, 200], [2600, 150]])  # fmt: skip
    assert after == pytest.approx(200 * 1024) and n == 6
    assert fast == pytest.approx(2.5 * 1000 * 1024 * 0.5)
    assert profiling._cliff([[500, 1000], [1000, 990], [1500, 1000]])[0] is None
