"""A short text notation for cards, moves and positions: for logs, replays and bug reports.

Cards are their codes (`TD`, `X20`). Units on the table: a loose card is its code, a build is
`(5C+4H=9@2)` (its cards, declared value, the seat that built it). Moves, with table indices:

    9Sx0+1+2=9    capture: 9S takes units 0, 1 and 2 at value 9 (`=9` may be left out)
    2C>3=9        build: 2C onto unit 3, announcing 9
    5H            trail: 5H laid on the table

A position is one `key: value` line each (see `position_text`); `parse_position` reads it back,
so `parse_position(position_text(s)) == s`. The lines `moves` and `over` may be left out, like
the keys `moves` and `is_over` of the plain-data form. The text of a move and of a unit is made
in `engine.moves`, that of a position in `engine.position`; this module reads them all back
(and re-exports the writers). It sits above `engine.state`: modules import one way.
"""

from __future__ import annotations

import json
import re
from typing import Any

from engine.errors import EngineError, PositionError
from engine.zwicker.moves import Move, move_text, unit_text
from engine.zwicker.position import position_text
from engine.zwicker.state import State

_CARD = r"(?:[A2-9TJQK][CDHS]|X\d+|XW)"
_MOVE = re.compile(rf"^(?P<card>{_CARD})(?:x(?P<take>\d+(?:\+\d+)*)(?:=(?P<cv>\d+))?|>(?P<onto>\d+)=(?P<bv>\d+))?$")
_BUILD = re.compile(rf"^\((?P<cards>{_CARD}(?:\+{_CARD})+)=(?P<value>\d+)@(?P<by>\d+)\)$")


def parse_move(text: str) -> Move:
    m = _MOVE.match(text.strip())
    if not m:
        raise EngineError(f"move: cannot read {text!r} (examples: 9Sx0+1=9, 2C>3=9, 5H)")
    card = m["card"]
    if m["take"] is not None:
        take = tuple(int(x) for x in m["take"].split("+"))
        if len(set(take)) != len(take):
            raise EngineError(f"move: {text!r} names a unit twice")
        return Move("capture", card, int(m["cv"]) if m["cv"] else None, tuple(sorted(take)))
    if m["onto"] is not None:
        return Move("build", card, int(m["bv"]), (), int(m["onto"]))
    return Move("trail", card)


def parse_unit(text: str) -> Any:
    m = _BUILD.match(text)
    if m:
        return {"build": m["cards"].split("+"), "value": int(m["value"]), "by": int(m["by"])}
    return text


def parse_position(text: str) -> Any:
    """The inverse of `position_text`."""
    fields: dict[str, str] = {}
    for number, line in enumerate(text.strip().splitlines(), 1):
        key, sep, value = line.partition(":")
        if not sep:
            raise PositionError(f"line {number}: expected 'key: value', got {line!r}")
        fields[key.strip()] = value.strip()

    def get(key: str) -> str:
        if key not in fields:
            raise PositionError(f"position text: missing line {key!r}")
        return fields[key]

    def items(key: str) -> list[str]:
        value = get(key)
        return [] if value == "-" else value.split()

    def integer(key: str, text: str) -> int:
        if not re.fullmatch(r"\d+", text):
            raise PositionError(f"{key}: expected a number, got {text!r}")
        return int(text)

    raw = get("variant")
    variant: Any = json.loads(raw) if raw.startswith("{") else raw
    hands = [items(f"hand {s}") for s in range(sum(1 for k in fields if k.startswith("hand ")))]
    taken = [items(f"taken {s}") for s in range(sum(1 for k in fields if k.startswith("taken ")))]
    moves = []
    for token in items("moves") if "moves" in fields else []:
        seat, _, mv = token.partition(":")
        moves.append({"seat": integer("moves", seat), **parse_move(mv).to_dict()})
    last = get("last_capture")
    over = {}  # without the line, from_dict derives it from the cards
    if "over" in fields:
        if fields["over"] not in ("yes", "no"):
            raise PositionError(f"over: expected yes or no, got {fields['over']!r}")
        over = {"is_over": fields["over"] == "yes"}
    return State.from_dict({
        "variant": variant,
        "dealer": integer("dealer", get("dealer")),
        "to_move": integer("to_move", get("to_move")),
        "hands": hands,
        "table": [parse_unit(u) for u in items("table")],
        "stock": items("stock"),
        "taken": taken,
        "zwicks": [integer("zwicks", z) for z in get("zwicks").split()],
        "last_capture": None if last == "-" else integer("last_capture", last),
        "moves": moves,
        **over,
    })


__all__ = ["move_text", "parse_move", "parse_position", "parse_unit", "position_text", "unit_text"]
