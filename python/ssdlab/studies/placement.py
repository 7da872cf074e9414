"""``ssdlab study placement`` (issue 27): the same host writes on a conventional drive and
on Flexible Data Placement drives with 2, 4 and 8 reclaim-unit handles.

Models: the host knows its data's lifetimes and gives each lifetime class a placement
ID; with fewer handles than classes, neighbouring classes share a handle (class c of 8
goes to handle c x H / 8). Two host workloads, each eight jobs (one per class) writing
at the same queue depth, so a class's lifetime is its LBA range's size:

- ``log-store``: a log-structured store's write stream: eight logs, each appending
  sequentially (wrapping) over its own range, ranges 1:1:2:2:4:4:8:8. A log's data dies
  in the order it was written, so once each log has its own handle every block empties
  before GC takes it and WAF falls to 1.
- ``hot-cold``: random overwrites within the same eight ranges (the small ranges hot,
  the large cold): separating them lowers WAF, but random overwrites within one class
  still leave valid data in its victims, so WAF stays above 1.

The drive: tiny-test with 128 blocks a plane (96 MiB user capacity, 25 % spare, GC
after a few MiB), filled once, then written three times over by the workload. Figures:
WAF (media over host bytes, whole run), write throughput, p99 write latency, the map's
memory (the same 4 bytes per 4 KiB page on every drive here: FDP keeps the page map,
unlike a zoned drive) and the bytes GC moved.
Simplifies: no ZNS drive with host-side GC (not built: the host would have to collect
zones itself); one seed; the eight jobs run at the same rate (closed loop, same depth).
Results: ``results.csv`` and ``results.png`` in the output directory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ssdlab import api
from ssdlab.studies.common import table, write_outputs

BASE = "tiny-test"
BASE_SET = {"nand.blocks_per_plane": 128}
RANGES = (1, 1, 2, 2, 4, 4, 8, 8)  # relative sizes of the eight classes' LBA ranges
HANDLES = (0, 2, 4, 8)  # 0: the conventional drive (no [fdp], no placement IDs)
WORKLOADS = ("log-store", "hot-cold")
PASSES = 3  # host bytes written = PASSES x the drive's capacity


def jobs(workload: str, handles: int, capacity: int, passes: float) -> list[dict[str, Any]]:
    """The eight jobs of a workload, with placement IDs when the drive has handles."""
    unit = capacity // sum(RANGES) // (1 << 20) * (1 << 20)
    per_job = int(capacity * passes / len(RANGES)) // 65536 * 65536
    out, offset = [], 0
    for c, r in enumerate(RANGES):
        j = {
            "name": f"class{c}",
            "rw": "write" if workload == "log-store" else "randwrite",
            "bs": "16KiB",
            "iodepth": 4,
            "offset": f"{offset}B",
            "size": f"{r * unit}B",
            "io_size": f"{per_job}B",
        }
        if handles:
            j["fdp"] = {"plids": [c * handles // len(RANGES)]}
        out.append(j)
        offset += r * unit
    return out


def device_set(handles: int) -> dict[str, Any]:
    s = dict(BASE_SET)
    if handles:
        s["fdp.handles"] = handles
    return s


def row_of(workload: str, handles: int, rep: dict[str, Any], capacity: int) -> dict[str, Any]:
    d = rep["device"]
    ftl = d["ftl"]
    w = rep["write"]
    fdp = d.get("fdp", {})
    return {
        "workload": workload,
        "drive": f"fdp-{handles}" if handles else "conventional",
        "handles": handles,
        "waf": ftl["waf"],
        "write_mb_per_s": w["bw_bytes"] / 1e6,
        "write_lat_p99_us": w["lat_ns"]["percentile"]["99.000000"] / 1e3,
        "write_lat_mean_us": w["lat_ns"]["mean"] / 1e3,
        "host_bytes": w["io_bytes"],
        "gc_victims": ftl["gc_victims"],
        "gc_units_copied": ftl["gc_units_copied"],
        "map_bytes": capacity // 4096 * 4,
        "ru_not_written_fully": fdp.get("events", {}).get("ru_not_written_fully", 0),
    }


COLUMNS = ["workload", "drive", "handles", "waf", "write_mb_per_s", "write_lat_p99_us",
           "write_lat_mean_us", "host_bytes", "gc_victims", "gc_units_copied", "map_bytes",
           "ru_not_written_fully"]  # fmt: skip


def run_study(out_dir: Path, quick: bool = False, seed: int = 1) -> str:
    """Run every workload on every drive; print the table, write results.csv/.png."""
    capacity = api.validate(BASE, set=BASE_SET)["capacity_bytes"]
    passes = 1.5 if quick else PASSES
    keys, runs = [], []
    for wl in WORKLOADS:
        for h in HANDLES:
            keys.append((wl, h))
            runs.append({"device": BASE, "set": device_set(h), "state": "full", "seed": seed,
                         "workload": {"jobs": jobs(wl, h, capacity, passes)}})  # fmt: skip
    reports = api.run_many(runs)
    rows = [row_of(wl, h, r.to_dict(), capacity) for (wl, h), r in zip(keys, reports)]
    text = table(
        f"Placement: {BASE} with 128 blocks a plane ({capacity >> 20} MiB), full, then "
        f"{passes:g} x its capacity of 16 KiB writes by 8 lifetime classes",
        ["workload", "drive", "WAF", "MB/s", "p99 µs", "GC copied", "map"],
        [[r["workload"], r["drive"], f"{r['waf']:.3f}", f"{r['write_mb_per_s']:,.0f}",
          f"{r['write_lat_p99_us']:,.0f}", f"{r['gc_units_copied']:,}",
          f"{r['map_bytes'] >> 10} KiB"] for r in rows],
    )  # fmt: skip

    def draw(plt):
        fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
        xs = list(range(len(HANDLES)))
        labels = ["conv." if h == 0 else f"FDP {h}" for h in HANDLES]
        for wl in WORKLOADS:
            rs = [next(r for r in rows if r["workload"] == wl and r["handles"] == h)
                  for h in HANDLES]  # fmt: skip
            axes[0].plot(xs, [r["waf"] for r in rs], marker="o", label=wl)
            axes[1].plot(xs, [r["write_mb_per_s"] for r in rs], marker="o", label=wl)
            axes[2].plot(xs, [r["write_lat_p99_us"] for r in rs], marker="o", label=wl)
        for ax, t in zip(axes, ["WAF", "write MB/s", "p99 write latency (µs)"]):
            ax.set_xticks(xs, labels)
            ax.set_title(t)
            ax.grid(alpha=0.3)
        axes[0].axhline(1.0, color="grey", lw=0.8, ls="--")
        axes[0].legend()
        fig.suptitle("Same host writes, conventional vs FDP drives (ssdlab study placement)")
        return fig

    return text + "\n" + write_outputs(out_dir, "results", COLUMNS, rows, draw)
