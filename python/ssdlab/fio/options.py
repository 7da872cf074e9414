"""What fio's options mean for a simulated drive: each job section (with its
``[global]`` options and ``numjobs`` clones) becomes an ssdlab job; options that only
matter to a real host (ioengine, filename, direct, CPU and memory placement, logs) are
accepted and listed once as "not simulated"; anything else is an error naming the file,
the line and the option.

Semantics worth knowing: ``stonewall`` and ``wait_for`` start a new phase (the group runs
after every earlier job has finished); ``new_group`` is treated the same (ssdlab's
reporting groups are its phases); ``size`` defaults to the whole drive; without
``time_based`` a job stops at ``size`` (or ``io_size``/``number_ios``) or ``runtime``,
whichever comes first; ``loops`` multiplies the I/O amount. A job with a ``runtime``
runs the simulated time it asks for. A job bounded only by its size (by default the
whole drive) is capped at 200,000 I/Os (``max_ios="default"``) to keep wall time to seconds; a
number given as ``max_ios`` caps every job, ``None`` or 0 none. A cap that applies is
reported in the JSON (``ssdlab.capped_jobs``), in the text output and on stderr.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, Callable

from ssdlab.fio.parser import (
    JobFileError,
    Section,
    parse_bool,
    parse_float,
    parse_int,
    parse_range,
    parse_size,
    parse_time_ns,
)
from ssdlab.fio.zones import (
    FDP_OPTIONS,
    FDP_SIMULATED,
    ZONE_SIMULATED,
    ZoneOptions,
    check_shared_zones,
    is_zones,
    size_or_zones,
    zone_size_of,
)

# Engines that submit block I/O to a drive: the simulated NVMe path replaces them.
BLOCK_ENGINES = {
    "libaio", "io_uring", "io_uring_cmd", "sync", "psync", "vsync", "pvsync", "pvsync2",
    "posixaio", "solarisaio", "windowsaio", "mmap", "sg", "null", "libblkio", "xnvme",
    "spdk", "splice", "nvme", "nbd", "libiscsi", "libzbc",
}  # fmt: skip
# Engines that do something else; a job using one cannot be simulated.
OTHER_ENGINES = {
    "net": "network I/O", "netsplice": "network I/O", "rdma": "RDMA transfers",
    "cpuio": "CPU burning", "http": "HTTP object storage", "rados": "Ceph RADOS objects",
    "rbd": "Ceph RBD over the network", "gfapi": "GlusterFS", "gfapi_async": "GlusterFS",
    "libhdfs": "HDFS", "nfs": "NFS files", "exec": "running programs",
    "filecreate": "file creation", "filestat": "file metadata", "filedelete": "file deletion",
    "dircreate": "directory creation", "dirstat": "directory metadata",
    "dirdelete": "directory deletion", "ftruncate": "file truncation",
    "falloc": "file preallocation", "e4defrag": "ext4 defragmentation",
    "mtd": "raw MTD flash",
    "ime": "DDN IME", "dfs": "DAOS", "libcufile": "GPU direct storage",
    "libhipfile": "GPU direct storage", "dev-dax": "persistent memory",
    "libpmem": "persistent memory",
    "external": "an external engine", "guasi": "GUASI", "cpp_null": "an external C++ engine",
    "page_fault": "memory page faults", "ime_psync": "DDN IME", "ime_psyncv": "DDN IME",
    "ime_aio": "DDN IME",
}  # fmt: skip

# Accepted with a warning: options with no effect on what the simulated drive sees (or
# sees differently only in ways the model does not represent). name -> why. Listed by
# `--parse-only` and every run on stderr, in the JSON's `ssdlab.not_simulated`, and in
# docs/fio.md.
_FILES = "host file/device setup; the simulated drive is the target"
_CPU = "host CPU, NUMA and process placement; the model has no host CPU"
_ENGINE = "host I/O engine submission mechanics; the model refills its queue at each completion"
_PRIO = "I/O priority; the simulated drive does not schedule by priority"
_DATA = "buffer contents; the model carries no data (no compression or deduplication)"
_VERIFY = "verify detail; with verify, ssdlab's read-after-write oracle checks every read"
_LOG = "logging or reporting switch; ssdlab reports its own statistics"
_ERR = "I/O error handling; the simulated drive returns no errors"
_RAND = "host random number choice; ssdlab's offsets come from its own seeded generator"
_SYNC = (
    "O_SYNC on buffered writes; the model's host has no page cache (fsync=N and end_fsync "
    "issue Flush commands)"
)
_PI = "end-to-end protection information; metadata is not transferred in the model"
_TIMING = "host timing detail; the model has no host-side clock or CPU"
NO_EFFECT: dict[str, str] = {
    **dict.fromkeys((
        "filename", "directory", "nrfiles", "nr_files", "openfiles", "filename_format",
        "create_on_open", "allow_file_create", "unlink", "fallocate", "create_serialize",
        "invalidate", "pre_read", "overwrite", "file_service_type", "uri",
        "libblkio_driver", "libblkio_path", "cmd_type", "replay_redirect", "sg_write_mode",
        "write_mode", "pool", "volume",
    ), _FILES),
    "filename": "a single drive is the target; with a system file (docs/nvmeof.md) it "
    "names the job's drives",
    "uri": "the NBD server's address (ioengine=nbd, libblkio); ssdlab fio simulates the drive "
    "itself, so the same file also runs in fio against ssdlab serve",
    "direct": "host page cache; every simulated I/O reaches the drive, as with direct=1",
    "buffered": "host page cache; every simulated I/O reaches the drive, as with direct=1",
    **dict.fromkeys((
        "thread", "threads", "cpus_allowed", "cpus_allowed_policy", "cpumask",
        "numa_cpu_nodes", "numa_mem_policy", "nice", "uid", "gid", "mem", "iomem",
    ), _CPU),
    **dict.fromkeys((
        "iodepth_batch", "iodepth_batch_submit", "iodepth_batch_complete",
        "iodepth_batch_complete_min", "iodepth_batch_complete_max", "iodepth_low",
        "io_submit_mode", "sqthread_poll", "sqthread_poll_cpu", "registerfiles", "fixedbufs",
        "hipri", "nonvectored", "busy_poll",
    ), _ENGINE),
    **dict.fromkeys((
        "prio", "prioclass", "cmdprio", "cmdprio_class", "cmdprio_percentage",
        "cmdprio_bssplit", "log_prio",
    ), _PRIO),
    **dict.fromkeys((
        "buffer_pattern", "scramble_buffers", "refill_buffers", "zero_buffers",
        "buffer_compress_percentage", "buffer_compress_chunk", "dedupe_percentage",
        "dedupe_mode", "dedupe_working_set_percentage", "dedupe_global",
    ), _DATA),
    **dict.fromkeys((
        "verify_pattern", "verify_interval", "verify_fatal", "verify_async", "verify_backlog",
        "verify_dump", "verify_write_sequence", "verify_state_save", "verify_state_load",
    ), _VERIFY),
    **dict.fromkeys((
        "disable_lat", "disable_clat",
        "disable_slat", "disable_bw_measurement", "clat_percentiles", "lat_percentiles",
        "slat_percentiles", "block_error_percentiles", "description", "stats", "unit_base",
    ), _LOG),
    **dict.fromkeys(("continue_on_error", "ignore_error", "error_dump", "skip_bad"), _ERR),
    **dict.fromkeys(("randrepeat", "allrandrepeat"), _RAND),
    "softrandommap": "the fallback when fio cannot allocate its random map; ssdlab's map "
    "needs no memory, so it is always kept (as fio keeps it when the allocation succeeds)",
    **dict.fromkeys(("sync",), _SYNC),
    **dict.fromkeys(("pi_act", "pi_chk", "apptag", "apptag_mask", "md_per_io_size"), _PI),
    **dict.fromkeys(
        ("gtod_reduce", "clocksource", "thinktime_spin", "grace_time", "cpumode", "cpuload"),
        _TIMING,
    ),
    "readfua": "Force Unit Access reads; the model's reads always come from NAND or its caches "
    "as they would",
    "writefua": "Force Unit Access writes; a job's writes are acknowledged from the write "
    "buffer (fsync=1 flushes after each; ssdlab serve honours NBD's FUA flag)",
    "flow_sleep": "flow control's retry wait; ssdlab paces flow groups by rate instead",
    "atomic": "atomic writes; simulated writes are never torn",
    "num_range": "ranges per trim command; the model trims each range as one command",
    "exit_what": "ends jobs when one finishes; ssdlab runs every job to its own end",
    "blockalign": "offset alignment; ssdlab aligns offsets to the job's smallest block size",
    "ba": "offset alignment; ssdlab aligns offsets to the job's smallest block size",
    "inplace": "e4defrag engine detail",
    "donorname": "e4defrag engine detail",
    "std_redirect": "exec engine detail",
}  # fmt: skip

# Options simulated (or mapped) by ssdlab, with what they become; docs/fio.md's table.
SIMULATED: dict[str, str] = {
    "name": "the job's name",
    "rw": "the access pattern (with :N and :±size modifiers; trimwrite, randtrimwrite)",
    "readwrite": "as rw",
    "bs": "block size per direction (read,write,trim; ',' or ':' between directions)",
    "blocksize": "as bs",
    "bsrange": "random block size in [lo, hi] (lo-hi or lo:hi)",
    "blocksize_range": "as bsrange",
    "bssplit": "weighted block sizes (the read split when directions differ)",
    "iodepth": "queue depth per job",
    "numjobs": "clones of the job",
    "rwmixread": "read share of a mixed pattern",
    "rwmixwrite": "write share of a mixed pattern",
    "size": "the job's LBA span (default: the whole drive; % of the drive); beyond the drive "
    "(from `offset`) it is clamped to the drive with a warning, as fio clamps it to a "
    "device's size",
    "filesize": "as size",
    "offset": "start of the span (bytes or % of the drive)",
    "offset_increment": "each clone's offset moves by this much",
    "io_size": "bytes per job before it stops",
    "io_limit": "as io_size",
    "number_ios": "I/Os per job before it stops",
    "runtime": "simulated run time",
    "timeout": "as runtime",
    "time_based": "run for runtime, however much I/O that takes",
    "ramp_time": "warm-up excluded from the statistics",
    "startdelay": "the job starts this long after its group; its runtime and ramp count from "
    "then (as fio), and the host is idle until the first job starts (a drive that folds or "
    "collects when idle does so)",
    "loops": "repeats the I/O amount",
    "random_distribution": "random, zipf, pareto, normal, zoned",
    "percentage_random": "share of random offsets",
    "norandommap": "uniform random offsets drawn with replacement (default: fio's random map, "
    "every block of the span once per pass before any repeats)",
    "random_generator": "tausworthe, tausworthe64: the random map (a new order each pass); "
    "lfsr: each block once per pass in the same order, even with norandommap",
    "randseed": "the job's seed",
    "thinktime": "pause after thinktime_blocks I/Os",
    "thinktime_blocks": "I/Os between pauses",
    "rate_iops": "open-loop submission rate",
    "rate": "submission rate in bytes/s (each I/O's gap is its length at the rate)",
    "rate_process": "linear (even gaps) or poisson (exponential gaps)",
    "rate_min": "per direction, bytes/s: a job whose rate over a ratecycle (after 2 s) falls "
    "below it ends there with error 5, as in fio",
    "ratemin": "as rate_min",
    "rate_iops_min": "per direction, I/Os per second: as rate_min",
    "ratecycle": "the window rate_min and rate_iops_min are checked over (ms, default 1000)",
    "exitall": "when one job ends, every other job ends; later phases do not run",
    "latency_run": "with latency_target: 1 runs the job to its end at the depth found; 0 (fio's "
    "default) ends it after the search",
    "read_iolog": "replays the I/O log",
    "replay_no_stall": "replays the log as fast as the drive allows",
    "replay_time_scale": "replays the log's timing scaled",
    "write_iolog": "writes the I/Os each clone issued, with their simulated issue times, as a "
    "fio iolog v3 file",
    "write_lat_log": "fio's NAME_lat/clat/slat.X.log of the simulated latencies (ns)",
    "write_bw_log": "fio's NAME_bw.X.log of the simulated bandwidth (KiB/s)",
    "write_iops_log": "fio's NAME_iops.X.log of the simulated IOPS",
    "write_hist_log": "fio's NAME_clat_hist.X.log: completion-latency histograms per "
    "log_hist_msec window",
    "log_avg_msec": "averages the logs over windows of this many ms (0: one entry per I/O)",
    "log_hist_msec": "the window of write_hist_log's histograms (0: no entries, as fio)",
    "log_offset": "adds each I/O's offset to per-I/O log entries",
    "per_job_logs": "0: jobs sharing a log name write one file",
    "fill_device": "size = the rest of the drive from offset; the job writes it once",
    "fsync": "an NVMe Flush after every N writes, once the job's I/Os in flight have "
    "completed; it completes when the buffered data is programmed",
    "fdatasync": "as fsync",
    "write_barrier": "as fsync (a flush after every N-th write)",
    "end_fsync": "an NVMe Flush when the job's I/O is done; the job ends when it completes",
    "fsync_on_close": "as end_fsync (the job's one file, the drive, closes at its end)",
    "verify": "fio's read-back pass after a job's writes, checked by the model's "
    "read-after-write oracle (any method but 0/null)",
    "do_verify": "do_verify=0 turns verify (and its read-back pass) off",
    "flow": "jobs sharing a flow_id are paced in the ratio of their weights (from a first "
    "run's rates)",
    "flow_id": "the flow group (default 0)",
    "stonewall": "a new phase after every earlier job",
    "wait_for_previous": "as stonewall",
    "new_group": "a new phase (ssdlab's reporting groups are its phases)",
    "wait_for": "a new phase after the named job",
    "steadystate": "fio's steady-state detection on the simulated I/O (1 s samples); the job "
    "stops when attained",
    "ss": "as steadystate",
    "steadystate_duration": "window of the steady-state check",
    "ss_dur": "as steadystate_duration",
    "steadystate_ramp_time": "time before steady-state checks start",
    "ss_ramp": "as steadystate_ramp_time",
    "steadystate_check_interval": "seconds between steady-state samples (default 1)",
    "ss_interval": "as steadystate_check_interval",
    "latency_target": "finds the highest queue depth up to iodepth whose latency percentile "
    "meets the target, then runs at it",
    "latency_window": "the window each tried queue depth runs for",
    "latency_percentile": "the percentile compared with latency_target",
    "group_reporting": "fio's per-group report",
    "percentile_list": "the reported percentiles (up to 20, each in (0, 100])",
    "kb_base": "1000 or 1024 for the k/m/g suffixes of the options after it",
    "ioengine": "block engines (libaio, io_uring, sync, nbd, ...) are replaced by the simulated "
    "NVMe path; other engines are refused",
    **ZONE_SIMULATED,
}

# Options whose meaning the simulator cannot honour: a job using one is refused.
UNSUPPORTED = {
    "flow_watermark": "fio's flow_watermark is not modelled (flow weights are)",
    "sprandom": "sprandom preconditioning is not modelled (use --state steady)",
    "spr_op": "sprandom preconditioning is not modelled",
    "spr_num_regions": "sprandom preconditioning is not modelled",
    "random_sequence_stride": "random_distribution=sequence is not modelled",
    "trim_percentage": "trims mixed into writes (trim_percentage) are not modelled",
    "trim_backlog": "trims mixed into writes are not modelled",
    "trim_backlog_batch": "trims mixed into writes are not modelled",
    "verify_only": "verify-only runs read data written by an earlier run",
    "experimental_verify": "experimental verify replays written data",
    "trim_verify_zero": "trim verification reads trimmed data",
    "pingpong": "network engine option",
}

# Options of engines ssdlab refuses: using one names the engine it belongs to.
ENGINE_OPTIONS = {
    **dict.fromkeys(("hostname", "port", "protocol", "listen", "interface", "ttl",
                     "nodelay", "window_size", "mss"), "net"),
    **dict.fromkeys(("verb", "bindname"), "rdma"),
    **dict.fromkeys(("https", "http_verbose", "http_mode", "http_host", "http_user",
                     "http_pass", "http_s3_key", "http_s3_keyid", "http_s3_region",
                     "http_swift_auth_token", "http_s3_storage_class",
                     "http_s3_sse_customer_key", "http_s3_sse_customer_algorithm"), "http"),
    **dict.fromkeys(("clientname", "rbdname", "busy_poll_rbd", "conf", "clustername"),
                    "rbd"),
    "brick": "gfapi", "nfs_url": "nfs", "program": "exec", "arguments": "exec",
    "cont": "dfs", "chunk_size": "dfs", "object_class": "dfs", "namenode": "libhdfs",
    "hdfsdirectory": "libhdfs", "gpu_dev_ids": "libcufile", "cuda_io": "libcufile",
    "rocm_io": "libhipfile", "gpu_dev_id": "rdma",
}  # fmt: skip

RW_NAMES = {
    "read": "read", "write": "write", "trim": "trim", "randread": "randread",
    "randwrite": "randwrite", "randtrim": "randtrim", "rw": "rw", "readwrite": "rw",
    "randrw": "randrw", "trimwrite": "trimwrite", "randtrimwrite": "randtrimwrite",
}  # fmt: skip

# fio 3.33's verify methods (`fio --cmdhelp verify`); an unknown one fio refuses, and so
# does ssdlab (the audit of issue 31 found verify=sha9999 accepted).
VERIFY_METHODS = ("0", "md5", "crc64", "crc32", "crc32c-intel", "crc32c", "crc16", "crc7",
                  "sha1", "sha256", "sha512", "sha3-224", "sha3-256", "sha3-384", "sha3-512",
                  "xxhash", "meta", "pattern", "null")  # fmt: skip


class Unsupported(JobFileError):
    """A job file that is valid fio but cannot be simulated (with a one-line reason)."""


@dataclass
class Job:
    name: str
    where: str
    opts: dict[str, str | None]  # the section's own options (fio's "job options")
    spec: dict[str, Any]  # the ssdlab job
    group_reporting: bool = False
    percentile_list: list[float] | None = None
    capped: bool = False
    time_based: bool = False
    verify: bool = False
    # Per direction ("read", "write", "trim"): bytes/s and I/Os per second; checked
    # every ratecycle ms once the job has run 2 s.
    rate_min: dict[str, int] = field(default_factory=dict)
    rate_iops_min: dict[str, int] = field(default_factory=dict)
    ratecycle_ms: int = 1000
    exitall: bool = False
    latency_run: bool = False
    ss: dict[str, Any] | None = None  # steady-state detection: kind, limit, pct, dur, ramp
    latency_target: dict[str, Any] | None = None  # target_ns, window_ns, percentile
    write_iolog: str | None = None
    # fio's write_{lat,bw,iops,hist}_log: {"lat"|"bw"|"iops"|"hist": name or "" (the
    # job's name), "avg_msec", "hist_msec", "offset", "per_job"} (fio/logs.py)
    logs: dict[str, Any] | None = None
    flow: int = 0  # weight in its flow group (0: not flow-controlled)
    flow_id: int = 0

    def describe(self) -> str:
        """One line, e.g. ``randread-4k \u00d74: randread 4KiB QD32, 30 s``."""
        s = self.spec
        n = int(s.get("numjobs", 1))
        head = f"{self.name} \u00d7{n}" if n > 1 else self.name
        if "_trace" in s:
            return f"{head}: replay {s['_trace'].get('path')}, QD{s.get('iodepth', 1)}"
        bs = _size_text(s.get("bs", "4096B"))
        stops = []
        if "number_ios" in s:
            stops.append(f"{s['number_ios']:,} I/Os" + (" (capped)" if self.capped else ""))
        if "io_size" in s:
            stops.append(_size_text(s["io_size"]))
        if "runtime" in s:
            secs = int(s["runtime"][:-2]) / 1e9
            stops.append(f"{secs:g} s" + ("" if self.time_based else " at most"))
        if not stops or s.get("_io_size_is_size"):
            stops.insert(0, "its span once")
        ramp = f", ramp {int(s['ramp_time'][:-2]) / 1e9:g} s" if "ramp_time" in s else ""
        extra = "".join(
            text
            for key, text in (
                ("fsync", f", a flush every {s.get('fsync')} writes"),
                ("end_fsync", ", a flush at the end"),
                ("verify_readback", ", then reads back what it wrote"),
            )
            if s.get(key)
        )
        return (
            f"{head}: {s.get('rw', 'read')} {bs} QD{s.get('iodepth', 1)}, "
            + " or ".join(stops)
            + ramp
            + extra
        )


def _size_text(v: str) -> str:
    """'4096B' -> '4KiB' (binary units when exact)."""
    b = int(v[:-1]) if isinstance(v, str) and v.endswith("B") else int(v)
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale and b % scale == 0:
            return f"{b // scale}{unit}"
    return f"{b}B"


@dataclass
class JobFile:
    jobs: list[Job]
    global_opts: dict[str, str | None]
    not_simulated: list[str] = field(default_factory=list)
    # "file:line: option: no effect on the simulation (why)", one per option name.
    warnings: list[str] = field(default_factory=list)
    # What it was resolved from, to resolve again with a zoned drive's zone size.
    sections: list = field(default_factory=list, repr=False)
    max_ios: Any = "default"

    @property
    def verify(self) -> bool:
        return any(j.verify for j in self.jobs)

    @property
    def exitall(self) -> bool:
        return any(j.exitall for j in self.jobs)


def _bs_list(v: str, where: str, name: str, kb: int) -> list[int]:
    """Per-direction values: fio 3.33 takes ',' and ':' (and, for bs, '-') between the
    read, write and trim values (observed: bs=4k:64k is 4 KiB reads, 64 KiB writes)."""
    parts = re.split(r"[,:]", v)
    if len(parts) == 1 and "-" in v:
        parts = v.split("-")
    return [parse_size(x, where, name, kb) for x in parts if x.strip()]


def _bssplit(v: str, where: str, kb: int) -> list[list[Any]]:
    part = v.split(",")[0]  # the read split (per-direction splits: reads' is used)
    out = []
    for item in part.split(":"):
        if not item.strip():
            continue
        if "/" in item:
            b, pct = item.split("/", 1)
            p = parse_int(pct.strip() or "0", where, "bssplit")
        else:
            b, p = item, -1
        out.append([parse_size(b, where, "bssplit", kb), p])
    known = sum(p for _, p in out if p >= 0)
    free = [x for x in out if x[1] < 0]
    for x in free:  # fio shares what is left among entries without a percentage
        x[1] = (100 - known) // len(free)
    if free:
        free[-1][1] += 100 - sum(p for _, p in out)
    return [[f"{b}B", p] for b, p in out]


DEFAULT_MAX_IOS = 200_000


def resolve(
    sections: list[Section],
    max_ios: int | str | None = "default",
    drive_zone_size: int | None = None,
) -> JobFile:
    """Turn parsed sections into ssdlab jobs (raises JobFileError / Unsupported).

    `drive_zone_size`: the zone size of the zoned drive the file runs on (`[zns]`), which
    zonemode=zbd jobs without zonesize and sizes in zones take, as fio takes the device's."""
    cap_timed = max_ios != "default"
    if not cap_timed:
        max_ios = DEFAULT_MAX_IOS
    global_opts: list = []
    global_view: dict[str, str | None] = {}
    jobs: list[Job] = []
    not_sim: list[str] = []
    warnings: dict[str, str] = {}
    group = 0
    for sec in sections:
        if sec.name == "global":
            global_opts.extend(sec.opts)
            for o in sec.opts:
                global_view[o.name] = o.value
            continue
        opts = global_opts + sec.opts
        own = {o.name: o.value for o in sec.opts}
        for o in opts:
            if o.name == "wait_for" and (o.value or "").strip() not in {j.name for j in jobs}:
                earlier = ", ".join(j.name for j in jobs) or "none"
                raise JobFileError(
                    f"{o.where}: wait_for={(o.value or '').strip()}: no earlier job of that name "
                    f"(allowed: the name of an earlier job: {earlier})"
                )
        job, new_phase = _job(
            sec, opts, own, not_sim, max_ios, cap_timed, warnings, drive_zone_size
        )
        if new_phase and jobs:
            group += 1
        job.spec["group"] = group
        jobs.append(job)
    if not jobs:
        raise JobFileError(f"{sections[0].where if sections else 'job file'}: no job sections")
    check_shared_zones(jobs)
    jf = JobFile(jobs, global_view, sorted(set(not_sim)), list(warnings.values()))
    jf.sections, jf.max_ios = sections, max_ios if cap_timed else "default"
    return jf


def _iolog_path(v: str, where: str) -> str:
    """fio opens the iolog from the working directory; a job file shipped with its log
    usually names it relative to itself, so that is tried next."""
    from pathlib import Path

    p = Path(v.strip())
    if p.is_absolute() or p.exists():
        return str(p)
    beside = Path(where.rsplit(":", 1)[0]).parent / p
    return str(beside if beside.exists() else p)


def _ss_criterion(v: str, w: str, n: str) -> dict[str, Any]:
    """fio's steady-state criterion: iops, bw, lat (mean latency, newer fio), iops_slope
    or bw_slope, ':' and a limit, a percentage of the mean or (iops) I/Os per second /
    (bw) bytes per second / (lat) nanoseconds."""
    kind, _, lim = v.strip().partition(":")
    kind = kind.strip().lower()
    if kind not in ("iops", "bw", "lat", "iops_slope", "bw_slope") or not lim.strip():
        raise JobFileError(
            f"{w}: {n}={v}: expected iops:X, bw:X, lat:X, iops_slope:X or bw_slope:X (X a "
            "number or a percentage)"
        )
    lim = lim.strip()
    pct = lim.endswith("%")
    if pct:
        limit = parse_float(lim[:-1], w, n, 0, 100)
    elif kind.startswith("bw"):
        limit = float(parse_size(lim, w, n))
    elif kind == "lat":
        limit = float(parse_time_ns(lim, w, n, default_unit="us"))
    else:
        limit = parse_float(lim, w, n, 0, 1e15)
    return {"kind": kind, "limit": limit, "pct": pct, "text": v.strip()}


def _job(
    sec: Section,
    opts,
    own,
    not_sim: list[str],
    max_ios: int | None,
    cap_timed: bool,
    warnings: dict[str, str],
    drive_zone_size: int | None = None,
):
    kb = 1024  # kb_base applies to the options after it, as fio parses in order
    spec: dict[str, Any] = {"name": sec.name}
    new_phase = False
    time_based = False
    loops = 1
    size = None
    gr = False
    pct_list = None
    fill = False
    rate_min: dict[str, int] = {}
    rate_iops_min: dict[str, int] = {}
    ratecycle = 1000
    exitall = latency_run = False
    sync_where = None
    verify = False
    do_verify = True
    verify_cmd = False
    ss: dict[str, Any] = {}
    lt: dict[str, Any] = {}
    lt_where = sec.where
    iolog_out = None
    iolog_where = sec.where
    logs: dict[str, Any] = {}
    log_opts = {"avg_msec": 0, "hist_msec": 0, "offset": False, "per_job": True}
    flow = flow_id = 0
    bsrange_where = None
    zone_size = zone_size_of(opts) or drive_zone_size
    zopts = ZoneOptions(zone_size, drive_zone_size)

    def warn(o, why: str) -> None:
        not_sim.append(o.name)
        if o.name not in warnings:
            warnings[o.name] = f"{o.where}: {o.name}: no effect on the simulation ({why})"

    # The engine decides whether the job is block I/O at all (and which options exist).
    for o in opts:
        if o.name == "ioengine":
            eng = (o.value or "").split(":")[0].strip()
            if eng in OTHER_ENGINES:
                raise Unsupported(
                    f"{o.where}: ioengine={eng}: does {OTHER_ENGINES[eng]}, "
                    "not block I/O to a drive"
                )
    for o in opts:
        n, v, w = o.name, o.value, o.where
        if n in UNSUPPORTED:
            raise Unsupported(f"{w}: {n}: {UNSUPPORTED[n]}")
        if n in ENGINE_OPTIONS:
            raise JobFileError(
                f"{w}: {n}: an option of ioengine={ENGINE_OPTIONS[n]}, which this job does "
                "not use (and ssdlab does not simulate)"
            )
        if n == "ioengine":
            eng = (v or "").split(":")[0].strip()
            if eng in OTHER_ENGINES:
                raise Unsupported(
                    f"{w}: ioengine={eng}: does {OTHER_ENGINES[eng]}, not block I/O to a drive"
                )
            if eng not in BLOCK_ENGINES:
                raise JobFileError(
                    f"{w}: ioengine={eng}: unknown I/O engine (block engines: "
                    f"{', '.join(sorted(BLOCK_ENGINES))})"
                )
            if eng == "null":
                warn(o, "a real run with the null engine does no I/O; ssdlab simulates the drive")
            else:
                warn(o, "block I/O engine; the simulated NVMe path replaces it")
            continue
        if n == "kb_base":
            kb = parse_int(v or "", w, n)
            if kb not in (1000, 1024):
                raise JobFileError(f"{w}: kb_base={v}: expected 1000 or 1024")
            continue
        if zopts.take(n, v, w, kb):
            continue
        if n == "group_reporting":
            gr = parse_bool(v, w, n)
            continue
        if n == "percentile_list" and v:
            pct_list = []
            for x in (x for x in v.replace(",", ":").split(":") if x.strip()):
                try:
                    pct_list.append(parse_float(x, w, n, 1e-9, 100))
                except JobFileError:
                    raise JobFileError(
                        f"{w}: percentile_list={v}: '{x.strip()}' is not a percentile "
                        "(allowed: numbers above 0 up to 100, separated by ':')"
                    ) from None
            if not 1 <= len(pct_list) <= 20:
                raise JobFileError(f"{w}: percentile_list={v}: give 1 to 20 percentiles")
            continue
        if n in ("direct", "buffered"):
            buffered = parse_bool(v, w, n) == (n == "buffered")
            why = NO_EFFECT[n]
            if buffered:
                why += "; a real run with the page cache would differ"
            warn(o, why)
            continue
        if n in ("sg_write_mode", "write_mode"):
            mode = (v or "write").strip().lower()
            if mode.startswith("verify"):
                verify_cmd = True
                warn(o, f"{n}={mode}: the drive's verify commands are simulated as reads")
            elif n == "write_mode" and mode == "zone_append":
                # io_uring_cmd: writes go out as NVMe Zone Append commands (a zoned drive).
                spec["zone_append"] = True
            elif mode != "write":
                warn(o, f"{n}={mode}: simulated as plain writes")
            else:
                warn(o, NO_EFFECT[n])
            continue
        if n == "filename" and v:
            spec["filename"] = v.strip()  # a system run's drives; a single drive ignores it
        if n in NO_EFFECT:
            warn(o, NO_EFFECT[n])
            continue
        if v is None and n not in (
            "time_based", "stonewall", "wait_for_previous", "new_group", "norandommap",
            "end_fsync", "fsync_on_close", "exitall", "latency_run", "write_bw_log",
            "write_lat_log", "write_iops_log", "write_hist_log",
        ):  # fmt: skip
            raise JobFileError(f"{w}: {n}: needs a value ({n}=...)")
        if n in ("name",):
            spec["name"] = v
        elif n in ("rw", "readwrite"):
            base, _, mod = v.partition(":")
            base = base.strip()
            if base not in RW_NAMES:
                raise JobFileError(f"{w}: rw={v}: unknown pattern (allowed: {', '.join(RW_NAMES)})")
            spec["rw"] = RW_NAMES[base]
            spec.pop("seq_skip", None)
            spec.pop("seq_skip_back", None)
            spec.pop("random_run", None)
            mod = mod.strip()
            if mod:
                if base.startswith("rand"):
                    spec["random_run"] = parse_int(mod, w, "rw", 1, 1 << 32)
                elif mod.startswith("-"):
                    spec["seq_skip_back"] = f"{parse_size(mod[1:], w, 'rw', kb)}B"
                else:
                    spec["seq_skip"] = f"{parse_size(mod.lstrip('+'), w, 'rw', kb)}B"
        elif n in ("bs", "blocksize"):
            sizes = _bs_list(v, w, n, kb)
            if not sizes:
                raise JobFileError(f"{w}: {n}={v}: expected a block size")
            odd = next((b for b in sizes if b % 512), None)
            if odd is not None:
                raise Unsupported(
                    f"{w}: {n}={v}: a {odd}-byte block is not simulated (extended-LBA formats "
                    "with metadata are not modelled; block sizes are multiples of 512 bytes)"
                )
            spec["bs"] = f"{sizes[0]}B"
            if len(sizes) > 1 and sizes[1] != sizes[0]:
                spec["bs_write"] = f"{sizes[1]}B"
        elif n in ("bsrange", "blocksize_range"):
            ranges = [parse_range(x, w, n, kb) for x in v.split(",") if x.strip()]
            if not ranges:
                raise JobFileError(f"{w}: {n}={v}: expected a range such as 4k-64k or 512:1M")
            bsrange_where = (w, v, n)
            spec["bsrange"] = [f"{ranges[0][0]}B", f"{ranges[0][1]}B"]
            spec["_bsrange_write"] = ranges[1] if len(ranges) > 1 else ranges[0]
        elif n == "bssplit":
            spec["bssplit"] = _bssplit(v, w, kb)
        elif n == "iodepth":
            spec["iodepth"] = parse_int(v, w, n, 1, 65536)
        elif n == "numjobs":
            spec["numjobs"] = parse_int(v, w, n, 1, 4096)
        elif n == "rwmixread":
            spec["rwmixread"] = parse_int(v, w, n, 0, 100)
        elif n == "rwmixwrite":
            spec["rwmixread"] = 100 - parse_int(v, w, n, 0, 100)
        elif n in ("size", "filesize"):
            size = str(size_or_zones(v, w, n, kb, zone_size, zopts)) if is_zones(v) else v
        elif n == "offset":
            spec["offset"] = (
                v if v.strip().endswith("%") else f"{size_or_zones(v, w, n, kb, zone_size, zopts)}B"
            )
        elif n in ("io_size", "io_limit"):
            spec["io_size"] = f"{size_or_zones(v, w, n, kb, zone_size, zopts)}B"
        elif n == "number_ios":
            spec["number_ios"] = parse_int(v, w, n)
        elif n == "offset_increment":
            spec["_offset_increment"] = size_or_zones(v, w, n, kb, zone_size, zopts)
        elif n == "fill_device":
            fill = parse_bool(v, w, n)
        elif n == "startdelay":
            if "-" in v or ":" in v:
                raise JobFileError(
                    f"{w}: startdelay={v}: a random start delay range is not supported "
                    "(give one time)"
                )
            spec["startdelay"] = f"{parse_time_ns(v, w, n)}ns"
        elif n == "rate_process":
            if v.strip() not in ("linear", "poisson"):
                raise JobFileError(f"{w}: rate_process={v}: allowed: linear, poisson")
            spec["rate_process"] = v.strip()
        elif n in ("rate_min", "ratemin", "rate_iops_min"):
            # fio: one value is every direction's; read,write[,trim] otherwise.
            parts = v.split(",")
            if len(parts) == 1:
                parts = [parts[0], parts[0]]
            vals = {}
            for d, x in zip(("read", "write", "trim"), parts):
                if x.strip():
                    vals[d] = (
                        parse_int(x, w, n) if n == "rate_iops_min" else parse_size(x, w, n, kb)
                    )
            _need_values(list(vals.values()), w, n, v, "a rate, e.g. 10m or 10m,5m")
            if n == "rate_iops_min":
                rate_iops_min = {d: x for d, x in vals.items() if x}
            else:
                rate_min = {d: x for d, x in vals.items() if x}
        elif n == "ratecycle":
            ratecycle = parse_int(v, w, n, 1, 1 << 31)
        elif n == "exitall":
            exitall = parse_bool(v, w, n)
        elif n == "latency_run":
            latency_run = parse_bool(v, w, n)
        elif n == "verify":
            if v.strip().lower() not in VERIFY_METHODS:
                raise JobFileError(
                    f"{w}: verify={v.strip()[:40]}: not a verify method fio knows "
                    f"(allowed: {', '.join(VERIFY_METHODS)})"
                )
            verify = v.strip().lower() not in ("0", "null", "")
            if verify:
                warnings.setdefault(
                    "verify",
                    f"{w}: verify={v.strip()}: mapped to ssdlab's read-after-write oracle, which "
                    "checks every read of the run (fio's read-back pass after a job's writes "
                    "is simulated; the verify method itself is not)",
                )
        elif n in ("fsync", "fdatasync", "write_barrier"):
            every = parse_int(v, w, n, 0, 1 << 32)
            if every:
                spec["fsync"] = min(every, spec.get("fsync", every))
                sync_where = f"{w}: {n}"
        elif n in ("end_fsync", "fsync_on_close"):
            if parse_bool(v, w, n):
                spec["end_fsync"] = True
                sync_where = f"{w}: {n}"
        elif n == "do_verify":
            do_verify = parse_bool(v, w, n)
        elif n in ("steadystate", "ss"):
            ss["spec"] = _ss_criterion(v, w, n)
        elif n in ("steadystate_duration", "ss_dur"):
            ss["dur_ns"] = parse_time_ns(v, w, n)
        elif n in ("steadystate_ramp_time", "ss_ramp"):
            ss["ramp_ns"] = parse_time_ns(v, w, n)
        elif n in ("steadystate_check_interval", "ss_interval"):
            ss["interval_ns"] = parse_time_ns(v, w, n)
        elif n == "latency_target":
            lt["target_ns"] = parse_time_ns(v, w, n, default_unit="us")
            lt_where = w
        elif n == "latency_window":
            lt["window_ns"] = parse_time_ns(v, w, n, default_unit="us")
        elif n == "latency_percentile":
            lt["percentile"] = parse_float(v, w, n, 1e-9, 100)
        elif n == "flow":
            flow = parse_int(v, w, n, 0, 1 << 31)
        elif n == "flow_id":
            flow_id = parse_int(v, w, n, 0, 1 << 31)
        elif n == "write_iolog":
            iolog_out = v.strip()
            iolog_where = w
        elif n in ("write_lat_log", "write_bw_log", "write_iops_log", "write_hist_log"):
            logs[n.split("_")[1]] = (v or "").strip()
        elif n in ("log_avg_msec", "log_hist_msec"):
            log_opts[n[4:]] = parse_int(v, w, n, 0, 86_400_000)
        elif n == "log_offset":
            log_opts["offset"] = parse_bool(v, w, n)
        elif n == "per_job_logs":
            log_opts["per_job"] = parse_bool(v, w, n)
        elif n in ("runtime", "timeout"):
            spec["runtime"] = f"{parse_time_ns(v, w, n)}ns"
        elif n == "time_based":
            time_based = parse_bool(v, w, n)
        elif n == "ramp_time":
            spec["ramp_time"] = f"{parse_time_ns(v, w, n)}ns"
        elif n == "loops":
            loops = parse_int(v, w, n, 1, 1 << 32)
        elif n == "random_distribution":
            spec["random_distribution"] = v.strip()
        elif n == "read_iolog":
            spec.setdefault("_trace", {})["path"] = _iolog_path(v, w)
            from ssdlab.trace import iolog_version_error

            why = iolog_version_error(spec["_trace"]["path"])
            if why:
                raise JobFileError(f"{w}: read_iolog: {why}")
        elif n == "replay_no_stall":
            if parse_bool(v, w, n):
                spec.setdefault("_trace", {})["mode"] = "closed"
        elif n == "replay_time_scale":
            scale = parse_int(v, w, n)
            if not 1 <= scale <= 100_000:
                raise JobFileError(
                    f"{w}: replay_time_scale={v}: expected a percentage from 1 to 100000 "
                    "(a replay at most 1,000 times slower than the log)"
                )
            spec.setdefault("_trace", {})["speedup"] = 100 / scale
        elif n == "percentage_random":
            vals = [parse_int(x, w, n) for x in v.split(",") if x.strip()]
            _need_values(vals, w, n, v, "a percentage, e.g. 50")
            spec["percentage_random"] = vals[0]
        elif n == "randseed":
            spec["randseed"] = parse_int(v, w, n)
        elif n == "norandommap":
            spec["norandommap"] = parse_bool(v, w, n)
        elif n == "random_generator":
            gen = v.strip().lower()
            if gen not in ("tausworthe", "tausworthe64", "lfsr"):
                raise JobFileError(
                    f"{w}: random_generator={v}: allowed: tausworthe, lfsr, tausworthe64"
                )
            spec["random_generator"] = gen
        elif n == "thinktime":
            spec["thinktime"] = f"{parse_time_ns(v, w, n, default_unit='us')}ns"
        elif n == "thinktime_blocks":
            spec["thinktime_blocks"] = parse_int(v, w, n, 1, 1 << 32)
        elif n == "rate_iops":
            vals = [parse_int(x, w, n, 1) for x in v.split(",") if x.strip()]
            _need_values(vals, w, n, v, "I/Os per second, e.g. 1000 or 1000,500")
            spec["rate_iops"] = max(vals)
        elif n == "rate":
            vals = [parse_size(x, w, n, kb) for x in v.split(",") if x.strip()]
            _need_values(vals, w, n, v, "bytes per second, e.g. 100m")
            if max(vals) == 0:
                raise JobFileError(f"{w}: rate={v}: must be above 0 bytes/s")
            spec["rate_bytes"] = f"{max(vals)}B"
        elif n in ("stonewall", "wait_for_previous", "new_group"):
            if parse_bool(v, w, n):
                new_phase = True
        elif n == "wait_for":
            new_phase = True
        else:
            raise JobFileError(f"{w}: {n}: unknown or unsupported fio option")
    zoned = zopts.resolve(sec.where, sec.name)
    if zopts.needs_drive_zones:
        spec["_needs_drive_zones"] = True
    if zoned is not None and "_refused" in zoned:
        spec["_refused"] = zoned["_refused"]
    elif zoned is not None:
        spec["zoned"] = zoned
    fdp = zopts.fdp_spec(_iolog_path) if zopts.fdp else None
    if fdp is not None and "_refused" in fdp:
        spec["_refused"] = fdp["_refused"]
    elif fdp is not None:
        spec["fdp"] = fdp
    rw = spec.get("rw", "read")
    if "_bsrange_write" in spec:
        lo_hi = spec.pop("_bsrange_write")
        read_range = tuple(parse_size(x[:-1], sec.where, "bsrange") for x in spec["bsrange"])
        if lo_hi != read_range:
            if rw in ("rw", "randrw"):
                w, v, n = bsrange_where
                raise Unsupported(
                    f"{w}: {n}={v}: different read and write ranges in one mixed job are not "
                    "simulated (give one range)"
                )
            if "write" in rw:
                spec["bsrange"] = [f"{lo_hi[0]}B", f"{lo_hi[1]}B"]
    if verify_cmd:
        # SCSI/NVMe verify commands: the drive reads the blocks, nothing is written.
        spec["rw"] = {"write": "read", "randwrite": "randread"}.get(rw, rw)
    if fill:
        if "write" not in rw:
            raise JobFileError(
                f"{sec.where}: [{sec.name}]: fill_device needs a writing pattern (rw={rw})"
            )
        size = None  # the rest of the drive from offset, written once (fio: until ENOSPC)
    ss_job = None
    if ss:
        dur = ss.get("dur_ns", 0)
        if "spec" not in ss:
            raise JobFileError(f"{sec.where}: [{sec.name}]: ss_dur/ss_ramp need ss=...")
        if dur == 0:  # fio: a zero duration (the default) turns detection off
            warnings.setdefault(
                "ss", f"{sec.where}: ss: no effect on the simulation (ss_dur is 0, as in fio)"
            )
        elif (
            dur % 10**9
            or ss.get("ramp_ns", 0) % 10**9
            or ss.get("interval_ns", 10**9) % 10**9
            or not ss.get("interval_ns", 10**9)
            or dur % ss.get("interval_ns", 10**9)
        ):
            raise JobFileError(
                f"{sec.where}: [{sec.name}]: ss_dur, ss_ramp and steadystate_check_interval "
                "must be whole seconds, the duration a multiple of the interval"
            )
        else:
            ss_job = {
                **ss["spec"],
                "dur_s": dur // 10**9,
                "ramp_s": ss.get("ramp_ns", 0) // 10**9,
                "interval_s": ss.get("interval_ns", 10**9) // 10**9,
            }
    if lt:
        if "target_ns" not in lt:
            raise JobFileError(
                f"{lt_where}: [{sec.name}]: latency_window/latency_percentile need latency_target"
            )
        lt.setdefault("window_ns", 0)
        lt.setdefault("percentile", 100.0)
    if iolog_out is not None:
        if not iolog_out:
            raise JobFileError(f"{iolog_where}: write_iolog: needs a file name")
        if "read_iolog" in own or any(o.name == "read_iolog" for o in opts):
            raise JobFileError(
                f"{iolog_where}: write_iolog: not with read_iolog (the log replayed is the log)"
            )
        spec["log_ios"] = True
    if logs:
        logs.update(log_opts)
        spec["log_completions"] = True
    if verify and do_verify and "write" in spec.get("rw", "read") and "_trace" not in spec:
        spec["verify_readback"] = True  # fio reads back what the job wrote
    if "_trace" in spec and ("fsync" in spec or "end_fsync" in spec):
        raise JobFileError(
            f"{sync_where}: not with read_iolog (the replay issues the log's requests only)"
        )
    if size is not None:
        spec["_size"] = size
    if not time_based and "runtime" in spec and "io_size" not in spec and "number_ios" not in spec:
        spec["_io_size_is_size"] = True
    if time_based and "runtime" not in spec:
        raise JobFileError(f"{sec.where}: [{sec.name}]: time_based needs a runtime")
    if time_based:
        spec.pop("io_size", None)
    if loops > 1:
        spec["_loops"] = loops
    job = Job(
        spec["name"],
        sec.where,
        own,
        spec,
        gr,
        pct_list,
        time_based=time_based,
        verify=verify and do_verify,
        rate_min=rate_min,
        rate_iops_min=rate_iops_min,
        ratecycle_ms=ratecycle,
        exitall=exitall,
        latency_run=latency_run,
        ss=ss_job,
        latency_target=lt or None,
        write_iolog=iolog_out,
        logs=logs or None,
        flow=flow,
        flow_id=flow_id,
    )
    # A replayed log is finite and replayed whole (fio does the same); a job with a
    # runtime runs its simulated time unless the cap was asked for explicitly.
    timed = "runtime" in spec and not cap_timed
    if (
        max_ios
        and not timed
        and "_trace" not in spec
        and spec.get("number_ios", max_ios + 1) > max_ios
    ):
        spec["number_ios"] = max_ios
        job.capped = True
    return job, new_phase


def finish(
    jf: JobFile, capacity_bytes: int, warn: Callable[[str], None] | None = None
) -> list[dict[str, Any]]:
    """The ssdlab jobs for a drive of `capacity_bytes` (sizes in % resolved)."""
    return [s for _, s in finish_owned(jf, capacity_bytes, warn)]


def finish_owned(
    jf: JobFile, capacity_bytes: int, warn: Callable[[str], None] | None = None
) -> list[tuple[int, dict[str, Any]]]:
    """`finish`, each ssdlab job with the index of the job section it comes from.

    A size beyond the drive (from the job's offset) is clamped to it, as fio clamps
    ``size`` to a block device's size (``setup_files``), and said through ``warn``: a job
    file written for a larger drive runs on a smaller one (several devices, one job file).
    A size in % of the drive that reaches past its end from ``offset`` is bounded without
    a warning, as fio bounds it."""
    out = []
    for ji, job in enumerate(jf.jobs):
        s = dict(job.spec)
        if "_refused" in s:
            raise Unsupported(s["_refused"])
        s.pop("_needs_drive_zones", None)
        size = s.pop("_size", None)
        span = capacity_bytes
        asked = None  # an absolute size, in bytes
        if size is not None:
            if size.strip().endswith("%"):
                pct = _percent(size, job, "size", 0 < _pct(size) <= 100, "above 0 up to 100")
                span = int(capacity_bytes * pct / 100) // 4096 * 4096
            else:
                span = asked = parse_size(size, job.where, "size")
            span = min(span, capacity_bytes)
        off = s.get("offset")
        off_b = 0
        if isinstance(off, str) and off.endswith("%"):
            pct = _percent(off, job, "offset", 0 <= _pct(off) < 100, "0 up to below 100")
            off_b = int(capacity_bytes * pct / 100) // 4096 * 4096
            s["offset"] = f"{off_b}B"
        elif off:
            off_b = int(off[:-1])
        if off_b >= capacity_bytes:
            raise JobFileError(
                f"{job.where}: [{job.name}]: offset: {off_b} bytes is at or beyond the end of "
                f"the device (allowed: below its capacity, {capacity_bytes} bytes)"
            )
        span = min(span, capacity_bytes - off_b)
        if asked is not None and asked > span and warn is not None:
            warn(
                f"{job.where}: [{job.name}]: size={size.strip()} ({asked:,} bytes) is beyond "
                f"the drive: clamped to {span:,} bytes (at most the capacity, "
                f"{capacity_bytes:,} bytes, less offset {off_b:,}), as fio clamps size to "
                "a device's size"
            )
        s["size"] = f"{span}B"
        loops = s.pop("_loops", 1)
        if s.pop("_io_size_is_size", False) or loops > 1:
            base = int(s["io_size"][:-1]) if "io_size" in s else span
            s["io_size"] = f"{base * loops}B"
        if "runtime" not in s and "io_size" not in s and "_trace" not in s:
            # fio's default stop: io_size = size, one pass (number_ios only stops sooner).
            s["io_size"] = f"{span * loops}B"
            if job.capped and span * loops // _min_bs(s) <= s.get("number_ios", 0):
                s.pop("number_ios")  # the pass ends before the cap: no cap applies
                job.capped = False
        trace = s.pop("_trace", None)
        if trace is not None:
            if "path" not in trace:
                raise JobFileError(f"{job.where}: [{job.name}]: replay_* options need read_iolog")
            # fio replays the log as timed unless replay_no_stall; the job's I/O count
            # (or ssdlab's cap) bounds the requests taken from it.
            s["trace"] = {"mode": "timed", **trace}
            if "number_ios" in s:
                s["trace"]["max_requests"] = s["number_ios"]
            for k in ("rw", "bs", "number_ios", "io_size", "runtime", "size", "offset"):
                s.pop(k, None)
        inc = s.pop("_offset_increment", 0)
        _check(s, job, capacity_bytes)
        n = int(s.get("numjobs", 1))
        if inc and n > 1:
            # fio: clone i starts at offset + i * offset_increment (same size).
            for i in range(n):
                c = dict(s, numjobs=1, offset=f"{off_b + i * inc}B")
                c["size"] = f"{min(span, max(0, capacity_bytes - off_b - i * inc))}B"
                if int(c["size"][:-1]) < 512:
                    raise JobFileError(
                        f"{job.where}: [{job.name}]: offset_increment: clone {i} starts at "
                        f"{off_b + i * inc} bytes, beyond the drive's {capacity_bytes} bytes"
                    )
                _check(c, job, capacity_bytes)
                out.append((ji, c))
        else:
            out.append((ji, s))
    return out


def _need_values(vals: list, where: str, name: str, text: str, allowed: str) -> None:
    """An option whose comma-separated value lists nothing (``rate_iops=``, ``rate=,``)."""
    if not vals:
        raise JobFileError(f"{where}: {name}={text}: needs a value (allowed: {allowed})")


def _min_bs(s: dict) -> int:
    """The smallest block size a resolved ssdlab job issues."""
    sizes = [s.get("bs", "4096B"), s.get("bs_write", s.get("bs", "4096B"))]
    if "bsrange" in s:
        sizes = [s["bsrange"][0]]
    if s.get("bssplit"):
        sizes = [b for b, _ in s["bssplit"]]
    return max(512, min(int(str(b).rstrip("B")) for b in sizes))


def _pct(text: str) -> float:
    try:
        return float(text.strip()[:-1])
    except ValueError:
        return float("nan")


def _percent(text: str, job: Job, name: str, ok: bool, allowed: str) -> float:
    """A percentage of the device (size=50%, offset=25%), checked against its range."""
    if not ok:
        raise JobFileError(
            f"{job.where}: [{job.name}]: {name}={text.strip()}: not allowed "
            f"(a percentage of the device from {allowed})"
        )
    return _pct(text)


def _check(spec: dict, job: Job, capacity_bytes: int) -> None:
    """Let the simulator check the job; its complaint becomes a job-file error."""
    import json

    from ssdlab import _core

    try:
        _core.validate_workload(json.dumps(spec), [], capacity_bytes)
    except _core.ConfigError as e:
        first = str(e).splitlines()[0].split(": ", 1)[-1]
        raise Unsupported(f"{job.where}: [{job.name}]: {first}") from None


def option_status(name: str) -> tuple[str, str]:
    """How ssdlab treats a fio option: (status, what it becomes or why), status one of
    simulated, no effect, refused (docs/fio.md's table)."""
    n = name.lower()
    if n in SIMULATED:
        return "simulated", SIMULATED[n]
    if n in NO_EFFECT:
        return "no effect", NO_EFFECT[n]
    if n in UNSUPPORTED:
        return "refused", UNSUPPORTED[n]
    if n in FDP_OPTIONS:
        return "simulated", FDP_SIMULATED[n]
    if n in ENGINE_OPTIONS:
        eng = ENGINE_OPTIONS[n]
        return "refused", f"an option of ioengine={eng}, which is refused ({OTHER_ENGINES[eng]})"
    return "refused", "not a fio option ssdlab knows"
