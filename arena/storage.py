"""The arena's SQLite database: the one module that knows the schema.

Everything a tournament produces is written here and every report reads it back from here.
The schema is created and migrated on open (ordered migrations recorded by sqlite-utils'
`Migrations` in `_sqlite_migrations`, set "zwicker-arena"); WAL is switched on once, when the file
is created. A table (one board played at one of its two tables) is written in one transaction
together with its seats and deals, and the board row appears in that same transaction when the
second table of the board lands, so a reader never sees half a table or a board counted once.

Choices the issue left open:
- Seeds are stored as decimal TEXT: they range up to 2**64, beyond SQLite's signed INTEGER.
- Recording the same table twice raises `TableAlreadyRecorded`; the runner skips what
  `done_tables` lists, so a second write is a bug, never a silent no-op.
- Bot copies live beside the database in `bots/<sha256>/<file or folder name>`; the path is
  stored relative to the database's folder so the results folder can move.
- `synchronous=NORMAL` with WAL: a commit survives the arena being killed (the resume case);
  only a power cut can lose the last commits, and then whole tables at once, never half of one.
"""

from __future__ import annotations

import csv
import datetime
import functools
import hashlib
import io
import json
import os
import re
import shutil
import sqlite3
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import sqlite_utils
from sqlite_utils.migrations import Migrations

from arena import ratings as _ratings
from arena.errors import SEAT_STATUSES, ArenaError

DEFAULT_DB = Path("results") / "arena.db"
MIGRATION_SET = "zwicker-arena"
STATUSES = ("created", "running", "interrupted", "finished", "failed")
FORMATS = ("deal", "game")
PARTNERS = ("clone", "mixed")
BUSY_TIMEOUT_MS = 30_000
BT_METHOD = "bradley-terry-mle"
SEQ_METHOD = "elo-sequential"
_SQLITE_MAGIC = b"SQLite format 3\x00"
_BOT_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
_IGNORED = ("__pycache__", ".git", ".pytest_cache", ".mypy_cache", ".DS_Store")


class TableAlreadyRecorded(ArenaError):
    """The same (match, board, swapped) table was recorded twice; the first write stands."""


# --------------------------------------------------------------------------------------------
# Schema

migrations = Migrations(MIGRATION_SET)


@migrations(name="0001_initial")
def _m0001_initial(db: sqlite_utils.Database) -> None:
    db.executescript(
        """
        CREATE TABLE bots (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            version INTEGER NOT NULL,          -- 1, 2, ... per name; new content, new version
            command TEXT,                      -- how to run it; NULL: the runner decides by path
            path TEXT NOT NULL,                -- the stored copy (relative to the db's folder)
            kind TEXT NOT NULL CHECK (kind IN ('file', 'folder')),
            source TEXT NOT NULL,              -- where it was added from
            sha256 TEXT NOT NULL,
            added TEXT NOT NULL,
            UNIQUE (name, version),
            UNIQUE (name, sha256)
        );
        CREATE TABLE tournaments (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            seed TEXT NOT NULL,                -- master seed, decimal (up to 2**64 - 1)
            variant TEXT NOT NULL,             -- JSON: preset and every option
            format TEXT NOT NULL CHECK (format IN ('deal', 'game')),
            partners TEXT NOT NULL CHECK (partners IN ('clone', 'mixed')),
            boards INTEGER NOT NULL,           -- boards per match
            settings TEXT NOT NULL,            -- JSON: time limits, concurrency, gauntlet, ...
            status TEXT NOT NULL,
            created TEXT NOT NULL,
            started TEXT,
            finished TEXT
        );
        CREATE TABLE tournament_bots (
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            bot_id INTEGER NOT NULL REFERENCES bots(id),
            PRIMARY KEY (tournament_id, bot_id)
        );
        CREATE TABLE matches (
            id INTEGER PRIMARY KEY,
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            match_no INTEGER NOT NULL,
            a0 INTEGER NOT NULL REFERENCES bots(id),   -- team A, its two seats
            a1 INTEGER NOT NULL REFERENCES bots(id),
            b0 INTEGER NOT NULL REFERENCES bots(id),   -- team B
            b1 INTEGER NOT NULL REFERENCES bots(id),
            UNIQUE (tournament_id, match_no)
        );
        CREATE TABLE boards (
            id INTEGER PRIMARY KEY,
            match_id INTEGER NOT NULL REFERENCES matches(id),
            board_no INTEGER NOT NULL,
            seed TEXT NOT NULL,
            margin INTEGER NOT NULL,           -- team A's points minus team B's, both tables
            outcome TEXT NOT NULL CHECK (outcome IN ('win', 'draw', 'loss')),  -- for team A
            completed TEXT NOT NULL,
            UNIQUE (match_id, board_no)
        );
        CREATE TABLE tables (
            id INTEGER PRIMARY KEY,
            match_id INTEGER NOT NULL REFERENCES matches(id),
            board_no INTEGER NOT NULL,
            swapped INTEGER NOT NULL CHECK (swapped IN (0, 1)),  -- 1: team A holds side 1
            board_seed TEXT NOT NULL,
            points0 INTEGER NOT NULL,          -- side 0, forfeit applied
            points1 INTEGER NOT NULL,
            forfeit TEXT,                      -- JSON {side, seat, status, detail} or NULL
            started TEXT NOT NULL,
            duration_s REAL NOT NULL,
            UNIQUE (match_id, board_no, swapped)
        );
        CREATE TABLE seats (
            id INTEGER PRIMARY KEY,
            table_id INTEGER NOT NULL REFERENCES tables(id),
            seat INTEGER NOT NULL,
            bot_id INTEGER NOT NULL REFERENCES bots(id),
            name TEXT,                         -- as the bot announced itself in the handshake
            version TEXT,
            status TEXT NOT NULL,              -- ok, timeout, crash, illegal_move, protocol_error
            detail TEXT NOT NULL DEFAULT '',
            stderr TEXT NOT NULL DEFAULT '',   -- the tail only
            moves INTEGER NOT NULL DEFAULT 0,
            think_ms_total REAL NOT NULL DEFAULT 0,
            think_ms_max REAL NOT NULL DEFAULT 0,
            UNIQUE (table_id, seat)
        );
        CREATE INDEX seats_bot ON seats (bot_id);
        CREATE TABLE deals (
            id INTEGER PRIMARY KEY,
            table_id INTEGER NOT NULL REFERENCES tables(id),
            number INTEGER NOT NULL,
            seed TEXT NOT NULL,
            dealer INTEGER NOT NULL,
            points TEXT NOT NULL,              -- JSON, per side
            breakdown TEXT NOT NULL,           -- JSON, per side
            moves TEXT NOT NULL,               -- JSON [{"seat", "move", "ms"}], enough to replay
            complete INTEGER NOT NULL CHECK (complete IN (0, 1)),
            UNIQUE (table_id, number)
        );
        CREATE TABLE ratings (
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            bot_id INTEGER NOT NULL REFERENCES bots(id),
            method TEXT NOT NULL,
            elo REAL NOT NULL,
            ci_low REAL,
            ci_high REAL,
            los_next REAL,                     -- P(stronger than the next one down the table)
            boards INTEGER NOT NULL,           -- boards of the tournament the rating saw
            params TEXT NOT NULL,              -- JSON: k, bootstrap, seed, prior, anchor
            computed TEXT NOT NULL,
            PRIMARY KEY (tournament_id, method, bot_id)
        );
        CREATE TABLE rating_history (
            tournament_id INTEGER NOT NULL REFERENCES tournaments(id),
            seq INTEGER NOT NULL,              -- 1-based position of the board, canonical order
            board_id INTEGER NOT NULL REFERENCES boards(id),
            bot_id INTEGER NOT NULL REFERENCES bots(id),
            elo REAL NOT NULL,
            PRIMARY KEY (tournament_id, seq, bot_id)
        );
        """
    )


# --------------------------------------------------------------------------------------------
# Opening


def default_db_path() -> Path:
    """`ARENA_DB` when set, else results/arena.db (relative to the working folder)."""
    env = os.environ.get("ARENA_DB")
    return Path(env) if env else DEFAULT_DB


def open_db(path: str | os.PathLike[str] | None = None, *, create: bool = True) -> sqlite_utils.Database:
    """Open (and create or migrate) the arena database, refusing any file that is not ours."""
    path = Path(path) if path is not None else default_db_path()
    exists = path.exists()
    if exists and path.is_dir():
        raise ArenaError(f"{path} is a folder, not an arena database")
    if not exists and not create:
        raise ArenaError(f"no arena database at {path} (run a tournament or `arena bot add` first)")
    fresh = not exists or path.stat().st_size == 0
    if not fresh:
        with open(path, "rb") as f:
            if f.read(16) != _SQLITE_MAGIC:
                raise ArenaError(f"{path} is not an SQLite database")
    if not exists:
        path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite_utils.Database(path)
    try:
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            if not create:
                raise ArenaError(f"{path} is an empty SQLite database, not an arena database")
            db.enable_wal()
        elif Migrations.migrations_table not in tables or not migrations.applied(db):
            raise ArenaError(f"{path} is an SQLite database but not an arena database")
        known = {m.name for m in migrations._migrations}
        unknown = [m.name for m in migrations.applied(db) if m.name not in known]
        if unknown:
            raise ArenaError(f"{path} was written by a newer arena (migration {unknown[-1]})")
        db.execute("PRAGMA foreign_keys = ON")
        db.execute("PRAGMA synchronous = NORMAL")
        # One transaction around all of it (sqlite-utils creates its migrations table before the
        # first migration's own transaction): an arena killed while creating the database, or a
        # reader looking meanwhile, never sees a half-made schema.
        with db.atomic():
            migrations.apply(db)
    except sqlite3.DatabaseError as exc:
        db.close()
        raise ArenaError(f"{path} is corrupt or unreadable: {exc}") from None
    except BaseException:
        db.close()
        raise
    return db


def _db_folder(db: sqlite_utils.Database) -> Path:
    for _seq, name, file in db.execute("PRAGMA database_list"):
        if name == "main" and file:
            return Path(file).parent
    return Path.cwd()


def _now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")


def _dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=False)


# --------------------------------------------------------------------------------------------
# Bots


def _walk(folder: Path) -> list[tuple[str, Path]]:
    """Files of a bot folder in sorted order, caches and VCS folders left out."""
    found = []
    for root, dirs, files in os.walk(folder, followlinks=True):
        dirs[:] = sorted(d for d in dirs if d not in _IGNORED)
        for name in files:
            if name in _IGNORED or name.endswith(".pyc"):
                continue
            full = Path(root) / name
            found.append((full.relative_to(folder).as_posix(), full))
    return sorted(found)


def bot_sha256(path: str | os.PathLike[str]) -> str:
    """sha256 of a bot file, or of a folder's sorted (relative path, size, bytes) records."""
    path = Path(path)
    h = hashlib.sha256()
    if path.is_dir():
        for rel, full in _walk(path):
            data = full.read_bytes()
            h.update(rel.encode() + b"\0" + len(data).to_bytes(8, "big"))
            h.update(data)
    else:
        h.update(path.read_bytes())
    return h.hexdigest()


def _store_copy(source: Path, target_dir: Path) -> Path:
    """Copy into a content-addressed folder; a crash leaves no half copy (rename is atomic).

    The same content under another file name gets its own entry in the same folder.
    """
    target = target_dir / source.name
    if target.exists():
        return target
    target_dir.mkdir(parents=True, exist_ok=True)
    os.chmod(target_dir, 0o755)
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=target_dir.parent))
    try:
        if source.is_dir():
            shutil.copytree(source, tmp / source.name, ignore=shutil.ignore_patterns(*_IGNORED, "*.pyc"))
        else:
            shutil.copy2(source, tmp / source.name)
        _readable(tmp)  # sandboxed bots run as a user of their own: they must read their copy
        try:
            os.rename(tmp / source.name, target)
        except OSError:
            if not target.exists():  # someone else stored the same content meanwhile: fine
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


def _readable(root: Path) -> None:
    """Folders o+rx, files o+r (executables keep their x bits): nothing else of the copy changes."""
    for folder, _dirs, files in os.walk(root):
        os.chmod(folder, 0o755)
        for name in files:
            path = Path(folder, name)
            os.chmod(path, path.stat().st_mode | 0o444)


def _bot_row(db: sqlite_utils.Database, row: dict) -> dict:
    row = dict(row)
    row["path"] = str((_db_folder(db) / row["path"]).resolve())
    return row


def default_name(path: Path) -> str:
    """A bot is registered under its file's stem (or folder's name) without a `_bot` suffix:
    bots/random_bot.py is "random", the name that anchors the ratings."""
    stem = path.stem if path.is_file() else path.name
    for suffix in ("_bot", "-bot"):
        if stem.endswith(suffix) and len(stem) > len(suffix):
            return stem[: -len(suffix)]
    return stem


def add_bot(
    db: sqlite_utils.Database,
    path: str | os.PathLike[str],
    *,
    name: str | None = None,
    command: str | None = None,
    store_dir: str | os.PathLike[str] | None = None,
) -> dict:
    """Register a bot file or folder: same content again gives the existing version back."""
    source = Path(path)
    if not source.exists():
        raise ArenaError(f"no bot at {source}")
    name = name if name is not None else default_name(source)
    if not _BOT_NAME.match(name):
        raise ArenaError(
            f"bad bot name {name!r}: use letters, digits and . _ + - (start with a letter or digit)"
        )
    if name.isdigit():
        raise ArenaError(f"bad bot name {name!r}: a name of digits only reads as a bot id")
    sha = bot_sha256(source)
    existing = list(db.query("SELECT * FROM bots WHERE name = ? AND sha256 = ?", [name, sha]))
    if existing:
        return _bot_row(db, existing[0])
    folder = _db_folder(db)
    store = Path(store_dir) if store_dir is not None else folder / "bots"
    stored = _store_copy(source.resolve(), store / sha)
    try:
        rel = os.path.relpath(stored.resolve(), folder.resolve())
    except ValueError:  # another drive on Windows
        rel = str(stored.resolve())
    with db.atomic():
        version = db.execute("SELECT COALESCE(MAX(version), 0) + 1 FROM bots WHERE name = ?", [name]).fetchone()[0]
        bot_id = db.execute(
            "INSERT INTO bots (name, version, command, path, kind, source, sha256, added)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            [name, version, command, rel, "folder" if source.is_dir() else "file", str(source.resolve()), sha, _now()],
        ).lastrowid
    return get_bot(db, bot_id)


def list_bots(db: sqlite_utils.Database) -> list[dict]:
    """Every registered bot version, by name then version."""
    return [_bot_row(db, r) for r in db.query("SELECT * FROM bots ORDER BY name, version")]


def get_bot(db: sqlite_utils.Database, name_or_id: str | int, version: int | None = None) -> dict:
    """A bot by id, by name (latest version) or by "name@version"."""
    key = str(name_or_id)
    if isinstance(name_or_id, int) or key.isdigit():
        rows = list(db.query("SELECT * FROM bots WHERE id = ?", [int(key)]))
    else:
        if "@" in key and version is None:
            key, _, v = key.rpartition("@")
            if not v.isdigit():
                raise ArenaError(f"bad bot version in {name_or_id!r}: expected name@NUMBER")
            version = int(v)
        if version is None:
            rows = list(db.query("SELECT * FROM bots WHERE name = ? ORDER BY version DESC LIMIT 1", [key]))
        else:
            rows = list(db.query("SELECT * FROM bots WHERE name = ? AND version = ?", [key, version]))
    if not rows:
        known = [r[0] for r in db.execute("SELECT DISTINCT name FROM bots ORDER BY name")]
        what = f"{key}@{version}" if version is not None else key
        raise ArenaError(f"unknown bot '{what}' (known: {', '.join(known) or 'none yet'})")
    return _bot_row(db, rows[0])


# --------------------------------------------------------------------------------------------
# Tournaments


def _tournament_row(row: dict) -> dict:
    row = dict(row)
    row["seed"] = int(row["seed"])
    row["variant"] = json.loads(row["variant"])
    row["settings"] = json.loads(row["settings"])
    return row


def create_tournament(
    db: sqlite_utils.Database,
    name: str,
    *,
    seed: int,
    variant: dict,
    format: str,
    partners: str,
    boards: int,
    settings: dict,
    bot_ids: Iterable[int],
    matches: list[tuple[list[int], list[int]]],
) -> int:
    """Store a tournament and its schedule (match k is `matches[k - 1]`, team A then team B)."""
    if not name or not name.strip():
        raise ArenaError("a tournament needs a name")
    if not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ArenaError(f"seed must be an integer in 0 .. 2**64-1, got {seed!r}")
    if format not in FORMATS:
        raise ArenaError(f"unknown format {format!r} (known: {', '.join(FORMATS)})")
    if partners not in PARTNERS:
        raise ArenaError(f"unknown partners {partners!r} (known: {', '.join(PARTNERS)})")
    if not isinstance(boards, int) or boards < 1:
        raise ArenaError(f"boards per match must be at least 1, got {boards!r}")
    bot_ids = list(dict.fromkeys(bot_ids))
    known = {r[0] for r in db.execute("SELECT id FROM bots")}
    if set(bot_ids) - known:
        raise ArenaError(f"unknown bot ids {sorted(set(bot_ids) - known)}")
    for team_a, team_b in matches:
        if len(team_a) != 2 or len(team_b) != 2:
            raise ArenaError(f"a match is two teams of two seat-bots, got {team_a} v {team_b}")
        if (set(team_a) | set(team_b)) - set(bot_ids):
            raise ArenaError(f"match {team_a} v {team_b} uses bots not in the tournament")
    if db["tournaments"].count_where("name = ?", [name]):
        raise ArenaError(f"tournament '{name}' already exists")
    with db.atomic():
        tid = db.execute(
            "INSERT INTO tournaments (name, seed, variant, format, partners, boards, settings,"
            " status, created) VALUES (?, ?, ?, ?, ?, ?, ?, 'created', ?)",
            [name, str(seed), _dumps(variant), format, partners, boards, _dumps(settings), _now()],
        ).lastrowid
        for bot_id in bot_ids:
            db.execute("INSERT INTO tournament_bots VALUES (?, ?)", [tid, bot_id])
        for match_no, (team_a, team_b) in enumerate(matches, start=1):
            db.execute(
                "INSERT INTO matches (tournament_id, match_no, a0, a1, b0, b1) VALUES (?, ?, ?, ?, ?, ?)",
                [tid, match_no, *team_a, *team_b],
            )
    return tid


def _known_tournaments(db: sqlite_utils.Database) -> str:
    names = [r[0] for r in db.execute("SELECT name FROM tournaments ORDER BY id")]
    return ", ".join(names) or "none yet"


def get_tournament(db: sqlite_utils.Database, name: str | int | None = None) -> dict:
    """A tournament by name or id; None means the latest one. Progress counts included."""
    if name is None:
        rows = list(db.query("SELECT * FROM tournaments ORDER BY id DESC LIMIT 1"))
        if not rows:
            raise ArenaError("no tournaments in this database yet")
    elif isinstance(name, int):
        rows = list(db.query("SELECT * FROM tournaments WHERE id = ?", [name]))
    else:
        rows = list(db.query("SELECT * FROM tournaments WHERE name = ?", [name]))
    if not rows:
        raise ArenaError(f"unknown tournament '{name}' (known: {_known_tournaments(db)})")
    t = _tournament_row(rows[0])
    tid = t["id"]
    t["bots"] = [
        dict(r)
        for r in db.query(
            "SELECT b.id, b.name, b.version FROM tournament_bots tb JOIN bots b ON b.id = tb.bot_id"
            " WHERE tb.tournament_id = ? ORDER BY b.name, b.version",
            [tid],
        )
    ]
    (t["matches"],) = db.execute("SELECT COUNT(*) FROM matches WHERE tournament_id = ?", [tid]).fetchone()
    t["boards_total"] = t["matches"] * t["boards"]
    (t["boards_done"],) = db.execute(
        "SELECT COUNT(*) FROM boards JOIN matches m ON m.id = boards.match_id WHERE m.tournament_id = ?", [tid]
    ).fetchone()
    (t["tables_done"],) = db.execute(
        "SELECT COUNT(*) FROM tables JOIN matches m ON m.id = tables.match_id WHERE m.tournament_id = ?", [tid]
    ).fetchone()
    return t


def list_tournaments(db: sqlite_utils.Database) -> list[dict]:
    """Every tournament, oldest first, with its progress."""
    ids = [r[0] for r in db.execute("SELECT id FROM tournaments ORDER BY id")]
    return [get_tournament(db, tid) for tid in ids]


def set_status(db: sqlite_utils.Database, tid: int, status: str) -> None:
    """Move a tournament to `status`; the first `running` stamps started, `finished` finished."""
    if status not in STATUSES:
        raise ArenaError(f"unknown tournament status {status!r} (known: {', '.join(STATUSES)})")
    with db.atomic():
        cur = db.execute("UPDATE tournaments SET status = ? WHERE id = ?", [status, tid])
        if cur.rowcount == 0:
            raise ArenaError(f"unknown tournament id {tid}")
        if status == "running":
            db.execute("UPDATE tournaments SET started = ? WHERE id = ? AND started IS NULL", [_now(), tid])
        if status == "finished":
            db.execute("UPDATE tournaments SET finished = ? WHERE id = ?", [_now(), tid])


def note_sandbox(db: sqlite_utils.Database, tid: int, mode: str) -> None:
    """Record that a run of the tournament plays under sandbox `mode`: settings["sandbox"] stays
    the first run's, settings["sandboxes"] lists every mode it was played under, in order."""
    with db.atomic():
        row = db.execute("SELECT settings FROM tournaments WHERE id = ?", [tid]).fetchone()
        if row is None:
            raise ArenaError(f"unknown tournament id {tid}")
        settings = json.loads(row[0])
        used = list(settings.get("sandboxes") or [settings.get("sandbox", mode)])
        if mode not in used:
            used.append(mode)
        if used != settings.get("sandboxes"):
            settings["sandboxes"] = used
            db.execute("UPDATE tournaments SET settings = ? WHERE id = ?", [_dumps(settings), tid])


# --------------------------------------------------------------------------------------------
# Writing results


def seat_bots(team_a: list[int], team_b: list[int], swapped: bool, players: int = 4) -> list[int]:
    """The bot at each seat: sides alternate round the table (seat % 2), team A holds side 0
    unless swapped, and a team's k-th seat on its side is `team[k % 2]`. record_table accepts
    any layout that keeps each side's seats within its team; this is the canonical one."""
    a_side = 1 if swapped else 0
    return [(team_a if seat % 2 == a_side else team_b)[(seat // 2) % 2] for seat in range(players)]


def schedule(db: sqlite_utils.Database, tid: int) -> list[dict]:
    """The stored matches of a tournament in order: match_no, team_a, team_b (bot ids)."""
    return [
        {"match_no": r[0], "team_a": [r[1], r[2]], "team_b": [r[3], r[4]]}
        for r in db.execute(
            "SELECT match_no, a0, a1, b0, b1 FROM matches WHERE tournament_id = ? ORDER BY match_no", [tid]
        )
    ]


def _match(db: sqlite_utils.Database, tid: int, match_no: int) -> dict:
    rows = list(db.query("SELECT * FROM matches WHERE tournament_id = ? AND match_no = ?", [tid, match_no]))
    if not rows:
        raise ArenaError(f"tournament {tid} has no match {match_no}")
    return rows[0]


def _check_table(match: dict, swapped: bool, table: dict) -> None:
    """Reject a table dict that would corrupt the results (a runner bug, said plainly)."""
    points = table["points"]
    if len(points) != 2:
        raise ValueError(f"a table has two sides, got points {points!r}")
    team_a = {match["a0"], match["a1"]}
    team_b = {match["b0"], match["b1"]}
    a_side = 1 if swapped else 0
    seen = set()
    for s in table["seats"]:
        seat = s["seat"]
        if seat in seen:
            raise ValueError(f"seat {seat} appears twice")
        seen.add(seat)
        if s["status"] not in SEAT_STATUSES:
            raise ValueError(f"unknown seat status {s['status']!r}")
        team = team_a if seat % 2 == a_side else team_b
        if s["bot_id"] not in team:
            raise ValueError(
                f"seat {seat} holds bot {s['bot_id']}, but that side belongs to bots {sorted(team)}"
                f" (match {match['match_no']}, swapped={swapped})"
            )
    forfeit = table.get("forfeit")
    if forfeit is not None and forfeit.get("side") not in (0, 1):
        raise ValueError(f"forfeit side must be 0 or 1, got {forfeit!r}")


def record_table(
    db: sqlite_utils.Database,
    tid: int,
    match_no: int,
    board_no: int,
    swapped: bool,
    board_seed: int,
    table: dict,
) -> int:
    """Write one played table (seats, deals) in one transaction; complete its board if due.

    Returns the table's id. Raises `TableAlreadyRecorded` when this table is already stored.
    """
    match = _match(db, tid, match_no)
    _check_table(match, swapped, table)
    p0, p1 = table["points"]
    try:
        with db.atomic():
            table_id = db.execute(
                "INSERT INTO tables (match_id, board_no, swapped, board_seed, points0, points1,"
                " forfeit, started, duration_s) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    match["id"], board_no, int(bool(swapped)), str(board_seed), p0, p1,
                    None if table.get("forfeit") is None else _dumps(table["forfeit"]),
                    table["started"], float(table["duration_s"]),
                ],
            ).lastrowid
            db.conn.executemany(
                "INSERT INTO seats (table_id, seat, bot_id, name, version, status, detail, stderr,"
                " moves, think_ms_total, think_ms_max) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        table_id, s["seat"], s["bot_id"], s.get("name"),
                        None if s.get("version") is None else str(s["version"]),
                        s["status"], s.get("detail") or "", s.get("stderr") or "",
                        int(s.get("moves", 0)), float(s.get("think_ms_total", 0.0)),
                        float(s.get("think_ms_max", 0.0)),
                    )
                    for s in table["seats"]
                ],
            )
            db.conn.executemany(
                "INSERT INTO deals (table_id, number, seed, dealer, points, breakdown, moves, complete)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        table_id, d["number"], str(d["seed"]), d["dealer"], _dumps(d["points"]),
                        _dumps(d.get("breakdown", [])), _dumps(d["moves"]), int(bool(d.get("complete", True))),
                    )
                    for d in table["deals"]
                ],
            )
            _complete_board(db, match["id"], board_no)
    except sqlite3.IntegrityError as exc:
        if db.execute(
            "SELECT 1 FROM tables WHERE match_id = ? AND board_no = ? AND swapped = ?",
            [match["id"], board_no, int(bool(swapped))],
        ).fetchone():
            raise TableAlreadyRecorded(
                f"table already recorded: match {match_no}, board {board_no}, swapped={bool(swapped)}"
            ) from None
        raise ValueError(f"table rejected by the database: {exc}") from None
    return table_id


def _complete_board(db: sqlite_utils.Database, match_id: int, board_no: int) -> None:
    """Inside record_table's transaction: once both tables are in, write the board's result."""
    rows = db.execute(
        "SELECT swapped, points0, points1, board_seed FROM tables WHERE match_id = ? AND board_no = ?",
        [match_id, board_no],
    ).fetchall()
    if len(rows) < 2:
        return
    seeds = {r[3] for r in rows}
    if len(seeds) != 1:
        raise ValueError(f"the two tables of board {board_no} were played with different seeds {sorted(seeds)}")
    margin = 0
    for swapped, p0, p1, _seed in rows:
        margin += (p1 - p0) if swapped else (p0 - p1)
    outcome = "win" if margin > 0 else "loss" if margin < 0 else "draw"
    db.execute(
        "INSERT INTO boards (match_id, board_no, seed, margin, outcome, completed) VALUES (?, ?, ?, ?, ?, ?)",
        [match_id, board_no, rows[0][3], margin, outcome, _now()],
    )


def done_tables(db: sqlite_utils.Database, tid: int) -> set[tuple[int, int, bool]]:
    """(match_no, board_no, swapped) of every table already stored: the runner skips these."""
    return {
        (match_no, board_no, bool(swapped))
        for match_no, board_no, swapped in db.execute(
            "SELECT m.match_no, t.board_no, t.swapped FROM tables t JOIN matches m ON m.id = t.match_id"
            " WHERE m.tournament_id = ?",
            [tid],
        )
    }


def board_results(db: sqlite_utils.Database, tid: int) -> list[dict]:
    """Finished boards in canonical order (match_no, board_no), with both teams' bot ids."""
    return [
        {
            "board_id": r["id"], "match_no": r["match_no"], "board_no": r["board_no"], "seed": int(r["seed"]),
            "team_a": [r["a0"], r["a1"]], "team_b": [r["b0"], r["b1"]],
            "margin": r["margin"], "outcome": r["outcome"],
        }
        for r in db.query(
            "SELECT b.id, m.match_no, b.board_no, b.seed, m.a0, m.a1, m.b0, m.b1, b.margin, b.outcome"
            " FROM boards b JOIN matches m ON m.id = b.match_id WHERE m.tournament_id = ?"
            " ORDER BY m.match_no, b.board_no",
            [tid],
        )
    ]


# --------------------------------------------------------------------------------------------
# Ratings (the pure maths is in arena.ratings)

_SCORE = {"win": 1.0, "draw": 0.5, "loss": 0.0}


BUNDLED_RANDOM = Path(__file__).resolve().parents[1] / "bots" / "random_bot.py"


@functools.cache
def _bundled_random_sha256() -> str | None:
    try:
        return bot_sha256(BUNDLED_RANDOM)
    except OSError:
        return None


def _anchor_bot(db: sqlite_utils.Database, tid: int) -> int | None:
    """The bundled random bot (named "random") anchors the scale when it takes part: the
    "random" whose file is the bundled bots/random_bot.py, else the latest "random" (others may
    share the name: a random_bot.cjs registered by its path is "random" too)."""
    rows = db.execute(
        "SELECT b.id, b.sha256 FROM tournament_bots tb JOIN bots b ON b.id = tb.bot_id"
        " WHERE tb.tournament_id = ? AND b.name = 'random' ORDER BY b.version DESC",
        [tid],
    ).fetchall()
    if not rows:
        return None
    bundled = _bundled_random_sha256()
    return next((bot_id for bot_id, sha in rows if sha == bundled), rows[0][0])


BOOTSTRAP = 1000
"""Resamples behind the headline rating's intervals (and the likelihood of superiority)."""


def rating_inputs(db: sqlite_utils.Database, tid: int) -> dict:
    """What the ratings are computed from: the finished boards, the bots, the anchor bot."""
    boards = board_results(db, tid)
    bots = [r[0] for r in db.execute("SELECT bot_id FROM tournament_bots WHERE tournament_id = ? ORDER BY bot_id", [tid])]
    results = [_ratings.BoardResult(tuple(b["team_a"]), tuple(b["team_b"]), _SCORE[b["outcome"]]) for b in boards]
    return {"boards": boards, "bots": bots, "results": results, "anchor": _anchor_bot(db, tid)}


def compute_ratings(db: sqlite_utils.Database, tid: int, *, k: float = 16, bootstrap: int = BOOTSTRAP, seed: int = 0,
                    samples: list[list[float]] | None = None, inputs: dict | None = None) -> dict:
    """Both ratings of a tournament from its finished boards, without writing anything
    (`samples`: the bootstrap's fits, if made already, see `ratings.bootstrap_samples`, from
    `inputs`, the `rating_inputs` they were made from)."""
    r = inputs if inputs is not None else rating_inputs(db, tid)
    headline = _ratings.bradley_terry(r["results"], r["bots"], anchor=r["anchor"], bootstrap=bootstrap, seed=seed,
                                      samples=samples)
    final, history = _ratings.sequential_elo(r["results"], r["bots"], k=k)
    return {"boards": r["boards"], "bots": r["bots"], "anchor": r["anchor"], "headline": headline,
            "sequential": final, "history": history, "k": k}


def compute_and_store_ratings(
    db: sqlite_utils.Database, tid: int, *, k: float = 16, bootstrap: int = BOOTSTRAP, seed: int = 0,
    samples: list[list[float]] | None = None, inputs: dict | None = None,
) -> list[dict]:
    """Recompute both ratings from all finished boards and replace the stored ones atomically.

    Cheap enough to call after each batch of boards (pass a smaller `bootstrap` for progress).
    Returns the headline rows, strongest first.
    """
    r = compute_ratings(db, tid, k=k, bootstrap=bootstrap, seed=seed, samples=samples, inputs=inputs)
    headline: list[_ratings.Rating] = r["headline"]
    n = len(r["boards"])
    now = _now()
    bt_params = _dumps({
        "bootstrap": bootstrap, "seed": seed, "anchor_bot_id": r["anchor"],
        "draws": "half a win", "prior": "one virtual draw against a 0-rated opponent",
    })
    with db.atomic():
        db.execute("DELETE FROM ratings WHERE tournament_id = ?", [tid])
        db.execute("DELETE FROM rating_history WHERE tournament_id = ?", [tid])
        db.conn.executemany(
            "INSERT INTO ratings (tournament_id, bot_id, method, elo, ci_low, ci_high, los_next, boards,"
            " params, computed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(tid, h.bot, BT_METHOD, h.elo, h.ci_low, h.ci_high, h.los_next, n, bt_params, now) for h in headline]
            + [
                (tid, bot, SEQ_METHOD, elo, None, None, None, n, _dumps({"k": k, "start": 0.0}), now)
                for bot, elo in r["sequential"].items()
            ],
        )
        db.conn.executemany(
            "INSERT INTO rating_history (tournament_id, seq, board_id, bot_id, elo) VALUES (?, ?, ?, ?, ?)",
            [
                (tid, seq, r["boards"][seq - 1]["board_id"], bot, elo)
                for seq, after in enumerate(r["history"], start=1)
                for bot, elo in after.items()
            ],
        )
    return [
        {"bot_id": h.bot, "elo": h.elo, "ci_low": h.ci_low, "ci_high": h.ci_high, "los_next": h.los_next}
        for h in headline
    ]


def rating_history(db: sqlite_utils.Database, tid: int) -> list[dict]:
    """The stored sequential Elo after each board: rows of seq, board_id, bot, elo."""
    return [
        dict(r)
        for r in db.query(
            "SELECT h.seq, h.board_id, h.bot_id, b.name || '@' || b.version AS bot, h.elo"
            " FROM rating_history h JOIN bots b ON b.id = h.bot_id WHERE h.tournament_id = ? ORDER BY h.seq, h.bot_id",
            [tid],
        )
    ]


# --------------------------------------------------------------------------------------------
# Reading results


def _bot_labels(db: sqlite_utils.Database, tid: int) -> dict[int, str]:
    """Display names: the bare name, or name@version when two versions share a tournament."""
    rows = db.execute(
        "SELECT b.id, b.name, b.version FROM tournament_bots tb JOIN bots b ON b.id = tb.bot_id"
        " WHERE tb.tournament_id = ?",
        [tid],
    ).fetchall()
    counts: dict[str, int] = {}
    for _id, name, _v in rows:
        counts[name] = counts.get(name, 0) + 1
    return {bid: name if counts[name] == 1 else f"{name}@{v}" for bid, name, v in rows}


def _faults(db: sqlite_utils.Database, tid: int) -> dict[int, tuple[int, int]]:
    """Per bot: (tables it sat at, tables where it faulted)."""
    return {
        bot: (tables, faults)
        for bot, tables, faults in db.execute(
            "SELECT bot_id, COUNT(*), SUM(faulted) FROM ("
            "  SELECT s.bot_id, s.table_id, MAX(s.status != 'ok') AS faulted FROM seats s"
            "  JOIN tables t ON t.id = s.table_id JOIN matches m ON m.id = t.match_id"
            "  WHERE m.tournament_id = ? GROUP BY s.bot_id, s.table_id"
            ") GROUP BY bot_id",
            [tid],
        )
    }


def _stored_ratings(db: sqlite_utils.Database, tid: int) -> dict[int, dict] | None:
    """The stored headline ratings, or None when missing or older than the last board."""
    rows = list(db.query("SELECT * FROM ratings WHERE tournament_id = ? AND method = ?", [tid, BT_METHOD]))
    (n,) = db.execute(
        "SELECT COUNT(*) FROM boards b JOIN matches m ON m.id = b.match_id WHERE m.tournament_id = ?", [tid]
    ).fetchone()
    if not rows or any(r["boards"] != n for r in rows):
        return None
    return {r["bot_id"]: r for r in rows}


def standings(db: sqlite_utils.Database, tid: int) -> list[dict]:
    """The table: rank, bot, Elo with its 95% interval, boards, W/D/L, margin, faults.

    Uses the stored ratings when they are up to date; otherwise computes them (not stored).
    """
    rated = _stored_ratings(db, tid)
    if rated is None:
        headline = compute_ratings(db, tid)["headline"]
        rated = {
            h.bot: {"elo": h.elo, "ci_low": h.ci_low, "ci_high": h.ci_high, "los_next": h.los_next}
            for h in headline
        }
    labels = _bot_labels(db, tid)
    stats = {bot: {"boards": 0, "wins": 0, "draws": 0, "losses": 0, "margin": 0} for bot in labels}
    for b in board_results(db, tid):
        a, bb = set(b["team_a"]), set(b["team_b"])
        for team, sign in ((a - bb, 1), (bb - a, -1)):
            for bot in team:
                s = stats[bot]
                s["boards"] += 1
                s["margin"] += sign * b["margin"]
                result = b["outcome"] if sign == 1 else {"win": "loss", "loss": "win", "draw": "draw"}[b["outcome"]]
                s[{"win": "wins", "draw": "draws", "loss": "losses"}[result]] += 1
    faults = _faults(db, tid)
    rows = []
    for bot, label in labels.items():
        s = stats[bot]
        r = rated.get(bot, {"elo": 0.0, "ci_low": None, "ci_high": None, "los_next": None})
        tables, faulted = faults.get(bot, (0, 0))
        rows.append({
            "bot": label, "bot_id": bot, "elo": r["elo"], "ci_low": r["ci_low"], "ci_high": r["ci_high"],
            "los_next": r["los_next"], "boards": s["boards"], "wins": s["wins"], "draws": s["draws"],
            "losses": s["losses"], "avg_margin": s["margin"] / s["boards"] if s["boards"] else 0.0,
            "tables": tables, "faults": faulted, "fault_flag": tables > 0 and faulted > 0.1 * tables,
        })
    rows.sort(key=lambda r: (-r["elo"], str(r["bot_id"])))  # the ratings' order, so LOS is the next row
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    return [{"rank": r.pop("rank"), **r} for r in rows]


def crosstable(db: sqlite_utils.Database, tid: int) -> dict:
    """Head-to-head results between every two bots (in standings order), from the row's view.

    With mixed partnerships every member of one team meets every member of the other on a board.
    """
    order = [r["bot_id"] for r in standings(db, tid)]
    labels = _bot_labels(db, tid)
    cells: dict[tuple[int, int], dict] = {}
    for b in board_results(db, tid):
        a, bb = set(b["team_a"]), set(b["team_b"])
        for x in a - bb:
            for y in bb - a:
                for row, col, sign in ((x, y, 1), (y, x, -1)):
                    c = cells.setdefault((row, col), {"boards": 0, "wins": 0, "draws": 0, "losses": 0, "margin": 0})
                    c["boards"] += 1
                    c["margin"] += sign * b["margin"]
                    res = b["outcome"] if sign == 1 else {"win": "loss", "loss": "win", "draw": "draw"}[b["outcome"]]
                    c[{"win": "wins", "draw": "draws", "loss": "losses"}[res]] += 1
    for c in cells.values():
        c["score"] = c["wins"] + c["draws"] / 2
    return {
        "bots": [labels[b] for b in order],
        "rows": [
            {"bot": labels[x], "results": {labels[y]: cells[(x, y)] for y in order if (x, y) in cells}}
            for x in order
        ],
    }


def matches(db: sqlite_utils.Database, tid: int, bot: str | None = None) -> list[dict]:
    """Every match with both teams, boards done and team A's W/D/L and margin; `bot` filters."""
    labels = _bot_labels(db, tid)
    bot_id = None
    if bot is not None:
        by_label = {v: k for k, v in labels.items()}
        if bot in by_label:
            bot_id = by_label[bot]
        else:
            candidates = [k for k, v in labels.items() if v.split("@")[0] == bot]
            if len(candidates) != 1:
                raise ArenaError(
                    f"unknown bot '{bot}' in this tournament (known: {', '.join(sorted(labels.values()))})"
                )
            bot_id = candidates[0]
    per_board = int(db.execute("SELECT boards FROM tournaments WHERE id = ?", [tid]).fetchone()[0])
    faults = {
        match_id: n
        for match_id, n in db.execute(
            "SELECT t.match_id, COUNT(*) FROM seats s JOIN tables t ON t.id = s.table_id"
            " JOIN matches m ON m.id = t.match_id WHERE m.tournament_id = ? AND s.status != 'ok' GROUP BY t.match_id",
            [tid],
        )
    }
    out = []
    for m in db.query(
        "SELECT m.*, COUNT(b.id) AS boards_done, COALESCE(SUM(b.outcome = 'win'), 0) AS wins,"
        " COALESCE(SUM(b.outcome = 'draw'), 0) AS draws, COALESCE(SUM(b.outcome = 'loss'), 0) AS losses,"
        " COALESCE(SUM(b.margin), 0) AS margin FROM matches m LEFT JOIN boards b ON b.match_id = m.id"
        " WHERE m.tournament_id = ? GROUP BY m.id ORDER BY m.match_no",
        [tid],
    ):
        members = {m["a0"], m["a1"], m["b0"], m["b1"]}
        if bot_id is not None and bot_id not in members:
            continue
        out.append({
            "match_no": m["match_no"],
            "team_a": [labels[m["a0"]], labels[m["a1"]]], "team_b": [labels[m["b0"]], labels[m["b1"]]],
            "boards": per_board, "boards_done": m["boards_done"],
            "wins": m["wins"], "draws": m["draws"], "losses": m["losses"], "margin": m["margin"],
            "faults": faults.get(m["id"], 0),
        })
    return out


def match_detail(db: sqlite_utils.Database, tid: int, match_no: int) -> dict:
    """One match, board by board, with each table's points, faults and deal ids (for replay)."""
    m = _match(db, tid, match_no)
    labels = _bot_labels(db, tid)
    boards = {r["board_no"]: r for r in db.query("SELECT * FROM boards WHERE match_id = ?", [m["id"]])}
    detail: dict[int, dict] = {}
    for t in db.query("SELECT * FROM tables WHERE match_id = ? ORDER BY board_no, swapped", [m["id"]]):
        b = detail.setdefault(t["board_no"], {
            "board_no": t["board_no"], "seed": int(t["board_seed"]),
            "margin": boards[t["board_no"]]["margin"] if t["board_no"] in boards else None,
            "outcome": boards[t["board_no"]]["outcome"] if t["board_no"] in boards else None,
            "tables": [],
        })
        seats = list(db.query("SELECT seat, bot_id, status, detail FROM seats WHERE table_id = ? ORDER BY seat", [t["id"]]))
        b["tables"].append({
            "table_id": t["id"], "swapped": bool(t["swapped"]), "points": [t["points0"], t["points1"]],
            "forfeit": None if t["forfeit"] is None else json.loads(t["forfeit"]),
            "seats": [labels[s["bot_id"]] for s in seats],
            "faults": [{"seat": s["seat"], "status": s["status"], "detail": s["detail"]} for s in seats if s["status"] != "ok"],
            "deal_ids": [r[0] for r in db.execute("SELECT id FROM deals WHERE table_id = ? ORDER BY number", [t["id"]])],
            "duration_s": t["duration_s"],
        })
    return {
        "match_no": match_no,
        "team_a": [labels[m["a0"]], labels[m["a1"]]], "team_b": [labels[m["b0"]], labels[m["b1"]]],
        "boards": [detail[k] for k in sorted(detail)],
    }


def get_deal(db: sqlite_utils.Database, deal_id: int) -> dict:
    """Everything needed to replay a stored deal: variant, seed, dealer, moves, seats, bots."""
    rows = list(db.query(
        "SELECT d.*, t.id AS table_id, t.board_no, t.swapped, t.points0, t.points1, t.forfeit,"
        " m.match_no, m.tournament_id, tn.name AS tournament, tn.variant, tn.format"
        " FROM deals d JOIN tables t ON t.id = d.table_id JOIN matches m ON m.id = t.match_id"
        " JOIN tournaments tn ON tn.id = m.tournament_id WHERE d.id = ?",
        [deal_id],
    ))
    if not rows:
        (top,) = db.execute("SELECT MAX(id) FROM deals").fetchone()
        known = f"deal ids run 1..{top}" if top else "no deals stored yet"
        raise ArenaError(f"unknown deal {deal_id} ({known})")
    d = rows[0]
    seats = [
        {
            "seat": s["seat"], "bot_id": s["bot_id"], "bot": s["bot"], "bot_version": s["bot_version"],
            "name": s["name"], "version": s["version"], "status": s["status"], "detail": s["detail"],
        }
        for s in db.query(
            "SELECT s.*, b.name AS bot, b.version AS bot_version FROM seats s JOIN bots b ON b.id = s.bot_id"
            " WHERE s.table_id = ? ORDER BY s.seat",
            [d["table_id"]],
        )
    ]
    return {
        "id": d["id"], "tournament": d["tournament"], "tournament_id": d["tournament_id"],
        "format": d["format"], "match_no": d["match_no"], "board_no": d["board_no"],
        "swapped": bool(d["swapped"]), "table_id": d["table_id"], "number": d["number"],
        "variant": json.loads(d["variant"]), "seed": int(d["seed"]), "dealer": d["dealer"],
        "points": json.loads(d["points"]), "breakdown": json.loads(d["breakdown"]),
        "moves": json.loads(d["moves"]), "complete": bool(d["complete"]), "seats": seats,
        "table_points": [d["points0"], d["points1"]],
        "forfeit": None if d["forfeit"] is None else json.loads(d["forfeit"]),
    }


# --------------------------------------------------------------------------------------------
# Export

EXPORT_COLUMNS = (
    "tournament", "match_no", "board_no", "swapped", "board_seed", "team_a", "team_b",
    "seat0", "seat1", "seat2", "seat3", "points0", "points1", "team_a_margin",
    "board_margin", "board_outcome", "forfeit_seat", "forfeit_status", "deals", "duration_s", "started",
)


def export_rows(db: sqlite_utils.Database, tid: int) -> Iterator[dict]:
    """One flat row per played table, in canonical order (the CSV export)."""
    t = get_tournament(db, tid)
    labels = _bot_labels(db, tid)
    for r in db.query(
        "SELECT t.*, m.match_no, m.a0, m.a1, m.b0, m.b1, b.margin AS board_margin, b.outcome,"
        " (SELECT COUNT(*) FROM deals d WHERE d.table_id = t.id) AS deals,"
        " (SELECT json_group_array(bot_id) FROM (SELECT bot_id FROM seats s WHERE s.table_id = t.id ORDER BY seat)) AS seat_bots"
        " FROM tables t JOIN matches m ON m.id = t.match_id"
        " LEFT JOIN boards b ON b.match_id = t.match_id AND b.board_no = t.board_no"
        " WHERE m.tournament_id = ? ORDER BY m.match_no, t.board_no, t.swapped",
        [tid],
    ):
        seat_bots = [labels[b] for b in json.loads(r["seat_bots"])]
        forfeit = json.loads(r["forfeit"]) if r["forfeit"] else {}
        a_side = 1 if r["swapped"] else 0
        points = [r["points0"], r["points1"]]
        row = {
            "tournament": t["name"], "match_no": r["match_no"], "board_no": r["board_no"],
            "swapped": int(r["swapped"]), "board_seed": r["board_seed"],
            "team_a": "+".join(labels[x] for x in (r["a0"], r["a1"])),
            "team_b": "+".join(labels[x] for x in (r["b0"], r["b1"])),
            "points0": r["points0"], "points1": r["points1"],
            "team_a_margin": points[a_side] - points[1 - a_side],
            "board_margin": r["board_margin"], "board_outcome": r["outcome"],
            "forfeit_seat": forfeit.get("seat"), "forfeit_status": forfeit.get("status"),
            "deals": r["deals"], "duration_s": r["duration_s"], "started": r["started"],
        }
        for i in range(4):
            row[f"seat{i}"] = seat_bots[i] if i < len(seat_bots) else None
        yield {c: row[c] for c in EXPORT_COLUMNS}


def export_csv(db: sqlite_utils.Database, tid: int) -> str:
    """The tables of a tournament as CSV text, a header line first."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=EXPORT_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in export_rows(db, tid):
        writer.writerow(row)
    return buf.getvalue()


def export_document(db: sqlite_utils.Database, tid: int) -> dict:
    """The whole tournament as one JSON-safe document: settings, bots, standings, every deal."""
    t = get_tournament(db, tid)
    labels = _bot_labels(db, tid)
    tables: list[dict] = []
    for tr in db.query(
        "SELECT t.*, m.match_no FROM tables t JOIN matches m ON m.id = t.match_id"
        " WHERE m.tournament_id = ? ORDER BY m.match_no, t.board_no, t.swapped",
        [tid],
    ):
        tables.append({
            "table_id": tr["id"], "match_no": tr["match_no"], "board_no": tr["board_no"],
            "swapped": bool(tr["swapped"]), "board_seed": tr["board_seed"],
            "points": [tr["points0"], tr["points1"]],
            "forfeit": json.loads(tr["forfeit"]) if tr["forfeit"] else None,
            "started": tr["started"], "duration_s": tr["duration_s"],
            "seats": [
                {**{k: s[k] for k in ("seat", "name", "version", "status", "detail", "stderr", "moves",
                                       "think_ms_total", "think_ms_max")}, "bot": labels[s["bot_id"]]}
                for s in db.query("SELECT * FROM seats WHERE table_id = ? ORDER BY seat", [tr["id"]])
            ],
            "deals": [
                {
                    "deal_id": d["id"], "number": d["number"], "seed": d["seed"], "dealer": d["dealer"],
                    "points": json.loads(d["points"]), "breakdown": json.loads(d["breakdown"]),
                    "moves": json.loads(d["moves"]), "complete": bool(d["complete"]),
                }
                for d in db.query("SELECT * FROM deals WHERE table_id = ? ORDER BY number", [tr["id"]])
            ],
        })
    t["seed"] = str(t["seed"])  # JSON readers lose precision on integers above 2**53
    return {
        "schema": 1,
        "tournament": t,
        "standings": standings(db, tid),
        "matches": matches(db, tid),
        "boards": [{**b, "seed": str(b["seed"]), "team_a": [labels[x] for x in b["team_a"]],
                    "team_b": [labels[x] for x in b["team_b"]]} for b in board_results(db, tid)],
        "tables": tables,
    }
