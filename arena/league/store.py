"""The league's tables (migration 0008 in arena.results.schema) and its tournament.

The ladder is one tournament, named `league` unless chosen otherwise, marked by
settings["league"] (its boards per match, seed and variant are fixed when it is made). Its
matches are added one at a time as the ladder starts them (`add_match`); match k plays boards
(k-1)*B .. k*B-1, so that every match has deals of its own while both rooms of a match play the
same ones. Bots enter it as they are submitted; a bot name belongs to the author who first
submitted it (`league_bots`), each version keeps its check (`league_versions`). The version of a
name on the ladder is the one its author submitted last (`league_versions.submitted`), so that
an older version's content submitted again takes the ladder back from a newer one.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import sqlite_utils

import games
from arena.errors import ArenaError
from arena.league import names
from arena.play import seeds
from arena.results import read, registry, write
from arena.results.schema import _db_folder, _dumps, _now

DEFAULT_NAME = "league"


@contextmanager
def writing(db: sqlite_utils.Database) -> Iterator[None]:
    """A write transaction that takes the write lock at its start (BEGIN IMMEDIATE): the ratings
    are stored by a second connection meanwhile, and a transaction that read first and wrote
    after that one's commit would fail at once ("database is locked") instead of waiting."""
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.conn.rollback()
        raise
    db.conn.commit()


def ensure_tables(db: sqlite_utils.Database) -> None:
    """The league's tables beyond migration 0008: `league_rate` (each author's submissions and
    code downloads, for the rate limits, kept across restarts)."""
    db.execute("CREATE TABLE IF NOT EXISTS league_rate (author_id INTEGER NOT NULL, kind TEXT NOT NULL,"
               " at REAL NOT NULL)")
    db.execute("CREATE INDEX IF NOT EXISTS league_rate_author ON league_rate (author_id, kind, at)")
    if "bytes" not in {r[1] for r in db.execute("PRAGMA table_info(league_versions)")}:
        db.execute("ALTER TABLE league_versions ADD COLUMN bytes INTEGER")
    db.conn.commit()
    for bot_id, path in db.execute("SELECT b.id, b.path FROM league_versions lv JOIN bots b ON b.id = lv.bot_id"
                                   " WHERE lv.bytes IS NULL").fetchall():  # (versions stored before it was kept)
        with writing(db):
            db.execute("UPDATE league_versions SET bytes = ? WHERE bot_id = ?", [stored_bytes(path), bot_id])


def stored_bytes(path: Any) -> int:
    """The bytes of a bot's files (a file, or a folder's files), as its quota counts them."""
    import os
    from pathlib import Path

    path = Path(path)
    if path.is_file():
        return path.stat().st_size
    total = 0
    for here, _dirs, files in os.walk(path):
        for f in files:
            try:
                total += os.lstat(os.path.join(here, f)).st_size
            except OSError:
                pass
    return total


def usage(db: sqlite_utils.Database, author_id: int | None = None) -> int:
    """The bytes the league's stored versions take (an author's, or everyone's); pruned or
    removed versions are not counted."""
    where = " AND lv.author_id = ?" if author_id is not None else ""
    (used,) = db.execute("SELECT COALESCE(SUM(lv.bytes), 0) FROM league_versions lv JOIN bots b ON b.id = lv.bot_id"
                         f" WHERE b.removed IS NULL{where}", [] if author_id is None else [author_id]).fetchone()
    return used


def prunable(db: sqlite_utils.Database, tid: int) -> list[dict]:
    """The versions that never played and never will: not a name's version on the ladder, and
    in no match, started or finished."""
    active = {b["id"] for b in active_bots(db)}
    _pairs, matches_of = pair_counts(db, tid)
    return [dict(r) for r in db.query(
        "SELECT b.id, b.name, b.version, lv.bytes, a.name AS author FROM league_versions lv JOIN bots b"
        " ON b.id = lv.bot_id JOIN league_authors a ON a.id = lv.author_id WHERE b.removed IS NULL"
        " ORDER BY b.name, b.version") if r["id"] not in active and not matches_of.get(r["id"])]


def prune(db: sqlite_utils.Database, tid: int) -> list[dict]:
    """Remove the versions `prunable` lists: their stored copies go, their rows stay (removed)
    with their checks, so an author still sees what they submitted."""
    pruned = prunable(db, tid)
    for v in pruned:
        registry.remove_bot(db, f"{v['name']}@{v['version']}", force=True)
    return pruned


def private(db_path) -> None:
    """The database (and its WAL and shared-memory files) readable by the organiser's user
    alone (0600), and the folders of stored bots, the run lock and the live tables too (0700): no
    other local user reads a token's hash, a fault's stderr or an author's code, or holds the
    league's lock. The sandboxed bots never pass through them: each runs from a copy the arena
    makes (arena.process.runtime)."""
    from pathlib import Path

    path = Path(db_path)
    for p in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        if p.exists() and not p.is_symlink():
            p.chmod(0o600)
    # (the run lock's too: no other user may hold it to keep a restarted server from the league; and
    # the live tables', public views the pages serve, like every file of the league's)
    for folder in (path.parent / "bots", path.with_name(path.name + ".locks"), path.with_name(path.name + ".live")):
        folder.mkdir(mode=0o700, exist_ok=True)
        if not folder.is_symlink():
            folder.chmod(0o700)


def db_path(db: sqlite_utils.Database) -> str:
    """The file of a database opened on one ("" for one in memory)."""
    return db.execute("PRAGMA database_list").fetchone()[2]


def league_tournament(db: sqlite_utils.Database, name: str = DEFAULT_NAME, *, boards: int = 8,
                      variant: dict | None = None, create: bool = True, game: str | None = None) -> dict:
    """The league's tournament, made on first use (then `boards`, `game` and `variant` are kept:
    a league started again for another game is refused in one line)."""
    rows = db.execute("SELECT id, settings, game FROM tournaments WHERE name = ?", [name]).fetchall()
    if rows:
        if "league" not in json.loads(rows[0][1]):
            raise ArenaError(f"tournament '{name}' is not a league: choose another --name for the league")
        if game is not None and games.game(game).info.name != rows[0][2]:
            raise ArenaError(f"league '{name}' plays {rows[0][2]}, not {game}: choose another --name for it")
        return read.get_tournament(db, rows[0][0])
    if not create:
        raise ArenaError(f"no league '{name}' in this database yet (run 'arena league serve' first)")
    if type(boards) is not int or boards < 1:
        raise ArenaError(f"--boards must be at least 1, got {boards!r}")
    g = games.game(game)
    v = variant if variant is not None else g.variant(None).to_dict()
    tid = write.create_tournament(db, name, seed=seeds.draw_master_seed(), variant=v, format=g.info.formats[0],
                                  partners="clone", boards=boards, bot_ids=[], matches=[], game=g.info.name,
                                  settings={"league": {"boards": boards}, "gauntlet": None, "sandbox": None})
    return read.get_tournament(db, tid)


def match_boards(match_no: int, boards: int) -> range:
    """The board numbers match `match_no` plays (each match its own deals)."""
    return range((match_no - 1) * boards, match_no * boards)


def entrants_of(bots: Sequence[int], teams: bool) -> list[list[int]]:
    """A match's entrants: two teams of two copies (`teams`), else one bot a seat."""
    return [[b, b] for b in bots] if teams else [[b] for b in bots]


def add_match(db: sqlite_utils.Database, tid: int, *bots: int, teams: bool = True) -> int:
    """Append the match of `bots` (each two copies in a team, or each one seat of a table of
    k); returns its number."""
    with writing(db):
        return write.append_match(db, tid, entrants_of(bots, teams))


def _matches(db: sqlite_utils.Database, tid: int) -> list[tuple[int, int, list[int], int]]:
    """Every match: (its id, its number, its bots in entrant order, its rooms)."""
    entrants: dict[int, list[int]] = {}
    for match_id, bot in db.execute("SELECT e.match_id, e.bot_id FROM match_entrants e JOIN matches m"
                                    " ON m.id = e.match_id WHERE m.tournament_id = ? AND e.member = 0"
                                    " ORDER BY e.match_id, e.entrant", [tid]):
        entrants.setdefault(match_id, []).append(bot)
    return [(mid, no, entrants[mid], len(entrants[mid])) for mid, no in db.execute(
        "SELECT id, match_no FROM matches WHERE tournament_id = ? ORDER BY match_no", [tid])]


def unfinished_matches(db: sqlite_utils.Database, tid: int, boards: int) -> list[dict]:
    """Matches started but not stored whole (a server stopped or killed meanwhile), oldest first:
    each with its bots, an entrant each."""
    tables = dict(db.execute("SELECT m.id, COUNT(t.id) FROM matches m LEFT JOIN board_tables t ON t.match_id = m.id"
                             " WHERE m.tournament_id = ? GROUP BY m.id", [tid]).fetchall())
    return [{"match_no": no, "bots": bots} for mid, no, bots, rooms in _matches(db, tid)
            if tables.get(mid, 0) < rooms * boards]


def owner(db: sqlite_utils.Database, name: str) -> dict | None:
    """Who owns a bot name: {"author_id", "author", "retired"}; {"author_id": None} for a name
    the organiser registered (`arena bot add`); None for a free name."""
    row = db.execute("SELECT b.author_id, a.name, b.retired FROM league_bots b JOIN league_authors a"
                     " ON a.id = b.author_id WHERE b.name = ?", [name]).fetchone()
    if row is not None:
        return {"author_id": row[0], "author": row[1], "retired": row[2]}
    if db.execute("SELECT 1 FROM bots WHERE name = ?", [name]).fetchone():
        return {"author_id": None, "author": None, "retired": None}
    return None


class NameTaken(ArenaError):
    """The name is not the author's (the message is the one line they see, HTTP 403)."""


def name_taken(db: sqlite_utils.Database, author: dict, name: str) -> str | None:
    """Why `author` may not submit under `name`, in one line, or None if they may: another's
    name, a reserved one, or one that reads as a stored name spelled otherwise (arena.league.names)."""
    found = owner(db, name)
    if found is not None and found["author_id"] == author["id"]:
        return None
    if found is not None and found["author_id"] is None:
        return f"the name '{name}' is taken by a bot the organiser registered: choose another --name"
    if found is not None:
        return f"the name '{name}' belongs to another author: choose another --name"
    if (word := names.reserved(name)) is not None:
        return f"the name '{name}' is reserved (it reads as '{word}'): choose another --name"
    if (other := names.look_alike(db, name)) is not None:
        return f"the name '{name}' reads as '{other}', a bot's name already: choose another --name"
    return None


def league_owner(db: sqlite_utils.Database, name: str) -> tuple[str, str] | None:
    """The league name that `name` is or reads as, and its author: (name, author), or None.
    The organiser's `arena bot add` refuses such a name, which would be a version of the author's bot."""
    key = names.skeleton(name)
    for other, author in db.execute("SELECT b.name, a.name FROM league_bots b JOIN league_authors a"
                                    " ON a.id = b.author_id"):
        if names.skeleton(other) == key:
            return other, author
    return None


def store_version(db: sqlite_utils.Database, tid: int, author: dict, path, name: str, check: dict,
                  check_text: str, size: int | None = None, command: str | None = None) -> dict:
    """Store a checked submission: the bot's copy (a new version of the name, or the version
    with that content already), its owner, its check, and its place in the league. The name is
    asked for again here, in the transaction: another author may have taken it while this one's
    check ran (NameTaken). `command` runs the bot in its copy's folder (None: its file or entry
    point does). A store that fails leaves no copy behind that it made."""
    copy = _db_folder(db) / "bots" / registry.bot_sha256(path)  # where registry.add_bot keeps it
    made = not copy.exists()
    try:
        with writing(db):
            if (why := name_taken(db, author, name)) is not None:
                raise NameTaken(why)
            bot = registry.add_bot(db, path, name=name, command=command, new_version=True)
            db.execute("INSERT INTO league_bots (name, author_id, created) VALUES (?, ?, ?)"
                       " ON CONFLICT (name) DO UPDATE SET retired = NULL", [name, author["id"], _now()])
            db.execute("UPDATE bots SET source = ? WHERE id = ?", [f"league:{author['name']}", bot["id"]])
            db.execute("INSERT OR IGNORE INTO league_versions (bot_id, author_id, submitted, check_report, check_text,"
                       " bytes) VALUES (?, ?, ?, ?, ?, ?)", [bot["id"], author["id"], _now(), _dumps(check), check_text,
                                                             stored_bytes(path) if size is None else size])
            db.execute("INSERT OR IGNORE INTO tournament_bots (tournament_id, bot_id) VALUES (?, ?)", [tid, bot["id"]])
    except BaseException:
        if made:
            shutil.rmtree(copy, ignore_errors=True)
        raise
    return registry.get_bot(db, bot["id"])


def own_version(db: sqlite_utils.Database, author: dict, name: str, version: int | None) -> dict | None:
    """The author's own league version of `name` (the last submitted, without `version`), or
    None: a version under that name that the organiser registered, or another's, is never theirs."""
    where = "AND b.version = ?" if version is not None else ""
    row = db.execute(f"SELECT b.id FROM bots b JOIN league_versions lv ON lv.bot_id = b.id WHERE b.name = ?"
                     f" AND lv.author_id = ? AND b.removed IS NULL {where} {_LAST_SUBMITTED}",
                     [name, author["id"], *([version] if version is not None else [])]).fetchone()
    return None if row is None else registry.get_bot(db, row[0])


def current_version(db: sqlite_utils.Database, name: str) -> int | None:
    """The bot id of the name's version its author submitted last (on the ladder unless the name
    is retired or that version removed), or None for a name with no league version."""
    row = db.execute(f"SELECT b.id FROM bots b JOIN league_versions lv ON lv.bot_id = b.id WHERE b.name = ?"
                     f" {_LAST_SUBMITTED}", [name]).fetchone()
    return None if row is None else row[0]


def submit_again(db: sqlite_utils.Database, tid: int, bot_id: int, name: str) -> None:
    """A stored version submitted again: it is the name's version on the ladder once more (its
    check stays the first), and a retired name is back."""
    with writing(db):
        db.execute("UPDATE league_versions SET submitted = ? WHERE bot_id = ?", [_now(), bot_id])
        db.execute("UPDATE league_bots SET retired = NULL WHERE name = ?", [name])
        db.execute("INSERT OR IGNORE INTO tournament_bots (tournament_id, bot_id) VALUES (?, ?)", [tid, bot_id])


def retire(db: sqlite_utils.Database, author: dict, name: str) -> None:
    found = owner(db, name)
    if found is None or found["author_id"] is None:
        raise ArenaError(f"no bot '{name}' of yours in the league")
    if found["author_id"] != author["id"]:
        raise PermissionError(f"bot '{name}' belongs to another author")
    with writing(db):
        db.execute("UPDATE league_bots SET retired = ? WHERE name = ? AND retired IS NULL", [_now(), name])


_LAST_SUBMITTED = "ORDER BY lv.submitted DESC, b.version DESC LIMIT 1"


def active_bots(db: sqlite_utils.Database) -> list[dict]:
    """The last submitted version of every bot that is not retired: the ladder's pool."""
    return list(db.query(
        "SELECT b.id, b.name, b.version, lv.submitted, lb.author_id FROM league_bots lb"
        " JOIN bots b ON b.name = lb.name JOIN league_versions lv ON lv.bot_id = b.id"
        " WHERE lb.retired IS NULL AND b.removed IS NULL AND b.disabled IS NULL AND b.id = ("
        "   SELECT b.id FROM bots b JOIN league_versions lv ON lv.bot_id = b.id WHERE b.name = lb.name"
        f"  {_LAST_SUBMITTED})"
        " ORDER BY b.id"))


def pair_counts(db: sqlite_utils.Database, tid: int) -> tuple[dict[frozenset, int], dict[int, int]]:
    """Boards stored per pair of bots, and matches started per bot."""
    boards = dict(db.execute("SELECT m.id, COUNT(bo.id) FROM matches m LEFT JOIN boards bo ON bo.match_id = m.id"
                             " WHERE m.tournament_id = ? GROUP BY m.id", [tid]).fetchall())
    pairs: dict[frozenset, int] = {}
    started: dict[int, int] = {}
    for mid, _no, bots, _rooms in _matches(db, tid):
        for i, a in enumerate(bots):
            started[a] = started.get(a, 0) + 1
            for b in bots[i + 1:]:
                key = frozenset((a, b))
                pairs[key] = pairs.get(key, 0) + boards.get(mid, 0)
    return pairs, started


def author_view(db: sqlite_utils.Database, tid: int, author: dict) -> dict:
    """What an author sees of their own bots: every version with its check, and every fault
    with its stderr. Never another author's."""
    bots = []
    for row in db.query("SELECT name, created, retired FROM league_bots WHERE author_id = ? ORDER BY name",
                        [author["id"]]):
        versions = []
        for v in db.query(
            "SELECT b.id, b.version, b.sha256, b.kind, lv.submitted, lv.check_report, lv.check_text FROM bots b"
            " JOIN league_versions lv ON lv.bot_id = b.id WHERE b.name = ? AND lv.author_id = ? ORDER BY b.version",
            [row["name"], author["id"]]):
            faults = [dict(f) for f in db.query(
                "SELECT m.match_no, t.board_no, t.swapped, s.seat, s.status, s.detail, s.stderr_tail AS stderr"
                " FROM seats s JOIN board_tables t ON t.id = s.table_id JOIN matches m ON m.id = t.match_id"
                " WHERE m.tournament_id = ? AND s.bot_id = ? AND s.status != 'ok'"
                " ORDER BY m.match_no, t.board_no, t.swapped LIMIT 50", [tid, v["id"]])]
            (boards,) = db.execute(
                "SELECT COUNT(*) FROM boards bo JOIN matches m ON m.id = bo.match_id WHERE m.tournament_id = ?"
                " AND m.id IN (SELECT match_id FROM match_entrants WHERE bot_id = ?)", [tid, v["id"]]).fetchone()
            versions.append({"bot_id": v["id"], "version": v["version"], "sha256": v["sha256"], "kind": v["kind"],
                             "submitted": v["submitted"], "check": json.loads(v["check_report"]),
                             "check_text": v["check_text"], "boards": boards, "faults": faults})
        bots.append({"name": row["name"], "created": row["created"], "retired": row["retired"],
                     "versions": versions})
    return {"author": author["name"], "bots": bots}


def versions_of(db: sqlite_utils.Database) -> dict[int, dict]:
    """Every league version by bot id: name, version, whether it is the active one."""
    active = {b["id"] for b in active_bots(db)}
    return {r["id"]: {"name": r["name"], "version": r["version"], "active": r["id"] in active,
                      "retired": r["retired"] is not None}
            for r in db.query("SELECT b.id, b.name, b.version, lb.retired FROM bots b JOIN league_versions lv"
                              " ON lv.bot_id = b.id JOIN league_bots lb ON lb.name = b.name")}
