"""The arena's SQLite schema: the one module that knows it, creates it and migrates it.

The schema is created and migrated on open (ordered migrations recorded by sqlite-utils'
`Migrations` in `_sqlite_migrations`, set "zwicker-arena"); WAL is switched on once, when the file
is created. `registry`, `write`, `read` and `export` beside this module use the tables it
defines; nothing else in the arena touches SQL.

Choices:
- Seeds are stored as decimal TEXT: they range up to 2**64, beyond SQLite's signed INTEGER.
- `synchronous=NORMAL` with WAL: a commit survives the arena being killed (the resume case);
  only a power cut can lose the last commits, and then whole tables at once, never half of one.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import sqlite3
from pathlib import Path
from typing import Any

import sqlite_utils
from sqlite_utils.migrations import Migrations

from arena.errors import ArenaError

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


@migrations(name="compact_deals")
def _m_compact_deals(db: sqlite_utils.Database) -> None:
    """Deals as seed plus move indices and think times (arena.results.compact owns the SQL)."""
    from arena.results import compact

    compact.migrate(db)


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


# --------------------------------------------------------------------------------------------
# Tournaments


# --------------------------------------------------------------------------------------------
# Writing results


# --------------------------------------------------------------------------------------------
# Ratings (the pure maths is in arena.results.ratings)


# --------------------------------------------------------------------------------------------
# Reading results


# --------------------------------------------------------------------------------------------
# Export


