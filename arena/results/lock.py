"""The run lock: one arena at a time plays a tournament.

A run holds an exclusive `flock` on `<db>.locks/<tournament id>` for as long as it plays. The
kernel drops the lock when the process ends however it ends (kill -9 included), so a lock is
never left behind, and a reader tells a live run from a dead one by trying the lock: a
tournament stored as `running` whose lock is free was interrupted. (flock, not fcntl record
locks: those belong to the process, and a reader's check in the running process would free it.)
"""

from __future__ import annotations

import fcntl
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arena.errors import ArenaError


PROBE_TRIES = 30
"""Tries, 10 ms apart, before a run counts its lock as held: a reader's check (a server's, every
second) holds it shared for microseconds, and must not turn a resume away."""


def _lock_file(db_path: Path, tid: int) -> Path:
    return Path(f"{db_path}.locks") / str(tid)


@contextmanager
def run_lock(db_path: Path | None, tid: int, name: str) -> Iterator[None]:
    """Hold the tournament's run lock, or refuse at once if another arena holds it."""
    if db_path is None:  # an in-memory database: no one else can see it
        yield
        return
    path = _lock_file(db_path, tid)
    path.parent.mkdir(exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        for attempt in range(PROBE_TRIES):
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if attempt + 1 < PROBE_TRIES:  # a reader's check (`is_running`) holds it for a moment
                    time.sleep(0.01)
                    continue
                holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "?"
                raise ArenaError(f"tournament '{name}' is being played by another arena (pid {holder}); "
                                 "wait for it, or stop it and run again to resume") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        yield
    finally:
        os.close(fd)  # releases the lock


def is_running(db_path: Path | None, tid: int) -> bool:
    """Whether an arena holds the tournament's run lock right now."""
    if db_path is None:
        return False
    try:
        fd = os.open(_lock_file(db_path, tid), os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
