"""Plots built in: ``ssdlab plot lat-cdf|sweep|timeline`` and the functions behind them.

- lat-cdf: completion-latency CDFs of several runs on one figure, one curve per file,
  job and direction (clones of a job merged, ``--job``/``--direction`` to pick), latency
  on a log axis in µs and the tail stretched (the y axis is -log10(1 - F), so 0 %, 50 %,
  90 %, 99 %, 99.9 % and 99.99 % are evenly spaced), a legend and a title. Inputs are
  ssdlab reports (``--json``) or fio JSON output (json+ has the histogram bins; plain
  json gives its percentiles, a step CDF).
- sweep: one panel per y column against an x column of a results table (a sweep
  directory, CSV, a JSON list of rows, or a directory of ssdlab reports), one line per
  device or per value of a second axis (``--color``), the mean of repeats, axes named
  by their short names (``iodepth``), values in their natural order (sizes, times,
  off/min/half/max), a log x axis when x spans 16x or more.
- timeline: IOPS and mean latency per 500 ms window of simulated time from a report's
  logs (``iops_log``/``lat_log`` per direction), or from fio's log files (a fio JSON
  whose jobs wrote write_iops_log/write_lat_log, or the logs themselves), where GC
  cliffs and the end of the SLC cache show as steps; a report of a run with the energy
  model (``--energy``) adds the drive's power per peak window (``energy.window_w``).

Labels always carry units (µs, KiB, MB/s); a legend names a device's HMB grant only
when the report says the device has an HMB. Needs matplotlib (``pip install
ssdlab[plot]``); figures are written with the Agg backend, no display needed.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ssdlab.report import DIRECTIONS, Report


class PlotError(ValueError):
    """An input a plot cannot use (named, with what was expected)."""


def _pyplot():
    try:
        import matplotlib
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise PlotError("plots need matplotlib: pip install matplotlib") from e
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


# The largest results file read (a json+ report with its logs is a few MB).
MAX_INPUT_BYTES = 1 << 30


def _read_text(p: Path, expected: str) -> str:
    """A results file's text; a file that cannot be read or is not UTF-8 text (a binary
    file) is a PlotError naming it and what was expected. Only a regular file of at most
    MAX_INPUT_BYTES is read: a named pipe blocked the open, and /dev/zero was read until
    memory ran out (issue 31's second audit)."""
    try:
        st = p.stat()
        if not stat.S_ISREG(st.st_mode):
            raise PlotError(f"{p}: not a regular file (expected {expected})")
        if st.st_size > MAX_INPUT_BYTES:
            raise PlotError(
                f"{p}: {st.st_size:,} bytes, more than the {MAX_INPUT_BYTES >> 20} MiB read "
                f"(expected {expected})"
            )
        return p.read_text()
    except OSError as e:
        raise PlotError(f"{p}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError as e:
        raise PlotError(
            f"{p}: not a text file (byte 0x{e.object[e.start]:02x} at offset {e.start} is not "
            f"UTF-8; expected {expected})"
        ) from None


def _read_json(p: Path, expected: str) -> Any:
    try:
        return json.loads(_read_text(p, expected))
    except json.JSONDecodeError as e:
        raise PlotError(f"{p}:{e.lineno}: not JSON ({e.msg}; expected {expected})") from None
    except RecursionError:
        raise PlotError(f"{p}: JSON nested too deeply (expected {expected})") from None


def load_doc(path: str | Path) -> dict:
    """An ssdlab report or a fio JSON document from a file."""
    p = Path(path)
    doc = _read_json(p, "an ssdlab report or fio JSON output")
    if not isinstance(doc, dict) or not ("ssdlab_version" in doc or "fio version" in doc):
        raise PlotError(f"{p}: neither an ssdlab report nor fio JSON output")
    return doc


def _label(doc: dict, fallback: str) -> str:
    """Device name, with the HMB grant only for a device that has an HMB."""
    if "fio version" in doc:
        name = doc.get("ssdlab", {}).get("device") or fallback
        return name
    name = doc.get("config", {}).get("name") or fallback
    hmb = doc.get("device", {}).get("hmb", {})
    if hmb.get("hmpre_bytes"):
        return f"{name} (HMB {hmb.get('granted_bytes', 0) / (1 << 20):g} MiB granted)"
    return name


def _merge(hists: list[list[tuple[int, float]]]) -> list[tuple[int, float]]:
    bins: dict[int, float] = {}
    for h in hists:
        for lat, c in h:
            bins[lat] = bins.get(lat, 0.0) + c
    return sorted(bins.items())


def _dir_hist(src: dict, d: str) -> list[tuple[int, float]]:
    """[(latency_ns, count)] of one direction of a job or report: json+ bins, or for
    plain json the percentiles as a step histogram (each share times the I/O count, so
    clones merge by their weights)."""
    clat = src[d].get("clat_ns") or src[d].get("lat_ns") or {}
    if clat.get("bins"):
        return sorted((int(k), int(v)) for k, v in clat["bins"].items())
    pct = clat.get("percentile") or {}
    if not pct:
        raise PlotError(f"{d}: no latency bins or percentiles to plot")
    n = src[d].get("total_ios") or 1
    pts, prev = [], 0.0
    for k, v in sorted(pct.items(), key=lambda kv: float(kv[0])):
        share = float(k) - prev
        prev = float(k)
        pts.append((int(v), max(share, 0.0) * n / 100))
    return pts


def curves(
    doc: dict, direction: str | None = None, job: str | None = None
) -> list[tuple[str, str, list[tuple[int, float]]]]:
    """Every (job, direction) with I/O of a report or fio JSON document, as
    ``[(job, direction, [(latency_ns, count), ...]), ...]``. Clones of a job (fio's
    numjobs without group_reporting) are merged into one curve, named with their count
    (``randread x4``); ``job`` keeps only that job, ``direction`` only that direction.
    The job is "" when the document has a single job."""
    if "fio version" in doc or len({j.get("jobname") for j in doc.get("jobs") or []}) > 1:
        groups: dict[str, list[dict]] = {}
        for j in doc.get("jobs") or []:
            groups.setdefault(str(j.get("jobname", "")), []).append(j)
        if not groups:
            raise PlotError("fio JSON output without jobs")
    else:
        groups = {"": [doc]}
    if job is not None:
        if job not in groups or (len(groups) == 1 and "" in groups):
            names = ", ".join(g for g in groups if g) or "none (a single-job report)"
            raise PlotError(f"--job: no job '{job}' in this result (jobs: {names})")
        groups = {job: groups[job]}
    single = len(groups) == 1
    out = []
    for name, members in groups.items():
        for d in [direction] if direction else DIRECTIONS:
            srcs = [m for m in members if (m.get(d) or {}).get("total_ios")]
            if not srcs:
                continue
            label = "" if single and job is None else name
            if len(members) > 1:
                label = f"{label or name} x{len(members)}"
            out.append((label, d, _merge([_dir_hist(m, d) for m in srcs])))
    if not out:
        what = f"{direction} I/O" if direction else "read, write or trim I/O"
        raise PlotError(f"no {what} in this result" + (f" for job '{job}'" if job else ""))
    return out


def histogram(doc: dict, direction: str | None = None) -> tuple[str, list[tuple[int, int]]]:
    """(direction, [(latency_ns, count), ...]) of the first curve of a report or fio
    JSON (see :func:`curves` for every job and direction)."""
    _, d, hist = curves(doc, direction)[0]
    return d, [(lat, round(c)) for lat, c in hist]


def _tail(p: float) -> float:
    return -math.log10(max(1.0 - p, 1e-7))


# Percentile axis: the body (0, 50 %) and the tail (90 % .. 99.99 %) evenly spaced.
CDF_TICKS = (0.0, 0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999)


def lat_cdf_figure(
    paths: Sequence[str | Path],
    direction: str | None = None,
    job: str | None = None,
    title: str | None = None,
):
    """The figure of :func:`lat_cdf` (matplotlib), one curve per file, job and direction."""
    if not paths:
        raise PlotError("lat-cdf: give at least one result file")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(9, 5.5))
    top, dirs = 0.0, []
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    styles: dict[tuple[str, str], str] = {}  # one line style per (job, direction)
    for i, p in enumerate(paths):
        doc = load_doc(p)
        for name, d, hist in curves(doc, direction, job):
            total = sum(c for _, c in hist)
            # the top is the data's resolution (1 - 1/N), not an infinite 100 %
            cap = _tail(1.0 - 1.0 / max(total, 2.0))
            xs, ys, run = [], [0.0], 0.0
            for lat_ns, c in hist:
                run += c
                xs.append(lat_ns / 1e3)
                ys.append(min(_tail(min(run / total, 1.0)), cap))
            xs = [xs[0], *xs]  # from 0 % at the first latency
            top = max(top, max(ys))
            label = " ".join(x for x in (_label(doc, Path(p).stem), name, d) if x)
            style = styles.setdefault((name, d), ("-", "--", ":", "-.")[len(styles) % 4])
            ax.step(xs, ys, where="post", label=label, linewidth=1.8, linestyle=style,
                    color=colours[i % len(colours)])  # fmt: skip
            dirs.append(d)
    ticks = [t for t in CDF_TICKS if _tail(t) <= top + 0.05]
    ax.set_yticks([_tail(t) for t in ticks])
    ax.set_yticklabels([f"{t * 100:g} %" for t in ticks])
    ax.set_ylim(0, max(_tail(ticks[-1]), top) * 1.03)
    ax.set_xscale("log")
    ax.set_xlabel("completion latency (µs)", fontsize=12)
    ax.set_ylabel("percentile (tail stretched)", fontsize=12)
    ax.tick_params(labelsize=11)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=10, loc="upper left")
    shown = ", ".join(dict.fromkeys(dirs))
    ax.set_title(title or f"Completion latency CDF ({shown})", fontsize=13)
    return fig


def lat_cdf(
    paths: Sequence[str | Path],
    out: str | Path,
    direction: str | None = None,
    job: str | None = None,
    title: str | None = None,
) -> Path:
    """Write the completion-latency CDFs of every job and direction of ``paths`` (or
    the ``job`` / ``direction`` named) to ``out`` (png, svg, pdf)."""
    return _save(lat_cdf_figure(paths, direction, job, title), out)


def _unit_label(col: str) -> str:
    """A column's axis label with its unit: ``read_lat_p99_us`` -> ``read p99 latency
    (µs)``, ``read_iops`` -> ``read IOPS``, ``workload.iodepth`` -> ``iodepth``."""
    short = col.split(".")[-1] if col.startswith(("workload.", "set.")) else col
    m = re.fullmatch(r"(?:(read|write|trim)_)?(lat|clat|slat)_(\w+?)_(us|ns)", short)
    if m:
        d, what, stat, unit = m.groups()
        stat = stat.replace("_", ".") if stat.startswith("p") else stat
        name = {"lat": "latency", "clat": "completion latency", "slat": "submission latency"}
        text = f"{stat} {name[what]} ({'µs' if unit == 'us' else 'ns'})"
        return f"{d} {text}" if d else text
    m = re.fullmatch(r"(?:(read|write|trim)_)?(iops|mb_per_s|bw_bytes)", short)
    if m:
        unit = {"iops": "IOPS", "mb_per_s": "MB/s", "bw_bytes": "bandwidth (bytes/s)"}[m.group(2)]
        return f"{m.group(1)} {unit}" if m.group(1) else unit
    for suffix, unit in (("_us", "µs"), ("_ns", "ns"), ("_bytes", "bytes"), ("_ms", "ms")):
        if short.endswith(suffix):
            return f"{short[: -len(suffix)]} ({unit})"
    return {"waf": "WAF", "bs": "block size"}.get(short, short)


def _plain(v: Any) -> Any:
    if hasattr(v, "item"):
        v = v.item()
    return None if isinstance(v, float) and math.isnan(v) else v


def load_rows(results: str | Path) -> list[dict[str, Any]]:
    """A results table: CSV, a JSON list of row dicts, a sweep directory (its runs'
    rows) or a directory of ssdlab reports (one row per report and direction, with the
    workload's options as columns)."""
    from ssdlab import comparison

    p = Path(results)
    if p.is_dir() and (p / "runs").is_dir():  # a sweep directory: its Parquet rows
        from ssdlab.sweep.store import sweep_results

        df = sweep_results(p)
        df = df[df["status"] == "ok"] if "status" in df else df
        if df.empty:
            raise PlotError(f"{p}: a sweep directory without finished runs")
        return [{k: _plain(v) for k, v in r.items()} for r in df.to_dict("records")]
    if p.is_dir():
        rows = []
        for f in sorted(p.glob("*.json")):
            doc = load_doc(f)
            if "ssdlab_version" not in doc:
                continue
            for r in comparison.rows({_label(doc, f.stem).split(" (")[0]: doc}):
                rows.append({**_flat_workload(doc), **r})
        if not rows:
            raise PlotError(f"{p}: no ssdlab reports (*.json) in this directory")
        return rows
    if not p.is_file():
        raise PlotError(f"{p}: no such file or directory")
    expected = "a CSV, a JSON list of rows, or a directory of reports"
    if p.suffix.lower() == ".csv":
        text = _read_text(p, expected)
        try:
            return [{k: _num(v) for k, v in r.items()} for r in csv.DictReader(io.StringIO(text))]
        except csv.Error as e:
            raise PlotError(f"{p}: not CSV ({e}; expected {expected})") from None
    data = _read_json(p, expected)
    if isinstance(data, Mapping) and isinstance(data.get("rows"), list):
        data = data["rows"]
    if not isinstance(data, list) or not all(isinstance(r, Mapping) for r in data):
        raise PlotError(f"{p}: expected a CSV, a JSON list of rows, or a directory of reports")
    return [dict(r) for r in data]


def _flat_workload(doc: dict) -> dict[str, Any]:
    wl = doc.get("workload", {})
    return {k: v for k, v in wl.items() if isinstance(v, (int, float, str)) and k != "name"}


def _num(v: str) -> Any:
    for t in (int, float):
        try:
            return t(v)
        except (TypeError, ValueError):
            pass
    return v


def _column(
    name: str, cols: set[str], flag: str, rows: Sequence[Mapping[str, Any]] | None = None
) -> str:
    """A column by its name, or a sweep's axis by its short name (``iodepth`` for
    ``workload.iodepth``, ``t_read`` for ``set.nand.t_read``: the grid's ``set.`` and
    ``workload.`` columns before the resolved ``config.`` ones)."""
    if name in cols:
        return name
    short = [c for c in cols if "." in c and c.split(".")[-1] == name]
    for prefix in ("set.", "workload.", ""):
        hits = [c for c in short if c.startswith(prefix)]
        if len(hits) == 1:
            return hits[0]
    raise PlotError(f"{flag}: '{name}' is not a column ({_columns_hint(cols, rows)})")


def _columns_hint(cols: set[str], rows: Sequence[Mapping[str, Any]] | None) -> str:
    """The columns worth naming in an error: the ones that vary first (a sweep's axes),
    then the others, without the resolved config/stats/prep columns."""
    from ssdlab.schema import replacement

    plain = sorted(c for c in cols if not c.startswith(("config.", "stats.", "prep.")))
    plain = [c for c in plain if not replacement(c)]

    def varies(c: str) -> bool:
        return rows is not None and len({str(r.get(c)) for r in rows}) > 1

    axes = [c for c in plain if c.startswith(("set.", "workload.", "device", "state", "seed"))
            and varies(c)]  # fmt: skip
    rest = [c for c in plain if c not in axes and not c.startswith("workload.")]
    text = f"axes: {', '.join(axes) or 'none'}; columns: {', '.join(rest[:40])}"
    more = len(cols) - len(axes) - len(rest[:40])
    return text + (f"; and {more} more (workload.*, config.*, stats.*, prep.*)" if more else "")


def _order_key(v: Any) -> tuple:
    """Values in their natural order: numbers by value, sizes and times by size
    (``64MiB`` < ``1GiB``, ``40us`` < ``1ms``), HMB policies off < min < half < max."""
    if isinstance(v, (int, float)):
        return (0, float(v), "")
    text = str(v)
    rank = {"off": 0, "min": 1, "half": 2, "max": 3}
    if text in rank:
        return (1, float(rank[text]), text)
    m = re.fullmatch(r"\s*([\d.]+)\s*([A-Za-z/]*)\s*", text)
    if m:
        unit = m.group(2).lower()
        unit = unit[:-2] if unit.endswith("/s") else unit  # rates: MB/s as MB
        scale = {"": 1, "b": 1, "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
                 "kb": 1e3, "mb": 1e6, "gb": 1e9, "tb": 1e12, "k": 2**10, "m": 2**20,
                 "g": 2**30, "ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1}.get(unit)  # fmt: skip
        if scale is not None:
            return (0, float(m.group(1)) * scale, text)
    return (2, 0.0, text)


def sweep_figure(
    results: str | Path,
    x: str,
    ys: Sequence[str],
    color: str | None = None,
    logx: bool | None = None,
):
    """The figure of :func:`sweep`."""
    rows = load_rows(results)
    cols = set().union(*(r.keys() for r in rows))
    x = _column(x, cols, "--x", rows)
    ys = [_column(y, cols, "--y", rows) for y in ys]
    if color is not None:
        color = _column(color, cols, "--color", rows)
    for y in ys:
        # Text in a y column was drawn as categories, a plot of nothing measured.
        bad = next((r[y] for r in rows if isinstance(r.get(y), str) and r[y] != ""), None)
        if bad is not None:
            raise PlotError(
                f"{results}: --y: column '{y}' holds text ('{bad[:40]}'), not numbers"
            )
    plt = _pyplot()
    fig, axes = plt.subplots(len(ys), 1, figsize=(9, 3.6 * len(ys)), squeeze=False)
    series: dict[str, list[dict]] = {}
    keys = [color] if color else [k for k in ("device", "direction") if k in cols]
    for r in rows:
        key = " ".join(str(r.get(k)) for k in keys) or "results"
        series.setdefault(key, []).append(r)
    if color:
        names = sorted(series, key=lambda k: _order_key(series[k][0].get(color)))
        series = {k: series[k] for k in names}
    xs_all = [r[x] for r in rows if isinstance(r.get(x), (int, float))]
    numeric = len(xs_all) == len([r for r in rows if r.get(x) is not None])
    if logx is None:
        logx = numeric and bool(xs_all) and min(xs_all) > 0 and max(xs_all) / min(xs_all) >= 16
    cats = sorted({r[x] for r in rows if r.get(x) is not None}, key=_order_key)
    for ax, y in zip(axes[:, 0], ys):
        for key, rs in series.items():
            groups: dict[Any, list[float]] = {}
            for r in rs:
                if r.get(x) is not None and isinstance(r.get(y), (int, float)):
                    groups.setdefault(r[x], []).append(r[y])
            pts = sorted(((a, sum(v) / len(v)) for a, v in groups.items()),
                         key=lambda p: _order_key(p[0]))  # fmt: skip
            if not pts:
                continue
            px = [a for a, _ in pts] if numeric else [cats.index(a) for a, _ in pts]
            label = f"{color.split('.')[-1]}={key}" if color else key
            ax.plot(px, [b for _, b in pts], marker="o", label=label, linewidth=1.8)
        ax.set_ylabel(_unit_label(y), fontsize=12)
        ax.set_ylim(bottom=0)
        from matplotlib.ticker import FuncFormatter

        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.6g}"))
        ax.grid(True, alpha=0.3)
        ax.tick_params(labelsize=11)
        if logx:
            ax.set_xscale("log", base=2)
            from matplotlib.ticker import FuncFormatter

            ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        if not numeric:
            ax.set_xticks(range(len(cats)))
            ax.set_xticklabels([str(c) for c in cats])
        if len(series) > 1 and ax is axes[0, 0]:  # the same series on every panel
            ax.legend(fontsize=10, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    axes[-1, 0].set_xlabel(_unit_label(x), fontsize=12)
    title = f"{', '.join(_unit_label(y).split(' (')[0] for y in ys)} vs {_unit_label(x)}"
    axes[0, 0].set_title(title, fontsize=13)
    return fig


def sweep(
    results: str | Path,
    x: str,
    ys: Sequence[str],
    out: str | Path,
    color: str | None = None,
    logx: bool | None = None,
) -> Path:
    """One panel per y column against x; one line per device (or per value of the
    ``color`` column, a second axis), the mean of repeats (seeds) at each x; a log x axis
    when x spans 16x or more."""
    return _save(sweep_figure(results, x, ys, color, logx), out)


def read_fio_log(path: str | Path) -> list[tuple[int, int, int, int]]:
    """A fio log file (``NAME_iops.1.log``, ``_lat``, ``_clat``, ``_bw``; fio's or
    ssdlab's) as ``[(time_ms, value, direction, block size), ...]``."""
    p = Path(path)
    out = []
    for n, line in enumerate(_read_text(p, "a fio log file").splitlines(), 1):
        if not line.strip():
            continue
        try:
            f = [int(x) for x in line.split(",")[:4]]
            out.append((f[0], f[1], f[2], f[3]))
        except (ValueError, IndexError):
            raise PlotError(
                f"{p}:{n}: not a fio log line (expected 'time, value, direction, bs, ...')"
            ) from None
    return out


def _log_kind(path: Path) -> str | None:
    m = re.search(r"_(iops|lat|clat|bw)(?:\.\d+)?\.log$", path.name)
    return m.group(1) if m else None


def _windows_from_log(entries, kind: str, window_ms: int) -> dict[int, dict[int, float]]:
    """direction -> {window end ms: IOPS or mean latency (ns) or KiB/s} of a log; a
    per-I/O log (block sizes given) is counted per window, an averaged one (block size
    0) averaged."""
    per_io = any(bs for _, _, _, bs in entries)
    acc: dict[int, dict[int, list[float]]] = {}
    for t, v, d, _ in entries:
        k = (max(t, 1) - 1) // window_ms
        acc.setdefault(d, {}).setdefault(k, []).append(v)
    out: dict[int, dict[int, float]] = {}
    for d, wins in acc.items():
        for k, vals in wins.items():
            if kind == "iops" and per_io:  # one entry of 1 per I/O: count them
                v = len(vals) * 1000 / window_ms
            else:
                v = sum(vals) / len(vals)
            out.setdefault(d, {})[(k + 1) * window_ms] = v
    return out


def _fio_logs_of(path: Path, doc: dict) -> list[Path]:
    """The IOPS/latency logs a fio JSON's jobs wrote (write_iops_log, write_lat_log),
    looked for beside the JSON and in the current directory."""
    found = []
    for i, j in enumerate(doc.get("jobs") or []):
        opts = j.get("job options") or {}
        for opt, kind in (("write_iops_log", "iops"), ("write_lat_log", "lat")):
            if opt not in opts:
                continue
            name = str(opts[opt]) if opts[opt] not in (None, "", "1") else j.get("jobname", "")
            for base in (path.parent, Path.cwd()):
                for cand in (base / f"{name}_{kind}.{i + 1}.log", base / f"{name}_{kind}.log"):
                    if cand.is_file() and cand not in found:
                        found.append(cand)
                        break
                else:
                    continue
                break
    return found


def _steps(ax, ends_ms: Sequence[int], values: Sequence[float], window_ms: int, label: str):
    """One value per window, drawn across the window (from its start to its end)."""
    xs = [max(0, t - window_ms) / 1e3 for t in ends_ms] + [ends_ms[-1] / 1e3]
    ax.step(xs, [*values, values[-1]], where="post", label=label, linewidth=1.8)


def timeline_figure(paths: Sequence[str | Path], window_ms: int = 500):
    """The figure of :func:`timeline`."""
    if not paths:
        raise PlotError("timeline: give an ssdlab report, fio JSON with its logs, or fio logs")
    plt = _pyplot()
    # Reports of runs with the energy model also draw the drive's power per window.
    powered = []
    for path in map(Path, paths):
        if path.suffix != ".log":
            doc = load_doc(path)
            w = (doc.get("energy") or {}).get("window_w") or []
            if w:
                powered.append((_label(doc, path.stem), w))
    fig, axes = plt.subplots(
        3 if powered else 2, 1, figsize=(9, 8.5 if powered else 6), sharex=True
    )
    a1, a2 = axes[0], axes[1]
    names = ("read", "write", "trim")
    drawn, title = [], ""
    logs: list[Path] = []
    for path in map(Path, paths):
        if path.suffix == ".log":
            logs.append(path)
            continue
        doc = load_doc(path)
        if "fio version" in doc:
            mine = _fio_logs_of(path, doc)
            if not mine:
                raise PlotError(
                    f"{path}: fio JSON without logs to plot: run the job with "
                    "write_iops_log=NAME and write_lat_log=NAME (log_avg_msec=500 keeps them "
                    "small), or give the NAME_iops.1.log and NAME_lat.1.log files"
                )
            logs.extend(mine)
            title = title or _label(doc, path.stem)
            continue
        rep = Report(doc)
        title = title or _label(doc, path.stem)
        for d in DIRECTIONS:
            tl = rep.timeline(d)
            if not tl:
                continue
            ends = [w["t_ms"] for w in tl]
            _steps(a1, ends, [w["iops"] for w in tl], 500, d)
            _steps(a2, ends, [w["lat_mean_us"] for w in tl], 500, d)
            drawn.append(d)
        if not drawn:
            raise PlotError(f"{path}: the report has no IOPS/latency logs")
    for log in logs:
        kind = _log_kind(log)
        if kind not in ("iops", "lat", "clat"):
            raise PlotError(f"{log}: not an IOPS or latency log (NAME_iops.N.log, NAME_lat.N.log)")
        stem = log.name.split(f"_{kind}")[0]
        for d, wins in sorted(_windows_from_log(read_fio_log(log), kind, window_ms).items()):
            ts = sorted(wins)
            label = f"{stem} {names[d] if d < 3 else d}"
            if kind == "iops":
                _steps(a1, ts, [wins[t] for t in ts], window_ms, label)
            else:
                _steps(a2, ts, [wins[t] / 1e3 for t in ts], window_ms, f"{label} ({kind})")
            drawn.append(label)
    if not drawn:
        raise PlotError("timeline: nothing to plot")
    a1.set_ylabel("IOPS", fontsize=12)
    a2.set_ylabel("mean latency (µs)", fontsize=12)
    for label, w in powered:
        ends = [t for t, _ in w]
        starts = [0.0, *ends[:-1]]
        axes[2].step([*starts, ends[-1]], [*[v for _, v in w], w[-1][1]], where="post",
                     label=f"{label} power", linewidth=1.8)  # fmt: skip
    if powered:
        axes[2].set_ylabel("drive power (W)", fontsize=12)
    axes[-1].set_xlabel(f"simulated time after ramp (s), {window_ms} ms windows", fontsize=12)
    a1.set_title(f"IOPS and latency over time{': ' + title if title else ''}", fontsize=13)
    from matplotlib.ticker import FuncFormatter

    for a in axes:
        a.grid(True, alpha=0.3)
        a.set_ylim(bottom=0)
        a.tick_params(labelsize=11)
        a.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.6g}"))
        if a.get_legend_handles_labels()[0]:
            a.legend(fontsize=10, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return fig


def timeline(paths: str | Path | Sequence[str | Path], out: str | Path, window_ms: int = 500):
    """IOPS and mean latency per window of simulated time, per direction: from an
    ssdlab report, a fio JSON whose jobs wrote write_iops_log/write_lat_log (the logs
    found beside it), or fio log files (fio's or ssdlab's)."""
    if isinstance(paths, (str, Path)):
        paths = [paths]
    return _save(timeline_figure(list(paths), window_ms), out)


def image_format(out: str | Path) -> str:
    """The image format of an output file name (its suffix; png without one); an
    unknown suffix is a PlotError listing the formats matplotlib writes."""
    suffix = Path(out).suffix.lower().lstrip(".")
    if not suffix:
        return "png"
    _pyplot()
    from matplotlib.backend_bases import FigureCanvasBase

    allowed = FigureCanvasBase.get_supported_filetypes()
    if suffix not in allowed:
        from ssdlab.outputs import shown

        raise PlotError(
            f"--output: {shown(str(out))}: '.{shown(suffix, 20)}' is not an image format "
            f"(allowed: {', '.join(sorted(allowed))})"
        )
    return suffix


def _save(fig, out: str | Path) -> Path:
    """Write the figure to ``out`` atomically: a temporary file in the same directory,
    renamed over ``out`` once complete, removed on failure (a full disk leaves no empty
    or partial image)."""
    from ssdlab import outputs

    out = Path(out)
    fmt = image_format(out)
    import matplotlib.pyplot as plt

    try:
        fig.tight_layout()
        outputs.write_with(
            out, lambda f: fig.savefig(f, format=fmt, dpi=120), "--output", binary=True
        )
    finally:
        plt.close(fig)
    return out


def register(sub) -> None:
    p = sub.add_parser("plot", help="plot results: lat-cdf, sweep, timeline")
    kinds = p.add_subparsers(dest="plot_kind", metavar="KIND", required=True)
    k = kinds.add_parser("lat-cdf", help="latency CDFs of reports or fio JSON files")
    k.add_argument("files", nargs="+", help="ssdlab reports (--json) or fio JSON output")
    k.add_argument("--direction", choices=DIRECTIONS, help="default: every direction with I/O")
    k.add_argument("--job", help="only this job (fio's jobname; default: every job)")
    k.add_argument("--title", help="figure title (default: names the directions)")
    k.add_argument("-o", "--output", default="lat-cdf.png", help="image file (png, svg, pdf)")
    k = kinds.add_parser("sweep", help="y columns against an x column of a results table")
    k.add_argument("results", help="a sweep directory, CSV, JSON list of rows, or a directory "
                   "of reports")  # fmt: skip
    k.add_argument("--x", required=True, help="x column, e.g. iodepth")
    k.add_argument("--y", required=True, help="y columns, comma-separated, e.g. iops,lat_p99_us")
    k.add_argument("--color", help="a second axis drawn as colour, e.g. t_read")
    k.add_argument("--logx", choices=("auto", "on", "off"), default="auto",
                   help="log x axis (auto: when x spans 16x or more)")  # fmt: skip
    k.add_argument("-o", "--output", default="sweep.png", help="image file (png, svg, pdf)")
    k = kinds.add_parser("timeline", help="IOPS and latency over simulated time")
    k.add_argument(
        "files",
        nargs="+",
        help="an ssdlab report (ssdlab run --json FILE), fio JSON whose jobs wrote "
        "write_iops_log/write_lat_log, or fio log files",
    )
    k.add_argument("--window", type=int, default=500, help="window of fio logs in ms (500)")
    k.add_argument("-o", "--output", default="timeline.png", help="image file (png, svg, pdf)")
    p.set_defaults(func=cmd_plot)


def cmd_plot(args) -> int:
    from ssdlab import outputs
    from ssdlab.cliutil import UsageError

    outputs.check_file(args.output, "--output")
    try:
        image_format(args.output)
        if args.plot_kind == "lat-cdf":
            out = lat_cdf(args.files, args.output, args.direction, args.job, args.title)
        elif args.plot_kind == "sweep":
            ys = [y.strip() for y in args.y.split(",") if y.strip()]
            logx = {"auto": None, "on": True, "off": False}[args.logx]
            out = sweep(args.results, args.x, ys, args.output, args.color, logx)
        else:
            if args.window < 1:
                raise PlotError(f"--window: {args.window} must be at least 1 ms")
            out = timeline(args.files, args.output, args.window)
    except PlotError as e:
        raise UsageError(str(e)) from None
    print(f"wrote {out}")
    return 0
