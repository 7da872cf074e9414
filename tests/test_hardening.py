"""Issue 14, items beyond single bad inputs: every binding turns a Rust panic into
ssdlab.InternalError (never a PanicException traceback), Ctrl-C stops the preparation
of an aged drive within a second, and parallel runs share one memory limit."""

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import ssdlab
from ssdlab import _core

LIB_RS = Path(__file__).resolve().parent.parent / "crates" / "ssdlab-py" / "src" / "lib.rs"


def test_every_binding_is_guarded():
    """Every #[pyfunction] body runs in `guard` and every Session method in
    `self.call`, so a panic anywhere in the core becomes InternalError."""
    src = LIB_RS.read_text()
    funcs = re.findall(r"#\[pyfunction\]\s*(?:#\[[^\]]*\]\s*)*fn (\w+)", src)
    assert len(funcs) >= 10, funcs
    for name in funcs:
        assert f'guard("{name}"' in src, f"{name} is not guarded"
    methods = src.split("#[pymethods]")[1].split("\n}\n")[0]
    for name in re.findall(r"\n    fn (\w+)", methods):
        if name in ("new", "get_max_io_bytes"):
            continue
        assert f'self.call("{name}"' in methods or (
            name == "set_max_io_bytes" and 'self.call("max_io_bytes"' in methods
        ), f"Session.{name} is not guarded"
    assert 'guard("Session"' in methods


PANIC_SCRIPT = """
import ssdlab
from ssdlab import _core
what = {what!r}
try:
    if what == "run":
        ssdlab.run("tiny-test", {{"number_ios": 10}})
    elif what == "validate":
        ssdlab.validate("tiny-test")
    elif what == "validate_workload":
        ssdlab.validate_workload({{"bs": "4k"}}, 1 << 30)
    elif what == "trace_stats":
        ssdlab.trace_stats({trace!r})
    elif what == "presets":
        ssdlab.presets()
    elif what == "job_ios":
        _core.job_ios('{{"rw": "randread"}}', 1 << 30, 1, 0, 5)
    else:
        s = _core.Session("preset", "tiny-test", "tiny-test", [], "fresh", 1)
        for attempt in (1, 2):  # a session that panicked refuses further requests
            try:
                getattr(s, what)(0, 4096) if what in ("read", "write") else s.report()
            except ssdlab.InternalError as e:
                print(attempt, e)
        raise SystemExit(0)
except ssdlab.InternalError as e:
    print(type(e).__module__, type(e).__name__, isinstance(e, RuntimeError), e)
"""


@pytest.mark.parametrize(
    "what",
    ["run", "validate", "validate_workload", "trace_stats", "presets", "job_ios", "Session",
     "read", "write", "report"],
)  # fmt: skip
def test_a_panic_in_any_binding_is_internal_error(tmp_path, what):
    trace = tmp_path / "t.csv"
    trace.write_text("0,R,0,4096\n")
    env = {**os.environ, "SSDLAB_TEST_PANIC": what}
    r = subprocess.run(
        [sys.executable, "-c", PANIC_SCRIPT.format(what=what, trace=str(trace))],
        capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr and "PanicException" not in r.stdout + r.stderr
    assert "panicked" not in r.stderr  # Rust's report stays hidden
    if what in ("read", "write", "report"):
        first, second = r.stdout.splitlines()
        assert "please report it" in first
        assert "make a new one" in second
    else:
        assert r.stdout.startswith("ssdlab InternalError True internal error in the simulator:")
        assert f"a deliberate panic for tests in {what}" in r.stdout
        assert "please report it" in r.stdout


def test_cli_internal_error_exit_status_1():
    env = {**os.environ, "SSDLAB_TEST_PANIC": "run"}
    r = subprocess.run(
        [sys.executable, "-m", "ssdlab", "run", "--device", "tiny-test", "-q", "--number_ios",
         "10"], capture_output=True, text=True, timeout=120, env=env,
    )  # fmt: skip
    assert r.returncode == 1
    assert r.stderr.startswith("ssdlab: internal error in the simulator:")
    assert "please report it" in r.stderr and "Traceback" not in r.stderr


def test_internal_error_is_one_class():
    assert ssdlab.InternalError is _core.InternalError
    assert issubclass(ssdlab.InternalError, RuntimeError)


# ---- Ctrl-C while an aged drive is prepared ------------------------------------------

# A 1 TB drive (client-tlc-dram with twice the blocks): its steady state takes ~5-7 s to
# prepare here (the 512 GB one ~2.3 s since 2026-11-30), so 1.5 s in it is preparing.
# The tests below interrupt it there and check that the interrupt ends the preparation
# rather than waiting for it: answered well before the >= 3.5 s of preparation left.
# The bound is not a latency target (Ctrl-C is answered in tens of ms here); a loaded
# machine only stretches the preparation, so the bound stays far from both outcomes.
ANSWERED_WITHIN_S = 3.0
AGED_1TB = "nand.blocks_per_plane=2732"
AGED = ["--device", "client-tlc-dram", "--set", AGED_1TB,
        "--state", "steady", "-q", "--number_ios", "10"]  # fmt: skip


def test_cli_ctrl_c_during_aged_preparation(tmp_path):
    out = tmp_path / "r.json"
    p = subprocess.Popen(
        [sys.executable, "-m", "ssdlab", "run", *AGED, "--json", str(out)],
        stderr=subprocess.PIPE, text=True,
        # Ctrl-C's default disposition in the child: a background job of a
        # non-interactive shell starts with SIGINT ignored (issue 31).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    time.sleep(1.5)  # preparing (see AGED)
    assert p.poll() is None
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    err = p.communicate(timeout=60)[1]
    took = time.monotonic() - t0
    assert took < ANSWERED_WITHIN_S, took
    assert p.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert not list(tmp_path.iterdir())


PREP_SCRIPT = """
import os, signal, threading, time, ssdlab
from ssdlab import _core
signal.signal(signal.SIGINT, signal.default_int_handler)  # even if started ignored
t0 = None
def later():
    global t0
    time.sleep(1.5)
    t0 = time.monotonic()
    os.kill(os.getpid(), signal.SIGINT)
threading.Thread(target=later, daemon=True).start()
try:
    if {session}:
        _core.Session("preset", "client-tlc-dram", "client-tlc-dram", ["{aged}"], "steady", 1)
    else:
        ssdlab.run("client-tlc-dram", {{"number_ios": 10}}, state="steady", set=["{aged}"])
except KeyboardInterrupt:
    print("interrupted after", time.monotonic() - t0)
"""


@pytest.mark.parametrize("session", [False, True], ids=["run", "Session"])
def test_python_keyboard_interrupt_during_aged_preparation(session):
    r = subprocess.run(
        [sys.executable, "-c", PREP_SCRIPT.format(session=session, aged=AGED_1TB)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("interrupted after"), r.stdout + r.stderr
    assert float(r.stdout.split()[-1]) < ANSWERED_WITHIN_S


# ---- one memory limit for parallel runs ---------------------------------------------


def test_parallel_runs_share_the_memory_limit():
    """Two runs that each fit the limit but not together never hold more than the
    limit at once (the second waits in the core), and report what they would alone."""
    wl = {"rw": "randwrite", "number_ios": 20000}
    with pytest.raises(ssdlab.ConfigError, match=r"needs about (\d+)MiB") as e:
        ssdlab.run("tiny-test", wl, max_memory=1)
    need = int(re.search(r"needs about (\d+)MiB", str(e.value)).group(1)) << 20
    limit = need * 3 // 2
    runs = [
        {"device": "tiny-test", "workload": wl, "state": "steady", "seed": s, "max_memory": limit}
        for s in (1, 2, 3)
    ]
    seen, done = [0], threading.Event()

    def watch():
        while not done.is_set():
            seen[0] = max(seen[0], _core._memory_reserved())
            time.sleep(0.001)

    t = threading.Thread(target=watch)
    t.start()
    try:
        reports = ssdlab.run_many(runs, workers=3)
    finally:
        done.set()
        t.join()
    assert 0 < seen[0] <= limit, (seen[0], limit)
    assert _core._memory_reserved() == 0
    alone = ssdlab.run(**{**runs[1], "max_memory": 0})
    assert reports[1]["write"] == alone["write"]


# ---- the Python API: values of the wrong type or range are ConfigError (audit) -------

T = "/nonexistent-trace.csv"


@pytest.mark.parametrize(
    "call,field",
    [
        (lambda: ssdlab.run("tiny-test", {"number_ios": float("nan")}), "number_ios"),
        (lambda: ssdlab.run("tiny-test", {"trace": {"path": T, "speedup": float("inf")}}),
         "trace.speedup"),
        (lambda: ssdlab.run("tiny-test", set={"nand.t_read": float("nan")}), "nand.t_read"),
        (lambda: ssdlab.run({"nand": {"channels": float("nan")}}), "nand.channels"),
        (lambda: ssdlab.run({"nand": {1, 2}}), "device"),
        (lambda: ssdlab.run("tiny-test", {"jobs": "x"}, queues=2), "jobs"),
        (lambda: ssdlab.run("tiny-test", max_memory=2**64), "max_memory"),
        (lambda: ssdlab.run("tiny-test", progress="yes"), "progress"),
        (lambda: ssdlab.run_many([{"device": "tiny-test", "nope": 1}]), "nope"),
        (lambda: ssdlab.run_many([{"device": "tiny-test"}], workers=0), "workers"),
        (lambda: ssdlab.validate_workload({"bs": "4k"}, -1), "capacity_bytes"),
        (lambda: ssdlab.validate_workload({"bs": "4k"}, 2**70), "capacity_bytes"),
        (lambda: ssdlab.validate_workload({"bs": "4k"}, "1GB"), "capacity_bytes"),
        (lambda: ssdlab.trace_stats(None), "path"),
        (lambda: ssdlab.trace_stats(T, skip_bad_lines=-1), "skip_bad_lines"),
        (lambda: ssdlab.trace_stats(T, disk=-1), "disk"),
        (lambda: ssdlab.replay(T, "tiny-test", iodepth="x"), "iodepth"),
        (lambda: ssdlab.replay(T, "tiny-test", max_requests=0), "max_requests"),
        (lambda: ssdlab.preset_toml(5), "device"),
        (lambda: ssdlab.named_workload(5), "workload"),
        (lambda: ssdlab.run("tiny-test", {"bs": [None]}), "bs[0]"),
    ],
)  # fmt: skip
def test_api_bad_values_are_config_errors(call, field):
    with pytest.raises(ssdlab.ConfigError, match=re.escape(field)):
        call()
