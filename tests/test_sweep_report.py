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
