"""Audit cases: plot inputs (`ssdlab plot lat-cdf|sweep|timeline`) that are not what
they should be: empty, binary, JSON of the wrong shape, NaN, huge, directories, FIFOs,
missing columns; and probes (`ssdlab probe`) with bad targets and sizes."""

from __future__ import annotations

import json
import os
from pathlib import Path

from harness import Case, cli

INPUTS = {
    "empty": b"",
    "binary": os.urandom(4096),
    "json-list": b"[1, 2, 3]",
    "json-null": b"null",
    "json-number": b"42",
    "json-empty-obj": b"{}",
    "fio-no-jobs": b'{"jobs": []}',
    "fio-job-no-read": b'{"jobs": [{"jobname": "j"}]}',
    "nan-latency": json.dumps(
        {
            "jobs": [
                {"read": {"total_ios": 1, "clat_ns": {"percentile": {"50.000000": float("nan")}}}}
            ]
        }
    ).encode(),
    "deep": b"[" * 100_000 + b"]" * 100_000,
    "csv-no-columns": b"a,b\n1,2\n",
    "csv-text-values": b"iodepth,iops\nx,y\n",
    "huge-line": b'{"jobs": "' + b"x" * 5_000_000 + b'"}',
}


def _writer(data):
    def setup(box: Path):
        (box / "in.json").write_bytes(data)
        (box / "in.csv").write_bytes(data)
        os.mkfifo(box / "fifo")

    return setup


def plot_cases() -> list[Case]:
    out = []
    for tag, data in INPUTS.items():
        for kind, args in (
            ("lat-cdf", ["in.json"]),
            ("timeline", ["in.json"]),
            ("sweep", ["in.csv", "--x", "iodepth", "--y", "iops"]),
        ):
            out.append(
                Case(
                    "plot",
                    f"{kind}:{tag}",
                    cli("plot", kind, *args, "-o", "out/p.png"),
                    "error",
                    needle=("in.json", "in.csv", "not a column"),
                    setup=_writer(data),
                    timeout=60,
                    quick=tag == "binary" and kind == "timeline",
                )
            )
    for tag, arg in {
        "dir": ".",
        "fifo": "fifo",
        "missing": "nope.json",
        "dev-zero": "/dev/zero",
    }.items():
        for kind in ("lat-cdf", "timeline"):
            out.append(
                Case(
                    "plot",
                    f"{kind}:path-{tag}",
                    cli("plot", kind, arg, "-o", "out/p.png"),
                    "error",
                    needle=(arg,),
                    setup=_writer(b"{}"),
                    timeout=20,
                )
            )
    out.append(
        Case(
            "plot",
            "sweep:dir-missing-column",
            cli("plot", "sweep", "out", "--x", "nope", "--y", "iops", "-o", "out/p.png"),
            "error",
            needle=("nope", "out"),
            timeout=60,
        )
    )
    return out


def probe_cases() -> list[Case]:
    out = []
    # Sizes small enough for tiny-test (its 24 MiB is below the default probe sizes).
    base = [
        "--quick",
        "--out",
        "out/p",
        "--s-cache",
        "1M",
        "--s-max",
        "4M",
        "--s-min",
        "64k",
        "--s-inc",
        "1M",
        "--d-max",
        "16",
    ]
    bad = {
        "target-missing": (["read-cache", "nope.toml"], "nope"),
        "target-etc-passwd": (["read-cache", "/etc/passwd"], "/etc/passwd"),
        "target-dev-null-write": (["write-buffer", "/dev/null"], ("/dev/null", "destructive")),
        "target-dev-zero-write": (["write-buffer", "/dev/zero"], ("/dev/zero", "destructive")),
        "target-regular-write": (["write-buffer", "data.img"], ("data.img", "destructive")),
        "kind-bogus": (["bogus", "tiny-test"], "bogus"),
        "max-io-2^64": (["read-cache", "tiny-test", "--max-io", str(2**64)], "max-io"),
        "max-io-0": (["read-cache", "tiny-test", "--max-io", "0"], "max-io"),
        "max-io-odd": (["read-cache", "tiny-test", "--max-io", "1000"], "max-io"),
        "s-min-above-max": (
            ["read-cache", "tiny-test", "--s-min", "1M", "--s-max", "4k"],
            ("s-min", "s-max", "S_MIN"),
        ),
        "s-inc-0": (["read-cache", "tiny-test", "--s-inc", "0"], ("s-inc", "S_INC")),
        "s-max-huge": (["read-cache", "tiny-test", "--s-max", "1EiB"], ("s-max", "S_MAX")),
        "d-inc-0": (["map-cache", "tiny-test", "--d-inc", "0"], ("d-inc", "D_INC")),
        "d-min-neg": (["map-cache", "tiny-test", "--d-min", "-1"], ("d-min", "D_MIN")),
        "n-huge": (["map-cache", "tiny-test", "--n", str(10**15)], ("--n", "N ")),
        "repeat-0": (["read-cache", "tiny-test", "--repeat", "0"], "repeat"),
        "hmb-bogus": (["read-cache", "hmb-ssd", "--hmb", "sometimes"], "hmb"),
        "state-bogus": (["read-cache", "tiny-test", "--state", "dirty"], "state"),
        "set-bogus": (["read-cache", "tiny-test", "--set", "nand.x=1"], "x"),
        "out-is-file": (["read-cache", "tiny-test", "--out", "data.img"], ("--out", "data.img")),
    }
    for tag, (args, needle) in bad.items():
        out.append(
            Case(
                "probe",
                tag,
                cli("probe", *base, *args)
                if "--out" not in args
                else cli("probe", "--quick", *args),
                "error",
                needle=needle if isinstance(needle, tuple) else (needle,),
                setup=lambda b: (b / "data.img").write_bytes(b"\1" * 65536),
                timeout=90,
                quick=tag == "max-io-2^64",
            )
        )
    out.append(
        Case(
            "probe",
            "read-cache-quick-ok",
            cli("probe", "read-cache", "tiny-test", *base),
            "ok",
            timeout=300,
        )
    )
    out.append(
        Case(
            "probe",
            "regular-file-read-only-probe",
            cli("probe", "read-cache", "data.img", *base),
            "any",
            needle=("data.img",),
            setup=lambda b: (b / "data.img").write_bytes(b"\1" * 65536),
            timeout=120,
            check=lambda r, b: (
                None
                if (b / "data.img").read_bytes() == b"\1" * 65536
                else "data.img changed without --destructive"
            ),
        )
    )
    return out


def cases() -> list[Case]:
    return plot_cases() + probe_cases()
