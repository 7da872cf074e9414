"""What a probe drives: a simulated device or a real block device/file.

A target times one *host request* at a time, as seed 002's procedures do with
``get_current_time()`` around a system call: a request of ``length`` bytes is split
into commands of at most ``max_io_bytes`` (Linux's ``max_sectors_kb``), all submitted
at once, and its time runs from submission to the last completion. Simulated targets
time in simulated nanoseconds; real ones with ``time.monotonic_ns()``.

A probe learns nothing else about the device: only its capacity (what the block
layer tells any program) and, for the HMB, the size the host granted (what the host
allocated itself, as Linux logs it). Sizes of caches and buffers are never read.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

DEFAULT_MAX_IO = 128 << 10


class ProbeError(ValueError):
    """A probe cannot run: bad parameters, a target too small, no permission, …"""


class ProbeTarget(Protocol):
    name: str
    capacity_bytes: int
    simulated: bool
    max_io_bytes: int

    def read(self, offset: int, length: int) -> int:
        """Read ``length`` bytes at ``offset`` (one request); elapsed ns."""

    def write(self, offset: int, length: int) -> int:
        """Write ``length`` bytes at ``offset`` (one request); elapsed ns."""

    def read_many(self, offsets: Sequence[int], length: int) -> list[int]:
        """Read ``length`` bytes at each offset, one after another; elapsed ns of each."""

    def flush(self) -> int:
        """NVMe flush (fsync on a file or device); elapsed ns."""

    def deallocate(self, offset: int, length: int) -> int:
        """Deallocate (trim, discard, punch a hole); elapsed ns."""

    def fill(self, offset: int, length: int) -> int:
        """Write the range sequentially (large requests, untimed detail); elapsed ns."""

    def idle(self, seconds: float) -> None:
        """Leave the device idle (background work may run)."""

    def hmb_granted_bytes(self) -> int | None:
        """HMB the host granted (None: unknown or not an NVMe device with HMB)."""

    def close(self) -> None: ...
