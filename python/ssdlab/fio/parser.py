"""fio job files, read the way fio reads them: ``[global]`` and job sections, bare
flags, ``;`` and ``#`` comments, ``${VAR}`` substitution from the environment, and
``include FILE``. Values are kept as text with the file and line they came from; what
they mean is decided in :mod:`ssdlab.fio.options`.

Simplifies: fio's ``$mb_memory``-style arithmetic expressions and ``--section`` job
selection are not supported (they give a clear error or are not needed here).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path


class JobFileError(ValueError):
    """A job file problem, with file:line and the offending text."""


@dataclass
class Opt:
    name: str
    value: str | None  # None for a bare flag
    where: str  # "file:line"


@dataclass
class Section:
    name: str
    where: str
    opts: list[Opt] = field(default_factory=list)


_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _substitute(text: str, where: str) -> str:
    def repl(m: re.Match) -> str:
        var = m.group(1)
        if var not in os.environ:
            raise JobFileError(f"{where}: ${{{var}}}: environment variable is not set")
        return os.environ[var]

    return _ENV.sub(repl, text)


def parse_text(text: str, origin: str, _depth: int = 0) -> list[Section]:
    """Sections in file order; options before any section header are an error."""
    if _depth > 8:
        raise JobFileError(f"{origin}: include nesting deeper than 8")
    sections: list[Section] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        where = f"{origin}:{lineno}"
        line = raw.strip()
        if not line or line[0] in ";#":
            continue
        if line.startswith("include "):
            inc = _substitute(line[len("include ") :].strip(), where)
            path = Path(inc)
            if not path.is_absolute():
                path = Path(origin).parent / path
            try:
                inc_text = path.read_text()
            except OSError as e:
                raise JobFileError(f"{where}: include {inc}: {e.strerror or e}") from e
            for s in parse_text(inc_text, str(path), _depth + 1):
                if sections and s.name == sections[-1].name:
                    sections[-1].opts.extend(s.opts)
                else:
                    sections.append(s)
            continue
        if line.startswith("["):
            if not line.endswith("]") or len(line) < 3:
                raise JobFileError(f"{where}: '{raw.strip()}': expected a section header '[name]'")
            sections.append(Section(line[1:-1].strip(), where))
            continue
        # Strip trailing comments (fio allows ';' and '#' after a value).
        for c in (";", "#"):
            pos = line.find(c)
            if pos > 0 and line[pos - 1].isspace():
                line = line[:pos].rstrip()
        if not sections:
            raise JobFileError(
                f"{where}: '{raw.strip()}': option outside any section (expected [global] or [job])"
            )
        line = _substitute(line, where)
        if "=" in line:
            k, v = line.split("=", 1)
            k, v = k.strip(), v.strip()
            if not k:
                raise JobFileError(f"{where}: '{raw.strip()}': expected name=value")
            sections[-1].opts.append(Opt(k.lower(), v, where))
        else:
            sections[-1].opts.append(Opt(line.strip().lower(), None, where))
    return sections


def parse_file(path: str | os.PathLike) -> list[Section]:
    p = Path(path)
    try:
        text = p.read_text()
    except UnicodeDecodeError as e:
        raise JobFileError(f"{p}: not a text file ({e.reason})") from e
    except OSError as e:
        raise JobFileError(f"{p}: cannot read job file: {e.strerror or e}") from e
    return parse_text(text, str(p))


# ---- value syntax -----------------------------------------------------------------

_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kmgtpe]?)(i?)(b?)\s*$", re.IGNORECASE)


def parse_size(text: str, where: str, name: str, kb_base: int = 1024) -> int:
    """fio sizes: a number with an optional k/m/g/t/p suffix (base kb_base, 1024 by
    default; KiB-style suffixes always 1024; a plain 'b' means bytes)."""
    m = _SIZE.match(text)
    if not m:
        raise JobFileError(f"{where}: {name}={text}: expected a size such as 4k, 128KiB, 1m or 10g")
    num, unit, i, _ = m.groups()
    base = 1024 if i else kb_base
    power = "kmgtpe".find(unit.lower()) + 1 if unit else 0
    value = float(num) * base**power
    if value != int(value):
        raise JobFileError(f"{where}: {name}={text}: not a whole number of bytes")
    return int(value)


_TIME = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([a-z]*)\s*$", re.IGNORECASE)
_TIME_UNITS = {
    "ns": 1,
    "nsec": 1,
    "us": 1_000,
    "usec": 1_000,
    "ms": 1_000_000,
    "msec": 1_000_000,
    "s": 1_000_000_000,
    "sec": 1_000_000_000,
    "m": 60_000_000_000,
    "min": 60_000_000_000,
    "h": 3_600_000_000_000,
    "d": 86_400_000_000_000,
}


def parse_time_ns(text: str, where: str, name: str, default_unit: str = "s") -> int:
    """fio times: a number with an optional unit (us, ms, s, m, h, d); without one,
    the option's default unit (seconds for runtime, microseconds for thinktime)."""
    m = _TIME.match(text)
    if not m or (m.group(2) and m.group(2).lower() not in _TIME_UNITS):
        raise JobFileError(
            f"{where}: {name}={text}: expected a time such as 30, 500ms, 2m (units: "
            "ns, us, ms, s, m, h, d)"
        )
    unit = (m.group(2) or default_unit).lower()
    return int(float(m.group(1)) * _TIME_UNITS[unit])


def parse_int(text: str, where: str, name: str) -> int:
    try:
        return int(text, 0)
    except ValueError:
        raise JobFileError(f"{where}: {name}={text}: expected a whole number") from None


def parse_bool(text: str | None, where: str, name: str) -> bool:
    if text is None:
        return True
    t = text.strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise JobFileError(f"{where}: {name}={text}: expected 0 or 1")
