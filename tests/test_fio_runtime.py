"""Issue 17, item 2: a fio job means what fio means. A time_based job runs the
simulated time it asks for (no silent I/O cap); a cap that is applied shows in the JSON
and in the text output; group_reporting counts the jobs; --parse-only shows each job."""

import json

from ssdlab.cli import main
from ssdlab.fio import load_jobfile

TIMED = """[global]
rw=randread
bs=4k
iodepth=8
runtime={runtime}
time_based=1
{extra}
[randread-4k]
"""


def _job(tmp_path, runtime="30", extra=""):
    p = tmp_path / "job.fio"
    p.write_text(TIMED.format(runtime=runtime, extra=extra))
    return p


def test_time_based_job_is_not_capped_by_default(tmp_path):
    jf = load_jobfile(_job(tmp_path))
    (job,) = jf.jobs
    assert not job.capped
    assert "number_ios" not in job.spec
    assert job.spec["runtime"] == f"{30 * 10**9}ns"


def test_size_bound_job_keeps_the_default_cap(tmp_path):
    p = tmp_path / "job.fio"
    p.write_text("[seq]\nrw=read\nbs=128k\n")
    (job,) = load_jobfile(p).jobs
    assert job.capped and job.spec["number_ios"] == 200_000


def test_time_based_json_runtime_is_the_asked_time(tmp_path, capsys):
    p = _job(tmp_path, runtime="50ms")
    assert main(["fio", str(p), "--device", "tiny-test", "--output-format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (job,) = doc["jobs"]
    assert job["read"]["runtime"] == 50
    assert doc["ssdlab"]["capped_jobs"] == []


def test_an_explicit_cap_is_in_json_and_text(tmp_path, capsys):
    p = _job(tmp_path, runtime="1")
    args = ["fio", str(p), "--device", "tiny-test", "--max-ios", "300"]
    assert main([*args, "--output-format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["ssdlab"]["capped_jobs"] == ["randread-4k"]
    assert doc["ssdlab"]["capped_at_ios"] == {"randread-4k": 300}
    assert doc["jobs"][0]["read"]["total_ios"] == 300
    assert doc["jobs"][0]["read"]["runtime"] < 1000
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "capped at 300 I/Os" in out


def test_group_reporting_says_how_many_jobs(tmp_path, capsys):
    p = _job(tmp_path, runtime="20ms", extra="numjobs=4\ngroup_reporting=1")
    assert main(["fio", str(p), "--device", "tiny-test"]) == 0
    out = capsys.readouterr().out
    assert "(groupid=0, jobs=4)" in out
    p = _job(tmp_path, runtime="20ms", extra="numjobs=2")
    assert main(["fio", str(p), "--device", "tiny-test"]) == 0
    out = capsys.readouterr().out
    assert out.count("(groupid=0, jobs=1)") == 2


def test_parse_only_prints_each_resolved_job(tmp_path, capsys):
    p = tmp_path / "job.fio"
    p.write_text(
        "[global]\nruntime=30\ntime_based\n"
        "[randread-4k]\nrw=randread\nbs=4k\niodepth=32\nnumjobs=4\n"
        "[seq]\nstonewall\nrw=write\nbs=128k\niodepth=2\nnumber_ios=1000\n"
    )
    assert main(["fio", str(p), "--parse-only"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "randread-4k \u00d74: randread 4KiB QD32, 30 s"
    assert lines[1].startswith("seq: write 128KiB QD2, 1,000 I/Os")
