"""Running a resolved job file: the options that need more than one simulated run or
work on a run's results.

- ``latency_target``: the job's queue depth is searched (powers of two up to ``iodepth``,
  then bisection) for the highest depth whose completion-latency percentile
  (``latency_percentile``, default 100) stays at or below the target, each depth run for
  ``latency_window`` (or the job's own bound); the job then runs at that depth, reported
  as fio's ``latency_depth``.
- ``flow``: jobs of one phase sharing a ``flow_id`` are kept in the ratio of their
  weights: a first run measures each job's I/O rate; the jobs are then paced
  (``rate_iops``) at weight times the slowest job's rate per weight, and run again.
- ``ss`` (steady-state detection): from the job's (or, with ``group_reporting``, its
  phase's) I/O rate in 1 s samples after ``ss_ramp``, the first second at which the
  last ``ss_dur`` seconds meet the criterion; the job is then run again stopping there,
  as fio stops it, and fio's ``steadystate`` JSON object is filled in.
- ``rate_min``: checked on the final run (a job below it is reported on stderr and in
  ``ssdlab.rate_min_not_met``).
- ``write_iolog``: the I/Os each clone issued, in order, as a fio iolog (version 2:
  offsets, lengths and directions, no timing).

Every run is deterministic (same seed, same I/O), so a rerun repeats the first run up to
the point where it now stops.
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any, Callable

from ssdlab.fio.options import JobFile, finish_owned

DIRS = ("read", "write", "trim")


class Simulated:
    """The final run's report (a dict) with what the extra options found."""

    def __init__(self, data: dict, owners: list[int], notes: dict[str, Any]):
        self.data = data
        self.owners = owners  # report job index -> index of its Job in the JobFile
        self.notes = notes


def simulate(
    jf: JobFile,
    cap: int,
    run: Callable[[list[dict], bool], dict],
    seed: int = 1,
    warn: Callable[[str], None] | None = None,
) -> Simulated:
    """Run `jf` on a drive of `cap` bytes; `run(jobs, verify)` simulates a list of ssdlab
    jobs and returns the report dict."""
    warn = warn or (lambda m: print(f"ssdlab: {m}", file=sys.stderr))
    owned = finish_owned(jf, cap)
    verify = jf.verify
    notes: dict[str, Any] = {}
    # -- latency_target: search each such job's queue depth --------------------------
    for ji, job in enumerate(jf.jobs):
        if job.latency_target:
            depth = _latency_search(owned, ji, job, run, verify)
            for k, (o, s) in enumerate(owned):
                if o == ji:
                    owned[k] = (o, dict(s, iodepth=depth))
            notes.setdefault("latency_depth", {})[ji] = depth
    # -- flow: pace the jobs of a flow group in the ratio of their weights ----------------
    if any(j.flow for j in jf.jobs):
        data = run([s for _, s in owned], verify)
        _apply_flow(jf, owned, data)
    # -- the run (again, while steady state cuts a job short) --------------------------
    cut: set[int] = set()
    while True:
        data = run([s for _, s in owned], verify)
        owners = _owners(owned)
        ss = _steady_states(jf, owners, data)
        new = {
            ji: r
            for ji, r in ss.items()
            if r["attained"] and ji not in cut and r["stop_s"] is not None
        }
        if not new:
            break
        # Cut the earliest phase first: later phases depend on the drive it leaves.
        first = min(jf.jobs[ji].spec["group"] for ji in new)
        for ji, r in new.items():
            if jf.jobs[ji].spec["group"] != first:
                continue
            cut.add(ji)
            ramp = _ns(owned_spec(owned, ji).get("ramp_time", "0ns"))
            stop_ns = ramp + r["stop_s"] * 1_000_000_000
            for k, (o, s) in enumerate(owned):
                if o == ji:
                    owned[k] = (o, dict(s, runtime=f"{stop_ns}ns"))
    notes["steadystate"] = ss
    # -- rate_min ---------------------------------------------------------------------
    missed = []
    for k, ji in enumerate(owners):
        job = jf.jobs[ji]
        if job.rate_min:
            r = data["jobs"][k]
            bw = sum(r[d]["bw_bytes"] for d in DIRS)
            if bw < job.rate_min:
                missed.append(r["jobname"])
                warn(
                    f"warning: job {r['jobname']}: {bw:,.0f} bytes/s is below rate_min="
                    f"{job.rate_min:,} bytes/s (fio would end the job with an error)"
                )
    notes["rate_min_not_met"] = missed
    # -- write_iolog ------------------------------------------------------------------
    for ji, job in enumerate(jf.jobs):
        if job.write_iolog:
            _write_iolog(job, ji, owned, owners, data, cap, seed)
    return Simulated(data, owners, notes)


def owned_spec(owned, ji: int) -> dict:
    return next(s for o, s in owned if o == ji)


def _ns(v: Any) -> int:
    s = str(v)
    return int(s[:-2]) if s.endswith("ns") else int(float(s) * 1e9)


def _owners(owned) -> list[int]:
    out = []
    for o, s in owned:
        out.extend([o] * int(s.get("numjobs", 1)))
    return out


# ---- latency_target -------------------------------------------------------------


def _percentile_ns(report_job: dict, pct: float) -> float:
    """The completion latency at `pct` percent over every direction of a report job."""
    bins: dict[int, int] = {}
    for d in DIRS:
        for k, v in report_job[d]["clat_ns"].get("bins", {}).items():
            bins[int(k)] = bins.get(int(k), 0) + int(v)
    total = sum(bins.values())
    if not total:
        return 0.0
    need = math.ceil(total * pct / 100)
    seen = 0
    for lat in sorted(bins):
        seen += bins[lat]
        if seen >= need:
            return float(lat)
    return float(max(bins))


def _latency_search(owned, ji: int, job, run, verify) -> int:
    lt = job.latency_target
    top = int(job.spec.get("iodepth", 1))

    def meets(depth: int) -> bool:
        jobs = []
        for o, s in owned:
            if o == ji:
                s = dict(s, iodepth=depth)
                if lt["window_ns"]:
                    s["runtime"] = f"{lt['window_ns']}ns"
                    if "io_size" in s and "number_ios" not in s:
                        s.pop("io_size")
            jobs.append(s)
        data = run(jobs, verify)
        mine = [r for r, o in zip(data["jobs"], _owners(owned)) if o == ji]
        return all(_percentile_ns(r, lt["percentile"]) <= lt["target_ns"] for r in mine)

    if not meets(1):
        return 1
    ok, bad, d = 1, None, 2
    while d <= top:
        if meets(d):
            ok, d = d, d * 2
        else:
            bad = d
            break
    if bad is None:
        if ok < top and meets(top):
            return top
        bad = top if ok < top else None
    while bad is not None and bad - ok > 1:
        mid = (ok + bad) // 2
        if meets(mid):
            ok = mid
        else:
            bad = mid
    return ok


# ---- flow -------------------------------------------------------------------------


def _apply_flow(jf: JobFile, owned, data) -> None:
    owners = _owners(owned)
    rate: dict[int, float] = {}
    for k, ji in enumerate(owners):
        rate[ji] = rate.get(ji, 0.0) + sum(data["jobs"][k][d]["iops"] for d in DIRS)
    groups: dict[tuple[int, int], list[int]] = {}
    for ji, job in enumerate(jf.jobs):
        if job.flow:
            groups.setdefault((job.spec["group"], job.flow_id), []).append(ji)
    for members in groups.values():
        if len(members) < 2:
            continue
        per_weight = min(rate[ji] / jf.jobs[ji].flow for ji in members)
        for ji in members:
            clones = int(jf.jobs[ji].spec.get("numjobs", 1))
            target = max(1, int(per_weight * jf.jobs[ji].flow / clones))
            for k, (o, s) in enumerate(owned):
                if o == ji:
                    cur = s.get("rate_iops")
                    owned[k] = (o, dict(s, rate_iops=min(cur, target) if cur else target))


# ---- steady state -----------------------------------------------------------------


def _samples(report_jobs: list[dict], interval: int = 1) -> tuple[list[float], ...]:
    """I/Os per second, bytes per second and mean latency (ns) per `interval` seconds
    (sums over the jobs and directions; latency weighted by I/Os), from the report's
    500 ms logs."""
    iops: dict[int, float] = {}
    bw: dict[int, float] = {}
    lat: dict[int, float] = {}
    for r in report_jobs:
        for d in DIRS:
            x = r[d]
            step = max(1, int(x.get("log_avg_msec", 500)))
            logs = zip(x.get("iops_log", []), x.get("bw_log", []), x.get("lat_log", []))
            for (t, v), (_, b), (_, lt) in logs:
                if t % step:  # a last, partial window: not a whole sample
                    continue
                k = math.ceil(t / (1000 * interval))
                share = step / (1000 * interval)
                iops[k] = iops.get(k, 0.0) + v * share
                bw[k] = bw.get(k, 0.0) + b * 1024 * share
                lat[k] = lat.get(k, 0.0) + lt * v * share
    n = max(iops) if iops else 0
    ks = range(1, n + 1)
    return (
        [iops.get(k, 0.0) for k in ks],
        [bw.get(k, 0.0) for k in ks],
        [lat.get(k, 0.0) / iops[k] if iops.get(k) else 0.0 for k in ks],
    )


def _slope(y: list[float]) -> float:
    n = len(y)
    mx = (n - 1) / 2
    my = sum(y) / n
    den = sum((i - mx) ** 2 for i in range(n))
    return sum((i - mx) * (v - my) for i, v in enumerate(y)) / den if den else 0.0


def _check(ss: dict, window: list[float]) -> tuple[bool, float, float, float]:
    """(met, criterion value, max deviation, slope) of one window."""
    mean = sum(window) / len(window)
    dev = max(abs(v - mean) for v in window)
    slope = _slope(window)
    value = abs(slope) if ss["kind"].endswith("slope") else dev
    crit = value / mean * 100 if ss["pct"] and mean else value
    if ss["pct"] and not mean:
        return False, 0.0, dev, slope
    return crit <= ss["limit"], crit, dev, slope


def _steady_states(jf: JobFile, owners: list[int], data: dict) -> dict[int, dict]:
    out: dict[int, dict] = {}
    for ji, job in enumerate(jf.jobs):
        ss = job.ss
        if not ss:
            continue
        if job.group_reporting:
            members = {
                i for i, j in enumerate(jf.jobs) if j.spec["group"] == job.spec["group"]
            }
        else:
            members = {ji}
        reps = [r for r, o in zip(data["jobs"], owners) if o in members]
        step = ss.get("interval_s", 1)
        iops, bw, lat = _samples(reps, step)
        series = {"bw": bw, "lat": lat}.get(ss["kind"].split("_")[0], iops)
        # In samples: the window, and the ramp rounded up to a whole sample.
        dur, ramp = ss["dur_s"] // step, -(-ss["ramp_s"] // step)
        result = {"attained": 0, "stop_s": None, "crit": 0.0, "dev": 0.0, "slope": 0.0}
        lo = ramp
        for k in range(ramp + dur, len(series) + 1):
            met, crit, dev, slope = _check(ss, series[k - dur : k])
            result.update(crit=crit, dev=dev, slope=slope)
            lo = k - dur
            if met:
                result.update(attained=1, stop_s=k * step)
                break
        result["iops"] = [round(v) for v in iops[lo : lo + dur]]
        result["bw"] = [round(v) for v in bw[lo : lo + dur]]
        out[ji] = result
    return out


def steadystate_json(ss: dict, r: dict) -> dict:
    """fio's per-job ``steadystate`` object."""
    unit = "%" if ss["pct"] else ""
    iops, bw = r["iops"], r["bw"]
    return {
        "ss": f"{ss['kind']}:{ss['limit']:f}{unit}",
        "duration": ss["dur_s"],
        "attained": r["attained"],
        "criterion": f"{r['crit']:f}{unit}",
        "max_deviation": float(r["dev"]),
        "slope": float(r["slope"]),
        "data": {
            "bw_mean": int(sum(bw) / len(bw)) if bw else 0,
            "iops_mean": int(sum(iops) / len(iops)) if iops else 0,
            "iops": iops,
            "bw": bw,
        },
    }


def annotate(doc: dict, jf: JobFile, sim: Simulated) -> dict:
    """Put what the extra options found into fio's JSON document."""
    notes = sim.notes
    by_name: dict[str, list[dict]] = {}
    for j in doc["jobs"]:
        by_name.setdefault(j["jobname"], []).append(j)
    for ji, job in enumerate(jf.jobs):
        targets = by_name.get(job.name, [])
        for j in targets:
            if job.latency_target:
                lt = job.latency_target
                j["latency_depth"] = notes.get("latency_depth", {}).get(ji, j["latency_depth"])
                j["latency_target"] = lt["target_ns"]
                j["latency_percentile"] = lt["percentile"]
                j["latency_window"] = lt["window_ns"]
            r = notes.get("steadystate", {}).get(ji)
            if job.ss and r is not None:
                j["steadystate"] = steadystate_json(job.ss, r)
    doc["ssdlab"]["rate_min_not_met"] = notes.get("rate_min_not_met", [])
    doc["ssdlab"]["verify"] = jf.verify
    if jf.verify:
        doc["ssdlab"]["oracle"] = sim.data["device"].get("oracle", {})
    return doc


# ---- write_iolog ------------------------------------------------------------------

_KIND = ("read", "write", "trim")


def _write_iolog(job, ji: int, owned, owners: list[int], data: dict, cap: int, seed: int) -> None:
    from ssdlab import _core, outputs

    fname = (job.opts.get("filename") or job.name).split(":")[0]
    lines = ["fio version 2 iolog", f"{fname} add", f"{fname} open"]
    specs = [s for o, s in owned if o == ji]
    k = 0
    for index, o in enumerate(owners):
        if o != ji:
            continue
        spec = specs[min(k, len(specs) - 1)]
        k += 1
        count = sum(int(data["jobs"][index][d]["total_ios"]) for d in DIRS)
        one = dict(spec, numjobs=1)
        one.pop("group", None)
        for kind, off, length in _core.job_ios(json.dumps(one), cap, seed, index, count):
            lines.append(f"{fname} {_KIND[kind]} {off} {length}")
    lines.append(f"{fname} close")
    outputs.write_file(job.write_iolog, "\n".join(lines) + "\n", "write_iolog")
