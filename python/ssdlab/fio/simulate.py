"""Running a resolved job file: the options that need more than one simulated run or
work on a run's results.

- ``latency_target``: the job's queue depth is searched (powers of two up to ``iodepth``,
  then bisection) for the highest depth whose completion-latency percentile
  (``latency_percentile``, default 100) stays at or below the target, each depth run for
  ``latency_window`` (or the job's own bound); the job then runs at that depth, reported
  as fio's ``latency_depth`` (for one window: fio ends the job after the search, unless
  ``latency_run=1``).
- ``flow``: jobs of one phase sharing a ``flow_id`` are kept in the ratio of their
  weights: a first run measures each job's I/O rate; the jobs are then paced
  (``rate_iops``) at weight times the slowest job's rate per weight, and run again.
- ``ss`` (steady-state detection): from the job's (or, with ``group_reporting``, its
  phase's) I/O rate in 1 s samples after ``ss_ramp``, the first second at which the
  last ``ss_dur`` seconds meet the criterion; the job is then run again stopping there,
  as fio stops it, and fio's ``steadystate`` JSON object is filled in.
- ``rate_min`` / ``rate_iops_min``: as fio checks them, from 2 s after the job starts,
  over each ``ratecycle``; the first cycle below the minimum ends the job there (run again
  stopping there), with fio's message and error 5.
- ``exitall``: when the first job ends, the others end then (run again stopping there) and
  later phases never start (reported with no I/O).
- ``write_lat_log``, ``write_bw_log``, ``write_iops_log``, ``write_hist_log``: fio's
  log files from every measured I/O's completion (``fio/logs.py``).
- ``write_iolog``: the commands each clone issued, with their simulated issue times, as
  a fio iolog version 3 (microseconds since the job started; flushes as ``sync``).

Every run is deterministic (same seed, same I/O), so a rerun repeats the first run up to
the point where it now stops.
"""

from __future__ import annotations

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
    owned = finish_owned(jf, cap, lambda m: warn(f"warning: {m}"))
    verify = jf.verify
    notes: dict[str, Any] = {}
    # -- latency_target: search each such job's queue depth --------------------------
    for ji, job in enumerate(jf.jobs):
        if job.latency_target:
            depth = _latency_search(owned, ji, job, run, verify)
            lt = job.latency_target
            for k, (o, s) in enumerate(owned):
                if o == ji:
                    s = dict(s, iodepth=depth)
                    if not job.latency_run and lt["window_ns"]:
                        # fio ends the job once the depth is found: its last window.
                        s = _cut(s, lt["window_ns"] + _ns(s.get("ramp_time", "0ns")))
                    owned[k] = (o, s)
            notes.setdefault("latency_depth", {})[ji] = depth
    # -- flow: pace the jobs of a flow group in the ratio of their weights ----------------
    if any(j.flow for j in jf.jobs):
        data = run([s for _, s in owned], verify)
        _apply_flow(jf, owned, data)
    # -- the run (again, while steady state, rate_min or exitall cut a job short) -----
    cut: set[int] = set()
    failed: dict[int, str] = {}  # job -> fio's message (rate_min not met: error 5)
    skipped: set[int] = set()  # exitall: jobs of later phases, never started
    while True:
        run_owned = [(o, sp) for o, sp in owned if o not in skipped]
        data = run([sp for _, sp in run_owned], verify)
        owners = _owners(run_owned)
        ss = _steady_states(jf, owners, data)
        stops: dict[int, tuple[int, str | None]] = {}  # job -> (stop ns since start, why)
        for ji, r in ss.items():
            if r["attained"] and ji not in cut and r["stop_s"] is not None:
                ramp = _ns(owned_spec(owned, ji).get("ramp_time", "0ns"))
                stops[ji] = (ramp + r["stop_s"] * 1_000_000_000, None)
        for ji, (at, why) in _rate_min_stops(jf, owned, owners, data).items():
            if ji not in cut and (ji not in stops or at < stops[ji][0]):
                stops[ji] = (at, why)
        if not stops and jf.exitall and not skipped and "exitall" not in notes:
            notes["exitall"] = True
            stops, skipped = _exitall(jf, owned, owners, data)
            if skipped and not stops:
                continue
        if not stops:
            break
        # Cut the earliest phase first: later phases depend on the drive it leaves.
        first = min(jf.jobs[ji].spec["group"] for ji in stops)
        for ji, (at, why) in stops.items():
            if jf.jobs[ji].spec["group"] != first:
                continue
            cut.add(ji)
            if why:
                failed[ji] = why
            for k, (o, sp) in enumerate(owned):
                if o == ji:
                    owned[k] = (o, _cut(sp, at))
    notes["steadystate"] = ss
    # -- rate_min ---------------------------------------------------------------------
    for why in failed.values():
        warn(why)
    notes["rate_min_failed"] = failed
    notes["rate_min_not_met"] = sorted({jf.jobs[ji].name for ji in failed})
    notes["skipped"] = skipped
    if skipped:
        data = _with_skipped(data, owned, skipped)
        owners = _owners(owned)
    # -- write_iolog ------------------------------------------------------------------
    for ji, job in enumerate(jf.jobs):
        if job.write_iolog:
            _write_iolog(job, ji, owners, data)
    if any(job.logs for job in jf.jobs):
        from ssdlab.fio.logs import write_logs

        notes["logs_written"] = write_logs(jf, owners, data)
    for r in data["jobs"]:
        r.pop("iolog", None)
        r.pop("completions", None)
    return Simulated(data, owners, notes)


def _cut(spec: dict, stop_ns: int) -> dict:
    """The job stopped `stop_ns` after it starts (a runtime bound; never longer)."""
    if "runtime" in spec:
        stop_ns = min(stop_ns, _ns(spec["runtime"]))
    return dict(spec, runtime=f"{max(1, stop_ns)}ns")


def _rate_min_stops(jf: JobFile, owned, owners: list[int], data: dict) -> dict:
    """fio's check of rate_min / rate_iops_min: from 2 s after a job starts, its rate in
    each direction with I/O, over each `ratecycle` (from the report's 500 ms windows);
    the first cycle below the minimum ends the job (every clone) there with error 5.
    Returns job -> (stop ns since the job started, fio's message)."""
    out: dict[int, tuple[int, str]] = {}
    for k, ji in enumerate(owners):
        job = jf.jobs[ji]
        if not (job.rate_min or job.rate_iops_min):
            continue
        ramp_ms = _ns(owned_spec(owned, ji).get("ramp_time", "0ns")) // 1_000_000
        r = data["jobs"][k]
        for d in DIRS:
            lo_b, lo_i = job.rate_min.get(d, 0), job.rate_iops_min.get(d, 0)
            x = r[d]
            if not (lo_b or lo_i) or not x["total_ios"]:
                continue
            step = max(1, int(x.get("log_avg_msec", 500)))
            cum_b = cum_i = 0.0
            mark = None  # (ms since start, bytes, ios) of the last check
            for (t, bw), (_, iops) in zip(x.get("bw_log", []), x.get("iops_log", [])):
                if t % step:
                    break  # a last, partial window
                cum_b += bw * 1024 * step / 1000
                cum_i += iops * step / 1000
                at = ramp_ms + t
                if at < 2000:
                    continue
                if mark is None:
                    mark = (at, cum_b, cum_i)
                    continue
                spent = at - mark[0]
                if spent < job.ratecycle_ms:
                    continue
                rate_b = (cum_b - mark[1]) * 1000 / spent
                rate_i = (cum_i - mark[2]) * 1000 / spent
                why = None
                if lo_b and rate_b < lo_b:
                    why = f"{r['jobname']}: rate_min={lo_b}B/s not met, got {rate_b:.0f}B/s"
                elif lo_i and rate_i < lo_i:
                    why = f"{r['jobname']}: rate_iops_min={lo_i} not met, got {rate_i:.0f} IOPS"
                if why:
                    stop = at * 1_000_000
                    if ji not in out or stop < out[ji][0]:
                        out[ji] = (stop, why)
                    break
                mark = (at, cum_b, cum_i)
    return out


def _exitall(jf: JobFile, owned, owners: list[int], data: dict):
    """fio's exitall: when the first job ends, every other job ends; the jobs of later
    phases never start. Returns (job -> (stop ns since its start, None), skipped jobs)."""
    first = min(jf.jobs[ji].spec["group"] for ji in owners)
    ends: dict[int, int] = {}
    for k, ji in enumerate(owners):
        if jf.jobs[ji].spec["group"] != first:
            continue
        sp = owned_spec(owned, ji)
        start = _ns(sp.get("startdelay", "0ns"))
        ramp = _ns(sp.get("ramp_time", "0ns"))
        end = start + ramp + int(data["jobs"][k]["job_runtime"]) * 10**6
        ends[ji] = min(ends.get(ji, end), end)
    t = min(ends.values())
    stops: dict[int, tuple[int, str | None]] = {}
    for ji, end in ends.items():
        if end > t:
            start = _ns(owned_spec(owned, ji).get("startdelay", "0ns"))
            stops[ji] = (max(1, t - start), None)
    skipped = {ji for ji in set(owners) if jf.jobs[ji].spec["group"] != first}
    return stops, skipped


def _zero(x: Any) -> Any:
    if isinstance(x, dict):
        return {k: _zero(v) for k, v in x.items()}
    if isinstance(x, list):
        return []
    if isinstance(x, bool) or isinstance(x, str) or x is None:
        return x
    return type(x)(0)


def _with_skipped(data: dict, owned, skipped: set[int]) -> dict:
    """The report with the jobs exitall never started, each with no I/O, in place."""
    ran = iter(data["jobs"])
    template = data["jobs"][0]
    jobs = []
    for o, sp in owned:
        for _ in range(int(sp.get("numjobs", 1))):
            if o in skipped:
                jobs.append(dict(_zero(template), jobname=sp["name"], groupid=sp["group"]))
            else:
                jobs.append(next(ran))
    groups = {g["groupid"]: g for g in data["groups"]}
    for _, sp in owned:
        if sp["group"] not in groups:
            groups[sp["group"]] = dict(_zero(data["groups"][0]), groupid=sp["group"])
    return dict(data, jobs=jobs, groups=[groups[g] for g in sorted(groups)])


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
    for ji in notes.get("rate_min_failed", {}):
        for j in by_name.get(jf.jobs[ji].name, []):
            j["error"] = 5  # EIO, as fio ends a job below its rate_min
    doc["ssdlab"]["rate_min_not_met"] = notes.get("rate_min_not_met", [])
    skipped = notes.get("skipped", ())
    doc["ssdlab"]["exitall_not_started"] = sorted({jf.jobs[ji].name for ji in skipped})
    doc["ssdlab"]["verify"] = jf.verify
    resets: dict[str, int] = {}
    for j in sim.data.get("jobs", []):
        if "zone_resets" in j:  # zonemode=zbd jobs: fio's "N zone resets"
            resets[j["jobname"]] = resets.get(j["jobname"], 0) + j["zone_resets"]
    if resets:
        doc["ssdlab"]["zone_resets"] = resets
    if jf.verify:
        from ssdlab.report import oracle_total

        doc["ssdlab"]["oracle"] = oracle_total(sim.data)
    return doc


# ---- write_iolog ------------------------------------------------------------------

_KIND = ("read", "write", "trim", "sync")


def _write_iolog(job, ji: int, owners: list[int], data: dict) -> None:
    """fio's iolog version 3 (as fio 3.33 writes it): `TIME FILE ACTION [OFFSET LENGTH]`,
    TIME in microseconds since the log started; the clones' commands merged in time
    order; a flush is `sync 0 0`."""
    from ssdlab import outputs

    fname = (job.opts.get("filename") or job.name).split(":")[0]
    rows = []
    for index, o in enumerate(owners):
        if o == ji:
            rows.extend(data["jobs"][index].get("iolog", []))
    rows.sort(key=lambda r: r[0])
    end = rows[-1][0] // 1000 if rows else 0
    lines = ["fio version 3 iolog", f"0 {fname} add", f"0 {fname} open"]
    lines += [f"{t // 1000} {fname} {_KIND[k]} {off} {length}" for t, k, off, length in rows]
    lines.append(f"{end} {fname} close")
    outputs.write_file(job.write_iolog, "\n".join(lines) + "\n", "write_iolog")
