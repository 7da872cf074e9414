"""Audit cases: fio job files (`ssdlab fio`, with and without `--parse-only`): broken
syntax, every simulated option with bad values, includes (loops, FIFOs, devices,
fan-outs), environment variables, huge `numjobs` and section counts, iologs."""

from __future__ import annotations

import os
from pathlib import Path

from checks import json_report
from harness import Case, cli

HEAD = "[global]\nioengine=libaio\nbs=4k\nnumber_ios=200\n"

# option -> bad values; each must be refused naming job.fio:LINE
BAD_OPTS = {
    "rw": ["randomread", "", "read:abc", "randread:-1"],
    # ("-4k" and "4k:8k:16k" are per-direction lists fio 3.33 takes too.)
    "bs": ["0", "4q", "1e", "99999999999999999999k"],
    "bsrange": ["8k-4k", "abc", "4k-"],
    "bssplit": ["4k/50:8k/60", "4k/", "/100", "0/100"],
    "iodepth": ["0", "-1", "abc", "1000000"],
    "numjobs": ["0", "-1", "5000", "abc"],
    "size": ["0", "-1", "abc", "200%"],
    "offset": ["-1", "abc", "101%", "1e"],
    "io_size": ["-1", "abc"],
    "number_ios": ["-1", "abc"],
    "runtime": ["-1", "abc", "1e999"],
    "ramp_time": ["-1", "abc"],
    "rwmixread": ["101", "-1", "abc"],
    "thinktime": ["-1", "abc"],
    "rate_iops": ["-1", "abc", "0x"],
    "random_distribution": ["zipf", "zipf:-1", "pareto:2", "bogus", "normal:abc"],
    "randseed": ["-1", "abc", "18446744073709551616"],
    "loops": ["0", "-1", "abc"],
    "startdelay": ["-1", "abc"],
    "offset_increment": ["-1", "abc"],
    "kb_base": ["1001", "abc"],
    "replay_time_scale": ["0", "-1", "abc"],
    "verify": ["sha9999"],
    "ioengine": ["bogus-engine"],
}

SHAPES = {
    "empty": (b"", "any"),
    "binary": (os.urandom(3000), "error"),
    "latin1": (b"[j]\nname=caf\xe9\n", "error"),
    "no-section": (b"bs=4k\n", "any"),
    "unclosed-section": (b"[job\nbs=4k\n", "error"),
    "option-before-section": (b"rw=read\n[j]\n", "any"),
    "unknown-option": (HEAD.encode() + b"[j]\nbogus_option=1\n", "any"),
    "10000-sections": (HEAD.encode() + b"".join(b"[j%d]\n" % i for i in range(10_000)), "any"),
    "numjobs-4096-x3": (b"[global]\nnumber_ios=1\nnumjobs=4096\n[a]\n[b]\n[c]\n", "error"),
    "env-unset": (HEAD.encode() + b"[j]\nbs=${NOPE_NOT_SET}\n", "error"),
    "env-recursive": (HEAD.encode() + b"[j]\nbs=${AUDIT_LOOP}\n", "any"),
    "long-line": (HEAD.encode() + b"[j]\nname=" + b"x" * 2_000_000 + b"\n", "error"),
    "many-lines": (HEAD.encode() + b"[j]\n" + b";c\n" * 200_000, "any"),
    "nul": (HEAD.encode() + b"[j]\nbs=4k\x00\n", "error"),
    "stonewall-only": (HEAD.encode() + b"[a]\nstonewall\n[b]\nstonewall\n", "ok"),
    "include-self": (b"include job.fio\n" + HEAD.encode() + b"[j]\n", "error"),
    "include-missing": (b"include nope.fio\n[j]\n", "error"),
    "include-fifo": (b"include fifo.fio\n[j]\n", "error"),
    "include-dev-zero": (b"include /dev/zero\n[j]\n", "error"),
    "include-dev-urandom": (b"include /dev/urandom\n[j]\n", "error"),
    "include-dir": (b"include .\n[j]\n", "error"),
    "include-etc-shadow": (b"include /etc/shadow\n[j]\n", "error"),
    "include-fanout": (b"".join(b"include inc.fio\n" for _ in range(2000)) + b"[j]\n", "error"),
    "iolog-missing": (HEAD.encode() + b"[j]\nread_iolog=nope.log\n", "error"),
    "iolog-v1": (HEAD.encode() + b"[j]\nread_iolog=v1.log\n", "any"),
    "iolog-dev-zero": (HEAD.encode() + b"[j]\nread_iolog=/dev/zero\n", "error"),
    "iolog-fifo": (HEAD.encode() + b"[j]\nread_iolog=fifo.fio\n", "error"),
    "size-1p": (b"[j]\nrw=randread\nsize=1p\nnumber_ios=100\n", "any"),
    "write_iolog": (HEAD.encode() + b"[j]\nwrite_iolog=/etc/audit-iolog\n", "any"),
    "filename-dev": (HEAD.encode() + b"[j]\nfilename=/dev/sda\nrw=write\n", "any"),
    "exec-prerun": (HEAD.encode() + b"[j]\nexec_prerun=touch $AUDIT_OUTSIDE/pwned\n", "any"),
    "time-based-no-runtime": (HEAD.encode() + b"[j]\ntime_based\n", "any"),
    "runtime-100y": (b"[j]\nrw=randread\nruntime=100y\ntime_based\nrate_iops=1\n", "any"),
}


# What fio's --parse-only does not look at either: the jobs' memory, their iolog files.
RUN_TIME_ONLY = ("numjobs-4096-x3", "iolog-missing", "iolog-dev-zero", "iolog-fifo")


def _setup(text: bytes):
    def setup(box: Path):
        (box / "job.fio").write_bytes(text)
        os.mkfifo(box / "fifo.fio")
        (box / "inc.fio").write_text("".join("include inc2.fio\n" for _ in range(100)))
        (box / "inc2.fio").write_text("; nothing\n")
        (box / "v1.log").write_text("fio version 1 iolog\n0 read 0 4096\n")

    return setup


def cases() -> list[Case]:
    out = []
    for opt, values in BAD_OPTS.items():
        for v in values:
            text = (HEAD + f"[j]\nrw=randread\n{opt}={v}\n").encode()
            out.append(
                Case(
                    "fio",
                    f"{opt}={v[:30]!r}",
                    cli("fio", "job.fio", "--device", "tiny-test", "--output", "out/o.txt"),
                    "error",
                    needle=("job.fio:", opt),
                    setup=_setup(text),
                    quick=v == "abc" and opt in ("bs", "iodepth"),
                    timeout=30,
                )
            )
    for tag, (text, expect) in SHAPES.items():
        for parse_only in (False, True):
            args = [
                "fio",
                "job.fio",
                "--device",
                "tiny-test",
                "--output",
                "out/o.json",
                "--output-format",
                "json",
            ]
            if parse_only:
                args.append("--parse-only")
            out.append(
                Case(
                    "fio",
                    f"shape:{tag}{' (parse-only)' if parse_only else ''}",
                    cli(*args),
                    "any" if parse_only and tag in RUN_TIME_ONLY else expect,
                    needle=("job.fio", "include", "iolog", "numjobs", "jobs", "/etc/shadow"),
                    setup=_setup(text),
                    timeout=60,
                    env={"AUDIT_LOOP": "${AUDIT_LOOP}"},
                    check=None if parse_only or expect != "ok" else json_report("out/o.json"),
                    quick=tag in ("include-fifo", "numjobs-4096-x3") and parse_only,
                )
            )
    out.append(
        Case(
            "fio",
            "output-format-bogus",
            cli("fio", "job.fio", "--output-format", "xml"),
            "error",
            needle="output-format",
            setup=_setup((HEAD + "[j]\n").encode()),
        )
    )
    out.append(
        Case(
            "fio",
            "max-ios-2^64",
            cli("fio", "job.fio", "--max-ios", str(2**64)),
            "error",
            needle="max-ios",
            setup=_setup((HEAD + "[j]\n").encode()),
        )
    )
    return out
