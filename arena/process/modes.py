"""Choosing the sandbox: which modes work on this machine, and the default.

A mode's trial runs once per arena process (about 80 ms for "fork" or "bwrap"), before anything
is stored, so a run that cannot confine its bots says so at once.
"""

from __future__ import annotations

import functools
import sys

from arena.process import cgroups, forking, sandbox, scheduler

_checked: set[str] = set()  # modes whose trial the arena process that started this one passed


def trust_mode(mode: str) -> None:
    """Skip `mode`'s trial here: the process that started this one (a shard's tournament
    process, arena.tournaments.shard) ran it on this machine a moment ago."""
    _checked.add(mode)


def resolve_mode(value: str | None) -> str:
    """The `--sandbox` option's value checked; None or "auto" means `default_mode()`.

    A trial bot runs once per process (about 80 ms in "fork" or "bwrap") unless `trust_mode`."""
    if value is None or value == "auto":
        return default_mode()
    if value not in sandbox.MODES:
        raise ValueError(f"unknown sandbox {value!r}: choose one of {', '.join(sandbox.MODES)}")
    if value in ("bwrap", "fork") and value not in _checked:  # say at once, before anything is stored, if it cannot run
        problem = sandbox.bwrap_problem() if value == "bwrap" else forking.problem()
        if problem:
            raise ValueError(f"sandbox {value}: {problem}")
    return value


@functools.cache
def default_mode() -> str:
    """The strongest sandbox that works here: "bwrap", else the arena's own "fork" (as root, or
    in a user namespace of its own; no system package needed), else "rlimit" with one warning
    line that says what is lost."""
    problems = []
    for mode, problem in (("bwrap", sandbox.bwrap_problem), ("fork", forking.problem)):
        why = problem()
        if why is None:
            return mode
        problems.append(f"{mode}: {why}")
    sys.stderr.write(f"arena: warning: no sandbox isolates bots here ({'; '.join(problems)}); bots run with "
                     "--sandbox rlimit, which limits each bot's resources but does not keep partners from "
                     "talking to each other\n")
    return "rlimit"


NO_WHOLE_BOT_LIMITS = "without whole-bot limits: no writable cgroups here, only each process's own"
NOT_FROZEN = "not frozen off their turn: bots took turns for the cores, but ran between them"


def label(mode: str) -> str:
    """`mode` as the run's header and `bot check` name it: with a note where a bot's memory,
    processes and CPU share are not bounded for the bot with all its children (no writable
    cgroups: an ordinary user, or a container without them), as rlimit's warning says what
    rlimit lacks; and where bots cannot be frozen while others move (arena.process.scheduler:
    rlimit without cgroups, none)."""
    text = mode
    if mode != "none" and not cgroups.available():
        text += f" ({NO_WHOLE_BOT_LIMITS})"
    if not scheduler.can_freeze(mode):
        text += f" ({NOT_FROZEN})"
    return text
