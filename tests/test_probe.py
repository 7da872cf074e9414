"""Seed 002's probes on simulated devices whose read cache, write buffer and map cache
are known from their config: the probes (which see only timings) must recover each size
within ±10 % and say which structure lives in the HMB. The config is read here, by the
test, never by the probe."""

import json

import pytest
import ssdlab
from ssdlab.cli import main
from ssdlab.probe import (
    MapCacheParams,
    ProbeError,
    ReadCacheParams,
    WriteBufferParams,
    analysis,
    run_probes,
)

K, M = 1 << 10, 1 << 20
READ = ReadCacheParams(s_min=8 * K, s_max=1024 * K, s_inc=8 * K, s_cache=8 * M)
WRITE = WriteBufferParams(s_min=64 * K, s_max=2048 * K, s_inc=32 * K, s_buffer=8 * M)
MAP = MapCacheParams(d_min=32, d_max=800, d_inc=32)


def device(
    read_cache=0, rc_tier="sram", write_buffer=512 * K, wb_tier="sram", hmb=0, map_in_hmb=False
):
    """A 4 GiB TLC drive (2 channels x 2 dies) with the structures asked for."""
    d = {
        "name": "probe-test",
        "host": {"pcie_gen": 3, "pcie_lanes": 4, "io_queues": 8, "queue_entries": 1024},
        "controller": {
            "cores": 2,
            "cmd_time": "1us",
            "map_lookup": "100ns",
            "write_buffer": f"{write_buffer}B",
            "write_buffer_tier": wb_tier,
        },
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
            "channel_width_bits": 8,
        },
        "ftl": {"mapping_unit": "4KiB", "over_provisioning": 0.1},
    }
    if read_cache:
        d["read_cache"] = {"size": f"{read_cache}B", "tier": rc_tier}
    if hmb:
        d["hmb"] = {"hmpre": f"{hmb}B", "hmmin": f"{hmb // 4}B", "host_policy": "max"}
    if map_in_hmb:
        d["dram"] = {"size": "0B"}
        d["sram"] = {"size": "2MiB"}
        d["map"] = {"tier": "hmb", "segment": "4KiB", "sram_cache": "16KiB"}
    return d


def within(found, true, tol=0.10):
    return found is not None and abs(found - true) <= tol * true


@pytest.mark.parametrize("size", [64 * K, 128 * K, 192 * K])
def test_read_cache_size_is_recovered(size):
    r = run_probes(device(read_cache=size), ["read-cache"], read_params=READ)
    f = r.findings["default"]["read-cache"]
    assert f.found and f.bound == "exact" and within(f.size, size), f.describe()


def test_large_read_cache_is_an_upper_bound():
    # 512 KiB takes longer to send over the link than one flash read: a few misses
    # hide behind it and the knee comes late; the probe says so.
    r = run_probes(device(read_cache=512 * K), ["read-cache"], read_params=READ)
    f = r.findings["default"]["read-cache"]
    assert f.found and f.bound == "at_most" and 512 * K <= f.size <= 1.4 * 512 * K


def test_no_read_cache_reports_none():
    r = run_probes(device(), ["read-cache"], read_params=READ)
    f = r.findings["default"]["read-cache"]
    assert not f.found, f.describe()


@pytest.mark.parametrize("size", [256 * K, 512 * K, 1 * M, 1536 * K])
def test_write_buffer_size_is_recovered(size):
    r = run_probes(device(write_buffer=size), ["write-buffer"], write_params=WRITE)
    f = r.findings["default"]["write-buffer"]
    assert f.found and f.bound == "exact" and within(f.size, size), f.describe()


def test_hmb_read_cache_and_write_buffer_are_attributed_to_the_hmb():
    dev = device(read_cache=64 * K, rc_tier="hmb", write_buffer=768 * K, wb_tier="hmb", hmb=4 * M)
    r = run_probes(
        dev, ["read-cache", "write-buffer"], hmb=["on", "off"], read_params=READ, write_params=WRITE
    )
    on, off = r.findings["on"], r.findings["off"]
    assert within(on["read-cache"].size, 64 * K)
    assert within(on["write-buffer"].size, 768 * K)
    assert not off["read-cache"].found
    # Without the HMB the write buffer falls back to a one-stripe staging buffer.
    assert not off["write-buffer"].found or off["write-buffer"].size < 128 * K
    assert r.attribution["read cache"].startswith("in the HMB")
    assert r.attribution["write buffer"].startswith("in the HMB")


def test_sram_structures_are_not_attributed_to_the_hmb():
    dev = device(read_cache=64 * K, write_buffer=512 * K, hmb=4 * M, map_in_hmb=True)
    r = run_probes(
        dev, ["read-cache", "write-buffer"], hmb=["on", "off"], read_params=READ, write_params=WRITE
    )
    for s in ("on", "off"):
        assert within(r.findings[s]["read-cache"].size, 64 * K)
        assert within(r.findings[s]["write-buffer"].size, 512 * K)
    assert r.attribution["read cache"].startswith("not in the HMB")
    assert r.attribution["write buffer"].startswith("not in the HMB")


def test_map_cache_reach_follows_the_hmb_grant():
    dev = device(hmb=2 * M, map_in_hmb=True)
    r = run_probes(dev, ["map-cache"], hmb=["max", "half", "off"], map_params=MAP)
    seg = 4 * K
    for setting in ("max", "half"):
        granted = r.hmb_granted[setting]
        # Segments the map cache holds: the granted HMB plus the 16 KiB SRAM level.
        true = (granted + 16 * K) // seg
        f = r.findings[setting]["map-cache"]
        assert f.found and f.bound == "exact" and within(f.size, true), (setting, f.describe())
    assert r.hmb_granted["half"] == r.hmb_granted["max"] // 2
    assert not r.findings["off"]["map-cache"].found
    a = r.attribution["map cache"]
    assert a.startswith("in the HMB") and "4.0 KiB per entry" in a


def test_whole_map_in_dram_is_flat():
    r = run_probes(device(), ["map-cache"], map_params=MAP)
    f = r.findings["default"]["map-cache"]
    assert not f.found and "flat" in f.note


def test_change_point_and_departure_by_hand():
    xs = list(range(20))
    step = [1.0] * 12 + [3.0] * 8
    cp = analysis.change_point(xs, step)
    assert cp.index == 12 and cp.explained > 0.99
    line = [10 + 2 * x for x in range(10)] + [50 + 9 * x for x in range(10)]
    assert analysis.departure(xs, line) == 10
    spike = [10 + 2 * x for x in range(20)]
    spike[7] = 500  # one outlier does not end the line
    assert analysis.departure(xs, spike) is None


def test_probe_cli_writes_tables_plots_and_summary(tmp_path, capsys):
    dev = tmp_path / "dev.json"
    dev.write_text(json.dumps(device(read_cache=64 * K, hmb=2 * M, map_in_hmb=True)))
    out = tmp_path / "out"
    rc = main(
        [
            "probe",
            "all",
            str(dev),
            "--out",
            str(out),
            "--s-min",
            "8K",
            "--s-max",
            "512K",
            "--s-inc",
            "16K",
            "--s-cache",
            "8M",
            "--s-buffer",
            "8M",
            "--d-min",
            "64",
            "--d-max",
            "640",
            "--d-inc",
            "64",
        ]
    )
    assert rc == 0
    text = capsys.readouterr().out
    assert "[hmb on" in text and "[hmb off" in text and "HMB attribution" in text
    for name in ("read-cache", "write-buffer", "map-cache"):
        head = (out / f"{name}.csv").read_text().splitlines()[0]
        assert head.startswith("hmb,")
        assert (out / f"{name}.png").stat().st_size > 1000
    summary = json.loads((out / "summary.json").read_text())
    assert summary["attribution"]["map cache"].startswith("in the HMB")
    assert set(summary["findings"]) == {"on", "off"}


def test_bad_parameters_are_clear_errors(capsys):
    with pytest.raises(ProbeError, match="S_MIN"):
        run_probes("tiny-test", ["read-cache"], read_params=ReadCacheParams(s_min=1000))
    with pytest.raises(ProbeError, match="too small"):
        run_probes("tiny-test", ["read-cache"])  # 512 MiB S_CACHE on a 32 MiB drive
    with pytest.raises(ProbeError, match="two passes"):
        run_probes("tiny-test", ["map-cache"], map_params=MapCacheParams(n=10))
    assert main(["probe", "map-cache", "tiny-test", "--hmb", "sideways"]) == 2
    assert "--hmb" in capsys.readouterr().err


def test_simulated_probe_is_deterministic():
    a = run_probes(device(read_cache=64 * K), ["read-cache"], read_params=READ)
    b = run_probes(device(read_cache=64 * K), ["read-cache"], read_params=READ)
    assert a.curves == b.curves


def test_session_times_requests_like_a_run():
    """A QD1 4 KiB read through a session takes what the same read takes in a run."""
    s = ssdlab.probe.open_target("tiny-test", state="full")
    t = s.read(4096 * 100, 4096)
    r = ssdlab.run("tiny-test", {"rw": "randread", "iodepth": 1, "number_ios": 200})
    assert abs(t - r["read"]["lat_ns"]["mean"]) <= 0.01 * t


def test_real_file_runs_every_probe_end_to_end(tmp_path, capsys):
    """The real-device path (O_DIRECT, monotonic clock, fsync, hole punching) on a
    temporary file: the figures reflect this machine's caches; the procedure is checked."""
    img = tmp_path / "disk.img"
    with open(img, "wb") as f:
        f.truncate(64 * M)
    small = {
        "read_params": ReadCacheParams(s_min=64 * K, s_max=256 * K, s_inc=64 * K, s_cache=4 * M),
        "write_params": WriteBufferParams(
            s_min=64 * K, s_max=256 * K, s_inc=64 * K, s_buffer=4 * M
        ),
        "map_params": MapCacheParams(d_min=4, d_max=16, d_inc=4, idle_s=0),
    }
    r = run_probes(str(img), destructive=True, **small)
    assert not r.simulated
    assert set(r.findings["default"]) == {"read-cache", "write-buffer", "map-cache"}
    for probe in ("read-cache", "write-buffer"):
        rows = r.curves["default"][probe]["rows"]
        assert [x["size_bytes"] for x in rows] == [64 * K, 128 * K, 192 * K, 256 * K]
        assert all(x["first_ns"] > 0 and x["second_ns"] > 0 for x in rows)
    assert [x["sections"] for x in r.curves["default"]["map-cache"]["rows"]] == [4, 8, 12, 16]
    with pytest.raises(ProbeError, match="HMB is set by the host driver"):
        run_probes(str(img), ["read-cache"], hmb=["off"], **small)
    out = tmp_path / "out"
    assert (
        main(
            [
                "probe",
                "read-cache",
                str(img),
                "--out",
                str(out),
                "--s-min",
                "64K",
                "--s-max",
                "128K",
                "--s-inc",
                "64K",
                "--s-cache",
                "4M",
            ]
        )
        == 0
    )
    assert "real device" in capsys.readouterr().out
    assert (out / "read-cache.csv").is_file()


def test_map_cache_miss_on_the_first_read_is_not_taken_for_a_read_cache():
    """Without its HMB the drive keeps 4 map segments in SRAM: the pollution read evicts
    the entry for offset 0, so every first read also loads it and the re-read is faster,
    yet still a flash read. No data read cache may be reported."""
    params = ReadCacheParams(s_min=8 * K, s_max=512 * K, s_inc=8 * K, s_cache=32 * M)
    r = run_probes(
        device(hmb=2 * M, map_in_hmb=True), ["read-cache"], hmb=["off"], read_params=params
    )
    f = r.findings["off"]["read-cache"]
    assert not f.found and "map cache" in f.note, f.describe()
    rows = r.curves["off"]["read-cache"]["rows"]
    assert rows[0]["second_ns"] < 0.75 * rows[0]["first_ns"]  # the confound is really there


def test_slc_read_cache_is_reported_as_flash_class_without_a_size():
    r = run_probes(device(read_cache=128 * K, rc_tier="slc"), ["read-cache"], read_params=READ)
    f = r.findings["default"]["read-cache"]
    assert not f.found and "SLC" in f.note, f.describe()
    rows = r.curves["default"]["read-cache"]["rows"]
    assert rows[0]["second_ns"] < 0.75 * rows[0]["first_ns"]  # the hits are there


def test_hmb_sizes_offered_by_the_host_move_the_map_knee_as_in_fig_10():
    """Seed 002's Fig 10: the knee follows the HMB size (2,000 ... 16,000 sections for
    8 ... 64 MB there); here the HMB holds 4 KiB segments, so the reach doubles with it."""
    dev = device(hmb=2 * M, map_in_hmb=True)
    dev["hmb"]["hmmin"] = "256KiB"
    r = run_probes(dev, ["map-cache"], hmb=["512KiB", "1MiB", "2MiB"], map_params=MAP)
    reach = [r.findings[s]["map-cache"].size for s in ("512KiB", "1MiB", "2MiB")]
    assert [r.hmb_granted[s] for s in ("512KiB", "1MiB", "2MiB")] == [512 * K, 1 * M, 2 * M]
    for got, granted in zip(reach, (512 * K, 1 * M, 2 * M)):
        assert within(got, granted // (4 * K)), reach
    assert "per entry" in r.attribution.get("map cache", "") or not r.attribution
    with pytest.raises(ProbeError, match="a size the host offers"):
        run_probes(dev, ["map-cache"], hmb=["lots"], map_params=MAP)


def test_repeats_make_the_knees_robust_to_noise():
    """Real drives are noisy. With +-5 % jitter on every request and one request in 25
    ten times slower (a GC pause), single runs of the procedures misplace the write
    buffer's knee about two times in three; the median of 9 runs per size (``repeat``)
    finds both knees within 10 % for every seed tried."""
    import random
    import statistics

    for seed in range(10):
        rnd = random.Random(seed)

        def med(v, rnd=rnd):
            vals = [v * (1 + rnd.uniform(-0.05, 0.05)) for _ in range(9)]
            return statistics.median(x * 10 if rnd.random() < 0.04 else x for x in vals)

        rows = []
        for s in range(8 * K, 1024 * K + 1, 8 * K):
            first = 80_000 + s * 0.7  # a flash read, then the channel
            second = 5_000 + s * 0.25 if s <= 256 * K else first * 0.97  # cache: link speed
            rows.append({"size_bytes": s, "first_ns": med(first), "second_ns": med(second)})
        f = analysis.cache_from_rereads(rows)
        assert f.found and within(f.size, 256 * K), (seed, f.describe())
        rows = []
        for s in range(64 * K, 2048 * K + 1, 16 * K):
            full = 20_000 + s * 1.6  # waiting for programs
            empty = 5_000 + min(s, 512 * K) * 0.3 + max(0, s - 512 * K) * 1.6
            rows.append({"size_bytes": s, "first_ns": med(full), "second_ns": med(empty)})
        f = analysis.buffer_from_savings(rows)
        assert f.found and within(f.size, 512 * K), (seed, f.describe())


def test_repeat_takes_the_median_of_each_timing():
    p = ReadCacheParams(s_min=8 * K, s_max=64 * K, s_inc=8 * K, s_cache=8 * M, repeat=3)
    r = run_probes(device(read_cache=32 * K), ["read-cache"], read_params=p)
    assert within(r.findings["default"]["read-cache"].size, 32 * K)
    p.repeat = 0
    with pytest.raises(ProbeError, match="repeat = 0"):
        run_probes(device(), ["read-cache"], read_params=p)
