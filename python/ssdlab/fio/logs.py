"""fio's log files from a simulated run: ``write_lat_log``, ``write_bw_log``,
``write_iops_log`` and ``write_hist_log``, with ``log_avg_msec``, ``log_hist_msec``,
``log_offset`` and ``per_job_logs``, in fio 3.x's formats, so that fio's own tools
(fio_generate_plots, fiologparser.py, fiologparser_hist.py) read simulated runs.

Formats (fio's HOWTO, "Log File Formats", checked against fio 3.33's own files), one
line per entry:
``time (ms), value, data direction (0 read, 1 write, 2 trim), block size, [offset,]
priority``. Latency values are in ns, bandwidth in KiB/s, IOPS in I/Os per second.

- ``log_avg_msec=0`` (fio's default): one entry per I/O at its completion time; a latency
  log holds its latency, the bandwidth log its bytes over its completion latency (in
  bytes per ms, the figure fio 3.33 writes there), the IOPS log a 1.
- ``log_avg_msec=N``: per direction, one entry per N ms window ending at its time: the
  mean latency of the window's I/Os (windows without I/O are left out, as fio leaves
  them), its bandwidth and IOPS (every window, zeros included); block size and offset
  are 0, as fio writes them for averaged entries; the last, partial window is stamped
  with the run's end.
- ``write_hist_log`` with ``log_hist_msec=N``: per direction and window, ``time, data
  direction, block size, then the counts of fio's 1,856 completion-latency bins`` (the
  I/Os completed in that window, in ns, fio's log-linear bins of 64 per power of two).
  fio writes nothing without ``log_hist_msec``, and neither does this.

Files: ``NAME_lat.X.log``, ``NAME_clat.X.log``, ``NAME_slat.X.log`` (write_lat_log),
``NAME_bw.X.log``, ``NAME_iops.X.log``, ``NAME_clat_hist.X.log``; X is the job's number
(1, 2, ... over the job file's jobs and their clones in order, as fio numbers its
threads); with ``per_job_logs=0`` the jobs sharing a NAME write one ``NAME_bw.log``
(entries in time order). NAME is the option's value, or the job's name when it is empty.
Times are ms since the job's measurement started (after ``ramp_time``, as fio resets its
clock). Priority is 0 (the model has no I/O priorities).
"""

from __future__ import annotations

from typing import Any

DIRS = ("read", "write", "trim")
# fio's completion-latency histogram: 29 groups of 64 bins (FIO_IO_U_PLAT_*).
PLAT_BITS = 6
PLAT_VAL = 1 << PLAT_BITS
PLAT_NR = 29 * PLAT_VAL


def plat_index(ns: int) -> int:
    """The bin of a latency in fio's log-linear histogram: exact below 128 ns, then 64
    bins per power of two."""
    if ns < 2 * PLAT_VAL:
        return max(0, ns)
    msb = ns.bit_length() - 1
    err = msb - PLAT_BITS
    idx = ((err + 1) << PLAT_BITS) + ((ns >> err) & (PLAT_VAL - 1))
    return min(idx, PLAT_NR - 1)


def plat_value(idx: int) -> int:
    """The lowest latency (ns) of bin ``idx``."""
    if idx < 2 * PLAT_VAL:
        return idx
    err = (idx >> PLAT_BITS) - 1
    return (1 << (err + PLAT_BITS)) + ((idx & (PLAT_VAL - 1)) << err)


def _line(t: int, value: Any, d: int, bs: int, offset: int | None) -> str:
    parts = [t, value, d, bs] + ([offset] if offset is not None else []) + [0]
    return ", ".join(str(p) for p in parts)


def _windows(recs: list[list[int]], step_ms: int, end_ms: int) -> list[int]:
    """Window end times (ms) from the first to the one holding the run's end (I/Os
    that complete after the runtime ends are counted in the last window)."""
    last = end_ms or max([1] + [-(-r[0] // 1_000_000) for r in recs])
    n = max(1, -(-last // step_ms))
    return [step_ms * (k + 1) for k in range(n)]


def _window_of(t_ns: int, step_ns: int, last: int) -> int:
    """The window of a completion at ``t_ns`` (one at a window's end is in it)."""
    return min(max(0, (t_ns - 1) // step_ns), last)


def entries(
    recs: list[list[int]], kind: str, avg_ms: int, end_ms: int, log_offset: bool
) -> list[tuple[int, str]]:
    """(time ms, line) of one job's log of ``kind`` (lat, clat, slat, bw, iops) from its
    completions ``[t_ns, dir, len, offset, slat_ns, clat_ns]``."""
    out: list[tuple[int, str]] = []
    off = (lambda r: r[3]) if log_offset else (lambda r: None)
    if avg_ms <= 0:
        for r in recs:
            t_ns, d, ln, _, slat, clat = r
            lat = slat + clat
            t = t_ns // 1_000_000
            if kind in ("lat", "clat", "slat"):
                v = {"lat": lat, "clat": clat, "slat": slat}[kind]
            elif kind == "bw":
                v = ln * 1_000_000 // clat if clat else 0  # as fio 3.33: bytes per ms of clat
            else:
                v = 1
            out.append((t, _line(t, v, d, ln, off(r))))
        return out
    step_ns = avg_ms * 1_000_000
    for d in range(3):
        mine = [r for r in recs if r[1] == d]
        if not mine:
            continue
        sums: dict[int, list[int]] = {}
        wins = _windows(mine, avg_ms, end_ms)
        for r in mine:
            k = _window_of(r[0], step_ns, len(wins) - 1)
            s = sums.setdefault(k, [0, 0, 0])  # ios, bytes, latency sum (kind's)
            s[0] += 1
            s[1] += r[2]
            s[2] += {"lat": r[4] + r[5], "clat": r[5], "slat": r[4]}.get(kind, 0)
        for t in wins:
            k = t // avg_ms - 1
            t = min(t, end_ms) if end_ms else t  # the last, partial window at the run's end
            ios, nbytes, lat_sum = sums.get(k, (0, 0, 0))
            if kind in ("lat", "clat", "slat"):
                if not ios:
                    continue
                v: Any = lat_sum // ios
            elif kind == "bw":
                v = int(nbytes / 1024 * 1000 / avg_ms)
            else:
                v = int(ios * 1000 / avg_ms)
            out.append((t, _line(t, v, d, 0, 0 if log_offset else None)))
    out.sort(key=lambda e: e[0])
    return out


def hist_entries(recs: list[list[int]], hist_ms: int, end_ms: int) -> list[tuple[int, str]]:
    """fio's clat histogram log: per direction and ``hist_ms`` window with I/O, the
    counts of its completions in each of the 1,856 bins."""
    out: list[tuple[int, str]] = []
    step_ns = hist_ms * 1_000_000
    for d in range(3):
        wins: dict[int, dict[int, int]] = {}
        bs: dict[int, int] = {}
        last = len(_windows(recs, hist_ms, end_ms)) - 1
        for r in recs:
            if r[1] != d:
                continue
            k = _window_of(r[0], step_ns, last)
            b = wins.setdefault(k, {})
            i = plat_index(r[5])
            b[i] = b.get(i, 0) + 1
            bs[k] = r[2]
        for k in sorted(wins):
            counts = [0] * PLAT_NR
            for i, c in wins[k].items():
                counts[i] = c
            t = (k + 1) * hist_ms
            out.append((t, f"{t}, {d}, {bs[k]}, " + ", ".join(map(str, counts))))
    out.sort(key=lambda e: e[0])
    return out


def write_logs(jf, owners: list[int], data: dict) -> list[str]:
    """Write every job's logs (from the final run's report ``data``, whose jobs carry
    ``completions``); returns the file names written."""
    from ssdlab import outputs

    files: dict[str, list[tuple[int, str]]] = {}
    for index, ji in enumerate(owners):
        job = jf.jobs[ji]
        logs = job.logs
        if not logs:
            continue
        r = data["jobs"][index]
        recs = r.get("completions") or []
        end_ms = int(r.get("job_runtime", 0))
        number = index + 1
        for opt, kinds in (("lat", ("lat", "clat", "slat")), ("bw", ("bw",)),
                           ("iops", ("iops",)), ("hist", ("clat_hist",))):  # fmt: skip
            name = logs.get(opt)
            if name is None:
                continue
            name = name or job.name
            for kind in kinds:
                fname = (
                    f"{name}_{kind}.{number}.log" if logs["per_job"] else f"{name}_{kind}.log"
                )
                if kind == "clat_hist":
                    if not logs["hist_msec"]:
                        continue  # fio writes no histogram entries without log_hist_msec
                    ent = hist_entries(recs, logs["hist_msec"], end_ms)
                else:
                    ent = entries(recs, kind, logs["avg_msec"], end_ms, logs["offset"])
                files.setdefault(fname, []).extend(ent)
    for fname, ent in files.items():
        ent.sort(key=lambda e: e[0])
        outputs.write_file(fname, "".join(line + "\n" for _, line in ent), "write_*_log")
    return list(files)
