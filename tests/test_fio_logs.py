"""Issue 29, item 10: fio's log files (write_lat_log, write_bw_log, write_iops_log,
write_hist_log with log_avg_msec, log_hist_msec, log_offset, per_job_logs) written in
fio 3.x's formats from a simulated run."""

import json

import pytest
from ssdlab.cli import main
from ssdlab.fio import logs

JOB = """[global]
bs=4k
iodepth=8
number_ios=4000
[rr]
rw=randread
write_lat_log={name}
write_bw_log={name}
write_iops_log={name}
{extra}
"""


def _run(tmp_path, extra="", name="rr", fmt="json"):
    job = tmp_path / "j.fio"
    job.write_text(JOB.format(name=tmp_path / name, extra=extra))
    out = tmp_path / "out.json"
    assert main(["fio", str(job), "--device", "tiny-test", "--output-format", fmt,
                 "--output", str(out)]) == 0  # fmt: skip
    return json.loads(out.read_text())


def _rows(path):
    return [[int(x) for x in line.split(", ")] for line in path.read_text().splitlines()]


def test_per_io_logs_hold_every_io_in_fios_format(tmp_path):
    doc = _run(tmp_path)
    j = doc["jobs"][0]
    for kind in ("lat", "clat", "slat", "bw", "iops"):
        assert (tmp_path / f"rr_{kind}.1.log").exists(), kind
    lat = _rows(tmp_path / "rr_lat.1.log")
    clat = _rows(tmp_path / "rr_clat.1.log")
    slat = _rows(tmp_path / "rr_slat.1.log")
    assert len(lat) == j["read"]["total_ios"] == 4000
    assert all(len(r) == 5 and r[2] == 0 and r[3] == 4096 and r[4] == 0 for r in lat)
    times = [r[0] for r in lat]
    assert times == sorted(times) and times[-1] <= j["job_runtime"]
    # lat = slat + clat, I/O by I/O; the means are fio's
    assert all(a[1] == b[1] + c[1] for a, b, c in zip(lat, clat, slat))
    assert sum(r[1] for r in clat) / len(clat) == pytest.approx(j["read"]["clat_ns"]["mean"])
    assert min(r[1] for r in lat) == j["read"]["lat_ns"]["min"]
    assert {r[1] for r in _rows(tmp_path / "rr_iops.1.log")} == {1}


def test_averaged_logs_and_offsets(tmp_path):
    doc = _run(tmp_path, "log_avg_msec=1\nlog_offset=1")
    j = doc["jobs"][0]["read"]
    bw = _rows(tmp_path / "rr_bw.1.log")
    iops = _rows(tmp_path / "rr_iops.1.log")
    lat = _rows(tmp_path / "rr_lat.1.log")
    assert [r[0] for r in bw] == list(range(1, len(bw) + 1))  # every 1 ms window
    assert all(len(r) == 6 and r[3] == 0 and r[4] == 0 for r in bw)  # bs, offset 0
    # the windows' I/Os add up to the run's: IOPS x 1 ms
    assert sum(r[1] for r in iops) / 1000 == pytest.approx(j["total_ios"], rel=0.01)
    assert sum(r[1] for r in bw) / 1000 * 1024 == pytest.approx(j["io_bytes"], rel=0.01)
    assert len(lat) <= len(bw)


def test_per_io_offsets_are_the_ios(tmp_path):
    _run(tmp_path, "log_offset=1")
    rows = _rows(tmp_path / "rr_lat.1.log")
    assert all(len(r) == 6 and r[3] == 4096 and r[4] % 4096 == 0 for r in rows)
    assert len({r[4] for r in rows}) > 1000


def test_histogram_log_counts_every_io_in_fios_bins(tmp_path):
    (tmp_path / "h").mkdir()
    _run(tmp_path, f"write_hist_log={tmp_path / 'h' / 'rr'}\nlog_hist_msec=2")
    rows = _rows(tmp_path / "h" / "rr_clat_hist.1.log")
    assert rows and all(len(r) == 3 + logs.PLAT_NR == 1859 for r in rows)
    assert sum(sum(r[3:]) for r in rows) == 4000
    assert [r[0] for r in rows] == sorted(r[0] for r in rows)


def test_hist_log_without_log_hist_msec_writes_nothing_as_fio(tmp_path):
    (tmp_path / "h").mkdir()
    _run(tmp_path, f"write_hist_log={tmp_path / 'h' / 'rr'}")
    assert not list((tmp_path / "h").iterdir())


def test_clones_get_numbered_files_or_share_one(tmp_path):
    _run(tmp_path, "numjobs=2")
    assert len(_rows(tmp_path / "rr_lat.1.log")) == len(_rows(tmp_path / "rr_lat.2.log")) == 4000
    (tmp_path / "s").mkdir()
    _run(tmp_path, "numjobs=2\nper_job_logs=0", name="s/rr")
    shared = _rows(tmp_path / "s" / "rr_lat.log")
    assert len(shared) == 8000 and [r[0] for r in shared] == sorted(r[0] for r in shared)


def test_fio_bins_match_fios_bucket_rule():
    assert [logs.plat_index(v) for v in (0, 1, 127, 128, 129, 130, 200, 256)] == [
        0, 1, 127, 128, 128, 129, 164, 192]  # fmt: skip
    for idx in (0, 100, 128, 164, 1000, logs.PLAT_NR - 1):
        assert logs.plat_index(logs.plat_value(idx)) == idx
    assert logs.plat_index(1 << 60) == logs.PLAT_NR - 1


def test_bad_log_options_name_the_option(tmp_path, capsys):
    job = tmp_path / "j.fio"
    job.write_text("[a]\nrw=read\nnumber_ios=10\nwrite_bw_log=x\nlog_avg_msec=-5\n")
    assert main(["fio", str(job), "--device", "tiny-test"]) == 2
    assert "log_avg_msec" in capsys.readouterr().err


def test_per_io_bandwidth_is_bytes_per_ms_of_clat_as_fio_writes_it(tmp_path):
    # fio 3.33 (null engine): "0, 366762, 0, 4096, 0" for a 4096-byte read of 11,168 ns clat
    _run(tmp_path)
    bw = _rows(tmp_path / "rr_bw.1.log")
    clat = _rows(tmp_path / "rr_clat.1.log")
    assert all(b[1] == 4096 * 1_000_000 // c[1] for b, c in zip(bw, clat))


def test_the_last_averaged_window_is_stamped_with_the_end(tmp_path):
    doc = _run(tmp_path, "log_avg_msec=7")
    end = doc["jobs"][0]["job_runtime"]
    times = [r[0] for r in _rows(tmp_path / "rr_iops.1.log")]
    assert times[-1] == end and all(t % 7 == 0 for t in times[:-1])
