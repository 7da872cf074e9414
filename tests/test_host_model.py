"""The host model (workload options host_cpu_per_io, host_irq_per_io): reachable from the
Python API, `ssdlab run` and the seed 000 studies, with errors naming the option."""

from __future__ import annotations

import argparse

import pytest
import ssdlab
from ssdlab.cli import UsageError, main
from ssdlab.studies import seed000

WL = {"rw": "randread", "bs": "4KiB", "iodepth": 32, "number_ios": 20_000}


def test_a_thread_costing_10us_per_io_caps_a_job_at_100k_iops():
    free = ssdlab.run("seed000-dram-1tb", WL, state="normal")["read"]["iops"]
    capped = ssdlab.run("seed000-dram-1tb", dict(WL, host_cpu_per_io="10us"), state="normal")[
        "read"
    ]["iops"]
    assert free > 200_000
    assert 97_000 < capped <= 100_100


def test_run_flags_and_a_bad_value(capsys):
    argv = ["run", "--device", "tiny-test", "--number_ios", "2000", "--quiet"]
    assert main([*argv, "--host_cpu_per_io", "5us", "--host_irq_per_io", "1us"]) == 0
    assert main(["run", "--device", "tiny-test", "--host_irq_per_io", "soon"]) == 2
    assert "host_irq_per_io" in capsys.readouterr().err


def _args(**kw) -> argparse.Namespace:
    base = dict(quick=True, devices=None, density=None, states=None, queues=None,
                workloads=None, number_ios=None, seed=1, span=None, host_cpu_per_io=None,
                host_irq_per_io=None)  # fmt: skip
    base.update(kw)
    return argparse.Namespace(**base)


def test_the_seed000_studies_pass_the_host_to_every_point():
    m = seed000.matrix_from_args(
        _args(host_cpu_per_io="4us", host_irq_per_io="1us"),
        n_devices=(2,),
        default=seed000.DEFAULT_DEVICES,
        hint="",
    )
    p = seed000.Point("seed000-hmb", "normal", "rand-read-4k-t1-qd32", 1)
    wl = seed000.point_run(p, m)["workload"]
    assert wl["host_cpu_per_io"] == "4us" and wl["host_irq_per_io"] == "1us"
    assert "4us of CPU per I/O" in seed000.ios_line(m)
    plain = seed000.matrix_from_args(
        _args(), n_devices=(2,), default=seed000.DEFAULT_DEVICES, hint=""
    )
    assert "host_cpu_per_io" not in seed000.point_run(p, plain)["workload"]
    with pytest.raises(UsageError, match="--host-cpu-per-io"):
        seed000.matrix_from_args(
            _args(host_cpu_per_io="-3us"),
            n_devices=(2,),
            default=seed000.DEFAULT_DEVICES,
            hint="",
        )
