"""Reading sizes out of the probe curves: documented, deterministic knee finders.

**Departure from a line** (read cache, write buffer). A request served whole by a
cache or buffer costs a fixed overhead plus its bytes at host-link speed, so the
timed curve (re-read; write after a flush) is a straight line in the size until the
structure is exceeded. :func:`departure` fits a line to the first k points and
returns the first k whose next ``min_run`` points all lie more than ``DEPART`` (5 %)
above it: lone outliers (a request that met a GC or an SLC fold) do not end the line,
and the size is the last point on it. Existence is checked separately, as the paper
argues it: a read cache makes the re-read much faster than the first read (median
ratio below ``HIT_RATIO`` = 0.35 at the three smallest sizes: a re-read that still
needs a flash read can at best halve a first read that paid one more, such as a map
load, so a ratio near 0.5 is the map cache, not a data cache); a write buffer makes the write after
a flush faster than the write into a full buffer by a saving that grows with the size
up to the knee and stops growing beyond (the buffer can hide at most its own size); its
knee is read from the sizes that are whole 4 KiB units, since a write ending inside a unit
may need a read-modify-write that no buffer hides.
A cache large enough that sending its data takes longer than one flash read hides a
few misses behind that transfer; its size is then reported as an upper bound.

**Change point** (map cache). :func:`change_point` fits two straight lines, left and
right of a split, by least squares, for every split that leaves ``min_side`` points on
each side (prefix sums make this O(n)); the split with the least total squared error is
the knee, and ``explained`` = 1 - SSE(two lines) / SSE(one line). The curve is the
median warm-pass latency per section count d; a reach is found when the level beyond
the knee is at least ``MAP_JUMP`` times the level before it. Flat curves are reported
as such (every entry cached, or fewer than D_MIN): comparing HMB settings tells which.
The implied caching unit is the granted HMB divided by the reach, as the paper
reasons, valid when the map cache is what fills the HMB.
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

FAST_RATIO = 0.75
# A re-read served from a data cache needs no flash read; one that still needs a flash
# read can at best halve the first read (which then paid one more, e.g. a map load).
HIT_RATIO = 0.35
MIN_EXPLAINED = 0.5
MAP_JUMP = 1.3


@dataclass
class ChangePoint:
    index: int  # first index of the right segment
    explained: float
    left_mean: float
    right_mean: float


def _line_sse(n, sx, sy, sxx, sxy, syy) -> float:
    """Residual sum of squares of the least-squares line through n points."""
    if n < 2:
        return 0.0
    vx = sxx - sx * sx / n
    vy = syy - sy * sy / n
    cxy = sxy - sx * sy / n
    if vx <= 0:
        return max(vy, 0.0)
    return max(vy - cxy * cxy / vx, 0.0)


def change_point(xs: list[float], ys: list[float], min_side: int = 3) -> ChangePoint | None:
    """The best single break of a two-line least-squares fit, or None if too short."""
    n = len(xs)
    if n < 2 * min_side:
        return None
    pre = [(0.0, 0.0, 0.0, 0.0, 0.0)]
    for x, y in zip(xs, ys):
        sx, sy, sxx, sxy, syy = pre[-1]
        pre.append((sx + x, sy + y, sxx + x * x, sxy + x * y, syy + y * y))
    total = pre[-1]
    one = _line_sse(n, *total)
    best = None
    for k in range(min_side, n - min_side + 1):
        left = pre[k]
        right = tuple(t - a for t, a in zip(total, left))
        sse = _line_sse(k, *left) + _line_sse(n - k, *right)
        if best is None or sse < best[0]:
            best = (sse, k)
    sse, k = best
    explained = 1.0 - sse / one if one > 0 else 0.0
    return ChangePoint(k, explained, statistics.fmean(ys[:k]), statistics.fmean(ys[k:]))


def rolling_median(ys: list[float], window: int) -> list[float]:
    """Centred running median (odd window; shorter at the ends): drops lone outliers
    such as a request that met a garbage collection or an SLC fold."""
    h = window // 2
    return [statistics.median(ys[max(0, i - h) : i + h + 1]) for i in range(len(ys))]


@dataclass
class Finding:
    """What a probe found: ``size_bytes`` (or reach in sections for the map cache)."""

    structure: str
    found: bool
    size: int | None
    unit: str
    bound: str  # "exact", "at_least", "at_most", "none"
    confidence: str
    note: str
    level_ns: float | None = None  # map cache: typical warm read latency

    def describe(self) -> str:
        if not self.found:
            return f"{self.structure}: none found ({self.note})"
        qual = {"exact": "", "at_least": ">= ", "at_most": "<= "}.get(self.bound, "")
        size = fmt_size(self.size, self.unit)
        return f"{self.structure}: {qual}{size} ({self.confidence}; {self.note})"


def _none(name: str, note: str, confidence: str, unit: str = "bytes", level=None) -> Finding:
    return Finding(name, False, None, unit, "none", confidence, note, level)


def _found(name, size, bound, confidence, note, unit="bytes", level=None) -> Finding:
    return Finding(name, True, size, unit, bound, confidence, note, level)


def fmt_size(v: int | None, unit: str) -> str:
    if v is None:
        return "?"
    if unit != "bytes":
        return f"{v:,} {unit}"
    if v >= 1 << 20 and v % (1 << 10) == 0:
        return f"{v / (1 << 20):.2f} MiB"
    return f"{v / 1024:.0f} KiB" if v >= 1024 else f"{v} B"


def _confidence(explained: float, left: int, right: int) -> str:
    if explained >= 0.9 and min(left, right) >= 10:
        return "high confidence"
    if explained >= 0.7:
        return "medium confidence"
    return "low confidence"


def cache_from_rereads(rows: list[dict]) -> Finding:
    """Read cache from rows of size_bytes, first_ns, second_ns (Algorithm 1).

    A cache exists when the re-read is much faster than the first read at the small
    sizes (ratio below ``FAST_RATIO``). Re-reads served whole from it lie on a straight
    line (transfer time grows with the size); the size is the last point before the
    curve leaves that line (:func:`departure`)."""
    name = "read cache"
    xs = [r["size_bytes"] for r in rows]
    if len(xs) < 6:
        return _none(name, "too few sizes to tell", "low confidence")
    raw = [r["second_ns"] / r["first_ns"] if r["first_ns"] > 0 else 1.0 for r in rows]
    ratio = rolling_median(raw, max(3, len(raw) // 50 | 1))
    few = max(3, len(ratio) // 10)
    head, tail = statistics.median(raw[:3]), statistics.median(ratio[-few:])
    if head >= HIT_RATIO:
        if head < FAST_RATIO:
            note = (
                f"re-reads take {head:.2f} of first reads at the smallest sizes: faster, but "
                "not free of a flash read: the first read missed the map cache, or the data "
                "sits in a flash-class (SLC) cache, which timing cannot tell apart or size"
            )
        else:
            note = f"re-reads as slow as first reads ({head:.2f} of them) from the smallest size"
        return _none(name, note, "medium confidence")
    second = [r["second_ns"] for r in rows]
    k = departure(xs, second)
    if k is None:
        if tail < FAST_RATIO:
            return _found(
                name,
                xs[-1],
                "at_least",
                "medium confidence",
                f"re-reads stay fast ({tail:.2f} of first reads) up to S_MAX",
            )
        return _none(name, "re-reads are faster but leave no clean knee", "low confidence")
    size = xs[k - 1]
    after = statistics.median(ratio[k : k + few])
    note = (
        f"re-reads {statistics.median(ratio[:k]):.2f} of first reads up to the knee, "
        f"{after:.2f} just beyond"
    )
    if second[k - 1] > rows[0]["first_ns"]:
        # Serving the cached part takes longer than one flash read: the first few misses
        # hide behind it, so the curve leaves its line late.
        note += (
            "; the cached part takes longer to send than a flash read, so a few misses "
            "hide behind it: treat as an upper bound"
        )
        return _found(name, size, "at_most", "medium confidence", note)
    return _found(name, size, "exact", "high confidence" if k >= 10 else "medium confidence", note)


DEPART = 0.05


def departure(xs: list[float], ys: list[float], min_run: int = 3) -> int | None:
    """Index of the first point that leaves, by more than ``DEPART`` (relative), the
    straight line fitted to the points before it, and stays off it for ``min_run``
    points: the end of a clean linear stretch such as reads served from a cache. None
    if the curve never leaves its line."""
    n = len(xs)
    for k in range(3, n - min_run + 1):
        a, b = _fit(xs[:k], ys[:k])
        if all(ys[j] > (a + b * xs[j]) * (1 + DEPART) for j in range(k, k + min_run)):
            return k
    return None


def _fit(xs: list[float], ys: list[float]) -> tuple[float, float]:
    b = _slope(xs, ys)
    return (sum(ys) / len(ys) - b * sum(xs) / len(xs), b)


def _slope(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    vx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / vx if vx else 0.0


def buffer_from_savings(rows: list[dict]) -> Finding:
    """Write buffer from rows of size_bytes, first_ns (buffer full), second_ns (empty).

    The saving first - second grows with the size while the write fits in the buffer
    (it is taken at host-link speed instead of waiting for NAND programs) and stops
    growing beyond it: the buffer can hide at most its own size. The knee is where
    the saving's two-line fit turns flat."""
    name = "write buffer"
    # A write that ends inside a 4 KiB mapping unit may need a read-modify-write (a flash
    # read the buffer does not hide); with steps finer than 4 KiB such sizes form a slow
    # band that would end the line early, so the knee is read from whole-unit sizes.
    whole_units = [r for r in rows if r["size_bytes"] % 4096 == 0]
    if len(whole_units) >= 6:
        rows = whole_units
    xs = [r["size_bytes"] for r in rows]
    if len(xs) < 6:
        return _none(name, "too few sizes to tell", "low confidence")
    w = max(3, len(xs) // 50 | 1)
    save = rolling_median([r["first_ns"] - r["second_ns"] for r in rows], w)
    second = [r["second_ns"] for r in rows]
    whole = _slope(xs, save)
    # A saving worth having: at the largest size it is a fifth of the buffered write.
    span_gain = whole * (xs[-1] - xs[0])
    # The knee: where the write after a flush leaves the straight line of writes taken
    # whole into the buffer (the paper reads it off this curve).
    k = departure(xs, second)
    if k is not None and k >= 3:
        left = _slope(xs[:k], save[:k])
        right = _slope(xs[k:], save[k:]) if len(xs) - k >= 3 else 0.0
        gain = left * (xs[k - 1] - xs[0]) + save[0]
        if left > 0 and gain >= 0.2 * second[k - 1] and right < 0.25 * left:
            return _found(
                name,
                xs[k - 1],  # the last size on the line (steps may widen past S_MAX)
                "exact",
                _confidence(0.95 if k >= 10 else 0.75, k, len(xs) - k),
                f"writes into the empty buffer follow a straight line up to the knee, "
                f"saving {left * 1e3:.0f} ns per KB over a full buffer, and "
                f"{max(right, 0) * 1e3:.0f} beyond",
            )
    if whole > 0 and span_gain >= 0.2 * second[-1]:
        return _found(
            name,
            xs[-1],
            "at_least",
            "medium confidence",
            "the saving still grows at the largest size",
        )
    return _none(
        name,
        "writes after a flush are no faster than into a full buffer (no buffer, or one "
        "larger than S_BUFFER that the filling write did not fill)",
        "medium confidence",
    )


def map_reach(rows: list[dict]) -> Finding:
    """Map-cache reach in sections (entries) from rows of sections, warm/cold medians."""
    xs = [r["sections"] for r in rows]
    ys = rolling_median([r["warm_median_ns"] for r in rows], 3)
    if len(xs) < 6:
        return _none(
            "map cache", "too few section counts to tell", "low confidence", unit="sections"
        )
    cp = change_point(xs, ys, min_side=max(2, len(xs) // 50))
    lo, hi = min(ys), max(ys)
    if cp and cp.right_mean >= MAP_JUMP * cp.left_mean and cp.explained >= MIN_EXPLAINED:
        reach = xs[cp.index - 1]
        return _found(
            "map cache",
            reach,
            "exact",
            _confidence(cp.explained, cp.index, len(xs) - cp.index),
            f"warm read latency {cp.left_mean / 1e3:.1f} us up to the knee, "
            f"{cp.right_mean / 1e3:.1f} us beyond; break explains {cp.explained:.0%}",
            unit="sections",
            level=cp.left_mean,
        )
    cold = statistics.median(r["cold_median_ns"] for r in rows)
    level = statistics.median(ys)
    note = (
        f"flat: warm reads {level / 1e3:.1f} us (min {lo / 1e3:.1f}, max {hi / 1e3:.1f}) "
        f"from {xs[0]} to {xs[-1]} sections, first-pass reads {cold / 1e3:.1f} us"
    )
    if cold >= MAP_JUMP * level:
        return _found(
            "map cache",
            xs[-1],
            "at_least",
            "medium confidence",
            note + ": the warm passes hit",
            unit="sections",
            level=level,
        )
    return _none(
        "map cache",
        note + ": either every entry is cached or fewer than D_MIN are",
        "low confidence",
        unit="sections",
        level=level,
    )
