"""A corpus of bad command-line inputs (issue 14): each must exit with status 2, print
``ssdlab: error:`` with a message naming the field (or file:line), what was wrong and
what is allowed, and never show a traceback or a Rust panic. Grows with every defect
fixed (docs/reliability.md).

The cases run in-process through ``ssdlab.cli.main`` (an uncaught exception fails the
test, so "no traceback" holds there too); a sample also runs as real processes.
"""

import contextlib
import io
import json
import shlex
import subprocess
import sys

import pytest
from ssdlab import api
from ssdlab.cli import main

RUN = "run --device tiny-test -q --number_ios 200"
RUN_NOIOS = "run --device tiny-test -q"

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
    ("max-memory", "run --device client-tlc-dram -q --state steady --number_ios 10 "
     "--set nand.blocks_per_plane=12000 --set map.cache=64MiB --set sram.size=16MiB "
     "--max-memory 4G", "max_memory"),
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




# ---- generated cases (each a distinct bad input) -----------------------------------

def _device_keys() -> list[str]:
    dev = api.validate("tiny-test")
    keys = []
    for sec in ("host", "controller", "nand", "ftl", "map", "sram", "dram", "hmb",
                "read_cache", "scheduler", "slc"):  # fmt: skip
        for k in dev[sec]:
            keys.append(f"{sec}.{k}")
    return keys


DEVICE_KEYS = _device_keys()
# every device field given text where it wants a number/size/time/name, and a negative number
CASES += [(f"set-{k}=abc", f"validate tiny-test --set {k}=abc", k) for k in DEVICE_KEYS]
CASES += [(f"set-{k}=-1", f"validate tiny-test --set {k}=-1", k) for k in DEVICE_KEYS]

# workload JSON files with one bad value: (file name, JSON, field)
WORKLOAD_FILES = [
    ("w-bs-list", {"bs": [4096]}, "bs"), ("w-bs-neg", {"bs": -4096}, "bs"),
    ("w-bs-float", {"bs": 4096.5}, "bs"), ("w-bs-bool", {"bs": True}, "bs"),
    ("w-rw-number", {"rw": 5}, "rw"), ("w-rw-bad", {"rw": "readwrite-ish"}, "rw"),
    ("w-iodepth-obj", {"iodepth": {}}, "iodepth"), ("w-iodepth-zero", {"iodepth": 0}, "iodepth"),
    ("w-iodepth-float", {"iodepth": 1.5}, "iodepth"),
    ("w-numjobs-str", {"numjobs": "many"}, "numjobs"), ("w-rwmix-200", {"rwmixread": 200},
                                                         "rwmixread"),
    ("w-queue-policy", {"queue_policy": "lifo"}, "queue_policy"),
    ("w-offset-odd", {"offset": 1000}, "offset"), ("w-offset-kB", {"offset": "1kB"}, "offset"),
    ("w-size-zero", {"size": 0}, "size"), ("w-size-word", {"size": "big"}, "size"),
    ("w-number-ios-neg", {"number_ios": -1}, "number_ios"),
    ("w-runtime-word", {"runtime": "forever"}, "runtime"),
    ("w-ramp-neg", {"ramp_time": "-1s"}, "ramp_time"),
    ("w-thinktime-word", {"thinktime": "a while"}, "thinktime"),
    ("w-group-neg", {"group": -1}, "group"), ("w-unknown", {"nothere": 1}, "nothere"),
    ("w-random-dist", {"random_distribution": "zipf:x"}, "random_distribution"),
    ("w-random-dist-name", {"random_distribution": "cauchy"}, "random_distribution"),
    ("w-pct-random", {"percentage_random": 101}, "percentage_random"),
    ("w-seq-skip", {"seq_skip": 1000}, "seq_skip"),
    ("w-bssplit-sum", {"bssplit": "4k/50:8k/20"}, "bssplit"),
    ("w-bssplit-word", {"bssplit": "lots"}, "bssplit"),
    ("w-trace-not-obj", {"trace": "t.csv"}, "trace"),
    ("w-trace-missing", {"trace": {"path": "/nonexistent/t.csv"}}, "/nonexistent/t.csv"),
    ("w-trace-mode", {"trace": {"path": "{tmp}/t.csv", "mode": "warp"}}, "mode"),
    ("w-trace-speedup", {"trace": {"path": "{tmp}/t.csv", "speedup": -2}}, "speedup"),
    ("w-trace-extra", {"trace": {"path": "{tmp}/t.csv", "colour": 1}}, "colour"),
    ("w-jobs-obj", {"jobs": {"a": 1}}, "jobs"), ("w-jobs-str-job", {"jobs": ["x"]}, "job"),
    ("w-jobs-bad-bs", {"jobs": [{"bs": 1000}]}, "bs"),
    ("w-jobs-bad-rw", {"jobs": [{"rw": "x"}, {"rw": "read"}]}, "rw"),
    ("w-jobs-numjobs", {"jobs": [{"numjobs": 0}]}, "numjobs"),
    ("w-null-list", {"bs": [None]}, "bs"),
]
CASES += [
    (name, f"{RUN_NOIOS} --workload {{tmp}}/{name}.json", field)
    for name, _, field in WORKLOAD_FILES
]

# fio job files with one bad option: (name, option line, text the message must contain)
FIO_OPTIONS = [
    ("rw", "rw=sideways"), ("bs", "bs=4 furlongs"), ("bs-zero", "bs=0"),
    ("iodepth-word", "iodepth=deep"), ("iodepth-neg", "iodepth=-1"), ("numjobs", "numjobs=0"),
    ("size-word", "size=big"), ("size-pct", "size=0%"), ("offset-word", "offset=far"),
    ("offset-beyond", "offset=1e"), ("runtime", "runtime=later"), ("ramp", "ramp_time=soon"),
    ("rwmixread", "rwmixread=150"), ("rwmixwrite", "rwmixwrite=-5"),
    ("thinktime", "thinktime=x"), ("bssplit", "bssplit=4k/60:8k/60"),
    ("bsrange", "bsrange=64k-4k"), ("bsrange-order", "bsrange=64k-4k:x"), ("bs-odd", "bs=1000"),
    ("size-neg", "size=-1"), ("iodepth-1e9", "iodepth=1e9"), ("rwmix-word", "rwmixread=half"),
    ("random-dist", "random_distribution=zipf:"), ("time-based", "time_based=perhaps"),
    ("loops", "loops=0"), ("number-ios", "number_ios=-3"), ("rate-iops", "rate_iops=fast"),
    ("rate", "rate=1x"), ("percentile-list", "percentile_list=101"),
    ("zonemode", "zonemode=weird"), ("direct", "direct=2"), ("ioengine", "ioengine=carrier"),
    ("stonewall-value", "startdelay=soon"), ("blocksize-unaligned", "blocksize_unaligned=1"),
    ("kb-base", "kb_base=999"),
    ("fill-device", "fill_device=sometimes"),
    ("flow", "flow=x"), ("ss", "ss=iops:x"),
    ("latency-target", "latency_target=x"),
]
CASES += [
    (f"fio-{name}", f"fio {{tmp}}/opt-{name}.fio --device tiny-test", f"opt-{name}.fio:")
    for name, _ in FIO_OPTIONS
]

# traces with a bad line 2, in every format: (name, format, text)
TRACES = [
    ("csv-op", "csv", "0,R,0,4096\n0,X,0,4096\n"),
    ("csv-fields", "csv", "0,R,0,4096\n0,R,0\n"),
    ("csv-neg", "csv", "0,R,0,4096\n0,R,-4096,4096\n"),
    ("csv-huge", "csv", "0,R,0,4096\n0,R,99999999999999999999999,4096\n"),
    ("msr-op", "msr", "1,h,0,Read,0,4096,1\n1,h,0,Erase,0,4096,1\n"),
    ("msr-fields", "msr", "1,h,0,Read,0,4096,1\n1,h,0\n"),
    ("msr-disk", "msr", "1,h,0,Read,0,4096,1\n1,h,x,Read,0,4096,1\n"),
    ("blk-plus", "blkparse", "8,0 0 1 0.1 1 Q R 0 + 8 [a]\n8,0 0 2 0.2 1 Q R 0 - 8 [a]\n"),
    ("blk-time", "blkparse", "8,0 0 1 0.1 1 Q R 0 + 8 [a]\n8,0 0 2 inf 1 Q R 0 + 8 [a]\n"),
    ("blk-nan", "blkparse", "8,0 0 1 0.1 1 Q R 0 + 8 [a]\n8,0 0 2 NaN 1 Q R 0 + 8 [a]\n"),
    ("blk-neg", "blkparse", "8,0 0 1 0.1 1 Q R 0 + 8 [a]\n8,0 0 2 -1.0 1 Q R 0 + 8 [a]\n"),
    ("iolog-action", "fio-iolog", "fio version 2 iolog\nf fly 0 4096\n"),
    ("iolog-short", "fio-iolog", "fio version 2 iolog\nf read 0\n"),
    ("iolog3-time", "fio-iolog", "fio version 3 iolog\nsoon f read 0 4096\n"),
    ("mqsim-type", "mqsim", "1000 0 0 8 1\n2000 0 0 8 2\n"),
    ("mqsim-fields", "mqsim", "1000 0 0 8 1\n2000 0 0 8\n"),
    ("ssdsim-word", "ssdsim", "0 0 0 8 1\n1 0 zero 8 1\n"),
    ("cloud-op", "cloudphysics", "version,time,op,size,lbn\n1,0,zz,4096,0\n"),
    ("cloud-fields", "cloudphysics", "version,time,op,size,lbn\n1,0,28,4096\n"),
    ("binary", "csv", "0,R,0,4096\n\xff\xfe\x00\n"),
]
CASES += [
    (f"trace-{name}", f"trace {{tmp}}/tr-{name}.txt --format {fmt} --device tiny-test",
     f"tr-{name}.txt:2")
    for name, fmt, _ in TRACES
]  # fmt: skip
CASES += [
    ("trace-long-line", "trace {tmp}/long.csv --device tiny-test --format csv",
     "longer than 64 KiB"),
    ("trace-dev-zero", "trace /dev/zero --device tiny-test --format csv", "longer than 64 KiB"),
    ("trace-dev-zero-detect", "trace /dev/zero --device tiny-test", "/dev/zero"),
    ("trace-directory", "trace {tmp}/dir --device tiny-test --format csv", "directory"),
    ("trace-empty", "trace {tmp}/file --device tiny-test --format csv", "file:1"),
    ("trace-disk-csv", "trace {tmp}/t.csv --device tiny-test --disk 1", "device field"),
    ("trace-max-requests-zero", "trace {tmp}/t.csv --device tiny-test --max-requests 0",
     "max_requests"),
    ("trace-speedup-nan", "trace {tmp}/t.csv --device tiny-test --speedup nan", "speedup"),
    ("trace-speedup-inf", "trace {tmp}/t.csv --device tiny-test --speedup inf", "speedup"),
    ("trace-lba", "trace {tmp}/t.csv --device tiny-test --lba sideways", "--lba"),
    ("trace-mode", "trace {tmp}/t.csv --device tiny-test --mode warp", "--mode"),
]

# IOMeter access specifications
IOMETER = [
    "iometer:", "iometer:4K", "iometer:4K,50,70", "iometer:4K,50,70,100,0,0,1,x",
    "iometer:1000,100,50,100", "iometer:4K,101,50,100", "iometer:4K,100,-1,100",
    "iometer:4K,100,50,101", "iometer:4K,60,50,100;8K,60,50,100", "iometer:4K,100,50,100,4K",
    "iometer:four,100,50,100", "iometer:4K,100,50,100,0,-1,1", "iometer:4K,100,50,100,0,0,0",
    "iometer:0,100,50,100",
]
CASES += [(f"iometer-{i}", f"{RUN_NOIOS} --workload '{w}'", "iometer") for i, w in
          enumerate(IOMETER)]  # fmt: skip

# other subcommands and flags
CASES += [
    ("validate-missing", "validate {tmp}/nothere.toml", "nothere.toml"),
    ("validate-bad-suffix", "validate {tmp}/t.csv", ".toml or .json"),
    ("validate-bad-toml", "validate {tmp}/bad.toml", "nand.channels"),
    ("validate-broken-toml", "validate {tmp}/broken.toml", "broken.toml"),
    ("validate-unknown-section", "validate {tmp}/unknown.toml", "colour"),
    ("validate-json-list", "validate {tmp}/devlist.json", "devlist.json"),
    ("validate-workload-missing", "validate tiny-test --workload {tmp}/nothere.json",
     "nothere.json"),
    ("run-unknown-workload", f"{RUN_NOIOS} --workload nosuchworkload", "nosuchworkload"),
    ("run-state-empty", "run --device tiny-test -q --state ''", "--state"),
    ("run-seed-word", f"{RUN} --seed one", "--seed"),
    ("run-max-memory-neg", f"{RUN} --max-memory -1", "--max-memory"),
    ("fio-parse-only-missing", "fio {tmp}/nothere.fio --parse-only", "nothere.fio"),
    ("fio-directory", "fio {tmp}/dir --parse-only", "directory"),
    ("fio-option-outside", "fio {tmp}/outside.fio --parse-only", "outside.fio:1"),
    ("fio-bad-header", "fio {tmp}/header.fio --parse-only", "header.fio:1"),
    ("fio-env-unset", "fio {tmp}/env.fio --parse-only", "env.fio:2"),
    ("probe-unknown", "probe nosuchprobe tiny-test", "probe"),
    ("probe-bad-state", "probe read-cache tiny-test --state sideways --out {tmp}/p1", "state"),
    ("probe-missing-target", "probe read-cache {tmp}/nothere --out {tmp}/p2", "nothere"),
    ("sweep-missing-grid", "sweep {tmp}/nothere.toml", "nothere.toml"),
    ("sweep-bad-grid", "sweep {tmp}/bad.toml", "bad.toml"),
    ("study-unknown", "study nosuchstudy", "study"),
    ("plot-missing", "plot lat-cdf {tmp}/nothere.json -o {tmp}/p.png", "nothere.json"),
    ("plot-not-json", "plot lat-cdf {tmp}/file -o {tmp}/p.png", "file"),
    ("presets-show-unknown", "presets --show nosuchpreset", "nosuchpreset"),
    ("no-such-command", "frobnicate", "frobnicate"),
]


# Found by the audit of issue 14 item 6 (each was accepted silently or crashed before).
AUDIT = [
    ("audit-json-duplicate-key", f"{RUN} --workload {{tmp}}/dupkey.json", "given twice"),
    ("audit-json-binary", f"{RUN} --workload {{tmp}}/binary.json", "not a text file"),
    ("audit-json-deep", f"{RUN} --workload {{tmp}}/deep.json", "deep.json"),
    ("audit-read-cache-partial-set", "validate tiny-test --set read_cache.size=96KiB",
     "read_cache.size"),
    ("audit-gc-target-wrap", "validate tiny-test --set ftl.gc_target_blocks=4294967295",
     "4294967297"),
    ("audit-max-payload-64", "validate tiny-test --set host.max_payload=64B", "max_payload"),
    ("audit-t-read-exponent", "validate tiny-test --set nand.t_read=1e3us", "exponent"),
    ("audit-size-exponent", "validate tiny-test --set nand.page_size=1e4B", "exponent"),
    ("audit-bs-decimal-kb", f"{RUN} --bs 4kB", "powers of 1000"),
    ("audit-enum-number", "validate tiny-test --set nand.cell=-1", "nand.cell"),
    ("audit-u32-word", "validate tiny-test --set host.io_queues=abc", "whole number"),
    ("audit-trace-max-requests-0", "trace {tmp}/t.csv --device tiny-test --max-requests 0",
     "max_requests"),
    ("audit-fio-include-fanout", "fio {tmp}/fan0.fio --parse-only", "includes in total"),
    ("audit-fio-rate-iops-empty", "fio {tmp}/rateempty.fio --parse-only", "rateempty.fio:3"),
    ("audit-fio-rate-commas", "fio {tmp}/ratecommas.fio --parse-only", "ratecommas.fio:3"),
    ("audit-fio-pct-random-empty", "fio {tmp}/pctempty.fio --parse-only", "pctempty.fio:3"),
    ("audit-json-empty-name", f"{RUN} --json ''", "--json"),
    ("audit-fio-output-empty-name", "fio {tmp}/j.fio --device tiny-test --output ''", "--output"),
    ("audit-probe-out-empty-name", "probe read-cache tiny-test --out ''", "--out"),
]
CASES += AUDIT



def _write_corpus_files(d):
    for name, doc, _ in WORKLOAD_FILES:
        text = json.dumps(doc).replace("{tmp}", str(d))
        (d / f"{name}.json").write_text(text)
    for name, line in FIO_OPTIONS:
        (d / f"opt-{name}.fio").write_text(f"[j]\nrw=randread\n{line}\nnumber_ios=100\n")
    for name, _, text in TRACES:
        (d / f"tr-{name}.txt").write_bytes(text.encode("latin-1"))
    (d / "long.csv").write_text("0,R,0," + "1" * 70_000 + "\n")
    (d / "broken.toml").write_text("[nand\nchannels = 2\n")
    (d / "unknown.toml").write_text('[colour]\nname = "blue"\n')
    (d / "devlist.json").write_text("[1, 2, 3]")
    (d / "outside.fio").write_text("bs=4k\n[j]\n")
    (d / "header.fio").write_text("[j\nbs=4k\n")
    (d / "env.fio").write_text("[j]\nbs=${SSDLAB_SURELY_UNSET_VAR}\n")


@pytest.fixture(scope="module")
def corpus_dir(tmp):
    _write_corpus_files(tmp)
    return tmp


def _main(argv):
    """(exit status, stdout, stderr) of ``ssdlab ARGV`` in this process."""
    out, err = io.StringIO(), io.StringIO()
    saved = api.DEFAULT_MAX_MEMORY  # --max-memory changes the process's default
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                rc = main(argv)
            except SystemExit as e:  # argparse
                rc = e.code
    finally:
        api.DEFAULT_MAX_MEMORY = saved
    return rc, out.getvalue(), err.getvalue()


# What a message says is allowed or expected (one of these words or phrases).
ALLOWED_WORDS = (
    "allowed", "expected", "must", "use e.g", "at most", "at least", "not a", "only",
    "give", "needs", "beyond", "larger than", "smaller", "more than", "fewer than", "range",
    "exist", "cannot", "unknown", "choose from", "invalid choice", "not set", "does not",
    "not UTF-8", "no requests", "required", "is a directory", "longer than", "not supported",
    "not simulated", "too ", "missing", "raise", "divide", "outside", "not ", "without",
    "refuse", "neither", "invalid",
)  # fmt: skip


@pytest.mark.parametrize("argv,needle", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_a_clear_error(corpus_dir, argv, needle):
    argv = shlex.split(argv.replace("{tmp}", str(corpus_dir)))
    rc, out, err = _main(argv)
    assert rc == 2, (rc, err)
    assert "ssdlab: error:" in err
    assert needle in err, err
    msg = err.split("ssdlab: error:", 1)[1]
    assert any(w in msg for w in ALLOWED_WORDS), f"what is allowed? {msg}"
    for bad in ("Traceback", "panicked", "PanicException", "RUST_BACKTRACE"):
        assert bad not in err + out


def test_corpus_size():
    assert len(CASES) >= 300, len(CASES)
    assert len({c[0] for c in CASES}) == len(CASES), "case ids are unique"


# A sample as real processes: the whole path, interpreter exit included.
SAMPLE = [c for c in CASES if c[0] in (
    "json-directory", "seed-65-bits", "trace-bad-line", "fio-include-chain", "jobs-not-a-list",
    "set-nand.channels=abc", "w-bs-list", "fio-offset-beyond", "trace-dev-zero", "iometer-3",
)]  # fmt: skip


@pytest.mark.parametrize("argv,needle", [c[1:] for c in SAMPLE], ids=[c[0] for c in SAMPLE])
def test_bad_input_in_a_process(corpus_dir, argv, needle):
    argv = shlex.split(argv.replace("{tmp}", str(corpus_dir)))
    r = subprocess.run(
        [sys.executable, "-m", "ssdlab", *argv], capture_output=True, text=True, timeout=120
    )
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert "ssdlab: error:" in r.stderr and needle in r.stderr, r.stderr
    for bad in ("Traceback", "panicked", "PanicException", "RUST_BACKTRACE"):
        assert bad not in r.stderr + r.stdout


@pytest.fixture(scope="module", autouse=True)
def _audit_files(tmp):
    (tmp / "dupkey.json").write_text('{"bs": "4k", "bs": "8k"}')
    (tmp / "rateempty.fio").write_text("[j]\nrw=randwrite\nrate_iops=\n")
    (tmp / "ratecommas.fio").write_text("[j]\nrw=randwrite\nrate=,\n")
    (tmp / "pctempty.fio").write_text("[j]\nrw=randwrite\npercentage_random=,\n")
    (tmp / "binary.json").write_bytes(b'{"bs": "\xff\xfe"}')
    (tmp / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    for i in range(4):  # 100^3 includes of small files: refused by count, quickly
        body = f"include fan{i + 1}.fio\n" * 100 if i < 3 else "[j]\n"
        (tmp / f"fan{i}.fio").write_text(body)
