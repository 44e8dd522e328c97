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
from collections.abc import Callable, Hashable
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

    def __init__(self, init_pid: int, namespace: str | None) -> None:
        self.namespace = namespace  # "pid:[inode]", as /proc/<pid>/ns/pid reads; None: not readable here
        self.init_pid = init_pid
        self._known: dict[int, int] = {}  # pid -> pidfd
        self._since = -1  # ns_last_pid when the bot was last thawed (-1: scan)
        self._adopt(init_pid)

    def _adopt(self, pid: int) -> bool:
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            return False
        if not self._member(pid):  # after the pidfd: not a reused pid
            os.close(pidfd)
            return False
        self._known[pid] = pidfd
        return True

    def _member(self, pid: int) -> bool:
        """Is `pid` a process of the bot's PID namespace? By the namespace's link where this user
        may read it; else (an ordinary user, the bot not dumpable) by descent from its init, which
        /proc/<pid>/status tells anyone: in a PID namespace every orphan is adopted by its init."""
        if self.namespace is not None:
            try:
                return os.readlink(f"/proc/{pid}/ns/pid") == self.namespace
            except OSError:
                return False
        for _ in range(MAX_DEPTH):
            if pid == self.init_pid:
                return True
            if pid <= 1 or (pid := _parent(pid)) is None:
                return False
        return False

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
                    if not self._member(int(name)):
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

    def known(self) -> list[int]:
        """The bot's processes found so far (pids in this process's namespace)."""
        return list(self._known)

    def members(self) -> list[int]:
        """Every process of the namespace now (a scan of /proc)."""
        return [int(name) for name in os.listdir("/proc") if name.isdigit() and self._member(int(name))]

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
        namespace: str | None = os.readlink(f"/proc/{init_pid}/ns/pid")
    except PermissionError:  # an ordinary user's bot, not dumpable: its status still says its depth
        namespace = None
        if _ns_depth(init_pid) < 2:
            return None
    except OSError:
        return None
    if namespace is not None and namespace == os.readlink("/proc/self/ns/pid"):
        return None  # not a namespace of its own: nothing to freeze it by
    return SignalFreezer(init_pid, namespace)


MAX_DEPTH = 64
"""How far up its parents a process is followed to its namespace's init."""


def _status(pid: int, field: str) -> list[str] | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return line.split()[1:]
    except OSError:
        pass
    return None


def _parent(pid: int) -> int | None:
    found = _status(pid, "PPid")
    return int(found[0]) if found else None


def _ns_depth(pid: int) -> int:
    """How many PID namespaces, from this process's down, `pid` has a number in (1: ours only)."""
    found = _status(pid, "NSpid")
    return len(found) if found else 0


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


# -- the machine's share of a move's time -------------------------------------------------------

STARVED_FACTOR = 4
"""A move that the machine keeps waiting is given more wall time, up to this many move limits
(plus bank); a bot that by then had less than its limit of its own time was starved: the fault
is the arena's (arena.play.table)."""
PROBE_S = 0.05
"""At most this long (and a tenth of the limit) a bot runnable at its deadline is watched for
whether it runs (its own time) or waits for a CPU (the machine's)."""
_TICK_NS = 1_000_000_000 // (os.sysconf("SC_CLK_TCK") or 100)
_IDLE = getattr(os, "SCHED_IDLE", 5)


def _fields(stat: bytes) -> list[bytes]:
    """/proc/<pid>/stat's fields after the command's name (the state first: proc(5)'s field 3)."""
    return stat[stat.rindex(b")") + 2:].split()


def _exec_start(path: str) -> float | None:
    """A thread's `se.exec_start` (/proc/<pid>/sched, ms on the run-queue clock): when it last
    ran, so for a thread that waits for a CPU now, when its wait began (or the sleep before it:
    see `Meter`)."""
    try:
        with open(path, "rb") as f:
            for line in f:
                if line.startswith(b"se.exec_start"):
                    return float(line.split(b":")[1])
    except (OSError, ValueError, IndexError):
        pass
    return None


def _threads(pids: list[int], detail: bool) -> tuple[int, int, dict[tuple[int, str], tuple[int, int, float | None]], bool]:
    """The CPU time and run-queue wait of `pids`' threads so far, in ns (/proc/<pid>/task/*/schedstat:
    time on a CPU, time runnable and waiting for one, counted when the wait ends). The CPU time is
    at least what /proc/<pid>/stat counts, threads that have exited and children reaped included
    (a bot cannot hide its own spinning in a thread that ends before it is looked at). With
    `detail`: also the runnable threads ((pid, tid): (CPU time, times run)) and whether a thread
    lowered its own priority (a nice above 0, SCHED_IDLE)."""
    cpu = wait = 0
    runnable: dict[tuple[int, str], tuple[int, int, float | None]] = {}
    lowered = False
    for pid in pids:
        threads_cpu = 0
        try:
            tids = os.listdir(f"/proc/{pid}/task")
            with open(f"/proc/{pid}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        for tid in tids:
            try:
                with open(f"/proc/{pid}/task/{tid}/schedstat", "rb") as f:
                    on_cpu, waited, runs = (int(x) for x in f.read().split())
                if detail:
                    with open(f"/proc/{pid}/task/{tid}/stat", "rb") as f:
                        fields = _fields(f.read())
                    if int(fields[16]) > 0 or int(fields[38]) == _IDLE:  # nice, policy
                        lowered = True
                    if fields[0] == b"R":
                        runnable[(pid, tid)] = (on_cpu, runs, _exec_start(f"/proc/{pid}/task/{tid}/sched"))
            except (OSError, ValueError):
                continue
            threads_cpu += on_cpu
            wait += waited
        ticks = sum(int(x) for x in _fields(stat)[11:15])  # utime stime cutime cstime
        cpu += max(threads_cpu, ticks * _TICK_NS)
    return cpu, wait, runnable, lowered


def usage(pids: list[int]) -> tuple[int, int]:
    """(CPU time, run-queue wait) of `pids`' threads so far, in ns (`_threads`)."""
    cpu, wait, _, _ = _threads(pids, False)
    return cpu, wait


class Meter:
    """How much of a move's wall time the machine took from a bot, measured from `base` on.

    The kernel counts a thread's wait for a CPU when the wait ends, so a thread starved now
    shows none of it yet: a thread found runnable that has neither run nor been run again (its
    CPU time and run count unchanged) when looked at later has waited for a CPU all the while
    (only a running thread can go to sleep). `credit` adds those waits to the ended ones."""

    __slots__ = ("now", "base", "cpu", "wait", "stalled", "probing")

    def __init__(self, pids: list[int], now: Callable[[], list[int]], base: float = 0.0) -> None:
        self.now = now  # the bot's processes when the credit is asked for (some may be new)
        self.base = base  # when in the move (seconds) it starts measuring: the time before is the bot's
        self.cpu, self.wait = usage(pids)
        self.stalled: dict[tuple[int, str], tuple[float, int, int]] = {}  # runnable since, CPU, runs
        self.probing = False  # a thread was found runnable just now: look again to know more

    def credit(self, wall_s: float) -> float:
        """Seconds of `wall_s` (of the move; the meter measures from `base`) the bot spent waiting for a CPU it was
        owed: its threads' run-queue waits, ended or seen going on, but no more than the time
        none of its threads ran (a bot whose own threads crowd each other is running), and none
        at all if it lowered its own priority."""
        cpu, wait, runnable, lowered = _threads(self.now(), True)
        clock = _exec_start("/proc/thread-self/sched")  # this thread runs: about now on that clock
        stalled = {}
        self.probing = False
        for key, (on_cpu, runs, last_ran) in runnable.items():
            since = wall_s
            if clock is not None and last_ran is not None:  # waiting since it last ran, at most since the thaw
                since = min(wall_s, max(self.base, wall_s - (clock - last_ran) / 1000))
            seen = self.stalled.get(key)
            if seen is not None and seen[1:] == (on_cpu, runs):
                stalled[key] = (min(seen[0], since), on_cpu, runs)
            else:
                stalled[key] = (since, on_cpu, runs)
                self.probing = True
        self.stalled = stalled
        if lowered:
            self.probing = False
            return 0.0
        going_on = max((wall_s - since for since, _, _ in stalled.values()), default=0.0)
        waited = max(0, wait - self.wait) / 1e9 + going_on
        idle = max(0.0, wall_s - self.base - max(0, cpu - self.cpu) / 1e9)
        return min(waited, idle)
