"""Named workloads from the seeds, usable wherever a workload is accepted.

Each is a dict of fio options. The stop rule (``number_ios``) is chosen so that a run
takes seconds; override it like any other option.
"""

from __future__ import annotations

from typing import Any

from ssdlab import _core

# The seeds' workloads. T = host threads (numjobs), QD = queue depth per thread.
WORKLOADS: dict[str, dict[str, Any]] = {
    # seed 000 (HMB vs DRAM, CrystalDiskMark/fio-style): sequential 128 KiB T1 QD32.
    "seq-write-128k-t1-qd32": {
        "rw": "write",
        "bs": "128KiB",
        "iodepth": 32,
        "numjobs": 1,
        "number_ios": 50_000,
    },
    "seq-read-128k-t1-qd32": {
        "rw": "read",
        "bs": "128KiB",
        "iodepth": 32,
        "numjobs": 1,
        "number_ios": 50_000,
    },
    # seed 000: 4 KiB random, one thread or 16 threads, QD32 each.
    "rand-read-4k-t1-qd32": {
        "rw": "randread",
        "bs": "4KiB",
        "iodepth": 32,
        "numjobs": 1,
        "number_ios": 200_000,
    },
    "rand-read-4k-t16-qd32": {
        "rw": "randread",
        "bs": "4KiB",
        "iodepth": 32,
        "numjobs": 16,
        "number_ios": 20_000,
    },
    "rand-write-4k-t1-qd32": {
        "rw": "randwrite",
        "bs": "4KiB",
        "iodepth": 32,
        "numjobs": 1,
        "number_ios": 200_000,
    },
    "rand-write-4k-t16-qd32": {
        "rw": "randwrite",
        "bs": "4KiB",
        "iodepth": 32,
        "numjobs": 16,
        "number_ios": 20_000,
    },
    # seed 003: IOMeter 4 KiB random, 70 % read / 30 % write.
    "iometer-4k-70-30": {
        "rw": "randrw",
        "bs": "4KiB",
        "rwmixread": 70,
        "iodepth": 32,
        "numjobs": 1,
        "number_ios": 200_000,
    },
    # seed 004: iozone-like 4 KiB aligned random reads over a 1 GiB span, 20,000 reads.
    "iozone-like-1g-randread": {
        "rw": "randread",
        "bs": "4KiB",
        "iodepth": 1,
        "numjobs": 1,
        "size": "1GiB",
        "number_ios": 20_000,
    },
}


def workload_names() -> list[str]:
    return list(WORKLOADS)


def named_workload(name: str) -> dict[str, Any]:
    try:
        return dict(WORKLOADS[name])
    except KeyError:
        raise _core.ConfigError(
            f"workload: '{name}' is not a named workload (allowed: {', '.join(WORKLOADS)})"
        ) from None
