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

Not in this study (not modelled yet): sudden power-off (volatile write cache, PLP,
recovery time by capacity) and aged drives.
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
    return "\n\n".join(text)
