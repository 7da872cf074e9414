"""Seed 000, "HMB Tuning Comparison": the HMB device with the host granting HMPRE (Max),
HMPRE/2 (Half) or HMMIN (Min), over drive states x workloads x NVMe queue counts, at two
densities; Half and Min as % against Max ((X - Max) / Max x 100).

The grant is set with ``hmb.host_policy`` (docs/map-cache.md). The seed's tuning figures
cannot be tied to bars from its OCR'd text (see seed000_data), so the table's seed columns
stay empty until they can.
"""

from __future__ import annotations

from pathlib import Path

from ssdlab import api
from ssdlab.studies import seed000 as s
from ssdlab.studies.common import table, write_csv
from ssdlab.studies.seed000_data import HMB_SIZES, seed_hmb_size_pct

COLUMNS = [
    "density",
    "state",
    "workload",
    "queues",
    "hmb",
    "value",
    "unit",
    "pct_vs_max",
    *s.SETTLE_COLUMNS,
]


def run_study(out_dir: Path, m: s.Matrix) -> str:
    timer = s.Timer()
    device = m.devices[-1]
    # Run order: density, HMB size, state, workload, queues: every point of one (device,
    # density, state) with the same grant is consecutive.
    points, index, keys, grants = [], {}, [], {}
    for density in m.densities:
        dev = s.device_for(device, density)
        # The device's own grant is left unset, so that those points are the very points
        # of hmb-vs-dram's HMB device (same run ids: --reuse finds them).
        own = api.validate(dev)["hmb"]["host_policy"]
        for hmb in HMB_SIZES:
            for state in m.states:
                for wl in m.workloads:
                    for q in m.queues:
                        n = s.queue_count(dev, q)
                        k = (dev, hmb, state, wl, n)
                        if k not in index:
                            index[k] = len(points)
                            extra = {} if hmb == own else {"set": {"hmb.host_policy": hmb}}
                            points.append(s.Point(dev, state, wl, n, extra))
                        keys.append(((density, state, wl, q, hmb), index[k]))
    outcomes = s.run_matrix(points, out_dir, m)
    res, how = {}, {}
    for key, i in keys:
        res[key] = outcomes[i].value(key[2])
        how[key] = outcomes[i]
        grants[(key[0], key[4])] = outcomes[i].row["stats.hmb.granted_bytes"]

    rows = []
    for density in m.densities:
        for state in m.states:
            for wl in m.workloads:
                for q in m.queues:
                    base = res[(density, state, wl, q, "max")]
                    for hmb in HMB_SIZES:
                        v = res[(density, state, wl, q, hmb)]
                        rows.append(
                            {
                                "density": density,
                                "state": state,
                                "workload": wl,
                                "queues": q,
                                "hmb": hmb,
                                "value": round(v, 3),
                                "unit": s.unit_of(wl),
                                "pct_vs_max": round(s.pct(v, base), 3),
                                **how[(density, state, wl, q, hmb)].csv(),
                            }
                        )
    out_dir.mkdir(parents=True, exist_ok=True)
    csv_path = out_dir / "results.csv"
    write_csv(csv_path, COLUMNS, rows)

    text = []
    for density in m.densities:
        dev = s.device_for(device, density)
        for wl in m.workloads:
            body = []
            for state in m.states:
                for q in m.queues:
                    k = (density, state, wl, q)
                    base = res[(*k, "max")]
                    body.append(
                        [
                            state,
                            s.qlabel(q),
                            s.fmt_outcome(base, wl, how[(*k, "max")]),
                            s.fmt_pct(s.pct(res[(*k, "half")], base))
                            + s.mark(how[(*k, "half")], how[(*k, "max")]),
                            s.fmt_pct(s.pct(res[(*k, "min")], base))
                            + s.mark(how[(*k, "min")], how[(*k, "max")]),
                            s.fmt_pct(seed_hmb_size_pct(*k, "half")),
                            s.fmt_pct(seed_hmb_size_pct(*k, "min")),
                        ]
                    )
            text.append(
                table(
                    f"{wl} ({s.unit_of(wl)}), {density} density: {dev}",
                    ["state", "queues", "Max", "Half %", "Min %", "seed Half %", "seed Min %"],
                    body,
                )
            )
        text.append(
            f"{dev}: HMB granted "
            + ", ".join(f"{h} {s.fmt_bytes(grants[(density, h)])}" for h in HMB_SIZES)
        )
    text.append(
        "% = (X - Max) / Max x 100. The seed's HMB tuning labels cannot be tied to bars from its "
        "text (docs/seed000.md), so its columns stay empty."
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


COLORS = {"max": "#1f77b4", "half": "#ff7f0e", "min": "#7f7f7f"}


def _draw(plt, wl: str, m: s.Matrix, res: dict):
    """Per state: Max / Half / Min bars per queue count, Half and Min % on a second axis;
    one performance scale and one % scale (at least +-10 %) for every panel."""
    nd, ns = len(m.densities), len(m.states)
    fig, axes = plt.subplots(nd, ns, figsize=(max(8.0, 4.2 * ns), 1.2 + 3.6 * nd), squeeze=False)
    x = list(range(len(m.queues)))
    legend = {}
    twins = []
    w = 0.27
    for r, density in enumerate(m.densities):
        for c, state in enumerate(m.states):
            ax = axes[r][c]
            ax2 = ax.twinx()
            twins.append(ax2)
            for j, hmb in enumerate(HMB_SIZES):
                vals = [res[(density, state, wl, q, hmb)] for q in m.queues]
                ax.bar([i + (j - 1) * w for i in x], vals, w, color=COLORS[hmb], label=hmb)
                if hmb != "max":
                    base = [res[(density, state, wl, q, "max")] for q in m.queues]
                    ax2.plot(
                        x,
                        [s.pct(v, b) for v, b in zip(vals, base)],
                        marker="o",
                        color=COLORS[hmb],
                        label=f"{hmb} % vs max",
                    )
            ax.set_xticks(x)
            ax.set_xticklabels([s.qlabel(q) for q in m.queues])
            if c == 0:
                ax.set_ylabel(f"Performance ({s.unit_of(wl)})")
            if c == ns - 1:
                ax2.set_ylabel("% vs Max HMB", fontsize=11)
            ax.set_title(f"{density} density, {state}")
            for a in (ax, ax2):
                for h, label in zip(*a.get_legend_handles_labels()):
                    legend.setdefault(label, h)
    s.pct_axes(twins)
    s.slide(fig, list(axes.flat), f"Max / Half / Min HMB, {wl}, by number of queues")
    fig.legend(legend.values(), legend.keys(), fontsize=11, loc="lower center", ncol=len(legend))
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    return fig
