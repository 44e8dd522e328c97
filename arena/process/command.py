"""What a bot is and what it may use: its command line, its limits, and the tags that find it.

These are plain values shared by the sandbox, the fork server's client and the code that starts
and kills bots, so none of those needs to import another to know them.
"""

from __future__ import annotations

import os
import re
import secrets
import shlex
import shutil
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import trio

if TYPE_CHECKING:
    pass


# Every bot process carries TAG_VAR=<arena id>/<bot serial> in its environment, so that its
# descendants can be found (and killed) even after they leave the process group, and so that the
# test suite can check that no bot outlived its test.
TAG_VAR = "ZWICKER_ARENA_BOT"


ARENA_ID = secrets.token_hex(6)


_serial = 0


_serial_prefix = ""  # a shard's own, so that its tags differ from its tournament process's


# ... and OWNER_VAR=<arena pid>:<its start time in clock ticks>, so that a later arena can tell a
# bot whose arena is dead (see sweep_orphans) without mistaking a reused pid for its owner.
OWNER_VAR = "ZWICKER_ARENA_OWNER"


def _start_time(pid: int | str) -> str | None:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat[stat.rindex(")") + 2 :].split()[19]  # field 22, after the command name


OWNER = f"{os.getpid()}:{_start_time(os.getpid())}"


def join_arena(arena_id: str, serial_prefix: str) -> None:
    """Tag this process's bots as the arena `arena_id`'s (a shard's, arena.tournaments.shard): whoever
    looks for that arena's bots finds them too. `serial_prefix` keeps the tags apart."""
    global ARENA_ID, _serial_prefix
    ARENA_ID, _serial_prefix = arena_id, serial_prefix


GRACE_SECONDS = 0.5  # after stdin is closed, how long a bot may take to exit on its own


@dataclass(frozen=True)
class Limits:
    """Resource bounds of one bot process (applied in the `rlimit` and `bwrap` modes).

    The defaults fit a card bot, measured here: Python with msgpack starts in 256 MiB of address
    space (about 10 MiB resident), node 20 needs 1 GiB of address space (it reserves much more
    than the 40 MiB it touches) and fails to start under 512 MiB.
    """

    memory_bytes: int = 1 << 30  # RLIMIT_AS: address space
    cpu_seconds: int = 600  # RLIMIT_CPU: a whole match's thinking; the per-move clock is the protocol's
    file_bytes: int = 1 << 20  # RLIMIT_FSIZE: the largest file a bot may write (in its temp dir)
    open_files: int = 64  # RLIMIT_NOFILE
    processes: int = 32  # RLIMIT_NPROC: processes and threads of the bot's own uid
    tmp_bytes: int = 16 << 20  # size of the private /tmp (bwrap mode; a tmpfs, so it is memory)
    stderr_bytes: int = 64 << 10  # how much of the bot's stderr is kept (head and tail)

    def __post_init__(self) -> None:
        for name in (
            "memory_bytes", "cpu_seconds", "file_bytes", "open_files", "processes", "tmp_bytes", "stderr_bytes"
        ):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"limit {name} must be a positive integer, got {value!r}")


_THREADS = re.compile(r"pthread_create failed|Failed to start (the native )?thread|unable to create native thread|"
                      r"failed to create new OS thread|can't start new thread|failed to spawn thread|"
                      r"Resource temporarily unavailable|\[os,thread\]|newosproc|EAGAIN", re.IGNORECASE)
_JVM_HEAP = re.compile(r"OutOfMemoryError: (Java heap space|GC overhead limit exceeded)")
_MEMORY = re.compile(r"Cannot allocate memory|insufficient memory|Could not (allocate|reserve)|out of memory|"
                     r"MemoryError|Failed to reserve|ENOMEM|bad_alloc|memory allocation of \d+ bytes failed|"
                     r"Java heap space|mmap failed|failed to map", re.IGNORECASE)


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift} {unit}"
    return f"{n} bytes"


def limit_met(text: str, limits: Limits | None = None) -> str | None:
    """Which of the sandbox's limits a bot's own words (its stderr, a fault's detail) say it met,
    with its size and what to do, or None: threads (RLIMIT_NPROC counts them), the JVM's heap (sized
    from the address space) or address space (RLIMIT_AS counts what a program reserves, not what
    it touches)."""
    limits = limits or Limits()
    memory = _size(limits.memory_bytes)
    if _THREADS.search(text):  # first: the JVM's "unable to create native thread: possibly out of memory ..."
        return (f"the bot could not start a thread: its limit is {limits.processes} processes and threads, and each "
                f"thread's stack takes some of its {memory} of address space: start fewer (the JVM: -XX:+UseSerialGC "
                f"-XX:CICompilerCount=2 -Xss512k and a smaller -Xmx; Go: GOMAXPROCS=2; docs/runtimes.md)")
    if _JVM_HEAP.search(text):
        return (f"the JVM's heap is full: the arena's JAVA_TOOL_OPTIONS make it {_size(limits.memory_bytes // 4)}, a "
                f"quarter of the sandbox's {memory} of address space, where the bot's own -Xmx does not set it: a "
                f"bot that needs more gives -Xmx in its command (java -Xmx600m -jar bot.jar), within the {memory} "
                f"(docs/runtimes.md)")
    if _MEMORY.search(text):
        return (f"the bot met the sandbox's limit of {memory} of address space (what a program reserves counts, "
                f"not only what it touches): reserve less (the JVM: the arena's JAVA_TOOL_OPTIONS fit it, a larger "
                f"-Xmx of the bot's own may not; Go: GOMEMLIMIT; docs/runtimes.md has each runtime's flags)")
    if "Could not create the Java Virtual Machine" in text and "Unrecognized" not in text:  # (its cause went to stdout)
        return (f"the JVM could not start within the sandbox's limits: {memory} of address space and "
                f"{limits.processes} processes and threads; its defaults (a heap of a quarter of the machine's memory, "
                f"1 GiB of class space, threads per core) do not fit: the arena's JAVA_TOOL_OPTIONS do, unless the "
                f"bot's own flags or environment override them (docs/runtimes.md)")
    return None


NODE_SUFFIXES = (".js", ".mjs", ".cjs")


SCRIPT_SUFFIXES = (".py", *NODE_SUFFIXES)
"""A bot given as a file with one of these endings is run by python or node."""


@dataclass(frozen=True)
class BotCommand:
    """How to start a bot: its argv, and its own folder (the cwd; readable inside the sandbox).

    `kind` is "python", "node", "exec" or "command"; for "python" the sandbox may swap the
    interpreter (argv[0]) for one readable by an unprivileged user. `whole`: the folder is the
    bot's own (a registered bot's stored copy, a folder given as the bot), so that a command that
    copies a bot to run it (`arena play`, `bot check`) copies all of it, not only the files its
    command names.
    """

    argv: tuple[str, ...]
    workdir: Path
    kind: str = "command"
    whole: bool = False

    @classmethod
    def from_spec(cls, spec: str) -> BotCommand:
        """A path to a `.py` / `.js` / `.mjs` / `.cjs` script or an executable file, else a command string."""
        if not spec or not spec.strip():
            raise ValueError("empty bot command")
        path = Path(spec).expanduser()
        if path.is_file():
            path = path.resolve()
            if path.suffix == ".py":
                return cls((sys.executable, str(path)), path.parent, "python")
            if path.suffix in NODE_SUFFIXES:
                return cls((_which("node"), str(path)), path.parent, "node")
            if os.access(path, os.X_OK):
                return cls((str(path),), path.parent, "exec")
            raise ValueError(f"bot {spec}: not a .py/.js/.mjs/.cjs script and not executable")
        if path.suffix in SCRIPT_SUFFIXES and " " not in spec:
            raise ValueError(f"bot {spec}: no such file")
        try:
            argv = shlex.split(spec)
        except ValueError as exc:
            raise ValueError(f"bot command {spec!r}: {exc}") from None
        if not argv:
            raise ValueError("empty bot command")
        first = Path(argv[0]).expanduser()
        if first.suffix in SCRIPT_SUFFIXES and first.is_file():  # "bot.py --level 3"
            script = cls.from_spec(argv[0])
            return cls(script.argv + tuple(argv[1:]), script.workdir, script.kind)
        program = argv[0]
        if os.sep in program:
            # abspath, not resolve: a venv's python is a symlink whose target lacks the venv's packages
            resolved = Path(os.path.abspath(Path(program).expanduser()))
            if not os.access(resolved, os.X_OK) or not resolved.is_file():
                raise ValueError(f"bot command {spec!r}: {program} is not an executable file")
            argv[0] = str(resolved)
        else:
            argv[0] = _which(program)
        # The bot's folder: that of the first argument that is an existing file (the script), else the cwd.
        workdir = Path.cwd()
        for arg in argv[1:]:
            candidate = Path(arg).expanduser()
            if candidate.is_file():
                workdir = candidate.resolve().parent
                break
        kind = "python" if Path(argv[0]).name.startswith("python") else "command"
        return cls(tuple(argv), workdir, kind)

    def __str__(self) -> str:
        return shlex.join(self.argv)


def _which(program: str) -> str:
    found = shutil.which(program)
    if found is None:
        raise ValueError(f"bot command: {program} not found on PATH")
    return found


@contextmanager
def batch_policy() -> Iterator[None]:
    """Processes started inside this block run under SCHED_BATCH (a policy children inherit).

    The arena hands each move to a bot and waits for the answer, so it is the one process every
    table waits on. A batch task is never allowed to preempt the task running when it wakes up:
    a bot woken by an `act` runs on an idle core, or once the arena waits, instead of pushing
    the arena off its core. Its share of the CPU is unchanged (the same weight as any nice-0
    task). In the fork sandbox this made a tournament 7% faster at the default concurrency
    (bench/README.md); bwrap's runs, bound by their execs, gained nothing. Best effort: where
    the policy cannot be set, nothing changes.
    """
    try:
        policy, param = os.sched_getscheduler(0), os.sched_getparam(0)
        os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    except (AttributeError, OSError):
        yield
        return
    try:
        yield
    finally:
        os.sched_setscheduler(0, policy, param)


@asynccontextmanager
async def beside(task: Callable[[], Awaitable[object]],
                 before_cancel: Callable[[], Awaitable[object]] | None = None) -> AsyncIterator[None]:
    """Run `task` in the background for the block, then (shielded) `before_cancel`, then cancel it.

    An exception of the block comes out as itself, not wrapped in the nursery's group (the
    background tasks here never raise).
    """
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(task)
            try:
                yield
            finally:
                if before_cancel is not None:
                    with trio.CancelScope(shield=True):
                        await before_cancel()
                nursery.cancel_scope.cancel()
    except BaseExceptionGroup as group:
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise


def owner_alive(owner: str) -> bool:
    """True if `owner` ("pid:start time", as in OWNER_VAR) is this arena or another one still running."""
    pid, _, started = owner.partition(":")
    return owner == OWNER or (pid.isdigit() and _start_time(pid) == started)
