"""Pieces every command shares, below the command line: the usage error, atomic output
files, the ``--max-memory`` flag and warning lines.

``ssdlab.cli`` (the top of the package: the parser and ``main``) and each subcommand's
module (``fio.cli``, ``sweep.cli``, ``studies``, ``probe``, ``bench``, ``plot``, ...)
import these from here, so nothing below the CLI imports ``ssdlab.cli`` and the CLI
sits on top of the package, outside every import cycle.
"""

from __future__ import annotations

import argparse
import os
import sys

from ssdlab import outputs


class UsageError(Exception):
    """A command-line mistake that is not a config error."""


def write_atomically(path: str | os.PathLike, text: str, flag: str = "output") -> None:
    """Write ``text`` to ``path`` by the rules of :mod:`ssdlab.outputs` (atomic replacement of
    a regular file, write-through to devices and FIFOs, refusal of directories and read-only
    files)."""
    outputs.write_file(path, text, flag)


def add_max_memory_arg(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--max-memory",
        metavar="SIZE",
        help="refuse a run estimated to need more memory, e.g. 8G, 512M; 0 = no limit "
        "(default: half the physical memory)",
    )


def print_warnings(doc) -> None:
    """Print a report's or a resolved config's plausibility warnings on stderr."""
    for w in doc.get("warnings") or []:
        print(f"ssdlab: warning: {w}", file=sys.stderr)
