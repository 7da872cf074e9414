"""Seed 001: NVMe over Fabrics (RDMA, Linux kernel target) against local NVMe, with 24
datacenter drives behind one target and four initiator hosts.

Every point is a *system* run (``docs/nvmeof.md``): the study writes the system files
it uses to ``OUT/systems/`` (``remote-N.toml``: N ``dc-mlc-2016`` drives behind one
target with 2 x 100 Gb/s ports and 28 cores, four initiators with 2 x 25 Gb/s ports,
kernel RDMA; ``local-N.toml``: the same N drives on one host's PCIe), so any point can
be run again by hand with ``ssdlab run --device OUT/systems/remote-24.toml ...``.

Experiments (the seed's methodology: fio, libaio; random 4 KiB at QD16 x 2 jobs per
drive; sequential 128 KiB at QD32 x 1 job; latency at QD1 x 1 job):
``qd1`` (1 drive), ``loaded`` (1 drive, QD16 x 2), ``scale`` (random read over 1..24
drives), ``seq_scale`` (sequential read and write over 1..24 drives, remote),
``perf24`` (24 drives: random read, sequential read and write, and random write on aged
drives, local and remote) and ``steady_write`` (random write on an aged drive, 1 drive,
local and remote).

Writes on ``full`` drives are confined to the first 32 GiB of each drive: a full drive's
map materialises what a run writes. Within a run this short (no garbage collection
starts on a full drive with 12.7 % spare) the span does not change a write's timing:
the same run over the whole drive gives the identical report (tested in
``tests/test_nvmeof.py``). Random writes on aged drives (``steady_write`` and perf24's
``randwrite``) use the whole drive; the 24 aged drives share one prepared drive, and
each keeps only what its writes and garbage collection change (``ftl/map_array.rs``).
"""

from __future__ import annotations

from pathlib import Path

from ssdlab.studies.common import num, run_points, table, write_csv

DEVICE = "dc-mlc-2016"
FABRIC = "rdma-kernel-2016"
DRIVE_COUNTS = [1, 4, 8, 16, 20, 24]
QUICK_DRIVE_COUNTS = [1, 8, 24]
WRITE_SPAN = 32 << 30
COLUMNS = ["experiment", "drives", "access", "rw", "iodepth", "numjobs", "metric", "value", "unit"]

# What the seed reports (docs/nvmeof.md cites the slides' figures).
SEED = {
    ("qd1_delta_us", "randread"): 17.0,
    ("qd1_delta_us", "randwrite"): 9.0,
    ("loaded_delta_us", "randread"): 12.0,
    ("perf24_iops", "local", "randread"): 4_884_000,
    ("perf24_iops", "remote", "randread"): 4_303_900,
    ("perf24_iops", "local", "randwrite"): 886_000,
    ("perf24_iops", "remote", "randwrite"): 871_000,
    ("perf24_bw", "local", "read"): 26.31e9,
    ("perf24_bw", "remote", "read"): 21.48e9,
    ("perf24_bw", "remote", "write"): 22.58e9,
    ("scale_iops", 1): 243_350,
    ("scale_iops", 4): 870_750,
    ("scale_iops", 8): 1_886_170,
    ("scale_iops", 16): 3_398_400,
    ("scale_iops", 24): 4_303_900,
}


def system_toml(drives: int, access: str, device: str = DEVICE, fabric: str = FABRIC) -> str:
    """Seed 001's topology with `drives` drives, remote (behind the target) or local."""
    if access == "local":
        return (
            f'name = "local-{drives}"\n'
            'description = "seed 001: the drives on the host\'s own PCIe"\n'
            '[[host]]\nname = "local"\ncores = 28\n'
            f'[[drive]]\ndevice = "{device}"\ncount = {drives}\nhost = "local"\n'
        )
    hosts = "".join(
        f'[[host]]\nname = "init{h}"\nnic_ports = 2\nport_rate = "25Gb/s"\ncores = 16\n'
        for h in range(4)
    )
    return (
        f'name = "remote-{drives}"\n'
        'description = "seed 001: one NVMe-oF target (2 x 100 Gb/s), four initiators '
        '(2 x 25 Gb/s each), kernel RDMA"\n'
        f'fabric = "{fabric}"\n{hosts}'
        '[[target]]\nname = "target"\nnic_ports = 2\nport_rate = "100Gb/s"\ncores = 28\n'
        f'[[drive]]\ndevice = "{device}"\ncount = {drives}\ntarget = "target"\n'
        'hosts = ["init0", "init1", "init2", "init3"]\n'
    )


def _workload(p: dict, quick: bool, span: int) -> dict:
    """A point's fio options: I/O counts or a timed window; writes on full drives kept to
    `span`, writes on aged drives over the whole drive (their GC sees every LBA)."""
    wl = {"rw": p["rw"], "bs": p["bs"], "iodepth": p["iodepth"], "numjobs": p["numjobs"]}
    if p["number_ios"]:
        wl["number_ios"] = p["number_ios"]
    elif p["state"] == "steady":
        # Not shorter with --quick: an aged drive's first ~100 ms after preparation are
        # its dies' first GC waves (docs/validation.md, section 2), where a 100 ms window
        # put local and remote 11 % apart; from 300 ms on they agree.
        wl["ramp_time"], wl["runtime"] = ("50ms", "300ms")
    else:
        wl["ramp_time"] = "10ms" if quick else "20ms"
        wl["runtime"] = "40ms" if quick else "120ms"
    if p["rw"] in ("randwrite", "write") and p["state"] == "full":
        wl["size"] = span
    return wl


def plan(quick: bool) -> list[dict]:
    """Every point: experiment, drives, access, rw, bs, iodepth, numjobs, number_ios."""
    counts = QUICK_DRIVE_COUNTS if quick else DRIVE_COUNTS
    pts = []
    for access in ("local", "remote"):
        for rw in ("randread", "randwrite"):
            pts.append(("qd1", 1, access, rw, "4KiB", 1, 1, 3000 if quick else 20_000))
            pts.append(("loaded", 1, access, rw, "4KiB", 16, 2, None))
        for n in counts:
            pts.append(("scale", n, access, "randread", "4KiB", 16, 2, None))
    # The seed's throughput scaling is remote; local sequential runs only at 24 drives.
    for n in counts:
        for rw in ("read", "write"):
            pts.append(("seq_scale", n, "remote", rw, "128KiB", 32, 1, None))
    for rw in ("read", "write"):
        pts.append(("perf24", 24, "local", rw, "128KiB", 32, 1, None))
    keys = ("experiment", "drives", "access", "rw", "bs", "iodepth", "numjobs", "number_ios")
    out = [{**dict(zip(keys, p)), "state": "full"} for p in pts]
    # Random writes on an aged drive (steady state: garbage collection running), as a
    # datacenter drive's write rating and, we believe, the seed's write runs are.
    for access in ("local", "remote"):
        for exp, n in (("steady_write", 1), ("perf24", 24)):
            out.append(
                {
                    **dict(zip(keys, (exp, n, access, "randwrite", "4KiB", 16, 2, None))),
                    "state": "steady",
                }
            )
    return out


def run_study(out_dir: Path, quick: bool = False, seed: int = 1, device: str = DEVICE) -> str:
    from ssdlab import api

    span = min(WRITE_SPAN, api.validate(device)["capacity_bytes"] // 4096 * 4096)
    if Path(device).is_file():  # the system files live in OUT/systems
        device = str(Path(device).resolve())
    systems = out_dir / "systems"
    systems.mkdir(parents=True, exist_ok=True)
    points = plan(quick)
    for p in points:
        path = systems / f"{p['access']}-{p['drives']}.toml"
        if not path.exists():
            path.write_text(system_toml(p["drives"], p["access"], device=device))
    runs = []
    for p in points:
        wl = _workload(p, quick, span)
        runs.append(
            {
                "device": str(systems / f"{p['access']}-{p['drives']}.toml"),
                "state": p["state"],
                "seed": seed,
                "workload": wl,
                "params": {"study": "nvmeof", **{k: p[k] for k in ("experiment", "access")}},
            }
        )
    # One point at a time: a 24-drive run holds the shared prepared drive (~2 GiB of
    # maps when aged) plus what each drive's writes change.
    results = run_points(runs, out_dir / "sweep", workers=1)
    res: dict[tuple, dict] = {}
    rows = []
    for p, r in zip(points, results):
        d = "read" if "read" in p["rw"] else "write"
        m = {
            "iops": (num(r, f"{d}_iops"), "IOPS"),
            "bw_bytes": (num(r, f"{d}_bw_bytes"), "B/s"),
            "lat_mean_us": (num(r, f"{d}_lat_mean_ns") / 1e3, "us"),
            "lat_p99_us": (num(r, f"{d}_lat_p99_ns") / 1e3, "us"),
        }
        res[(p["experiment"], p["drives"], p["access"], p["rw"])] = {
            k: v for k, (v, _) in m.items()
        }
        for metric, (value, unit) in m.items():
            rows.append(
                {**{k: p[k] for k in COLUMNS[:6]}, "metric": metric, "value": value, "unit": unit}
            )
    # perf24's random read and sequential runs are scale's and seq_scale's 24-drive points.
    reused = (
        ("local", "scale", "randread"),
        ("remote", "scale", "randread"),
        ("remote", "seq_scale", "read"),
        ("remote", "seq_scale", "write"),
    )
    for access, exp, rw in reused:
        src = res[(exp, 24, access, rw)]
        res[("perf24", 24, access, rw)] = src
        qd, nj = (16, 2) if rw == "randread" else (32, 1)
        for metric, unit in (
            ("iops", "IOPS"),
            ("bw_bytes", "B/s"),
            ("lat_mean_us", "us"),
            ("lat_p99_us", "us"),
        ):
            rows.append(
                {
                    "experiment": "perf24",
                    "drives": 24,
                    "access": access,
                    "rw": rw,
                    "iodepth": qd,
                    "numjobs": nj,
                    "metric": metric,
                    "value": src[metric],
                    "unit": unit,
                }
            )
    write_csv(out_dir / "results.csv", COLUMNS, rows)
    text = _tables(res, QUICK_DRIVE_COUNTS if quick else DRIVE_COUNTS)
    plotted = _plots(out_dir, res, QUICK_DRIVE_COUNTS if quick else DRIVE_COUNTS)
    text.append(
        f"wrote {out_dir / 'results.csv'}"
        + (
            ", nvmeof-latency.png, nvmeof-scaling.png, nvmeof-perf24.png"
            if plotted
            else " (no plots: matplotlib not installed)"
        )
        + f"; the systems run are in {systems}"
    )
    return "\n\n".join(text)


def _tables(res: dict, counts: list[int]) -> list[str]:
    def lat(exp, access, rw):
        return res[(exp, 1, access, rw)]["lat_mean_us"]

    rows = []
    for exp, rw, seed_key in (
        ("qd1", "randread", ("qd1_delta_us", "randread")),
        ("qd1", "randwrite", ("qd1_delta_us", "randwrite")),
        ("loaded", "randread", ("loaded_delta_us", "randread")),
        ("loaded", "randwrite", None),
    ):
        loc, rem = lat(exp, "local", rw), lat(exp, "remote", rw)
        seed = SEED.get(seed_key) if seed_key else None
        rows.append(
            [
                exp,
                rw,
                f"{loc:.1f}",
                f"{rem:.1f}",
                f"{rem - loc:+.1f}",
                f"~{seed:.0f}" if seed else "-",
            ]
        )
    out = [
        table(
            "Latency, 1 drive (mean, us): local vs remote",
            ["experiment", "rw", "local", "remote", "delta", "seed delta"],
            rows,
        )
    ]
    rows = []
    for n in counts:
        loc, rem = res[("scale", n, "local", "randread")], res[("scale", n, "remote", "randread")]
        seed = SEED.get(("scale_iops", n))
        rows.append(
            [
                n,
                f"{loc['iops'] / 1e3:,.0f}K",
                f"{rem['iops'] / 1e3:,.0f}K",
                f"{seed / 1e3:,.0f}K" if seed else "-",
                f"{loc['lat_mean_us']:.0f}",
                f"{rem['lat_mean_us']:.0f}",
            ]
        )
    out.append(
        table(
            "4K random read QD16 x 2 jobs per drive: IOPS and mean latency (us) vs drives",
            ["drives", "local IOPS", "remote IOPS", "seed remote", "local lat", "remote lat"],
            rows,
        )
    )
    rows = []
    for rw, metric, scale, unit in (
        ("randread", "iops", 1e3, "K"),
        ("randwrite", "iops", 1e3, "K"),
        ("read", "bw_bytes", 1e9, " GB/s"),
        ("write", "bw_bytes", 1e9, " GB/s"),
    ):
        cells = [rw, metric]
        for access in ("local", "remote"):
            v = res[("perf24", 24, access, rw)][metric] / scale
            s = SEED.get(
                (
                    "perf24_iops" if metric == "iops" else "perf24_bw",
                    access,
                    rw,
                )
            )
            digits = 2 if unit == " GB/s" else 0
            cells.append(f"{v:,.{digits}f}{unit}")
            cells.append("-" if s is None else f"{s / scale:,.{digits}f}{unit}")
        rows.append(cells)
    out.append(
        table(
            "24 drives, local vs remote (model | seed); randwrite on aged drives",
            ["rw", "metric", "local", "seed local", "remote", "seed remote"],
            rows,
        )
    )
    rows = []
    for access in ("local", "remote"):
        r = res[("steady_write", 1, access, "randwrite")]
        seed = SEED[("perf24_iops", access, "randwrite")] / 24
        rows.append(
            [access, f"{r['iops'] / 1e3:,.1f}K", f"{r['lat_mean_us']:,.0f}", f"{seed / 1e3:,.1f}K"]
        )
    out.append(
        table(
            "4K random write QD16 x 2 on an aged (steady-state) drive, 1 drive "
            "(seed: its 24-drive write IOPS / 24)",
            ["access", "IOPS", "lat (us)", "seed per drive"],
            rows,
        )
    )
    out.append(
        "Random writes run on aged drives (garbage collection running), as the seed's "
        "886K / 871K are an aged drive's rate: on full drives (no GC) the figure would show "
        "the data path, not the drive (docs/nvmeof.md)."
    )
    out.append(
        "Where the model and the seed differ, docs/nvmeof.md says why (the fabric's "
        "per-command CPU costs are 2024 measurements, not fitted and not scaled to the "
        "seed's 2016 kernel; the drive is a datasheet-class PM953, not the seed's exact "
        "drive)."
    )
    return out


def _plots(out_dir: Path, res: dict, counts: list[int]) -> bool:
    from ssdlab.studies.common import plot

    def latency(plt):
        fig, ax = plt.subplots(figsize=(7, 4))
        labels = ["QD1 read", "QD1 write", "QD16x2 read", "QD16x2 write"]
        keys = [
            ("qd1", "randread"),
            ("qd1", "randwrite"),
            ("loaded", "randread"),
            ("loaded", "randwrite"),
        ]
        xs = range(len(keys))
        for off, access in ((-0.2, "local"), (0.2, "remote")):
            ax.bar(
                [x + off for x in xs],
                [res[(e, 1, access, rw)]["lat_mean_us"] for e, rw in keys],
                width=0.4,
                label=access,
            )
        ax.set_xticks(list(xs), labels)
        ax.set_ylabel("mean latency (us)")
        ax.set_title("Samsung, FMS (NVMe-oF): latency, local vs NVMe-oF (1 drive)")
        ax.legend()
        return fig

    def scaling(plt):
        fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
        for access in ("local", "remote"):
            a.plot(
                counts,
                [res[("scale", n, access, "randread")]["iops"] / 1e3 for n in counts],
                marker="o",
                label=f"{access} (model)",
            )
            b.plot(
                counts,
                [res[("scale", n, access, "randread")]["lat_mean_us"] for n in counts],
                marker="o",
                label=access,
            )
        seed_n = [n for n in counts if ("scale_iops", n) in SEED]
        a.plot(
            seed_n,
            [SEED[("scale_iops", n)] / 1e3 for n in seed_n],
            "k--",
            marker="x",
            label="remote (seed)",
        )
        a.set_xlabel("drives")
        a.set_ylabel("KIOPS (4K random read, QD16 x 2 per drive)")
        a.legend()
        b.set_xlabel("drives")
        b.set_ylabel("mean latency (us)")
        b.set_ylim(bottom=0)
        b.legend()
        fig.suptitle("Samsung, FMS (NVMe-oF): IOPS and latency vs drives")
        return fig

    def perf24(plt):
        fig, (a, b) = plt.subplots(1, 2, figsize=(10, 4))
        seed = {
            ("local", "randread"): SEED[("perf24_iops", "local", "randread")] / 1e3,
            ("remote", "randread"): SEED[("perf24_iops", "remote", "randread")] / 1e3,
        }
        for off, access in ((-0.3, "local"), (0.0, "remote")):
            a.bar(
                [off],
                [res[("perf24", 24, access, "randread")]["iops"] / 1e3],
                width=0.3,
                label=f"{access} (model)",
            )
            b.bar(
                [0 + off, 1 + off],
                [res[("perf24", 24, access, rw)]["bw_bytes"] / 1e9 for rw in ("read", "write")],
                width=0.3,
                label=f"{access} (model)",
            )
        a.bar([0.3], [seed[("remote", "randread")]], width=0.3, color="grey", label="remote (seed)")
        b.bar(
            [0.3, 1.3],
            [
                SEED[("perf24_bw", "remote", "read")] / 1e9,
                SEED[("perf24_bw", "remote", "write")] / 1e9,
            ],
            width=0.3,
            color="grey",
            label="remote (seed)",
        )
        for off, access in ((0.7, "local"), (1.0, "remote")):
            a.bar(
                [off],
                [res[("perf24", 24, access, "randwrite")]["iops"] / 1e3],
                width=0.3,
                color=f"C{0 if access == 'local' else 1}",
            )
        a.bar([1.3], [SEED[("perf24_iops", "remote", "randwrite")] / 1e3], width=0.3,
              color="grey")
        a.set_xticks([0, 1], ["4K random read", "4K random write (aged)"])
        a.set_ylabel("KIOPS")
        b.set_xticks([0, 1], ["read", "write"])
        b.set_ylabel("GB/s (128K sequential, QD32)")
        a.legend()
        b.legend()
        fig.suptitle("Samsung, FMS (NVMe-oF): 24 drives, local vs remote")
        return fig

    return all(
        plot(out_dir / f"nvmeof-{n}.png", f)
        for n, f in (("latency", latency), ("scaling", scaling), ("perf24", perf24))
    )
