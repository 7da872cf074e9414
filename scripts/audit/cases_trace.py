"""Audit cases: block traces (`ssdlab trace`) in every format: bad lines, huge values,
binary and endless inputs, timestamps that go backwards or to 2^64, flags."""

from __future__ import annotations

import os
from pathlib import Path

from checks import json_report
from harness import Case, cli

MSR_OK = "128166372003061629,hm,0,Read,4096,4096,100\n128166372003071629,hm,0,Write,8192,4096,100\n"
BLK_OK = "  8,0    3        1     0.000000000  697  Q   R 8 + 8 [fio]\n"

# format -> bad traces
BAD = {
    "msr": [
        "garbage\n",
        "1,hm,0,Read,-4096,4096,100\n",
        "1,hm,0,Read,4096,-1,100\n",
        "1,hm,0,Frob,4096,4096,100\n",
        "1,hm,0,Read,4096,999999999999999,100\n",
        "18446744073709551616,hm,0,Read,0,4096,1\n",
        "1,hm,x,Read,0,4096,1\n",
        "1,hm,0,Read,0\n",
        "1,hm,0,Read,0,4096,1,extra,fields,here\n",
        "2,hm,0,Read,0,4096,1\n1,hm,0,Read,0,4096,1\n",
        "1,hm,0,Read,nan,4096,1\n",
    ],
    "blkparse": [
        "not blkparse\n",
        "  8,0 3 1 0.0 697 Q R -8 + 8 [fio]\n",
        "  8,0 3 1 abc 697 Q R 8 + 8 [fio]\n",
        "  8,0 3 1 0.0 697 Q R 8 + 99999999999999 [fio]\n",
        "  8,0 3 1 inf 697 Q R 8 + 8 [fio]\n",
    ],
    "fio-iolog": [
        "fio version 2 iolog\nfoo add\nfoo open\nfoo read -1 4096\n",
        "fio version 2 iolog\nfoo read 0 4096\n",
        "fio version 3 iolog\n0 foo add\n0 foo read x 1\n",
        "no header\n",
        "fio version 1 iolog\nbar read 0 4096\n",
    ],
    "mqsim": ["x y z\n", "0 0 -1 8 1\n", "0 0 0 8 7\n", "99999999999999999999 0 0 8 1\n"],
    "csv": [
        "a,b,c\n",
        "time,offset,size,op\n0,0,4096,explode\n",
        "time,offset,size,op\n-1,0,4096,R\n",
    ],
}

SPECIAL = {
    "empty": b"",
    "binary": os.urandom(8192),
    "no-newline-1MB": b"1" * 1_000_000,
    "nul-lines": b"\0\n" * 1000,
    "utf16": MSR_OK.encode("utf-16"),
    "crlf": MSR_OK.replace("\n", "\r\n").encode(),
    "only-comments": b"# nothing\n" * 10,
    "10k-bad-lines": b"bad\n" * 10_000,
}


def _writer(data):
    def setup(box: Path):
        (box / "t.csv").write_bytes(data if isinstance(data, bytes) else data.encode())
        os.mkfifo(box / "fifo.csv")

    return setup


def cases() -> list[Case]:
    out = []
    run = ["trace", "t.csv", "--device", "tiny-test", "--quiet", "--json", "out/r.json"]
    for fmt, traces in BAD.items():
        for i, t in enumerate(traces):
            out.append(
                Case(
                    "trace",
                    f"{fmt}#{i}",
                    cli(*run, "--format", fmt),
                    "any",
                    needle=("t.csv:", "t.csv"),
                    setup=_writer(t),
                    check=json_report(),
                    quick=i == 0,
                    timeout=30,
                )
            )
    for tag, data in SPECIAL.items():
        for fmt in ("msr", "blkparse", "csv"):
            out.append(
                Case(
                    "trace",
                    f"{tag}/{fmt}",
                    cli(*run, "--format", fmt),
                    "any",
                    needle=("t.csv",),
                    setup=_writer(data),
                    check=json_report(),
                    timeout=30,
                )
            )
    flags = {
        "speedup-0": ["--mode", "timed", "--speedup", "0"],
        "speedup-nan": ["--mode", "timed", "--speedup", "nan"],
        "speedup-1e-300": ["--mode", "timed", "--speedup", "1e-300"],
        "iodepth-0": ["--iodepth", "0"],
        "max-requests-0": ["--max-requests", "0"],
        "max-requests-neg": ["--max-requests", "-5"],
        "disk-huge": ["--disk", str(2**70)],
        "skip-bad-neg": ["--skip-bad-lines", "-1"],
        "lba-bogus": ["--lba", "fold"],
        "format-bogus": ["--format", "parquet"],
    }
    for tag, f in flags.items():
        out.append(
            Case(
                "trace",
                f"flag:{tag}",
                cli(*run, *f),
                "error",
                needle=tuple(x for x in f if x.startswith("--"))
                + tuple(x.strip("-").replace("-", "_") for x in f if x.startswith("--")),
                setup=_writer(MSR_OK),
                timeout=30,
            )
        )
    for tag, path in {
        "fifo": "fifo.csv",
        "dir": ".",
        "dev-zero": "/dev/zero",
        "missing": "no.csv",
        "dev-urandom": "/dev/urandom",
    }.items():
        out.append(
            Case(
                "trace",
                f"path:{tag}",
                cli("trace", path, "--format", "msr", "--quiet"),
                "error",
                needle=(path,),
                setup=_writer(MSR_OK),
                timeout=20,
                quick=tag == "fifo",
            )
        )
    for fmt, t in (("msr", MSR_OK), ("blkparse", BLK_OK)):
        out.append(
            Case(
                "trace",
                f"good:{fmt}",
                cli(*run, "--format", fmt),
                "ok",
                setup=_writer(t),
                check=json_report(ios=2 if fmt == "msr" else 1),
            )
        )
    # A huge time gap: replayed timed, idle simulated time costs nothing.
    gap = "0,hm,0,Read,0,4096,1\n9000000000000000000,hm,0,Read,0,4096,1\n"
    out.append(
        Case(
            "trace",
            "timed-huge-gap",
            cli(*run, "--format", "msr", "--mode", "timed"),
            "any",
            setup=_writer(gap),
            timeout=60,
            check=json_report(max_sim_s=1e12),
        )
    )
    return out
