"""A corpus of bad command-line inputs (issue 14): each must exit with status 2, print
``ssdlab: error:`` with a message naming the field (or file:line), and never show a
traceback or a Rust panic. Grows with every defect fixed (docs/reliability.md)."""

import shlex
import subprocess
import sys

import pytest

RUN = "run --device tiny-test -q --number_ios 200"

# (id, command line, text the message must contain). "{tmp}" is a temporary directory
# holding: "ro.json" (read-only), "file" (a regular file), "dir/" (a directory),
# "t.csv" (a one-line trace), "j.fio" (a small fio job).
CASES = [
    # item 1: outputs
    ("json-directory", f"{RUN} --json {{tmp}}/dir", "--json"),
    ("json-read-only", f"{RUN} --json {{tmp}}/ro.json", "read-only"),
    ("json-missing-dir", f"{RUN} --json {{tmp}}/nodir/r.json", "does not exist"),
    ("json-under-file", f"{RUN} --json {{tmp}}/file/r.json", "not a directory"),
    ("json-several-devices-file",
     "run --device tiny-test,tiny-test -q --number_ios 200 --json {tmp}/file", "not a directory"),
    ("trace-json-directory", "trace {tmp}/t.csv --device tiny-test --json {tmp}/dir", "--json"),
    ("fio-output-directory", "fio {tmp}/j.fio --device tiny-test --output {tmp}/dir", "--output"),
    ("probe-out-file", "probe read-cache tiny-test --out {tmp}/file", "--out"),
    ("study-out-file", "study map-cache --quick --out {tmp}/file", "--out"),
    ("bench-json-directory", "bench --quick --json {tmp}/dir", "--json"),
    ("plot-output-directory", "plot lat-cdf {tmp}/file -o {tmp}/dir", "--output"),
]


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    (d / "ro.json").write_text("keep")
    (d / "ro.json").chmod(0o444)
    (d / "file").write_text("x")
    (d / "dir").mkdir()
    (d / "t.csv").write_text("0,R,0,4096\n")
    (d / "j.fio").write_text("[j]\nrw=randread\nbs=4k\nnumber_ios=100\n")
    return d


@pytest.mark.parametrize("argv,needle", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_a_clear_error(tmp, argv, needle):
    argv = shlex.split(argv.replace("{tmp}", str(tmp)))
    r = subprocess.run(
        [sys.executable, "-m", "ssdlab", *argv], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "ssdlab: error:" in r.stderr
    assert needle in r.stderr, r.stderr
    for bad in ("Traceback", "panicked", "PanicException", "RUST_BACKTRACE"):
        assert bad not in r.stderr + r.stdout
