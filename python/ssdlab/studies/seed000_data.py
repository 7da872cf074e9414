"""Seed 000's published figures as data (FMS 2023, Samsung: NVMe SSD "A" with 1 GB DRAM against
SSD "B" with a 64 MB HMB, HMMIN 16 MB; same density and NAND, different controllers).

The source is an OCR'd copy of the slides, so a figure is kept only where the text lets us say
which panel (density, drive state, workload) and which queue configuration it belongs to. What
could not be assigned is listed in comments with the reason, and in the bullets' ``figure``
text, never guessed into a table.

Which density the main slides show. The "HMB vs DRAM Comparison" and "HMB Tuning Comparison"
sections give no density. Their 4K random write T1 panels reappear in the "Multi-Density
Comparison" slides under "Density: High" (Sustain: 0.46 %, 3.40 %, -0.38 %, 1.99 %; HMB tuning,
Aging: 142.04 %, 193.18 %, 215.37 %, 74.77 %), so the main sections are the high density.

Conventions:
- ``DIFF_PCT[(density, state, workload, queues)]`` is the seed's "% Diff" of DRAM over HMB,
  (DRAM - HMB) / HMB x 100, as printed (positive: the DRAM device is faster).
- ``DIFF_FIGURES`` lists all 64 "% Diff" labels of the HMB vs DRAM slides (multi-density
  ones included) as ``Figure(id, density, state, workload, queues, pct, note, legible)``:
  ``queues`` is None where the OCR keeps the panel but not the queue count, ``note`` says where
  the label is and why it was put there, ``legible`` is False where only its sign can be
  trusted. ``DIFF_PCT`` is its subset that the OCR lets us assign with confidence
  (python/ssdlab/studies/seed000_score.py scores ssdlab against the whole list).
- ``HMB_SIZE_PCT[(density, state, workload, queues, hmb)]`` would hold the HMB tuning slides'
  Half or Min against Max. It is empty: every HMB tuning panel prints two labels per queue
  configuration (Half, Min) and the OCR gives them as loose rows of 8-12 numbers, some
  broken ("009%", "0.0a%", "5299"), with no way to tell Half from Min or which bar a number
  sits on. The legible numbers of each slide are in ``HMB_SIZE_LEGIBLE`` (panel unknown) and
  their range goes into the bullets.
- densities ``low``/``high``; states ``normal``/``sustain``/``aging``; queues ``1``, ``2``,
  ``4``, ``8``, ``max``; workloads by their ssdlab names (python/ssdlab/workloads.py).
"""

from __future__ import annotations

from typing import NamedTuple

SEQ_WRITE = "seq-write-128k-t1-qd32"
SEQ_READ = "seq-read-128k-t1-qd32"
RR_T1 = "rand-read-4k-t1-qd32"
RR_T16 = "rand-read-4k-t16-qd32"
RW_T1 = "rand-write-4k-t1-qd32"
RW_T16 = "rand-write-4k-t16-qd32"
WORKLOADS = (SEQ_WRITE, SEQ_READ, RR_T1, RR_T16, RW_T1, RW_T16)
STATES = ("normal", "sustain", "aging")
QUEUES = ("1", "2", "4", "8", "max")
DENSITIES = ("low", "high")
HMB_SIZES = ("max", "half", "min")

# The seed's words for its drive states and ssdlab's state that builds them
# (docs/flash-management.md). The seed: "Normal: No Pre-Condition; Sustain: Turbo area
# Pre-Conditioned; Aging: Full Drive Pre-conditioned".
SEED_STATE_WORDS = {
    "normal": "Normal: No Pre-Condition",
    "sustain": "Sustain: Turbo area Pre-Conditioned",
    "aging": "Aging: Full Drive Pre-conditioned",
}


def _panel(density: str, state: str, workload: str, values: dict[str, float]) -> dict:
    return {(density, state, workload, q): v for q, v in values.items()}


DIFF_PCT: dict[tuple[str, str, str, str], float] = {
    # 128K sequential write T1 QD32. Normal: five labels in queue order.
    **_panel(
        "high",
        "normal",
        SEQ_WRITE,
        {"1": 67.68, "2": 69.83, "4": 68.22, "8": 71.04, "max": 70.86},
    ),
    # Sustain and Aging share OCR rows. One row holds "78.23 79.11 79.52 78.31" under the
    # Sustain title (2Q..Max-Q); the row above holds "103.33" then "281.53 283.24 283.25
    # 287.70" (Aging, 2Q..Max-Q). 103.33 % is the leftmost label of that upper row: either
    # Sustain's 1Q (plotted above its other points) or Aging's 1Q. Left out, as is the other
    # 1Q, which the OCR lost.
    **_panel("high", "sustain", SEQ_WRITE, {"2": 78.23, "4": 79.11, "8": 79.52, "max": 78.31}),
    **_panel("high", "aging", SEQ_WRITE, {"2": 281.53, "4": 283.24, "8": 283.25, "max": 287.70}),
    # 128K sequential read T1 QD32: each panel's five labels on a row of their own.
    **_panel(
        "high",
        "normal",
        SEQ_READ,
        {"1": 77.95, "2": 77.17, "4": 76.37, "8": 76.63, "max": 76.56},
    ),
    **_panel(
        "high",
        "sustain",
        SEQ_READ,
        {"1": 118.54, "2": 118.81, "4": 118.69, "8": 117.91, "max": 118.54},
    ),
    **_panel(
        "high",
        "aging",
        SEQ_READ,
        {"1": 140.70, "2": 131.21, "4": 135.54, "8": 135.65, "max": 135.82},
    ),
    # 4K random write T1 QD32, Aging: "1541.82 1650.59 1718.22 1169.34" on one row and 382.62
    # below it. The conclusion slide says "Max-Q configuration worked best with lowest gaps
    # possible between DRAM & HMB", and the HMB tuning slide that Max HMB's "Aging performance
    # increased with increase in Queues": the lowest gap, 382.62 %, is Max-Q, the row 1Q..8Q.
    **_panel(
        "high",
        "aging",
        RW_T1,
        {"1": 1541.82, "2": 1650.59, "4": 1718.22, "8": 1169.34, "max": 382.62},
    ),
    # Not assigned (panel known, queue not):
    # - random write T1, Normal (high): 3.92, 1.45, 3.72, 0.17 (four of five, x labels lost);
    # - random write T1, Sustain (high): 0.46, 3.40, -0.38 on one row, 1.99 below (and 8.00 on
    #   the multi-density copy), order across queues not recoverable;
    # - random write T16, Normal (high): 8.10, 0.32; Sustain: 1059.45 (or Aging's) and 1.26;
    #   Aging: 647.27, 948.27, 737.05;
    # - random read T1 and T16 (high): no legible % labels ("0,355", "8.81 :7.26 i7-49" with
    #   signs and panels unclear);
    # - low density, random read Aging: T1 15.15, 15.68; T16 "13.17", "4.93" with the High
    #   panel's labels interleaved;
    # - low density, random write T1: Normal 7.44; Sustain 22.89, 32.01, 37.23.
}


class Figure(NamedTuple):
    """One "% Diff" label of the HMB vs DRAM slides (DRAM over HMB, as printed)."""

    id: str
    density: str
    state: str
    workload: str
    queues: str | None  # None: some queue count of the panel, which one the OCR does not keep
    pct: float
    note: str  # where the label is in the OCR (line numbers of the seed's text) and why here
    legible: bool = True  # False: digits or sign garbled; only the sign can be compared


def _figs(tag, density, state, workload, values, note, queues=None, legible=None):
    """Figures of one panel: ``queues`` lists their queue counts (None: not assigned)."""
    qs = queues or (None,) * len(values)
    ok = legible or (True,) * len(values)
    out = []
    for i, (q, v, leg) in enumerate(zip(qs, values, ok), 1):
        fid = f"{tag}-{density}-{state}-" + (f"{q}q" if q else f"u{i}")
        out.append(Figure(fid, density, state, workload, q, v, note, leg))
    return tuple(out)


_Q5 = QUEUES
_Q2 = ("2", "4", "8", "max")

# All 64 "% Diff" labels of the "HMB vs DRAM Comparison" slides and of the "Multi-Density
# Comparison" slides that compare HMB with DRAM. The OCR prints 72 such labels: 54 on the six
# main slides and 18 on the two multi-density slides, whose "Density: High" panels repeat
# main-slide panels; 8 of their labels are those repeats (".78%" of random read T16 Aging;
# "377%", "2%", "0.17%" of random write T1 Normal; "0-46%", "3.40%", "-0.38%", "1.99%" of
# its Sustain) and are counted once: 72 - 8 = 64. The repeats also print two labels the main
# slide's OCR lost (2.28 % and 8.00 %): each of those two panels then has its five labels.
# Queue counts are given where DIFF_PCT gives them (a row of five labels in queue order, or
# four beside the axis's lost 1Q) and for 103.33 %, the one empty slot of its panel; every
# other label's queue count is None (its row holds fewer than the panel's five labels, or the
# labels sit on several rows at heights that do not follow queue order).
# fmt: off
DIFF_FIGURES: tuple[Figure, ...] = (
    *_figs("sw", "high", "normal", SEQ_WRITE,
           (67.68, 69.83, 68.22, 71.04, 70.86), "line 123: five labels in queue order", _Q5),
    *_figs("sw", "high", "sustain", SEQ_WRITE, (103.33,),
           "line 135: leftmost of the upper row, above Sustain's 2Q..Max-Q (78 %); as Aging's "
           "1Q it would sit far below Aging's 281-288 % labels, not on their row. Either way "
           "1Q; the panel is our reading", ("1",)),
    *_figs("sw", "high", "sustain", SEQ_WRITE, (78.23, 79.11, 79.52, 78.31),
           "line 136: four labels, 2Q..Max-Q (the axis's 1Q is lost)", _Q2),
    *_figs("sw", "high", "aging", SEQ_WRITE, (281.53, 283.24, 283.25, 287.70),
           "line 135: four labels after 103.33 %, 2Q..Max-Q", _Q2),
    *_figs("sr", "high", "normal", SEQ_READ,
           (77.95, 77.17, 76.37, 76.63, 76.56), "line 155: five labels in queue order", _Q5),
    *_figs("sr", "high", "sustain", SEQ_READ, (118.54, 118.81, 118.69, 117.91, 118.54),
           "line 167: first five labels, queue order", _Q5),
    *_figs("sr", "high", "aging", SEQ_READ, (140.70, 131.21, 135.54, 135.65, 135.82),
           "line 167: last five labels, queue order", _Q5),
    *_figs("rr1", "high", "normal", RR_T1, (-0.35,),
           "line 189: '0,355' (0.35 %, '%' read as '5'); no sign printed, negative by the "
           "slide's bullet (HMB better in all states and queue configurations)",
           legible=(False,)),
    *_figs("rr16", "high", "sustain", RR_T16, (-8.81, -7.26, -7.49),
           "line 234: '8.81% :7.26% i7-49%'; not among the Aging panel's labels on the "
           "multi-density copy, so Sustain (our reading); signs garbled or missing, negative by "
           "the slide's bullet; 'i7-49%' may be 17.49 %", legible=(True, True, False)),
    *_figs("rr16", "high", "aging", RR_T16, (-0.78,),
           "line 235 and the multi-density copy (line 349): '.78%', digits before the point "
           "lost; negative by the slide's bullet", legible=(False,)),
    *_figs("rw1", "high", "normal", RW_T1, (3.92, 1.45, 3.72, 0.17, 2.28),
           "lines 263-265 (four labels on three rows, x labels 1Q/2Q lost) and 2.28 % from the "
           "multi-density copy (line 365)"),
    *_figs("rw1", "high", "sustain", RW_T1, (0.46, 3.40, -0.38, 1.99, 8.00),
           "lines 275-277 ('OA6%' = 0.46 %) and 8.00 % from the multi-density copy (line 376); "
           "label heights do not follow queue order"),
    *_figs("rw1", "high", "aging", RW_T1, (1541.82, 1650.59, 1718.22, 1169.34, 382.62),
           "lines 276-277: four on a row, 382.62 % below; Max-Q by the conclusion's 'Max-Q ... "
           "lowest gaps' (as DIFF_PCT)", _Q5),
    *_figs("rw16", "high", "normal", RW_T16, (8.10, 0.32), "line 296: two of five labels"),
    *_figs("rw16", "high", "sustain", RW_T16, (1059.45, 1.26),
           "line 308: left of Aging's three labels on a row spanning both panels, so Sustain "
           "by position (1059.45 % may yet be Aging's)"),
    *_figs("rw16", "high", "aging", RW_T16, (647.27, 948.27, 737.05),
           "line 308: the row's three rightmost labels, three of five"),
    *_figs("rr1", "low", "aging", RR_T1, (15.15, 15.68),
           "line 333: right of the High panel's axes, in the Low panel"),
    *_figs("rr16", "low", "aging", RR_T16, (13.17, 4.93),
           "lines 347 and 352: positive, as the slide's bullet says of low density (4.93 % "
           "may be in the High panel, whose labels the main slide gives as negative)"),
    *_figs("rw1", "low", "normal", RW_T1, (7.44,), "line 363: the Low panel's one label"),
    *_figs("rw1", "low", "sustain", RW_T1, (32.01, 37.23, 22.89),
           "lines 375-376: the Low panel's labels (its 8Q axis label is lost)"),
)
# fmt: on

# HMB tuning (Half / Min against Max): see the module docstring for why nothing is assigned.
HMB_SIZE_PCT: dict[tuple[str, str, str, str, str], float] = {}

# Legible HMB tuning labels (Half and Min against Max, which bar unknown) per (density, workload,
# state); state "any" where the OCR mixes a slide's panels. Labels with a lost decimal point or
# sign ("009%", "276%", "5299", "0.-35%") are left out.
# fmt: off
HMB_SIZE_LEGIBLE: dict[tuple[str, str, str], tuple[float, ...]] = {
    ("high", SEQ_WRITE, "any"): (
        0.17, 0.06, 0.01, 0.00, 0.20, 0.05, 0.26, -0.05, 0.33, -0.07, 0.07, 0.61, 3.20, 2.51,
        0.92, -0.01, -0.16, -0.23, -1.24, -2.60, -1.71, 0.12, -0.25,
    ),
    ("high", SEQ_READ, "any"): (
        0.02, 0.00, 0.00, 0.04, -0.01, 0.52, -1.70, -1.70, -0.16, 0.22, -0.51, 0.05, -0.05,
        0.02, 0.01, 0.00, -0.05,
    ),
    ("high", RR_T1, "any"): (
        1.15, 0.74, 1.56, -0.76, -2.37, 0.72, 0.51, -3.40, -1.74, 0.39, 1.93, 0.78, 0.24, 0.73,
        -0.87, -2.19,
    ),
    ("high", RR_T16, "normal"): (0.64, 0.61, -0.14, 0.25, 0.07, 0.19, 0.36, 0.56, 0.43),
    ("high", RR_T16, "any"): (
        -0.74, 0.28, -1.40, 0.23, 0.47, 0.96, 0.03, 0.50, 0.89, -0.22, 0.09, -1.80, -0.96,
    ),
    # Ten labels = five queue configurations x (Half, Min), in an order the OCR does not keep.
    ("high", RW_T1, "sustain"): (
        8.00, 9.85, 1.10, -1.05, -2.05, -12.37, 4.33, -10.44, -22.96, -4.51,
    ),
    ("high", RW_T1, "aging"): (142.04, 193.18, 215.37, 159.30, 150.17, 5.22, -4.92, 74.77),
    ("high", RW_T16, "normal"): (10.09, 2.72, 6.21, 0.05),
    ("high", RW_T16, "any"): (
        7.80, 3.82, 1.20, -7.03, 0.12, 5.50, 49.10, 29.49, 87.56, 52.27, 57.46,
    ),
    ("low", RW_T1, "normal"): (43.88, -10.59, -8.83, 8.89, 13.08),
    ("low", RW_T1, "aging"): (61.16, 32.30, 26.19, 24.90, 8.48),
    ("low", RR_T16, "sustain"): (0.69, -0.44, -0.38, -0.21, 1.41),
}
# fmt: on


class Bullet(NamedTuple):
    """One bullet of the slides: what it claims and where it applies."""

    id: str
    text: str
    study: str  # "hmb-vs-dram", "hmb-size" or "both"
    workloads: tuple[str, ...]
    states: tuple[str, ...]
    densities: tuple[str, ...]
    figure: str  # the seed's figures behind it, as far as the OCR gives them


_ALL = STATES
_HI = ("high",)
_LO = ("low",)
_BOTH = DENSITIES


def _rng(values) -> str:
    return f"legible labels {min(values):+.2f} % .. {max(values):+.2f} % (bar unknown)"


BULLETS: tuple[Bullet, ...] = (
    # --- HMB vs DRAM ---------------------------------------------------------------------
    Bullet(
        "sw-dram-leads",
        "DRAM device leads in all Drive states & gap widens multifold at aging",
        "hmb-vs-dram",
        (SEQ_WRITE,),
        _ALL,
        _HI,
        "Normal 67.68..71.04 %, Sustain 78.23..79.52 % (2Q..Max-Q), Aging 281.53..287.70 %"
        " (2Q..Max-Q)",
    ),
    Bullet(
        "sw-hmb-1q-aging",
        "HMB device at 1Q configuration shows lowest performance in Aging",
        "hmb-vs-dram",
        (SEQ_WRITE,),
        ("aging",),
        _HI,
        "bar heights only; the Aging 1Q % is not legible",
    ),
    Bullet(
        "sr-dram-leads",
        "DRAM device leads in all Drive states & gap widens multifold at aging",
        "hmb-vs-dram",
        (SEQ_READ,),
        _ALL,
        _HI,
        "Normal 76.37..77.95 %, Sustain 117.91..118.81 %, Aging 131.21..140.70 %",
    ),
    Bullet(
        "sr-1q-aging",
        "1Q configuration has better results for HMB device than in sequential write case in aging",
        "hmb-vs-dram",
        (SEQ_READ, SEQ_WRITE),
        ("aging",),
        _HI,
        "sequential read Aging 1Q 140.70 % (sequential write Aging 1Q not legible)",
    ),
    *(
        Bullet(
            f"{tag}-hmb-better",
            "HMB device performed better than DRAM device in all Drive states & Queue"
            " Configurations",
            "hmb-vs-dram",
            (wl,),
            _ALL,
            _HI,
            "no legible % labels",
        )
        for tag, wl in (("rr1", RR_T1), ("rr16", RR_T16))
    ),
    *(
        Bullet(
            f"{tag}-hmb-consistent-aging",
            "HMB is more Consistent at Aging state as well.",
            "hmb-vs-dram",
            (wl,),
            ("aging",),
            _HI,
            "no legible % labels",
        )
        for tag, wl in (("rr1", RR_T1), ("rr16", RR_T16))
    ),
    *(
        Bullet(
            f"{tag}-dram-gains-with-queues-aging",
            "In Aging with increase in number of Q's, DRAM is able to perform better",
            "hmb-vs-dram",
            (wl,),
            ("aging",),
            _HI,
            "no legible % labels",
        )
        for tag, wl in (("rr1", RR_T1), ("rr16", RR_T16))
    ),
    Bullet(
        "rw1-on-par",
        "In Normal & sustain States both device perform on par across majority of Queue states",
        "hmb-vs-dram",
        (RW_T1,),
        ("normal", "sustain"),
        _HI,
        "Normal 0.17, 1.45, 3.72, 3.92 %; Sustain -0.38, 0.46, 1.99, 3.40 % (queues not assigned)",
    ),
    Bullet(
        "rw16-on-par",
        "In Normal & sustain States both device perform on par across majority of Queue states",
        "hmb-vs-dram",
        (RW_T16,),
        ("normal", "sustain"),
        _HI,
        "Normal 0.32, 8.10 %; Sustain 1.26 % and 1059.45 % (panel unsure)",
    ),
    *(
        Bullet(
            f"{tag}-more-queues-faster",
            "In Normal & Sustain state Performance increased as number of Qs increased",
            "hmb-vs-dram",
            (wl,),
            ("normal", "sustain"),
            _HI,
            "bar heights only",
        )
        for tag, wl in (("rw1", RW_T1), ("rw16", RW_T16))
    ),
    Bullet(
        "rw1-dram-leads-aging",
        "In Aging DRAM device leads by large margin",
        "hmb-vs-dram",
        (RW_T1,),
        ("aging",),
        _HI,
        "Aging 1541.82, 1650.59, 1718.22, 1169.34, 382.62 % (1Q..Max-Q)",
    ),
    Bullet(
        "rw16-dram-leads-aging",
        "In Aging DRAM device leads by large margin",
        "hmb-vs-dram",
        (RW_T16,),
        ("aging",),
        _HI,
        "Aging 647.27, 737.05, 948.27 % legible (queues not assigned)",
    ),
    # --- multi-density, HMB vs DRAM --------------------------------------------------------
    Bullet(
        "md-rr-low-dram-higher-aging",
        "For low density, the DRAM is on little higher side than HMB in Aging state across T1 &"
        " T16 workloads",
        "hmb-vs-dram",
        (RR_T1, RR_T16),
        ("aging",),
        _LO,
        "low density, T1 Aging 15.15, 15.68 % legible (queues not assigned)",
    ),
    Bullet(
        "md-rw1-low-dram-low-q",
        "Low density shows better DRAM performance at low Q configurations in Normal & Sustain"
        " states.",
        "hmb-vs-dram",
        (RW_T1,),
        ("normal", "sustain"),
        _LO,
        "low density: Normal 7.44 %; Sustain 22.89, 32.01, 37.23 % (queues not assigned)",
    ),
    Bullet(
        "md-rw1-low-uniform-sustain",
        "Low density shows uniform performance at all Q configurations in sustain state."
        " (T16 has similar observation in Sustain state only.)",
        "hmb-vs-dram",
        (RW_T1, RW_T16),
        ("sustain",),
        _LO,
        "bar heights only",
    ),
    # --- HMB tuning (Max / Half / Min) -----------------------------------------------------
    Bullet(
        "hs-sw-no-impact",
        "HMB Size variation didn't impact performance across all states & Q-Configuration.",
        "hmb-size",
        (SEQ_WRITE,),
        _ALL,
        _HI,
        _rng(HMB_SIZE_LEGIBLE[("high", SEQ_WRITE, "any")]),
    ),
    Bullet(
        "hs-sw-aging-1q",
        "Aging state performance drastically reduced across all Q-Configuration & badly hit in"
        " 1Q-Configuration.",
        "hmb-size",
        (SEQ_WRITE,),
        ("aging",),
        _HI,
        "bar heights only",
    ),
    Bullet(
        "hs-sr-no-impact",
        "HMB Size variation didn't impact performance across all states & Q-Configuration.",
        "hmb-size",
        (SEQ_READ,),
        _ALL,
        _HI,
        _rng(HMB_SIZE_LEGIBLE[("high", SEQ_READ, "any")]),
    ),
    Bullet(
        "hs-rr1-max-better",
        "Performance better for Max HMB allocation in majority cases.",
        "hmb-size",
        (RR_T1,),
        _ALL,
        _HI,
        _rng(HMB_SIZE_LEGIBLE[("high", RR_T1, "any")]),
    ),
    Bullet(
        "hs-rr1-half-consistent-aging",
        "In Aging Half HMB size allocation is more consistent across all Queue configurations",
        "hmb-size",
        (RR_T1,),
        ("aging",),
        _HI,
        "bars not assigned",
    ),
    Bullet(
        "hs-rr16-half-better",
        "HMB allocation Half the preferred size performed better in Normal & Aging states",
        "hmb-size",
        (RR_T16,),
        ("normal", "aging"),
        _HI,
        "Normal " + _rng(HMB_SIZE_LEGIBLE[("high", RR_T16, "normal")]),
    ),
    Bullet(
        "hs-rr16-half-poor-sustain",
        "Half HMB Size allocation worked relatively poor in sustain state across all Queue"
        " configurations",
        "hmb-size",
        (RR_T16,),
        ("sustain",),
        _HI,
        "bars not assigned",
    ),
    Bullet(
        "hs-rw1-no-impact-normal-sustain",
        "Normal & Sustain state performance has no major impact due to HMB Size variation",
        "hmb-size",
        (RW_T1,),
        ("normal", "sustain"),
        _HI,
        "Sustain " + _rng(HMB_SIZE_LEGIBLE[("high", RW_T1, "sustain")]),
    ),
    Bullet(
        "hs-rw1-min-falls-with-queues-aging",
        "Min HMB allocation shows Aging performance decreased with increase in Queues configured.",
        "hmb-size",
        (RW_T1,),
        ("aging",),
        _HI,
        "Aging " + _rng(HMB_SIZE_LEGIBLE[("high", RW_T1, "aging")]),
    ),
    Bullet(
        "hs-rw1-max-rises-with-queues-aging",
        "Max HMB allocation shows Aging performance increased with increase in Queues configured.",
        "hmb-size",
        (RW_T1,),
        ("aging",),
        _HI,
        "bar heights only",
    ),
    Bullet(
        "hs-rw16-min-better",
        "Min HMB size allocation shows better results in majority of configurations & drive states",
        "hmb-size",
        (RW_T16,),
        _ALL,
        _HI,
        "Normal " + _rng(HMB_SIZE_LEGIBLE[("high", RW_T16, "normal")]),
    ),
    Bullet(
        "hs-rw16-half-low",
        "Half HMB size allocation shows low performance In majority of cases in sustain & aging"
        " states",
        "hmb-size",
        (RW_T16,),
        ("sustain", "aging"),
        _HI,
        "bars not assigned",
    ),
    # --- multi-density, HMB tuning ---------------------------------------------------------
    Bullet(
        "md-hs-rr16-low-flat-sustain",
        "Low density show not much difference across HMB sizes in sustain state",
        "hmb-size",
        (RR_T16,),
        ("sustain",),
        _LO,
        "Sustain " + _rng(HMB_SIZE_LEGIBLE[("low", RR_T16, "sustain")]),
    ),
    Bullet(
        "md-hs-rw1-low-half-low-q-normal",
        "For low density, Half HMB Size has better values for low Q configuration in normal state",
        "hmb-size",
        (RW_T1,),
        ("normal",),
        _LO,
        "Normal " + _rng(HMB_SIZE_LEGIBLE[("low", RW_T1, "normal")]),
    ),
    Bullet(
        "md-hs-rw1-low-min-consistent-aging",
        "For low density, Min HMB Size has been more consistent at aging across all Q"
        " configurations",
        "hmb-size",
        (RW_T1,),
        ("aging",),
        _LO,
        "Aging " + _rng(HMB_SIZE_LEGIBLE[("low", RW_T1, "aging")]),
    ),
    # --- conclusion ------------------------------------------------------------------------
    Bullet(
        "c-4q-optimal",
        "Optimal Queue choice across different HMB sizes & drive states: 4Q configuration",
        "both",
        WORKLOADS,
        _ALL,
        _BOTH,
        "no figure",
    ),
    Bullet(
        "c-max-half-better",
        "Max & Half Preferred Size Allocation for HMB worked better in most of workloads & Drive"
        " states across densities",
        "hmb-size",
        WORKLOADS,
        _ALL,
        _BOTH,
        "no figure",
    ),
    Bullet(
        "c-maxq-lowest-gap",
        "Max-Q configuration worked best with lowest gaps possible between DRAM & HMB across"
        " drive states",
        "hmb-vs-dram",
        WORKLOADS,
        _ALL,
        _BOTH,
        "e.g. random write T1 Aging: Max-Q 382.62 % against 1169.34..1718.22 %",
    ),
    Bullet(
        "c-rr-larger-densities",
        "HMB for Random Read: suits better for larger densities (check mark)",
        "hmb-vs-dram",
        (RR_T1, RR_T16),
        _ALL,
        _BOTH,
        "no figure",
    ),
    Bullet(
        "c-rw-competitive",
        "HMB for Random Writes: competitive enough till Aging (check mark)",
        "hmb-vs-dram",
        (RW_T1, RW_T16),
        ("normal", "sustain"),
        _BOTH,
        "no figure",
    ),
    Bullet(
        "c-seq-read-no",
        "HMB for Sequential Read: not suited (cross)",
        "hmb-vs-dram",
        (SEQ_READ,),
        _ALL,
        _BOTH,
        "see sr-dram-leads",
    ),
    Bullet(
        "c-seq-write-no",
        "HMB for Sequential Writes: not suited (cross)",
        "hmb-vs-dram",
        (SEQ_WRITE,),
        _ALL,
        _BOTH,
        "see sw-dram-leads",
    ),
)


def seed_diff(density: str, state: str, workload: str, queues: str) -> float | None:
    """The seed's % Diff (DRAM over HMB) for one point, or None where it gives none."""
    return DIFF_PCT.get((density, state, workload, queues))


def seed_hmb_size_pct(
    density: str, state: str, workload: str, queues: str, hmb: str
) -> float | None:
    """The seed's Half/Min % against Max for one point (none assigned; see above)."""
    return HMB_SIZE_PCT.get((density, state, workload, queues, hmb))
