"""Reads the machine's counters in /proc twice, moving them in between: a partner that reads
what it moved would get a bit. Raw mode only.

Says "same <file>" or "moved <file>" for each of /proc's machine-wide files it can read, after
mapping and touching 64 MiB of shared memory (the machine's nr_shmem and Shmem move by as much;
where the sandbox refuses a shared mapping, 512 KiB written to a file in /tmp, a tmpfs, move them)
between the two reads; then "done".
"""
import mmap
import os

FILES = ("vmstat", "meminfo", "stat", "loadavg", "uptime", "interrupts", "softirqs", "diskstats", "zoneinfo",
         "buddyinfo", "key-users", "pressure/memory", "pressure/cpu", "sys/fs/file-nr", "sys/fs/inode-nr", "sys/fs/dentry-state")


def read_all():
    found = {}
    for name in FILES:
        try:
            with open(f"/proc/{name}", "rb") as f:
                found[name] = f.read()
        except OSError:
            pass
    return found


before = read_all()
try:
    shared = mmap.mmap(-1, 64 << 20, flags=mmap.MAP_SHARED)
    for offset in range(0, len(shared), 4096):
        shared[offset] = 1
except PermissionError:  # the sandboxes' seccomp filter
    with open(f"/tmp/counters-{os.getpid()}", "wb") as f:
        f.write(b"\1" * (512 << 10))
files = [os.open("/proc/self/stat", os.O_RDONLY) for _ in range(50)]  # and file-nr by 50
after = read_all()
for name in FILES:
    if name in before and name in after:
        print("same" if before[name] == after[name] else "moved", name, flush=True)
print("done", flush=True)
