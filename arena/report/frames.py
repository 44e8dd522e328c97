"""A stored deal as the positions the replay viewer steps through, made by the game's rules.

Frame k is the position after k moves as the game draws it (`State.frame`: for Zwicker every
hand, which the viewer hides but one seat's for that seat's view, the table's units, stock and
taken counts, Zwicks, and the move that led there with the cards it took). Re-applying the moves
also checks the stored record, as `arena replay` does.
"""

from __future__ import annotations

from typing import Any

import sqlite_utils

import games
from arena.errors import ArenaError
from arena.results import read, replay


def deal_frames(doc: dict[str, Any]) -> dict[str, Any]:
    """The replay document (arena.results.replay.document) with its frames and final score."""
    game, v = replay.rules(doc)
    state = game.deal(v, int(doc["seed"]), doc["dealer"], doc.get("carry"))
    frames = [state.frame()]
    for k, record in enumerate(doc["moves"]):
        try:
            move = game.move_from_dict(record["move"])
            after = state.apply(move)
        except games.IllegalMove as exc:
            raise ArenaError(f"deal {doc['deal_id']}: stored move {k + 1} does not replay: {exc}") from None
        frame = after.frame(state, move)
        frame["move"] = {"seat": record["seat"], **frame["move"], "ms": record.get("ms")}
        frames.append(frame)
        state = after
    layout = game.layout(v)
    sides = [layout.side_of(seat) for seat in range(layout.players)]
    return {
        "sides": layout.num_sides, "seat_sides": sides,  # from the game's layout
        "deal_id": doc["deal_id"], "tournament": doc["tournament"], "match": doc["match"], "board": doc["board"],
        "swapped": doc["swapped"], "number": doc["number"], "variant": str(v), "game": game.info.name,
        "preset": v.to_dict().get("preset"), "players": v.players, "seed": str(doc["seed"]), "dealer": doc["dealer"],
        "seats": doc["seats"], "frames": frames, "complete": doc["complete"],
        "breakdown": state.result().detail if state.is_over else None,
        "points": doc["points"], "forfeit": doc["forfeit"],
    }


def deal_page(db: sqlite_utils.Database, deal_id: int) -> dict[str, Any]:
    """The replay viewer's data for one stored deal."""
    doc = replay.document(db, deal_id)
    page = deal_frames(doc)
    page["tournament_id"] = read.get_deal(db, deal_id)["tournament_id"]
    return page
