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
    assert "MQSim IOPS" in text and "randread-4k" in text and "seqread-128k" in text
    with open(tmp_path / "mqsim.csv") as f:
        rows = {r["workload"]: r for r in csv.DictReader(f)}
    rr, sr = rows["randread-4k"], rows["seqread-128k"]
    # Random reads: within 15 % of MQSim's IOPS and mean latency.
    assert abs(float(rr["iops"]) / float(rr["mqsim_iops"]) - 1) < 0.15
    assert abs(float(rr["mean_us"]) / float(rr["mqsim_mean_us"]) - 1) < 0.15
    # Every random read misses the 2 MiB CMT: a translation read and a data read.
    assert float(rr["hit_rate"]) < 0.01 and 1.8 < float(rr["flash_reads_per_io"]) < 2.0
    # Sequential reads: at the 2.66 GB/s channel bound, above MQSim's 69 % of it.
    assert 2.3e9 < float(sr["bw"]) < 2.7e9 and float(sr["bw"]) > float(sr["mqsim_bw"])
    assert float(sr["hit_rate"]) == 0.0  # MQSim: CMT_Hits = 0
