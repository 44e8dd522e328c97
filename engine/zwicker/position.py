"""Positions as plain data (docs/rules.md section 8), validated field by field on the way in.

`fields` (behind `State.from_dict`) accepts partial positions (fewer cards than the deck, as in the worked examples)
but never more copies of a card than the packs hold. The optional key `moves` carries the deal's
public move list so that a position round-trips exactly; the optional key `is_over` must agree
with the cards (a deal is over when every hand and the stock are empty).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import json

from engine.errors import PositionError
from engine.zwicker.moves import Build, Move, Unit, move_text, unit_cards, unit_text
from engine.zwicker.variant import Variant, variant as make_variant


def unit_to_data(unit: Unit) -> Any:
    if type(unit) is Build:
        return {"build": list(unit.cards), "value": unit.value, "by": unit.by}
    return unit


def variant_to_data(v: Variant) -> str | dict[str, Any]:
    return v.preset if v == make_variant(v.preset) else v.to_dict()


def to_dict(state: Any) -> dict[str, Any]:
    return {
        "variant": variant_to_data(state.variant),
        "dealer": state.dealer,
        "to_move": state.to_move,
        "hands": [list(h) for h in state.hands],
        "table": [unit_to_data(u) for u in state.table],
        "stock": list(state.stock),
        "taken": [list(t) for t in state.taken],
        "zwicks": list(state.zwicks),
        "last_capture": state.last_capture,
        "moves": [{"seat": s, **m.to_dict()} for s, m in state.history],
        "is_over": state.is_over,
    }


def _need(d: dict, key: str, kind: type | tuple[type, ...]) -> Any:
    if key not in d:
        raise PositionError(f"position: missing key {key!r}")
    value = d[key]
    if not isinstance(value, kind) or isinstance(value, bool) and kind is int:
        raise PositionError(f"{key}: expected {getattr(kind, '__name__', kind)}, got {value!r}")
    return value


def fields(d: Any) -> dict[str, Any]:
    """A plain-data position's fields, validated, as `engine.State(**fields)` takes them
    (`State.from_dict`; this module sits below `engine.state` and never builds one itself)."""
    if not isinstance(d, dict):
        raise PositionError(f"position: expected a dict, got {type(d).__name__}")
    try:
        v = make_variant(_need(d, "variant", (str, dict)))
    except PositionError:
        raise
    except ValueError as exc:
        raise PositionError(f"variant: {exc}") from None
    rules = v.rules
    n, sides = v.players, rules.num_sides
    known = set(rules.distinct)
    seen: Counter[str] = Counter()

    def card(code: Any, where: str) -> str:
        if not isinstance(code, str) or code not in known:
            raise PositionError(f"{where}: unknown card code {code!r} for {v.preset}")
        seen[code] += 1
        return code

    def seat_field(key: str) -> int:
        value = _need(d, key, int)
        if not 0 <= value < n:
            raise PositionError(f"{key}: must be a seat 0..{n - 1}, got {value}")
        return value

    dealer, to_move = seat_field("dealer"), seat_field("to_move")
    hands_in = _need(d, "hands", list)
    if len(hands_in) != n:
        raise PositionError(f"hands: expected {n} hands for {n} players, got {len(hands_in)}")
    hands = []
    for s, h in enumerate(hands_in):
        if not isinstance(h, list):
            raise PositionError(f"hands[{s}]: expected a list of cards, got {h!r}")
        hands.append(tuple(card(c, f"hands[{s}][{i}]") for i, c in enumerate(h)))
    table: list[Unit] = []
    for i, u in enumerate(_need(d, "table", list)):
        where = f"table[{i}]"
        if isinstance(u, dict):
            missing = {"build", "value", "by"} - set(u)
            if missing:
                raise PositionError(f"{where}: a build needs the key {sorted(missing)[0]!r}")
            pile = u["build"]
            if not isinstance(pile, list) or len(pile) < 2:
                raise PositionError(f"{where}.build: expected a list of at least two cards, got {pile!r}")
            value, by = u["value"], u["by"]
            if type(value) is not int or value < 1:
                raise PositionError(f"{where}.value: expected a positive integer, got {value!r}")
            if type(by) is not int or not 0 <= by < n:
                raise PositionError(f"{where}.by: must be a seat 0..{n - 1}, got {by!r}")
            table.append(Build(tuple(card(c, f"{where}.build[{k}]") for k, c in enumerate(pile)), value, by))
        else:
            table.append(card(u, where))
    stock = tuple(card(c, f"stock[{i}]") for i, c in enumerate(_need(d, "stock", list)))
    taken_in = _need(d, "taken", list)
    if len(taken_in) != sides:
        raise PositionError(f"taken: expected {sides} piles (one per side), got {len(taken_in)}")
    taken = []
    for s, pile in enumerate(taken_in):
        if not isinstance(pile, list):
            raise PositionError(f"taken[{s}]: expected a list of cards, got {pile!r}")
        taken.append(tuple(card(c, f"taken[{s}][{i}]") for i, c in enumerate(pile)))
    zwicks = _need(d, "zwicks", list)
    if len(zwicks) != sides or any(type(z) is not int or z < 0 for z in zwicks):
        raise PositionError(f"zwicks: expected {sides} non-negative integers, got {zwicks!r}")
    last = d.get("last_capture")
    if last is not None and (type(last) is not int or not 0 <= last < sides):
        raise PositionError(f"last_capture: must be null or a side 0..{sides - 1}, got {last!r}")
    deck_count = Counter(rules.deck)
    for code, k in seen.items():
        if k > deck_count[code]:
            raise PositionError(f"{code}: occurs {k} times, but the packs hold {deck_count[code]}")
    history = []
    for i, m in enumerate(d.get("moves") or []):
        if not isinstance(m, dict) or type(m.get("seat")) is not int or not 0 <= m["seat"] < n:
            raise PositionError(f"moves[{i}]: expected a move dict with a seat 0..{n - 1}")
        try:
            history.append((m["seat"], Move.from_dict({k: x for k, x in m.items() if k != "seat"})))
        except ValueError as exc:
            raise PositionError(f"moves[{i}]: {exc}") from None
    # A deal is over exactly when every hand and the stock are empty (the engine refills empty
    # hands at once), so `is_over` is redundant: checked when given, derived when not.
    over = not stock and not any(hands)
    is_over = d.get("is_over", over)
    if type(is_over) is not bool:
        raise PositionError(f"is_over: expected true or false, got {is_over!r}")
    if is_over != over:
        held = "every hand and the stock are empty" if over else "cards are still to be played"
        raise PositionError(f"is_over: {str(is_over).lower()} contradicts the cards: {held}")
    if over and table and last is not None:
        raise PositionError(f"table: the deal is over, so the units left on the table belong to side {last} "
                            f"(the last capture) in taken[{last}]")
    if not over and not hands[to_move]:
        raise PositionError(f"to_move: seat {to_move} holds no cards, but the deal is not over")
    return dict(
        variant=v, dealer=dealer, to_move=to_move, hands=tuple(hands), table=tuple(table), stock=stock,
        taken=tuple(taken), zwicks=tuple(zwicks), last_capture=last, history=tuple(history), is_over=is_over,
    )


def _cards(seq: Any) -> str:
    return " ".join(seq) if seq else "-"


def position_text(state: Any) -> str:
    """One line per fact; hands, piles and stock in order."""
    v = variant_to_data(state.variant)
    lines = [
        f"variant: {v if isinstance(v, str) else json.dumps(v, sort_keys=True)}",
        f"dealer: {state.dealer}",
        f"to_move: {state.to_move}",
    ]
    lines += [f"hand {s}: {_cards(h)}" for s, h in enumerate(state.hands)]
    lines.append(f"table: {_cards([unit_text(u) for u in state.table])}")
    lines.append(f"stock: {_cards(state.stock)}")
    lines += [f"taken {s}: {_cards(t)}" for s, t in enumerate(state.taken)]
    lines.append(f"zwicks: {' '.join(map(str, state.zwicks))}")
    lines.append(f"last_capture: {'-' if state.last_capture is None else state.last_capture}")
    lines.append(f"moves: {_cards([f'{s}:{move_text(m)}' for s, m in state.history])}")
    lines.append(f"over: {'yes' if state.is_over else 'no'}")
    return "\n".join(lines)


__all__ = ["fields", "position_text", "to_dict", "unit_to_data", "unit_cards", "variant_to_data"]
