"""Sweeps: grids of runs on any executor, with Parquet results, resume and a report.

``sweep(grid)`` runs a grid (TOML file or dict); ``run_points(points, out)`` is the
engine under it, for code that builds its own points (the studies); ``sweep_results``
reads a results directory back. Heavy dependencies (pyarrow, pandas, duckdb, dask)
are imported only when used. See docs/sweeps.md.
"""

import sys
import types

from ssdlab.sweep.engine import run_points, sweep
from ssdlab.sweep.store import sweep_results

__all__ = ["run_points", "sweep", "sweep_results"]


class _SweepPackage(types.ModuleType):
    """``ssdlab.sweep`` names both this package and its ``sweep`` function: the package
    loads on first use (``ssdlab.__getattr__``), and whichever of the two the attribute
    ends up holding (an import of ``ssdlab.sweep.engine`` binds the package there),
    calling it runs a sweep."""

    def __call__(self, *args, **kwargs):
        return sweep(*args, **kwargs)


sys.modules[__name__].__class__ = _SweepPackage
