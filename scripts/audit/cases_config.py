# ruff: noqa: RUF001
# (tables of hostile inputs, one case a line)
"""Audit cases: device files, system files and `--set`.

Every field of the tiny-test preset is mutated in its device file (a wrong type, a
negative, zero, NaN) and through `--set`; then whole-file oddities (empty, binary,
not UTF-8, duplicate keys, deep nesting, a huge value, a directory, a FIFO, /dev/zero,
a symlink loop) and system files (no drives, hosts = [], counts, unknown drives)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import tomllib
from checks import json_report
from harness import Case, cli

# Every section, defaults resolved (a preset's own text leaves defaults out).
BASE = subprocess.run(
    [sys.executable, "-m", "ssdlab", "presets", "--show", "tiny-test"],
    capture_output=True,
    text=True,
    check=True,
).stdout
RUN = ["--number_ios", "200", "--quiet", "--json", "out/r.json"]


def _fields() -> list[tuple[str, str, object]]:
    doc = tomllib.loads(BASE)
    return [
        (sec, k, v) for sec, tbl in doc.items() if isinstance(tbl, dict) for k, v in tbl.items()
    ]


def _mutate(section: str, key: str, value: str) -> str:
    text, n = re.subn(
        rf"(?ms)(^\[{section}\]\n(?:(?!^\[).)*?)^{key} = .*?$", rf"\g<1>{key} = {value}", BASE
    )
    assert n == 1, (section, key)
    return text


def _writer(name: str, text: str | bytes):
    def setup(box: Path):
        p = box / name
        if isinstance(text, bytes):
            p.write_bytes(text)
        else:
            p.write_text(text)

    return setup


def device_file_fields() -> list[Case]:
    cases = []
    for sec, key, v in _fields():
        field = f"{sec}.{key}"
        if isinstance(v, bool):
            bad = {"text": '"maybe"', "int": "3"}
            zero = None
        elif isinstance(v, (int, float)):
            bad = {"text": '"abc"', "neg": "-1", "nan": "nan", "huge": "1e300"}
            zero = "0"
        else:
            bad = {"bare-number": "7", "garbage": '"12 parsecs"', "neg": '"-5' + _unit(v) + '"'}
            zero = '"0' + _unit(v) + '"'
        for tag, val in bad.items():
            # A bare number is a rate in MT/s (the field's documented unit).
            expect = "any" if (key == "channel_rate" and tag == "bare-number") else "error"
            cases.append(
                Case(
                    "device-file",
                    f"{field}={tag}",
                    cli("run", "--device", "d.toml", *RUN),
                    expect,
                    needle=(key, "d.toml"),
                    check=json_report(ios=200),
                    setup=_writer("d.toml", _mutate(sec, key, val)),
                    quick=(sec == "nand" and tag == "text"),
                )
            )
        if zero is not None:
            cases.append(
                Case(
                    "device-file",
                    f"{field}=zero",
                    cli("run", "--device", "d.toml", *RUN),
                    "any",
                    needle=key,
                    check=json_report(ios=200),
                    setup=_writer("d.toml", _mutate(sec, key, zero)),
                )
            )
    return cases


def _unit(v) -> str:
    m = re.match(r"^[\d.]+(.*)$", str(v))
    return m.group(1) if m else ""


# Free text and surrounding blanks are fine either way.
ANY_SHAPES = ("huge-value", "space-in-unit")


def device_file_shapes() -> list[Case]:
    run = cli("run", "--device", "d.toml", *RUN)
    deep = "a = " + "[" * 5000 + "]" * 5000 + "\n"
    shapes = {
        "empty": ("", "d.toml"),
        "binary": (os.urandom(4096), "d.toml"),
        "latin1": (b'name = "caf\xe9"\n', "d.toml"),
        "nul": (BASE.replace("[nand]", "[nand]\0"), "d.toml"),
        "syntax": (BASE + "\n[nand\n", "d.toml"),
        "duplicate-key": (BASE.replace("[nand]\n", "[nand]\nchannels = 2\n"), "channels"),
        "duplicate-section": (BASE + "\n[nand]\nchannels = 2\n", "nand"),
        "unknown-top": (BASE + "\nbogus = 1\n", "bogus"),
        "unknown-section": (BASE + "\n[bogus]\nx = 1\n", "bogus"),
        "unknown-field": (BASE.replace("[nand]\n", "[nand]\nchanels = 2\n"), "chanels"),
        "deep-nesting": (deep, "d.toml"),
        "huge-value": (BASE.replace('name = "tiny-test"', 'name = "' + "x" * 5_000_000 + '"'), ""),
        "huge-key": (BASE + "\n" + "k" * 100_000 + " = 1\n", ""),
        "section-as-value": (re.sub(r"(?s)\[sram\].*?(?=\n\[)", 'sram = "4MiB"', BASE), "sram"),
        "array-of-tables": (BASE.replace("[dram]", "[[dram]]"), "dram"),
        "date-value": (_mutate("nand", "t_read", "1979-05-27"), "t_read"),
        "inline-table-value": (_mutate("nand", "t_read", "{ a = 1 }"), "t_read"),
        "array-value": (_mutate("nand", "channels", "[2, 2]"), "channels"),
        "exponent-unit": (_mutate("nand", "t_read", '"5e1us"'), "t_read"),
        "unit-case": (_mutate("nand", "t_read", '"50US"'), "t_read"),
        "space-in-unit": (_mutate("nand", "t_read", '" 50 us "'), "t_read"),
        "int-overflow": (_mutate("nand", "channels", "99999999999999999999"), ""),
        "float-count": (_mutate("nand", "channels", "2.5"), "channels"),
        "over-provisioning-1": (_mutate("ftl", "over_provisioning", "1.0"), "over_provisioning"),
        "over-provisioning-big": (_mutate("ftl", "over_provisioning", "7.0"), "over_provisioning"),
        "gc-target-below-threshold": (_mutate("ftl", "gc_target_blocks", "1"), "gc_"),
        "page-size-odd": (_mutate("nand", "page_size", '"12345B"'), "page_size"),
        "page-size-huge": (_mutate("nand", "page_size", '"1GiB"'), "page_size"),
        "channels-huge": (_mutate("nand", "channels", "100000"), "channels"),
        "blocks-huge": (_mutate("nand", "blocks_per_plane", "4294967295"), "blocks_per_plane"),
        "pages-huge": (_mutate("nand", "pages_per_block", "4294967295"), "pages_per_block"),
        "raw-flash-exabyte": (
            _mutate("nand", "blocks_per_plane", "1048576").replace(
                "pages_per_block = 8", "pages_per_block = 65535"
            ),
            "",
        ),
        "mapping-unit-above-page": (_mutate("ftl", "mapping_unit", '"64KiB"'), "mapping_unit"),
        "write-buffer-huge": (_mutate("controller", "write_buffer", '"4EiB"'), "write_buffer"),
        "t-read-1000h": (_mutate("nand", "t_read", '"1000h"'), "t_read"),
        "t-read-3601s": (_mutate("nand", "t_read", '"3601s"'), "t_read"),
        "dram-size-0": (_mutate("dram", "size", '"0B"'), ""),
        "cell-unknown": (_mutate("nand", "cell", '"HLC"'), "cell"),
        "gc-policy-unknown": (_mutate("ftl", "gc_policy", '"lottery"'), "gc_policy"),
        "capacity-and-blocks": (
            BASE.replace("[nand]\n", '[nand]\ncapacity = "16MB"\n'),
            "capacity",
        ),
        "capacity-tiny": (
            re.sub(r"blocks_per_plane = \d+\n", 'capacity = "1B"\n', BASE),
            ("capacity", "spare blocks"),
        ),
        "capacity-petabyte": (
            re.sub(r"blocks_per_plane = \d+\n", 'capacity = "900PB"\n', BASE),
            "capacity",
        ),
        "json-as-toml": ('{"name": "x"}', "d.toml"),
    }
    cases = []
    for tag, (text, needle) in shapes.items():
        cases.append(
            Case(
                "device-file",
                f"shape:{tag}",
                run,
                "any" if tag in ANY_SHAPES else "error",
                needle=needle or ("d.toml",),
                setup=_writer("d.toml", text),
                quick=tag in ("empty", "binary", "deep-nesting", "unknown-field"),
            )
        )
    # Things that are not files.
    specials = {
        "directory": lambda b: (b / "d.toml").mkdir(),
        "fifo": lambda b: os.mkfifo(b / "d.toml"),
        "symlink-loop": lambda b: (
            os.symlink("e.toml", b / "d.toml"),
            os.symlink("d.toml", b / "e.toml"),
        ),
        "dangling-symlink": lambda b: os.symlink("nowhere.toml", b / "d.toml"),
        "dev-zero": lambda b: os.symlink("/dev/zero", b / "d.toml"),
        "dev-urandom": lambda b: os.symlink("/dev/urandom", b / "d.toml"),
        "proc-self": lambda b: os.symlink("/proc/self/environ", b / "d.toml"),
    }
    for tag, setup in specials.items():
        cases.append(
            Case(
                "device-file",
                f"special:{tag}",
                run,
                "error",
                needle="d.toml",
                setup=setup,
                timeout=20,
                quick=tag in ("fifo", "dev-zero"),
            )
        )
    for name in (
        "missing.toml",
        "",
        "-",
        "tiny-test,",
        ",",
        "tiny-test," * 100,
        "x" * 5000,
        "../../../../etc/passwd",
        "/dev/zero",
        "d.json",
    ):
        cases.append(
            Case(
                "device-file",
                f"name:{name[:30]!r}",
                cli("run", "--device", name, *RUN),
                "error",
                needle=("device", name[:20]),
                timeout=20,
                setup=_writer("d.json", "[1, 2"),
            )
        )
    # Formats accepted elsewhere must load here too: a resolved config from a report.
    cases.append(
        Case(
            "device-file",
            "json-from-presets-show",
            cli("run", "--device", "d.json", *RUN),
            "ok",
            check=json_report(ios=200),
            setup=_writer("d.json", __import__("json").dumps(tomllib.loads(BASE))),
        )
    )
    return cases


def set_cases() -> list[Case]:
    cases = []
    for sec, key, v in _fields():
        if sec in ("name", "description"):
            continue
        for tag, val in (
            ("abc", "abc"),
            ("neg", "-3"),
            ("empty", ""),
            ("nan", "nan"),
            ("inf", "inf"),
            ("big", "9" * 40),
        ):
            if isinstance(v, str) and tag == "abc":
                val = "abc" + _unit(v)
            cases.append(
                Case(
                    "set",
                    f"{sec}.{key}={tag}",
                    cli("run", "--device", "tiny-test", "--set", f"{sec}.{key}={val}", *RUN),
                    "error",
                    needle=key,
                    quick=(key == "t_read"),
                )
            )
    for raw, needle in (
        ("nand.t_read", "nand.t_read"),
        ("=5", "dotted key"),
        ("nand=5", "nand"),
        ("nand..t_read=5us", "t_read"),
        ("bogus.x=1", "bogus"),
        ("nand.bogus=1", "bogus"),
        (".nand.t_read=5us", "t_read"),
        ("nand.t_read=5us=6us", "t_read"),
        ("NAND.T_READ=5us", "NAND"),
        ("nand.t_read.x=5us", "t_read"),
        ("name=", ""),
        ("description=" + "d" * 100_000, ""),
        ("x" * 100_000 + "=1", ""),
        ("nand.t_read=\x01", "t_read"),
        ("nand.t_read=５０us", "t_read"),
        ("host.lane_bandwidth=0MB/s", "lane_bandwidth"),
        ("host.lane_bandwidth=1TB/s", ""),
        ("nand.channel_rate=0MT/s", "channel_rate"),
        ("dram.bandwidth=0B/s", "bandwidth"),
        ("hmb.hmpre=1EiB", "hmpre"),
    ):
        expect = "any" if needle == "" else "error"
        cases.append(
            Case(
                "set",
                f"raw:{raw[:40]!r}",
                cli("run", "--device", "tiny-test", "--set", raw, *RUN),
                expect,
                needle=needle,
                check=json_report(ios=200),
            )
        )
    return cases


def system_cases() -> list[Case]:
    example = Path(__file__).resolve().parents[2] / "examples" / "seed001-remote.toml"
    text = example.read_text()
    runs = ["--number_ios", "100", "--quiet", "--json", "out/r.json"]
    mut = {
        "no-drives": (re.sub(r"(?s)\[\[drive\]\].*", "", text), "drive"),
        "hosts-empty": (re.sub(r"(?s)\[\[host\]\].*?(?=\[\[target)", "", text) + "\n", "host"),
        "count-0": (text.replace("count = 4", "count = 0"), "count"),
        "count-huge": (text.replace("count = 4", "count = 1000000000"), "count"),
        "count-neg": (text.replace("count = 4", "count = -1"), "count"),
        "unknown-device": (text.replace('device = "dc-mlc-2016"', 'device = "nope"'), "nope"),
        "device-self": (text.replace('device = "dc-mlc-2016"', 'device = "s.toml"'), "s.toml"),
        "port-rate-0": (
            text.replace('port_rate = "25Gb/s"', 'port_rate = "0Gb/s"', 1),
            "port_rate",
        ),
        "port-rate-text": (
            text.replace('port_rate = "100Gb/s"', 'port_rate = "fast"'),
            "port_rate",
        ),
        "nic-ports-0": (text.replace("nic_ports = 2", "nic_ports = 0", 1), "nic_ports"),
        "cores-0": (text.replace("cores = 28", "cores = 0"), "cores"),
        "fabric-unknown": (
            text.replace('fabric = "rdma-kernel-2016"', 'fabric = "carrier-pigeon"'),
            "fabric",
        ),
        "unknown-key": (text.replace("[[target]]\n", "[[target]]\nbogus = 1\n"), "bogus"),
        "dup-host-name": (text.replace('name = "init1"', 'name = "init0"'), "init0"),
    }
    cases = []
    for tag, (t, needle) in mut.items():
        cases.append(
            Case(
                "system-file",
                tag,
                cli("run", "--device", "s.toml", *runs),
                "error",
                needle=needle,
                setup=_writer("s.toml", t),
                quick=tag == "hosts-empty",
                timeout=60,
            )
        )
    cases.append(Case("system-file", "validate-example", cli("validate", str(example)), "ok"))
    # The oracle of 4 x 960 GB needs ~7.7 GiB: admitted under the default budget (half
    # the machine), refused under a careless user's smaller one before anything is built.
    cases.append(
        Case(
            "system-file",
            "run-verify-example-budget",
            cli("run", "--device", str(example), "--verify", "--max-memory", "2G", *runs),
            "error",
            needle="max_memory",
        )
    )
    cases.append(
        Case(
            "system-file",
            "run-example",
            cli("run", "--device", str(example), *runs),
            "ok",
            check=json_report(ios=None),
            timeout=120,
        )
    )
    return cases


def cases() -> list[Case]:
    return device_file_fields() + device_file_shapes() + set_cases() + system_cases()
