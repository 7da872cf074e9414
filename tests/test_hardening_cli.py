"""Issue 31 (hardening, round two), the Python side: system files in `validate` and
`run --verify`, clear errors instead of tracebacks for output paths and sizes, fio job
files and iologs that were read wrongly, plots that leave no partial file, bounded
echoes of huge values, and ConfigError from the Python API for every bad input."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
import ssdlab
from ssdlab.cli import main

ROOT = Path(__file__).resolve().parent.parent
SYSTEM = ROOT / "examples" / "seed001-remote.toml"

LOCAL_SYSTEM = """
name = "two-local"
[[host]]
name = "h0"
[[drive]]
device = "tiny-test"
count = 2
host = "h0"
[[drive]]
device = "tiny-test"
set = ["nand.t_read=60us"]
name = "slow"
host = "h0"
"""


def _cli(*args, timeout=120, **kw):
    return subprocess.run(
        [sys.executable, "-m", "ssdlab", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        **kw,
    )


def _clear_error(r, *needles):
    """Exit status 2, one `ssdlab: error:` line naming each needle, no traceback."""
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("ssdlab: error:")]
    assert len(errors) == 1, r.stderr
    for n in needles:
        assert n in errors[0], (n, errors[0])
    return errors[0]


# ---- 1. validate SYSTEM.toml ------------------------------------------------------


def test_validate_a_shipped_system_file(capsys):
    assert main(["validate", str(SYSTEM)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{SYSTEM}: ok (system seed001-remote, smallest drive 959.9 GB")
    assert "hosts: init0, init1, init2, init3; targets: target" in out
    assert "fabric: rdma-kernel-2016 (rdma)" in out
    assert "4 drive(s) dc-mlc-2016: drive0, drive1, drive2, drive3" in out
    assert "geometry: 8 ch x 8 dies" in out and "QD1 4 KiB read" in out


def test_validate_a_local_system_with_two_drive_kinds(tmp_path, capsys):
    p = tmp_path / "sys.toml"
    p.write_text(LOCAL_SYSTEM)
    argv = [
        "validate",
        str(p),
        "--workload",
        "rand-read-4k-t1-qd32",
        "--set",
        "ftl.gc_policy=greedy",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "ok (system two-local, smallest drive 25.2 MB user capacity)" in out
    assert "fabric: none (local drives)" in out
    assert "2 drive(s) tiny-test: drive0, drive1 (host -> target: h0 -> local)" in out
    assert "1 drive(s) tiny-test: slow (host -> target: h0 -> local)" in out
    assert out.count("geometry:") == 2
    assert _cli("validate", p, "--set", "nand.t_read=-1us").returncode == 2


# ---- 2. run --device SYSTEM --verify ----------------------------------------------


def test_run_a_system_with_verify_checks_every_drive(tmp_path):
    out = tmp_path / "r.json"
    r = _cli("run", "--device", SYSTEM, "--verify", "--rw", "randrw", "--number_ios", "2000",
             "--state", "fresh", "--json", out, "-q")  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    doc = json.loads(out.read_text())
    assert all(d["device"]["oracle"]["checked"] > 0 for d in doc["drives"])


def _fake_run(oracles):
    def run(device, workload, **kw):
        drives = [
            {"name": f"drive{i}", "device": {} if o is None else {"oracle": o}}
            for i, o in enumerate(oracles)
        ]
        return ssdlab.Report({"ssdlab_version": "x", "system": "s", "drives": drives})

    return run


@pytest.mark.parametrize(
    "oracles, needle",
    [
        ([{"checked": 9, "mismatches": 0}, {"checked": 9, "mismatches": 3}],
         "drive drive1: FTL oracle found 3 stale reads of 9 checked"),
        ([{"checked": 9, "mismatches": 0}, None], "drive drive1: the FTL oracle did not run"),
    ],
)  # fmt: skip
def test_verify_verdict_of_a_system_names_the_drive(monkeypatch, capsys, oracles, needle):
    monkeypatch.setattr(ssdlab.api, "run", _fake_run(oracles))
    monkeypatch.setattr(ssdlab.Report, "summary", lambda self: "")
    assert main(["run", "--device", str(SYSTEM), "--verify", "-q"]) == 1
    assert needle in capsys.readouterr().err


def test_verify_in_a_comparison_fails_on_stale_reads(monkeypatch, capsys):
    monkeypatch.setattr(ssdlab.api, "run", _fake_run([{"checked": 5, "mismatches": 1}]))
    monkeypatch.setattr("ssdlab.comparison.rows", lambda reports: [])
    monkeypatch.setattr("ssdlab.comparison.format_table", lambda rows: "")
    assert main(["run", "--device", "tiny-test,dram-ssd", "--verify", "--json", "-"]) == 1
    assert "tiny-test drive drive0: FTL oracle found 1 stale reads" in capsys.readouterr().err


def test_fio_verify_on_a_system(tmp_path):
    job = tmp_path / "v.fio"
    job.write_text("[j]\nrw=randwrite\nbs=4k\nnumber_ios=500\nverify=crc32c\n")
    system = tmp_path / "sys.toml"
    system.write_text(LOCAL_SYSTEM)
    r = _cli("fio", job, "--device", system, "--state", "fresh", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    oracle = json.loads(r.stdout)["ssdlab"]["oracle"]
    assert oracle["checked"] >= 3 * 500 and oracle["mismatches"] == 0
