"""Issue 31 (hardening, round two), the Python side: system files in `validate` and
`run --verify`, clear errors instead of tracebacks for output paths and sizes, fio job
files and iologs that were read wrongly, plots that leave no partial file, bounded
echoes of huge values, and ConfigError from the Python API for every bad input."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import ssdlab
from ssdlab.cli import main

ROOT = Path(__file__).resolve().parent.parent
SYSTEM = ROOT / "examples" / "seed001-remote.toml"

LOCAL_SYSTEM = """
name = "two-local"
[[host]]
name = "h0"
[[drive]]
device = "tiny-test"
count = 2
host = "h0"
[[drive]]
device = "tiny-test"
set = ["nand.t_read=60us"]
name = "slow"
host = "h0"
"""


# Subprocesses import the same ssdlab as this process, whatever their working directory.
ENV = {**os.environ, "PYTHONPATH": str(Path(ssdlab.__file__).resolve().parent.parent)}


def _cli(*args, timeout=120, **kw):
    return subprocess.run(
        [sys.executable, "-m", "ssdlab", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=ENV,
        **kw,
    )


def _clear_error(r, *needles):
    """Exit status 2, one `ssdlab: error:` line naming each needle, no traceback."""
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("ssdlab: error:")]
    assert len(errors) == 1, r.stderr
    for n in needles:
        assert n in errors[0], (n, errors[0])
    return errors[0]


# ---- 1. validate SYSTEM.toml ------------------------------------------------------


def test_validate_a_shipped_system_file(capsys):
    assert main(["validate", str(SYSTEM)]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"{SYSTEM}: ok (system seed001-remote, smallest drive 959.9 GB")
    assert "hosts: init0, init1, init2, init3; targets: target" in out
    assert "fabric: rdma-kernel-2016 (rdma)" in out
    assert "4 drive(s) dc-mlc-2016: drive0, drive1, drive2, drive3" in out
    assert "geometry: 8 ch x 8 dies" in out and "QD1 4 KiB read" in out


def test_validate_a_local_system_with_two_drive_kinds(tmp_path, capsys):
    p = tmp_path / "sys.toml"
    p.write_text(LOCAL_SYSTEM)
    argv = [
        "validate",
        str(p),
        "--workload",
        "rand-read-4k-t1-qd32",
        "--set",
        "ftl.gc_policy=greedy",
    ]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "ok (system two-local, smallest drive 25.2 MB user capacity)" in out
    assert "fabric: none (local drives)" in out
    assert "2 drive(s) tiny-test: drive0, drive1 (host -> target: h0 -> local)" in out
    assert "1 drive(s) tiny-test: slow (host -> target: h0 -> local)" in out
    assert out.count("geometry:") == 2
    assert _cli("validate", p, "--set", "nand.t_read=-1us").returncode == 2


# ---- 2. run --device SYSTEM --verify ----------------------------------------------


def test_run_a_system_with_verify_checks_every_drive(tmp_path):
    out = tmp_path / "r.json"
    r = _cli("run", "--device", SYSTEM, "--verify", "--rw", "randrw", "--number_ios", "2000",
             "--state", "fresh", "--json", out, "-q")  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "Traceback" not in r.stderr
    doc = json.loads(out.read_text())
    assert all(d["device"]["oracle"]["checked"] > 0 for d in doc["drives"])


def _fake_run(oracles):
    def run(device, workload, **kw):
        drives = [
            {"name": f"drive{i}", "device": {} if o is None else {"oracle": o}}
            for i, o in enumerate(oracles)
        ]
        return ssdlab.Report({"ssdlab_version": "x", "system": "s", "drives": drives})

    return run


@pytest.mark.parametrize(
    "oracles, needle",
    [
        ([{"checked": 9, "mismatches": 0}, {"checked": 9, "mismatches": 3}],
         "drive drive1: FTL oracle found 3 stale reads of 9 checked"),
        ([{"checked": 9, "mismatches": 0}, None], "drive drive1: the FTL oracle did not run"),
    ],
)  # fmt: skip
def test_verify_verdict_of_a_system_names_the_drive(monkeypatch, capsys, oracles, needle):
    monkeypatch.setattr(ssdlab.api, "run", _fake_run(oracles))
    monkeypatch.setattr(ssdlab.Report, "summary", lambda self: "")
    assert main(["run", "--device", str(SYSTEM), "--verify", "-q"]) == 1
    assert needle in capsys.readouterr().err


def test_verify_in_a_comparison_fails_on_stale_reads(monkeypatch, capsys):
    monkeypatch.setattr(ssdlab.api, "run", _fake_run([{"checked": 5, "mismatches": 1}]))
    monkeypatch.setattr("ssdlab.comparison.rows", lambda reports: [])
    monkeypatch.setattr("ssdlab.comparison.format_table", lambda rows: "")
    assert main(["run", "--device", "tiny-test,dram-ssd", "--verify", "--json", "-"]) == 1
    assert "tiny-test drive drive0: FTL oracle found 1 stale reads" in capsys.readouterr().err


def test_fio_verify_on_a_system(tmp_path):
    job = tmp_path / "v.fio"
    job.write_text("[j]\nrw=randwrite\nbs=4k\nnumber_ios=500\nverify=crc32c\n")
    system = tmp_path / "sys.toml"
    system.write_text(LOCAL_SYSTEM)
    r = _cli("fio", job, "--device", system, "--state", "fresh", "--output-format", "json")
    assert r.returncode == 0, r.stderr
    oracle = json.loads(r.stdout)["ssdlab"]["oracle"]
    assert oracle["checked"] >= 3 * 500 and oracle["mismatches"] == 0


# ---- 3. clear errors instead of tracebacks ------------------------------------------

GRID = """
[base]
device = "tiny-test"
state = "fresh"
workload = { rw = "randread", number_ios = 200 }
[axes]
"workload.iodepth" = [1, 2]
"""


def test_sweep_out_naming_a_file_or_a_dir_whose_runs_is_a_file(tmp_path):
    grid = tmp_path / "g.toml"
    grid.write_text(GRID)
    f = tmp_path / "afile"
    f.write_text("keep")
    _clear_error(_cli("sweep", grid, "--out", f, "-q"), "--out", str(f), "not a directory")
    d = tmp_path / "d"
    d.mkdir()
    (d / "runs").write_text("keep")
    _clear_error(_cli("sweep", grid, "--out", d, "-q"), "--out", "runs in it is not a directory")
    assert f.read_text() == "keep" and (d / "runs").read_text() == "keep"


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["run", "--device", "tiny-test", "--max-memory", "99999999999999999999999T"],
         "--max-memory: '99999999999999999999999T' is too large (at most 2^64-1 bytes"),
        (["run", "--device", "tiny-test", "--max-memory", "16777216T"], "--max-memory"),
        (["probe", "read-cache", "tiny-test", "--quick", "--max-io", str(2**64)],
         f"--max-io: '{2**64}' is too large"),
        (["probe", "read-cache", "tiny-test", "--quick", "--max-io", "2G"],
         "--max-io: 2G is not allowed (a positive multiple of 512 bytes up to 1G"),
        (["probe", "read-cache", "tiny-test", "--quick", "--s-max", "99999999999999999T"],
         "--s-max"),
    ],
)  # fmt: skip
def test_sizes_beyond_64_bits(tmp_path, argv, needle):
    _clear_error(_cli(*argv, cwd=tmp_path), needle)


LONG = "a" * 300


@pytest.mark.parametrize(
    "argv",
    [
        ["run", "--device", "tiny-test", "-q", "--number_ios", "100", "--json", LONG + ".json"],
        ["run", "--device", "tiny-test,dram-ssd", "-q", "--number_ios", "100", "--json", LONG],
        ["run", "--device", "tiny-test", "-q", "--number_ios", "100", "--json", LONG + "/r.json"],
        ["fio", "JOB", "--output", LONG + ".json"],
        ["plot", "timeline", "REPORT", "-o", LONG + ".png"],
        ["sweep", "GRID", "--out", LONG],
        ["probe", "read-cache", "tiny-test", "--quick", "--out", LONG],
        ["probe", "read-cache", "tiny-test", "--quick", "--json", LONG],
    ],
    ids=["json", "json-dir", "json-under", "fio", "plot", "sweep", "probe-out", "probe-json"],
)
def test_a_name_too_long_for_the_file_system(tmp_path, report, argv):
    job = tmp_path / "j.fio"
    job.write_text("[j]\nrw=randread\nnumber_ios=100\n")
    grid = tmp_path / "g.toml"
    grid.write_text(GRID)
    subst = {"JOB": job, "REPORT": report, "GRID": grid}
    err = _clear_error(_cli(*[subst.get(a, a) for a in argv], cwd=tmp_path), "File name too long")
    assert "chars)" in err and len(err) < 300, err  # the name is shortened, not echoed whole
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g.toml", "j.fio"]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    p = tmp_path_factory.mktemp("report") / "r.json"
    assert (
        main(["run", "--device", "tiny-test", "-q", "--number_ios", "3000", "--json", str(p)]) == 0
    )
    return p


def test_plot_with_an_unknown_extension_is_refused_before_reading(tmp_path, report):
    out = tmp_path / "x.unknownext"
    err = _clear_error(_cli("plot", "timeline", "missing.json", "-o", out, cwd=tmp_path))
    assert "'.unknownext' is not an image format (allowed: " in err and "png" in err
    assert not out.exists()
    assert _cli("plot", "lat-cdf", report, "-o", tmp_path / "noext").returncode == 0
    assert (tmp_path / "noext").read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("kind", ["timeline", "lat-cdf", "sweep", "sweep-csv"])
def test_plot_of_a_binary_file(tmp_path, kind):
    data = tmp_path / ("bin.csv" if kind == "sweep-csv" else "bin.dat")
    data.write_bytes(bytes(range(256))[::-1] * 10)
    extra = ["--x", "a", "--y", "b"] if kind.startswith("sweep") else []
    r = _cli("plot", kind.split("-csv")[0], data, *extra, "-o", tmp_path / "p.png")
    _clear_error(r, str(data), "not a text file (byte 0xff at offset 0 is not UTF-8")
    assert not (tmp_path / "p.png").exists()


def test_plot_of_deeply_nested_json(tmp_path):
    data = tmp_path / "deep.json"
    data.write_text("[" * 100_000 + "]" * 100_000)
    _clear_error(_cli("plot", "timeline", data, "-o", tmp_path / "p.png"), str(data))


# ---- 7. symlink loops; errors name the file -------------------------------------------


@pytest.mark.parametrize("cmd", ["run", "fio", "plot", "probe"])
def test_a_loop_of_symlinks_is_refused_not_replaced(tmp_path, report, cmd):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.symlink_to(b.name)
    b.symlink_to(a.name)
    job = tmp_path / "j.fio"
    job.write_text("[j]\nrw=randread\nnumber_ios=100\n")
    argv = {
        "run": ["run", "--device", "tiny-test", "-q", "--number_ios", "100", "--json", a],
        "fio": ["fio", job, "--output", a],
        "plot": ["plot", "timeline", report, "-o", a],
        "probe": ["probe", "read-cache", "tiny-test", "--quick", "--json", a],
    }[cmd]
    _clear_error(_cli(*argv, cwd=tmp_path), str(a), "a loop of symbolic links")
    assert a.is_symlink() and b.is_symlink()


# ---- 8. a plot on a full disk leaves no file ------------------------------------------


def _full_disk(monkeypatch):
    import errno

    from matplotlib.figure import Figure

    def savefig(self, f, **kw):
        f.write(b"\x89PNG partial")
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Figure, "savefig", savefig)


def test_plot_on_a_full_disk_leaves_no_file(tmp_path, report, monkeypatch, capsys):
    pytest.importorskip("matplotlib")
    _full_disk(monkeypatch)
    new, old = tmp_path / "new.png", tmp_path / "old.png"
    old.write_bytes(b"old image")
    for out in (new, old):
        assert main(["plot", "timeline", str(report), "-o", str(out)]) == 2
        err = capsys.readouterr().err
        assert f"--output: {out}: cannot write: No space left on device" in err
        assert "standard output" not in err
    assert not new.exists() and old.read_bytes() == b"old image"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.png"]  # no temporary left


def test_plot_to_dev_full_is_an_error(report):
    r = _cli("plot", "timeline", report, "-o", "/dev/full")
    _clear_error(r, "--output: /dev/full: cannot write: No space left on device")


def test_a_study_plot_on_a_full_disk_names_its_file(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    from ssdlab import outputs
    from ssdlab.studies.common import plot

    _full_disk(monkeypatch)
    png = tmp_path / "s.png"
    with pytest.raises(outputs.OutputError, match=f"--out: {png}: cannot write: No space"):
        plot(png, lambda plt: plt.figure())
    assert list(tmp_path.iterdir()) == []


# ---- 4. a fio include of a named pipe ----------------------------------------------


@pytest.mark.parametrize("target", ["fifo", "link-to-fifo", "/dev/zero"])
def test_fio_include_of_a_non_regular_file_is_refused_not_waited_on(tmp_path, target):
    fifo = tmp_path / "p.fifo"
    os.mkfifo(fifo)
    (tmp_path / "link").symlink_to(fifo.name)
    inc = {"fifo": fifo.name, "link-to-fifo": "link", "/dev/zero": "/dev/zero"}[target]
    job = tmp_path / "j.fio"
    job.write_text(f"[j]\nrw=randread\ninclude {inc}\n")
    r = _cli("fio", job, "--parse-only", timeout=30, cwd=tmp_path)
    kind = "a character device" if target == "/dev/zero" else "a named pipe"
    shown = inc if target == "/dev/zero" else tmp_path / inc  # resolved beside the job file
    _clear_error(r, f"{job}:3: include {shown}: not a regular file ({kind})")


def test_fio_job_file_may_still_be_a_pipe(tmp_path):
    """`ssdlab fio <(...)`: the job file itself is read from a pipe, as before."""
    r = subprocess.run(
        [sys.executable, "-m", "ssdlab", "fio", "/dev/stdin", "--parse-only"],
        input="[j]\nrw=randread\nnumber_ios=100\n",
        capture_output=True,
        text=True,
        timeout=60,
        env=ENV,
    )
    assert r.returncode == 0, r.stderr
    assert "j: randread 4KiB QD1, 100 I/Os" in r.stdout


# ---- 5. fio size beyond the drive ----------------------------------------------------

SIZES = (
    "[big]\nrw=randread\nsize=1p\n"
    "[half]\nrw=randread\nsize=50%\noffset=75%\n"
    "[tail]\nrw=read\nsize=16m\noffset=20m\n"
)


def test_fio_size_beyond_the_drive_is_clamped_as_fio_does_and_said(tmp_path):
    """fio clamps `size` to a block device's size (filesetup.c: o->size = total_size);
    ssdlab did too, silently. Now it says so, naming the job and the maximum."""
    from ssdlab.fio import load_jobfile
    from ssdlab.fio.options import finish

    job = tmp_path / "s.fio"
    job.write_text(SIZES)
    cap = ssdlab.validate("tiny-test")["capacity_bytes"]
    said: list[str] = []
    jobs = finish(load_jobfile(job, max_ios=100), cap, said.append)
    assert [j["size"] for j in jobs] == [f"{cap}B", f"{cap // 4 // 4096 * 4096}B", "4194304B"]
    assert len(said) == 2, said  # the 50 % job is bounded by fio's own rule, silently
    assert (
        f"[big]: size=1p (1,125,899,906,842,624 bytes) is beyond the drive: clamped to {cap:,}"
        in said[0]
    )
    assert (
        "[tail]: size=16m (16,777,216 bytes) is beyond the drive: clamped to 4,194,304" in said[1]
    )
    assert "less offset 20,971,520" in said[1]
    r = _cli("fio", job, "--device", "tiny-test", "--state", "fresh", "--output-format", "terse")
    assert r.returncode == 0, r.stderr
    assert r.stderr.count("is beyond the drive: clamped to") == 2, r.stderr
    assert "s.fio:1: [big]: size=1p" in r.stderr


def test_fio_percent_size_keeps_working(tmp_path):
    job = tmp_path / "p.fio"
    job.write_text("[p]\nrw=randread\nsize=50%\nnumber_ios=100\n")
    r = _cli("fio", job, "--device", "tiny-test", "--state", "fresh", "--output-format", "json")
    assert r.returncode == 0 and "beyond the drive" not in r.stderr, r.stderr
    assert json.loads(r.stdout)["jobs"][0]["read"]["total_ios"] == 100


# ---- 6. fio iolog versions ---------------------------------------------------------

V2_BODY = "/dev/x add\n/dev/x open\n/dev/x read 0 4096\n/dev/x read 8192 4096\n"


@pytest.mark.parametrize(
    "header", ["fio version 1 iolog", "fio version 13 iolog", "fio version 2iolog"]
)
def test_an_iolog_of_another_version_is_refused_as_fio_does(tmp_path, header):
    """fio reads "fio version 2 iolog" and "fio version 3 iolog" logs and refuses the
    rest (iolog.c: "iolog version 1 is no longer supported"); ssdlab read version 1 as
    version 2, and "13" as version 3."""
    log = tmp_path / "x.log"
    log.write_text(f"{header}\n{V2_BODY}")
    job = tmp_path / "r.fio"
    job.write_text(f"[j]\nread_iolog={log}\n")
    for argv in (
        ["trace", log, "--device", "tiny-test", "-q"],
        ["trace", log, "--format", "fio-iolog", "--device", "tiny-test", "-q"],
        ["fio", job, "--parse-only"],
    ):
        _clear_error(_cli(*argv), f"'{header}': not an iolog version fio reads")
    with pytest.raises(ssdlab.ConfigError, match="not an iolog version fio reads"):
        ssdlab.trace_workload(str(log))
    with pytest.raises(ssdlab.ConfigError, match="not an iolog version fio reads"):
        ssdlab.trace_stats(str(log), "fio-iolog")


def test_an_iolog_without_a_header_is_refused_when_named_fio_iolog(tmp_path):
    log = tmp_path / "v1.log"
    log.write_text("/dev/x read 0 4096\n/dev/x write 4096 4096\n")
    r = _cli("trace", log, "--format", "fio-iolog", "--device", "tiny-test", "-q")
    _clear_error(r, "no iolog header on the first line", "'fio version 2 iolog'")


@pytest.mark.parametrize("version", [2, 3])
def test_iolog_versions_2_and_3_still_replay(tmp_path, version):
    body = (
        V2_BODY
        if version == 2
        else "".join(f"{i} {ln}\n" for i, ln in enumerate(V2_BODY.splitlines()))
    )
    log = tmp_path / "x.log"
    log.write_text(f"fio version {version} iolog\n{body}")
    s = ssdlab.trace_stats(str(log))
    assert s["format"] == "fio-iolog" and s["requests"] == 2


# ---- 9. errors do not echo huge values -------------------------------------------------

BIG = "9" * 100_000  # a command-line argument (the kernel caps one at 128 KiB)
HUGE = "x" * 5_000_000  # in a file or through the Python API


@pytest.mark.parametrize(
    "argv, needle",
    [
        (["run", "--device", "tiny-test", "--set", f"nand.t_prog={BIG}"], "nand.t_prog: '999"),
        (["run", "--device", "tiny-test", "--set", f"nand.x{BIG}=1"], "nand.x999"),
        (["run", "--device", "tiny-test", "--rw", f"x{BIG}"], "rw"),
        (["run", "--device", "tiny-test", "--state", f"x{BIG}"], "--state: invalid choice"),
        (["run", "--device", "tiny-test", "--workload", f"x{BIG}"], "--workload"),
        (["validate", f"x{BIG}"], "device"),
        (["sweep", f"x{BIG}"], "sweep"),
        (["run", "--device", "tiny-test", "--max-memory", BIG], "--max-memory"),
    ],
    ids=["set-value", "set-key", "rw", "state", "workload", "validate", "sweep", "max-memory"],
)
def test_errors_do_not_echo_a_huge_argument(argv, needle):
    err = _clear_error(_cli(*argv), needle)
    assert len(err) < 1000 and "chars)" in err, err[:2000]


def test_errors_do_not_echo_a_huge_value_from_a_file(tmp_path):
    wl = tmp_path / "wl.json"
    wl.write_text(json.dumps({"rw": HUGE}))
    spaced = tmp_path / "spaced.json"
    spaced.write_text(json.dumps({"rw": "a " * 2_500_000}))
    dev = tmp_path / "dev.toml"
    dev.write_text(f'name = "d"\n[nand]\nt_prog = "{HUGE}"\n')
    for argv, needle in (
        (["run", "--device", "tiny-test", "--workload", wl], "rw: 'xxx"),
        (["run", "--device", "tiny-test", "--workload", spaced], "rw: 'a a a"),
        (["validate", dev], "t_prog"),
    ):
        err = _clear_error(_cli(*argv), needle, " chars)")
        assert len(err) < 1000, err[:2000]


@pytest.mark.parametrize(
    "call",
    [
        lambda: ssdlab.run("tiny-test", set={"nand.t_prog": HUGE}),
        lambda: ssdlab.run("tiny-test", {"rw": HUGE}),
        lambda: ssdlab.run("tiny-test", {HUGE: 1}),
        lambda: ssdlab.run("tiny-test", HUGE),
        lambda: ssdlab.run(HUGE),
        lambda: ssdlab.validate("tiny-test", set=[f"nand.t_read={HUGE}"]),
        lambda: ssdlab.run("tiny-test", {"rw": "a " * 2_500_000}),
        lambda: ssdlab.named_workload(HUGE),
    ],
    ids=["set", "workload-value", "workload-key", "workload-name", "device", "validate",
         "spaced", "named"],
)  # fmt: skip
def test_api_errors_do_not_echo_a_huge_value(call):
    with pytest.raises(ssdlab.ConfigError) as e:
        call()
    assert len(str(e.value)) <= 2000 and "chars)" in str(e.value), str(e.value)[:3000]


def test_clip_message_is_idempotent_and_leaves_short_messages_alone():
    from ssdlab.api import clip_message

    short = "nand.t_read: '60' has no unit"
    assert clip_message(short) is short
    once = clip_message("x: " + "ab " * 5000)
    assert len(once) == 2000 and once.endswith("… (message of 15,003 chars)")
    assert clip_message(once) is once


# ---- 10. the Python API raises ConfigError for every bad argument ---------------------


def _deep(n=100_000, key="a"):
    root = node = {}
    for _ in range(n):
        node[key] = node = {}
    return root


def _deep_list(n=100_000):
    root = node = []
    for _ in range(n):
        node.append([])
        node = node[0]
    return root


class _NoText:
    def __str__(self):
        raise ValueError("no text")

    def __repr__(self):
        return "_NoText()"


HOSTILE = [
    ("deep-device", lambda: ssdlab.run(_deep()), "device: a.a.a"),
    ("deep-workload", lambda: ssdlab.run("tiny-test", _deep()), "workload: a.a.a"),
    ("deep-option", lambda: ssdlab.run("tiny-test", {"rw": _deep()}), "workload: rw.a.a"),
    ("deep-list", lambda: ssdlab.run("tiny-test", {"bs": _deep_list()}), "workload: bs[0][0]"),
    ("deep-validate", lambda: ssdlab.validate(_deep()), "device: a.a"),
    ("deep-vworkload", lambda: ssdlab.validate_workload(_deep(), 1 << 30), "workload: a.a"),
    ("deep-set", lambda: ssdlab.run("tiny-test", set={"nand.t_read": _deep()}), "nand.t_read"),
    ("deep-compare", lambda: ssdlab.compare(["tiny-test"], _deep()), "workload: a.a"),
    ("deep-sweep", lambda: ssdlab.sweep({"base": {"workload": _deep()}}), "grid: base.workload"),
    ("int-key-workload", lambda: ssdlab.run("tiny-test", {1: 2}), "workload: key 1 is an int"),
    ("tuple-key-device", lambda: ssdlab.run({"nand": {(1,): 2}}), "device: nand: key (1,)"),
    ("int-key-set", lambda: ssdlab.run("tiny-test", set={1: 2}), "set: key 1 is an int"),
    ("set-int", lambda: ssdlab.run("tiny-test", set=5), "set: an int is not allowed"),
    ("set-list-of-int", lambda: ssdlab.run("tiny-test", set=[1]), "set: 1 is an int"),
    ("set-no-text", lambda: ssdlab.run("tiny-test", set={"nand.t_read": _NoText()}),
     "nand.t_read: a _NoText is not allowed"),
    ("workload-no-text", lambda: ssdlab.run("tiny-test", {"rw": _NoText()}),
     "workload: rw: a _NoText is not allowed"),
    ("workload-bytes", lambda: ssdlab.run("tiny-test", {"rw": b"read"}), "workload: rw: a bytes"),
    ("nan-device", lambda: ssdlab.run({"nand": {"t_read": float("nan")}}), "device: nand.t_read"),
    ("inf-jobs", lambda: ssdlab.run("tiny-test", {"jobs": [{"iodepth": math.inf}]}),
     "workload: jobs[0].iodepth: inf"),
    ("nan-sweep", lambda: ssdlab.sweep({"axes": {"seed": [math.nan]}}), "grid: axes.seed[0]"),
    ("huge-int", lambda: ssdlab.run("tiny-test", {"iodepth": 10**100}), "iodepth"),
    ("huge-int-device", lambda: ssdlab.run({"name": "x", "nand": {"channels": 10**100}}),
     "nand.channels"),
    ("device-name-too-long", lambda: ssdlab.run("x" * 5000), "device: 'xxx"),
    ("state-list", lambda: ssdlab.run("tiny-test", state=["full"]), "state"),
    ("run-many-int", lambda: ssdlab.run_many(5), "run_many: runs: an int is not allowed"),
    ("compare-int", lambda: ssdlab.compare(5), "devices: an int is not allowed"),
    ("trace-path-list", lambda: ssdlab.trace_workload([1]), "path: [1]"),
    ("trace-speedup-nan", lambda: ssdlab.trace_workload("t.csv", speedup=math.nan), "speedup"),
]  # fmt: skip


@pytest.mark.parametrize("call, field", [h[1:] for h in HOSTILE], ids=[h[0] for h in HOSTILE])
def test_api_raises_config_error_naming_the_field(call, field):
    with pytest.raises(ssdlab.ConfigError) as e:
        call()
    assert field in str(e.value), str(e.value)[:500]


def test_api_takes_one_override_text_and_one_device_name():
    """`set="k=v"` is one override (it was split into its letters) and `compare("A")`
    one device (it was one per letter)."""
    r = ssdlab.run("tiny-test", {"number_ios": 100}, state="fresh", set="nand.t_read=60us")
    assert r["config"]["nand"]["t_read"] in ("60us", ["60us"], "60000ns")
    pd = pytest.importorskip("pandas")
    df = ssdlab.compare("tiny-test", {"number_ios": 100}, state="fresh")
    assert isinstance(df, pd.DataFrame) and set(df["device"]) == {"tiny-test"}


def test_presets_show_refuses_a_system_file():
    """It printed each drive's config as one Python repr string in a TOML list."""
    _clear_error(_cli("presets", "--show", SYSTEM), "a system file, not a device", "validate")
