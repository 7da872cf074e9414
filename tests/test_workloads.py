"""Named workloads (seeds 000, 002, 003, 004) and IOMeter access specs."""

import pytest
import ssdlab
from ssdlab.cli import main
from ssdlab.workloads import iometer_workload

CONTRACT = [
    "seq-write-128k-t1-qd32",
    "seq-read-128k-t1-qd32",
    "rand-read-4k-t1-qd32",
    "rand-read-4k-t16-qd32",
    "rand-write-4k-t1-qd32",
    "rand-write-4k-t16-qd32",
    "iometer-4k-70-30",
    "iozone-like-1g-randread",
    "light",
    "heavy",
]


@pytest.mark.parametrize("name", CONTRACT)
def test_every_named_workload_runs(name):
    w = ssdlab.named_workload(name)
    cap = ssdlab.validate("tiny-test")["capacity_bytes"]
    w.pop("size", None)  # the 1 GiB span does not fit the 32 MiB test drive
    w.pop("io_size", None)
    w["number_ios"] = 300 if w.get("numjobs", 1) < 10 else 5
    assert ssdlab.validate_workload(w, cap)
    r = ssdlab.run("tiny-test", w)
    total = sum(r[d]["total_ios"] for d in ("read", "write"))
    assert total == w["number_ios"] * w.get("numjobs", 1)


def test_light_and_heavy_follow_seed_002_table_3():
    light, heavy = ssdlab.named_workload("light"), ssdlab.named_workload("heavy")
    assert (light["numjobs"], light["bs"], light["io_size"]) == (1, "4KiB", "16GiB")
    assert (heavy["numjobs"], heavy["bs"]) == (72, "4KiB")


def test_iometer_single_line_is_one_job():
    w = iometer_workload("4096,100,70,100,0,1,0,0")
    assert w["rw"] == "randrw" and w["rwmixread"] == 70 and w["bs"] == "4096B"
    assert w["norandommap"] is True  # IOMeter has no random map: offsets may repeat
    w = iometer_workload("128K,100,0,0")
    assert w["rw"] == "rw" and w["rwmixread"] == 0 and w["bs"] == "131072B"
    assert "norandommap" not in w
    w = iometer_workload("4K,100,100,40,5,8")
    assert w["percentage_random"] == 40
    assert (w["thinktime"], w["thinktime_blocks"]) == ("5ms", 8)


def test_iometer_lines_of_one_kind_become_a_bssplit_and_others_jobs():
    w = iometer_workload("4K,60,70,100;64K,40,70,100", number_ios=500)
    assert w["bssplit"] == [["4096B", 60], ["65536B", 40]]
    r = ssdlab.run("tiny-test", w)  # lines differing only in size run (issue 14, item 6)
    assert r["read"]["total_ios"] + r["write"]["total_ios"] == 500
    w = iometer_workload("4K,75,100,100;128K,25,0,0", iodepth=32, number_ios=1000)
    assert [j["iodepth"] for j in w["jobs"]] == [24, 8]
    assert [j["number_ios"] for j in w["jobs"]] == [750, 250]
    r = ssdlab.run("tiny-test", w)
    assert r["read"]["total_ios"] == 750 and r["write"]["total_ios"] == 250


@pytest.mark.parametrize(
    "spec, msg",
    [
        ("4K,100,70", "expected size,% of spec"),
        ("4K,90,70,100", "add up to 90"),
        ("4K,100,170,100", "% read 170 must be 0..100"),
        ("1000,100,70,100", "multiple of 512"),
        ("4K,100,70,100,0,1,0,512", "reply size 512 is not simulated"),
        ("4K,100,x,100", "expected numbers"),
    ],
)
def test_iometer_bad_specs(spec, msg):
    with pytest.raises(ssdlab.ConfigError, match=msg):
        iometer_workload(spec)


def test_iometer_from_the_cli(capsys):
    rc = main(
        [
            "run",
            "--device",
            "tiny-test",
            "--workload",
            "iometer:4K,100,70,100",
            "--number_ios",
            "500",
            "--iodepth",
            "4",
            "-q",
            "--json",
            "-",
        ]
    )
    assert rc == 0
    out = capsys.readouterr().out
    assert '"rwmixread": 70' in out
    assert main(["run", "--workload", "iometer:4K,50,70,100"]) == 2
    assert "add up to 50" in capsys.readouterr().err
