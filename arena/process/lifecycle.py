"""Bot processes: start one, talk to it over pipes, and make sure it and everything it started die.

A bot is untrusted. `open_bot` is the only way the arena starts one; leaving its block, however
it is left, closes the bot's stdin, allows a short grace period for a clean exit, then SIGKILLs
the bot's process group and every process still carrying the bot's identity (its environment
tag, or the throw-away uid it runs as in the sandboxed modes), and reaps it, all inside a
shielded cancel scope; in rlimit it then removes the files and SysV IPC objects its uid left
where every process may write (`remove_leftovers`). How the bot is confined is `arena.process.sandbox`'s business.

The process is spawned synchronously from the trio thread instead of through
`trio.lowlevel.open_process`, which spawns from a worker thread: a parent-death signal
(`PR_SET_PDEATHSIG`, `bwrap --die-with-parent`) fires when the *thread* that forked the child
exits, and trio's idle worker threads exit after about 10 s, which would kill a healthy bot.
The trio thread lives as long as every bot it started, so the signal only fires when the arena
itself dies, which is exactly when we want it.

Every bot runs under the SCHED_BATCH scheduling policy (`batch_policy`), the arena under its own.

A bot runs only while it holds a core of the run's move scheduler (arena.process.scheduler):
`open_bot` starts it holding one and freezes it once started; `BotProcess.resume` and `pause`
lend it a core for its handshake and each `act`, and the shut-down holds one while the bot
exits after `bye`.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import os
import shutil
import signal
import stat
import subprocess
import sys
from collections.abc import AsyncIterator, Collection, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from pathlib import Path

import trio

from arena.process import cgroups, command, forking, modes, runtime, scheduler
from arena.process.command import (
    GRACE_SECONDS,
    OWNER,
    OWNER_VAR,
    TAG_VAR,
    BotCommand,
    Limits,
    batch_policy,
    beside,
    owner_alive,
)
from arena.process.sandbox import Launch, PidNamespace, uids_handed_out
from arena.process.sandbox import prepared as sandbox_launch

_serial = 0  # this process's bots, numbered
F_SETPIPE_SZ, PIPE_BYTES = 1031, 1 << 20


class BotProcess:
    """A running bot: its pipes, its pid, and its stderr as read so far.

    `child` is how it was started: a `_Child` (Popen) or a `forking.Seat` (the fork server),
    which both offer pid, pidfd, returncode, wait(), kill() and whether to sweep for escapees.
    """

    def __init__(self, child: _Child, stdin: int, stdout: int, stderr: int, tag: str, limits: Limits,
                 uid: int | None) -> None:
        self._child = child
        self.tag = tag
        self.uid = uid  # the throw-away uid the bot runs as, or None when it runs as the arena's user
        self.pid = child.pid
        with contextlib.suppress(OSError):  # room for the deals sent while it is frozen
            fcntl.fcntl(stdin, F_SETPIPE_SZ, PIPE_BYTES)
        self.stdin = trio.lowlevel.FdStream(stdin)
        self.stdout = trio.lowlevel.FdStream(stdout)
        self._stderr = trio.lowlevel.FdStream(stderr)
        self._log = _BoundedLog(limits.stderr_bytes)
        self._pidfd = child.pidfd
        self._namespace: PidNamespace | None = None  # bwrap's: once gone, so is all the bot started
        self._shut = False
        self.labels: frozenset[object] = frozenset()  # what no bot running beside it may hold (scheduler)
        self.freezer: scheduler.Freezer | None = None  # None: it cannot be frozen here
        self.holds_core = False
        self.scheduled = False  # does it take turns for the cores at all (open_bot's labels)?
        self.resumed_at = 0.0  # trio's clock when it was last given a core
        self._scheduler: scheduler.Scheduler | None = None  # the one that lent it its core

    async def resume(self) -> None:
        """Wait for a core of the run's scheduler, then thaw the bot (no-op if it holds one)."""
        if not self.scheduled:
            self.resumed_at = trio.current_time()
            return
        if self.holds_core:
            return
        self._scheduler = scheduler.current()
        await self._scheduler.acquire(self.labels)
        self.holds_core = True
        if self.freezer is not None:
            self.freezer.thaw()
        self.resumed_at = trio.current_time()

    async def pause(self) -> None:
        """Freeze the bot (it is killed if that fails) and give its core back; shielded."""
        if not self.holds_core:
            return
        with trio.CancelScope(shield=True):
            try:
                if self.freezer is not None and self.returncode is None and not await scheduler.wait_frozen(self.freezer):
                    self.freezer.thaw()  # a process in a frozen v1 group would not die of SIGKILL
                    self._child.kill()
            finally:
                self.holds_core = False
                assert self._scheduler is not None  # set with the core
                self._scheduler.release(self.labels)

    def pids(self, look: bool = False) -> list[int]:
        """The bot's processes as this arena sees them: its PID namespace's (those known, or with
        `look` all there are now), its freezer group's, else its own process only."""
        freezer = self.freezer
        if isinstance(freezer, scheduler.SignalFreezer):
            return freezer.members() if look else freezer.known()
        if isinstance(freezer, scheduler.CgroupFreezer):
            try:
                return [int(line) for line in (freezer.folder / "cgroup.procs").read_text().split()]
            except (OSError, ValueError):
                pass
        return [self.pid]

    def meter(self, base: float) -> scheduler.Meter:
        """The machine's share of this move's time, measured from now, `base` seconds into it."""
        return scheduler.Meter(self.pids(), lambda: self.pids(look=True), base)

    @property
    def returncode(self) -> int | None:
        """The exit status once the bot has exited and been reaped (negative: killed by that signal)."""
        return self._child.returncode

    def stderr_log(self) -> str:
        """The bot's stderr so far, at most about `Limits.stderr_bytes`, with a note if cut."""
        return self._log.text()

    async def wait(self) -> int:
        """Wait for the bot itself to exit (not its descendants) and reap it."""
        return await self._child.wait()

    async def _drain_stderr(self) -> None:
        # Read continuously: a bot must never block on a full stderr pipe.
        try:
            while chunk := await self._stderr.receive_some(65536):
                self._log.add(chunk)
        except (trio.ClosedResourceError, trio.BrokenResourceError, OSError):
            pass


class _Child:
    """A bot started by `subprocess.Popen`: a pidfd to wait on, its process group to kill."""

    sweep = True  # descendants may have left the group: kill_tagged looks for them

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self._popen = popen
        self.pid = popen.pid
        self.pidfd = os.pidfd_open(popen.pid)

    @property
    def returncode(self) -> int | None:
        return self._popen.returncode

    async def wait(self) -> int:
        if self._popen.returncode is None:
            await trio.lowlevel.wait_readable(self.pidfd)
            self._popen.wait()
        return self._popen.returncode  # type: ignore[return-value]

    def kill(self) -> None:
        # While the leader is unreaped its pid cannot be reused, so the group id is still the bot's.
        _kill_group(self.pid)


def _take_fd(file: object) -> int:
    """Detach a Popen pipe's file descriptor so that only the trio stream owns it."""
    fd = os.dup(file.fileno())  # type: ignore[attr-defined]
    file.close()  # type: ignore[attr-defined]
    return fd


class _BoundedLog:
    """The first and the last half of a byte stream, with a count of what was cut between."""

    def __init__(self, limit: int) -> None:
        self._half = max(limit // 2, 1)
        self._head = bytearray()
        self._tail = bytearray()
        self._dropped = 0

    def add(self, chunk: bytes) -> None:
        room = self._half - len(self._head)
        if room > 0:
            self._head += chunk[:room]
            chunk = chunk[room:]
        if chunk:
            self._tail += chunk
            excess = len(self._tail) - self._half
            if excess > 0:
                del self._tail[:excess]
                self._dropped += excess

    def text(self) -> str:
        head = self._head.decode("utf-8", "replace")
        if not self._dropped:
            return head + self._tail.decode("utf-8", "replace")
        note = f"\n[... {self._dropped} bytes of stderr dropped ...]\n"
        return head + note + self._tail.decode("utf-8", "replace")


@asynccontextmanager
async def open_bot(
    cmd: BotCommand, sandbox: str = "none", limits: Limits | None = None, *, grace: float = GRACE_SECONDS,
    labels: frozenset[object] | None = None
) -> AsyncIterator[BotProcess]:
    """Start `cmd` confined by `sandbox` ("bwrap", "rlimit", "none"); kill it and all it started on exit.

    `grace` is how long the bot may take to exit by itself once its stdin is closed. With
    `labels`, the bot is scheduled: it starts holding a core of the run's scheduler with
    `labels` (and `cmd` itself as one) and is frozen once started, `BotProcess.resume` thaws
    it; without, it runs freely (a bot checked on its own, tests).
    """
    global _serial
    limits = limits or Limits()
    _serial += 1
    tag = f"{command.ARENA_ID}/{command._serial_prefix}{_serial}"
    async with AsyncExitStack() as stack:
        launch = await stack.enter_async_context(
            sandbox_launch(cmd, modes.resolve_mode(sandbox), limits, {TAG_VAR: tag, OWNER_VAR: OWNER}))
        lender = scheduler.current()
        if labels is not None:
            labels = labels | {cmd}
            await lender.acquire(labels)
        started = False
        try:
            bot = await _spawn(stack, launch, tag, limits)
            started = True
        finally:
            if not started and labels is not None:
                lender.release(labels)
        if labels is not None:
            bot.labels, bot.holds_core, bot.scheduled, bot._scheduler = labels, True, True, lender
        try:
            async with beside(bot._drain_stderr, lambda: _shut_down(bot, grace)):
                if labels is not None:
                    with trio.CancelScope(shield=True):
                        bot.freezer = await _freezer(bot, launch)
                    await bot.pause()
                yield bot
        finally:
            with trio.CancelScope(shield=True):  # done already unless cancelled or failed: then
                await _shut_down(bot, grace, core=False)  # no core waited for (one a bot not yet shut holds)
                for stream in (bot.stdin, bot.stdout, bot._stderr):
                    await stream.aclose()
                os.close(bot._pidfd)
                if bot.freezer is not None:
                    bot.freezer.close()


async def _spawn(stack: AsyncExitStack, launch: Launch, tag: str, limits: Limits) -> BotProcess:
    if launch.request is not None:
        return await _start_forked(stack, launch, tag, limits)
    watchdog(launch.uid)  # before the spawn: an arena killed during it leaves nothing either
    with batch_policy():
        popen = subprocess.Popen(  # synchronous on purpose, see the module docstring
            launch.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=launch.cwd,
            env=launch.env,
            start_new_session=True,
            close_fds=True,
            pass_fds=launch.pass_fds,
        )
    bot = BotProcess(_Child(popen), _take_fd(popen.stdin), _take_fd(popen.stdout), _take_fd(popen.stderr),
                     tag, limits, launch.uid)
    bot._namespace = launch.namespace
    if launch.namespace is not None:  # bwrap has its copy: the pipe ends if bwrap does
        os.close(launch.namespace.write_fd)
        launch.namespace.write_fd = -1
    return bot


async def _freezer(bot: BotProcess, launch: Launch) -> scheduler.Freezer | None:
    """How `bot` is frozen: its cgroup freezer, else its PID namespace's processes stopped
    (fork, bwrap), else not at all."""
    if launch.group is not None and launch.group.freezer_files is not None:
        return scheduler.CgroupFreezer(launch.group.freezer_files)
    if launch.request is not None:
        return scheduler.namespace_freezer(scheduler.pidfd_pid(bot._pidfd))
    if launch.namespace is not None:
        with trio.move_on_after(scheduler.FREEZE_PATIENCE_S):
            init = await launch.namespace.known()
            return None if init is None else scheduler.SignalFreezer(*init)
    return None


@asynccontextmanager
async def open_bots(
    cmds: Sequence[BotCommand], sandbox: str = "none", limits: Limits | None = None, *, grace: float = GRACE_SECONDS,
    labels: Sequence[frozenset[object]] | None = None
) -> AsyncIterator[list[BotProcess | OSError]]:
    """`open_bot` for a table's bots at once: they start side by side and shut down side by side.

    One after another, a table's four start-ups and shut-downs queued (the fork server's
    namespaces, node's start-up); each bot is held by its own task, since a bot's block must be
    left by the task that entered it. A bot that cannot be started is its OSError in the list.
    """
    bots: list[BotProcess | OSError | None] = [None] * len(cmds)
    all_started, release = trio.Event(), trio.Event()

    def settle(i: int, outcome: BotProcess | OSError) -> None:
        bots[i] = outcome
        if all(b is not None for b in bots):
            all_started.set()

    async def hold(i: int, cmd: BotCommand) -> None:
        try:
            async with open_bot(cmd, sandbox, limits, grace=grace,
                                labels=labels[i] if labels is not None else None) as bot:
                settle(i, bot)
                await release.wait()
        except OSError as exc:
            if bots[i] is None:
                settle(i, exc)
            else:
                raise

    try:
        async with trio.open_nursery() as nursery:
            for i, cmd in enumerate(cmds):
                nursery.start_soon(hold, i, cmd)
            try:
                if cmds:
                    await all_started.wait()
                yield bots  # type: ignore[misc]  (all set by now)
            finally:
                release.set()
    except BaseExceptionGroup as group:
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise


_watchdog_fd: int | None = None  # the write end of this process's watchdog's pipe
WATCHDOG = Path(__file__).resolve().with_name("watchdog.py")


def watchdog(uid: int | None = None) -> None:
    """Make sure this process has its watchdog (arena/process/watchdog.py), and tell it `uid`.

    The watchdog kills this process's bots (by their tag and throw-away uids) once this process
    has exited, however: it closes the gap bwrap leaves in parent-death signals. It is started in
    a session of its own (a Ctrl-C of the arena is not its business) with a pipe as its stdin
    whose write end only this process holds, and it outlives us on purpose. Best effort: a
    watchdog that cannot start or has died costs nothing but the net it was; the next arena's
    `sweep_orphans` remains.
    """
    global _watchdog_fd
    if _watchdog_fd is None:
        read, write = os.pipe()  # neither end is inherited by anything started later
        devnull = os.open(os.devnull, os.O_RDWR)
        try:
            freezer = cgroups.freezer_base()  # its frozen bots are thawed to die
            os.posix_spawn(sys.executable, [sys.executable, "-I", "-S", str(WATCHDOG),
                                            f"{TAG_VAR}={command.ARENA_ID}/{command._serial_prefix}",
                                            *([str(freezer)] if freezer is not None else [])],
                           {}, file_actions=[(os.POSIX_SPAWN_DUP2, read, 0), (os.POSIX_SPAWN_DUP2, devnull, 1),
                                             (os.POSIX_SPAWN_DUP2, devnull, 2)], setsid=True)
        except OSError:
            os.close(write)
            write = -1  # not again: each bot would pay for the failed spawn
        finally:
            os.close(read)
            os.close(devnull)
        if write >= 0:
            os.set_blocking(write, False)
        _watchdog_fd = write
    if uid is not None and _watchdog_fd >= 0:
        try:
            os.write(_watchdog_fd, b"uid %d\n" % uid)
        except OSError:  # it has died, or (never seen) its pipe is full
            pass


async def _start_forked(stack: AsyncExitStack, launch: Launch, tag: str, limits: Limits) -> BotProcess:
    """Start a bot through the current fork server (one of its own if there is none)."""

    if cgroups.freezer_base() is not None:
        watchdog()  # a killed arena's frozen bots would not die of their namespace's end: it thaws them
    server = forking.current() or await stack.enter_async_context(forking.serving())
    (in_read, in_write), (out_read, out_write), (err_read, err_write) = (os.pipe() for _ in range(3))
    try:
        seat = await server.start(launch.request or {}, [in_read, out_write, err_write], in_write)
    except BaseException:
        for fd in (in_write, out_read, err_read):
            os.close(fd)
        raise
    finally:
        for fd in (in_read, out_write, err_write):
            os.close(fd)
    return BotProcess(seat, in_write, out_read, err_read, tag, limits, launch.uid)


async def _shut_down(bot: BotProcess, grace: float, *, core: bool = True) -> None:
    """Close stdin, wait briefly for a clean exit, then kill the bot and all it started, and reap.

    The bot holds a core meanwhile (it exits as it runs); a cancelled run's bots do not wait for
    one, nor does a bot shut down in its shielded teardown (`core=False`): the cores may be held by
    bots of the same table whose own teardown comes after this one, which would wait forever."""
    if bot._shut:
        return
    try:
        if core:
            try:
                await bot.resume()
            except trio.Cancelled:
                _kill_now(bot)
                raise
        else:
            _kill_now(bot)
        await _close_and_reap(bot, grace)
    finally:
        if bot.holds_core:
            bot.holds_core = False
            bot._scheduler.release(bot.labels)  # type: ignore[union-attr]  (set with the core)


def _kill_now(bot: BotProcess) -> None:
    if bot.freezer is not None:
        bot.freezer.thaw()  # no core (a cancelled run): thawed only to die
    bot._child.kill()


async def _close_and_reap(bot: BotProcess, grace: float) -> None:
    try:
        await bot.stdin.aclose()
    except (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        pass
    if bot.returncode is None:
        with trio.move_on_after(grace):
            await trio.lowlevel.wait_readable(bot._pidfd)  # exited; not reaped yet
        bot._child.kill()
        await bot.wait()
    if bot._child.sweep and (bot._namespace is None or not await bot._namespace.gone(grace)):
        await kill_tagged(bot.tag, bot.uid)  # whatever left the group (setsid, double fork)
    if bot._child.sweep and bot._namespace is None and bot.uid is not None:
        remove_leftovers(bot.uid)  # rlimit: its /tmp, /dev/shm and SysV IPC were the machine's
    bot._shut = True


SHARED_FOLDERS = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue")
"""Where any process may create files: a bot without namespaces (rlimit) leaves them there."""
_IPC_RMID = 0
_SYSV = (("shm", "shmid", "shmctl"), ("msg", "msqid", "msgctl"), ("sem", "semid", "semctl"))


def remove_leftovers(uid: int) -> list[str]:
    """Remove what a bot running as the throw-away `uid` made outside its own temp folder:
    files and folders it owns in the folders every process may write to (`SHARED_FOLDERS` and
    the world-writable folders in them), and its SysV shared memory, message queues and
    semaphores. Once all its processes are dead, so that nothing it made outlives its table
    (in bwrap and fork they die with its namespaces). Returns what was removed."""
    removed = []

    def visit(folder: str) -> None:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            return
        for entry in entries:
            try:
                st = entry.stat(follow_symlinks=False)
            except OSError:
                continue
            if st.st_uid == uid:
                if stat.S_ISDIR(st.st_mode):
                    shutil.rmtree(entry.path, ignore_errors=True)
                else:
                    with contextlib.suppress(OSError):
                        os.unlink(entry.path)
                removed.append(entry.path)
            elif stat.S_ISDIR(st.st_mode) and st.st_mode & 0o002:  # another world-writable folder
                visit(entry.path)

    for folder in SHARED_FOLDERS:
        visit(folder)
    libc = None
    for kind, id_column, remove in _SYSV:
        try:
            lines = Path(f"/proc/sysvipc/{kind}").read_text().splitlines()
        except OSError:
            continue
        header = lines[0].split() if lines else []
        for line in lines[1:]:
            row = dict(zip(header, line.split()))
            if uid in (int(row["uid"]), int(row["cuid"])):
                libc = libc or ctypes.CDLL(None, use_errno=True)
                if kind == "sem":  # semctl(id, semnum, cmd)
                    libc.semctl(int(row[id_column]), 0, _IPC_RMID)
                else:
                    getattr(libc, remove)(int(row[id_column]), _IPC_RMID, None)
                removed.append(f"SysV {kind} {row[id_column]}")
    return removed


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    except PermissionError:
        # The group may already be gone and its id reused by a process we may not signal.
        pass


async def kill_tagged(tag: str, uid: int | None = None) -> None:
    """SIGKILL every process carrying `tag` (or running as the bot's throw-away `uid`) until none is left.

    Needed for descendants that left the process group (setsid, double fork). Each round kills
    all it finds and waits for them to die (through pidfds, so a reused pid is never hit); a fork
    racing the scan is caught by the next round, and the process limit keeps the rounds few.
    """
    uids = () if uid is None else (uid,)
    # Every process a bot with a throw-away uid starts has that uid (it cannot change it), and
    # its environment tag adds nothing: reading only /proc/<pid>/status halves the scan.
    scan_tag = tag if uid is None else None
    for _ in range(1000):
        pidfds = []
        for pid in bot_pids(scan_tag, uids):
            try:
                pidfd = os.pidfd_open(pid)
            except ProcessLookupError:
                continue
            pidfds.append(pidfd)
            try:
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            except ProcessLookupError:
                pass
        if not pidfds:
            return
        for pidfd in pidfds:
            try:
                await trio.lowlevel.wait_readable(pidfd)
            finally:
                os.close(pidfd)
    raise RuntimeError(f"bot {tag}: processes still alive after 1000 rounds of SIGKILL: {bot_pids(tag, uids)}")


def bot_pids(tag: str | None, uids: Collection[int] = ()) -> list[int]:
    """Live (not zombie) processes whose environment carries the bot tag `tag`, or that run as one of `uids`.

    `tag` may be a whole tag ("<arena>/<serial>") or an arena id followed by "/", which finds
    every bot of that arena.
    """
    needle = f"{TAG_VAR}={tag}".encode()
    prefix = tag is not None and tag.endswith("/")
    found = []
    me = os.getpid()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == me:
            continue
        pid = int(entry.name)
        try:
            with open(f"/proc/{pid}/status", "rb") as f:
                status = f.read()
            state = status[status.index(b"State:") + 6 :].lstrip()[:1]
            if state in (b"Z", b"X"):
                continue  # dead already; its parent reaps it
            real_uid = int(status[status.index(b"Uid:") + 4 :].split()[0])
            if real_uid in uids:
                found.append(pid)
                continue
            if tag is None:
                continue  # by uid only: a throw-away uid's processes cannot change it
            with open(f"/proc/{pid}/environ", "rb") as f:
                environ = f.read()
        except (FileNotFoundError, ProcessLookupError, PermissionError, ValueError):
            continue
        except OSError as exc:
            if exc.errno in (errno.ESRCH, errno.EACCES):
                continue
            raise
        for var in environ.split(b"\0"):
            if var == needle or (prefix and var.startswith(needle)):
                found.append(pid)
                break
    return found


def leftover_bot_pids(arena_id: str = command.ARENA_ID) -> list[int]:
    """Processes of any bot started by the arena `arena_id` (default: this one) still alive."""

    return bot_pids(arena_id + "/", uids_handed_out() if arena_id == command.ARENA_ID else ())


def sweep_orphans() -> list[int]:
    """SIGKILL the process groups of bots whose arena is dead; returns the pids found.

    An arena killed outright normally takes its bots with it (each bot's command arms the
    parent-death signal and checks its parent first, see arena.process.sandbox), and its watchdog
    (`watchdog`) kills what bwrap's set-up leaves behind. Were the watchdog killed too (a whole
    machine's processes, say), every arena sweeps such leftovers when it starts, and the empty
    scratch folders of the dead arenas' fork servers.
    """
    owner_needle = f"{OWNER_VAR}=".encode()
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry.name}/environ").read_bytes()
        except OSError:
            continue
        if owner_needle not in environ:
            continue
        owner = next((v[len(owner_needle):].decode() for v in environ.split(b"\0") if v.startswith(owner_needle)), "")
        if owner_alive(owner):
            continue  # ours, or its arena is alive
        found.append(int(entry.name))
        try:
            os.killpg(os.getpgid(int(entry.name)), signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            os.kill(int(entry.name), signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    forking.sweep_scratch()  # and the fork servers' empty scratch folders
    runtime.sweep_stages()  # and the stage folders of arenas killed outright
    cgroups.sweep_stale()  # and their empty bot groups
    return found


