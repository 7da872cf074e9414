"""4 KiB random read QD32 IOPS against the LBA span (1 GiB .. the whole drive) for the
DRAM, HMB (host policy max/half/min) and DRAM-less presets. The HMB drive's knee
should sit where the span's map (4 B per 4 KiB) stops fitting in the granted HMB:
64 MiB covers 64 GiB, 32 MiB covers 32 GiB, 16 MiB covers 16 GiB; the DRAM-less
drive's 1 MiB SRAM cache covers 1 GiB."""

from __future__ import annotations

from pathlib import Path

from ssdlab import api
from ssdlab.studies.common import count, num, run_points, table, write_outputs

GIB = 1 << 30
SPANS_GIB = [1, 2, 4, 8, 16, 32, 64, 128, 256]
DEVICES = [
    ("dram-ssd", "dram-ssd", {}),
    ("hmb-ssd max", "hmb-ssd", {"hmb.host_policy": "max"}),
    ("hmb-ssd half", "hmb-ssd", {"hmb.host_policy": "half"}),
    ("hmb-ssd min", "hmb-ssd", {"hmb.host_policy": "min"}),
    ("dramless-ssd", "dramless-ssd", {}),
]


def run_study(out_dir: Path, number_ios: int = 100_000, spans_gib=None, seed: int = 1) -> str:
    capacity = api.validate("dram-ssd")["capacity_bytes"]
    spans = [s * GIB for s in (spans_gib or SPANS_GIB)] + [capacity]
    # Points in run order: device, then span. No two share a prepared drive: the hmb-ssd
    # policies are different devices, and the engine (like the core's cache) keys a prepared
    # drive by the workload's LBA area too, though a full drive's fill does not depend on it.
    runs, keys = [], []
    for label, dev, overrides in DEVICES:
        for span in spans:
            keys.append((label, span))
            runs.append(
                {
                    "device": dev,
                    "set": overrides,
                    "state": "full",
                    "seed": seed,
                    "workload": {
                        "rw": "randread",
                        "bs": "4KiB",
                        "iodepth": 32,
                        "size": span,
                        "number_ios": number_ios,
                    },
                    "params": {"study": "lba-span", "label": label, "span_bytes": span},
                }
            )
    res = {}
    for (label, span), r in zip(keys, run_points(runs, out_dir)):
        res[(label, span)] = {
            "device": label,
            "span_bytes": span,
            "iops": num(r, "read_iops"),
            "hit_rate": num(r, "stats.map.hit_rate"),
            "hmb_granted_bytes": count(r, "stats.hmb.granted_bytes"),
        }
    names = [f"{s // GIB}G" if s % GIB == 0 else "full" for s in spans]
    rows = []
    for label, _, _ in DEVICES:
        rows.append([label, *[f"{res[(label, s)]['iops'] / 1e3:,.0f}K" for s in spans]])
        rows.append(["  hit rate", *[f"{res[(label, s)]['hit_rate'] * 100:.0f}%" for s in spans]])
    text = [table("4K random read QD32 IOPS vs LBA span (full drives)", ["span", *names], rows)]
    grants = {label: res[(label, spans[0])]["hmb_granted_bytes"] for label, _, _ in DEVICES}
    text.append(
        "HMB granted: "
        + ", ".join(f"{k} {v >> 20} MiB" for k, v in grants.items() if k.startswith("hmb"))
        + ". Expected knee: span where span/4KiB x 4 B exceeds the map cache."
    )
    columns = ["device", "span_bytes", "iops", "hit_rate", "hmb_granted_bytes"]

    def draw(plt):
        fig, ax = plt.subplots(figsize=(8, 4.5))
        for label, _, _ in DEVICES:
            ax.plot(
                [s / GIB for s in spans],
                [res[(label, s)]["iops"] for s in spans],
                marker="o",
                label=label,
            )
        ax.set_xscale("log", base=2)
        ax.set_xlabel("LBA span (GiB)")
        ax.set_ylabel("4K random read IOPS (QD32)")
        ax.set_title("Map placement vs span")
        ax.legend()
        return fig

    text.append(write_outputs(out_dir, "lba-span", columns, list(res.values()), draw))
    return "\n\n".join(text)
