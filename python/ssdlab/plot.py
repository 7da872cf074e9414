"""Plots built in: ``ssdlab plot lat-cdf|sweep|timeline`` and the functions behind them.

- lat-cdf: completion-latency CDFs of several runs on one figure, latency on a log axis
  in µs and the tail stretched (the y axis is -log10(1 - F), so 90 %, 99 %, 99.9 % and
  99.99 % are evenly spaced). Inputs are ssdlab reports (``--json``) or fio JSON output
  (json+ has the histogram bins; plain json gives its percentiles, a step CDF).
- sweep: one panel per y column against an x column of a results table (CSV, a JSON
  list of rows, or a directory of ssdlab reports), one line per device.
- timeline: IOPS and mean latency per 500 ms window of simulated time from a report's
  logs (``iops_log``/``lat_log`` per direction), where GC cliffs and the end of the SLC
  cache show as steps.

Labels always carry units (µs, KiB, MB/s); a legend names a device's HMB grant only
when the report says the device has an HMB. Needs matplotlib (``pip install
ssdlab[plot]``); figures are written with the Agg backend, no display needed.
"""

from __future__ import annotations

import csv
import io
import json
import math
import stat
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ssdlab.report import DIRECTIONS, Report

TAIL_TICKS = (0.5, 0.9, 0.99, 0.999, 0.9999, 0.99999)


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


def histogram(doc: dict, direction: str | None = None) -> tuple[str, list[tuple[int, int]]]:
    """(direction, [(latency_ns, count), ...]) from a report or fio JSON; for plain fio
    json (no bins) the percentiles become a step histogram of their shares."""
    if "fio version" in doc:
        jobs = doc.get("jobs") or []
        if not jobs:
            raise PlotError("fio JSON output without jobs")
        src = jobs[0]
    else:
        src = doc
    dirs = [direction] if direction else [d for d in DIRECTIONS if src.get(d, {}).get("total_ios")]
    if not dirs or not src.get(dirs[0], {}).get("total_ios"):
        raise PlotError(f"no {direction or 'read, write or trim'} I/O in this result")
    d = dirs[0]
    clat = src[d]["clat_ns"]
    if clat.get("bins"):
        return d, sorted((int(k), int(v)) for k, v in clat["bins"].items())
    pct = clat.get("percentile") or {}
    if not pct:
        raise PlotError(f"{d}: no latency bins or percentiles to plot")
    pts, prev = [], 0.0
    for k, v in sorted(pct.items(), key=lambda kv: float(kv[0])):
        share = float(k) - prev
        prev = float(k)
        pts.append((int(v), max(share, 0.0)))
    return d, pts


def _tail(p: float) -> float:
    return -math.log10(max(1.0 - p, 1e-7))


def lat_cdf(paths: Sequence[str | Path], out: str | Path, direction: str | None = None) -> Path:
    """Write the latency CDFs of ``paths`` to ``out`` (png, svg, pdf)."""
    if not paths:
        raise PlotError("lat-cdf: give at least one result file")
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4.5))
    top = 0.0
    for p in paths:
        doc = load_doc(p)
        d, hist = histogram(doc, direction)
        total = sum(c for _, c in hist)
        xs, ys, run = [], [], 0.0
        for lat_ns, c in hist:
            run += c
            xs.append(lat_ns / 1e3)
            ys.append(_tail(min(run / total, 1.0)))
        top = max(top, max(ys))
        ax.step(xs, ys, where="post", label=f"{_label(doc, Path(p).stem)} {d}")
    ticks = [t for t in TAIL_TICKS if _tail(t) <= top + 0.5] or [0.5]
    ax.set_yticks([_tail(t) for t in ticks])
    ax.set_yticklabels([f"{t * 100:g} %" for t in ticks])
    ax.set_xscale("log")
    ax.set_xlabel("completion latency (µs)")
    ax.set_ylabel("share of I/Os at or below (tail stretched)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    return _save(fig, out)


def _unit_label(col: str) -> str:
    for suffix, unit in (("_us", "µs"), ("_ns", "ns"), ("_bytes", "bytes"), ("_ms", "ms")):
        if col.endswith(suffix):
            return f"{col[: -len(suffix)]} ({unit})"
    return {"iops": "IOPS", "mb_per_s": "MB/s", "waf": "WAF", "bs": "block size"}.get(col, col)


def load_rows(results: str | Path) -> list[dict[str, Any]]:
    """A results table: CSV, a JSON list of row dicts, or a directory of ssdlab reports
    (one row per report and direction, with the workload's options as columns)."""
    from ssdlab import comparison

    p = Path(results)
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


def sweep(results: str | Path, x: str, ys: Sequence[str], out: str | Path) -> Path:
    """One panel per y column against x; one line per device (or per series column)."""
    rows = load_rows(results)
    cols = set().union(*(r.keys() for r in rows))
    for c in [x, *ys]:
        if c not in cols:
            raise PlotError(f"--x/--y: '{c}' is not a column (columns: {', '.join(sorted(cols))})")
    for y in ys:
        # Text in a y column was drawn as categories, a plot of nothing measured.
        bad = next((r[y] for r in rows if isinstance(r.get(y), str)), None)
        if bad is not None:
            raise PlotError(
                f"{results}: --y: column '{y}' holds text ('{bad[:40]}'), not numbers"
            )
    plt = _pyplot()
    fig, axes = plt.subplots(len(ys), 1, figsize=(7, 3.2 * len(ys)), squeeze=False)
    series: dict[str, list[dict]] = {}
    for r in rows:
        key = " ".join(str(r[k]) for k in ("device", "direction") if k in r) or "results"
        series.setdefault(key, []).append(r)
    for ax, y in zip(axes[:, 0], ys):
        for key, rs in series.items():
            pts = sorted((r[x], r[y]) for r in rs if r.get(y) is not None and r.get(x) is not None)
            if pts:
                ax.plot([a for a, _ in pts], [b for _, b in pts], marker="o", label=key)
        ax.set_ylabel(_unit_label(y))
        ax.grid(True, alpha=0.3)
        if len(series) > 1:
            ax.legend(fontsize=8)
    axes[-1, 0].set_xlabel(_unit_label(x))
    return _save(fig, out)


def timeline(path: str | Path, out: str | Path) -> Path:
    """IOPS and mean latency per window of simulated time, per direction."""
    doc = load_doc(path)
    if "ssdlab_version" not in doc:
        raise PlotError(f"{path}: timeline needs an ssdlab report (ssdlab run --json FILE)")
    rep = Report(doc)
    plt = _pyplot()
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 5.5), sharex=True)
    drawn = False
    for d in DIRECTIONS:
        tl = rep.timeline(d)
        if not tl:
            continue
        t_s = [w["t_ms"] / 1e3 for w in tl]
        a1.step(t_s, [w["iops"] for w in tl], where="post", label=d)
        a2.step(t_s, [w["lat_mean_us"] for w in tl], where="post", label=d)
        drawn = True
    if not drawn:
        raise PlotError(f"{path}: the report has no IOPS/latency logs")
    a1.set_ylabel("IOPS")
    a2.set_ylabel("mean latency (µs)")
    a2.set_xlabel("simulated time after ramp (s)")
    a1.set_title(_label(doc, Path(path).stem), fontsize=10)
    for a in (a1, a2):
        a.grid(True, alpha=0.3)
        a.legend(fontsize=8)
    return _save(fig, out)


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
    k.add_argument("--direction", choices=DIRECTIONS, help="default: the first with I/O")
    k.add_argument("-o", "--output", default="lat-cdf.png", help="image file (png, svg, pdf)")
    k = kinds.add_parser("sweep", help="y columns against an x column of a results table")
    k.add_argument("results", help="CSV, JSON list of rows, or a directory of reports")
    k.add_argument("--x", required=True, help="x column, e.g. iodepth")
    k.add_argument("--y", required=True, help="y columns, comma-separated, e.g. iops,lat_p99_us")
    k.add_argument("-o", "--output", default="sweep.png", help="image file (png, svg, pdf)")
    k = kinds.add_parser("timeline", help="IOPS and latency over simulated time")
    k.add_argument("file", help="an ssdlab report (ssdlab run --json FILE)")
    k.add_argument("-o", "--output", default="timeline.png", help="image file (png, svg, pdf)")
    p.set_defaults(func=cmd_plot)


def cmd_plot(args) -> int:
    from ssdlab import outputs
    from ssdlab.cli import UsageError

    outputs.check_file(args.output, "--output")
    try:
        image_format(args.output)
        if args.plot_kind == "lat-cdf":
            out = lat_cdf(args.files, args.output, args.direction)
        elif args.plot_kind == "sweep":
            ys = [y.strip() for y in args.y.split(",") if y.strip()]
            out = sweep(args.results, args.x, ys, args.output)
        else:
            out = timeline(args.file, args.output)
    except PlotError as e:
        raise UsageError(str(e)) from None
    print(f"wrote {out}")
    return 0
