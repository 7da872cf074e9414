"""Lines that explain a run in its text summary: where the map lived and how often it
hit, the HMB the host granted, SLC folding, GC moves, and for trace replays where the
latency went (host queueing versus device time) and whether a closed-loop replay
compressed the trace's arrivals.

Simplifications: "host queueing" is fio's slat (from the request's arrival at the host
to the device's fetch of the command: time in the host and in the submission queue),
"device time" is clat (fetch to completion, PCIe transfers included). A compression
warning is given when the replay took less than a hundredth of the trace's own span.
"""

from __future__ import annotations

from typing import Any

DIRECTIONS = ("read", "write", "trim")
COMPRESSION_WARN = 100.0


def _dur(ns: float) -> str:
    s = ns / 1e9
    if s >= 3600:
        return f"{s / 3600:.1f} h"
    if s >= 60:
        return f"{s / 60:.1f} min"
    if s >= 1:
        return f"{s:.1f} s"
    return f"{ns / 1e6:.1f} ms"


def _mib(b: float) -> str:
    return f"{b / (1 << 20):,.4g} MiB"


def memory_lines(d: dict[str, Any]) -> list[str]:
    dev = d.get("device", {})
    m = dev.get("map", {})
    parts = []
    if m:
        hit = m.get("hit_rate")
        place = m.get("placement") or {}
        if isinstance(place, dict):
            tier = place.get("tier", "?")
            where = (
                f"whole map in {tier}"
                if place.get("whole")
                else f"{_mib(place.get('cache_bytes', 0))} cache in {tier} of a "
                f"{_mib(place.get('map_bytes', 0))} map"
            )
        else:
            where = str(place)
        parts.append(f"map ({where}): hit rate={hit:.1%}" if hit is not None else f"map ({where})")
    hmb = dev.get("hmb", {})
    if hmb.get("hmpre_bytes"):
        parts.append(
            f"HMB granted={_mib(hmb.get('granted_bytes', 0))} of {_mib(hmb['hmpre_bytes'])}"
            f" preferred ({hmb.get('policy')})"
        )
    else:
        parts.append("no HMB")
    return ["  memory: " + "  ".join(parts)] if parts else []


def flash_lines(d: dict[str, Any]) -> list[str]:
    dev = d.get("device", {})
    ftl, slc = dev.get("ftl", {}), dev.get("slc", {})
    out = [
        f"  gc: moved {ftl.get('gc_units_copied', 0):,} units from "
        f"{ftl.get('gc_victims', 0):,} victim blocks, {ftl.get('erases', 0):,} erases"
    ]
    if slc.get("enabled"):
        out.append(
            f"  slc: {slc.get('host_units_to_slc', 0):,} host units to SLC, "
            f"{slc.get('host_units_to_native', 0):,} direct; folded "
            f"{slc.get('units_folded', 0):,} units in {slc.get('folds', 0):,} folds"
        )
    return out


def waf_text(d: dict[str, Any]) -> str:
    """``WAF=1.23`` (``(after ramp …)`` when measured separately), ``WAF=n/a`` when the
    host wrote nothing (a ratio over zero writes means nothing)."""
    ftl = d.get("device", {}).get("ftl", {})
    if not ftl.get("host_units_written"):
        return "WAF=n/a (nothing written)"
    text = f"WAF={ftl.get('waf', 0):.2f}"
    measured = ftl.get("measured", {})
    if measured.get("from_ns"):
        w = measured.get("waf") if measured.get("host_units_written") else None
        text += f" (after ramp {w:.2f})" if w is not None else " (after ramp n/a)"
    return text


def trace_lines(d: dict[str, Any]) -> list[str]:
    """Latency split for a timed replay; a compression warning for a closed one."""
    t = d.get("workload", {}).get("trace")
    if not t:
        return []
    out = []
    if t.get("mode") == "timed":
        for name in DIRECTIONS:
            s = d.get(name)
            if not s or not s.get("total_ios"):
                continue
            q, dev = s["slat_ns"]["mean"], s["clat_ns"]["mean"]
            out.append(
                f"  {name} latency: host queueing {q / 1e3:,.1f} us + device {dev / 1e3:,.1f} us"
                f" (means; queueing p99 "
                f"{s['slat_ns'].get('percentile', {}).get('99.000000', 0) / 1e3:,.1f} us)"
            )
    else:
        span = max(
            (j.get("trace", {}).get("stats", {}) or {}).get("duration_ns", 0)
            for j in d.get("jobs", [])
        )
        sim = d.get("sim_time_ns", 0)
        if span and sim and span / sim >= COMPRESSION_WARN:
            out.append(
                f"  warning: the closed-loop replay compressed {_dur(span)} of arrivals into "
                f"{_dur(sim)} (x{span / sim:,.0f}): the trace's idle time, and the background "
                "GC and SLC folding it allows, is gone; --mode timed keeps it"
            )
    return out
