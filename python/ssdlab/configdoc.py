"""The device config for people who write one: every section with its defaults resolved
(``ssdlab presets --show NAME``), the figures ``ssdlab validate`` derives, and
``docs/config.md`` generated from the Rust definitions.

The generator reads the config structs in ``crates/ssdlab-core/src/config/`` (a source
checkout, not the installed package): each field's doc comment is its meaning, its Rust
type gives the unit, the default is what the core resolves when the field is left out
(a minimal device of required fields only, validated by the core), and the range is
taken from the checks in the same sources (``pos(…, "nand.channels")`` is "> 0",
messages with "(allowed: …)" or "must be …"). Regenerate with
``python -m ssdlab.configdoc > docs/config.md``; a test fails when the file is stale.
Simplification: only the device's top-level sections are documented, one level deep.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

SECTION_ORDER = ("host", "controller", "nand", "ftl", "map", "sram", "dram", "hmb",
                 "read_cache", "scheduler", "slc")  # fmt: skip
REPORT_ONLY = ("capacity_bytes", "raw_bytes", "warnings", "derived")
UNITS = {
    "Duration": "time; a unit is required (ns, us, ms, s)",
    "Size": "bytes; a unit is required (B, KiB, MiB, GiB, KB, MB, GB, TB)",
    "Bytes": "bytes (a size such as \"1GiB\"; a bare number is bytes)",
    "Rate": "transfers/s (e.g. 800MT/s)",
    "Bandwidth": "bytes/s (e.g. 1GB/s, 985MB/s)",
    "PerPageType": "time, one value or one per page type (LSB, CSB, MSB, TSB)",
    "u32": "count",
    "u64": "count",
    "usize": "count",
    "f64": "number",
    "bool": "true or false",
    "String": "text",
}


# ---- resolved config as TOML --------------------------------------------------------


def _toml_value(v: Any) -> str:
    import json

    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    return json.dumps(str(v), ensure_ascii=False)


def _cache_note(cfg: dict) -> str:
    """What ``map.cache = "all"`` means for this device: the whole map, or (in an HMB or
    a tier smaller than the map) all the tier holds, with the size it resolves to."""
    d = cfg.get("derived") or {}
    if cfg.get("map", {}).get("cache") != "all" or not d:
        return ""
    if d.get("map_whole"):
        return f"  # the whole {d['map_bytes'] / (1 << 20):,.0f} MiB map"
    return (
        f"  # all the {d.get('map_tier')} grant holds: a {d['map_cache_bytes'] / (1 << 20):,.0f}"
        f" MiB cache of the {d['map_bytes'] / (1 << 20):,.0f} MiB map, not the whole map"
    )


def _table(lines: list[str], name: str, d: dict, notes: dict | None = None) -> None:
    scalars = {k: v for k, v in d.items() if not isinstance(v, dict)}
    lines.append(f"\n[{name}]")
    for k, v in scalars.items():
        # TOML has no null: an unset optional field is shown as a comment
        note = (notes or {}).get(f"{name}.{k}", "")
        lines.append(f"# {k}: not set" if v is None else f"{k} = {_toml_value(v)}{note}")
    for k, v in d.items():
        if isinstance(v, dict):
            _table(lines, f"{name}.{k}", v)


def resolved_toml(device: Any) -> str:
    """Every section of a device with every default filled in, as TOML that loads back
    to the same config."""
    from ssdlab import api

    cfg = api.validate(device)
    notes = {"map.cache": _cache_note(cfg)}
    if "system" in cfg:
        raise api.ConfigError(
            f"{device}: a system file, not a device (--show prints a device's fields; "
            f"`ssdlab validate {device}` describes a system and its drives)"
        )
    for k in REPORT_ONLY:
        cfg.pop(k, None)
    lines = [f"# {cfg.get('name')}: every field, defaults resolved (ssdlab presets --show)"]
    for k, v in cfg.items():
        if not isinstance(v, dict):
            lines.append(f"{k} = {_toml_value(v)}")
    for k, v in cfg.items():
        if isinstance(v, dict):
            _table(lines, k, v, notes)
    return "\n".join(lines) + "\n"


def _rate(b: float) -> str:
    return f"{b / 1e9:,.2f} GB/s" if b >= 1e9 else f"{b / 1e6:,.0f} MB/s"


def describe_derived(cfg: dict) -> str:
    """The lines ``ssdlab validate`` prints under its verdict."""
    d = cfg.get("derived") or {}
    if not d:
        return ""
    g = d["geometry"]
    gib = 1 << 30
    lines = [
        f"  geometry: {g['channels']} ch x {g['dies_per_channel']} dies x "
        f"{g['planes_per_die']} planes x {g['blocks_per_plane']:,} blocks x "
        f"{g['pages_per_block']} pages x {g['page_bytes'] // 1024} KiB = "
        f"{g['raw_bytes'] / 1e9:,.1f} GB raw, {g['capacity_bytes'] / 1e9:,.1f} GB user",
        f"  ceilings: PCIe {_rate(d['pcie_bytes_per_s'])}; channels "
        f"{_rate(d['channels_bytes_per_s'])} ({_rate(d['channel_bytes_per_s'])} each); dies "
        f"read {_rate(d['dies_read_bytes_per_s'])}, program "
        f"{_rate(d['dies_program_bytes_per_s'])} ({_rate(d['die_read_bytes_per_s'])} / "
        f"{_rate(d['die_program_bytes_per_s'])} each)",
        f"  QD1 4 KiB read: about {d['qd1_read_4k_ns_estimate'] / 1e3:,.1f} us "
        "(no queueing, map hit)",
    ]
    mem = f"DRAM {d['dram_bytes'] / gib:,.3f} GiB"
    if d["hmb_preferred_bytes"]:
        mem += f", HMB preferred {d['hmb_preferred_bytes'] / gib:,.3f} GiB"
    cached = f"{d['map_cache_bytes'] / gib:,.3f} GiB cached in "
    where = "whole map in " if d["map_whole"] else cached
    lines.append(f"  map: {d['map_bytes'] / gib:,.3f} GiB; {where}{d['map_tier']}; {mem}")
    grant = d.get("hmb_grant") or {}
    if grant and grant["status"] != "unsupported":
        mib = 1 << 20
        line = (
            f"  HMB: {grant['status']} ({grant['policy']} policy, asked "
            f"{grant['requested_bytes'] / mib:,.1f} MiB under the host cap "
            f"{grant['host_limit_bytes'] / mib:,.0f} MiB, granted "
            f"{grant['granted_bytes'] / mib:,.1f} MiB in {grant['descriptors']} chunks"
        )
        if grant["descriptors"]:
            line += f" of {grant['chunk_bytes'] / mib:,.2f} MiB"
        line += ")"
        if grant["note"]:
            line += f"; {grant['note']}"
        lines.append(line)
    parts = d.get("sram_parts") or []
    if "sram_bytes" in d:
        used = sum(p["bytes"] for p in parts)
        listed = ", ".join(f"{p['part']} {p['bytes'] / 1024:,.0f} KiB" for p in parts)
        lines.append(
            f"  SRAM: {used / 1024:,.0f} of {d['sram_bytes'] / 1024:,.0f} KiB used"
            + (f" ({listed})" if listed else "")
        )
    return "\n".join(lines)


def describe_system(cfg: dict) -> str:
    """The lines ``ssdlab validate`` prints for a system file (``api.validate`` of one):
    hosts, targets, fabric, then each distinct drive config once with its derived figures.
    Prints each distinct drive's plausibility warnings on stderr."""
    import json
    import sys

    from ssdlab import api

    drives = cfg.get("drives") or []
    fabric = cfg.get("fabric")
    lines = [
        f"  hosts: {', '.join(cfg.get('hosts') or []) or '-'}; "
        f"targets: {', '.join(cfg.get('targets') or []) or '-'}",
        "  fabric: "
        + (
            f"{fabric.get('name')} ({fabric.get('transport')})" if fabric else "none (local drives)"
        ),
    ]
    groups: dict[str, list[dict]] = {}
    for d in drives:
        groups.setdefault(json.dumps(d["config"], sort_keys=True), []).append(d)
    for key, members in groups.items():
        dev = json.loads(key)
        for k in REPORT_ONLY:
            dev.pop(k, None)
        names = [m["name"] for m in members]
        shown = ", ".join(names[:8]) + (f", ... ({len(names)} in all)" if len(names) > 8 else "")
        where = sorted({f"{m['host']} -> {m['target'] or 'local'}" for m in members})
        lines.append(
            f"  {len(members)} drive(s) {dev.get('name')}: {shown} "
            f"(host -> target: {', '.join(where[:8])}{', ...' if len(where) > 8 else ''})"
        )
        resolved = api.validate(dev)
        for w in resolved.get("warnings") or []:
            print(f"ssdlab: warning: {dev.get('name')} ({names[0]}): {w}", file=sys.stderr)
        derived = describe_derived(resolved)
        if derived:
            lines.extend("  " + line for line in derived.splitlines())
    return "\n".join(lines)


# ---- docs/config.md from the Rust sources --------------------------------------------

_FIELD = re.compile(r"^\s*pub (\w+): ([^,]+),\s*$")


def _structs(text: str) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for m in re.finditer(r"pub struct (\w+) \{\n(.*?)\n\}", text, re.S):
        fields, doc, default = [], [], None
        # `#[serde(default)]` on the struct: every field has a default
        before = text[: m.start()].rstrip().splitlines()
        whole = bool(before) and before[-1].startswith("#[serde(") and "default" in before[-1]
        for line in m.group(2).splitlines():
            s = line.strip()
            if s.startswith("///"):
                doc.append(s[3:].strip())
            elif s.startswith("#[serde(") and "default" in s:
                dm = re.search(r'default = "(\w+)"', s)
                default = dm.group(1) if dm else "Default"
            elif s.startswith("#["):
                continue
            elif (fm := _FIELD.match(line)) is not None:
                fields.append(
                    {
                        "name": fm.group(1),
                        "type": fm.group(2),
                        "doc": " ".join(doc),
                        "required": default is None and not whole,
                    }
                )
                doc, default = [], None
            else:
                doc, default = [], None
        out[m.group(1)] = fields
    return out


def _enums(text: str) -> dict[str, list[str]]:
    out = {}
    pat = r'(?:#\[serde\(rename_all = "([\w-]+)"\)\]\s*)?pub enum (\w+) \{\n(.*?)\n\}'
    for m in re.finditer(pat, text, re.S):
        style, name, body = m.group(1), m.group(2), m.group(3)
        names = re.findall(r"^\s*(\w+)\s*[,({]", body, re.M)
        if style == "lowercase":
            names = [n.lower() for n in names]
        elif style == "UPPERCASE":
            names = [n.upper() for n in names]
        elif style == "kebab-case":
            names = [re.sub(r"(?<!^)([A-Z])", r"-\1", n).lower() for n in names]
        out[name] = names
    return out


def _unit(rust_type: str, enums: dict[str, list[str]]) -> str:
    t = rust_type.strip()
    opt = t.startswith("Option<")
    if opt:
        t = t[len("Option<") : -1]
    if t in UNITS:  # a unit type first: PerPageType is an enum of its forms, not choices
        u = UNITS[t]
    elif t in enums:
        u = "one of " + ", ".join(enums[t])
    else:
        u = t
    return u + (" (optional)" if opt else "")


def _range(path: str, sources: str) -> str:
    found = []
    if re.search(rf'pos\([^;]*"{re.escape(path)}"\)', sources):
        found.append("> 0")
    # rates checked by `check_bandwidth("path", value, bits)` (config/units.rs)
    if re.search(rf'check_bandwidth\(\s*"{re.escape(path)}"', sources):
        found.append("1MB/s to 10TB/s")
    # upper bounds checked by `range(value, "path", max, "what")` in validate()
    bound = rf'range\([^;]*?"{re.escape(path)}",\s*[^,]+,\s*"([^"]*)",?\s*\)'
    for what in re.findall(bound, sources):
        found.append(f"1 to {what}")
    for lit in re.findall(r'"((?:[^"\\]|\\.)*)"', sources):
        if not lit.startswith(path + ":"):
            continue
        am = re.search(r"\(allowed: ([^)]*)\)", lit)
        mm = re.search(r"must be ([^;\"]*)", lit)
        if am:
            found.append(_filled(am.group(1), lit))
        elif mm:
            found.append(_filled(mm.group(1), lit))
    seen = []
    for f in found:
        if f and f not in seen:
            seen.append(f)
    return "; ".join(seen).replace("|", "/") or "-"


def _filled(text: str, message: str) -> str:
    """A range taken from an error message with its format placeholders named: a named
    ``{x}`` becomes the expression the message gives for it (``(a x b = {x})``), ``{}``
    the field the message compares against (``X = {}`` or ``X ({})``)."""
    body = message[message.find(":") + 1 :]
    for key in set(re.findall(r"\{(\w+)\}", text)):
        m = re.search(r"\(([^()]*?) = \{" + key + r"\}\)", body)
        text = text.replace("{" + key + "}", m.group(1) if m else key)
    other = re.search(r"(\w+\.\w+)(?: = | \()\{\}", body)
    text = re.sub(r"\s*\(\{\}\)", "", text)  # "greater than X ({})" -> "greater than X"
    return text.replace("{}", other.group(1) if other else "another field's value").strip()


def _size_bytes(text: str) -> int:
    """Bytes of a size string as the resolved config writes it ("16KiB", "4096B")."""
    m = re.fullmatch(r"(\d+)\s*([KMGT]?i?B)", str(text).strip())
    if not m:
        raise ValueError(f"not a size: {text!r}")
    mult = {"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40,
            "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12}  # fmt: skip
    return int(m.group(1)) * mult[m.group(2)]


def _minimal_device(structs: dict, top: list[dict]) -> dict:
    """client-tlc-dram's values for the required fields only."""
    from ssdlab import api

    full = api.validate("client-tlc-dram")
    dev: dict[str, Any] = {"name": "defaults"}
    for f in top:
        t = f["type"]
        if not f["required"] or t not in structs:
            continue
        dev[f["name"]] = {
            g["name"]: full[f["name"]][g["name"]] for g in structs[t] if g["required"]
        }
    return dev


REAL_DRIVE = [
    "",
    "## Describing a real drive",
    "",
    "From its data sheet and a review, field by field:",
    "",
    '1. `[nand] capacity = "1TB"` (the user capacity the box says), `cell`, `channels`,',
    "   `dies_per_channel` (raw NAND / die size: a 1 TB drive of 512 Gbit dies has 16),",
    "   `planes_per_die`, `page_size`, `t_read`, `t_prog`, `channel_rate` from the NAND's",
    "   announcement; `[ftl] over_provisioning` is raw minus user over raw (7 % for a",
    "   client drive whose raw NAND is 1,024 GiB behind 1,000 GB).",
    "2. `[host]` from the interface (`pcie_gen`, `pcie_lanes`), `[dram] size` (0 for a",
    "   DRAM-less drive) or `[hmb] hmpre` (the drive's preferred HMB, `nvme id-ctrl`).",
    "3. The SLC cache. In `static` and `dynamic` mode ssdlab keeps the SLC area's blocks",
    "   **apart from** the native blocks that hold the capacity, so `slc.size` adds raw",
    "   NAND: a 300 GB SLC area of TLC takes 900 GB of raw NAND on top of the 1 TB. A real",
    "   drive's large dynamic cache is carved from the same native blocks instead:",
    "   `mode = \"free-space\"` with `size` the cache on an empty drive (what a review",
    "   measures before the write speed drops) and `min_size` its static part, kept apart",
    "   (a few GB; add its blocks to `blocks_per_plane`). The rest borrows free native",
    "   blocks and shrinks as the drive fills (docs/flash-management.md). `ssdlab validate`",
    "   warns when the raw NAND kept apart for SLC is more than a quarter of the capacity.",
    "4. Firmware: `[controller] cores` and `cmd_time` from the drive's random-read IOPS",
    "   (cores / cmd_time bounds them), `write_buffer` from its QD1 write latency.",
    "5. `ssdlab validate FILE` prints the geometry, raw and user capacity and the",
    "   ceilings (PCIe, channels, dies); `ssdlab profile FILE` prints the rows a data",
    "   sheet or a review does, measured the same way, to compare with it.",
]


def generate(root: str | Path) -> str:
    """docs/config.md's text from the Rust sources under ``root``."""
    from ssdlab import api

    src = Path(root) / "crates" / "ssdlab-core" / "src" / "config"
    # The zoned namespace's section lives with its model (crates/ssdlab-core/src/zns/);
    # first, so that the ranges' scan of string literals starts in step in its files.
    zns = src.parent / "zns"
    texts = {f"zns/{n}": (zns / n).read_text() for n in ("config.rs", "mod.rs")}
    texts.update({p.name: p.read_text() for p in sorted(src.glob("*.rs"))})
    sources = "\n".join(texts.values())
    structs, enums = {}, {}
    for t in texts.values():
        structs.update(_structs(t))
        enums.update(_enums(t))
    top = structs["DeviceConfig"]
    # The power section is left out of a resolved config while disabled: resolve it on.
    resolved = api.validate({**_minimal_device(structs, top), "power": {"enabled": True}})
    # `[zns]` is absent unless given: resolve it with zones one program unit a die wide.
    n = resolved["nand"]
    unit = _size_bytes(n["page_size"]) * n["planes_per_die"] * n["pages_per_program"]
    zone = unit * n["channels"] * n["dies_per_channel"]
    resolved["zns"] = api.validate(
        {**_minimal_device(structs, top), "zns": {"zone_size_bytes": f"{zone}B"}}
    )["zns"]
    # `[fdp]` is absent unless given: resolve it on a drive with room for its handles.
    resolved["fdp"] = api.validate(
        {**_minimal_device(structs, top), "fdp": {"handles": 1}}
    )["fdp"]
    resolved["fdp"]["handles"] = 8  # the default (the minimal drive has no spare for 8)
    out = [
        "# Device config reference",
        "",
        "Generated from the Rust definitions in `crates/ssdlab-core/src/config/` by",
        "`python -m ssdlab.configdoc > docs/config.md` (a test fails when this file is stale).",
        "Defaults are what ssdlab resolves when a field is left out; *required* fields have",
        'none. `nand.capacity` (a size such as `"1TB"`) may replace `nand.blocks_per_plane`:',
        "the fewest blocks per plane that reach that user capacity are used, and",
        "`ssdlab validate` shows the geometry. Start from `ssdlab presets --show NAME`.",
        *REAL_DRIVE,
    ]
    for f in top:
        ftype = re.sub(r"^Option<(?:\w+::)*(\w+)>$", r"\1", f["type"])
        if ftype not in structs:
            continue
        sec = f["name"]
        out += ["", f"## [{sec}]", ""]
        if f["doc"]:
            out += [f["doc"], ""]
        out += ["| field | unit | default | range | meaning |", "|---|---|---|---|---|"]
        for g in structs[ftype]:
            path = f"{sec}.{g['name']}"
            if g["required"]:
                default = "*required*"
            else:
                v = resolved.get(sec, {}).get(g["name"])
                if path == "power.enabled":
                    v = False  # resolved with it on, above
                if isinstance(v, list) and v and isinstance(v[0], dict):
                    v = f"{len(v)} states (docs/power.md)"
                default = "-" if v is None else f"`{_toml_value(v)}`"
            doc = (g["doc"] or "-").replace("|", "/")
            unit = _unit(g["type"], enums).replace("|", "/")
            out.append(f"| `{g['name']}` | {unit} | {default} | {_range(path, sources)} | {doc} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    root = Path(argv[0]) if argv else Path(__file__).resolve().parents[2]
    sys.stdout.write(generate(root))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
