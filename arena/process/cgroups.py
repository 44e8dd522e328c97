"""Limits for a bot together with everything it starts: memory, processes and a fair CPU share.

Resource limits (`ulimit`) hold per process: four children of one bot may each touch the whole
memory limit, and thirty children spinning on every core push an honest opponent into its
timeouts. A cgroup per bot bounds the whole tree: `memory` (resident memory, its tmpfs pages
included), `pids` (processes and threads) and `cpu` (equal shares: a bot with thirty spinning
children gets the CPU of one bot when others want theirs). Each is made beneath the arena's own
cgroup of that controller (from /proc/self/cgroup), in a group `zwicker-<arena pid>-<start time>`, and removed
with the bot; the guard shell moves the bot into it before its program starts (`join_shell`),
the fork server before it drops root.

Cgroup v1 (the controllers mounted apart under /sys/fs/cgroup, as on these machines) and v2 (one
unified hierarchy with the controllers enabled) are both used by root. An ordinary user gets
them where the machine delegates a v2 subtree to the user (`delegated`): the arena's own v2
group belongs to the user, as under `systemd-run --user --scope -p Delegate=yes arena ...` or in
a group an administrator made and handed over with `chown -R`. Elsewhere (v1 without root, no
delegation, a container without the controllers) bots keep only their per-process limits,
which docs/hostile.md describes as the weaker case, and the sandbox's name says so
(arena.process.modes.label).

A bot's group also freezes it, with everything it started, while it does not hold a core
(arena.process.scheduler): v1's `freezer` hierarchy (a group of its own, beside the others),
v2's `cgroup.freeze` in the bot's one group (`BotGroup.freezer_files`).
"""

from __future__ import annotations

import functools
import os
import secrets
import signal
import time
from pathlib import Path

from arena.process import command
from arena.process.command import owner_alive

ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("memory", "pids", "cpu")
GROUP_PREFIX = "zwicker-"
BOTS_WEIGHT = os.cpu_count() or 1
"""The bots' group weighs as many busy tasks as bots may run at once (the move scheduler's cores,
arena.process.scheduler) against the arena's own process: a bot with spinning children, on its
turn, leaves the arena at least one part in cores + 1 of the machine."""
_GROUP = f"{GROUP_PREFIX}{command.OWNER.replace(':', '-')}"
"""This arena process's group: named after its pid and start time, so that a sweep can tell the
group of a dead arena from a live one's (whose bot groups are empty for a moment at each start)."""


def _own(controller: str, lines: list[str] | None = None) -> str | None:
    """This process's cgroup path in `controller`'s v1 hierarchy ("" for v2's), or None (`lines`:
    /proc/self/cgroup's)."""
    if lines is None:
        try:
            lines = Path("/proc/self/cgroup").read_text().splitlines()
        except OSError:
            return None
    for line in lines:
        _, names, path = line.split(":", 2)
        if controller in names.split(",") or (controller == "" and names == ""):
            return path
    return None


def _controllers(folder: Path, name: str = "cgroup.controllers") -> set[str]:
    try:
        return set((folder / name).read_text().split())
    except OSError:
        return set()


def delegated(folder: Path, uid: int) -> bool:
    """Is the v2 group `folder` handed to `uid` with the controllers bots need? The group, its
    cgroup.procs and cgroup.subtree_control belong to `uid` (what systemd's Delegate=yes and
    a `chown -R` of a group give), and its parent lets it use memory, pids and cpu."""
    try:
        owned = all(path.stat().st_uid == uid for path in
                    (folder, folder / "cgroup.procs", folder / "cgroup.subtree_control"))
    except OSError:
        return False
    return owned and set(CONTROLLERS) <= _controllers(folder)


@functools.cache
def _bases() -> dict[str, Path] | None:
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    return bases_in(ROOT, lines, os.geteuid(), os.getpid())


def bases_in(root: Path, lines: list[str], euid: int, pid: int) -> dict[str, Path] | None:
    """Where the bot groups of arena process `pid` go, per controller (one folder for all in v2),
    in the cgroup file system at `root`, for a process of /proc/self/cgroup `lines` running as
    `euid`; None where there is nowhere writable (v1 without root, v2 without delegation).

    CPU: the arena process moves itself into its group, which keeps the default weight (one
    task's), and its bots go in a `bots` group beneath it: so an arena and all its bots weigh
    against the machine's other work, another arena included, as much as one busy task (an
    arena's shards, started from it, make their groups inside it), while inside, the bots
    together weigh as much as BOTS_WEIGHT busy tasks against the arena process."""
    bases = {}
    v1 = all((root / c / "cgroup.procs").exists() for c in CONTROLLERS)
    if v1 and euid != 0:
        return None  # v1 is not delegated to users (its groups' files are root's)
    for controller in CONTROLLERS:
        if v1:
            own = _own(controller, lines)
            if own is None:
                return None
            bases[controller] = root / controller / own.lstrip("/") / _GROUP
        else:
            own = _own("", lines)
            here = root / (own or "").lstrip("/")
            if own is None or not set(CONTROLLERS) <= _controllers(here) or (euid != 0 and not delegated(here, euid)):
                return None
            bases[controller] = here / _GROUP / BOTS
    enable = " ".join(f"+{c}" for c in CONTROLLERS)
    try:
        if v1:
            arena = bases["cpu"]
            bases["cpu"] = arena / BOTS
            arena.mkdir(exist_ok=True)
            (arena / "cpu.shares").write_text("1024")
            bases["cpu"].mkdir(exist_ok=True)
        else:  # no process may sit beside child groups in v2: the arena has a leaf of its own
            arena = bases["cpu"].parent
            arena.mkdir(exist_ok=True)
            (arena / ARENA_LEAF).mkdir(exist_ok=True)
            if not set(CONTROLLERS) <= _controllers(arena.parent, "cgroup.subtree_control"):
                # A delegated group (a user's scope) may not pass the controllers on yet: it can
                # once no process is in it, so the arena moves into its leaf first (the write is
                # refused where other processes share the group: then no whole-bot limits).
                (arena / ARENA_LEAF / "cgroup.procs").write_text(str(pid))
                (arena.parent / "cgroup.subtree_control").write_text(enable)
            (arena / "cgroup.subtree_control").write_text(enable)
            (arena / "cpu.weight").write_text("100")
            bases["cpu"].mkdir(exist_ok=True)
            (bases["cpu"] / "cgroup.subtree_control").write_text(enable)  # the bots' groups get them too
        for folder in set(bases.values()):
            folder.mkdir(exist_ok=True)
        # The bots together weigh as much as BOTS_WEIGHT busy tasks against the arena's own
        # process: one group's default weight would cap every bot of the arena at the share of
        # one task beside the arena (a quarter less throughput, bench/README.md); more would
        # starve the arena whenever a bot on move spins children.
        cpu = bases["cpu"]
        (cpu / ("cpu.shares" if v1 else "cpu.weight")).write_text(str(min(BOTS_WEIGHT * 1024, 262144) if v1
                                                                         else min(BOTS_WEIGHT * 100, 10000)))
        ((arena if v1 else arena / ARENA_LEAF) / "cgroup.procs").write_text(str(pid))
    except OSError:
        return None
    return bases


BOTS, ARENA_LEAF = "bots", "arena"


@functools.cache
def _freezer_base() -> Path | None:
    """Where the bots' freezer groups go in cgroup v1 (beside the other controllers' groups);
    None where there is no v1 freezer hierarchy (v2 freezes in the bot's own group)."""
    bases = _bases()
    if bases is None or len(set(bases.values())) == 1:
        return None
    own = _own("freezer")
    if own is None or not (ROOT / "freezer" / "cgroup.procs").exists():
        return None
    base = ROOT / "freezer" / own.lstrip("/") / _GROUP
    try:
        base.mkdir(exist_ok=True)
        # An empty group kept frozen: the kernel switches its freezer on and off (a static key,
        # about 0.5 ms) only when the first group freezes and the last thaws, not at every move.
        (base / ANCHOR).mkdir(exist_ok=True)
        (base / ANCHOR / "freezer.state").write_text("FROZEN")
    except OSError:
        return None
    return base


ANCHOR = "frozen-anchor"


def freezer_base() -> Path | None:
    """This arena's v1 freezer group (its bots' freezer groups are in it), if it has one."""
    return _freezer_base() if available() else None


def can_freeze() -> bool:
    """Can this arena freeze its bots by cgroups (v2, or v1 with a freezer hierarchy)?"""
    bases = _bases() if available() else None
    return bases is not None and (len(set(bases.values())) == 1 or _freezer_base() is not None)


def arena_groups() -> list[Path]:
    """This arena's own groups (`zwicker-<pid>-<start time>`), one per hierarchy."""
    bases = _bases() or {}
    freezer = _freezer_base()
    return sorted({base.parent if base.name == BOTS else base for base in bases.values()}
                  | ({freezer} if freezer is not None else set()))


def available() -> bool:
    return _bases() is not None


class BotGroup:
    """One bot's cgroups: made with its limits, joined by the bot, removed when it is gone."""

    def __init__(self, memory_bytes: int, processes: int, uid: int | None) -> None:
        bases = _bases()
        assert bases is not None
        name = f"bot-{secrets.token_hex(6)}"
        self.folders = sorted({base / name for base in bases.values()})
        v1 = len(set(bases.values())) > 1
        freezer = _freezer_base()
        if freezer is not None:
            self.folders.append(freezer / name)
        # (the state file to write, the file that says when the freeze is complete, v1)
        self.freezer_files: tuple[Path, Path, bool] | None = (
            (freezer / name / "freezer.state",) * 2 + (True,) if freezer is not None
            else None if v1 else (bases["cpu"] / name / "cgroup.freeze", bases["cpu"] / name / "cgroup.events", False))
        for folder in self.folders:
            folder.mkdir(parents=True)  # the arena's own group too, if a sweep took it
        memory, pids, cpu = (bases[c] / name for c in CONTROLLERS)
        (memory / ("memory.limit_in_bytes" if v1 else "memory.max")).write_text(str(memory_bytes))
        if not v1:
            (memory / "memory.swap.max").write_text("0")
        (pids / "pids.max").write_text(str(processes))
        (cpu / ("cpu.shares" if v1 else "cpu.weight")).write_text("1024" if v1 else "100")
        if uid is not None:  # the guard shell joins as the bot's uid: a process may move itself
            for folder in self.folders:
                os.chown(folder / "cgroup.procs", uid, uid)

    def join_shell(self) -> str:
        """Shell for the guard (`sandbox.death_with_arena`): move itself, and so the bot, in."""
        return "".join(f"echo $$ > {folder / 'cgroup.procs'} && " for folder in self.folders)

    def procs_files(self) -> list[str]:
        return [str(folder / "cgroup.procs") for folder in self.folders]

    def remove(self) -> None:
        """Kill whatever is still in the groups, then remove them (thawed first: a process in a
        frozen v1 group does not die of SIGKILL until it is thawed)."""
        thaw(self.freezer_files)
        for folder in self.folders:
            for _ in range(100):
                try:
                    folder.rmdir()
                    break
                except FileNotFoundError:
                    break
                except OSError:
                    for pid in (folder / "cgroup.procs").read_text().split():
                        try:
                            os.kill(int(pid), signal.SIGKILL)
                        except ProcessLookupError:
                            pass
                    time.sleep(0.005)  # killed processes leave their group a moment later


def thaw(files: tuple[Path, Path, bool] | None) -> None:
    """Thaw a bot's freezer group (`BotGroup.freezer_files`), if it still exists."""
    if files is not None:
        try:
            files[0].write_text("THAWED" if files[2] else "0")
        except OSError:
            pass


def sweep_stale() -> list[str]:
    """Remove the groups that arenas killed outright left behind (their bot groups, the `bots`
    and `arena` groups in them, and groups of shards started from them); a live arena's are left
    alone, even empty."""
    removed: list[str] = []
    for parent in {group.parent for group in arena_groups()}:
        _sweep_in(parent, removed)
    return removed


def _sweep_in(parent: Path, removed: list[str]) -> None:
    for group in parent.glob(f"{GROUP_PREFIX}*-*"):
        pid, _, started = group.name[len(GROUP_PREFIX):].partition("-")
        if not (pid.isdigit() and started.isdigit()) or owner_alive(f"{pid}:{started}"):
            continue
        _remove_tree(group, removed)


def _remove_tree(group: Path, removed: list[str]) -> None:
    """Remove `group` and the groups in it, deepest first (a live shard's group is kept)."""
    _sweep_in(group, removed)
    for state in group.glob("bot-*/freezer.state"):  # a dead arena's frozen bots: thawed, they die
        thaw((state, state, True))
    for folder in [*group.glob(f"{BOTS}/bot-*"), *group.glob("bot-*"), group / BOTS, group / ARENA_LEAF, group / ANCHOR,
                   group]:
        try:
            folder.rmdir()  # refused while processes (or live groups) are in it
            removed.append(str(folder))
        except OSError:
            pass
