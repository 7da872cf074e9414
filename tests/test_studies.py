"""Studies: the seed-004 map-cache experiment and the LBA-span sweep, small."""

import csv

from ssdlab.cli import main


def test_map_cache_study_quick(tmp_path, capsys):
    assert main(["study", "map-cache", "--quick", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "READ (IOPS)" in out and "seed IOPS" in out and "map of map" in out
    with open(tmp_path / "map-cache.csv") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["cache_bytes", "segment_bytes", "iops", "hit_rate"]
    by = {(int(r["cache_bytes"]), int(r["segment_bytes"])): r for r in rows}
    # The mechanism: hit rate near the cache/map share (map of a 1 GiB span = 512 KiB).
    for cache in (64, 256):
        hr = float(by[(cache * 1024, 8192)]["hit_rate"])
        assert abs(hr - cache / 512) < 0.03, (cache, hr)
    # IOPS rise with the cache; smaller segments are faster at a small cache.
    iops8 = [float(by[(c * 1024, 8192)]["iops"]) for c in (8, 64, 512)]
    assert iops8[0] < iops8[1] < iops8[2]
    seg = [float(by[(8192, s * 1024)]["iops"]) for s in (1, 2, 4, 8)]
    assert seg == sorted(seg, reverse=True)
    assert (tmp_path / "map-cache.png").exists()


def test_lba_span_study_quick(tmp_path, capsys):
    assert (
        main(["study", "lba-span", "--quick", "--number_ios", "20000", "--out", str(tmp_path)]) == 0
    )
    out = capsys.readouterr().out
    assert "hmb-ssd max" in out and "dramless-ssd" in out
    with open(tmp_path / "lba-span.csv") as f:
        rows = list(csv.DictReader(f))
    get = {(r["device"], int(r["span_bytes"])): float(r["iops"]) for r in rows}
    g = 1 << 30
    # HMB min (16 MiB) covers 16 GiB but not 64 GiB; max (64 MiB) holds up further.
    assert get[("hmb-ssd min", 64 * g)] < 0.8 * get[("hmb-ssd min", 16 * g)]
    assert get[("hmb-ssd max", 64 * g)] > get[("hmb-ssd min", 64 * g)]
    # The DRAM drive does not care about the span.
    dram = [v for (d, _), v in get.items() if d == "dram-ssd"]
    assert max(dram) / min(dram) < 1.05


def test_program_delay_study_quick(tmp_path, capsys):
    assert main(["study", "program-delay", "--quick", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "adaptive/default" in out and "seed adaptive" in out
    with open(tmp_path / "program-delay.csv") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0])[:3] == ["capacity_bytes", "policy", "iops"]
    assert {r["policy"] for r in rows} == {"default", "adaptive"}
    assert len({r["capacity_bytes"] for r in rows}) == 2
    for r in rows:
        # The sustained condition: GC is running and reads suspend programs.
        assert float(r["waf"]) > 1.5 and int(r["suspends"]) > 0
        assert float(r["iops"]) > 0
    assert any(int(r["holds"]) > 0 for r in rows if r["policy"] == "adaptive")


def test_drive_states_study_on_a_small_slc_drive(tmp_path, capsys):
    import ssdlab

    toml = ssdlab.preset_toml("tiny-test")
    toml = toml.replace("pages_per_block = 8", "pages_per_block = 9")
    toml = toml.replace("blocks_per_plane = 32", "blocks_per_plane = 40")
    dev = tmp_path / "tiny-slc.toml"
    dev.write_text(toml + '\n[slc]\nsize = "3MiB"\n')
    out = tmp_path / "out"
    assert main(["study", "drive-states", "--quick", "--device", str(dev), "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "normal" in text and "sustain" in text and "aging" in text
    with open(out / "drive-states.csv") as f:
        rows = list(csv.DictReader(f))
    got = {(r["test"], r["state"]): r for r in rows}
    assert len(got) == 15
    w = "rand-write-4k-t1-qd32"
    # Normal writes start in SLC, sustain ones never do; aging pays GC.
    assert float(got[(w, "normal")]["slc_hit_rate"]) > 0
    assert float(got[(w, "sustain")]["slc_hit_rate"]) == 0
    assert float(got[(w, "aging")]["gc_share"]) > 0
    assert float(got[(w, "aging")]["iops"]) < float(got[(w, "sustain")]["iops"])
