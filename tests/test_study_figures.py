"""Issue 29, item 5: the studies' figures sized for a slide: one performance scale and
one % scale per figure, a % axis of at least +-10 % (a 0.3 % difference drawn flat, not
stretched over the axis), readable labels, the study named by authors and venue."""

import pytest

pytest.importorskip("matplotlib")
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from ssdlab.studies import hmb_size, hmb_vs_dram
from ssdlab.studies import seed000 as s

WL = s.WORKLOADS[0]


def _matrix():
    return s.Matrix(devices=["a", "b"], densities=["high"], states=["normal", "sustain"],
                    queues=["1", "max"], workloads=[WL])  # fmt: skip


def test_hmb_vs_dram_figure_for_a_slide():
    m = _matrix()
    res = {}
    for st, scale in (("normal", 1000.0), ("sustain", 100.0)):
        for q in m.queues:
            res[("high", st, WL, q, "hmb")] = scale
            res[("high", st, WL, q, "dram")] = scale * 1.003  # +0.3 %: noise
    fig = hmb_vs_dram._draw(plt, WL, m, res)
    try:
        bars = [a for a in fig.axes if a.patches]
        twins = [a for a in fig.axes if not a.patches]
        assert len(bars) == 2 and len(twins) == 2
        assert {a.get_ylim() for a in bars} == {bars[0].get_ylim()}  # one scale
        assert bars[0].get_ylim()[1] >= 1003
        assert {a.get_ylim() for a in twins} == {twins[0].get_ylim()}
        lo, hi = twins[0].get_ylim()
        assert lo <= -10 and hi >= 10  # not auto-scaled into the 0.3 % noise
        title = fig._suptitle.get_text()
        assert title.startswith("Samsung, FMS 2023: HMB vs DRAM") and "seed 000" not in title
        assert fig.get_size_inches()[0] >= 8
        assert bars[0].title.get_fontsize() >= 12
    finally:
        plt.close(fig)


def test_hmb_size_figure_for_a_slide():
    m = _matrix()
    res = {("high", st, WL, q, h): v
           for st in m.states for q in m.queues
           for h, v in (("max", 500.0), ("half", 480.0), ("min", 300.0))}  # fmt: skip
    fig = hmb_size._draw(plt, WL, m, res)
    try:
        twins = [a for a in fig.axes if not a.patches]
        lo, hi = twins[0].get_ylim()
        assert lo <= -40 and hi >= 10  # min is 40 % below max: the axis holds it, and 0
        assert "Samsung, FMS 2023" in fig._suptitle.get_text()
    finally:
        plt.close(fig)


def test_no_figure_title_names_a_study_by_its_seed_number():
    import re
    from pathlib import Path

    import ssdlab.studies as studies

    for f in Path(studies.__file__).parent.glob("*.py"):
        for line in f.read_text().splitlines():
            if re.search(r"set_title|suptitle", line):
                assert not re.search(r"[Ss]eed 00\d", line), f"{f.name}: {line.strip()}"
