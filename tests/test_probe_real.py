"""Real probe target: O_DIRECT requests on a regular file are timed, checked and
really reach the file; bad paths and parameters are refused; writing to a block
device needs --destructive and a device nobody uses."""

import errno
import fcntl
import itertools
import os
import stat

import pytest
from ssdlab.probe.real import BlockTarget, check_size, write_permission_error
from ssdlab.probe.target import ProbeError

MiB = 1 << 20
SIZE = 16 * MiB


@pytest.fixture
def data_file(tmp_path):
    path = tmp_path / "disk.img"
    path.write_bytes(os.urandom(SIZE))
    return path


def _positive(value):
    return isinstance(value, int) and value > 0


def test_file_target_times_every_operation(data_file):
    with BlockTarget(data_file, writable=True, destructive=True, max_io_bytes=64 << 10) as t:
        assert (t.name, t.capacity_bytes, t.simulated, t.max_io_bytes) == (
            str(data_file),
            SIZE,
            False,
            64 << 10,
        )
        assert fcntl.fcntl(t._fd, fcntl.F_GETFL) & os.O_DIRECT
        assert _positive(t.read(0, 4096))
        assert _positive(t.read(512, 512))
        assert _positive(t.read(0, SIZE))  # 256 chunks through one small buffer
        assert _positive(t.write(MiB, 3 * MiB + 512))
        times = t.read_many([0, 4096, 8 * MiB, SIZE - 512], 512)
        assert len(times) == 4 and all(_positive(x) for x in times)
        assert t.read_many([], 512) == []
        assert _positive(t.flush())
        assert _positive(t.fill(4 * MiB, 2 * MiB + 4096))  # last chunk shorter
        assert _positive(t.deallocate(8 * MiB, MiB))
        t.idle(0)
        assert t.hmb_granted_bytes() is None
        assert len(t._rbuf) == MiB  # max(max_io_bytes, 1 MiB), not the largest request


def test_writes_reach_the_file_with_random_data(data_file):
    before = data_file.read_bytes()
    with BlockTarget(data_file, writable=True, destructive=True) as t:
        t.write(MiB, 256 << 10)
        t.fill(4 * MiB, MiB + 4096)
        t.read(0, 4 * MiB)  # reads must not disturb the write buffer
        t.write(8 * MiB, 4096)
        t.flush()
    after = data_file.read_bytes()
    assert len(after) == SIZE
    assert after[:MiB] == before[:MiB]
    assert after[MiB + (256 << 10) : 4 * MiB] == before[MiB + (256 << 10) : 4 * MiB]
    for lo, hi in ((MiB, MiB + (256 << 10)), (4 * MiB, 5 * MiB + 4096), (8 * MiB, 8 * MiB + 4096)):
        written = after[lo:hi]
        assert written != before[lo:hi]
        assert written.count(0) < len(written) // 64  # random, not zeros
    assert after[8 * MiB : 8 * MiB + 4096] == after[MiB : MiB + 4096]  # one buffer, reused


def test_deallocate_punches_a_hole(data_file):
    before = data_file.read_bytes()
    with BlockTarget(data_file, writable=True, destructive=True) as t:
        try:
            ns = t.deallocate(2 * MiB, MiB + 512)
        except ProbeError as e:
            if os.strerror(errno.EOPNOTSUPP) in str(e):
                pytest.skip("this file system cannot punch holes")
            raise
        assert _positive(ns)
    with open(data_file, "rb") as f:
        after = f.read()
    assert len(after) == SIZE
    assert after[2 * MiB : 3 * MiB + 512] == bytes(MiB + 512)
    assert after[: 2 * MiB] == before[: 2 * MiB]
    assert after[3 * MiB + 512 :] == before[3 * MiB + 512 :]


@pytest.mark.parametrize(
    ("op", "offset", "length", "value"),
    [
        ("read", 100, 4096, "100"),
        ("read", 0, 1000, "1000"),
        ("write", 4096, 4095, "4095"),
        ("deallocate", 513, 512, "513"),
        ("fill", 0, MiB + 1, str(MiB + 1)),
        ("read", -512, 512, "-512"),
    ],
)
def test_misaligned_requests_are_refused(data_file, op, offset, length, value):
    t = BlockTarget(data_file, writable=True, destructive=True)
    with t, pytest.raises(ProbeError, match=value):
        getattr(t, op)(offset, length)


def test_bad_requests_are_refused(data_file):
    with BlockTarget(data_file) as t:
        with pytest.raises(ProbeError, match="past the capacity"):
            t.read(SIZE - 512, 1024)
        with pytest.raises(ProbeError, match="empty"):
            t.read(0, 0)
        with pytest.raises(ProbeError, match="100"):
            t.read_many([0, 100], 512)
        for op in (t.write, t.fill, t.deallocate):
            with pytest.raises(ProbeError, match="read-only"):
                op(0, 4096)
    with pytest.raises(ProbeError, match="closed"):
        t.read(0, 4096)
    t.close()  # twice is fine
    with pytest.raises(ProbeError, match="1000"):
        BlockTarget(data_file, max_io_bytes=1000)


def test_bad_paths_are_refused(tmp_path):
    with pytest.raises(ProbeError, match="does not exist"):
        BlockTarget(tmp_path / "missing.img")
    with pytest.raises(ProbeError, match="neither a regular file nor a block device"):
        BlockTarget(tmp_path)
    with pytest.raises(ProbeError, match="neither"):
        BlockTarget("/dev/null")


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_permission_denied_says_how_to_fix(data_file):
    data_file.chmod(0)
    with pytest.raises(ProbeError, match=r"root.*disk group"):
        BlockTarget(data_file)


def test_check_size_names_the_numbers(data_file):
    with BlockTarget(data_file) as t:
        check_size(t, SIZE, "the read-cache probe")
        with pytest.raises(ProbeError) as e:
            check_size(t, SIZE + 512, "the read-cache probe")
    assert str(e.value) == (
        f"{data_file}: {SIZE} bytes is too small for the read-cache probe: "
        f"needs at least {SIZE + 512} bytes"
    )


@pytest.mark.parametrize(
    ("is_block", "destructive", "mounted", "busy"),
    list(itertools.product([False, True], repeat=4)),
)
def test_write_permission(is_block, destructive, mounted, busy):
    why = write_permission_error(is_block, destructive, mounted, busy, "/dev/sdz")
    if not is_block:
        # a regular file: its data is overwritten too, so --destructive is needed
        assert (why is None) == destructive
        assert why is None or "--destructive" in why
        return
    if destructive and not mounted and not busy:
        assert why is None
        return
    assert "/dev/sdz" in why and "refuses to write" in why
    if not destructive:
        assert "--destructive" in why
    elif mounted:
        assert "mounted" in why
    else:
        assert "busy" in why


def _skip_unless_openable(path, flags):
    """Skip only when the device cannot be opened at all, for a reason the probe docs name
    (docs/probes.md: missing permission; a device another process claims): EACCES/EPERM
    (not root nor in the disk group, or a container whose device cgroup refuses it, as
    root too) or EBUSY on an exclusive open. Then BlockTarget must open it: any
    ProbeError of its own (O_DIRECT, the size ioctls, ...) fails the test, as it did not
    before (issue 31: every open failure was a skip)."""
    try:
        fd = os.open(path, flags | os.O_CLOEXEC)
    except OSError as e:
        if e.errno in (errno.EACCES, errno.EPERM):
            pytest.skip(f"{path}: {os.strerror(e.errno)} (no access to the device here)")
        if e.errno == errno.EBUSY:
            pytest.skip(f"{path}: claimed by another process")
        raise
    os.close(fd)


def _root_device():
    """The block device holding / (mounted, so never written), or None."""
    dev = os.stat("/").st_dev
    try:
        name = os.path.basename(os.path.realpath(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}"))
        path = f"/dev/{name}"
        return path if stat.S_ISBLK(os.stat(path).st_mode) else None
    except OSError:
        return None


@pytest.mark.skipif(_root_device() is None, reason="/ is not on a visible block device")
def test_mounted_block_device_is_read_but_never_written():
    path = _root_device()
    with pytest.raises(ProbeError, match="--destructive"):
        BlockTarget(path, writable=True)
    with pytest.raises(ProbeError, match=r"mounted|busy"):
        BlockTarget(path, writable=True, destructive=True)
    _skip_unless_openable(path, os.O_RDONLY)
    with BlockTarget(path) as t:
        assert t.capacity_bytes > 0 and t.capacity_bytes % t.block_bytes == 0
        assert _positive(t.read(0, 4096)) and _positive(t.read(0, 1 << 20))
        with pytest.raises(ProbeError, match=str(t.block_bytes)):
            t.read(t.block_bytes // 2, t.block_bytes)


def _free_loop_device():
    """An unattached loop device (capacity 0, so nothing can be written), or None."""
    for n in range(8):
        try:
            with open(f"/sys/class/block/loop{n}/size") as f:
                if int(f.read()) == 0 and stat.S_ISBLK(os.stat(f"/dev/loop{n}").st_mode):
                    return f"/dev/loop{n}"
        except (OSError, ValueError):
            continue
    return None


@pytest.mark.skipif(_free_loop_device() is None, reason="no unattached loop device")
def test_block_device_size_comes_from_ioctls():
    path = _free_loop_device()
    with pytest.raises(ProbeError, match="--destructive"):
        BlockTarget(path, writable=True)
    _skip_unless_openable(path, os.O_RDWR | os.O_EXCL)
    with BlockTarget(path, writable=True, destructive=True) as t:  # an exclusive open
        assert t.capacity_bytes == 0 and t.block_bytes in (512, 4096)
        with pytest.raises(ProbeError, match="too small"):
            check_size(t, 512, "a probe")
