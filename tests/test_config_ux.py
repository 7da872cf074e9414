"""Issue 17, item 7: a config users can write. capacity instead of blocks_per_plane,
presets --show with every default resolved, docs/config.md generated from the Rust
definitions (stale = test failure), and validate's derived ceilings."""

from pathlib import Path

import pytest
import ssdlab
from ssdlab.cli import main
from ssdlab.configdoc import SECTION_ORDER, generate

ROOT = Path(__file__).resolve().parents[1]


def _strip(cfg):
    return {k: v for k, v in cfg.items() if k not in ("warnings", "derived")}


def test_presets_show_prints_every_section_resolved(capsys, tmp_path):
    assert main(["presets", "--show", "hmb-ssd"]) == 0
    tomllib = pytest.importorskip("tomllib")
    text = capsys.readouterr().out
    doc = tomllib.loads(text)
    for sec in SECTION_ORDER:
        assert sec in doc, sec
    # fields the preset file leaves to defaults are shown
    assert "outstanding_fetches" in doc["host"] and "idle_time" in doc["ftl"]
    p = tmp_path / "mine.toml"
    p.write_text(text)
    assert _strip(ssdlab.validate(str(p))) == _strip(ssdlab.validate("hmb-ssd"))


def test_capacity_instead_of_blocks_per_plane(tmp_path, capsys):
    text = ssdlab.preset_toml("client-tlc-dram")
    lines = [ln for ln in text.splitlines() if not ln.startswith("blocks_per_plane")]
    i = lines.index("[nand]")
    lines.insert(i + 1, 'capacity = "1TB"')
    p = tmp_path / "onetb.toml"
    p.write_text("\n".join(lines) + "\n")
    cfg = ssdlab.validate(str(p))
    assert cfg["capacity_bytes"] >= 10**12
    one_less = {"nand.blocks_per_plane": cfg["nand"]["blocks_per_plane"] - 1}
    smaller = ssdlab.validate("client-tlc-dram", set=one_less)
    assert smaller["capacity_bytes"] < 10**12
    assert main(["validate", str(p)]) == 0
    out = capsys.readouterr().out
    assert f"x {cfg['nand']['blocks_per_plane']:,} blocks x" in out
    assert "GB user" in out
    both = tmp_path / "both.toml"
    both.write_text(text.replace("[nand]", '[nand]\ncapacity = "1TB"'))
    assert main(["validate", str(both)]) == 2
    assert "not both" in capsys.readouterr().err


def test_validate_prints_derived_ceilings(capsys):
    assert main(["validate", "hmb-ssd"]) == 0
    out = capsys.readouterr().out
    d = ssdlab.validate("hmb-ssd")["derived"]
    assert f"PCIe {d['pcie_bytes_per_s'] / 1e9:,.2f} GB/s" in out
    assert "channels" in out and "dies read" in out and "program" in out
    assert f"QD1 4 KiB read: about {d['qd1_read_4k_ns_estimate'] / 1e3:,.1f} us" in out
    assert f"map: {d['map_bytes'] / (1 << 30):,.3f} GiB" in out
    assert "HMB preferred 0.062 GiB" in out and "DRAM 0.000 GiB" in out


def test_qd1_estimate_is_close_to_a_simulated_qd1_read():
    d = ssdlab.validate("client-tlc-dram")["derived"]
    r = ssdlab.run("client-tlc-dram", {"rw": "randread", "iodepth": 1, "number_ios": 300})
    mean = r["read"]["lat_ns"]["mean"]
    assert 0.7 * mean <= d["qd1_read_4k_ns_estimate"] <= 1.05 * mean


def test_config_doc_is_generated_and_up_to_date():
    doc = (ROOT / "docs" / "config.md").read_text()
    assert doc == generate(ROOT), (
        "docs/config.md is stale: python -m ssdlab.configdoc > docs/config.md"
    )
    assert "| `t_read` |" in doc and "| `blocks_per_plane` |" in doc
    assert "`pcie_lanes` | count | *required* |" in doc
