"""``ssdlab bench --mqsim DIR``: ssdlab beside MQSim, whole process against whole process.

What it measures: for each MQSim synthetic workload file in DIR (MQSim's own
``workload-*.xml``), MQSim run on its ``ssdconfig.xml`` and ssdlab run on the
``mqsim-default`` preset (a full drive: MQSim's 75 % initial occupancy over a uniform
address space reads mapped data, as a full drive does), each as a fresh process, in
alternating pairs, ``--repeat`` pairs per workload. Each process's wall time (start-up,
preparation, simulation, output) and peak RSS (``wait4``), and with ``--instructions``
its user-space instruction count (``perf stat``). The speed ratio is the median over
pairs of MQSim's wall time / ssdlab's: both runs of a pair see the same machine load.

The ssdlab workload is read from MQSim's file, not typed again: request size, queue
depth, read percentage, address distribution and stop time (only MQSim's QUEUE_DEPTH
generator with fixed-size requests, one flow, is accepted; anything else is an error
naming the file and the field). MQSim's random generator draws each address afresh, so
ssdlab runs with ``norandommap``.

MQSim is built from its source (``DIR/source/mqsim-src.tar.gz``, or ``--mqsim-bin`` for
a binary built elsewhere) with its own Makefile into ``--mqsim-build`` (default
``~/.cache/ssdlab/mqsim-<digest>``); a build that exists is reused.

Simplifies: wall time on a shared machine is noisy (each pair's ratio, and its spread,
are printed); the simulated requests per wall second use each program's own count of
requests completed within its simulated time.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from ssdlab.cliutil import UsageError

PRESET = "mqsim-default"
SECTOR_BYTES = 512  # MQSim's request sizes are in 512-byte sectors


class MqsimError(UsageError):
    """A bad MQSim directory, workload file or build."""


def _field(flow: ET.Element, name: str, path: Path) -> str:
    e = flow.find(name)
    if e is None or e.text is None:
        raise MqsimError(f"{path}: IO_Flow_Parameter_Set_Synthetic has no <{name}>")
    return e.text.strip()


def _int_field(flow: ET.Element, name: str, path: Path) -> int:
    text = _field(flow, name, path)
    try:
        return int(text)
    except ValueError:
        raise MqsimError(f"{path}: <{name}> is '{text}', not a whole number") from None


def workload_of(path: Path) -> dict[str, Any]:
    """The ssdlab workload that MQSim's synthetic workload file ``path`` describes."""
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        raise MqsimError(f"{path}: not a readable MQSim workload file ({e})") from None
    flows = root.findall("./IO_Scenario/*")
    if len(flows) != 1 or flows[0].tag != "IO_Flow_Parameter_Set_Synthetic":
        got = ", ".join(f.tag for f in flows) or "none"
        raise MqsimError(
            f"{path}: one IO_Flow_Parameter_Set_Synthetic flow is supported, found: {got}"
        )
    flow = flows[0]
    gen = _field(flow, "Synthetic_Generator_Type", path)
    if gen != "QUEUE_DEPTH":
        raise MqsimError(
            f"{path}: <Synthetic_Generator_Type> is '{gen}'; only QUEUE_DEPTH is supported"
        )
    size_dist = _field(flow, "Request_Size_Distribution", path)
    if size_dist != "FIXED":
        raise MqsimError(
            f"{path}: <Request_Size_Distribution> is '{size_dist}'; only FIXED is supported"
        )
    dist = _field(flow, "Address_Distribution", path)
    if dist not in ("RANDOM_UNIFORM", "STREAMING"):
        raise MqsimError(
            f"{path}: <Address_Distribution> is '{dist}'; allowed: RANDOM_UNIFORM, STREAMING"
        )
    read_pct = _int_field(flow, "Read_Percentage", path)
    if not 0 <= read_pct <= 100:
        raise MqsimError(f"{path}: <Read_Percentage> is {read_pct}; allowed: 0 to 100")
    sectors = _int_field(flow, "Average_Request_Size", path)
    depth = _int_field(flow, "Average_No_of_Reqs_in_Queue", path)
    stop_ns = _int_field(flow, "Stop_Time", path)
    if sectors <= 0 or depth <= 0 or stop_ns <= 0:
        raise MqsimError(
            f"{path}: <Average_Request_Size>, <Average_No_of_Reqs_in_Queue> and <Stop_Time> "
            "must be positive (a run bounded by a request count is not supported)"
        )
    rand = dist == "RANDOM_UNIFORM"
    if read_pct == 100:
        rw = "randread" if rand else "read"
    elif read_pct == 0:
        rw = "randwrite" if rand else "write"
    else:
        rw = "randrw" if rand else "rw"
    w: dict[str, Any] = {
        "rw": rw,
        "bs": f"{sectors * SECTOR_BYTES // 1024}KiB"
        if sectors * SECTOR_BYTES % 1024 == 0
        else f"{sectors * SECTOR_BYTES}B",
        "iodepth": depth,
        "runtime": f"{stop_ns // 1_000_000}ms" if stop_ns % 1_000_000 == 0 else f"{stop_ns}ns",
    }
    if 0 < read_pct < 100:
        w["rwmixread"] = read_pct
    if rand:
        w["norandommap"] = True
    return w


def workload_files(mqsim_dir: Path) -> list[Path]:
    """MQSim's workload files in ``mqsim_dir`` (not its ``*_scenario_*`` result files)."""
    if not mqsim_dir.is_dir():
        raise MqsimError(f"--mqsim: {mqsim_dir} is not a directory")
    files = sorted(p for p in mqsim_dir.glob("workload-*.xml") if "_scenario_" not in p.name)
    if not files:
        raise MqsimError(f"--mqsim: {mqsim_dir} holds no workload-*.xml file")
    if not (mqsim_dir / "ssdconfig.xml").is_file():
        raise MqsimError(f"--mqsim: {mqsim_dir} holds no ssdconfig.xml")
    return files


def build_mqsim(mqsim_dir: Path, build_dir: Path | None) -> Path:
    """MQSim's binary, built from ``mqsim_dir/source/mqsim-src.tar.gz`` with its own
    Makefile (reused when it exists)."""
    src = mqsim_dir / "source" / "mqsim-src.tar.gz"
    if not src.is_file():
        raise MqsimError(f"--mqsim: {src} is missing (or pass --mqsim-bin)")
    digest = hashlib.sha256(src.read_bytes()).hexdigest()[:12]
    if build_dir is None:
        build_dir = Path.home() / ".cache" / "ssdlab" / f"mqsim-{digest}"
    binary = build_dir / "MQSim"
    if binary.is_file():
        return binary
    if shutil.which("make") is None or shutil.which("g++") is None:
        raise MqsimError("building MQSim needs make and g++ (apt-get install build-essential)")
    build_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="mqsim-build-", dir=build_dir.parent))
    try:
        with tarfile.open(src) as t:
            try:
                t.extractall(tmp, filter="data")
            except TypeError:  # Python < 3.11.4 has no extraction filters
                t.extractall(tmp)
        print(f"# building MQSim from {src} (make -j{os.cpu_count() or 1})", file=sys.stderr)
        out = subprocess.run(
            ["make", f"-j{os.cpu_count() or 1}"], cwd=tmp, capture_output=True, text=True
        )
        if out.returncode != 0 or not (tmp / "MQSim").is_file():
            raise MqsimError(
                f"building MQSim failed (make exit {out.returncode}):\n{out.stderr[-2000:]}"
            )
        if build_dir.exists():
            shutil.rmtree(build_dir)
        tmp.rename(build_dir)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return binary


def _check_perf() -> None:
    """``--instructions`` needs perf with a hardware instruction counter."""
    if shutil.which("perf") is None:
        raise MqsimError("--instructions needs perf (apt-get install linux-perf)")
    with tempfile.TemporaryDirectory() as d:
        out = Path(d) / "perf.csv"
        cmd = ["perf", "stat", "-x", ",", "-e", "instructions:u", "-o", str(out), "--", "true"]
        subprocess.run(cmd, capture_output=True)
        text = out.read_text() if out.is_file() else ""
    if not any(line.split(",")[0].isdigit() for line in text.splitlines()):
        raise MqsimError(
            "--instructions: perf cannot count instructions:u here (no hardware counters, "
            "as in many VMs); count single runs with valgrind --tool=callgrind instead"
        )


def _timed(cmd: list[str], cwd: Path, instructions: bool) -> dict[str, Any]:
    """Run ``cmd`` as a fresh process; its wall time, peak RSS and (with ``instructions``)
    user-space instructions."""
    counts = cwd / "perf.csv"
    if instructions:
        cmd = ["perf", "stat", "-x", ",", "-e", "instructions:u", "-o", str(counts), "--", *cmd]
    t0 = time.perf_counter()
    with open(cwd / "stdout", "wb") as out, open(cwd / "stderr", "wb") as err:
        p = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode != 0:
        tail = (cwd / "stderr").read_text(errors="replace")[-2000:]
        raise MqsimError(f"{' '.join(cmd[:3])} ... failed (exit {p.returncode}):\n{tail}")
    res: dict[str, Any] = {"wall_s": wall, "peak_rss_mib": usage.ru_maxrss / 1024}
    if instructions:
        res["instructions"] = None
        for line in counts.read_text().splitlines():
            parts = line.split(",")
            if len(parts) > 2 and parts[2].startswith("instructions"):
                res["instructions"] = int(parts[0]) if parts[0].isdigit() else None
    return res


def run_mqsim(binary: Path, mqsim_dir: Path, wl: Path, instructions: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="mqsim-run-") as d:
        d = Path(d)
        shutil.copy(mqsim_dir / "ssdconfig.xml", d / "ssdconfig.xml")
        shutil.copy(wl, d / "workload.xml")
        res = _timed([str(binary), "-i", "ssdconfig.xml", "-w", "workload.xml"], d, instructions)
        out = d / "workload_scenario_1.xml"
        if not out.is_file():
            raise MqsimError(f"MQSim wrote no {out.name} for {wl.name}")
        flow = ET.parse(out).getroot().find("./Host/Host.IO_Flow")
        res["requests"] = int(flow.findtext("Request_Count")) if flow is not None else 0
        res["iops"] = float(flow.findtext("IOPS")) if flow is not None else 0.0
    return res


def ssdlab_command(workload: dict[str, Any], json_path: Path) -> list[str]:
    cmd = [sys.executable, "-m", "ssdlab", "run", "--device", PRESET, "--state", "full"]
    cmd += ["--seed", "1", "-q", "--json", str(json_path)]
    for k, v in workload.items():
        cmd += [f"--{k}"] if v is True else [f"--{k}", str(v)]
    return cmd


def run_ssdlab(workload: dict[str, Any], instructions: bool) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="ssdlab-run-") as d:
        d = Path(d)
        res = _timed(ssdlab_command(workload, d / "report.json"), d, instructions)
        rep = json.loads((d / "report.json").read_text())
        res["requests"] = sum(rep[k]["total_ios"] for k in ("read", "write"))
        res["iops"] = rep["read"]["iops"] + rep["write"]["iops"]
    return res


def _fmt_int(x: float | None) -> str:
    return "-" if x is None else f"{x:,.0f}"


def compare(
    mqsim_dir: str | os.PathLike,
    repeat: int = 3,
    cases: list[str] | None = None,
    instructions: bool = False,
    mqsim_bin: str | os.PathLike | None = None,
    mqsim_build: str | os.PathLike | None = None,
    echo=print,
) -> list[dict[str, Any]]:
    """ssdlab beside MQSim on the workload files of ``mqsim_dir`` (``cases``: their
    names without ``.xml``; default all): one dict per workload, ``ratio`` the median of
    MQSim's wall time / ssdlab's over ``repeat`` alternating pairs. ``echo`` gets the
    table's lines as they come (None: quiet)."""
    from ssdlab.bench import machine

    echo = echo or (lambda *a, **k: None)
    mqsim_dir = Path(mqsim_dir)
    files = workload_files(mqsim_dir)
    workloads = {f: workload_of(f) for f in files}
    if cases:
        names = {f.stem for f in files}
        bad = sorted(set(cases) - names)
        if bad:
            raise MqsimError(
                f"--case: {', '.join(bad)} not in {mqsim_dir} (allowed: {', '.join(sorted(names))})"
            )
        workloads = {f: w for f, w in workloads.items() if f.stem in cases}
    if repeat < 1:
        raise MqsimError(f"--repeat: {repeat} must be at least 1")
    if mqsim_bin:
        binary = Path(mqsim_bin)
        if not binary.is_file():
            raise MqsimError(f"--mqsim-bin: {binary} is not a file")
    else:
        binary = build_mqsim(mqsim_dir, Path(mqsim_build) if mqsim_build else None)
    if instructions:
        _check_perf()
    echo(f"# ssdlab vs MQSim ({binary}) on {machine()}; {repeat} alternating pair(s)")
    echo(
        f"{'workload':<34} {'ssdlab s':>9} {'MQSim s':>9} {'ratio':>7} {'range':>13} "
        f"{'ssdlab req/s':>13} {'MQSim req/s':>12} {'RSS MiB':>15}"
        + (f" {'instr ssdlab':>14} {'instr MQSim':>14}" if instructions else "")
    )
    results = []
    for f, wl in workloads.items():
        pairs = []
        for _ in range(repeat):
            s = run_ssdlab(wl, instructions)
            m = run_mqsim(binary, mqsim_dir, f, instructions)
            pairs.append({"ssdlab": s, "mqsim": m, "ratio": m["wall_s"] / s["wall_s"]})
        ratios = [p["ratio"] for p in pairs]

        def med(side: str, key: str, pairs=pairs) -> float | None:
            vals = [p[side][key] for p in pairs if p[side].get(key) is not None]
            return statistics.median(vals) if vals else None

        row = {
            "workload": f.stem,
            "ssdlab_workload": wl,
            "ratio": statistics.median(ratios),
            "ratio_min": min(ratios),
            "ratio_max": max(ratios),
            "ssdlab_wall_s": med("ssdlab", "wall_s"),
            "mqsim_wall_s": med("mqsim", "wall_s"),
            "ssdlab_requests": pairs[0]["ssdlab"]["requests"],
            "mqsim_requests": pairs[0]["mqsim"]["requests"],
            "ssdlab_iops": pairs[0]["ssdlab"]["iops"],
            "mqsim_iops": pairs[0]["mqsim"]["iops"],
            "ssdlab_peak_rss_mib": max(p["ssdlab"]["peak_rss_mib"] for p in pairs),
            "mqsim_peak_rss_mib": max(p["mqsim"]["peak_rss_mib"] for p in pairs),
            "ssdlab_instructions": med("ssdlab", "instructions"),
            "mqsim_instructions": med("mqsim", "instructions"),
            "pairs": pairs,
        }
        row["ssdlab_req_per_wall_s"] = row["ssdlab_requests"] / row["ssdlab_wall_s"]
        row["mqsim_req_per_wall_s"] = row["mqsim_requests"] / row["mqsim_wall_s"]
        results.append(row)
        spread = f"{row['ratio_min']:.1f}-{row['ratio_max']:.1f}x"
        echo(
            f"{f.stem:<34} {row['ssdlab_wall_s']:>9.2f} {row['mqsim_wall_s']:>9.2f} "
            f"{row['ratio']:>6.1f}x {spread:>13} "
            f"{row['ssdlab_req_per_wall_s']:>13,.0f} {row['mqsim_req_per_wall_s']:>12,.0f} "
            f"{row['ssdlab_peak_rss_mib']:>6,.0f} / {row['mqsim_peak_rss_mib']:>6,.0f}"
            + (
                f" {_fmt_int(row['ssdlab_instructions']):>14} "
                f"{_fmt_int(row['mqsim_instructions']):>14}"
                if instructions
                else ""
            ),
            flush=True,
        )
    return results


def main(args) -> int:
    """``ssdlab bench --mqsim DIR [--repeat N] [--case NAME] [--instructions]
    [--mqsim-bin B] [--mqsim-build D] [--json F]``."""
    from ssdlab.bench import machine

    if args.json:
        from ssdlab import outputs

        outputs.check_file(args.json, "--json")
    results = compare(
        args.mqsim,
        repeat=args.repeat,
        cases=args.case,
        instructions=args.instructions,
        mqsim_bin=args.mqsim_bin,
        mqsim_build=args.mqsim_build,
    )
    if args.json:
        from ssdlab.cliutil import write_atomically

        doc = {"machine": machine(), "results": results}
        write_atomically(args.json, json.dumps(doc, indent=2))
    return 0
