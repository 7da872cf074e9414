"""Which point a sweep runs next on this process's threads.

The core caches one prepared drive per process (``reuse_prep``): threads that run points
of the cached drive clone it, a point of another drive replaces it. ``LocalSchedule``
gives a thread its next point when the thread is free, not in the points' order, so that

1. threads run the cached drive's points together, each cloning it;
2. while one thread prepares a drive, the others run points that need no cached drive:
   points of a drive no other point shares, and points on an empty drive (``fresh``,
   ``normal``), whose preparation costs next to nothing, so they skip the cache;
3. a thread moves on to the next drive as soon as no point of the current one is left to
   start, without waiting for the other threads to finish theirs: their runs hold their
   own clones, and replacing the cached drive frees only what no clone shares.

With two threads and seed 000's studies (aged TB drives that take 10-25 s to prepare),
the threads used to take turns (``worker._KeyTurns``): a thread that reached the next
drive's points waited for the other's point in progress, and then for its preparation.

Simplifications: a drive counts as prepared once the first of its points to end has
ended (a thread may take a point that needs no drive where it could already clone one);
the next drive is the next in the points' order; two sweeps running at once in one
process do not coordinate (each may replace the other's cached drive: same results,
more preparations).
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from typing import Any

# Drive states whose preparation writes nothing: their points do not use the cache.
EMPTY_STATES = ("fresh", "normal")


class LocalSchedule:
    """The points of one sweep on local threads; ``take`` one per task, then ``done``."""

    def __init__(self, jobs: list[dict[str, Any]], reuse_prep: bool) -> None:
        shared = Counter(j["prep_key"] for j in jobs)
        self._drives: dict[str, deque] = {}  # points that clone the cached drive, by drive
        self._free: deque = deque()  # (prep_key, item) that prepare their own drive
        for j in jobs:
            key = j["prep_key"]
            item = {"run_id": j["run_id"], "kwargs": j["kwargs"], "params": j["params"]}
            cached = reuse_prep and shared[key] > 1 and j["kwargs"].get("state") not in EMPTY_STATES
            if cached:
                self._drives.setdefault(key, deque()).append(item)
            else:
                self._free.append((key, item))
        self._key: str | None = None  # the drive cached (or being prepared)
        self._prepared = False
        self._lock = threading.Lock()

    def take(self) -> tuple[str, dict[str, Any], bool]:
        """The next point: (prep_key, item, whether it uses the cached drive)."""
        with self._lock:
            current = self._drives.get(self._key) if self._key is not None else None
            if current and self._prepared:
                return self._key, current.popleft(), True
            if not current:
                # No point of the cached drive left to start: prepare the next drive.
                for key in [k for k, points in self._drives.items() if not points]:
                    del self._drives[key]
                if self._drives:
                    self._key = next(iter(self._drives))
                    self._prepared = False
                    return self._key, self._drives[self._key].popleft(), True
            if self._free:  # while another thread prepares the cached drive
                key, item = self._free.popleft()
                return key, item, False
            if current:  # nothing else to do: wait for the drive being prepared
                return self._key, current.popleft(), True
            raise RuntimeError("sweep schedule: a task with no point left to run")

    def done(self, key: str, cached: bool) -> None:
        """A point taken from ``take`` has ended (its drive, if cached, is prepared)."""
        with self._lock:
            if cached and key == self._key:
                self._prepared = True
