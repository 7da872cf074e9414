"""A real probe target: a block device (``/dev/nvme0n1``) or a regular file, with O_DIRECT.

``BlockTarget`` times each host request with ``time.monotonic_ns()`` around its system
calls, as seed 002 does with ``get_current_time()``; it uses the standard library only.
What it simplifies:

- A request longer than ``max_io_bytes`` is cut into chunks that are submitted one
  after another inside the timed region (Python has no asynchronous submission); the
  simulator submits a request's commands together. The kernel splits each chunk
  further if it exceeds the device's ``max_sectors_kb``.
- Writes send the same random bytes every time (drawn once from ``os.urandom``, so a
  compressing or deduplicating drive cannot shortcut them); reads use another buffer.
  Both buffers are allocated once and reused, so a 512 MiB request needs no 512 MiB.
- ``flush`` is ``fsync``; ``deallocate`` is BLKDISCARD on a device and a punched hole
  on a file (the file system decides whether the drive sees a trim); on a file every
  probe measures the file system's mapping as well as the drive's.
- Writing to a block device needs ``destructive=True`` and a device that neither it
  nor a partition is mounted (this mount namespace's ``/proc/self/mounts``), held
  (``holders`` in sysfs) or claimed (the exclusive ``O_EXCL`` open, which the kernel
  refuses for a device mounted in any namespace). Writing to a regular file needs
  ``destructive=True`` as well: the probes overwrite its data.
- ``hmb_granted_bytes`` is None: Linux logs the granted HMB but does not publish it
  in sysfs.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import fcntl
import mmap
import os
import re
import stat
import struct
import time
from collections.abc import Sequence

from ssdlab.probe.target import DEFAULT_MAX_IO, ProbeError

BLKGETSIZE64 = 0x80081272
BLKSSZGET = 0x1268
BLKDISCARD = 0x1277
FALLOC_FL_KEEP_SIZE = 0x01
FALLOC_FL_PUNCH_HOLE = 0x02
FILE_BLOCK = 512
FILL_CHUNK = 1 << 20


def write_permission_error(
    is_block: bool, destructive: bool, mounted: bool, busy: bool, path: str
) -> str | None:
    """Why writing to ``path`` is refused, or None when it is allowed."""
    if not is_block:
        if destructive:
            return None
        return (
            f"ssdlab refuses to write to file {path} without --destructive "
            "(the writing probes overwrite its data)"
        )
    if not destructive:
        return (
            f"ssdlab refuses to write to block device {path} without --destructive "
            "(the probes overwrite and discard its data)"
        )
    if mounted:
        return f"ssdlab refuses to write to block device {path}: it or a partition is mounted"
    if busy:
        return f"ssdlab refuses to write to block device {path}: it is busy (in use or held)"
    return None


def check_size(target, needed_bytes: int, what: str) -> None:
    """Raise ProbeError when ``target`` has fewer than ``needed_bytes`` bytes."""
    if target.capacity_bytes < needed_bytes:
        raise ProbeError(
            f"{target.name}: {target.capacity_bytes} bytes is too small for {what}: "
            f"needs at least {needed_bytes} bytes"
        )


def _device_family(rdev: int) -> tuple[set[int], list[str]]:
    """Device numbers and sysfs directories of a block device and its partitions."""
    sys_dir = os.path.realpath(f"/sys/dev/block/{os.major(rdev)}:{os.minor(rdev)}")
    devs, dirs = {rdev}, [sys_dir]
    try:
        entries = os.listdir(sys_dir)
    except OSError:
        return devs, dirs
    for entry in entries:
        sub = os.path.join(sys_dir, entry)
        if os.path.isfile(os.path.join(sub, "partition")):
            try:
                with open(os.path.join(sub, "dev")) as f:
                    major, minor = f.read().strip().split(":")
            except (OSError, ValueError):
                continue
            devs.add(os.makedev(int(major), int(minor)))
            dirs.append(sub)
    return devs, dirs


def _in_use(rdev: int) -> tuple[bool, bool]:
    """(mounted or swapped on, held by another device) for a block device."""
    devs, dirs = _device_family(rdev)
    mounted = False
    for table in ("/proc/self/mounts", "/proc/swaps"):
        try:
            with open(table) as f:
                sources = [line.split()[0] for line in f if line.strip()]
        except OSError:
            continue
        for source in sources:
            source = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), source)
            if not source.startswith("/"):
                continue
            try:
                st = os.stat(source)
            except OSError:
                continue
            if stat.S_ISBLK(st.st_mode) and st.st_rdev in devs:
                mounted = True
    held = False
    for d in dirs:
        try:
            held = held or bool(os.listdir(os.path.join(d, "holders")))
        except OSError:
            pass
    return mounted, held


_fallocate = None


def _punch_hole(fd: int, offset: int, length: int) -> None:
    global _fallocate
    if _fallocate is None:
        libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
        fn = getattr(libc, "fallocate64", None) or libc.fallocate
        fn.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
        fn.restype = ctypes.c_int
        _fallocate = fn
    mode = FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE
    if _fallocate(fd, mode, offset, length) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


class BlockTarget:
    """A ProbeTarget on a real block device or regular file, opened with O_DIRECT."""

    simulated = False

    def __init__(
        self,
        path,
        *,
        destructive: bool = False,
        max_io_bytes: int = DEFAULT_MAX_IO,
        writable: bool = False,
    ) -> None:
        self.name = os.fspath(path)
        self.writable = writable
        self._fd: int | None = None
        self._did_io = False
        try:
            st = os.stat(self.name)
        except FileNotFoundError:
            raise ProbeError(f"{self.name} does not exist") from None
        except OSError as e:
            raise self._error(e, "stat") from None
        self.is_block = stat.S_ISBLK(st.st_mode)
        if not (self.is_block or stat.S_ISREG(st.st_mode)):
            raise ProbeError(f"{self.name} is neither a regular file nor a block device")
        flags = (os.O_RDWR if writable else os.O_RDONLY) | os.O_DIRECT | os.O_CLOEXEC
        mounted = held = False
        if writable and not self.is_block:
            why = write_permission_error(False, destructive, False, False, self.name)
            if why:
                raise ProbeError(why)
        if self.is_block and writable:
            mounted, held = _in_use(st.st_rdev)
            why = write_permission_error(True, destructive, mounted, held, self.name)
            if why:
                raise ProbeError(why)
            flags |= os.O_EXCL  # an exclusive claim: EBUSY if mounted anywhere
        try:
            self._fd = os.open(self.name, flags)
        except OSError as e:
            if e.errno == errno.EBUSY and flags & os.O_EXCL:
                why = write_permission_error(True, destructive, mounted, True, self.name)
                raise ProbeError(why) from None
            raise self._error(e, "open") from None
        try:
            if self.is_block:
                raw = fcntl.ioctl(self._fd, BLKGETSIZE64, bytes(8))
                self.capacity_bytes = struct.unpack("Q", raw)[0]
                self.block_bytes = struct.unpack("i", fcntl.ioctl(self._fd, BLKSSZGET, bytes(4)))[0]
            else:
                self.capacity_bytes = os.fstat(self._fd).st_size
                self.block_bytes = FILE_BLOCK
            if max_io_bytes <= 0 or max_io_bytes % self.block_bytes:
                raise ProbeError(
                    f"{self.name}: max_io_bytes {max_io_bytes} is not a positive multiple of "
                    f"{self.block_bytes} bytes"
                )
            self.max_io_bytes = max_io_bytes
            size = max(max_io_bytes, FILL_CHUNK)
            self._rbuf = mmap.mmap(-1, size)  # anonymous mappings are page-aligned
            self._rview = memoryview(self._rbuf)
            self._wbuf = self._wview = None
            if writable:
                self._wbuf = mmap.mmap(-1, size)
                self._wbuf[:] = os.urandom(size)
                self._wview = memoryview(self._wbuf)
        except BaseException:
            os.close(self._fd)
            self._fd = None
            raise

    def _error(self, e: OSError, what: str) -> ProbeError:
        if e.errno in (errno.EACCES, errno.EPERM):
            return ProbeError(
                f"{self.name}: permission denied ({what}): run as root or add the user "
                "to the disk group"
            )
        first_io = what.startswith(("read", "write")) and not self._did_io
        if e.errno == errno.EINVAL and (what == "open" or first_io):
            return ProbeError(f"{self.name}: the file system does not support O_DIRECT")
        return ProbeError(f"{self.name}: {what} failed: {os.strerror(e.errno or 0)}")

    def _check(self, offset: int, length: int, write: bool) -> int:
        if self._fd is None:
            raise ProbeError(f"{self.name} is closed")
        if write and not self.writable:
            raise ProbeError(f"{self.name} was opened read-only")
        for label, value in (("offset", offset), ("length", length)):
            if value < 0 or value % self.block_bytes:
                raise ProbeError(
                    f"{self.name}: {label} {value} is not a non-negative multiple of "
                    f"{self.block_bytes} bytes"
                )
        if length == 0:
            raise ProbeError(f"{self.name}: length 0 is empty")
        if offset + length > self.capacity_bytes:
            raise ProbeError(
                f"{self.name}: {offset} + {length} bytes runs past the capacity "
                f"({self.capacity_bytes} bytes)"
            )
        return self._fd

    def _transfer(self, offset: int, length: int, write: bool, chunk: int) -> int:
        """Move ``length`` bytes in chunks of ``chunk`` bytes, one after another; ns."""
        fd = self._check(offset, length, write)
        op, view = (os.pwritev, self._wview) if write else (os.preadv, self._rview)
        whole, tail = divmod(length, chunk)
        full, last = view[:chunk], view[:tail]
        pos = offset
        try:
            start = time.monotonic_ns()
            for _ in range(whole):
                if op(fd, [full], pos) != chunk:
                    raise ProbeError(f"{self.name}: short transfer at offset {pos}")
                pos += chunk
            if tail and op(fd, [last], pos) != tail:
                raise ProbeError(f"{self.name}: short transfer at offset {pos}")
            end = time.monotonic_ns()
        except OSError as e:
            what = f"{'write' if write else 'read'} of {length} bytes at offset {offset}"
            raise self._error(e, what) from None
        self._did_io = True
        return end - start

    def read(self, offset: int, length: int) -> int:
        return self._transfer(offset, length, False, self.max_io_bytes)

    def write(self, offset: int, length: int) -> int:
        return self._transfer(offset, length, True, self.max_io_bytes)

    def read_many(self, offsets: Sequence[int], length: int) -> list[int]:
        return [self._transfer(o, length, False, self.max_io_bytes) for o in offsets]

    def fill(self, offset: int, length: int) -> int:
        return self._transfer(offset, length, True, FILL_CHUNK)

    def flush(self) -> int:
        if self._fd is None:
            raise ProbeError(f"{self.name} is closed")
        try:
            start = time.monotonic_ns()
            os.fsync(self._fd)
            return time.monotonic_ns() - start
        except OSError as e:
            raise self._error(e, "flush") from None

    def deallocate(self, offset: int, length: int) -> int:
        fd = self._check(offset, length, True)
        try:
            start = time.monotonic_ns()
            if self.is_block:
                fcntl.ioctl(fd, BLKDISCARD, struct.pack("QQ", offset, length))
            else:
                _punch_hole(fd, offset, length)
            return time.monotonic_ns() - start
        except OSError as e:
            raise self._error(e, f"deallocate of {length} bytes at offset {offset}") from None

    def idle(self, seconds: float) -> None:
        time.sleep(max(0.0, seconds))

    def hmb_granted_bytes(self) -> int | None:
        return None

    def close(self) -> None:
        if self._fd is None:
            return
        os.close(self._fd)
        self._fd = None
        for view, buf in ((self._rview, self._rbuf), (self._wview, self._wbuf)):
            if view is not None:
                view.release()
                buf.close()

    def __enter__(self) -> BlockTarget:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
