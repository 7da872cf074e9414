"""Several devices, one workload: ``ssdlab.compare()`` and the ``--device A,B,C`` table.

Every device runs the same workload from the same drive state and seed, one after the
other (or in threads from Python); the result is one row per (device, direction) with
IOPS, MB/s (decimal megabytes), completion latency mean/p50/p99/p99.99 in µs, WAF, the
map cache's hit rate and the HMB the host granted; :func:`table_text` adds a note per
device for what a cell cannot say. Simplifications: the latencies are
fio's ``lat_ns`` (submission to completion) of the whole run after ``ramp_time``; WAF is
``None`` (shown n/a) when the host wrote nothing, the map hit rate ``None`` (shown -)
when nothing looked the map up; a device without an HMB has ``None``
as its grant, never 0 B of a buffer it cannot use.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ssdlab.report import DIRECTIONS, Report
from ssdlab.summary import device_counters

# Row keys, in table order (units in the names).
COLUMNS = (
    "device",
    "direction",
    "iops",
    "mb_per_s",
    "lat_mean_us",
    "lat_p50_us",
    "lat_p99_us",
    "lat_p99_99_us",
    "waf",
    "map_hit_rate",
    "hmb_granted_bytes",
)
# With the energy model on (``energy=True``, ``--energy``): the drive's mean and peak
# power, its idle power, energy per I/O and per GB moved, and the host DRAM energy of
# HMB traffic (the host's side of an HMB drive's saving).
ENERGY_COLUMNS = ("avg_w", "peak_w", "idle_w", "uj_per_io", "j_per_gb", "host_hmb_j")
_PCT = {"lat_p50_us": "50.000000", "lat_p99_us": "99.000000", "lat_p99_99_us": "99.990000"}
# Deprecated aliases compare() still returns for a release (ssdlab.schema).
ALIASES = {"lat_p99.99_us": "lat_p99_99_us"}


def split_devices(text: str) -> list[str]:
    """``"a,b , c"`` -> ``["a", "b", "c"]`` (empty entries are a usage error upstream)."""
    return [d.strip() for d in str(text).split(",")]


def device_label(device: Any) -> str:
    """A short name for a device: the preset name, a file's stem or a dict's name."""
    if isinstance(device, Mapping):
        return str(device.get("name", "device"))
    p = Path(str(device))
    return p.stem if p.suffix.lower() in (".toml", ".json") else str(device)


def rows(reports: Mapping[str, Report | Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per (device, direction with I/O) from ``{label: report}``."""
    out = []
    for label, rep in reports.items():
        data = rep.to_dict() if isinstance(rep, Report) else rep
        counters = device_counters(data)
        for d in DIRECTIONS:
            s = data.get(d)
            if not s or not s.get("total_ios"):
                continue
            lat = s["lat_ns"]
            pct = lat.get("percentile", {})
            row = {
                "device": label,
                "direction": d,
                "iops": s["iops"],
                "mb_per_s": s["bw_bytes"] / 1e6,
                "lat_mean_us": lat["mean"] / 1e3,
            }
            for key, p in _PCT.items():
                row[key] = pct[p] / 1e3 if p in pct else None
            row.update(counters)
            e = data.get("energy")
            if e:
                row.update(
                    avg_w=e["avg_w"],
                    peak_w=e["peak_w"],
                    idle_w=e["idle_w"],
                    uj_per_io=e["j_per_io"] * 1e6,
                    j_per_gb=e["j_per_gb"],
                    host_hmb_j=e["components"].get("host_hmb_j", 0.0),
                )
            out.append(row)
    return out


def _cell(key: str, v: Any) -> str:
    if v is None:
        return "n/a" if key == "waf" else "-"
    if key in ("device", "direction"):
        return str(v)
    if key == "iops":
        return f"{v:,.0f}"
    if key == "waf":
        return f"{v:.2f}"
    if key == "map_hit_rate":
        return f"{v:.1%}"
    if key == "hmb_granted_bytes":
        return f"{v / (1 << 20):g} MiB"
    if key in ENERGY_COLUMNS:
        return f"{v:,.3g}"
    return f"{v:,.1f}"


HEADERS = {
    "device": "device",
    "direction": "dir",
    "iops": "IOPS",
    "mb_per_s": "MB/s",
    "lat_mean_us": "mean µs",
    "lat_p50_us": "p50 µs",
    "lat_p99_us": "p99 µs",
    "lat_p99_99_us": "p99.99 µs",
    "waf": "WAF",
    "map_hit_rate": "map hit",
    "hmb_granted_bytes": "HMB granted",
    "avg_w": "avg W",
    "peak_w": "peak W",
    "idle_w": "idle W",
    "uj_per_io": "µJ/IO",
    "j_per_gb": "J/GB",
    "host_hmb_j": "host HMB J",
}


def columns_of(table: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """:data:`COLUMNS`, and :data:`ENERGY_COLUMNS` when a row has them."""
    if any("avg_w" in r for r in table):
        return (*COLUMNS, *ENERGY_COLUMNS)
    return COLUMNS


def format_table(table: Sequence[Mapping[str, Any]]) -> str:
    """The rows as an aligned text table (text left, numbers right)."""
    cols = columns_of(table)
    cells = [[HEADERS[k] for k in cols]] + [[_cell(k, r.get(k)) for k in cols] for r in table]
    widths = [max(len(row[i]) for row in cells) for i in range(len(cols))]
    lines = []
    for row in cells:
        parts = [
            c.ljust(w) if k in ("device", "direction") else c.rjust(w)
            for k, c, w in zip(cols, row, widths)
        ]
        lines.append("  ".join(parts).rstrip())
    return "\n".join(lines)


def table_text(reports: Mapping[str, Report | Mapping[str, Any]]) -> str:
    """The ``--device A,B,C`` table of ``{label: report}``, then a note per device for
    what a cell cannot say (a WAF below 1 and why, a closed-loop replay's compression
    warning)."""
    from ssdlab.summary import table_notes

    notes = []
    for label, rep in reports.items():
        data = rep.to_dict() if isinstance(rep, Report) else rep
        notes.extend(table_notes(label, data))
    text = format_table(rows(reports))
    return text + "".join(f"\n{n}" for n in notes)


def run_each(devices: Iterable[Any], workload: Any = None, **run_kwargs: Any) -> dict[str, Report]:
    """Run ``workload`` on every device (threads; the core releases the GIL)."""
    from ssdlab import api

    if isinstance(devices, (str, os.PathLike, Mapping)):
        devices = [devices]  # one device, not the letters of its name
    if not isinstance(devices, Iterable):
        raise api.ConfigError(
            f"devices: {api._a(devices)} is not allowed (a list of presets, device files or dicts)"
        )
    devices = list(devices)
    if not devices:
        raise api.ConfigError("devices: give at least one device")
    labels = [device_label(d) for d in devices]
    dup = {x for x in labels if labels.count(x) > 1}
    if dup:
        raise api.ConfigError(f"devices: {', '.join(sorted(dup))} given more than once")
    reports = api.run_many([{"device": d, "workload": workload, **run_kwargs} for d in devices])
    return dict(zip(labels, reports))


def compare(devices: Iterable[Any], workload: Any = None, **run_kwargs: Any):
    """Run ``workload`` on each device and return a pandas DataFrame, one row per
    (device, direction), columns :data:`COLUMNS` (names: :mod:`ssdlab.schema`; the
    deprecated ``lat_p99.99_us`` last), then :data:`ENERGY_COLUMNS` with ``energy=True``.
    ``run_kwargs`` go to :func:`ssdlab.run` (state, seed, set, queues, energy, ...)."""
    try:
        import pandas as pd
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise ImportError("ssdlab.compare() needs pandas: pip install pandas") from e
    table = rows(run_each(devices, workload, **run_kwargs))
    for r in table:
        r.update({old: r[new] for old, new in ALIASES.items()})
    extra = list(columns_of(table)[len(COLUMNS):])
    return pd.DataFrame(table, columns=[*COLUMNS, *ALIASES, *extra])


def check_devices(text: str) -> list[str]:
    """Devices of a ``--device A,B,C`` flag; raises ConfigError on an empty entry."""
    from ssdlab import api

    devices = split_devices(text)
    if any(not d for d in devices):
        raise api.ConfigError(f"--device: '{text}' has an empty entry (expected e.g. A,B,C)")
    return devices


def write_each(docs: Mapping[str, str], target: str, suffix: str = ".json") -> list[Path]:
    """Write ``{label: text}`` as ``target/<label><suffix>`` (the directory is created)."""
    from ssdlab.cliutil import write_atomically

    out = Path(target)
    if out.exists() and not out.is_dir():
        from ssdlab.cliutil import UsageError

        raise UsageError(f"{target}: with several devices this names a directory, not a file")
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for label, text in docs.items():
        p = out / f"{label}{suffix}"
        write_atomically(p, text)
        paths.append(p)
    return paths
