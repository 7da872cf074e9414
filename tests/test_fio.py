"""fio job files in, fio formats out: every example job file either runs or is rejected
with a one-line reason; ssdlab's JSON has every key of real fio 3.33 output with the same
type; the parser follows fio's syntax and never fails with anything but a clear error."""

import json
import random
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


@needs_shared
def test_every_example_job_file_runs_or_is_rejected_with_a_reason(capsys):
    files = sorted(JOBS.glob("*.fio"))
    assert len(files) == 107
    ran, rejected = [], {}
    cap = ssdlab.validate("tiny-test")["capacity_bytes"]
    for f in files:
        try:
            jf = load_jobfile(f, max_ios=300)
            jobs = finish(jf, cap)
        except JobFileError as e:
            msg = str(e)
            assert "\n" not in msg and msg.startswith(str(f)), msg
            rejected[f.name] = msg.split(": ", 2)[-1]
            continue
        r = ssdlab.run("tiny-test", {"jobs": jobs}, state="full")
        assert len(r["jobs"]) == sum(int(j.spec.get("numjobs", 1)) for j in jf.jobs), f.name
        ran.append(f.name)
    with capsys.disabled():
        print(f"\nfio example job files: {len(ran)} run, {len(rejected)} rejected")
        for name, why in sorted(rejected.items()):
            print(f"  {name}: {why}")
    assert len(ran) + len(rejected) == 107
    assert len(ran) >= 37
    for must_run in ("fio-rand-read.fio", "fio-seq-write.fio", "ssd-test.fio", "zipf.fio"):
        assert must_run in ran


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
        ("[j]\nzonemode=zbd\n", "t.fio:2: zonemode: zoned namespaces are not modelled"),
    ],
)
def test_bad_job_files_name_file_line_and_text(text, want):
    with pytest.raises(JobFileError) as e:
        resolve(parse_text(text, "t.fio"))
    assert str(e.value).startswith(want), str(e.value)
    if "ioengine=http" in text or "zonemode" in text:
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
