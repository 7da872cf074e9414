"""The results dataset of a sweep: one Parquet file per run under ``DIR/runs/``.

Each run's row is written to ``<run_id>.parquet.tmp-<pid>`` and renamed to
``<run_id>.parquet``, so a sweep killed at any moment leaves either the whole file or
none (a rename is atomic on one file system), and a run can never appear twice: its
file name is its key. A failed run has the same file name, ``status = "failed"`` and
its ``error``; a retry replaces it. Files of different runs may hold different columns
(a failed run has no metrics, grids differ in axes); reading unifies them by name.

Simplification: the rename makes results safe against a killed process, not against
a power cut (no fsync); one sweep writes a directory at a time.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

PIP_HINT = (
    "pip install ssdlab (in a source tree: pip install .; "
    "or: pip install pyarrow pandas duckdb)"
)


def need(module: str, what: str):
    """Import an optional dependency, or say exactly what to install."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        from ssdlab.api import ConfigError

        raise ConfigError(f"{what} needs the '{module}' package: {PIP_HINT}") from e


class Store:
    """The Parquet dataset of one sweep directory."""

    def __init__(self, out: str | os.PathLike):
        need("pyarrow", "writing sweep results")
        self.root = Path(out)
        self.runs = self.root / "runs"
        self.runs.mkdir(parents=True, exist_ok=True)
        self._remove_stale_temporaries()

    def files(self) -> list[Path]:
        return sorted(self.runs.glob("*.parquet"))

    def _remove_stale_temporaries(self) -> None:
        """Drop half-written files of sweeps that were killed (their process is gone)."""
        for tmp in self.runs.glob("*.parquet.tmp-*"):
            pid = tmp.name.rsplit("-", 1)[-1]
            if pid.isdigit() and not _alive(int(pid)):
                tmp.unlink(missing_ok=True)

    def statuses(self) -> dict[str, str]:
        """run_id → status of every finished run."""
        import pyarrow.parquet as pq

        out = {}
        for f in self.files():
            try:
                t = pq.read_table(f, columns=["status"])
            except Exception:  # unreadable: treat as missing, the run is redone
                continue
            out[f.stem] = t.column("status")[0].as_py()
        return out

    def write(self, row: dict[str, Any]) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        final = self.runs / f"{row['run_id']}.parquet"
        tmp = final.with_name(f"{final.name}.tmp-{os.getpid()}")
        pq.write_table(pa.Table.from_pylist([row]), tmp)
        os.replace(tmp, final)

    def table(self):
        """Every run as one pyarrow Table (columns unified by name)."""
        return read_table(self.root)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def read_table(out: str | os.PathLike):
    import pyarrow as pa
    import pyarrow.parquet as pq

    runs = Path(out) / "runs"
    files = sorted(runs.glob("*.parquet")) if runs.is_dir() else []
    if not files:
        from ssdlab.api import ConfigError

        raise ConfigError(f"{out}: no sweep results (expected {runs}/*.parquet)")
    tables = [pq.read_table(f) for f in files]
    try:
        return pa.concat_tables(tables, promote_options="permissive")
    except TypeError:  # pyarrow < 14
        return pa.concat_tables(tables, promote=True)


def sweep_results(out: str | os.PathLike):
    """All runs of the sweep directory ``out`` as a pandas DataFrame, one row per run."""
    need("pandas", "sweep_results")
    need("pyarrow", "sweep_results")
    df = read_table(out).to_pandas()
    return df.sort_values("run_id", kind="stable").reset_index(drop=True)


def query(out: str | os.PathLike, sql: str):
    """Run ``sql`` with DuckDB over the sweep's runs (table ``runs``); a DuckDB relation."""
    duckdb = need("duckdb", "sweep query")
    runs = Path(out) / "runs"
    if not runs.is_dir() or not any(runs.glob("*.parquet")):
        from ssdlab.api import ConfigError

        raise ConfigError(f"{out}: no sweep results (expected {runs}/*.parquet)")
    con = duckdb.connect()
    pattern = str(runs / "*.parquet").replace("'", "''")
    con.execute(
        f"CREATE VIEW runs AS SELECT * FROM read_parquet('{pattern}', union_by_name = true)"
    )
    return con, con.execute(sql)
