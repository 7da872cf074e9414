# ruff: noqa: E501
# (tables of hostile inputs, one case a line)
"""Drivers for the audit's signal and serve cases: each starts ssdlab, does one hostile
or careless thing to it, and reports with a tag the harness reads (``AUDIT-WRONG:``,
``AUDIT-HANG:``, ``AUDIT-CRASH:``, ``AUDIT-OOM:``), exit status 0 when all was well.

    python drivers.py signal CMD SIGNAL     # CMD: run, sweep, fio, trace, aging, serve
    python drivers.py serve ATTACK          # ATTACK: see ATTACKS
"""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time
from pathlib import Path

PY = sys.executable
MAGIC, IHAVEOPT, REQ, SIMPLE = 0x4E42444D41474943, 0x49484156454F5054, 0x25609513, 0x67446698


def say(tag: str, msg: str, code: int = 3):
    print(f"AUDIT-{tag}: {msg}", file=sys.stderr)
    sys.exit(code)


def _child_env():
    return dict(os.environ)


def _start(args, **kw):
    return subprocess.Popen(
        [PY, "-m", "ssdlab", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        **kw,
    )


def _finish(p, timeout=20.0):
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        say("HANG", f"did not stop within {timeout:.0f} s of the signal; {err[-300:]!r}")
    if "Traceback" in err or "panicked" in err:
        say("CRASH", err.strip().splitlines()[-1][:200])
    return p.returncode, out, err


# ---------------------------------------------------------------- signals

SIGNAL_CMDS = {
    "run": [
        "run",
        "--device",
        "client-tlc-dram",
        "--number_ios",
        "100000000",
        "--json",
        "out/r.json",
        "-q",
    ],
    "aging": [
        "run",
        "--device",
        "client-tlc-dram",
        "--state",
        "steady",
        "--json",
        "out/r.json",
        "-q",
    ],
    "fio": [
        "fio",
        "job.fio",
        "--output",
        "out/f.json",
        "--output-format",
        "json",
        "--max-ios",
        "0",
    ],
    "trace": [
        "trace",
        "t.csv",
        "--format",
        "msr",
        "--device",
        "client-tlc-dram",
        "--state",
        "steady",
        "--json",
        "out/t.json",
        "-q",
    ],
    "sweep": ["sweep", "g.toml", "--out", "out/sw", "-q"],
    "probe": ["probe", "all", "client-tlc-dram", "--out", "out/p"],
}


def signal_case(cmd: str, signame: str) -> None:
    Path("job.fio").write_text("[j]\nrw=randread\nnumber_ios=100000000\nsize=100%\n")
    with open("t.csv", "w") as f:
        for i in range(400_000):
            f.write(f"{i},hm,0,Read,{(i * 7919 % 100000) * 4096},4096,1\n")
    Path("g.toml").write_text(
        '[base]\ndevice = "client-tlc-dram"\nworkload = { rw = "randread", number_ios = 3000000 }\n'
        '[axes]\n"workload.iodepth" = [1, 2, 4, 8]\n'
    )
    p = _start(SIGNAL_CMDS[cmd])
    time.sleep(3.0)
    if p.poll() is not None:
        say("WRONG", f"{cmd} ended before the signal: {p.stderr.read()[-300:]!r}")
    sig = getattr(signal, signame)
    t0 = time.monotonic()
    p.send_signal(sig)
    rc, _out, err = _finish(p)
    secs = time.monotonic() - t0
    want = {"SIGINT": 130, "SIGTERM": -15, "SIGHUP": -1}.get(signame)
    if signame == "SIGINT" and rc != 130:
        say("WRONG", f"exit status {rc} after Ctrl-C (want 130); {err[-200:]!r}")
    if signame != "SIGINT" and rc not in (want, 128 + sig):
        say("WRONG", f"exit status {rc} after {signame}")
    # Nothing half-written: outputs appear only whole (a sweep keeps whole points only).
    for f in Path("out").rglob("*"):
        if f.is_file() and f.suffix in (".json", ".parquet"):
            if f.suffix == ".json":
                try:
                    json.loads(f.read_text())
                except ValueError:
                    say("WRONG", f"{f} half-written after {signame}")
        if f.is_file() and ".tmp" in f.name and cmd != "sweep":
            say("WRONG", f"temporary file {f} left after {signame}")
    if secs > 5:
        say("WRONG", f"{secs:.1f} s to stop after {signame}")
    print(f"{cmd} stopped by {signame} in {secs:.2f} s, status {rc}")


def closed_stdout_case() -> None:
    """stdout a pipe closed early (`ssdlab run --json - | head -c 10`)."""
    p = _start(["run", "--device", "tiny-test", "--number_ios", "20000", "--json", "-", "-q"])
    p.stdout.read(10)
    p.stdout.close()
    try:
        err = p.stderr.read()
        p.wait(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        say("HANG", "did not exit after its stdout closed")
    if "Traceback" in err:
        say("CRASH", err.strip().splitlines()[-1])
    print(f"status {p.returncode}: {err.strip()[:120]}")


# ---------------------------------------------------------------- serve


class Nbd:
    def __init__(self, path, negotiate=True):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.settimeout(30)
        self.s.connect(path)
        if negotiate:
            self._recv(18)
            self.s.sendall(struct.pack(">I", 3))
            self.s.sendall(struct.pack(">QII", IHAVEOPT, 7, 6) + struct.pack(">IH", 0, 0))
            while True:
                _, _, kind, n = struct.unpack(">QIII", self._recv(20))
                body = self._recv(n)
                if kind == 3 and struct.unpack(">H", body[:2])[0] == 0:
                    self.size = struct.unpack(">Q", body[2:10])[0]
                if kind == 1:
                    break
                if kind & 0x80000000:
                    raise OSError(f"option error {kind:#x}")

    def _recv(self, n):
        b = b""
        while len(b) < n:
            c = self.s.recv(n - len(b))
            if not c:
                raise ConnectionError("closed")
            b += c
        return b

    def req(self, cmd, off, length, data=b"", flags=0, cookie=1):
        self.s.sendall(struct.pack(">IHHQQI", REQ, flags, cmd, cookie, off, length) + data)

    def reply(self, length=0):
        magic, err, _cookie = struct.unpack(">IIQ", self._recv(16))
        if magic != SIMPLE:
            raise OSError(f"bad reply magic {magic:#x}")
        body = self._recv(length) if (err == 0 and length) else b""
        return err, body


def _rss_mib(pid):
    for ln in Path(f"/proc/{pid}/status").read_text().splitlines():
        if ln.startswith("VmRSS:"):
            return int(ln.split()[1]) / 1024
    return 0.0


def _server(*extra):
    sock = os.path.abspath("nbd.sock")
    p = _start(
        [
            "serve",
            "tiny-test",
            "--state",
            "fresh",
            "--socket",
            sock,
            "--stats",
            "out/stats.json",
            "--time-scale",
            "1",
            *extra,
        ]
    )
    t0 = time.monotonic()
    while not os.path.exists(sock):
        if p.poll() is not None or time.monotonic() - t0 > 60:
            say("CRASH", f"server did not start: {p.stderr.read()[-300:]!r}")
        time.sleep(0.05)
    return p, sock


def _healthy(p, sock, what):
    """The server still serves a well-behaved client: write, read back, equal."""
    if p.poll() is not None:
        say("CRASH", f"server died after {what}: status {p.returncode}; {p.stderr.read()[-300:]!r}")
    try:
        c = Nbd(sock)
        c.req(1, 4096, 4096, b"\x5a" * 4096, cookie=7)
        err, _ = c.reply()
        c.req(0, 4096, 4096, cookie=8)
        err2, body = c.reply(4096)
        c.s.close()
    except (OSError, ConnectionError) as e:
        say("WRONG", f"a good client was not served after {what}: {e}")
    if err or err2 or body != b"\x5a" * 4096:
        say("WRONG", f"a good client got errors {err}/{err2} or wrong data after {what}")


def _stop(p):
    p.send_signal(signal.SIGTERM)
    rc, _out, err = _finish(p, 30)
    if rc != 0:
        say("WRONG", f"server exit status {rc} on SIGTERM; {err[-300:]!r}")
    try:
        json.loads(Path("out/stats.json").read_text())
    except (OSError, ValueError) as e:
        say("WRONG", f"--stats not written whole: {e}")
    return err


def _raw(sock):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(sock)
    return s


def attack(name: str) -> None:
    extra = []
    if name == "many-idle-connections":
        extra = ["--max-clients", "8"]
    if name == "unread-replies-timeout":
        extra = [
            "--client-timeout",
            "1",
            "--reply-bytes-total",
            "16M",
            "--reply-bytes-per-client",
            "8M",
        ]
    p, sock = _server(*extra)
    rss0 = _rss_mib(p.pid)
    keep = []
    try:
        ATTACKS[name](sock, keep)
    except (OSError, ConnectionError, struct.error):
        pass  # the server closing on the attacker is fine
    time.sleep(0.3)
    _healthy(p, sock, name)
    grown = _rss_mib(p.pid) - rss0
    for s in keep:
        try:
            s.close()
        except OSError:
            pass
    if grown > 400:
        say("OOM", f"server grew by {grown:.0f} MiB after {name}")
    err = _stop(p)
    print(
        f"{name}: served on; grew {grown:.0f} MiB; {err.strip().splitlines()[-1][:100] if err.strip() else ''}"
    )


def _garbage(sock, keep):
    s = _raw(sock)
    s.sendall(os.urandom(65536))
    keep.append(s)


def _close_in_greeting(sock, keep):
    s = _raw(sock)
    s.recv(5)
    s.close()


def _bad_flags(sock, keep):
    s = _raw(sock)
    s.recv(18)
    s.sendall(struct.pack(">I", 0xFFFFFFFF))
    keep.append(s)


def _huge_option(sock, keep):
    s = _raw(sock)
    s.recv(18)
    s.sendall(struct.pack(">I", 3) + struct.pack(">QII", IHAVEOPT, 1, 0xFFFFFFFF))
    s.sendall(b"\0" * 1_000_000)
    keep.append(s)


def _unknown_option(sock, keep):
    s = _raw(sock)
    s.recv(18)
    s.sendall(struct.pack(">I", 3) + struct.pack(">QII", IHAVEOPT, 0x7777, 4) + b"abcd")
    keep.append(s)


def _export_name_long(sock, keep):
    s = _raw(sock)
    s.recv(18)
    name = b"x" * 4096
    s.sendall(
        struct.pack(">I", 3)
        + struct.pack(">QII", IHAVEOPT, 7, 6 + len(name))
        + struct.pack(">I", len(name))
        + name
        + struct.pack(">H", 0)
    )
    keep.append(s)


def _option_flood(sock, keep):
    s = _raw(sock)
    s.recv(18)
    s.sendall(struct.pack(">I", 3))
    s.settimeout(0.5)
    one = struct.pack(">QII", IHAVEOPT, 3, 0)  # NBD_OPT_LIST, never read
    try:
        for _ in range(100_000):
            s.sendall(one * 10)
    except OSError:
        pass
    keep.append(s)


def _read_past_end(sock, keep):
    c = Nbd(sock)
    c.req(0, c.size - 512, 4096)
    err, _ = c.reply()
    if err == 0:
        say("WRONG", "a read past the end of the export succeeded")
    c.req(0, 2**64 - 512, 1024, cookie=2)
    err, _ = c.reply()
    if err == 0:
        say("WRONG", "a read at offset 2^64-512 succeeded")


def _misaligned(sock, keep):
    c = Nbd(sock)
    c.req(0, 1, 3)
    _err, _body = c.reply(3)
    c.req(1, 7, 5, b"hello", cookie=2)
    err2, _ = c.reply()
    c.req(0, 7, 5, cookie=3)
    err3, body3 = c.reply(5)
    if err2 == 0 and err3 == 0 and body3 != b"hello":
        say("WRONG", f"an unaligned write read back as {body3!r}")


def _zero_length(sock, keep):
    c = Nbd(sock)
    for cmd in (0, 1, 4, 6):
        c.req(cmd, 0, 0, cookie=cmd + 1)
        c.reply()


def _huge_write_header(sock, keep):
    c = Nbd(sock)
    c.req(1, 0, 0xFFFFFFFF)  # a 4 GiB write announced, 1 MiB sent
    c.s.sendall(b"\0" * (1 << 20))
    keep.append(c.s)


def _huge_read_pipelined_unread(sock, keep):
    c = Nbd(sock)
    c.s.settimeout(2)
    try:
        for i in range(200):
            c.req(0, 0, 24 << 20, cookie=i + 1)
    except OSError:
        pass
    keep.append(c.s)


def _bad_magic(sock, keep):
    c = Nbd(sock)
    c.s.sendall(struct.pack(">IHHQQI", 0xDEADBEEF, 0, 0, 1, 0, 4096))
    keep.append(c.s)


def _unknown_command(sock, keep):
    c = Nbd(sock)
    c.req(99, 0, 4096)
    err, _ = c.reply()
    if err == 0:
        say("WRONG", "an unknown command succeeded")


def _unknown_flags(sock, keep):
    c = Nbd(sock)
    c.req(0, 0, 4096, flags=0xFFFF)
    c.reply(4096)


def _disconnect_mid_request(sock, keep):
    for _ in range(50):
        c = Nbd(sock)
        c.s.sendall(struct.pack(">IHHQQI", REQ, 0, 1, 1, 0, 65536) + b"\0" * 1000)
        c.s.close()


def _disconnect_with_inflight(sock, keep):
    for _ in range(20):
        c = Nbd(sock)
        for i in range(64):
            c.req(0, i * 4096, 4096, cookie=i + 1)
        c.s.close()


def _many_idle_connections(sock, keep):
    for _ in range(200):
        try:
            keep.append(_raw(sock))
        except OSError:
            break
    # The server refuses past --max-clients; close ours so the health check gets in.
    for s in keep:
        s.close()
    keep.clear()


def _unread_replies_timeout(sock, keep):
    for _ in range(3):
        c = Nbd(sock)
        c.s.settimeout(1)
        try:
            for i in range(20):
                c.req(0, 0, 4 << 20, cookie=i + 1)
        except OSError:
            pass
        keep.append(c.s)
    time.sleep(2.5)  # past --client-timeout 1


def _disconnect_request(sock, keep):
    c = Nbd(sock)
    c.req(2, 0, 0)  # NBD_CMD_DISC
    time.sleep(0.2)


def _flush_storm(sock, keep):
    c = Nbd(sock)
    for i in range(2000):
        c.req(3, 0, 0, cookie=i + 1)
    for _ in range(2000):
        c.reply()


def _trim_everything(sock, keep):
    c = Nbd(sock)
    c.req(4, 0, min(c.size, 0xFFFFF000))
    c.reply()
    c.req(0, 0, 4096, cookie=2)
    err, body = c.reply(4096)
    if err == 0 and body != b"\0" * 4096:
        say("WRONG", "a trimmed block read back non-zero")


def _write_past_end(sock, keep):
    c = Nbd(sock)
    c.req(1, c.size, 4096, b"\1" * 4096)
    err, _ = c.reply()
    if err == 0:
        say("WRONG", "a write past the end succeeded")


ATTACKS = {
    "garbage": _garbage,
    "close-in-greeting": _close_in_greeting,
    "bad-client-flags": _bad_flags,
    "huge-option-length": _huge_option,
    "unknown-option": _unknown_option,
    "long-export-name": _export_name_long,
    "option-flood-unread": _option_flood,
    "read-past-end": _read_past_end,
    "misaligned": _misaligned,
    "zero-length": _zero_length,
    "huge-write-header": _huge_write_header,
    "huge-reads-unread": _huge_read_pipelined_unread,
    "bad-request-magic": _bad_magic,
    "unknown-command": _unknown_command,
    "unknown-flags": _unknown_flags,
    "disconnect-mid-request": _disconnect_mid_request,
    "disconnect-with-inflight": _disconnect_with_inflight,
    "many-idle-connections": _many_idle_connections,
    "unread-replies-timeout": _unread_replies_timeout,
    "nbd-disconnect": _disconnect_request,
    "flush-storm": _flush_storm,
    "trim-everything": _trim_everything,
    "write-past-end": _write_past_end,
}


def serve_signal(signame: str) -> None:
    """A signal to the server while a client has requests in flight."""
    p, sock = _server()
    c = Nbd(sock)
    for i in range(32):
        c.req(1, i * 4096, 4096, b"\2" * 4096, cookie=i + 1)
    time.sleep(0.2)
    p.send_signal(getattr(signal, signame))
    if signame == "SIGUSR1":
        time.sleep(0.3)
        _healthy(p, sock, "SIGUSR1")
        _stop(p)
        return
    rc, _, err = _finish(p, 30)
    if signame == "SIGHUP" and rc == -signal.SIGHUP:
        return  # a hang-up ends it as it ends any program (no --stats), as documented
    if rc not in (0, 130):
        say("WRONG", f"server status {rc} after {signame}: {err[-200:]!r}")
    json.loads(Path("out/stats.json").read_text())


def fio_through_serve(job: str) -> None:
    """Real fio against the server (skipped, as ok, where fio is not installed)."""
    if subprocess.run(["sh", "-c", "command -v fio"], capture_output=True).returncode:
        print("fio not installed")
        return
    p, sock = _server("--time-scale", "1")
    Path("j.fio").write_text(
        f"[global]\nioengine=nbd\nuri=nbd+unix:///?socket={sock}\n" + job.replace("\\n", "\n")
    )
    r = subprocess.run(
        ["fio", "--output-format=json", "j.fio"], capture_output=True, text=True, timeout=120
    )
    _healthy(p, sock, "fio")
    _stop(p)
    if r.returncode and "verify" in job:
        say("WRONG", f"fio failed: {r.stderr[-300:]!r}")
    print(f"fio status {r.returncode}")


def main():
    kind = sys.argv[1]
    Path("out").mkdir(exist_ok=True)
    if kind == "signal":
        signal_case(sys.argv[2], sys.argv[3])
    elif kind == "closed-stdout":
        closed_stdout_case()
    elif kind == "serve":
        attack(sys.argv[2])
    elif kind == "serve-signal":
        serve_signal(sys.argv[2])
    elif kind == "fio":
        fio_through_serve(sys.argv[2])


if __name__ == "__main__":
    main()
