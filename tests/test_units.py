"""Issue 17, item 1: no silent units. fio's options keep fio's units (runtime and
ramp_time in seconds, thinktime in microseconds, sizes in bytes); device timings and
sizes need a unit; implausible device values are warned about, not silently used."""

import ssdlab
from ssdlab.cli import main

TB = 1 << 40


def test_bare_runtime_is_seconds_as_in_fio():
    w = ssdlab.validate_workload({"runtime": 1, "ramp_time": 0.5, "thinktime": 10}, TB)
    assert w["runtime"] == "1s"
    assert w["ramp_time"] == "500ms"
    assert w["thinktime"] == "10us"
    # strings with units are untouched, bare sizes are bytes
    w = ssdlab.validate_workload({"runtime": "20ms", "bs": 8192}, TB)
    assert w["runtime"] == "20ms" and w["bs"] == "8KiB"


def test_run_runtime_flag_simulates_seconds(tmp_path):
    out = tmp_path / "r.json"
    # 0.02 = 20 ms of simulated time (it used to be 0.02 ns, i.e. nothing)
    assert main(["run", "--device", "tiny-test", "--runtime", "0.02", "--iodepth", "4",
                 "--json", str(out), "-q"]) == 0  # fmt: skip
    r = ssdlab.Report.from_json(out.read_text())
    assert r["read"]["runtime"] == 20
    assert 19e6 <= r["sim_time_ns"] <= 21e6
    assert r["read"]["total_ios"] > 100


def test_device_timing_without_unit_is_an_error(capsys):
    assert main(["validate", "client-tlc-dram", "--set", "nand.t_read=60"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ssdlab: error:")
    assert "nand.t_read" in err and "'60'" in err and "no unit" in err and "us" in err


def test_device_size_without_unit_is_an_error(capsys):
    assert main(["validate", "client-tlc-dram", "--set", "controller.write_buffer=4194304"]) == 2
    err = capsys.readouterr().err
    assert "controller.write_buffer" in err and "no unit" in err and "KiB" in err


def test_implausible_timing_is_warned(capsys):
    assert main(["validate", "client-tlc-dram", "--set", "nand.t_read=60ns"]) == 0
    err = capsys.readouterr().err
    assert "ssdlab: warning: nand.t_read" in err
    assert "TLC" in err and "20us" in err and "200us" in err and "60us" in err
    cfg = ssdlab.validate("client-tlc-dram", set={"nand.t_read": "60us"})
    assert cfg["warnings"] == []


def test_run_report_carries_warnings():
    r = ssdlab.run("tiny-test", {"number_ios": 200}, set={"nand.t_erase": "3us"})
    assert any("nand.t_erase" in w for w in r["warnings"])
    assert "warning: nand.t_erase" in r.summary()


def test_presets_are_plausible():
    for name in ssdlab.presets():
        assert ssdlab.validate(name)["warnings"] == [], name
