"""``ssdlab serve``: the NBD server, driven by a small NBD client written here from
the protocol description, and by the real fio (``ioengine=nbd``) when it is installed
(scripts/test.sh installs it)."""

from __future__ import annotations

import json
import os
import signal
import socket
import struct
import subprocess
import sys
import time

import pytest
from ssdlab import cli, serve

IHAVEOPT = 0x49484156454F5054
OPT_GO = 7
CMD_READ, CMD_WRITE, CMD_FLUSH, CMD_TRIM, CMD_WRITE_ZEROES = 0, 1, 3, 4, 6
NO_HOLE = 2
FUA = 1
EINVAL = 22

has_fio = (
    subprocess.run(["sh", "-c", "command -v fio"], capture_output=True).returncode == 0
    and "nbd" in subprocess.run(["fio", "--enghelp"], capture_output=True, text=True).stdout
)
needs_fio = pytest.mark.skipif(not has_fio, reason="fio with the nbd engine is not installed")


class Server:
    """``ssdlab serve`` in a child process on a Unix socket; stopped with SIGTERM."""

    def __init__(self, tmp_path, *args: str):
        self.sock = str(tmp_path / "nbd.sock")
        self.stats = tmp_path / "stats.json"
        cmd = [sys.executable, "-m", "ssdlab", "serve", *args, "--socket", self.sock]
        cmd += ["--stats", str(self.stats)]
        self.proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not os.path.exists(self.sock):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"server did not start: {self.proc.stderr.read()}")
            time.sleep(0.05)

    @property
    def uri(self) -> str:
        return f"nbd+unix:///?socket={self.sock}"

    def stop(self) -> tuple[dict, str]:
        self.proc.send_signal(signal.SIGTERM)
        _, err = self.proc.communicate(timeout=60)
        assert self.proc.returncode == 0, err
        return json.loads(self.stats.read_text()), err


class Client:
    """A minimal NBD client: fixed newstyle, NBD_OPT_GO, simple replies."""

    def __init__(self, path: str | tuple[str, int]):
        self.s = socket.socket(socket.AF_UNIX if isinstance(path, str) else socket.AF_INET)
        self.s.connect(path)
        magic, opt_magic, _flags = struct.unpack(">QQH", self._recv(18))
        assert (magic, opt_magic) == (0x4E42444D41474943, IHAVEOPT)
        self.s.sendall(struct.pack(">I", 3))  # fixed newstyle, no zeroes
        data = struct.pack(">IH", 0, 0)
        self.s.sendall(struct.pack(">QII", IHAVEOPT, OPT_GO, len(data)) + data)
        self.size = None
        while True:
            _, _, kind, n = struct.unpack(">QIII", self._recv(20))
            body = self._recv(n)
            if kind == 3 and struct.unpack(">H", body[:2])[0] == 0:
                self.size, self.flags = struct.unpack(">QH", body[2:12])
            elif kind == 1:
                break
            else:
                raise AssertionError(f"option reply {kind:#x}")
        self.lens: dict[int, int] = {}
        self.cookie = 0

    def _recv(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            chunk = self.s.recv(n - len(out))
            assert chunk, "server closed the connection"
            out += chunk
        return out

    def send(self, cmd: int, offset: int, length: int, data: bytes = b"", flags: int = 0) -> int:
        self.cookie += 1
        self.lens[self.cookie] = length if cmd == CMD_READ else 0
        hdr = struct.pack(">IHHQQI", 0x25609513, flags, cmd, self.cookie, offset, length)
        self.s.sendall(hdr + data)
        return self.cookie

    def reply(self) -> tuple[int, int, bytes]:
        magic, err, cookie = struct.unpack(">IIQ", self._recv(16))
        assert magic == 0x67446698
        n = self.lens.pop(cookie)
        return cookie, err, (self._recv(n) if err == 0 else b"")

    def call(self, cmd: int, offset: int, length: int, data: bytes = b"") -> tuple[int, bytes]:
        self.send(cmd, offset, length, data)
        _, err, body = self.reply()
        return err, body


def test_data_round_trips_and_bad_requests_get_errors(tmp_path):
    srv = Server(tmp_path, "tiny-test", "--state", "fresh")
    try:
        c = Client(srv.sock)
        assert c.size == cli.api.validate("tiny-test")["capacity_bytes"]
        data = os.urandom(12288)
        assert c.call(CMD_WRITE, 8192, len(data), data) == (0, b"")
        assert c.call(CMD_READ, 8192, len(data)) == (0, data)
        # Unaligned: stored byte for byte (the model sees whole sectors).
        assert c.call(CMD_WRITE, 8195, 3, b"xyz")[0] == 0
        assert c.call(CMD_READ, 8192, 8)[1] == data[:3] + b"xyz" + data[6:8]
        assert c.call(CMD_TRIM, 8192, 4096)[0] == 0
        assert c.call(CMD_READ, 8192, 4096)[1] == bytes(4096)
        assert c.call(CMD_FLUSH, 0, 0)[0] == 0
        assert c.call(CMD_READ, c.size - 512, 1024)[0] == EINVAL
        # Several outstanding at once: every one answered, with its own data.
        blocks = {i: os.urandom(4096) for i in range(8)}
        for i, b in blocks.items():
            c.send(CMD_WRITE, (100 + i) * 4096, 4096, b)
        assert sorted(c.reply()[1] for _ in blocks) == [0] * 8
        cookies = {c.send(CMD_READ, (100 + i) * 4096, 4096): i for i in blocks}
        for _ in blocks:
            cookie, err, body = c.reply()
            assert err == 0 and body == blocks[cookies[cookie]]
    finally:
        stats, err = srv.stop()
    s = stats["serve"]
    assert s["requests"]["read"] == 12 and s["requests"]["write"] == 10
    assert s["error_replies"] == 1
    assert stats["read"]["total_ios"] == 11  # the refused read never reached the drive
    assert stats["write"]["total_ios"] == 10
    assert "late_pct" in s and "worst lateness" in err


def test_flush_and_fua_wait_until_the_data_is_programmed(tmp_path):
    # tiny-test: tPROG = 600 us, stripes of 8 x 4 KiB. A 4 KiB write is acknowledged
    # from the write buffer; a flush pads its stripe and replies once it is programmed,
    # a FUA write likewise. At time scale 1 that is at least 600 us of wall time.
    srv = Server(tmp_path, "tiny-test", "--state", "full")
    try:
        c = Client(srv.sock)
        assert c.flags & (1 << 3), "NBD_FLAG_SEND_FUA is advertised"

        def timed(*args, flags=0):
            t = time.perf_counter_ns()
            c.send(*args, flags=flags)
            assert c.reply()[1] == 0
            return time.perf_counter_ns() - t

        data = os.urandom(4096)
        timed(CMD_WRITE, 0, 4096, data)
        flush = timed(CMD_FLUSH, 0, 0)
        fua = timed(CMD_WRITE, 8192, 4096, data, flags=FUA)
        empty = timed(CMD_FLUSH, 0, 0)  # nothing buffered now: a command's overhead
        assert c.call(CMD_READ, 8192, 4096) == (0, data)
    finally:
        stats, _ = srv.stop()
    assert flush >= 600_000 and fua >= 600_000, (flush, fua)
    assert stats["serve"]["fua_writes"] == 1
    sync = stats["jobs"][0]["sync"]
    assert sync["total_ios"] == 3  # two flushes, and the FUA write's
    assert sync["lat_ns"]["min"] < 20_000 < 600_000 <= sync["lat_ns"]["max"], sync
    print(
        f"flush after a 4 KiB write {flush / 1e3:.0f} us, FUA write {fua / 1e3:.0f} us, "
        f"flush of nothing {empty / 1e3:.0f} us wall; simulated {sync['lat_ns']}"
    )


def test_write_zeroes_is_a_deallocate_unless_no_hole(tmp_path):
    srv = Server(tmp_path, "tiny-test", "--state", "fresh")
    try:
        c = Client(srv.sock)
        c.call(CMD_WRITE, 0, 16384, os.urandom(16384))
        for flags, at in [(0, 0), (NO_HOLE, 8192)]:
            c.send(CMD_WRITE_ZEROES, at, 8192, flags=flags)
            assert c.reply()[1] == 0
        assert c.call(CMD_READ, 0, 16384) == (0, bytes(16384))
    finally:
        stats, _ = srv.stop()
    assert stats["serve"]["requests"]["write_zeroes"] == 2
    assert stats["trim"]["total_ios"] == 1  # without NO_HOLE
    assert stats["write"]["total_ios"] == 2  # the data, and write zeroes with NO_HOLE


def test_replies_wait_for_the_simulated_completion(tmp_path):
    scale = 200.0
    srv = Server(tmp_path, "tiny-test", "--state", "full", "--time-scale", str(scale))
    try:
        c = Client(srv.sock)
        walls = []
        for i in range(20):
            t = time.perf_counter_ns()
            assert c.call(CMD_READ, i * 65536, 4096)[0] == 0
            walls.append(time.perf_counter_ns() - t)
    finally:
        stats, _ = srv.stop()
    sim_ns = stats["read"]["lat_ns"]["mean"]
    assert sim_ns > 0
    # Never earlier than the model says; later only by the host's own overhead
    # (loose: the machine may be shared).
    mean_wall = sum(walls) / len(walls)
    assert mean_wall >= sim_ns * scale
    assert mean_wall < sim_ns * scale * 3


def test_sigusr1_prints_lateness_and_stats_has_run_keys(tmp_path):
    srv = Server(tmp_path, "tiny-test", "--state", "fresh")
    c = Client(srv.sock)
    c.call(CMD_READ, 0, 4096)
    srv.proc.send_signal(signal.SIGUSR1)
    time.sleep(0.5)
    stats, err = srv.stop()
    assert err.count("late (") == 2  # one on SIGUSR1, one on exit
    run_keys = set(cli.api.run("tiny-test", {"number_ios": 10}, state="fresh").to_dict())
    assert run_keys <= set(stats)
    assert stats["serve"]["timed_replies"] == 1


def test_tcp_port_on_localhost(tmp_path):
    stats = tmp_path / "stats.json"
    cmd = [sys.executable, "-m", "ssdlab", "serve", "tiny-test", "--state", "fresh"]
    proc = subprocess.Popen(
        [*cmd, "--port", "0", "--stats", str(stats)], stderr=subprocess.PIPE, text=True
    )
    line = proc.stderr.readline()  # "... on nbd://127.0.0.1:PORT, time scale 1; ..."
    port = int(line.split("nbd://127.0.0.1:")[1].split(",")[0])
    try:
        c = Client(("127.0.0.1", port))
        assert c.call(CMD_WRITE, 0, 4, b"abcd") == (0, b"")
        assert c.call(CMD_READ, 0, 4) == (0, b"abcd")
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
    assert proc.returncode == 0
    assert json.loads(stats.read_text())["serve"]["connections"] == 1


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--time-scale", "0"], "--time-scale: 0.0 is not allowed (a number > 0 and at most"),
        (["--port", "70000"], "--port: 70000 is not a TCP port"),
        (["--backing", "/nonexistent/dir/f"], "--backing /nonexistent/dir/f: cannot open"),
        (["--state", "fresh", "--set", "nand.t_read=fast"], "nand.t_read"),
        (["--reply-bytes-per-client", "4K"], "--reply-bytes-per-client: 4096 bytes is too small"),
        (["--reply-bytes-total", "2^64"], "--reply-bytes-total: '2^64' is not a size"),
        (["--max-clients", "0"], "--max-clients: 0 is not allowed (1 to 4096)"),
        (["--client-timeout", "-1"], "--client-timeout: -1 is not allowed"),
    ],
)
def test_bad_options_are_refused(tmp_path, capsys, args, needle):
    where = [] if "--port" in args else ["--socket", str(tmp_path / "s")]
    assert cli.main(["serve", "tiny-test", *where, *args]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ssdlab: error: ") and needle in err, err


def test_a_path_that_is_not_a_socket_is_refused(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    assert cli.main(["serve", "tiny-test", "--state", "fresh", "--socket", str(f)]) == 2
    assert "exists and is not a socket" in capsys.readouterr().err


def _status_kib(pid: int, key: str) -> int:
    """A line of /proc/PID/status, in KiB (VmRSS: now; VmHWM: the peak so far)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise AssertionError(f"no {key} in /proc/{pid}/status")


def _served(c: Client, at: int) -> None:
    data = os.urandom(65536)
    assert c.call(CMD_WRITE, at, len(data), data) == (0, b"")
    assert c.call(CMD_READ, at, len(data)) == (0, data)


def test_a_client_that_never_reads_its_replies_is_held_back_and_others_are_served(tmp_path):
    # Issue 31: 24 MiB reads pipelined by a client that never reads the replies grew the
    # server by the whole of them (2.9 GB for 120) until it aborted. Now it holds at most
    # its 64 MiB of queued replies (two such reads), is then not read at all, and a
    # second client, reads of 24 MiB included, is served meanwhile.
    srv = Server(tmp_path, "tiny-test", "--state", "fresh")
    big = 24 << 20  # tiny-test's whole capacity
    try:
        good = Client(srv.sock)
        _served(good, 0)
        good.send(CMD_READ, 0, big)
        assert good.reply()[1] == 0
        base_kib = _status_kib(srv.proc.pid, "VmRSS")
        hostile = Client(srv.sock)
        for _ in range(40):  # 960 MiB of replies asked for
            hostile.send(CMD_READ, 0, big)
        time.sleep(1.0)  # 40 reads take 0.3 s on the model
        for i in range(3):
            _served(good, (i + 1) << 20)
            good.send(CMD_READ, 0, big)
            assert good.reply()[1] == 0
        grown_mib = (_status_kib(srv.proc.pid, "VmHWM") - base_kib) / 1024
        # The hostile client starts reading: every one of its replies comes, in order.
        for _ in range(40):
            assert hostile.reply()[1] == 0
    finally:
        stats, _ = srv.stop()
    s = stats["serve"]
    print(f"server grew by {grown_mib:.0f} MiB; serve stats {s}")
    assert grown_mib < 200, grown_mib
    assert s["reply_bytes_per_client"] == 64 << 20 and s["reply_bytes_total"] == 256 << 20
    assert s["held_requests"] >= 1
    assert s["queued_reply_bytes_peak"] <= (64 << 20) + big + 32, s
    assert s["requests"]["read"] == 48 and s["error_replies"] == 0


def test_connections_beyond_max_clients_are_refused_with_a_log_line(tmp_path):
    # Issue 31: connections were unbounded. Beyond --max-clients a connection is closed
    # before the greeting (the client reads the end of the stream), the server says so
    # on stderr, and once a client leaves a new one is served again.
    srv = Server(tmp_path, "tiny-test", "--state", "fresh", "--max-clients", "2")
    try:
        a, b = Client(srv.sock), Client(srv.sock)
        _served(a, 0)
        extra = socket.socket(socket.AF_UNIX)
        extra.connect(srv.sock)
        extra.settimeout(60)
        assert extra.recv(18) == b""  # closed at once, not left hanging
        extra.close()
        _served(b, 1 << 20)
        a.s.close()
        for _ in range(200):  # the server notices the close on its next wake-up
            try:
                c = Client(srv.sock)
                break
            except (AssertionError, ConnectionError):
                time.sleep(0.05)
        _served(c, 2 << 20)
    finally:
        stats, err = srv.stop()
    s = stats["serve"]
    assert s["max_clients"] == 2 and s["refused_connections"] >= 1, s
    assert s["connections"] == 3, s
    assert "refused 1 connection(s): 2 clients connected" in err and "--max-clients 2" in err, err


def test_clients_that_leave_replies_unread_are_dropped_so_others_are_not_starved(tmp_path):
    # Issue 31: clients that fill their reply budget and never read held the whole global
    # budget for as long as they stayed connected; the others' requests waited forever.
    # Now a client whose replies wait unread for --client-timeout seconds is disconnected
    # and the others are served. Here two such clients hold 48 of the 64 MiB in all, so a
    # third client's 24 MiB read does not fit until they are dropped.
    srv = Server(
        tmp_path, "tiny-test", "--state", "fresh", "--client-timeout", "1",
        "--reply-bytes-per-client", "32M", "--reply-bytes-total", "64M",
    )  # fmt: skip
    big = 24 << 20
    try:
        good = Client(srv.sock)
        _served(good, 0)
        stuck = [Client(srv.sock) for _ in range(2)]
        for c in stuck:
            for _ in range(4):
                c.send(CMD_READ, 0, big)
        time.sleep(0.5)  # their first reads are admitted and answered (unread)
        good.s.settimeout(60)  # before: never answered
        good.send(CMD_READ, 0, big)
        assert good.reply()[1] == 0
        _served(good, 1 << 20)
        for c in stuck:  # dropped: the stream ends (after what had been sent)
            c.s.settimeout(60)
            with pytest.raises((AssertionError, ConnectionResetError)):
                for _ in range(8):
                    c.reply()
    finally:
        stats, err = srv.stop()
    s = stats["serve"]
    assert s["timed_out_clients"] == 2 and s["client_timeout_s"] == 1, s
    assert "reply bytes unread for 1 s; closing it (--client-timeout 1)" in err, err


@pytest.mark.parametrize("realtime", [False, True])
def test_realtime_priority_and_a_lateness_tolerance_scaled_with_the_time_scale(tmp_path, realtime):
    # Issue 31: `--realtime` serves at SCHED_FIFO where permitted (else it says so and
    # serves as before); the default tolerance is 2 simulated us, at least 20 wall us
    # (it was 20 wall us at every scale: 0.2 simulated us at scale 100). Nothing here
    # depends on how late the replies are.
    args = ["tiny-test", "--state", "fresh", "--time-scale", "100"]
    srv = Server(tmp_path, *args, *(["--realtime"] if realtime else []))
    try:
        _served(Client(srv.sock), 0)
        policy = os.sched_getscheduler(srv.proc.pid)  # the thread that serves
    finally:
        stats, err = srv.stop()
    s = stats["serve"]
    assert s["late_tolerance_ns"] == 200_000 and s["time_scale"] == 100, s
    if not realtime:
        assert s["scheduling"] == "normal" and policy == os.SCHED_OTHER
    elif s["scheduling"] == "fifo":
        assert policy == os.SCHED_FIFO
    else:
        assert s["scheduling"] == "normal" and "SCHED_FIFO not permitted" in err, err
    assert serve.late_tolerance(1) == serve.late_tolerance(10) == 20
    assert serve.late_tolerance(1000) == 2000


def test_option_replies_a_client_never_reads_are_bounded(tmp_path):
    # 2 M NBD_OPT_LIST sent without reading a reply: the server stops reading options
    # once 1 MiB of replies waits (the client's send then blocks), instead of queueing
    # 88 MB of replies.
    srv = Server(tmp_path, "tiny-test", "--state", "fresh")
    try:
        good = Client(srv.sock)
        _served(good, 0)
        base_kib = _status_kib(srv.proc.pid, "VmRSS")
        flood = socket.socket(socket.AF_UNIX)
        flood.connect(srv.sock)
        flood.recv(18)
        flood.sendall(struct.pack(">I", 3))
        opts = struct.pack(">QII", IHAVEOPT, 3, 0) * (1 << 16)  # NBD_OPT_LIST, no data
        flood.settimeout(5.0)
        sent = 0
        try:
            for _ in range(32):
                flood.sendall(opts)
                sent += 1 << 16
        except TimeoutError:
            pass  # the server stopped reading: back-pressure
        _served(good, 1 << 20)
        grown_mib = (_status_kib(srv.proc.pid, "VmHWM") - base_kib) / 1024
        flood.close()
        _served(good, 2 << 20)
    finally:
        srv.stop()
    print(f"{sent} options sent; server grew by {grown_mib:.0f} MiB")
    assert grown_mib < 40, grown_mib
    assert sent < 1 << 21


def _fio(jobfile, *extra) -> dict:
    # In the job file's (temporary) directory: whatever fio leaves (verify state files,
    # `*-verify.state`, when a job with verify= ends or is stopped) stays there.
    r = subprocess.run(
        ["fio", "--output-format=json", *extra, str(jobfile)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=jobfile.parent,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    return json.loads(r.stdout[r.stdout.index("{") :])


@needs_fio
def test_fio_randwrite_and_randread_verify_crc32c(tmp_path):
    srv = Server(tmp_path, "tiny-test", "--state", "fresh")
    job = tmp_path / "verify.fio"
    job.write_text(
        f"[global]\nioengine=nbd\nuri={srv.uri}\nbs=4k\nsize=8m\niodepth=4\n"
        "verify=crc32c\nverify_fatal=1\nverify_state_save=0\n"
        "[write-then-verify]\nrw=randwrite\n"
        "[read-verify]\nstonewall\nrw=randread\n"
    )
    try:
        out = _fio(job)
    finally:
        stats, _ = srv.stop()
    w, r = out["jobs"]
    assert w["error"] == 0 and r["error"] == 0
    assert w["write"]["total_ios"] == 2048
    assert w["read"]["total_ios"] == 2048  # the verify pass
    assert r["read"]["total_ios"] == 2048
    assert stats["write"]["total_ios"] == 2048
    assert stats["read"]["total_ios"] == 4096


@needs_fio
@pytest.mark.parametrize("iodepth", [1, 4])
def test_fio_matches_ssdlab_fio_on_the_same_job(tmp_path, iodepth):
    # Slowed 100 times, so that the host's own time per request (the socket, libnbd,
    # fio, scheduling on a shared machine: ~10-200 us of wall time) is a few percent of
    # a 70 us read; a reply counts as late past 2 simulated us (the default tolerance at
    # this scale). At real-time priority where permitted (--realtime): on a loaded 2-core
    # machine 2.5-5.7 % of replies were late without it and the test skipped; 0-0.33 %
    # with it (issue 31).
    # One job file, run both ways: fio's nbd engine against `ssdlab serve`, and `ssdlab
    # fio` (ioengine=nbd and uri have no effect there: it simulates the drive itself).
    scale = 100
    sock = tmp_path / "nbd.sock"
    job = tmp_path / "job.fio"
    job.write_text(
        f"[global]\nioengine=nbd\nuri=nbd+unix:///?socket={sock}\nrw=randread\nbs=4k\n"
        f"size=1g\nnumber_ios=600\n[qd{iodepth}]\niodepth={iodepth}\n"
    )
    sim = subprocess.run(
        [sys.executable, "-m", "ssdlab", "fio", str(job), "--output-format=json"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "uri: no effect" in sim.stderr
    want = json.loads(sim.stdout)["jobs"][0]["read"]
    srv = Server(tmp_path, "client-tlc-dram", "--time-scale", str(scale), "--realtime")
    assert srv.sock == str(sock)
    try:
        got = _fio(job)["jobs"][0]["read"]
    finally:
        stats, _ = srv.stop()
    assert got["total_ios"] == want["total_ios"] == 600
    iops, lat = got["iops"] * scale, got["lat_ns"]["mean"] / scale
    late = stats["serve"]["late_pct"]
    model = want["lat_ns"]["mean"]
    # What the server's drive simulated for fio's requests: simulated time, so it does
    # not depend on how busy this machine was (a busy fio sends later, but at QD1 and
    # QD4 on this drive a read waits for nothing else).
    served = stats["jobs"][0]["read"]
    lateness = stats["serve"]["mean_lateness_ns"] / scale  # in simulated ns
    print(
        f"QD{iodepth}: fio {iops:.0f} IOPS, mean {lat:.0f} ns; ssdlab fio {want['iops']:.0f} "
        f"IOPS, mean {model:.0f} ns; served {served['lat_ns']['mean']:.0f} ns; late_pct "
        f"{late:.2f}, mean lateness {lateness:.0f} simulated ns"
    )
    # Checked however loaded the machine is (issue 31: the test skipped whenever 1 % or
    # more of the replies were late, so on a busy machine it never ran):
    # 1. the server simulated exactly fio's requests, as `ssdlab fio` simulates the job;
    assert served["total_ios"] == 600
    assert abs(served["lat_ns"]["mean"] / model - 1) < 0.10, (served["lat_ns"]["mean"], model)
    # 2. replies are never early: fio sees at least what the drive took, plus at least
    #    most of the lateness the server measured (fio waits for every late reply);
    assert lat > 0.99 * served["lat_ns"]["mean"] + 0.9 * lateness, (lat, served, lateness)
    assert iops < 1.1 * want["iops"]
    # 3. and fio's own figures, which add this machine's time to the drive's, match the
    #    model within 10 % once that added time is taken out where the server measured
    #    it (its replies' lateness); the rest is fio's and the kernel's time per request,
    #    small beside a 70 us read slowed 100 times unless the machine is overloaded, so
    #    this one is checked only when the server held its deadlines (< 1 % late).
    if late < 1.0:
        assert abs(iops / want["iops"] - 1) < 0.10, (iops, want["iops"])
        assert abs((lat - lateness) / model - 1) < 0.10, (lat, lateness, model)
    else:
        print(f"end-to-end 10 % check not applied: {late:.2f} % of replies late (needs < 1 %)")


@needs_fio
def test_fio_fsync_reaches_the_server_as_flushes_as_ssdlab_fio_simulates(tmp_path):
    # One job file both ways: fio's syncs become NBD flushes that wait for the drive's
    # programs; `ssdlab fio` issues and counts them as fio does (end_fsync's uncounted).
    sock = tmp_path / "nbd.sock"
    job = tmp_path / "fsync.fio"
    job.write_text(
        f"[global]\nioengine=nbd\nuri=nbd+unix:///?socket={sock}\nrw=write\nbs=4k\n"
        "size=1m\nfsync=8\nend_fsync=1\n[f]\n"
    )
    sim = subprocess.run(
        [sys.executable, "-m", "ssdlab", "fio", str(job), "--device", "tiny-test",
         "--output-format=json"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    want = json.loads(sim.stdout)["jobs"][0]
    srv = Server(tmp_path, "tiny-test", "--state", "fresh")
    try:
        got = _fio(job)["jobs"][0]
    finally:
        stats, _ = srv.stop()
    assert got["write"]["total_ios"] == want["write"]["total_ios"] == 256
    assert got["sync"]["total_ios"] == want["sync"]["total_ios"] == 31
    assert stats["serve"]["requests"]["flush"] == 32
    # A flush after 8 x 4 KiB: its stripe is programmed first (tPROG 600 us).
    assert stats["jobs"][0]["sync"]["lat_ns"]["mean"] > 500_000
    assert want["sync"]["lat_ns"]["min"] >= 600_000


def test_an_fdp_drive_served_places_writes_by_offset(tmp_path):
    """--dp-scheme: NBD writes carry no directive; the scheme gives each its placement ID
    by offset (fio's dp_scheme), so the drive's handles see what the file says."""
    scheme = tmp_path / "scheme"
    scheme.write_text("0,1048576,1\n1048576,2097152,2\n")
    args = ["tiny-test", "--state", "fresh", "--set", "fdp.handles=4", "--dp-scheme", str(scheme)]
    srv = Server(tmp_path, *args)
    try:
        c = Client(srv.sock)
        for i in range(8):  # 4 writes in each range, 4 past both (placement ID 0)
            for base in (0, 1 << 20, 3 << 20):
                assert c.call(CMD_WRITE, base + i * 4096, 4096, os.urandom(4096))[0] == 0
    finally:
        stats, _ = srv.stop()
    hb = [h["host_bytes_written"] for h in stats["device"]["fdp"]["per_handle"]]
    assert hb == [8 * 4096, 8 * 4096, 8 * 4096, 0]


@pytest.mark.parametrize(
    "args, needle",
    [
        (["--plids", "0"], "fdp: the drive 'tiny-test' has no flexible data placement"),
        (["--set", "fdp.handles=2", "--plids", "5"], "fdp.plids: index 5 is out of range"),
        (["--set", "fdp.handles=2", "--dp-scheme", "/nonexistent/s"], "--dp-scheme"),
        (["--set", "fdp.handles=2", "--dp-scheme", "x", "--plids", "1"], "not with --plids"),
    ],
)
def test_bad_placement_options_are_refused(tmp_path, capsys, args, needle):
    sock = str(tmp_path / "s")
    assert cli.main(["serve", "tiny-test", "--state", "fresh", *args, "--socket", sock]) == 2
    assert needle in capsys.readouterr().err
