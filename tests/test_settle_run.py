"""A run until its rate has settled (the workload's ``settle`` table; ``ssdlab run
--settle``): the core's verdict and figure against the studies' rule in Python on the same
windows, the CLI's flag and summary line, and bad input."""

import pytest
import ssdlab
from ssdlab.cli import main
from ssdlab.studies import seed000 as s

BASE = {"rw": "randwrite", "bs": "4k", "iodepth": 16, "numjobs": 2, "ramp_time": "1s"}


def _run(tolerance: float, hold: bool = False) -> ssdlab.Report:
    wl = dict(BASE, runtime="16s")
    wl["settle"] = {"first_check": "4s", "tolerance": tolerance, "min_windows": 2, "hold": hold}
    return ssdlab.run("tiny-test", wl, state="normal", seed=3)


@pytest.mark.parametrize("tolerance,hold", [(0.9, False), (1e-9, False), (0.9, True)])
def test_the_core_applies_the_studies_rule(tolerance, hold):
    """At every checkpoint T the core's figure, change and verdict are those of the
    studies' settle_check on the report's windows of [T/2, T] ([T/4, T] with hold)."""
    r = _run(tolerance, hold)
    st = r.settle
    assert st is not None and st["checks"]
    log = r.to_dict()["write"]["iops_log"]
    for c in st["checks"]:
        t = c["at_s"]
        windows = s.measured_windows(log, t - 1.0)
        n = round(t * (0.75 if hold else 0.5) * 2)
        py = s.settle_check(windows[-n:], min_windows=2, tolerance=tolerance, doubling=hold)
        assert c["settled"] == py.settled
        assert c["figure_iops"] == pytest.approx(py.figure, rel=1e-12)
        assert c["change"] == pytest.approx(py.change, rel=1e-9, abs=1e-12)
        assert c["windows"] == py.windows
        if hold:
            assert c["hold_change"] == pytest.approx(py.doubling, rel=1e-9, abs=1e-12)
    if tolerance < 1e-6:
        assert [c["at_s"] for c in st["checks"]] == [4, 8, 16] and not st["settled"]
    else:
        assert st["settled"] and st["at_s"] == 4


def test_the_cli_flag_and_summary(capsys):
    argv = ["run", "--device", "tiny-test", "--rw", "randwrite", "--iodepth", "16",
            "--runtime", "24s", "--ramp_time", "1s", "--settle", "6s:90%", "--state", "normal"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "settle: settled at 6 s (1 check):" in out


@pytest.mark.parametrize(
    "flag,says",
    [
        ("4s:lots", "tolerance 'lots' is not a number"),
        ("4s:5%:keep", "'4s:5%:keep' is not allowed"),
        ("4s:5%", "ramp_time 3s is longer than half of first_check"),
    ],
)
def test_bad_settle_input_is_named(capsys, flag, says):
    argv = ["run", "--device", "tiny-test", "--rw", "randwrite", "--runtime", "16s",
            "--ramp_time", "3s", "--settle", flag]
    assert main(argv) == 2
    assert says in capsys.readouterr().err
