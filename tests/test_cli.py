"""The ssdlab command line."""

import json
import subprocess
import sys

from ssdlab.cli import main


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "ssdlab", *args], capture_output=True, text=True)


def test_run_prints_a_summary(capsys):
    assert main(["run", "--device", "tiny-test", "--number_ios", "500", "--iodepth", "4"]) == 0
    out = capsys.readouterr().out
    assert "read: IOPS=" in out and "p99=" in out and "WAF=" in out


def test_run_json_file_matches_api(tmp_path):
    import ssdlab

    target = tmp_path / "r.json"
    assert (
        main(
            [
                "run",
                "--device",
                "tiny-test",
                "--rw",
                "randwrite",
                "--number_ios",
                "300",
                "--iodepth",
                "2",
                "--seed",
                "5",
                "--json",
                str(target),
                "-q",
            ]
        )
        == 0
    )
    data = json.loads(target.read_text())
    api = ssdlab.run(
        "tiny-test", {"rw": "randwrite", "bs": "4KiB", "number_ios": 300, "iodepth": 2}, seed=5
    ).to_dict()
    assert data["write"]["lat_ns"] == api["write"]["lat_ns"]
    assert data["write"]["total_ios"] == 300


def test_run_json_stdout_and_set():
    out = _cli(
        "run",
        "--device",
        "tiny-test",
        "--number_ios",
        "100",
        "--set",
        "nand.t_read=90us",
        "--json",
        "-",
    )
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["read"]["total_ios"] == 100


def test_presets_and_show(capsys):
    assert main(["presets"]) == 0
    out = capsys.readouterr().out
    assert "client-tlc-dram" in out and "mqsim-default" in out
    assert main(["presets", "--show", "mqsim-default"]) == 0
    assert "[nand]" in capsys.readouterr().out


def test_validate_file(tmp_path, capsys):
    import ssdlab

    p = tmp_path / "d.toml"
    p.write_text(ssdlab.preset_toml("tiny-test"))
    assert main(["validate", str(p), "--workload", "rand-read-4k-t1-qd32"]) == 0
    assert "ok" in capsys.readouterr().out
    p.write_text(ssdlab.preset_toml("tiny-test").replace("[ftl]", "[ftl]\nfoo = 1"))
    assert main(["validate", str(p)]) == 2
    err = capsys.readouterr().err
    assert "d.toml" in err and "foo" in err


def test_workloads_listed(capsys):
    assert main(["workloads"]) == 0
    out = capsys.readouterr().out
    assert "iometer-4k-70-30" in out and "iozone-like-1g-randread" in out


def test_python_dash_m_and_no_command():
    out = _cli("--version")
    assert out.returncode == 0 and "ssdlab" in out.stdout
    assert _cli().returncode == 2


def test_bench_quick(tmp_path):
    target = tmp_path / "b.json"
    out = _cli(
        "bench", "--quick", "--repeat", "1", "--case", "randread-4k-qd32", "--json", str(target)
    )
    assert out.returncode == 0, out.stderr
    res = json.loads(target.read_text())["results"][0]
    assert res["case"] == "randread-4k-qd32"
    assert res["runs"][0]["ios"] == 5000
    assert res["ios_per_wall_s"] > 0 and res["peak_rss_mib"] > 0
    # The memory estimate --max-memory checks, beside the peak it is meant to bound.
    assert res["estimate_mib"] > 0 and "est/peak" in out.stdout
