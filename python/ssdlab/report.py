"""The result of one simulation: a thin wrapper around the core's JSON report.

Key names follow fio's JSON output where fio has the figure (``read``/``write`` →
``iops``, ``bw_bytes``, ``io_bytes``, ``total_ios``, ``lat_ns`` with ``percentile``
keyed ``"99.000000"``); simulator-only figures live under ``device``.
"""

from __future__ import annotations

import json
from typing import Any

from ssdlab.schema import latency_columns

DIRECTIONS = ("read", "write", "trim")
SUMMARY_PERCENTILES = ("50.000000", "99.000000", "99.990000")


def human_bytes(n: float) -> str:
    """1.5 GB, 24.0 MB, 512 B (decimal units, as drive capacities are quoted)."""
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n:.0f} B"


def oracles(data: dict[str, Any]) -> list[tuple[str | None, dict | None]]:
    """(drive name, FTL oracle result) of each drive of a run's report: one entry with no
    name for a single drive, one per drive of a system run; the result is None where the
    core did not run the oracle (a run without ``verify``)."""
    if "drives" in data and "system" in data:
        return [
            (d.get("name"), (d.get("device") or {}).get("oracle")) for d in data["drives"] or []
        ]
    return [(None, (data.get("device") or {}).get("oracle"))]


def oracle_total(data: dict[str, Any]) -> dict[str, int]:
    """The FTL oracle's reads checked and stale reads found, over every drive of a run."""
    found = [o for _, o in oracles(data) if o is not None]
    return {
        "checked": sum(o.get("checked", 0) for o in found),
        "mismatches": sum(o.get("mismatches", 0) for o in found),
    }


class Report:
    """One run's report. ``report["read"]["iops"]`` works like a dict."""

    def __init__(self, data: dict[str, Any]):
        self._data = data

    @classmethod
    def from_json(cls, text: str) -> Report:
        """A report from its JSON text; a document that is not an ssdlab report (a fio
        JSON document, a list, ...) raises ValueError saying what it is."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise ValueError(
                f"not JSON ({e.msg} at line {e.lineno}): not an ssdlab report"
            ) from None
        single = {"ssdlab_version", "device", "config"}
        system = {"ssdlab_version", "system", "drives"}  # a system file's run
        if not isinstance(data, dict) or not (single <= set(data) or system <= set(data)):
            what = "a JSON " + type(data).__name__
            if isinstance(data, dict) and "fio version" in data:
                what = "fio's JSON output (read it with ssdlab.fio.to_pandas)"
            raise ValueError(
                f"not an ssdlab report: {what} without the keys ssdlab_version, device and "
                "config (write one with `ssdlab run --json FILE` or Report.to_json())"
            )
        return cls(data)

    @property
    def is_system(self) -> bool:
        """A system run (hosts, targets, many drives: ``self["drives"]``)."""
        return "drives" in self._data and "system" in self._data

    # -- dict-like access -------------------------------------------------
    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __contains__(self, key: str) -> bool:
        return key in self._data

    def get(self, key: str, default: Any = None) -> Any:
        return self._data.get(key, default)

    def keys(self):
        return self._data.keys()

    def to_dict(self) -> dict[str, Any]:
        """The whole report as plain Python data (a deep copy)."""
        return json.loads(json.dumps(self._data))

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self._data, indent=indent)

    # -- convenience -------------------------------------------------------
    @property
    def read(self) -> dict[str, Any]:
        return self._data["read"]

    @property
    def write(self) -> dict[str, Any]:
        return self._data["write"]

    @property
    def iops(self) -> float:
        """Total IOPS over all directions."""
        return sum(self._data[d]["iops"] for d in DIRECTIONS if d in self._data)

    @property
    def bw_bytes(self) -> float:
        return sum(self._data[d]["bw_bytes"] for d in DIRECTIONS if d in self._data)

    @property
    def waf(self) -> float:
        """Write amplification over the whole run."""
        return self._data["device"]["ftl"]["waf"]

    @property
    def measured_waf(self) -> float:
        """Write amplification over the measured window (after ramp_time)."""
        return self._data["device"]["ftl"]["measured"]["waf"]

    @property
    def settle(self) -> dict | None:
        """A run under a settle rule (the workload's ``settle``): ``settled``, ``at_s``
        (where it stopped) and ``checks`` (each checkpoint's test); None without one."""
        return self._data.get("settle")

    @property
    def host_events(self) -> list[dict]:
        """The run's host events (resets, suspend-resume, HMB loss, power loss), one dict
        each: outage, first-I/O latency, IOPS before and the recovery curve; a power loss's
        ``power_loss`` dict adds lost writes and the map rebuild (docs/power-events.md)."""
        return list(self._data.get("host_events") or [])

    def latency_histogram(self, direction: str = "read") -> list[tuple[int, int]]:
        """Completion-latency histogram of a direction: ``[(latency_ns, count), ...]`` in
        increasing latency, the same bins as fio's json+ ``clat_ns.bins`` (fio's
        log-linear buckets, each value the bucket's representative latency)."""
        if direction not in DIRECTIONS:
            raise ValueError(f"direction: '{direction}' is not one of {', '.join(DIRECTIONS)}")
        bins = self._data.get(direction, {}).get("clat_ns", {}).get("bins", {})
        return sorted((int(k), int(v)) for k, v in bins.items())

    def timeline(self, direction: str = "read") -> list[dict[str, float]]:
        """One entry per 500 ms window of simulated time with I/O (after ramp_time):
        ``t_ms`` (end of the window), ``iops``, ``bw_kib_s``, ``lat_mean_us``; windows
        without I/O are left out (their IOPS is 0). From the report's fio-style logs."""
        if direction not in DIRECTIONS:
            raise ValueError(f"direction: '{direction}' is not one of {', '.join(DIRECTIONS)}")
        d = self._data.get(direction, {})
        iops, bw, lat = d.get("iops_log", []), d.get("bw_log", []), d.get("lat_log", [])
        return [
            {"t_ms": t, "iops": v, "bw_kib_s": b[1], "lat_mean_us": lt[1] / 1e3}
            for (t, v), b, lt in zip(iops, bw, lat)
        ]

    def rows(self) -> list[dict[str, Any]]:
        """One flat row per (job, direction) plus the totals (job = "all"), named by
        :mod:`ssdlab.schema` (latencies ``lat_p99_us``, ``clat_mean_us``, ...; the
        ``lat_*_ns`` names of earlier releases kept as deprecated aliases)."""
        out = []
        jobs = [("all", self._data)] + [(j["jobname"], j) for j in self._data.get("jobs", [])]
        for name, src in jobs:
            for d in DIRECTIONS:
                s = src.get(d)
                if not s or not s.get("total_ios"):
                    continue
                row = {
                    "job": name,
                    "direction": d,
                    "iops": s["iops"],
                    "bw_bytes": s["bw_bytes"],
                    "mb_per_s": s["bw_bytes"] / 1e6,
                    "io_bytes": s["io_bytes"],
                    "total_ios": s["total_ios"],
                    **latency_columns(s["lat_ns"], "lat"),
                    **latency_columns(s.get("clat_ns"), "clat"),
                }
                # deprecated aliases (ssdlab.schema): lat_*_ns, lat_p99.9_ns, ...
                old = latency_columns(s["lat_ns"], "lat", old="dot")
                row.update({k: v for k, v in old.items() if k.endswith("_ns")})
                out.append(row)
        return out

    def to_pandas(self):
        """A DataFrame with one row per (job, direction); needs pandas. The rows of job
        ``all`` are the totals over every job (fio's group_reporting), then each job's own
        rows follow under its name (``job0``, ... for unnamed jobs), so a one-job run has
        the same figures twice (docs/tables.md). Each row also
        carries the device's counters for the whole run (the same on every row): WAF
        (None when nothing was written), map hit rate, HMB granted (None without an
        HMB), GC units moved and victims, erases, SLC units folded."""
        try:
            import pandas as pd
        except ImportError as e:  # pragma: no cover - depends on the environment
            raise ImportError("Report.to_pandas() needs pandas: pip install pandas") from e
        from ssdlab.summary import device_counters

        dev = self._data.get("device", {})
        ftl, slc = dev.get("ftl", {}), dev.get("slc", {})
        counters = {
            "device": self._data.get("config", {}).get("name"),
            **device_counters(self._data),
            "gc_units_copied": ftl.get("gc_units_copied"),
            "gc_victims": ftl.get("gc_victims"),
            "erases": ftl.get("erases"),
            "slc_units_folded": slc.get("units_folded"),
        }
        return pd.DataFrame([{**r, **counters} for r in self.rows()])

    def _direction_lines(
        self, d: dict[str, Any], indent: str = "", detail: bool = False
    ) -> list[str]:
        """One line per direction with I/Os: IOPS, bandwidth, latency mean and
        percentiles (``detail``: also the I/O count, minimum and maximum)."""
        lines = []
        for direction in DIRECTIONS:
            s = d.get(direction)
            if not s or not s.get("total_ios"):
                continue
            lat = s["lat_ns"]
            pct = lat.get("percentile", {})
            pcts = "  ".join(
                f"p{float(k):g}={pct[k] / 1e3:.1f}us" for k in SUMMARY_PERCENTILES if k in pct
            )
            head = (
                f"{indent}{direction:>5}: IOPS={s['iops']:,.0f}"
                f"  BW={s['bw_bytes'] / 1e6:,.1f} MB/s"
            )
            if detail:
                lines.append(
                    f"{head}  ios={s['total_ios']:,}  lat mean={lat['mean'] / 1e3:.1f}us"
                    f" min={lat['min'] / 1e3:.1f}us max={lat['max'] / 1e3:.1f}us  {pcts}"
                )
            else:
                lines.append(f"{head}  lat mean={lat['mean'] / 1e3:.1f}us  {pcts}")
        return lines

    def _system_summary(self) -> str:
        """A system run: totals, then each host and target."""
        d = self._data
        drives = d.get("drives", [])
        fabric = (d.get("fabric") or {}).get("name")
        lines = [
            f"system {d.get('system') or '?'}: {len(drives)} drive(s), "
            f"{len(d.get('hosts', []))} host(s), {len(d.get('targets', []))} target(s)"
            f"  fabric {fabric or 'none (local drives)'}  seed {d.get('seed')}"
        ]
        lines.extend(self._direction_lines(d))
        for h in d.get("hosts", []):
            if not any((h.get(x) or {}).get("total_ios") for x in DIRECTIONS):
                continue
            cpu = (h.get("fabric") or {}).get("cpu_utilization", 0)
            lines.append(f"  host {h['name']} ({len(h['drives'])} drives, CPU {cpu:.0%}):")
            lines.extend(self._direction_lines(h, "    "))
        for t in d.get("targets", []):
            lines.append(
                f"  target {t['name']}: {t['commands']:,} commands, CPU {t['cpu_utilization']:.0%}"
            )
        sim = d.get("sim_time_ns", 0)
        lines.append(
            f"  simulated {sim / 1e6:,.3f} ms in {d.get('wall_time_s', 0):.2f} s wall"
            f" ({d.get('events', 0):,} events)"
        )
        if d.get("stalled"):
            lines.append(f"  STALLED: {d['stalled']}")
        return "\n".join(lines)

    def summary(self) -> str:
        """A short human-readable summary: IOPS, MB/s, latency percentiles, WAF."""
        d = self._data
        if self.is_system:
            return self._system_summary()
        dev = d.get("device", {})
        cfg = d.get("config", {})
        lines = [
            f"device {cfg.get('name', '?')}  capacity {human_bytes(dev.get('capacity_bytes', 0))}"
            f"  state {d.get('state')}  seed {d.get('seed')}",
        ]
        wl = d.get("workload", {})
        if wl.get("trace"):
            t = wl["trace"]
            lines.append(
                f"trace {t.get('path')}  mode={t.get('mode')}  iodepth={wl.get('iodepth')}"
                f"  lba={t.get('lba')}  speedup={t.get('speedup')}"
            )
        elif wl:
            lines.append(
                "workload rw={rw} bs={bs} iodepth={iodepth} numjobs={numjobs} queues={q}".format(
                    rw=wl.get("rw"),
                    bs=wl.get("bs"),
                    iodepth=wl.get("iodepth"),
                    numjobs=wl.get("numjobs"),
                    q=d.get("queues"),
                )
            )
        lines.extend(self._direction_lines(d, detail=True))
        from ssdlab import summary as explain

        lines.extend(explain.trace_lines(d))
        ftl = dev.get("ftl", {})
        if dev.get("zns"):
            lines.extend(explain.zns_lines(d))  # a zoned drive: no page map, no GC
        else:
            if ftl:
                lines.append(
                    f"  ftl: {explain.waf_text(d)}  free blocks={ftl.get('free_blocks', 0):,}"
                )
                lines.extend(explain.flash_lines(d))
            lines.extend(explain.memory_lines(d))
        lines.extend(explain.energy_lines(d))
        lines.extend(explain.host_event_lines(d))
        lines.extend(explain.settle_lines(d))
        hmb = dev.get("hmb", {})
        if hmb.get("status"):
            lines.append(f"  HMB {hmb['status']}: {hmb.get('note', '')}")
        rc = dev.get("read_cache", {})
        if rc.get("enabled"):
            lines.append(
                f"  read cache ({rc.get('tier')}, {human_bytes(rc.get('size_bytes', 0))}):"
                f" hit rate={rc.get('hit_rate', 0):.1%}  hits={rc.get('hits', 0):,}"
            )
            ra = rc.get("read_ahead")
            if ra:
                lines.append(
                    f"  read-ahead ({human_bytes(ra.get('window_bytes', 0))} a stream):"
                    f" {ra.get('units', 0):,} units in {ra.get('reads', 0):,} flash reads"
                    f" for {ra.get('sequential_reads', 0):,} sequential commands,"
                    f" {ra.get('joined', 0):,} units waited for theirs"
                )
        dies = dev.get("dies", {})
        chans = dev.get("channels", {})
        pcie = dev.get("pcie", {})
        if dies:
            lines.append(
                f"  util: dies mean={dies.get('mean_util', 0):.0%}"
                f"  channels mean={chans.get('mean_util', 0):.0%}"
                f"  pcie up={pcie.get('up_util', 0):.0%} down={pcie.get('down_util', 0):.0%}"
            )
        lines.append(
            f"  simulated {d.get('sim_time_ns', 0) / 1e6:,.3f} ms"
            f" in {d.get('wall_time_s', 0):.2f} s wall ({d.get('events', 0):,} events)"
        )
        lines.extend(f"  warning: {w}" for w in d.get("warnings") or [])
        return "\n".join(lines)

    def __repr__(self) -> str:
        return f"<ssdlab.Report iops={self.iops:,.0f} sim_time_ns={self._data.get('sim_time_ns')}>"
