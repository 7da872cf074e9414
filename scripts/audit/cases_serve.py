"""Audit cases: `ssdlab serve` against raw-socket NBD clients that misbehave (drivers.py:
garbage, option floods, huge and unaligned requests, clients that never read, vanish
mid-request or hold connections), signals to the server, real fio through it, and the
server's own flags."""

from __future__ import annotations

import sys
from pathlib import Path

from drivers import ATTACKS
from harness import Case, cli

DRIVER = str(Path(__file__).resolve().parent / "drivers.py")

BAD_FLAGS = {
    "time-scale-0": ["--time-scale", "0"],
    "time-scale-neg": ["--time-scale", "-1"],
    "time-scale-nan": ["--time-scale", "nan"],
    "time-scale-inf": ["--time-scale", "inf"],
    "late-us-neg": ["--late-us", "-5"],
    "time-scale-huge": ["--time-scale", "1e300"],
    "late-us-inf": ["--late-us", "inf"],
    "stats-missing-dir": ["--socket", "s.sock", "--stats", "nope/s.json"],
    "port-70000": ["--port", "70000"],
    "socket-and-port": ["--socket", "s.sock", "--port", "10809"],
    "socket-is-dir": ["--socket", "."],
    "socket-is-file": ["--socket", "a-file"],
    "socket-too-long": ["--socket", "s" * 200],
    "socket-missing-dir": ["--socket", "nope/s.sock"],
    "backing-dir": ["--socket", "s.sock", "--backing", "."],
    "backing-read-only": ["--socket", "s.sock", "--backing", "ro.img"],
    "backing-dev-zero": ["--socket", "s.sock", "--backing", "/dev/zero"],
    "backing-fifo": ["--socket", "s.sock", "--backing", "fifo"],
    "stats-dir": ["--socket", "s.sock", "--stats", "."],
    "max-clients-0": ["--max-clients", "0"],
    "max-clients-huge": ["--max-clients", "99999999"],
    "client-timeout-neg": ["--client-timeout", "-1"],
    "reply-bytes-0": ["--reply-bytes-per-client", "0"],
    "reply-bytes-2^64": ["--reply-bytes-total", str(2**64)],
    "device-bogus": ["--set", "nand.bogus=1"],
}


def _setup(box: Path):
    import os

    (box / "a-file").write_text("x")
    (box / "ro.img").write_bytes(b"\0" * 4096)
    os.chmod(box / "ro.img", 0o444)
    os.mkfifo(box / "fifo")


def cases() -> list[Case]:
    out = []
    for tag, args in BAD_FLAGS.items():
        flags = tuple(a for a in args if a.startswith("--"))
        out.append(
            Case(
                "serve",
                f"flag:{tag}",
                cli("serve", "tiny-test", *args),
                "error",
                needle=(*flags, "socket", "bogus"),
                setup=_setup,
                timeout=20,
                allowed=("out", "s.sock"),
                quick=tag == "time-scale-0",
            )
        )
    for name in ATTACKS:
        out.append(
            Case(
                "serve",
                f"client:{name}",
                [sys.executable, DRIVER, "serve", name],
                "ok",
                timeout=90,
                allowed=("out", "nbd.sock"),
                max_rss_mib=3000,
                quick=name in ("huge-reads-unread", "garbage"),
            )
        )
    for sig in ("SIGINT", "SIGTERM", "SIGUSR1", "SIGHUP"):
        out.append(
            Case(
                "serve",
                f"signal:{sig}",
                [sys.executable, DRIVER, "serve-signal", sig],
                "ok" if sig != "SIGHUP" else "any",
                timeout=60,
                allowed=("out", "nbd.sock"),
            )
        )
    for tag, job in {
        "verify": "bs=4k\\nsize=4m\\nverify=crc32c\\nverify_state_save=0\\n[w]\\nrw=randwrite\\n",
        "past-end": "bs=4k\\noffset=30m\\nsize=8m\\n[r]\\nrw=read\\n",
        "qd256": "bs=4k\\nsize=4m\\niodepth=256\\nnumber_ios=5000\\n[r]\\nrw=randread\\n",
        "bs-32m": "bs=32m\\nsize=32m\\n[r]\\nrw=read\\n",
        "trim": "bs=64k\\nsize=8m\\n[t]\\nrw=randtrim\\n",
    }.items():
        out.append(
            Case(
                "serve",
                f"fio:{tag}",
                [sys.executable, DRIVER, "fio", job],
                "ok",
                timeout=150,
                allowed=("out", "nbd.sock", "j.fio", "j.fio"),
            )
        )
    return out
