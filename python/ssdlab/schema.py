"""One naming convention for every table ssdlab returns (``ssdlab.compare``,
``Report.to_pandas``, sweep rows, ``ssdlab.fio.to_pandas``, ``ssdlab.profile``).

- A quantity is ``[direction_]what[_stat]_unit``: the direction (``read_``, ``write_``,
  ``trim_``) prefixes it in a *wide* table (one row per run: sweeps); a *long* table
  (one row per direction: compare, Report.to_pandas, fio.to_pandas) has a
  ``direction`` column instead and no prefix.
- Latencies are in µs (``_us``): ``lat`` (submission to completion, fio's lat),
  ``clat`` (completion), ``slat`` (submission), each with ``min``, ``mean``, ``max``,
  ``stddev`` and percentiles ``p50``, ``p99``, ``p99_9``, ``p99_99`` (the dot of a
  percentile becomes ``_``, so every name is a plain SQL identifier).
- Rates: ``iops``; ``bw_bytes`` (bytes/s, fio's) and ``mb_per_s`` (10^6 bytes/s).
  Amounts: ``io_bytes``, ``total_ios``, ``runtime_ms``. The job is ``job``.

Names used before this convention stay for one release as deprecated aliases (same
values, old units): ``lat_p99_ns`` and the other ``*_ns`` latencies of
Report.to_pandas, sweep rows (``read_lat_p99_ns``) and fio.to_pandas (``clat_p99_ns``,
``jobname``), and compare's ``lat_p99.99_us``. :data:`DEPRECATED` maps each alias
pattern to its name; :func:`deprecated_columns` lists the aliases in a table.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import Any

STATS = ("min", "mean", "max", "stddev")

# alias (regex over a column name) -> the name that replaces it (\1.. from the match)
DEPRECATED: dict[str, str] = {
    r"^((?:read_|write_|trim_)?(?:lat|clat|slat)_(?:min|mean|max|stddev))_ns$": r"\1_us",
    r"^((?:read_|write_|trim_)?(?:lat|clat|slat)_p)(\d+)(?:[._](\d+))?_ns$": r"\1\2_\3_us",
    r"^lat_p99\.99_us$": "lat_p99_99_us",
    r"^jobname$": "job",
}


def pct_name(p: Any) -> str:
    """``"99.000000"`` -> ``p99``, ``99.99`` -> ``p99_99``."""
    return "p" + f"{float(p):g}".replace(".", "_")


def latency_columns(
    lat: Mapping[str, Any] | None, what: str = "lat", prefix: str = "", old: str | None = None
) -> dict[str, Any]:
    """A fio latency block (``lat_ns``/``clat_ns``/``slat_ns``: min, mean, max,
    stddev, percentile) as columns in µs, ``{prefix}{what}_{stat}_us``; ``old`` adds
    the deprecated ``_ns`` aliases as a table named them before: ``"dot"``
    (``lat_p99.9_ns``: Report.to_pandas, fio.to_pandas) or ``"underscore"``
    (``read_lat_p99_9_ns``: sweep rows)."""
    lat = lat or {}
    out: dict[str, Any] = {}
    for k in STATS:
        v = lat.get(k)
        out[f"{prefix}{what}_{k}_us"] = None if v is None else v / 1e3
    for p, v in (lat.get("percentile") or {}).items():
        out[f"{prefix}{what}_{pct_name(p)}_us"] = None if v is None else v / 1e3
    if old:
        for k in STATS:
            out[f"{prefix}{what}_{k}_ns"] = lat.get(k)
        for p, v in (lat.get("percentile") or {}).items():
            name = f"{float(p):g}" if old == "dot" else pct_name(p)[1:]
            out[f"{prefix}{what}_p{name}_ns"] = v
    return out


def replacement(column: str) -> str | None:
    """The convention's name for a deprecated alias (None: not an alias)."""
    for pat, repl in DEPRECATED.items():
        m = re.match(pat, column)
        if m:
            return m.expand(repl).replace("__", "_")
    return None


def deprecated_columns(columns: Iterable[str]) -> dict[str, str]:
    """``{alias: name}`` for the deprecated aliases among ``columns``."""
    out = {}
    for c in columns:
        r = replacement(str(c))
        if r is not None:
            out[str(c)] = r
    return out
