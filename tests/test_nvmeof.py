"""Seed 001's study (`ssdlab study nvmeof`) and the system features it rests on."""

import csv
import json
import subprocess
import sys

import pytest
import ssdlab
from ssdlab.studies.nvmeof import COLUMNS, system_toml


def _run(tmp_path, name, text, workload, **kw):
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return ssdlab.run(device=str(path), workload=workload, **kw).to_dict()


def test_the_study_runs_and_writes_its_table(tmp_path):
    out = tmp_path / "nv"
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "ssdlab",
            "study",
            "nvmeof",
            "--quick",
            "--device",
            "tiny-test",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    assert "seed delta" in p.stdout and "seed remote" in p.stdout
    with open(out / "results.csv") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == COLUMNS
    exps = {r["experiment"] for r in rows}
    assert exps == {"qd1", "loaded", "scale", "seq_scale", "perf24", "steady_write"}
    assert {r["metric"] for r in rows} == {"iops", "bw_bytes", "lat_mean_us", "lat_p99_us"}
    assert {r["access"] for r in rows} == {"local", "remote"}

    def value(exp, drives, access, rw, metric):
        (v,) = [
            float(r["value"])
            for r in rows
            if (r["experiment"], int(r["drives"]), r["access"], r["rw"], r["metric"])
            == (exp, drives, access, rw, metric)
        ]
        return v

    # QD1: the fabric only adds time; a remote read is slower than a local one.
    assert value("qd1", 1, "remote", "randread", "lat_mean_us") > value(
        "qd1", 1, "local", "randread", "lat_mean_us"
    )
    # Little's law per point: 24 drives x 2 jobs x QD16 outstanding.
    for access in ("local", "remote"):
        iops = value("scale", 24, access, "randread", "iops")
        lat = value("scale", 24, access, "randread", "lat_mean_us") / 1e6
        assert iops * lat == pytest.approx(24 * 32, rel=0.05)
    # 24 aged drives written at random, locally: independent drives, so the whole is
    # 24 times one aged drive's rate (each drive has its own request stream: not exact).
    per_drive = value("perf24", 24, "local", "randwrite", "iops") / 24
    assert per_drive == pytest.approx(value("steady_write", 1, "local", "randwrite", "iops"),
                                      rel=0.1)
    assert value("perf24", 24, "remote", "randwrite", "iops") > 0
    # Every system run is in OUT/systems and runs again by hand.
    assert (out / "systems" / "remote-24.toml").exists()


def test_a_write_span_does_not_change_a_full_drive_write(tmp_path):
    # The study confines writes on full drives to 32 GiB (memory); without GC the span
    # changes nothing. Checked on a 120 GB cut of the study's drive (no GC in 2,000 writes).
    text = system_toml(1, "local", device="dc-mlc-2016").replace(
        'host = "local"', 'host = "local"\nset = ["nand.blocks_per_plane=128"]'
    )
    wl = {"rw": "randwrite", "bs": "4k", "iodepth": 16, "numjobs": 2, "number_ios": 1000}
    whole = _run(tmp_path, "a", text, wl)
    part = _run(tmp_path, "b", text, {**wl, "size": "1GiB"})
    assert whole["drives"][0]["device"]["ftl"]["gc_victims"] == 0
    for k in ("iops", "bw_bytes"):
        assert whole["write"][k] == part["write"][k]
    assert whole["write"]["lat_ns"]["mean"] == part["write"]["lat_ns"]["mean"]


def test_system_files_validate_with_every_drive(tmp_path):
    path = tmp_path / "r.toml"
    path.write_text(system_toml(4, "remote"))
    v = ssdlab.validate(str(path))
    assert [d["name"] for d in v["drives"]] == ["drive0", "drive1", "drive2", "drive3"]
    assert [d["host"] for d in v["drives"]] == ["init0", "init1", "init2", "init3"]
    assert v["fabric"]["name"] == "rdma-kernel-2016"
    assert v["capacity_bytes"] == ssdlab.validate("dc-mlc-2016")["capacity_bytes"]


def test_jobs_name_their_drives(tmp_path):
    text = system_toml(3, "local", device="tiny-test")
    wl = {
        "jobs": [
            {
                "name": "a",
                "rw": "randread",
                "bs": "4k",
                "iodepth": 4,
                "number_ios": 500,
                "filename": "drive0",
            },
            {
                "name": "b",
                "rw": "randread",
                "bs": "4k",
                "iodepth": 8,
                "number_ios": 1000,
                "filename": "drive1:drive2",
            },
        ]
    }
    r = _run(tmp_path, "s", text, wl)
    assert [j["jobname"] for j in r["jobs"]] == ["a", "b"]
    assert [j["read"]["total_ios"] for j in r["jobs"]] == [500, 1000]
    assert [d["read"]["total_ios"] for d in r["drives"]] == [500, 500, 500]
    with pytest.raises(ssdlab.ConfigError, match="filename 'drive9' names no drive"):
        _run(tmp_path, "s", text, {**wl["jobs"][0], "filename": "drive9"})


def _no_wall_clock(v):
    """A report without the fields that measure the machine (``*wall_time*``)."""
    if isinstance(v, dict):
        return {k: _no_wall_clock(x) for k, x in v.items() if "wall_time" not in k}
    if isinstance(v, list):
        return [_no_wall_clock(x) for x in v]
    return v


def test_threads_give_the_same_report(tmp_path):
    # `ssdlab run --threads N` on a system: the same report, byte for byte, for every N
    # (crates/ssdlab-core/tests/golden_system.rs checks more cases in Rust).
    path = tmp_path / "sys.toml"
    path.write_text(system_toml(5, "remote", device="tiny-test"))
    reports = []
    for threads in ("1", "2", "3"):
        out = tmp_path / f"t{threads}.json"
        p = subprocess.run(
            [
                sys.executable,
                "-m",
                "ssdlab",
                "run",
                "--device",
                str(path),
                "--rw",
                "randrw",
                "--bs",
                "4k",
                "--iodepth",
                "8",
                "--numjobs",
                "2",
                "--number_ios",
                "1500",
                "--state",
                "steady",
                "--threads",
                threads,
                "--json",
                str(out),
                "--quiet",
            ],
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert p.returncode == 0, p.stderr
        reports.append(json.dumps(_no_wall_clock(json.loads(out.read_text())), indent=1))
    assert reports[0] == reports[1] == reports[2]
    assert json.loads(reports[0])["write"]["total_ios"] > 0
    # The API takes the same argument; a bad count is a ConfigError naming it.
    wl = {"rw": "randread", "bs": "4k", "iodepth": 4, "number_ios": 300}
    one = _run(tmp_path, "a", path.read_text(), wl, threads=1)
    two = _run(tmp_path, "b", path.read_text(), wl, threads=2)
    assert _no_wall_clock(one) == _no_wall_clock(two)
    with pytest.raises(ssdlab.ConfigError, match="threads"):
        _run(tmp_path, "c", path.read_text(), wl, threads=0)
    p = subprocess.run(
        [sys.executable, "-m", "ssdlab", "run", "--device", str(path), "--threads", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 2 and "--threads" in p.stderr, p.stderr


def test_fio_job_files_run_on_a_system(tmp_path):
    (tmp_path / "s.toml").write_text(system_toml(3, "local", device="tiny-test"))
    (tmp_path / "j.fio").write_text(
        "[global]\nrw=randread\nbs=4k\niodepth=4\nnumber_ios=400\n"
        "[a]\nfilename=drive0\n[b]\nfilename=drive1:drive2\n"
    )
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "ssdlab",
            "fio",
            "--device",
            str(tmp_path / "s.toml"),
            "--output-format",
            "json",
            str(tmp_path / "j.fio"),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    import json

    doc = json.loads(p.stdout)
    assert [j["jobname"] for j in doc["jobs"]] == ["a", "b"]
    assert [j["read"]["total_ios"] for j in doc["jobs"]] == [400, 400]
    assert [d["name"] for d in doc["disk_util"]] == ["drive0", "drive1", "drive2"]
    assert [d["read_ios"] for d in doc["disk_util"]] == [400, 200, 200]
