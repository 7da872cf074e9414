"""Multi-job workloads (issue 14, item 6): IOMeter lines that differ only in size, CLI
flags applied to every job, numbers given as strings inside jobs, `validate --workload`
with jobs, and a malformed `jobs` value as a clear error."""

import json
import subprocess
import sys

import ssdlab


def cli(*args):
    return subprocess.run(
        [sys.executable, "-m", "ssdlab", *args], capture_output=True, text=True, timeout=120
    )


def test_iometer_lines_differing_only_in_size_run_from_the_cli():
    r = cli("run", "--device", "tiny-test", "--workload", "iometer:4K,50,70,100;8K,50,30,100",
            "--number_ios", "200", "--json", "-")  # fmt: skip
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert sum(j["read"]["total_ios"] + j["write"]["total_ios"] for j in doc["jobs"]) == 400
    r = cli("run", "--device", "tiny-test", "-q", "--workload", "iometer:4K,50,70,100;8K,50,70,100",
            "--number_ios", "200")  # fmt: skip
    assert r.returncode == 0, r.stderr


def test_cli_flags_reach_every_job_as_numbers(tmp_path):
    wl = tmp_path / "jobs.json"
    wl.write_text(json.dumps({"jobs": [{"number_ios": 100}, {"number_ios": 100, "group": 1}]}))
    r = cli("run", "--device", "tiny-test", "--workload", str(wl), "--iodepth", "4", "--bs", "8k",
            "--json", "-")  # fmt: skip
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert [j["iodepth"] for j in doc["job_configs"]] == [4, 4]
    assert [j["bs"] for j in doc["job_configs"]] == ["8KiB", "8KiB"]


def test_numbers_as_strings_inside_jobs_work_as_they_do_flat():
    flat = ssdlab.run("tiny-test", {"iodepth": "32", "number_ios": "300"})
    jobs = ssdlab.run("tiny-test", {"jobs": [{"iodepth": "32", "number_ios": "300"}]})
    assert flat["read"]["total_ios"] == jobs["read"]["total_ios"] == 300
    assert flat["read"]["iops"] == jobs["read"]["iops"]


def test_validate_accepts_jobs(tmp_path):
    wl = tmp_path / "jobs.json"
    wl.write_text(json.dumps({"jobs": [{"iodepth": "8", "number_ios": 10}, {"bs": "8k"}]}))
    r = cli("validate", "tiny-test", "--workload", str(wl))
    assert r.returncode == 0, r.stderr
    cap = ssdlab.validate("tiny-test")["capacity_bytes"]
    jobs = ssdlab.validate_workload({"jobs": [{"iodepth": "8"}, {"bs": "8k"}]}, cap)
    assert [j["iodepth"] for j in jobs] == [8, 1]


def test_malformed_jobs_are_a_clear_error(tmp_path):
    for bad in ('{"jobs":"x"}', '{"jobs":[]}', '{"jobs":[1,2]}'):
        wl = tmp_path / "bad.json"
        wl.write_text(bad)
        r = cli("run", "--device", "tiny-test", "-q", "--workload", str(wl))
        assert r.returncode == 2, (bad, r.stderr)
        assert "jobs" in r.stderr and "Traceback" not in r.stderr
