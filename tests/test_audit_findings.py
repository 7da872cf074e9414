"""Regression tests for what the second hardening audit (issue 31, scripts/audit/) found:
each failed on the code before its fix."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def ssdlab(*args, cwd, timeout=30):
    return subprocess.run(
        [sys.executable, "-m", "ssdlab", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def refused(r, *needles):
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("ssdlab: error:"), r.stderr
    assert "Traceback" not in r.stderr
    for n in needles:
        assert n in r.stderr, r.stderr


@pytest.mark.parametrize("kind", ["trace", "iolog", "iolog-parse-only", "workload"])
def test_a_named_pipe_as_trace_or_iolog_is_refused_not_waited_on(tmp_path, kind):
    # Before: `open` of a FIFO blocks until a writer comes, so each of these hung forever.
    os.mkfifo(tmp_path / "pipe")
    job = tmp_path / "j.fio"
    job.write_text("[j]\nread_iolog=pipe\n")
    (tmp_path / "w.json").write_text('{"trace": {"path": "pipe"}}')
    args = {
        "trace": ["trace", "pipe", "--format", "msr", "--device", "tiny-test", "-q"],
        "iolog": ["fio", "j.fio", "--device", "tiny-test"],
        "iolog-parse-only": ["fio", "j.fio", "--parse-only"],
        "workload": ["run", "--device", "tiny-test", "--workload", "w.json", "-q"],
    }[kind]
    r = ssdlab(*args, cwd=tmp_path)
    if kind == "iolog-parse-only":
        # --parse-only does not open the log (as fio's does not), so it must not block.
        assert r.returncode == 0, r.stderr
        return
    refused(r, "pipe", "named pipe")


def test_unknown_fio_verify_method_is_refused(tmp_path):
    (tmp_path / "j.fio").write_text("[j]\nrw=randwrite\nnumber_ios=10\nverify=sha9999\n")
    r = ssdlab("fio", "j.fio", "--parse-only", cwd=tmp_path)
    refused(r, "j.fio:4", "verify=sha9999", "crc32c")
    (tmp_path / "k.fio").write_text("[j]\nrw=randwrite\nnumber_ios=10\nverify=crc32c\n")
    assert ssdlab("fio", "k.fio", "--parse-only", cwd=tmp_path).returncode == 0


@pytest.mark.parametrize("value", [str(2**64), "-1"])
def test_fio_max_ios_beyond_64_bits_or_negative_is_refused(tmp_path, value):
    (tmp_path / "j.fio").write_text("[j]\nrw=randread\nnumber_ios=10\n")
    r = ssdlab("fio", "j.fio", "--device", "tiny-test", "--max-ios", value, cwd=tmp_path)
    refused(r, "--max-ios")


def test_an_empty_job_file_is_named_in_the_error(tmp_path):
    (tmp_path / "empty.fio").write_text("; nothing but a comment\n")
    r = ssdlab("fio", "empty.fio", "--parse-only", cwd=tmp_path)
    refused(r, "empty.fio", "no job sections")


def test_a_query_of_a_huge_result_streams_instead_of_running_out_of_memory(tmp_path):
    # Before: `sweep query` fetched every row into one list, so 10^8 rows raised
    # MemoryError (a traceback). Now rows are written in batches. Under a 1.5 GiB
    # address-space limit, 2 x 10^7 rows (~1.8 GB as Python tuples) must stream, and
    # the CSV must end with the last row: DuckDB's progress bar, drawn on stdout for a
    # query running over 2 s (as a streamed one does), is turned off.
    import ssdlab

    (tmp_path / "g.toml").write_text(
        '[base]\ndevice = "tiny-test"\nworkload = { rw = "randread", number_ios = 50 }\n'
        '[axes]\n"workload.iodepth" = [1]\n'
    )
    ssdlab.sweep(tmp_path / "g.toml", out=tmp_path / "sw")
    limit = 1536 << 20
    code = (
        "import resource, sys; "
        f"resource.setrlimit(resource.RLIMIT_AS, ({limit}, {limit})); "
        "from ssdlab.cli import main; sys.exit(main())"
    )
    with open(tmp_path / "rows.csv", "wb") as f:
        r = subprocess.run(
            [sys.executable, "-c", code, "sweep", "query", str(tmp_path / "sw"),
             "SELECT * FROM range(20000000)"],
            stdout=f, stderr=subprocess.PIPE, timeout=300,
        )  # fmt: skip
    assert r.returncode == 0, r.stderr.decode()[-500:]
    with open(tmp_path / "rows.csv", "rb") as f:
        assert f.readline() == b"range\n"
        f.seek(-9, os.SEEK_END)
        assert f.read() == b"19999999\n"


def test_a_system_file_without_drives_is_told_it_needs_one(tmp_path):
    # Before: with its [[drive]] tables forgotten, a system file was read as a device
    # file and refused for "fabric: unknown field `fabric`, expected one of name, ...".
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "examples" / "seed001-remote.toml"
    text = example.read_text()
    (tmp_path / "s.toml").write_text(text[: text.index("[[drive]]")])
    r = ssdlab("run", "--device", "s.toml", "--number_ios", "10", "-q", cwd=tmp_path)
    refused(r, "s.toml", "[[drive]]")


def test_fio_api_errors_are_config_errors(tmp_path):
    # Before: JobFileError (a plain ValueError) from run_jobfile / load_jobfile, and
    # json's JSONDecodeError from to_pandas on a broken file, where the API documents
    # ConfigError for every bad input.
    import ssdlab

    with pytest.raises(ssdlab.ConfigError, match=r"nope\.fio"):
        ssdlab.fio.run_jobfile(tmp_path / "nope.fio", device="tiny-test")
    with pytest.raises(ssdlab.ConfigError, match="is a directory"):
        ssdlab.fio.load_jobfile(tmp_path)
    (tmp_path / "broken.json").write_text("{")
    with pytest.raises(ssdlab.ConfigError, match=r"broken\.json: not fio JSON output"):
        ssdlab.fio.to_pandas(tmp_path / "broken.json")
    with pytest.raises(ssdlab.ConfigError, match="not fio JSON output"):
        ssdlab.fio.to_pandas({"jobs": []})
    assert issubclass(ssdlab.fio.JobFileError, ValueError)  # as before


@pytest.mark.parametrize("kind", ["lat-cdf", "timeline"])
@pytest.mark.parametrize("source", ["fifo", "/dev/zero"])
def test_a_plot_of_a_pipe_or_device_is_refused_not_read_forever(tmp_path, kind, source):
    # Before: a FIFO blocked the open and /dev/zero was read until memory ran out.
    os.mkfifo(tmp_path / "fifo")
    r = ssdlab("plot", kind, source, "-o", "p.png", cwd=tmp_path)
    refused(r, source, "not a regular file")
    assert not (tmp_path / "p.png").exists()


def test_a_sweep_plot_of_a_text_column_is_refused(tmp_path):
    # Before: text in a y column was drawn as categories, silently.
    (tmp_path / "r.csv").write_text("iodepth,iops\n1,fast\n2,faster\n")
    r = ssdlab("plot", "sweep", "r.csv", "--x", "iodepth", "--y", "iops", "-o", "p.png",
               cwd=tmp_path, timeout=60)  # fmt: skip
    refused(r, "r.csv", "'iops'", "text")
    assert not (tmp_path / "p.png").exists()


@pytest.mark.parametrize("value", ["inf", "1e300", "nan", "0"])
def test_serve_time_scale_must_be_finite(tmp_path, value):
    # Before: inf and 1e300 overflowed converting to wall nanoseconds (OverflowError).
    r = ssdlab("serve", "tiny-test", "--socket", "s.sock", "--time-scale", value, cwd=tmp_path)
    refused(r, "--time-scale")


def test_serve_checks_its_stats_file_before_serving(tmp_path):
    # Before: a --stats that could not be written was found only on exit, after serving.
    r = ssdlab("serve", "tiny-test", "--socket", "s.sock", "--stats", ".", cwd=tmp_path)
    refused(r, "--stats")
    assert not (tmp_path / "s.sock").exists()
