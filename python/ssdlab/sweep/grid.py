"""Sweep grids: a base point and axes, expanded into the list of points to run.

A grid (TOML file or dict) has ``[base]`` (``device``, ``workload``, ``state``, ``seed``,
``set``), ``[axes]`` (every key a list of values; their cartesian product), any number
of ``[[zip]]`` groups (lists of one length, taken element by element, each group one
more factor of the product) and ``repeats`` (seeds ``seed, seed+1, …`` per point).
A grid of more than ``max_points`` points (a top-level key; default :data:`MAX_POINTS`)
is refused before anything is expanded: its size is the product of the factors' lengths
and ``repeats``, counted, not enumerated (a grid of 10^12 points costs nothing to refuse).
An axis key is ``device``, ``state``, ``seed``, ``set.<device key>`` (or the bare dotted
device key, e.g. ``nand.t_read``) or ``workload.<fio option>``.

Simplifications: a point is the keyword arguments of :func:`ssdlab.run`; nothing here
checks values against the device (the engine validates every point before the first
run, through the core, so the errors are those of ``ssdlab run``).
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ssdlab.api import ConfigError, check_value

BASE_KEYS = ("device", "workload", "state", "seed", "set")
TOP_KEYS = ("base", "axes", "zip", "repeats", "max_points")
#: The most points a grid may have unless it says otherwise (``max_points = N`` at the
#: top of the grid, ``ssdlab sweep --max-points N``). Every point is resolved and held
#: in memory before the first run: about 15 KB and 0.25 ms each (10,000 points: ~150 MB
#: and ~3 s on a 2-core machine), so a grid far above this is a typo more often than a
#: plan, and a million points would take minutes and GBs before anything ran.
MAX_POINTS = 10_000
# Sections of a device file: a bare axis key starting with one of these is a device key.
DEVICE_SECTIONS = (
    "host",
    "controller",
    "nand",
    "ftl",
    "map",
    "sram",
    "dram",
    "hmb",
    "read_cache",
    "slc",
    "scheduler",
)
AXIS_FORMS = "device, state, seed, set.<device key>, workload.<fio option>"


def load_grid(
    grid: str | os.PathLike | Mapping[str, Any], max_points: int | None = None
) -> dict[str, Any]:
    """A grid from a TOML file path or a dict, checked for shape and size (not yet for
    values). ``max_points`` overrides the grid's own ``max_points`` and the default."""
    if isinstance(grid, Mapping):
        check_value(grid, "grid")  # nesting, keys, NaN: ConfigError naming the field
        data, where = dict(grid), "grid"
    elif not isinstance(grid, (str, os.PathLike)):
        raise ConfigError(
            f"grid: {grid!r} is a {type(grid).__name__}; expected a TOML file path or a dict "
            "with base, axes, zip, repeats"
        )
    else:
        path = Path(grid)
        if not path.is_file():
            raise ConfigError(f"grid: '{path}' is not a file")
        data, where = _read_toml(path), str(path)
        data = _device_paths_from(data, path.parent)
    unknown = sorted(set(data) - set(TOP_KEYS))
    if unknown:
        raise ConfigError(
            f"{where}: unknown key(s) {', '.join(unknown)} (allowed: {', '.join(TOP_KEYS)})"
        )
    base = data.get("base", {})
    if not isinstance(base, Mapping):
        raise ConfigError(f"{where}: base must be a table of {', '.join(BASE_KEYS)}")
    bad = sorted(set(base) - set(BASE_KEYS))
    if bad:
        raise ConfigError(
            f"{where}: base: unknown key(s) {', '.join(bad)} (allowed: {', '.join(BASE_KEYS)})"
        )
    if "set" in base and not isinstance(base["set"], Mapping):
        raise ConfigError(f"{where}: base.set must be a table of device overrides")
    axes = data.get("axes", {})
    if not isinstance(axes, Mapping):
        raise ConfigError(f"{where}: axes must be a table of key = [values]")
    zips = data.get("zip", [])
    if isinstance(zips, Mapping):
        zips = [zips]
    if not isinstance(zips, list) or not all(isinstance(z, Mapping) for z in zips):
        raise ConfigError(f"{where}: zip must be a list of tables ([[zip]] in TOML)")
    groups = [_check_axes(dict(axes), f"{where}: axes")]
    for i, z in enumerate(zips):
        group = _check_axes(dict(z), f"{where}: zip[{i}]")
        lengths = {k: len(v) for k, v in group.items()}
        if len(set(lengths.values())) > 1:
            raise ConfigError(
                f"{where}: zip[{i}]: lists must have one length to be zipped, got "
                + ", ".join(f"{k}={n}" for k, n in lengths.items())
            )
        groups.append(group)
    names = [k for g in groups for k in g]
    dup = sorted({k for k in names if names.count(k) > 1})
    if dup:
        raise ConfigError(f"{where}: axis {', '.join(dup)} appears more than once")
    repeats = data.get("repeats", 1)
    if isinstance(repeats, bool) or not isinstance(repeats, int) or repeats < 1:
        raise ConfigError(f"{where}: repeats: '{repeats}' must be a positive integer")
    if repeats > 1 and "seed" in names:
        raise ConfigError(f"{where}: repeats and a seed axis both set the seed; use one of them")
    if max_points is None:
        max_points = data.get("max_points", MAX_POINTS)
        what = f"{where}: max_points"
    else:
        what = "max_points"
    if isinstance(max_points, bool) or not isinstance(max_points, int) or max_points < 1:
        raise ConfigError(f"{what}: '{max_points}' must be a positive integer")
    _check_size(groups, repeats, max_points, where)
    return {"base": dict(base), "axes": groups[0], "zip": groups[1:], "repeats": repeats}


def grid_size(groups: list[dict[str, list]], repeats: int) -> int:
    """Points of a grid: the product of its factors' lengths (each axis, each zip group)
    and ``repeats``, computed without expanding anything."""
    n = repeats
    for i, group in enumerate(groups):
        if i == 0:
            for values in group.values():
                n *= len(values)
        elif group:
            n *= len(next(iter(group.values())))
    return n


def _check_size(groups: list[dict[str, list]], repeats: int, limit: int, where: str) -> None:
    n = grid_size(groups, repeats)
    if n <= limit:
        return
    factors = [f"{k} ({len(v)})" for k, v in groups[0].items()]
    for i, group in enumerate(groups[1:]):
        if group:
            factors.append(f"zip[{i}] ({len(next(iter(group.values())))})")
    if repeats > 1:
        factors.append(f"repeats ({repeats})")
    raise ConfigError(
        f"{where}: the grid has {n:,} points ({' x '.join(factors)}), more than the "
        f"{limit:,} allowed; check the lists, split the grid, or raise the limit "
        "(max_points = N at the top of the grid, or ssdlab sweep --max-points N)"
    )


def _device_paths_from(data: dict[str, Any], folder: Path) -> dict[str, Any]:
    """Device files named in a grid file are found beside it (as well as from the cwd)."""

    def fix(v: Any) -> Any:
        if isinstance(v, str) and v.endswith((".toml", ".json")) and not Path(v).is_absolute():
            beside = folder / v
            if beside.is_file() and not Path(v).is_file():
                return str(beside)
        return v

    base, axes = data.get("base"), data.get("axes")
    if isinstance(base, dict) and "device" in base:
        base["device"] = fix(base["device"])
    if isinstance(axes, dict) and isinstance(axes.get("device"), list):
        axes["device"] = [fix(v) for v in axes["device"]]
    return data


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        import tomllib
    except ImportError:  # Python < 3.11
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ImportError as e:
            raise ConfigError(
                f"{path}: reading a TOML grid on Python < 3.11 needs tomli: pip install tomli"
            ) from e
    try:
        return tomllib.loads(path.read_text())
    except (OSError, UnicodeDecodeError) as e:
        raise ConfigError(f"{path}: cannot read grid: {e}") from e
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: not valid TOML: {e}") from e


def _check_axes(axes: dict[str, Any], where: str) -> dict[str, list]:
    out = {}
    for key, values in axes.items():
        canonical_key(key, where)
        if not isinstance(values, list) or not values:
            raise ConfigError(f"{where}: '{key}' must be a non-empty list of values")
        out[key] = values
    return out


def canonical_key(key: str, where: str = "axes") -> str:
    """The column name of an axis key: device, state, seed, set.K or workload.K."""
    if key in ("device", "state", "seed"):
        return key
    head, _, rest = key.partition(".")
    if head in ("set", "workload") and rest:
        return key
    if head in DEVICE_SECTIONS and rest:
        return f"set.{key}"
    raise ConfigError(f"{where}: '{key}' is not an axis (allowed: {AXIS_FORMS})")


def expand(
    grid: str | os.PathLike | Mapping[str, Any], max_points: int | None = None
) -> list[dict[str, Any]]:
    """The grid's points in order, each the keyword arguments of ``ssdlab.run`` plus
    ``params`` (the axis values, by column name). A grid of more than ``max_points``
    points (default: the grid's ``max_points``, else :data:`MAX_POINTS`) is refused
    with ConfigError before any point is made."""
    from ssdlab.workloads import named_workload

    g = load_grid(grid, max_points)
    base = g["base"]
    workload = base.get("workload")
    if isinstance(workload, str):
        workload = named_workload(workload)
    factors: list[list[dict[str, Any]]] = []
    if g["axes"]:
        factors += [[{k: v} for v in vals] for k, vals in g["axes"].items()]
    for group in g["zip"]:
        factors.append([dict(zip(group, vals)) for vals in zip(*group.values())])
    seed0 = base.get("seed", 1)
    points = []
    for combo in itertools.product(*factors):
        assign: dict[str, Any] = {}
        for part in combo:
            assign.update(part)
        for rep in range(g["repeats"]):
            p: dict[str, Any] = {
                "device": base.get("device", "client-tlc-dram"),
                "workload": dict(workload) if isinstance(workload, Mapping) else workload,
                "state": base.get("state", "full"),
                "seed": seed0 + rep if isinstance(seed0, int) else seed0,
                "set": dict(base.get("set", {})),
            }
            params: dict[str, Any] = {}
            for key, value in assign.items():
                col = canonical_key(key)
                params[col] = value
                if col.startswith("set."):
                    p["set"][col[4:]] = value
                elif col.startswith("workload."):
                    if not isinstance(p["workload"], Mapping):
                        p["workload"] = {}
                    p["workload"][col[9:]] = value
                else:
                    p[col] = value
            if g["repeats"] > 1:
                params["seed"] = p["seed"]
            p["params"] = params
            points.append(p)
    return points
