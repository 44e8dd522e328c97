"""Two bots that try to pass a number between them through what their sandboxes share: the
read-only files every bot sees (/usr). Raw mode only (no protocol): the test starts both.

    lock N      take byte-range locks at offset N of /usr/bin/env (fcntl, OFD, and flock), say
                "holding", and keep them until stdin ends
    getlk       find another process's lock on /usr/bin/env (F_GETLK, F_OFD_GETLK, flock) and say
                its offset: that is the number
    watch       watch /usr/bin with inotify, say "watching", and report the names opened there
    open N      open the N-th file of /usr/bin (sorted), which a watcher would see by name
Every refused call is said as "blocked <call>: <error>".
"""
import ctypes
import fcntl
import os
import select
import struct
import sys

TARGET = "/usr/bin/env"
F_OFD_GETLK, F_OFD_SETLK = 36, 37


def say(*words):
    print(*words, flush=True)


def lock(offset):
    fd = os.open(TARGET, os.O_RDONLY)
    for name, cmd in (("fcntl", fcntl.F_SETLK), ("ofd", F_OFD_SETLK)):
        try:
            fcntl.fcntl(fd, cmd, struct.pack("hhqqi", fcntl.F_RDLCK, 0, offset + (name == "ofd"), 1, 0))
        except OSError as exc:
            say(f"blocked {name} lock: {exc.strerror}")
    other = os.open(TARGET, os.O_RDONLY)
    try:
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        say(f"blocked flock: {exc.strerror}")
    say("holding")
    sys.stdin.read()


def getlk():
    fd = os.open(TARGET, os.O_RDONLY)
    for name, cmd in (("fcntl", fcntl.F_GETLK), ("ofd", F_OFD_GETLK)):
        try:
            kind, _, start, _, _ = struct.unpack("hhqqi", fcntl.fcntl(
                fd, cmd, struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0)))
            say(f"{name} lock at {start}" if kind != fcntl.F_UNLCK else f"{name}: no lock seen")
        except OSError as exc:
            say(f"blocked {name} getlk: {exc.strerror}")
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        say("flock: free")
    except BlockingIOError:
        say("flock: held by another")
    except OSError as exc:
        say(f"blocked flock: {exc.strerror}")


def watch():
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(os.O_NONBLOCK)
    if fd < 0:
        say(f"blocked inotify: {os.strerror(ctypes.get_errno())}")
        return
    libc.inotify_add_watch(fd, b"/usr/bin", 0x20)  # IN_OPEN
    say("watching")
    names = set()
    while select.select([fd, 0], [], [], 5)[0] and not names:
        data = os.read(fd, 65536)
        while data:
            _, _, _, length = struct.unpack("iIII", data[:16])
            names.add(data[16:16 + length].rstrip(b"\0").decode())
            data = data[16 + length:]
    say("saw", " ".join(sorted(names)) or "nothing")


def open_nth(n):
    os.close(os.open(os.path.join("/usr/bin", sorted(os.listdir("/usr/bin"))[n]), os.O_RDONLY))
    say("opened")


role = sys.argv[1]
if role == "lock":
    lock(int(sys.argv[2]))
elif role == "getlk":
    getlk()
elif role == "watch":
    watch()
elif role == "open":
    open_nth(int(sys.argv[2]))
say("done")
