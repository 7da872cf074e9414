"""``ssdlab serve DEVICE``: the simulated drive as an NBD server (docs/serve.md).

The server runs in the Rust extension (``ssdlab._core.serve``) with the GIL released
until SIGINT or SIGTERM; this module only checks the options, prints where to connect
and writes ``--stats``. Replies are released when the simulated completion time is
reached on the wall clock (scaled by ``--time-scale``); what is simplified is in the
server's module header and docs/serve.md.
"""

from __future__ import annotations

import argparse
import json
import sys

from ssdlab import _core, api

# Queued reply bytes allowed, per client and in all (the server's defaults).
REPLY_BYTES_PER_CLIENT = 64 << 20
REPLY_BYTES_TOTAL = 256 << 20
# Clients connected at once (more are refused), and the seconds a client may leave its
# replies unread before it is disconnected (0: never); the server's defaults and limits.
MAX_CLIENTS = 32
MAX_CLIENTS_LIMIT = 4096
CLIENT_TIMEOUT_S = 30
MAX_CLIENT_TIMEOUT_S = 86_400


def serve(
    device: api.DeviceLike = api.DEFAULT_DEVICE,
    *,
    socket: str | None = None,
    port: int | None = None,
    state: str = "full",
    seed: int = 1,
    set=None,
    time_scale: float = 1.0,
    backing: str | None = None,
    late_tolerance_us: float | None = None,
    reply_bytes_per_client: int = REPLY_BYTES_PER_CLIENT,
    reply_bytes_total: int = REPLY_BYTES_TOTAL,
    max_clients: int = MAX_CLIENTS,
    client_timeout_s: int = CLIENT_TIMEOUT_S,
    realtime: bool = False,
    placement: dict | None = None,
) -> dict:
    """Serve ``device`` over NBD until SIGINT/SIGTERM; returns ``{"serve", "report"}``.

    ``socket`` (a Unix socket path) or ``port`` (TCP on 127.0.0.1; default 10809).
    ``reply_bytes_per_client`` and ``reply_bytes_total`` bound the reply bytes queued
    for one client and for all; ``max_clients`` the clients connected at once (more are
    closed as they connect); a client that leaves its replies unread for
    ``client_timeout_s`` seconds is disconnected (0: never). See docs/reliability.md,
    "Serve clients". ``late_tolerance_us`` (wall µs; default ``late_tolerance(time_scale)``)
    is the lateness past which a reply counts as late; ``realtime`` serves at real-time
    priority where permitted (docs/serve.md). ``placement`` gives the writes FDP
    placement IDs on a drive with ``[fdp]`` (NBD writes carry no directive): a workload's
    ``fdp`` table, e.g. ``{"select": "scheme", "scheme": [[0, 1 << 30, 1]]}`` (fio's
    ``dp_scheme``: by offset) or ``{"plids": [0, 1], "select": "random"}``.
    """
    kind, text, origin = api._device_args(device)
    if socket is not None and port is not None:
        raise api.ConfigError("--socket and --port: give one of them, not both")
    if port is not None and not 0 <= port <= 65535:
        raise api.ConfigError(f"--port: {port} is not a TCP port (allowed: 0-65535)")
    # Finite and bounded: `--time-scale inf` (or 1e300) overflowed converting to wall
    # nanoseconds, a traceback (issue 31's second audit).
    if not (isinstance(time_scale, (int, float)) and 0 < time_scale <= MAX_TIME_SCALE):
        raise api.ConfigError(
            f"--time-scale: {time_scale} is not allowed (a number > 0 and at most "
            f"{MAX_TIME_SCALE:,}; 10 = ten times slower)"
        )
    if late_tolerance_us is None:
        late_tolerance_us = late_tolerance(time_scale)
    if not (isinstance(late_tolerance_us, (int, float)) and 0 <= late_tolerance_us <= 3.6e9):
        raise api.ConfigError(
            f"--late-us: {late_tolerance_us} is not allowed (0 to 3600000000 µs, an hour)"
        )
    if not isinstance(realtime, bool):
        raise api.ConfigError(f"realtime: {api.clip(realtime)} is not allowed (True or False)")
    if not isinstance(seed, int) or seed < 0:
        raise api.ConfigError(f"seed: '{seed}' must be a non-negative integer")
    for name, v in [
        ("reply_bytes_per_client", reply_bytes_per_client),
        ("reply_bytes_total", reply_bytes_total),
    ]:
        if isinstance(v, bool) or not isinstance(v, int) or not 1 << 20 <= v < 1 << 64:
            raise api.ConfigError(
                f"{name}: '{v}' is not allowed (a number of bytes from 1 MiB to 2^64-1)"
            )
    for name, v, lo, hi, what in [
        ("max_clients", max_clients, 1, MAX_CLIENTS_LIMIT, "clients"),
        ("client_timeout_s", client_timeout_s, 0, MAX_CLIENT_TIMEOUT_S, "seconds, 0: never"),
    ]:
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise api.ConfigError(
                f"{name}: {api.clip(v)} is not allowed (a whole number from {lo} to {hi}; {what})"
            )
    out = _core.serve(
        kind,
        text,
        origin,
        api._overrides(set),
        api._check_state(state),
        seed,
        socket=socket,
        port=port,
        time_scale=float(time_scale),
        backing=backing,
        late_tolerance_ns=round(late_tolerance_us * 1000),
        reply_bytes_per_client=reply_bytes_per_client,
        reply_bytes_total=reply_bytes_total,
        max_clients=max_clients,
        client_timeout_s=client_timeout_s,
        realtime=realtime,
        placement=None if placement is None else json.dumps(placement),
    )
    return json.loads(out)


# A 70 us read answered after 70 s: slower serves nothing a client would wait for.
MAX_TIME_SCALE = 1_000_000


def late_tolerance(time_scale: float) -> float:
    """The default lateness tolerance in wall µs: 2 simulated µs (a few percent of a read),
    and at least 20 wall µs (what a timed wake-up on a virtual machine may overshoot by):
    20 µs at time scales up to 10, 200 µs at 100."""
    return max(20.0, 2.0 * time_scale)


def cmd_serve(args: argparse.Namespace) -> int:
    from ssdlab.cliutil import UsageError, write_atomically
    from ssdlab.probe.cli import parse_size

    per_client = parse_size(args.reply_bytes_per_client, "--reply-bytes-per-client")
    total = parse_size(args.reply_bytes_total, "--reply-bytes-total")
    for flag, v in [("--reply-bytes-per-client", per_client), ("--reply-bytes-total", total)]:
        if v < 1 << 20:
            raise UsageError(f"{flag}: {v} bytes is too small (at least 1M)")
    if not 1 <= args.max_clients <= MAX_CLIENTS_LIMIT:
        raise UsageError(
            f"--max-clients: {args.max_clients} is not allowed (1 to {MAX_CLIENTS_LIMIT})"
        )
    if not 0 <= args.client_timeout <= MAX_CLIENT_TIMEOUT_S:
        raise UsageError(
            f"--client-timeout: {args.client_timeout} is not allowed "
            f"(seconds from 1 to {MAX_CLIENT_TIMEOUT_S}, or 0 for never)"
        )
    placement = None
    if args.dp_scheme or args.plids or args.plid_select:
        from ssdlab.fio.parser import JobFileError
        from ssdlab.fio.zones import plid_list, read_dp_scheme

        try:
            if args.dp_scheme:
                if args.plids or args.plid_select:
                    raise UsageError("--dp-scheme: not with --plids or --plid_select")
                placement = {"select": "scheme", "scheme": read_dp_scheme(args.dp_scheme,
                                                                          "--dp-scheme")}
            else:
                placement = {"select": args.plid_select or "roundrobin"}
                if args.plids:
                    placement["plids"] = plid_list(args.plids, "--plids", "plids")
        except JobFileError as e:
            raise UsageError(str(e)) from e
    if args.stats:
        # Checked before serving, as every output is: a --stats naming a directory was
        # found only on exit, after the whole session (issue 31's second audit).
        from ssdlab.outputs import check_file

        check_file(args.stats, "--stats")
    try:
        result = serve(
            args.device,
            socket=args.socket,
            port=args.port,
            state=args.state,
            seed=args.seed,
            set=args.set,
            time_scale=args.time_scale,
            backing=args.backing,
            late_tolerance_us=args.late_us,
            reply_bytes_per_client=per_client,
            reply_bytes_total=total,
            max_clients=args.max_clients,
            client_timeout_s=args.client_timeout,
            realtime=args.realtime,
            placement=placement,
        )
    except RuntimeError as e:
        print(f"ssdlab: error: {e}", file=sys.stderr)
        return 1
    if args.stats:
        stats = dict(result["report"])
        stats["serve"] = result["serve"]
        write_atomically(args.stats, json.dumps(stats, indent=2) + "\n")
    return 0


def register(sub) -> None:
    p = sub.add_parser(
        "serve",
        help="serve a simulated drive over NBD, replies timed by the model (docs/serve.md)",
    )
    p.add_argument("device", help="preset name or .toml/.json device file")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--socket", metavar="PATH", help="listen on this Unix socket")
    where.add_argument(
        "--port", type=int, help="listen on this TCP port of 127.0.0.1 (default 10809)"
    )
    p.add_argument(
        "--state",
        default="full",
        choices=api.STATES,
        help="drive condition before serving (default: full)",
    )
    p.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a device field, e.g. --set nand.t_read=60us (repeatable)",
    )
    p.add_argument(
        "--time-scale",
        type=float,
        default=1.0,
        metavar="X",
        help="wall time per simulated time (10 = ten times slower than the drive)",
    )
    p.add_argument(
        "--backing", metavar="FILE", help="keep the data in FILE (default: sparse, in memory)"
    )
    p.add_argument(
        "--stats", metavar="FILE", help="on exit, write the drive's report and lateness as JSON"
    )
    p.add_argument(
        "--late-us",
        type=float,
        default=None,
        metavar="US",
        help="a reply sent more than this (wall µs) after its due time is late "
        "(default: 2 simulated µs, at least 20: 20 up to --time-scale 10, 200 at 100)",
    )
    p.add_argument(
        "--realtime",
        action="store_true",
        help="serve at real-time priority (SCHED_FIFO 1) where permitted, so that other "
        "programs do not delay replies (docs/serve.md)",
    )
    p.add_argument(
        "--reply-bytes-per-client",
        default="64M",
        metavar="SIZE",
        help="reply bytes one client may have queued before its requests wait unread "
        "(default 64M; at least 1M)",
    )
    p.add_argument(
        "--reply-bytes-total",
        default="256M",
        metavar="SIZE",
        help="reply bytes all clients may have queued (default 256M; at least 1M)",
    )
    p.add_argument(
        "--max-clients",
        type=int,
        default=MAX_CLIENTS,
        metavar="N",
        help=f"clients connected at once; more are closed as they connect, with a log line "
        f"(default {MAX_CLIENTS}; 1 to {MAX_CLIENTS_LIMIT})",
    )
    p.add_argument(
        "--client-timeout",
        type=int,
        default=CLIENT_TIMEOUT_S,
        metavar="S",
        help="disconnect a client that leaves its replies unread this many seconds, freeing "
        f"its share of the reply bytes (default {CLIENT_TIMEOUT_S}; 0: never; "
        f"at most {MAX_CLIENT_TIMEOUT_S})",
    )
    p.add_argument(
        "--dp-scheme",
        metavar="FILE",
        help="FDP drive: the writes' placement IDs by offset, from fio's dp_scheme file "
        "(lines start,end,placement_id; NBD writes carry no directive; docs/serve.md)",
    )
    p.add_argument(
        "--plids",
        help="FDP drive: placement-ID indices the writes use in turn, e.g. 0,2-3 (fio's plids)",
    )
    p.add_argument(
        "--plid_select",
        "--plid-select",
        choices=("roundrobin", "random"),
        help="FDP drive: with --plids, one placement ID per write in turn or at random",
    )
    p.set_defaults(func=cmd_serve)
