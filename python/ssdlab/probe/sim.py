"""A simulated device as a probe target: a live ``ssdlab._core.Session``.

The device is built and prepared once (``state``, default ``full``: every LBA written,
as a drive in use); the probe then times each request in simulated nanoseconds through
the simulated NVMe/PCIe host interface. ``hmb`` sets the host's HMB policy (what a
Linux host sets with the nvme driver's ``max_host_mem_size_mb``): ``on`` = ``max``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from ssdlab import _core, api
from ssdlab.probe.target import DEFAULT_MAX_IO, ProbeError

HMB_CHOICES = ("on", "off", "max", "half", "min")
HMB_SIZE = re.compile(r"^\d+(\.\d+)?\s*[KMG]i?B?$", re.IGNORECASE)


class SimTarget:
    simulated = True

    def __init__(
        self,
        device: api.DeviceLike = "hmb-ssd",
        *,
        hmb: str | None = None,
        state: str = "full",
        seed: int = 1,
        set: Mapping[str, Any] | Sequence[str] | None = None,
        max_io_bytes: int = DEFAULT_MAX_IO,
    ):
        overrides = api._overrides(set)
        if hmb is not None:
            if hmb in HMB_CHOICES:
                policy = "max" if hmb == "on" else hmb
                overrides.append(f'hmb.host_policy="{policy}"')
            elif HMB_SIZE.match(hmb):
                # A host that offers this much (Linux: max_host_mem_size_mb); the device
                # takes up to HMPRE of it, nothing if it is below HMMIN.
                overrides += ['hmb.host_policy="max"', f'hmb.host_limit="{hmb}"']
            else:
                raise ProbeError(
                    f"--hmb: '{hmb}' is not allowed ({', '.join(HMB_CHOICES)}, or a size the "
                    "host offers such as 16MiB)"
                )
        kind, text, origin = api._device_args(device)
        self.name = (
            text
            if kind == "preset"
            else (origin if origin != "<dict>" else f"<dict {device.get('name', 'device')}>")
        )
        self.hmb = hmb
        self._s = _core.Session(kind, text, origin, overrides, api._check_state(state), seed)
        self.capacity_bytes = self._s.capacity_bytes
        self.max_io_bytes = max_io_bytes
        self._s.max_io_bytes = max_io_bytes

    def _call(self, f, *args):
        try:
            return f(*args)
        except ValueError as e:
            raise ProbeError(f"{self.name}: {e}") from None

    def read(self, offset: int, length: int) -> int:
        return self._call(self._s.read, offset, length)

    def write(self, offset: int, length: int) -> int:
        return self._call(self._s.write, offset, length)

    def read_many(self, offsets: Sequence[int], length: int) -> list[int]:
        return self._call(self._s.read_many, list(offsets), length)

    def flush(self) -> int:
        return self._s.flush()

    def deallocate(self, offset: int, length: int) -> int:
        return self._call(self._s.deallocate, offset, length)

    def fill(self, offset: int, length: int) -> int:
        """Sequential writes of 64 MiB requests over the range."""
        t, end, step = 0, offset + length, 64 << 20
        while offset < end:
            n = min(step, end - offset)
            t += self.write(offset, n)
            offset += n
        return t

    def idle(self, seconds: float) -> None:
        self._s.idle_ns(int(seconds * 1e9))

    def hmb_granted_bytes(self) -> int | None:
        return self._s.hmb_granted_bytes

    @property
    def now_ns(self) -> int:
        return self._s.now_ns

    def report(self) -> dict:
        """The simulator's own report (for checking a probe; never used by one)."""
        import json

        return json.loads(self._s.report())

    def close(self) -> None:
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
