"""The move scheduler: a bot runs only while it holds one of the cores for bots.

Every bot process of a run is frozen, with everything it started, except while it holds a
*core*, one of `Scheduler.cores` tokens (default: the machine's cores): for its start, its
handshake, each `act` and its exit after `bye`. So at most as many bots run at once as there
are cores, a bot that spins children after its reply spins only in its own turns, and the
arena's own process is never starved by bots. A bot's move clock starts when it is thawed
with its `act` (arena.play.table).

A core is granted only to a bot none of whose *labels* is held by a running bot: a table gives
each seat its side's label (partners never run at the same time) and the bot's program as a
label (no two processes of one bot run at the same time, in whatever room or match: one that
has seen a deal never runs beside one that has yet to play it). Waiters are served in the order
they came, skipping those whose labels are held.

Freezing (`freezer_for`): the bot's cgroup freezer where the arena may write cgroups (v1
`freezer.state`, v2 `cgroup.freeze`; arena.process.cgroups), which catches a fork as it happens;
else, in the fork and bwrap sandboxes, SIGSTOP to every process of the bot's PID namespace
(`SignalFreezer`; a bot cannot leave it, and the seccomp filter refuses SIGCONT, so none can
wake another). The rlimit and none sandboxes without cgroups cannot freeze a bot: bots still
take turns for their cores, but run between them; `modes.label` says so in the run's header.
docs/hostile.md has the whole story and its costs.

One `Scheduler` serves every table of an arena process (`current`: one per trio run); a run's
shards are given a share of the cores each (arena.tournaments.runner).
"""

from __future__ import annotations

import os
import signal
from collections.abc import Hashable
from pathlib import Path
from typing import Protocol

import trio

from arena.process import cgroups

FREEZE_PATIENCE_S = 2.0
"""How long bwrap may take to say which PID namespace a bot is in."""
CORES_VAR = "ZWICKER_BOT_CORES"
"""Overrides the number of cores for bots (the default: every core of the machine)."""


def default_cores() -> int:
    value = os.environ.get(CORES_VAR, "")
    if value.isdigit() and int(value) > 0:
        return int(value)
    return len(os.sched_getaffinity(0)) or os.cpu_count() or 1


class _Waiter:
    __slots__ = ("labels", "event", "granted")

    def __init__(self, labels: frozenset[Hashable]) -> None:
        self.labels = labels
        self.event = trio.Event()
        self.granted = False


class Scheduler:
    """The cores for bots, lent one at a time to bots whose labels no running bot holds."""

    def __init__(self, cores: int | None = None) -> None:
        self.cores = cores if cores is not None else default_cores()
        if self.cores < 1:
            raise ValueError(f"the scheduler needs at least one core, got {self.cores}")
        self._free = self.cores
        self._held: set[Hashable] = set()
        self._waiting: list[_Waiter] = []
        self.grants = 0  # cores lent so far
        self.running_peak = 0  # the most bots that held a core at once

    @property
    def running(self) -> int:
        return self.cores - self._free

    async def acquire(self, labels: frozenset[Hashable]) -> None:
        """Wait for a core and hold `labels` with it (`release` gives both back)."""
        await trio.lowlevel.checkpoint_if_cancelled()
        if self._free and not labels & self._held and not self._waiting:
            self._grant(labels)  # no yield: the act that follows has its own checkpoints
            return
        waiter = _Waiter(labels)
        self._waiting.append(waiter)
        self._dispatch()
        try:
            await waiter.event.wait()
        except BaseException:
            if waiter.granted:
                self.release(labels)
            else:
                self._waiting.remove(waiter)
                self._dispatch()  # it may have stood in the way of none, but cheaply sure
            raise

    def release(self, labels: frozenset[Hashable]) -> None:
        self._free += 1
        self._held -= labels
        self._dispatch()

    def _grant(self, labels: frozenset[Hashable]) -> None:
        self._free -= 1
        self._held |= labels
        self.grants += 1
        self.running_peak = max(self.running_peak, self.cores - self._free)

    def _dispatch(self) -> None:
        if not self._free or not self._waiting:
            return
        kept = []
        for waiter in self._waiting:
            if self._free and not waiter.labels & self._held:
                self._grant(waiter.labels)
                waiter.granted = True
                waiter.event.set()
            else:
                kept.append(waiter)
        self._waiting = kept


_current: trio.lowlevel.RunVar[Scheduler] = trio.lowlevel.RunVar("zwicker_scheduler")


def current() -> Scheduler:
    """This trio run's scheduler (made with `default_cores` at first use unless `use` set one)."""
    try:
        return _current.get()
    except LookupError:
        scheduler = Scheduler()
        _current.set(scheduler)
        return scheduler


def share(processes: int) -> int:
    """One arena process's share of the cores for bots when a run spreads over `processes`."""
    value = os.environ.get(CORES_VAR, "")
    cores = int(value) if value.isdigit() and int(value) > 0 else os.cpu_count() or 1
    return max(1, cores // max(processes, 1))


def use(cores: int | None) -> Scheduler:
    """Make a scheduler of `cores` cores this trio run's (None: the default number), unless the
    run's scheduler is lending cores now (another run in the same trio run: it is kept)."""
    try:
        existing = _current.get()
        if existing.running or existing._waiting:
            return existing
    except LookupError:
        pass
    scheduler = Scheduler(cores)
    _current.set(scheduler)
    return scheduler


# -- freezing -------------------------------------------------------------------------------

class Freezer(Protocol):
    """How to stop and resume one bot with all it started."""

    def freeze(self) -> None:
        """Begin freezing: no process of the bot runs user code once `frozen()` says so."""

    def frozen(self) -> bool: ...

    def thaw(self) -> None: ...

    def close(self) -> None: ...


class CgroupFreezer:
    """A bot's cgroup freezer (`cgroups.BotGroup.freezer_files`)."""

    def __init__(self, files: tuple[Path, Path, bool]) -> None:
        state, events, self.v1 = files
        self.folder = state.parent
        self._state = os.open(state, os.O_RDWR | os.O_CLOEXEC)
        self._events = self._state if self.v1 else os.open(events, os.O_RDONLY | os.O_CLOEXEC)
        self._freeze, self._thaw = (b"FROZEN", b"THAWED") if self.v1 else (b"1", b"0")

    def freeze(self) -> None:
        os.pwrite(self._state, self._freeze, 0)

    def frozen(self) -> bool:
        text = os.pread(self._events, 4096, 0)
        return text.startswith(b"FROZEN") if self.v1 else b"frozen 1" in text

    def thaw(self) -> None:
        os.pwrite(self._state, self._thaw, 0)

    def close(self) -> None:
        for fd in {self._state, self._events}:
            os.close(fd)


_LAST_PID = "/proc/sys/kernel/ns_last_pid"
_STOPPED = frozenset(b"TtZXD")  # stopped, traced, dead, or in the kernel with SIGSTOP pending


def _last_pid() -> int:
    try:
        with open(_LAST_PID, "rb") as f:
            return int(f.read())
    except (OSError, ValueError):
        return -1  # cannot tell: every freeze then scans


class SignalFreezer:
    """SIGSTOP and SIGCONT to every process of a bot's PID namespace (no cgroups needed).

    The processes are held by pidfds (a signal never reaches a pid reused by another process).
    A freeze stops those known, then looks for new ones: only if a pid was handed out anywhere
    since the thaw (`ns_last_pid`) does it scan /proc for processes of the namespace, until a
    scan finds none new (a stopped process cannot fork, so the scans end). `frozen` checks that
    each known process is stopped (a running one stops a few microseconds after SIGSTOP)."""

    def __init__(self, init_pid: int, namespace: str) -> None:
        self.namespace = namespace  # "pid:[inode]", as /proc/<pid>/ns/pid reads
        self._known: dict[int, int] = {}  # pid -> pidfd
        self._since = -1  # ns_last_pid when the bot was last thawed (-1: scan)
        self._adopt(init_pid)

    def _adopt(self, pid: int) -> bool:
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            return False
        try:
            same = os.readlink(f"/proc/{pid}/ns/pid") == self.namespace  # after the pidfd: not a reused pid
        except OSError:
            same = False
        if not same:
            os.close(pidfd)
            return False
        self._known[pid] = pidfd
        return True

    def _signal_all(self, signum: int) -> None:
        for pid, pidfd in list(self._known.items()):
            try:
                signal.pidfd_send_signal(pidfd, signum)
            except ProcessLookupError:
                os.close(self._known.pop(pid))

    def freeze(self) -> None:
        self._signal_all(signal.SIGSTOP)
        if self._since >= 0 and _last_pid() == self._since:
            return  # no process was started anywhere since the thaw
        while True:
            found = []
            for name in os.listdir("/proc"):
                if name.isdigit() and int(name) not in self._known:
                    try:
                        if os.readlink(f"/proc/{name}/ns/pid") != self.namespace:
                            continue
                    except OSError:
                        continue
                    if self._adopt(int(name)):
                        found.append(int(name))
            for pid in found:
                try:
                    signal.pidfd_send_signal(self._known[pid], signal.SIGSTOP)
                except ProcessLookupError:
                    os.close(self._known.pop(pid))
            if not found:
                return

    def frozen(self) -> bool:
        for pid in list(self._known):
            try:
                with open(f"/proc/{pid}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue  # gone: it runs nothing
            if stat[stat.rindex(b")") + 2] not in _STOPPED:
                return False
        return True

    def thaw(self) -> None:
        self._since = _last_pid()
        self._signal_all(signal.SIGCONT)

    def close(self) -> None:
        for pidfd in self._known.values():
            os.close(pidfd)
        self._known.clear()


def pidfd_pid(pidfd: int) -> int | None:
    """The pid (in this process's namespace) of the process `pidfd` refers to."""
    try:
        with open(f"/proc/self/fdinfo/{pidfd}") as f:
            for line in f:
                if line.startswith("Pid:"):
                    pid = int(line.split()[1])
                    return pid if pid > 0 else None
    except (OSError, ValueError):
        pass
    return None


def namespace_freezer(init_pid: int | None) -> SignalFreezer | None:
    """A `SignalFreezer` for the PID namespace whose init is `init_pid` (None if it is gone)."""
    if init_pid is None:
        return None
    try:
        namespace = os.readlink(f"/proc/{init_pid}/ns/pid")
    except OSError:
        return None
    if namespace == os.readlink("/proc/self/ns/pid"):
        return None  # not a namespace of its own: nothing to freeze it by
    return SignalFreezer(init_pid, namespace)


async def wait_frozen(freezer: Freezer) -> bool:
    """Freeze. Nothing is waited for: once the freezer's write (or SIGSTOP) has returned, every
    process of the bot has the freeze pending, and a task with a freeze pending never returns
    to user code (it stops in the kernel on its way out; one running on another core is
    interrupted at once), so the bot runs none of its own instructions from here on; `frozen()`
    turns true when each has actually stopped (a few microseconds, longer on a loaded
    machine). False if the bot cannot be frozen (the caller kills it)."""
    try:
        freezer.freeze()
    except OSError:
        return False
    return True


def can_freeze(mode: str) -> bool:
    """Can bots of sandbox `mode` be frozen here (cgroup freezer, or a PID namespace each)?"""
    if mode == "none":
        return False
    return cgroups.can_freeze() or mode in ("fork", "bwrap")


BOT_MEMORY_BYTES = 24 << 20
"""What one bot process is reckoned to take, resident, for `fair_tables` (a Python bot with the
kit; bench/README.md, Scheduler, has what a table took here)."""
FAIR_TABLES_MAX = 256


def fair_tables(players: int) -> int:
    """Tables at once under the fair setting (`--fair`): a frozen bot costs no CPU, only memory,
    so as many as half the memory available now holds, counting the tables that start or stop
    their bots meanwhile (as many again, arena.play.room.play_rooms); at least one per core."""
    available = 0
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    by_memory = available // 2 // (2 * max(players, 1) * BOT_MEMORY_BYTES)
    return max(default_cores(), min(by_memory, FAIR_TABLES_MAX))
