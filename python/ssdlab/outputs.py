"""Output files: what ``--json``, ``--output`` and ``--out`` may write, checked before a run.

The rules (docs/reliability.md), those of a shell's ``>`` plus atomic replacement:

* a new path, or an existing regular file the user may write: written to a temporary
  file in the same directory and renamed over it, so a failure leaves the old file
  whole (an existing file keeps its mode; a new one gets the user's umask);
* a symlink is followed: a link to a regular file replaces that file, never the link;
* a character device, FIFO or socket (``/dev/null``, ``/dev/stdout``, a pipe) and any
  path under ``/dev`` or ``/proc`` is written through, never replaced;
* a directory, a read-only file or a missing/unwritable parent directory is refused
  with a clear error, by :func:`check_file` before the run starts, so no results are lost.
"""

from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path


class OutputError(Exception):
    """An output path that cannot be written (raised before the run when possible)."""


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _write_through(path: str) -> bool:
    """True for /dev and /proc paths and non-regular files: written in place."""
    real = os.path.realpath(path)
    if any(p.startswith(pre) for p in (path, real) for pre in ("/dev/", "/proc/")):
        return True
    try:
        st = os.stat(path)
    except OSError:
        return False
    return stat.S_ISCHR(st.st_mode) or stat.S_ISFIFO(st.st_mode) or stat.S_ISSOCK(st.st_mode)


def check_file(path: str | os.PathLike, flag: str = "output") -> None:
    """Raise :class:`OutputError` unless ``path`` can be written by :func:`write_file`."""
    name = os.fspath(path)
    if name == "":
        raise OutputError(f"{flag}: an empty path (expected a file name)")
    if _write_through(name):
        if os.path.exists(name) and not os.access(name, os.W_OK):
            raise OutputError(f"{flag}: {name}: not writable")
        return
    real = Path(os.path.realpath(name))
    if real.is_dir():
        raise OutputError(f"{flag}: {name} is a directory (expected a file name)")
    if real.exists():
        if not real.is_file():
            raise OutputError(
                f"{flag}: {name} is neither a regular file, a device nor a FIFO; "
                "refusing to replace it"
            )
        mode = real.stat().st_mode
        if not mode & 0o222 or not os.access(real, os.W_OK):
            raise OutputError(
                f"{flag}: {name} is read-only; refusing to overwrite it "
                "(remove it or make it writable first)"
            )
        return
    parent = real.parent
    if not parent.exists():
        raise OutputError(f"{flag}: {name}: directory {parent} does not exist")
    if not parent.is_dir():
        raise OutputError(f"{flag}: {name}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{flag}: {name}: directory {parent} is not writable")


def check_dir(path: str | os.PathLike, flag: str = "--out") -> None:
    """Raise :class:`OutputError` unless ``path`` is, or can be created as, a writable directory."""
    p = Path(os.path.realpath(os.fspath(path)))
    probe = p
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        what = "is not a directory" if probe == p else f"cannot be created: {probe} is a file"
        raise OutputError(f"{flag}: {path} {what}")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise OutputError(f"{flag}: {path}: directory {probe} is not writable")


def check_json_flag(value: str | None, several: bool, flag: str = "--json") -> None:
    """Check a ``--json``-style flag before a run: ``-`` is stdout, several devices a directory."""
    if not value or value == "-":
        return
    if several:
        check_dir(value, flag)
    else:
        check_file(value, flag)


def write_file(path: str | os.PathLike, text: str, flag: str = "output") -> None:
    """Write ``text`` to ``path`` by the module's rules (see the header)."""
    name = os.fspath(path)
    check_file(name, flag)
    if _write_through(name):
        try:
            with open(name, "w") as f:
                f.write(text)
        except OSError as e:
            raise OutputError(f"{flag}: {name}: cannot write: {e.strerror or e}") from None
        return
    real = Path(os.path.realpath(name))
    mode = stat.S_IMODE(real.stat().st_mode) if real.exists() else 0o666 & ~_umask()
    try:
        _replace(real, text, mode)
    except OSError as e:
        raise OutputError(f"{flag}: {name}: cannot write: {e.strerror or e}") from None


def _replace(real: Path, text: str, mode: int) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{real.name}.", dir=real.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
