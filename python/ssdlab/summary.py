"""The device counters every table shows (WAF, map hit rate, HMB granted:
``device_counters``) and lines that explain a run in its text summary: where the map
lived and how often it hit, the HMB the host granted, SLC folding, GC moves, and for
trace replays where the latency went (host queueing versus device time) and whether a
closed-loop replay compressed the trace's arrivals.

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


def map_hit_rate(d: dict[str, Any]) -> float | None:
    """The map's hit rate, None when nothing looked the map up (no reads: a rate over
    zero lookups means nothing, whether the core reports it as 0 or as 100 %)."""
    m = d.get("device", {}).get("map", {})
    if not m or m.get("hit_rate") is None:
        return None
    lookups = m.get("lookups")
    if lookups is None:  # a resident map counts no lookups: the reads looked it up
        lookups = (d.get("read") or {}).get("total_ios", 0)
    return m["hit_rate"] if lookups else None


def buffered_units(d: dict[str, Any]) -> int:
    """Units the host wrote that were still in the write buffer (not programmed) when the
    run ended: what makes a short run's WAF fall below 1."""
    ftl = d.get("device", {}).get("ftl", {})
    host = ftl.get("host_units_written", 0)
    programmed = ftl.get("units_programmed", 0) - ftl.get("gc_units_copied", 0)
    return max(0, host - programmed)


def waf_note(d: dict[str, Any]) -> str:
    """Why a WAF is below 1 ("" when it is not)."""
    ftl = d.get("device", {}).get("ftl", {})
    n = buffered_units(d)
    if not ftl.get("host_units_written") or ftl.get("waf", 1) >= 1 or not n:
        return ""
    waf = float(ftl.get("waf", 0))
    digits = 2  # as many as it takes not to print a WAF below 1 as "1.00"
    while round(waf, digits) >= 1 and digits < 9:
        digits += 1
    return (
        f"WAF {waf:.{digits}f} is below 1: {n:,} host units were still in the write "
        "buffer when the run ended (not yet programmed); a longer run or end_fsync counts them"
    )


def device_counters(report: Any) -> dict[str, Any]:
    """WAF (None when nothing was written), map hit rate, HMB granted (None without HMB)."""
    data = report.to_dict() if hasattr(report, "to_dict") else report
    dev = data.get("device", {})
    ftl = dev.get("ftl", {})
    hmb = dev.get("hmb", {})
    written = ftl.get("host_units_written", 0)
    return {
        "waf": ftl.get("waf") if written else None,
        "map_hit_rate": map_hit_rate(data),
        "hmb_granted_bytes": hmb.get("granted_bytes") if hmb.get("hmpre_bytes") else None,
    }


def memory_lines(d: dict[str, Any]) -> list[str]:
    dev = d.get("device", {})
    m = dev.get("map", {})
    parts = []
    if m:
        hit = map_hit_rate(d)
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
        rate = f"{hit:.1%}" if hit is not None else "n/a (no lookups)"
        parts.append(f"map ({where}): hit rate={rate}")
    hmb = dev.get("hmb", {})
    if hmb.get("hmpre_bytes"):
        parts.append(
            f"HMB granted={_mib(hmb.get('granted_bytes', 0))} of {_mib(hmb['hmpre_bytes'])}"
            f" preferred ({hmb.get('policy')})"
        )
    else:
        parts.append("no HMB")
    return ["  memory: " + "  ".join(parts)] if parts else []


ZNS_STATUS = {
    "0x02": "Invalid Field",
    "0x80": "LBA Out of Range",
    "0xb8": "Zone Boundary Error",
    "0xb9": "Zone Is Full",
    "0xba": "Zone Is Read Only",
    "0xbb": "Zone Is Offline",
    "0xbc": "Zone Invalid Write",
    "0xbd": "Too Many Active Zones",
    "0xbe": "Too Many Open Zones",
    "0xbf": "Invalid Zone State Transition",
}


def zns_lines(d: dict[str, Any]) -> list[str]:
    """A zoned drive's lines (``device.zns``): zones by state, what was written, reset
    and finished, the zoned errors by NVMe status, and the per-zone map's memory."""
    z = d.get("device", {}).get("zns")
    if not z:
        return []
    states = "  ".join(f"{k}={v:,}" for k, v in z.get("zones_by_state", {}).items())
    errors = z.get("errors") or {}
    err = (
        "  ".join(f"{k} {ZNS_STATUS.get(k, '')}={v:,}" for k, v in errors.items())
        if errors
        else "none"
    )
    return [
        f"  zns: {z.get('zones', 0):,} zones of {_mib(z.get('zone_size_bytes', 0))} "
        f"(capacity {_mib(z.get('zone_capacity_bytes', 0))}, over "
        f"{z.get('zone_width_dies', 0)} dies)  {states}",
        f"  zns: host wrote {_mib(z.get('host_bytes_written', 0))}  resets={z.get('resets', 0):,} "
        f"({_mib(z.get('reset_bytes', 0))})  finishes={z.get('finishes', 0):,}  "
        f"programs={z.get('programs', 0):,} ({z.get('pad_programs', 0):,} padded)  "
        f"erases={z.get('erases', 0):,}"
        + (f"  appends={z['appends']:,}" if z.get("appends") else "")
        + (
            f"  opens={z.get('opens', 0):,}  closes={z.get('closes', 0):,}"
            if z.get("opens") or z.get("closes")
            else ""
        ),
        f"  zns errors: {err}",
        *_zrwa_lines(z.get("zrwa")),
        f"  memory: per-zone map {z.get('map_bytes', 0):,} B (a page map of this namespace: "
        f"{_mib(z.get('page_map_bytes', 0))})",
    ]


def _zrwa_lines(zr: dict[str, Any] | None) -> list[str]:
    """The zoned drive's Zone Random Write Areas (``device.zns.zrwa``), if it has them."""
    if not zr:
        return []
    return [
        f"  zrwa: {_mib(zr.get('zrwa_bytes', 0))} a zone (flushed by "
        f"{zr.get('flush_granularity_bytes', 0) // 1024:,} KiB), {zr.get('zones', 0):,} held  "
        f"commits: implicit={zr.get('implicit_flushes', 0):,}  "
        f"explicit={zr.get('explicit_flushes', 0):,}  "
        f"rewritten in the buffer {_mib(zr.get('rewritten_bytes', 0))}"
    ]


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
    if waf_note(d):
        text += f" ({buffered_units(d):,} units still buffered at the end)"
    measured = ftl.get("measured", {})
    if measured.get("from_ns"):
        w = measured.get("waf") if measured.get("host_units_written") else None
        text += f" (after ramp {w:.2f})" if w is not None else " (after ramp n/a)"
    return text


def table_notes(label: str, d: dict[str, Any]) -> list[str]:
    """What a device's row in a comparison table cannot say: a WAF below 1 explained, a
    closed-loop replay's compression warning, a timed replay's latency split into host
    queueing and device time (the table's latency is their sum)."""
    out = [f"{label}: {waf_note(d)}"] if waf_note(d) else []
    for line in trace_lines(d):
        out.append(f"{label}: {line.strip()}")
    return out


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
            # The report keeps the queueing time's mean and extremes, not its percentiles
            # (a p99 read from a map that is not there printed 0.0 beside a 13 ms mean).
            pct = s["slat_ns"].get("percentile", {}).get("99.000000")
            tail = (
                f"queueing p99 {pct / 1e3:,.1f} us"
                if pct is not None
                else f"queueing max {s['slat_ns'].get('max', 0) / 1e3:,.1f} us"
            )
            out.append(
                f"  {name} latency: host queueing {q / 1e3:,.1f} us + device {dev / 1e3:,.1f} us"
                f" (means; {tail})"
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


def settle_lines(d: dict[str, Any]) -> list[str]:
    """Where a run under a settle rule (the workload's ``settle``) stopped, and its last
    check: the figure, the change between the halves, the resolution."""
    s = d.get("settle")
    if not s:
        return []
    checks = s.get("checks") or []
    if not checks:
        return ["  settle: no checkpoint reached (the jobs ended first)"]
    c = checks[-1]

    def pct(v: Any) -> str:
        return "n/a" if v is None else f"{v * 100:+.1f} %"

    how = f"settled at {s['at_s']:g} s" if s["settled"] else f"not settled by {s['at_s']:g} s"
    hc = c.get("hold_change")
    hold = "" if hc is None else f", vs the run half as long {pct(hc)}"
    fig = "n/a" if c.get("figure_iops") is None else f"{c['figure_iops']:,.0f}"
    res = c.get("resolution")
    res_text = "n/a" if res is None else f"{res * 100:.1f} %"
    n = f"{len(checks)} check{'s' if len(checks) > 1 else ''}"
    return [
        f"  settle: {how} ({n}): {fig} IOPS over the last {c['windows']} "
        f"windows, halves differ {pct(c.get('change'))}, resolution {res_text}{hold}"
    ]


def host_event_lines(d: dict[str, Any]) -> list[str]:
    """One line per host event (reset, suspend-resume, HMB disable/enable): its outage,
    the first I/O after it, the IOPS before and at the start of the recovery curve and
    how long recovery to 90 % took; what the map cache lost."""
    out = []
    for e in d.get("host_events") or []:
        mr = "" if e["kind"] in ("hmb-disable", "power-loss") else (
            " (memory return)" if e["memory_return"] else " (no memory return)")
        rec = e.get("recovery_ns")
        rec_text = f"{rec / 1e6:,.1f} ms" if rec is not None else "not within the curve"
        curve = e.get("recovery_iops") or [0]
        out.append(
            f"  event {e['kind']}{mr} at {e['at_ns'] / 1e9:g} s: outage "
            f"{e['outage_ns'] / 1e6:,.1f} ms, first I/O {e['first_io_latency_ns'] / 1e6:,.2f} ms; "
            f"IOPS {e['iops_before']:,.0f} before, {curve[0]:,.0f} in the first "
            f"{e['window_ns'] / 1e6:g} ms after; 90 % again after {rec_text}; map segments "
            f"dropped {e['map_segments_dropped']:,}, reloaded {e['map_loads_after']:,}"
        )
        p = e.get("power_loss")
        if p:
            plp = (f"PLP: buffer dumped in {(p.get('dump_ns') or 0) / 1e6:,.2f} ms"
                   f"{' (beyond the hold-up time)' if p['hold_up_exceeded'] else ''}"
                   if p["plp"] else "no PLP")
            out.append(
                f"    power loss ({plp}): lost {p['lost_units']:,} acknowledged units "
                f"({p['lost_bytes']:,} B); rebuild {p['rebuild_ns'] / 1e6:,.2f} ms = checkpoint "
                f"{p['checkpoint_pages']:,} pages {p['checkpoint_ns'] / 1e6:,.2f} ms + log "
                f"{p['log_pages']:,} pages {p['log_ns'] / 1e6:,.2f} ms + scan of "
                f"{p['open_blocks']:,} open blocks {p['scan_pages']:,} pages "
                f"{p['scan_ns'] / 1e6:,.2f} ms"
            )
    return out


def energy_lines(d: dict[str, Any]) -> list[str]:
    """The energy block in two lines: joules, watts, J per I/O and per GB, the biggest
    components; time in non-operational power states and the wake-ups they cost."""
    e = d.get("energy")
    if not e:
        return []
    comps = sorted(e.get("components", {}).items(), key=lambda kv: -kv[1])
    total = e.get("total_j", 0) or 1.0
    top = ", ".join(f"{k[:-2]} {v / total:.0%}" for k, v in comps[:4] if v > 0)
    out = [
        f"  energy: {e['drive_j']:,.4g} J drive"
        + (f" + {e['components']['host_hmb_j']:,.3g} J host DRAM (HMB)"
           if e["components"].get("host_hmb_j") else "")
        + f"  avg {e['avg_w']:.3g} W  peak {e['peak_w']:.3g} W  idle {e['idle_w']:.3g} W"
        + f"  {e['j_per_io'] * 1e6:,.1f} uJ/IO  {e['j_per_gb']:,.3g} J/GB  ({top})"
    ]
    sim = d.get("sim_time_ns", 0) or 1
    deep = {k: v for k, v in e.get("power_state_ns", {}).items() if v}
    states = "  ".join(f"{k} {v / sim:.1%}" for k, v in deep.items())
    line = f"  power states: {states}"
    if e.get("wakeups"):
        line += (
            f"  wake-ups {e['wakeups']:,} (mean {e['mean_wake_ns'] / 1e3:,.1f} us,"
            f" max {e['max_wake_ns'] / 1e3:,.1f} us)"
        )
    if e.get("limit_w") is not None:
        line += f"  power limit {e['limit_w']:.3g} W ({e.get('max_active_dies')} dies at once)"
    out.append(line)
    return out
