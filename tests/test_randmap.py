"""fio's random map: random offsets visit each block of the span once per pass by
default, in `ssdlab fio` (checked against real fio's own write_iolog), in
`ssdlab.run()` workloads, and through the options norandommap and random_generator."""

import collections
import json
import subprocess

import pytest
import ssdlab
from ssdlab.cli import main
from ssdlab.fio import JobFileError, load_jobfile, run_jobfile

has_fio = subprocess.run(["sh", "-c", "command -v fio"], capture_output=True).returncode == 0


def blocks(iolog_path):
    """Visits per offset of the reads and writes in a fio iolog v3 file."""
    c = collections.Counter()
    for line in open(iolog_path):
        f = line.split()
        if len(f) == 5 and f[2] in ("read", "write"):
            c[int(f[3])] += 1
    return c


JOB = "[j]\nioengine=null\nbs=4k\nsize=1m\nwrite_iolog={log}\n{extra}\n"
CASES = [
    # (extra options, visits: {count: how many blocks}) for a 256-block span
    ("rw=randwrite", {1: 256}),
    ("rw=randrw", {1: 256}),  # one map for the job's reads and writes
    ("rw=randwrite\nloops=2", {2: 256}),
    ("rw=randwrite\nio_size=3m", {3: 256}),
    ("rw=randwrite\nrandom_generator=lfsr\nloops=2", {2: 256}),
    ("rw=randwrite\nrandom_generator=tausworthe64", {1: 256}),
]


@pytest.mark.parametrize("extra,want", CASES)
def test_ssdlab_fio_visits_each_block_once_per_pass(tmp_path, extra, want):
    log = tmp_path / "s.log"
    job = tmp_path / "j.fio"
    job.write_text(JOB.format(log=log, extra=extra))
    run_jobfile(job, device="tiny-test")
    assert collections.Counter(blocks(log).values()) == want


@pytest.mark.skipif(not has_fio, reason="fio is not installed")
@pytest.mark.parametrize("extra,want", [*CASES, ("rw=randwrite\nnorandommap", None)])
def test_real_fio_and_ssdlab_fio_cover_the_span_alike(tmp_path, extra, want):
    got = {}
    for who in ("fio", "ssdlab"):
        log = tmp_path / f"{who}.log"
        job = tmp_path / f"{who}.fio"
        job.write_text(JOB.format(log=log, extra=extra))
        if who == "fio":
            r = subprocess.run(
                ["fio", "--output-format=terse", str(job)],
                capture_output=True, text=True, timeout=120, cwd=tmp_path,
            )  # fmt: skip
            assert r.returncode == 0, r.stderr
        else:
            run_jobfile(job, device="tiny-test")
        got[who] = blocks(log)
    if want is None:
        # norandommap: 256 draws with replacement; both miss some blocks, repeat others.
        for who, c in got.items():
            assert sum(c.values()) == 256, who
            assert 130 < len(c) < 195, (who, len(c))
    else:
        assert collections.Counter(got["fio"].values()) == want
        assert collections.Counter(got["ssdlab"].values()) == want
        assert set(got["fio"]) == set(got["ssdlab"])


def test_options_are_simulated_and_checked(tmp_path):
    job = tmp_path / "j.fio"
    job.write_text("[j]\nrw=randread\nnorandommap\nrandom_generator=lfsr\nsoftrandommap=1\n")
    jf = load_jobfile(job)
    spec = jf.jobs[0].spec
    assert spec["norandommap"] is True and spec["random_generator"] == "lfsr"
    names = " ".join(jf.not_simulated)
    assert "softrandommap" in names and "norandommap" not in names
    assert "random_generator" not in names
    job.write_text("[j]\nrw=randread\nnorandommap=0\n")
    assert load_jobfile(job).jobs[0].spec["norandommap"] is False
    job.write_text("[j]\nrw=randread\nrandom_generator=mt19937\n")
    with pytest.raises(JobFileError, match="random_generator=mt19937: allowed: tausworthe"):
        load_jobfile(job)


def test_run_workload_keys():
    wl = {"rw": "randwrite", "bs": "4k", "size": "1MiB", "number_ios": 256, "iodepth": 4,
          "log_ios": True}  # fmt: skip

    def offsets(r):
        return collections.Counter(e[2] for e in r.to_dict()["jobs"][0]["iolog"])

    r = ssdlab.run("tiny-test", wl, state="fresh")
    assert "norandommap" not in r.to_dict()["workload"]  # defaults stay out of reports
    assert set(offsets(r).values()) == {1} and len(offsets(r)) == 256
    r2 = ssdlab.run("tiny-test", dict(wl, norandommap=True), state="fresh")
    assert r2.to_dict()["workload"]["norandommap"] is True
    assert 130 < len(offsets(r2)) < 195
    with pytest.raises(ssdlab.ConfigError, match="random_generator"):
        ssdlab.run("tiny-test", dict(wl, random_generator="bad"))


def test_cli_run_flags(tmp_path):
    out = tmp_path / "r.json"
    args = ["run", "--device", "tiny-test", "--rw", "randwrite", "--size", "1MiB",
            "--number_ios", "256", "-q", "--json", str(out)]  # fmt: skip
    assert main([*args, "--norandommap", "--random_generator", "lfsr"]) == 0
    wl = json.loads(out.read_text())["workload"]
    assert wl["norandommap"] is True and wl["random_generator"] == "lfsr"
    assert main([*args, "--random_generator", "xorshift"]) == 2
