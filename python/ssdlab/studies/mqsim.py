"""MQSim on its own default device (issues 15 and 30, docs/validation.md): the
`mqsim-default` preset on the four workloads MQSim was run with (MQSim commit 7ec40e3):
4 KiB random reads at QD32 for 10 s, 128 KiB sequential reads at QD32 for 3 s, 4 KiB
random writes and a 70/30 random read/write mix at QD32 for 3 s, on a full drive, beside
MQSim's own results.

Each workload runs three ways: the preset as it is (a chip's dies take commands
independently, as real controllers drive them), with one command per chip (MQSim's
scheduler: `nand.chip_interface = "one-command"`), and with MQSim's five mechanisms
behind random writes (one command per chip; pages placed on planes by address, which
leaves 2.2 % two-plane programs: single-plane operations; dirty map entries held in its
2 MiB CMT for the whole run: a 2 MiB map-update journal; its data cache's DRAM, 100 MT/s
one byte wide, one access at a time: a 200 MB/s write path; its back pressure, at most
1 MiB admitted and not yet programmed: a 1 MiB write buffer). The writes and the mix also
run on 64 one-die chips against MQSim run the same way (Chip_No_Per_Channel 8,
Die_No_Per_Chip 1). Nothing here is fitted to MQSim's figures: the preset states what
MQSim's ssdconfig.xml states; the differences are named in docs/validation.md.
"""

from __future__ import annotations

from pathlib import Path

from ssdlab.studies.common import num, run_points, table, write_outputs

# MQSim (CMU-SAFARI/MQSim 7ec40e3, ssdconfig.xml unchanged), its scenario output files
# (workload-*_scenario_1.xml). Read commands count translation reads; a two-plane command
# counts once.
MQSIM = {
    "randread-4k": {
        "iops": 1_608_918 / 10.0,
        "mean_us": 198.0,
        "bw": 6_590_128_128 / 10.0,
        "read_cmds_per_io": (2_168_242 + 1_427) / 1_608_918,
        "programs_per_io": 305_450 / 1_608_918,  # translation-page programs
        "hit_rate": 5_642 / 1_608_918,
    },
    "seqread-128k": {
        "iops": 41_870 / 3.0,
        "mean_us": 2_293.0,
        "bw": 5_487_984_640 / 3.0,
        "read_cmds_per_io": (112_461 + 284_095) / 41_870,
        "programs_per_io": 0.0,
        "hit_rate": 0.0,
    },
    "randwrite-4k": {
        "iops": 110_232 / 3.0,
        "mean_us": 871.0,
        "bw": 451_510_272 / 3.0,
        "read_cmds_per_io": (110_015 + 52) / 110_232,  # all translation reads
        "programs_per_io": (105_458 + 2_371) / 110_232,
        "hit_rate": 82 / 110_200,
    },
    "mix70-4k": {
        "iops": 194_648 / 3.0,
        "mean_us": 493.0,
        "bw": 797_278_208 / 3.0,
        "read_cmds_per_io": (329_465 + 454) / 194_648,
        "programs_per_io": (58_327 + 115) / 194_648,
        "hit_rate": 293 / 194_640,
    },
}

# MQSim draws each random address afresh (Uniform_ulong over the span): norandommap.
# MQSim run here on the same device with 64 one-die chips per the ssdconfig.xml diff
# Chip_No_Per_Channel 4 -> 8, Die_No_Per_Chip 2 -> 1 (workloads: Chip_IDs 0-7, Die_IDs 0);
# its result files' figures (docs/validation.md).
MQSIM_64_CHIPS = {
    "randwrite-4k": {
        "iops": 146_330 / 3.0,
        "mean_us": 656.0,
        "bw": 599_367_680 / 3.0,
        "read_cmds_per_io": (146_019 + 59) / 146_330,
        "programs_per_io": (145_252 + 504) / 146_330,
        "hit_rate": 119 / 146_260,
    },
    "mix70-4k": {
        "iops": 270_245 / 3.0,
        "mean_us": 355.0,
        "bw": (63_037 + 27_044.666667) * 4096,
        "read_cmds_per_io": (479_519 + 622) / 270_245,
        "programs_per_io": (80_956 + 81) / 270_245,
        "hit_rate": 0.0,
    },
}

WORKLOADS = {
    "randread-4k": {
        "rw": "randread",
        "bs": "4KiB",
        "iodepth": 32,
        "runtime": "10s",
        "norandommap": True,
    },
    "seqread-128k": {"rw": "read", "bs": "128KiB", "iodepth": 32, "runtime": "3s"},
    "randwrite-4k": {
        "rw": "randwrite",
        "bs": "4KiB",
        "iodepth": 32,
        "runtime": "3s",
        "norandommap": True,
    },
    "mix70-4k": {
        "rw": "randrw",
        "rwmixread": 70,
        "bs": "4KiB",
        "iodepth": 32,
        "runtime": "3s",
        "norandommap": True,
    },
}

# MQSim's scheduler: a chip runs one command at a time.
ONE_COMMAND = {"nand.chip_interface": "one-command"}
# MQSim's other four mechanisms behind random writes (docs/validation.md), whatever
# its chips do.
MQSIM_WRITE_PATH = {
    "nand.planes_per_die": 1,  # MQSim fixes a page's plane by its address: 2.2 % two-plane
    "nand.blocks_per_plane": 4096,  # the same blocks per die
    "map.journal_entries": 262_144,  # 2 MiB: dirty entries held for the run, as its CMT
    # its data-cache DRAM: 100 MT/s x 1 byte, DDR, one access at a time (20.5 us per 4 KiB)
    "controller.write_path": "200MB/s",
    # its back pressure: writes admitted while < 1 MiB (a page per plane) awaits programming
    "controller.write_buffer": "1MiB",
}
MQSIM_MECHANISMS = {**ONE_COMMAND, **MQSIM_WRITE_PATH}
VARIANTS = {
    "preset": {},
    "one-command": ONE_COMMAND,
    "mqsim-mechanisms": MQSIM_MECHANISMS,
}
# On 64 one-die chips (the preset's dies, interleaved), against MQSim run that way.
CHIPS_64 = "64-chips-mqsim-mechanisms"


def _row(name: str, variant: str, r: dict, m: dict) -> dict:
    rd, wr = num(r, "read_total_ios", 0), num(r, "write_total_ios", 0)
    ios = (rd + wr) or 1
    iops = num(r, "read_iops", 0.0) + num(r, "write_iops", 0.0)
    mean_ns = (rd * num(r, "read_lat_mean_ns", 0.0) + wr * num(r, "write_lat_mean_ns", 0.0)) / ios
    return {
        "workload": name,
        "variant": variant,
        "iops": iops,
        "read_iops": num(r, "read_iops", 0.0),
        "write_iops": num(r, "write_iops", 0.0),
        "mean_us": mean_ns / 1e3,
        "read_mean_us": num(r, "read_lat_mean_ns", 0.0) / 1e3,
        "write_mean_us": num(r, "write_lat_mean_ns", 0.0) / 1e3,
        "bw": num(r, "read_bw_bytes", 0.0) + num(r, "write_bw_bytes", 0.0),
        "hit_rate": num(r, "stats.map.hit_rate", 0.0),
        # flash commands per request (a two-plane command counts once)
        "read_cmds_per_io": num(r, "stats.nand.read_ops", 0) / ios,
        "programs_per_io": num(r, "stats.nand.program_ops", 0) / ios,
        "rmw_reads_per_io": num(r, "stats.nand.rmw_reads", 0) / ios,
        "map_units_written_per_io": num(r, "stats.ftl.map_units_written", 0) / ios,
        "die_util": num(r, "stats.dies.mean_util", 0.0),
        "channel_util": num(r, "stats.channels.mean_util", 0.0),
        "mqsim_iops": m["iops"],
        "mqsim_mean_us": m["mean_us"],
        "mqsim_bw": m["bw"],
        "mqsim_read_cmds_per_io": m["read_cmds_per_io"],
        "mqsim_programs_per_io": m["programs_per_io"],
        "iops_diff": iops / m["iops"] - 1,
    }


def _pct(x: float) -> str:
    return f"{x * 100:+.1f}%"


def run_study(
    out_dir: Path, quick: bool = False, seed: int = 1, device: str = "mqsim-default"
) -> str:
    points = []
    runs = []
    for name, wl in WORKLOADS.items():
        for variant, overrides in VARIANTS.items():
            w = dict(wl)
            if quick:
                w["runtime"] = "300ms"
            run = {
                "device": device,
                "workload": w,
                "state": "full",
                "seed": seed,
                "params": {"study": "mqsim", "workload": name, "variant": variant},
            }
            if overrides:
                run["set"] = dict(overrides)
            runs.append(run)
            points.append((name, variant))
        if name in MQSIM_64_CHIPS:
            w = dict(wl)
            if quick:
                w["runtime"] = "300ms"
            runs.append(
                {
                    "device": device,
                    "workload": w,
                    "state": "full",
                    "seed": seed,
                    "params": {"study": "mqsim", "workload": name, "variant": CHIPS_64},
                    "set": dict(MQSIM_WRITE_PATH),
                }
            )
            points.append((name, CHIPS_64))
    got = run_points(runs, out_dir, workers=1)
    res = [
        _row(name, v, r, MQSIM_64_CHIPS[name] if v == CHIPS_64 else MQSIM[name])
        for (name, v), r in zip(points, got)
    ]
    by = {(v["workload"], v["variant"]): v for v in res}

    rows = []
    for name in WORKLOADS:
        m = MQSIM[name]
        seq = name.startswith("seq")
        cells = [
            name,
            "GB/s" if seq else "IOPS",
            f"{m['bw'] / 1e9:.2f}" if seq else f"{m['iops']:,.0f}",
        ]
        for variant in VARIANTS:
            v = by[(name, variant)]
            if seq:
                cells.append(f"{v['bw'] / 1e9:.2f} ({_pct(v['bw'] / m['bw'] - 1)})")
            else:
                cells.append(f"{v['iops']:,.0f} ({_pct(v['iops_diff'])})")
        rows.append(cells)
        cells = ["", "mean us", f"{m['mean_us']:,.0f}"]
        for variant in VARIANTS:
            v = by[(name, variant)]
            cells.append(f"{v['mean_us']:,.0f} ({_pct(v['mean_us'] / m['mean_us'] - 1)})")
        rows.append(cells)
        cells = [
            "",
            "reads / programs per I/O",
            f"{m['read_cmds_per_io']:.2f} / {m['programs_per_io']:.2f}",
        ]
        for variant in VARIANTS:
            v = by[(name, variant)]
            cells.append(f"{v['read_cmds_per_io']:.2f} / {v['programs_per_io']:.2f}")
        rows.append(cells)
    text = [
        table(
            f"{device} vs MQSim on its default device (QD32, full drive)"
            + (" [quick: 300 ms]" if quick else ""),
            ["workload", "", "MQSim", *VARIANTS],
            rows,
        ),
        "preset: a chip's dies take commands independently (real controllers); one-command: "
        'MQSim\'s scheduler, one operation per chip (--set nand.chip_interface="one-command"); '
        "mqsim-mechanisms: also single-plane operations (MQSim places a page on a plane by its "
        "address), a 2 MiB map journal (MQSim's CMT holds every dirty entry of a 3 s run) and "
        "a 200 MB/s write path (MQSim's data-cache DRAM) and a 1 MiB write buffer (its back "
        "pressure). Every difference is named in "
        "docs/validation.md: random reads, MQSim's reads of a "
        "drive that holds nothing skip 65 % of translation reads; sequential reads, MQSim's "
        "PHY idles each channel one tR per round; the mix, ssdlab's writes wait for the read "
        "of the 4 KiB they do not cover, MQSim's never-written pages need none.",
    ]
    rows64 = []
    for name, m in MQSIM_64_CHIPS.items():
        v = by[(name, CHIPS_64)]
        rows64.append(
            [
                name,
                f"{m['iops']:,.0f}",
                f"{v['iops']:,.0f} ({_pct(v['iops_diff'])})",
                f"{m['mean_us']:,.0f}",
                f"{v['mean_us']:,.0f} ({_pct(v['mean_us'] / m['mean_us'] - 1)})",
                f"{m['read_cmds_per_io']:.2f} / {m['programs_per_io']:.2f}",
                f"{v['read_cmds_per_io']:.2f} / {v['programs_per_io']:.2f}",
            ]
        )
    text.insert(
        1,
        table(
            "64 one-die chips: MQSim run with Chip_No_Per_Channel 8, Die_No_Per_Chip 1; "
            "ssdlab's dies interleaved, with MQSim's other mechanisms",
            [
                "workload",
                "MQSim IOPS",
                "IOPS",
                "MQSim mean us",
                "mean us",
                "MQSim reads / programs per I/O",
                "reads / programs per I/O",
            ],
            rows64,
        ),
    )
    cols = list(res[0])

    def draw(plt):
        fig, axes = plt.subplots(1, 4, figsize=(14, 3.5))
        for ax, name in zip(axes, WORKLOADS):
            seq = name.startswith("seq")
            scale, unit = (1e9, "GB/s") if seq else (1e3, "KIOPS")
            key = "bw" if seq else "iops"
            xs = ["MQSim", *VARIANTS]
            ys = [MQSIM[name][key] / scale] + [by[(name, v)][key] / scale for v in VARIANTS]
            ax.bar(xs, ys)
            ax.set_title(f"{name} QD32 ({unit})")
            ax.tick_params(axis="x", labelrotation=30)
        fig.tight_layout()
        return fig

    text.append(write_outputs(out_dir, "mqsim", cols, res, draw))
    return "\n\n".join(text)
