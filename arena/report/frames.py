"""A stored deal as the positions the replay viewer steps through, made with the engine.

Frame k is the position after k moves: every hand (the viewer hides the others' for one seat's
view), the table's units, stock and taken counts, Zwicks, and the move that led there with the
cards it took. Re-applying the moves also checks the stored record, as `arena replay` does.
"""

from __future__ import annotations

from typing import Any

import sqlite_utils

import engine
from arena.errors import ArenaError
from arena.results import read, replay
from engine.moves import Build, unit_cards
from engine.notation import move_text


def _unit(unit: Any) -> Any:
    if type(unit) is Build:
        return {"build": list(unit.cards), "value": unit.value, "by": unit.by}
    return unit


def _frame(state: engine.State) -> dict[str, Any]:
    rules = state.variant.rules
    return {
        # each side's card points and Zwick points so far (the most-cards bonus comes at the end)
        "points": [sum(rules.points[c] for c in pile) + z * rules.zwick for pile, z in zip(state.taken, state.zwicks)],
        "hands": [list(h) for h in state.hands],
        "table": [_unit(u) for u in state.table],
        "stock": len(state.stock),
        "taken": [len(t) for t in state.taken],
        "zwicks": list(state.zwicks),
        "to_move": None if state.is_over else state.to_move,
        "over": state.is_over,
    }


def _build_sum(state: engine.State, move: engine.Move) -> str | None:
    """How a build's announced value comes about: `4 + 3 = 7`, or for a subtraction build
    `20 − 13 = 7` (the unit's value, then the card's)."""
    rules = state.variant.rules
    unit = state.table[move.onto]
    unit_vals = (unit.value,) if type(unit) is Build else rules.values[unit]
    for b in unit_vals:
        for a in rules.values[move.card]:
            if a + b == move.value:
                return f"{b} + {a} = {move.value}"
    for b in unit_vals:
        for a in rules.values[move.card]:
            if b - a == move.value:
                return f"{b} \u2212 {a} = {move.value}"
    return None


def deal_frames(doc: dict[str, Any]) -> dict[str, Any]:
    """The replay document (arena.results.replay.document) with its frames and final score."""
    state = engine.deal(doc["variant"], doc["seed"], doc["dealer"])
    frames = [_frame(state)]
    for k, record in enumerate(doc["moves"]):
        move = engine.Move.from_dict(record["move"])
        try:
            after = state.apply(move)
        except engine.IllegalMove as exc:
            raise ArenaError(f"deal {doc['deal_id']}: stored move {k + 1} does not replay: {exc}") from None
        took = [list(unit_cards(state.table[i])) for i in move.take] if move.type == "capture" else []
        onto = list(unit_cards(state.table[move.onto])) if move.type == "build" else None
        sum_text = _build_sum(state, move) if move.type == "build" else None
        captured = 1 + sum(map(len, took)) if move.type == "capture" else 0
        leftovers = sum(map(len, after.taken)) - sum(map(len, state.taken)) - captured
        frame = _frame(after)
        frame["move"] = {
            "seat": record["seat"], "text": move_text(move), "type": move.type, "card": move.card,
            "value": move.value, "take": list(move.take), "took": took, "onto": move.onto, "onto_cards": onto,
            "ms": record.get("ms"), "sum": sum_text,
            "zwick": move.type == "capture" and not after.table and after.zwicks != state.zwicks,
            # at the end the cards still on the table go to the side that captured last
            "leftovers": leftovers, "leftovers_to": after.last_capture if leftovers else None,
        }
        frames.append(frame)
        state = after
    v = state.variant
    sides = [v.side_of(seat) for seat in range(v.players)]
    return {
        "sides": max(sides) + 1, "seat_sides": sides,  # from the variant's layout, as the engine has it
        "deal_id": doc["deal_id"], "tournament": doc["tournament"], "match": doc["match"], "board": doc["board"],
        "swapped": doc["swapped"], "number": doc["number"], "variant": str(engine.variant(doc["variant"])),
        "preset": v.preset, "players": v.players, "seed": str(doc["seed"]), "dealer": doc["dealer"],
        "seats": doc["seats"], "frames": frames, "complete": doc["complete"],
        "breakdown": state.breakdown() if state.is_over else None,
        "points": doc["points"], "forfeit": doc["forfeit"],
    }


def deal_page(db: sqlite_utils.Database, deal_id: int) -> dict[str, Any]:
    """The replay viewer's data for one stored deal."""
    doc = replay.document(db, deal_id)
    page = deal_frames(doc)
    page["tournament_id"] = read.get_deal(db, deal_id)["tournament_id"]
    return page
