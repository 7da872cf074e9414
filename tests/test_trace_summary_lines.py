"""The timed-replay latency line of the text summary (ssdlab.summary.trace_lines)."""

from ssdlab.summary import trace_lines


def _report(slat: dict) -> dict:
    return {
        "workload": {"trace": {"mode": "timed"}},
        "read": {
            "total_ios": 10,
            "slat_ns": slat,
            "clat_ns": {"mean": 2_087_100.0},
        },
    }


def test_a_queueing_tail_the_report_does_not_hold_is_not_printed_as_zero():
    # The report keeps the queueing time's mean and extremes only: a 13 ms mean was
    # printed beside "queueing p99 0.0 us" (a newcomer's run of a timed tpcc replay).
    slat = {"min": 0, "max": 41_000_000, "mean": 13_040_200.0, "stddev": 1.0, "N": 10}
    (line,) = trace_lines(_report(slat))
    assert "host queueing 13,040.2 us + device 2,087.1 us" in line
    assert "queueing max 41,000.0 us" in line and "p99" not in line


def test_a_queueing_p99_the_report_holds_is_printed():
    slat = {"mean": 5_000.0, "max": 9_000, "percentile": {"99.000000": 8_000}}
    (line,) = trace_lines(_report(slat))
    assert "queueing p99 8.0 us" in line
