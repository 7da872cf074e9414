"""Probes that reveal how a drive uses its memory (seed 002), on simulated or real drives.

>>> r = ssdlab.probe.run_probes("hmb-ssd", ["map-cache"], hmb=["on", "off"],
...                             map_params=MapCacheParams(d_max=2000, d_inc=100))
>>> print(r.summary())

A target is a device preset, a .toml/.json device file or a dict (simulated), or the
path of a real block device or file (timed with O_DIRECT and a monotonic clock; see
:mod:`ssdlab.probe.real`). The probes see timings and the capacity only; with ``hmb``
settings the same procedure runs once per setting and the findings are compared to
say which structure lives in the HMB.

When the write buffer's saving still grows at S_MAX (the knee lies beyond the range),
a simulated target's range is extended (x4 at a time, ~``EXTEND_POINTS`` sizes per
extension, power-of-two steps so that round buffer sizes lie on the grid) up to half of
S_BUFFER, the most the filling write can overflow; a real drive is not written more
than asked, and the finding says which --s-max to try.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ssdlab.probe import analysis, procedures
from ssdlab.probe.procedures import MapCacheParams, ReadCacheParams, WriteBufferParams
from ssdlab.probe.target import DEFAULT_MAX_IO, ProbeError, ProbeTarget

PROBES = ("read-cache", "write-buffer", "map-cache")
EXTEND_POINTS = 192
WRITES = {"write-buffer", "map-cache"}

__all__ = [
    "PROBES",
    "MapCacheParams",
    "ProbeError",
    "ProbeResult",
    "ReadCacheParams",
    "WriteBufferParams",
    "is_real_target",
    "open_target",
    "run_probes",
]


def _presets() -> dict:
    from ssdlab import api

    return api.presets()


ANALYSE = {
    "read-cache": analysis.cache_from_rereads,
    "write-buffer": analysis.buffer_from_savings,
    "map-cache": analysis.map_reach,
}


def is_real_target(target: Any) -> bool:
    """A path to a block device or a regular file that is not a device description; a
    bare preset name is the preset even when a file of that name exists."""
    if isinstance(target, Mapping):
        return False
    if isinstance(target, str) and target in _presets():
        return False
    p = Path(os.fspath(target))
    if p.suffix.lower() in (".toml", ".json"):
        return False
    try:
        st = p.stat()
    except OSError:
        return False
    return stat.S_ISBLK(st.st_mode) or stat.S_ISREG(st.st_mode)


def open_target(
    target: Any,
    *,
    hmb: str | None = None,
    writable: bool = False,
    destructive: bool = False,
    state: str = "full",
    seed: int = 1,
    set: Any = None,
    max_io_bytes: int = DEFAULT_MAX_IO,
) -> ProbeTarget:
    if is_real_target(target):
        from ssdlab.probe.real import BlockTarget

        if hmb is not None:
            raise ProbeError(
                f"--hmb: a real drive's HMB is set by the host driver, not by the probe "
                f"(Linux: nvme max_host_mem_size_mb); set it, reload, and run once per size "
                f"(got --hmb {hmb} for {target})"
            )
        return BlockTarget(
            target, writable=writable, destructive=destructive, max_io_bytes=max_io_bytes
        )
    from ssdlab.probe.sim import SimTarget

    return SimTarget(target, hmb=hmb, state=state, seed=seed, set=set, max_io_bytes=max_io_bytes)


@dataclass
class ProbeResult:
    target: str
    simulated: bool
    # setting label ("default", "on", "off", "max", …) -> probe -> curve dict
    curves: dict[str, dict[str, dict]] = field(default_factory=dict)
    findings: dict[str, dict[str, analysis.Finding]] = field(default_factory=dict)
    hmb_granted: dict[str, int | None] = field(default_factory=dict)
    attribution: dict[str, str] = field(default_factory=dict)
    elapsed_s: dict[str, float] = field(default_factory=dict)

    def summary(self) -> str:
        lines = [f"probe {self.target} ({'simulated' if self.simulated else 'real device'})"]
        for setting, found in self.findings.items():
            g = self.hmb_granted.get(setting)
            hmb = f", HMB granted {analysis.fmt_size(g, 'bytes')}" if g is not None else ""
            lines.append(f"[hmb {setting}{hmb}]")
            for f in found.values():
                lines.append("  " + f.describe())
        if self.attribution:
            lines.append("HMB attribution:")
            for k, v in self.attribution.items():
                lines.append(f"  {k}: {v}")
        return "\n".join(lines)

    def to_dict(self) -> dict:
        from dataclasses import asdict

        return {
            "target": self.target,
            "simulated": self.simulated,
            "hmb_granted_bytes": self.hmb_granted,
            "findings": {
                s: {p: asdict(f) for p, f in fs.items()} for s, fs in self.findings.items()
            },
            "attribution": self.attribution,
            "elapsed_s": self.elapsed_s,
            "params": {s: {p: c["params"] for p, c in cs.items()} for s, cs in self.curves.items()},
        }


def _default_hmb(target: Any) -> list[str | None]:
    """Simulated drives that advertise an HMB (HMPRE > 0, as Identify says) are probed
    with it on and off; others once."""
    if is_real_target(target):
        return [None]
    from ssdlab import api

    cfg = api.validate(target)
    return ["on", "off"] if cfg.get("hmb", {}).get("hmpre", "0B") not in ("0B", 0) else [None]


def run_probes(
    target: Any,
    probes: Sequence[str] = PROBES,
    *,
    hmb: Sequence[str | None] | None = None,
    read_params: ReadCacheParams | None = None,
    write_params: WriteBufferParams | None = None,
    map_params: MapCacheParams | None = None,
    destructive: bool = False,
    state: str = "full",
    seed: int = 1,
    set: Any = None,
    max_io_bytes: int = DEFAULT_MAX_IO,
    progress=None,
) -> ProbeResult:
    """Run the chosen probes once per HMB setting, analyse, and attribute."""
    import time

    for p in probes:
        if p not in PROBES:
            raise ProbeError(f"probe: '{p}' is not a probe (allowed: {', '.join(PROBES)}, all)")
    settings = list(hmb) if hmb else _default_hmb(target)
    writable = any(p in WRITES for p in probes)
    res = ProbeResult(target=str(target), simulated=not is_real_target(target))
    params = {
        "read-cache": read_params or ReadCacheParams(),
        "write-buffer": write_params or WriteBufferParams(),
        "map-cache": map_params or MapCacheParams(),
    }
    funcs = {
        "read-cache": procedures.read_cache,
        "write-buffer": procedures.write_buffer,
        "map-cache": procedures.map_cache,
    }
    for setting in settings:
        label = setting or "default"
        t0 = time.perf_counter()
        tgt = open_target(
            target,
            hmb=setting,
            writable=writable,
            destructive=destructive,
            state=state,
            seed=seed,
            set=set,
            max_io_bytes=max_io_bytes,
        )
        try:
            res.target = tgt.name  # the target's own label (a dict device's name)
            res.hmb_granted[label] = tgt.hmb_granted_bytes()
            res.curves[label], res.findings[label] = {}, {}
            for p in PROBES:
                if p not in probes:
                    continue
                cb = (lambda f, lab=label, pr=p: progress(lab, pr, f)) if progress else None
                curve = funcs[p](tgt, params[p], cb)
                finding = ANALYSE[p](curve["rows"])
                if p == "write-buffer":
                    finding = _extend_write_range(tgt, params[p], curve, finding, cb)
                res.curves[label][p] = curve
                res.findings[label][p] = finding
        finally:
            tgt.close()
        res.elapsed_s[label] = round(time.perf_counter() - t0, 2)
    res.attribution = attribute(res)
    return res


def _extend_write_range(tgt, p: WriteBufferParams, curve: dict, finding, cb):
    """Extend the write-buffer sweep past S_MAX while the knee lies beyond it (simulated
    targets), appending the rows to ``curve``; otherwise say how to extend it."""
    from dataclasses import replace

    first_max = p.s_max
    limit = p.s_buffer // 2
    s_max = p.s_max
    while finding.bound == "at_least" and tgt.simulated and s_max < limit:
        new_max = min(4 * s_max, limit)
        step = max(p.s_inc, 1 << max(0, ((new_max - s_max) // EXTEND_POINTS - 1).bit_length()))
        start = (s_max // step + 1) * step
        if start > new_max:
            break
        ext = replace(p, s_min=start, s_max=new_max, s_inc=step)
        curve["rows"].extend(procedures.write_buffer(tgt, ext, cb)["rows"])
        s_max = new_max
        finding = analysis.buffer_from_savings(curve["rows"])
    curve.setdefault("params", {})["s_max_extended"] = s_max
    mib = analysis.fmt_size

    def flag(v: int) -> str:  # a size the command line takes back
        return f"{v >> 20}MiB" if v % (1 << 20) == 0 else f"{v >> 10}KiB"

    if s_max > first_max:
        finding.note += (
            f"; S_MAX extended from {mib(first_max, 'bytes')} to {mib(s_max, 'bytes')} "
            "because the saving still grew at the end of the range"
        )
    if finding.bound == "at_least":
        if tgt.simulated:
            finding.note += (
                f"; the knee lies beyond {mib(s_max, 'bytes')} (half of S_BUFFER): "
                f"rerun with a larger --s-buffer and --s-max {flag(4 * s_max)}"
            )
        else:
            finding.note += f"; the knee lies beyond S_MAX: rerun with --s-max {flag(4 * s_max)}"
    return finding


def attribute(res: ProbeResult) -> dict[str, str]:
    """Compare findings across HMB settings: which structure lives in the HMB."""
    off = res.findings.get("off")
    ons = [s for s in res.findings if s not in ("off", "default")]
    if off is None or not ons:
        return {}
    out = {}
    for probe in off:
        f_off = off[probe]
        f_on = res.findings[ons[0]].get(probe)
        if f_on is None:
            continue
        name = f_on.structure
        lv_on, lv_off = f_on.level_ns, f_off.level_ns
        if not f_on.found and not f_off.found and lv_on and lv_off:
            if lv_off >= analysis.MAP_JUMP * lv_on:
                out[name] = (
                    f"in the HMB: no knee in range, but warm reads take {lv_on / 1e3:.1f} us "
                    f"with it and {lv_off / 1e3:.1f} us without (every section's entry cached "
                    "with the HMB, fewer than D_MIN without)"
                )
            else:
                out[name] = "no sign of a map cache in the HMB: the same flat curve without it"
        elif not f_on.found and not f_off.found:
            out[name] = "none found with or without the HMB"
        elif f_on.found and not f_off.found:
            out[name] = "in the HMB: found with it, gone without it"
        elif f_on.found and f_off.found:
            a, b = f_on.size or 0, f_off.size or 0
            same_bound = f_on.bound == f_off.bound
            if same_bound and abs(a - b) <= 0.2 * max(a, b, 1):
                out[name] = (
                    "not in the HMB: the same with and without it (controller SRAM/DRAM or SLC)"
                )
            else:
                out[name] = (
                    f"in the HMB: {analysis.fmt_size(a, f_on.unit)} with it, "
                    f"{analysis.fmt_size(b, f_off.unit)} without it"
                )
        else:
            out[name] = "found only without the HMB (unexpected; check the curves)"
        if probe == "map-cache" and out[name].startswith("in the HMB"):
            out[name] += _caching_unit(res, ons)
    return out


def _caching_unit(res: ProbeResult, ons: list[str]) -> str:
    parts = []
    for s in ons:
        f = res.findings[s].get("map-cache")
        g = res.hmb_granted.get(s)
        if f and f.found and f.bound == "exact" and g:
            parts.append(
                f"{s}: {analysis.fmt_size(g, 'bytes')} / {f.size:,} sections"
                f" ~ {g / f.size / 1024:.1f} KiB per entry"
            )
    if not parts:
        return ""
    return "; implied caching unit " + ", ".join(parts)
