"""Calibration table of the seed000 presets against the public figures of the drives they
are modelled on: model value beside public figure, row by row, with a 15 % verdict.

    python -m ssdlab.studies.seed000_calibration [--out DIR] [--devices A,B,...]
                                                 [--json PATH] [--quick] [--t4-iodepth N]
                                                 [--set KEY=VALUE ...]

| preset | modelled on |
|---|---|
| ``seed000-dram`` | Samsung 980 PRO 500 GB (Elpis, 512 MB LPDDR4) on PCIe 4.0 |
| ``seed000-dram-1tb`` | Samsung 980 PRO 1 TB (Elpis, 1 GB LPDDR4) on PCIe 4.0 |
| ``seed000-hmb`` | Samsung 980 500 GB (Pablo, DRAM-less, 64 MB HMB) |
| ``seed000-hmb-1tb`` | Samsung 980 1 TB |
| ``samsung-970-evo-plus`` | Samsung 970 EVO Plus 500 GB (Phoenix; device A until 2026-11-27) |
| ``samsung-970-evo-plus-1tb`` | Samsung 970 EVO Plus 1 TB (Phoenix, 1 GB LPDDR4) |

``--devices`` takes those presets, or ``SPEC=DRIVE`` for another device (a preset or a
.toml/.json file) measured against one drive's figures (DRIVE: a key of ``DRIVES``, e.g.
``cand.toml=980-1tb``). Output: a Markdown table on stdout (drive, capacity, preset, figure,
public value, unit, source key, model value, model/public, verdict) and a summary line;
``--out DIR`` also writes ``calibration.md`` and ``calibration.csv`` there, ``--json PATH``
(``-``: stdout) the rows as JSON. The exit status is 0 whatever the verdicts, 2 for bad input.

Public figures are in ``PUBLIC``, one entry per source (a key, the citation, its address, a
few words quoted, the figures it gives). The seed's own figures are not used: seed 000 gives
relative DRAM/HMB differences of unnamed drives, which are what the presets are meant to
reproduce, not what they may be fitted to.

How each row is measured (:func:`points`). Samsung publishes the test tools ("IOmeter1.1.0",
an "Intel Core i7-7700K" host) and, for random I/O, "QD 32 Thread 4", but not the span of
LBAs a test covers nor the drive's state beyond what the rows say. The assumptions:

- **Random 4 KiB, "QD32"** (read, write, write after the SLC cache): 4 host threads with 32
  outstanding I/Os each (``numjobs=4, iodepth=32``: 128 in flight), one NVMe queue per
  thread. In IOmeter, "Thread 4" is four workers and the queue depth ("# of Outstanding
  I/Os") is set per worker, so "QD 32 Thread 4" reads as 4 x 32. Reading it as 32 in all
  (4 x 8) is ``--t4-iodepth 8``; docs/seed000-calibration.md gives both.
- **Random span: the first 8 GiB** of LBAs. Smaller than every preset's SLC cache on an
  empty drive (so "QD32" writes are SLC writes, as the datasheet's "TurboWrite" figures are),
  within the 64 GiB of LBAs a 64 MiB HMB maps (so the HMB drive's figure is not one of map
  misses, as a vendor's best-case figure would not be), and far beyond any preset's write
  buffer. Reads run on ``normal-written`` (the span written once sequentially, the SLC area
  empty: data in TLC, as after the test file was written and the drive's idle time folded
  it); writes on ``normal`` (empty drive); writes after the cache on ``sustain`` (the SLC
  area full, the rest empty: what a fresh drive holds once its cache is spent), at the
  LBAs right after the ones the cache holds (``offset`` = the SLC area's size), as a
  write that has run past the cache goes on (since 2026-11-29: at offset 0 they rewrote
  the cache's own data, whose blocks the drive can then erase and reuse as SLC).
- **Random run length**: simulated time, measured after a ramp (fio's ``runtime`` and
  ``ramp_time``): QD32 rows 2 s with the first 0.5 s left out; QD1 rows 4 s, the first
  1.5 s left out, so that the HMB drive's map cache has loaded every segment of the span
  (2,048 segments; a cold start costs the HMB drive 9 % at QD1) as minutes of IOmeter would.
- **QD1**: one thread, ``iodepth=1``, the same span and states.
- **Sequential 128 KiB, QD32, one thread**, over a 2 GiB span (smaller than every preset's
  smallest SLC cache), one pass: read on ``sustain`` (the span's data in SLC), write on
  ``normal`` (into the empty SLC), write after the cache on ``sustain``.
- **SLC cache size by fill level**: measured as the TechPowerUp review measures it, by
  writing 128 KiB sequentially well past the cache (1.25 times the preset's ``slc.size`` on
  an empty drive, ``normal``; twice ``slc.min_size`` on a full one, ``full``) and taking
  the most SLC data the drive held at once (``device.slc.peak_bytes``; before 2026-11-28
  the units that went to SLC, which folding in the foreground lets grow past the cache),
  in GB (10^9 B, as the datasheets state it).
- **Map memory**: the DRAM (970 EVO Plus) or the preferred HMB size (980), from the
  resolved config, in MiB (memory is sold in binary units: "512 MB" LPDDR4 is 512 MiB).

Run lengths scale with ``--quick`` (a tenth) or ``scale`` in Python; the SLC rows do not
(they must write past the cache). Every run uses seed 1. The whole table for the six
presets takes about a minute of wall time on two cores.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import re
import sys
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable

from ssdlab import api, outputs
from ssdlab.cliutil import UsageError

TOLERANCE = 0.15  # a row is "within" when model / public is in [0.85, 1.15]
VERDICTS = ("within", "outside", "not published", "not run")

# Drive keys -> (drive, capacity).
DRIVES: dict[str, tuple[str, str]] = {
    "980-pro-500gb": ("980 PRO", "500 GB"),
    "980-pro-1tb": ("980 PRO", "1 TB"),
    "970-evo-plus-500gb": ("970 EVO Plus", "500 GB"),
    "970-evo-plus-1tb": ("970 EVO Plus", "1 TB"),
    "980-500gb": ("980", "500 GB"),
    "980-1tb": ("980", "1 TB"),
}
PRESET_DRIVE: dict[str, str] = {
    "seed000-dram": "980-pro-500gb",
    "seed000-dram-1tb": "980-pro-1tb",
    "seed000-hmb": "980-500gb",
    "seed000-hmb-1tb": "980-1tb",
    "samsung-970-evo-plus": "970-evo-plus-500gb",
    "samsung-970-evo-plus-1tb": "970-evo-plus-1tb",
}
DEFAULT_DEVICES = tuple(PRESET_DRIVE)


@dataclass(frozen=True)
class Figure:
    key: str
    label: str
    unit: str


FIGURES: tuple[Figure, ...] = (
    Figure("seq_read", "seq read 128K QD32 (data in SLC)", "MB/s"),
    Figure("seq_write", "seq write 128K QD32 (into SLC)", "MB/s"),
    Figure("seq_write_after_slc", "seq write 128K QD32 after SLC", "MB/s"),
    Figure("rand_read_qd32", "4K random read QD32 T4", "IOPS"),
    Figure("rand_write_qd32", "4K random write QD32 T4 (into SLC)", "IOPS"),
    Figure("rand_write_qd32_after_slc", "4K random write QD32 T4 after SLC", "IOPS"),
    Figure("rand_read_qd1", "4K random read QD1 T1", "IOPS"),
    Figure("rand_write_qd1", "4K random write QD1 T1", "IOPS"),
    Figure("slc_empty", "SLC cache, empty drive (max)", "GB"),
    Figure("slc_full", "SLC cache, full drive (min)", "GB"),
    Figure("map_memory", "DRAM (970, 980 PRO) / HMB (980)", "MiB"),
)
FIGURE_BY_KEY = {f.key: f for f in FIGURES}

E5, E1T = "970-evo-plus-500gb", "970-evo-plus-1tb"
P5, P1T = "980-pro-500gb", "980-pro-1tb"
N5, N1T = "980-500gb", "980-1tb"

# Public figures, by source. "figures" maps (drive key, figure key) to the value in the
# figure's unit; every (drive, figure) pair appears in exactly one source ("none" holds the
# figures no source gives). Quotes are a few words of each source, for finding the figure.
PUBLIC: dict[str, dict[str, Any]] = {
    "hwluxx980p": {
        "cite": "Hardwareluxx, 'Samsung schaltet Produktseite zur 980 Pro SSD online' (Samsung's "
        "product page table, 250 GB / 500 GB / 1 TB columns, and the post-cache write rates)",
        "url": "https://hardwareluxx.de/index.php/news/hardware/festplatten/53978-samsung-"
        "schaltet-produktseite-zur-980-pro-ssd-online.html",
        "quotes": (
            "sequentielles Schreiben | 2.700 MB/s | 5.000 MB/s | 5.000 MB/s",
            "Random Read/Write (4KB, QD32) | 500.000/600.000 | 800.000/1.000.000 | "
            "1.000.000/1.000.000",
            "Dann bricht die Datenrate auf 2.000 MB/s, 1.100 MB/s oder gar 500 MB/s zusammen",
        ),
        "figures": {
            (P5, "seq_read"): 6900,
            (P5, "seq_write"): 5000,
            (P5, "seq_write_after_slc"): 1100,
            (P5, "rand_read_qd32"): 800_000,
            (P5, "rand_write_qd32"): 1_000_000,
            (P5, "rand_read_qd1"): 22_000,
            (P5, "rand_write_qd1"): 60_000,
            (P5, "map_memory"): 512,
            (P1T, "seq_read"): 7000,
            (P1T, "seq_write"): 5000,
            (P1T, "seq_write_after_slc"): 2000,
            (P1T, "rand_read_qd32"): 1_000_000,
            (P1T, "rand_write_qd32"): 1_000_000,
            (P1T, "rand_read_qd1"): 22_000,
            (P1T, "rand_write_qd1"): 60_000,
            (P1T, "map_memory"): 1024,
        },
    },
    "anand980p": {
        "cite": "AnandTech, 'The Samsung 980 PRO PCIe 4.0 SSD Review' (2020), page 3 "
        "(whole-drive fill: the 1 TB's SLC cache 'rated for 114GB')",
        "url": "https://www.anandtech.com/Show/Index/16087?page=3&slug=the-samsung-980-pro-pcie-"
        "4-ssd-review",
        "quotes": ("5GB/s writing to the SLC cache on the 1TB model", "rated for 114GB"),
        "figures": {(P1T, "slc_empty"): 114},
    },
    "digit970": {
        "cite": "digit.in, Samsung 970 EVO Plus review: Samsung's specification table "
        "(250 GB / 500 GB / 1 TB columns)",
        "url": "https://digit.in/reviews/general/samsung-970-evo-plus-nvme-m-2-ssd-250-gb-"
        "review-177943.html/amp",
        "quotes": (
            "SLC Cache Min | 4 GB | 4 GB | 6 GB",
            "SLC Cache Max | 13 GB | 22 GB | 42 GB",
            "4KB Random Read | QD32 | 250k IOPS | 480k IOPS | 600k IOPS",
        ),
        "figures": {
            (E5, "seq_read"): 3500,
            (E5, "seq_write"): 3200,
            (E5, "rand_read_qd32"): 480_000,
            (E5, "rand_write_qd32"): 550_000,
            (E5, "rand_read_qd1"): 19_000,
            (E5, "rand_write_qd1"): 60_000,
            (E5, "slc_empty"): 22,
            (E5, "slc_full"): 4,
            (E1T, "seq_read"): 3500,
            (E1T, "seq_write"): 3300,
            (E1T, "rand_read_qd32"): 600_000,
            (E1T, "rand_write_qd32"): 550_000,
            (E1T, "rand_read_qd1"): 19_000,
            (E1T, "rand_write_qd1"): 60_000,
            (E1T, "slc_empty"): 42,
            (E1T, "slc_full"): 6,
        },
    },
    "samsung970ds": {
        "cite": "Samsung 970 EVO Plus data sheet, footnotes (manualmachine.com copy of the "
        "MZ-V7S user manual / data sheet)",
        "url": "https://manualmachine.com/samsung/mzv7s250bw/8043730-user-manual",
        "quotes": (
            "900 MB/s for 500GB, 1700 MB/s for 1TB",
            "(tested with QD 32 Thread 4) ... 400,000 IOPS for 1TB",
            "IOmeter1.1.0 ... Intel Core i7-7700K",
        ),
        "figures": {
            (E5, "seq_write_after_slc"): 900,
            (E5, "rand_write_qd32_after_slc"): 200_000,
            (E1T, "seq_write_after_slc"): 1700,
            (E1T, "rand_write_qd32_after_slc"): 400_000,
        },
    },
    "cdrinfo970": {
        "cite": "cdrinfo.com, 'Samsung Sets New Performance Levels for Consumer NVMe SSDs "
        "with 970 EVO Plus' (launch article, Samsung's table)",
        "url": "https://www.cdrinfo.com/d7/content/samsung-sets-new-performance-levels-"
        "consumer-nvme-ssds-970-evo-plus",
        "quotes": ("1GB LPDDR4 DRAM (1TB) 512MB LPDDR4 DRAM (250/500GB)",),
        "figures": {
            (E5, "map_memory"): 512,
            (E1T, "map_memory"): 1024,
        },
    },
    "guru980": {
        "cite": "Guru3D, Samsung 980 1TB NVMe SSD review, page 2 (Samsung's specifications, "
        "250 GB / 500 GB / 1 TB columns)",
        "url": "https://www.guru3d.com/articles-pages/samsung-980-1tb-nvme-ssd-review,2.html",
        "quotes": (
            "Sequential read | 2900 MB/s | 3100 MB/s | 3500 MB/s",
            "Sequential write | 1300 MB/s | 2600 MB/s | 3000 MB/s",
            "(QD32) | 230K IOPS / 320K IOPS | 400K IOPS / 470K IOPS | 500K IOPS /480K IOPS",
        ),
        "figures": {
            (N5, "seq_read"): 3100,
            (N5, "seq_write"): 2600,
            (N5, "rand_read_qd32"): 400_000,
            (N5, "rand_write_qd32"): 470_000,
            (N5, "rand_read_qd1"): 17_000,
            (N5, "rand_write_qd1"): 54_000,
            (N1T, "seq_read"): 3500,
            (N1T, "seq_write"): 3000,
            (N1T, "rand_read_qd32"): 500_000,
            (N1T, "rand_write_qd32"): 480_000,
            (N1T, "rand_read_qd1"): 17_000,
            (N1T, "rand_write_qd1"): 54_000,
        },
    },
    "anand980": {
        "cite": "AnandTech, 'The Samsung SSD 980 (500GB & 1TB) Review', page 1 (specifications: "
        "SLC cache sizes, HMB) and page 4 (whole-drive fill: post-cache write about a third "
        "of the 970 EVO Plus 1 TB's; the 500 GB's cache measured at about 100 GB)",
        "url": "https://www.anandtech.com/show/16504/the-samsung-ssd-980-500gb-1tb-review/4",
        "quotes": ("Max SLC Cache Size | 45 GB | 122 GB | 160 GB",),
        "figures": {
            (N5, "slc_empty"): 122,
            (N5, "map_memory"): 64,
            (N1T, "slc_empty"): 160,
            (N1T, "map_memory"): 64,
        },
    },
    "tpu980": {
        "cite": "TechPowerUp, Samsung 980 1 TB review, page 6 (sequential 1 MB writes on an "
        "erased drive, one thread, until it is full)",
        "url": "https://www.techpowerup.com/review/samsung-980-non-pro-1-tb/6.html",
        "quotes": (
            "sustained until 160 GB have been written",
            "drop ... down to SATA speeds, around 500 MB/s",
        ),
        "figures": {(N1T, "seq_write_after_slc"): 500},
    },
    "none": {
        "cite": "not published: no figure in the sources above (the 980's data sheet gives "
        "no post-cache or minimum-cache figure; the 980 PRO's minimum cache and its 500 GB's "
        "maximum are not in a source we could check)",
        "url": "",
        "quotes": (),
        "figures": {
            (P5, "rand_write_qd32_after_slc"): None,
            (P1T, "rand_write_qd32_after_slc"): None,
            (P5, "slc_empty"): None,
            (P5, "slc_full"): None,
            (P1T, "slc_full"): None,
            (N5, "seq_write_after_slc"): None,
            (N5, "rand_write_qd32_after_slc"): None,
            (N1T, "rand_write_qd32_after_slc"): None,
            (N5, "slc_full"): None,
            (N1T, "slc_full"): None,
        },
    },
}


# Second sources: figures a review measured for a row PUBLIC already gives. They are shown
# beside the model in a table of their own and not counted: where two public figures of one
# row disagree by more than the tolerance, no model value can be within it of both, and the
# row's verdict says more about the host that measured it than about the drive.
SECOND_SOURCES: dict[str, dict[str, Any]] = {
    "kitguru970": {
        "cite": "KitGuru, Samsung SSD 970 EVO Plus 1TB review, page 10 ('4K Random Write v QD "
        "Performance'; their own bench, not Samsung's IOmeter 1.1.0 on an i7-7700K)",
        "url": "https://kitguru.net/components/ssd-drives/simon-crisp/samsung-ssd-970-evo-plus-"
        "1tb-review/10",
        "quotes": (
            "At QD1 the drive is rated as up to 60,000 IOPS",
            "the drive produced a QD1 figure 163,140 IOPS, much faster than the official figure",
        ),
        "figures": {(E1T, "rand_write_qd1"): 163_140},
    },
}


def second_source_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of ``rows`` a second source also gives, with that source's figure."""
    out = []
    for r in rows:
        drive = next((k for k, v in DRIVES.items() if v == (r["drive"], r["capacity"])), None)
        for key, src in SECOND_SOURCES.items():
            value = src["figures"].get((drive, r["figure_key"]))
            if value is not None:
                out.append({**r, "public": value, "source": key, "first_source": r["source"],
                            "first_public": r["public"], "ratio": ratio(r["model"], value),
                            "verdict": verdict(r["model"], value)})  # fmt: skip
    return out


def public_figure(drive: str, figure: str) -> tuple[float | None, str]:
    """(public value or None, source key) of one drive's figure."""
    for key, src in PUBLIC.items():
        if (drive, figure) in src["figures"]:
            return src["figures"][(drive, figure)], key
    raise KeyError(f"no source lists {figure} for {drive}")


def ratio(model: float | None, public: float | None) -> float | None:
    if model is None or public is None or public == 0:
        return None
    return model / public


def verdict(model: float | None, public: float | None, tol: float = TOLERANCE) -> str:
    """'within' when model / public is within ``tol`` of 1 (both ends included),
    'outside' otherwise; 'not published' without a public figure, 'not run' without a
    model value."""
    if public is None:
        return "not published"
    if model is None or (isinstance(model, float) and math.isnan(model)):
        return "not run"
    r = ratio(model, public)
    if r is None:
        return "outside"
    return "within" if round(abs(r - 1.0), 9) <= tol else "outside"


# --- the runs ---------------------------------------------------------------------------

SEQ_SPAN = 2 << 30
RANDOM_SPAN = 8 << 30
T4_JOBS = 4
T4_IODEPTH = 32
QD32_RUN_S, QD32_RAMP_S = 2.0, 0.5
QD1_RUN_S, QD1_RAMP_S = 4.0, 1.5
SLC_EMPTY_FILL = 1.25  # x slc.size written on an empty drive
SLC_FULL_FILL = 2.0  # x slc.min_size written on a full drive

_UNITS = {
    "": 1, "B": 1,
    "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
    "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
}  # fmt: skip


def config_bytes(text: str | int) -> int:
    """A size of the resolved config ("21484375KiB", "64MiB", "0B") in bytes."""
    if isinstance(text, int):
        return text
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]i?B|B)?\s*", str(text))
    if not m or (m.group(2) or "") not in _UNITS:
        raise ValueError(f"not a size: {text!r}")
    return int(float(m.group(1)) * _UNITS[m.group(2) or ""])


@dataclass
class Point:
    """One run: the figure it measures, the drive state and workload, and how the value
    is read from the report."""

    figure: str
    state: str
    workload: dict[str, Any]
    value: Callable[[Any], float]
    how: str


def _mbps(direction: str) -> Callable[[Any], float]:
    return lambda r: r[direction]["bw_bytes"] / 1e6


def _iops(direction: str) -> Callable[[Any], float]:
    return lambda r: r[direction]["iops"]


def _slc_gb(r: Any) -> float:
    """The cache's size as a long write sees it: the most SLC-mode blocks in use at
    once, as bytes of SLC data (with folding in the foreground, units keep going to SLC
    after the cache is full, so counting them overstates it)."""
    return r["device"]["slc"].get("peak_bytes", 0) / 1e9


def _secs(s: float) -> str:
    return f"{max(1, round(s * 1000))}ms"


def points(cfg: Mapping[str, Any], scale: float = 1.0, t4_iodepth: int = T4_IODEPTH) -> list[Point]:
    """The runs of one device (``cfg``: its resolved config, ``api.validate``), in the order
    they share prepared drives. ``scale`` multiplies every run length but the SLC fills."""
    seq_span = max(64 << 20, int(SEQ_SPAN * scale) >> 20 << 20)
    seq = {"bs": "128KiB", "iodepth": 32, "numjobs": 1, "offset": 0, "size": seq_span}
    t4 = {
        "bs": "4KiB", "iodepth": t4_iodepth, "numjobs": T4_JOBS, "queues": T4_JOBS,
        "queue_policy": "per-thread", "offset": 0, "size": RANDOM_SPAN,
        "runtime": _secs(QD32_RUN_S * scale), "ramp_time": _secs(QD32_RAMP_S * scale),
    }  # fmt: skip
    qd1 = {
        "bs": "4KiB", "iodepth": 1, "numjobs": 1, "offset": 0, "size": RANDOM_SPAN,
        "runtime": _secs(QD1_RUN_S * scale), "ramp_time": _secs(QD1_RAMP_S * scale),
    }  # fmt: skip
    span = f"{RANDOM_SPAN >> 30} GiB span"
    # Writes after the cache go to the LBAs after the ones the full cache holds.
    past = config_bytes(cfg.get("slc", {}).get("size", 0)) >> 20 << 20
    past_seq, past_t4 = {**seq, "offset": past}, {**t4, "offset": past}
    at = f" from {past / 1e9:.1f} GB" if past else ""
    pts = [
        Point("seq_write", "normal", {"rw": "write", **seq}, _mbps("write"),
              f"normal, {seq_span >> 20} MiB span, 1 pass"),
        Point("rand_write_qd32", "normal", {"rw": "randwrite", **t4}, _iops("write"),
              f"normal, {span}, {T4_JOBS}x{t4_iodepth}"),
        Point("rand_write_qd1", "normal", {"rw": "randwrite", **qd1}, _iops("write"),
              f"normal, {span}, 1x1"),
        Point("rand_read_qd32", "normal-written", {"rw": "randread", **t4}, _iops("read"),
              f"normal-written, {span}, {T4_JOBS}x{t4_iodepth}"),
        Point("rand_read_qd1", "normal-written", {"rw": "randread", **qd1}, _iops("read"),
              f"normal-written, {span}, 1x1"),
        Point("seq_read", "sustain", {"rw": "read", **seq}, _mbps("read"),
              f"sustain, {seq_span >> 20} MiB span, 1 pass"),
        Point("seq_write_after_slc", "sustain", {"rw": "write", **past_seq}, _mbps("write"),
              f"sustain, {seq_span >> 20} MiB span{at}, 1 pass"),
        Point("rand_write_qd32_after_slc", "sustain", {"rw": "randwrite", **past_t4},
              _iops("write"), f"sustain, {span}{at}, {T4_JOBS}x{t4_iodepth}"),
    ]  # fmt: skip
    slc = cfg.get("slc", {})
    size, low = config_bytes(slc.get("size", 0)), config_bytes(slc.get("min_size", 0))
    if size:
        fill = {"rw": "write", "bs": "128KiB", "iodepth": 32, "numjobs": 1, "offset": 0}
        empty = int(size * SLC_EMPTY_FILL) >> 20 << 20
        pts.append(
            Point(
                "slc_empty",
                "normal",
                {**fill, "io_size": empty},
                _slc_gb,
                f"normal, {empty / 1e9:.1f} GB written, the part that went to SLC",
            )
        )
        dynamic = slc.get("mode") in ("dynamic", "free-space")
        full = int((low if dynamic and low else size) * SLC_FULL_FILL) >> 20 << 20
        pts.append(
            Point(
                "slc_full",
                "full",
                {**fill, "io_size": full},
                _slc_gb,
                f"full, {full / 1e9:.1f} GB written, the part that went to SLC",
            )
        )
    # Runs of one state next to each other: they share its prepared drive.
    order = ("normal", "normal-written", "sustain", "full")
    return sorted(pts, key=lambda p: order.index(p.state))


def map_memory_mib(cfg: Mapping[str, Any]) -> float:
    """DRAM, or else the preferred HMB size, of a resolved config in MiB."""
    d = cfg.get("derived", {})
    n = d.get("dram_bytes") or d.get("hmb_preferred_bytes") or 0
    return n / (1 << 20)


def parse_devices(text: str | None) -> list[tuple[str, str]]:
    """``--devices``: [(device, drive key)]."""
    if text is None:
        return [(p, PRESET_DRIVE[p]) for p in DEFAULT_DEVICES]
    out = []
    for item in (s.strip() for s in text.split(",")):
        if not item:
            raise UsageError("--devices: an empty name (comma-separated presets or SPEC=DRIVE)")
        spec, sep, drive = item.partition("=")
        if not sep:
            drive = PRESET_DRIVE.get(spec, "")
            if not drive:
                raise UsageError(
                    f"--devices: '{spec}' is not one of {', '.join(PRESET_DRIVE)}; "
                    f"give another device as SPEC=DRIVE (DRIVE: {', '.join(DRIVES)})"
                )
        elif drive not in DRIVES:
            raise UsageError(f"--devices: '{drive}' is not a drive (allowed: {', '.join(DRIVES)})")
        out.append((spec, drive))
    return out


def measure(
    device: str,
    scale: float = 1.0,
    seed: int = 1,
    t4_iodepth: int = T4_IODEPTH,
    overrides: Mapping[str, Any] | Iterable[str] | None = None,
) -> dict[str, tuple[float, str]]:
    """Model values of one device: {figure key: (value, how it was measured)}.
    ``overrides``: device fields to set, as ``ssdlab.run``'s ``set`` (for trying a change
    before it goes into a preset)."""
    overrides = dict(overrides) if isinstance(overrides, Mapping) else list(overrides or ())
    cfg = api.validate(device, set=overrides)
    got = {"map_memory": (map_memory_mib(cfg), "resolved config")}
    try:
        for p in points(cfg, scale, t4_iodepth):
            r = api.run(
                device, p.workload, state=p.state, seed=seed, set=overrides, reuse_prep=True
            )
            got[p.figure] = (float(p.value(r)), p.how)
    finally:
        api.clear_prepared()
    return got


def table_rows(
    devices: Iterable[tuple[str, str]],
    scale: float = 1.0,
    seed: int = 1,
    t4_iodepth: int = T4_IODEPTH,
    measured: Mapping[str, Mapping[str, tuple[float, str]]] | None = None,
    overrides: Mapping[str, Any] | Iterable[str] | None = None,
) -> list[dict[str, Any]]:
    """The calibration table: one row per (device, figure). ``measured`` (device -> the
    output of :func:`measure`) skips the runs; without it each device is measured (with
    ``overrides`` set on every device)."""
    rows = []
    for device, drive in devices:
        got = (measured or {}).get(device)
        if got is None:
            got = measure(device, scale, seed, t4_iodepth, overrides)
        name, capacity = DRIVES[drive]
        for f in FIGURES:
            public, source = public_figure(drive, f.key)
            model, how = got.get(f.key, (None, ""))
            rows.append(
                {
                    "drive": name,
                    "capacity": capacity,
                    "device": device,
                    "figure": f.label,
                    "figure_key": f.key,
                    "public": public,
                    "unit": f.unit,
                    "source": source,
                    "model": model,
                    "ratio": ratio(model, public),
                    "verdict": verdict(model, public),
                    "how": how,
                }
            )
    return rows


# --- output -----------------------------------------------------------------------------


def fmt_value(v: float | None, unit: str) -> str:
    if v is None:
        return "-"
    if unit == "GB":
        return f"{v:,.1f}"
    return f"{v:,.0f}"


COLUMNS = ("drive", "capacity", "device", "figure", "public", "unit", "source", "model",
           "ratio", "verdict")  # fmt: skip
HEADER = ("drive", "capacity", "preset", "figure", "public", "unit", "source", "model",
          "model/public", "verdict")  # fmt: skip


def summary(rows: list[dict[str, Any]]) -> str:
    counts = " | ".join(f"{v} {sum(r['verdict'] == v for r in rows)}" for v in VERDICTS)
    return f"rows {len(rows)} | {counts} (within = model/public in 0.85..1.15)"


def markdown(rows: list[dict[str, Any]]) -> str:
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    for r in rows:
        public = fmt_value(r["public"], r["unit"]) if r["public"] is not None else "not published"
        cells = [
            r["drive"], r["capacity"], f"`{r['device']}`", r["figure"], public, r["unit"],
            r["source"], fmt_value(r["model"], r["unit"]),
            "-" if r["ratio"] is None else f"{r['ratio']:.2f}",
            f"**{r['verdict']}**" if r["verdict"] == "outside" else r["verdict"],
        ]  # fmt: skip
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)


def second_sources_markdown(rows: list[dict[str, Any]]) -> str:
    """Second sources beside the first and the model (not counted in the summary)."""
    extra = second_source_rows(rows)
    if not extra:
        return ""
    head = ("drive", "capacity", "preset", "figure", "first source", "second source", "model",
            "model/first", "model/second")  # fmt: skip
    lines = [
        "Second sources (not counted: the two public figures of these rows disagree):",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "---|" * len(head),
    ]
    for r in extra:
        first = ratio(r["model"], r["first_public"])
        cells = [
            r["drive"], r["capacity"], f"`{r['device']}`", r["figure"],
            f"{fmt_value(r['first_public'], r['unit'])} ({r['first_source']})",
            f"{fmt_value(r['public'], r['unit'])} ({r['source']})",
            fmt_value(r["model"], r["unit"]),
            "-" if first is None else f"{first:.2f}",
            "-" if r["ratio"] is None else f"{r['ratio']:.2f}",
        ]  # fmt: skip
        lines.append("| " + " | ".join(str(c) for c in cells) + " |")
    return "\n".join(lines)


def csv_text(rows: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, [*COLUMNS, "figure_key", "how"], lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if r[k] is None else r[k]) for k in w.fieldnames})
    return buf.getvalue()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m ssdlab.studies.seed000_calibration",
        description="The seed000 presets beside the public figures of the drives they are "
        "modelled on (980 PRO, 980, 970 EVO Plus; 500 GB and 1 TB).",
    )
    ap.add_argument("--out", metavar="DIR", help="also write calibration.md and calibration.csv")
    ap.add_argument(
        "--devices",
        help=f"comma-separated: presets ({', '.join(PRESET_DRIVE)}) or SPEC=DRIVE "
        f"(DRIVE: {', '.join(DRIVES)}); default: the six presets",
    )
    ap.add_argument("--json", metavar="PATH", help="also write the rows as JSON ('-': stdout)")
    ap.add_argument("--quick", action="store_true", help="a tenth of every run length")
    ap.add_argument(
        "--t4-iodepth",
        type=int,
        default=T4_IODEPTH,
        help="outstanding I/Os per thread of the 'QD32 T4' rows (default 32: 4 x 32; "
        "8 reads QD32 as 32 in all)",
    )
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a device field on every device (repeatable), e.g. slc.t_prog=160us",
    )
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    try:
        devices = parse_devices(args.devices)
        if args.t4_iodepth < 1:
            raise UsageError(f"--t4-iodepth: {args.t4_iodepth} (a positive integer)")
        if args.out:
            outputs.check_dir(args.out, "--out")
        if args.json and args.json != "-":
            outputs.check_file(args.json, "--json")
        for device, _ in devices:
            api.validate(device, set=args.set)
        scale = 0.1 if args.quick else 1.0
        rows = table_rows(devices, scale, t4_iodepth=args.t4_iodepth, overrides=args.set)
    except (UsageError, api.ConfigError, outputs.OutputError) as e:
        print(f"ssdlab: error: {e}", file=sys.stderr)
        return 2
    text = markdown(rows) + "\n\n" + summary(rows) + "\n"
    second = second_sources_markdown(rows)
    if second:
        text += "\n" + second + "\n"
    if args.json == "-":
        json.dump(rows, sys.stdout, indent=1)
        print()
    else:
        print(text, end="")
        if args.json:
            outputs.write_file(args.json, json.dumps(rows, indent=1) + "\n", "--json")
    if args.out:
        out = Path(args.out)
        out.mkdir(parents=True, exist_ok=True)
        outputs.write_file(out / "calibration.md", text, "--out")
        outputs.write_file(out / "calibration.csv", csv_text(rows), "--out")
    print(f"wall time {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
