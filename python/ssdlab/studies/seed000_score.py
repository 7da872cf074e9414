"""Score ssdlab's seed 000 studies against the seed's figures and bullets, one by one.

    python -m ssdlab.studies.seed000_score OUT [OUT2 ...] [--json PATH]

Each OUT is the output directory of ``ssdlab study hmb-vs-dram`` or ``ssdlab study hmb-size``
(or its ``results.csv``); which study wrote it is told from the CSV's columns, and both may be
given at once. Where several OUTs hold the same point, the last one given wins (a note on
stderr says so). Prints a table of the 64 "% Diff" figures
(``seed000_data.DIFF_FIGURES``), one of the 41 bullets (``seed000_data.BULLETS``), and two
summary lines the docs can quote::

    figures: 64 | reproduced R | factor2 F | direction D | missed M | not run N
    bullets: 41 | reproduced R | contradicted C | missed M | not run N

``--json PATH`` (``-`` for stdout) writes the same as JSON. The exit status is 0 whatever
the verdicts; 2 for unreadable input.

Figures. ssdlab's % Diff is (DRAM - HMB) / HMB x 100, the seed's convention. A figure is

- **reproduced**: the same sign and seed / ssdlab in 0.75..1.33, or, for a seed figure within
  +-5 % (the seed's "on par"), ssdlab within +-5 % too;
- **factor2**: the same sign and seed / ssdlab in 0.5..2;
- **direction**: only the sign agrees;
- **missed**: the sign differs. Against a seed figure beyond +-5 %, ssdlab's % Diff within
  +-0.5 % (``TIE``) has no sign: a 0.2 % edge is a tie, not the direction of a 78 % gap;
- **not run**: OUT lacks the point.

A figure the OCR garbled (``legible`` False: lost digits, or a sign taken from the slide's
bullet) can at best be **direction**: we do not score a number we cannot read.

Queue counts. Where the OCR's row order makes it reasonable, a label is given its queue count
in the data (``seed000_data.DIFF_FIGURES``), left to right: a row of five labels in queue
order, a row of four beside an axis whose 1Q label is lost (2Q..Max-Q), and 103.33 %, the one
empty slot of its panel; 34 of 64. The other 30 (``queues`` None: the OCR keeps the panel,
not which bar the label sits on; rows of two or three labels, or labels on several rows at
heights that do not follow queue order) are not paired with the queue count whose ssdlab
value is closest, which would flatter. They are scored against the panel's median over the
queue counts that were run (less those an assigned figure of the panel holds), generalised to
panels with several such labels: the panel's k labels, sorted, are compared with the medians
of k consecutive rank groups of ssdlab's sorted % Diffs. With one label (k = 1) that is the
plain median; where ssdlab's panel is flat every label meets the same median; where it is
not, the seed's spread has to be matched by a spread in ssdlab's. A plain median for every
label could not score a copy of the seed's own panels as reproduced (random write T16
Sustain prints 1.26 % and 1,059.45 %; random write T1 Sustain -0.38 % and 8.00 %): a copy of
the seed scores 56 reproduced that way, 61 (every legible label) with rank groups. On the
studies' results the two differ in one figure (rr16-high-sustain-u1: direction against a
plain median's missed).

Bullets. Each has a predicate over ssdlab's results (``PREDICATES``, by bullet id): a bullet is
**reproduced** when its claim holds everywhere it is stated, **contradicted** when the reverse
claim holds at the majority of its points (HMB ahead where the slide says DRAM leads, a
falling rate where it says rising, gaps > 10 % where it says on par), **missed** otherwise,
**not run** when OUT lacks a panel the predicate needs (each bullet's densities, states and
workloads, and for trends the 1Q and Max-Q points). Thresholds: on par / no impact within
+-5 % (``PAR``); a trend is a change of more than 2 % from 1Q to Max-Q (``TREND``), a spread
over queue counts is (max - min) / median; one HMB grant "better" than another by more than
0.5 % (``EPS``); "large margin" is DRAM more than 50 % ahead (``LARGE``); "competitive" is a
gap within 10 %, clearly not competitive above 25 % (``CLEAR``). "gap widens multifold at
aging" is read as the aging median gap at least 1.1 times that of the other states: the
seed's own sequential-read figures widen 1.14 times, and a literal two-fold would fail the
seed itself.
"""

from __future__ import annotations

import argparse
import csv
import json
import math
import statistics
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import NamedTuple

from ssdlab.studies.seed000_data import (
    BULLETS,
    DIFF_FIGURES,
    RR_T1,
    RR_T16,
    RW_T1,
    RW_T16,
    SEQ_READ,
    SEQ_WRITE,
    STATES,
    Bullet,
    Figure,
)

PAR = 5.0
TREND = 2.0
EPS = 0.5
LARGE = 50.0
CLEAR = 25.0
WIDEN = 1.1
DROP = 25.0  # "drastically reduced": at least 25 % below the normal state
TIE = 0.5  # ssdlab's % Diff within +-TIE has no sign against a seed figure beyond +-PAR

HVD_COLUMNS = {"density", "state", "workload", "queues", "device", "value", "diff_pct"}
HS_COLUMNS = {"density", "state", "workload", "queues", "hmb", "value", "pct_vs_max"}
GRANTS = ("max", "half", "min")
FIGURE_VERDICTS = ("reproduced", "factor2", "direction", "missed", "not run")
BULLET_VERDICTS = ("reproduced", "contradicted", "missed", "not run")
WL_TAG = {
    SEQ_WRITE: "SW128K",
    SEQ_READ: "SR128K",
    RR_T1: "RR4K-T1",
    RR_T16: "RR4K-T16",
    RW_T1: "RW4K-T1",
    RW_T16: "RW4K-T16",
}


class Pair(NamedTuple):
    """One hmb-vs-dram point: both devices' values and the % Diff."""

    dram: float
    hmb: float
    diff: float


class Results:
    """ssdlab's points from any number of results.csv files of the two studies."""

    def __init__(self) -> None:
        self.hvd: dict[tuple[str, str, str, str], Pair] = {}
        self.hs: dict[tuple[str, str, str, str], dict[str, float]] = {}
        self.sources: list[dict] = []
        self.overridden = 0

    def load(self, path: Path) -> str:
        """Read one OUT directory or results.csv; returns which study wrote it."""
        csv_path = path / "results.csv" if path.is_dir() else path
        if not csv_path.is_file():
            raise ValueError(f"{path}: no results.csv")
        with csv_path.open(newline="") as f:
            reader = csv.DictReader(f)
            cols = set(reader.fieldnames or ())
            rows = list(reader)
        try:
            if HVD_COLUMNS <= cols:
                kind, n = "hmb-vs-dram", self._load_hvd(rows)
            elif HS_COLUMNS <= cols:
                kind, n = "hmb-size", self._load_hs(rows)
            else:
                raise ValueError(
                    "columns are neither hmb-vs-dram's nor hmb-size's: " + ",".join(sorted(cols))
                )
        except (KeyError, ValueError) as e:
            raise ValueError(f"{csv_path}: {e}") from None
        self.sources.append({"path": str(csv_path), "study": kind, "points": n})
        return kind

    def _load_hvd(self, rows: list[dict]) -> int:
        by_key: dict[tuple[str, str, str, str], list[dict]] = {}
        for r in rows:
            k = (r["density"], r["state"], r["workload"], r["queues"])
            by_key.setdefault(k, []).append(r)
        for k, rs in by_key.items():
            if len(rs) != 2:
                raise ValueError(f"{len(rs)} rows for point {k}, not a DRAM/HMB pair")
            # The device column holds the preset name; the study writes DRAM's row first.
            names = [r["device"].lower() for r in rs]
            if "dram" in names[1] and "dram" not in names[0]:
                rs = rs[::-1]
            dram, hmb = float(rs[0]["value"]), float(rs[1]["value"])
            d = rs[0]["diff_pct"]
            diff = float(d) if d != "" else (dram - hmb) / hmb * 100.0
            self.overridden += k in self.hvd
            self.hvd[k] = Pair(dram, hmb, diff)
        return len(by_key)

    def _load_hs(self, rows: list[dict]) -> int:
        pts: dict[tuple[str, str, str, str], dict[str, float]] = {}
        for r in rows:
            k = (r["density"], r["state"], r["workload"], r["queues"])
            pts.setdefault(k, {})[r["hmb"]] = float(r["value"])
        for k, p in pts.items():
            if set(p) != set(GRANTS):
                raise ValueError(f"point {k} has grants {sorted(p)}, not max, half, min")
            self.overridden += k in self.hs
            self.hs[k] = p
        return len(pts)


# --- figures -------------------------------------------------------------------------------


def judge(seed: float, ours: float | None, legible: bool = True) -> str:
    """The verdict for one figure (see the module docstring)."""
    if ours is None or math.isnan(ours):
        return "not run"
    if legible and abs(seed) <= PAR and abs(ours) <= PAR:
        return "reproduced"
    tie = TIE if abs(seed) > PAR else 0.0
    if not ((seed > 0 and ours > tie) or (seed < 0 and ours < -tie)):
        return "missed"
    if not legible:
        return "direction"
    ratio = seed / ours
    if 0.75 <= ratio <= 1.33:
        return "reproduced"
    if 0.5 <= ratio <= 2.0:
        return "factor2"
    return "direction"


def qkey(q: str) -> float:
    """Sort key of a queue count: numbers in order, "max" last."""
    return math.inf if q == "max" else float(q)


def rank_groups(n: int, k: int) -> list[range]:
    """Split sorted positions 0..n-1 into k consecutive groups of near-equal size."""
    bounds = [round(i * n / k) for i in range(k + 1)]
    return [range(bounds[i], max(bounds[i + 1], bounds[i] + 1)) for i in range(k)]


def panel_targets(figs: list[Figure], diffs: list[float]) -> dict[str, float]:
    """ssdlab's value for each unassigned figure of one panel: the sorted labels against the
    medians of as many rank groups of ssdlab's sorted diffs."""
    if not figs or not diffs:
        return {}
    ds = sorted(diffs)
    k = min(len(figs), len(ds))
    groups = rank_groups(len(ds), k)
    order = sorted(figs, key=lambda f: f.pct)
    out = {}
    for i, f in enumerate(order):
        # More labels than queue counts run: the extra labels share the last groups.
        g = groups[min(len(groups) - 1, i * k // len(order))]
        out[f.id] = statistics.median(ds[j] for j in g)
    return out


def score_figures(r: Results) -> list[dict]:
    panels: dict[tuple[str, str, str], list[Figure]] = {}
    for f in DIFF_FIGURES:
        panels.setdefault((f.density, f.state, f.workload), []).append(f)
    ours: dict[str, float | None] = {}
    basis: dict[str, str] = {}
    for (density, state, wl), figs in panels.items():
        held = {f.queues for f in figs if f.queues is not None}
        free = sorted(
            (q for (d, s, w, q) in r.hvd if (d, s, w) == (density, state, wl) and q not in held),
            key=qkey,
        )
        loose = [f for f in figs if f.queues is None]
        targets = panel_targets(loose, [r.hvd[(density, state, wl, q)].diff for q in free])
        for f in figs:
            if f.queues is not None:
                p = r.hvd.get((density, state, wl, f.queues))
                ours[f.id] = None if p is None else p.diff
                basis[f.id] = f.queues
            else:
                ours[f.id] = targets.get(f.id)
                basis[f.id] = (
                    f"median of {len(free)}"
                    if len(loose) == 1
                    else f"{len(loose)} labels / {len(free)} q"
                )
    out = []
    for f in DIFF_FIGURES:
        o = ours[f.id]
        out.append(
            {
                "id": f.id,
                "density": f.density,
                "state": f.state,
                "workload": f.workload,
                "queues": f.queues,
                "compared_with": basis[f.id] if o is not None else None,
                "seed_pct": f.pct,
                "ssdlab_pct": None if o is None else round(o, 3),
                "legible": f.legible,
                "verdict": judge(f.pct, o, f.legible),
                "note": f.note,
            }
        )
    return out


# --- bullets -------------------------------------------------------------------------------


class NotRun(Exception):
    """A point a predicate needs is not in the results."""


Verdict = tuple[str, str]  # (verdict, evidence)


def _verdict(claim: bool, reverse: bool, evidence: str) -> Verdict:
    if claim:
        return "reproduced", evidence
    return ("contradicted" if reverse else "missed"), evidence


def _majority(flags: Iterable[bool]) -> bool:
    fs = list(flags)
    return sum(fs) * 2 > len(fs)


def _pct(x: float, base: float) -> float:
    return (x - base) / base * 100.0 if base else math.nan


def _spread(values: Iterable[float]) -> float:
    vs = list(values)
    m = statistics.median(vs)
    return (max(vs) - min(vs)) / m * 100.0 if m else math.nan


def _f(x: float) -> str:
    return f"{x:+.1f} %"


def _span(xs: Iterable[float]) -> str:
    vs = list(xs)
    lo, hi = min(vs), max(vs)
    return _f(lo) if f"{lo:+.1f}" == f"{hi:+.1f}" else f"{lo:+.1f}..{hi:+.1f} %"


def _panel(table: dict, density: str, state: str, wl: str) -> dict:
    """The points of one panel by queue count (in queue order); NotRun if none."""
    qs = sorted((q for (d, s, w, q) in table if (d, s, w) == (density, state, wl)), key=qkey)
    if not qs:
        raise NotRun(f"{density} {state} {WL_TAG.get(wl, wl)}")
    return {q: table[(density, state, wl, q)] for q in qs}


def _ends(panel: dict, what: str) -> tuple:
    if "1" not in panel or "max" not in panel:
        raise NotRun(f"{what}: 1Q and Max-Q")
    return panel["1"], panel["max"]


def _hvd(r: Results, b: Bullet, states=None, wls=None, densities=None):
    """Every hmb-vs-dram panel of the bullet's scope: {(density, state, wl): {q: Pair}}."""
    return {
        (d, s, w): _panel(r.hvd, d, s, w)
        for d in densities or b.densities
        for s in states or b.states
        for w in wls or b.workloads
    }


def _hs(r: Results, b: Bullet, states=None, densities=None):
    return {
        (d, s, w): _panel(r.hs, d, s, w)
        for d in densities or b.densities
        for s in states or b.states
        for w in b.workloads
    }


def _diffs(panels: dict) -> list[float]:
    return [p.diff for pts in panels.values() for p in pts.values()]


def p_dram_leads_widens(r: Results, b: Bullet) -> Verdict:
    panels = _hvd(r, b)
    med = {
        s: statistics.median(_diffs({k: v for k, v in panels.items() if k[1] == s})) for s in STATES
    }
    ds = _diffs(panels)
    widens = med["aging"] >= WIDEN * max(med["normal"], med["sustain"])
    ev = ", ".join(f"{s} median {_f(med[s])}" for s in STATES) + f"; lowest {_f(min(ds))}"
    return _verdict(min(ds) > PAR and widens, _majority(d < -PAR for d in ds), ev)


def p_hmb_1q_lowest(r: Results, b: Bullet) -> Verdict:
    (pts,) = _hvd(r, b).values()
    if "1" not in pts or len(pts) < 2:
        raise NotRun("aging 1Q and another queue count")
    h1 = pts["1"].hmb
    others = [p.hmb for q, p in pts.items() if q != "1"] + [p.dram for p in pts.values()]
    med = statistics.median(p.hmb for q, p in pts.items() if q != "1")
    ev = f"HMB 1Q {h1:.0f}, other HMB bars median {med:.0f}, lowest other bar {min(others):.0f}"
    return _verdict(h1 < min(others) * (1 - TREND / 100), h1 > med * (1 + TREND / 100), ev)


def p_sr_1q_better_than_sw(r: Results, b: Bullet) -> Verdict:
    rel = {}
    for wl in (SEQ_READ, SEQ_WRITE):
        (pts,) = _hvd(r, b, wls=(wl,)).values()
        if "1" not in pts or len(pts) < 2:
            raise NotRun(f"aging {WL_TAG[wl]} 1Q and another queue count")
        rel[wl] = _pct(pts["1"].hmb, statistics.median(p.hmb for q, p in pts.items() if q != "1"))
    ev = f"HMB 1Q against its other queue counts: SR {_f(rel[SEQ_READ])}, SW {_f(rel[SEQ_WRITE])}"
    gap = rel[SEQ_READ] - rel[SEQ_WRITE]
    return _verdict(gap > TREND, gap < -TREND, ev)


def p_hmb_better_all(r: Results, b: Bullet) -> Verdict:
    panels = _hvd(r, b)
    parts = []
    for s in b.states:
        parts.append(f"{s} {_span(_diffs({k: v for k, v in panels.items() if k[1] == s}))}")
    ds = _diffs(panels)
    return _verdict(max(ds) < 0, _majority(d > PAR for d in ds), "; ".join(parts))


def _consistency(series: dict[str, list[float]], who: str) -> Verdict:
    if any(len(v) < 2 for v in series.values()):
        raise NotRun("two queue counts or more")
    sp = {k: _spread(v) for k, v in series.items()}
    others = [v for k, v in sp.items() if k != who]
    ev = "spread over queue counts: " + ", ".join(f"{k} {v:.1f} %" for k, v in sp.items())
    return _verdict(
        all(o - sp[who] > TREND for o in others), all(sp[who] - o > TREND for o in others), ev
    )


def p_hmb_consistent(r: Results, b: Bullet) -> Verdict:
    (pts,) = _hvd(r, b).values()
    series = {"HMB": [p.hmb for p in pts.values()], "DRAM": [p.dram for p in pts.values()]}
    return _consistency(series, "HMB")


def p_dram_gains(r: Results, b: Bullet) -> Verdict:
    (pts,) = _hvd(r, b).values()
    lo, hi = _ends(pts, "aging")
    ch = _pct(hi.dram, lo.dram)
    ev = f"DRAM 1Q {lo.dram:.0f} -> Max-Q {hi.dram:.0f} ({_f(ch)})"
    return _verdict(ch > TREND, ch < -TREND, ev)


def p_on_par(r: Results, b: Bullet) -> Verdict:
    panels = _hvd(r, b)
    par, apart, parts = [], [], []
    for s in b.states:
        ds = _diffs({k: v for k, v in panels.items() if k[1] == s})
        par.append(_majority(abs(d) <= PAR for d in ds))
        apart.append(_majority(abs(d) > 2 * PAR for d in ds))
        parts.append(f"{s} {_span(ds)}")
    return _verdict(all(par), all(apart), "; ".join(parts))


def p_more_queues_faster(r: Results, b: Bullet) -> Verdict:
    changes, parts = [], []
    for (_, s, _), pts in _hvd(r, b).items():
        lo, hi = _ends(pts, s)
        for dev in ("dram", "hmb"):
            c = _pct(getattr(hi, dev), getattr(lo, dev))
            changes.append(c)
            parts.append(f"{s} {dev.upper()} {_f(c)}")
    ev = "1Q -> Max-Q: " + ", ".join(parts)
    return _verdict(min(changes) > TREND, _majority(c < -TREND for c in changes), ev)


def p_dram_leads_large(r: Results, b: Bullet) -> Verdict:
    ds = _diffs(_hvd(r, b))
    return _verdict(min(ds) > LARGE, _majority(d < -PAR for d in ds), f"aging {_span(ds)}")


def p_dram_little_higher(r: Results, b: Bullet) -> Verdict:
    ok, parts, every = [], [], []
    for wl in b.workloads:
        ds = _diffs(_hvd(r, b, wls=(wl,)))
        ok.append(min(ds) > 0 and statistics.median(ds) <= LARGE)
        every += ds
        parts.append(f"{WL_TAG[wl]} {_span(ds)}")
    return _verdict(all(ok), _majority(d < -PAR for d in every), "low aging: " + "; ".join(parts))


def p_dram_better_low_q(r: Results, b: Bullet) -> Verdict:
    ok, rev, parts = [], [], []
    for (_, s, _), pts in _hvd(r, b).items():
        lo, hi = _ends(pts, s)
        ok.append(lo.diff > PAR and lo.diff >= hi.diff - TREND)
        rev.append(lo.diff < -PAR)
        parts.append(f"{s} 1Q {_f(lo.diff)}, Max-Q {_f(hi.diff)}")
    return _verdict(all(ok), all(rev), "low: " + "; ".join(parts))


def p_uniform(r: Results, b: Bullet) -> Verdict:
    sps, parts = [], []
    for (_, _, wl), pts in _hvd(r, b).items():
        _ends(pts, wl)
        for dev in ("dram", "hmb"):
            sp = _spread(getattr(p, dev) for p in pts.values())
            sps.append(sp)
            parts.append(f"{WL_TAG[wl]} {dev.upper()} {sp:.1f} %")
    ev = "spread over queue counts: " + ", ".join(parts)
    return _verdict(max(sps) <= PAR, _majority(s > 2 * PAR for s in sps), ev)


def _grant_pcts(panels: dict) -> list[float]:
    return [
        _pct(p[g], p["max"])
        for pts in panels.values()
        for p in pts.values()
        for g in ("half", "min")
    ]


def p_no_impact(r: Results, b: Bullet) -> Verdict:
    ps = _grant_pcts(_hs(r, b))
    ev = f"Half and Min against Max: {_span(ps)}"
    return _verdict(max(abs(x) for x in ps) <= PAR, _majority(abs(x) > 2 * PAR for x in ps), ev)


def p_aging_drop_1q(r: Results, b: Bullet) -> Verdict:
    normal = _hs(r, b, states=("normal",))
    aging = _hs(r, b, states=("aging",))
    (npts,), (apts,) = normal.values(), aging.values()
    drops, worst_1q = [], []
    for g in GRANTS:
        for q, p in apts.items():
            if q in npts:
                drops.append(_pct(p[g], npts[q][g]))
        if "1" not in apts or len(apts) < 2:
            raise NotRun("aging 1Q and another queue count")
        others = min(p[g] for q, p in apts.items() if q != "1")
        worst_1q.append(apts["1"][g] < others * (1 - TREND / 100))
    if not drops:
        raise NotRun("normal and aging at the same queue counts")
    ev = (
        f"aging against normal {_span(drops)}; "
        f"1Q the lowest aging bar for {sum(worst_1q)} of 3 grants"
    )
    claim = max(drops) <= -DROP and all(worst_1q)
    return _verdict(claim, _majority(d > TREND for d in drops), ev)


def _rank(p: dict[str, float], g: str) -> tuple[bool, bool]:
    """Whether grant g is best / worst of the three at one point, by more than EPS."""
    others = [p[o] for o in GRANTS if o != g]
    best = all(p[g] > o * (1 + EPS / 100) for o in others)
    worst = all(p[g] < o * (1 - EPS / 100) for o in others)
    return best, worst


def p_max_better(r: Results, b: Bullet) -> Verdict:
    pts = [p for panel in _hs(r, b).values() for p in panel.values()]
    best = [_rank(p, "max")[0] for p in pts]
    beaten = [any(p[g] > p["max"] * (1 + EPS / 100) for g in ("half", "min")) for p in pts]
    ev = f"Max best at {sum(best)} of {len(pts)} points, beaten at {sum(beaten)}"
    return _verdict(_majority(best), _majority(beaten), ev)


def _grant_consistent(grant: str) -> Callable[[Results, Bullet], Verdict]:
    def pred(r: Results, b: Bullet) -> Verdict:
        (pts,) = _hs(r, b).values()
        series = {g: [p[g] for p in pts.values()] for g in GRANTS}
        return _consistency(series, grant)

    return pred


def _grant_best(grant: str, per_state: bool, queues: tuple[str, ...] = ()):
    def pred(r: Results, b: Bullet) -> Verdict:
        groups: dict[str, list[dict]] = {}
        for (_, s, _), pts in _hs(r, b).items():
            if queues and not set(queues) & set(pts):
                raise NotRun(f"{s}: queue counts {','.join(queues)}")
            sel = [p for q, p in pts.items() if not queues or q in queues]
            groups.setdefault(s if per_state else "all", []).extend(sel)
        claim = rev = True
        parts = []
        for s, sel in groups.items():
            ranks = [_rank(p, grant) for p in sel]
            claim &= _majority(x[0] for x in ranks)
            rev &= _majority(x[1] for x in ranks)
            n_best, n_worst = sum(x[0] for x in ranks), sum(x[1] for x in ranks)
            parts.append(f"{s}: {grant} best at {n_best}, worst at {n_worst} of {len(sel)}")
        return _verdict(claim, rev, "; ".join(parts))

    return pred


def _grant_worst(grant: str, everywhere: bool):
    def pred(r: Results, b: Bullet) -> Verdict:
        sel = [p for pts in _hs(r, b).values() for p in pts.values()]
        ranks = [_rank(p, grant) for p in sel]
        worst = [x[1] for x in ranks]
        claim = all(worst) if everywhere else _majority(worst)
        n_best = sum(x[0] for x in ranks)
        ev = f"{grant} worst at {sum(worst)}, best at {n_best} of {len(sel)} points"
        return _verdict(claim, _majority(x[0] for x in ranks), ev)

    return pred


def _grant_trend(grant: str, sign: int):
    def pred(r: Results, b: Bullet) -> Verdict:
        (pts,) = _hs(r, b).values()
        lo, hi = _ends(pts, "aging")
        ch = _pct(hi[grant], lo[grant])
        ev = f"{grant} 1Q {lo[grant]:.0f} -> Max-Q {hi[grant]:.0f} ({_f(ch)})"
        return _verdict(sign * ch > TREND, sign * ch < -TREND, ev)

    return pred


def p_4q_optimal(r: Results, b: Bullet) -> Verdict:
    if not r.hs:
        raise NotRun("hmb-size results (the bullet is about HMB sizes)")
    series: list[dict[str, float]] = []
    for table, members in ((r.hs, GRANTS), (r.hvd, ("dram", "hmb"))):
        panels: dict[tuple[str, str, str], dict[str, object]] = {}
        for (d, s, w, q), p in table.items():
            panels.setdefault((d, s, w), {})[q] = p
        for pts in panels.values():
            if "4" not in pts or len(pts) < 3:
                continue
            for m in members:
                series.append(
                    {q: (p[m] if isinstance(p, dict) else getattr(p, m)) for q, p in pts.items()}
                )
    if not series:
        raise NotRun("4Q and two other queue counts")
    best = beaten = 0
    for s in series:
        v4, others = s["4"], [v for q, v in s.items() if q != "4"]
        best += v4 >= max(others) and v4 > statistics.median(others) * (1 + EPS / 100)
        beaten += max(others) > v4 * (1 + EPS / 100)
    ev = f"4Q the best queue count in {best} of {len(series)} series, beaten in {beaten}"
    return _verdict(best * 2 > len(series), beaten * 2 > len(series), ev)


def p_max_half_better(r: Results, b: Bullet) -> Verdict:
    panels = _hs(r, b)
    min_worst = min_best = 0
    for pts in panels.values():
        med = {g: statistics.median(p[g] for p in pts.values()) for g in GRANTS}
        best, worst = _rank(med, "min")
        min_worst += worst
        min_best += best
    n = len(panels)
    ev = f"Min below Max and Half in {min_worst} of {n} panels, above both in {min_best}"
    return _verdict(min_worst * 2 > n, min_best * 2 > n, ev)


def p_maxq_lowest_gap(r: Results, b: Bullet) -> Verdict:
    lowest = highest = n = 0
    for pts in _hvd(r, b).values():
        if "max" not in pts or len(pts) < 3:
            raise NotRun("Max-Q and two other queue counts")
        gm = abs(pts["max"].diff)
        others = [abs(p.diff) for q, p in pts.items() if q != "max"]
        med = statistics.median(others)
        lowest += gm <= min(others) and gm < med - TREND
        highest += gm >= max(others) and gm > med + TREND
        n += 1
    ev = f"Max-Q the smallest gap in {lowest} of {n} panels, the largest in {highest}"
    return _verdict(lowest * 2 > n, highest * 2 > n, ev)


def p_rr_larger_density(r: Results, b: Bullet) -> Verdict:
    hi, lo = _hvd(r, b, densities=("high",)), _hvd(r, b, densities=("low",))
    deltas, highs = [], []
    for (_, s, w), pts in hi.items():
        for q, p in pts.items():
            if q in lo[("low", s, w)]:
                deltas.append(p.diff - lo[("low", s, w)][q].diff)
                highs.append(p.diff)
    if not deltas:
        raise NotRun("the same points at both densities")
    md, mh = statistics.median(deltas), statistics.median(highs)
    ev = f"high minus low density gap, median {_f(md)}; high density median gap {_f(mh)}"
    return _verdict(md < -TREND and mh <= PAR, md > TREND, ev)


def p_competitive(r: Results, b: Bullet) -> Verdict:
    ds = _diffs(_hvd(r, b))
    near = sum(d <= 2 * PAR for d in ds)
    far = sum(d > CLEAR for d in ds)
    ev = f"normal and sustain {_span(ds)}: within 10 % at {near}, over 25 % at {far} of {len(ds)}"
    return _verdict(near * 2 > len(ds), far * 2 > len(ds), ev)


def p_not_suited(r: Results, b: Bullet) -> Verdict:
    ds = _diffs(_hvd(r, b))
    ahead = sum(d > PAR for d in ds)
    ev = f"{_span(ds)}: DRAM more than 5 % ahead at {ahead} of {len(ds)} points"
    return _verdict(ahead * 2 > len(ds), (len(ds) - ahead) * 2 > len(ds), ev)


PREDICATES: dict[str, Callable[[Results, Bullet], Verdict]] = {
    "sw-dram-leads": p_dram_leads_widens,
    "sw-hmb-1q-aging": p_hmb_1q_lowest,
    "sr-dram-leads": p_dram_leads_widens,
    "sr-1q-aging": p_sr_1q_better_than_sw,
    "rr1-hmb-better": p_hmb_better_all,
    "rr16-hmb-better": p_hmb_better_all,
    "rr1-hmb-consistent-aging": p_hmb_consistent,
    "rr16-hmb-consistent-aging": p_hmb_consistent,
    "rr1-dram-gains-with-queues-aging": p_dram_gains,
    "rr16-dram-gains-with-queues-aging": p_dram_gains,
    "rw1-on-par": p_on_par,
    "rw16-on-par": p_on_par,
    "rw1-more-queues-faster": p_more_queues_faster,
    "rw16-more-queues-faster": p_more_queues_faster,
    "rw1-dram-leads-aging": p_dram_leads_large,
    "rw16-dram-leads-aging": p_dram_leads_large,
    "md-rr-low-dram-higher-aging": p_dram_little_higher,
    "md-rw1-low-dram-low-q": p_dram_better_low_q,
    "md-rw1-low-uniform-sustain": p_uniform,
    "hs-sw-no-impact": p_no_impact,
    "hs-sw-aging-1q": p_aging_drop_1q,
    "hs-sr-no-impact": p_no_impact,
    "hs-rr1-max-better": p_max_better,
    "hs-rr1-half-consistent-aging": _grant_consistent("half"),
    "hs-rr16-half-better": _grant_best("half", per_state=True),
    "hs-rr16-half-poor-sustain": _grant_worst("half", everywhere=True),
    "hs-rw1-no-impact-normal-sustain": p_no_impact,
    "hs-rw1-min-falls-with-queues-aging": _grant_trend("min", -1),
    "hs-rw1-max-rises-with-queues-aging": _grant_trend("max", +1),
    "hs-rw16-min-better": _grant_best("min", per_state=False),
    "hs-rw16-half-low": _grant_worst("half", everywhere=False),
    "md-hs-rr16-low-flat-sustain": p_no_impact,
    "md-hs-rw1-low-half-low-q-normal": _grant_best("half", per_state=True, queues=("1", "2")),
    "md-hs-rw1-low-min-consistent-aging": _grant_consistent("min"),
    "c-4q-optimal": p_4q_optimal,
    "c-max-half-better": p_max_half_better,
    "c-maxq-lowest-gap": p_maxq_lowest_gap,
    "c-rr-larger-densities": p_rr_larger_density,
    "c-rw-competitive": p_competitive,
    "c-seq-read-no": p_not_suited,
    "c-seq-write-no": p_not_suited,
}


def score_bullets(r: Results) -> list[dict]:
    out = []
    for b in BULLETS:
        try:
            verdict, evidence = PREDICATES[b.id](r, b)
        except NotRun as e:
            verdict, evidence = "not run", f"lacks {e}"
        out.append({"id": b.id, "text": b.text, "verdict": verdict, "evidence": evidence})
    return out


# --- output --------------------------------------------------------------------------------


def summary_line(kind: str, rows: list[dict], verdicts: tuple[str, ...]) -> str:
    counts = {v: sum(x["verdict"] == v for x in rows) for v in verdicts}
    return f"{kind}: {len(rows)} | " + " | ".join(f"{v} {n}" for v, n in counts.items())


def _cell(x: float | None) -> str:
    return "-" if x is None else f"{x:+.2f}"


def render(figures: list[dict], bullets: list[dict]) -> str:
    head = ["figure", "panel", "queues", "seed %", "ssdlab %", "verdict"]
    rows = []
    for f in figures:
        panel = f"{f['density']} {f['state']} {WL_TAG[f['workload']]}"
        q = f["queues"] or f"? ({f['compared_with'] or 'none run'})"
        seed = f"{f['seed_pct']:+.2f}" + ("" if f["legible"] else "*")
        rows.append([f["id"], panel, q, seed, _cell(f["ssdlab_pct"]), f["verdict"]])
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]

    def line(r: list[str]) -> str:
        cells = zip(r, widths)
        return "  ".join(c.ljust(w) if i < 3 else c.rjust(w) for i, (c, w) in enumerate(cells))

    out = ["Seed 000 '% Diff' figures (DRAM over HMB); * = only the sign is legible", line(head)]
    out += [line(r) for r in rows]
    out.append("")
    out.append("Seed 000 bullets")
    w = max(len(b["id"]) for b in bullets)
    for b in bullets:
        out.append(f"{b['id'].ljust(w)}  {b['verdict'].ljust(12)}  {b['evidence']}")
    out.append("")
    aim = sum(f["verdict"] in ("reproduced", "factor2") for f in figures)
    out.append(summary_line("figures", figures, FIGURE_VERDICTS))
    out.append(f"figures reproduced or within a factor of 2 with the right sign: {aim}")
    out.append(summary_line("bullets", bullets, BULLET_VERDICTS))
    return "\n".join(out)


def score(paths: Iterable[Path]) -> dict:
    """Load the OUT directories and score them: the JSON document ``--json`` writes."""
    r = Results()
    for p in paths:
        r.load(Path(p))
    figures, bullets = score_figures(r), score_bullets(r)
    return {
        "inputs": r.sources,
        "points_given_twice": r.overridden,
        "figures": figures,
        "bullets": bullets,
        "summary": {
            "figures": {v: sum(x["verdict"] == v for x in figures) for v in FIGURE_VERDICTS},
            "bullets": {v: sum(x["verdict"] == v for x in bullets) for v in BULLET_VERDICTS},
        },
        "thresholds": {
            "par": PAR,
            "tie": TIE,
            "trend": TREND,
            "eps": EPS,
            "large": LARGE,
            "clear": CLEAR,
        },
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m ssdlab.studies.seed000_score",
        description="Score hmb-vs-dram / hmb-size results against seed 000's figures and bullets.",
    )
    ap.add_argument("out", nargs="+", type=Path, help="study output directory or results.csv")
    ap.add_argument("--json", metavar="PATH", help="also write the result as JSON ('-': stdout)")
    ap.add_argument(
        "--markdown",
        metavar="PATH",
        help="also write every figure and bullet with its verdict and the reason for it "
        "(the mechanism, or the public figure the seed contradicts) as Markdown",
    )
    args = ap.parse_args(argv)
    try:
        doc = score(args.out)
    except (OSError, ValueError) as e:
        ap.error(str(e))
    if doc["points_given_twice"]:
        print(
            f"note: {doc['points_given_twice']} points given twice; the later OUT's are scored",
            file=sys.stderr,
        )
    text = render(doc["figures"], doc["bullets"])
    if args.json == "-":
        json.dump(doc, sys.stdout, indent=1)
        print()
    else:
        print(text)
        if args.json:
            _write(ap, args.json, json.dumps(doc, indent=1) + "\n", "--json")
    if args.markdown:
        from ssdlab.studies.seed000_why import markdown

        _write(ap, args.markdown, markdown(doc), "--markdown")
    return 0


def _write(ap: argparse.ArgumentParser, path: str, text: str, flag: str) -> None:
    from ssdlab import outputs

    try:
        outputs.write_file(path, text, flag)
    except outputs.OutputError as e:
        ap.exit(2, f"{ap.prog}: error: {e}\n")


if __name__ == "__main__":
    sys.exit(main())
