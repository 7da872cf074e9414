"""The memory estimate that `--max-memory` (``max_memory=``) checks against what runs
really use (issue 31): jobs are counted, and the estimate is within 2x of the peak.

Each case runs in its own process: the estimate is the figure the user is shown
(``needs about N MiB`` with ``max_memory=1``), the peak that process's high-water resident
set after the run (``VmHWM``; ``ru_maxrss`` would not do: Linux carries it over ``exec``
from the forked copy of the parent, so a child of a 200 MiB pytest reports >= 200 MiB).
"""

import json
import os
import re
import resource
import subprocess
import sys

import pytest
import ssdlab

ENV = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(ssdlab.__file__))}
SYSTEM = os.path.join(os.path.dirname(os.path.dirname(__file__)), "examples", "seed001-remote.toml")

CHILD = r"""
import json, re, sys
import ssdlab
device, sets, workload, state = json.loads(sys.argv[1])
try:
    ssdlab.run(device, workload, state=state, set=sets, max_memory=1)
    raise SystemExit("not refused under max_memory=1")
except ssdlab.ConfigError as e:
    estimate = int(re.search(r"needs about (\d+)MiB", str(e)).group(1))
ssdlab.run(device, workload, state=state, set=sets, max_memory=0)
with open("/proc/self/status") as f:
    peak = next(int(x.split()[1]) for x in f if x.startswith("VmHWM:")) / 1024  # kB
print(json.dumps({"estimate_mib": estimate, "peak_mib": peak}))
"""

READ = {"rw": "randread", "number_ios": 2000}
WRITE = {"rw": "randwrite", "number_ios": 2000}

# (device, overrides, workload, state): a read on a `full` drive (implicit maps, but a
# demand-paged map's translation pages and an SLC fill are stored), writes on `fresh`
# and aged drives (everything stored), a system file. Peaks measured with this build:
# docs/reliability.md.
CASES = [
    pytest.param("tiny-test", {}, READ, "full", id="tiny-test-full-read"),
    pytest.param(
        "tiny-test", {}, {**READ, "number_ios": 20, "numjobs": 256}, "full", id="tiny-256-jobs"
    ),
    pytest.param("mqsim-default", {}, WRITE, "steady", id="mqsim-steady-write"),
    pytest.param("mqsim-default", {}, READ, "full", id="mqsim-full-read"),  # was 532 / 163
    pytest.param("mqsim-default", {}, WRITE, "fresh", id="mqsim-fresh-write"),
    pytest.param("client-tlc-dram", {}, READ, "full", id="client-full-read"),  # was 1022 / 28
    pytest.param(
        "client-tlc-dram",
        {},
        {"rw": "write", "bs": "128k", "size": "1GiB"},
        "full",
        id="client-full-seq-write",
    ),
    pytest.param(
        "client-tlc-dram",
        {},
        {"rw": "randwrite", "number_ios": 200_000},
        "full",
        id="client-full-rand-write",
    ),
    pytest.param("dc-mlc-2016", {}, READ, "full", id="dc-mlc-full-read"),
    pytest.param("hmb-ssd", {}, WRITE, "aging", id="hmb-aging-write"),
    pytest.param("hmb-ssd", {}, READ, "full-slc-exhausted", id="hmb-slc-exhausted-read"),
    pytest.param("dramless-ssd", {}, READ, "sustain", id="dramless-sustain-read"),
    pytest.param(
        "seed000-hmb", {}, {**READ, "size": "1GiB"}, "normal-written", id="seed000-normal-written"
    ),
    pytest.param("emmc-32g", {}, WRITE, "steady", id="emmc-steady-write"),
    pytest.param("emmc-32g", {}, READ, "full", id="emmc-full-read"),
    pytest.param(SYSTEM, {}, READ, "full", id="system-full-read"),
    # Runs bounded by number_ios whose simulated time is long: each 500 ms window with I/O
    # keeps ~4 KiB of report logs, which the estimate did not count (issue 31): the first
    # was estimated 66 MiB for a 102 MiB peak (0.65x; 5,287 simulated s), the second
    # 33 MiB for 138 (0.24x; 20,000 reads paced over 10,000 s).
    pytest.param(
        "emmc-32g", {}, {**WRITE, "number_ios": 2_000_000}, "steady", id="emmc-steady-2m-writes"
    ),
    pytest.param(
        "tiny-test", {}, {**READ, "number_ios": 20_000, "rate_iops": 2}, "full", id="tiny-paced"
    ),
]


@pytest.mark.skipif(sys.platform != "linux", reason="VmHWM in /proc/self/status (Linux)")
@pytest.mark.parametrize("device,sets,workload,state", CASES)
def test_estimate_is_within_2x_of_the_measured_peak(device, sets, workload, state):
    r = subprocess.run(
        [sys.executable, "-c", CHILD, json.dumps([device, sets, workload, state])],
        env=ENV, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout.strip().splitlines()[-1])
    ratio = d["estimate_mib"] / d["peak_mib"]
    assert 0.5 <= ratio <= 2.0, d


def _limit_address_space():
    # Before the jobs were counted this run took 15 GB; here it may take 3 GB at most.
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))


@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS")
@pytest.mark.parametrize("sections", ["3x4096", "10000"])
def test_a_workload_of_thousands_of_jobs_is_refused_under_max_memory(tmp_path, sections):
    job = tmp_path / "many.fio"
    if sections == "3x4096":
        job.write_text("[global]\nrw=randread\nnumber_ios=20\nnumjobs=4096\n[a]\n[b]\n[c]\n")
        jobs = "12,288 job(s)"
    else:
        body = "".join(f"[j{i}]\n" for i in range(10_000))
        job.write_text(f"[global]\nrw=randread\nnumber_ios=20\n{body}")
        jobs = "10,000 job(s)"
    r = subprocess.run(
        [sys.executable, "-m", "ssdlab", "fio", str(job), "--device", "tiny-test",
         "--max-memory", "300M"],
        env=ENV, capture_output=True, text=True, timeout=120,
        preexec_fn=_limit_address_space,
    )  # fmt: skip
    assert r.returncode == 2, (r.returncode, r.stderr[-500:])
    assert "max_memory" in r.stderr and jobs in r.stderr and "300MiB allowed" in r.stderr
    assert "fewer jobs" in r.stderr and "Traceback" not in r.stderr
    need = int(re.search(r"needs about (\d+)MiB", r.stderr).group(1))
    assert need > 12_000  # 1.25 MiB per job


def test_jobs_share_the_limit_with_the_drive():
    """Counted jobs leave the drive less room: 256 jobs (~320 MiB) and tiny-test's 24 MiB
    fit 400 MiB, not 300 MiB; a single job changes the figure by about 1 MiB."""
    wl = {"rw": "randread", "number_ios": 20, "numjobs": 256}
    with pytest.raises(ssdlab.ConfigError, match=r"needs about 345MiB.*256 job\(s\).*300MiB"):
        ssdlab.run("tiny-test", wl, max_memory=300 << 20)
    assert ssdlab.run("tiny-test", wl, max_memory=400 << 20).iops > 0
    assert ssdlab.api.workload_jobs({"jobs": [{"numjobs": "3"}, {}, {"numjobs": 0}]}) == 5
    assert ssdlab.api.workload_jobs(None) == 1
