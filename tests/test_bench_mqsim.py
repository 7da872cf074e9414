"""``ssdlab bench --mqsim``: MQSim's workload files read as ssdlab workloads, bad files
refused by name, and the side-by-side loop (with a stand-in for MQSim, so that the test
needs no C++ build and no minute of MQSim)."""

from __future__ import annotations

import stat
import subprocess
import sys
from pathlib import Path

import pytest
from ssdlab import bench_mqsim
from ssdlab.studies import mqsim as mqsim_study

MQSIM_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "mqsim"

FLOW = """<?xml version="1.0" encoding="us-ascii"?>
<MQSim_IO_Scenarios><IO_Scenario><IO_Flow_Parameter_Set_Synthetic>
<Synthetic_Generator_Type>{gen}</Synthetic_Generator_Type>
<Read_Percentage>{read}</Read_Percentage>
<Address_Distribution>{dist}</Address_Distribution>
<Request_Size_Distribution>FIXED</Request_Size_Distribution>
<Average_Request_Size>{sectors}</Average_Request_Size>
<Average_No_of_Reqs_in_Queue>{qd}</Average_No_of_Reqs_in_Queue>
<Stop_Time>{stop}</Stop_Time>
</IO_Flow_Parameter_Set_Synthetic></IO_Scenario></MQSim_IO_Scenarios>
"""


def flow(tmp: Path, name: str = "workload-x.xml", **kw) -> Path:
    args = {"gen": "QUEUE_DEPTH", "read": 70, "dist": "RANDOM_UNIFORM", "sectors": 8, "qd": 32}
    args.update({"stop": 3_000_000_000, **kw})
    p = tmp / name
    p.write_text(FLOW.format(**args))
    return p


@pytest.mark.skipif(not MQSIM_DIR.is_dir(), reason="../shared/data/mqsim not present")
def test_mqsims_four_files_are_the_studys_four_workloads():
    files = bench_mqsim.workload_files(MQSIM_DIR)
    got = {f.name: bench_mqsim.workload_of(f) for f in files}
    want = {
        "workload-randread4k-qd32-10s.xml": "randread-4k",
        "workload-seqread128k-qd32-3s.xml": "seqread-128k",
        "workload-randwrite4k-qd32-3s.xml": "randwrite-4k",
        "workload-mix70-4k-qd32-3s.xml": "mix70-4k",
    }
    assert set(got) == set(want)
    for name, study_name in want.items():
        w, s = got[name], mqsim_study.WORKLOADS[study_name]
        assert w["rw"] == s["rw"] and w["iodepth"] == s["iodepth"], name
        assert w.get("rwmixread") == s.get("rwmixread"), name
        assert w.get("norandommap", False) == s.get("norandommap", False), name
        # the same sizes and times, whichever way they are spelled
        assert w["bs"].replace("KiB", "") == s["bs"].replace("KiB", ""), name
        ms = int(w["runtime"].removesuffix("ms"))
        assert ms == int(s["runtime"].removesuffix("s")) * 1000, name


def test_a_file_reads_as_the_workload_it_describes(tmp_path):
    assert bench_mqsim.workload_of(flow(tmp_path)) == {
        "rw": "randrw",
        "rwmixread": 70,
        "bs": "4KiB",
        "iodepth": 32,
        "runtime": "3000ms",
        "norandommap": True,
    }
    w = bench_mqsim.workload_of(flow(tmp_path, read=100, dist="STREAMING", sectors=256, qd=8))
    assert w == {"rw": "read", "bs": "128KiB", "iodepth": 8, "runtime": "3000ms"}
    w = bench_mqsim.workload_of(flow(tmp_path, read=0, sectors=9, stop=1_500))
    assert w["rw"] == "randwrite" and w["bs"] == "4608B" and w["runtime"] == "1500ns"


@pytest.mark.parametrize(
    ("kw", "says"),
    [
        ({"gen": "BANDWIDTH"}, "<Synthetic_Generator_Type> is 'BANDWIDTH'; only QUEUE_DEPTH"),
        ({"dist": "RANDOM_HOTCOLD"}, "<Address_Distribution> is 'RANDOM_HOTCOLD'"),
        ({"read": 101}, "<Read_Percentage> is 101; allowed: 0 to 100"),
        ({"qd": "many"}, "<Average_No_of_Reqs_in_Queue> is 'many', not a whole number"),
        ({"stop": 0}, "must be positive"),
    ],
)
def test_bad_files_are_refused_naming_the_file_and_field(tmp_path, kw, says):
    p = flow(tmp_path, **kw)
    with pytest.raises(bench_mqsim.MqsimError) as e:
        bench_mqsim.workload_of(p)
    assert str(p) in str(e.value) and says in str(e.value)


def test_a_missing_field_and_a_missing_config_are_named(tmp_path):
    p = tmp_path / "workload-y.xml"
    p.write_text(FLOW.replace("<Stop_Time>{stop}</Stop_Time>\n", "").format(
        gen="QUEUE_DEPTH", read=0, dist="STREAMING", sectors=8, qd=1))  # fmt: skip
    with pytest.raises(bench_mqsim.MqsimError, match="has no <Stop_Time>"):
        bench_mqsim.workload_of(p)
    with pytest.raises(bench_mqsim.MqsimError, match=r"no ssdconfig\.xml"):
        bench_mqsim.workload_files(tmp_path)


FAKE_MQSIM = """#!{python}
import sys
# MQSim -i CONFIG -w WORKLOAD: write WORKLOAD's result file as MQSim does
w = sys.argv[sys.argv.index("-w") + 1]
open(w[:-4] + "_scenario_1.xml", "w").write(
    "<MQSim_Results><Host><Host.IO_Flow><Request_Count>1234</Request_Count>"
    "<IOPS>411333.3</IOPS></Host.IO_Flow></Host></MQSim_Results>")
"""


def test_the_side_by_side_loop_runs_both_programs_in_pairs(tmp_path):
    (tmp_path / "ssdconfig.xml").write_text("<Execution_Parameter_Set/>")
    flow(tmp_path, "workload-short.xml", stop=2_000_000)  # 2 ms of a 70/30 mix
    fake = tmp_path / "MQSim"
    fake.write_text(FAKE_MQSIM.format(python=sys.executable))
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    lines = []
    rows = bench_mqsim.compare(
        tmp_path, repeat=2, mqsim_bin=fake, echo=lambda s, **k: lines.append(s)
    )
    assert [r["workload"] for r in rows] == ["workload-short"]
    r = rows[0]
    assert len(r["pairs"]) == 2 and r["mqsim_requests"] == 1234
    for p in r["pairs"]:
        assert p["ratio"] == pytest.approx(p["mqsim"]["wall_s"] / p["ssdlab"]["wall_s"])
        assert p["ssdlab"]["peak_rss_mib"] > 0 and p["mqsim"]["peak_rss_mib"] > 0
    # ssdlab ran the file's workload on the preset: a 70/30 mix over 2 ms at QD32
    assert r["ssdlab_requests"] > 100 and 0 < r["ssdlab_iops"]
    assert r["ratio_min"] <= r["ratio"] <= r["ratio_max"]
    assert lines[-1].startswith("workload-short")


def test_cli_errors(tmp_path):
    def run(*args):
        return subprocess.run([sys.executable, "-m", "ssdlab", "bench", *args],
                              capture_output=True, text=True)  # fmt: skip

    r = run("--instructions")
    assert r.returncode == 2 and "--instructions needs --mqsim DIR" in r.stderr
    r = run("--mqsim", str(tmp_path / "nowhere"))
    assert r.returncode == 2 and "is not a directory" in r.stderr
    (tmp_path / "ssdconfig.xml").write_text("<x/>")
    flow(tmp_path, "workload-a.xml")
    r = run("--mqsim", str(tmp_path), "--case", "workload-b", "--mqsim-bin", sys.executable)
    assert r.returncode == 2 and "workload-b not in" in r.stderr and "workload-a" in r.stderr
    r = run("--mqsim", str(tmp_path), "--mqsim-bin", str(tmp_path / "nope"))
    assert r.returncode == 2 and "--mqsim-bin" in r.stderr
    r = run("--mqsim", str(tmp_path), "--mqsim-bin", sys.executable, "--json", "")
    assert r.returncode == 2 and "--json" in r.stderr
