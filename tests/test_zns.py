"""A zoned drive (a device file's ``[zns]`` section, issue 27) from the command line,
the Python API and ``ssdlab fio``: zoned I/O runs through the event loop, zoned errors
reach the report and the summary, fio's zbd jobs use the drive's own zones, and bad
sections are errors naming the field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import ssdlab
from ssdlab.cli import main, parse_zone_op
from ssdlab.fio import load_jobfile, simulate_jobfile

ZNS = '\n[zns]\nzone_size_bytes = "1MiB"\nmax_open_zones = 4\n'


@pytest.fixture
def zoned(tmp_path: Path) -> Path:
    """tiny-test with 1 MiB zones over its 4 dies (32 zones)."""
    text = ssdlab.preset_toml("tiny-test").replace('name = "tiny-test"', 'name = "tiny-zns"')
    p = tmp_path / "tiny-zns.toml"
    p.write_text(text + ZNS)
    return p


def test_cli_random_writes_get_the_zoned_error(zoned, tmp_path, capsys):
    out = tmp_path / "r.json"
    args = ["run", "--device", str(zoned), "--rw", "randwrite", "--bs", "16k"]
    args += ["--iodepth", "8", "--number_ios", "300", "--state", "fresh", "--json", str(out)]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "zns errors: 0xbc Zone Invalid Write=" in text
    z = json.loads(out.read_text())["device"]["zns"]
    assert z["zones"] == 32
    assert z["errors"]["0xbc"] > 250
    assert z["errors_total"] + json.loads(out.read_text())["write"]["total_ios"] == 300


def test_cli_sequential_write_fills_zones(zoned, capsys):
    args = ["run", "--device", str(zoned), "--rw", "write", "--bs", "128k", "--iodepth", "8"]
    args += ["--io_size", "4MiB", "--state", "fresh", "--verify"]
    assert main(args) == 0
    text = capsys.readouterr().out
    assert "full=4" in text and "zns errors: none" in text
    assert "per-zone map 256 B" in text


def test_api_runs_a_zoned_device_and_reads_back(zoned):
    wl = {
        "jobs": [
            {"rw": "write", "bs": "64k", "iodepth": 16, "size": "8MiB", "group": 0},
            {"rw": "randread", "bs": "16k", "iodepth": 16, "size": "8MiB", "group": 1,
             "number_ios": 1000},
        ]
    }  # fmt: skip
    r = ssdlab.run(str(zoned), wl, state="fresh", verify=True)
    z = r["device"]["zns"]
    assert z["zones_by_state"]["full"] == 8
    assert z["errors_total"] == 0
    checked, bad = r["device"]["oracle"]["checked"], r["device"]["oracle"]["mismatches"]
    assert checked > 0 and bad == 0
    assert r["read"]["total_ios"] == 1000
    # The same run twice: the same report (the simulator's determinism).
    again = ssdlab.run(str(zoned), wl, state="fresh", verify=True)
    assert again["device"]["zns"] == z and again["read"]["lat_ns"] == r["read"]["lat_ns"]


def test_fio_zbd_job_uses_the_drives_zones(zoned, tmp_path):
    job = tmp_path / "zbd.fio"
    job.write_text(
        "[w]\nrw=write\nbs=128k\niodepth=4\nzonemode=zbd\nzonesize=1m\nsize=4m\n"
    )
    _, report = simulate_jobfile(load_jobfile(job), str(zoned), state="full")
    z = report["device"]["zns"]
    assert z["errors_total"] == 0
    assert z["resets"] == 4  # each full zone reset on the drive before its rewrite


def test_bad_zns_sections_name_the_field(zoned, tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text(zoned.read_text().replace('zone_size_bytes = "1MiB"', 'zone_size = "1MiB"'))
    with pytest.raises(Exception, match="zone_size"):
        ssdlab.validate(str(bad))
    bad.write_text(zoned.read_text() + 'zone_capacity_bytes = "40KiB"\n')
    with pytest.raises(Exception, match=r"zns\.zone_capacity_bytes"):
        ssdlab.validate(str(bad))
    assert main(["validate", str(bad)]) == 2


JOBS = Path(__file__).resolve().parents[2] / "shared" / "data" / "fio-jobs"
needs_shared = pytest.mark.skipif(not JOBS.is_dir(), reason="needs the shared fio jobs")


@needs_shared
def test_fio_zbd_without_zonesize_runs_on_a_zoned_drive(zoned):
    """uring-cmd-zoned.fio gives no zonesize: the zoned drive's own zones serve, as in
    fio (on a drive that is not zoned it is refused, naming the line)."""
    jf = load_jobfile(JOBS / "uring-cmd-zoned.fio", max_ios=2000)
    with pytest.raises(Exception, match="zonemode=zbd without zonesize"):
        simulate_jobfile(jf, "tiny-test", state="fresh")
    _, report = simulate_jobfile(jf, str(zoned), state="fresh")
    z = report["device"]["zns"]
    assert z["errors_total"] == 0, z
    assert z["host_bytes_written"] > 0
    assert report["device"]["oracle"]["mismatches"] == 0  # verify=crc32c: a read-back pass


@needs_shared
def test_fio_zone_append_job_sends_zone_appends(zoned):
    """uring-cmd-zoned-append.fio (write_mode=zone_append, size=1z, QD4): the writes go
    out as Zone Appends into the drive's zones and are read back where they landed."""
    jf = load_jobfile(JOBS / "uring-cmd-zoned-append.fio", max_ios=2000)
    _, report = simulate_jobfile(jf, str(zoned), state="fresh")
    z = report["device"]["zns"]
    assert z["errors_total"] == 0, z
    assert z["appends"] > 0 and z["appends"] * 8192 == z["host_bytes_written"], z
    assert report["device"]["oracle"]["mismatches"] == 0


def test_api_zone_append_and_zone_ops(zoned):
    r = ssdlab.run(
        str(zoned),
        {"rw": "randwrite", "bs": "16k", "iodepth": 8, "size": "2MiB", "number_ios": 64,
         "zone_append": True, "zone_ops": [{"at": "0", "action": "open", "zone": 5}]},
        state="fresh",
    )  # fmt: skip
    z = r["device"]["zns"]
    assert z["appends"] == 64 and z["errors_total"] == 0
    assert z["opens"] == 1 and z["zones_by_state"]["explicitly_open"] == 1
    assert "appends=64" in r.summary()
    with pytest.raises(ssdlab.ConfigError, match="zone_append: needs a zoned drive"):
        ssdlab.run("tiny-test", {"rw": "write", "zone_append": True, "number_ios": 10})


def test_cli_zone_append_and_zone_op(zoned, tmp_path, capsys):
    out = tmp_path / "r.json"
    args = ["run", "--device", str(zoned), "--rw", "write", "--bs", "64k", "--iodepth", "4"]
    args += ["--io_size", "2MiB", "--state", "fresh", "--zone_append"]
    args += ["--zone-op", "0:finish:7", "--json", str(out)]
    assert main(args) == 0
    z = json.loads(out.read_text())["device"]["zns"]
    assert z["appends"] == 32 and z["finishes"] == 1
    # Zones 0 and 1 filled by the appends (offsets 0-2 MiB), zone 7 finished.
    assert z["zones_by_state"]["full"] == 3
    capsys.readouterr()
    assert main(["run", "--device", str(zoned), "--zone-op", "1ms:shut:3"]) == 2
    assert "--zone-op" in capsys.readouterr().err


ZRWA = 'zrwa_bytes = "64KiB"\nzrwa_flush_bytes = "32KiB"\n'


def test_api_and_cli_zrwa_rewrites_and_flush(zoned, tmp_path, capsys):
    """A zone opened with a ZRWA takes 64 writes over its first 64 KiB in the buffer; a
    flush at 6 ms commits them: two program units for 256 KiB the host wrote."""
    dev = tmp_path / "tiny-zrwa.toml"
    dev.write_text(zoned.read_text() + ZRWA)
    jobs = {"jobs": [
        {"rw": "randread", "runtime": "1ms", "offset": "5MiB", "size": "1MiB", "group": 0,
         "zone_ops": [{"at": 0, "action": "open_zrwa", "zone": 0},
                      {"at": "6ms", "action": "flush", "zone": 0, "upto": "64KiB"}]},
        {"rw": "write", "bs": "4k", "size": "64KiB", "number_ios": 64, "group": 1},
        {"rw": "randread", "runtime": "10ms", "offset": "5MiB", "size": "1MiB", "group": 1},
    ]}  # fmt: skip
    r = ssdlab.run(str(dev), jobs, state="fresh")
    z = r["device"]["zns"]
    assert z["errors_total"] == 0 and z["programs"] == 2, z
    assert z["zrwa"]["rewritten_bytes"] == 48 * 4096 and z["zrwa"]["explicit_flushes"] == 1
    assert "zrwa:" in r.summary() and "explicit=1" in r.summary()
    # The CLI: the same open and flush as --zone-op.
    out = tmp_path / "r.json"
    args = ["run", "--device", str(dev), "--rw", "write", "--bs", "4k", "--size", "64KiB"]
    args += ["--number_ios", "64", "--state", "fresh"]
    args += ["--zone-op", "0:open_zrwa:0", "--json", str(out)]
    assert main(args) == 0
    z = json.loads(out.read_text())["device"]["zns"]
    assert z["errors_total"] == 0 and z["programs"] == 0, z
    assert z["zrwa"]["rewritten_bytes"] == 48 * 4096 and z["zrwa"]["zones"] == 1, z
    assert parse_zone_op("2ms:flush:3:64KiB") == {
        "at": "2ms", "action": "flush", "zone": 3, "upto": "64KiB"
    }  # fmt: skip
    capsys.readouterr()
    for bad in ("1ms:flush:3", "1ms:open:3:64KiB", "1ms:flush:3:"):
        assert main(["run", "--device", str(dev), "--zone-op", bad]) == 2
        assert "--zone-op" in capsys.readouterr().err


def test_trace_zone_management_from_the_api_and_cli(zoned, tmp_path, capsys):
    """ssdlab's csv trace with zone commands (ZF, ZR): replayed as Zone Management Send."""
    from ssdlab.trace import trace_workload

    t = tmp_path / "z.csv"
    t.write_text("0,W,0,65536\n1000,ZF,0,0\n2000,W,1048576,4096\n3000,ZR,1048576,0\n")
    r = ssdlab.run(str(zoned), trace_workload(str(t), iodepth=1), state="fresh")
    z = r["device"]["zns"]
    assert (z["finishes"], z["resets"], z["errors_total"]) == (1, 1, 0), z
    assert ssdlab.trace_stats(str(t))["zone_ops"] == 2
    out = tmp_path / "r.json"
    assert main(["trace", str(t), "--device", str(zoned), "--iodepth", "1", "--state", "fresh",
                 "--json", str(out)]) == 0  # fmt: skip
    assert json.loads(out.read_text())["device"]["zns"]["finishes"] == 1


def test_blkparse_zoned_operations_from_the_api_and_cli(zoned, tmp_path, capsys):
    """blkparse's zoned RWBS (Linux 6.17: ZA, ZF, ZRA): Zone Append, finish, reset of all."""
    t = tmp_path / "z.blk"
    t.write_text(
        "259,0 0 1 0.000001000 1 Q ZA 2048 + 128 [fio]\n"
        "259,0 0 2 0.000002000 1 Q ZA 2048 + 128 [fio]\n"
        "259,0 0 3 0.000003000 1 Q ZF 2048 + 0 [fio]\n"
        "259,0 0 4 0.000004000 1 Q ZRA 0 + 0 [fio]\n"
        "259,0 0 5 0.000005000 1 Q ZA 2048 + 8 [fio]\n"
    )
    st = ssdlab.trace_stats(str(t))
    assert (st["format"], st["zone_ops"], st["zone_appends"], st["writes"]) == ("blkparse", 2, 3, 3)
    assert main(["trace", str(t), "--stats-only"]) == 0
    assert "zone management 2  zone appends 3" in capsys.readouterr().out
    out = tmp_path / "r.json"
    assert main(["trace", str(t), "--device", str(zoned), "--iodepth", "1", "--state", "fresh",
                 "--json", str(out)]) == 0  # fmt: skip
    z = json.loads(out.read_text())["device"]["zns"]
    assert (z["appends"], z["finishes"], z["resets"], z["errors_total"]) == (3, 1, 1, 0), z
    assert z["zones_by_state"] == {"empty": z["zones"] - 1, "implicitly_open": 1}, z


def test_zn540_presets_are_shipped():
    names = ssdlab.presets()
    assert "zn540" in names and "zn540-dramless" in names
    for name in ("zn540", "zn540-dramless"):
        cfg = ssdlab.validate(name)
        assert cfg["warnings"] == [] and cfg["zns"]["max_open_zones"] == 14
        assert cfg["capacity_bytes"] == 904 * (2 << 30)
