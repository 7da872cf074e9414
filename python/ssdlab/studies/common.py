"""What the studies share: running their points on the sweep engine, reading metrics from
its result rows, and the outputs (tables, CSV, plots)."""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ssdlab.cliutil import UsageError, write_atomically


def kib(n: int) -> str:
    return f"{n // 1024}K" if n < (1 << 20) else f"{n >> 20}M"


def table(title: str, header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = [title]
    for r in [header, *rows]:
        lines.append("  ".join(str(c).rjust(w) for c, w in zip(r, widths)))
    return "\n".join(lines)


def write_csv(path: Path, columns: list[str], rows: list[dict]) -> None:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    write_atomically(path, buf.getvalue(), "--out")


def plot(path: Path, draw) -> bool:
    """Draw with matplotlib if it is installed; returns whether a plot was written."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    from ssdlab import outputs

    fig = draw(plt)
    try:  # a temporary file renamed over the plot, removed on failure (a full disk)
        outputs.write_with(
            path,
            lambda f: fig.savefig(f, format="png", dpi=120, bbox_inches="tight"),
            "--out",
            binary=True,
        )
    finally:
        plt.close(fig)
    return True


def wrote(csv_path: Path, png_path: Path, plotted: bool) -> str:
    """The closing line of a study: which files it wrote."""
    if plotted:
        return f"wrote {csv_path} and {png_path}"
    return f"wrote {csv_path} (no plot: matplotlib not installed)"


def write_outputs(out_dir: Path, name: str, columns: list[str], rows: list[dict], draw) -> str:
    """``NAME.csv`` (``columns`` of ``rows``) and ``NAME.png`` (``draw(plt)``) in ``out_dir``;
    the study's closing "wrote ..." line."""
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path, png_path = out_dir / f"{name}.csv", out_dir / f"{name}.png"
    write_csv(csv_path, columns, rows)
    return wrote(csv_path, png_path, plot(png_path, draw))


# --- the sweep engine ----------------------------------------------------------------


def run_points(
    runs: list[dict],
    out_dir: Path,
    *,
    workers: int | None = None,
    reuse: list[Path] | tuple[Path, ...] = (),
    adopted: list[int] | None = None,
) -> list[dict]:
    """Run the points (``ssdlab.run`` arguments, plus ``params``: extra columns of their
    rows) through the sweep engine and return one result row per point, in order.

    Results go to ``out_dir/runs`` as Parquet (``ssdlab sweep query OUT SQL`` and ``ssdlab
    sweep report OUT`` read them), so a study run again with the same ``--out`` (after a
    kill, or with more points) runs only the points it does not have. Points that share a
    prepared drive (same resolved device, state, seed and LBA area) reuse it; callers list
    them consecutively. ``workers``: threads (default: every core). ``reuse``: other results
    directories whose finished runs of the same points are copied in instead of being run
    again (:func:`adopt_runs`; their count is appended to ``adopted``). A failed point stops
    the study with its error (it stays recorded in ``out_dir/runs``)."""
    from ssdlab import api
    from ssdlab.sweep.engine import resolve_points
    from ssdlab.sweep.engine import run_points as engine_run

    ids = [job["run_id"] for job in resolve_points(runs)] if runs else []
    if len(ids) != len(runs):  # repeated points run once: find each point's run again
        ids = [resolve_points([r])[0]["run_id"] for r in runs]
    n = adopt_runs(ids, out_dir, reuse)
    if adopted is not None:
        adopted.append(n)
    try:
        df = engine_run(runs, out_dir, workers=workers)
    finally:
        api.clear_prepared()
    by_id = {r["run_id"]: r for r in df.to_dict("records")}
    rows = []
    for point, rid in zip(runs, ids):
        row = by_id[rid]
        if row["status"] != "ok":
            raise UsageError(
                f"point {describe(point)}: {row['error']} (recorded in {out_dir / 'runs'}; "
                "fix it and run again, or remove that directory)"
            )
        rows.append(row)
    return rows


def adopt_runs(ids: list[str], out_dir: Path, reuse) -> int:
    """Copy into ``out_dir/runs`` each run of ``ids`` that is missing there and finished
    without error in one of the ``reuse`` directories' ``runs``; returns how many.

    A run's id is a hash of its whole resolved device, workload, state, seed and the core's
    version, and a run is deterministic, so a run found under the same id in another
    study's results is the run this study would make (hmb-size's Max grant is hmb-vs-dram's
    HMB device, point for point)."""
    import os
    import shutil

    from ssdlab.sweep.store import run_status

    if not reuse:
        return 0
    runs = out_dir / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    copied = 0
    for rid in dict.fromkeys(ids):
        final = runs / f"{rid}.parquet"
        if final.exists():
            continue
        for d in reuse:
            src = Path(d) / "runs" / f"{rid}.parquet"
            if run_status(src) != "ok":  # missing, unreadable or failed: not a run to take
                continue
            tmp = final.with_name(f"{final.name}.tmp-{os.getpid()}")
            shutil.copyfile(src, tmp)
            os.replace(tmp, final)
            copied += 1
            break
    return copied


def describe(point: Mapping[str, Any]) -> str:
    """A point in an error message: its study parameters, or device, state and workload."""
    params = {k: v for k, v in (point.get("params") or {}).items() if k != "study"}
    if params:
        return ", ".join(f"{k}={v}" for k, v in params.items())
    return f"{point.get('device')} {point.get('state')} {point.get('workload')}"


def num(row: Mapping[str, Any], column: str, default: float | None = None) -> Any:
    """A metric of a result row; ``default`` where the run did not report it (the column
    is missing, or empty because another run of the dataset has it)."""
    v = row.get(column)
    if v is None or (isinstance(v, float) and math.isnan(v)):
        if default is None:
            raise KeyError(f"result row has no '{column}'")
        return default
    return v


def count(row: Mapping[str, Any], column: str, default: int | None = None) -> int:
    """An integer counter of a result row (Parquet may hand back a float where another run
    left the column empty)."""
    return int(num(row, column, default))
