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
from ssdlab.studies.common import num, run_points, table, write_outputs
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
    api.validate(device)  # a bad --device: the core's error, without the engine's point prefix
    scale = 8 if quick else 1
    # Points in run order: state, then test, so that the five tests of a state, which share
    # its prepared drive, are consecutive.
    runs, keys = [], []
    for state in STATES:
        for name, _ in TESTS:
            wl = dict(WORKLOADS[name], number_ios=COUNTS[name] // scale)
            keys.append((name, state))
            runs.append(
                {
                    "device": device,
                    "workload": wl,
                    "state": state,
                    "seed": seed,
                    "params": {"study": "drive-states", "test": name},
                }
            )
    got = dict(zip(keys, run_points(runs, out_dir)))
    res = {}
    for name, direction in TESTS:  # the CSV's order: test, then state
        for state in STATES:
            r = got[(name, state)]
            res[(name, state)] = {
                "device": device,
                "test": name,
                "state": state,
                "iops": num(r, f"{direction}_iops"),
                "bw_bytes": num(r, f"{direction}_bw_bytes"),
                "lat_mean_us": num(r, f"{direction}_lat_mean_ns") / 1e3,
                "waf": num(r, "stats.ftl.waf"),
                "slc_hit_rate": num(r, "stats.slc.slc_hit_rate"),
                "gc_share": num(r, "stats.dies.gc_share"),
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

    def draw(plt):
        fig, axes = plt.subplots(1, len(TESTS), figsize=(16, 3.8))
        for ax, (name, _) in zip(axes, TESTS):
            seq = name.startswith("seq")
            vals = [
                res[(name, s)]["bw_bytes"] / 1e6 if seq else res[(name, s)]["iops"] / 1e3
                for s in STATES
            ]
            ax.bar(STATES, vals, color=["#4c72b0", "#dd8452", "#c44e52"])
            ax.set_title(name, fontsize=11)
            ax.set_ylabel("MB/s" if seq else "KIOPS", fontsize=11)
            ax.tick_params(labelsize=10)
        fig.suptitle(f"Samsung, FMS 2023: drive states normal / sustain / aging, {device}",
                     fontsize=14)  # fmt: skip
        fig.tight_layout()
        return fig

    text.append(write_outputs(out_dir, "drive-states", cols, list(res.values()), draw))
    return "\n\n".join(text)
