"""Audit cases: workload flags of `ssdlab run`, workload JSON files and named workloads,
and the run-level flags (`--state`, `--seed`, `--max-memory`, `--verify`)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from checks import json_report
from harness import Case, cli

OUT = ["--quiet", "--json", "out/r.json"]
BASE = ["run", "--device", "tiny-test", "--number_ios", "200"]

# flag -> bad values (each must be refused naming the flag's field)
BAD_FLAGS = {
    "--rw": ["", "randomread", "read,write", "READ", "trim;rm -rf /", "x" * 10_000],
    "--bs": [
        "0",
        "-4k",
        "4kB",
        "513",
        "1e3",
        "4k:8k",
        "256MiB",
        "nan",
        "18446744073709551616",
        "99999999999999999999999999k",
    ],
    "--rwmixread": ["-1", "101", "50.5", "abc", "1e2"],
    "--iodepth": ["0", "-1", "65537", "1.5", "abc", "4294967297", "9" * 30],
    "--numjobs": ["0", "4097", "-2", "abc", "1e9"],
    "--queues": ["0", "-1", "abc"],
    "--queue_policy": ["", "random", "per_thread"],
    "--offset": ["-1", "1e", "abc", "4EiB", "64MiB"],
    "--size": ["0", "-1", "1p", "abc", "5EiB", "100GiB"],
    "--number_ios": ["-1", "abc", "1.5", "18446744073709551616"],
    "--io_size": ["-1", "abc", "1EiB"],
    "--runtime": ["-1", "abc", "nan", "inf", "1e30", "200y", "3650000d"],
    "--ramp_time": ["-1", "abc", "inf"],
    "--host_cpu_per_io": ["-1us", "abc", "200y"],
    "--host_irq_per_io": ["-1us", "abc", "200y"],
    "--random_generator": ["", "mt19937", "lfsr2"],
    "--state": ["", "dirty", "FULL"],
    "--seed": ["-1", "abc", "18446744073709551616", "1.5"],
    "--max-memory": ["-1", "abc", "18446744073709551616", "99999999999999999999999T", "1e3"],
    "--workload": [
        "nope",
        "iometer:",
        "iometer:4K,100,70",
        "iometer:4K,101,70,100",
        "iometer:0,100,70,100",
        "/dev/zero",
        ".",
    ],
}

# flag combinations that look fine but are not, or are fine and must run sanely
COMBOS = {
    "size-past-capacity": (["--size", "64MiB"], "error", "size"),
    "offset-plus-size": (["--offset", "16MiB", "--size", "16MiB"], "error", ("offset", "size")),
    "bs-above-size": (["--bs", "1MiB", "--size", "512KiB"], "any", "block size"),
    # Careless but valid: lenient spacing, a hex size (fio's 0x), more queues than the
    # drive has (the host creates what the drive supports), an empty workload file.
    "bs-with-space": (["--bs", "4 k"], "any", "bs"),
    "io-size-hex": (["--io_size", "0x10"], "any", "io_size"),
    "queues-above-drive": (["--queues", "65536"], "any", "queues"),
    "host-cpu-bare-seconds": (["--host_cpu_per_io", "1"], "any", "host_cpu_per_io"),
    "empty-workload-name": (["--workload", ""], "any", "workload"),
    "rwmix-on-read": (["--rw", "read", "--rwmixread", "30"], "any", "rwmixread"),
    "numjobs-and-queues": (["--numjobs", "8", "--queues", "2"], "ok", ""),
    "runtime-and-number-ios": (["--runtime", "1ms"], "ok", ""),
    "trim": (["--rw", "trim"], "ok", ""),
    "randtrim-fresh": (["--rw", "randtrim", "--state", "fresh"], "ok", ""),
    "ramp-longer-than-runtime": (["--runtime", "1ms", "--ramp_time", "2ms"], "any", "ramp_time"),
    "zero-number-ios": (["--number_ios", "0"], "any", "number_ios"),
    "io-size-512": (["--io_size", "512", "--bs", "512"], "any", ""),
    "verify-randrw": (["--rw", "randrw", "--verify"], "ok", ""),
    "qd-65536": (["--iodepth", "65536"], "ok", ""),
    "every-state": (["--state", "aging"], "ok", ""),
    "host-cpu": (["--host_cpu_per_io", "10us"], "ok", ""),
    "max-memory-tiny": (["--max-memory", "1M"], "error", "max_memory"),
    "max-memory-zero": (["--max-memory", "0"], "ok", ""),
    "norandommap": (["--norandommap", "--rw", "randwrite"], "ok", ""),
    "workload-and-flags": (["--workload", "iometer-4k-70-30", "--iodepth", "4"], "ok", ""),
    "several-devices-json-file": (["--device", "tiny-test,tiny-test"], "any", "json"),
}

WORKLOAD_FILES = {
    "empty": "",
    "not-json": "rw = randread",
    "list": "[]",
    "null": "null",
    "string": '"randread"',
    "nested-deep": "[" * 10_000 + "]" * 10_000,
    "duplicate-key": '{"rw": "randread", "rw": "write"}',
    "unknown-key": '{"rw": "randread", "bogus": 1}',
    "bool-iodepth": '{"iodepth": true}',
    "float-iodepth": '{"iodepth": 2.5}',
    "nan": '{"iodepth": NaN}',
    "infinity": '{"rwmixread": Infinity}',
    "jobs-empty": '{"jobs": []}',
    "jobs-5000": json.dumps({"jobs": [{"rw": "randread", "number_ios": 1}] * 5000}),
    "jobs-not-list": '{"jobs": {"rw": "read"}}',
    "job-unknown-key": '{"jobs": [{"rw": "read", "bogus": 2}]}',
    "bssplit-bad-sum": '{"bssplit": "4k/50:8k/60"}',
    "bssplit-zero-bs": '{"bssplit": "0/100"}',
    "huge-number": '{"number_ios": 1e400}',
    "neg-zero": '{"iodepth": -0}',
    "big-int": '{"iodepth": 123456789012345678901234567890}',
    "utf16": '{"rw": "read"}'.encode("utf-16"),
    "binary": os.urandom(2048),
    "trace-missing": '{"trace": {"path": "nope.csv"}}',
    "trace-dir": '{"trace": {"path": "."}}',
    "trace-fifo": '{"trace": {"path": "fifo"}}',
    "empty-obj": "{}",
}


def _writer(name, data):
    def setup(box: Path):
        p = box / name
        p.write_bytes(data if isinstance(data, bytes) else data.encode())
        os.mkfifo(box / "fifo")

    return setup


def cases() -> list[Case]:
    out = []
    for flag, values in BAD_FLAGS.items():
        field = flag.lstrip("-").replace("-", "_")
        for v in values:
            out.append(
                Case(
                    "workload",
                    f"{flag}={v[:30]!r}",
                    cli(*BASE, flag, v, *OUT),
                    "error",
                    needle=(field, flag, field.replace("_", "-"), "workload", "iometer"),
                    setup=_writer("w.json", "{}") if v == "w.json" else None,
                    quick=v in ("0", "abc") and flag in ("--iodepth", "--bs"),
                    timeout=30,
                )
            )
    for tag, (args, expect, needle) in COMBOS.items():
        ios = 200 if expect == "ok" and "runtime" not in tag and "trim" not in tag else None
        out.append(
            Case(
                "workload",
                f"combo:{tag}",
                cli(*BASE, *args, *OUT),
                expect,
                needle=needle,
                check=json_report(ios=None if "numjobs" in tag or "io-size" in tag else ios),
                timeout=120,
                quick=tag == "size-past-capacity",
            )
        )
    for tag, data in WORKLOAD_FILES.items():
        expect = (
            "any" if tag in ("neg-zero", "duplicate-key", "huge-number", "empty-obj") else "error"
        )
        # 5,000 jobs need ~6 GiB: under a careless user's 1 GiB budget, refused up front.
        budget = ["--max-memory", "1G"] if tag == "jobs-5000" else []
        out.append(
            Case(
                "workload-file",
                tag,
                cli(*BASE, "--workload", "w.json", *budget, *OUT),
                expect,
                needle=("w.json", "workload", "trace", "max_memory"),
                setup=_writer("w.json", data),
                check=json_report(),
                quick=tag in ("nested-deep", "binary"),
                timeout=60,
            )
        )
    return out
