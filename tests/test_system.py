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
