"""The fork server of sandbox mode "fork": confined bots started by forking a warm interpreter.

Starting a Python bot costs about 30 ms of CPU (the interpreter, msgpack, the bot kit, and in
bwrap mode the sandbox's own execs); a tournament starts four bots per room. This server is
started once per arena run, as root, under the sandbox's Python (`/usr/bin/python3`), with those
modules imported; for each bot it forks and builds the sandbox itself with the kernel's
primitives, then runs the bot's script in the forked interpreter (or execs any other program).
A bot costs about 3 ms this way. `arena.forking` is the arena's side; this file runs as a plain
script (stdlib only, no arena imports) and must stay importable by the system's Python 3.11.

Per bot, three processes:
- the *keeper* (forked from the server, root, outside the bot's namespaces): unshares mount, PID,
  network, IPC, UTS and cgroup namespaces, builds the bot's root (read-only /usr and the bot's own
  folder, a fresh /dev, a private size-limited tmpfs /tmp, nothing else), forks the init, hands
  the arena a pidfd of it, and waits for it;
- the *init*, pid 1 of the bot's PID namespace (root, but in the bot's namespaces): mounts /proc,
  forks the bot, reaps zombies, and exits with the bot's status (128 + N for death by signal N, as
  in bwrap mode); when it dies the kernel kills everything left in the namespace;
- the *bot*: its three pipes as stdin/stdout/stderr, resource limits, a throw-away uid with no
  groups and no capabilities, no_new_privs, and a seccomp filter that refuses new user
  namespaces (bwrap's --disable-userns); then the bot's program.

A parent-death signal links each to its parent (bot -> init -> keeper -> server -> arena), so
nothing outlives a SIGKILLed arena.

Requests and replies are JSON records on a SOCK_SEQPACKET socket (fd given as argv[1]); a
request carries the bot's three pipe ends as SCM_RIGHTS. Replies: {"id", "pid"} with a pidfd of
the bot's init, or {"id", "error"}; when the init has exited, {"id", "exit": status}.
"""

from __future__ import annotations

import ctypes
import fcntl
import json
import os
import resource
import selectors
import signal
import socket
import struct
import sys

# What a Python bot imports at start, imported once here instead of in every bot.
import runpy  # noqa: F401
import pkgutil  # noqa: F401  (runpy imports it at the first run_path)
import random  # noqa: F401
import traceback
import atexit
import threading

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
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP = 1, 38, 22
SECCOMP_MODE_FILTER = 2
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}
# seccomp: (audit arch, unshare, clone, clone3) per machine
SECCOMP_ARCH = {"x86_64": (0xC000003E, 272, 56, 435), "aarch64": (0xC00000B7, 97, 220, 435)}
MACHINE = os.uname().machine
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = lambda s: None if s is None else s.encode()  # noqa: E731
    _check(libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags), enc(data)), f"mount {target}")


def _bind_ro(source: str, target: str) -> None:
    _mount(source, target, None, MS_BIND | MS_REC)
    _mount(None, target, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)


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


def build_root(scratch: str, request: dict) -> None:
    """In fresh namespaces: make `scratch` the bot's whole file system and enter it."""
    uid = request["uid"]
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    new = lambda path: os.path.join(scratch, path.lstrip("/"))  # noqa: E731
    os.mkdir(new("usr"))
    _bind_ro("/usr", new("usr"))
    for link in ("bin", "lib", "lib64", "sbin"):
        os.symlink(f"usr/{link}", new(link))
    os.mkdir(new("etc"))
    for path in ("/etc/ld.so.cache", "/etc/localtime", "/etc/alternatives"):
        if os.path.exists(path):
            _mount_point(new(path), path)
            _bind_ro(path, new(path))
    os.mkdir(new("proc"))
    os.mkdir(new("dev"))
    _mount("tmpfs", new("dev"), "tmpfs", MS_NOSUID | MS_NOEXEC, "size=64k,mode=0755")
    for device in DEVICES:
        if os.path.exists(f"/dev/{device}"):
            open(new(f"dev/{device}"), "w").close()
            _mount(f"/dev/{device}", new(f"dev/{device}"), None, MS_BIND)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2"), ("shm", "/tmp")):
        os.symlink(target, new(f"dev/{name}"))
    os.mkdir(new("tmp"))
    _mount("tmpfs", new("tmp"), "tmpfs", MS_NOSUID | MS_NODEV, f"size={request['tmp_bytes']},mode=0700,uid={uid},gid={uid}")
    for source, target in request["binds"]:  # the bot's folder, the bot kit, a program outside /usr
        _mount_point(new(target), source)
        _bind_ro(source, new(target))
    os.chdir(scratch)
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


def refuse_user_namespaces() -> None:
    """A seccomp filter: unshare/clone with CLONE_NEWUSER fail with EPERM, clone3 with ENOSYS
    (so that libc falls back to clone); other architectures' and x32 calls are refused."""
    arch, unshare, clone, clone3 = SECCOMP_ARCH[MACHINE]
    ld, jeq, jset, jge, ret = 0x20, 0x15, 0x45, 0x35, 0x06
    allow, eperm, enosys = 0x7FFF0000, 0x00050000 | 1, 0x00050000 | 38
    program = [
        (ld, 0, 0, 4), (jeq, 1, 0, arch), (ret, 0, 0, eperm),  # another architecture's calls
        (ld, 0, 0, 0), (jge, 0, 1, 0x40000000), (ret, 0, 0, eperm),  # x32
        (jeq, 4, 0, unshare), (jeq, 3, 0, clone), (jeq, 1, 0, clone3), (ret, 0, 0, allow),
        (ret, 0, 0, enosys),
        (ld, 0, 0, 16), (jset, 0, 1, CLONE_NEWUSER), (ret, 0, 0, eperm), (ret, 0, 0, allow),
    ]
    filters = b"".join(struct.pack("HBBI", *op) for op in program)
    buffer = ctypes.create_string_buffer(filters)
    fprog = struct.pack("HxxxxxxQ", len(program), ctypes.addressof(buffer))
    _check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.c_char_p(fprog), 0, 0), "seccomp")


def run_bot(request: dict) -> None:
    """The bot's process, after its pipes are in place: confine it and run its program. Never returns."""
    limits = request["limits"]
    for name, value in (("RLIMIT_AS", limits["memory"]), ("RLIMIT_FSIZE", limits["file"]),
                        ("RLIMIT_NOFILE", limits["open_files"]), ("RLIMIT_NPROC", limits["processes"]),
                        ("RLIMIT_CORE", 0)):
        resource.setrlimit(getattr(resource, name), (value, value))
    # SIGXCPU at the soft limit, SIGKILL one second later for a bot that ignores SIGXCPU.
    resource.setrlimit(resource.RLIMIT_CPU, (limits["cpu"], limits["cpu"] + 1))
    uid = request["uid"]
    os.setgroups([])
    os.setresgid(uid, uid, uid)
    os.setresuid(uid, uid, uid)  # drops every capability
    _prctl(PR_SET_NO_NEW_PRIVS, 1)
    if MACHINE in SECCOMP_ARCH:
        refuse_user_namespaces()
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


def init(request: dict, fds: list[int], keeper_alive: int) -> None:
    """Pid 1 of the bot's PID namespace: mount /proc, fork the bot, reap, exit with its status."""
    try:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if _closed(keeper_alive):
            os._exit(1)  # the keeper died before the signal was armed
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except OSError as exc:  # said on the bot's stderr, which the arena keeps with the seat's fault
        os.write(fds[2], f"arena: the fork sandbox could not start the bot: {exc}\n".encode())
        os._exit(127)
    bot = os.fork()
    if bot == 0:
        try:
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
            os.closerange(3, 1 << 16)
            run_bot(request)
        except BaseException as exc:  # noqa: BLE001  (a failed set-up must not run the bot)
            os.write(2, f"arena: the fork sandbox could not start the bot: {exc}\n".encode())
        os._exit(127)
    os.closerange(0, 1 << 16)  # only the bot holds its pipes
    while True:
        try:
            pid, status = os.wait()
        except ChildProcessError:
            os._exit(1)
        if pid == bot:
            os._exit(exit_status(status))


def _closed(fd: int) -> bool:
    """True when the write end of the pipe `fd` reads from has been closed (its holder died)."""
    os.set_blocking(fd, False)
    try:
        return os.read(fd, 1) == b""
    except BlockingIOError:
        return False


def keeper(server: socket.socket, server_pid: int, scratch: str, request: dict, fds: list[int]) -> None:
    """Build the bot's namespaces and root, start its init, report it, wait for it. Never returns."""
    code = 1
    try:
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != server_pid:
            os._exit(1)
        try:
            _check(libc.unshare(CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS
                                | CLONE_NEWCGROUP), "unshare")
            build_root(scratch, request)
        except OSError as exc:
            server.send(json.dumps({"id": request["id"], "error": str(exc)}).encode())
            os._exit(1)
        alive_read, alive_write = os.pipe()
        pid = os.fork()
        if pid == 0:
            try:
                server.close()
                os.close(alive_write)
                init(request, fds, alive_read)
            finally:
                os._exit(1)
        os.close(alive_read)
        for fd in fds:
            os.close(fd)
        pidfd = os.pidfd_open(pid)
        socket.send_fds(server, [json.dumps({"id": request["id"], "pid": pid}).encode()], [pidfd])
        os.close(pidfd)
        server.close()
        code = exit_status(os.waitpid(pid, 0)[1])
    finally:
        os._exit(code)


def serve(server: socket.socket, scratch: str) -> None:
    """Fork a keeper per request until the arena closes its end; report each keeper's exit.

    `scratch` is an empty folder (the arena's, which removes it): each keeper mounts the bot's
    root there, in its own mount namespace."""
    me = os.getpid()
    selector = selectors.DefaultSelector()
    selector.register(server, selectors.EVENT_READ, None)
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
                    pid = os.fork()
                    if pid == 0:
                        selector.close()
                        keeper(server, me, scratch, request, fds)
                    for fd in fds:
                        os.close(fd)
                    selector.register(os.pidfd_open(pid), selectors.EVENT_READ, (pid, request["id"]))
                else:
                    pid, request_id = key.data
                    selector.unregister(key.fd)
                    os.close(key.fd)
                    status = exit_status(os.waitpid(pid, 0)[1])
                    try:
                        server.send(json.dumps({"id": request_id, "exit": status}).encode())
                    except OSError:
                        return
    finally:
        selector.close()


if __name__ == "__main__":
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # the arena also checks our parent, see arena.forking
    sock = socket.socket(fileno=int(sys.argv[1]))
    if len(sys.argv) > 3:  # the bot kit's folder: import it (and so msgpack, random) once, here
        sys.path.insert(0, sys.argv[3])
        try:
            import botkit  # noqa: F401
        except ImportError:
            pass
        del sys.path[0]
    import gc; gc.collect(); gc.freeze()
    serve(sock, sys.argv[2])
