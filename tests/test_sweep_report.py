"""``ssdlab sweep report``: a self-contained page whose plots render in headless Chromium."""

import re
import shutil
import subprocess

import pytest

pytest.importorskip("pyarrow")
pytest.importorskip("pandas")

import ssdlab
from ssdlab.cli import main

GRID = {
    "base": {"device": "tiny-test", "workload": {"rw": "randread", "number_ios": 1000}},
    "axes": {"workload.iodepth": [1, 4, 16], "set.nand.t_read": ["40us", "80us"]},
}
# The first two series colours of the page's plots.
SERIES = [(0x1F, 0x77, 0xB4), (0xD6, 0x27, 0x28)]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep")
    ssdlab.sweep(GRID, out=out)
    assert main(["sweep", "report", str(out), "-q"]) == 0
    return out / "report.html"


def test_report_is_self_contained(report):
    text = report.read_text()
    # Nothing fetched: no external scripts, styles, images or fonts.
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", text)
    assert "@import" not in text and "url(" not in text
    assert '"axes":["set.nand.t_read","workload.iodepth"]' in text
    assert "read_iops" in text and "stats.ftl.waf" in text  # device counters are metrics


def _chromium():
    return shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(not _chromium(), reason="chromium is not installed (apt-get install chromium)")
def test_report_renders_plots_in_headless_chromium(report, tmp_path):
    image = pytest.importorskip("PIL.Image")
    shot = tmp_path / "shot.png"
    subprocess.run(
        [
            _chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1200,1400",
            f"--screenshot={shot}",
            report.as_uri(),
        ],
        check=True,
        capture_output=True,
        timeout=120,
    )
    histogram = dict((c, n) for n, c in image.open(shot).convert("RGB").getcolors(1 << 24))
    counts = [histogram.get(colour, 0) for colour in SERIES]
    # Dots and mean lines of both t_read series, drawn by the page's script: a page
    # whose script failed shows none of these colours.
    assert all(n > 500 for n in counts), counts


@pytest.mark.skipif(not _chromium(), reason="chromium is not installed (apt-get install chromium)")
def test_report_reads_at_a_glance(tmp_path):
    """Issue 29, item 6: units in labels, axis values in their natural order (times by
    size, not as text), legends beside the plot area, the runs table sorted by the axes,
    plots wide enough to read (the page as Chromium renders it)."""
    out = tmp_path / "sw"
    ssdlab.sweep({"base": GRID["base"], "axes": {"workload.iodepth": [16, 1],
                  "set.nand.t_read": ["80us", "1ms", "40us"]}}, out=out)  # fmt: skip
    assert main(["sweep", "report", str(out), "-q"]) == 0
    dom = subprocess.run(
        [_chromium(), "--headless", "--no-sandbox", "--disable-gpu",
         f"--user-data-dir={tmp_path / 'profile'}", "--dump-dom",
         (out / "report.html").as_uri()],
        check=True, capture_output=True, text=True, timeout=120,
    ).stdout  # fmt: skip
    # filters and x axes in natural order
    t_read = re.search(r"<legend[^>]*>t_read</legend>(.*?)</fieldset>", dom, re.S).group(1)
    assert re.findall(r"> (\w+)</label>", t_read) == ["40us", "80us", "1ms"]
    # titles and axis labels carry units
    assert "read IOPS vs t_read" in dom and "read p99 latency (µs) vs iodepth" in dom
    assert "read MB/s" in dom
    # plots wide enough; legend entries right of the plot area (x beyond W - R)
    widths = [int(w) for w in re.findall(r'<svg width="(\d+)"', dom)]
    assert widths and min(widths) >= 480
    legend_x = [float(x) for x in re.findall(r'<text x="([\d.]+)" y="[\d.]+" font-size="11" '
                                             r'fill="#222">', dom)]  # fmt: skip
    assert legend_x and all(x > 600 - 130 for x in legend_x)
    # the runs table sorted by the axes (t_read, then iodepth)
    table = dom[dom.index('<table id="table">'):]
    first = re.findall(r"<tr class=\"\">(.*?)</tr>", table)[:3]
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", r)[1:3] for r in first]
    assert cells == [["40us", "1"], ["40us", "16"], ["80us", "1"]]
