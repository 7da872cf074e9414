"""``ssdlab study placement``: the same host writes on a conventional drive and FDP drives
with 2, 4 and 8 handles; FDP's WAF falls toward 1 as the log streams' lifetimes separate."""

from __future__ import annotations

import csv

from ssdlab.cli import main


def test_placement_study_quick(tmp_path, capsys):
    out = tmp_path / "placement"
    assert main(["study", "placement", "--quick", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "log-store" in text and "hot-cold" in text
    rows = list(csv.DictReader((out / "results.csv").open()))
    assert len(rows) == 8
    waf = {(r["workload"], int(r["handles"])): float(r["waf"]) for r in rows}
    log = [waf[("log-store", h)] for h in (0, 2, 4, 8)]
    # Eight logs of different lifetimes: more handles, fewer mixed blocks, lower WAF,
    # and with one handle per log GC finds only empty blocks.
    assert all(a >= b - 0.01 for a, b in zip(log, log[1:])), log
    assert log[-1] < 1.03, log
    assert log[0] > log[-1] + 0.1, log
    hot = [waf[("hot-cold", h)] for h in (0, 2, 4, 8)]
    assert hot[-1] < hot[0], hot
    assert all(float(r["write_mb_per_s"]) > 0 for r in rows)
