"""``ssdlab study power``: what dropping the DRAM saves, not only what it costs (issue 25).

The DRAM, HMB and DRAM-less drives (seed 000's pair, ``seed000-dram`` and
``seed000-hmb``, and the isolated ``dram-ssd``/``hmb-ssd``/``dramless-ssd`` trio) on
sequential and random reads and writes and on an idle-heavy client workload (a
laptop-like 70/30 random mix at queue depth 1 with think times long enough for APST),
with the energy model on: joules per I/O and per GB, mean and peak watts, the drive's
idle power, the host DRAM energy its HMB traffic costs, the share of time in
non-operational power states and the first-I/O latency after idle (the wake-up).
Also each real-drive preset's data-sheet power figures beside the model's.

Simplifications: each point runs once (the simulation is deterministic for a seed);
the drives are "full" (every LBA written once) for reads and the random writes, fresh
(writes land in the SLC cache) for the sequential write, as a data sheet measures it;
the client workload's think times are fixed (200 ms after every 16 I/Os), not
drawn.
Results: ``results.csv``, ``datasheet.csv`` (data sheet vs model) and ``results.png``
(J/IO and mean W per device and workload).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ssdlab import api
from ssdlab.studies.common import table, write_outputs

DEVICES = ("seed000-dram", "seed000-hmb", "dram-ssd", "hmb-ssd", "dramless-ssd")
KIND = {
    "seed000-dram": "DRAM",
    "seed000-hmb": "HMB",
    "dram-ssd": "DRAM",
    "hmb-ssd": "HMB",
    "dramless-ssd": "DRAM-less",
}
CLIENT = {
    "rw": "randrw",
    "rwmixread": 70,
    "bs": "4KiB",
    "iodepth": 1,
    "thinktime": "200ms",
    "thinktime_blocks": 16,
}


def workloads(quick: bool) -> list[tuple[str, str, dict[str, Any]]]:
    """(name, drive state, fio options) of every workload."""
    size = "256MiB" if quick else "1GiB"
    n = 20_000 if quick else 100_000
    seq = {"bs": "128KiB", "iodepth": 32, "io_size": size}
    rnd = {"bs": "4KiB", "iodepth": 32, "number_ios": n}
    return [
        ("seq-read-128k-qd32", "full", {"rw": "read", **seq}),
        ("seq-write-128k-qd32", "fresh", {"rw": "write", **seq}),
        ("rand-read-4k-qd32", "full", {"rw": "randread", **rnd}),
        ("rand-write-4k-qd32", "full", {"rw": "randwrite", **rnd}),
        ("client-idle-heavy", "full", {**CLIENT, "number_ios": 160 if quick else 800}),
    ]


COLUMNS = [
    "device",
    "kind",
    "workload",
    "state",
    "iops",
    "mb_per_s",
    "avg_w",
    "peak_w",
    "idle_w",
    "uj_per_io",
    "j_per_gb",
    "drive_j",
    "host_hmb_j",
    "sleep_share",
    "wakeups",
    "wake_mean_us",
    "lat_p99_us",
    "lat_max_us",
]


def row_of(device: str, wl: str, state: str, rep: dict[str, Any]) -> dict[str, Any]:
    """One results.csv row from a report with its energy block."""
    e = rep["energy"]
    ios = sum(rep[d]["total_ios"] for d in ("read", "write"))
    bw = sum(rep[d]["bw_bytes"] for d in ("read", "write"))
    iops = sum(rep[d]["iops"] for d in ("read", "write"))
    sim = rep["sim_time_ns"] or 1
    sleep = sum(
        ns for name, ns in e["power_state_ns"].items() if name not in ("PS0", "PS1", "PS2")
    )
    lat = [rep[d]["lat_ns"] for d in ("read", "write") if rep[d]["total_ios"]]
    p99 = max(x.get("percentile", {}).get("99.000000", 0) for x in lat) if lat else 0
    return {
        "device": device,
        "kind": KIND.get(device, ""),
        "workload": wl,
        "state": state,
        "iops": iops,
        "mb_per_s": bw / 1e6,
        "avg_w": e["avg_w"],
        "peak_w": e["peak_w"],
        "idle_w": e["idle_w"],
        "uj_per_io": e["j_per_io"] * 1e6 if ios else 0.0,
        "j_per_gb": e["j_per_gb"],
        "drive_j": e["drive_j"],
        "host_hmb_j": e["components"]["host_hmb_j"],
        "sleep_share": sleep / sim,
        "wakeups": e["wakeups"],
        "wake_mean_us": e["mean_wake_ns"] / 1e3,
        "lat_p99_us": p99 / 1e3,
        "lat_max_us": max((x["max"] for x in lat), default=0) / 1e3,
    }


# Data-sheet figures of the real drives the presets model (W): what each preset states
# in its [power] comments, with the workload the model is measured on.
SEQ_READ, SEQ_WRITE = "seq-read-128k-qd32", "seq-write-128k-qd32"
DATASHEET = [
    # (preset, figure, W, source, what the model measures)
    ("samsung-970-evo-plus-1tb", "read", 5.5, "[ds970p] 1 TB", SEQ_READ),
    ("samsung-970-evo-plus-1tb", "write", 6.0, "[ds970p] 1 TB", SEQ_WRITE),
    ("samsung-970-evo-plus", "read", 5.5, "[ds970p] 500 GB", SEQ_READ),
    ("samsung-970-evo-plus", "write", 5.8, "[ds970p] 500 GB", SEQ_WRITE),
    ("samsung-970-evo-plus-1tb", "idle", 0.030, "[ds970p]", "sleep:PS3"),
    ("samsung-970-evo-plus-1tb", "L1.2", 0.005, "[ds970p]", "sleep:PS4"),
    ("seed000-hmb", "average", 4.2, "[guru980p] 980 500 GB", "seq-mean"),
    ("seed000-hmb", "idle", 0.045, "[guru980p] 980", "sleep:PS3"),
]


def sleep_w(device: str, state: int) -> float:
    """The model's power in non-operational state ``state`` (W; the energy block's
    ``sleep_w``, what the components draw there)."""
    rep = api.run(
        device, {"rw": "randread", "bs": "4KiB", "iodepth": 1, "number_ios": 1}, energy=True
    ).to_dict()
    return rep["energy"]["sleep_w"][f"PS{state}"]


def datasheet_rows(results: list[dict[str, Any]], quick: bool) -> list[dict[str, Any]]:
    """Each data-sheet figure beside the model's."""
    wls = {name: (state, w) for name, state, w in workloads(quick)}
    cache: dict[tuple[str, str], dict[str, Any]] = {
        (r["device"], r["workload"]): r for r in results
    }
    out = []
    for preset, figure, ds_w, source, wl in DATASHEET:
        if wl.startswith("sleep:"):
            model = sleep_w(preset, int(wl[-1]))
        else:
            names = [SEQ_READ, SEQ_WRITE] if wl == "seq-mean" else [wl]
            ws = []
            for name in names:
                if (preset, name) not in cache:
                    state, w = wls[name]
                    rep = api.run(preset, w, state=state, energy=True).to_dict()
                    cache[(preset, name)] = row_of(preset, name, state, rep)
                ws.append(cache[(preset, name)]["avg_w"])
            model = sum(ws) / len(ws)
        out.append(
            {
                "preset": preset,
                "figure": figure,
                "datasheet_w": ds_w,
                "model_w": model,
                "ratio": model / ds_w,
                "source": source,
            }
        )
    return out


def run_study(out_dir: Path, quick: bool = False, seed: int = 1) -> str:
    runs, keys = [], []
    for dev in DEVICES:
        for name, state, wl in workloads(quick):
            keys.append((dev, name, state))
            runs.append({"device": dev, "workload": wl, "state": state, "seed": seed,
                         "energy": True})  # fmt: skip
    reports = api.run_many(runs)
    results = [row_of(d, n, s, r.to_dict()) for (d, n, s), r in zip(keys, reports)]
    text = []
    rows = [
        [
            r["device"],
            r["workload"],
            f"{r['iops']:,.0f}",
            f"{r['avg_w']:.2f}",
            f"{r['peak_w']:.2f}",
            f"{r['uj_per_io']:,.1f}",
            f"{r['j_per_gb']:.2f}",
            f"{r['host_hmb_j'] / max(r['drive_j'], 1e-12):.2%}",
            f"{r['sleep_share']:.0%}",
            f"{r['wake_mean_us']:,.0f}",
        ]
        for r in results
    ]
    text.append(
        table(
            "Energy by drive and workload (energy model on; APST: Linux's default table)",
            ["device", "workload", "IOPS", "avg W", "peak W", "µJ/IO", "J/GB",
             "host HMB", "asleep", "wake µs"],
            rows,
        )
    )  # fmt: skip
    idle = {r["device"]: r["idle_w"] for r in results}
    text.append(
        "Idle power in PS0 (no APST, link in L0): "
        + ", ".join(f"{d} {w:.3f} W" for d, w in idle.items())
    )
    ds = datasheet_rows(results, quick)
    text.append(
        table(
            "Data sheet vs model (W)",
            ["preset", "figure", "data sheet", "model", "model/sheet", "source"],
            [
                [d["preset"], d["figure"], f"{d['datasheet_w']:.3g}", f"{d['model_w']:.3g}",
                 f"{d['ratio']:.2f}", d["source"]]
                for d in ds
            ],
        )
    )  # fmt: skip
    from ssdlab.studies.common import write_csv

    out_dir.mkdir(parents=True, exist_ok=True)
    write_csv(out_dir / "datasheet.csv", list(ds[0]), ds)

    def draw(plt):
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
        names = [n for n, _, _ in workloads(quick)]
        width = 0.8 / len(DEVICES)
        for i, dev in enumerate(DEVICES):
            rs = [next(r for r in results if r["device"] == dev and r["workload"] == n)
                  for n in names]  # fmt: skip
            xs = [k + i * width for k in range(len(names))]
            axes[0].bar(xs, [r["uj_per_io"] for r in rs], width, label=dev)
            axes[1].bar(xs, [r["avg_w"] for r in rs], width, label=dev)
        for ax, what in zip(axes, ("µJ per I/O (log)", "mean drive power (W)")):
            ax.set_xticks([k + 0.4 - width / 2 for k in range(len(names))])
            ax.set_xticklabels(names, rotation=20, ha="right", fontsize=8)
            ax.set_ylabel(what)
        axes[0].set_yscale("log")
        axes[1].legend(fontsize=8)
        fig.suptitle("Energy of DRAM, HMB and DRAM-less drives")
        return fig

    text.append(write_outputs(out_dir, "results", COLUMNS, results, draw))
    return "\n\n".join(text)
