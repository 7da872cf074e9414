"""``ssdlab bench``: simulator speed and memory on fixed cases (figures for BENCHMARKS.md).

Each run of each case happens in a fresh child process so that its peak RSS is its
own. Rates use the simulation loop's wall time (``sim_wall_time_s``, preparation
excluded); preparation is timed separately (``prep_wall_time_s``). The median over
``--repeat`` runs is reported; peak RSS is the largest seen, beside the memory estimate
that ``--max-memory`` checks (the estimate over the peak: issue 28 asks for 0.5-2).
"""

from __future__ import annotations

import json
import platform
import resource
import statistics
import subprocess
import sys
from typing import Any

# name -> (device, device overrides, workload, state, what it measures)
CASES: dict[str, tuple[str, list[str], dict[str, Any], str, str]] = {
    "randread-4k-qd32": (
        "mqsim-default",
        [],
        {"rw": "randread", "bs": "4KiB", "iodepth": 32, "number_ios": 2_000_000},
        "full",
        "4K random read QD32, full mqsim-default drive",
    ),
    "randwrite-4k-qd32-steady": (
        "mqsim-default",
        [],
        {"rw": "randwrite", "bs": "4KiB", "iodepth": 32, "number_ios": 1_000_000},
        "steady",
        "4K random write QD32, steady-state mqsim-default drive",
    ),
    "seqread-128k-qd32": (
        "mqsim-default",
        [],
        {"rw": "read", "bs": "128KiB", "iodepth": 32, "number_ios": 200_000},
        "full",
        "128K sequential read QD32, full mqsim-default drive",
    ),
    "randrw-4k-70-30-qd32": (
        "mqsim-default",
        [],
        {"rw": "randrw", "bs": "4KiB", "rwmixread": 70, "iodepth": 32, "number_ios": 1_000_000},
        "steady",
        "4K random 70/30 read/write QD32, steady-state mqsim-default drive",
    ),
    "prep-steady-512g": (
        "client-tlc-dram",
        [],
        {"rw": "randread", "bs": "4KiB", "iodepth": 32, "number_ios": 10_000},
        "steady",
        "steady-state preparation of the 512 GB client-tlc-dram drive",
    ),
    "prep-full-4t": (
        "client-tlc-dram",
        ["nand.blocks_per_plane=10928", 'dram.size="4GiB"'],
        {"rw": "randread", "bs": "4KiB", "iodepth": 32, "number_ios": 10_000},
        "full",
        "a 4 TB drive (client-tlc-dram with 8x the blocks, 4 GiB DRAM for its map), filled: memory",
    ),
}

# Cases whose workload is a block trace made on the spot: name -> (lines, device, what).
TRACE_CASES = {
    "trace-replay-2m": (
        2_000_000,
        "tiny-test",
        "replay of a 2,000,000-line CSV trace (70/30 4K), closed loop QD32: streamed memory",
    ),
}
for _name, (_lines, _dev, _what) in TRACE_CASES.items():
    CASES[_name] = (_dev, [], {}, "full", _what)


# Cases that run a system file (seed 001's topology, `ssdlab study nvmeof`'s remote-24):
# name -> (drives, workload, what).
SYSTEM_CASES = {
    "nvmeof-24": (
        24,
        {"rw": "randread", "bs": "4KiB", "iodepth": 16, "numjobs": 2, "number_ios": 50_000},
        "24 dc-mlc-2016 drives behind one NVMe-oF target, 4 hosts, 4K random read QD16 x 2 "
        "per drive",
    ),
}
for _name, (_drives, _wl, _what) in SYSTEM_CASES.items():
    CASES[_name] = ("dc-mlc-2016", [], _wl, "full", _what)


def make_trace(path: str, lines: int) -> None:
    """A deterministic synthetic trace: 70 % reads, offsets over 8,000 4 KiB slots."""
    x = 12345
    with open(path, "w") as f:
        for i in range(lines):
            x = (x * 6364136223846793005 + 1442695040888963407) % (1 << 64)
            op = "R" if (x >> 33) % 10 < 7 else "W"
            f.write(f"{i * 1000},{op},{(x >> 40) % 8000 * 4096},4096\n")


QUICK_CASES = {
    name: ("tiny-test", [], {**wl, "number_ios": 5_000}, state, what)
    for name, (_, _, wl, state, what) in CASES.items()
    if not name.startswith("prep-")
}


def estimate_mib(name: str, quick: bool, threads: int | None = None) -> int | None:
    """The memory estimate of case ``name`` (MiB): the figure ``--max-memory`` checks,
    read from the refusal of the case under a 1-byte limit (before any preparation)."""
    import re

    from ssdlab import api

    try:
        case_run(name, quick, threads, max_memory=1)
    except api.ConfigError as e:
        m = re.search(r"needs about (\d+)MiB", str(e))
        return int(m.group(1)) if m else None
    return None


def run_child(name: str, quick: bool, threads: int | None = None) -> dict[str, Any]:
    """Run one case in this process and return its figures (``threads``: a system
    case's loop threads, None for the default)."""
    estimate = estimate_mib(name, quick, threads)
    r = case_run(name, quick, threads)
    d = r.to_dict()
    ios = sum(d[k]["total_ios"] for k in ("read", "write", "trim"))
    sim_wall = d.get("sim_wall_time_s") or d["wall_time_s"]
    # ru_maxrss is KiB on Linux.
    rss_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "case": name,
        "ios": ios,
        "events": d["events"],
        "sim_wall_time_s": sim_wall,
        "prep_wall_time_s": d.get("prep_wall_time_s", 0.0),
        "ios_per_wall_s": ios / sim_wall if sim_wall > 0 else 0.0,
        "events_per_wall_s": d["events"] / sim_wall if sim_wall > 0 else 0.0,
        "peak_rss_mib": rss_kib / 1024,
        "estimate_mib": estimate,
        "capacity_bytes": d["device"]["capacity_bytes"] if "device" in d else None,
        "sim_iops": r.iops,
    }


def case_run(name: str, quick: bool, threads: int | None = None, **kw: Any) -> Any:
    """Run case ``name`` (``kw``: more keyword arguments of ``ssdlab.run``)."""
    from ssdlab import api

    device, overrides, workload, state, _ = (QUICK_CASES if quick else CASES)[name]
    if name in TRACE_CASES:
        import os
        import tempfile

        from ssdlab.trace import trace_workload

        lines = TRACE_CASES[name][0] // (100 if quick else 1)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "trace.csv")
            make_trace(path, lines)
            return api.run(device, trace_workload(path, iodepth=32), state=state, seed=1, **kw)
    elif name in SYSTEM_CASES:
        import os
        import tempfile

        from ssdlab.studies.nvmeof import system_toml

        drives = SYSTEM_CASES[name][0]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "system.toml")
            with open(path, "w") as f:
                f.write(system_toml(drives, "remote", device=device))
            return api.run(path, workload, state=state, seed=1, threads=threads, **kw)
    return api.run(device, workload, state=state, set=overrides, seed=1, **kw)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{cpu}, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def main(args) -> int:
    cases = QUICK_CASES if args.quick else CASES
    names = args.case or list(cases)
    if args.json:
        from ssdlab import outputs

        outputs.check_file(args.json, "--json")
    for n in names:
        if n not in cases:
            from ssdlab.cliutil import UsageError

            raise UsageError(f"--case: '{n}' is not a bench case (allowed: {', '.join(cases)})")
    if args.repeat < 1:
        from ssdlab.cliutil import UsageError

        raise UsageError(f"--repeat: {args.repeat} must be at least 1")
    print(f"# ssdlab bench on {machine()}; median of {args.repeat} run(s), one process each")
    print(
        f"{'case':<26} {'IOs/wall-s':>12} {'events/s':>12} {'sim loop s':>10} "
        f"{'prep s':>8} {'peak RSS MiB':>12} {'estimate MiB':>12} {'est/peak':>8}"
    )
    results = []
    for name in names:
        runs = []
        for _ in range(args.repeat):
            cmd = [sys.executable, "-m", "ssdlab.bench", name] + (["--quick"] if args.quick else [])
            if getattr(args, "threads", None):
                cmd += ["--threads", str(args.threads)]
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode != 0:
                print(out.stderr, file=sys.stderr)
                raise RuntimeError(f"bench case {name} failed (exit {out.returncode})")
            runs.append(json.loads(out.stdout))
        med = {
            k: statistics.median(r[k] for r in runs)
            for k in ("ios_per_wall_s", "events_per_wall_s", "sim_wall_time_s", "prep_wall_time_s")
        }
        med["peak_rss_mib"] = max(r["peak_rss_mib"] for r in runs)
        est = runs[0].get("estimate_mib")
        med["estimate_mib"] = est
        res = {"case": name, "what": cases[name][4], "runs": runs, **med}
        results.append(res)
        ratio = f"{est / med['peak_rss_mib']:.2f}" if est and med["peak_rss_mib"] else "-"
        print(
            f"{name:<26} {med['ios_per_wall_s']:>12,.0f} {med['events_per_wall_s']:>12,.0f} "
            f"{med['sim_wall_time_s']:>10.3f} {med['prep_wall_time_s']:>8.2f} "
            f"{med['peak_rss_mib']:>12,.0f} {est if est is not None else '-':>12} {ratio:>8}",
            flush=True,
        )
    if args.json:
        from ssdlab.cliutil import write_atomically

        write_atomically(
            args.json, json.dumps({"machine": machine(), "results": results}, indent=2)
        )
    return 0


if __name__ == "__main__":
    # Child mode: python -m ssdlab.bench CASE [--quick] [--threads N]
    rest = sys.argv[2:]
    n = int(rest[rest.index("--threads") + 1]) if "--threads" in rest else None
    print(json.dumps(run_child(sys.argv[1], "--quick" in rest, n)))
