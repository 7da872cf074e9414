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

import itertools
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
        out = {}
        for f in self.files():
            status = run_status(f)
            if status is not None:
                out[f.stem] = status
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


def run_status(path: Path) -> str | None:
    """The status of the run in the Parquet file ``path``; None if it is missing or
    unreadable (a run to be done again)."""
    import pyarrow.parquet as pq

    try:
        return pq.read_table(path, columns=["status"]).column("status")[0].as_py()
    except Exception:
        return None


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


#: What ``sweep query`` runs, for its error messages (docs/sweeps.md, "Query").
QUERY_ALLOWED = (
    "one read-only query over the table runs: SELECT, WITH ..., FROM ..., VALUES, "
    "DESCRIBE, SHOW, SUMMARIZE, PIVOT ... IN (...), UNPIVOT"
)

# Set, in this order, on a query's connection once `runs` is loaded: the first ones when
# this DuckDB has them, the last two always. External access off: no file, URL, database
# or extension can be read or written, nor a Python variable of this process scanned;
# no spill files (temp_directory ''); then the configuration is locked, so that no
# statement can set any of it back.
_LOCKDOWN = (
    # DuckDB draws a progress bar on stdout for a query that runs over 2 s, which ended
    # up inside `sweep query`'s CSV (issue 31's second audit).
    ("enable_progress_bar", "false"),
    ("python_enable_replacements", "false"),
    ("autoinstall_known_extensions", "false"),
    ("autoload_known_extensions", "false"),
    ("allow_community_extensions", "false"),
    ("allow_persistent_secrets", "false"),
    ("temp_directory", "''"),
    ("enable_external_access", "false"),
    ("lock_configuration", "true"),
)
_REQUIRED = {"enable_external_access", "lock_configuration"}


def query_connection(out: str | os.PathLike):
    """A DuckDB connection that holds the sweep's runs (table ``runs``) and nothing else.

    The Parquet files are read once, into an in-memory table, with DuckDB's own
    ``read_parquet(..., union_by_name = true)`` (the same rows, columns and types as the
    view over the files this replaced); then external access is disabled and the
    configuration locked. A view could not stay: it reads the files at every query,
    which needs external access, and DuckDB's ``allowed_directories`` would let a query
    write into ``DIR/runs`` as well as read it.
    """
    duckdb = need("duckdb", "sweep query")
    _check_duckdb_version(duckdb.__version__)
    runs = Path(out) / "runs"
    files = sorted(runs.glob("*.parquet")) if runs.is_dir() else []
    if not files:
        from ssdlab.api import ConfigError

        raise ConfigError(f"{out}: no sweep results (expected {runs}/*.parquet)")
    con = duckdb.connect()  # a new in-memory database, gone when it is closed
    try:
        names = ", ".join("'" + str(f).replace("'", "''") + "'" for f in files)
        con.execute(
            f"CREATE TABLE runs AS SELECT * FROM read_parquet([{names}], union_by_name = true)"
        )
        known = {n for (n,) in con.execute("SELECT name FROM duckdb_settings()").fetchall()}
        for name, value in _LOCKDOWN:
            if name in known or name in _REQUIRED:
                con.execute(f"SET {name} = {value}")
    except BaseException:
        con.close()
        raise
    return con


#: The oldest DuckDB a query may run on (pyproject.toml says the same): 1.1.0 is the
#: first whose `sniff_csv` obeys `enable_external_access = false` (0.10.1 to 1.0.0 read
#: any file of the machine with it); `extract_statements` (:func:`check_query`) came in
#: 0.10.1. Measured with tests/test_sweep_query_security.py on each release.
MIN_DUCKDB = (1, 1, 0)


def _check_duckdb_version(version: str) -> None:
    parts = []
    for p in version.split(".")[:3]:
        digits = "".join(itertools.takewhile(str.isdigit, p))
        parts.append(int(digits or 0))
    if tuple(parts) < MIN_DUCKDB:
        from ssdlab.api import ConfigError

        need_v = ".".join(map(str, MIN_DUCKDB))
        raise ConfigError(
            f"sweep query needs duckdb >= {need_v} (this is {version}, which cannot keep a "
            f"query from reading files): pip install 'duckdb>={need_v}'"
        )


def check_query(con, sql: str) -> None:
    """Refuse ``sql`` unless DuckDB's parser reads it as one read-only query.

    The confinement is the locked configuration of :func:`query_connection`; this check
    adds the contract (one query, nothing created, changed or set, even in memory) and a
    clear message. A PIVOT without its IN list is several statements to DuckDB (it
    creates a type first), so it is refused with a hint.
    """
    from ssdlab.api import ConfigError

    if not sql.strip():
        raise ConfigError(f"sweep query: the SQL is empty (expected {QUERY_ALLOWED})")
    statements = con.extract_statements(sql)
    if not statements:  # only comments or semicolons
        raise ConfigError(f"sweep query: the SQL is empty (expected {QUERY_ALLOWED})")
    if len(statements) > 1:
        raise ConfigError(
            f"sweep query: {len(statements)} statements given (expected {QUERY_ALLOWED})"
        )
    kind = statements[0].type.name
    if kind == "SELECT":
        return
    if kind == "MULTI":
        raise ConfigError(
            "sweep query: a PIVOT without its IN list is several statements to DuckDB (it "
            'creates a type first); name the values: PIVOT runs ON "workload.iodepth" '
            f"IN (1, 4) USING ... (expected {QUERY_ALLOWED})"
        )
    words = _STATEMENT_WORDS.get(kind, kind.replace("_", " "))
    raise ConfigError(f"sweep query: {words} statements are not allowed (expected {QUERY_ALLOWED})")


# DuckDB's statement types, in the words the user wrote (INSTALL parses as LOAD, ...).
_STATEMENT_WORDS = {
    "LOAD": "INSTALL and LOAD",
    "SET": "SET and RESET",
    "VARIABLE_SET": "SET VARIABLE",
    "TRANSACTION": "BEGIN, COMMIT and ROLLBACK",
}


def query(out: str | os.PathLike, sql: str):
    """Run one read-only query over the sweep's runs (table ``runs``) with DuckDB.

    Returns the connection (close it) and the executed cursor. The query sees the
    sweep's results and nothing else: it cannot read or write files, attach databases,
    load extensions or change settings (:func:`query_connection`, :func:`check_query`).
    """
    con = query_connection(out)
    try:
        check_query(con, sql)
        return con, con.execute(sql)
    except BaseException:
        con.close()
        raise

