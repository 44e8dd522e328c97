"""The fork server of sandbox mode "fork": confined bots started by forking a warm interpreter.

Starting a Python bot costs about 30 ms of CPU (the interpreter, msgpack, the bot kit, and in
bwrap mode the sandbox's own execs); a tournament starts four bots per room. This server is
started once per arena run, as root (or as root of a user namespace of its own, `enter_user_namespace`),
under the sandbox's Python (`/usr/bin/python3`), with those
modules imported; for each bot it forks and builds the sandbox itself with the kernel's
primitives, then runs the bot's script in the forked interpreter (or execs any other program).
A Python bot with the kit costs about 8 ms of machine CPU from request to reaped this way,
against 27 under bwrap (bench/README.md). `arena.process.forking` is the arena's side; this file runs
as a plain script (stdlib only, no arena imports) and must stay importable by the system's
Python 3.11.

Per bot, two processes:
- the *init*, forked from the server into a new PID namespace (the server unshares it for that
  one fork and at once returns its own children to its own namespace): pid 1 there, root. It
  forks the bot at once, reaps zombies, and exits with the bot's status (128 + N for death by
  signal N, as in bwrap mode); when it dies the kernel kills everything left in the namespace;
- the *bot*, pid 2: still root, it unshares mount, network, IPC, UTS and cgroup namespaces,
  builds its root (the view of /usr, arena/process/view.py, and the bot's own folder, read-only,
  /proc's machine-wide counters a snapshot, a /dev of six devices, a private
  size-limited tmpfs /tmp, nothing else; the read-only parts bound from what the server
  prepared once, `build_shared`), mounts a /proc that shows only its own user's processes,
  tells the server it is ready, and confines itself: its three pipes as stdin/stdout/stderr,
  SCHED_BATCH, resource limits, a throw-away uid with no groups and no capabilities (without
  root: a user namespace of its own that owns nothing, as the arena's user, every capability
  dropped), no_new_privs, and a seccomp filter that refuses new user namespaces (bwrap's
  --disable-userns); then the bot's program.

A parent-death signal links each to its parent (bot -> init -> server -> arena; without root
the server's outside process stands between server and arena), so nothing outlives a SIGKILLed
arena. (Until 2026-11 a third process, a keeper outside the bot's
namespaces, built them and forked the init: one fork, one exit and several hundred copy-on-write
faults more per bot, about 1.7 ms of a bot's 10.6; bench/README.md.)

Requests and replies are JSON records on a SOCK_SEQPACKET socket (fd given as argv[1]); a
request carries the bot's three pipe ends as SCM_RIGHTS, and only its id and the paths of its
program under /usr: the rest (command line, folder, environment, uid, limits, binds) the arena
writes at the head of the bot's own stdin, and only the bot's process reads it (`_read_private`),
so that the server, whose memory every Python bot is a copy of, holds nothing of any bot. Replies, once the bot's sandbox is
built: {"id", "pid"} with a pidfd of the init, or {"id", "error"} if it could not; when
the init has exited, {"id", "exit": status} (before any other reply if it died first).
"""

from __future__ import annotations

import atexit
import ctypes
import errno
import fcntl
import json
import os
import pkgutil  # noqa: F401  (runpy imports it at the first run_path)
import random  # noqa: F401
import resource

# What a Python bot imports at start, imported once here instead of in every bot.
import runpy  # noqa: F401
import select
import selectors
import signal
import socket
import struct
import sys
import threading
import time
import traceback

try:
    import msgpack  # noqa: F401
except ImportError:  # the arena checks msgpack in the trial bot; a bot that needs it will say so
    pass

libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS = 0x20000, 0x02000000, 0x04000000
CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x08000000, 0x10000000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT = 1, 2, 4, 8, 32
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP = 1, 4, 38, 22
PR_CAPBSET_DROP, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 47, 4
LINUX_CAPABILITY_VERSION_3 = 0x20080522
ST_KEPT = os.ST_NOEXEC | os.ST_NOATIME | os.ST_NODIRATIME | os.ST_RELATIME
"""A read-only remount keeps these flags of the mount it makes read-only: in a user namespace
the kernel refuses to change them on a mount it inherited (they are locked)."""
SECCOMP_MODE_FILTER = 2
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
# seccomp: (audit arch, unshare, clone, clone3) per machine
MACHINE = os.uname().machine
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
DEVICE_SOURCES = {"zero": "full"}
"""/dev/zero is the kernel's /dev/full: zeros to read, but no shared mapping (which would take an
inode number from a machine-wide counter, arena/process/seccomp.py)."""


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = lambda s: None if s is None else s.encode()  # noqa: E731
    what = f"mount {source} at {target}" if flags & MS_BIND and source else f"mount {target}"
    _check(libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)), what)


def _bind_ro(source: str, target: str) -> None:
    _mount(source, target, None, MS_BIND | MS_REC)
    kept = os.statvfs(target).f_flag & ST_KEPT  # the ST_ flags are the MS_ flags' values
    _mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV | kept)


def _mount_point(path: str, like: str) -> None:
    """An empty directory, or an empty file when `like` is a file, to mount onto."""
    if os.path.isdir(like):
        os.makedirs(path, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "a").close()


def _prctl(option: int, arg: int) -> None:
    _check(libc.prctl(option, ctypes.c_ulong(arg), 0, 0, 0), f"prctl {option}")


def exit_status(status: int) -> int:
    """A wait status as an exit code: a death by signal N is 128 + N (as bwrap and shells say)."""
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


HOST_WIDE_FILES = ("vmstat", "meminfo", "stat", "loadavg", "uptime", "interrupts", "softirqs", "diskstats",
                   "zoneinfo", "buddyinfo", "pagetypeinfo", "key-users", "swaps", "schedstat", "partitions", "cgroups", "locks")
HOST_WIDE_FOLDERS = ("pressure", "sys/fs")
"""What /proc shows of the whole machine: counters a bot moves (nr_shmem, MemFree, file-nr, the
pressure stall figures) and its partner reads. Each bot sees a snapshot, taken once per arena
process, instead: the same text, which nothing a bot does changes."""


def snapshot_proc(dest: str) -> None:
    """Copy HOST_WIDE_FILES and HOST_WIDE_FOLDERS of /proc into `dest` (unreadable ones empty)."""
    def copy(source: str, target: str) -> None:
        try:
            with open(source, "rb") as f:
                data = f.read(1 << 20)
        except OSError:
            data = b""
        with open(target, "wb") as f:
            f.write(data)
        os.chmod(target, 0o444)

    os.makedirs(dest, exist_ok=True)
    for name in HOST_WIDE_FILES:
        if os.path.exists(f"/proc/{name}"):
            copy(f"/proc/{name}", os.path.join(dest, name))
    for folder in HOST_WIDE_FOLDERS:
        for here, dirs, names in os.walk(f"/proc/{folder}"):
            inside = os.path.join(dest, os.path.relpath(here, "/proc"))
            os.makedirs(inside, exist_ok=True)
            for name in names:
                copy(os.path.join(here, name), os.path.join(inside, name))
        for here, dirs, _ in os.walk(os.path.join(dest, folder)):
            os.chmod(here, 0o555)


def proc_masks(snapshot: str) -> list[tuple[str, str]]:
    """(snapshot path, /proc path) binds that put the snapshot over a fresh /proc."""
    return [(os.path.join(snapshot, name), f"/proc/{name}")
            for name in (*HOST_WIDE_FILES, *HOST_WIDE_FOLDERS) if os.path.exists(os.path.join(snapshot, name))]


SHARED, ROOT = "shared", "root"  # in the scratch folder: what all bots' roots share, and where each is built


def build_shared(scratch: str) -> None:
    """Once per server, in a mount namespace of its own: the parts of a bot's root that every
    bot has alike, read-only: /usr, three files of /etc and a /dev of six devices. Each init
    binds each part in one call (a bind of a read-only mount is read-only, with its nosuid and
    nodev) instead of building it: about 25 mount calls per bot become 12."""
    _check(libc.unshare(CLONE_NEWNS), "unshare")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)  # nothing of it reaches the arena's namespace
    _mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, "size=8m,mode=0755")
    shared = os.path.join(scratch, SHARED)
    os.mkdir(shared)
    os.mkdir(os.path.join(scratch, ROOT))
    usr, etc, dev = (os.path.join(shared, name) for name in ("usr", "etc", "dev"))
    os.mkdir(usr)
    # Not all of /usr: the view (arena/process/view.py). Its tmpfs copy where the arena made one
    # (its pages are memory: no reclaim evicts them; a bot's own program is copied into it by the
    # arena); else a tmpfs of mount points, writable here (a bot's own program joins it,
    # `add_to_usr`), read-only in every bot, over files whose every page the arena keeps cached.
    if USR_COPY:
        _bind_ro(USR_COPY, usr)
    else:
        _mount("tmpfs", usr, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
        add_to_usr(scratch, USR_LAYOUT)
    os.mkdir(etc)
    _mount("tmpfs", etc, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755")
    for path in ("/etc/ld.so.cache", "/etc/localtime", "/etc/alternatives"):
        if os.path.exists(path):
            _mount_point(os.path.join(shared, path.lstrip("/")), path)
            _bind_ro(path, os.path.join(shared, path.lstrip("/")))
    _mount(None, etc, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.mkdir(dev)
    _mount("tmpfs", dev, "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=0755")
    for device in DEVICES:
        source = f"/dev/{DEVICE_SOURCES.get(device, device)}"
        if os.path.exists(source):
            open(os.path.join(dev, device), "w").close()
            _mount(source, os.path.join(dev, device), None, MS_BIND)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2"), ("shm", "/tmp")):
        os.symlink(target, os.path.join(dev, name))
    _mount(None, dev, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NOEXEC)
    snapshot_proc(os.path.join(shared, "proc"))


USR_LAYOUT: list = []  # every bot's view of /usr, (kind, path, link target), from the command line
USR_COPY = ""  # or the view's tmpfs copy, from the command line
_in_usr: set[str] = set()


def add_to_usr(scratch: str, layout: list) -> None:
    """Show these paths of /usr in every bot's /usr (once each): a folder or a file bound
    read-only, a symlink made as it is outside."""
    for kind, path, target in layout:
        if path in _in_usr or not path.startswith("/usr/"):
            continue
        _in_usr.add(path)
        inside = os.path.join(scratch, SHARED, path.lstrip("/"))
        os.makedirs(os.path.dirname(inside), exist_ok=True)
        if kind == "link":
            os.symlink(target, inside)
        elif os.path.lexists(inside):
            continue
        else:  # (a link of a runtime into /etc is shown as what it points to: view.layout)
            _mount_point(inside, target or path)
            _bind_ro(target or path, inside)


def build_root(scratch: str, request: dict) -> None:
    """In fresh namespaces (a copy of the server's): make the bot's whole file system out of
    the shared parts (`build_shared`), its own /tmp and its binds, and enter it."""
    uid = request["uid"] if request["uid"] is not None else 0  # 0: the arena's user, in its own user namespace
    shared, root = os.path.join(scratch, SHARED), os.path.join(scratch, ROOT)
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    new = lambda path: os.path.join(root, path.lstrip("/"))  # noqa: E731
    for name in ("usr", "etc", "dev"):
        os.mkdir(new(name))
        _mount(os.path.join(shared, name), new(name), None, MS_BIND | MS_REC)
    _mount(None, new("usr"), None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    for link in ("bin", "lib", "lib64", "sbin"):
        os.symlink(f"usr/{link}", new(link))
    os.mkdir(new("proc"))
    os.mkdir(new("tmp"))
    _mount("tmpfs", new("tmp"), "tmpfs", MS_NOSUID | MS_NODEV, f"size={request['tmp_bytes']},mode=0700,uid={uid},gid={uid}")
    for source, target in request["binds"]:  # the bot's folder, the bot kit, a program outside /usr
        _mount_point(new(target), source)
        _bind_ro(source, new(target))
    # A /proc of the bot's PID namespace that shows only its own user's processes (hidepid=2),
    # mounted while the old root's /proc is still there: in a user namespace the kernel mounts
    # a proc only where one is visible already.
    _mount("proc", new("proc"), "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2")
    for source, target in proc_masks(os.path.join(shared, "proc")):  # the machine's counters, frozen
        _bind_ro(source, new(target))
    os.chdir(root)
    _check(libc.syscall(SYS_PIVOT_ROOT[MACHINE], b".", b"."), "pivot_root")
    _check(libc.umount2(b".", MNT_DETACH), "umount the old root")
    os.chdir("/")
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)
    socket.sethostname("zwicker-bot")
    _loopback_up()


def _loopback_up() -> None:
    """The new network namespace's loopback, up (as bwrap leaves it): a bot may talk to itself."""
    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        flags = struct.unpack("16sH14x", fcntl.ioctl(sock, siocgifflags, struct.pack("16sH14x", b"lo", 0)))[1]
        fcntl.ioctl(sock, siocsifflags, struct.pack("16sH14x", b"lo", flags | iff_up))


FILTER: bytes = b""  # the arena's seccomp program (arena/process/seccomp.py), from the command line


def load_filter(program: bytes) -> None:
    """Load the arena's seccomp program, compiled by libseccomp on the arena's side, into this
    process (no new privileges is set already): it holds for the bot and all it starts."""
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = struct.pack("HxxxxxxQ", len(program) // 8, ctypes.addressof(buffer))
    _check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.c_char_p(fprog), 0, 0), "seccomp")


HOST_IDS = (os.getuid(), os.getgid())
"""The arena's user and group outside every user namespace: an unprivileged server's bots run as them."""


def enter_user_namespace() -> None:
    """Not root: become root of a user namespace of our own (the arena's user as uid 0), with a
    PID namespace of its own, so that the server may build namespaces, and fork the server that
    runs in them. The calling process stays outside, holding nothing, and exits with the
    server's status; either dies with the other (parent-death signals, and the kernel kills a
    PID namespace whose first process dies)."""
    _check(libc.unshare(CLONE_NEWUSER | CLONE_NEWPID), "unshare")
    _map_ids(lambda outside: f"0 {outside} 1")
    outside_alive = os.pidfd_open(os.getpid())
    pid = os.fork()
    if pid:
        os.closerange(3, 1 << 16)
        os._exit(exit_status(os.waitpid(pid, 0)[1]))
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if select.select([outside_alive], [], [], 0)[0]:
        os._exit(1)
    os.close(outside_alive)


def _user_namespace_of_its_own() -> None:
    """An unprivileged server's bot, its namespaces and root built: enter a user namespace of
    its own, where it is the arena's user (uid and gid as outside) and owns nothing. Its
    capabilities there (dropped anyway, `_drop_capabilities`) reach none of its namespaces,
    which belong to the server's; and the kernel counts its processes for RLIMIT_NPROC per user
    namespace, so the bot's own limit counts only its own processes, as a throw-away uid's does."""
    _check(libc.unshare(CLONE_NEWUSER), "unshare")
    _map_ids(lambda outside: f"{outside} 0 1")


def _map_ids(line) -> None:
    """This process's new user namespace maps one uid and one gid (`line` of the arena's user's
    or group's id outside); no setgroups, as the kernel requires of an unprivileged map."""
    uid, gid = HOST_IDS
    for name, text in (("setgroups", "deny"), ("uid_map", line(uid)), ("gid_map", line(gid))):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _drop_capabilities() -> None:
    """Give up every capability for good: the bounding and ambient sets, then the rest (capset).
    A bot of an unprivileged server changes no uid, which would have dropped them."""
    with open("/proc/sys/kernel/cap_last_cap") as f:
        last = int(f.read())
    for cap in range(last + 1):
        _check(libc.prctl(PR_CAPBSET_DROP, ctypes.c_ulong(cap), 0, 0, 0), "drop the bounding set")
    _check(libc.prctl(PR_CAP_AMBIENT, ctypes.c_ulong(PR_CAP_AMBIENT_CLEAR_ALL), 0, 0, 0), "clear the ambient set")
    data = (_CapData * 2)()
    _check(libc.capset(ctypes.byref(_CapHeader(LINUX_CAPABILITY_VERSION_3, 0)), data), "capset")


def _set_limit(name: str, soft: int, hard: int) -> None:
    """A resource limit; without root (no CAP_SYS_RESOURCE outside) never above the hard limit
    the arena's user already has, which cannot be raised."""
    which = getattr(resource, name)
    if HOST_IDS[0] != 0:
        _, current = resource.getrlimit(which)
        if current != resource.RLIM_INFINITY:
            soft, hard = min(soft, current), min(hard, current)
    resource.setrlimit(which, (soft, hard))


def run_bot(request: dict) -> None:
    """The bot's process, after its pipes are in place: confine it and run its program. Never returns."""
    # SCHED_BATCH, as the arena gives every bot (arena.process.command.batch_policy): a bot woken by an
    # `act` does not preempt the arena. Only the bot: its init and this server answer the arena.
    os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    limits = request["limits"]
    for name, value in (("RLIMIT_AS", limits["memory"]), ("RLIMIT_FSIZE", limits["file"]),
                        ("RLIMIT_NOFILE", limits["open_files"]), ("RLIMIT_NPROC", limits["processes"]),
                        ("RLIMIT_CORE", 0)):
        _set_limit(name, value, value)
    # SIGXCPU at the soft limit, SIGKILL one second later for a bot that ignores SIGXCPU.
    _set_limit("RLIMIT_CPU", limits["cpu"], limits["cpu"] + 1)
    uid = request["uid"]
    if uid is None:  # an unprivileged server's: the arena's user in a user namespace of its own
        _drop_capabilities()
    else:
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)  # drops every capability
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    load_filter(FILTER)
    os.chdir(request["cwd"])
    argv, env = request["argv"], request["env"]
    if not request["in_process"]:
        for signum in (signal.SIGPIPE, signal.SIGXFSZ):  # as subprocess does before an exec
            signal.signal(signum, signal.SIG_DFL)
        try:
            os.execve(argv[0], argv, env)
        except OSError as exc:
            os.write(2, f"cannot run {argv[0]}: {exc.strerror}\n".encode())
            os._exit(127)
    os._exit(run_script(argv[1], argv[1:], env))


def run_script(script: str, args: list[str], env: dict) -> int:
    """Run a Python script as `python script args...` would, in this (forked) interpreter."""
    os.environ.clear()
    os.environ.update(env)
    sys.argv = list(args)
    extra = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    sys.path[:0] = [os.path.dirname(os.path.abspath(script)), *extra]
    sys.dont_write_bytecode = True
    sys.modules.pop("botkit", None)  # imported for its dependencies; the bot gets the sandbox's copy
    code = 0
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        if exc.code is None:
            code = 0
        elif isinstance(exc.code, int):
            code = exc.code & 0xFF
        else:
            print(exc.code, file=sys.stderr)
            code = 1
    except BaseException:
        traceback.print_exc()
        code = 1
    for thread in threading.enumerate():  # the interpreter would wait for them too
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join()
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    return code


def init(scratch: str, request: dict, fds: list[int], ready: int, server_alive: int) -> None:
    """Pid 1 of the bot's PID namespace: fork the bot at once (it builds the rest of its sandbox
    itself, `confine`), reap, exit with the bot's status. Never returns.

    The init does next to nothing before its fork on purpose: every page a forked interpreter
    writes is copied, and what the init and then the bot both touched was copied twice
    (building the root here cost about 1 ms more per bot, bench/README.md)."""
    try:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if select.select([server_alive], [], [], 0)[0]:
            os._exit(1)  # the server died before the signal was armed (its pidfd is readable)
        _close_all_but({*fds, ready})
        bot = os.fork()
        if bot:
            # Not even a bot of the same user (an unprivileged server's) may look into the
            # init's memory, a copy of the server's: /proc/1 in the bot's namespace is root's
            # and hidden. Only after the fork, or the bot could not write its own uid map.
            _prctl(PR_SET_DUMPABLE, 0)
    except OSError as exc:
        os.write(ready, str(exc).encode()[:4000])
        os._exit(1)
    if bot == 0:
        confine(scratch, request, fds, ready)
    os.closerange(0, 1 << 16)  # only the bot holds its pipes, and the ready pipe
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            os._exit(1)
        if pid == bot:
            os._exit(exit_status(status))


def confine(scratch: str, request: dict, fds: list[int], ready: int) -> None:
    """The bot's process, pid 2, still root: build the bot's other namespaces and its root, say
    so on `ready` ("ok" or why not), then run the bot (`run_bot`). Never returns.

    /proc hides the processes of other users (hidepid=2): the init, root and outside the bot's
    mount namespace, is not there for the bot to look at."""
    try:
        request = {**request, **_read_private(fds[0])}  # (ValueError: not JSON)
        for procs in request.get("cgroups", ()):  # the bot's own groups (arena/process/cgroups.py)
            with open(procs, "w") as f:
                f.write(str(os.getpid()))  # a pid of the writer's own PID namespace: itself
        _check(libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP), "unshare")
        build_root(scratch, request)
        if request["uid"] is None:
            _user_namespace_of_its_own()
    except (OSError, ValueError) as exc:
        os.write(ready, str(exc).encode()[:4000])
        os._exit(1)
    os.write(ready, b"ok")
    os.close(ready)
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
        os.closerange(3, 1 << 16)
        run_bot(request)
    except BaseException as exc:  # noqa: BLE001  (a failed set-up must not run the bot)
        os.write(2, f"arena: the fork sandbox could not start the bot: {exc}\n".encode())
    os._exit(127)


def _read_private(stdin: int) -> dict:
    """The rest of the bot's request, which the arena wrote at the head of its stdin (4 bytes of
    length, then JSON): read exactly that much, so that what follows is the bot's."""
    def exactly(n: int) -> bytes:
        data = b""
        while len(data) < n:
            chunk = os.read(stdin, n - len(data))
            if not chunk:
                raise OSError(errno.EPIPE, "the arena closed the bot's input before its request")
            data += chunk
        return data
    return json.loads(exactly(int.from_bytes(exactly(4), "big")))


def _close_all_but(keep: set[int]) -> None:
    """Close every file descriptor not in `keep` (the init needs none of the server's)."""
    low = 0
    for fd in sorted(keep):
        os.closerange(low, fd)
        low = fd + 1
    os.closerange(low, 1 << 16)


def start(scratch: str, request: dict, fds: list[int], server_alive: int,
          own_pid_ns: int) -> tuple[int, int, int]:
    """Fork the bot's init into a new PID namespace; returns its pid, the read end of its
    `ready` pipe and a pidfd of it. Only that one fork goes to the new namespace: the server's
    later children are back in its own (were that to fail, the server stops, not go astray)."""
    ready_read, ready_write = os.pipe()
    try:
        _check(libc.unshare(CLONE_NEWPID), "unshare")
        pid = os.fork()
    except BaseException:
        _own_pid_ns_again(own_pid_ns)
        os.close(ready_read)
        os.close(ready_write)
        raise
    if pid == 0:
        try:
            init(scratch, request, fds, ready_write, server_alive)
        finally:
            os._exit(1)
    _own_pid_ns_again(own_pid_ns)
    os.close(ready_write)
    try:
        return pid, ready_read, os.pidfd_open(pid)
    except OSError:  # out of file descriptors, say: an init nobody can watch must go
        os.close(ready_read)
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise


def _own_pid_ns_again(own_pid_ns: int) -> None:
    if libc.setns(own_pid_ns, CLONE_NEWPID) != 0:
        os._exit(70)  # the arena sees the server gone and says so


def serve(server: socket.socket, scratch: str, broken: str | None = None) -> None:
    """Start a bot per request until the arena closes its end; report each one's sandbox, then
    its exit.

    `scratch` is an empty folder (the arena's, which removes it): in the server's own mount
    namespace it holds the shared parts of the bots' roots (`build_shared`), and each init
    mounts its bot's root in it, in the init's own namespace. With `broken`, the reason the
    shared parts could not be built, every request gets that as its error."""
    server_alive = os.pidfd_open(os.getpid())  # readable once the server has exited (see init)
    own_pid_ns = os.open("/proc/self/ns/pid", os.O_RDONLY)
    selector = selectors.DefaultSelector()
    selector.register(server, selectors.EVENT_READ, None)
    starting: dict[int, tuple[int, int]] = {}  # request id -> (the init's pid, its ready pipe)
    live: set[int] = set()  # the inits not reaped yet

    def reply(message: dict, fds: tuple[int, ...] = ()) -> None:
        socket.send_fds(server, [json.dumps(message).encode()], list(fds))

    def report_ready(request_id: int) -> None:
        """Pass on what the init said on its ready pipe: its pid and a pidfd, or its error."""
        pid, ready = starting.pop(request_id)
        said = os.read(ready, 4096)
        selector.unregister(ready)
        os.close(ready)
        if said == b"ok":
            try:
                pidfd = os.pidfd_open(pid)  # the arena's (the server has not reaped the init yet)
            except OSError as exc:  # out of file descriptors, say: a bot nobody can hold must go
                os.kill(pid, signal.SIGKILL)
                reply({"id": request_id, "error": f"pidfd_open: {exc.strerror}"})
                return
            try:
                reply({"id": request_id, "pid": pid}, (pidfd,))
            finally:
                os.close(pidfd)
        elif said:
            reply({"id": request_id, "error": said.decode(errors="replace")})
        # nothing said: the init died before it could; its exit report follows at once

    try:
        while True:
            for key, _ in selector.select():
                if key.data is None:
                    try:
                        message, fds, _, _ = socket.recv_fds(server, 1 << 16, 3)
                    except ConnectionResetError:
                        message, fds = b"", []
                    if not message:
                        return  # the arena has gone
                    request = json.loads(message)
                    if broken:
                        for fd in fds:
                            os.close(fd)
                        reply({"id": request["id"], "error": broken})
                        continue
                    try:
                        add_to_usr(scratch, request.get("usr", ()))  # the bot's own program, if under /usr
                        pid, ready, exit_fd = start(scratch, request, fds, server_alive, own_pid_ns)
                    except OSError as exc:
                        reply({"id": request["id"], "error": str(exc)})
                        continue
                    finally:
                        for fd in fds:
                            os.close(fd)
                    starting[request["id"]] = (pid, ready)
                    live.add(pid)
                    selector.register(ready, selectors.EVENT_READ, ("ready", request["id"], pid))
                    selector.register(exit_fd, selectors.EVENT_READ, ("exit", request["id"], pid))
                    continue
                what, request_id, pid = key.data
                if request_id in starting:  # (a key of this batch may belong to a request just settled)
                    report_ready(request_id)
                if what == "exit":
                    selector.unregister(key.fd)
                    os.close(key.fd)
                    status = exit_status(os.waitpid(pid, 0)[1])
                    live.discard(pid)
                    reply({"id": request_id, "exit": status})
    except OSError as exc:
        if exc.errno not in (errno.EPIPE, errno.ECONNRESET):
            raise
        return  # the arena has gone
    finally:
        selector.close()
        reap(live)


def reap(inits: set[int], patience: float = 2.0) -> None:
    """SIGKILL the inits still alive and reap them before the server exits: a bot the arena
    gave up on (a start it abandoned, `arena.process.forking._discard`) would otherwise still be
    dying, nobody's child, when the arena has exited. An init's exit means its PID namespace is
    empty. At most `patience` seconds (an init in a frozen v1 group does not die until thawed:
    the arena's watchdog thaws those)."""
    for pid in inits:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    deadline = time.monotonic() + patience
    while inits and time.monotonic() < deadline:
        for pid in list(inits):
            try:
                done, _ = os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                done = pid
            if done:
                inits.discard(pid)
        if inits:
            time.sleep(0.002)


if __name__ == "__main__":
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the arena also checks our parent, see arena.process.forking
    sock = socket.socket(fileno=int(sys.argv[1]))
    FILTER = bytes.fromhex(sys.argv[4])
    USR_LAYOUT = json.loads(sys.argv[5])
    USR_COPY = sys.argv[6] if len(sys.argv) > 6 else ""
    broken = None
    if os.geteuid() != 0:
        try:
            enter_user_namespace()
        except OSError as exc:
            broken = f"unprivileged user namespaces are not allowed here ({exc})"
    if len(sys.argv) > 3:  # the bot kit's folder: import it (and so msgpack, random) once, here
        sys.path.insert(0, sys.argv[3])
        try:
            import botkit  # noqa: F401
        except ImportError:
            pass
        del sys.path[0]
    try:
        if broken is None:
            build_shared(sys.argv[2])
    except OSError as exc:
        broken = f"the fork server could not build the bots' shared root: {exc}"
    import gc
    gc.collect()
    gc.freeze()
    serve(sock, sys.argv[2], broken)
