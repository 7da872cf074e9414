"""Seed 000's drive states: 128 KiB sequential write T1 QD32, 4 KiB random write and read
at T1 and T16 (QD32 each), in the normal, sustain and aging states.

- normal: fresh drive, nothing written (reads of never-written LBAs return zeros without
  touching NAND, as a real drive's deallocated LBAs do);
- sustain: the 6 GiB static SLC ("turbo") area already full, the rest empty: writes go
  straight to TLC — the SLC cliff;
- aging: full drive at GC steady state with the SLC area full: writes pay GC — the aging
  collapse.

The device is `dram-ssd` by default (`--device` to compare, e.g. `hmb-ssd`). Nothing is
fitted to seed 000's figures; the seed reports relative DRAM/HMB differences, not absolute
numbers we could print beside ours.
"""

from __future__ import annotations

from pathlib import Path

from ssdlab import api
from ssdlab.studies.common import plot, table, write_csv, wrote
from ssdlab.workloads import WORKLOADS

STATES = ["normal", "sustain", "aging"]
TESTS = [
    ("seq-write-128k-t1-qd32", "write"),
    ("rand-write-4k-t1-qd32", "write"),
    ("rand-write-4k-t16-qd32", "write"),
    ("rand-read-4k-t1-qd32", "read"),
    ("rand-read-4k-t16-qd32", "read"),
]
# I/Os per test: the sequential write stays inside the 6 GiB SLC area in the normal state.
COUNTS = {
    "seq-write-128k-t1-qd32": 16_384,
    "rand-write-4k-t1-qd32": 200_000,
    "rand-write-4k-t16-qd32": 12_500,
    "rand-read-4k-t1-qd32": 200_000,
    "rand-read-4k-t16-qd32": 12_500,
}


def run_study(out_dir: Path, device: str = "dram-ssd", quick: bool = False, seed: int = 1) -> str:
    scale = 8 if quick else 1
    runs, keys = [], []
    for name, _ in TESTS:
        for state in STATES:
            wl = dict(WORKLOADS[name], number_ios=COUNTS[name] // scale)
            keys.append((name, state))
            runs.append({"device": device, "workload": wl, "state": state, "seed": seed})
    reports = api.run_many(runs, workers=1)
    res = {}
    for (name, state), r in zip(keys, reports):
        direction = dict(TESTS)[name]
        d = r["device"]
        res[(name, state)] = {
            "device": device,
            "test": name,
            "state": state,
            "iops": r[direction]["iops"],
            "bw_bytes": r[direction]["bw_bytes"],
            "lat_mean_us": r[direction]["lat_ns"]["mean"] / 1e3,
            "waf": d["ftl"]["waf"],
            "slc_hit_rate": d["slc"]["slc_hit_rate"],
            "gc_share": d["dies"]["gc_share"],
        }
    rows = []
    for name, _ in TESTS:
        cells = []
        for state in STATES:
            v = res[(name, state)]
            if name.startswith("seq"):
                cells.append(f"{v['bw_bytes'] / 1e6:,.0f} MB/s")
            else:
                cells.append(f"{v['iops'] / 1e3:,.1f}K")
        rows.append([name, *cells])
    text = [table(f"{device}: drive states (seed 000)", ["test", *STATES], rows)]
    mech = []
    for name, direction in TESTS:
        if direction != "write":
            continue
        for state in STATES:
            v = res[(name, state)]
            mech.append(
                [
                    name,
                    state,
                    f"{v['slc_hit_rate'] * 100:.0f}%",
                    f"{v['waf']:.2f}",
                    f"{v['gc_share'] * 100:.0f}%",
                    f"{v['lat_mean_us']:,.0f}",
                ]
            )
    text.append(
        table(
            "writes: where they went",
            ["test", "state", "to SLC", "WAF", "die time on GC", "mean lat us"],
            mech,
        )
    )
    if quick:
        text.append("quick mode: 1/8 of the I/Os per test.")
    out_dir.mkdir(parents=True, exist_ok=True)
    cols = [
        "device",
        "test",
        "state",
        "iops",
        "bw_bytes",
        "lat_mean_us",
        "waf",
        "slc_hit_rate",
        "gc_share",
    ]
    write_csv(out_dir / "drive-states.csv", cols, list(res.values()))

    def draw(plt):
        fig, axes = plt.subplots(1, len(TESTS), figsize=(16, 3.8))
        for ax, (name, _) in zip(axes, TESTS):
            seq = name.startswith("seq")
            vals = [
                res[(name, s)]["bw_bytes"] / 1e6 if seq else res[(name, s)]["iops"] / 1e3
                for s in STATES
            ]
            ax.bar(STATES, vals, color=["#4c72b0", "#dd8452", "#c44e52"])
            ax.set_title(name, fontsize=9)
            ax.set_ylabel("MB/s" if seq else "KIOPS")
        fig.suptitle(f"{device}: normal / sustain / aging")
        fig.tight_layout()
        return fig

    plotted = plot(out_dir / "drive-states.png", draw)
    text.append(wrote(out_dir / "drive-states.csv", out_dir / "drive-states.png", plotted))
    return "\n\n".join(text)
