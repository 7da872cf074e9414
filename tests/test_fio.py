"""fio job files in, fio formats out: every example job file either runs or is rejected
with a one-line reason; ssdlab's JSON has every key of real fio 3.33 output with the same
type; the parser follows fio's syntax and never fails with anything but a clear error."""

import json
import random
import re
import subprocess
from pathlib import Path

import pytest
import ssdlab
from ssdlab.cli import main
from ssdlab.fio import JobFileError, Unsupported, load_jobfile, parse_text, run_jobfile
from ssdlab.fio.options import finish, resolve

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
JOBS = SHARED / "fio-jobs"
SAMPLES = SHARED / "fio-json"
needs_shared = pytest.mark.skipif(not JOBS.is_dir(), reason="../shared/data is not present")


def kind(v):
    for t, name in ((dict, "dict"), (list, "list"), (str, "str"), (bool, "bool")):
        if isinstance(v, t):
            return name
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    return type(v).__name__


def missing_or_mistyped(ref, ours, path="$"):
    """Keys of `ref` absent from `ours` or of another JSON type (recursively)."""
    out = []
    if kind(ref) != kind(ours):
        return [f"{path}: {kind(ref)} in fio, {kind(ours)} in ssdlab"]
    if isinstance(ref, dict):
        dynamic = path.endswith(("bins", "percentile"))  # keys are values there
        for k, v in ref.items():
            if dynamic:
                v2 = next(iter(ours.values()), None) if ours else None
                if v2 is not None and kind(v) != kind(v2):
                    out.append(f"{path}.*: {kind(v)} in fio, {kind(v2)} in ssdlab")
                break
            if k not in ours:
                out.append(f"{path}.{k}: missing")
            else:
                out += missing_or_mistyped(v, ours[k], f"{path}.{k}")
    elif isinstance(ref, list) and ref and ours:
        out += missing_or_mistyped(ref[0], ours[0], f"{path}[0]")
    return out


@needs_shared
@pytest.mark.parametrize(
    "sample,plus", [("randrw70-4k.json", False), ("randread4k.json+.json", True)]
)
def test_json_has_every_fio_key_with_its_type(sample, plus):
    ref = json.loads((SAMPLES / sample).read_text())
    job = SAMPLES / (sample.split(".json")[0] + ".fio")
    ours = run_jobfile(job, device="tiny-test", max_ios=3000, plus=plus)
    problems = missing_or_mistyped(ref, ours)
    assert not problems, "\n".join(problems)
    assert "ssdlab" in ours and "waf" in ours["ssdlab"]
    r = ours["jobs"][0]["read"]
    assert r["total_ios"] > 0 and set(r["clat_ns"]["percentile"]) == set(
        ref["jobs"][0]["read"]["clat_ns"]["percentile"]
    )
    if plus:
        assert sum(r["clat_ns"]["bins"].values()) == r["total_ios"]


# The example files real fio 3.33 parses (`fio --parse-only`, Debian's fio 3.33); every one
# that uses a block I/O engine and no zoned namespace must be accepted.
FIO_333_PARSES = set("""
1mbs_clients aio-read backwards-read basic-verify butterfly cmdprio-bssplit cmdprio-percentage
cpp_null cpuio cross-stripe-verify dedupe-global dev-dax dircreate-ioengine dirdelete-ioengine
dirstat-ioengine disk-zone-profile e4defrag e4defrag2 enospc-pressure exec exitwhat falloc
filecreate-ioengine filedelete-ioengine filestat-ioengine fio-rand-RW fio-rand-read
fio-rand-write fio-seq-RW fio-seq-read fio-seq-write fixed-rate-submission flow fsx ftruncate
gfapi ime iometer-file-access-server jesd219 latency-profile libhdfs libiscsi libpmem
libzbc-rand-write libzbc-seq-read mtd netio netio_multicast null numa page_fault
poisson-rate-submission rados rand-zones rbd sg_verify-fail sg_verify sg_write_same_ndob
ssd-steadystate ssd-test steadystate surface-scan tiobench-example uring-cmd-ng uring-cmd-zoned
waitfor zbd-rand-write-trim-gc zbd-rand-write-zone-reset-gc zbd-rand-write zbd-seq-read zipf
""".split())
# Values for the environment variables some examples expect (their comments suggest them).
EXAMPLE_ENV = {
    "uri": "nbd+unix:///?socket=/tmp/ssdlab.sock", "FIO_BS": "4096", "FIO_RW": "randread",
    "FIO_IODEPTH": "16", "FIO_DIR": "/tmp",
}  # fmt: skip (the others: "x")


def _outcome(f, cap):
    """(kind, text, job file) of `ssdlab fio --parse-only` with the default drive:
    accepted / warned (accepted, with no-effect warnings) / refused / error; the text of an
    accepted file is why it does not fit the drive, if it does not."""
    try:
        jf = load_jobfile(f, max_ios=300)
        finish(jf, cap)
    except Unsupported as e:
        return "refused", str(e), None
    except JobFileError as e:
        if "jf" in locals():
            return ("warned" if jf.warnings else "accepted"), str(e), jf
        return "error", str(e), None
    return ("warned" if jf.warnings else "accepted"), "", jf


@needs_shared
def test_every_example_job_file_is_accepted_or_refused_with_a_reason(monkeypatch):
    files = sorted(JOBS.glob("*.fio"))
    assert len(files) == 107
    # --parse-only checks against the default drive; runs use tiny-test when they fit.
    cap = ssdlab.validate("client-tlc-dram")["capacity_bytes"]
    tiny = ssdlab.validate("tiny-test")["capacity_bytes"]
    out, env_needed, ran = {}, {}, []
    for f in files:
        kind, msg, jf = _outcome(f, cap)
        if kind in ("refused", "error"):
            # One line naming the file and line, the option and why.
            assert "\n" not in msg and re.match(rf"{re.escape(str(f))}:\d+: \S", msg), msg
        if kind == "error":
            var = msg.split("${", 1)[1].split("}", 1)[0] if "${" in msg else None
            assert var and "environment variable is not set" in msg, f"unclear outcome: {msg}"
            with monkeypatch.context() as m:
                for k in set(re.findall(r"\$\{(\w+)\}", f.read_text())):
                    m.setenv(k, EXAMPLE_ENV.get(k, "x"))
                kind2, msg2, jf = _outcome(f, cap)
            assert kind2 != "error", msg2
            env_needed[f.name] = (var, kind2, msg2)
            kind, msg = kind2, msg2
        out[f.name] = (kind, msg, jf)
        if jf is not None:
            try:
                jobs = finish(jf, tiny)
            except JobFileError:
                continue  # e.g. offset_increment=124g: needs a larger drive than tiny-test
            # FDP jobs (fdp_pli up to 6) on tiny-test with 8 handles and room for them.
            fdp = {"fdp.handles": 8, "nand.blocks_per_plane": 64}
            setv = fdp if any("fdp" in j for j in jobs) else None
            r = ssdlab.run("tiny-test", {"jobs": jobs}, state="fresh", verify=jf.verify, set=setv)
            assert len(r["jobs"]) == sum(int(j.spec.get("numjobs", 1)) for j in jf.jobs)
            ran.append(f.name)
    accepted = [n for n, (k, _, _) in out.items() if k == "accepted"]
    warned = [n for n, (k, _, _) in out.items() if k == "warned"]
    refused = {n: m.split(": ", 1)[-1] for n, (k, m, _) in out.items() if k == "refused"}
    reasons: dict[str, int] = {}
    for why in refused.values():
        parts = why.split(": ")
        key = (parts[1] if parts[0].startswith("[") else parts[0]).split("=")[0]  # the option
        if "not block I/O" in why:
            key = "engine not block I/O"
        elif "zoned drive" in why:
            key = "needs a zoned drive"
        reasons[key] = reasons.get(key, 0) + 1
    why_text = ", ".join(f"{k} {v}" for k, v in sorted(reasons.items(), key=lambda x: -x[1]))
    summary = (
        f"fio example job files: 107: {len(accepted) + len(warned)} accepted "
        f"({len(warned)} with no-effect warnings), {len(refused)} refused ({why_text}); "
        f"{len(env_needed)} need environment variables (judged with them set); "
        f"{len(ran)} ran on tiny-test"
    )
    print("\n" + summary)
    for name in sorted(out):
        kind, msg, jf = out[name]
        env = f" [needs ${{{env_needed[name][0]}}}]" if name in env_needed else ""
        if kind == "refused":
            print(f"  refused  {name}{env}: {msg.split(': ', 1)[1]}")
        else:
            opts = ", ".join(w.split(": ")[1] for w in jf.warnings)
            big = f" [does not fit client-tlc-dram: {msg.split(': ', 2)[2]}]" if msg else ""
            print(f"  {kind:8} {name}{env}{big}" + (f" (no effect: {opts})" if opts else ""))
    assert len(out) == 107
    # Every example real fio 3.33 parses is accepted by --parse-only (load_jobfile) unless
    # it is not block I/O: 47 of them, the 8 zoned ones too (issue 27); of those, a run is
    # refused only for one that needs a zoned drive's own zone size (uring-cmd-zoned).
    parsed = []
    for name in FIO_333_PARSES:
        kind, msg, _ = out[name + ".fio"]
        if kind == "refused":
            assert "ioengine=" in msg or "zoned drive" in msg, f"{name}: {msg}"
        if "ioengine=" not in msg:
            parsed.append(name)
    assert len(parsed) == 47, sorted(parsed)
    for name in ("zbd-rand-write", "zbd-seq-read", "libzbc-rand-write", "disk-zone-profile"):
        assert out[name + ".fio"][0] in ("accepted", "warned"), out[name + ".fio"][1]
    assert len(accepted) + len(warned) >= 50
    for must in ("fio-rand-read.fio", "ssd-test.fio", "zipf.fio", "nbd.fio", "flow.fio"):
        assert out[must][0] in ("accepted", "warned"), (must, out[must][1])


def test_parser_follows_fio_syntax(monkeypatch, tmp_path):
    monkeypatch.setenv("SSDLAB_TEST_DEPTH", "8")
    text = """
; a comment
# another
[global]
bs=4k,16k
iodepth=${SSDLAB_TEST_DEPTH}
time_based
runtime=2
size=1g

[a]
rw=randread:4     ; trailing comment
kb_base=1000
offset=512k

[b]
stonewall
rw=write:8k
thinktime=50
rate_iops=100,200
bssplit=4k/50:8k/30:64k
"""
    jf = resolve(parse_text(text, "t.fio"))
    a, b = jf.jobs
    assert a.spec["iodepth"] == 8 and a.spec["bs"] == "4096B" and a.spec["bs_write"] == "16384B"
    assert a.spec["random_run"] == 4 and a.spec["offset"] == "512000B"
    assert a.spec["runtime"] == "2000000000ns" and a.spec["group"] == 0
    assert b.spec["group"] == 1 and b.spec["seq_skip"] == "8192B"
    assert b.spec["thinktime"] == "50000ns" and b.spec["rate_iops"] == 200
    assert b.spec["bssplit"] == [["4096B", 50], ["8192B", 30], ["65536B", 20]]
    assert jf.global_opts["time_based"] is None
    jobs = finish(jf, 10 << 30)
    assert jobs[0]["size"] == f"{1 << 30}B" and "io_size" not in jobs[0]


@pytest.mark.parametrize(
    "text,want",
    [
        ("bs=4k\n", "t.fio:1: 'bs=4k': option outside any section"),
        ("[j]\nbs=4 furlongs\n", "t.fio:2: bs=4 furlongs: expected a size"),
        ("[j]\nrw=sideways\n", "t.fio:2: rw=sideways: unknown pattern"),
        ("[j]\nfrobnicate=1\n", "t.fio:2: frobnicate: unknown or unsupported fio option"),
        ("[j]\nruntime=5 fortnights\n", "t.fio:2: runtime=5 fortnights: expected a time"),
        (
            "[j]\niodepth=${SSDLAB_UNSET_VAR}\n",
            "t.fio:2: ${SSDLAB_UNSET_VAR}: environment variable",
        ),
        ("[j\n", "t.fio:1: '[j': expected a section header"),
        ("[j]\nioengine=http\n", "t.fio:2: ioengine=http: does HTTP object storage"),
        ("[j]\nzonemode=weird\n", "t.fio:2: zonemode=weird: allowed: none, strided, zbd"),
        ("[j]\nzonemode=none\nzonesize=1m\n", "t.fio:2: [j]: zonemode=none and zonesize"),
        ("[j]\nzonemode=strided\n", "t.fio:2: [j]: zonemode=strided needs zonesize"),
        ("[j]\nzone_reset_threshold=2\n", "t.fio:2: zone_reset_threshold=2"),
        ("[j]\nplid_select=best\n", "t.fio:2: plid_select=best: allowed: random"),
        (
            "[a]\nzonemode=zbd\nzonesize=1m\n[b]\nzonemode=zbd\nzonesize=2m\n",
            "t.fio:4: [b]: zonesize, zonecapacity and max_open_zones must be those of [a]",
        ),
    ],
)
def test_bad_job_files_name_file_line_and_text(text, want):
    with pytest.raises(JobFileError) as e:
        resolve(parse_text(text, "t.fio"))
    assert str(e.value).startswith(want), str(e.value)
    if "ioengine=http" in text:
        assert isinstance(e.value, Unsupported)


@needs_shared
def test_fuzzed_job_files_only_ever_give_clear_errors():
    """Mutated example job files: parse + resolve either works or raises JobFileError."""
    rng = random.Random(20261122)
    corpus = [f.read_text() for f in sorted(JOBS.glob("*.fio"))]
    junk = [
        "=",
        "[",
        "]",
        ";",
        "#",
        "${",
        "}",
        ":",
        ",",
        "%",
        "-",
        "k",
        "4",
        "\n",
        " ",
        "\x00",
        "é",
    ]
    tried = 0
    for _ in range(3000):
        text = list(rng.choice(corpus))
        for _ in range(rng.randint(1, 8)):
            op = rng.random()
            pos = rng.randrange(len(text) + 1)
            if op < 0.4:
                text.insert(pos, rng.choice(junk))
            elif op < 0.7 and text:
                del text[min(pos, len(text) - 1)]
            elif text:
                text[min(pos, len(text) - 1)] = rng.choice(junk)
        try:
            jf = resolve(parse_text("".join(text), "fuzz.fio"), max_ios=100)
            finish(jf, 1 << 30)
        except JobFileError:
            pass
        tried += 1
    assert tried == 3000


@needs_shared
def test_cli_formats_and_parse_only(tmp_path, capsys):
    job = str(JOBS / "fio-rand-read.fio")
    assert main(["fio", job, "--parse-only"]) == 0
    err = capsys.readouterr().err
    assert "not simulated: direct, filename, ioengine" in err
    assert "fio-rand-read.fio:8: direct: no effect on the simulation" in err
    assert (
        main(["fio", job, "--device", "tiny-test", "--max-ios", "2000", "--output-format=terse"])
        == 0
    )
    fields = capsys.readouterr().out.strip().split(";")
    assert len(fields) == 130 and fields[:3] == ["3", "fio-3.33", "fio-rand-read"]
    out = tmp_path / "o.txt"
    assert (
        main(["fio", job, "--device", "tiny-test", "--max-ios", "2000", "--output", str(out)]) == 0
    )
    text = out.read_text()
    assert "Run status group 0 (all jobs):" in text and "clat percentiles (usec):" in text
    assert main(["fio", job, "--output-format", "xml"]) == 2
    assert "--output-format: 'xml' is not a format" in capsys.readouterr().err
    assert main(["fio", str(tmp_path / "nope.fio")]) == 2
    assert "cannot read job file" in capsys.readouterr().err


def _jf(text, tmp_path=None):
    return resolve(parse_text(text, "t.fio"))


def test_ranges_and_per_direction_sizes_take_every_fio_spelling():
    a = _jf("[j]\nrw=randrw\nbs=4k:64k\n").jobs[0].spec
    assert a["bs"] == "4096B" and a["bs_write"] == "65536B"
    b = _jf("[j]\nrw=randread\nbsrange=512:1M\n").jobs[0].spec
    assert b["bsrange"] == ["512B", f"{1 << 20}B"]
    c = _jf("[j]\nrw=randwrite\nbsrange=4k-64k,8k:16k\n").jobs[0].spec
    assert c["bsrange"] == ["8192B", "16384B"]  # the write range for a writing job
    want = re.escape("t.fio:3: bsrange=4k-64k,8k:16k: different read")
    with pytest.raises(Unsupported, match=want):
        _jf("[j]\nrw=randrw\nbsrange=4k-64k,8k:16k\n")
    assert _jf("[j]\nbs=0x2000\n").jobs[0].spec["bs"] == "8192B"
    d = _jf("[j]\nrw=read:-8k\nbs=4k\n").jobs[0].spec
    assert d["seq_skip_back"] == "8192B" and "seq_skip" not in d


def test_trimwrite_backwards_startdelay_poisson_fill_and_offset_increment_run():
    jf = _jf(
        "[tw]\nrw=trimwrite\nnumber_ios=200\n"
        "[back]\nstonewall\nrw=read:-8k\nbs=4k\nnumber_ios=50\nstartdelay=1\n"
        "[p]\nstonewall\nrw=randread\nrate_iops=2000\nrate_process=poisson\nruntime=1\n"
        "[fill]\nstonewall\nrw=write\nbs=64k\nfill_device=1\noffset=50%\n"
        "[inc]\nstonewall\nrw=write\nsize=1m\noffset_increment=4m\nnumjobs=3\nnumber_ios=8\n"
    )
    cap = ssdlab.validate("tiny-test")["capacity_bytes"]
    jobs = finish(jf, cap)
    assert [j["offset"] for j in jobs[-3:]] == ["0B", f"{4 << 20}B", f"{8 << 20}B"]
    fill = jobs[3]
    assert int(fill["size"][:-1]) == cap - int(fill["offset"][:-1])
    r = ssdlab.run("tiny-test", {"jobs": jobs}, state="fresh").to_dict()
    tw, back, p, fl = r["jobs"][:4]
    assert tw["trim"]["total_ios"] == tw["write"]["total_ios"] == 100
    assert back["read"]["total_ios"] == 50
    assert 1800 < p["read"]["total_ios"] < 2200  # Poisson arrivals at 2000/s for 1 s
    assert fl["write"]["io_bytes"] == int(fill["size"][:-1])


def test_rate_is_bytes_per_second_as_in_fio():
    # fio 3.33: rate=1250 is 1250 bytes/s (0.3 I/Os per second at 4 KiB).
    jf = _jf("[j]\nrw=read\nrate=40k\ntime_based\nruntime=10\n")
    r = ssdlab.run("tiny-test", {"jobs": finish(jf, 1 << 24)}, state="fresh")
    assert 95 <= r["jobs"][0]["read"]["total_ios"] <= 101  # 10 I/Os per second


def test_write_iolog_is_fios_version_3_with_issue_times_and_replays(tmp_path):
    # QD1 at rate_iops=1000: one I/O every 1000 us, so the log's times (us) are 0, 1000,
    # 2000, ... as fio 3.33 writes them; the verify pass's reads follow the writes.
    log = tmp_path / "out.iolog"
    job = tmp_path / "j.fio"
    job.write_text(
        f"[j]\nrw=randrw\nbs=4k\nnumber_ios=500\nrate_iops=1000\nramp_time=100ms\n"
        f"write_iolog={log}\n"
    )
    doc = run_jobfile(job, device="tiny-test")
    lines = log.read_text().splitlines()
    assert lines[:3] == ["fio version 3 iolog", "0 j add", "0 j open"]
    assert lines[-1].endswith(" j close")
    rows = [ln.split() for ln in lines[3:-1]]
    times = [int(r[0]) for r in rows]
    assert times[:4] == [0, 1000, 2000, 3000] and times == sorted(times)
    j = doc["jobs"][0]
    ops = [r[2] for r in rows]
    # The ramp's I/Os are in the log (fio logs them too), not in the statistics.
    assert len(rows) == 500
    assert ops.count("read") >= j["read"]["total_ios"] and ops.count("write") >= j["write"][
        "total_ios"
    ]
    from ssdlab.trace import trace_stats

    st = trace_stats(str(log))  # ssdlab trace reads it back, at fio's microseconds
    assert st["requests"] == 500
    job.write_text(f"[r]\nread_iolog={log}\n")
    again = run_jobfile(job, device="tiny-test")["jobs"][0]
    assert again["read"]["total_ios"] + again["write"]["total_ios"] == 500
    assert 495 <= again["job_runtime"] <= 505  # replayed at the logged times


@pytest.mark.skipif(
    subprocess.run(["sh", "-c", "command -v fio"], capture_output=True).returncode != 0,
    reason="fio is not installed",
)
def test_real_fio_replays_the_write_iolog_at_its_times(tmp_path):
    log = tmp_path / "j.iolog"
    job = tmp_path / "j.fio"
    job.write_text(
        f"[j]\nrw=randrw\nbs=4k\nnumber_ios=500\nrate_iops=2000\nfsync=50\nwrite_iolog={log}\n"
    )
    ours = run_jobfile(job, device="tiny-test")["jobs"][0]
    r = subprocess.run(
        ["fio", "--name=r", "--ioengine=null", f"--read_iolog={log}", "--output-format=json"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path,  # fio's files stay there
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    theirs = json.loads(r.stdout[r.stdout.index("{") :])["jobs"][0]
    for d in ("read", "write", "sync"):
        assert theirs[d]["total_ios"] == ours[d]["total_ios"], d
    # 500 I/Os at 2000 IOPS: 250 ms in both (fio sleeps to the logged microseconds;
    # 252 ms on an idle machine, later when it is loaded, never sooner).
    assert ours["job_runtime"] - 5 <= theirs["job_runtime"] <= 3 * ours["job_runtime"]


def test_fsync_and_end_fsync_issue_flushes_that_wait_for_nand(tmp_path):
    # tiny-test: a stripe holds 8 x 4 KiB, tPROG is 600 us. Every 5 sequential writes a
    # flush pads the open stripe and waits for its program. As fio: a flush before the
    # 6th, 11th, ... 36th write, none after the last; end_fsync's is not in `sync`.
    log = tmp_path / "f.iolog"
    job = tmp_path / "f.fio"
    job.write_text(
        f"[j]\nrw=write\nbs=4k\nnumber_ios=40\nfsync=5\nend_fsync=1\nwrite_iolog={log}\n"
    )
    assert "a flush every 5 writes, a flush at the end" in load_jobfile(job).jobs[0].describe()
    j = run_jobfile(job, device="tiny-test")["jobs"][0]
    assert j["sync"]["total_ios"] == 7
    assert j["sync"]["lat_ns"]["min"] >= 600_000
    ops = [ln.split()[2] for ln in log.read_text().splitlines()[3:-1]]
    assert ops.count("sync") == 8 and ops[-1] == "sync" and ops[5] == "sync"
    job.write_text("[j]\nrw=write\nbs=4k\nnumber_ios=40\nend_fsync\n")
    assert run_jobfile(job, device="tiny-test")["jobs"][0]["sync"]["total_ios"] == 0
    job.write_text("[j]\nrw=write\nbs=4k\nnumber_ios=40\n")
    assert run_jobfile(job, device="tiny-test")["jobs"][0]["sync"]["total_ios"] == 0
    assert "fsync" not in load_jobfile(job).not_simulated


def test_verify_reads_back_what_the_job_wrote(tmp_path):
    log = tmp_path / "v.iolog"
    job = tmp_path / "v.fio"
    job.write_text(
        f"[j]\nrw=randwrite\nbs=4k\nsize=1m\niodepth=4\nverify=crc32c\nwrite_iolog={log}\n"
    )
    doc = run_jobfile(job, device="tiny-test")
    j = doc["jobs"][0]
    rows = [ln.split() for ln in log.read_text().splitlines()[3:-1]]
    writes = [int(r[3]) for r in rows if r[2] == "write"]
    reads = [int(r[3]) for r in rows if r[2] == "read"]
    assert j["write"]["total_ios"] == len(writes) == 256  # size=1m in 4 KiB blocks
    # Each block written, read back once, by offset, after every write.
    assert reads == sorted(set(writes)) and j["read"]["total_ios"] == len(reads)
    assert rows.index(next(r for r in rows if r[2] == "read")) == len(writes)
    assert doc["ssdlab"]["oracle"]["mismatches"] == 0
    job.write_text("[j]\nrw=randwrite\nbs=4k\nsize=1m\nverify=crc32c\ndo_verify=0\n")
    assert run_jobfile(job, device="tiny-test")["jobs"][0]["read"]["total_ios"] == 0
    job.write_text("[j]\nrw=write\nbs=4k\nsize=1m\nverify=md5\ntime_based\nruntime=1\n")
    j = run_jobfile(job, device="tiny-test")["jobs"][0]
    assert j["read"]["total_ios"] == 0  # the runtime is used up: no time left to verify


def test_rate_iops_min_ends_the_job_after_a_cycle_below_it(tmp_path, capsys):
    # Paced at 1000 IOPS with a minimum of 1500: checked from 2 s, every ratecycle (1 s):
    # the first cycle below it ends at 3 s, and the job with it (error 5, as fio).
    job = tmp_path / "r.fio"
    job.write_text(
        "[j]\nrw=randread\nrate_iops=1000\nrate_iops_min=1500\ntime_based\nruntime=10\n"
    )
    doc = run_jobfile(job, device="tiny-test")
    j = doc["jobs"][0]
    assert j["error"] == 5 and j["job_runtime"] == 3000
    assert abs(j["read"]["total_ios"] - 3000) <= 2
    assert doc["ssdlab"]["rate_min_not_met"] == ["j"]
    assert "j: rate_iops_min=1500 not met, got 1000 IOPS" in capsys.readouterr().err
    job.write_text(
        "[j]\nrw=randread\nrate_iops=1000\nrate_min=1m\nratecycle=2000\ntime_based\n"
        "runtime=10\n"
    )
    j = run_jobfile(job, device="tiny-test")["jobs"][0]  # 4 MB/s meets 1 MiB/s
    assert j["error"] == 0 and j["job_runtime"] == 10_000


def test_exitall_ends_every_job_when_the_first_ends(tmp_path):
    job = tmp_path / "x.fio"
    job.write_text(
        "[global]\nexitall\nrate_iops=1000\n[a]\nrw=randread\nnumber_ios=500\n"
        "[b]\nrw=randread\ntime_based\nruntime=5\n[c]\nstonewall\nrw=randwrite\n"
        "number_ios=100\n"
    )
    doc = run_jobfile(job, device="tiny-test")
    a, b, c = doc["jobs"]
    assert abs(a["job_runtime"] - 500) <= 1 and abs(b["job_runtime"] - a["job_runtime"]) <= 1
    assert c["write"]["total_ios"] == 0 and c["job_runtime"] == 0
    assert doc["ssdlab"]["exitall_not_started"] == ["c"]


def test_latency_run_keeps_the_job_at_the_depth_found(tmp_path):
    job = tmp_path / "lt.fio"
    base = (
        "[j]\nrw=randread\niodepth=8\ntime_based\nruntime=2\nlatency_target=1s\n"
        "latency_window=200ms\n"
    )
    job.write_text(base)
    ends = run_jobfile(job, device="tiny-test")["jobs"][0]
    job.write_text(base + "latency_run=1\n")
    runs = run_jobfile(job, device="tiny-test")["jobs"][0]
    assert ends["latency_depth"] == runs["latency_depth"] == 8
    assert ends["job_runtime"] == 200 and runs["job_runtime"] == 2000


def test_steady_state_stops_the_job_and_reports_fios_keys(tmp_path):
    job = tmp_path / "ss.fio"
    job.write_text(
        "[j]\nrw=randread\nrate_iops=500\ntime_based\nruntime=30\nss=iops:5%\nss_dur=3\n"
        "ss_ramp=1\n"
    )
    doc = run_jobfile(job, device="tiny-test")
    j = doc["jobs"][0]
    ss = j["steadystate"]
    # The keys and types of real fio 3.33's steadystate object.
    assert set(ss) == {"ss", "duration", "attained", "criterion", "max_deviation", "slope",
                       "data"}  # fmt: skip
    assert set(ss["data"]) == {"bw_mean", "iops_mean", "iops", "bw"}
    assert ss["attained"] == 1 and ss["ss"] == "iops:5.000000%" and ss["duration"] == 3
    assert len(ss["data"]["iops"]) == 3 and abs(ss["data"]["iops_mean"] - 500) <= 5
    assert 3000 <= j["job_runtime"] <= 5000  # stopped at ramp + duration, not at 30 s


def test_latency_target_finds_the_queue_depth(tmp_path):
    job = tmp_path / "lt.fio"
    base = "[j]\nrw=randread\niodepth=64\nnumber_ios=3000\nlatency_percentile=99\n"
    job.write_text(base + "latency_target=1s\n")
    assert run_jobfile(job, device="tiny-test")["jobs"][0]["latency_depth"] == 64
    job.write_text(base + "latency_target=1ns\n")
    j = run_jobfile(job, device="tiny-test")["jobs"][0]
    assert j["latency_depth"] == 1 and j["latency_target"] == 1
    assert j["latency_percentile"] == 99.0


def test_flow_keeps_the_ratio_of_weights(tmp_path):
    job = tmp_path / "flow.fio"
    job.write_text(
        "[global]\ntime_based\nruntime=2\niodepth=8\n[a]\nrw=randread\nflow=3\n"
        "[b]\nrw=randread\nflow=1\n"
    )
    a, b = run_jobfile(job, device="tiny-test")["jobs"]
    assert abs(a["read"]["iops"] / b["read"]["iops"] - 3) < 0.1


def test_rate_min_and_verify_are_reported(tmp_path):
    job = tmp_path / "rm.fio"
    job.write_text(
        "[j]\nrw=randwrite\nnumber_ios=1000\nrate_min=100g\nverify=crc32c\nrate_iops=200\n"
    )
    jf = load_jobfile(job)
    assert jf.verify and any("verify=crc32c: mapped" in w for w in jf.warnings)
    doc = run_jobfile(job, device="tiny-test")
    assert doc["ssdlab"]["rate_min_not_met"] == ["j"] and doc["ssdlab"]["verify"] is True
    assert doc["ssdlab"]["oracle"]["mismatches"] == 0


@pytest.mark.parametrize(
    "text,want",
    [
        ("[j]\nioengine=libaio\nhostname=h\n", "t.fio:3: hostname: an option of ioengine=net"),
        ("[j]\npercentile_list=50:abc\n", "t.fio:2: percentile_list=50:abc: 'abc' is not"),
        ("[j]\npercentile_list=50:101\n", "t.fio:2: percentile_list=50:101: '101' is not"),
        ("[j]\nbs=" + "9" * 400 + "\n", "t.fio:2: bs=999"),
        ("[j]\nruntime=" + "9" * 400 + "\n", "t.fio:2: runtime=999"),
        ("[j]\niodepth=99999999999999999999\n", "t.fio:2: iodepth=99999999999999999999: out"),
        ("[j]\nss=iops:5%\nss_dur=1500ms\n", "t.fio:1: [j]: ss_dur, ss_ramp and"),
        ("[j]\nss=median:5\nss_dur=5\n", "t.fio:2: ss=median:5: expected iops:X"),
        ("[j]\nrate_process=bursty\n", "t.fio:2: rate_process=bursty: allowed: linear, poisson"),
        ("[j]\nrw=read\nfill_device=1\n", "t.fio:1: [j]: fill_device needs a writing pattern"),
        ("[j]\nflow_watermark=1\n", "t.fio:2: flow_watermark: fio's flow_watermark"),
        ("[j]\nioengine=frob\n", "t.fio:2: ioengine=frob: unknown I/O engine (block engines:"),
        ("[j]\nrate_iops_min=\n", "t.fio:2: rate_iops_min=: needs a value"),
        ("[j]\nratecycle=0\n", "t.fio:2: ratecycle=0"),
        ("[j]\nfsync=x\n", "t.fio:2: fsync=x"),
        ("[j]\nread_iolog=/dev/null\nend_fsync=1\n", "t.fio:3: end_fsync: not with read_iolog"),
    ],
)
def test_new_options_give_clear_errors(text, want):
    with pytest.raises(JobFileError) as e:
        resolve(parse_text(text, "t.fio"))
    assert str(e.value).startswith(want), str(e.value)


@needs_shared
def test_docs_table_lists_every_example_option():
    from ssdlab.fio.options import option_status

    doc = (Path(__file__).resolve().parents[1] / "docs" / "fio.md").read_text()
    rows = {}
    for line in doc.splitlines():
        m = re.match(r"\| `([a-z_0-9]+)` \| (\d+) \| ([a-z ]+) \| (.*) \|$", line)
        if m:
            rows[m.group(1)] = (m.group(3), m.group(4))
    names = set()
    for f in JOBS.glob("*.fio"):
        for line in f.read_text().splitlines():
            line = line.strip()
            if line and line[0] not in ";#[" and not line.startswith("include "):
                names.add(re.split(r"[=\s;#]", line, maxsplit=1)[0].lower())
    assert names == set(rows), sorted(names ^ set(rows))
    for name, row in rows.items():
        assert option_status(name) == row, name
        assert row[1] != "not a fio option ssdlab knows", name
