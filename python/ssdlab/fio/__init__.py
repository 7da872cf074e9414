"""fio at both ends: run fio job files on a simulated drive and print fio's formats.

doc = ssdlab.fio.run_jobfile("job.fio", device="dram-ssd")   # fio-shaped JSON dict
"""

from __future__ import annotations

import os
from typing import Any

from ssdlab.fio.options import JobFile, Unsupported, resolve
from ssdlab.fio.output import to_fio_json, to_normal, to_terse
from ssdlab.fio.parser import JobFileError, parse_file, parse_text
from ssdlab.schema import latency_columns

FORMATS = ("normal", "json", "json+", "terse")

__all__ = [
    "FORMATS",
    "JobFile",
    "JobFileError",
    "Unsupported",
    "fio_doc",
    "format_output",
    "load_jobfile",
    "parse_text",
    "run_jobfile",
    "simulate_jobfile",
    "to_pandas",
]


def to_pandas(fio_json: Any):
    """fio's JSON output (a dict, its text, or a file path; fio's own or ssdlab's) as
    a DataFrame: one row per (job, direction with I/O) with iops, bw_bytes, mb_per_s,
    io_bytes, total_ios, runtime_ms and lat/clat/slat min, mean, max, stddev and
    percentiles in µs (``clat_p99_us``; names: :mod:`ssdlab.schema`). The names of
    earlier releases (``jobname``, ``lat_mean_ns``, ``clat_p99_ns``, ...) stay as
    deprecated aliases."""
    import json
    from pathlib import Path

    try:
        import pandas as pd
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("ssdlab.fio.to_pandas() needs pandas: pip install pandas") from e
    from ssdlab.api import ConfigError, clip

    doc = fio_json
    what = "fio JSON"
    if isinstance(doc, (str, os.PathLike)):
        text = str(doc)
        is_text = isinstance(doc, str) and text.lstrip().startswith("{")
        what = "fio JSON text" if is_text else clip(text)
        # A broken file raised json's JSONDecodeError (issue 31's second audit).
        try:
            doc = json.loads(text if is_text else Path(text).read_text())
        except (OSError, ValueError) as e:
            raise ConfigError(f"{what}: not fio JSON output: {e}") from None
    if not isinstance(doc, dict) or "jobs" not in doc or "fio version" not in doc:
        raise ConfigError(
            f"{what}: not fio JSON output: expected a document with 'fio version' and 'jobs'"
        )
    rows = []
    for j in doc["jobs"]:
        for d in ("read", "write", "trim"):
            x = j.get(d)
            if not x or not x.get("total_ios"):
                continue
            row = {
                "job": j["jobname"],
                "groupid": j["groupid"],
                "direction": d,
                "iops": x["iops"],
                "bw_bytes": x["bw_bytes"],
                "mb_per_s": x["bw_bytes"] / 1e6,
                "io_bytes": x["io_bytes"],
                "total_ios": x["total_ios"],
                "runtime_ms": x["runtime"],
                **latency_columns(x.get("lat_ns"), "lat"),
                **latency_columns(x.get("clat_ns"), "clat"),
                **latency_columns(x.get("slat_ns"), "slat"),
                # deprecated aliases (ssdlab.schema): jobname, lat_mean_ns, clat_*_ns
                "jobname": j["jobname"],
                "lat_mean_ns": x["lat_ns"]["mean"],
                "clat_mean_ns": x["clat_ns"]["mean"],
            }
            for k, v in x["clat_ns"].get("percentile", {}).items():
                row[f"clat_p{float(k):g}_ns"] = v
            rows.append(row)
    return pd.DataFrame(rows)


def load_jobfile(path: str | os.PathLike, max_ios: int | str | None = "default") -> JobFile:
    """Parse and resolve a job file (raises JobFileError, or Unsupported with a reason).

    ``max_ios="default"`` caps only jobs bounded by their size (200,000 I/Os; a job
    with a runtime runs its simulated time); a number caps every job; None, none."""
    sections = parse_file(path)
    if not sections:
        # An empty file (or only comments) said "job file: no job sections", naming no file.
        raise JobFileError(f"{os.fspath(path)}: no job sections (expected at least one [job])")
    return resolve(sections, max_ios=max_ios)


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
    jf = load_jobfile(path, max_ios=max_ios)
    sim, _ = simulate_jobfile(jf, device, state=state, seed=seed, set=set)
    return fio_doc(sim, jf, plus=plus)


def simulate_jobfile(
    jf: JobFile,
    device: Any,
    *,
    state: str = "full",
    seed: int = 1,
    set: Any = None,
    max_memory: int | None = None,
) -> tuple[Any, Any]:
    """Run a resolved job file (with its multi-run options: latency_target, flow, ss,
    write_iolog, rate_min, exitall) and return (the simulation, the final Report); `fio_doc`
    makes fio's JSON document of the simulation."""
    from ssdlab import api
    from ssdlab.fio.simulate import simulate

    cfg = api.validate(device, set=set)
    cap = cfg["capacity_bytes"]
    zns = cfg.get("zns")
    if zns and jf.sections and any(j.spec.get("_needs_drive_zones") for j in jf.jobs):
        # fio on a zoned drive: zonemode=zbd without zonesize, and sizes in zones, take
        # the drive's zone size (the job file is resolved again with it).
        zs = _config_bytes(zns["zone_size_bytes"])
        jf = resolve(jf.sections, max_ios=jf.max_ios, drive_zone_size=zs)
    last = {}

    def run(jobs, verify):
        kw = {} if max_memory is None else {"max_memory": max_memory}
        rep = api.run(
            device, {"jobs": jobs}, state=state, seed=seed, set=set, verify=verify, **kw
        )
        last["report"] = rep
        return rep.to_dict()

    return simulate(jf, cap, run, seed=seed), last["report"]


def _config_bytes(v: Any) -> int:
    """A size of a resolved device config (a number, or "2GiB", "64MiB", "512B")."""
    import re

    if isinstance(v, int):
        return v
    m = re.fullmatch(r"\s*(\d+)\s*([KMGT]i?B|B)?\s*", str(v))
    if not m:
        raise ValueError(f"not a size: {v!r}")
    units = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}
    units.update({f"{p}iB": 1 << (10 * (i + 1)) for i, p in enumerate("KMGT")})
    return int(m.group(1)) * units[m.group(2) or ""]


def fio_doc(sim: Any, jf: JobFile, plus: bool = False) -> dict:
    """fio's JSON document (json+ with `plus`) of a `simulate_jobfile` result."""
    from ssdlab.fio.simulate import annotate

    return annotate(to_fio_json(sim.data, jf, plus=plus), jf, sim)


def format_output(doc: dict, jf: JobFile, fmt: str) -> str:
    import json

    if fmt in ("json", "json+"):
        return json.dumps(doc, indent=2) + "\n"
    if fmt == "terse":
        return to_terse(doc)
    return to_normal(doc, jf)
