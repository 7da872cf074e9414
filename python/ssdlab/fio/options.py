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

from dataclasses import dataclass, field
from typing import Any

from ssdlab.fio.parser import (
    JobFileError,
    Section,
    parse_bool,
    parse_int,
    parse_size,
    parse_time_ns,
)

# Engines that submit block I/O to a drive: the simulated NVMe path replaces them.
BLOCK_ENGINES = {
    "libaio", "io_uring", "io_uring_cmd", "sync", "psync", "vsync", "pvsync", "pvsync2",
    "posixaio", "solarisaio", "windowsaio", "mmap", "sg", "null", "libblkio", "xnvme",
    "spdk", "splice", "nvme",
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
    "mtd": "raw MTD flash", "libiscsi": "iSCSI over the network", "nbd": "NBD over the network",
    "ime": "DDN IME", "dfs": "DAOS", "libcufile": "GPU direct storage",
    "libhipfile": "GPU direct storage", "dev-dax": "persistent memory",
    "libpmem": "persistent memory", "libzbc": "zoned block devices",
    "external": "an external engine", "guasi": "GUASI", "cpp_null": "an external C++ engine",
    "page_fault": "memory page faults", "ime_psync": "DDN IME", "ime_psyncv": "DDN IME",
    "ime_aio": "DDN IME",
}  # fmt: skip

# Accepted and reported once as not simulated (host-side or output-only settings).
NOT_SIMULATED = {
    "ioengine", "filename", "directory", "direct", "buffered", "thread", "invalidate",
    "nrfiles", "nr_files", "openfiles", "filename_format", "create_on_open",
    "allow_file_create", "unlink", "fallocate", "gtod_reduce", "cpus_allowed",
    "cpus_allowed_policy", "cpumask", "numa_cpu_nodes", "numa_mem_policy", "exitall",
    "exit_what", "continue_on_error", "ignore_error", "error_dump", "mem", "iomem",
    "iodepth_batch", "iodepth_batch_submit", "iodepth_batch_complete",
    "iodepth_batch_complete_min", "iodepth_batch_complete_max", "iodepth_low",
    "io_submit_mode", "sqthread_poll", "sqthread_poll_cpu", "registerfiles", "fixedbufs",
    "hipri", "nonvectored", "prio", "prioclass", "cmdprio", "cmdprio_class",
    "cmdprio_percentage", "cmdprio_bssplit", "log_prio", "buffer_pattern",
    "scramble_buffers", "refill_buffers", "zero_buffers", "buffer_compress_percentage",
    "buffer_compress_chunk", "dedupe_percentage", "dedupe_mode", "dedupe_working_set_percentage",
    "dedupe_global", "verify", "do_verify", "verify_pattern", "verify_interval",
    "verify_fatal", "verify_async", "verify_backlog", "verify_dump", "verify_write_sequence",
    "write_lat_log", "write_bw_log", "write_iops_log", "log_avg_msec", "log_offset",
    "per_job_logs", "disable_lat", "disable_clat", "disable_slat", "disable_bw_measurement",
    "clat_percentiles", "lat_percentiles", "slat_percentiles", "block_error_percentiles",
    "description", "blockalign", "ba", "norandommap", "random_generator", "fsync",
    "fdatasync", "sync", "end_fsync", "fsync_on_close", "create_serialize", "readfua",
    "writefua", "uid", "gid", "nice", "kb_base", "unit_base", "group_reporting",
    "stats", "clocksource", "thinktime_spin", "overwrite", "inplace", "pre_read",
    "randrepeat", "skip_bad", "busy_poll", "grace_time", "cpumode", "cpuload",
    "libblkio_driver", "libblkio_path", "sg_write_mode", "write_mode", "pi_act", "pi_chk",
    "apptag", "apptag_mask", "md_per_io_size", "fdp", "fdp_pli", "num_range",
    "atomic", "timeout", "std_redirect", "percentile_list", "donorname", "threads",
    "cmd_type", "replay_redirect",
}  # fmt: skip

# Options whose meaning the simulator cannot honour: a job using one is rejected.
UNSUPPORTED = {
    "zonemode": "zoned namespaces are not modelled",
    "zonesize": "zoned namespaces are not modelled",
    "zoneskip": "zoned namespaces are not modelled",
    "max_open_zones": "zoned namespaces are not modelled",
    "zone_reset_threshold": "zoned namespaces are not modelled",
    "zone_reset_frequency": "zoned namespaces are not modelled",
    "read_beyond_wp": "zoned namespaces are not modelled",
    "write_iolog": "I/O logs are not written",
    "steadystate": "fio's steady-state detection is not simulated",
    "ss": "fio's steady-state detection is not simulated",
    "ss_dur": "fio's steady-state detection is not simulated",
    "ss_ramp": "fio's steady-state detection is not simulated",
    "steadystate_duration": "fio's steady-state detection is not simulated",
    "steadystate_ramp_time": "fio's steady-state detection is not simulated",
    "steadystate_check_interval": "fio's steady-state detection is not simulated",
    "flow": "fio's flow control between jobs is not simulated",
    "flow_sleep": "fio's flow control between jobs is not simulated",
    "latency_target": "fio's latency-target queue-depth search is not simulated",
    "latency_window": "fio's latency-target queue-depth search is not simulated",
    "latency_percentile": "fio's latency-target queue-depth search is not simulated",
    "rate_process": "Poisson arrivals are not simulated",
    "ratemin": "minimum-rate checks are not simulated",
    "rate_min": "minimum-rate checks are not simulated",
    "sprandom": "sprandom preconditioning is not simulated",
    "spr_op": "sprandom preconditioning is not simulated",
    "spr_num_regions": "sprandom preconditioning is not simulated",
    "offset_increment": "per-clone offsets are not simulated",
    "random_sequence_stride": "random_sequence_stride is not simulated",
    "startdelay": "delayed job starts are not simulated",
    "trim_percentage": "trims mixed into writes are not simulated",
    "pingpong": "network options",
    "verify_only": "verify-only runs need stored data",
    "fill_device": "fill_device is not simulated (use size)",
    "experimental_verify": "verify needs stored data",
    "trim_verify_zero": "verify needs stored data",
}

RW_NAMES = {
    "read": "read", "write": "write", "trim": "trim", "randread": "randread",
    "randwrite": "randwrite", "randtrim": "randtrim", "rw": "rw", "readwrite": "rw",
    "randrw": "randrw",
}  # fmt: skip


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
        return (
            f"{head}: {s.get('rw', 'read')} {bs} QD{s.get('iodepth', 1)}, "
            + " or ".join(stops)
            + ramp
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


def _bs_list(v: str, where: str, name: str, kb: int) -> list[int]:
    return [parse_size(x, where, name, kb) for x in v.split(",") if x.strip()]


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


def resolve(sections: list[Section], max_ios: int | str | None = "default") -> JobFile:
    """Turn parsed sections into ssdlab jobs (raises JobFileError / Unsupported)."""
    cap_timed = max_ios != "default"
    if not cap_timed:
        max_ios = DEFAULT_MAX_IOS
    global_opts: list = []
    global_view: dict[str, str | None] = {}
    jobs: list[Job] = []
    not_sim: list[str] = []
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
                    f"(earlier jobs: {earlier})"
                )
        job, new_phase = _job(sec, opts, own, not_sim, max_ios, cap_timed)
        if new_phase and jobs:
            group += 1
        job.spec["group"] = group
        jobs.append(job)
    if not jobs:
        raise JobFileError(f"{sections[0].where if sections else 'job file'}: no job sections")
    return JobFile(jobs, global_view, sorted(set(not_sim)))


def _iolog_path(v: str, where: str) -> str:
    """fio opens the iolog from the working directory; a job file shipped with its log
    usually names it relative to itself, so that is tried next."""
    from pathlib import Path

    p = Path(v.strip())
    if p.is_absolute() or p.exists():
        return str(p)
    beside = Path(where.rsplit(":", 1)[0]).parent / p
    return str(beside if beside.exists() else p)


def _job(sec: Section, opts, own, not_sim: list[str], max_ios: int | None, cap_timed: bool):
    kb = 1024  # kb_base applies to the options after it, as fio parses in order
    spec: dict[str, Any] = {"name": sec.name}
    new_phase = False
    time_based = False
    loops = 1
    size = None
    gr = False
    pct_list = None
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
        if n == "ioengine":
            eng = (v or "").split(":")[0].strip()
            if eng in OTHER_ENGINES:
                raise Unsupported(
                    f"{w}: ioengine={eng}: does {OTHER_ENGINES[eng]}, not block I/O to a drive"
                )
            if eng not in BLOCK_ENGINES:
                raise JobFileError(f"{w}: ioengine={eng}: unknown I/O engine")
            not_sim.append("ioengine")
            continue
        if n == "kb_base":
            kb = parse_int(v or "", w, n)
            if kb not in (1000, 1024):
                raise JobFileError(f"{w}: kb_base={v}: expected 1000 or 1024")
            continue
        if n == "group_reporting":
            gr = parse_bool(v, w, n)
            continue
        if n == "percentile_list" and v:
            pct_list = [float(x) for x in v.replace(",", ":").split(":") if x.strip()]
            not_sim.append(n)
            continue
        if n in NOT_SIMULATED:
            not_sim.append(n)
            continue
        if v is None and n not in (
            "time_based", "stonewall", "wait_for_previous", "new_group", "norandommap",
        ):  # fmt: skip
            raise JobFileError(f"{w}: {n}: needs a value ({n}=...)")
        if n in ("name",):
            spec["name"] = v
        elif n in ("rw", "readwrite"):
            base, _, mod = v.partition(":")
            base = base.strip()
            if base in ("trimwrite", "randtrimwrite"):
                raise Unsupported(f"{w}: rw={v}: trim-then-write patterns are not simulated")
            if base not in RW_NAMES:
                raise JobFileError(f"{w}: rw={v}: unknown pattern (allowed: {', '.join(RW_NAMES)})")
            spec["rw"] = RW_NAMES[base]
            if mod.strip().startswith("-"):
                raise Unsupported(f"{w}: rw={v}: backwards sequential I/O is not simulated")
            if mod.strip():
                if base.startswith("rand"):
                    spec["random_run"] = parse_int(mod.strip(), w, "rw")
                else:
                    spec["seq_skip"] = f"{parse_size(mod.strip(), w, 'rw', kb)}B"
        elif n in ("bs", "blocksize"):
            sizes = _bs_list(v, w, n, kb)
            if not sizes:
                raise JobFileError(f"{w}: {n}={v}: expected a block size")
            spec["bs"] = f"{sizes[0]}B"
            if len(sizes) > 1 and sizes[1] != sizes[0]:
                spec["bs_write"] = f"{sizes[1]}B"
        elif n in ("bsrange", "blocksize_range"):
            lo, _, hi = v.split(",")[0].partition("-")
            spec["bsrange"] = [f"{parse_size(lo, w, n, kb)}B", f"{parse_size(hi or lo, w, n, kb)}B"]
        elif n == "bssplit":
            spec["bssplit"] = _bssplit(v, w, kb)
        elif n == "iodepth":
            spec["iodepth"] = parse_int(v, w, n)
        elif n == "numjobs":
            spec["numjobs"] = parse_int(v, w, n)
        elif n == "rwmixread":
            spec["rwmixread"] = parse_int(v, w, n)
        elif n == "rwmixwrite":
            spec["rwmixread"] = 100 - parse_int(v, w, n)
        elif n in ("size", "filesize"):
            size = v
        elif n == "offset":
            spec["offset"] = v if v.strip().endswith("%") else f"{parse_size(v, w, n, kb)}B"
        elif n in ("io_size", "io_limit"):
            spec["io_size"] = f"{parse_size(v, w, n, kb)}B"
        elif n == "number_ios":
            spec["number_ios"] = parse_int(v, w, n)
        elif n in ("runtime", "timeout"):
            spec["runtime"] = f"{parse_time_ns(v, w, n)}ns"
        elif n == "time_based":
            time_based = parse_bool(v, w, n)
        elif n == "ramp_time":
            spec["ramp_time"] = f"{parse_time_ns(v, w, n)}ns"
        elif n == "loops":
            loops = parse_int(v, w, n)
        elif n == "random_distribution":
            spec["random_distribution"] = v.strip()
        elif n == "read_iolog":
            spec.setdefault("_trace", {})["path"] = _iolog_path(v, w)
        elif n == "replay_no_stall":
            if parse_bool(v, w, n):
                spec.setdefault("_trace", {})["mode"] = "closed"
        elif n == "replay_time_scale":
            scale = parse_int(v, w, n)
            if scale <= 0:
                raise JobFileError(f"{w}: replay_time_scale={v}: expected a percentage > 0")
            spec.setdefault("_trace", {})["speedup"] = 100 / scale
        elif n == "percentage_random":
            vals = [parse_int(x, w, n) for x in v.split(",") if x.strip()]
            spec["percentage_random"] = vals[0]
        elif n == "randseed":
            spec["randseed"] = parse_int(v, w, n)
        elif n == "thinktime":
            spec["thinktime"] = f"{parse_time_ns(v, w, n, default_unit='us')}ns"
        elif n == "thinktime_blocks":
            spec["thinktime_blocks"] = parse_int(v, w, n)
        elif n == "rate_iops":
            vals = [parse_int(x, w, n) for x in v.split(",") if x.strip()]
            spec["rate_iops"] = max(vals)
        elif n == "rate":
            vals = [parse_size(x, w, n, kb) for x in v.split(",") if x.strip()]
            spec["_rate_bytes"] = max(vals)
        elif n in ("stonewall", "wait_for_previous", "new_group"):
            if parse_bool(v, w, n):
                new_phase = True
        elif n == "wait_for":
            new_phase = True
        else:
            raise JobFileError(f"{w}: {n}: unknown or unsupported fio option")
    if "_rate_bytes" in spec:
        bs = parse_size(spec.get("bs", "4096B")[:-1], sec.where, "bs")
        spec["rate_iops"] = max(1, spec.pop("_rate_bytes") // bs)
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
    job = Job(spec["name"], sec.where, own, spec, gr, pct_list, time_based=time_based)
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


def finish(jf: JobFile, capacity_bytes: int) -> list[dict[str, Any]]:
    """The ssdlab jobs for a drive of `capacity_bytes` (sizes in % resolved)."""
    out = []
    for job in jf.jobs:
        s = dict(job.spec)
        size = s.pop("_size", None)
        span = capacity_bytes
        if size is not None:
            if size.strip().endswith("%"):
                pct = _percent(size, job, "size", 0 < _pct(size) <= 100, "above 0 up to 100")
                span = int(capacity_bytes * pct / 100) // 4096 * 4096
            else:
                span = parse_size(size, job.where, "size")
            span = min(span, capacity_bytes)
        off = s.get("offset")
        off_b = 0
        if isinstance(off, str) and off.endswith("%"):
            pct = _percent(off, job, "offset", 0 <= _pct(off) < 100, "0 up to below 100")
            off_b = int(capacity_bytes * pct / 100) // 4096 * 4096
            s["offset"] = f"{off_b}B"
        elif off:
            off_b = int(off[:-1])
        span = min(span, capacity_bytes - off_b)
        s["size"] = f"{span}B"
        loops = s.pop("_loops", 1)
        if s.pop("_io_size_is_size", False) or loops > 1:
            base = int(s["io_size"][:-1]) if "io_size" in s else span
            s["io_size"] = f"{base * loops}B"
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
        _check(s, job, capacity_bytes)
        out.append(s)
    return out


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
