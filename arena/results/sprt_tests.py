"""Stored SPRT tests (`arena sprt`): a test's row beside the one-match tournament that holds its boards.

The boards are the tournament's own, written as any other (`write.record_table`); the row keeps the
test's parameters and where it stood when last saved. A resumed test recounts its boards from the
stored tables (`board_scores`), so the row can never disagree with them for long.
"""

from __future__ import annotations

import json

import sqlite_utils

from arena.errors import ArenaError
from arena.results.read import _bot_labels, board_outcomes
from arena.results.schema import _dumps, _now


def create(db: sqlite_utils.Database, tid: int, *, new_bot: int, old_bot: int, elo0: float, elo1: float,
           alpha: float, beta: float, max_boards: int | None, batch: int, max_faults: float | None = None) -> dict:
    """Store a new test of tournament `tid` (its match: NEW as team A against OLD)."""
    with db.atomic():
        db.execute(
            "INSERT INTO sprt_tests (tournament_id, new_bot, old_bot, elo0, elo1, alpha, beta, max_boards, batch,"
            " created, max_faults) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [tid, new_bot, old_bot, elo0, elo1, alpha, beta, max_boards, batch, _now(), max_faults],
        )
    found = get(db, tid)
    assert found is not None
    return found


def get(db: sqlite_utils.Database, tid: int) -> dict | None:
    """The test played by tournament `tid`, or None when that tournament is not a test."""
    rows = list(db.query(
        "SELECT s.*, t.name FROM sprt_tests s JOIN tournaments t ON t.id = s.tournament_id"
        " WHERE s.tournament_id = ?", [tid]))
    if not rows:
        return None
    row = dict(rows[0])
    row["counts"] = json.loads(row["counts"])
    labels = _bot_labels(db, tid)
    row["new"], row["old"] = labels[row["new_bot"]], labels[row["old_bot"]]
    return row


def save(db: sqlite_utils.Database, tid: int, *, boards: int, counts: list[int], llr: float, verdict: str | None,
         max_boards: int | None, max_faults: float | None) -> None:
    """Where the test stands now; a verdict stamps it finished (a raised limit reopens one)."""
    with db.atomic():
        cur = db.execute(
            "UPDATE sprt_tests SET boards = ?, counts = ?, llr = ?, verdict = ?, max_boards = ?, max_faults = ?,"
            " finished = CASE WHEN ? IS NULL THEN NULL ELSE COALESCE(finished, ?) END WHERE tournament_id = ?",
            [boards, _dumps(list(counts)), llr, verdict, max_boards, max_faults, verdict, _now(), tid],
        )
        if cur.rowcount == 0:
            raise ArenaError(f"tournament {tid} is not an SPRT test")


def grow(db: sqlite_utils.Database, tid: int, boards: int) -> None:
    """Give the test's match `boards` boards (never fewer than it has): the runner then plays the
    ones missing, as for any tournament that is resumed."""
    with db.atomic():
        db.execute("UPDATE tournaments SET boards_per_match = MAX(boards_per_match, ?) WHERE id = ?", [boards, tid])


def board_scores(db: sqlite_utils.Database, tid: int) -> list[float]:
    """NEW's board scores (its two room results summed, 0 .. 2) in board order, from the first
    board up to the first one not finished in both rooms."""
    scores = []
    for n, b in enumerate(sorted(board_outcomes(db, tid), key=lambda b: b["board_no"])):
        if b["board_no"] != n:
            break
        scores.append(b["score"] if b["rooms"] is not None else group_score(b["results"]))  # two teams: room by room
    return scores


def group_score(results: list[int]) -> float:
    """A board of NEW and OLD in alternate seats (entrants 0, 2, ... NEW's): NEW's mean result
    over its entrants against OLD's, won 2, drawn 1, lost 0. As a board score 0 .. 2 it is one
    comparison counted twice, so the test on it is the trinomial one, its Elo per board."""
    new, old = results[0::2], results[1::2]
    diff = sum(new) * len(old) - sum(old) * len(new)  # (the means compared without division)
    return 2.0 if diff > 0 else 1.0 if diff == 0 else 0.0
