"""A one-line progress bar for sweeps on stderr: points done, failed, rate and ETA.

Drawn only when enabled (by default when stderr is a terminal, never with ``-q``);
the rate counts the points run in this invocation, not those found finished.
"""

from __future__ import annotations

import sys
import time


def _duration(s: float) -> str:
    s = round(s)
    if s >= 3600:
        return f"{s // 3600}h{s % 3600 // 60:02d}m"
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


class Progress:
    def __init__(self, total: int, done: int = 0, enabled: bool = True, stream=None):
        self.total, self.skipped, self.done, self.failed = total, done, done, 0
        self.enabled = enabled
        self.stream = stream or sys.stderr
        self.t0 = time.monotonic()
        self._draw()

    def advance(self, failed: bool = False) -> None:
        self.done += 1
        self.failed += int(failed)
        self._draw()

    def line(self) -> str:
        ran = self.done - self.skipped
        elapsed = max(time.monotonic() - self.t0, 1e-9)
        width = 24
        filled = int(width * self.done / self.total) if self.total else width
        bar = "#" * filled + "." * (width - filled)
        text = f"sweep [{bar}] {self.done}/{self.total} done, {self.failed} failed"
        if ran:
            rate = ran / elapsed
            eta = (self.total - self.done) / rate
            text += f", {rate * 60:.1f} points/min, ETA {_duration(eta)}"
        return text

    def _draw(self) -> None:
        if self.enabled:
            self.stream.write("\r" + self.line() + "\x1b[K")
            self.stream.flush()

    def close(self) -> None:
        if self.enabled:
            self.stream.write("\n")
            self.stream.flush()
