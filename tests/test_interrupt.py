"""Ctrl-C while waiting on workers (ssdlab.interrupt): the KeyboardInterrupt is raised by
the waiting loop between waits, never inside a lock's wait (where it broke the lock and
surfaced as 'RuntimeError: release unlocked lock')."""

import signal
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import os, signal, threading, time, traceback
    from concurrent.futures import ThreadPoolExecutor
    from ssdlab.interrupt import completed, sigint_deferred

    pool = ThreadPoolExecutor(1)
    release = threading.Event()
    fut = pool.submit(release.wait)
    seen = []
    def kill_soon():
        time.sleep(0.2)
        seen.append(signal.getsignal(signal.SIGINT))
        os.kill(os.getpid(), signal.SIGINT)
    threading.Thread(target=kill_soon).start()
    try:
        with sigint_deferred() as flag:
            list(completed([fut], flag))
    except KeyboardInterrupt as e:
        last = traceback.extract_tb(e.__traceback__)[-1]
        print("raised-in", last.name, os.path.basename(last.filename))
    print("deferred", seen[0] is not signal.default_int_handler)
    print("restored", signal.getsignal(signal.SIGINT) is signal.default_int_handler)
    release.set()
    pool.shutdown()
    """
)


def test_a_ctrl_c_while_waiting_is_raised_between_waits_and_the_handler_restored():
    r = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    lines = r.stdout.split("\n")
    assert lines[0] == "raised-in check interrupt.py", r.stdout
    assert lines[1:3] == ["deferred True", "restored True"], r.stdout


def test_a_callers_own_sigint_handler_is_left_alone():
    from ssdlab.interrupt import sigint_deferred

    def mine(signum, frame):
        pass

    previous = signal.signal(signal.SIGINT, mine)
    try:
        with sigint_deferred() as flag:
            assert signal.getsignal(signal.SIGINT) is mine
        assert not flag.hit
    finally:
        signal.signal(signal.SIGINT, previous)
