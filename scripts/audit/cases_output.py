# ruff: noqa: E501
# (tables of hostile inputs, one case a line)
"""Audit cases: output paths (`--json`, `--output`, `--out`) of every command that
writes, on a full file system (a 64 KiB tmpfs mounted in the sandbox where permitted,
/dev/full otherwise), read-only places, odd names; nothing may be half-written."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from checks import file_absent
from harness import Case, cli

RUN = ["run", "--device", "tiny-test", "--number_ios", "200", "--quiet"]


def _full_fs(box: Path) -> None:
    """A tiny tmpfs, filled: a write there fails with ENOSPC. /dev/full where mounting
    is not permitted (then the case checks the same refusal)."""
    d = box / "full"
    d.mkdir()
    try:
        r = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(d)], capture_output=True
        )
    except OSError:  # no mount(8): the case accepts either outcome (can_mount_tmpfs)
        return
    if r.returncode == 0:
        with open(d / "filler", "wb") as f:
            try:
                f.write(b"\0" * (1 << 20))
            except OSError:
                pass
        (box / ".mounted").write_text(str(d))


def can_mount_tmpfs() -> bool:
    """Whether this process may mount a tmpfs (root with CAP_SYS_ADMIN): without it the
    full-disk cases cannot fill a file system, and accept either outcome."""
    import tempfile

    with tempfile.TemporaryDirectory() as d:
        try:
            r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=4k", "tmpfs", d],
                               capture_output=True)  # fmt: skip
        except OSError:  # no mount(8)
            return False
        if r.returncode:
            return False
        subprocess.run(["umount", d], capture_output=True)
        return True


def teardown_full(box: Path) -> None:
    m = box / ".mounted"
    if m.exists():
        subprocess.run(["umount", "-l", m.read_text()], capture_output=True)


def _setup(box: Path) -> None:
    (box / "ro").mkdir()
    (box / "ro.json").write_text("{}")
    os.chmod(box / "ro.json", 0o444)
    os.mkfifo(box / "fifo")
    os.symlink("loop2", box / "loop1")
    os.symlink("loop1", box / "loop2")
    os.symlink("/dev/null", box / "null-link")
    (box / "a-file").write_text("x")
    _full_fs(box)


def _full_checks(*names):
    return file_absent(*names)


def cases() -> list[Case]:
    out = []
    targets = {
        "dir": (".", "error"),
        "read-only-file": ("ro.json", "error"),
        "missing-parent": ("nope/x.json", "error"),
        "parent-is-file": ("a-file/x.json", "error"),
        "symlink-loop": ("loop1", "error"),
        "name-too-long": ("x" * 300 + ".json", "error"),
        "path-too-long": ("/".join(["d" * 200] * 30) + "/x.json", "error"),
        "empty": ("", "error"),
        "dev-full": ("/dev/full", "error"),
        "full-fs": ("full/r.json", "error"),
        "dev-null": ("/dev/null", "ok"),
        "null-link": ("null-link", "ok"),
        "proc": ("/proc/self/fd/1", "ok"),
        "dash": ("-", "ok"),  # stdout for --json; fio's --output - is a file named "-"
    }
    if not can_mount_tmpfs():
        targets["full-fs"] = ("full/r.json", "any")
    for tag, (path, expect) in targets.items():
        left = ("full/r.json",) if tag == "full-fs" else ()
        for cmd, args in (
            ("run", [*RUN, "--json", path]),
            ("fio", ["fio", "job.fio", "--device", "tiny-test", "--output", path]),
            (
                "trace",
                [
                    "trace",
                    "t.csv",
                    "--format",
                    "msr",
                    "--device",
                    "tiny-test",
                    "-q",
                    "--json",
                    path,
                ],
            ),
            (
                "probe",
                [
                    "probe",
                    "read-cache",
                    "tiny-test",
                    "--quick",
                    "--s-cache",
                    "1M",
                    "--s-max",
                    "4M",
                    "--s-min",
                    "64k",
                    "--s-inc",
                    "1M",
                    "--json",
                    path,
                    "--out",
                    "out/p",
                ],
            ),
        ):

            def setup(box, _cmd=cmd):
                _setup(box)
                (box / "job.fio").write_text("[j]\nrw=randread\nnumber_ios=200\n")
                (box / "t.csv").write_text("1,hm,0,Read,0,4096,1\n")

            out.append(
                Case(
                    "output",
                    f"{cmd}:{tag}",
                    cli(*args),
                    expect,
                    needle=(
                        "--json",
                        "--output",
                        path[:20] if path else "standard output",
                        "--out",
                        "No space",
                        "full",
                    ),
                    setup=setup,
                    check=_full_checks(*left),
                    timeout=90,
                    # fio's --output - is a file named "-" (as fio's own); --json - is stdout.
                    allowed=("out", "full", ".mounted", "-"),
                    quick=tag in ("full-fs", "dev-full"),
                )
            )
    # Sweeps on a full disk and into odd places.
    grid = '[base]\ndevice = "tiny-test"\nworkload = { rw = "randread", number_ios = 100 }\n[axes]\n"workload.iodepth" = [1, 2]\n'
    for tag, d, expect in (
        ("full-fs", "full/sw", "error" if can_mount_tmpfs() else "any"),
        ("dev-null", "/dev/null", "error"),
        ("fifo", "fifo", "error"),
        ("read-only-dir", "ro", "any"),
    ):

        def setup(box, _tag=tag):
            _setup(box)
            (box / "g.toml").write_text(grid)
            if _tag == "read-only-dir":
                os.chmod(box / "ro", 0o555)

        out.append(
            Case(
                "output",
                f"sweep:{tag}",
                cli("sweep", "g.toml", "--out", d, "-q"),
                expect,
                needle=("--out", d, "No space", "full"),
                setup=setup,
                timeout=90,
                allowed=("out", "full", ".mounted", "ro"),
            )
        )
    # Plots to bad places (a report made in the setup).
    for tag, path, expect in (
        ("full-fs", "full/p.png", "error" if can_mount_tmpfs() else "any"),
        ("dev-full", "/dev/full", "error"),
        ("unknown-ext", "out/p.xyz", "error"),
        ("dir", ".", "error"),
        ("no-ext", "out/p", "ok"),
        ("svg", "out/p.svg", "ok"),
    ):

        def setup(box):
            _setup(box)
            (box / "r.json").write_text(_report())

        out.append(
            Case(
                "output",
                f"plot:{tag}",
                cli("plot", "lat-cdf", "r.json", "-o", path),
                expect,
                needle=("-o", "--output", path[:20], "No space"),
                setup=setup,
                timeout=90,
                check=file_absent("full/p.png"),
                allowed=("out", "full", ".mounted"),
                quick=tag == "full-fs",
            )
        )
    for c in out:
        c.teardown = teardown_full
    return out


_REPORT: list[str] = []


def _report() -> str:
    if not _REPORT:
        r = subprocess.run([*cli(*RUN, "--json", "-")], capture_output=True, text=True, check=True)
        _REPORT.append(r.stdout)
    return _REPORT[0]
