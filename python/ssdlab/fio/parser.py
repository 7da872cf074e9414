"""fio job files, read the way fio reads them: ``[global]`` and job sections, bare
flags, ``;`` and ``#`` comments, ``${VAR}`` substitution from the environment, and
``include FILE``. Values are kept as text with the file and line they came from; what
they mean is decided in :mod:`ssdlab.fio.options`.

Simplifies: fio's ``$mb_memory``-style arithmetic expressions and ``--section`` job
selection are not supported (they give a clear error or are not needed here).

Limits (a job file is input from anywhere): includes nest at most ``MAX_INCLUDE_DEPTH``
deep, a file is read up to ``MAX_FILE_BYTES``, all files of one job file together (each
include counted every time it is included) up to ``MAX_TOTAL_BYTES`` and at most
``MAX_INCLUDES`` includes; a file must be
UTF-8 text without NUL bytes, and an include a regular file (a named pipe would block the
read; the job file itself may be a pipe, as ``<(...)`` gives). Each limit is an error
naming the file and line.
"""

from __future__ import annotations

import os
import re
import stat
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path

from ssdlab._core import ConfigError


class JobFileError(ConfigError):
    """A job file problem, with file:line and the offending text. A ConfigError (and so
    still a ValueError), as the API documents for every bad input: before (issue 31's
    second audit) `ssdlab.fio.run_jobfile` and `load_jobfile` raised an exception
    outside that contract."""


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


MAX_U64 = (1 << 64) - 1
MAX_NS = 100 * 365 * 86_400 * 10**9  # 100 years
MAX_INCLUDE_DEPTH = 8
MAX_FILE_BYTES = 1 << 20
MAX_TOTAL_BYTES = 4 << 20
MAX_INCLUDES = 1000


def read_text(path: Path, where: str | None = None) -> str:
    """A job file's text, read with a size limit; binary or oversized files are an
    error naming `where` (the include line) or the file itself."""
    at = f"{where}: include {path}" if where else str(path)
    try:
        if path.is_dir():
            raise JobFileError(f"{at}: is a directory, not a job file")
        # An include is opened without blocking, so that a FIFO with no writer is seen,
        # not waited on; the job file itself may be a pipe (<(...)) and is read as cat does.
        flags = os.O_RDONLY | (getattr(os, "O_NONBLOCK", 0) if where else 0)
        with open(os.open(path, flags), "rb") as f:
            mode = os.fstat(f.fileno()).st_mode
            if where and not stat.S_ISREG(mode):
                raise JobFileError(
                    f"{at}: not a regular file ({_file_kind(mode)}); an include must be a "
                    "regular file"
                )
            data = f.read(MAX_FILE_BYTES + 1)
    except OSError as e:
        what = "cannot read" if where else "cannot read job file"
        raise JobFileError(f"{at}: {what}: {e.strerror or e}") from e
    if len(data) > MAX_FILE_BYTES:
        raise JobFileError(
            f"{at}: larger than the {MAX_FILE_BYTES >> 20} MiB allowed for a job file"
        )
    nul = data.find(b"\0")
    if nul >= 0:
        raise JobFileError(f"{at}: not a text file (a NUL byte at offset {nul})")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise JobFileError(
            f"{at}: not a text file (byte 0x{data[e.start]:02x} at offset {e.start} is not UTF-8)"
        ) from None


def _file_kind(mode: int) -> str:
    for test, kind in (
        (stat.S_ISFIFO, "a named pipe"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return kind
    return "not a regular file"


class _Budget:
    """Bytes read so far for one job file, includes counted each time."""

    def __init__(self) -> None:
        self.total = 0
        self.includes = 0

    def take(self, n: int, where: str, include: bool = False) -> None:
        self.total += n
        self.includes += include
        if self.includes > MAX_INCLUDES:
            raise JobFileError(
                f"{where}: more than {MAX_INCLUDES} includes in total, counting each time a "
                "file is included (allowed: at most that many; an include repeated or "
                "nested too often?)"
            )
        if self.total > MAX_TOTAL_BYTES:
            raise JobFileError(
                f"{where}: the job file and its includes exceed {MAX_TOTAL_BYTES >> 20} MiB "
                "in total (an include repeated or nested too often?)"
            )


_ENV = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def _substitute(text: str, where: str) -> str:
    def repl(m: re.Match) -> str:
        var = m.group(1)
        if var not in os.environ:
            raise JobFileError(f"{where}: ${{{var}}}: environment variable is not set")
        return os.environ[var]

    return _ENV.sub(repl, text)


def parse_text(
    text: str, origin: str, _depth: int = 0, _budget: _Budget | None = None
) -> list[Section]:
    """Sections in file order; options before any section header are an error."""
    budget = _budget
    if budget is None:
        budget = _Budget()
        budget.take(len(text), origin)
    sections: list[Section] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        where = f"{origin}:{lineno}"
        line = raw.strip()
        if not line or line[0] in ";#":
            continue
        if re.match(r"include(\s|$)", line):
            inc = _substitute(line[len("include") :].strip(), where)
            if not inc:
                raise JobFileError(f"{where}: include: needs a file name (include FILE)")
            if _depth + 1 > MAX_INCLUDE_DEPTH:
                raise JobFileError(
                    f"{where}: include {inc}: includes nested deeper than "
                    f"{MAX_INCLUDE_DEPTH} levels (allowed: {MAX_INCLUDE_DEPTH})"
                )
            path = Path(inc)
            if not path.is_absolute():
                path = Path(origin).parent / path
            inc_text = read_text(path, where)
            budget.take(len(inc_text), f"{where}: include {inc}", include=True)
            for s in parse_text(inc_text, str(path), _depth + 1, budget):
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
    return parse_text(read_text(p), str(p))


# ---- value syntax -----------------------------------------------------------------

_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*([kmgtpe]?)(i?)(b?)\s*$", re.IGNORECASE)


def parse_size(text: str, where: str, name: str, kb_base: int = 1024) -> int:
    """fio sizes: a number with an optional k/m/g/t/p suffix (base kb_base, 1024 by
    default; KiB-style suffixes always 1024; a plain 'b' means bytes)."""
    hexa = re.match(r"^\s*0x([0-9a-f]{1,16})\s*$", text, re.IGNORECASE)
    if hexa:  # fio also takes hexadecimal byte counts
        return int(hexa.group(1), 16)
    m = _SIZE.match(text)
    if not m:
        raise JobFileError(f"{where}: {name}={text}: expected a size such as 4k, 128KiB, 1m or 10g")
    num, unit, i, _ = m.groups()
    base = 1024 if i else kb_base
    power = "kmgtpe".find(unit.lower()) + 1 if unit else 0
    if len(num) > 30:
        raise JobFileError(f"{where}: {name}={text}: too large (at most {MAX_U64} bytes)")
    value = Fraction(num) * base**power
    if value.denominator != 1:
        raise JobFileError(f"{where}: {name}={text}: not a whole number of bytes")
    if value > MAX_U64:
        raise JobFileError(f"{where}: {name}={text}: too large (at most {MAX_U64} bytes)")
    return int(value)


def parse_range(text: str, where: str, name: str, kb_base: int = 1024) -> tuple[int, int]:
    """fio's integer ranges: ``lo-hi`` or ``lo:hi`` (one value is a range of one)."""
    t = text.strip()
    for sep in (":", "-"):
        if sep in t:
            lo, _, hi = t.partition(sep)
            break
    else:
        lo = hi = t
    a, b = parse_size(lo, where, name, kb_base), parse_size(hi, where, name, kb_base)
    if a > b:
        raise JobFileError(f"{where}: {name}={text}: the range's low end is above its high end")
    return a, b


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
    if len(m.group(1)) > 30:
        raise JobFileError(f"{where}: {name}={text}: too long (at most 100 years)")
    ns = Fraction(m.group(1)) * _TIME_UNITS[unit]
    if ns > MAX_NS:
        raise JobFileError(f"{where}: {name}={text}: too long (at most 100 years)")
    return int(ns)


def parse_int(text: str, where: str, name: str, lo: int = 0, hi: int = MAX_U64) -> int:
    t = text.strip()
    try:
        v = int(t, 0) if len(t) <= 30 else None
    except ValueError:
        raise JobFileError(f"{where}: {name}={text}: expected a whole number") from None
    if v is None or not lo <= v <= hi:
        raise JobFileError(f"{where}: {name}={text}: out of range (allowed: {lo} to {hi})")
    return v


def parse_float(text: str, where: str, name: str, lo: float, hi: float) -> float:
    try:
        v = float(text)
    except ValueError:
        raise JobFileError(f"{where}: {name}={text}: expected a number") from None
    if not lo <= v <= hi:  # also refuses nan
        raise JobFileError(f"{where}: {name}={text}: out of range (allowed: {lo:g} to {hi:g})")
    return v


def parse_bool(text: str | None, where: str, name: str) -> bool:
    if text is None:
        return True
    t = text.strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise JobFileError(f"{where}: {name}={text}: expected 0 or 1")
