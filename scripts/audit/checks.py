"""Checks of a successful run's report, for the audit's ``wrong`` outcome: a report that
parses, whose I/O counts are what was asked, whose figures are finite, whose
utilisations are busy time over simulated time (0..1), and whose simulated time is not
absurd for a few hundred I/Os."""

from __future__ import annotations

import json
import math
from pathlib import Path


def _numbers(x, path=""):
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _numbers(v, f"{path}.{k}")
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _numbers(v, f"{path}[{i}]")
    elif isinstance(x, (int, float)) and not isinstance(x, bool):
        yield path, x


def report_problems(rep: dict, ios: int | None = None, max_sim_s: float = 3600.0) -> str | None:
    for path, v in _numbers({k: rep[k] for k in ("jobs", "read", "write", "device") if k in rep}):
        if isinstance(v, float) and not math.isfinite(v):
            return f"{path} = {v}"
        if "util" in path.rsplit(".", 1)[-1] and not (0 <= v <= 1.0 + 1e-9):
            return f"{path} = {v}: a utilisation outside 0..1"
        if v < 0 and "lat" in path:
            return f"{path} = {v}: a negative latency"
    sim_s = rep.get("sim_time_ns", 0) / 1e9
    if sim_s > max_sim_s:
        return f"simulated {sim_s:.0f} s for a small run"
    if ios is not None:
        done = sum(rep[d]["total_ios"] for d in ("read", "write", "trim") if d in rep)
        if done != ios and not rep.get("stalled"):
            return f"{done} I/Os done, {ios} asked"
    return None


def json_report(name: str = "out/r.json", ios: int | None = None, max_sim_s: float = 3600.0):
    """A check: the report written to NAME (in the sandbox) is sane."""

    def check(res, box: Path):
        p = box / name
        if p.is_dir():  # several devices: one DEVICE.json each
            found = sorted(p.glob("*.json"))
            if not found:
                return f"{name}/ holds no report"
            p = found[0]
        if not p.exists():
            return f"{name} was not written"
        try:
            rep = json.loads(p.read_text())
        except ValueError as e:
            return f"{name} is not JSON: {e}"
        if isinstance(rep, list):
            rep = rep[0]
        return report_problems(rep, ios, max_sim_s)

    return check


def stdout_has(*needles: str):
    def check(res, box):
        missing = [n for n in needles if n not in res.stdout]
        return f"stdout lacks {missing}" if missing else None

    return check


def file_absent(*names: str):
    def check(res, box):
        there = [n for n in names if (box / n).exists()]
        return f"left {there}" if there else None

    return check
