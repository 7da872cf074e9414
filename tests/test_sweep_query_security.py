"""`ssdlab sweep query DIR "SQL"` sees the sweep's results and nothing else.

Each attack of the issue is run against a small sweep: no file may be written (outside the
directory or into DIR/runs), no database attached, no file or directory of the machine read,
no extension installed or loaded, no setting changed; an empty query is one clear error.
The confinement is DuckDB's own (external access disabled, configuration locked, over an
in-memory copy of the results), plus a check that the SQL is one read-only query
(docs/sweeps.md, "Query"; docs/reliability.md, "Sweep queries").
"""

import subprocess
import sys

import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("pandas")
pytest.importorskip("duckdb")

import duckdb
import ssdlab
from ssdlab.cli import main
from ssdlab.sweep.store import query, query_connection

GRID = (
    '[base]\ndevice = "tiny-test"\nworkload = { number_ios = 300 }\n'
    '[axes]\n"workload.iodepth" = [1, 4]\n'
)
SECRET = "top-secret-line-4242"
ALLOWED = "expected one read-only query over the table runs"


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    """A two-point sweep on tiny-test, a private file beside it and an outside directory."""
    root = tmp_path_factory.mktemp("q")
    (root / "grid.toml").write_text(GRID)
    out = root / "sweep"
    df = ssdlab.sweep(root / "grid.toml", out=out)
    assert len(df) == 2 and set(df["status"]) == {"ok"}
    (root / "secret.csv").write_text(f"a,b\n{SECRET},1\n")
    (root / "secret.json").write_text(f'{{"a": "{SECRET}"}}\n')
    (root / "outside").mkdir()
    return out


def run_query(out, sql, capsys):
    rc = main(["sweep", "query", str(out), sql])
    cap = capsys.readouterr()
    return rc, cap.out, cap.err


def snapshot(out):
    """The results as a full-access DuckDB sees them (the reference), and the file names."""
    con = duckdb.connect()
    pattern = str(out / "runs" / "*.parquet")
    rel = con.execute(
        f"SELECT * FROM read_parquet('{pattern}', union_by_name = true) ORDER BY run_id"
    )
    cols = [(d[0], str(d[1])) for d in rel.description]
    rows = rel.fetchall()
    con.close()
    return cols, rows, sorted(p.name for p in (out / "runs").iterdir())


def refused(rc, stdout, stderr, *words):
    assert rc == 2, (stdout, stderr)
    assert stderr.startswith("ssdlab: error: sweep query: "), stderr
    assert "Traceback" not in stderr and SECRET not in stdout + stderr
    for w in words:
        assert w in stderr, stderr


# -- the results are unchanged and ordinary queries work -------------------------------


def test_the_table_runs_is_the_sweeps_results_unchanged(sweep):
    cols, rows, _ = snapshot(sweep)
    con, cur = query(sweep, "SELECT * FROM runs ORDER BY run_id")
    try:
        assert [(d[0], str(d[1])) for d in cur.description] == cols
        assert cur.fetchall() == rows
        # only the results: one table, nothing attached beyond DuckDB's own catalogs
        assert con.execute("SHOW TABLES").fetchall() == [("runs",)]
    finally:
        con.close()


@pytest.mark.parametrize(
    "sql, first_line",
    [
        (
            'SELECT "workload.iodepth" AS qd, read_total_ios FROM runs ORDER BY qd',
            "qd,read_total_ios",
        ),
        ("SELECT count(*) AS n FROM runs WHERE status = 'ok'", "n"),
        ('WITH r AS (SELECT "workload.iodepth" AS qd FROM runs) SELECT max(qd) AS m FROM r', "m"),
        ("FROM runs SELECT run_id ORDER BY run_id LIMIT 1", "run_id"),
        ("DESCRIBE runs", "column_name,column_type"),
        ("SHOW TABLES", "name"),
        ("SUMMARIZE SELECT read_iops FROM runs", "column_name,column_type"),
        (
            'PIVOT runs ON "workload.iodepth" IN (1, 4) USING sum(read_total_ios) GROUP BY device',
            "device,1,4",
        ),
        ("SELECT 1 AS one;", "one"),
    ],
)
def test_read_only_queries_work(sweep, capsys, sql, first_line):
    rc, stdout, stderr = run_query(sweep, sql, capsys)
    assert rc == 0, stderr
    assert stdout.splitlines()[0].startswith(first_line)
    assert len(stdout.splitlines()) >= 2


def test_the_documented_query_of_test_sweep_still_prints_the_same(sweep, capsys):
    rc, stdout, _ = run_query(
        sweep, 'SELECT "workload.iodepth" AS qd, read_total_ios FROM runs ORDER BY qd', capsys
    )
    assert rc == 0 and stdout == "qd,read_total_ios\n1,300\n4,300\n"


# -- writing: nothing outside, nothing into the sweep ----------------------------------


def test_copy_to_a_file_outside_writes_nothing(sweep, capsys):
    target = sweep.parent / "outside" / "x.csv"
    refused(*run_query(sweep, f"COPY (SELECT * FROM runs) TO '{target}'", capsys), "COPY", ALLOWED)
    assert not target.exists()


def test_copy_into_the_sweeps_runs_injects_nothing(sweep, capsys):
    before = snapshot(sweep)
    evil = sweep / "runs" / "evil.parquet"
    sql = f"COPY (SELECT * REPLACE ('evil' AS run_id) FROM runs) TO '{evil}' (FORMAT parquet)"
    refused(*run_query(sweep, sql, capsys), "COPY")
    assert not evil.exists()
    assert snapshot(sweep) == before
    rc, stdout, _ = run_query(sweep, "SELECT count(*) AS n FROM runs", capsys)
    assert rc == 0 and stdout == "n\n2\n"


def test_attach_creates_no_database(sweep, capsys):
    db = sweep.parent / "outside" / "x.duckdb"
    refused(*run_query(sweep, f"ATTACH '{db}' AS x", capsys), "ATTACH")
    assert not db.exists() and not db.with_name("x.duckdb.wal").exists()


def test_export_database_writes_nothing(sweep, capsys):
    target = sweep.parent / "outside" / "export"
    refused(*run_query(sweep, f"EXPORT DATABASE '{target}'", capsys), "EXPORT")
    assert not target.exists()


@pytest.mark.parametrize(
    "template",
    [
        "SELECT 1; COPY (SELECT 1) TO '{t}'",  # a second statement
        "COPY (PIVOT runs ON status USING count(*)) TO '{t}'",  # hidden in a PIVOT
        "EXPLAIN ANALYZE COPY (SELECT 1) TO '{t}'",  # EXPLAIN ANALYZE runs its statement
    ],
)
def test_copy_hidden_in_other_statements_writes_nothing(sweep, capsys, template):
    target = sweep.parent / "outside" / "hidden.csv"
    refused(*run_query(sweep, template.format(t=target), capsys), ALLOWED)
    assert not target.exists()


# -- reading: no file or directory of the machine -------------------------------------


@pytest.mark.parametrize(
    "template",
    [
        "SELECT * FROM read_csv('{f}')",
        "SELECT * FROM read_csv_auto('{f}')",
        "SELECT * FROM '{f}'",
        "SELECT * FROM read_text('{f}')",
        "SELECT * FROM read_blob('{f}')",
        "SELECT * FROM read_json('{j}')",
        "SELECT * FROM '{j}'",
        "SELECT * FROM sniff_csv('{f}')",
        "SELECT * FROM glob('{d}/*')",
        "SELECT * FROM read_parquet('{runs}/*.parquet')",  # even the sweep's own files
    ],
)
def test_no_file_of_the_machine_can_be_read(sweep, capsys, template):
    secret = sweep.parent / "secret.csv"
    sql = template.format(
        f=secret, j=secret.with_suffix(".json"), d=sweep.parent, runs=sweep / "runs"
    )
    rc, stdout, stderr = run_query(sweep, sql, capsys)
    refused(rc, stdout, stderr)
    assert stdout == ""


@pytest.mark.skipif(sys.platform != "linux", reason="the issue's files are Linux's")
@pytest.mark.parametrize(
    "sql", ["SELECT * FROM read_csv('/etc/passwd')", "SELECT * FROM glob('/etc/*')"]
)
def test_the_issues_reads_of_etc_are_refused(sweep, capsys, sql):
    rc, stdout, stderr = run_query(sweep, sql, capsys)
    refused(rc, stdout, stderr, "no files, databases or extensions")
    assert stdout == "" and "root" not in stdout


def test_python_variables_are_not_tables(sweep):
    """DuckDB's Python client would read a DataFrame of the caller by its name."""
    import pandas as pd

    con = query_connection(sweep)
    try:
        hidden_frame = pd.DataFrame({"a": [SECRET]})
        assert len(hidden_frame) == 1
        with pytest.raises(duckdb.Error):
            con.execute("SELECT * FROM hidden_frame").fetchall()
    finally:
        con.close()


# -- extensions and settings -----------------------------------------------------------


@pytest.mark.parametrize(
    "sql", ["INSTALL httpfs", "LOAD httpfs", "LOAD json", "FORCE INSTALL sqlite_scanner"]
)
def test_extensions_can_be_neither_installed_nor_loaded(sweep, capsys, sql):
    refused(*run_query(sweep, sql, capsys), "INSTALL and LOAD statements are not allowed")


@pytest.mark.parametrize(
    "sql, words",
    [
        ("SET enable_external_access = true", "SET and RESET"),
        ("RESET enable_external_access", "SET and RESET"),
        ("SET lock_configuration = false", "SET and RESET"),
        ("PRAGMA enable_profiling", "PRAGMA"),
        ("CALL enable_logging()", "CALL"),
        ("CREATE TABLE t AS SELECT 1", "CREATE"),
        ("INSERT INTO runs (run_id) VALUES ('evil')", "INSERT"),
        ("DROP TABLE runs", "DROP"),
    ],
)
def test_settings_and_changes_are_refused(sweep, capsys, sql, words):
    refused(*run_query(sweep, sql, capsys), words, ALLOWED)


def test_the_configuration_is_locked_even_without_the_statement_check(sweep, tmp_path):
    """The statement check is the contract; DuckDB's settings are the confinement."""
    con = query_connection(sweep)
    try:
        got = con.execute(
            "SELECT current_setting('enable_external_access'), "
            "current_setting('lock_configuration'), current_setting('temp_directory')"
        ).fetchone()
        assert got == (False, True, "")  # no spill files either
        for sql in (
            "SET enable_external_access = true",
            "RESET enable_external_access",
            "SET lock_configuration = false",
            "SET temp_directory = '/tmp'",
        ):
            with pytest.raises(duckdb.Error, match="locked"):
                con.execute(sql)
        for sql in (
            f"COPY runs TO '{tmp_path / 'x.csv'}'",
            f"COPY runs TO '{sweep / 'runs' / 'evil.parquet'}' (FORMAT parquet)",
            f"ATTACH '{tmp_path / 'x.duckdb'}'",
            "INSTALL httpfs",
            "LOAD httpfs",
        ):
            with pytest.raises(duckdb.Error):
                con.execute(sql)
        assert list(tmp_path.iterdir()) == []
        assert not (sweep / "runs" / "evil.parquet").exists()
    finally:
        con.close()


# -- empty queries ---------------------------------------------------------------------


@pytest.mark.parametrize("sql", ["", "   ", "\n\t ", "-- only a comment", ";"])
def test_an_empty_query_is_one_clear_error(sweep, capsys, sql):
    refused(*run_query(sweep, sql, capsys), "the SQL is empty", ALLOWED)


def test_an_empty_query_from_the_command_line(sweep):
    for sql in ("", "   "):
        r = subprocess.run(
            [sys.executable, "-m", "ssdlab", "sweep", "query", str(sweep), sql],
            capture_output=True,
            text=True,
        )
        assert r.returncode == 2, r.stderr
        assert r.stderr.startswith("ssdlab: error: sweep query: the SQL is empty"), r.stderr
        assert "Traceback" not in r.stderr and r.stdout == ""


# -- Ctrl-C ----------------------------------------------------------------------------


def test_a_query_stopped_by_ctrl_c_is_reported_as_an_interrupt(sweep, capsys, monkeypatch):
    """DuckDB reports Ctrl-C during a query as RuntimeError("Query interrupted"): that was
    a traceback with exit status 1; it is `ssdlab: interrupted`, 130, like every command.
    (Whether DuckDB notices the signal at all is up to DuckDB: often it does not.)"""
    store = sys.modules[query.__module__]  # ssdlab.sweep is also the function sweep

    def interrupted(out, sql):
        raise RuntimeError("Query interrupted")

    monkeypatch.setattr(store, "query", interrupted)
    assert main(["sweep", "query", str(sweep), "SELECT 1"]) == 130
    cap = capsys.readouterr()
    assert cap.err == "ssdlab: interrupted\n" and cap.out == ""
