"""``ssdlab study placement`` (issue 27): the same host writes on a conventional drive, on
Flexible Data Placement drives with 2, 4 and 8 reclaim-unit handles, and on a zoned (ZNS)
drive whose host runs a log-structured store with 1, 2, 4 or 8 open streams and collects
zones itself.

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

The zoned drive: the same NAND with 1 MiB zones (a block on each of the 4 dies: 128
zones, 128 MiB), no page map and no drive GC. The host store (``host_log``,
workload/hostlog.rs) maps the same 96 MiB of logical space in 16 KiB extents onto the
zones, writes class c to stream c x S / 8 (as FDP's handles), and collects the zone
with the least valid data when fewer than 2 are empty (its reads and writes go over
the link and take the jobs' queue slots; the jobs' writes wait meanwhile). Its WAF is
the host's (extents written to the drive per extent the classes wrote: the drive
itself writes each once); its map is the host's (4 bytes per extent) beside the
drive's per-zone map. It starts empty and is filled by a first group (each class
writes its range once), then the same three passes run as a second group: the figures
are the second group's.
Simplifies: one seed; the eight jobs run at the same rate (closed loop, same depth);
the zoned runs use one submission queue (jobs sharing a stream must reach its zone in
order; the other drives one queue per job).
Results: ``results.csv`` and ``results.png`` in the output directory.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ssdlab import api
from ssdlab.studies.common import table, write_outputs

BASE = "tiny-test"
BASE_SET = {"nand.blocks_per_plane": 128}
# The same NAND as a zoned drive: 1 MiB zones, a block on each die.
ZNS_SET = {**BASE_SET, "zns.zone_size_bytes": "1MiB", "zns.max_open_zones": 16}
STREAMS = (1, 2, 4, 8)  # the zoned drive's host store: open streams for the classes
EXTENT = 16384  # the jobs' block size: the host store's extent
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


def zoned_jobs(workload: str, streams: int, capacity: int, passes: float) -> list[dict]:
    """The zoned drive's workload: a fill (each class writes its range once), then the
    eight jobs, all through the host store with ``streams`` streams."""
    store = {"streams": streams, "gc_free_zones": 2}
    fill, run = [], []
    for j in jobs(workload, 0, capacity, passes):
        j = {**j, "host_log": store, "queues": 1}
        run.append({**j, "group": 1})
        fill.append(
            {**j, "rw": "write", "io_size": j["size"], "group": 0, "name": f"fill-{j['name']}"}
        )
    return fill + run


def device_set(handles: int) -> dict[str, Any]:
    s = dict(BASE_SET)
    if handles:
        s["fdp.handles"] = handles
    return s


def write_figures(w: dict[str, Any]) -> dict[str, Any]:
    """A report's write figures (the run's or a group's ``write`` block) for a row."""
    return {
        "write_mb_per_s": w["bw_bytes"] / 1e6,
        "write_lat_p99_us": w["lat_ns"]["percentile"]["99.000000"] / 1e3,
        "write_lat_mean_us": w["lat_ns"]["mean"] / 1e3,
        "host_bytes": w["io_bytes"],
    }


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
        **write_figures(w),
        "gc_victims": ftl["gc_victims"],
        "gc_units_copied": ftl["gc_units_copied"],
        "map_bytes": capacity // 4096 * 4,
        "host_map_bytes": 0,
        "streams": 0,
        "ru_not_written_fully": fdp.get("events", {}).get("ru_not_written_fully", 0),
        "zns_errors": 0,
    }


def zoned_row_of(workload: str, streams: int, rep: dict[str, Any], capacity: int) -> dict:
    """The second group's figures of a zoned run (the first filled the drive)."""
    z = rep["device"]["zns"]
    g = z["host_log"]["groups"][1]
    w = rep["groups"][1]["write"]
    return {
        "workload": workload,
        "drive": f"zns-{streams}",
        "handles": 0,
        "streams": streams,
        "waf": g["waf"],
        **write_figures(w),
        "gc_victims": g["victims"],
        "gc_units_copied": g["gc_writes"] * EXTENT // 4096,
        "map_bytes": z["map_bytes"],
        "host_map_bytes": capacity // EXTENT * 4,
        "ru_not_written_fully": 0,
        "zns_errors": z["errors_total"],
    }


COLUMNS = ["workload", "drive", "handles", "streams", "waf", "write_mb_per_s",
           "write_lat_p99_us", "write_lat_mean_us", "host_bytes", "gc_victims",
           "gc_units_copied", "map_bytes", "host_map_bytes", "ru_not_written_fully",
           "zns_errors"]  # fmt: skip


def run_study(out_dir: Path, quick: bool = False, seed: int = 1) -> str:
    """Run every workload on every drive; print the table, write results.csv/.png."""
    capacity = api.validate(BASE, set=BASE_SET)["capacity_bytes"]
    passes = 1.5 if quick else PASSES
    keys, runs = [], []
    for wl in WORKLOADS:
        for h in HANDLES:
            keys.append((wl, "fdp", h))
            runs.append({"device": BASE, "set": device_set(h), "state": "full", "seed": seed,
                         "workload": {"jobs": jobs(wl, h, capacity, passes)}})  # fmt: skip
        for n in STREAMS:
            keys.append((wl, "zns", n))
            runs.append({"device": BASE, "set": dict(ZNS_SET), "state": "fresh", "seed": seed,
                         "workload": {"jobs": zoned_jobs(wl, n, capacity, passes)}})  # fmt: skip
    reports = api.run_many(runs)
    rows = [
        row_of(wl, n, r.to_dict(), capacity)
        if kind == "fdp"
        else zoned_row_of(wl, n, r.to_dict(), capacity)
        for (wl, kind, n), r in zip(keys, reports)
    ]
    text = table(
        f"Placement: {BASE} with 128 blocks a plane ({capacity >> 20} MiB), full, then "
        f"{passes:g} x its capacity of 16 KiB writes by 8 lifetime classes (zns-S: a zoned "
        "drive, its host store with S streams collecting zones itself)",
        ["workload", "drive", "WAF", "MB/s", "p99 µs", "GC copied", "map", "host map"],
        [[r["workload"], r["drive"], f"{r['waf']:.3f}", f"{r['write_mb_per_s']:,.0f}",
          f"{r['write_lat_p99_us']:,.0f}", f"{r['gc_units_copied']:,}",
          f"{r['map_bytes'] >> 10} KiB" if r["map_bytes"] >= 1024 else f"{r['map_bytes']} B",
          f"{r['host_map_bytes'] >> 10} KiB" if r["host_map_bytes"] else "-"] for r in rows],
    )  # fmt: skip

    def draw(plt):
        fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
        xs = list(range(len(HANDLES)))
        labels = ["conv. / 1" if h == 0 else f"FDP {h} / {n}" for h, n in zip(HANDLES, STREAMS)]
        for wl in WORKLOADS:
            for kind, drives in (
                ("FDP", [f"fdp-{h}" if h else "conventional" for h in HANDLES]),
                ("ZNS host", [f"zns-{n}" for n in STREAMS]),
            ):
                rs = [next(r for r in rows if r["workload"] == wl and r["drive"] == d)
                      for d in drives]  # fmt: skip
                style = "-" if kind == "FDP" else "--"
                for ax, key in zip(axes, ["waf", "write_mb_per_s", "write_lat_p99_us"]):
                    ax.plot(xs, [r[key] for r in rs], style, marker="o", label=f"{wl}, {kind}")
        for ax, t in zip(axes, ["WAF", "write MB/s", "p99 write latency (µs)"]):
            ax.set_xticks(xs, labels)
            ax.set_title(t)
            ax.grid(alpha=0.3)
        axes[0].axhline(1.0, color="grey", lw=0.8, ls="--")
        axes[0].legend(fontsize=8)
        fig.suptitle(
            "Same host writes: conventional and FDP drives (handles), a zoned drive with its "
            "host's store (streams)"
        )
        return fig

    return text + "\n" + write_outputs(out_dir, "results", COLUMNS, rows, draw)
