"""Issue 17, item 8: docs for people outside the project. Each study is named by its
authors, venue and year (docs/references.md); the README and docs never send a reader
to files they do not have; output files get the user's umask."""

import os
import re
import stat
from pathlib import Path

from ssdlab.cli import main, write_atomically

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def test_references_name_every_seed_by_authors_venue_and_year():
    text = (ROOT / "docs" / "references.md").read_text()
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| (00\d) \|.*$", text, re.M)}
    assert sorted(rows) == ["000", "001", "002", "003", "004"]
    assert "Kyungho Kim, Taeseok Kim" in rows["002"] and "PLoS ONE" in rows["002"]
    assert "2020" in rows["002"] and "NVRAMOS 2019" in rows["003"]
    assert "Flash Memory Summit 2023" in rows["000"]
    for r in rows.values():  # authors or a stated absence, and a venue or a stated absence
        assert "|" in r and r.count("|") == 6


def test_readme_names_studies_not_internal_numbers():
    text = (ROOT / "README.md").read_text()
    assert not re.search(r"\bseed 00\d\b", text), "the README names studies by their authors"
    assert "docs/references.md" in text


def test_docs_do_not_point_at_files_users_do_not_have():
    for p in DOCS:
        text = p.read_text()
        assert "../shared" not in text and "/work/" not in text, p.name
        for link in re.findall(r"\]\(([^)#]+)\)", text):
            if "://" in link:
                continue
            assert (p.parent / link).exists(), f"{p.name}: broken link {link}"


def test_readme_shows_compare_and_plot_commands():
    text = (ROOT / "README.md").read_text()
    assert "--device dram-ssd,hmb-ssd,dramless-ssd" in text
    assert "ssdlab plot lat-cdf" in text and "ssdlab plot sweep" in text
    assert "ssdlab plot timeline" in text and "ssdlab.compare(" in text


def test_output_files_get_the_users_umask(tmp_path):
    old = os.umask(0o022)
    try:
        write_atomically(tmp_path / "a.txt", "x")
        assert stat.S_IMODE((tmp_path / "a.txt").stat().st_mode) == 0o644
        os.umask(0o077)
        write_atomically(tmp_path / "b.txt", "x")
        assert stat.S_IMODE((tmp_path / "b.txt").stat().st_mode) == 0o600
        os.umask(0o002)
        out = tmp_path / "r.json"
        assert main(["run", "--device", "tiny-test", "--number_ios", "100", "-q",
                     "--json", str(out)]) == 0  # fmt: skip
        assert stat.S_IMODE(out.stat().st_mode) == 0o664
    finally:
        os.umask(old)
