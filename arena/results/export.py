"""Exports of a tournament: one row per table as CSV, or the whole tournament as one document
(schema 2: with the ratings' interval kind, prior, flags and pool flags, each board's room
outcomes, so that outside tools such as Ordo or BayesElo can refit, and the stored progression of
the headline fit over the deals).
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
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
    standings_document,
)
from arena.results.sprt import room_score

EXPORT_COLUMNS = (
    "tournament", "match_no", "board_no", "swapped", "board_seed", "team_a", "team_b",
    "seat0", "seat1", "seat2", "seat3", "points0", "points1", "team_a_margin",
    "board_margin", "board_outcome", "forfeit_seat", "forfeit_status", "deals", "deal_ids", "duration_s", "started",
    "team_a_room", "board_score", "room", "seats", "side_points", "entrants", "entrant_results",
)
"""deal_ids: the table's deals, space-separated in play order, each for `arena replay ID`.
team_a_room: team A's result at this table (1 win, 0.5 draw, 0 loss); board_score: both
rooms' results summed (0 .. 2), what the SPRT counts, once the board's second table is in.
room: 0 .. k-1 (two teams: 0 straight, 1 swapped, as `swapped`); seats: every seat's bot,
space-separated; side_points: every side's points. A match of k entrants (one bot a seat:
Zwicken) names them in `entrants` (space-separated, entrant order; room r seats entrant
(seat - r) mod k) and their board results in `entrant_results`; its team columns name entrants
0 and 1, and team_a_margin, team_a_room and board_score are empty."""


def export_rows(db: sqlite_utils.Database, tid: int) -> Iterator[dict]:
    """One flat row per played table, in canonical order (the CSV export)."""
    t = get_tournament(db, tid)
    labels = _bot_labels(db, tid)
    outcomes = {(b["match_no"], b["board_no"]): b for b in board_outcomes(db, tid)}
    groups = {m["match_no"]: m["entrants"] for m in matches(db, tid) if m.get("entrants")}
    for r in db.query(
        "SELECT t.*, m.match_no, m.team_a_bot1_id, m.team_a_bot2_id, m.team_b_bot1_id, m.team_b_bot2_id,"
        " b.team_a_margin AS board_margin, b.team_a_outcome AS outcome,"
        " (SELECT COUNT(*) FROM deals d WHERE d.table_id = t.id) AS deals,"
        " (SELECT group_concat(id, ' ') FROM (SELECT id FROM deals d WHERE d.table_id = t.id ORDER BY deal_no))"
        " AS deal_ids,"
        " (SELECT json_group_array(bot_id) FROM (SELECT bot_id FROM seats s WHERE s.table_id = t.id ORDER BY seat)) AS seat_bots"
        " FROM board_tables t JOIN matches m ON m.id = t.match_id"
        " LEFT JOIN boards b ON b.match_id = t.match_id AND b.board_no = t.board_no"
        " WHERE m.tournament_id = ? ORDER BY m.match_no, t.board_no, t.swapped",
        [tid],
    ):
        seat_bots = [labels[b] for b in json.loads(r["seat_bots"])]
        forfeit = json.loads(r["forfeit"]) if r["forfeit"] else {}
        a_side = 1 if r["swapped"] else 0
        points = json.loads(r["side_points"]) if r["side_points"] else [r["side0_points"], r["side1_points"]]
        entrants = groups.get(r["match_no"])
        outcome = outcomes.get((r["match_no"], r["board_no"]), {})
        row = {
            "tournament": t["name"], "match_no": r["match_no"], "board_no": r["board_no"],
            "swapped": int(r["swapped"]), "board_seed": r["board_seed"],
            "team_a": "+".join(dict.fromkeys(labels[x] for x in (r["team_a_bot1_id"], r["team_a_bot2_id"]))) if entrants
            else "+".join(labels[x] for x in (r["team_a_bot1_id"], r["team_a_bot2_id"])),
            "team_b": "+".join(dict.fromkeys(labels[x] for x in (r["team_b_bot1_id"], r["team_b_bot2_id"]))) if entrants
            else "+".join(labels[x] for x in (r["team_b_bot1_id"], r["team_b_bot2_id"])),
            "points0": r["side0_points"], "points1": r["side1_points"],
            "team_a_margin": None if entrants else points[a_side] - points[1 - a_side],
            "board_margin": r["board_margin"], "board_outcome": r["outcome"],
            "forfeit_seat": forfeit.get("seat"), "forfeit_status": forfeit.get("status"),
            "deals": r["deals"], "deal_ids": r["deal_ids"] or "", "duration_s": r["duration_s"], "started": r["started"],
            "room": int(r["swapped"]), "seats": " ".join(seat_bots), "side_points": " ".join(map(str, points)),
            "entrants": " ".join(entrants) if entrants else None,
            "entrant_results": " ".join(map(str, outcome["results"])) if outcome.get("results") else None,
        }
        row["team_a_room"] = None if entrants else room_score(row["team_a_margin"])
        row["board_score"] = outcome.get("score")
        for i in range(4):
            row[f"seat{i}"] = seat_bots[i] if i < len(seat_bots) else None
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
            "points": json.loads(tr["side_points"]) if tr["side_points"] else [tr["side0_points"], tr["side1_points"]],
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
    """Every board with its two room outcomes (team A's 1, 0.5 or 0 in each) and their sum."""
    labels = _bot_labels(db, tid)
    rooms = {(b["match_no"], b["board_no"]): b for b in board_outcomes(db, tid)}
    for b in iter_board_results(db, tid):
        outcome = rooms[b["match_no"], b["board_no"]]
        yield {**b, "seed": str(b["seed"]), "team_a": [labels[x] for x in b["team_a"]],
               "team_b": [labels[x] for x in b["team_b"]],
               **{k: outcome[k] for k in ("deal", "result", "rooms", "score", "entrants", "results", "scores")
                  if k in outcome}}


def _head(db: sqlite_utils.Database, tid: int) -> dict:
    t = get_tournament(db, tid)
    t["seed"] = str(t["seed"])  # JSON readers lose precision on integers above 2**53
    ranking = standings_document(db, tid, boards=False)  # the boards' room outcomes go with the boards, below
    return {
        "schema": 2,
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
