"""``ssdlab study power-events``: what a reset, a suspend cycle or the loss of the HMB
costs a DRAM, an HMB and a DRAM-less drive (issue 26, its host-event part).

Each drive (``dram-ssd``, ``hmb-ssd``, ``dramless-ssd``; full, every LBA written once)
runs 4 KiB random reads at QD32 over 16 GiB, whose 16 MiB of map fit the HMB drive's
64 MiB grant, and meets one host event at 0.3 s: a controller reset with and without
Memory Return, a suspend-resume cycle (100 ms asleep), or the host taking the HMB away
for 200 ms and handing it back with its contents. Reported per point: the outage, the
first I/O's latency after it, the IOPS before, in the first 5 ms window after and in the
lowest window of any curve (for the HMB's absence: while it is away), the time until a
window is back at 90 % (the recovery curves: ``results.png``; rows: ``results.csv``), and
the map segments dropped and loaded again. docs/power-events.md gives the mechanism and
the figures.

Sudden power-off (``power_off.csv``): each drive, full, under 4 KiB random writes at
QD32 over 16 GiB, loses power at 0.2 s for 10 ms, with and without power-loss protection
(``[power_loss] plp``), and ``seed000-hmb`` with its write-back map cache (a map-update log
to replay): the acknowledged writes lost from the volatile write buffer (data
at risk), the PLP dump's time, and the map rebuild at power-on (checkpoint, log and
open-block scan reads, their time) with the outage and first I/O. Then the rebuild by
capacity: the DRAM and HMB drives at 0.5, 1, 2 and 4 TB (more blocks per plane, the same
16 dies; the DRAM drive's DRAM and the HMB drive's SRAM grown to hold the map and the
map-of-map), fresh, with 1 GiB randomly written before the cut, without PLP.

Not in this study: aged drives.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ssdlab import api
from ssdlab.studies.common import table, write_outputs

DEVICES = ("dram-ssd", "hmb-ssd", "dramless-ssd")
WINDOW = "5ms"
WINDOWS = 60
SCENARIOS: dict[str, list[dict[str, Any]]] = {
    "reset (memory return)": [{"at": "0.3s", "kind": "reset", "memory_return": True}],
    "reset (no memory return)": [{"at": "0.3s", "kind": "reset", "memory_return": False}],
    "suspend-resume 100 ms": [
        {"at": "0.3s", "kind": "suspend-resume", "duration": "100ms", "memory_return": True}
    ],
    "HMB away 200 ms (memory return)": [
        {"at": "0.3s", "kind": "hmb-disable"},
        {"at": "0.5s", "kind": "hmb-enable", "memory_return": True},
    ],
}
COLUMNS = [
    "device",
    "scenario",
    "outage_ms",
    "first_io_ms",
    "iops_before",
    "iops_first_window",
    "iops_min_window",
    "recovery_ms",
    "segments_dropped",
    "segments_reloaded",
]


def _workload(events: list[dict[str, Any]], quick: bool) -> dict[str, Any]:
    evs = [dict(e, window=WINDOW, windows=WINDOWS) for e in events]
    return {
        "rw": "randread",
        "bs": "4KiB",
        "iodepth": 32,
        "size": "16GiB",
        "runtime": "0.8s" if quick else "1.2s",
        "events": evs,
    }


POWER_COLUMNS = [
    "case",
    "device",
    "capacity_gb",
    "plp",
    "lost_units",
    "lost_mib",
    "dump_ms",
    "checkpoint_pages",
    "log_pages",
    "scan_pages",
    "checkpoint_ms",
    "log_ms",
    "scan_ms",
    "rebuild_ms",
    "outage_ms",
    "first_io_ms",
]
# A drive with a write-back map cache, whose map-update log the rebuild replays.
WRITE_BACK = "seed000-hmb"
# 1366 native blocks per plane (+ 48 SLC-mode) make the presets' 512 GB.
CAPACITY_SCALES = (1, 2, 4, 8)
CUT = {"at": "0.2s", "kind": "power-loss", "duration": "10ms", "window": WINDOW, "windows": 10}


def _power_runs(quick: bool, seed: int) -> tuple[list[dict], list[tuple[str, str, bool]]]:
    runs, keys = [], []
    for dev in (*DEVICES, WRITE_BACK):
        for plp in (False, True):
            keys.append(("plp", dev, plp))
            extra = ['map.update="write-back"'] if dev == WRITE_BACK else []
            runs.append({
                "device": dev, "set": [f"power_loss.plp={str(plp).lower()}", *extra],
                "workload": {"rw": "randwrite", "bs": "4KiB", "iodepth": 32, "size": "16GiB",
                             "runtime": "0.3s" if quick else "0.4s", "events": [CUT]},
                "state": "full", "seed": seed,
            })  # fmt: skip
    for dev in ("dram-ssd", "hmb-ssd"):
        for k in CAPACITY_SCALES[:2] if quick else CAPACITY_SCALES:
            keys.append(("capacity", dev, False))
            runs.append({
                "device": dev, "set": [f"nand.blocks_per_plane={1366 * k + 48}"]
                # The whole map in DRAM grows with capacity; so does the HMB drive's
                # map-of-map in SRAM (4 B per segment: 3.7 MiB at 4 TB).
                + ([f'dram.size="{k}GiB"'] if dev == "dram-ssd" else ['sram.size="12MiB"']),
                "workload": {"rw": "randwrite", "bs": "4KiB", "iodepth": 32, "size": "1GiB",
                             "runtime": "0.3s", "events": [CUT]},
                "state": "fresh", "seed": seed,
            })  # fmt: skip
    return runs, keys


def _power_row(case: str, dev: str, plp: bool, rep) -> dict[str, Any]:
    e = rep.host_events[0]
    p = e["power_loss"]
    cap = rep.to_dict()["device"].get("capacity_bytes", 0)
    return {
        "case": case,
        "device": dev,
        "capacity_gb": round(cap / 1e9),
        "plp": plp,
        "lost_units": p["lost_units"],
        "lost_mib": p["lost_bytes"] / 2**20,
        "dump_ms": (p.get("dump_ns") or 0) / 1e6,
        "checkpoint_pages": p["checkpoint_pages"],
        "log_pages": p["log_pages"],
        "scan_pages": p["scan_pages"],
        "checkpoint_ms": p["checkpoint_ns"] / 1e6,
        "log_ms": p["log_ns"] / 1e6,
        "scan_ms": p["scan_ns"] / 1e6,
        "rebuild_ms": p["rebuild_ns"] / 1e6,
        "outage_ms": e["outage_ns"] / 1e6,
        "first_io_ms": e["first_io_latency_ns"] / 1e6,
    }


def _power_study(out_dir: Path, quick: bool, seed: int) -> str:
    runs, keys = _power_runs(quick, seed)
    reports = api.run_many(runs)
    results = [_power_row(*key, rep) for key, rep in zip(keys, reports)]
    rows = [
        [r["device"], f"{r['capacity_gb']:,}", "yes" if r["plp"] else "no",
         f"{r['lost_units']:,}", f"{r['lost_mib']:,.2f}", f"{r['dump_ms']:,.2f}",
         f"{r['checkpoint_pages']:,}", f"{r['scan_pages']:,}", f"{r['checkpoint_ms']:,.2f}",
         f"{r['log_ms']:,.2f}", f"{r['scan_ms']:,.2f}", f"{r['rebuild_ms']:,.2f}",
         f"{r['outage_ms']:,.1f}", f"{r['first_io_ms']:,.1f}"]
        for r in results
    ]  # fmt: skip
    text = table(
        "Sudden power-off at 0.2 s, 10 ms without power (4 KiB random writes at QD32)",
        ["device", "GB", "PLP", "lost units", "lost MiB", "dump ms", "ckpt pages",
         "scan pages", "ckpt ms", "log ms", "scan ms", "rebuild ms", "outage ms",
         "first I/O ms"],
        rows,
    )  # fmt: skip

    def draw(plt):
        fig, ax = plt.subplots(figsize=(5, 3.8))
        for dev in ("dram-ssd", "hmb-ssd"):
            pts = [r for r in results if r["device"] == dev and r["case"] == "capacity"]
            ax.plot([r["capacity_gb"] / 1e3 for r in pts], [r["rebuild_ms"] for r in pts],
                    marker="o", label=dev)  # fmt: skip
        ax.set_xlabel("capacity, TB")
        ax.set_ylabel("map rebuild at power-on, ms")
        ax.legend(fontsize=8)
        fig.suptitle("Recovery after a power cut by capacity (no PLP)")
        return fig

    return text + "\n\n" + write_outputs(out_dir, "power_off", POWER_COLUMNS, results, draw)


def run_study(out_dir: Path, quick: bool = False, seed: int = 1) -> str:
    runs, keys = [], []
    for dev in DEVICES:
        for name, events in SCENARIOS.items():
            keys.append((dev, name))
            runs.append(
                {"device": dev, "workload": _workload(events, quick), "state": "full", "seed": seed}
            )
    reports = api.run_many(runs)
    results, curves = [], {}
    for (dev, name), rep in zip(keys, reports):
        evs = rep.host_events
        # The event that ends the HMB's absence (or the only one) carries the curve.
        e = evs[-1]
        first = evs[0]
        rec = e.get("recovery_ns")
        results.append(
            {
                "device": dev,
                "scenario": name,
                "outage_ms": first["outage_ns"] / 1e6,
                "first_io_ms": first["first_io_latency_ns"] / 1e6,
                "iops_before": first["iops_before"],
                "iops_first_window": e["recovery_iops"][0],
                "iops_min_window": min(min(x["recovery_iops"]) for x in evs),
                "recovery_ms": rec / 1e6 if rec is not None else float("nan"),
                "segments_dropped": sum(x["map_segments_dropped"] for x in evs),
                "segments_reloaded": e["map_loads_after"],
            }
        )
        curves[(dev, name)] = (first["iops_before"], e["recovery_iops"])
    rows = [
        [
            r["device"],
            r["scenario"],
            f"{r['outage_ms']:,.1f}",
            f"{r['first_io_ms']:,.2f}",
            f"{r['iops_before']:,.0f}",
            f"{r['iops_first_window']:,.0f}",
            f"{r['iops_min_window']:,.0f}",
            f"{r['recovery_ms']:,.0f}",
            f"{r['segments_dropped']:,}",
            f"{r['segments_reloaded']:,}",
        ]
        for r in results
    ]
    text = [
        table(
            "Host events: 4 KiB random reads at QD32 over 16 GiB, event at 0.3 s "
            f"({WINDOW} windows)",
            ["device", "scenario", "outage ms", "first I/O ms", "IOPS before",
             "first window", "lowest window", "to 90 % ms", "dropped", "reloaded"],
            rows,
        )
    ]  # fmt: skip

    def draw(plt):
        fig, axes = plt.subplots(1, len(SCENARIOS), figsize=(4 * len(SCENARIOS), 3.8))
        w_ms = float(WINDOW[:-2])
        for ax, name in zip(axes, SCENARIOS):
            for dev in DEVICES:
                before, curve = curves[(dev, name)]
                xs = [(i + 1) * w_ms for i in range(len(curve))]
                ax.plot(xs, [c / 1e3 for c in curve], label=dev)
                ax.axhline(before / 1e3, lw=0.5, ls=":", color="grey")
            ax.set_title(name, fontsize=9)
            ax.set_xlabel("ms after the outage")
            ax.set_ylabel("K IOPS")
        axes[0].legend(fontsize=8)
        fig.suptitle("Recovery after host events (dotted: IOPS before)")
        return fig

    text.append(write_outputs(out_dir, "results", COLUMNS, results, draw))
    text.append(_power_study(out_dir, quick, seed))
    return "\n\n".join(text)
