"""The quick subset of the hostile / careless user audit (scripts/audit/, issue 31): one
or a few cases of every surface, each of which must end in a clean refusal or a
success, never a crash, hang, OOM, silent wrong answer or a file outside its place.
The whole audit (`python scripts/audit/run.py`, ~1,900 cases) is not run here."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

AUDIT = Path(__file__).resolve().parents[1] / "scripts" / "audit"
sys.path.insert(0, str(AUDIT))

import run as audit  # noqa: E402
from harness import BAD, run_case  # noqa: E402

CASES = [c for c in audit.all_cases() if c.quick]


def test_the_quick_subset_covers_every_surface():
    surfaces = {c.surface for c in CASES}
    assert {"device-file", "set", "system-file", "workload", "workload-file", "fio", "trace",
            "sweep", "sweep-query", "output", "api", "plot", "probe", "signal",
            "serve"} <= surfaces, surfaces  # fmt: skip
    assert 40 <= len(CASES) <= 120, len(CASES)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c.surface}/{c.name}")
def test_audit_case(case, tmp_path):
    o = run_case(case, tmp_path / "case")
    assert o.kind not in BAD, f"{o.kind}: {o.detail}"
