"""A read job and a shorter write job side by side: each direction's IOPS is timed over
the jobs that did that direction, as fio times them (a job's runtime for a direction it
did no I/O in is 0; a group's or the run's is the longest of the others)."""

import ssdlab

JOBS = {
    "jobs": [
        {"name": "rr", "rw": "randread", "bs": "4k", "iodepth": 16, "number_ios": 60000},
        {"name": "rw", "rw": "randwrite", "bs": "4k", "iodepth": 16, "number_ios": 10000},
    ]
}


def test_each_direction_is_timed_over_the_jobs_that_did_it():
    r = ssdlab.run("dram-ssd", JOBS, state="fresh").to_dict()
    rr, rw = r["jobs"]
    assert rr["write"]["runtime"] == 0 and rr["write"]["iops"] == 0
    assert rw["read"]["runtime"] == 0 and rw["read"]["iops"] == 0
    # the shorter write job ends first; fio's per-job figures use each job's own time
    assert rw["write"]["runtime"] < rr["read"]["runtime"]
    for d, job in (("read", rr), ("write", rw)):
        block = r[d]  # the run's figure for the direction: that job's alone
        assert block["runtime"] == job[d]["runtime"]
        assert block["total_ios"] == job[d]["total_ios"]
        assert abs(block["iops"] - job[d]["iops"]) <= 1e-6 * job[d]["iops"]
        ms = job[d]["runtime"]
        assert abs(block["iops"] - job[d]["total_ios"] / (ms / 1e3)) <= 0.01 * block["iops"]
    # before: both directions were divided by the read job's longer time
    assert r["write"]["iops"] > 1.5 * r["write"]["total_ios"] / (rr["read"]["runtime"] / 1e3)
