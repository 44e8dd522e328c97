"""Tries every way to take an inode number from the kernel's tmpfs counter (shm_mnt: one
machine-wide counter, handed out 1,024 per CPU), which a bot moves by making inodes and its
partner reads from the number of the next one; and reads /proc/uptime twice around 0.1 s of
work (its idle sum moves with everything the machine does). Raw mode only.

Says, for each way, "made <way> inode N" or "blocked <way>: <error>", then "uptime same" or
"uptime moved", then "done". The ways: memfd_create, mmap MAP_SHARED|MAP_ANONYMOUS, a shared mapping of /dev/zero, and shm_open's file on /dev/shm (in the
sandboxes a tmpfs of the bot's own, whose inode numbers are that mount's).
"""
import ctypes
import mmap
import os
import time

libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
MAP_FAILED = ctypes.c_void_p(-1).value


def say(*words):
    print(*words, flush=True)


def inode_of_mapping(address):
    """The inode number /proc/self/maps gives the mapping at `address`."""
    with open("/proc/self/maps") as f:
        for line in f:
            span, _perms, _offset, _dev, inode, *_ = line.split()
            if int(span.split("-")[0], 16) == address:
                return int(inode)
    return None


def shared_anonymous():
    flags = mmap.MAP_SHARED | mmap.MAP_ANONYMOUS
    address = libc.mmap(None, 4096, mmap.PROT_READ | mmap.PROT_WRITE, flags, -1, 0)
    if address in (None, MAP_FAILED):
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return inode_of_mapping(address)


def dev_zero():
    fd = os.open("/dev/zero", os.O_RDWR)
    try:
        m = mmap.mmap(fd, 4096, flags=mmap.MAP_SHARED)
    finally:
        os.close(fd)
    address = ctypes.addressof(ctypes.c_char.from_buffer(m))
    return inode_of_mapping(address)


def memfd():
    fd = os.memfd_create("counter")
    try:
        return os.fstat(fd).st_ino
    finally:
        os.close(fd)


def shm_open():
    path = f"/dev/shm/counter-{os.getpid()}"
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.ftruncate(fd, 4096)
        mmap.mmap(fd, 4096, flags=mmap.MAP_SHARED)[0] = 1
        return os.fstat(fd).st_ino, os.stat("/dev/shm").st_dev
    finally:
        os.close(fd)
        os.unlink(path)


for way, make in (("memfd_create", memfd), ("shared anonymous mapping", shared_anonymous),
                  ("shared mapping of /dev/zero", dev_zero)):
    try:
        say(f"made {way} inode {make()}")
    except OSError as exc:
        say(f"blocked {way}: {exc.strerror}")
try:
    ino, dev = shm_open()
    say(f"made shm_open file inode {ino} on device {dev}")
except OSError as exc:
    say(f"blocked shm_open file: {exc.strerror}")
with open("/proc/uptime") as f:
    before = f.read()
end = time.monotonic() + 0.1
while time.monotonic() < end:  # a tenth of a second of the machine's life: both of uptime's sums move
    pass
with open("/proc/uptime") as f:
    say("uptime same" if f.read() == before else "uptime moved")
say("done")
