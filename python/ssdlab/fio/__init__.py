"""fio at both ends: run fio job files on a simulated drive and print fio's formats.

doc = ssdlab.fio.run_jobfile("job.fio", device="dram-ssd")   # fio-shaped JSON dict
"""

from __future__ import annotations

import os
from typing import Any

from ssdlab.fio.options import JobFile, Unsupported, finish, resolve
from ssdlab.fio.output import to_fio_json, to_normal, to_terse
from ssdlab.fio.parser import JobFileError, parse_file, parse_text

FORMATS = ("normal", "json", "json+", "terse")

__all__ = [
    "FORMATS",
    "JobFile",
    "JobFileError",
    "Unsupported",
    "format_output",
    "load_jobfile",
    "parse_text",
    "run_jobfile",
]


def load_jobfile(path: str | os.PathLike, max_ios: int | str | None = "default") -> JobFile:
    """Parse and resolve a job file (raises JobFileError, or Unsupported with a reason).

    ``max_ios="default"`` caps only jobs bounded by their size (200,000 I/Os; a job
    with a runtime runs its simulated time); a number caps every job; None, none."""
    return resolve(parse_file(path), max_ios=max_ios)


def run_jobfile(
    path: str | os.PathLike,
    device: Any = "client-tlc-dram",
    *,
    state: str = "full",
    seed: int = 1,
    set: Any = None,
    max_ios: int | str | None = "default",
    plus: bool = False,
) -> dict:
    """Simulate a fio job file and return fio's JSON document (json+ with `plus`)."""
    from ssdlab import api

    jf = load_jobfile(path, max_ios=max_ios)
    cap = api.validate(device, set=set)["capacity_bytes"]
    jobs = finish(jf, cap)
    report = api.run(device, {"jobs": jobs}, state=state, seed=seed, set=set)
    return to_fio_json(report.to_dict(), jf, plus=plus)


def format_output(doc: dict, jf: JobFile, fmt: str) -> str:
    import json

    if fmt in ("json", "json+"):
        return json.dumps(doc, indent=2) + "\n"
    if fmt == "terse":
        return to_terse(doc)
    return to_normal(doc, jf)
