"""Issue 17, item 6: summaries that explain: map hit rate and HMB grant, SLC folding,
GC moves, WAF=n/a without writes, a timed replay's latency split into host queueing and
device time, a warning when a closed-loop replay compresses hours into seconds, and
device counters in to_pandas()."""

import ssdlab

READS = {"rw": "randread", "bs": "4KiB", "iodepth": 8, "number_ios": 1500}
WRITES = {"rw": "randwrite", "bs": "4KiB", "iodepth": 8, "number_ios": 3000}


def test_reads_only_say_waf_na_and_show_the_map_and_hmb():
    r = ssdlab.run("hmb-ssd", READS)
    text = r.summary()
    assert "WAF=n/a" in text
    hit = r["device"]["map"]["hit_rate"]
    assert f"hit rate={hit:.1%}" in text
    assert "HMB granted=64 MiB of 64 MiB preferred" in text
    text = ssdlab.run("dram-ssd", READS).summary()
    assert "whole map in dram" in text and "no HMB" in text and "HMB granted" not in text


def test_writes_show_waf_gc_moves_and_slc_folding():
    r = ssdlab.run("tiny-test", WRITES)
    ftl = r["device"]["ftl"]
    text = r.summary()
    assert f"WAF={ftl['waf']:.2f}" in text
    assert ftl["gc_units_copied"] > 0
    assert f"gc: moved {ftl['gc_units_copied']:,} units from {ftl['gc_victims']:,}" in text
    r = ssdlab.run("hmb-ssd", WRITES, state="fresh")
    slc = r["device"]["slc"]
    assert slc["enabled"]
    text = r.summary()
    assert f"slc: {slc['host_units_to_slc']:,} host units to SLC" in text
    assert f"folded {slc['units_folded']:,} units" in text


def test_to_pandas_carries_device_counters():
    r = ssdlab.run("tiny-test", WRITES)
    df = r.to_pandas()
    assert (df["waf"] == r.waf).all()
    assert (df["gc_units_copied"] == r["device"]["ftl"]["gc_units_copied"]).all()
    assert df["hmb_granted_bytes"].isna().all()
    assert ssdlab.run("tiny-test", READS).to_pandas()["waf"].isna().all()


def _msr(path, n, step_ticks):
    # MSR Cambridge: Timestamp (100 ns ticks), Hostname, Disk, Type, Offset, Size, Response
    path.write_text(
        "".join(
            f"{128166372000000000 + i * step_ticks},h,0,Read,{(i * 7919 % 2000) * 4096},4096,10\n"
            for i in range(n)
        )
    )
    return path


def test_timed_replay_splits_latency(tmp_path):
    t = _msr(tmp_path / "t.csv", 400, 2_000)  # one request every 200 us
    r = ssdlab.replay(str(t), "tiny-test", mode="timed")
    s = r["read"]
    text = r.summary()
    q, dev = s["slat_ns"]["mean"] / 1e3, s["clat_ns"]["mean"] / 1e3
    assert f"read latency: host queueing {q:,.1f} us + device {dev:,.1f} us" in text
    assert "compressed" not in text


def test_closed_loop_replay_warns_when_it_compresses_hours(tmp_path):
    t = _msr(tmp_path / "t.csv", 400, 180_000_000)  # one request every 18 s: 2 hours
    text = ssdlab.replay(str(t), "tiny-test", mode="closed", iodepth=4).summary()
    assert "warning: the closed-loop replay compressed 2.0 h of arrivals" in text
    assert "--mode timed" in text
    short = _msr(tmp_path / "s.csv", 400, 20)  # 0.8 ms of arrivals
    assert "compressed" not in ssdlab.replay(str(short), "tiny-test").summary()
