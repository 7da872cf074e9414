"""Issue 15 (docs/validation.md): MQSim's default device from the CLI."""

import contextlib
import csv
import io

from ssdlab.cli import main


def _study(out, *argv) -> str:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["study", *argv, "--out", str(out)]) == 0
    return buf.getvalue()


def test_mqsim_study_quick_matches_mqsim_where_the_mechanisms_agree(tmp_path):
    text = _study(tmp_path, "mqsim", "--quick")
    assert "MQSim" in text and "randread-4k" in text and "seqread-128k" in text
    assert "randwrite-4k" in text and "mix70-4k" in text and "one-command" in text
    with open(tmp_path / "mqsim.csv") as f:
        rows = {(r["workload"], r["variant"]): r for r in csv.DictReader(f)}
    assert len(rows) == 14
    rr, sr = rows["randread-4k", "preset"], rows["seqread-128k", "preset"]
    # Random reads: within 15 % of MQSim's IOPS and mean latency.
    assert abs(float(rr["iops"]) / float(rr["mqsim_iops"]) - 1) < 0.15
    assert abs(float(rr["mean_us"]) / float(rr["mqsim_mean_us"]) - 1) < 0.15
    # Every random read misses the 2 MiB CMT: a translation read and a data read.
    assert float(rr["hit_rate"]) < 0.01 and 1.8 < float(rr["read_cmds_per_io"]) < 2.0
    # Sequential reads: at the 2.66 GB/s channel bound, above MQSim's 69 % of it.
    assert 2.3e9 < float(sr["bw"]) < 2.7e9 and float(sr["bw"]) > float(sr["mqsim_bw"])
    assert float(sr["hit_rate"]) == 0.0  # MQSim: CMT_Hits = 0
    # Random writes: 64 independent dies run far ahead of MQSim's 32 one-command chips;
    # with MQSim's mechanisms ssdlab issues its commands (one translation or
    # merge read and one single-plane program per write) and lands within 15 %.
    rw, rwm = rows["randwrite-4k", "preset"], rows["randwrite-4k", "mqsim-mechanisms"]
    assert float(rw["iops"]) > 1.5 * float(rw["mqsim_iops"])
    assert abs(float(rwm["iops"]) / float(rwm["mqsim_iops"]) - 1) < 0.15
    assert abs(float(rwm["programs_per_io"]) - 1) < 0.01
    assert abs(float(rwm["read_cmds_per_io"]) - 1) < 0.01
    # The mix: MQSim's flash commands per request with its mechanisms (within 5 %).
    mx = rows["mix70-4k", "mqsim-mechanisms"]
    for k in ("read_cmds_per_io", "programs_per_io"):
        assert abs(float(mx[k]) / float(mx[f"mqsim_{k}"]) - 1) < 0.05, k
    # 64 one-die chips, against MQSim run that way: its DRAM (200 MB/s) binds the writes.
    c64 = rows["randwrite-4k", "64-chips-mqsim-mechanisms"]
    assert abs(float(c64["iops"]) / float(c64["mqsim_iops"]) - 1) < 0.15
    assert float(c64["iops"]) <= 200e6 / 4096 * 1.0001
    assert "Die_No_Per_Chip 1" in text
    # One command per chip halves what the dies can do at once.
    for w in ("randwrite-4k", "mix70-4k"):
        assert float(rows[w, "one-command"]["iops"]) < 0.8 * float(rows[w, "preset"]["iops"])


def test_one_command_chips_from_the_cli_and_the_api(tmp_path):
    """`nand.chip_interface` reaches users: the CLI's --set and ssdlab.run(set=...) give
    the same report, with the chips' counters; the preset leaves them out."""
    import json

    import ssdlab

    wl = {"rw": "randwrite", "bs": "4KiB", "iodepth": 32, "runtime": "50ms"}
    wl["norandommap"] = True
    one = {"nand.chip_interface": "one-command"}
    r = ssdlab.run("mqsim-default", wl, state="full", set=one)
    chips = r.to_dict()["device"]["dies"]["chips"]
    assert chips["chips"] == 32 and chips["dies_per_chip"] == 2 and chips["refusals"] > 0
    # The two dies of a chip share its time: on average each is at most half busy.
    assert r.to_dict()["device"]["dies"]["mean_util"] <= 0.5 + 1e-9
    free = ssdlab.run("mqsim-default", wl, state="full")
    assert "chips" not in free.to_dict()["device"]["dies"]
    assert free["write"]["iops"] > 1.3 * r["write"]["iops"]
    out = tmp_path / "one.json"
    args = ["run", "--device", "mqsim-default", "--rw", "randwrite", "--bs", "4k"]
    args += ["--iodepth", "32", "--runtime", "50ms", "--norandommap", "--state", "full"]
    args += ["--set", 'nand.chip_interface="one-command"', "--json", str(out)]
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(args) == 0
    cli = json.loads(out.read_text())
    assert cli["device"]["dies"]["chips"] == chips
    assert cli["write"]["iops"] == r["write"]["iops"]
