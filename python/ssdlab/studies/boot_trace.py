"""A synthetic Android first-boot block trace (seed 004's "real workload" half).

Seed 004 replayed the first boot of Android 4.0.3 in the emulator on a 1 GiB image
(system 256 MiB, data 704 MiB, cache 64 MiB): 14,481 reads and 5,199 writes whose
"read/write locality is very high", of "various sizes", with "start addresses highly
sequential" (its slides 10-11). The trace itself is not published, so this module builds
one with those properties from the mechanisms that produce them, each from a public
description, not from the seed's hit rates or IOPS:

- **Layout** (seed 004): the three partitions above, in that order, in one 1 GiB image.
- **Reads of system files, whole and in order.** Boot runs init, then zygote, which preloads
  the framework's classes and resources, then system_server and the package manager, which
  scans every APK in /system/app (AOSP, "Optimize boot times",
  source.android.com/docs/core/perf/boot-times; the seed's own boot is the first one). Those
  are reads of whole files of a read-only ext4 image, whose builder (make_ext4fs) lays each
  file out contiguously. The kernel's on-demand readahead turns a file read from its start
  into requests that double from 16 KiB up to `read_ahead_kb` (128 KiB by default)
  (Documentation/block/queue-sysfs and mm/readahead.c: "various sizes", "start addresses
  sequential"). A few processes read at once (init's services, zygote, system_server), so a
  few files' streams interleave. File sizes are log-normal (median 16 KiB), the shape file
  size surveys report (Agrawal et al., "A five-year study of file-system metadata", FAST'07).
- **Small random reads** of the data partition's databases and settings (4 KiB): Android's
  storage traffic outside bulk file reads is dominated by SQLite and its journal (Lee and
  Won, "Smart layers and dumb result: IO characterization of an Android-based smartphone",
  EMSOFT 2013); a first boot creates those files, so they are few and re-read (a hot set of
  a few MiB).
- **Writes** (5,199, the seed's count): the ext4 journal (4 KiB, sequential in a 32 MiB ring
  at the start of the data partition: mke2fs's default journal size for a partition of this
  size), SQLite files (4 KiB in the same hot set as the random reads) and the first boot's
  dex optimisation output, written as new files appended in order (/data/dalvik-cache).

The shares between these classes (80 % of reads from system files, 60/25/15 % of writes to
journal, databases and new files) are assumptions, stated here and in docs/validation.md;
nothing was tuned to the seed's hit rates or IOPS.
"""

from __future__ import annotations

import hashlib
import math
import os
import random
import tempfile
from pathlib import Path

KIB, MIB = 1024, 1024 * 1024
SYSTEM = (0, 256 * MIB)
DATA = (256 * MIB, 960 * MIB)
CACHE = (960 * MIB, 1024 * MIB)
IMAGE_BYTES = 1024 * MIB

READS, WRITES = 14_481, 5_199  # seed 004's counts
FILE_READ_SHARE = 0.80
STREAMS = 2
DIR_FILES = 40  # mean files per directory
READ_AHEAD_MAX = 128 * KIB
READ_AHEAD_FIRST = 16 * KIB
FILE_MEDIAN = 16 * KIB
FILE_SIGMA = 1.6
HOT_SET = 4 * MIB  # databases and settings
JOURNAL = 32 * MIB
WRITE_SHARES = (0.60, 0.25, 0.15)  # journal, databases, new files (by burst)
DB_FILE = 64 * KIB
DB_BURST = 4  # mean pages per database access
COMMIT_BLOCKS = 16  # mean blocks per journal commit


def _file_sizes(rng: random.Random, budget: int) -> list[int]:
    """Log-normal file sizes (4 KiB multiples, 4 KiB..8 MiB) until `budget` bytes."""
    out, total = [], 0
    while total < budget:
        s = int(rng.lognormvariate(math.log(FILE_MEDIAN), FILE_SIGMA))
        s = min(max(4 * KIB, (s + 4 * KIB - 1) // (4 * KIB) * 4 * KIB), 8 * MIB)
        out.append(s)
        total += s
    return out


def boot_requests(seed: int = 1) -> list[tuple[str, int, int]]:
    """The trace as (op, offset, length) in issue order: 'R' or 'W'."""
    rng = random.Random(seed)
    # The system image: files laid out contiguously, in random order, filling the partition.
    sizes = _file_sizes(rng, SYSTEM[1] - SYSTEM[0])
    offsets, at = [], SYSTEM[0]
    for s in sizes:
        if at + s > SYSTEM[1]:
            break
        offsets.append(at)
        at += s
    files = list(zip(offsets, sizes))
    # Directories: runs of consecutive files (the image builder writes a directory's files
    # together); boot visits them in its own order and reads each one's files in order.
    dirs, i = [], 0
    while i < len(files):
        n = 1 + int(rng.expovariate(1 / DIR_FILES))
        dirs.append(files[i : i + n])
        i += n
    rng.shuffle(dirs)
    queue = [f for d in dirs for f in d]
    n_file_reads = round(READS * FILE_READ_SHARE)
    file_reads: list[tuple[int, int]] = []
    streams: list[list[tuple[int, int]]] = [[] for _ in range(STREAMS)]

    def open_file(k: int) -> None:
        off, size = queue.pop(0)
        reqs, pos, ra = [], 0, READ_AHEAD_FIRST
        while pos < size:
            n = min(ra, size - pos)
            reqs.append((off + pos, n))
            pos += n
            ra = min(2 * ra, READ_AHEAD_MAX)
        streams[k] = reqs

    while len(file_reads) < n_file_reads:
        k = rng.randrange(STREAMS)
        if not streams[k]:
            if not queue:
                break  # every file read once
            open_file(k)
        file_reads.append(streams[k].pop(0))
    # Databases and settings: small files (DB_FILE each) in a hot area of the data
    # partition; each access opens one and reads a few of its pages.
    hot0 = DATA[0] + JOURNAL
    db_files = HOT_SET // DB_FILE
    db_pages = DB_FILE // (4 * KIB)
    bursts: list[tuple[str, list[tuple[int, int]]]] = []
    left = READS - len(file_reads)
    while left > 0:
        base = hot0 + rng.randrange(db_files) * DB_FILE
        n = min(left, 1 + int(rng.expovariate(1 / DB_BURST)))
        bursts.append(
            ("D", [(base + rng.randrange(db_pages) * 4 * KIB, 4 * KIB) for _ in range(n)])
        )
        left -= n
    # Writes, in the bursts that make them: a journal commit writes its blocks in sequence
    # (jbd2 commits every 5 s by default), an fsync'd database a few pages of one file, the
    # dex optimiser a whole new file, appended after the hot area.
    journal_at, new_at, left = 0, hot0 + HOT_SET, WRITES
    while left > 0:
        u = rng.random()
        if u < WRITE_SHARES[0]:
            n = min(left, 1 + int(rng.expovariate(1 / COMMIT_BLOCKS)))
            reqs = []
            for _ in range(n):
                reqs.append((DATA[0] + journal_at, 4 * KIB))
                journal_at = (journal_at + 4 * KIB) % JOURNAL
        elif u < WRITE_SHARES[0] + WRITE_SHARES[1]:
            base = hot0 + rng.randrange(db_files) * DB_FILE
            n = min(left, 1 + int(rng.expovariate(1 / DB_BURST)))
            reqs = [(base + rng.randrange(db_pages) * 4 * KIB, 4 * KIB) for _ in range(n)]
        else:
            size = min(_file_sizes(rng, 1)[0], 1 * MIB)
            reqs, pos = [], 0
            while pos < size and len(reqs) < left:
                n = min(64 * KIB, size - pos)
                reqs.append((new_at + pos, n))
                pos += n
            new_at += size
        bursts.append(("W", reqs))
        left -= len(reqs)
    assert new_at <= CACHE[0], "new files overflow the data partition"
    # Each burst goes in at a random point of the file-read sequence.
    slots = sorted((rng.randrange(len(file_reads) + 1), i) for i in range(len(bursts)))
    out: list[tuple[str, int, int]] = []
    j = 0
    for pos, i in slots:
        while j < pos:
            out.append(("R", *file_reads[j]))
            j += 1
        cls, reqs = bursts[i]
        out.extend(("W" if cls == "W" else "R", off, n) for off, n in reqs)
    out.extend(("R", *r) for r in file_reads[j:])
    return out


def boot_trace_text(seed: int = 1) -> str:
    """The trace in ssdlab's csv format (`time_ns,op,offset_bytes,length_bytes`; one
    request per microsecond: replay it closed-loop)."""
    lines = [f"# synthetic Android first-boot trace (ssdlab.studies.boot_trace), seed {seed}"]
    lines += [f"{i * 1000},{op},{off},{n}" for i, (op, off, n) in enumerate(boot_requests(seed))]
    return "\n".join(lines) + "\n"


def write_boot_trace(path: Path, seed: int = 1) -> Path:
    """Write the trace to `path`."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(boot_trace_text(seed))
    return path


def shared_boot_trace(seed: int = 1) -> Path:
    """The trace in the temporary directory under a name made from its content, so that
    studies in different output directories replay the same path (their sweep results
    are keyed by the workload, path included, and resume across copies)."""
    text = boot_trace_text(seed)
    digest = hashlib.sha256(text.encode()).hexdigest()[:16]
    path = Path(tempfile.gettempdir()) / f"ssdlab-boot-trace-{digest}.csv"
    if not path.exists() or path.read_text() != text:
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(text)
        os.replace(tmp, path)
    return path


def locality(reqs: list[tuple[str, int, int]], segment_span: int) -> dict:
    """Properties a reader can check against the seed's description: read/write counts,
    the share of requests starting where the previous request of any kind ended
    (sequential starts), read sizes, and the share of requests in the same map segment
    span as the previous one (the hit rate of a one-segment map cache)."""
    seq = same = 0
    prev_end = prev_seg = None
    sizes = {}
    for op, off, n in reqs:
        if prev_end is not None and off == prev_end:
            seq += 1
        if prev_seg is not None and off // segment_span == prev_seg:
            same += 1
        prev_end, prev_seg = off + n, (off + n - 1) // segment_span
        if op == "R":
            sizes[n] = sizes.get(n, 0) + 1
    reads = sum(1 for r in reqs if r[0] == "R")
    read_bytes = sum(n for op, _, n in reqs if op == "R")
    return {
        "reads": reads,
        "writes": len(reqs) - reads,
        "read_bytes": read_bytes,
        "sequential_starts": seq / len(reqs),
        "same_segment_as_previous": same / len(reqs),
        "read_sizes": dict(sorted(sizes.items())),
    }
