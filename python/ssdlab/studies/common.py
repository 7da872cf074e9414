"""Shared output helpers for studies: tables, CSV, plots."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from ssdlab.cli import write_atomically


def kib(n: int) -> str:
    return f"{n // 1024}K" if n < (1 << 20) else f"{n >> 20}M"


def table(title: str, header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    lines = [title]
    for r in [header, *rows]:
        lines.append("  ".join(str(c).rjust(w) for c, w in zip(r, widths)))
    return "\n".join(lines)


def write_csv(path: Path, columns: list[str], rows: list[dict]) -> None:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow(r)
    write_atomically(path, buf.getvalue())


def plot(path: Path, draw) -> bool:
    """Draw with matplotlib if it is installed; returns whether a plot was written."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    fig = draw(plt)
    tmp = path.with_name(f".{path.name}.tmp.png")
    fig.savefig(tmp, dpi=120, bbox_inches="tight")
    plt.close(fig)
    tmp.replace(path)
    return True


def wrote(csv_path: Path, png_path: Path, plotted: bool) -> str:
    """The closing line of a study: which files it wrote."""
    if plotted:
        return f"wrote {csv_path} and {png_path}"
    return f"wrote {csv_path} (no plot: matplotlib not installed)"
