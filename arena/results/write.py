"""Writing results: tournaments, their tables as they are played, and their ratings.

A table (one board played in one of its k rooms, one per entrant; two teams: two) is written in
one transaction with its seats and deals; the board row appears in the same transaction as its
last table, so a reader
never sees half a table or a board counted once. Recording a table twice raises
`TableAlreadyRecorded`: the runner skips what `done_tables` lists, so a second write is a bug.
"""

from __future__ import annotations

import functools
import json
import sqlite3
from collections.abc import Iterable, Sequence
from pathlib import Path

import sqlite_utils

import games
from arena.errors import SEAT_STATUSES, ArenaError
from arena.results import compact
from arena.results.read import (
    BOOTSTRAP,
    _match,
    compute_ratings,
    finished_boards,
    progression_in_boards,
    rating_pool,
    two_teams,
)
from arena.results.schema import (
    BT_METHOD,
    db_path,
    PARTNERS,
    STATUSES,
    TableAlreadyRecorded,
    _dumps,
    _now,
)


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
    matches: Sequence[Sequence[Sequence[int]]],
    game: str = games.ORIGINAL,
) -> int:
    """Store a tournament and its schedule (match k is `matches[k - 1]`: its entrants, each the
    bots at its side's seats; two teams: team A, then team B)."""
    if not name or not name.strip():
        raise ArenaError("a tournament needs a name")
    if not isinstance(seed, int) or not 0 <= seed < 2**64:
        raise ArenaError(f"seed must be an integer in 0 .. 2**64-1, got {seed!r}")
    try:
        formats = games.game(game).info.formats
    except games.GameError as exc:
        raise ArenaError(str(exc)) from None
    if format not in formats:
        raise ArenaError(f"unknown format {format!r} (the game's: {', '.join(formats)})")
    if partners not in PARTNERS:
        raise ArenaError(f"unknown partners {partners!r} (known: {', '.join(PARTNERS)})")
    if not isinstance(boards, int) or boards < 1:
        raise ArenaError(f"boards per match must be at least 1, got {boards!r}")
    bot_ids = list(dict.fromkeys(bot_ids))
    known = {r[0] for r in db.execute("SELECT id FROM bots")}
    if set(bot_ids) - known:
        raise ArenaError(f"unknown bot ids {sorted(set(bot_ids) - known)}")
    for entrants in matches:
        if len(entrants) < 2 or not all(entrants):
            raise ArenaError(f"a match is k >= 2 entrants, each one bot or more, got {entrants}")
        if {b for team in entrants for b in team} - set(bot_ids):
            raise ArenaError(f"match {entrants} uses bots not in the tournament")
    if db["tournaments"].count_where("name = ?", [name]):
        raise ArenaError(f"tournament '{name}' already exists")
    with db.atomic():
        tid = db.execute(
            "INSERT INTO tournaments (name, seed, variant, format, partners, boards_per_match, settings,"
            " status, created, game) VALUES (?, ?, ?, ?, ?, ?, ?, 'created', ?, ?)",
            [name, str(seed), _dumps(variant), format, partners, boards, _dumps(settings), _now(), game],
        ).lastrowid
        assert tid is not None
        for bot_id in bot_ids:
            db.execute("INSERT INTO tournament_bots VALUES (?, ?)", [tid, bot_id])
        _add_matches(db, tid, matches, 1)
    return tid


def _add_matches(db: sqlite_utils.Database, tid: int, matches: Sequence[Sequence[Sequence[int]]], first: int) -> None:
    """Insert matches numbered from `first`, each entrant with its bots (a clone once)."""
    for match_no, entrants in enumerate(matches, start=first):
        match_id = db.execute("INSERT INTO matches (tournament_id, match_no) VALUES (?, ?)", [tid, match_no]).lastrowid
        db.conn.executemany("INSERT INTO match_entrants (match_id, entrant, member, bot_id) VALUES (?, ?, ?, ?)",
                            [(match_id, e, i, bot) for e, bots in enumerate(entrants)
                             for i, bot in enumerate(dict.fromkeys(bots))])


def delete_tournament(db: sqlite_utils.Database, tid: int) -> None:
    """Delete a tournament with everything recorded for it, in one transaction."""
    in_matches = "SELECT id FROM matches WHERE tournament_id = ?"
    in_tables = f"SELECT id FROM board_tables WHERE match_id IN ({in_matches})"
    with db.atomic():
        db.execute(f"DELETE FROM deals WHERE table_id IN ({in_tables})", [tid])
        db.execute(f"DELETE FROM seats WHERE table_id IN ({in_tables})", [tid])
        for table in ("rating_progression", "ratings", "sprt_tests"):
            db.execute(f"DELETE FROM {table} WHERE tournament_id = ?", [tid])
        db.execute(f"DELETE FROM board_tables WHERE match_id IN ({in_matches})", [tid])
        db.execute(f"DELETE FROM board_entrants WHERE board_id IN (SELECT id FROM boards WHERE match_id IN ({in_matches}))",
                   [tid])
        db.execute(f"DELETE FROM boards WHERE match_id IN ({in_matches})", [tid])
        db.execute(f"DELETE FROM match_entrants WHERE match_id IN ({in_matches})", [tid])
        for table in ("matches", "tournament_bots"):
            db.execute(f"DELETE FROM {table} WHERE tournament_id = ?", [tid])
        db.execute("DELETE FROM tournaments WHERE id = ?", [tid])
    path = db_path(db)
    if path is not None:  # its run lock's file, if a run made one
        Path(f"{path}.locks", str(tid)).unlink(missing_ok=True)


def append_match(db: sqlite_utils.Database, tid: int, entrants: Sequence[Sequence[int]]) -> int:
    """Append one match (k entrants, each its bots) to the schedule; its number."""
    with db.atomic():
        (last,) = db.execute("SELECT COALESCE(MAX(match_no), 0) FROM matches WHERE tournament_id = ?", [tid]).fetchone()
        _add_matches(db, tid, [entrants], last + 1)
    return last + 1


def add_round(db: sqlite_utils.Database, tid: int, matches: Sequence[Sequence[Sequence[int]]],
              bye: int | list[int] | None) -> None:
    """Append a drawn Swiss round to the schedule (match numbers run on) and note it, with its
    bye (a bot id, a list of them for a round of groups, or None), in the settings' pairing
    plan, in one transaction: a round is stored whole or not at all."""
    with db.atomic():
        row = db.execute("SELECT settings FROM tournaments WHERE id = ?", [tid]).fetchone()
        if row is None:
            raise ArenaError(f"unknown tournament id {tid}")
        settings = json.loads(row[0])
        (last,) = db.execute("SELECT COALESCE(MAX(match_no), 0) FROM matches WHERE tournament_id = ?", [tid]).fetchone()
        _add_matches(db, tid, matches, last + 1)
        settings["pairing"]["drawn"].append(len(matches))
        settings["pairing"]["byes"].append(bye)
        db.execute("UPDATE tournaments SET settings = ? WHERE id = ?", [_dumps(settings), tid])


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


def note_sandbox(db: sqlite_utils.Database, tid: int, mode: str, label: str | None = None) -> None:
    """Record that a run of the tournament plays under sandbox `mode`: settings["sandbox"] stays
    the first run's, settings["sandboxes"] lists every mode it was played under, in order, and
    settings["sandbox_labels"] every `label` (arena.process.modes.label: the mode, with a note
    where bots ran without whole-bot limits) those runs named it by."""
    with db.atomic():
        row = db.execute("SELECT settings FROM tournaments WHERE id = ?", [tid]).fetchone()
        if row is None:
            raise ArenaError(f"unknown tournament id {tid}")
        settings = json.loads(row[0])
        old = dict(settings)
        used = list(settings.get("sandboxes") or [settings.get("sandbox", mode)])
        if mode not in used:
            used.append(mode)
        settings["sandboxes"] = used
        labels = list(settings.get("sandbox_labels") or [])
        if (label or mode) not in labels:
            labels.append(label or mode)
        settings["sandbox_labels"] = labels
        if settings != old:
            db.execute("UPDATE tournaments SET settings = ? WHERE id = ?", [_dumps(settings), tid])


def seat_bots(team_a: list[int], team_b: list[int], swapped: bool, players: int = 4) -> list[int]:
    """The bot at each seat: sides alternate round the table (seat % 2), team A holds side 0
    unless swapped, and a team's k-th seat on its side is `team[k % 2]`. record_table accepts
    any layout that keeps each side's seats within its team; this is the canonical one."""
    a_side = 1 if swapped else 0
    return [(team_a if seat % 2 == a_side else team_b)[(seat // 2) % 2] for seat in range(players)]


def match_entrants(match: dict) -> list[list[int]]:
    """A stored match (`read._match`) as k entrants, each one side's bots."""
    return [list(e) for e in match["entrants"]]


def _check_table(match: dict, room: int, table: dict, layout: games.Layout) -> None:
    """Reject a table dict that would corrupt the results (a runner bug, said plainly). One rule
    for every match of k entrants (two teams: k = 2, room 1 swapped): room r gives side j to
    entrant (j - r) mod k, and every seat of a side holds one of that entrant's bots."""
    entrants = match_entrants(match)
    k = len(entrants)
    if layout.num_sides != k:
        raise ValueError(f"a match of {k} entrants needs a table of {k} sides, not {layout.num_sides}")
    if not 0 <= room < k:
        raise ValueError(f"a match of {k} entrants has rooms 0 .. {k - 1}, got {room}")
    if len(table["points"]) != k:
        raise ValueError(f"a table of {k} sides needs {k} points, got {table['points']!r}")
    seats = sorted(s["seat"] for s in table["seats"])
    if seats != list(range(layout.players)):
        raise ValueError(f"a table of {layout.players} players has seats 0 .. {layout.players - 1} once each, "
                         f"got {seats}")
    for s in table["seats"]:
        if s["status"] not in SEAT_STATUSES:
            raise ValueError(f"unknown seat status {s['status']!r}")
        expected = entrants[(layout.side_of(s["seat"]) - room) % k]
        if s["bot_id"] not in expected:
            raise ValueError(f"seat {s['seat']} holds bot {s['bot_id']}, but in room {room} its side is bots "
                             f"{sorted(set(expected))} (match {match['match_no']})")
    forfeit = table.get("forfeit")
    if forfeit is not None and forfeit.get("side") not in range(k):
        raise ValueError(f"forfeit side must be 0 .. {k - 1}, got {forfeit!r}")


def record_table(
    db: sqlite_utils.Database,
    tid: int,
    match_no: int,
    board_no: int,
    swapped: int,
    board_seed: int,
    table: dict,
) -> int:
    """Write one played table (seats, deals, the sandbox it was played in) in one transaction;
    complete its board if due.

    Returns the table's id. Raises `TableAlreadyRecorded` when this table is already stored.
    """
    match = _match(db, tid, match_no)
    swapped = int(swapped)
    variant, game = _variant(db, tid)
    _check_table(match, swapped, table, game.layout(variant))
    try:
        with db.atomic():
            table_id = db.execute(
                "INSERT INTO board_tables (match_id, board_no, swapped, board_seed, side_points,"
                " forfeit, started, duration_s, sandbox) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    match["id"], board_no, swapped, str(board_seed), _dumps(list(table["points"])),
                    None if table.get("forfeit") is None else _dumps(table["forfeit"]),
                    table["started"], float(table["duration_s"]), table.get("sandbox"),
                ],
            ).lastrowid
            assert table_id is not None
            db.conn.executemany(
                "INSERT INTO seats (table_id, seat, bot_id, announced_name, announced_version, status, detail, stderr_tail,"
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
            compact.insert(db, table_id, variant, table["deals"], game)
            _complete_board(db, match, board_no, two_teams(game.layout(variant)))
    except sqlite3.IntegrityError as exc:
        if db.execute(
            "SELECT 1 FROM board_tables WHERE match_id = ? AND board_no = ? AND swapped = ?",
            [match["id"], board_no, swapped],
        ).fetchone():
            raise TableAlreadyRecorded(
                f"table already recorded: match {match_no}, board {board_no}, room {swapped}"
            ) from None
        raise ValueError(f"table rejected by the database: {exc}") from None
    return table_id


def _variant(db: sqlite_utils.Database, tid: int) -> tuple[games.Variant, games.Game]:
    (text, game) = db.execute("SELECT variant, game FROM tournaments WHERE id = ?", [tid]).fetchone()
    return _parse_variant(text, game)


@functools.lru_cache(maxsize=64)
def _parse_variant(text: str, game: str = games.ORIGINAL) -> tuple[games.Variant, games.Game]:
    g = games.game(game)
    return g.variant(json.loads(text)), g


def _complete_board(db: sqlite_utils.Database, match: dict, board_no: int, teams: bool) -> None:
    """Inside record_table's transaction: once all k rooms of the board are in (two teams: both),
    write its result per entrant: what the sides it held scored (room r gives side j to entrant
    (j - r) mod k), its score (the others it beat on that, draws half) and its margin (two
    `teams`: its result less the other's, team A's margin; else its result)."""
    entrants = match_entrants(match)
    k = len(entrants)
    rows = db.execute("SELECT swapped, side_points, board_seed FROM board_tables WHERE match_id = ? AND board_no = ?",
                      [match["id"], board_no]).fetchall()
    if len(rows) < k:
        return
    if len({r[2] for r in rows}) != 1:
        raise ValueError(f"the rooms of board {board_no} were played with different seeds {sorted({r[2] for r in rows})}")
    results = [0] * k
    for room, points, _seed in rows:
        for side, p in enumerate(json.loads(points)):
            results[(side - room) % k] += p
    board_id = db.execute("INSERT INTO boards (match_id, board_no, seed, completed) VALUES (?, ?, ?, ?)",
                          [match["id"], board_no, rows[0][2], _now()]).lastrowid
    scores = [sum(1.0 if r > o else 0.5 if r == o else 0.0 for f, o in enumerate(results) if f != e)
              for e, r in enumerate(results)]
    margins = [results[0] - results[1], results[1] - results[0]] if teams else results
    db.conn.executemany("INSERT INTO board_entrants (board_id, entrant, result, margin, score) VALUES (?, ?, ?, ?, ?)",
                        [(board_id, e, results[e], margins[e], scores[e]) for e in range(k)])


def compute_and_store_ratings(
    db: sqlite_utils.Database, tid: int, *, bootstrap: int = BOOTSTRAP, seed: int = 0,
    samples: list[list[float]] | None = None, inputs: dict | None = None,
) -> list[dict]:
    """Recompute the ratings from all finished boards (both interval kinds from one bootstrap,
    and the progression of the headline fit over the deals) and replace the stored ones
    atomically. Returns the headline rows (intervals against the pool), strongest first."""
    r = compute_ratings(db, tid, bootstrap=bootstrap, seed=seed, samples=samples, inputs=inputs)
    pool = rating_pool(r)
    points = progression_in_boards(db, tid, pool)
    n = finished_boards(db, tid)
    now = _now()
    played = pool.seated  # each bot's own boards (a board counts once per bot: its comparisons' weights)
    params = _dumps({**r["params"], "tournament_boards": n})
    with db.atomic():
        db.execute("DELETE FROM ratings WHERE tournament_id = ?", [tid])
        db.execute("DELETE FROM rating_progression WHERE tournament_id = ?", [tid])
        db.conn.executemany(
            "INSERT INTO ratings (tournament_id, bot_id, method, errors, elo, ci_low, ci_high, los_next, flags,"
            " more_than, less_than, boards, params, computed) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(tid, h.bot, BT_METHOD, kind, h.elo, h.ci_low, h.ci_high, h.los_next, _dumps(sorted(h.flags)),
              h.more_than, h.less_than, round(played.get(h.bot, 0)), params, now)
             for kind, headline in r["ratings"].items() for h in headline],
        )
        db.conn.executemany(
            "INSERT INTO rating_progression (tournament_id, point, boards, bot_id, elo) VALUES (?, ?, ?, ?, ?)",
            [(tid, point, boards, bot, elo) for point, (boards, elo_of) in enumerate(points, start=1)
             for bot, elo in elo_of.items()],
        )
    return [
        {"bot_id": h.bot, "elo": h.elo, "ci_low": h.ci_low, "ci_high": h.ci_high, "los_next": h.los_next}
        for h in r["ratings"]["pool"]
    ]
