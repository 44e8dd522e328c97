"""Queries the browser pages need beyond `read`: a read-only connection, a cheap token that
changes whenever the results do, a thinned rating history, the latest boards, a bot's faults
with their stderr, and what a bot announced itself as.

Kept apart from `read` so that the listings the CLI shares stay as they are; like `read`,
nothing here writes (the connection cannot).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path, PurePath

import sqlite_utils

from arena.errors import ArenaError
from arena.results import live, read
from arena.results.lock import is_running
from arena.results.read import _bot_labels
from arena.results.schema import _SQLITE_MAGIC, BT_METHOD, BUSY_TIMEOUT_MS, db_path, migrations

STDERR_EXCERPT = 2000
"""Characters of a faulted seat's stderr shown on a bot's page (its tail: where the error is)."""


def open_readonly(path: str | os.PathLike[str], *, check: bool = True) -> sqlite_utils.Database:
    """The arena database opened read-only (`mode=ro`): a server can never change results,
    and a tournament that is writing meanwhile is read as whole committed tables (WAL).
    `check`: that it is an arena database of this schema (not again for every request)."""
    path = Path(path)
    if not check:
        conn = sqlite3.connect(f"file:{path.resolve().as_posix()}?mode=ro", uri=True, check_same_thread=False)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        return sqlite_utils.Database(conn)
    if not path.is_file():
        raise ArenaError(f"no arena database at {path}")
    with open(path, "rb") as f:
        if f.read(16) != _SQLITE_MAGIC:
            raise ArenaError(f"{path} is not an SQLite database")
    uri = f"file:{path.resolve().as_posix()}?mode=ro"
    conn = sqlite3.connect(uri, uri=True, check_same_thread=False)
    db = sqlite_utils.Database(conn)
    try:
        db.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if "tournaments" not in tables or not migrations.applied(db):
            raise ArenaError(f"{path} is an SQLite database but not an arena database")
        if migrations.pending(db):
            raise ArenaError(f"{path} was written by an older arena: open it once with any arena command that writes"
                             " (e.g. `arena bot list`) to migrate it")
    except sqlite3.DatabaseError as exc:
        db.close()
        raise ArenaError(f"{path} is corrupt or unreadable: {exc}") from None
    except BaseException:
        db.close()
        raise
    return db


@contextmanager
def snapshot(db: sqlite_utils.Database) -> Iterator[sqlite_utils.Database]:
    """One read transaction: every query inside sees the same committed state, so a page built
    while a tournament writes never counts 16 boards in its header and 18 in its standings."""
    db.execute("BEGIN")
    try:
        yield db
    finally:
        db.execute("COMMIT")


def data_version(db: sqlite_utils.Database) -> str:
    """A token that changes whenever anything a page shows may have: a new table, a status, new
    ratings. Each part is an indexed lookup, so a live page can ask for it every second."""
    (tables,) = db.execute("SELECT COALESCE(MAX(id), 0) FROM board_tables").fetchone()
    (tournaments, statuses) = db.execute(
        "SELECT COUNT(*), COALESCE(GROUP_CONCAT(status, ','), '') FROM tournaments").fetchone()
    # A run that ends without saying so (kill -9) leaves its status "running", shown as interrupted
    # once its run lock is free: the lock is part of what pages show.
    path = db_path(db)
    held = tuple(is_running(path, tid) for (tid,) in db.execute("SELECT id FROM tournaments WHERE status = 'running'"))
    (rated,) = db.execute("SELECT COALESCE(MAX(computed), '') FROM ratings").fetchone()
    (bots,) = db.execute("SELECT COALESCE(MAX(id), 0) FROM bots").fetchone()
    rooms = live.rooms(db)  # a room that starts or ends playing (not its every move: that page reads itself)
    return f"{tables}.{tournaments}.{bots}.{hash((statuses, held, rated, rooms)) & 0xFFFFFFFF:08x}"


def history_sampled(db: sqlite_utils.Database, tid: int, points: int = 50) -> dict:
    """The headline fit over growing prefixes of the deals (the ratings' progression, on the
    headline's scale and ending on it): the stored one when it covers every finished board, else
    (a tournament still playing) computed now. Each bot's Elo at each point (None before it has
    played); `seq`: the boards in each prefix; `computed`: not stored yet."""
    (boards,) = db.execute("SELECT COUNT(*) FROM boards b JOIN matches m ON m.id = b.match_id"
                           " WHERE m.tournament_id = ?", [tid]).fetchone()
    stored = read.progression(db, tid)
    labels = _bot_labels(db, tid)
    if stored and max(r["boards"] for r in stored) >= boards:
        computed = False
        by_point: dict[int, tuple[int, dict[int, float]]] = {}
        for r in stored:
            by_point.setdefault(r["point"], (r["boards"], {}))[1][r["bot_id"]] = r["elo"]
        steps = [by_point[p] for p in sorted(by_point)]
    else:
        computed = True
        steps = read.progression_in_boards(db, tid, read.rating_inputs(db, tid)["pool"], points)
    bots = sorted(labels)
    return {"boards": boards, "computed": computed, "seq": [n for n, _ in steps],
            "bots": [{"bot_id": b, "bot": labels[b], "elo": [elos.get(b) for _, elos in steps]} for b in bots]}


def latest_boards(db: sqlite_utils.Database, tid: int, limit: int = 12) -> list[dict]:
    """The boards finished last, newest first, each in one shape: `entrants` (labels), each
    one's `results` (its sides' points or chips over the rooms) and `margins` (two sides of
    partners: its result less the other's; else its result)."""
    labels = _bot_labels(db, tid)
    rows = [
        {"board_id": r[3], "match_no": r[0], "board_no": r[1], "completed": r[2], "match_id": r[4]}
        for r in db.execute(
            "SELECT m.match_no, b.board_no, b.completed, b.id, m.id FROM boards b JOIN matches m ON m.id = b.match_id"
            " WHERE m.tournament_id = ? ORDER BY b.id DESC LIMIT ?",
            [tid, limit],
        )
    ]
    if rows:
        ids = [r["board_id"] for r in rows]
        results: dict[int, tuple[list[int], list[int]]] = {}
        for board_id, result, margin in db.execute(
                f"SELECT board_id, result, margin FROM board_entrants WHERE board_id IN ({','.join('?' * len(ids))})"
                " ORDER BY board_id, entrant", ids):
            pair = results.setdefault(board_id, ([], []))
            pair[0].append(result)
            pair[1].append(margin)
        members: dict[int, list[list[int]]] = {}
        match_ids = sorted({r["match_id"] for r in rows})
        for match_id, e, bot in db.execute(
                f"SELECT match_id, entrant, bot_id FROM match_entrants WHERE match_id IN ({','.join('?' * len(match_ids))})"
                " ORDER BY match_id, entrant, member", match_ids):
            entrants = members.setdefault(match_id, [])
            if e == len(entrants):
                entrants.append([])
            entrants[e].append(bot)
        for r in rows:
            (found, margins), entrants = results[r["board_id"]], members[r.pop("match_id")]
            r.update(entrants=[read._named(e, labels) for e in entrants], results=found, margins=margins)
    return rows


def is_league(db: sqlite_utils.Database) -> bool:
    """Whether the database holds a league (arena.league: a tournament marked `league`, or a
    version an author submitted), whose authors' stderr and check output are theirs alone."""
    names = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if "league_versions" in names and db.execute("SELECT 1 FROM league_versions LIMIT 1").fetchone():
        return True
    return any("league" in (json.loads(s or "{}") or {}) for (s,) in db.execute("SELECT settings FROM tournaments"))


def bot_faults(db: sqlite_utils.Database, tid: int, bot_id: int, limit: int = 200) -> list[dict]:
    """The seats where `bot_id` faulted in a tournament, with the tail of its stderr and the
    deal ids of that table (the last one is where it stopped)."""
    rows = db.execute(
        "SELECT s.table_id, s.seat, s.status, s.detail, substr(s.stderr_tail, -?) AS tail, length(s.stderr_tail),"
        " m.match_no, t.board_no, t.swapped FROM seats s JOIN board_tables t ON t.id = s.table_id"
        " JOIN matches m ON m.id = t.match_id"
        " WHERE m.tournament_id = ? AND s.bot_id = ? AND s.status != 'ok' ORDER BY t.id, s.seat LIMIT ?",
        [STDERR_EXCERPT, tid, bot_id, limit],
    ).fetchall()
    deals: dict[int, list[int]] = {}
    if rows:
        ids = sorted({r[0] for r in rows})
        marks = ",".join("?" * len(ids))
        for table_id, deal_id in db.execute(
                f"SELECT table_id, id FROM deals WHERE table_id IN ({marks}) ORDER BY table_id, deal_no", ids):
            deals.setdefault(table_id, []).append(deal_id)
    hide = _local_paths(db)
    return [
        {"table_id": r[0], "seat": r[1], "status": r[2], "detail": hide(r[3]), "stderr": hide(r[4]),
         "stderr_cut": r[5] > STDERR_EXCERPT, "match_no": r[6], "board_no": r[7], "swapped": bool(r[8]), "room": r[8],
         "deal_ids": deals.get(r[0], [])}
        for r in rows
    ]


def _local_paths(db: sqlite_utils.Database) -> Callable[[str | None], str | None]:
    """What turns the organiser's folders in a bot's words into `…` (a traceback names the bot's
    stored copy beside the database, a home folder may show): a page shows no local path."""
    folders = {str(Path.home())}
    for _, name, file in db.execute("PRAGMA database_list"):
        if name == "main" and file:
            folders |= {str(Path(file).parent), str(Path(file).resolve().parent)}
    found = re.compile("|".join(re.escape(f) for f in sorted(folders, key=len, reverse=True) if len(f) > 1))

    def hide(text: str | None) -> str | None:
        return text if not text or not found.pattern else found.sub("…", text)

    return hide


def fault_count(db: sqlite_utils.Database, tid: int, bot_id: int) -> int:
    """How many seats `bot_id` faulted at in a tournament (bot_faults lists at most a page)."""
    (n,) = db.execute(
        "SELECT COUNT(*) FROM seats s JOIN board_tables t ON t.id = s.table_id JOIN matches m ON m.id = t.match_id"
        " WHERE m.tournament_id = ? AND s.bot_id = ? AND s.status != 'ok'", [tid, bot_id]).fetchone()
    return n


def announced(db: sqlite_utils.Database, tid: int, bot_id: int) -> list[dict]:
    """What a bot said it was in its handshakes (name, version; untrusted text), most said first."""
    return [
        {"name": r[0], "version": r[1], "seats": r[2]}
        for r in db.execute(
            "SELECT s.announced_name, s.announced_version, COUNT(*) FROM seats s JOIN board_tables t ON t.id = s.table_id"
            " JOIN matches m ON m.id = t.match_id WHERE m.tournament_id = ? AND s.bot_id = ?"
            " GROUP BY s.announced_name, s.announced_version ORDER BY COUNT(*) DESC LIMIT 20",
            [tid, bot_id],
        )
    ]


def bot_labels(db: sqlite_utils.Database, tid: int) -> dict[int, str]:
    """Bot id -> the label every listing shows (name, or name@version when two versions play)."""
    return _bot_labels(db, tid)


def bot_row(db: sqlite_utils.Database, bot_id: int) -> dict:
    """The registry's row of a bot: name, version, kind, sha256, added, and `file`: the name of
    the file (or folder) it was registered from, never its path (a published page must not carry
    the organiser's folders)."""
    rows = list(db.query("SELECT id, name, version, kind, sha256, source, added FROM bots WHERE id = ?", [bot_id]))
    if not rows:
        raise ArenaError(f"unknown bot id {bot_id}")
    row = rows[0]
    source = row.pop("source") or ""
    return {**row, "file": PurePath(source.replace("\\", "/")).name or None}


def match_progress(db: sqlite_utils.Database, tid: int) -> dict[int, dict]:
    """Per match with anything stored: its tables stored, the boards of which a room is in, and
    its newest stored deal (to watch)."""
    rows = db.execute(
        "SELECT m.match_no, COUNT(*), COUNT(DISTINCT t.board_no), MAX(t.id) FROM matches m"
        " JOIN board_tables t ON t.match_id = m.id WHERE m.tournament_id = ? GROUP BY m.id", [tid]).fetchall()
    last: dict[int, int] = {}
    for chunk in range(0, len(rows), 500):
        ids = [r[3] for r in rows[chunk:chunk + 500]]
        last |= dict(db.execute(f"SELECT table_id, MAX(id) FROM deals WHERE table_id IN ({','.join('?' * len(ids))})"
                                " GROUP BY table_id", ids).fetchall())
    return {match_no: {"tables_done": tables, "boards_started": boards, "latest_deal": last.get(newest)}
            for match_no, tables, boards, newest in rows}


def leader(db: sqlite_utils.Database, tid: int) -> dict | None:
    """The top of a tournament's stored headline ratings when they count every stored board
    (a finished tournament: one indexed look), else None (then the standings must say)."""
    row = db.execute(
        "SELECT r.bot_id, r.elo, r.params FROM ratings r WHERE r.tournament_id = ? AND r.method = ?"
        " AND r.errors = 'pool' ORDER BY r.elo DESC LIMIT 1", [tid, BT_METHOD]).fetchone()
    if row is None:
        return None
    (boards,) = db.execute("SELECT COUNT(*) FROM boards b JOIN matches m ON m.id = b.match_id"
                           " WHERE m.tournament_id = ?", [tid]).fetchone()
    if json.loads(row[2]).get("tournament_boards") != boards:
        return None
    return {"bot_id": row[0], "bot": _bot_labels(db, tid)[row[0]], "elo": row[1]}


def rating_history(db: sqlite_utils.Database, bot_id: int) -> list[dict]:
    """The bot's headline rating in each tournament it played that has stored ratings, oldest
    first: the tournament, its Elo and rank there (among the bots with boards) and how many
    ranked bots there were. Each tournament has its own scale (its anchor, or its mean)."""
    rows = db.execute(
        "SELECT t.id, t.name, t.created, r.elo,"
        " (SELECT COUNT(*) FROM ratings o WHERE o.tournament_id = r.tournament_id AND o.method = r.method"
        "  AND o.errors = r.errors AND o.elo > r.elo) + 1,"
        " (SELECT COUNT(*) FROM ratings o WHERE o.tournament_id = r.tournament_id AND o.method = r.method"
        "  AND o.errors = r.errors)"
        " FROM ratings r JOIN tournaments t ON t.id = r.tournament_id"
        " WHERE r.bot_id = ? AND r.method = ? AND r.errors = 'pool' ORDER BY t.id", [bot_id, BT_METHOD]).fetchall()
    return [{"tournament_id": r[0], "tournament": r[1], "created": r[2], "elo": r[3], "rank": r[4], "of": r[5]}
            for r in rows]


def deal_table(db: sqlite_utils.Database, deal_id: int) -> dict:
    """Where a stored deal was played: its table's id, room (0 straight, 1 swapped, r the r-th
    rotation), board seed and the tournament's format; what replaying its board needs."""
    row = db.execute(
        "SELECT t.id, t.swapped, t.board_seed, tn.format FROM deals d JOIN board_tables t ON t.id = d.table_id"
        " JOIN matches m ON m.id = t.match_id JOIN tournaments tn ON tn.id = m.tournament_id WHERE d.id = ?",
        [deal_id]).fetchone()
    if row is None:
        raise ArenaError(f"unknown deal {deal_id}")
    return {"table_id": row[0], "room": row[1], "board_seed": int(row[2]), "format": row[3]}
