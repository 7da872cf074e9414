"""How many requests per second `ssdlab serve` answers in real time (BENCHMARKS.md).

Starts `ssdlab serve DEVICE --time-scale 1` once per point and runs the real fio
(`ioengine=nbd`, 4 KiB random reads) against it: a queue-depth sweep, then a paced
sweep (`rate_iops`) at a queue depth deep enough for the drive never to be the limit.
Prints, per point, fio's IOPS and mean latency and the server's late_pct and worst
lateness. Needs fio with the nbd engine. Usage:

    python scripts/serve_bench.py [--device client-tlc-dram] [--seconds 5] [--late-us 20]
                                  [--time-scale 1] [--realtime]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time


def point(a, iodepth: int, rate: int | None, tmp: str) -> dict:
    sock, stats = os.path.join(tmp, "s.sock"), os.path.join(tmp, "stats.json")
    srv = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ssdlab",
            "serve",
            a.device,
            "--socket",
            sock,
            "--stats",
            stats,
            "--late-us",
            str(a.late_us),
            "--time-scale",
            str(a.time_scale),
            *(["--realtime"] if a.realtime else []),
        ],
        stderr=subprocess.DEVNULL,
    )
    while not os.path.exists(sock):
        time.sleep(0.05)
    job = os.path.join(tmp, "job.fio")
    with open(job, "w") as f:
        f.write(
            f"[global]\nioengine=nbd\nuri=nbd+unix:///?socket={sock}\nrw=randread\nbs=4k\n"
            f"size=16g\ntime_based=1\nruntime={a.seconds}s\niodepth={iodepth}\n"
            + (f"rate_iops={rate}\n" if rate else "")
            + "[p]\n"
        )
    out = subprocess.run(["fio", "--output-format=json", job], capture_output=True, text=True)
    srv.send_signal(signal.SIGTERM)
    srv.wait()
    r = json.loads(out.stdout[out.stdout.index("{") :])["jobs"][0]["read"]
    s = json.load(open(stats))["serve"]
    return {
        "iodepth": iodepth,
        "rate_iops": rate,
        "fio_iops": round(r["iops"]),
        "fio_lat_mean_us": round(r["lat_ns"]["mean"] / 1e3, 1),
        "late_pct": round(s["late_pct"], 3),
        "mean_late_us": round(s["mean_lateness_ns"] / 1e3, 1),
        "worst_late_us": round(s["worst_lateness_ns"] / 1e3, 1),
        "scheduling": s.get("scheduling"),
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--device", default="client-tlc-dram")
    ap.add_argument("--seconds", type=float, default=5)
    ap.add_argument("--iodepths", default="1,4,16,32,64")
    ap.add_argument("--rates", default="20000,40000,60000,80000,100000")
    ap.add_argument("--late-us", type=float, default=20.0)
    ap.add_argument("--time-scale", type=float, default=1.0)
    ap.add_argument("--realtime", action="store_true", help="serve --realtime (SCHED_FIFO)")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for q in (int(x) for x in a.iodepths.split(",") if x.strip()):
            print(json.dumps(point(a, q, None, tmp)), flush=True)
        for rate in (int(x) for x in a.rates.split(",") if x.strip()):
            print(json.dumps(point(a, 64, rate, tmp)), flush=True)


if __name__ == "__main__":
    main()
