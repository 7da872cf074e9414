"""``ssdlab study placement``: the same host writes on a conventional drive, FDP drives
with 2, 4 and 8 handles and a zoned drive whose host store collects zones with 1, 2, 4 or
8 streams; WAF falls toward 1 as the log streams' lifetimes separate."""

from __future__ import annotations

import csv

from ssdlab.cli import main


def test_placement_study_quick(tmp_path, capsys):
    out = tmp_path / "placement"
    assert main(["study", "placement", "--quick", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "log-store" in text and "hot-cold" in text
    rows = list(csv.DictReader((out / "results.csv").open()))
    assert len(rows) == 16
    zoned = [r for r in rows if r["drive"].startswith("zns-")]
    rows = [r for r in rows if not r["drive"].startswith("zns-")]
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
    # The zoned drive: the host's store, its WAF the host's; more streams, fewer copies.
    zwaf = {(r["workload"], int(r["streams"])): float(r["waf"]) for r in zoned}
    log = [zwaf[("log-store", n)] for n in (1, 2, 4, 8)]
    assert log[0] > log[-1] + 0.05 and log[-1] < 1.01, log
    hot = [zwaf[("hot-cold", n)] for n in (1, 2, 4, 8)]
    assert hot[-1] < hot[0], hot
    assert all(int(r["zns_errors"]) == 0 and float(r["write_mb_per_s"]) > 0 for r in zoned)
    # A per-zone map on the drive, the page-granular map on the host.
    assert all(int(r["map_bytes"]) < 4096 < int(r["host_map_bytes"]) for r in zoned)
