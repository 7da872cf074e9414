"""Audit cases: sweep grids (malformed, absurd, hostile) and `sweep query` (every way
out of the sweep's results: files, COPY, ATTACH, extensions, settings, the sweep's own
Parquet files; and careless SQL)."""

from __future__ import annotations

import atexit
import functools
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from harness import Case, cli

GRID = """\
[base]
device = "tiny-test"
state = "full"
workload = { rw = "randread", bs = "4KiB", number_ios = 200 }
[axes]
"workload.iodepth" = [1, 4]
"""

BAD_GRIDS = {
    "empty": ("[base]\nworkload = { number_ios = 100 }\n", "any"),
    "not-toml": ("[base\n", "error"),
    "binary": (bytes(range(256)) * 10, "error"),
    "unknown-top": (GRID + "bogus = 1\n", "error"),
    "unknown-axis": (GRID + '"workload.bogus" = [1]\n', "error"),
    "empty-axis": (GRID.replace("[1, 4]", "[]"), "error"),
    "axis-not-list": (GRID.replace("[1, 4]", "4"), "error"),
    "bad-point": (GRID.replace("[1, 4]", "[1, 0]"), "error"),
    "zip-mismatch": (
        GRID + '[[zip]]\n"workload.bs" = ["4KiB"]\n"workload.rw" = ["read", "write"]\n',
        "error",
    ),
    "million-points": (
        GRID.replace("[1, 4]", str(list(range(1, 1001))))
        + '"seed" = '
        + str(list(range(1000)))
        + "\n",
        "error",
    ),
    "repeats-2^32+1": ("repeats = 4294967297\n" + GRID, "error"),
    "repeats-neg": ("repeats = -1\n" + GRID, "error"),
    "repeats-with-seed-axis": ("repeats = 2\n" + GRID + "seed = [1, 2]\n", "error"),
    "max-points-huge": ("max_points = 99999999999999999999999\n" + GRID, "any"),
    "device-missing": (GRID.replace('"tiny-test"', '"nope.toml"'), "error"),
    "device-etc-passwd": (GRID.replace('"tiny-test"', '"/etc/passwd"'), "error"),
    "set-unknown": (GRID + '"set.nand.bogus" = [1]\n', "error"),
    "deep-table": ("[base]\n" + "workload = " + "{a = " * 200 + "1" + "}" * 200 + "\n", "error"),
    "state-axis-bad": (GRID + 'state = ["dirty"]\n', "error"),
    "dup-points": (GRID.replace("[1, 4]", "[4, 4, 4]"), "ok"),
}

# SQL that must be refused, and must leave no file behind (the outside/ dir is watched)
HOSTILE_SQL = [
    "COPY (SELECT 1) TO '{outside}/x.csv'",
    "COPY runs TO 'sw/runs/evil.parquet' (FORMAT parquet)",
    "ATTACH '{outside}/x.duckdb' AS x",
    "SELECT * FROM read_csv('/etc/passwd')",
    "SELECT * FROM read_text('/etc/hostname')",
    "SELECT * FROM read_blob('/etc/hostname')",
    "SELECT * FROM glob('/etc/*')",
    "SELECT * FROM '/etc/passwd'",
    "SELECT * FROM read_parquet('sw/runs/*.parquet')",
    "SELECT * FROM sniff_csv('/etc/passwd')",
    "SELECT * FROM read_json('/etc/os-release')",
    "EXPORT DATABASE '{outside}/db'",
    "INSTALL httpfs",
    "LOAD httpfs",
    "SET enable_external_access = true",
    "RESET lock_configuration",
    "PRAGMA enable_profiling",
    "SET profiling_output = '{outside}/p.json'",
    "CALL pragma_version()",
    "CREATE TABLE t AS SELECT 1",
    "INSERT INTO runs SELECT * FROM runs",
    "DELETE FROM runs",
    "DROP TABLE runs",
    "SELECT 1; COPY (SELECT 1) TO '{outside}/y.csv'",
    "EXPLAIN ANALYZE COPY (SELECT 1) TO '{outside}/z.csv'",
    "PIVOT runs ON status",
    "SELECT * FROM read_csv_auto('http://127.0.0.1:1/x.csv')",
    "SELECT getenv('HOME')",
    "SET temp_directory = '{outside}'",
    "CHECKPOINT",
    "VACUUM",
    "USE memory",
    "DETACH memory",
    "SELECT * FROM duckdb_extensions() WHERE installed",
]

CARELESS_SQL = {
    "": "error",
    "   ": "error",
    ";": "error",
    "SELEC 1": "error",
    "SELECT nope FROM runs": "error",
    "SELECT * FROM runs": "ok",
    "SELECT count(*) FROM runs": "ok",
    "SELECT * FROM runs WHERE read_iops > 1e300": "ok",
    "SELECT 1/0": "any",
    "SELECT current_setting('temp_directory')": "ok",
    "SELECT repeat('x', 100000000)": "any",
    "SELECT * FROM range(100000000)": "any",
    "SUMMARIZE runs": "ok",
    "DESCRIBE runs": "ok",
    "SELECT '" + "x" * 100_000 + "'": "any",
    "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r) SELECT * FROM r LIMIT 5": "ok",
}


@functools.lru_cache(maxsize=1)
def _sweep_dir() -> Path:
    """One small sweep, made once and copied into each query case's sandbox."""
    d = Path(tempfile.mkdtemp(prefix="ssdlab-audit-sweep-"))
    atexit.register(shutil.rmtree, d, True)
    (d / "g.toml").write_text(GRID)
    subprocess.run(
        [sys.executable, "-m", "ssdlab", "sweep", str(d / "g.toml"), "--out", str(d / "sw"), "-q"],
        check=True,
        capture_output=True,
    )
    return d / "sw"


def _with_sweep(box: Path):
    shutil.copytree(_sweep_dir(), box / "sw")


def _writer(name, data):
    def setup(box: Path):
        (box / name).write_bytes(data if isinstance(data, bytes) else data.encode())

    return setup


def _results_unchanged(res, box: Path):
    files = sorted(p.name for p in (box / "sw" / "runs").iterdir())
    want = sorted(p.name for p in (_sweep_dir() / "runs").iterdir())
    return None if files == want else f"sw/runs changed: {files}"


def cases() -> list[Case]:
    out = []
    for tag, (text, expect) in BAD_GRIDS.items():
        out.append(
            Case(
                "sweep",
                f"grid:{tag}",
                cli("sweep", "g.toml", "--out", "out/sw", "-q"),
                expect,
                needle=("g.toml", "grid", "point", "repeats", "max_points", "workload", "seed"),
                setup=_writer("g.toml", text),
                timeout=60,
                quick=tag in ("million-points", "repeats-2^32+1"),
            )
        )
    for tag, args in {
        "out-is-file": ["--out", "g.toml"],
        "out-runs-is-file": ["--out", "out/bad"],
        "workers-0": ["--out", "out/sw", "--workers", "0"],
        "workers-neg": ["--out", "out/sw", "--workers", "-3"],
        "max-points-0": ["--out", "out/sw", "--max-points", "0"],
        "scheduler-bogus": ["--out", "out/sw", "--scheduler", "tcp://127.0.0.1:1"],
        "grid-missing": ["--out", "out/sw"],
    }.items():
        grid = "nope.toml" if tag == "grid-missing" else "g.toml"

        def setup(box, _tag=tag):
            (box / "g.toml").write_text(GRID)
            if _tag == "out-runs-is-file":
                (box / "out" / "bad").mkdir()
                (box / "out" / "bad" / "runs").write_text("x")

        out.append(
            Case(
                "sweep",
                f"flag:{tag}",
                cli("sweep", grid, *args, "-q"),
                "error",
                needle=("--out", "--workers", "--max-points", "scheduler", "nope.toml", "runs"),
                setup=setup,
                timeout=60,
                allowed=("out", "g.toml"),
            )
        )
    for i, sql in enumerate(HOSTILE_SQL):
        out.append(
            Case(
                "sweep-query",
                f"hostile#{i}:{sql[:40]}",
                cli("sweep", "query", "sw", sql),
                "error",
                needle=("sweep query",),
                setup=_with_sweep,
                timeout=60,
                check=_results_unchanged,
                allowed=("out",),
                quick=i in (0, 1, 3),
            )
        )
    for sql, expect in CARELESS_SQL.items():
        out.append(
            Case(
                "sweep-query",
                f"careless:{sql[:40]!r}",
                cli("sweep", "query", "sw", sql),
                expect,
                needle=("sweep query",),
                setup=_with_sweep,
                timeout=400 if "range(100000000)" in sql else 60,
                check=_results_unchanged,
                max_rss_mib=2500,
            )
        )
    for tag, d in {
        "dir-missing": "nope",
        "dir-is-file": "sw/runs/../../x",
        "dir-empty": "out",
    }.items():
        out.append(
            Case(
                "sweep-query",
                f"dir:{tag}",
                cli("sweep", "query", d, "SELECT 1"),
                "any",
                needle=(d, "sweep query"),
                setup=_with_sweep,
                timeout=30,
            )
        )
    return out
