"""Audit cases: Ctrl-C, SIGTERM and SIGHUP during every long command (a run, aged
preparation, a fio job, a trace replay, a sweep, a probe), and a closed stdout pipe:
each stops within seconds, with the documented status, leaving nothing half-written."""

from __future__ import annotations

import sys
from pathlib import Path

from harness import Case

DRIVER = str(Path(__file__).resolve().parent / "drivers.py")


def cases() -> list[Case]:
    out = []
    for cmd in ("run", "aging", "fio", "trace", "sweep", "probe"):
        for sig in ("SIGINT", "SIGTERM", "SIGHUP"):
            out.append(
                Case(
                    "signal",
                    f"{cmd}:{sig}",
                    [sys.executable, DRIVER, "signal", cmd, sig],
                    "ok",
                    timeout=90,
                    allowed=("out", "job.fio", "t.csv", "g.toml"),
                    max_rss_mib=3000,
                    quick=(cmd, sig) == ("run", "SIGINT"),
                )
            )
    out.append(
        Case("signal", "closed-stdout", [sys.executable, DRIVER, "closed-stdout"], "ok", timeout=90)
    )
    return out
