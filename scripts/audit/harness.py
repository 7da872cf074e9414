"""The audit's runner: run one case in a sandbox and classify what happened.

A case is a command (the CLI, a Python snippet through the API, or a Python driver
that talks to `ssdlab serve` over a raw socket) run in its own directory with a time
limit and an address-space limit. Its outcome is one of:

- ``error``: a clean refusal: exit status 2, the last line of stderr ``ssdlab: error: ...``
  (or the API's ``ConfigError`` printed the same way by the snippet wrapper), naming
  what the case says it must name (the field, ``file:line``, the flag);
- ``ok``: success (exit status 0), and the case's own check of the result passed;
- ``vague``: a clean refusal that does not name what it must;
- ``crash``: a traceback, a Rust panic, an internal error, a signal, another status;
- ``hang``: the time limit passed (the whole process group is killed);
- ``oom``: the address-space limit was hit, or the peak RSS passed the case's bound;
- ``wrong``: a silent wrong answer: success where a refusal was due, or a result the
  case's check rejects;
- ``outside``: a file written outside the places the case allows (its ``out*`` paths;
  everything else in the sandbox, and the watched ``outside/`` directory, must stay as it
  was).

A case with ``expect="any"`` accepts a clean refusal or a success (hostile inputs where
either is right); the bad outcomes above are bad for every case.
"""

from __future__ import annotations

import os
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

GOOD = ("error", "ok")
BAD = ("vague", "crash", "hang", "oom", "wrong", "outside")

# Python snippets run through the API: ConfigError printed like the CLI's errors.
API_PRELUDE = """\
import sys, ssdlab
def _main():
{body}
try:
    _main()
except ssdlab.ConfigError as e:
    print(f"ssdlab: error: {{e}}", file=sys.stderr)
    sys.exit(2)
"""


@dataclass
class Case:
    surface: str
    name: str
    argv: list[str]
    expect: str = "error"  # "error", "ok" or "any"
    needle: str | tuple[str, ...] = ""  # what a refusal must name (any of them)
    check: Callable[[subprocess.CompletedProcess, Path], str | None] | None = None
    setup: Callable[[Path], None] | None = None
    timeout: float = 60.0
    max_rss_mib: int = 1500
    allowed: tuple[str, ...] = ("out",)  # sandbox-relative prefixes a case may write
    stdin: bytes | None = None
    quick: bool = False  # in the pytest subset
    teardown: Callable[[Path], None] | None = None
    env: dict = field(default_factory=dict)


@dataclass
class Outcome:
    case: Case
    kind: str
    detail: str
    seconds: float
    rss_mib: float
    returncode: int | None


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "ssdlab", *args]


def api(body: str) -> list[str]:
    body = "\n".join("    " + ln for ln in body.strip("\n").splitlines())
    return [sys.executable, "-c", API_PRELUDE.format(body=body)]


def _snapshot(root: Path) -> dict[str, tuple[int, int]]:
    out = {}
    for dirpath, dirs, files in os.walk(root):
        for n in files + [d for d in dirs if os.path.islink(os.path.join(dirpath, d))]:
            p = os.path.join(dirpath, n)
            try:
                st = os.lstat(p)
            except OSError:
                continue
            out[os.path.relpath(p, root)] = (st.st_size, st.st_mtime_ns)
    return out


def _limits(as_bytes: int):
    def pre():
        os.setsid()
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        resource.setrlimit(resource.RLIMIT_AS, (as_bytes, as_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return pre


def _name_ok(stderr: str, needle) -> bool:
    needles = (needle,) if isinstance(needle, str) else needle
    return any(n.lower() in stderr.lower() for n in needles if n) or not any(needles)


def run_case(case: Case, root: Path, as_gib: float = 6.0) -> Outcome:
    box = root / "box"
    outside = root / "outside"
    if root.exists():
        shutil.rmtree(root)
    box.mkdir(parents=True)
    outside.mkdir()
    (box / "out").mkdir()
    if case.setup:
        case.setup(box)
    before = _snapshot(box)
    env = dict(os.environ)
    env.update({"HOME": str(box), "TMPDIR": str(box / "out-tmp"), "AUDIT_OUTSIDE": str(outside)})
    env.update(case.env)
    (box / "out-tmp").mkdir(exist_ok=True)
    argv = [a.replace("{box}", str(box)).replace("{outside}", str(outside)) for a in case.argv]
    t0 = time.monotonic()
    proc = subprocess.Popen(
        argv,
        cwd=box,
        env=env,
        stdin=subprocess.PIPE if case.stdin is not None else subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=_limits(int(as_gib * 2**30)),
    )
    bufs: dict[str, bytes] = {}

    def pump(name, f):
        bufs[name] = f.read()

    readers = [
        threading.Thread(target=pump, args=("out", proc.stdout), daemon=True),
        threading.Thread(target=pump, args=("err", proc.stderr), daemon=True),
    ]
    for t in readers:
        t.start()
    if case.stdin is not None:
        try:
            proc.stdin.write(case.stdin)
            proc.stdin.close()
        except OSError:
            pass
    # wait4 gives this child's own peak RSS (RUSAGE_CHILDREN mixes parallel cases).
    hung, status, rss = False, 0, 0.0
    while True:
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            rss = ru.ru_maxrss / 1024
            break
        if time.monotonic() - t0 > case.timeout:
            hung = True
            _kill_group(proc.pid)
            _, status, ru = os.wait4(proc.pid, 0)
            rss = ru.ru_maxrss / 1024
            break
        time.sleep(0.01)
    secs = time.monotonic() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    _kill_group(proc.pid)  # anything it left behind (fio, a server)
    for t in readers:
        t.join(timeout=5)
    stdout = bufs.get("out", b"").decode("utf-8", "replace")
    stderr = bufs.get("err", b"").decode("utf-8", "replace")
    res = subprocess.CompletedProcess(argv, proc.returncode, stdout, stderr)
    kind, detail = classify(case, res, hung, box)
    if case.teardown:
        case.teardown(box)
    if kind in GOOD and rss > case.max_rss_mib:
        kind, detail = "oom", f"peak RSS {rss:.0f} MiB, more than the case's {case.max_rss_mib} MiB"
    if kind in GOOD:
        written = _written_outside(case, before, _snapshot(box), outside)
        if written:
            kind, detail = "outside", "wrote " + ", ".join(written[:5])
    shutil.rmtree(root, ignore_errors=True)
    return Outcome(case, kind, detail, secs, rss, proc.returncode)


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _written_outside(case: Case, before, after, outside: Path) -> list[str]:
    bad = []
    for p, st in after.items():
        # HOME is the sandbox: a library's own cache there (matplotlib's font list in
        # ~/.cache) is the library's business, not a file the case wrote.
        own = p.startswith(("out-tmp", ".cache/"))
        if own or any(p == a or p.startswith(a) for a in case.allowed):
            continue
        if before.get(p) != st:
            bad.append(p)
    bad += [f"outside/{p}" for p in _snapshot(outside)]
    return bad


def last_line(text: str) -> str:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    return lines[-1] if lines else ""


def classify(case: Case, res: subprocess.CompletedProcess, hung: bool, box: Path):
    err = res.stderr
    if hung:
        return "hang", f"no exit in {case.timeout:.0f} s; stderr: {last_line(err)[:160]}"
    rc = res.returncode
    # Driver scripts (signals, serve clients) report what they saw with these tags.
    for tag, kind in (
        ("AUDIT-HANG:", "hang"),
        ("AUDIT-CRASH:", "crash"),
        ("AUDIT-OOM:", "oom"),
        ("AUDIT-WRONG:", "wrong"),
    ):
        if tag in err:
            return kind, err[err.index(tag) :].splitlines()[0][:240]
    if (
        "MemoryError" in err
        or "memory allocation of" in err
        or "std::bad_alloc" in err
        or "Cannot allocate memory" in err
        or rc in (-signal.SIGKILL, 137)
    ):
        return "oom", last_line(err)[:200]
    if "Traceback (most recent call last)" in err or "panicked at" in err:
        return "crash", last_line(err)[:200]
    if rc is not None and rc < 0:
        return "crash", f"signal {-rc}; {last_line(err)[:160]}"
    if "internal error" in err.lower():
        return "crash", last_line(err)[:200]
    if rc == 2:
        # One error, possibly over several lines (a TOML error's excerpt); argparse's own
        # usage errors ("ssdlab run: error: ...") are clean too.
        heads = [ln for ln in err.splitlines() if ln.startswith("ssdlab") and ": error:" in ln]
        if not heads:
            return "vague", f"status 2 without an error line: {last_line(err)[:160]}"
        line = heads[0]
        if case.expect == "ok":
            return "wrong", f"refused a valid input: {line[:200]}"
        if not _name_ok(err, case.needle):
            return "vague", f"does not name {case.needle!r}: {line[:200]}"
        return "error", line[:200]
    if rc == 0:
        if case.expect == "error":
            return "wrong", f"accepted; stdout: {last_line(res.stdout)[:120]}"
        if case.check:
            try:
                msg = case.check(res, box)
            except Exception as e:  # the case's own check failed to read the result
                msg = f"check failed: {type(e).__name__}: {e}"
            if msg:
                return "wrong", msg
        return "ok", last_line(res.stdout)[:120] or last_line(err)[:120]
    return "crash", f"status {rc}; {last_line(err)[:160]}"
