"""fio's zone options (``zonemode``, ``zonesize``, ``zonerange``, ``zonecapacity``,
``zoneskip``, ``read_beyond_wp``, ``max_open_zones``, ``job_max_open_zones``,
``ignore_zone_limits``, ``zone_reset_threshold``, ``zone_reset_frequency``), sizes in
zones (``size=128z``), and the Flexible Data Placement options (``fdp``,
``dataplacement``, ``plids``/``fdp_pli``, ``plid_select``/``fdp_pli_select``,
``dp_scheme``).

A job's zone options become its ``zoned`` table, which the simulator's generator
follows with fio's rules (crates/ssdlab-core/src/workload/zbd.rs): ``zonemode=zbd``
over zones the host keeps itself, as fio does on a drive that is not zoned, and
``zonemode=strided``. FDP options (``fdp=1`` or ``dataplacement=fdp``) become the
job's ``fdp`` table: the placement-ID indices, how one is picked per write and the
``dp_scheme`` file's ranges (crates/ssdlab-core/src/workload/placement.rs follows
fio's rules); the run needs a drive with an ``[fdp]`` section and is refused on one
without (as fio stops on a drive without FDP). ``dataplacement=streams`` is refused:
the streams directive is not modelled.
"""

from __future__ import annotations

import re
from typing import Any

from ssdlab.fio.parser import JobFileError, parse_bool, parse_float, parse_int, parse_size

# What each becomes; docs/fio.md's table (options.SIMULATED takes them in).
ZONE_SIMULATED: dict[str, str] = {
    "zonemode": "none, strided (zonesize bytes, then skip zonerange + zoneskip on) or zbd "
    "(write pointers, open-zone limits and resets over zones the host keeps, as fio does "
    "on a drive that is not zoned)",
    "zonesize": "a zone's size (zbd), bytes per zone visit (strided); sizes may be in "
    "zones: size=128z",
    "zonerange": "strided: a zone's size (default: zonesize)",
    "zonecapacity": "zbd: a zone's writable bytes (default: zonesize)",
    "zoneskip": "bytes skipped after each zone (sequential jobs)",
    "read_beyond_wp": "zbd: reads may go past a zone's write pointer",
    "max_open_zones": "zbd: zones open for writing at once",
    "job_max_open_zones": "zbd: zones this job keeps open at once",
    "ignore_zone_limits": "zbd: ignore the drive's open-zone limit (the emulated zones "
    "have none)",
    "zone_reset_threshold": "zbd: share of the span holding data above which writes reset "
    "zones",
    "zone_reset_frequency": "zbd: above the threshold, one write in 1/f resets its zone",
}
FDP_OPTIONS = ("fdp", "dataplacement", "plids", "fdp_pli", "plid_select", "fdp_pli_select",
               "dp_scheme")  # fmt: skip
# What each FDP option becomes (on a drive with an [fdp] section; docs/zns-fdp.md).
FDP_SIMULATED: dict[str, str] = {
    "fdp": "writes carry a data placement directive (type 2) whose DSPEC is a placement ID "
    "(needs a drive with [fdp])",
    "dataplacement": "fdp: as fdp=1; none: no directive; streams: refused",
    "plids": "indices into the drive's reclaim unit handle status list (group 0's handles, "
    "then group 1's, ...): the placement IDs the job writes with (default: all)",
    "fdp_pli": "as plids",
    "plid_select": "roundrobin (default) or random: one of the job's placement IDs per write; "
    "scheme: by the write's offset, from dp_scheme",
    "fdp_pli_select": "as plid_select",
    "dp_scheme": "file of start,end,placement_id lines: a write in [start, end) of the first "
    "line holding it carries that placement ID, others placement ID 0",
}
FDP_WHY = (
    "dataplacement=streams: the streams directive is not modelled (fdp=1 or "
    "dataplacement=fdp run on a drive with an [fdp] section)"
)
_MODES = ("none", "strided", "zbd")
_ZONED_COUNT = re.compile(r"^\s*(\d+)\s*z\s*$", re.IGNORECASE)


def plid_list(text: str, where: str, name: str) -> list[int]:
    """fio's ``plids``: indices separated by ``,`` or ``:``, ranges ``lo-hi``."""
    out: list[int] = []
    for part in re.split(r"[,:]", text):
        if not part.strip():
            continue
        lo, _, hi = part.partition("-")
        a = parse_int(lo, where, name, 0, 65535)
        b = parse_int(hi, where, name, 0, 65535) if hi else a
        if b < a:
            raise JobFileError(f"{where}: {name}={text}: range {part.strip()} runs backwards")
        out.extend(range(a, b + 1))
    return out


def read_dp_scheme(path: str, where: str) -> list[list[int]]:
    """fio's ``dp_scheme`` file: lines ``start,end,placement_id`` (offsets in bytes;
    the third column is the placement ID the write carries). As fio's ``fscanf``
    loop, reading stops at the first line that is not such a line."""
    try:
        text = open(path, encoding="utf-8").read()
    except OSError as e:
        raise JobFileError(f"{where}: dp_scheme={path}: cannot read it ({e.strerror})") from e
    out: list[list[int]] = []
    for line in text.splitlines():
        m = re.fullmatch(r"\s*(\d+)\s*,\s*(\d+)\s*,\s*(\d+)\s*", line)
        if not m:
            break
        start, end, pid = (int(g) for g in m.groups())
        if pid > 0xFFFF:
            raise JobFileError(f"{where}: dp_scheme={path}: placement ID {pid} above 65535")
        out.append([start, end, pid])
    if not out:
        raise JobFileError(
            f"{where}: dp_scheme={path}: no entries (allowed: lines start,end,placement_id)"
        )
    return out


def zone_size_of(opts, kb: int = 1024) -> int | None:
    """The job's zonesize (the last one given), for sizes written in zones."""
    zs = None
    for o in opts:
        if o.name == "zonesize" and o.value is not None and not _ZONED_COUNT.match(o.value):
            zs = parse_size(o.value, o.where, o.name, kb)
    return zs


def is_zones(text: str | None) -> bool:
    """A size written in zones (``128z``)."""
    return bool(_ZONED_COUNT.match(text or ""))


def size_or_zones(
    text: str, where: str, name: str, kb: int, zone_size: int | None, zopts=None
) -> int:
    """A size, or a count of zones (``128z``, fio's zone unit). Without a zonesize the
    zones are the drive's own: with `zopts` the job is kept and refused when run (one
    zone stands in meanwhile), else it is an error."""
    m = _ZONED_COUNT.match(text or "")
    if m:
        if not zone_size:
            why = (
                f"{where}: {name}={text.strip()}: a size in zones needs zonesize or a zoned "
                "drive's own zone size, and this drive is not zoned (a device with [zns] "
                "reports its zones)"
            )
            if zopts is None:
                raise JobFileError(why)
            zopts.refused = zopts.refused or why
            zopts.needs_drive_zones = True
            return 0 if name == "offset" else 1 << 20
        return int(m.group(1)) * zone_size
    return parse_size(text, where, name, kb)


class ZoneOptions:
    """The zone and FDP options of one job, checked as they come."""

    def __init__(self, zone_size: int | None, drive_zone_size: int | None = None):
        self.zone_size = zone_size
        # A zoned drive's own zone size (`[zns]`), as fio reads it from the device.
        self.drive_zone_size = drive_zone_size
        # Refused only for want of the drive's zones: a zoned drive would run it.
        self.needs_drive_zones = False
        self.mode: str | None = None
        self.where = ""
        self.spec: dict[str, Any] = {}
        self.fdp: dict[str, Any] = {}
        self.refused: str | None = None  # why a run is refused (parse-only accepts)

    def take(self, n: str, v: str | None, w: str, kb: int) -> bool:
        """Handle option `n` if it is a zone or FDP option."""
        if n in FDP_OPTIONS:
            self.fdp[n] = (v or "1").strip()
            self.fdp.setdefault("_where", w)
            if n == "fdp" and not parse_bool(v, w, n):
                self.fdp.pop(n)
            elif n == "dataplacement" and self.fdp[n] not in ("none", "fdp", "streams"):
                raise JobFileError(f"{w}: {n}={v}: allowed: none, fdp, streams")
            elif n in ("plid_select", "fdp_pli_select") and self.fdp[n] not in (
                "random", "roundrobin", "scheme"
            ):
                raise JobFileError(f"{w}: {n}={v}: allowed: random, roundrobin, scheme")
            elif n in ("plids", "fdp_pli"):
                self.fdp["_plids"] = plid_list(self.fdp[n], w, n)
            elif n == "dp_scheme":
                self.fdp["_scheme_where"] = w
            return True
        if n not in ZONE_SIMULATED:
            return False
        if v is None and n not in ("read_beyond_wp", "ignore_zone_limits"):
            raise JobFileError(f"{w}: {n}: needs a value ({n}=...)")
        self.where = self.where or w
        if n == "zonemode":
            mode = v.strip().lower()
            if mode not in _MODES:
                raise JobFileError(f"{w}: zonemode={v}: allowed: {', '.join(_MODES)}")
            self.mode = mode
        elif n == "zonesize":
            self.spec["zone_size"] = size_or_zones(v, w, n, kb, self.zone_size)
        elif n == "zonerange":
            self.spec["zone_range"] = size_or_zones(v, w, n, kb, self.zone_size, self)
        elif n == "zonecapacity":
            self.spec["zone_capacity"] = size_or_zones(v, w, n, kb, self.zone_size, self)
        elif n == "zoneskip":
            self.spec["zone_skip"] = size_or_zones(v, w, n, kb, self.zone_size, self)
        elif n == "read_beyond_wp":
            self.spec["read_beyond_wp"] = parse_bool(v, w, n)
        elif n in ("max_open_zones", "job_max_open_zones"):
            self.spec[n] = parse_int(v, w, n, 0, 4096)
        elif n == "ignore_zone_limits":
            parse_bool(v, w, n)  # the emulated zones have no drive limit to ignore
        else:  # zone_reset_threshold, zone_reset_frequency
            self.spec[n] = parse_float(v, w, n, 0, 1)
        return True

    def fdp_spec(self, resolve_path) -> dict[str, Any] | None:
        """The job's ``fdp`` table (None: its writes carry no placement directive), as
        fio's ``dp_init`` sets it up: ``fdp=1`` or ``dataplacement=fdp`` turn it on;
        ``plids`` alone do nothing. Raises for ``dataplacement=streams``."""
        f = self.fdp
        mode = f.get("dataplacement")
        if mode == "streams":
            return {"_refused": f"{f['_where']}: {FDP_WHY}"}
        if "fdp" not in f and mode != "fdp":
            return None
        select = f.get("plid_select", f.get("fdp_pli_select", "roundrobin"))
        out: dict[str, Any] = {"select": select}
        if "_plids" in f:
            out["plids"] = f["_plids"]
        if select == "scheme":
            if "dp_scheme" not in f:
                raise JobFileError(f"{f['_where']}: plid_select=scheme needs dp_scheme=FILE")
            w = f["_scheme_where"]
            out["scheme"] = read_dp_scheme(resolve_path(f["dp_scheme"], w), w)
        return out

    def resolve(self, where: str, name: str) -> dict[str, Any] | None:
        """The job's ``zoned`` table (None without a zone mode), as fio fixes the mode up:
        no zonemode but a zonesize is strided; none with a zonesize is an error."""
        mode = self.mode
        zs = self.spec.get("zone_size")
        if self.refused:
            return {"mode": mode or "zbd", "_refused": self.refused}
        if mode is None:
            mode = "strided" if zs else "none"
        if mode == "none":
            if zs:
                raise JobFileError(
                    f"{self.where}: [{name}]: zonemode=none and zonesize are not compatible "
                    "(as in fio)"
                )
            return None
        if not zs and mode == "strided":
            raise JobFileError(f"{self.where or where}: [{name}]: zonemode=strided needs zonesize")
        if not zs and self.drive_zone_size:
            # fio on a zoned drive: the job's zone size is the drive's (parse_zone_info).
            zs = self.spec["zone_size"] = self.drive_zone_size
        if not zs:
            # Valid fio for a zoned drive, which reports its zone size; checked at run time.
            self.needs_drive_zones = True
            return {"mode": "zbd", "_refused": (
                f"{self.where or where}: [{name}]: zonemode=zbd without zonesize needs a zoned "
                "drive to report its zones, and this drive is not zoned (as fio on a drive "
                "that is not zoned: give zonesize for fio's emulated zones, or run it on a "
                "device with [zns])"
            )}  # fmt: skip
        out: dict[str, Any] = {"mode": mode}
        for k, val in self.spec.items():
            out[k] = f"{val}B" if k.startswith("zone_") and k not in (
                "zone_reset_threshold", "zone_reset_frequency"
            ) else val  # fmt: skip
        return out


def check_shared_zones(jobs) -> None:
    """The zbd jobs of a file share the drive's zones (fio's zone info per file): one
    zone size and capacity (the emulated zones are made once) and one max_open_zones
    (fio: "Different 'max_open_zones' values")."""
    first = None
    for job in jobs:
        z = job.spec.get("zoned")
        if not z or z.get("mode") != "zbd":
            continue
        key = (z.get("zone_size"), z.get("zone_capacity"), z.get("max_open_zones", 0))
        if first is None:
            first = (key, job)
        elif key != first[0]:
            raise JobFileError(
                f"{job.where}: [{job.name}]: zonesize, zonecapacity and max_open_zones must "
                f"be those of [{first[1].name}] (its zbd jobs share the drive's zones, as in "
                "fio; fio refuses different max_open_zones values)"
            )
