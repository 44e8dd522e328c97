"""Exports of a tournament: one row per table as CSV, or the whole tournament as one document
(schema 3: a match is k entrants in every listing, each board with each entrant's result, margin
and score; with the ratings' interval kind, prior, flags and pool flags, each board's room
outcomes, so that outside tools such as Ordo or BayesElo can refit, and the stored progression of
the headline fit over the deals).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator, Sequence
from typing import TextIO

import sqlite_utils

from arena.errors import json_visible

import games
from arena.results import compact
from arena.results.read import (
    _bot_labels,
    board_outcomes,
    get_tournament,
    iter_board_results,
    matches,
    progression,
    schedule,
    standings_document,
)

EXPORT_COLUMNS = (
    "tournament", "match_no", "board_no", "room", "board_seed", "entrants", "seats", "seat_entrants",
    "side_points", "entrant_points", "board_results", "board_scores", "forfeit_seat", "forfeit_status",
    "deals", "deal_ids", "duration_s", "started",
)
"""One row per table, one shape for every match: a match is k entrants, each one side's bots, and
a board is played in k rooms, room r giving side j to entrant (j - r) mod k (two teams: room 0
straight, room 1 swapped). Lists are space-separated, in entrant (or seat, or side) order.
entrants: each entrant's bots, `a` for one bot (or clones of it), `a+b` for mixed partners;
seats: the bot at each seat; seat_entrants: the entrant (0-based) at each seat; side_points:
each side's points at this table (forfeit applied); entrant_points: each entrant's, the side it
held; board_results: each entrant's result over the board's rooms, board_scores: the other
entrants it beat on that result (draws half), both once every room of the board is in;
deal_ids: the table's deals in play order, each for `arena replay ID`."""


def _joined(values: Sequence[object] | None) -> str | None:
    return None if values is None else " ".join(map(str, values))


def export_rows(db: sqlite_utils.Database, tid: int) -> Iterator[dict]:
    """One flat row per played table, in canonical order (the CSV export); a board's rows come
    together, so its results are filled in from its own rooms."""
    t = get_tournament(db, tid)
    labels = _bot_labels(db, tid)
    entrants = {m["match_no"]: m["entrants"] for m in schedule(db, tid)}
    try:
        g = games.game(t["game"])
        layout: games.Layout | None = g.layout(g.variant(t["variant"]))
    except (games.GameError, ValueError, TypeError):
        layout = None  # a game not installed here: no seat's side
    board: list[dict] = []
    for r in db.query(
        "SELECT t.*, m.match_no, b.id AS board_id,"
        " (SELECT COUNT(*) FROM deals d WHERE d.table_id = t.id) AS deals,"
        " (SELECT group_concat(id, ' ') FROM (SELECT id FROM deals d WHERE d.table_id = t.id ORDER BY deal_no))"
        " AS deal_ids,"
        " (SELECT json_group_array(bot_id) FROM (SELECT bot_id FROM seats s WHERE s.table_id = t.id ORDER BY seat)) AS seat_bots"
        " FROM board_tables t JOIN matches m ON m.id = t.match_id"
        " LEFT JOIN boards b ON b.match_id = t.match_id AND b.board_no = t.board_no"
        " WHERE m.tournament_id = ? ORDER BY m.match_no, t.board_no, t.swapped",
        [tid],
    ):
        if board and (board[0]["match_no"], board[0]["board_no"]) != (r["match_no"], r["board_no"]):
            yield from _board_rows(board)
            board = []
        forfeit = json.loads(r["forfeit"]) if r["forfeit"] else {}
        room = int(r["swapped"])
        points = json.loads(r["side_points"])
        match = entrants[r["match_no"]]
        k = len(match)
        seat_bots = json.loads(r["seat_bots"])
        board.append({
            "tournament": t["name"], "match_no": r["match_no"], "board_no": r["board_no"], "room": room,
            "board_seed": r["board_seed"], "entrants": " ".join("+".join(dict.fromkeys(labels[x] for x in e)) for e in match),
            "seats": " ".join(labels[b] for b in seat_bots),
            "seat_entrants": None if layout is None or layout.players != len(seat_bots)
            else _joined([(layout.side_of(s) - room) % k for s in range(layout.players)]),
            "side_points": _joined(points), "entrant_points": [points[(e + room) % k] for e in range(k)],
            "complete": r["board_id"] is not None,
            "forfeit_seat": forfeit.get("seat"), "forfeit_status": forfeit.get("status"),
            "deals": r["deals"], "deal_ids": r["deal_ids"] or "", "duration_s": r["duration_s"], "started": r["started"],
        })
    if board:
        yield from _board_rows(board)


def _board_rows(tables: list[dict]) -> Iterator[dict]:
    """A board's rows, with each entrant's result over the rooms and its score once it is complete."""
    results = scores = None
    if tables[0]["complete"]:
        results = [sum(x) for x in zip(*(t["entrant_points"] for t in tables))]
        scores = [sum(1.0 if r > o else 0.5 if r == o else 0.0 for f, o in enumerate(results) if f != e)
                  for e, r in enumerate(results)]
    for t in tables:
        row = {**t, "entrant_points": _joined(t["entrant_points"]), "board_results": _joined(results),
               "board_scores": _joined(None if scores is None else [f"{x:g}" for x in scores])}
        yield {c: row[c] for c in EXPORT_COLUMNS}


def write_csv(db: sqlite_utils.Database, tid: int, out: TextIO) -> None:
    """The tables of a tournament as CSV, a header line first, written row by row."""
    writer = csv.DictWriter(out, fieldnames=EXPORT_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in export_rows(db, tid):
        writer.writerow(row)


def export_csv(db: sqlite_utils.Database, tid: int) -> str:
    """The tables of a tournament as CSV text (small tournaments; `write_csv` streams)."""
    buf = io.StringIO()
    write_csv(db, tid, buf)
    return buf.getvalue()


def _tables(db: sqlite_utils.Database, tid: int) -> Iterator[dict]:
    """Every played table with its seats and deals, one at a time, in canonical order."""
    labels = _bot_labels(db, tid)
    t = get_tournament(db, tid)
    game = games.game(t["game"])
    variant = game.variant(t["variant"])
    for tr in db.query(
        "SELECT t.*, m.match_no FROM board_tables t JOIN matches m ON m.id = t.match_id"
        " WHERE m.tournament_id = ? ORDER BY m.match_no, t.board_no, t.swapped",
        [tid],
    ):
        yield {
            "table_id": tr["id"], "match_no": tr["match_no"], "board_no": tr["board_no"],
            "swapped": bool(tr["swapped"]), "room": tr["swapped"], "board_seed": tr["board_seed"],
            "points": json.loads(tr["side_points"]),
            "forfeit": json.loads(tr["forfeit"]) if tr["forfeit"] else None,
            "started": tr["started"], "duration_s": tr["duration_s"],
            "seats": [
                {"seat": s["seat"], "name": s["announced_name"], "version": s["announced_version"],
                 **{k: s[k] for k in ("status", "detail")}, "stderr": s["stderr_tail"],
                 **{k: s[k] for k in ("moves", "think_ms_total", "think_ms_max")}, "bot": labels[s["bot_id"]]}
                for s in db.query("SELECT * FROM seats WHERE table_id = ? ORDER BY seat", [tr["id"]])
            ],
            "deals": [
                {
                    "deal_id": d["id"], "number": d["number"], "seed": str(d["seed"]), "dealer": d["dealer"],
                    "carry": d["carry"],
                    "points": d["points"], "breakdown": d["breakdown"], "moves": d["moves"],
                    "complete": d["complete"],
                }
                for d in compact.table_deals(db, tr["id"], variant, game)
            ],
        }


def _boards(db: sqlite_utils.Database, tid: int) -> Iterator[dict]:
    """Every board in one shape, a match being k entrants: `entrants`, each one's `results` over
    the board's rooms, `margins` (two sides of partners: its result less the other's; else its
    result) and `scores` (the others it beat on them, draws half); entrant 0's `margin`,
    `outcome` and `result` over entrant 1; for two teams of partners, entrant 0's outcome in each
    room (1, 0.5 or 0) and their sum (`rooms`, `score`; else None)."""
    rooms = {(b["match_no"], b["board_no"]): b for b in board_outcomes(db, tid)}
    for b in iter_board_results(db, tid):
        outcome = rooms[b["match_no"], b["board_no"]]
        yield {**{k: b[k] for k in ("board_id", "match_no", "board_no", "margin", "outcome")}, "seed": str(b["seed"]),
               **{k: outcome[k] for k in ("entrants", "results", "scores")}, "margins": b["margins"],
               **{k: outcome[k] for k in ("deal", "result", "rooms", "score")}}


def _head(db: sqlite_utils.Database, tid: int) -> dict:
    t = get_tournament(db, tid)
    t["seed"] = str(t["seed"])  # JSON readers lose precision on integers above 2**53
    ranking = standings_document(db, tid, boards=False)  # the boards' room outcomes go with the boards, below
    return {
        "schema": 3,
        "tournament": t,
        "ratings": {k: v for k, v in ranking.items() if k not in ("tournament", "standings")},
        "standings": ranking["standings"],
        "matches": matches(db, tid),
        "progression": [{k: p[k] for k in ("point", "boards", "bot", "elo")} for p in progression(db, tid)],
    }


def export_document(db: sqlite_utils.Database, tid: int) -> dict:
    """The whole tournament as one JSON-safe document: settings, bots, standings, every deal
    (in memory: small tournaments and tests; `write_json` streams the same document)."""
    return {**_head(db, tid), "boards": list(_boards(db, tid)), "tables": list(_tables(db, tid))}


def write_json(db: sqlite_utils.Database, tid: int, out: TextIO) -> None:
    """`export_document` written piece by piece, a board or a table at a time, so memory does
    not grow with the tournament (one item per line after the head)."""
    head = json_visible(json.dumps(_head(db, tid), indent=1, ensure_ascii=False))
    out.write(head[:-2] + ",\n")  # the head's closing "\n}" is written at the end
    for key, items in (("boards", _boards(db, tid)), ("tables", _tables(db, tid))):
        out.write(f' "{key}": [')
        sep = "\n"
        for item in items:
            out.write(sep + json_visible(json.dumps(item, ensure_ascii=False, separators=(",", ":"))))
            sep = ",\n"
        out.write("\n ]" + (",\n" if key == "boards" else "\n}\n"))
