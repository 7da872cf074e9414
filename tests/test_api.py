"""The Python API: run, run_many, presets, validate, Report."""

import json

import pytest
import ssdlab


def test_presets_include_the_contract_names():
    names = ssdlab.presets()
    for name in ("client-tlc-dram", "mqsim-default", "tiny-test"):
        assert names.get(name)


def test_run_returns_fio_named_keys(small_workload):
    r = ssdlab.run("tiny-test", small_workload, seed=3)
    d = r.to_dict()
    read = d["read"]
    assert read["total_ios"] == 2000
    assert read["io_bytes"] == 2000 * 4096
    for key in ("iops", "bw_bytes", "io_bytes", "total_ios", "lat_ns"):
        assert key in read
    lat = read["lat_ns"]
    assert lat["min"] <= lat["mean"] <= lat["max"]
    assert (
        lat["min"] <= lat["percentile"]["50.000000"] <= lat["percentile"]["99.000000"] <= lat["max"]
    )
    for key in ("sim_time_ns", "wall_time_s", "events", "device", "seed", "ssdlab_version"):
        assert key in d
    assert d["seed"] == 3
    # IOPS is I/Os over the measured time (runtime is fio's, in whole milliseconds).
    assert abs(2000 / read["iops"] * 1e3 - read["runtime"]) <= 0.5
    assert r.iops == pytest.approx(read["iops"])


def test_same_seed_same_report(small_workload):
    a = ssdlab.run("tiny-test", small_workload, seed=7).to_dict()
    b = ssdlab.run("tiny-test", small_workload, seed=7).to_dict()
    c = ssdlab.run("tiny-test", small_workload, seed=8).to_dict()
    for d in (a, b, c):
        for k in ("wall_time_s", "prep_wall_time_s", "sim_wall_time_s"):
            d.pop(k, None)
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)
    assert a["read"]["lat_ns"] != c["read"]["lat_ns"]


def test_device_as_dict_and_toml_path(tmp_path, small_workload):
    text = ssdlab.preset_toml("tiny-test")
    p = tmp_path / "mine.toml"
    p.write_text(text.replace('name = "tiny-test"', 'name = "mine"'))
    from_file = ssdlab.run(str(p), small_workload)
    assert from_file["config"]["name"] == "mine"
    as_dict = ssdlab.validate(str(p))
    as_dict["name"] = "dict-device"
    as_dict.pop("capacity_bytes")
    as_dict.pop("raw_bytes")
    as_dict.pop("warnings")
    as_dict.pop("derived")
    from_dict = ssdlab.run(as_dict, small_workload)
    assert from_dict["config"]["name"] == "dict-device"
    assert from_dict["read"]["lat_ns"] == from_file["read"]["lat_ns"]


def test_set_overrides_change_the_model(small_workload):
    wl = dict(small_workload, iodepth=1, number_ios=200)
    base = ssdlab.run("tiny-test", wl)
    slower = ssdlab.run("tiny-test", wl, set={"nand.t_read": "200us"})
    assert slower["config"]["nand"]["t_read"] in ("200us", ["200us"], "200µs") or slower["read"]
    assert slower["read"]["lat_ns"]["mean"] > base["read"]["lat_ns"]["mean"] + 100_000


def test_run_many_keeps_order_and_matches_run(small_workload):
    runs = [
        {"device": "tiny-test", "workload": dict(small_workload, iodepth=d)} for d in (1, 4, 16)
    ]
    reports = ssdlab.run_many(runs)
    assert [r["workload"]["iodepth"] for r in reports] == [1, 4, 16]
    single = ssdlab.run("tiny-test", dict(small_workload, iodepth=4))
    assert reports[1]["read"]["lat_ns"] == single["read"]["lat_ns"]
    # More outstanding I/Os, more throughput on an idle drive with parallel dies.
    assert reports[0].iops < reports[1].iops < reports[2].iops


def test_states_prepare_the_drive():
    wl = {"rw": "randwrite", "iodepth": 16, "number_ios": 3000}
    fresh = ssdlab.run("tiny-test", wl, state="fresh")
    steady = ssdlab.run("tiny-test", wl, state="steady")
    assert fresh.waf < steady.waf
    assert steady["device"]["ftl"]["gc_victims"] > 0


def test_measured_window_leaves_out_the_ramp():
    wl = {"rw": "randwrite", "iodepth": 8, "number_ios": 6000, "ramp_time": "100ms"}
    r = ssdlab.run("tiny-test", wl, state="steady")
    m = r["device"]["ftl"]["measured"]
    assert m["from_ns"] == 100_000_000
    assert 0 < m["host_units_written"] < r["device"]["ftl"]["host_units_written"]
    assert r.measured_waf == m["waf"] > 1
    assert "(after ramp" in r.summary()
    assert r["device"]["ftl"]["gc_pacing"] == "paced"
    # Without a ramp the window is the whole run.
    r = ssdlab.run("tiny-test", dict(wl, ramp_time="0s"), state="steady")
    assert r.measured_waf == r.waf
    assert "(after ramp" not in r.summary()


def test_verify_oracle_through_gc():
    r = ssdlab.run(
        "tiny-test",
        {"rw": "randrw", "iodepth": 16, "number_ios": 20000},
        state="steady",
        verify=True,
    )
    oracle = r["device"]["oracle"]
    assert oracle["checked"] > 0
    assert oracle["mismatches"] == 0


def test_named_workload():
    r = ssdlab.run("tiny-test", "rand-read-4k-t1-qd32", set={})
    assert r["workload"]["iodepth"] == 32
    with pytest.raises(ssdlab.ConfigError, match="not a named workload"):
        ssdlab.run("tiny-test", "no-such-workload")


def test_summary_and_pandas(small_workload):
    r = ssdlab.run("tiny-test", small_workload)
    s = r.summary()
    assert "IOPS=" in s and "p99=" in s and "WAF=" in s
    rows = r.rows()
    assert rows[0]["job"] == "all" and rows[0]["direction"] == "read"
    pd = pytest.importorskip("pandas")
    df = r.to_pandas()
    assert isinstance(df, pd.DataFrame)
    assert set(df["direction"]) == {"read"}


def test_memory_presets_and_hmb_policy():
    names = ssdlab.presets()
    for name in ("dram-ssd", "hmb-ssd", "dramless-ssd", "emmc-32g"):
        assert name in names
    wl = {"rw": "randread", "iodepth": 8, "number_ios": 2000, "size": "1GiB"}
    mib = 1 << 20
    for policy, granted in (("max", 64), ("half", 32), ("min", 16), ("off", 0)):
        r = ssdlab.run("hmb-ssd", wl, set={"hmb.host_policy": policy})
        assert r["device"]["hmb"]["granted_bytes"] == granted * mib
    r = ssdlab.run("dramless-ssd", dict(wl, size="8GiB"))
    m = r["device"]["map"]
    assert m["lookups"] == 2000 and 0.05 < m["hit_rate"] < 0.25
    assert ssdlab.run("dram-ssd", wl)["device"]["map"]["hit_rate"] == 1.0


def test_hmb_read_cache_and_write_buffer_follow_the_grant():
    """Data in the HMB only while the host grants room for it; the map gets the rest."""
    mib = 1 << 20
    uses = {
        "read_cache.size": "16MiB",
        "read_cache.tier": "hmb",
        "controller.write_buffer_tier": "hmb",
    }
    wl = {"rw": "read", "bs": "4k", "iodepth": 1, "size": "64KiB", "number_ios": 48}
    r = ssdlab.run("hmb-ssd", wl, state="full", set=uses)
    dev = r["device"]
    assert dev["hmb"]["layout"] == {
        "granted_bytes": 64 * mib,
        "write_buffer_bytes": 4 * mib,
        "read_cache_bytes": 16 * mib,
        "journal_bytes": 0,
        "map_bytes": 44 * mib,
    }
    assert dev["read_cache"]["hits"] == 32 and dev["read_cache"]["tier"] == "hmb"
    assert dev["hmb"]["read_cache_bytes"] == 48 * 4096
    assert "read cache (hmb, 16.8 MB)" in r.summary()
    off = ssdlab.run("hmb-ssd", wl, state="full", set=dict(uses, **{"hmb.host_policy": "off"}))
    assert off["device"]["read_cache"] == {"enabled": False}
    assert off["device"]["write_buffer"]["tier"] == "sram"
    assert off.iops < r.iops


def test_bad_read_cache_is_a_config_error():
    with pytest.raises(ssdlab.ConfigError, match=r"read_cache\.size: .* larger than its tier"):
        ssdlab.run("dramless-ssd", {"number_ios": 10}, set={"read_cache.size": "64MiB"})


def test_queues_keyword_sets_the_workload_option(small_workload):
    wl = dict(small_workload, queue_policy="round-robin")
    r = ssdlab.run("tiny-test", wl, queues=2, state="aging", set={"controller.cores": 2})
    assert r["workload"]["queues"] == 2
    same = ssdlab.run("tiny-test", dict(wl, queues=2), state="aging", set={"controller.cores": 2})
    assert r["read"]["iops"] == same["read"]["iops"]
    # A named workload takes it too, and run_many passes it through.
    named = ssdlab.run("tiny-test", "rand-read-4k-t1-qd32", queues=4, set={"host.io_queues": 8})
    assert named["workload"]["queues"] == 4
    (many,) = ssdlab.run_many(
        [
            {
                "device": "tiny-test",
                "workload": wl,
                "queues": 2,
                "state": "aging",
                "set": {"controller.cores": 2},
            }
        ]
    )
    assert many["read"]["iops"] == r["read"]["iops"]
    for bad in (0, -1, "4", 2.5, True):
        with pytest.raises(ssdlab.ConfigError, match="queues"):
            ssdlab.run("tiny-test", wl, queues=bad)
    # Round-robin over two queues reaches the second firmware core (queue i -> core i mod 2).
    slow = {"controller.cmd_time": "20us"}
    one = ssdlab.run("tiny-test", wl, queues=1, set=slow)["read"]["iops"]
    two = ssdlab.run("tiny-test", wl, queues=2, set=slow)["read"]["iops"]
    assert one < 52_000 < 60_000 < two


def test_reuse_prep_gives_the_same_report():
    import ssdlab

    wl = {"rw": "randwrite", "bs": "4KiB", "iodepth": 8, "number_ios": 3000}
    fresh = ssdlab.run("tiny-test", wl, state="steady", seed=4).to_dict()
    try:
        first = ssdlab.run("tiny-test", wl, state="steady", seed=4, reuse_prep=True).to_dict()
        again = ssdlab.run("tiny-test", wl, state="steady", seed=4, reuse_prep=True).to_dict()
        other = ssdlab.run("tiny-test", wl, state="steady", seed=5, reuse_prep=True).to_dict()
    finally:
        ssdlab.clear_prepared()
    timing = {"wall_time_s", "prep_wall_time_s", "sim_wall_time_s"}

    def same(a, b):
        return {k: v for k, v in a.items() if k not in timing} == {
            k: v for k, v in b.items() if k not in timing
        }

    assert same(fresh, first) and same(fresh, again)
    # Another seed is another prepared drive, not the cached one.
    assert not same(fresh, other)


@pytest.mark.parametrize("value", [2**64, 2**200, -1, "4096", 4096.0, True])
def test_core_byte_counts_beyond_64_bits_are_config_errors(value):
    # Issue 31: _core.Session.max_io_bytes and _core.run(max_memory=) raised
    # OverflowError (or TypeError) for a Python int of 2^64 or more.
    from ssdlab import _core

    s = _core.Session("preset", "tiny-test", "tiny-test", [], "fresh", 1)
    allowed = r"is not allowed \(a number of bytes from 0 to 2\^64-1\)"
    with pytest.raises(ssdlab.ConfigError, match=r"max_io_bytes: .* " + allowed):
        s.max_io_bytes = value
    s.max_io_bytes = 8192  # still usable
    assert s.max_io_bytes == 8192
    with pytest.raises(ssdlab.ConfigError, match=r"max_memory: .* is not allowed"):
        _core.run("preset", "tiny-test", "tiny-test", [], '{"number_ios": 10}', [], "fresh", 1,
                  max_memory=value)  # fmt: skip


def test_core_max_io_bytes_not_a_multiple_of_512_is_a_config_error():
    from ssdlab import _core

    s = _core.Session("preset", "tiny-test", "tiny-test", [], "fresh", 1)
    with pytest.raises(ssdlab.ConfigError, match="max_io_bytes: 1000 must be a positive multiple"):
        s.max_io_bytes = 1000
