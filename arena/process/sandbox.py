"""How a bot process is confined: `fork`, `bwrap`, `rlimit` or `none` (docs/hostile.md has the whole story).

- `none`: the bot runs as the arena's user with the arena's environment; it only gets its own
  session and a parent-death signal, and is still killed with all it started (arena.process.lifecycle).
  For trusted bots and debugging.
- `rlimit`: resource limits (address space, CPU seconds, file size, open files, processes) set
  before the bot's program starts (by the guard shell's `ulimit`, else `prlimit`), a minimal
  environment (with what fits common runtimes to the limits: arena.process.fitted), a private temp directory
  as HOME and TMPDIR, and, when the arena runs as root, a throw-away uid of its own, which makes
  the process limit meaningful (root ignores RLIMIT_NPROC), keeps the bot from signalling other
  processes and from reading files that are not world-readable, and lets the arena find and kill
  every process the bot started by its uid.
- `bwrap`: all of `rlimit`, inside bubblewrap: new user, PID, network, IPC and UTS namespaces (no
  network at all, a fresh /proc that shows only the bot's own processes), a read-only view of
  /usr and the bot's own folder only, and a private size-limited tmpfs as /tmp. bwrap itself runs
  as the throw-away uid, so its namespaces are unprivileged ones.
- `fork`: the confinement of `bwrap` (and no user namespaces for the bot either), built by the
  arena's own fork server (arena/process/forkserver.py) in a process forked from a warm
  interpreter: a Python bot starts in about a third of the CPU time, since neither bwrap, prlimit
  nor a fresh interpreter is exec'd. As root each bot gets a throw-away uid; an ordinary user's
  server runs in a user namespace of its own and each bot in one more, as the user, without
  capabilities. The default where bwrap is not installed; bwrap is the audited tool.

Python bots run under a readable system interpreter in the sandboxed modes (the arena's own
interpreter may live under /root, which the throw-away uid cannot read): `/usr/bin/python3`, or
the one named by ZWICKER_SANDBOX_PYTHON. The kit, msgpack and the engine come from the arena's own
environment (`runtime`), so no system package is needed.
"""

from __future__ import annotations

import contextlib
import fcntl
import functools
import hashlib
import json
import os
import secrets
import shutil
import stat
import subprocess
import tempfile
from collections.abc import AsyncIterator, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import trio

from arena.process import cgroups, fitted, libraries, runtime, seccomp, view

if TYPE_CHECKING:
    from arena.process.command import BotCommand, Limits

MODES = ("fork", "bwrap", "rlimit", "none")
# A Python bot imports the bot kit, msgpack and the engine from the arena (`runtime.runtime()`),
# shown read-only at KIT_MOUNT in bwrap and fork.
KIT_MOUNT = "/opt/zwicker-kit"
SANDBOX_PYTHON_VAR = "ZWICKER_SANDBOX_PYTHON"
PATH = "/usr/local/bin:/usr/bin:/bin"

# Throw-away uids are drawn at random from a range no distribution hands out (systemd's
# dynamic users end at 61183, container sub-uid ranges usually sit below 2**31 in 65536 blocks
# from 100000; this range is far above both).
_UID_FIRST = 0x7A000000
_UID_COUNT = 0x01000000
_uids: set[int] = set()
_uid_share = (0, 1)  # (k, n): this process draws the uids k, k + n, k + 2n, ... of the range (arena.tournaments.shard)


def uids_handed_out() -> frozenset[int]:
    """Every throw-away uid this arena process has run a bot as."""
    return frozenset(_uids)


@functools.cache
def bwrap_problem() -> str | None:
    """Why the bwrap sandbox cannot run here, or None if a trial bot started and ran fine."""
    if shutil.which("bwrap") is None:
        return "bwrap is not installed; Debian: apt-get install bubblewrap"
    problem = sandbox_python_problem() or seccomp.problem()
    if problem:
        return problem
    uid = allocate_uid()
    with _filter_fd() as fd:
        extra = [arg for bind in kit_binds() for arg in ("--ro-bind", *bind)] + ["--seccomp", str(fd)]
        argv = _bwrap_argv(runtime.runtime(), runtime.BOT_MOUNT, uid, 1 << 20, extra) + [
            "/usr/bin/env", f"PYTHONPATH={KIT_MOUNT}", sandbox_python(), "-c", "import msgpack"
        ]
        try:
            result = subprocess.run(as_user(uid) + argv, capture_output=True, timeout=30, pass_fds=(fd,))
        except (OSError, subprocess.TimeoutExpired) as exc:
            return f"bwrap failed to start: {exc}"
    if result.returncode != 0:
        lines = result.stderr.decode(errors="replace").strip().splitlines()
        return f"bwrap trial failed: {lines[-1] if lines else 'exit status %d' % result.returncode}"
    return None


def sandbox_python() -> str:
    return os.environ.get(SANDBOX_PYTHON_VAR) or "/usr/bin/python3"


@functools.cache
def sandbox_python_problem() -> str | None:
    """Why the sandbox's Python cannot run bots (it must exist and import msgpack), or None."""
    python = sandbox_python()
    try:
        result = subprocess.run([python, "-I", "-c", f"import sys; sys.path.insert(0, {str(runtime.runtime())!r}); import msgpack"],
                                capture_output=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"no Python for sandboxed bots at {python} ({exc}); set {SANDBOX_PYTHON_VAR}"
    if result.returncode != 0:
        return f"{python} cannot run the bot kit: {_last_line(result.stderr)}"
    return None


@functools.cache
def usr_layout() -> list[tuple[str, str, str]]:
    """Every sandboxed bot's /usr (arena/process/view.py)."""
    return view.layout(view.base(sandbox_python()))


@functools.cache
def pinned_usr_layout() -> list[tuple[str, str, str]]:
    """`usr_layout()`, its pages (and the kit's) loaded by this process: for bots that see the
    files themselves (fork mode, bwrap without a tmpfs copy), not a copy."""
    view.pin([path for _, path, _ in usr_layout()] + [str(runtime.runtime())])
    return usr_layout()


@functools.cache
def program_layout(program: str) -> list[tuple[str, str, str]]:
    """What a bot's own program adds to its /usr: itself, the runtime it or its `#!` line names,
    and their libraries (arena/process/view.py, `for_program`)."""
    path = shutil.which(program) or program
    if not os.path.isabs(path):
        return []
    return view.layout(view.for_program(path))


SHM = "/dev/shm"


@functools.cache
def usr_copy() -> str | None:
    """bwrap's and fork's /usr: the view copied into a folder on the machine's tmpfs (/dev/shm),
    whose pages are memory and cannot be evicted; None where there is no tmpfs there, or where a
    new copy would take /dev/shm's copies past `shm_bound()` (bwrap then binds each path of the
    view, about 130 ms more per bot). One copy per view and user, made by the first arena that
    needs it (about 1 s, 130 MiB), shared by the arenas that use the same view, kept for the next
    arena of the same view, and removed by the first arena to start with another view once none
    uses it (`sweep_usr_copies`): each arena holds a shared lock on the copy it uses for as long
    as it runs.

    A bind's source shows in the bot's /proc/self/mountinfo, so the copy's folder has a random
    name; a link beside it, named by a hash of the user and the view's paths with their sizes and
    times (an upgraded /usr gets a new copy), finds it. A hash alone would not do: the bot sees
    the paths, sizes and times, and could try uids until one gave the name."""
    try:
        if _fs_type(SHM) != "tmpfs":
            return None
        layout = usr_layout()
        stamps = [(entry, _stamp(entry[1])) for entry in layout]
        key = hashlib.sha256(json.dumps([os.geteuid(), stamps]).encode()).hexdigest()[:16]
        link = Path(SHM) / f"{USR_COPY_PREFIX}{key}"
        sweep_usr_copies(keep=link)
        for _ in range(3):  # (a sweep may take the copy between finding it and locking it)
            if link.is_symlink() and link.lstat().st_uid == os.geteuid() and not link.exists():
                link.unlink()  # its copy was removed: make a new one
            if not os.path.lexists(link):
                if shm_used() + _layout_bytes(layout) > shm_bound():
                    return None
                building = Path(tempfile.mkdtemp(prefix=USR_COPY_PREFIX, dir=SHM))
                _hold(building)
                try:
                    view.copy_to(layout, str(building / "usr"))
                    (building / HELD_MARK).touch()
                    building.chmod(0o755)
                    os.symlink(building.name, link)  # whole or not at all
                except OSError:
                    shutil.rmtree(building, ignore_errors=True)  # another arena may have won the race
            copy = _trusted_copy(link)
            if copy is None:
                return None
            _hold(Path(copy).parent)
            if _trusted_copy(link) == copy and os.path.isdir(copy):
                return copy
        return None
    except OSError:
        return None


USR_COPY_PREFIX = "zwicker-usr-"
SHM_BOUND_VAR = "ZWICKER_SANDBOX_SHM_BYTES"
SHM_BOUND = 2 << 30
"""What the view's copies of one user may hold on /dev/shm at most, by default (a view with
Python, Java, Perl, Ruby and Node.js is about 600 MiB here: bench/README.md)."""
HELD_MARK = "held"  # in a copy's folder: the arenas that use it hold a lock on it
_held: dict[str, int] = {}  # copy folder -> an open descriptor holding a shared lock on it


def shm_bound() -> int:
    """The bound on this user's copies of the view on /dev/shm (`SHM_BOUND_VAR` sets it, in bytes)."""
    text = os.environ.get(SHM_BOUND_VAR, "").strip()
    return int(text) if text.isdigit() else SHM_BOUND


def _hold(folder: Path) -> None:
    """A shared lock on `folder` (a copy of the view) for as long as this process runs: a sweep
    removes only copies no arena holds."""
    if str(folder) in _held:
        return
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    fcntl.flock(fd, fcntl.LOCK_SH)  # waits while a sweep removes it (then it is gone: made anew)
    _held[str(folder)] = fd


def _copies() -> list[Path]:
    """This user's copies of the view on /dev/shm (folders, not their links)."""
    out = []
    for path in Path(SHM).glob(f"{USR_COPY_PREFIX}*"):
        try:
            info = path.lstat()
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.geteuid():
            out.append(path)
    return out


def shm_used() -> int:
    """Bytes this user's copies of the view hold on /dev/shm."""
    total = 0
    for copy in _copies():
        for here, _, names in os.walk(copy):
            for name in names:
                try:
                    total += os.lstat(os.path.join(here, name)).st_blocks * 512
                except OSError:
                    pass
    return total


def _layout_bytes(layout: list[tuple[str, str, str]]) -> int:
    """What copying these paths of the view takes."""
    total = 0
    for kind, path, source in layout:
        if kind == "link":
            continue
        here = source or path
        if kind == "dir":
            total += sum(os.lstat(os.path.join(d, n)).st_size for d, _, names in os.walk(here) for n in names)
        else:
            total += os.path.getsize(here)
    return total


def sweep_usr_copies(keep: Path | None = None) -> list[str]:
    """Remove this user's copies of the view that no arena holds (a changed view's, a dead
    arena's, one whose making was cut short: no link leads to it), and the links that led to them.
    The copy `keep` (a link) leads to stays: the view this arena is about to use, which it would
    only copy again (about 1 s); a user's copies are then at most that one plus those in use."""
    removed = []
    linked = set()
    kept = None
    for link in Path(SHM).glob(f"{USR_COPY_PREFIX}*"):
        try:
            if link.is_symlink():
                linked.add(os.readlink(link))
                if keep is not None and link == keep and link.lstat().st_uid == os.geteuid():
                    kept = os.readlink(link)
        except OSError:
            pass
    for copy in _copies():
        if copy.name == kept:
            continue
        if str(copy) in _held or (copy.name in linked and not (copy / HELD_MARK).exists()):
            continue  # (linked, without the mark: made by an arena that takes no locks, which may use it still)
        try:
            fd = os.open(copy, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC | os.O_NOFOLLOW)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            continue  # an arena uses it
        try:
            shutil.rmtree(copy, ignore_errors=True)
            removed.append(str(copy))
        finally:
            os.close(fd)
    for link in Path(SHM).glob(f"{USR_COPY_PREFIX}*"):
        try:
            if link.is_symlink() and link.lstat().st_uid == os.geteuid() and not link.exists():
                link.unlink()
        except OSError:
            pass
    return removed


def _trusted_copy(link: Path) -> str | None:
    """The /usr of the copy `link` names, if the link and the copy are ours, and nobody else may
    write to the copy's folder; else None (never trusted)."""
    me = os.geteuid()
    if link.lstat().st_uid != me or not link.is_symlink():
        return None
    name = os.readlink(link)
    if "/" in name or not name.startswith(USR_COPY_PREFIX):
        return None
    folder = link.parent / name
    info = folder.lstat()
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != me or info.st_mode & 0o022 or not (folder / "usr").is_dir():
        return None
    return str(folder / "usr")


def _stamp(path: str) -> tuple[int, int]:
    info = os.lstat(path)
    return info.st_size, info.st_mtime_ns


def _fs_type(path: str) -> str:
    """The file system type of the mount `path` is on (from /proc/self/mountinfo)."""
    best, kind = "", ""
    real = os.path.realpath(path)
    with open("/proc/self/mountinfo") as f:
        for line in f:
            fields = line.split()
            point, fstype = fields[4], fields[fields.index("-") + 1]
            if (real == point or real.startswith(point.rstrip("/") + "/")) and len(point) >= len(best):
                best, kind = point, fstype
    return kind


_copied: set[tuple[str, str]] = set()  # (copy, program): the copy holds its runtime already (a copy only grows)


def _programs_in_usr(argv: list[str], workdir: Path) -> list[tuple[str, str, str]]:
    """`_program_in_usr` of each program the command starts (`env VAR=1 java ...`: env and java)."""
    return [entry for program in view.launched(argv, str(workdir)) for entry in _program_in_usr(program)]


def _program_in_usr(program: str) -> list[tuple[str, str, str]]:
    """What a bot's own program adds to its /usr (`program_layout`): added to the tmpfs copy of
    the view (once), so nothing is left to show; else the paths to bind one by one."""
    copy = usr_copy()
    if (str(copy), program) in _copied:
        return []
    base = set(usr_layout())
    extra = [entry for entry in program_layout(program) if entry not in base]
    if copy is None:
        view.pin([source if kind != "link" and source else path for kind, path, source in extra])
        return extra
    missing = [entry for entry in extra if not os.path.lexists(os.path.join(copy, os.path.relpath(entry[1], "/usr")))]
    if missing:
        need = _layout_bytes(missing)
        if shm_used() + need > shm_bound():
            raise ValueError(f"the sandbox's copies of /usr would hold more than {shm_bound() >> 20} MiB on {SHM} with "
                             f"{program}'s runtime ({need >> 20} MiB more): {SHM_BOUND_VAR} raises the bound")
        view.copy_to(missing, copy)
    _copied.add((copy, program))
    return []


@functools.cache
def proc_masks() -> list[tuple[str, str]]:
    """bwrap's binds of a snapshot of /proc's machine-wide counters (forkserver.HOST_WIDE_FILES),
    taken once per arena process into its stage folder, over the sandbox's /proc."""
    from arena.process import forkserver

    snapshot = runtime.shown() / "proc"
    forkserver.snapshot_proc(str(snapshot))
    return forkserver.proc_masks(str(snapshot))


def _usr_args(layout: list[tuple[str, str, str]]) -> list[str]:
    """bwrap's arguments that show these paths of /usr (read-only binds, symlinks)."""
    args = []
    for kind, path, target in layout:
        args += ["--symlink", target, path] if kind == "link" else ["--ro-bind", target or path, path]
    return args


def kit_binds() -> list[tuple[str, str]]:
    """The runtime a sandboxed Python bot imports from, as a (source, target) bind."""
    return [(str(runtime.runtime()), KIT_MOUNT)]


@dataclass
class Launch:
    """Everything `subprocess.Popen` needs to start one confined bot."""

    argv: list[str]
    cwd: str
    env: dict[str, str]
    uid: int | None = None
    request: dict | None = None  # mode "fork": what the fork server needs instead (arena.process.forkserver)
    pass_fds: tuple[int, ...] = ()  # kept open in the child
    namespace: PidNamespace | None = None  # mode "bwrap": how to see the whole sandbox gone
    group: cgroups.BotGroup | None = None  # the bot's cgroups, if any (its freezer: arena.process.scheduler)


class PidNamespace:
    """The PID namespace bwrap puts a bot in, as bwrap reports it (`--info-fd`): its init's pid
    and the namespace's inode. When that init has exited, the kernel has killed every process
    in the namespace, so the bot and all it started are gone: a teardown need not scan /proc for
    the bot's uid (3.8 ms of the arena's CPU per bot here, more the more processes there are)."""

    def __init__(self) -> None:
        self._read, self.write_fd = os.pipe()  # bwrap writes one JSON record, then closes its end
        os.set_blocking(self._read, False)
        self._init: tuple[int, str] | None = None  # (the init's pid, "pid:[inode]") once read

    async def known(self) -> tuple[int, str] | None:
        """(the init's pid, "pid:[inode]") once bwrap has said, or None if it exited first
        (the arena's copy of `write_fd` must be closed by then)."""
        if self._init is None:
            await trio.lowlevel.wait_readable(self._read)
            try:
                info = json.loads(os.read(self._read, 1 << 16))
                self._init = int(info["child-pid"]), f"pid:[{int(info['pid-namespace'])}]"
            except (OSError, ValueError, KeyError, TypeError):
                return None
        return self._init

    async def gone(self, patience: float) -> bool:
        """True once the namespace's init has exited (waiting up to `patience` seconds for it);
        False if that cannot be told (bwrap said nothing, or the init lingers)."""
        if self._init is None:
            try:
                info = json.loads(os.read(self._read, 1 << 16))
                self._init = int(info["child-pid"]), f"pid:[{int(info['pid-namespace'])}]"
            except (OSError, ValueError, KeyError, TypeError):
                return False  # bwrap did not get as far as saying (the scan will tell)
        pid, namespace = self._init
        try:
            pidfd = os.pidfd_open(pid)
        except ProcessLookupError:
            return True  # no process has the init's pid any more: it has exited and been reaped
        try:
            try:
                if os.readlink(f"/proc/{pid}/ns/pid") != namespace:
                    return True  # the pid is another process's now (only the init's exit frees it)
            except (FileNotFoundError, ProcessLookupError):
                return True  # exited and reaped since the pidfd was opened
            except OSError:
                return False  # cannot tell (not allowed to look): the scan will
            with trio.move_on_after(patience):
                await trio.lowlevel.wait_readable(pidfd)  # the init has exited (a zombie at most)
                return True
            return False
        finally:
            os.close(pidfd)

    def close(self) -> None:
        for fd in (self._read, self.write_fd):
            try:
                os.close(fd)
            except OSError:
                pass


@asynccontextmanager
async def prepared(cmd: BotCommand, mode: str, limits: Limits, tag_env: Mapping[str, str]) -> AsyncIterator[Launch]:
    """The launch of `cmd` under `mode`; the bot's temp directory lives until the block ends."""
    python = cmd.kind == "python"
    if mode == "none":
        # Only the parent-death signal, so that a bot dies with a SIGKILLed arena (not its escapees).
        pdeathsig = death_with_arena() if _has_setpriv() else []
        env = {**os.environ, **tag_env}
        if python:
            env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(runtime.runtime()), env.get("PYTHONPATH")]))
        yield Launch(pdeathsig + list(cmd.argv), str(cmd.workdir), env)
        return
    argv = list(cmd.argv)
    if mode in ("fork", "bwrap") and cmd.kind != "python":
        for program in view.launched(argv, str(cmd.workdir)):
            if problem := view.unseen_interpreter(program, str(cmd.workdir)):
                raise ValueError(f"bot {cmd}: {problem}")
    # what the bot's script declares it imports beside the kit (arena/process/libraries.py)
    lib = await trio.to_thread.run_sync(libraries.for_bot, cmd.argv, cmd.workdir) if python else None
    uid = allocate_uid()
    group = cgroups.BotGroup(limits.memory_bytes, limits.processes + 2, uid) if uid is not None and cgroups.available() else None
    try:
        # bwrap and fork: the bot's folder at BOT_MOUNT, from a copy named after nothing of the host;
        # rlimit's throw-away uid: from a copy no other user can reach (arena.process.runtime)
        place: contextlib.AbstractContextManager[tuple[Path | None, BotCommand]]
        if mode in ("fork", "bwrap"):
            place = runtime.inside(cmd, uid if mode == "bwrap" else None)
        elif uid is not None:
            place = _rlimit_place(cmd, uid)
        else:
            place = contextlib.nullcontext((None, cmd))
        with place as shown:
            async with _prepared(cmd, mode, limits, tag_env, argv, uid, group, shown, lib) as launch:
                yield launch
    finally:
        if group is not None:
            group.remove()


@contextmanager
def _rlimit_place(cmd: BotCommand, uid: int) -> Iterator[tuple[Path | None, BotCommand]]:
    with runtime.outside(cmd, uid) as moved:
        yield None, moved


@asynccontextmanager
async def _prepared(cmd: BotCommand, mode: str, limits: Limits, tag_env: Mapping[str, str], argv: list[str],
                    uid: int | None, group: cgroups.BotGroup | None,
                    shown: tuple[Path | None, BotCommand], lib: Path | None = None) -> AsyncIterator[Launch]:
    python = cmd.kind == "python"
    lib_binds = [(str(lib), libraries.LIBRARY_MOUNT)] if lib is not None else []
    join = group.join_shell() if group is not None else ""
    if mode == "fork":  # resolve_mode made sure the fork sandbox runs here
        # A script named straight after the interpreter runs in the server's warm interpreter.
        in_process = python and len(argv) > 1 and argv[1].endswith(".py") and os.path.isfile(argv[1])
        outside = [] if python else _program_outside(argv[0], cmd.workdir)
        usr = [] if python else _programs_in_usr(argv, cmd.workdir)
        source, cmd = shown
        if runtime.shown() == runtime.stage():
            view.pin_folder(str(source))  # a copy on disk (no tmpfs at /dev/shm): its pages loaded
        argv = list(cmd.argv)
        if python:
            argv[0] = sandbox_python()
            binds = kit_binds() + lib_binds
        else:
            binds = [(p, p) for p in outside]
        assert source is not None  # (runtime.inside's copy)
        request = fork_request(argv, source, in_process, limits, uid, tag_env, binds)
        if lib_binds:
            request["env"]["PYTHONPATH"] += os.pathsep + libraries.LIBRARY_MOUNT
        request["cgroups"] = group.procs_files() if group is not None else []
        request["usr"] = usr
        yield Launch(argv, str(cmd.workdir), {}, uid, request=request, group=group)
        return
    source = None
    if mode == "bwrap":
        outside = _program_outside(argv[0], cmd.workdir)
        in_usr = [] if python else _usr_args(_programs_in_usr(argv, cmd.workdir))  # (its libraries found from where it lies)
        source, cmd = shown
        if runtime.shown() == runtime.stage():
            view.pin_folder(str(source))  # a copy on disk (no tmpfs at /dev/shm): its pages loaded
        argv = list(cmd.argv)
    elif uid is not None:
        _, cmd = shown
        argv = list(cmd.argv)
    if cmd.kind == "python" and (mode == "bwrap" or uid is not None):
        problem = sandbox_python_problem()
        if problem:
            raise ValueError(f"sandbox {mode}: {problem}")
        argv[0] = sandbox_python()
    env = {"PATH": PATH, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", **fitted.environment(argv, limits, PATH), **tag_env}
    if python:
        env["PYTHONPATH"] = KIT_MOUNT if mode == "bwrap" else str(runtime.runtime())
        if lib is not None:
            env["PYTHONPATH"] += os.pathsep + (libraries.LIBRARY_MOUNT if mode == "bwrap" else str(lib))
    if mode == "bwrap":  # resolve_mode made sure it runs here
        # bwrap's own two processes (outside and the PID namespace's init) share the uid.
        # A Python bot gets the bot kit (that file and its bytecode) on its path; others their program.
        extra = [arg for bind in kit_binds() + lib_binds for arg in ("--ro-bind", *bind)] if python else [
            arg for p in outside for arg in ("--ro-bind", p, p)] + in_usr
        env |= {"HOME": "/tmp", "TMPDIR": "/tmp"}
        namespace = PidNamespace()
        try:
            with _filter_fd() as fd:
                extra += ["--info-fd", str(namespace.write_fd), "--seccomp", str(fd)]
                shell, prlimit = _rlimits(limits, uid, extra_processes=2, own_namespace=True)  # bwrap's bounded too
                assert source is not None  # (runtime.inside's copy)
                full = (death_with_arena(uid, join + shell) + _bwrap_argv(source, cmd.workdir, uid, limits.tmp_bytes, extra)
                        + prlimit + argv)
                yield Launch(full, "/", env, uid, pass_fds=(namespace.write_fd, fd), namespace=namespace, group=group)
        finally:
            namespace.close()
        return
    tmp = tempfile.mkdtemp(prefix="zwicker-bot-")
    try:
        if uid is not None:
            os.chown(tmp, uid, uid)
        env |= {"HOME": tmp, "TMPDIR": tmp}
        # setpriv changes the uid, then arms the parent-death signal (a uid change clears it): if
        # the arena dies, its bots die with it. The parent is the trio thread, see arena.process.
        shell, prlimit = _rlimits(limits, uid)
        full = death_with_arena(uid, join + shell) + prlimit + argv
        yield Launch(full, str(cmd.workdir), env, uid, group=group)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def fork_request(argv: list[str], workdir: Path, in_process: bool, limits: Limits, uid: int | None,
                 tag_env: Mapping[str, str], binds: list[tuple[str, str]]) -> dict:
    """What the fork server needs to start one bot (see arena/process/forkserver.py): its folder
    `workdir` is shown at runtime.BOT_MOUNT, where it starts."""
    env = {"PATH": PATH, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "HOME": "/tmp", "TMPDIR": "/tmp",
           **fitted.environment(argv, limits, PATH), **tag_env}
    if os.path.basename(argv[0]).startswith("python"):
        env["PYTHONPATH"] = KIT_MOUNT
    return {
        "argv": argv, "cwd": runtime.BOT_MOUNT, "in_process": in_process, "env": env, "uid": uid,
        "tmp_bytes": limits.tmp_bytes, "binds": [(str(workdir), runtime.BOT_MOUNT), *binds],
        "limits": {"memory": limits.memory_bytes, "cpu": limits.cpu_seconds, "file": limits.file_bytes,
                   "open_files": limits.open_files, "processes": limits.processes + _others_counted(uid)},
    }


def death_with_arena(uid: int | None = None, then: str = "") -> list[str]:
    """The start of every bot's command line: become `uid` (if given) and arm the parent-death
    signal (setpriv, which arms it after the uid change that would clear it), then make sure the
    parent is still this arena. Without the check, an arena killed between fork and setpriv's
    prctl leaves an orphan that nothing kills (seen: a bwrap outliving a kill -9); with it, that
    orphan exits at once, and a later death of the arena kills the bot. `then` is more shell
    for the guard to run before the rest (`_rlimits`).

    The uid change is setpriv's, not `subprocess.Popen(user=...)`'s: with it, Popen forks the
    whole arena (1.3 ms of its CPU, 2.6 ms of blocking per bot) where it can otherwise vfork."""
    return ["setpriv", *as_user(uid)[1:-1], "--pdeathsig", "KILL", "--", "/bin/sh", "-c",
            f'[ "$PPID" = {os.getpid()} ] || exit 111; {then}exec "$@"', "zwicker-bot"]


def _rlimits(limits: Limits, uid: int | None, extra_processes: int = 0,
             own_namespace: bool = False) -> tuple[str, list[str]]:
    """The resource limits as (shell for the guard, `death_with_arena`; a prlimit command line):
    one of them empty. The guard shell's own `ulimit` where /bin/sh is dash and every limit is a
    whole number of its units: one exec less per bot than prlimit, about 1 ms of CPU
    (bench/README.md). Dash's `-f` counts 512-byte blocks, `-v` KiB, `-p` processes (bash's `-p`
    is the pipe size: hence dash only).

    RLIMIT_NPROC counts every task of the real uid: with a throw-away uid that is the bot alone
    (and `extra_processes`, bwrap's own two); running as the arena's user, the arena's tasks too,
    and every other bot's. So with `own_namespace` (bwrap as an ordinary user) it is set inside
    the bot's user namespace instead, where the kernel (5.14 and later) counts the bot's own
    tasks only (the second item: a shell's `ulimit -p` before the bot's program).
    SIGXCPU comes at the soft CPU limit, SIGKILL one second later for a bot that ignores it."""
    own = own_namespace and uid is None and _kernel() >= (5, 14)
    nproc = limits.processes + extra_processes + (0 if uid is not None or own else _tasks_of(os.getuid()))
    cpu = (limits.cpu_seconds, limits.cpu_seconds + 1)
    if _sh_is_dash() and not limits.file_bytes % 512 and not limits.memory_bytes % 1024:
        limit = (("-S -t", cpu[0]), ("-H -t", cpu[1]), ("-v", limits.memory_bytes // 1024),
                 ("-f", limits.file_bytes // 512), ("-n", limits.open_files), ("-p", nproc), ("-c", 0))
        inside = ["/bin/sh", "-c", f'ulimit -p {nproc} || exit 112; exec "$@"', "zwicker-bot"] if own else []
        return (" && ".join(f"ulimit {option} {value}" for option, value in limit if not (own and option == "-p"))
                + " || { echo 'arena: the resource limits could not be set' >&2; exit 112; }; "), inside
    return "", ["prlimit", f"--as={limits.memory_bytes}", f"--cpu={cpu[0]}:{cpu[1]}", f"--fsize={limits.file_bytes}",
                f"--nofile={limits.open_files}", f"--nproc={nproc}", "--core=0", "--"]


@functools.cache
def _sh_is_dash() -> bool:
    return os.path.basename(os.path.realpath("/bin/sh")) == "dash"


@functools.cache
def _has_setpriv() -> bool:
    return shutil.which("setpriv") is not None


def allocate_uid() -> int | None:
    """A fresh uid no process runs as, when the arena is root; None otherwise (bots run as us)."""
    if os.geteuid() != 0:
        return None
    # One of 16 million uids that no distribution hands out, never twice from this arena; a
    # clash with another arena's live bot is a one-in-millions chance, not worth a /proc scan
    # (4 ms) per bot start.
    k, n = _uid_share
    while True:
        uid = _UID_FIRST + n * secrets.randbelow(_UID_COUNT // n) + k
        if uid not in _uids:
            _uids.add(uid)
            return uid


def share_uids(k: int, n: int) -> None:
    """Draw only every `n`th throw-away uid of the range, from the `k`th: the `n` processes of
    one arena (arena.tournaments.shard) then never hand out the same uid."""
    global _uid_share
    _uid_share = (k, n)


def as_user(uid: int | None) -> list[str]:
    """A command prefix that runs the rest as `uid` (its own group, no others); none for None."""
    if uid is None:
        return []
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--"]


def _others_counted(uid: int | None) -> int:
    """Tasks that a fork bot's RLIMIT_NPROC counts besides its own: none with a throw-away uid,
    nor without root on a kernel that counts per user namespace (5.14 and later), where the bot
    has one of its own; on an older one, every task of the arena's user."""
    if uid is not None or _kernel() >= (5, 14):
        return 0
    return _tasks_of(os.getuid())


@functools.cache
def _kernel() -> tuple[int, int]:
    major, minor = (os.uname().release.split(".") + ["0"])[:2]
    return int(major), int("".join(c for c in minor if c.isdigit()) or 0)


def _tasks_of(uid: int) -> int:
    """Threads run by `uid` (what RLIMIT_NPROC counts)."""
    total = 0
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                if entry.stat().st_uid == uid:
                    total += len(os.listdir(f"/proc/{entry.name}/task"))
            except OSError:
                pass
    return total


def _program_outside(program: str, workdir: Path) -> list[str]:
    """The bot's program, when it lies outside /usr and the bot's folder (and so needs a bind)."""
    path = Path(program).resolve()
    if path.is_relative_to("/usr") or path.is_relative_to(workdir):
        return []
    return [str(path)]


def _bwrap_argv(workdir: Path, chdir: Path | str, uid: int | None, tmp_bytes: int, extra: list[str] | None = None) -> list[str]:
    """bwrap's command line: the bot's folder `workdir` shown at runtime.BOT_MOUNT, started in `chdir`."""
    argv = [
        "bwrap",
        "--unshare-all",  # user, pid, net, ipc, uts, cgroup namespaces: no network at all
        "--unshare-user",  # required, not just tried: --disable-userns needs it
        "--die-with-parent",  # safe: the parent is the trio thread, see arena.process
        # Not all of /usr: the view (arena/process/view.py), copied to a tmpfs, or bound path by path.
        *(["--ro-bind", usr_copy(), "/usr"] if usr_copy() else _usr_args(pinned_usr_layout())),
        "--symlink", "usr/bin", "/bin",
        "--symlink", "usr/lib", "/lib",
        "--symlink", "usr/lib64", "/lib64",
        "--symlink", "usr/sbin", "/sbin",
    ]
    for path in ("/etc/ld.so.cache", "/etc/localtime", "/etc/alternatives"):
        if os.path.exists(path):
            argv += ["--ro-bind", path, path]
    argv += [
        "--proc", "/proc",
        *[arg for source, target in proc_masks() for arg in ("--ro-bind", source, target)],  # frozen counters
        "--dev", "/dev",
        "--dev-bind", "/dev/full", "/dev/zero",  # zeros, but no shared mapping (forkserver.DEVICE_SOURCES)
        "--size", str(tmp_bytes), "--tmpfs", "/tmp",
        "--ro-bind", str(workdir), runtime.BOT_MOUNT,
        *(extra or []),
        "--remount-ro", "/dev",  # nothing writable but the size-limited /tmp
        "--remount-ro", "/",
        "--chdir", str(chdir),
        "--hostname", "zwicker-bot",
        "--disable-userns",
        "--",
    ]
    return argv


def _last_line(stderr: bytes) -> str:
    lines = stderr.decode(errors="replace").strip().splitlines()
    return lines[-1] if lines else "no output"


@contextmanager
def _filter_fd() -> Iterator[int]:
    """The seccomp program on a pipe for one bwrap (`--seccomp FD` reads it to its end)."""
    program = seccomp.program()
    read, write = os.pipe()
    try:
        os.write(write, program)  # a few hundred bytes: within the pipe's buffer
        os.close(write)
        write = -1
        yield read
    finally:
        os.close(read)
        if write >= 0:
            os.close(write)
