# ruff: noqa: E501
# (tables of hostile inputs, one case a line)
"""Run the hostile/careless-user audit (issue 31) and print its counts.

    python scripts/audit/run.py                       # every case, 2 at a time
    python scripts/audit/run.py --surface serve,sweep --jobs 1
    python scripts/audit/run.py --quick               # the subset tests/test_audit.py runs
    python scripts/audit/run.py --list                # the cases, not run
    python scripts/audit/run.py --json audit.json     # every outcome, for diffing runs

Runs `python -m ssdlab` (the installed package, with the interpreter running this script)
in a fresh sandbox directory per case; see harness.py for the outcome classes. Exit
status 1 when any case ends badly (vague, crash, hang, oom, wrong, outside).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import BAD, Case, Outcome, run_case

SURFACES = (
    "config",
    "workload",
    "fio",
    "trace",
    "sweep",
    "output",
    "api",
    "plot",
    "signal",
    "serve",
)


def all_cases(surfaces=SURFACES) -> list[Case]:
    import importlib

    out = []
    for s in surfaces:
        out += importlib.import_module(f"cases_{s}").cases()
    return out


def run_all(cases: list[Case], jobs: int = 2, progress=None) -> list[Outcome]:
    root = Path(tempfile.mkdtemp(prefix="ssdlab-audit-"))
    serial = [c for c in cases if c.surface in ("serve", "signal")]
    parallel = [c for c in cases if c not in serial]
    results: list[Outcome] = []

    def one(item):
        i, c = item
        o = run_case(c, root / f"c{i}")
        if progress:
            progress(o)
        return o

    with ThreadPoolExecutor(max_workers=jobs) as ex:
        results += list(ex.map(one, enumerate(parallel)))
    # Timing-sensitive surfaces one at a time.
    results += [one((len(parallel) + i, c)) for i, c in enumerate(serial)]
    os.rmdir(root) if not any(root.iterdir()) else None
    return results


def summary(results: list[Outcome]) -> str:
    by = defaultdict(Counter)
    for o in results:
        by[o.case.surface][o.kind] += 1
    kinds = ["error", "ok", *list(BAD)]
    lines = [f"{'surface':<14}" + "".join(f"{k:>8}" for k in kinds) + f"{'total':>8}"]
    tot = Counter()
    for s in sorted(by):
        tot.update(by[s])
        lines.append(
            f"{s:<14}" + "".join(f"{by[s][k]:>8}" for k in kinds) + f"{sum(by[s].values()):>8}"
        )
    lines.append(
        f"{'all':<14}" + "".join(f"{tot[k]:>8}" for k in kinds) + f"{sum(tot.values()):>8}"
    )
    bad = [o for o in results if o.kind in BAD]
    if bad:
        lines.append("\nnot handled well:")
        for o in bad:
            lines.append(f"  [{o.kind}] {o.case.surface}/{o.case.name}: {o.detail}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--surface", default=",".join(SURFACES))
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--match", default="", help="only cases whose name contains this")
    ap.add_argument("--json", default="")
    a = ap.parse_args(argv)
    cases = all_cases([s for s in a.surface.split(",") if s])
    if a.quick:
        cases = [c for c in cases if c.quick]
    if a.match:
        cases = [c for c in cases if a.match in c.name]
    if a.list:
        for c in cases:
            print(f"{c.surface}/{c.name}\t{c.expect}")
        print(f"{len(cases)} cases")
        return 0
    t0 = time.monotonic()
    n = [0]

    def progress(o: Outcome):
        n[0] += 1
        flag = "" if o.kind not in BAD else f"  <-- {o.kind}: {o.detail}"
        print(
            f"[{n[0]}/{len(cases)}] {o.kind:<7} {o.seconds:5.1f}s {o.case.surface}/{o.case.name}{flag}",
            flush=True,
        )

    results = run_all(cases, a.jobs, progress)
    print()
    print(summary(results))
    print(f"\n{len(results)} cases in {time.monotonic() - t0:.0f} s")
    if a.json:
        Path(a.json).write_text(
            json.dumps(
                [
                    {
                        "surface": o.case.surface,
                        "name": o.case.name,
                        "kind": o.kind,
                        "detail": o.detail,
                        "seconds": round(o.seconds, 2),
                        "rss_mib": round(o.rss_mib),
                        "status": o.returncode,
                    }
                    for o in results
                ],
                indent=1,
            )
        )
    return 1 if any(o.kind in BAD for o in results) else 0


if __name__ == "__main__":
    sys.exit(main())
