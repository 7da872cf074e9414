"""The host's log-structured store on a zoned drive (``host_log``) from Python and the CLI."""

from __future__ import annotations

import json

import pytest
import ssdlab
from ssdlab.cli import main

ZONED = {"zns.zone_size_bytes": "1MiB"}


def two_classes(streams: int) -> dict:
    store = {"streams": streams}
    return {
        "jobs": [
            {"rw": "randwrite", "bs": "16k", "iodepth": 4, "queues": 1, "offset": "0",
             "size": "3MiB", "io_size": "9MiB", "host_log": store},
            {"rw": "randwrite", "bs": "16k", "iodepth": 4, "offset": "3MiB",
             "size": "21MiB", "io_size": "63MiB", "host_log": store},
        ]
    }  # fmt: skip


def test_separate_streams_copy_less_than_one_shared_stream():
    one = ssdlab.run("tiny-test", two_classes(1), set=ZONED, state="fresh").to_dict()
    two = ssdlab.run("tiny-test", two_classes(0), set=ZONED, state="fresh").to_dict()
    h1, h2 = (r["device"]["zns"]["host_log"] for r in (one, two))
    assert h1["streams"] == 1 and h2["streams"] == 2
    assert h1["waf"] > h2["waf"] >= 1.0
    assert h1["gc_reads"] == h1["gc_writes"] > 0
    for r, h in ((one, h1), (two, h2)):
        assert r["write"]["total_ios"] == h["app_writes"] == 72 * 64
        assert r["device"]["zns"]["errors_total"] == 0
        assert len(h["groups"]) == 1 and h["groups"][0]["waf"] == h["waf"]


def test_cli_flag_and_errors(tmp_path, capsys):
    out = tmp_path / "r.json"
    args = ["run", "--device", "tiny-test", "--set", "zns.zone_size_bytes=1MiB",
            "--state", "fresh", "--rw", "randwrite", "--bs", "16k", "--size", "24MiB",
            "--io_size", "48MiB", "-q", "--json", str(out)]  # fmt: skip
    assert main([*args, "--host_log"]) == 0
    h = json.loads(out.read_text())["device"]["zns"]["host_log"]
    assert (h["streams"], h["gc_free_zones"], h["extent_bytes"]) == (1, 2, 16384)
    assert main([*args, "--host_log", "1:3"]) == 0
    assert json.loads(out.read_text())["device"]["zns"]["host_log"]["gc_free_zones"] == 3
    capsys.readouterr()
    assert main([*args, "--host_log", "x"]) == 2
    err = capsys.readouterr().err
    assert "--host_log: 'x' is not STREAMS[:GC_FREE_ZONES[:BG_FREE_ZONES]]" in err
    assert main([*args[:3], *args[5:], "--host_log"]) == 2  # tiny-test is not zoned
    assert "host_log: needs a zoned drive" in capsys.readouterr().err


@pytest.mark.parametrize("bad", [{"streams": -1}, {"gc_free": 2}])
def test_bad_tables_are_refused(bad):
    w = {"rw": "write", "bs": "16k", "size": "4MiB", "host_log": bad}
    with pytest.raises(ssdlab.ConfigError, match="host_log"):
        ssdlab.run("tiny-test", w, set=ZONED, state="fresh")


def test_background_collection_trades_write_amplification_for_tail_latency(tmp_path):
    """bg_free_zones: collections start earlier and the writers go on: no waits and a
    shorter tail, for more copying (victims collected with more valid data)."""
    def run(bg: int) -> tuple[dict, dict]:
        w = two_classes(0)
        for j in w["jobs"]:
            j["host_log"] = {"streams": 0, "bg_free_zones": bg}
        r = ssdlab.run("tiny-test", w, set=ZONED, state="fresh").to_dict()
        return r, r["device"]["zns"]["host_log"]

    (r0, fg), (r4, bg) = run(0), run(4)
    assert (fg["bg_free_zones"], bg["bg_free_zones"]) == (0, 4)
    assert fg["background_victims"] == 0 and fg["waits"] > 0
    assert bg["background_victims"] == bg["victims"] > fg["victims"]
    assert bg["waits"] == 0
    assert bg["waf"] > fg["waf"]
    p99 = [r["write"]["clat_ns"]["percentile"]["99.000000"] for r in (r0, r4)]
    assert p99[1] < p99[0], p99
    for r in (r0, r4):
        assert r["device"]["zns"]["errors_total"] == 0
    out = tmp_path / "r.json"
    args = ["run", "--device", "tiny-test", "--set", "zns.zone_size_bytes=1MiB",
            "--state", "fresh", "--rw", "randwrite", "--bs", "16k", "--size", "24MiB",
            "--io_size", "48MiB", "-q", "--json", str(out), "--host_log", "1:2:4"]  # fmt: skip
    assert main(args) == 0
    h = json.loads(out.read_text())["device"]["zns"]["host_log"]
    assert (h["gc_free_zones"], h["bg_free_zones"]) == (2, 4)
    with pytest.raises(ssdlab.ConfigError, match="bg_free_zones: 2"):
        w = {"rw": "write", "bs": "16k", "size": "4MiB",
             "host_log": {"gc_free_zones": 2, "bg_free_zones": 2}}  # fmt: skip
        ssdlab.run("tiny-test", w, set=ZONED, state="fresh")
