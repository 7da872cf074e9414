"""Fuzzing the Python-side parsers (issue 14): fio job files (parser and option
resolution), IOMeter access specs, the CLI's flags and ``--set``, and the Python API's
arguments. Every input must give a result or the documented error (JobFileError with
``file:line``, ConfigError, exit status 2), never another exception, within a time
limit. The Rust parsers have their own harness (crates/ssdlab-core/tests/fuzz.rs).

CI runs a few hundred examples per target (seconds); the long run of docs/reliability.md
sets ``SSDLAB_FUZZ_EXAMPLES``.
"""

import contextlib
import io
import os
import re

import pytest

hypothesis = pytest.importorskip("hypothesis")
import ssdlab  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from ssdlab import api  # noqa: E402
from ssdlab.cli import main  # noqa: E402
from ssdlab.fio import JobFileError, parse_text  # noqa: E402
from ssdlab.fio.options import finish, resolve  # noqa: E402
from ssdlab.workloads import iometer_workload  # noqa: E402

N = int(os.environ.get("SSDLAB_FUZZ_EXAMPLES", "0"))


def fuzz_settings(default: int):
    return settings(
        max_examples=N or default,
        deadline=5000,  # ms per input: a hang fails
        derandomize=True,  # the same inputs on every run (CI is reproducible)
        suppress_health_check=list(HealthCheck),
        database=None,
    )


TOKENS = [
    "0", "-1", "1", "4k", "4K", "4kB", "4KiB", "1e", "1e3", "99999999999999999999", "nan",
    "inf", "%", "50%", "150%", ":", "/", ",", "-", "=", "[", "]", "[j]", "[global]", "\n",
    "${HOME}", "${NOPE}", "include x.fio", "rw=", "bs=", "randread", "write", "trim", "zipf:",
    "1.5", "0x10", " ", "\t", ";", "#", "k", "m", "g", "t", "p", "e", "s", "ms", "us", "h",
]  # fmt: skip

FIO_SEEDS = [
    "[global]\nbs=4k\niodepth=32\n[j]\nrw=randread\nnumber_ios=1000\n",
    "[a]\nrw=randrw\nrwmixread=70\nbssplit=4k/50:64k/50\nsize=50%\n[b]\nstonewall\nrw=write\n",
    "[j]\nrw=read\nbsrange=4k-64k\noffset=1M\nsize=16M\nloops=2\nthinktime=10\n",
    "[j]\nrw=randwrite\nruntime=1\ntime_based\nramp_time=0\nrate_iops=1000\nnumjobs=2\n",
    "[j]\nrw=randread\nrandom_distribution=zipf:1.2\nnorandommap\npercentile_list=50:99\n",
    "[x]\nrw=trim\nbs=1M\nzonemode=strided\nzonesize=4M\nzoneskip=4M\nwait_for=x\n",
]


@st.composite
def mutated(draw, seeds):
    text = draw(st.sampled_from(seeds))
    for _ in range(draw(st.integers(0, 4))):
        pos = draw(st.integers(0, len(text)))
        op = draw(st.integers(0, 2))
        if op == 0:
            text = text[:pos] + draw(st.sampled_from(TOKENS)) + text[pos:]
        elif op == 1:
            text = text[:pos] + text[pos + draw(st.integers(1, 8)) :]
        else:
            text = text[:pos] + draw(st.text(max_size=6)) + text[pos:]
    return text


WHERE = re.compile(r"^[^\n]*:\d+: ")


@fuzz_settings(250)
@given(mutated(FIO_SEEDS))
def test_fio_job_files(text):
    try:
        jf = resolve(parse_text(text, "fuzz.fio"))
        finish(jf, 1 << 30)
    except JobFileError as e:
        assert WHERE.match(str(e)), str(e)


IOMETER_ALPHABET = "0123456789KMkmb,;.-+% x"


@fuzz_settings(200)
@given(
    st.one_of(
        st.text(IOMETER_ALPHABET, max_size=40),
        st.lists(
            st.tuples(
                st.sampled_from(["4K", "8K", "512", "1000", "0", "64K", "1M", "x"]),
                *[st.integers(-5, 120).map(str)] * 3,
            ).map(",".join),
            min_size=1, max_size=3,
        ).map(";".join),
    )
)  # fmt: skip
def test_iometer_specs(spec):
    try:
        w = iometer_workload(spec, number_ios=100)
    except ssdlab.ConfigError as e:
        assert "iometer" in str(e)
        return
    try:
        api.validate_workload(w, 1 << 30)
    except ssdlab.ConfigError:
        pass


VALUES = st.one_of(
    st.sampled_from(TOKENS),
    st.integers(-(2**70), 2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.text(max_size=10),
)
FLAGS = ["--bs", "--iodepth", "--numjobs", "--rw", "--rwmixread", "--offset", "--size",
         "--io_size", "--runtime", "--ramp_time", "--queues", "--queue_policy", "--seed",
         "--state", "--max-memory"]  # fmt: skip


def _main(argv):
    out, err = io.StringIO(), io.StringIO()
    saved = api.DEFAULT_MAX_MEMORY
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(argv)
            except SystemExit as e:
                rc = e.code
    finally:
        api.DEFAULT_MAX_MEMORY = saved
    return rc, err.getvalue()


@fuzz_settings(50)
@given(st.lists(st.tuples(st.sampled_from(FLAGS), VALUES), min_size=1, max_size=3))
def test_cli_run_flags(flags):
    argv = ["run", "--device", "tiny-test", "-q", "--number_ios", "50"]
    for f, v in flags:
        argv += [f, v]
    rc, err = _main(argv)
    assert rc in (0, 2), (rc, err)
    if rc == 2:
        assert "ssdlab: error:" in err


DEVICE_KEYS = [f"{s}.{k}" for s, sec in api.validate("tiny-test").items()
               if isinstance(sec, dict) and s not in ("derived",) for k in sec]  # fmt: skip


@fuzz_settings(80)
@given(st.lists(st.tuples(st.sampled_from([*DEVICE_KEYS, "x.y", "nand"]), VALUES), max_size=3))
def test_cli_validate_set(sets):
    argv = ["validate", "tiny-test"]
    for k, v in sets:
        argv += ["--set", f"{k}={v}"]
    rc, err = _main(argv)
    assert rc in (0, 2), (rc, err)


PY_VALUES = st.recursive(
    st.one_of(
        st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(),
        st.sampled_from(TOKENS), st.text(max_size=8),
    ),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=6), inner, max_size=3)),
    max_leaves=6,
)  # fmt: skip
WL_KEYS = [
    "rw", "bs", "iodepth", "numjobs", "size", "offset", "number_ios", "rwmixread", "runtime",
    "thinktime", "bssplit", "queues", "jobs", "trace", "group", "name",
]  # fmt: skip


@fuzz_settings(60)
@given(
    st.dictionaries(st.sampled_from(WL_KEYS), PY_VALUES, max_size=3),
    st.dictionaries(st.sampled_from(DEVICE_KEYS), PY_VALUES, max_size=2),
)
def test_python_api_arguments(workload, overrides):
    workload = {"number_ios": 50, **workload}
    try:
        ssdlab.run("tiny-test", workload, set=overrides, state="fresh")
    except ssdlab.ConfigError:
        pass
