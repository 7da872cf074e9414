"""Seed 000, "HMB vs DRAM Comparison": device A (DRAM) against device B (HMB) over drive
states x workloads x NVMe queue counts, at two densities, with the seed's % Diff beside ours.

% Diff = (DRAM - HMB) / HMB x 100, as the seed prints it: positive when the DRAM device is
faster. It is written on both rows of a pair in results.csv. The seed's figures come from
seed000_data (high density: the seed's main slides); nothing here is fitted to them.
"""

from __future__ import annotations

from pathlib import Path

from ssdlab.studies import seed000 as s
from ssdlab.studies.common import table, write_csv
from ssdlab.studies.seed000_data import seed_diff

COLUMNS = [
    "density",
    "state",
    "workload",
    "queues",
    "device",
    "value",
    "unit",
    "diff_pct",
    *s.SETTLE_COLUMNS,
]
ROLES = ("dram", "hmb")


def run_study(out_dir: Path, m: s.Matrix) -> str:
    timer = s.Timer()
    dram, hmb = m.devices
    # Points in run order: density, device, state, workload, queues, so that every point of
    # one (device, density, state) is consecutive. Identical points (e.g. 8 and max on a
    # device with 8 queues) run once.
    points, index, keys = [], {}, []
    for density in m.densities:
        devs = {role: s.device_for(d, density) for role, d in zip(ROLES, (dram, hmb))}
        for role in ROLES:
            dev = devs[role]
            for state in m.states:
                for wl in m.workloads:
                    for q in m.queues:
                        n = s.queue_count(dev, q)
                        k = (dev, state, wl, n)
                        if k not in index:
                            index[k] = len(points)
                            points.append(s.Point(dev, state, wl, n))
                        keys.append(((density, state, wl, q, role), dev, index[k]))
    outcomes = s.run_matrix(points, out_dir, m)
    res, names, how = {}, {}, {}
    for key, dev, i in keys:
        res[key] = outcomes[i].value(key[2])
        names[key] = dev
        how[key] = outcomes[i]

    rows = []
    for density in m.densities:
        for state in m.states:
            for wl in m.workloads:
                for q in m.queues:
                    k = (density, state, wl, q)
                    d = s.pct(res[(*k, "dram")], res[(*k, "hmb")])
                    for role in ROLES:
                        rows.append(
                            {
                                "density": density,
                                "state": state,
                                "workload": wl,
                                "queues": q,
                                "device": names[(*k, role)],
                                "value": round(res[(*k, role)], 3),
                                "unit": s.unit_of(wl),
                                "diff_pct": round(d, 3),
                                **how[(*k, role)].csv(),
                            }
                        )
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = out_dir / "results.csv"
    write_csv(csv_path, COLUMNS, rows)

    text, seeded = [], 0
    for density in m.densities:
        for wl in m.workloads:
            body = []
            for state in m.states:
                for q in m.queues:
                    k = (density, state, wl, q)
                    sd = seed_diff(*k)
                    seeded += sd is not None
                    body.append(
                        [
                            state,
                            s.qlabel(q),
                            s.fmt_outcome(res[(*k, "hmb")], wl, how[(*k, "hmb")]),
                            s.fmt_outcome(res[(*k, "dram")], wl, how[(*k, "dram")]),
                            s.fmt_pct(s.pct(res[(*k, "dram")], res[(*k, "hmb")]))
                            + s.mark(how[(*k, "dram")], how[(*k, "hmb")]),
                            s.fmt_pct(sd),
                        ]
                    )
            devs = f"{s.device_for(dram, density)} vs {s.device_for(hmb, density)}"
            text.append(
                table(
                    f"{wl} ({s.unit_of(wl)}), {density} density: {devs}",
                    ["state", "queues", "HMB", "DRAM", "ssdlab % diff", "seed % diff"],
                    body,
                )
            )
    text.append(
        "% diff = (DRAM - HMB) / HMB x 100. The seed's figures are for its high density (its "
        f"main slides); {seeded} of the points above have one."
        + ("" if "high" in m.densities else " Run with --density high to compare them.")
    )
    text.append(s.ios_line(m))
    reused = s.reuse_line(m)
    if reused:
        text.append(reused)
    settle = s.settle_line(outcomes, points)
    if settle:
        text.append(settle)
    text.append(s.write_plots(out_dir, csv_path, m, lambda plt, wl: _draw(plt, wl, m, res)))
    text.append(timer.line())
    return "\n\n".join(text)


def _draw(plt, wl: str, m: s.Matrix, res: dict):
    """Seed-style figure: per state, HMB and DRAM bars per queue count, % diff on a second
    axis (ssdlab's line, the seed's markers). Sized for a slide: one performance scale and
    one % scale (at least +-10 %) for every panel, the study named by authors and venue."""
    nd, ns = len(m.densities), len(m.states)
    fig, axes = plt.subplots(nd, ns, figsize=(max(8.0, 4.2 * ns), 1.2 + 3.6 * nd), squeeze=False)
    x = list(range(len(m.queues)))
    legend = {}
    twins = []
    w = 0.38
    for r, density in enumerate(m.densities):
        for c, state in enumerate(m.states):
            ax = axes[r][c]
            ks = [(density, state, wl, q) for q in m.queues]
            hmb = [res[(*k, "hmb")] for k in ks]
            dram = [res[(*k, "dram")] for k in ks]
            ax.bar([i - w / 2 for i in x], hmb, w, label="HMB", color="#7f7f7f")
            ax.bar([i + w / 2 for i in x], dram, w, label="DRAM", color="#1f77b4")
            ax.set_xticks(x)
            ax.set_xticklabels([s.qlabel(q) for q in m.queues])
            if c == 0:
                ax.set_ylabel(f"Performance ({s.unit_of(wl)})")
            ax.set_title(f"{density} density, {state}")
            ax2 = ax.twinx()
            twins.append(ax2)
            diffs = [s.pct(d, h) for d, h in zip(dram, hmb)]
            ax2.plot(x, diffs, color="#d62728", marker="o", label="ssdlab % diff")
            for i, v in zip(x, diffs):
                ax2.annotate(f"{v:.1f}%", (i, v), fontsize=8, ha="center", va="bottom")
            seeds = [(i, seed_diff(*k)) for i, k in enumerate(ks)]
            seeds = [(i, v) for i, v in seeds if v is not None]
            if seeds:
                ax2.plot(
                    [i for i, _ in seeds],
                    [v for _, v in seeds],
                    linestyle="none",
                    marker="x",
                    markersize=8,
                    color="#2ca02c",
                    label="seed % diff",
                )
            if c == ns - 1:
                ax2.set_ylabel("% diff (DRAM over HMB)", fontsize=11)
            for a in (ax, ax2):
                for h, label in zip(*a.get_legend_handles_labels()):
                    legend.setdefault(label, h)
    s.pct_axes(twins)
    s.slide(fig, list(axes.flat), f"HMB vs DRAM, {wl}, by number of queues")
    fig.legend(legend.values(), legend.keys(), fontsize=11, loc="lower center", ncol=len(legend))
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig
