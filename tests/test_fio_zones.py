"""fio's zone modes on `ssdlab fio` (issue 27): zonemode=zbd over fio's emulated zones
(write pointers, zone capacity, open-zone limits, reads below write pointers, trims
that reset zones), zonemode=strided, sizes in zones, and the runs that are refused
(FDP; zbd without a zone size, which needs a zoned drive)."""

from __future__ import annotations

from pathlib import Path

import pytest
import ssdlab
from ssdlab.fio import load_jobfile, run_jobfile
from ssdlab.fio.options import Unsupported, finish, resolve
from ssdlab.fio.parser import parse_text

JOBS = Path(__file__).resolve().parents[2] / "shared" / "data" / "fio-jobs"
needs_shared = pytest.mark.skipif(not JOBS.is_dir(), reason="needs the shared fio jobs")
ZONED_EXAMPLES = [
    "zbd-rand-write-trim-gc", "zbd-rand-write-zone-reset-gc", "zbd-rand-write", "zbd-seq-read",
    "libzbc-rand-write", "libzbc-seq-read", "uring-cmd-zoned", "disk-zone-profile",
]  # fmt: skip


def _iolog(tmp_path: Path, text: str) -> list[tuple[str, int, int]]:
    """Run a job file with write_iolog on tiny-test: its (action, offset, length)."""
    log = tmp_path / "io.log"
    job = tmp_path / "z.fio"
    job.write_text(text.replace("LOG", str(log)))
    run_jobfile(job, device="tiny-test", state="fresh")
    out = []
    for line in log.read_text().splitlines()[1:]:
        parts = line.split()
        if len(parts) >= 5 and parts[2] in ("read", "write", "trim"):
            out.append((parts[2], int(parts[3]), int(parts[4])))
    return out


@needs_shared
@pytest.mark.parametrize("name", ZONED_EXAMPLES)
def test_the_zoned_examples_parse(name):
    jf = load_jobfile(JOBS / f"{name}.fio")
    assert jf.jobs


def test_zbd_writes_stay_below_each_zones_capacity(tmp_path):
    ios = _iolog(
        tmp_path,
        "[j]\nrw=write\nbs=16k\nzonemode=zbd\nzonesize=1m\nzonecapacity=768k\n"
        "size=4m\nwrite_iolog=LOG\n",
    )
    writes = [(o, n) for k, o, n in ios if k == "write"]
    assert writes, ios
    for o, n in writes:
        assert (o % (1 << 20)) + n <= 768 << 10, (o, n)
    # Sequential: each zone from its start to its capacity, then the next zone.
    zones = sorted({o >> 20 for o, _ in writes})
    assert zones == [0, 1, 2, 3], zones
    # fio counts the zone's unwritten rest as skipped: 4 zones x 768 KiB are written.
    assert sum(n for _, n in writes) == 4 * (768 << 10)


def test_zbd_random_writes_go_to_write_pointers_in_open_zones(tmp_path):
    ios = _iolog(
        tmp_path,
        "[j]\nrw=randwrite\nbs=4k\nzonemode=zbd\nzonesize=256k\nmax_open_zones=2\n"
        "size=8m\nnumber_ios=100\nwrite_iolog=LOG\n",
    )
    wp: dict[int, int] = {}
    for k, o, n in ios:
        assert k == "write"
        z = o // (256 << 10)
        assert o == z * (256 << 10) + wp.get(z, 0), (o, wp)  # at the write pointer
        wp[z] = wp.get(z, 0) + n
    # 100 x 4 KiB = 400 KiB: two open zones, neither full (256 KiB) until ... one fills.
    assert len(wp) <= 3 and max(wp.values()) <= 256 << 10, wp


def test_zone_resets_are_reported_as_fio_reports_them(tmp_path):
    from ssdlab.fio import format_output

    # 16 writes of 16 KiB over 2 zones of 64 KiB: each zone filled twice, reset once
    # before its second fill (the last fill is not reset).
    job = _write(
        tmp_path,
        "[w]\nrw=write\nbs=16k\nzonemode=zbd\nzonesize=64k\nsize=128k\nio_size=256k\n",
    )
    jf = load_jobfile(job)
    doc = run_jobfile(job, device="tiny-test", state="fresh")
    assert doc["ssdlab"]["zone_resets"] == {"w": 2}
    assert "write: IOPS=" in format_output(doc, jf, "normal")
    assert "; 2 zone resets" in format_output(doc, jf, "normal")
    plain = run_jobfile(_write(tmp_path, "[w]\nrw=write\nsize=128k\n"), device="tiny-test")
    assert "zone_resets" not in plain["ssdlab"] and "zone_resets" not in plain["jobs"][0]


def test_zbd_clones_share_the_open_zone_limit(tmp_path):
    # 4 clones, max_open_zones=2 for the drive: every write lands in one of 2 zones
    # until one fills (64 x 4 KiB < 256 KiB), as fio shares its open zones.
    ios = _iolog(
        tmp_path,
        "[j]\nrw=randwrite\nbs=4k\nzonemode=zbd\nzonesize=256k\nmax_open_zones=2\n"
        "numjobs=4\nsize=8m\nnumber_ios=16\nwrite_iolog=LOG\nper_job_logs=0\n",
    )
    zones = {o // (256 << 10) for k, o, _ in ios if k == "write"}
    assert 1 <= len(zones) <= 2, zones


def test_zbd_reads_only_what_was_written_and_trims_reset_zones(tmp_path):
    # The jobs of a file share the drive's zones (fio's): the reader reads what the
    # writer wrote (72 KiB: zone 0 and 8 KiB of zone 1), never beyond it, and ends.
    ios = _iolog(
        tmp_path,
        "[w]\nrw=write\nbs=4k\nzonemode=zbd\nzonesize=64k\nsize=256k\nio_size=72k\n"
        "[r]\nwait_for=w\nrw=read\nbs=4k\nzonemode=zbd\nzonesize=64k\n"
        "size=256k\nwrite_iolog=LOG\n",
    )
    reads = sorted(o for k, o, _ in ios if k == "read")
    assert reads == list(range(0, 72 << 10, 4096)), reads
    # A read-only job alone: fio's emulated zones start empty, so it reads nothing.
    doc = run_jobfile(
        _write(tmp_path, "[r]\nrw=randread\nbs=4k\nzonemode=zbd\nzonesize=64k\nsize=256k\n"),
        device="tiny-test",
    )
    assert doc["jobs"][0]["read"]["total_ios"] == 0
    # A mixed job reads only below its write pointers.
    ios = _iolog(
        tmp_path,
        "[m]\nrw=randrw\nbs=4k\nzonemode=zbd\nzonesize=64k\nsize=256k\nio_size=1600k\n"
        "write_iolog=LOG\n",
    )
    wp: dict[int, int] = {}
    reads = 0
    for k, o, n in ios:
        z = o // (64 << 10)
        if k == "write":
            wp[z] = max(wp.get(z, 0), o % (64 << 10) + n)
        else:
            reads += 1
            assert o % (64 << 10) + n <= wp.get(z, 0), (o, n, wp)
    assert reads > 100
    # Random trims reset zones with data: each trim covers a whole zone that was written.
    ios = _iolog(
        tmp_path,
        "[w]\nrw=write\nbs=64k\nzonemode=zbd\nzonesize=64k\nsize=256k\nio_size=128k\n"
        "[t]\nstonewall\nrw=randtrim\nbs=64k\nzonemode=zbd\nzonesize=64k\n"
        "size=256k\nwrite_iolog=LOG\n",
    )
    # The trim job resets the two zones the writer filled, then finds no data and ends.
    assert sorted((o, n) for k, o, n in ios if k == "trim") == [(0, 65536), (65536, 65536)]


def _write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "j.fio"
    p.write_text(text)
    return p


def test_strided_reads_zonesize_then_skips(tmp_path):
    ios = _iolog(
        tmp_path,
        "[s]\nrw=read\nbs=4k\nzonemode=strided\nzonesize=8k\nzoneskip=56k\nsize=256k\n"
        "write_iolog=LOG\n",
    )
    offs = [o for _, o, _ in ios]
    # The skips count towards the 256 KiB (fio's io_skip_bytes): the ninth read wraps.
    assert offs == [0, 4096, 65536, 69632, 131072, 135168, 196608, 200704, 0], offs


def test_sizes_in_zones_and_refused_runs():
    jf = resolve(parse_text("[j]\nrw=write\nzonemode=zbd\nzonesize=1m\nsize=3z\noffset=2z\n",
                            "t.fio"))  # fmt: skip
    spec = finish(jf, 64 << 20)[0]
    assert spec["size"] == f"{3 << 20}B" and spec["offset"] == f"{2 << 20}B"
    assert spec["zoned"] == {"mode": "zbd", "zone_size": f"{1 << 20}B"}
    for text, want in [
        ("[j]\ndataplacement=streams\nplids=0,1\n",
         "t.fio:2: dataplacement=streams: the streams directive is not modelled"),
        ("[j]\nzonemode=zbd\n", "t.fio:2: [j]: zonemode=zbd without zonesize needs a zoned"),
        ("[j]\nsize=1z\n", "t.fio:2: size=1z: a size in zones needs zonesize or a zoned"),
    ]:
        jf = resolve(parse_text(text, "t.fio"))  # --parse-only accepts it
        with pytest.raises(Unsupported) as e:
            finish(jf, 64 << 20)
        assert str(e.value).startswith(want), str(e.value)


def test_zbd_job_checks_name_the_problem():
    for job, want in [
        ({"rw": "write", "size": "512KiB"}, "holds no whole zone"),
        ({"rw": "randtrim", "bs": "64KiB"}, "trims reset zones"),
        ({"rw": "write", "bs": "2MiB"}, "exceeds the zone size"),
    ]:
        job["zoned"] = {"mode": "zbd", "zone_size": "1MiB"}
        with pytest.raises(ValueError, match=want):
            ssdlab.run("tiny-test", {"jobs": [job]}, state="fresh")
