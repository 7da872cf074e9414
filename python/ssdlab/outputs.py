"""Output files: what ``--json``, ``--output`` and ``--out`` may write, checked before a run.

The rules (docs/reliability.md), those of a shell's ``>`` plus atomic replacement:

* a new path, or an existing regular file the user may write: written to a temporary
  file in the same directory and renamed over it, so a failure leaves the old file
  whole (an existing file keeps its mode; a new one gets the user's umask);
* a symlink is followed: a link to a regular file replaces that file, never the link;
* a character device, FIFO or socket (``/dev/null``, ``/dev/stdout``, a pipe) and any
  path under ``/dev`` or ``/proc`` is written through, never replaced;
* a directory, a read-only file or a missing/unwritable parent directory is refused
  with a clear error, by :func:`check_file` before the run starts, so no results are lost;
  so is a path the system cannot resolve (a loop of symlinks, a name too long for the
  file system), never replaced by a new file;
* a write that fails (a full disk) removes the temporary file and leaves no partial or
  empty file behind; every error names the flag and the file.
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import IO, Callable


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


def shown(name: str, limit: int = 80) -> str:
    """A path or value as an error message echoes it: at most ``limit`` characters and a
    count (a 5 MB argument is not copied into the message)."""
    if len(name) <= limit:
        return name
    return f"{name[:limit]}… ({len(name):,} chars)"


def _unresolvable(name: str, flag: str, e: OSError) -> OutputError:
    why = e.strerror or str(e)
    if e.errno == errno.ELOOP:
        why += " (a loop of symbolic links; refusing to replace it)"
    elif e.errno == errno.ENAMETOOLONG:
        why += f" (a name has at most {_name_max(name)} bytes here)"
    return OutputError(f"{flag}: {shown(name)}: {why}")


def _name_max(name: str) -> int:
    d = os.path.dirname(name) or "."
    while True:
        try:
            return os.pathconf(d, "PC_NAME_MAX")
        except (OSError, ValueError):
            if os.path.dirname(d) == d:
                return 255
            d = os.path.dirname(d)


def _resolvable(path: str | os.PathLike, flag: str, expected: str) -> str:
    """``path`` as a string, refused when empty or when the system cannot resolve it (a loop
    of symlinks, a name too long, ...). A path that does not exist yet is fine (a new file, or
    a dangling symlink whose target is created), and so is one running through a file
    (ENOTDIR: the callers say what is wrong with it)."""
    name = os.fspath(path)
    if name == "":
        raise OutputError(f"{flag}: an empty path (expected {expected})")
    try:
        os.stat(name)
    except FileNotFoundError:
        pass
    except OSError as e:
        if e.errno != errno.ENOTDIR:
            raise _unresolvable(name, flag, e) from None
    return name


def check_file(path: str | os.PathLike, flag: str = "output") -> None:
    """Raise :class:`OutputError` unless ``path`` can be written by :func:`write_file`."""
    name = _resolvable(path, flag, "a file name")
    try:
        _check_file(name, flag)
    except OSError as e:
        raise _unresolvable(name, flag, e) from None


def _check_file(name: str, flag: str) -> None:
    if _write_through(name):
        if os.path.exists(name) and not os.access(name, os.W_OK):
            raise OutputError(f"{flag}: {shown(name)}: not writable")
        return
    real = Path(os.path.realpath(name))
    if real.is_dir():
        raise OutputError(f"{flag}: {shown(name)} is a directory (expected a file name)")
    if real.exists():
        if not real.is_file():
            raise OutputError(
                f"{flag}: {shown(name)} is neither a regular file, a device nor a FIFO; "
                "refusing to replace it"
            )
        mode = real.stat().st_mode
        if not mode & 0o222 or not os.access(real, os.W_OK):
            raise OutputError(
                f"{flag}: {shown(name)} is read-only; refusing to overwrite it "
                "(remove it or make it writable first)"
            )
        return
    parent = real.parent
    if not parent.exists():
        raise OutputError(f"{flag}: {shown(name)}: directory {parent} does not exist")
    if not parent.is_dir():
        raise OutputError(f"{flag}: {shown(name)}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{flag}: {shown(name)}: directory {parent} is not writable")


def check_dir(path: str | os.PathLike, flag: str = "--out", subdirs: tuple[str, ...] = ()) -> None:
    """Raise :class:`OutputError` unless ``path`` is, or can be created as, a writable
    directory (and each of ``subdirs`` in it, where it exists, is a directory)."""
    name = _resolvable(path, flag, "a directory name")
    try:
        _check_dir(name, flag)
        for sub in subdirs:
            entry = os.path.join(name, sub)
            if os.path.lexists(entry) and not os.path.isdir(entry):
                raise OutputError(
                    f"{flag}: {shown(name)}: {sub} in it is not a directory "
                    f"(a results directory holds a directory {sub}/; remove or rename the file)"
                )
    except OSError as e:
        raise _unresolvable(name, flag, e) from None


def _check_dir(path: str, flag: str) -> None:
    p = Path(os.path.realpath(path))
    probe = p
    while not probe.exists():
        if probe.parent == probe:
            break
        probe = probe.parent
    if not probe.is_dir():
        what = "is not a directory" if probe == p else f"cannot be created: {probe} is a file"
        raise OutputError(f"{flag}: {shown(path)} {what}")
    if not os.access(probe, os.W_OK | os.X_OK):
        raise OutputError(f"{flag}: {shown(path)}: directory {probe} is not writable")


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
    write_with(path, lambda f: f.write(text), flag)


def write_with(
    path: str | os.PathLike, write: Callable[[IO], object], flag: str = "output", binary=False
) -> None:
    """Call ``write(file)`` on a file opened for ``path`` by the module's rules (see the
    header): a temporary file renamed over ``path`` once ``write`` and the flush succeed,
    removed when either fails (OSError becomes OutputError naming ``flag`` and ``path``)."""
    name = os.fspath(path)
    check_file(name, flag)
    mode = "wb" if binary else "w"
    try:
        if _write_through(name):
            with open(name, mode) as f:
                write(f)
            return
        real = Path(os.path.realpath(name))
        perm = stat.S_IMODE(real.stat().st_mode) if real.exists() else 0o666 & ~_umask()
        _replace(real, write, mode, perm)
    except OSError as e:
        raise OutputError(f"{flag}: {shown(name)}: cannot write: {e.strerror or e}") from None


def _replace(real: Path, write: Callable[[IO], object], mode: str, perm: int) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{real.name[:40]}.", dir=real.parent)
    try:
        os.fchmod(fd, perm)
        with os.fdopen(fd, mode) as f:
            write(f)
        os.replace(tmp, real)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
