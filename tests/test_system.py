"""System files (hosts, NVMe-oF targets, many drives) through the Python API and CLI."""

import subprocess
import sys

import pytest
import ssdlab

SYSTEM = """
name = "two-remote"
fabric = "rdma-kernel-2016"
[[host]]
name = "init0"
nic_ports = 2
port_rate = "25Gb/s"
[[target]]
name = "tgt"
nic_ports = 2
port_rate = "100Gb/s"
[[drive]]
device = "tiny-test"
count = 2
target = "tgt"
host = "init0"
"""

WL = {"rw": "randread", "bs": "4k", "iodepth": 4, "number_ios": 500}


def test_system_file_runs_from_the_api(tmp_path):
    path = tmp_path / "sys.toml"
    path.write_text(SYSTEM)
    r = ssdlab.run(device=str(path), workload=WL)
    assert r.is_system
    assert [d["name"] for d in r["drives"]] == ["drive0", "drive1"]
    assert r["read"]["total_ios"] == 1000
    assert r["hosts"][0]["read"]["total_ios"] == 1000
    assert r["targets"][0]["commands"] == 1000
    local = ssdlab.run(device=str(path), workload=WL, set={})  # same file, same answer
    assert local["read"]["iops"] == r["read"]["iops"]
    # Remote latency exceeds the drive's own: the fabric adds its costs (about 14 us at
    # QD1, crates/ssdlab-core/tests/system.rs; less at QD4, where commands in the
    # fabric are not queued at the drive).
    alone = ssdlab.run(device="tiny-test", workload=WL)
    assert r["read"]["lat_ns"]["mean"] > alone["read"]["lat_ns"]["mean"] + 5_000


def test_system_file_in_the_cli_and_its_errors(tmp_path):
    path = tmp_path / "sys.toml"
    path.write_text(SYSTEM)
    run = subprocess.run(
        [sys.executable, "-m", "ssdlab", "run", "--device", str(path), "--rw", "randread",
         "--number_ios", "300"],
        capture_output=True, text=True,
    )
    assert run.returncode == 0, run.stderr
    assert "system two-remote: 2 drive(s)" in run.stdout
    bad = tmp_path / "bad.toml"
    bad.write_text(SYSTEM.replace('target = "tgt"', 'target = "nowhere"'))
    want = r"drive\[0\]\.target: 'nowhere' is not a \[\[target\]\]"
    with pytest.raises(ssdlab.ConfigError, match=want):
        ssdlab.run(device=str(bad), workload=WL)


EIGHT_SMALL = """
name = "eight-small"
[[host]]
name = "h"
[[drive]]
device = "dc-mlc-2016"
count = 8
host = "h"
set = ["nand.channels=2", "nand.dies_per_channel=4", "nand.blocks_per_plane=128"]
"""


def test_system_runs_keep_to_max_memory(tmp_path):
    """Eight identical 14 GB drives share one prepared drive: the estimate counts what
    it stores once (nothing: a full drive's maps are implicit) and each drive's own
    state and job (34 MiB in all; 36 MiB with the report logs of a read of every block),
    so a 120 MiB budget admits the run. Sequential writes over each drive then fill
    every map chunk's overlay past its threshold, so each drive copies its maps
    (~30 MiB each, 240 MiB in all), and the run is stopped with an error
    instead of growing past the budget. A read run under the same budget copies
    nothing and completes; a budget below the estimate is refused before anything is
    allocated."""
    path = tmp_path / "sys.toml"
    path.write_text(EIGHT_SMALL)
    base = [sys.executable, "-m", "ssdlab", "run", "--device", str(path), "--state", "full",
            "--bs", "128k", "--iodepth", "32"]
    out = tmp_path / "r.json"
    grow = subprocess.run([*base, "--rw", "write", "--max-memory", "120M",
                           "--json", str(out)], capture_output=True, text=True)
    assert grow.returncode == 2, grow.stdout + grow.stderr
    assert "maps grew to" in grow.stderr and "120MiB allowed" in grow.stderr
    assert "Traceback" not in grow.stderr
    assert not out.exists()
    read = subprocess.run([*base, "--rw", "randread", "--number_ios", "20000",
                           "--max-memory", "120M"], capture_output=True, text=True)
    assert read.returncode == 0, read.stderr
    small = subprocess.run([*base, "--rw", "randread", "--max-memory", "30M"],
                           capture_output=True, text=True)
    assert small.returncode == 2
    assert "needs about 36MiB" in small.stderr and "distinct prepared drive" in small.stderr
    assert "8 job(s)" in small.stderr
    with pytest.raises(ssdlab.ConfigError, match="maps grew to"):
        ssdlab.run(device=str(path), state="full", max_memory=120 << 20,
                   workload={"rw": "write", "bs": "128k", "iodepth": 32})
