"""Issue 17, item 3: the write-buffer probe finds buffers larger than its default range
(S_MAX = 2 MiB) by extending the range on a simulated drive, and says how to extend it
when it cannot (a real drive, or the knee beyond half of S_BUFFER)."""

import pytest
from ssdlab.probe import WriteBufferParams, analysis, run_probes

K, M = 1 << 10, 1 << 20
# The paper's range (64 KiB .. 2 MiB) in coarser steps, and a smaller filling write.
WRITE = WriteBufferParams(s_min=64 * K, s_max=2 * M, s_inc=32 * K, s_buffer=64 * M)


def device(write_buffer: int) -> dict:
    """A 4 GiB TLC drive (2 channels x 2 dies) with an SRAM write buffer."""
    return {
        "name": "wb-test",
        "host": {"pcie_gen": 3, "pcie_lanes": 4, "io_queues": 8, "queue_entries": 1024},
        "controller": {"cores": 2, "cmd_time": "1us", "write_buffer": f"{write_buffer}B"},
        "sram": {"size": "16MiB"},  # holds the largest buffer probed
        "nand": {
            "channels": 2,
            "dies_per_channel": 2,
            "planes_per_die": 2,
            "blocks_per_plane": 512,
            "pages_per_block": 64,
            "page_size": "16KiB",
            "cell": "TLC",
            "t_read": "50us",
            "t_prog": "600us",
            "t_erase": "3ms",
            "channel_rate": "800MT/s",
        },
        "ftl": {"mapping_unit": "4KiB", "over_provisioning": 0.1},
    }


@pytest.mark.parametrize("size", [3 * M, 4 * M, 6 * M, 12 * M])
def test_buffers_beyond_the_default_range_are_found(size):
    r = run_probes(device(size), ["write-buffer"], write_params=WRITE)
    f = r.findings["default"]["write-buffer"]
    assert f.found and f.bound == "exact", f.describe()
    assert abs(f.size - size) <= 0.05 * size, f.describe()
    assert "S_MAX extended from 2.00 MiB" in f.note
    rows = r.curves["default"]["write-buffer"]["rows"]
    assert rows[-1]["size_bytes"] > size  # the curve shows the knee


def test_a_buffer_inside_the_range_needs_no_extension():
    r = run_probes(device(1 * M), ["write-buffer"], write_params=WRITE)
    f = r.findings["default"]["write-buffer"]
    assert f.found and f.bound == "exact" and abs(f.size - M) <= 0.05 * M, f.describe()
    assert "extended" not in f.note
    assert r.curves["default"]["write-buffer"]["rows"][-1]["size_bytes"] == 2 * M


def test_a_knee_beyond_the_limit_says_how_to_extend():
    # The filling write (16 MiB) fills the 12 MiB buffer, but the range may only grow to
    # half of it (8 MiB): the finding is a lower bound with the flags to try.
    small = WriteBufferParams(s_min=64 * K, s_max=1 * M, s_inc=32 * K, s_buffer=16 * M)
    r = run_probes(device(12 * M), ["write-buffer"], write_params=small)
    f = r.findings["default"]["write-buffer"]
    assert f.bound == "at_least" and f.size == 8 * M, f.describe()
    assert "--s-max 32MiB" in f.note and "--s-buffer" in f.note


def test_knee_on_a_widening_grid_is_the_last_point_on_the_line():
    # Straight line up to 4 MiB, flat saving beyond; steps widen from 32 KiB to 128 KiB.
    xs = list(range(64 * K, 2 * M + 1, 32 * K)) + list(range(2 * M + 128 * K, 8 * M + 1, 128 * K))
    rows = []
    for x in xs:
        second = 1000 + x // 4 if x <= 4 * M else 1000 + x
        first = 1000 + x
        rows.append({"size_bytes": x, "first_ns": first, "second_ns": second})
    f = analysis.buffer_from_savings(rows)
    assert f.found and f.size == 4 * M, f.describe()
