"""``ssdlab study power``: what dropping the DRAM saves, not only what it costs (issue 25).

The DRAM, HMB and DRAM-less drives (seed 000's pairs, ``seed000-dram`` and
``seed000-hmb`` at 500 GB and ``seed000-dram-1tb`` and ``seed000-hmb-1tb``, and the
isolated ``dram-ssd``/``hmb-ssd``/``dramless-ssd`` trio) on sequential and random reads
and writes and on an idle-heavy client workload (a laptop-like 70/30 random mix at queue
depth 1 with think times long enough for APST), and the seed pairs' writes in seed 000's
drive states past the SLC cache (``sustain``: the SLC area full; ``aging``: the drive full
at GC steady state, SLC area full), with the energy model on: joules per I/O and per GB,
mean and peak watts, the drive's idle power, the host DRAM energy its HMB traffic costs,
the share of time in non-operational power states and the first-I/O latency after idle
(the wake-up).
Also each real-drive preset's data-sheet power figures beside the model's.

Simplifications: each point runs once (the simulation is deterministic for a seed);
the drives are "full" (every LBA written once) for reads and the random writes, fresh
(writes land in the SLC cache) for the sequential write, as a data sheet measures it;
the client workload's think times are fixed (200 ms after every 16 I/Os), not
drawn; the drive-state runs are the seed's write tests at QD32 (128 KiB sequential,
4 KiB random), each a fixed number of I/Os (not run to a settled rate as ``ssdlab study
seed000`` does), so they show the energy of the writes' first stretch in that state.
Results: ``results.csv``, ``datasheet.csv`` (data sheet vs model) and ``results.png``
(J/IO and mean W per device and workload).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ssdlab import api
from ssdlab.studies.common import table, write_outputs

SEED_PAIRS = ("seed000-dram", "seed000-hmb", "seed000-dram-1tb", "seed000-hmb-1tb")
DEVICES = (*SEED_PAIRS, "dram-ssd", "hmb-ssd", "dramless-ssd")
# Seed 000's drive states past the SLC cache (the study's other runs use "full" for reads
# and random writes, "fresh" for the sequential write: seed 000's "normal").
SEED_STATES = ("sustain", "aging")
KIND = {
    "seed000-dram": "DRAM",
    "seed000-hmb": "HMB",
    "seed000-dram-1tb": "DRAM",
    "seed000-hmb-1tb": "HMB",
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


def state_workloads(quick: bool) -> list[tuple[str, str, dict[str, Any]]]:
    """(name, drive state, fio options) of the seed pairs' writes in seed 000's states."""
    size = "128MiB" if quick else "256MiB"
    n = 10_000 if quick else 20_000
    seq = {"rw": "write", "bs": "128KiB", "iodepth": 32, "io_size": size}
    rnd = {"rw": "randwrite", "bs": "4KiB", "iodepth": 32, "number_ios": n}
    # The aging state's sequential write (a full sequential fill, `ssdlab study seed000`'s
    # full-slc-exhausted) is left out: preparing a state costs more than the run, and
    # aging's is the dearest (tens of seconds on a 1 TB drive).
    return [
        ("seq-write-128k-qd32", "sustain", seq),
        ("rand-write-4k-qd32", "sustain", rnd),
        ("rand-write-4k-qd32", "aging", rnd),
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
    ("samsung-970-evo-plus", "idle", 0.030, "[ds970p]", "sleep:PS3"),
    ("samsung-970-evo-plus", "L1.2", 0.005, "[ds970p]", "sleep:PS4"),
    ("seed000-hmb", "average", 4.2, "[guru980p] 980 500 GB", "seq-mean"),
    ("seed000-hmb", "idle", 0.045, "[guru980p] 980", "sleep:PS3"),
    ("seed000-hmb-1tb", "idle", 0.045, "[guru980p] 980", "sleep:PS3"),
    ("seed000-dram-1tb", "average", 6.2, "[hwluxx980p] 980 PRO 1 TB", "seq-mean"),
    ("seed000-dram", "average", 5.9, "[hwluxx980p] 980 PRO 500 GB", "seq-mean"),
    ("seed000-dram", "idle", 0.035, "[hwluxx980p] 980 PRO", "sleep:PS3"),
    ("seed000-dram-1tb", "idle", 0.035, "[hwluxx980p] 980 PRO", "sleep:PS3"),
    ("seed000-dram", "max", 7.4, "[hwluxx980p] 980 PRO 500 GB", "peak"),
    ("seed000-dram-1tb", "max", 8.9, "[hwluxx980p] 980 PRO 1 TB", "peak"),
]
# "max" rows are bounds, not figures to match: the highest window of every run the study
# made on the preset (`peak_w`, 10 ms windows) must not exceed the data sheet's maximum.
BOUND_FIGURES = {"max"}
# The rows a value was calibrated on (one each; the others are checks): the data path's
# energy per byte, the link's L1 power, the 980's PS3 always-on power (docs/power.md).
CALIBRATED = {
    ("samsung-970-evo-plus-1tb", "read"): "datapath_j_per_byte",
    ("samsung-970-evo-plus-1tb", "idle"): "pcie_l1_w_per_lane",
    ("seed000-hmb", "idle"): "states[3].controller_w",
    ("seed000-dram-1tb", "average"): "datapath_j_per_byte",
    ("seed000-dram", "idle"): "states[3].controller_w",
}


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
    cache: dict[tuple[str, str, str], dict[str, Any]] = {
        (r["device"], r["workload"], r["state"]): r for r in results
    }

    def measured(preset: str, name: str) -> dict[str, Any]:
        """The study's row of `preset` on workload `name`, run now if the study did not."""
        state, w = wls[name]
        if (preset, name, state) not in cache:
            rep = api.run(preset, w, state=state, energy=True).to_dict()
            cache[(preset, name, state)] = row_of(preset, name, state, rep)
        return cache[(preset, name, state)]

    out = []
    for preset, figure, ds_w, source, wl in DATASHEET:
        if wl.startswith("sleep:"):
            model = sleep_w(preset, int(wl[-1]))
        elif wl == "peak":
            ran = [r["peak_w"] for r in results if r["device"] == preset]
            ran = ran or [measured(preset, n)["peak_w"] for n in (SEQ_READ, SEQ_WRITE)]
            model = max(ran)
        else:
            names = [SEQ_READ, SEQ_WRITE] if wl == "seq-mean" else [wl]
            ws = [measured(preset, name)["avg_w"] for name in names]
            model = sum(ws) / len(ws)
        out.append(
            {
                "preset": preset,
                "figure": figure,
                "datasheet_w": ds_w,
                "model_w": model,
                "ratio": model / ds_w,
                "calibrated": CALIBRATED.get((preset, figure), ""),
                "bound": figure in BOUND_FIGURES,
                "source": source,
            }
        )
    return out


def run_study(out_dir: Path, quick: bool = False, seed: int = 1) -> str:
    runs, keys = [], []
    grid = [(dev, w) for dev in DEVICES for w in workloads(quick)]
    grid += [(dev, w) for dev in SEED_PAIRS for w in state_workloads(quick)]
    for dev, (name, state, wl) in grid:
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
            r["state"],
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
            ["device", "workload", "state", "IOPS", "avg W", "peak W", "µJ/IO", "J/GB",
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
            ["preset", "figure", "data sheet", "model", "model/sheet", "calibrated", "source"],
            [
                [d["preset"], d["figure"], f"{d['datasheet_w']:.3g}", f"{d['model_w']:.3g}",
                 f"{d['ratio']:.2f}",
                 d["calibrated"] or ("bound (model <= sheet)" if d["bound"] else "check"),
                 d["source"]]
                for d in ds
            ],
        )
    )  # fmt: skip
    from ssdlab.studies.common import write_csv

    out_dir.mkdir(parents=True, exist_ok=True)
    write_csv(out_dir / "datasheet.csv", list(ds[0]), ds)

    def draw(plt):
        fig, axes = plt.subplots(1, 2, figsize=(12, 4.5))
        points = [(n, st) for n, st, _ in workloads(quick)]
        names = [n for n, _ in points]
        width = 0.8 / len(DEVICES)
        for i, dev in enumerate(DEVICES):
            rs = [next(r for r in results
                       if r["device"] == dev and r["workload"] == n and r["state"] == st)
                  for n, st in points]  # fmt: skip
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
