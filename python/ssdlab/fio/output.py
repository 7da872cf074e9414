"""ssdlab results in fio's output formats (fio 3.x): ``json``, ``json+`` (with the
completion-latency histogram ``bins``), ``normal`` text and ``terse`` (version 3).

Field names, types and units follow real fio 3.33 output. Completion-latency
percentiles are computed from fio's own histogram buckets, the way fio does.
Figures fio does not have (WAF, map cache hit rate, ...) go under one extra top-level
key, ``"ssdlab"``. CPU figures are 0: the host's CPU is not simulated.
"""

from __future__ import annotations

import math
import time
from typing import Any

DEFAULT_PCT = [1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0, 99.0,
               99.5, 99.9, 99.95, 99.99]  # fmt: skip
DIRS = ("read", "write", "trim")
MOMENTS = ("min", "max", "mean", "stddev", "N")
BW_KEYS = ("bw_min", "bw_max", "bw_agg", "bw_mean", "bw_dev", "bw_samples", "iops_min",
           "iops_max", "iops_mean", "iops_stddev", "iops_samples")  # fmt: skip


def _moments(d: dict) -> dict:
    return {
        "min": int(d.get("min", 0)),
        "max": int(d.get("max", 0)),
        "mean": float(d.get("mean", 0.0)),
        "stddev": float(d.get("stddev", 0.0)),
        "N": int(d.get("N", 0)),
    }


def percentiles_from_bins(bins: dict[str, int], pcts: list[float]) -> dict[str, int]:
    """fio's rule: the first bucket whose running count reaches p% of the samples."""
    items = sorted((int(k), v) for k, v in bins.items())
    total = sum(v for _, v in items)
    out = {}
    for p in pcts:
        want = max(1, math.ceil(p / 100.0 * total))
        acc = 0
        val = items[-1][0] if items else 0
        for k, v in items:
            acc += v
            if acc >= want:
                val = k
                break
        out[f"{p:.6f}"] = val
    return out


def _direction(d: dict, plus: bool, pcts: list[float]) -> dict:
    out = {
        "io_bytes": int(d["io_bytes"]),
        "io_kbytes": int(d["io_kbytes"]),
        "bw_bytes": int(d["bw_bytes"]),
        "bw": int(d["bw"]),
        "iops": float(d["iops"]),
        "runtime": int(d["runtime"]) if d["total_ios"] else 0,
        "total_ios": int(d["total_ios"]),
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": _moments(d["slat_ns"]),
    }
    clat = _moments(d["clat_ns"])
    bins = d["clat_ns"].get("bins", {})
    if clat["N"] > 0:
        clat["percentile"] = percentiles_from_bins(bins, pcts)
        if plus:
            clat["bins"] = {k: int(v) for k, v in sorted(bins.items(), key=lambda x: int(x[0]))}
    out["clat_ns"] = clat
    out["lat_ns"] = _moments({**d["lat_ns"], "N": d["lat_ns"].get("N", 0)})
    for k in BW_KEYS:
        v = d.get(k, 0)
        out[k] = (
            float(v) if k in ("bw_agg", "bw_mean", "bw_dev", "iops_mean", "iops_stddev") else int(v)
        )
    return out


def _job(r: dict, name: str, group: int, opts: dict, depth: int, plus: bool, pcts) -> dict:
    rt_ms = int(r.get("job_runtime", 0))
    j: dict[str, Any] = {
        "jobname": name,
        "groupid": group,
        "error": 0,
        "eta": 0,
        "elapsed": max(1, math.ceil(rt_ms / 1000)),
        "job options": {k: ("1" if v is None else v) for k, v in opts.items()},
    }
    for dname in DIRS:
        j[dname] = _direction(r[dname], plus, pcts)
    sync = r.get("sync", {})
    j["sync"] = {"total_ios": int(sync.get("total_ios", 0)),
                 "lat_ns": _moments(sync.get("lat_ns", {}))}  # fmt: skip
    j["job_runtime"] = rt_ms
    j.update({"usr_cpu": 0.0, "sys_cpu": 0.0, "ctx": 0, "majf": 0, "minf": 0})
    j["iodepth_level"] = r["iodepth_level"]
    j["iodepth_submit"] = {"0": 0.0, "4": 100.0, "8": 0.0, "16": 0.0, "32": 0.0, "64": 0.0,
                           ">=64": 0.0}  # fmt: skip
    j["iodepth_complete"] = dict(j["iodepth_submit"])
    j["latency_ns"] = r["latency_ns"]
    j["latency_us"] = r["latency_us"]
    j["latency_ms"] = r["latency_ms"]
    j["latency_depth"] = depth
    j["latency_target"] = 0
    j["latency_percentile"] = 100.0
    j["latency_window"] = 0
    return j


def to_fio_json(report: dict, jobfile, plus: bool = False) -> dict:
    """The fio JSON document for a run of `jobfile` (a resolved options.JobFile)."""
    now = time.time()
    jobs_out = []
    rep_jobs = report["jobs"]
    # Map report jobs (one per numjobs clone) back to their sections, in order.
    clones = []
    for job in jobfile.jobs:
        clones.extend([job] * int(job.spec.get("numjobs", 1)))
    grouped = any(j.group_reporting for j in jobfile.jobs)
    if grouped:
        for g in report["groups"]:
            first = next(j for j in jobfile.jobs if j.spec["group"] == g["groupid"])
            pcts = first.percentile_list or DEFAULT_PCT
            depth = int(first.spec.get("iodepth", 1))
            jobs_out.append(_job(g, first.name, g["groupid"], first.opts, depth, plus, pcts))
    else:
        for r, job in zip(rep_jobs, clones):
            pcts = job.percentile_list or DEFAULT_PCT
            depth = int(job.spec.get("iodepth", 1))
            jobs_out.append(_job(r, r["jobname"], r["groupid"], job.opts, depth, plus, pcts))
    # A system run (docs/nvmeof.md) has one report per drive: one disk_util entry each.
    disks = [d for d in report["drives"] if not d.get("idle")] if "drives" in report else [report]
    disk_util = []
    for k, r in enumerate(disks):
        busy = r["device"].get("host_busy_ns", r["sim_time_ns"])
        ticks = {d: int(r[d]["lat_ns"]["mean"] * r[d]["total_ios"] / 1e6) for d in DIRS}
        disk_util.append(
            {
                "name": r.get("name", f"ssdlab{k}"),
                "read_ios": int(r["read"]["total_ios"]),
                "write_ios": int(r["write"]["total_ios"]),
                "read_merges": 0,
                "write_merges": 0,
                "read_ticks": ticks["read"],
                "write_ticks": ticks["write"],
                "in_queue": ticks["read"] + ticks["write"] + ticks["trim"],
                "util": 100.0 * busy / r["sim_time_ns"] if r["sim_time_ns"] else 0.0,
            }
        )
    dev = disks[0]["device"]
    doc = {
        "fio version": "fio-3.33",
        "timestamp": int(now),
        "timestamp_ms": int(now * 1000),
        "time": time.strftime("%a %b %d %H:%M:%S %Y", time.localtime(now)),
        "global options": {k: ("1" if v is None else v) for k, v in jobfile.global_opts.items()},
        "jobs": jobs_out,
        "disk_util": disk_util,
        "ssdlab": {
            "version": report.get("ssdlab_version"),
            "device": report["system"] if "drives" in report else report["config"]["name"],
            "state": report.get("state"),
            "seed": report.get("seed"),
            "sim_time_ns": report.get("sim_time_ns"),
            "waf": dev["ftl"]["waf"],
            "measured_waf": dev["ftl"]["measured"]["waf"],
            "map_hit_rate": dev.get("map", {}).get("hit_rate"),
            "not_simulated": jobfile.not_simulated,
            "capped_jobs": [j.name for j in jobfile.jobs if j.capped],
            "capped_at_ios": {j.name: j.spec["number_ios"] for j in jobfile.jobs if j.capped},
        },
    }
    return doc


# ---- normal text ------------------------------------------------------------------


def _si(n: float, binary: bool) -> str:
    base = 1024.0 if binary else 1000.0
    units = ["", "Ki", "Mi", "Gi", "Ti"] if binary else ["", "k", "M", "G", "T"]
    i = 0
    while abs(n) >= base and i < len(units) - 1:
        n /= base
        i += 1
    return (
        f"{n:.0f}{units[i]}" if n >= 100 or i == 0 else f"{n:.1f}{units[i]}".rstrip("0").rstrip(".")
    )


def _lat_line(label: str, m: dict) -> str:
    div, unit = (1000.0, "usec") if m["max"] < 10_000_000 else (1e6, "msec")
    return (
        f"    {label} ({unit}): min={m['min'] / div:.0f}, max={m['max'] / div:.0f}, "
        f"avg={m['mean'] / div:.2f}, stdev={m['stddev'] / div:.2f}"
    )


def to_normal(doc: dict, jobfile) -> str:
    out = []
    for job in jobfile.jobs:
        s = job.spec
        bs = s.get("bs", "4096B")
        out.append(
            f"{job.name}: (g={s['group']}): rw={s.get('rw', 'read')}, bs=(R) {bs}-{bs}, "
            f"(W) {s.get('bs_write', bs)}-{s.get('bs_write', bs)}, (T) {bs}-{bs}, "
            f"ioengine=ssdlab, iodepth={s.get('iodepth', 1)}"
        )
    out.append("fio-3.33 (ssdlab simulation)")
    n = sum(int(j.spec.get("numjobs", 1)) for j in jobfile.jobs)
    out.append(f"Starting {n} process{'es' if n > 1 else ''}")  # as fio's backend.c
    out.append("")
    grouped = any(job.group_reporting for job in jobfile.jobs)
    capped = doc.get("ssdlab", {}).get("capped_at_ios", {})
    for j in doc["jobs"]:
        # With group_reporting one entry stands for every job (and clone) of its group.
        same = [x for x in jobfile.jobs if x.spec["group"] == j["groupid"]]
        n = sum(int(x.spec.get("numjobs", 1)) for x in same) if grouped else 1
        out.append(
            f"{j['jobname']}: (groupid={j['groupid']}, jobs={n}): err= 0: pid=0: {doc['time']}"
        )
        if j["jobname"] in capped:
            out.append(
                f"  ssdlab: capped at {capped[j['jobname']]:,} I/Os per job: stopped before "
                "its runtime or size (--max-ios 0 lifts the cap)"
            )
        for d in DIRS:
            x = j[d]
            if not x["total_ios"]:
                continue
            bw = x["bw_bytes"]
            resets = doc.get("ssdlab", {}).get("zone_resets", {})
            zbd = ""
            if d == "write" and j["jobname"] in resets:  # fio's zbd write status
                zbd = f"; {resets[j['jobname']]} zone resets"
            out.append(
                f"  {d}: IOPS={_si(x['iops'], False)}, BW={_si(bw, True)}B/s ({_si(bw, False)}B/s)"
                f"({_si(x['io_bytes'], True)}B/{x['runtime']}msec){zbd}"
            )
            out.append(_lat_line("slat", x["slat_ns"]))
            out.append(_lat_line("clat", x["clat_ns"]))
            out.append(_lat_line(" lat", x["lat_ns"]))
            pct = x["clat_ns"].get("percentile", {})
            if pct:
                out.append("    clat percentiles (usec):")
                items = [f"{float(k):5.2f}th=[{v / 1000:5.0f}]" for k, v in pct.items()]
                for i in range(0, len(items), 4):
                    out.append(
                        "     | "
                        + ", ".join(items[i : i + 4])
                        + ("," if i + 4 < len(items) else "")
                    )
            out.append(
                f"   bw (  KiB/s): min={x['bw_min']}, max={x['bw_max']}, per={x['bw_agg']:.2f}%, "
                f"avg={x['bw_mean']:.2f}, stdev={x['bw_dev']:.2f}, samples={x['bw_samples']}"
            )
            out.append(
                f"   iops        : min={x['iops_min']}, max={x['iops_max']}, "
                f"avg={x['iops_mean']:.2f}, "
                f"stdev={x['iops_stddev']:.2f}, samples={x['iops_samples']}"
            )
        if j["sync"]["total_ios"]:
            out.append("  fsync/fdatasync/sync_file_range:")
            out.append(_lat_line("sync", j["sync"]["lat_ns"]))
        for unit, key in (("usec", "latency_us"), ("msec", "latency_ms")):
            parts = [f"{k}={v:.2f}%" for k, v in j[key].items() if v >= 0.01]
            if parts:
                out.append(f"  lat ({unit})   : " + ", ".join(parts))
        out.append(
            f"  cpu          : usr={j['usr_cpu']:.2f}%, sys={j['sys_cpu']:.2f}%, "
            "ctx=0, majf=0, minf=0"
        )
        out.append(
            "  IO depths    : " + ", ".join(f"{k}={v:.1f}%" for k, v in j["iodepth_level"].items())
        )
        tot = ",".join(str(j[d]["total_ios"]) for d in DIRS)
        tot += f",{j['sync']['total_ios']}"
        out.append(f"     issued rwts: total={tot} short=0,0,0,0 dropped=0,0,0,0")
        out.append(
            f"     latency   : target=0, window=0, percentile=100.00%, depth={j['latency_depth']}"
        )
        out.append("")
    for g in sorted({j["groupid"] for j in doc["jobs"]}):
        out.append(f"Run status group {g} (all jobs):")
        for d in DIRS:
            js = [j[d] for j in doc["jobs"] if j["groupid"] == g and j[d]["total_ios"]]
            if not js:
                continue
            bw = sum(x["bw_bytes"] for x in js)
            io = sum(x["io_bytes"] for x in js)
            lo = min(x["bw_bytes"] for x in js)
            hi = max(x["bw_bytes"] for x in js)
            rts = [x["runtime"] for x in js]
            out.append(
                f"{d.upper():>7}: bw={_si(bw, True)}B/s ({_si(bw, False)}B/s), "
                f"{_si(lo, True)}B/s-{_si(hi, True)}B/s ({_si(lo, False)}B/s-{_si(hi, False)}B/s), "
                f"io={_si(io, True)}B ({_si(io, False)}B), run={min(rts)}-{max(rts)}msec"
            )
        out.append("")
    out.append("Disk stats (read/write):")
    for du in doc["disk_util"]:
        out.append(
            f"  {du['name']}: ios={du['read_ios']}/{du['write_ios']}, merge=0/0, "
            f"ticks={du['read_ticks']}/{du['write_ticks']}, in_queue={du['in_queue']}, "
            f"util={du['util']:.2f}%"
        )
    return "\n".join(out) + "\n"


# ---- terse v3 ---------------------------------------------------------------------


def _terse_dir(x: dict) -> list[str]:
    us = lambda v: v / 1000.0  # noqa: E731 - terse latencies are in usec
    f = [str(x["io_kbytes"]), str(x["bw"]), str(round(x["iops"])), str(x["runtime"])]
    for key in ("slat_ns", "clat_ns"):
        m = x[key]
        f += [
            f"{us(m['min']):.0f}",
            f"{us(m['max']):.0f}",
            f"{us(m['mean']):.6f}",
            f"{us(m['stddev']):.6f}",
        ]
    pct = list(x["clat_ns"].get("percentile", {}).items())[:20]
    if not pct:
        pct = [(f"{p:.6f}", 0) for p in DEFAULT_PCT]
    f += [f"{float(k):.6f}%={us(v):.0f}" for k, v in pct]
    f += ["0%=0"] * (20 - len(pct))
    m = x["lat_ns"]
    f += [
        f"{us(m['min']):.0f}",
        f"{us(m['max']):.0f}",
        f"{us(m['mean']):.6f}",
        f"{us(m['stddev']):.6f}",
    ]
    f += [
        str(x["bw_min"]),
        str(x["bw_max"]),
        f"{x['bw_agg']:.6f}%",
        f"{x['bw_mean']:.6f}",
        f"{x['bw_dev']:.6f}",
    ]
    return f


def to_terse(doc: dict) -> str:
    lines = []
    du = doc["disk_util"][0]
    for j in doc["jobs"]:
        f = ["3", "fio-3.33", j["jobname"], str(j["groupid"]), "0"]
        f += _terse_dir(j["read"]) + _terse_dir(j["write"])
        f += ["0.000000%", "0.000000%", "0", "0", "0"]
        f += [f"{v:.1f}%" for v in j["iodepth_level"].values()]
        f += [f"{v:.2f}%" for v in j["latency_us"].values()]
        f += [f"{v:.2f}%" for v in j["latency_ms"].values()]
        f += [du["name"], str(du["read_ios"]), str(du["write_ios"]), "0", "0"]
        f += [str(du["read_ticks"]), str(du["write_ticks"]), str(du["in_queue"])]
        f += [f"{du['util']:.2f}%"]
        lines.append(";".join(f))
    return "\n".join(lines) + "\n"
