"""Seed 002's three timing procedures (Kim & Kim, PLoS ONE 2020, Algorithms 1-3).

Each drives a :class:`~ssdlab.probe.target.ProbeTarget` and returns the raw curve;
:mod:`ssdlab.probe.analysis` reads the sizes out of it. Defaults are the paper's.

- Read cache (Algorithm 1): for s = S_MIN … S_MAX step S_INC: read S_CACHE bytes near
  the end of the device (to fill any read cache with other data), then time a read of
  s bytes at offset 0, then time the same read again. A re-read faster than the first
  read means the data came from a cache; it stops being faster once s exceeds it.
- Write buffer (Algorithm 2): for each s: write S_BUFFER bytes near the end (to fill
  any write buffer), time a write of s bytes at 0 (the buffer is full: it waits for
  NAND), flush, time the same write again (the buffer is empty: fast while s fits).
- Map cache (Algorithm 3): deallocate the device, write it sequentially, let it idle;
  then for d = D_MIN … D_MAX step D_INC: N reads of 512 B at the starts of d equal
  sections, cycling through them. Once d exceeds the map entries the cache holds,
  every read misses. The paper does not state N; the default here is 2 x D_MAX so
  that every d gets at least two passes, and the analysis uses the passes after the
  first (the first pass touches sections that are new for this d).

The far offset of the paper's ``S_SSD - S_CACHE - 1`` is taken as the last whole
S_CACHE-byte range that ends at least one 4 KiB unit before the end of the device.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable
from dataclasses import asdict, dataclass

from ssdlab.probe.target import ProbeError, ProbeTarget

KiB, MiB = 1 << 10, 1 << 20

Progress = Callable[[float], None]


@dataclass
class ReadCacheParams:
    s_min: int = 8 * KiB
    s_max: int = 2048 * KiB
    s_inc: int = 2 * KiB
    s_cache: int = 512 * MiB
    repeat: int = 1  # runs per size; the median of each timing is kept


@dataclass
class WriteBufferParams:
    s_min: int = 64 * KiB
    s_max: int = 2048 * KiB
    s_inc: int = 2 * KiB
    s_buffer: int = 512 * MiB
    repeat: int = 1  # runs per size; the median of each timing is kept


@dataclass
class MapCacheParams:
    d_min: int = 100
    d_max: int = 20_000
    d_inc: int = 100
    n: int | None = None  # reads per d (default 2 x d_max)
    read_bytes: int = 512
    fill: bool = True  # deallocate + sequential fill + idle first (Algorithm 3, lines 1-3)
    # Pass p reads 4 KiB unit (p mod spread) of each section rather than always unit 0,
    # so that a data read cache cannot answer the warm passes (1 = the paper exactly).
    spread: int = 16
    idle_s: float = 1.0

    def reads(self) -> int:
        return self.n if self.n is not None else 2 * self.d_max


def _check_sizes(name: str, s_min: int, s_max: int, s_inc: int, big: int, big_name: str) -> None:
    for label, v in (("S_MIN", s_min), ("S_MAX", s_max), ("S_INC", s_inc), (big_name, big)):
        if v <= 0 or v % 512:
            raise ProbeError(f"{name}: {label} = {v} must be a positive multiple of 512 bytes")
    if s_min > s_max:
        raise ProbeError(f"{name}: S_MIN ({s_min}) is larger than S_MAX ({s_max})")


def _far_offset(t: ProbeTarget, size: int, name: str, big_name: str, near: int) -> int:
    off = (t.capacity_bytes - size - 4096) // 4096 * 4096
    if off < near:
        need = size + near + 4096
        raise ProbeError(
            f"{t.name}: {t.capacity_bytes} bytes is too small for the {name} probe: "
            f"{big_name} + S_MAX needs at least {need} bytes"
        )
    return off


def _sizes(s_min: int, s_max: int, s_inc: int) -> list[int]:
    return list(range(s_min, s_max + 1, s_inc))


def _size_sweep(name: str, p, step, progress: Progress | None) -> dict:
    """Run ``step(s) -> (first_ns, second_ns)`` ``p.repeat`` times for every size s of
    ``p`` and keep the median of each timing (real drives are noisy; one run of the
    paper's procedure is ``repeat = 1``)."""
    if p.repeat < 1:
        raise ProbeError(f"{name}: repeat = {p.repeat} must be at least 1")
    rows = []
    sizes = _sizes(p.s_min, p.s_max, p.s_inc)
    for i, s in enumerate(sizes):
        runs = [step(s) for _ in range(p.repeat)]
        first = int(statistics.median(r[0] for r in runs))
        second = int(statistics.median(r[1] for r in runs))
        rows.append({"size_bytes": s, "first_ns": first, "second_ns": second})
        if progress:
            progress((i + 1) / len(sizes))
    return {"probe": name, "params": asdict(p), "rows": rows}


def read_cache(t: ProbeTarget, p: ReadCacheParams, progress: Progress | None = None) -> dict:
    """Algorithm 1. Rows: size_bytes, first_ns, second_ns."""
    _check_sizes("read-cache", p.s_min, p.s_max, p.s_inc, p.s_cache, "S_CACHE")
    far = _far_offset(t, p.s_cache, "read-cache", "S_CACHE", p.s_max)

    def step(s: int) -> tuple[int, int]:
        t.read(far, p.s_cache)  # fill any read cache with other data
        return t.read(0, s), t.read(0, s)

    return _size_sweep("read-cache", p, step, progress)


def write_buffer(t: ProbeTarget, p: WriteBufferParams, progress: Progress | None = None) -> dict:
    """Algorithm 2. Rows: size_bytes, first_ns (buffer full), second_ns (after flush)."""
    _check_sizes("write-buffer", p.s_min, p.s_max, p.s_inc, p.s_buffer, "S_BUFFER")
    far = _far_offset(t, p.s_buffer, "write-buffer", "S_BUFFER", p.s_max)

    def step(s: int) -> tuple[int, int]:
        t.write(far, p.s_buffer)  # fill any write buffer
        first = t.write(0, s)
        t.flush()
        return first, t.write(0, s)

    return _size_sweep("write-buffer", p, step, progress)


def map_cache(t: ProbeTarget, p: MapCacheParams, progress: Progress | None = None) -> dict:
    """Algorithm 3. Rows per d: warm (passes after the first) and cold (first pass)
    median and mean latency; ``samples`` keeps up to 50 warm latencies per d for plots."""
    if not (0 < p.d_min <= p.d_max) or p.d_inc <= 0:
        raise ProbeError(
            "map-cache: need 0 < D_MIN <= D_MAX and D_INC > 0 "
            f"(got {p.d_min}, {p.d_max}, {p.d_inc})"
        )
    n = p.reads()
    if n < 2 * p.d_max:
        raise ProbeError(
            f"map-cache: N = {n} reads per d gives d = {p.d_max} less than two passes; "
            f"use N >= {2 * p.d_max}"
        )
    if p.read_bytes <= 0 or p.read_bytes % 512:
        raise ProbeError(f"map-cache: read size {p.read_bytes} must be a multiple of 512")
    if not 1 <= p.spread <= 256 or p.read_bytes > 4096:
        raise ProbeError(
            f"map-cache: spread {p.spread} must be 1..256 and the read size at most 4 KiB"
        )
    cap = t.capacity_bytes
    need = p.spread * 4096
    if cap // p.d_max < need:
        raise ProbeError(
            f"{t.name}: {cap} bytes is too small for D_MAX = {p.d_max} sections of at least "
            f"{need} bytes each (spread {p.spread} x 4 KiB)"
        )
    prep = {}
    if p.fill:
        prep["deallocate_ns"] = t.deallocate(0, cap // 512 * 512)
        prep["fill_ns"] = t.fill(0, cap // 4096 * 4096)
        t.idle(p.idle_s)
    rows, samples = [], []
    ds = list(range(p.d_min, p.d_max + 1, p.d_inc))
    for i, d in enumerate(ds):
        stride = cap // d // 512 * 512
        offsets = [(k % d) * stride + (k // d % p.spread) * 4096 for k in range(n)]
        lat = t.read_many(offsets, p.read_bytes)
        cold, warm = lat[:d], lat[d:]
        rows.append(
            {
                "sections": d,
                "section_bytes": stride,
                "reads": n,
                "warm_median_ns": statistics.median(warm),
                "warm_mean_ns": statistics.fmean(warm),
                "cold_median_ns": statistics.median(cold),
                "cold_mean_ns": statistics.fmean(cold),
            }
        )
        step = max(1, len(warm) // 50)
        samples.append(warm[::step][:50])
        if progress:
            progress((i + 1) / len(ds))
    return {
        "probe": "map-cache",
        "params": asdict(p),
        "prep": prep,
        "rows": rows,
        "samples": samples,
    }
