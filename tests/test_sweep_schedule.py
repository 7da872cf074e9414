"""The order a sweep's points run in on local threads (ssdlab.sweep.schedule)."""

import pytest
from ssdlab.sweep.schedule import LocalSchedule


def job(key, state, n):
    return {"prep_key": key, "run_id": f"{key}{n}", "kwargs": {"state": state}, "params": {}}


def test_points_needing_no_drive_fill_a_preparation_and_the_next_drive_starts_at_once():
    jobs = [job("A", "aging", i) for i in range(3)]
    jobs += [job("B", "aging", i) for i in range(2)]
    jobs += [job("N", "normal", i) for i in range(2)]  # an empty drive: no cache
    jobs += [job("L", "full", 0)]  # the only point of its drive: no cache
    s = LocalSchedule(jobs, reuse_prep=True)

    def taken():
        _, item, cached = s.take()
        return item["run_id"], cached

    # Thread 1 prepares A; thread 2 runs points that need no cached drive meanwhile.
    assert taken() == ("A0", True)
    assert taken() == ("N0", False)
    assert taken() == ("N1", False)
    s.done("N", False)
    assert taken() == ("L0", False)
    s.done("A", True)  # A is prepared: its points clone it
    assert taken() == ("A1", True)
    assert taken() == ("A2", True)
    # No point of A left to start: the next thread prepares B without waiting for
    # A's points in progress, and with nothing else to do the other joins B.
    assert taken() == ("B0", True)
    assert taken() == ("B1", True)
    with pytest.raises(RuntimeError):
        s.take()


def test_without_reuse_every_point_prepares_its_own_drive():
    s = LocalSchedule([job("A", "aging", i) for i in range(2)], reuse_prep=False)
    assert [s.take()[2] for _ in range(2)] == [False, False]
