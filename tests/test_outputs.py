"""Output files (issue 14, item 1): only a regular file the user named is replaced;
devices and FIFOs are written through; symlinks are followed; directories and read-only
files are refused before the run starts (docs/reliability.md)."""

import json
import os
import stat
import subprocess
import sys
import threading

import pytest
from ssdlab import outputs

RUN = ["run", "--device", "tiny-test", "-q", "--number_ios", "200"]


def cli(*args, **kw):
    return subprocess.run(
        [sys.executable, "-m", "ssdlab", *args], capture_output=True, text=True, **kw
    )


def test_new_file_gets_the_report(tmp_path):
    out = tmp_path / "r.json"
    r = cli(*RUN, "--json", str(out))
    assert r.returncode == 0, r.stderr
    assert json.loads(out.read_text())["config"]["name"]


def test_existing_file_keeps_its_mode(tmp_path):
    out = tmp_path / "r.json"
    out.write_text("old")
    out.chmod(0o640)
    outputs.write_file(out, "new")
    assert out.read_text() == "new"
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


@pytest.mark.skipif(os.geteuid() != 0, reason="mknod needs root")
def test_character_device_is_written_through_not_replaced(tmp_path):
    node = tmp_path / "null"
    os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    r = cli(*RUN, "--json", str(node))
    assert r.returncode == 0, r.stderr
    assert stat.S_ISCHR(os.lstat(node).st_mode)


def test_dev_null_is_written_through(tmp_path):
    before = os.stat("/dev/null")
    outputs.write_file("/dev/null", "x")
    after = os.stat("/dev/null")
    assert (before.st_ino, before.st_mode) == (after.st_ino, after.st_mode)


def test_fifo_is_written_through(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got = []
    t = threading.Thread(target=lambda: got.append(open(fifo).read()))
    t.start()
    outputs.write_file(fifo, "hello\n")
    t.join(5)
    assert got == ["hello\n"]
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_symlink_to_a_regular_file_is_followed(tmp_path):
    target = tmp_path / "real.json"
    target.write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(target)
    r = cli(*RUN, "--json", str(link))
    assert r.returncode == 0, r.stderr
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert json.loads(target.read_text())["config"]


def test_read_only_file_is_refused_before_the_run(tmp_path):
    out = tmp_path / "r.json"
    out.write_text("keep me")
    out.chmod(0o444)
    # number_ios large enough that a run would take many seconds: the check comes first
    r = cli("run", "--device", "tiny-test", "-q", "--number_ios", "100000000", "--json", str(out),
            timeout=60)  # fmt: skip
    assert r.returncode == 2
    assert "--json" in r.stderr and "read-only" in r.stderr
    assert "Traceback" not in r.stderr
    assert out.read_text() == "keep me"


def test_directory_is_refused(tmp_path):
    r = cli(*RUN, "--json", str(tmp_path))
    assert r.returncode == 2
    assert "is a directory" in r.stderr and "Traceback" not in r.stderr
    assert tmp_path.is_dir()


def test_missing_parent_is_refused_before_the_run(tmp_path):
    r = cli("run", "--device", "tiny-test", "-q", "--number_ios", "100000000",
            "--json", str(tmp_path / "no" / "r.json"), timeout=60)  # fmt: skip
    assert r.returncode == 2 and "does not exist" in r.stderr


def test_fio_output_read_only_refused_before_the_run(tmp_path):
    job = tmp_path / "j.fio"
    job.write_text("[j]\nrw=randread\nbs=4k\nnumber_ios=100000000\n")
    out = tmp_path / "o.txt"
    out.write_text("keep")
    out.chmod(0o444)
    r = cli("fio", str(job), "--device", "tiny-test", "--output", str(out), timeout=60)
    assert r.returncode == 2 and "--output" in r.stderr and "read-only" in r.stderr
    assert out.read_text() == "keep"


def test_probe_out_under_a_file_refused_before_probing(tmp_path):
    f = tmp_path / "file"
    f.write_text("x")
    r = cli("probe", "read-cache", "tiny-test", "--out", str(f / "sub"), timeout=60)
    assert r.returncode == 2 and "--out" in r.stderr and "Traceback" not in r.stderr


def test_write_file_unit_rules(tmp_path):
    with pytest.raises(outputs.OutputError, match="is a directory"):
        outputs.check_file(tmp_path, "--json")
    ro = tmp_path / "ro"
    ro.write_text("x")
    ro.chmod(0o400)
    with pytest.raises(outputs.OutputError, match="read-only"):
        outputs.write_file(ro, "y", "--json")
    assert ro.read_text() == "x"
