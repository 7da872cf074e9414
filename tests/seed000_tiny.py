"""Tiny stand-ins for the seed000 studies' drives, shared by the study tests: a DRAM and an
HMB variant of tiny-test, and the settle columns the studies' results.csv must end with
(spelt out here, not imported from the module under test: they are a contract)."""

import pytest

HMB_SECTIONS = """
[dram]
size = "0B"

[sram]
size = "2MiB"

[hmb]
hmpre = "16KiB"
hmmin = "4KiB"
host_chunk = "4KiB"

[map]
tier = "hmb"
segment = "512B"
sram_cache = "1KiB"
"""

HMB_VS_DRAM_COLUMNS = [
    *("density", "state", "workload", "queues", "device", "value", "unit", "diff_pct"),
]
SETTLE_COLUMNS = ["settled", "sim_s", "windows", "change_pct", "resolution_pct", "doubling_pct"]


@pytest.fixture
def tiny_pair(tmp_path):
    """A DRAM and an HMB variant of tiny-test (map 24 KiB, HMB 16/8/4 KiB for max/half/min),
    each with a "-1tb" twin for --density high."""
    import ssdlab

    base = ssdlab.preset_toml("tiny-test")
    paths = []
    for name, extra in (("dram", ""), ("hmb", HMB_SECTIONS)):
        for suffix in ("", "-1tb"):
            p = tmp_path / f"{name}{suffix}.toml"
            p.write_text(base.replace('name = "tiny-test"', f'name = "tiny-{name}"') + extra)
            if not suffix:
                paths.append(str(p))
    return paths
