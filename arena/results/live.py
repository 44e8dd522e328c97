"""The tables being played now, as the rooms publish them (arena.play.live writes the files).

Beside the database `arena.db`, a running tournament's rooms each keep one small JSON file in
`arena.db.live/<tournament id>/`: the public view of its table (no hand, no seed), rewritten as
the table plays and removed when the room ends. Nothing here writes but `clear`, which a run
calls when it starts (a killed run's rooms leave their files).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import sqlite_utils


def folder(db_path: str | os.PathLike[str], tid: int) -> Path:
    """Where tournament `tid`'s rooms publish their tables."""
    return Path(f"{db_path}.live") / str(tid)


def _db_file(db: sqlite_utils.Database) -> str | None:
    for _, name, file in db.execute("PRAGMA database_list"):
        if name == "main" and file:
            return file
    return None


def tables(db: sqlite_utils.Database, tid: int) -> list[dict]:
    """Every table of tournament `tid` published now, by match and room (a file half written or
    gone meanwhile is left out: the next look has it)."""
    path = _db_file(db)
    if path is None or not folder(path, tid).is_dir():
        return []
    out = []
    for f in sorted(folder(path, tid).glob("m*.json")):
        try:
            out.append(json.loads(f.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
    return sorted(out, key=lambda v: (v.get("match_no", 0), v.get("swapped", False)))


def table(db: sqlite_utils.Database, tid: int, match_no: int, swapped: bool) -> dict | None:
    """One room's published table, or None when it is not playing."""
    return next((v for v in tables(db, tid) if v.get("match_no") == match_no and v.get("swapped") == swapped), None)


def rooms(db: sqlite_utils.Database) -> tuple[str, ...]:
    """The rooms of every tournament publishing now, as `tid/file` names: a cheap listing that
    changes when a room starts or ends (not at every move)."""
    path = _db_file(db)
    top = Path(f"{path}.live") if path else None
    if top is None or not top.is_dir():
        return ()
    return tuple(sorted(f"{d.name}/{f.name}" for d in top.iterdir() if d.is_dir() for f in d.glob("m*.json")))


def clear(path: str | os.PathLike[str]) -> None:
    """Remove the published tables in the folder `path` (a tournament's, see `folder`)."""
    for f in Path(path).glob("m*.json*"):
        try:
            f.unlink()
        except OSError:
            pass
