"""The watchdog: kills what an arena process leaves behind when it is killed outright.

A SIGKILLed arena normally takes its bots with it by parent-death signals (arena.process.lifecycle,
arena.process.sandbox), but bwrap leaves a gap: the init of a bot's sandbox arms its own parent-death
signal a few milliseconds into bwrap's set-up, so an arena killed in that window leaves the init
behind, blocked for good on a word from its dead parent or running the bot unwatched (bubblewrap
issue #633; seen here in four of ten kills that land while bots start). Each arena process that
starts bots by exec starts one watchdog (`arena.process.lifecycle.watchdog`): it holds the read end of a
pipe whose write end only that arena process holds, and learns each throw-away uid the arena
hands out. When the pipe ends, the arena has exited, however it did: the watchdog kills every
process that carries the arena's bot tag or runs as one of its uids, and exits. An arena that
exits normally has killed its bots already, and the watchdog finds nothing.

Runs as `python -I -S watchdog.py NEEDLE [FREEZER]` (NEEDLE: "ZWICKER_ARENA_BOT=<arena id>/";
FREEZER: the arena's v1 freezer group, whose frozen bots it thaws first, since a process in a
frozen v1 group does not die of SIGKILL until thawed), the pipe as its stdin: the standard
library only, no arena imports, and fast to start.
"""

from __future__ import annotations

import os
import select
import signal
import sys

ROUNDS = 1000  # a round kills all it finds; a bot's process limit keeps the rounds few
SETTLE_S = 0.02  # a scan that found nothing is repeated once after this long


def listen(fd: int = 0) -> set[int]:
    """The uids the arena reports ("uid N" lines) until the pipe ends."""
    uids: set[int] = set()
    pending = b""
    while chunk := os.read(fd, 4096):
        *lines, pending = (pending + chunk).split(b"\n")
        for line in lines:
            if line.startswith(b"uid ") and line[4:].isdigit():
                uids.add(int(line[4:]))
    return uids


def leftovers(needle: bytes, uids: set[int]) -> list[int]:
    """Live processes, other than this one, carrying `needle` in their environment or running as
    one of `uids`."""
    found = []
    me = os.getpid()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/status", "rb") as f:
                status = f.read()
            if status[status.index(b"State:") + 6:].lstrip()[:1] in (b"Z", b"X"):
                continue  # dead already
            if int(status[status.index(b"Uid:") + 4:].split()[0]) in uids:
                found.append(int(name))
                continue
            with open(f"/proc/{name}/environ", "rb") as f:
                environ = f.read()
        except (OSError, ValueError):
            continue  # gone meanwhile, or not ours to read
        if any(var.startswith(needle) for var in environ.split(b"\0")):
            found.append(int(name))
    return found


def sweep(needle: bytes, uids: set[int]) -> int:
    """SIGKILL the leftovers until a scan, repeated after a moment, finds none; returns how many."""
    killed = 0
    quiet = 0
    for _ in range(ROUNDS):
        pidfds = []
        for pid in leftovers(needle, uids):
            try:
                pidfd = os.pidfd_open(pid)
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
            except OSError:
                continue
            pidfds.append(pidfd)
        killed += len(pidfds)
        for pidfd in pidfds:  # each is readable once its process has exited
            select.select([pidfd], [], [], 5)
            os.close(pidfd)
        if pidfds:
            quiet = 0
            continue
        quiet += 1
        if quiet == 2:
            break
        select.select([], [], [], SETTLE_S)  # a process caught mid-exec shows no environment yet
    return killed


def thaw(freezer: str) -> None:
    """Thaw every bot group in the arena's freezer group `freezer`."""
    try:
        names = os.listdir(freezer)
    except OSError:
        return
    for name in names:
        try:
            with open(os.path.join(freezer, name, "freezer.state"), "w") as f:
                f.write("THAWED")
        except OSError:
            pass


def main() -> None:
    needle = os.fsencode(sys.argv[1])
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the arena's Ctrl-C is the arena's
    uids = listen()
    if len(sys.argv) > 2:
        thaw(sys.argv[2])
    sweep(needle, uids)


if __name__ == "__main__":
    main()
