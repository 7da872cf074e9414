# ruff: noqa: E501
# (tables of hostile inputs, one case a line)
"""Audit cases: the Python API (`ssdlab.run`, `run_many`, `compare`, `validate`,
`trace_workload`, `sweep`, `fio.run_jobfile`, `_core` directly) given wrong types,
recursive and enormous values, NaN; each must raise ConfigError (printed by the
snippet wrapper as `ssdlab: error:`), never another exception."""

from __future__ import annotations

from harness import Case, api

BAD_CALLS = {
    "device-int": ('ssdlab.run(5, {"number_ios": 10})', "device"),
    "device-none": ('ssdlab.run(None, {"number_ios": 10})', "device"),
    "device-bytes": ('ssdlab.run(b"tiny-test", {"number_ios": 10})', "device"),
    "device-list": ('ssdlab.run(["tiny-test"], {"number_ios": 10})', "device"),
    "device-dict-bad": ('ssdlab.run({"nand": 5}, {"number_ios": 10})', "nand"),
    "device-recursive": ('d = {}; d["x"] = d; ssdlab.run(d)', "nested"),
    "workload-recursive": ('w = {}; w["jobs"] = [w]; ssdlab.run("tiny-test", w)', "nested"),
    "workload-list": ('ssdlab.run("tiny-test", [1, 2])', "workload"),
    "workload-set": ('ssdlab.run("tiny-test", {"rw"})', "workload"),
    "workload-nan": ('ssdlab.run("tiny-test", {"rwmixread": float("nan")})', "rwmixread"),
    "workload-inf": ('ssdlab.run("tiny-test", {"runtime": float("inf")})', "runtime"),
    "workload-bigint": ('ssdlab.run("tiny-test", {"iodepth": 10**100})', "iodepth"),
    "workload-object": ('ssdlab.run("tiny-test", {"iodepth": object()})', "iodepth"),
    "workload-bytes-key": ('ssdlab.run("tiny-test", {b"rw": "read"})', "workload"),
    "workload-int-key": ('ssdlab.run("tiny-test", {1: "read"})', "workload"),
    "workload-huge-str": ('ssdlab.run("tiny-test", {"rw": "x" * 10_000_000})', "rw"),
    "seed-neg": ('ssdlab.run("tiny-test", {"number_ios": 10}, seed=-1)', "seed"),
    "seed-float": ('ssdlab.run("tiny-test", {"number_ios": 10}, seed=1.5)', "seed"),
    "seed-2^64": ('ssdlab.run("tiny-test", {"number_ios": 10}, seed=2**64)', "seed"),
    "seed-str": ('ssdlab.run("tiny-test", {"number_ios": 10}, seed="1")', "seed"),
    "state-bad": ('ssdlab.run("tiny-test", {"number_ios": 10}, state="dirty")', "state"),
    "state-int": ('ssdlab.run("tiny-test", {"number_ios": 10}, state=3)', "state"),
    "set-bad": ('ssdlab.run("tiny-test", {"number_ios": 10}, set={"nand.t_read": "x"})', "t_read"),
    "set-list-of-ints": ('ssdlab.run("tiny-test", {"number_ios": 10}, set=[1, 2])', "set"),
    "set-deep": ('ssdlab.run("tiny-test", set={"a": eval("[" * 100 + "]" * 100)})', "nested"),
    "verify-str": ('ssdlab.run("tiny-test", {"number_ios": 10}, verify="yes")', "verify"),
    "max-memory-neg": ('ssdlab.run("tiny-test", {"number_ios": 10}, max_memory=-1)', "max_memory"),
    "max-memory-str": (
        'ssdlab.run("tiny-test", {"number_ios": 10}, max_memory="lots")',
        "max_memory",
    ),
    "max-memory-2^64": (
        'ssdlab.run("tiny-test", {"number_ios": 10}, max_memory=2**64)',
        "max_memory",
    ),
    "max-memory-1": ('ssdlab.run("tiny-test", {"number_ios": 10}, max_memory=1)', "max_memory"),
    "run-many-not-list": ("ssdlab.run_many(5)", "run"),
    "run-many-bad-item": ('ssdlab.run_many([{"device": "nope"}])', "nope"),
    "run-many-workers-0": ('ssdlab.run_many([{"device": "tiny-test"}], workers=0)', "workers"),
    "run-many-workers-neg": ('ssdlab.run_many([{"device": "tiny-test"}], workers=-1)', "workers"),
    "run-many-unknown-key": ('ssdlab.run_many([{"device": "tiny-test", "bogus": 1}])', "bogus"),
    "compare-empty": ('ssdlab.compare([], {"number_ios": 10})', "device"),
    "compare-str": ('ssdlab.compare("tiny-test", {"number_ios": 10})', "device"),
    "validate-bad": ('ssdlab.validate({"nand": {"channels": 0}})', "nand"),
    "validate-workload-neg-cap": ('ssdlab.validate_workload({"rw": "read"}, -1)', "capacity"),
    "validate-workload-bigcap": ('ssdlab.validate_workload({"rw": "read"}, 2**70)', "capacity"),
    "trace-workload-missing": ('ssdlab.trace_workload("nope.csv")', "nope.csv"),
    "trace-workload-speedup-0": (
        'open("t.csv","w").write("1,h,0,Read,0,4096,1\\n"); ssdlab.trace_workload("t.csv", speedup=0)',
        "speedup",
    ),
    "trace-stats-dir": ('ssdlab.trace_stats(".")', "."),
    "replay-bad-device": (
        'open("t.csv","w").write("1,h,0,Read,0,4096,1\\n"); ssdlab.replay("t.csv", "nope")',
        "nope",
    ),
    "sweep-bad-grid": (
        'ssdlab.sweep({"base": {"device": "tiny-test"}, "axes": {"bogus": [1]}}, out="out/s")',
        "bogus",
    ),
    "sweep-grid-int": ('ssdlab.sweep(5, out="out/s")', "grid"),
    "sweep-million": (
        'ssdlab.sweep({"base": {"device": "tiny-test"}, "axes": {"seed": list(range(10**6))}}, out="out/s")',
        "points",
    ),
    "sweep-results-missing": ('ssdlab.sweep_results("nope")', "nope"),
    "fio-run-missing": ('ssdlab.fio.run_jobfile("nope.fio", device="tiny-test")', "nope.fio"),
    "fio-load-dir": ('ssdlab.fio.load_jobfile(".")', "."),
    "named-workload-bad": ('ssdlab.named_workload("nope")', "nope"),
    "preset-toml-bad": ('ssdlab.preset_toml("nope")', "nope"),
    "report-from-junk": ('ssdlab.Report("junk")', "report"),
    "fio-to-pandas-bad": (
        'open("j.json","w").write("{"); ssdlab.fio.to_pandas("j.json")',
        "j.json",
    ),
}

GOOD_CALLS = {
    "run-dict-device": 'r = ssdlab.run(ssdlab.validate("tiny-test")["config"] if "config" in ssdlab.validate("tiny-test") else "tiny-test", {"number_ios": 50}); assert r["read"]["total_ios"] == 50',
    "run-set-string": 'r = ssdlab.run("tiny-test", {"number_ios": 50}, set="nand.t_read=60us"); assert r["read"]["total_ios"] == 50',
    "run-string-numbers": 'r = ssdlab.run("tiny-test", {"number_ios": "50", "iodepth": "2"}); assert r["read"]["total_ios"] == 50',
    "run-many-two": 'rs = ssdlab.run_many([{"device": "tiny-test", "workload": {"number_ios": 20}}] * 2); assert len(rs) == 2',
}


# Accepted, rightly: a name list as one comma-separated text; a trace workload and a
# Report are not read until used (a run then refuses what is wrong).
LAZY = ("compare-str", "trace-workload-missing", "report-from-junk")


def cases() -> list[Case]:
    out = []
    for tag, (call, needle) in BAD_CALLS.items():
        out.append(
            Case(
                "api",
                tag,
                api(call),
                "any" if tag in LAZY else "error",
                needle=(needle,),
                timeout=60,
                allowed=("out", "t.csv", "j.json"),
                quick=tag in ("device-recursive", "workload-bigint", "sweep-million"),
                max_rss_mib=2000,
            )
        )
    for tag, call in GOOD_CALLS.items():
        out.append(Case("api", tag, api(call), "ok", timeout=60))
    return out
