"""A corpus of bad command-line inputs (issue 14): each must exit with status 2, print
``ssdlab: error:`` with a message naming the field (or file:line), and never show a
traceback or a Rust panic. Grows with every defect fixed (docs/reliability.md)."""

import shlex
import subprocess
import sys

import pytest

RUN = "run --device tiny-test -q --number_ios 200"

# (id, command line, text the message must contain). "{tmp}" is a temporary directory
# holding: "ro.json" (read-only), "file" (a regular file), "dir/" (a directory),
# "t.csv" (a one-line trace), "j.fio" (a small fio job).
CASES = [
    # item 1: outputs
    ("json-directory", f"{RUN} --json {{tmp}}/dir", "--json"),
    ("json-read-only", f"{RUN} --json {{tmp}}/ro.json", "read-only"),
    ("json-missing-dir", f"{RUN} --json {{tmp}}/nodir/r.json", "does not exist"),
    ("json-under-file", f"{RUN} --json {{tmp}}/file/r.json", "not a directory"),
    ("json-several-devices-file",
     "run --device tiny-test,tiny-test -q --number_ios 200 --json {tmp}/file", "not a directory"),
    ("trace-json-directory", "trace {tmp}/t.csv --device tiny-test --json {tmp}/dir", "--json"),
    ("fio-output-directory", "fio {tmp}/j.fio --device tiny-test --output {tmp}/dir", "--output"),
    ("probe-out-file", "probe read-cache tiny-test --out {tmp}/file", "--out"),
    ("study-out-file", "study map-cache --quick --out {tmp}/file", "--out"),
    ("bench-json-directory", "bench --quick --json {tmp}/dir", "--json"),
    ("plot-output-directory", "plot lat-cdf {tmp}/file -o {tmp}/dir", "--output"),
    # item 2: probes
    ("probe-file-no-destructive", "probe write-buffer {tmp}/file --out {tmp}/p", "--destructive"),
    ("probe-max-io-zero", "probe read-cache tiny-test --max-io 0 --out {tmp}/p", "--max-io"),
    ("probe-max-io-odd", "probe read-cache tiny-test --max-io 1000 --out {tmp}/p", "--max-io"),
    ("probe-seed-65-bits", "probe read-cache tiny-test --seed 36893488147419103232", "--seed"),
    # item 3: overflow and ranges
    ("size-beyond-64-bits", f"{RUN} --offset 4096 --size 18446744073709547520", "size"),
    ("offset-beyond-64-bits", f"{RUN} --offset 99999999999999999999999", "offset"),
    ("channels-65536", f"{RUN} --set nand.channels=65536 --set nand.dies_per_channel=65536",
     "nand.channels"),
    ("dies-per-channel-huge", f"{RUN} --set nand.dies_per_channel=100000", "dies_per_channel"),
    ("blocks-per-plane-huge", f"{RUN} --set nand.blocks_per_plane=2000000", "blocks_per_plane"),
    ("page-size-huge", f"{RUN} --set nand.page_size=1000000000000GiB", "nand.page_size"),
    ("page-size-4gib", f"{RUN} --set nand.page_size=4GiB", "nand.page_size"),
    ("t-read-hours", f"{RUN} --set nand.t_read=2000000000h", "nand.t_read"),
    ("t-prog-2h", f"{RUN} --set nand.t_prog=2h", "nand.t_prog"),
    ("t-erase-huge", f"{RUN} --set nand.t_erase=1e30s", "nand.t_erase"),
    ("pcie-latency-huge", f"{RUN} --set host.pcie_latency=5h", "host.pcie_latency"),
    ("cores-huge", f"{RUN} --set controller.cores=100000", "controller.cores"),
    ("queue-entries-huge", f"{RUN} --set host.queue_entries=100000", "queue_entries"),
    ("runtime-huge", f"{RUN} --runtime 1000000000000h", "runtime"),
    ("ramp-time-huge", f"{RUN} --ramp_time 1e30", "ramp_time"),
    ("io-size-huge", f"{RUN} --io_size 99999999999P", "io_size"),
    ("bs-huge", f"{RUN} --bs 99999999999P", "bs"),
    ("seed-negative", f"{RUN} --seed -1", "seed"),
    # item 4: memory
    ("max-memory", "run --device client-tlc-dram -q --state fresh --number_ios 10 "
     "--set nand.blocks_per_plane=12000 --set map.cache=64MiB --max-memory 4G", "max_memory"),
    ("max-memory-tiny", f"{RUN} --max-memory 1M", "max_memory"),
    ("max-memory-not-a-size", f"{RUN} --max-memory lots", "--max-memory"),
    ("geometry-beyond-32-bit-units", "run --device client-tlc-dram -q --number_ios 10 "
     "--set nand.blocks_per_plane=1000000 --set map.cache=64MiB", "mapping units"),
    # item 6: multi-job workloads
    ("jobs-not-a-list", f"{RUN} --workload {{tmp}}/jobs-x.json", "jobs"),
    ("jobs-empty", f"{RUN} --workload {{tmp}}/jobs-empty.json", "jobs"),
    ("jobs-numbers", f"{RUN} --workload {{tmp}}/jobs-numbers.json", "jobs"),
    ("jobs-bad-iodepth", f"{RUN} --workload {{tmp}}/jobs-bad.json", "iodepth"),
    ("jobs-key-beside", f"{RUN} --workload {{tmp}}/jobs-beside.json", "iodepth"),
    ("validate-jobs-bad", "validate tiny-test --workload {tmp}/jobs-bad.json", "iodepth"),
    ("workload-not-json", f"{RUN} --workload {{tmp}}/file", "file:1"),
    ("workload-bad-json", f"{RUN} --workload {{tmp}}/broken.json", "broken.json:2"),
    ("workload-list", f"{RUN} --workload {{tmp}}/list.json", "list.json"),
    ("iometer-bad", f"{RUN} --workload iometer:4K,50", "iometer"),
    # item 8: tracebacks
    ("seed-65-bits", f"{RUN} --seed 36893488147419103232", "seed"),
    ("trace-disk-negative", "trace {tmp}/t.csv --device tiny-test --disk -1", "--disk"),
    ("trace-iodepth-zero", "trace {tmp}/t.csv --device tiny-test --iodepth 0", "--iodepth"),
    ("trace-skip-negative", "trace {tmp}/t.csv --device tiny-test --skip-bad-lines -1",
     "--skip-bad-lines"),
    ("trace-missing", "trace {tmp}/missing.csv --device tiny-test", "missing.csv"),
    ("trace-bad-line", "trace {tmp}/bad.csv --device tiny-test", "bad.csv:2"),
    ("trace-bad-format", "trace {tmp}/t.csv --device tiny-test --format nonsense", "--format"),
    ("json-directory-after-nothing", "run --device tiny-test -q --json {tmp}/dir", "--json"),
    # item 9: wrong blame and silent no-ops
    ("queue-entries-one", f"{RUN} --set host.queue_entries=1", "host.queue_entries"),
    ("trace-timestamp-u64-max", "trace {tmp}/max.csv --device tiny-test --mode timed", "100 years"),
    ("trace-speedup-tiny", "trace {tmp}/t2.csv --device tiny-test --mode timed --speedup 1e-300",
     "speedup"),
    ("trace-speedup-zero", "trace {tmp}/t2.csv --device tiny-test --mode timed --speedup 0",
     "speedup"),
    ("fio-size-150-percent", "fio {tmp}/size150.fio --device tiny-test", "size=150%"),
    ("fio-offset-100-percent", "fio {tmp}/offset100.fio --device tiny-test", "offset=100%"),
    ("fio-wait-for-nothere", "fio {tmp}/waitfor.fio --device tiny-test", "waitfor.fio:6"),
    ("fio-bssplit-wraps", "fio {tmp}/bssplit.fio --device tiny-test", "bssplit"),
    ("fio-unknown-option", "fio {tmp}/unknown.fio --device tiny-test", "unknown.fio:3"),
    ("fio-missing", "fio {tmp}/missing.fio --device tiny-test", "missing.fio"),
    ("fio-bad-format", "fio {tmp}/j.fio --device tiny-test --output-format xml", "--output-format"),
    # item 7: fio job files from anywhere (limits on includes, text only, file:line)
    ("fio-include-chain", "fio {tmp}/chain0.fio --parse-only", "in total"),
    ("fio-include-self", "fio {tmp}/self.fio --parse-only", "self.fio:2: include"),
    ("fio-include-dev-zero", "fio {tmp}/zero.fio --parse-only", "zero.fio:1: include /dev/zero"),
    ("fio-include-binary", "fio {tmp}/incbin.fio --parse-only", "incbin.fio:2: include"),
    ("fio-include-missing", "fio {tmp}/incmissing.fio --parse-only", "incmissing.fio:2"),
    ("fio-include-directory", "fio {tmp}/incdir.fio --parse-only", "is a directory"),
    ("fio-include-empty", "fio {tmp}/incempty.fio --parse-only", "incempty.fio:1: include"),
    ("fio-binary-jobfile", "fio {tmp}/binary.fio --parse-only", "not a text file"),
    ("fio-latin1-jobfile", "fio {tmp}/latin1.fio --parse-only", "not UTF-8"),
    ("fio-huge-jobfile", "fio {tmp}/huge.fio --parse-only", "larger than the 1 MiB"),
    ("fio-bs-400-digits", "fio {tmp}/bs400.fio --parse-only", "bs400.fio:2: bs="),
    ("fio-runtime-400-digits", "fio {tmp}/rt400.fio --parse-only", "rt400.fio:2: runtime="),
    ("fio-percentile-list-word", "fio {tmp}/pct.fio --parse-only", "pct.fio:2: percentile_list"),
    ("fio-percentile-list-21", "fio {tmp}/pct21.fio --parse-only", "1 to 20 percentiles"),
    ("fio-iodepth-huge", "fio {tmp}/qd.fio --parse-only", "qd.fio:2: iodepth="),
    ("fio-engine-option", "fio {tmp}/engopt.fio --parse-only", "engopt.fio:3: port"),
    ("fio-ss-bad", "fio {tmp}/ss.fio --parse-only", "ss.fio:2: ss=median:5"),
]

# Workload flags and device overrides of `ssdlab run`: (flag or --set, value, field).
RUN_VALUES = [
    ("--bs", "1000", "bs"), ("--bs", "0", "bs"), ("--bs", "4x", "bs"), ("--bs", "-4k", "bs"),
    ("--bs", "256M", "bs"), ("--iodepth", "0", "iodepth"), ("--iodepth", "-3", "iodepth"),
    ("--iodepth", "100000", "iodepth"), ("--iodepth", "lots", "iodepth"),
    ("--numjobs", "0", "numjobs"), ("--numjobs", "5000", "numjobs"), ("--rw", "sideways", "rw"),
    ("--rw", "", "rw"), ("--rwmixread", "150", "rwmixread"), ("--rwmixread", "-1", "rwmixread"),
    ("--queues", "0", "queues"), ("--queue_policy", "random", "queue_policy"),
    ("--offset", "30MiB", "offset"), ("--offset", "1000", "offset"), ("--size", "1TiB", "size"),
    ("--size", "0", "size"), ("--size", "1k", "size"), ("--number_ios", "0", "number_ios"),
    ("--number_ios", "-5", "number_ios"), ("--io_size", "0", "io_size"),
    ("--runtime", "0", "runtime"), ("--runtime", "1fortnight", "runtime"),
    ("--ramp_time", "-1", "ramp_time"), ("--runtime", "abc", "runtime"),
    ("--set", "nand.channels=0", "channels"), ("--set", "nand.page_size=3000", "page_size"),
    ("--set", "nand.t_read=-5us", "t_read"), ("--set", "nand.t_read=60", "t_read"),
    ("--set", "nand.cell=PLC", "cell"), ("--set", "nand.nonsense=1", "nonsense"),
    ("--set", "ftl.over_provisioning=1.5", "over_provisioning"),
    ("--set", "ftl.over_provisioning=nan", "over_provisioning"),
    ("--set", "ftl.mapping_unit=3KiB", "mapping_unit"), ("--set", "host.pcie_gen=9", "pcie_gen"),
    ("--set", "host.pcie_lanes=3", "pcie_lanes"), ("--set", "controller.cores=0", "cores"),
    ("--set", "nand.t_read", "key=value"), ("--set", "=5", "dotted key"),
    ("--set", "host.queue_entries=1", "queue_entries"),
    ("--set", "host.io_queues=70000", "io_queues"),
    ("--set", "host.max_payload=100B", "max_payload"),
    ("--set", "nand.planes_per_die=32", "planes_per_die"),
    ("--set", "nand.pages_per_block=70000", "pages_per_block"),
    ("--set", "ftl.gc_threshold_blocks=1", "gc_threshold_blocks"),
    ("--set", "nand.channel_rate=0MT/s", "channel_rate"),
    ("--set", "nand.t_read=[\"50us\"]", "t_read"),
    ("--set", "nand.channels=abc", "channels"),
    ("--set", "nand.channels=-1", "channels"),
    ("--set", "nand.channels=1.5", "channels"),
    ("--set", "nand.channels=99999999999999999999", "channels"),
    ("--set", "map.tier=hmb", "hmb.hmpre"),
    ("--device", "no-such-preset", "device"), ("--device", "{tmp}/file", "device"),
    ("--device", "tiny-test,", "--device"), ("--device", "{tmp}/bad.toml", "bad.toml"),
    ("--state", "sideways", "--state"),
]
CASES += [
    (f"run{a}={v}", f"{RUN} {a} '{v}'", field) for a, v, field in RUN_VALUES
]


@pytest.fixture(scope="module")
def tmp(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    (d / "ro.json").write_text("keep")
    (d / "ro.json").chmod(0o444)
    (d / "file").write_text("x")
    (d / "dir").mkdir()
    (d / "t.csv").write_text("0,R,0,4096\n")
    (d / "j.fio").write_text("[j]\nrw=randread\nbs=4k\nnumber_ios=100\n")
    (d / "jobs-x.json").write_text('{"jobs": "x"}')
    (d / "jobs-empty.json").write_text('{"jobs": []}')
    (d / "jobs-numbers.json").write_text('{"jobs": [1, 2]}')
    (d / "jobs-bad.json").write_text('{"jobs": [{"iodepth": "0"}]}')
    (d / "jobs-beside.json").write_text('{"iodepth": 4, "jobs": [{"bs": "4k"}]}')
    (d / "broken.json").write_text('{\n  "bs": }\n')
    (d / "list.json").write_text("[1, 2]")
    (d / "bad.csv").write_text("0,R,0,4096\nnot,a,trace,line\n")
    (d / "max.csv").write_text("0,R,0,4096\n18446744073709551615,W,4096,4096\n")
    (d / "t2.csv").write_text("0,R,0,4096\n1000,W,4096,4096\n")
    (d / "size150.fio").write_text("[j]\nrw=randread\nsize=150%\nnumber_ios=10\n")
    (d / "offset100.fio").write_text("[j]\nrw=randread\noffset=100%\nnumber_ios=10\n")
    (d / "waitfor.fio").write_text(
        "[a]\nrw=randread\nnumber_ios=10\n[b]\nrw=randread\nwait_for=nothere\n"
    )
    (d / "bssplit.fio").write_text("[j]\nrw=randread\nbssplit=4k/4294967295:8k/101\n")
    (d / "unknown.fio").write_text("[j]\nrw=randread\nfrobnicate=1\n")
    for i in range(8):  # each file includes the next ten times: 10^8 expansions
        nxt = f"include chain{i + 1}.fio\n" * 10 if i < 7 else "[j]\nrw=read\n"
        (d / f"chain{i}.fio").write_text(nxt)
    (d / "self.fio").write_text("[j]\ninclude self.fio\n")
    (d / "zero.fio").write_text("include /dev/zero\n[j]\n")
    (d / "bin.dat").write_bytes(bytes(range(256)))
    (d / "incbin.fio").write_text("[j]\ninclude bin.dat\n")
    (d / "incmissing.fio").write_text("[j]\ninclude nothere.fio\n")
    (d / "incdir.fio").write_text("[j]\ninclude dir\n")
    (d / "incempty.fio").write_text("include \n[j]\n")
    (d / "binary.fio").write_bytes(b"[j]\nrw=read\x00\x01\x02\n")
    (d / "latin1.fio").write_bytes("[j]\ndescription=caf\u00e9\n".encode("latin-1"))
    (d / "huge.fio").write_text("[j]\n" + "; padding\n" * 120_000)
    (d / "bs400.fio").write_text("[j]\nbs=" + "7" * 400 + "\n")
    (d / "rt400.fio").write_text("[j]\nruntime=" + "7" * 400 + "\n")
    (d / "pct.fio").write_text("[j]\npercentile_list=50:ninety\n")
    (d / "pct21.fio").write_text("[j]\npercentile_list=" + ":".join(["50"] * 21) + "\n")
    (d / "qd.fio").write_text("[j]\niodepth=99999999999999999999999\n")
    (d / "engopt.fio").write_text("[j]\nioengine=libaio\nport=8765\n")
    (d / "ss.fio").write_text("[j]\nss=median:5\nss_dur=10\n")
    (d / "bad.toml").write_text("[nand]\nchannels = \"many\"\n")
    return d


@pytest.mark.parametrize("argv,needle", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_a_clear_error(tmp, argv, needle):
    argv = shlex.split(argv.replace("{tmp}", str(tmp)))
    r = subprocess.run(
        [sys.executable, "-m", "ssdlab", *argv], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "ssdlab: error:" in r.stderr
    assert needle in r.stderr, r.stderr
    for bad in ("Traceback", "panicked", "PanicException", "RUST_BACKTRACE"):
        assert bad not in r.stderr + r.stdout
