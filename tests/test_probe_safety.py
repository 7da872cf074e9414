"""Writing probes never touch existing data without --destructive, and a bare preset
name means the preset even when a file of that name exists (issue 14, item 2)."""

import hashlib
import subprocess
import sys

SMALL = ["--s-min", "64K", "--s-max", "128K", "--s-inc", "64K", "--s-buffer", "4M"]


def _probe(cwd, target, *extra):
    return subprocess.run(
        [sys.executable, "-m", "ssdlab", "probe", "write-buffer", target, "--out", "out",
         *SMALL, *extra],
        cwd=cwd, capture_output=True, text=True, timeout=300,
    )  # fmt: skip


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_preset_name_means_the_preset_not_the_file(tmp_path):
    f = tmp_path / "tiny-test"
    f.write_bytes(b"\0" * (64 << 20))
    before = _digest(f)
    r = _probe(tmp_path, "tiny-test")
    assert r.returncode == 0, r.stderr
    assert "is the preset" in r.stderr and "./tiny-test" in r.stderr
    assert "simulated" in r.stdout or "tiny-test" in r.stdout
    assert _digest(f) == before


def test_a_file_is_not_written_without_destructive(tmp_path):
    f = tmp_path / "disk.img"
    f.write_bytes(b"\1" * (64 << 20))
    before = _digest(f)
    r = _probe(tmp_path, "./disk.img")
    assert r.returncode == 2
    assert "--destructive" in r.stderr and "disk.img" in r.stderr
    assert "Traceback" not in r.stderr
    assert _digest(f) == before
