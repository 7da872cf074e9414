"""Probe results as CSV, JSON and plots in the style of seed 002's figures 5, 8 and 10."""

from __future__ import annotations

import json
from pathlib import Path

from ssdlab.cliutil import write_atomically
from ssdlab.studies.common import plot, write_csv

COLUMNS = {
    "read-cache": ["hmb", "size_bytes", "first_ns", "second_ns"],
    "write-buffer": ["hmb", "size_bytes", "first_ns", "second_ns"],
    "map-cache": [
        "hmb",
        "sections",
        "section_bytes",
        "reads",
        "warm_median_ns",
        "warm_mean_ns",
        "cold_median_ns",
        "cold_mean_ns",
    ],
}
LABELS = {
    "read-cache": ("first read", "re-read", "Read size (KB)"),
    "write-buffer": ("write, buffer full", "write after flush", "Write size (KB)"),
}


def write_results(res, out: Path) -> list[Path]:
    """CSV per probe (all HMB settings, column ``hmb``), summary.json/.txt, PNGs."""
    out.mkdir(parents=True, exist_ok=True)
    written = []
    probes = {p for cs in res.curves.values() for p in cs}
    for probe in ("read-cache", "write-buffer", "map-cache"):
        if probe not in probes:
            continue
        rows = [
            {"hmb": setting, **r}
            for setting, cs in res.curves.items()
            if probe in cs
            for r in cs[probe]["rows"]
        ]
        path = out / f"{probe}.csv"
        write_csv(path, COLUMNS[probe], rows)
        written.append(path)
        png = out / f"{probe}.png"
        if plot(png, lambda plt, p=probe: _figure(plt, res, p)):
            written.append(png)
    write_atomically(out / "summary.json", json.dumps(res.to_dict(), indent=2) + "\n")
    write_atomically(out / "summary.txt", res.summary() + "\n")
    written += [out / "summary.json", out / "summary.txt"]
    return written


def _figure(plt, res, probe: str):
    settings = [s for s, cs in res.curves.items() if probe in cs]
    cols = min(3, len(settings))
    rows = -(-len(settings) // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.6 * rows), squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax in flat[len(settings) :]:
        ax.set_visible(False)
    for ax, setting in zip(flat, settings):
        curve = res.curves[setting][probe]
        f = res.findings[setting][probe]
        if probe == "map-cache":
            for row, samples in zip(curve["rows"], curve["samples"]):
                xs = [row["sections"]] * len(samples)
                ax.scatter(xs, [s / 1e3 for s in samples], s=2, color="tab:blue")
            ax.set_xlabel("Number of sections (d)")
        else:
            first, second, xlabel = LABELS[probe]
            xs = [r["size_bytes"] / 1024 for r in curve["rows"]]
            ax.scatter(xs, [r["first_ns"] / 1e3 for r in curve["rows"]], s=3, label=first)
            ax.scatter(xs, [r["second_ns"] / 1e3 for r in curve["rows"]], s=3, label=second)
            ax.set_xlabel(xlabel)
            ax.legend(fontsize=8, markerscale=3)
        if f.found and f.bound == "exact":
            x = f.size if probe == "map-cache" else f.size / 1024
            ax.axvline(x, color="gray", linestyle="--", linewidth=1)
        ax.set_ylabel("Latency (us)")
        ax.set_yscale("log")
        ax.set_title(f"{probe}, HMB {setting}", fontsize=10)
    fig.suptitle(res.target, fontsize=10)
    fig.tight_layout()
    return fig
