"""Limits through the API and the CLI (issue 14, items 3, 4 and 8): overflowing values,
the memory estimate checked before allocating, memory that does not grow with simulated
time, and Python values of the wrong type as ConfigError; a Rust panic as InternalError."""

import subprocess
import sys

import pytest
import ssdlab
from ssdlab import _core, api

# about 8 TB of raw flash; its paged map's SRAM structures need more than the default SRAM
BIG = {"nand.blocks_per_plane": 12000, "map.cache": "64MiB", "sram.size": "16MiB"}


def test_a_run_above_max_memory_is_refused_before_allocating():
    # An aged drive stores both whole maps (~8.5 GiB): refused before preparing.
    with pytest.raises(ssdlab.ConfigError, match="max_memory"):
        ssdlab.run("client-tlc-dram", {"number_ios": 10}, state="steady", set=BIG,
                   max_memory=4 << 30)  # fmt: skip
    # A fresh one stores nothing for 10 reads: it runs (issue 31; the estimate was the
    # whole maps for every state).
    ssdlab.run("client-tlc-dram", {"number_ios": 10}, state="fresh", set=BIG, max_memory=4 << 30)
    with pytest.raises(ssdlab.ConfigError, match="max_memory"):
        ssdlab.run("tiny-test", {"number_ios": 10}, max_memory="lots")
    # within the limit it runs
    ssdlab.run("tiny-test", {"number_ios": 10}, max_memory=1 << 30)


def _main_in_child(argv):
    """(exit status, peak resident memory in KiB, stderr) of ``ssdlab ARGV`` in a new
    process (VmHWM: ru_maxrss would carry over the forking pytest process's peak)."""
    code = (
        "from ssdlab.cli import main\n"
        f"rc = main({argv!r})\n"
        "hwm = [x for x in open('/proc/self/status') if x.startswith('VmHWM')][0].split()[1]\n"
        "print(rc, hwm)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    rc, kib = r.stdout.split()[-2:]
    return int(rc), int(kib), r.stderr


def test_cli_max_memory():
    rc, kib, err = _main_in_child(
        ["run", "--device", "client-tlc-dram", "-q", "--state", "steady", "--set",
         "nand.blocks_per_plane=12000", "--set", "map.cache=64MiB", "--set", "sram.size=16MiB",
         "--number_ios", "10", "--max-memory", "4G"]
    )  # fmt: skip
    assert rc == 2 and "max_memory" in err and "4096MiB" in err
    assert kib < 300_000  # refused before the 8.5 GiB of maps were allocated


@pytest.mark.parametrize(
    "argv",
    [
        ["trace", "{tmp}/late.csv", "--mode", "timed"],
        ["fio", "{tmp}/think.fio"],
    ],
    ids=["trace-timestamp-1e18", "fio-thinktime-1e12us"],
)
def test_memory_does_not_grow_with_simulated_time(tmp_path, argv):
    (tmp_path / "late.csv").write_text("0,R,0,4096\n1000000000000000000,W,4096,4096\n")
    (tmp_path / "think.fio").write_text(
        "[j]\nrw=randread\nbs=4k\nthinktime=1000000000000\nnumber_ios=20\n"
    )
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv] + ["--device", "tiny-test"]
    rc, kib, err = _main_in_child(argv)
    assert rc == 0, err
    assert kib < 300_000


@pytest.mark.parametrize(
    "kwargs,field",
    [
        ({"device": 123}, "device"),
        ({"device": None}, "device"),
        ({"verify": "yes"}, "verify"),
        ({"reuse_prep": 1}, "reuse_prep"),
        ({"seed": 2**64}, "seed"),
        ({"seed": -1}, "seed"),
        ({"seed": True}, "seed"),
    ],
)
def test_api_values_of_the_wrong_type_are_config_errors(kwargs, field):
    args = {"device": "tiny-test", "workload": {"number_ios": 10}, **kwargs}
    with pytest.raises(ssdlab.ConfigError, match=field):
        ssdlab.run(**args)


def test_a_panic_becomes_internal_error():
    with pytest.raises(ssdlab.InternalError, match="please report it") as e:
        api._core_call(_core._panic_for_tests)
    assert "a deliberate panic for tests" in str(e.value)
    assert type(e.value).__name__ == "InternalError"  # not pyo3's PanicException
    assert issubclass(ssdlab.InternalError, RuntimeError)


def test_stdout_on_a_full_disk_is_a_clear_error():
    with open("/dev/full", "w") as full:
        r = subprocess.run(
            [sys.executable, "-m", "ssdlab", "presets"], stdout=full, stderr=subprocess.PIPE,
            text=True, timeout=60,
        )  # fmt: skip
    assert r.returncode == 2
    assert "ssdlab: error: standard output" in r.stderr and "Traceback" not in r.stderr
