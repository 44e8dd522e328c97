"""Exports of a tournament: one row per table seat as CSV, or the whole tournament as one document.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator

import sqlite_utils

import engine
from arena.results import compact
from arena.results.read import (
    _bot_labels,
    board_results,
    get_tournament,
    matches,
    standings,
)

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
    variant = engine.variant(t["variant"])
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
                    "deal_id": d["id"], "number": d["number"], "seed": str(d["seed"]), "dealer": d["dealer"],
                    "points": d["points"], "breakdown": d["breakdown"], "moves": d["moves"],
                    "complete": d["complete"],
                }
                for d in compact.table_deals(db, tr["id"], variant)
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
