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
    # seed 002 (Kim & Kim 2020, Table 3): LIGHT = 1 thread, 16 GB in 4 KiB I/Os; HEAVY
    # = 72 threads, 4 KiB, the whole drive (here 10,000 I/Os per thread so that a run
    # takes seconds: set io_size to capacity/72 for the paper's full pass). The paper
    # runs each with sequential and random reads and writes: set rw.
    "light": {
        "rw": "randread",
        "bs": "4KiB",
        "iodepth": 1,
        "numjobs": 1,
        "io_size": "16GiB",
    },
    "heavy": {
        "rw": "randread",
        "bs": "4KiB",
        "iodepth": 1,
        "numjobs": 72,
        "number_ios": 10_000,
    },
}

IOMETER_PREFIX = "iometer:"
IOMETER_FIELDS = "size,% of spec,% read,% random[,delay_ms,burst,align,reply]"


def _iometer_size(text: str) -> int:
    t = text.strip().upper().removesuffix("B").removesuffix("I")
    mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(t[-1:], 1)
    return int(t[:-1] if mult > 1 else t) * mult


def iometer_workload(spec: str, *, iodepth: int = 32, number_ios: int = 200_000) -> dict:
    """IOMeter access-spec lines (``size,% of spec,% read,% random[,delay,burst,align,
    reply]``, separated by ``;`` or newlines) as a workload.

    One line, or lines that differ only in size, give one job (sizes as a bssplit).
    Lines with different read or random shares give one job each in the same group,
    sharing ``iodepth`` and ``number_ios`` in proportion to their % of spec (IOMeter
    draws each I/O's line by its share; concurrent jobs come closest to that).
    ``delay`` (ms) and ``burst`` map to fio's thinktime and thinktime_blocks.
    """
    lines = [x.strip() for x in spec.replace("\n", ";").split(";")]
    lines = [x for x in lines if x]
    if not lines:
        raise _core.ConfigError(f"iometer: empty access spec (expected {IOMETER_FIELDS})")
    rows = []
    for i, line in enumerate(lines, 1):
        f = [x.strip() for x in line.split(",")]
        where = f"iometer line {i} '{line}'"
        if not 4 <= len(f) <= 8:
            raise _core.ConfigError(f"{where}: expected {IOMETER_FIELDS}")
        try:
            size = _iometer_size(f[0])
            pct, read, rnd = (int(x) for x in f[1:4])
            delay = int(f[4]) if len(f) > 4 else 0
            burst = int(f[5]) if len(f) > 5 else 1
            align = _iometer_size(f[6]) if len(f) > 6 else 0
            reply = int(f[7]) if len(f) > 7 else 0
        except ValueError:
            raise _core.ConfigError(f"{where}: expected numbers ({IOMETER_FIELDS})") from None
        if size <= 0 or size % 512:
            raise _core.ConfigError(f"{where}: size {size} must be a positive multiple of 512")
        for name, v in (("% of spec", pct), ("% read", read), ("% random", rnd)):
            if not 0 <= v <= 100:
                raise _core.ConfigError(f"{where}: {name} {v} must be 0..100")
        if align not in (0, 512, size):
            raise _core.ConfigError(
                f"{where}: align {align} is not simulated (0, 512 or the I/O size)"
            )
        if reply:
            raise _core.ConfigError(f"{where}: reply size {reply} is not simulated (use 0)")
        if delay < 0 or burst < 1:
            raise _core.ConfigError(f"{where}: delay must be >= 0 and burst >= 1")
        rows.append((size, pct, read, rnd, delay, burst))
    total = sum(r[1] for r in rows)
    if total != 100:
        raise _core.ConfigError(f"iometer: the lines' % of spec add up to {total}, not 100")

    def job(size_opt: dict, read: int, rnd: int, delay: int, burst: int, qd: int, n: int):
        j = {
            "rw": "randrw" if rnd > 0 else "rw",
            "rwmixread": read,
            "iodepth": max(1, qd),
            "number_ios": max(1, n),
            **size_opt,
        }
        if 0 < rnd < 100:
            j["percentage_random"] = rnd
        if rnd:
            # IOMeter draws every random offset afresh: no coverage map, so fio's
            # norandommap (ssdlab follows fio's random map by default).
            j["norandommap"] = True
        if delay:
            j["thinktime"] = f"{delay}ms"
            j["thinktime_blocks"] = burst
        return j

    if len({r[2:] for r in rows}) == 1:
        _, _, read, rnd, delay, burst = rows[0]
        sizes = (
            {"bs": f"{rows[0][0]}B"}
            if len(rows) == 1
            else {"bssplit": [[f"{r[0]}B", r[1]] for r in rows if r[1]]}
        )
        return job(sizes, read, rnd, delay, burst, iodepth, number_ios)
    jobs = []
    for i, (size, pct, read, rnd, delay, burst) in enumerate(rows):
        if pct == 0:
            continue
        j = job(
            {"bs": f"{size}B"},
            read,
            rnd,
            delay,
            burst,
            round(iodepth * pct / 100),
            round(number_ios * pct / 100),
        )
        j["name"] = f"iometer-{i + 1}"
        jobs.append(j)
    return {"jobs": jobs}


def workload_names() -> list[str]:
    return list(WORKLOADS)


def _clip(text: str) -> str:
    from ssdlab.outputs import shown

    return shown(text)


def named_workload(name: str) -> dict[str, Any]:
    """A named workload, or an ``iometer:`` access spec."""
    if not isinstance(name, str):
        raise _core.ConfigError(f"workload: {name!r} is not a workload name (a string)")
    if name.startswith(IOMETER_PREFIX):
        return iometer_workload(name[len(IOMETER_PREFIX) :])
    try:
        return dict(WORKLOADS[name])
    except KeyError:
        raise _core.ConfigError(
            f"workload: '{_clip(name)}' is not a named workload (allowed: {', '.join(WORKLOADS)})"
        ) from None
