"""``ssdlab sweep``: run a grid, query its results with SQL, or write its HTML report.

ssdlab sweep GRID.toml [--out DIR] [--workers N] [--processes | --scheduler ADDR]
ssdlab sweep query DIR "SQL"          (one read-only DuckDB query over the table ``runs``,
                                      which sees nothing else; prints CSV)
ssdlab sweep report DIR [--out FILE]  (one self-contained HTML page)
"""

from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

from ssdlab.cliutil import UsageError

USAGE = """\
ssdlab sweep GRID.toml [--out DIR] [--workers N] [--processes | --scheduler tcp://HOST:PORT]
                       [--retry-failed] [--no-reuse-prep] [--max-points N] [-q]
ssdlab sweep query DIR "SQL"
ssdlab sweep report DIR [--out FILE.html]"""


def register(sub) -> None:
    p = sub.add_parser(
        "sweep",
        help="run a grid of runs (resumable, Parquet results); query or report them",
        usage=USAGE,
        description="GRID.toml: run every point of a grid (docs/sweeps.md); "
        "query: one read-only SQL query over a results directory (table 'runs'; no files, "
        "extensions or settings), printed as CSV; "
        "report: an HTML page of every metric against every axis.",
    )
    p.add_argument("target", metavar="GRID.toml|query|report", help="a grid file, or a verb")
    p.add_argument("rest", nargs="*", metavar="ARG", help="query: DIR SQL; report: DIR")
    p.add_argument(
        "--out",
        help="results directory (default out/sweep-GRIDNAME); "
        "for report: the HTML file (default DIR/report.html)",
    )
    p.add_argument("--workers", type=int, help="local workers (default: every core)")
    p.add_argument(
        "--processes", action="store_true", help="local worker processes instead of threads"
    )
    p.add_argument("--scheduler", metavar="tcp://HOST:PORT", help="run on a running Dask scheduler")
    p.add_argument(
        "--retry-failed", action="store_true", help="run points that failed before again"
    )
    p.add_argument(
        "--no-reuse-prep",
        action="store_true",
        help="prepare the drive for every point (default: once per device, state and seed)",
    )
    p.add_argument(
        "--max-points",
        type=int,
        metavar="N",
        help="refuse a grid of more than N points (default: the grid's max_points, else 10000)",
    )
    p.add_argument("--quiet", "-q", action="store_true", help="no progress bar, no summary")
    p.set_defaults(func=cmd_sweep)


def cmd_sweep(args: argparse.Namespace) -> int:
    if args.target == "query":
        if len(args.rest) != 2:
            raise UsageError(
                'sweep query: expected DIR and "SQL", e.g. '
                'ssdlab sweep query out/sweep-x "SELECT count(*) FROM runs"'
            )
        return _query(*args.rest)
    if args.target == "report":
        if len(args.rest) != 1:
            raise UsageError("sweep report: expected one results directory")
        from ssdlab.sweep.report import write_report

        path = write_report(args.rest[0], args.out)
        if not args.quiet:
            print(path)
        return 0
    if args.rest:
        raise UsageError(f"sweep: unexpected argument(s) {' '.join(args.rest)} after the grid")
    return _run_grid(args)


QUERY_BATCH_ROWS = 10_000


def _query(out: str, sql: str) -> int:
    from ssdlab.sweep.store import query

    con = None
    try:
        con, cur = query(out, sql)
        header = [d[0] for d in cur.description or ()]
        if header:
            # Streamed in batches: a result of 10^8 rows (`SELECT * FROM range(100000000)`)
            # was fetched whole and raised MemoryError (issue 31's second audit).
            w = csv.writer(sys.stdout, lineterminator="\n")
            w.writerow(header)
            while rows := cur.fetchmany(QUERY_BATCH_ROWS):
                w.writerows(tuple(_cell(v) for v in row) for row in rows)
    except Exception as e:
        if _interrupted(e):  # Ctrl-C, reported by DuckDB as its own error
            raise KeyboardInterrupt from None
        if "duckdb" not in type(e).__module__:
            raise
        first, _, rest = str(e).strip().partition("\n")
        if type(e).__name__ == "PermissionException":
            first += " (a sweep query sees only the table runs: no files, databases or extensions)"
        raise UsageError(f"sweep query: {first}" + (f"\n{rest}" if rest else "")) from None
    finally:
        if con is not None:
            con.close()
    return 0


def _cell(v):
    """A float with 15 significant digits (an average printed 58.706999999999994 where the
    values it averaged were 58.707); every other value as it comes."""
    return format(v, ".15g") if isinstance(v, float) else v


def _interrupted(e: Exception) -> bool:
    """DuckDB's error for a query stopped by Ctrl-C (a RuntimeError in its Python client)."""
    return type(e).__name__ == "InterruptException" or (
        isinstance(e, RuntimeError) and str(e) == "Query interrupted"
    )


def _run_grid(args: argparse.Namespace) -> int:
    from ssdlab.sweep.engine import run_points
    from ssdlab.sweep.grid import expand

    grid = Path(args.target)
    try:
        is_file = grid.is_file()
    except OSError as e:  # a name too long, a loop of symlinks
        is_file, why = False, f" ({e.strerror or e})"
    else:
        why = ""
    if not is_file:
        from ssdlab.outputs import shown

        raise UsageError(f"sweep: '{shown(str(grid))}' is not a grid file (nor query/report){why}")
    if args.workers is not None and args.workers < 1:
        raise UsageError(f"--workers: '{args.workers}' must be a positive integer")
    if args.scheduler and args.processes:
        raise UsageError("--scheduler and --processes: choose one executor")
    if args.max_points is not None and args.max_points < 1:
        raise UsageError(f"--max-points: '{args.max_points}' must be a positive integer")
    points = expand(grid, args.max_points)
    out = args.out or f"out/sweep-{grid.stem}"
    from ssdlab import outputs

    outputs.check_dir(out, "--out", ("runs",))
    executor, close = _executor(args)
    try:
        df = run_points(
            points,
            out,
            executor=executor,
            workers=args.workers,
            retry_failed=args.retry_failed,
            reuse_prep=not args.no_reuse_prep,
            progress=False if args.quiet else None,
        )
    except KeyboardInterrupt:
        runs = Path(out) / "runs"
        kept = len(list(runs.glob("*.parquet"))) if runs.is_dir() else 0
        print(
            f"sweep: stopped; {kept} finished point(s) kept in {out} "
            "(the same command resumes with the others)",
            file=sys.stderr,
        )
        raise
    finally:
        close()
    failed = int((df["status"] != "ok").sum())
    if not args.quiet:
        skipped, ran = df.attrs.get("skipped", 0), df.attrs.get("ran", len(df))
        print(
            f"{len(df)} points: {ran} run now, {skipped} skipped (already in {out}); "
            f"{len(df) - failed} ok, {failed} failed -> {out}"
        )
        for err in df.loc[df["status"] != "ok", "error"].head(3):
            print(f"  failed: {err}")
    return 1 if failed else 0


def _executor(args: argparse.Namespace):
    if args.scheduler:
        try:
            from dask.distributed import Client
        except ImportError:
            raise UsageError("--scheduler needs Dask: pip install 'ssdlab[dask]'") from None
        try:
            client = Client(args.scheduler, timeout="20s")
        except OSError as e:
            raise UsageError(f"--scheduler: cannot connect to {args.scheduler}: {e}") from None
        return client.get_executor(), client.close
    if args.processes:
        from ssdlab.sweep.engine import process_pool

        pool = process_pool(args.workers)
        return pool, lambda: pool.shutdown(wait=True, cancel_futures=True)
    return None, lambda: None
