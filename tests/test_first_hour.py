"""Issue 29, items 1-4: what a new user saw that was wrong or misleading.

1. ``plot lat-cdf`` plots every job and direction of a fio JSON (clones merged, named
   with their count), or the job named; the figure has a title, a legend and a
   percentile axis with the body and the tail.
2. A fio verify job's write and read-back phases have their own runtimes (and IOPS).
3. Table and summary cells that misled: no map hit rate without lookups, a WAF below 1
   explained, the closed-loop compression warning kept in the ``--device A,B`` table,
   ``presets --show`` saying what ``map.cache = "all"`` is, fio's "Starting 2
   processes", docs/config.md without format placeholders or Rust type names.
4. ``validate`` says loudly when an SLC area adds much raw NAND on top of the capacity.
"""

import json
from pathlib import Path

import pytest
import ssdlab
from ssdlab import plot
from ssdlab.cli import main

ROOT = Path(__file__).resolve().parents[1]

TWO_JOBS = """[global]
bs=4k
iodepth=4
number_ios=1500
[randread]
rw=randread
[randwrite]
rw=randwrite
numjobs=2
"""


def _fio(tmp_path, text, fmt="json+", device="tiny-test", name="out.json"):
    job = tmp_path / "job.fio"
    job.write_text(text)
    out = tmp_path / name
    assert main(["fio", str(job), "--device", device, "--output-format", fmt,
                 "--output", str(out)]) == 0  # fmt: skip
    return out


# ---- item 1 (and item 5's CDF) --------------------------------------------------------


@pytest.mark.parametrize("fmt", ["json+", "json"])
def test_lat_cdf_plots_every_job_and_direction(tmp_path, fmt):
    pytest.importorskip("matplotlib")
    out = _fio(tmp_path, TWO_JOBS, fmt)
    doc = plot.load_doc(out)
    got = [(name, d) for name, d, _ in plot.curves(doc)]
    assert got == [("randread", "read"), ("randwrite x2", "write")]
    # the clones merged: the write curve counts both clones' I/Os
    hist = dict((n, h) for n, _, h in plot.curves(doc))["randwrite x2"]
    assert round(sum(c for _, c in hist)) == 3000
    fig = plot.lat_cdf_figure([out])
    ax = fig.axes[0]
    labels = [line.get_label() for line in ax.get_lines()]
    assert labels == ["tiny-test randread read", "tiny-test randwrite x2 write"]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == labels
    ticks = [t.get_text() for t in ax.get_yticklabels()]
    assert ticks[:4] == ["0 %", "50 %", "90 %", "99 %"]
    assert ax.get_xscale() == "log" and "µs" in ax.get_xlabel()
    assert ax.get_title() == "Completion latency CDF (read, write)"


def test_lat_cdf_job_and_direction_pick_one_curve(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out = _fio(tmp_path, TWO_JOBS)
    doc = plot.load_doc(out)
    assert [(n, d) for n, d, _ in plot.curves(doc, job="randwrite")] == [("randwrite x2", "write")]
    assert plot.curves(doc, direction="read")[0][:2] == ("randread", "read")
    png = tmp_path / "w.png"
    assert main(["plot", "lat-cdf", str(out), "--job", "randwrite", "-o", str(png)]) == 0
    assert png.read_bytes()[:4] == b"\x89PNG"
    assert main(["plot", "lat-cdf", str(out), "--job", "nope", "-o", str(png)]) == 2
    err = capsys.readouterr().err
    assert "--job: no job 'nope'" in err and "randread, randwrite" in err


# ---- item 2 ---------------------------------------------------------------------------


def test_verify_job_times_its_write_and_read_back_phases_apart(tmp_path):
    text = "[v]\nrw=randwrite\nbs=4k\niodepth=8\nsize=8m\nverify=crc32c\n"
    doc = json.loads(_fio(tmp_path, text, "json").read_text())
    j = doc["jobs"][0]
    w, r = j["write"], j["read"]
    assert w["total_ios"] == r["total_ios"] == 2048
    assert w["runtime"] + r["runtime"] == pytest.approx(j["job_runtime"], abs=2)
    assert w["iops"] != pytest.approx(r["iops"], rel=0.05)
    assert w["iops"] == pytest.approx(w["total_ios"] / (w["runtime"] / 1e3), rel=0.05)
    # a mixed job runs both directions all along: one runtime
    mixed = json.loads(_fio(tmp_path, "[m]\nrw=randrw\nnumber_ios=2000\n", "json", name="m.json")
                       .read_text())["jobs"][0]  # fmt: skip
    assert mixed["read"]["runtime"] == mixed["write"]["runtime"] == mixed["job_runtime"]


# ---- item 3 ---------------------------------------------------------------------------


def test_no_map_hit_rate_without_lookups_and_a_waf_below_one_explained(capsys):
    assert main(["run", "--device", "hmb-ssd,dram-ssd", "--rw", "randwrite",
                 "--number_ios", "2000"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    rows = [line.split() for line in out.splitlines()[1:3]]
    assert all(r[-3 if r[0] == "hmb-ssd" else -2] == "-" for r in rows), out  # map hit
    assert "hmb-ssd: WAF" in out and "still in the write buffer" in out
    r = ssdlab.run("hmb-ssd", {"rw": "randwrite", "number_ios": 2000})
    assert "hit rate=n/a (no lookups)" in r.summary()
    assert "still buffered at the end" in r.summary()
    df = ssdlab.compare(["hmb-ssd"], {"rw": "randwrite", "number_ios": 500})
    assert df["map_hit_rate"].isna().all()


def test_a_run_that_ends_within_its_ramp_says_so(capsys):
    # Every write completes before ramp_time ends: nothing is measured. The summary then
    # has no result line, so the warning must say why (CLI on stderr, API in warnings).
    assert main(["run", "--device", "tiny-test", "--rw", "randwrite", "--number_ios", "1000",
                 "--ramp_time", "1"]) == 0  # fmt: skip
    err = capsys.readouterr().err
    assert "warning: nothing was measured" in err and "ramp_time" in err, err
    r = ssdlab.run("tiny-test", {"rw": "randwrite", "number_ios": 1000, "ramp_time": "1s"})
    assert any("nothing was measured" in w for w in r["warnings"])
    r = ssdlab.run("tiny-test", {"rw": "randwrite", "number_ios": 1000, "ramp_time": "1ms"})
    assert not any("nothing was measured" in w for w in r["warnings"])


def test_the_device_table_keeps_the_closed_loop_compression_warning(tmp_path, capsys):
    trace = tmp_path / "t.csv"
    # MSR format (100 ns ticks): one read every 18 s for 2 hours, replayed closed loop
    lines = [f"{128166372000000000 + i * 180_000_000},h,0,Read,{i * 4096},4096,100"
             for i in range(400)]  # fmt: skip
    trace.write_text("\n".join(lines) + "\n")
    assert main(["trace", str(trace), "--device", "tiny-test,hmb-ssd"]) == 0
    out = capsys.readouterr().out
    assert "tiny-test: warning: the closed-loop replay compressed" in out
    assert "hmb-ssd: warning: the closed-loop replay compressed" in out


def test_presets_show_says_what_cache_all_is(capsys):
    assert main(["presets", "--show", "hmb-ssd"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("cache ="))
    assert "64 MiB cache" in line and "not the whole map" in line
    assert main(["presets", "--show", "dram-ssd"]) == 0
    line = next(x for x in capsys.readouterr().out.splitlines() if x.startswith("cache ="))
    assert "the whole" in line


def test_fio_normal_output_counts_processes_as_fio_does(tmp_path):
    text = tmp_path / "o.txt"
    _fio(tmp_path, "[a]\nrw=randread\nnumber_ios=200\nnumjobs=2\n", "normal", name="o.txt")
    assert "Starting 2 processes" in text.read_text()
    _fio(tmp_path, "[a]\nrw=randread\nnumber_ios=200\n", "normal", name="o.txt")
    assert "Starting 1 process\n" in text.read_text()


def test_config_doc_has_no_placeholders_or_rust_type_names():
    doc = (ROOT / "docs" / "config.md").read_text()
    for bad in ("{}", "{set}", "One, PerType", "gc_threshold_blocks ( "):
        assert bad not in doc, bad
    assert "greater than ftl.gc_threshold_blocks |" in doc
    assert "1 to ftl.gc_threshold_blocks" in doc
    assert "## Describing a real drive" in doc


# ---- item 4 ---------------------------------------------------------------------------


def _user_drive(tmp_path, slc="300GB", mode="dynamic"):
    """A 1 TB DRAM-less drive described by its capacity, with its dynamic SLC cache."""
    from ssdlab.configdoc import resolved_toml

    dropped = ("blocks_per_plane", "size =", "min_size =", "mode =")
    lines = [x for x in resolved_toml("seed000-hmb-1tb").splitlines() if not x.startswith(dropped)]
    text = "\n".join(lines).replace("[nand]", '[nand]\ncapacity = "1TB"')
    text = text.replace("[slc]", f'[slc]\nsize = "{slc}"\nmin_size = "6GB"\nmode = "{mode}"')
    text = text.replace("[dram]", '[dram]\nsize = "0B"').replace("[sram]", '[sram]\nsize = "2MiB"')
    p = tmp_path / "user.toml"
    p.write_text(text)
    return p


def test_validate_says_loudly_when_the_slc_area_adds_raw_nand(tmp_path, capsys):
    dev = _user_drive(tmp_path)
    assert main(["validate", str(dev)]) == 0
    cap = capsys.readouterr()
    assert "ON TOP of the" in cap.err and "Describing a real drive" in cap.err
    assert "dynamic SLC area (300 GB)" in cap.err
    cfg = ssdlab.validate(str(dev))
    assert cfg["raw_bytes"] > 1.9 * cfg["capacity_bytes"]
    assert any("ON TOP" in w for w in cfg["warnings"])
    # a small SLC area (the presets' 6-42 GB) stays quiet
    assert not any("ON TOP" in w for w in ssdlab.validate(str(_user_drive(tmp_path, "42GB")))
                   .get("warnings", []))  # fmt: skip
    assert main(["validate", "seed000-hmb-1tb"]) == 0
    assert "ON TOP" not in capsys.readouterr().err
    # the same 300 GB carved from free native blocks: only its 6 GB static part is apart
    cfg = ssdlab.validate(str(_user_drive(tmp_path, mode="free-space")))
    assert not any("ON TOP" in w for w in cfg.get("warnings", []))
    assert cfg["raw_bytes"] < 1.2 * cfg["capacity_bytes"]


def test_a_waf_just_below_one_is_not_printed_as_one():
    from ssdlab.summary import waf_note

    def doc(waf):
        return {
            "device": {
                "ftl": {
                    "host_units_written": 100_000,
                    "waf": waf,
                    "units_programmed": 99_000,
                    "gc_units_copied": 0,
                }
            }
        }

    assert waf_note(doc(0.99)).startswith("WAF 0.99 is below 1")
    assert waf_note(doc(0.998)).startswith("WAF 0.998 is below 1")
    assert waf_note(doc(0.99996)).startswith("WAF 0.99996 is below 1")
    assert waf_note(doc(1.0)) == ""
