"""Ctrl-C while this process waits on worker threads or processes.

CPython runs a signal's Python handler in the main thread between two bytecodes, so
the default handler's KeyboardInterrupt can land anywhere, including inside
``threading.Condition.wait`` after it released its lock and before it took it back:
the wait's ``with`` block then fails with ``RuntimeError: release unlocked lock`` in
place of the KeyboardInterrupt (a sweep's Ctrl-C ended with a traceback and exit 1,
not 130, once in CI).

``sigint_deferred()`` makes SIGINT only set a flag while a caller waits on futures, and
``completed()`` waits in short slices (``POLL_S``) and raises KeyboardInterrupt itself,
at a point where it holds no lock. Only in the main thread and only when SIGINT has
Python's default handler: a handler the caller installed (or SIG_IGN) is left alone,
and the wait then behaves as ``as_completed`` does.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, wait
from contextlib import contextmanager

POLL_S = 0.05  # how often a deferred Ctrl-C is looked at while waiting


class Interrupted:
    """Whether SIGINT arrived while deferred (a plain attribute: the handler takes no
    lock, so it cannot interrupt one it needs)."""

    def __init__(self) -> None:
        self.hit = False

    def check(self) -> None:
        if self.hit:
            raise KeyboardInterrupt


@contextmanager
def sigint_deferred() -> Iterator[Interrupted]:
    """Within the block SIGINT sets the flag returned instead of raising; the previous
    handler is back when the block ends, whichever way it ends."""
    flag = Interrupted()
    deferrable = (
        threading.current_thread() is threading.main_thread()
        and signal.getsignal(signal.SIGINT) is signal.default_int_handler
    )
    if not deferrable:
        yield flag
        return

    def note(signum, frame) -> None:
        flag.hit = True

    previous = signal.signal(signal.SIGINT, note)
    try:
        yield flag
    finally:
        signal.signal(signal.SIGINT, previous)


def completed(futures: Iterable[Future], flag: Interrupted) -> Iterator[Future]:
    """The futures as they finish (like ``as_completed``); KeyboardInterrupt from here
    once ``flag`` is set, within ``POLL_S``."""
    pending = set(futures)
    while pending:
        flag.check()
        done, pending = wait(pending, timeout=POLL_S, return_when=FIRST_COMPLETED)
        flag.check()
        yield from done
