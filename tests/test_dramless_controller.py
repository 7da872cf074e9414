"""Issue 24 (the DRAM-less drive as its own design), from the CLI and the Python API: the
controller's SRAM budget shown by ``ssdlab validate`` and enforced with a clear error, the
write-back map cache (``map.update``) and an HMB holding the whole map reported in
``device.map``. The mechanisms' physics are tested in crates/ssdlab-core/tests/dramless.rs."""

import pytest
import ssdlab
from ssdlab.cli import main


def test_validate_lists_the_sram_budget(capsys):
    assert main(["validate", "seed000-hmb-1tb"]) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith("SRAM:"))
    assert "of 2,048 KiB used" in line
    for part in ("write buffer", "SRAM map level", "journal", "map-of-map"):
        assert part in line, line


def test_a_device_whose_sram_parts_do_not_fit_is_refused(capsys):
    rc = main(["validate", "seed000-hmb", "--set", "controller.write_buffer=4MiB"])
    assert rc == 2
    err = capsys.readouterr().err
    assert "ssdlab: error:" in err and "sram.size" in err and "write buffer" in err
    with pytest.raises(ssdlab.ConfigError, match=r"sram\.size"):
        ssdlab.validate("seed000-hmb", set={"controller.write_buffer": "4MiB"})


def test_write_back_map_cache_from_the_python_api():
    wl = {"rw": "randwrite", "bs": "4k", "iodepth": 16, "size": "64MiB", "number_ios": 4000}
    r = ssdlab.run("hmb-ssd", wl, state="fresh", set={"map.update": "write-back"})
    wb = r._data["device"]["map"]["write_back"]
    assert wb["write_allocates"] == 16 and wb["log_entries"] == 4000
    plain = ssdlab.run("hmb-ssd", wl, state="fresh")
    assert "write_back" not in plain._data["device"]["map"]


def test_an_hmb_holding_the_whole_map_reports_its_link_traffic():
    grant = {"hmb.hmpre": "480MiB", "hmb.host_limit": "512MiB"}
    wl = {"rw": "randread", "bs": "4k", "iodepth": 1, "number_ios": 500}
    r = ssdlab.run("seed000-hmb", wl, state="full", set=grant)
    m = r._data["device"]["map"]
    assert m["placement"]["whole"] is True
    assert m["hmb"]["lookups"] == 500 and m["hmb"]["read_bytes"] == 500 * 64


READ_AHEAD = {"read_cache.size": "16MiB", "read_cache.read_ahead": "1MiB"}
SEQ_QD1 = {"rw": "read", "bs": "4k", "iodepth": 1, "number_ios": 2000}


def test_read_ahead_from_the_python_api_serves_a_sequential_stream_from_dram():
    on = ssdlab.run("seed000-dram-1tb", SEQ_QD1, state="full", set=READ_AHEAD)
    off = ssdlab.run("seed000-dram-1tb", SEQ_QD1, state="full")
    ra = on._data["device"]["read_cache"]["read_ahead"]
    assert ra["window_bytes"] == 1 << 20 and ra["units"] >= 1998
    assert "read_ahead" not in off._data["device"]["read_cache"]
    # A hit is a DRAM access instead of a tR: several times the IOPS at QD1.
    assert on.iops > 4 * off.iops


def test_read_ahead_from_the_cli_is_in_the_summary(capsys):
    args = ["run", "--device", "seed000-dram-1tb", "--rw", "read", "--bs", "4k",
            "--iodepth", "1", "--number_ios", "2000", "--state", "full"]
    for k, v in READ_AHEAD.items():
        args += ["--set", f'{k}="{v}"']
    assert main(args) == 0
    out = capsys.readouterr().out
    line = next(x for x in out.splitlines() if x.strip().startswith("read-ahead"))
    assert "1.0 MB a stream" in line and "sequential commands" in line, line


def test_read_ahead_without_a_read_cache_is_refused(capsys):
    rc = main(["validate", "seed000-dram-1tb", "--set", 'read_cache.read_ahead="1MiB"'])
    assert rc == 2
    assert "read_cache.read_ahead" in capsys.readouterr().err
