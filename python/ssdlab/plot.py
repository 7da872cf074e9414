"""Plots built in: ``ssdlab plot lat-cdf|sweep|timeline`` and the functions behind them.

- lat-cdf: completion-latency CDFs of several runs on one figure, one curve per file,
  job and direction (clones of a job merged, ``--job``/``--direction`` to pick), latency
  on a log axis in µs and the tail stretched (the y axis is -log10(1 - F), so 0 %, 50 %,
  90 %, 99 %, 99.9 % and 99.99 % are evenly spaced), a legend and a title. Inputs are
  ssdlab reports (``--json``) or fio JSON output (json+ has the histogram bins; plain
  json gives its percentiles, a step CDF).
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


def _read_text(p: Path, expected: str) -> str:
    """A results file's text; a file that cannot be read or is not UTF-8 text (a binary
    file) is a PlotError naming it and what was expected."""
    try:
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
    k.add_argument("--direction", choices=DIRECTIONS, help="default: every direction with I/O")
    k.add_argument("--job", help="only this job (fio's jobname; default: every job)")
    k.add_argument("--title", help="figure title (default: names the directions)")
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
    from ssdlab.cliutil import UsageError

    outputs.check_file(args.output, "--output")
    try:
        image_format(args.output)
        if args.plot_kind == "lat-cdf":
            out = lat_cdf(args.files, args.output, args.direction, args.job, args.title)
        elif args.plot_kind == "sweep":
            ys = [y.strip() for y in args.y.split(",") if y.strip()]
            out = sweep(args.results, args.x, ys, args.output)
        else:
            out = timeline(args.file, args.output)
    except PlotError as e:
        raise UsageError(str(e)) from None
    print(f"wrote {out}")
    return 0
