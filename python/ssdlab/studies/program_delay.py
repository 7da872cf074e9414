"""Seed 003 (SK hynix, NVRAMOS 2019, "Adaptive program delay scheme for mixed workload
performance improvement"): IOMeter-style 4 KiB random 70/30 read/write at the sustained
condition (GC running), on a 2 TB and a 4 TB TLC drive, default scheduling (read-first, host
reads suspend programs and erases) against adaptive program delay.

The mechanism as the seed describes it (docs/validation.md, section 2):
- per die, the average delay from a program's dispatch to the next host read's arrival,
  AVG_DELAY_TIME, is measured per window; above tPROG a program runs at once; below data-in +
  alpha it is **delayed by AVG_DELAY_TIME** (`scheduler.hold = "average"`) so that the expected
  read goes first (a read cannot suspend a program during its data-in);
- a suspend serves a bounded number of reads (`scheduler.reads_per_suspend`), and adds less
  than 150 us to the program (the seed's bound): 30 us to stop, the program-verify loop it
  interrupted run again (`scheduler.program_loops`: 20 loops of 75 us; an assumption) and
  45 us at resume, so that no suspend adds more than 30 + 75 + 45 = 150 us;
- a holding die reads its GC victim ahead (GC reads do not end a hold);
- a program's data-in occupies the channel, so reads to the channel's other dies wait for it
  (always modelled; counted as `reads_behind_data_in`).

The drives, from datasheet-class parts of the seed's era, not fitted to its KIOPS:
- NAND: 512 Gbit 96-layer TLC dies (SK hynix's "4D NAND" of 2018-19 is a 512 Gbit TLC die),
  2 planes of 16 KiB pages, 768 pages per block, one-shot programs of a wordline's 3 pages;
  tR 50 us and a per-page tPROG of 500 us (Samsung's 5th-generation 96-layer TLC, announced
  2018, the same reference as the seed000 presets: a one-shot program of 3 pages is 1.5 ms);
  tBERS 3.5 ms (typical; not used by the result: erases are rare and suspendable);
  the channel at the seed's 460 MT/s with 2 KiB of spare per page, which makes the seed's
  "> 240 us" data-in (2 planes x 3 x 18 KiB).
- 2 TB: 32 dies (8 channels x 4); 4 TB: 64 dies (8 x 8): the same die, twice as many.
- spare: the nominal capacity over the raw flash, 2.000 TB of 2,199 GB (9.05 %);
- the drives at full size (2,731 blocks per plane; `--scale 1/4`, the `--quick` default:
  682, or 1/16: 170; the same dies, program size, spare share and per-die load, but GC's
  reserve of 8 free blocks per die takes a larger share of the spare: at 1/16 it leaves the
  drive a WAF of 13 against 5.6 at full size);
- the rest is `client-tlc-dram` (a DRAM drive, a 12 MiB write buffer, paced GC from 8 free
  blocks per die, taking the die outright only at 2).

Each point runs `seeds` seeds (default 5); the gain is computed per seed (adaptive over
default on the same prepared drive and the same request stream) and reported as the mean and
its 95 % confidence interval (Student t). A full-size drive's steady state takes about 20 s
(2 TB) and 45 s (4 TB) to prepare and 4 GB and 14 GB of memory: the study runs one point at a
time and lets a point use up to 80 % of the machine's memory. `alphas` sweeps alpha (the
default policy does not depend on it).

Steady state: the prepared drive has the steady state's valid-data distribution (its WAF,
`prep.steady_waf`, comes from a one-die proxy, which ages these dies as far as aging one
directly; the timed drives settle within 2 % of it) and its dies spread over their GC
cycles, each mid-run of victims (docs/model.md, "Drive states"); these drives' dies have idle
time to read victims ahead and finish their runs in ~0.4 of the cycle, so they start owing
more GC than they will and collect it in their first ~5 s (WAF above the steady one, IOPS
16 % low at 2-4 s, within 3 % from 5 s; docs/validation.md, section 2). The first `ramp`
seconds (default 10 s, quick too) are left out, the next `measure` seconds (default 20 s;
quick 5 s) are measured, and each point is checked: its measured WAF within
`STEADY_WAF_TOLERANCE` of the prepared steady WAF (`steady` in the CSV; the study warns
otherwise).
"""

from __future__ import annotations

import math
import statistics
from pathlib import Path

from ssdlab.cliutil import UsageError
from ssdlab.studies.common import count, num, run_points, table, write_outputs

POLICIES = [("default", "read-first"), ("adaptive", "adaptive-delay")]
SEED = {2: (82.0, 86.0), 4: (80.7, 85.9)}  # KIOPS default, adaptive (seed 003's table)

NAND = {
    "nand.channel_rate": "460MT/s",
    "nand.pages_per_program": 3,
    "nand.page_spare": "2KiB",
    "nand.t_read": "50us",
    "nand.t_prog": "1.5ms",
    "nand.t_erase": "3.5ms",
    "controller.write_buffer": "12MiB",
    "sram.size": "16MiB",  # holds the 12 MiB buffer (controller SRAM is a budget)
    # "2TB" and "4TB" of 32 and 64 x 512 Gbit (2,199 and 4,398 GB raw): 9.05 % spare
    "ftl.over_provisioning": 0.0905,
    "scheduler.program_suspend": True,
    "scheduler.erase_suspend": True,
    "scheduler.t_suspend": "30us",
    # A suspend adds at most 30 + 75 (the loop run again) + 45 = 150 us: the seed's bound.
    "scheduler.t_resume": "45us",
    "scheduler.program_loops": 20,
    "scheduler.reads_per_suspend": 1,
    "scheduler.hold": "average",
}
SCALES = {"full": 1, "1/4": 4, "1/16": 16}
# 512 Gbit / (2 planes x 768 pages x 16 KiB) = 2,731 blocks per plane (12 % of it spare).
BLOCKS_512GBIT = 2731
DIES = {2: 4, 4: 8}  # dies per channel (8 channels)
# data-in of a one-shot program: 2 planes x 3 pages x (16 + 2) KiB at 460 MT/s, in us
DATA_IN_US = 2 * 3 * 18 * 1024 / 460.0
T_SUSPEND_US, T_RESUME_US = 30.0, 45.0
LOOP_US = 1500.0 / 20  # tPROG over program_loops: a suspend runs half a loop again on average
# Student t quantiles (two-sided 95 %) by degrees of freedom.
# A point is measured in steady state when its measured WAF is this close to the prepared
# steady state's (2 s ramp: 1.5x at 4 TB). Measured after the 10 s ramp: within 2 % (1/4
# size, 2 seeds). It was 15 % while the preparation's one-die proxy aged these dies 16 %
# below aging the same die directly and the timed drives ran 10 % above its estimate
# (docs/validation.md, section 2).
STEADY_WAF_TOLERANCE = 0.10
RAMP, MEASURE = "10s", "20s"
QUICK_RAMP, QUICK_MEASURE = "10s", "5s"
T95 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262}


def devices(quick: bool, scale: str | None = None) -> list[tuple[str, int, dict]]:
    """(label, nominal TB, overrides): full size, or with `scale` "1/4" (the default of
    `quick`) or "1/16" that share of a die's blocks (the same dies, program size and
    per-die load)."""
    scale = scale or ("1/4" if quick else "full")
    if scale not in SCALES:
        raise UsageError(f"--scale: '{scale}' is not allowed (allowed: {', '.join(SCALES)})")
    out = []
    for tb in (2, 4):
        o = dict(NAND, **{"dram.size": f"{tb}GiB", "nand.dies_per_channel": DIES[tb]})
        o["nand.blocks_per_plane"] = BLOCKS_512GBIT // SCALES[scale]
        out.append((f"{tb}TB", tb, o))
    return out


DEFAULT_ALPHA = "20us"


def parse_alphas(text: str) -> list[str]:
    """`--alpha`: one time or a comma-separated list, each with its unit (e.g. 20us)."""
    import re

    vals = [v.strip() for v in text.split(",")]
    bad = [v for v in vals if not re.fullmatch(r"\d+(\.\d+)?(ns|us|ms|s)", v)]
    if bad or not vals:
        raise UsageError(
            f"--alpha: '{text}' is not allowed (allowed: times with a unit, comma-separated, "
            "e.g. 0us,20us,100us)"
        )
    return vals


def adaptive_name(alpha: str, alphas: list[str]) -> str:
    """The policy's label: "adaptive" for the first alpha (the main table), else with it."""
    return "adaptive" if alpha == alphas[0] else f"adaptive alpha={alpha}"


def _run_full_size(runs: list[dict], out_dir: Path) -> list[dict]:
    """Run the points one at a time (workers=1), each allowed up to 80 % of the machine's
    memory: a full-size 4 TB drive needs about 14 GB, more than the usual half."""
    from ssdlab import api

    before = api.DEFAULT_MAX_MEMORY
    api.DEFAULT_MAX_MEMORY = max(before, api.physical_memory_bytes() * 4 // 5)
    try:
        return run_points(runs, out_dir, workers=1)
    except UsageError as e:
        if "max_memory" in str(e):
            raise UsageError(f"{e}; or run smaller drives: --scale 1/4") from None
        raise
    finally:
        api.DEFAULT_MAX_MEMORY = before


def is_steady(waf: float, prep_waf: float) -> bool:
    """Is a point's measured WAF within STEADY_WAF_TOLERANCE of the prepared steady WAF?"""
    return prep_waf > 0 and abs(waf / prep_waf - 1) <= STEADY_WAF_TOLERANCE


def workload(ramp: str, measure: str) -> dict:
    """The seed's IOMeter pattern: 4 KiB random 70/30 at QD32, `ramp` left out (IOMeter draws
    each random offset afresh: norandommap)."""
    return {
        "rw": "randrw",
        "bs": "4KiB",
        "rwmixread": 70,
        "iodepth": 32,
        "norandommap": True,
        "ramp_time": ramp,
        "runtime": f"{_secs(ramp) + _secs(measure)}s",
    }


def interval(gains: list[float]) -> tuple[float, float, float]:
    """Mean and 95 % confidence interval of the per-seed gains."""
    m = statistics.fmean(gains)
    if len(gains) < 2:
        return m, math.nan, math.nan
    half = T95.get(len(gains) - 1, 1.96) * statistics.stdev(gains) / math.sqrt(len(gains))
    return m, m - half, m + half


def run_study(
    out_dir: Path,
    quick: bool = False,
    seed: int = 1,
    seeds: int | None = None,
    ramp: str | None = None,
    measure: str | None = None,
    window: str | None = None,
    alpha: str | None = None,
    alphas: list[str] | None = None,
    scale: str | None = None,
) -> str:
    n_seeds = seeds or (2 if quick else 5)
    ramp = ramp or (QUICK_RAMP if quick else RAMP)
    measure = measure or (QUICK_MEASURE if quick else MEASURE)
    alphas = list(alphas or ([alpha] if alpha else [DEFAULT_ALPHA]))
    if len(set(alphas)) != len(alphas):
        raise UsageError(f"--alpha: {','.join(alphas)} lists a value twice")
    wl = workload(ramp, measure)
    runtime = wl["runtime"]
    drives = devices(quick, scale)
    runs, keys = [], []
    for label, tb, o in drives:
        for s in range(seed, seed + n_seeds):
            # One prepared drive per (drive, seed): its points run one after another.
            variants = [("default", "read-first", None)]
            variants += [(adaptive_name(a, alphas), "adaptive-delay", a) for a in alphas]
            for name, policy, a in variants:
                d = dict(o, **{"scheduler.policy": policy})
                if window:
                    d["scheduler.window"] = window
                if a is not None:
                    d["scheduler.alpha"] = a
                keys.append((label, tb, s, name))
                params = {"study": "program-delay", "drive": label, "policy": name, "run_seed": s}
                runs.append(
                    {
                        "device": "client-tlc-dram",
                        "set": d,
                        "workload": wl,
                        "state": "steady",
                        "seed": s,
                        "params": params,
                    }
                )
    got = _run_full_size(runs, out_dir)
    alpha_of = {adaptive_name(a, alphas): a for a in alphas}
    res = {}
    for (label, tb, s, name), r in zip(keys, got):
        reads = count(r, "read_total_ios", 0)
        # The scheduler's counters cover the whole run (ramp included): shares of host
        # reads use the whole run's host reads at the flash, not the measured window's.
        reads_run = count(r, "stats.nand.user_read_txns", 0)
        waf, prep_waf = num(r, "stats.ftl.measured.waf"), num(r, "prep.steady_waf", 0.0)
        r_lat, w_lat = num(r, "read_lat_mean_ns") / 1e3, num(r, "write_lat_mean_ns", 0.0) / 1e3
        # all dies' time over the whole run, for the counters' shares of die time
        die_ns = 8 * DIES[tb] * _secs(runtime) * 1e9
        res[(label, s, name)] = {
            "drive": label,
            "capacity_bytes": count(r, "stats.capacity_bytes"),
            "seed": s,
            "policy": name,
            "alpha": alpha_of.get(name, ""),
            "iops": num(r, "read_iops") + num(r, "write_iops"),
            "read_lat_mean_us": r_lat,
            "waf": waf,
            "die_util": num(r, "stats.dies.mean_util", 0.0),
            "suspends": count(r, "stats.scheduler.suspends"),
            "reads_per_suspend": num(r, "stats.scheduler.reads_per_suspend", 0.0),
            "refused_at_limit": count(r, "stats.scheduler.refused_at_limit", 0),
            "refused_during_data_in": count(r, "stats.scheduler.refused_during_data_in"),
            "reads_behind_data_in": count(r, "stats.scheduler.reads_behind_data_in", 0),
            "data_in_wait_us_per_read": num(r, "stats.scheduler.data_in_wait_ns", 0.0)
            / 1e3
            / max(reads_run, 1),
            # die time: suspend + resume overheads, and holds (idle), as shares of all dies'
            # time over the whole run (ramp included, as the counters are)
            "suspend_overhead_share": num(r, "stats.scheduler.added_op_time_ns", 0.0) / die_ns,
            "hold_idle_share": num(r, "stats.scheduler.hold_idle_ns", 0.0) / die_ns,
            "holds": count(r, "stats.scheduler.adaptive.holds", 0),
            "hold_read_arrived": count(r, "stats.scheduler.adaptive.hold_read_arrived", 0),
            "hold_expired": count(r, "stats.scheduler.adaptive.hold_expired", 0),
            "gc_reads_during_holds": count(r, "stats.scheduler.adaptive.gc_reads_during_holds", 0),
            "loop_redo_share": num(r, "stats.scheduler.loop_redo_ns", 0.0) / die_ns,
            "reads": reads,
            # steady state: the measured WAF against the prepared steady state's
            "prep_steady_waf": prep_waf,
            "steady": is_steady(waf, prep_waf),
            # the closed loop: writes' mean latency and their share of the 32 slots
            # (Little's law: 0.3 x write latency over the mean of both)
            "write_lat_mean_us": w_lat,
            "write_queue_share": 0.3 * w_lat / (0.3 * w_lat + 0.7 * r_lat),
            # whole run: host reads at the flash; host writes that waited for buffer room
            "reads_run": reads_run,
            "write_buffer_waits": count(r, "stats.controller.write_buffer_waits", 0),
            "host_units_written": count(r, "stats.ftl.host_units_written", 0),
        }
    seeds_run = list(range(seed, seed + n_seeds))

    def gains_of(label: str, name: str) -> list[float]:
        """Policy `name`'s gain over the default on each seed (same drive, same stream)."""
        return [
            res[(label, s, name)]["iops"] / res[(label, s, "default")]["iops"] - 1
            for s in seeds_run
        ]

    rows, detail, summary = [], [], {}
    for label, tb, _ in drives:
        gains = gains_of(label, "adaptive")
        m, lo, hi = interval(gains)
        base = statistics.fmean(res[(label, s, "default")]["iops"] for s in seeds_run)
        ad = statistics.fmean(res[(label, s, "adaptive")]["iops"] for s in seeds_run)
        cap = res[(label, seed, "default")]["capacity_bytes"] / 1e12
        sd, sa = SEED[tb]
        summary[label] = {"gain": m, "lo": lo, "hi": hi, "gains": gains}
        rows.append(
            [
                f"{label} ({cap:.2f} TB, {8 * DIES[tb]} dies)",
                f"{base / 1e3:.1f}",
                f"{ad / 1e3:.1f}",
                f"{m * 100:+.1f}% [{lo * 100:+.1f}, {hi * 100:+.1f}]",
                " ".join(f"{g * 100:+.1f}" for g in gains),
                f"{sd:.1f}",
                f"{sa:.1f} ({(sa / sd - 1) * 100:+.1f}%)",
            ]
        )
        for name, _ in POLICIES:
            v = [res[(label, s, name)] for s in seeds_run]

            def avg(k, v=v):
                return statistics.fmean(x[k] for x in v)

            detail.append(
                [
                    label,
                    name,
                    f"{avg('read_lat_mean_us'):.0f}",
                    f"{avg('write_lat_mean_us'):.0f}",
                    f"{avg('write_queue_share') * 100:.0f}%",
                    f"{avg('write_buffer_waits') / max(avg('host_units_written'), 1) * 100:.0f}%",
                    f"{avg('die_util') * 100:.0f}%",
                    f"{avg('waf'):.2f}",
                    f"{avg('suspends'):,.0f}",
                    f"{avg('reads_per_suspend'):.2f}",
                    f"{avg('refused_at_limit'):,.0f}",
                    f"{avg('refused_during_data_in') / avg('reads_run') * 100:.1f}%",
                    f"{avg('reads_behind_data_in') / avg('reads_run') * 100:.1f}%",
                    f"{avg('data_in_wait_us_per_read'):.1f}",
                    f"{avg('suspend_overhead_share') * 100:.1f}%",
                    f"{avg('hold_idle_share') * 100:.1f}%",
                    f"{avg('holds'):,.0f}",
                    f"{avg('hold_read_arrived'):,.0f}",
                    f"{avg('hold_expired'):,.0f}",
                ]
            )
    text = [
        table(
            f"4K random 70/30 QD32 at the sustained condition: KIOPS, mean of {n_seeds} seeds "
            f"({ramp} ramp, {measure} measured)",
            [
                "drive",
                "default",
                "adaptive",
                "gain [95% CI]",
                "gain per seed (%)",
                "seed default",
                "seed adaptive",
            ],
            rows,
        ),
        table(
            "mechanism (means over the seeds; latencies and WAF of the measured window, counts "
            "and shares of the whole run, ramp included; 'writes' QD share': writes' share of "
            "the 32 outstanding commands; 'writes wait for buffer': host writes that found the "
            "write buffer full; 'arrive in data-in' and 'behind a data-in' are shares of host "
            "reads, 'suspend overhead' and 'held idle' of all dies' time)",
            [
                "drive",
                "policy",
                "read mean us",
                "write mean us",
                "writes' QD share",
                "writes wait for buffer",
                "die busy",
                "WAF",
                "suspends",
                "reads/suspend",
                "refused at limit",
                "arrive in data-in",
                "behind a data-in",
                "data-in wait us/read",
                "suspend overhead",
                "held idle",
                "holds",
                "answered",
                "expired",
            ],
            detail,
        ),
    ]
    if len(alphas) > 1:
        arows = []
        for label, _, _ in drives:
            for a in alphas:
                name = adaptive_name(a, alphas)
                m, lo, hi = interval(gains_of(label, name))
                v = [res[(label, s, name)] for s in seeds_run]
                arows.append(
                    [
                        label,
                        a,
                        f"{m * 100:+.2f}% [{lo * 100:+.2f}, {hi * 100:+.2f}]",
                        f"{statistics.fmean(x['holds'] for x in v):,.0f}",
                        f"{statistics.fmean(x['hold_read_arrived'] for x in v):,.0f}",
                        f"{statistics.fmean(x['hold_idle_share'] for x in v) * 100:.2f}%",
                    ]
                )
        text.append(
            table(
                f"adaptive over default by alpha (mean of {n_seeds} seeds, 95% CI)",
                ["drive", "alpha", "gain [95% CI]", "holds", "answered", "held idle"],
                arows,
            )
        )
    bounds = []
    for label, tb, _ in drives:
        d = [res[(label, s, "default")] for s in seeds_run]
        a = [res[(label, s, "adaptive")] for s in seeds_run]
        p_din = statistics.fmean(x["refused_during_data_in"] / max(x["reads_run"], 1) for x in d)
        iops = statistics.fmean(x["iops"] for x in d)
        mean_all_us = 32 / iops * 1e6  # Little's law at QD32
        ceiling = 0.7 * p_din * (DATA_IN_US / 2 + T_SUSPEND_US) / mean_all_us
        die_s = 8 * DIES[tb] * _secs(runtime)
        per_suspend_us = T_SUSPEND_US + T_RESUME_US + LOOP_US / 2
        saved = statistics.fmean(x["hold_read_arrived"] * per_suspend_us * 1e-6 / die_s for x in a)
        idle = statistics.fmean(x["hold_idle_share"] for x in a)
        wq = statistics.fmean(x["write_queue_share"] for x in d)
        bounds.append(
            f"{label}: latency ceiling {ceiling * 100:.1f}% (reads arriving in data-in "
            f"{p_din * 100:.1f}% x (data-in/2 + tSUSPEND = {DATA_IN_US / 2 + T_SUSPEND_US:.0f} us),"
            f" x 0.7 reads, over the {mean_all_us:.0f} us mean latency); die time: answered "
            f"holds save {saved * 100:.2f}% (one suspend each), holds idle {idle * 100:.2f}%; "
            f"writes hold {wq * 100:.0f}% of the queue (a faster read frees its slot for "
            f"the next command, which is a write 30% of the time and waits in the write path)"
        )
    text.append(
        "What the mechanism can give (docs/validation.md, section 2):\n" + "\n".join(bounds)
    )
    checks = []
    names = ["default"] + [adaptive_name(a, alphas) for a in alphas]
    for label, _, _ in drives:
        v = [res[(label, s, name)] for s in seeds_run for name in names]
        dev = max(abs(x["waf"] / x["prep_steady_waf"] - 1) for x in v)
        checks.append(
            f"{label}: measured WAF {min(x['waf'] for x in v):.2f}-{max(x['waf'] for x in v):.2f}"
            f" vs the prepared steady state's {v[0]['prep_steady_waf']:.2f} (at most "
            f"{dev * 100:.0f}% off; steady within {STEADY_WAF_TOLERANCE * 100:.0f}%): "
            + ("steady" if all(x["steady"] for x in v) else "NOT STEADY")
        )
    text.append(f"Steady state ({ramp} ramp left out):\n" + "\n".join(checks))
    unsteady = [
        f"{x['drive']} seed {x['seed']} {x['policy']}" for x in res.values() if not x["steady"]
    ]
    if unsteady:
        text.append(
            "WARNING: measured outside the steady state (lengthen the ramp): " + ", ".join(unsteady)
        )
    if quick:
        text.append(f"quick mode: {n_seeds} seeds, {ramp} ramp, {measure} measured.")
    text.append(
        "Seed 003: +4.9 % (2 TB) and +6.4 % (4 TB). What the counters say about the gap: "
        "docs/validation.md, section 2."
    )
    cols = [
        "drive",
        "capacity_bytes",
        "seed",
        "policy",
        "alpha",
        "iops",
        "read_lat_mean_us",
        "waf",
        "die_util",
        "suspends",
        "reads_per_suspend",
        "refused_at_limit",
        "refused_during_data_in",
        "reads_behind_data_in",
        "data_in_wait_us_per_read",
        "suspend_overhead_share",
        "hold_idle_share",
        "holds",
        "hold_read_arrived",
        "hold_expired",
        "gc_reads_during_holds",
        "loop_redo_share",
        "reads",
        "prep_steady_waf",
        "steady",
        "write_lat_mean_us",
        "write_queue_share",
        "reads_run",
        "write_buffer_waits",
        "host_units_written",
    ]

    def draw(plt):
        fig, ax = plt.subplots(figsize=(7, 4))
        labels = [label for label, _, _ in drives]
        ms = [summary[lb]["gain"] * 100 for lb in labels]
        err = [
            [(summary[lb]["gain"] - summary[lb]["lo"]) * 100 for lb in labels],
            [(summary[lb]["hi"] - summary[lb]["gain"]) * 100 for lb in labels],
        ]
        ax.bar(labels, ms, yerr=err, capsize=6, label="ssdlab (95% CI)")
        ax.plot(labels, [4.9, 6.4], "k*", markersize=12, label="seed 003")
        ax.axhline(0, color="grey", lw=0.8)
        ax.set_ylabel("adaptive program delay gain (%)")
        ax.set_title("4K random 70/30 QD32, sustained")
        ax.legend()
        return fig

    text.append(write_outputs(out_dir, "program-delay", cols, list(res.values()), draw))
    return "\n\n".join(text)


def _secs(t: str) -> float:
    t = t.strip()
    if t.endswith("ms"):
        v = float(t[:-2]) / 1e3
    elif t.endswith("s"):
        v = float(t[:-1])
    else:
        v = float(t)
    return int(v) if v == int(v) else v
