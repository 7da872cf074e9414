"""Sweeps: grids of runs on any executor, with Parquet results, resume and a report.

``sweep(grid)`` runs a grid (TOML file or dict); ``run_points(points, out)`` is the
engine under it, for code that builds its own points (the studies); ``sweep_results``
reads a results directory back. Heavy dependencies (pyarrow, pandas, duckdb, dask)
are imported only when used. See docs/sweeps.md.
"""

from ssdlab.sweep.engine import run_points, sweep
from ssdlab.sweep.store import sweep_results

__all__ = ["run_points", "sweep", "sweep_results"]
