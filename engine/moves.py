"""Moves as values, and the generation of every legal move (rules.md sections 3 and 8).

A capture is identified by its card and the *set* of units it takes; a build by card, unit and
announced value; a trail by its card. Generation lists each distinct move exactly once, in a
deterministic order: captures, then builds, then trails, each by hand order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from engine import cards
from engine.errors import EngineError

MOVE_TYPES = ("capture", "build", "trail")


class Build(NamedTuple):
    """A pile on the table with one declared value; `by` is the seat that last built it."""

    cards: tuple[str, ...]
    value: int
    by: int


Unit = str | Build  # a loose card is its code


def unit_cards(unit: Unit) -> tuple[str, ...]:
    return unit.cards if type(unit) is Build else (unit,)


@dataclass(frozen=True, slots=True)
class Move:
    """One move. `value` is the capturing or announced value (None for a trail)."""

    type: str
    card: str
    value: int | None = None
    take: tuple[int, ...] = ()
    onto: int | None = None

    @property
    def key(self) -> tuple:
        """What makes two moves the same move (rules.md section 8)."""
        if self.type == "capture":
            return ("capture", self.card, self.take)
        if self.type == "build":
            return ("build", self.card, self.onto, self.value)
        return ("trail", self.card)

    def to_dict(self) -> dict[str, Any]:
        if self.type == "capture":
            return {"type": "capture", "card": self.card, "value": self.value, "take": list(self.take)}
        if self.type == "build":
            return {"type": "build", "card": self.card, "value": self.value, "onto": self.onto}
        return {"type": "trail", "card": self.card}

    @classmethod
    def from_dict(cls, d: Any) -> "Move":
        """A move from its plain-data form; a bad field raises EngineError naming it."""
        if not isinstance(d, dict):
            raise EngineError(f"move: expected a dict, got {type(d).__name__}")
        kind = _field(d, "type", str)
        if kind not in MOVE_TYPES:
            raise EngineError(f"move.type: must be one of {', '.join(MOVE_TYPES)}, not {kind!r}")
        card = _field(d, "card", str)
        extra = set(d) - {"type", "card", "value", "take", "onto", "seat"}
        if extra:
            raise EngineError(f"move: unknown key {sorted(extra)[0]!r} for a {kind}")
        if kind == "trail":
            return cls("trail", card)
        if kind == "build":
            return cls("build", card, _field(d, "value", int), (), _field(d, "onto", int))
        take = _field(d, "take", list)
        if not take:
            raise EngineError("move.take: a capture takes at least one unit")
        for i, x in enumerate(take):
            if type(x) is not int:
                raise EngineError(f"move.take[{i}]: expected a table index, got {x!r}")
        if len(set(take)) != len(take):
            raise EngineError(f"move.take: names a unit twice: {take}")
        value = d.get("value")
        if value is not None and type(value) is not int:
            raise EngineError(f"move.value: expected an integer or null, got {value!r}")
        return cls("capture", card, value, tuple(sorted(take)))

    def __str__(self) -> str:
        from engine.notation import move_text

        return move_text(self)


def _field(d: dict, name: str, kind: type) -> Any:
    if name not in d:
        raise EngineError(f"move: missing key {name!r}")
    value = d[name]
    if type(value) is not kind:
        raise EngineError(f"move.{name}: expected {kind.__name__}, got {value!r}")
    return value


# -- generation -------------------------------------------------------------------------------


def _sum_groups(summable: list[tuple[int, tuple[int, ...]]], v: int) -> list[int]:
    """Bitmasks of two or more summable units whose values (one chosen each) add up to v."""
    groups: list[int] = []
    n = len(summable)

    def walk(start: int, mask: int, count: int, sums: frozenset[int] | set[int]) -> None:
        for k in range(start, n):
            bit, vals = summable[k]
            if len(vals) == 1:
                x = vals[0]
                new = {s + x for s in sums if s + x <= v}
            else:
                new = {s + x for s in sums for x in vals if s + x <= v}
            if not new:
                continue
            m = mask | bit
            if count and v in new:
                groups.append(m)
            if k + 1 < n:
                walk(k + 1, m, count + 1, new)

    walk(0, 0, 0, {0})
    return groups


def _unions(groups: list[int]) -> set[int]:
    """Every union of pairwise-disjoint groups (each a valid capture)."""
    found: set[int] = set()
    n = len(groups)

    def walk(start: int, used: int) -> None:
        for k in range(start, n):
            g = groups[k]
            if not g & used:
                u = used | g
                found.add(u)
                walk(k + 1, u)

    walk(0, 0)
    return found


def legal_moves(state: Any) -> tuple[list[Move], dict[tuple, tuple[Move, frozenset[int]]]]:
    """All legal moves of a position, and a map from move key to (move, values making it legal)."""
    v = state.variant
    rules = v.rules
    if state.is_over:
        return [], {}
    seat = state.to_move
    hand = state.hands[seat]
    table = state.table
    values = rules.values
    hand_cards = list(dict.fromkeys(hand))

    # Per-unit facts: what a unit is worth alone, what it adds in a sum, whether it can be touched.
    single: list[tuple[int, tuple[int, ...]]] = []
    summable: list[tuple[int, tuple[int, ...]]] = []
    build_targets: list[tuple[int, tuple[int, ...], Unit]] = []
    for i, unit in enumerate(table):
        bit = 1 << i
        if type(unit) is Build:
            vals: tuple[int, ...] = (unit.value,)
            single.append((bit, vals))
            if rules.builds_in_sums:
                summable.append((bit, vals))
            build_targets.append((i, vals, unit))
            continue
        vals = values[unit]
        joker = unit[0] == "X"
        if joker and v.table_jokers_untakeable:
            continue
        single.append((bit, vals))
        if not joker or v.table_jokers_in_sums:
            summable.append((bit, vals))
        build_targets.append((i, vals, unit))
    lone_joker = (
        v.lone_joker_only_by_joker and len(table) == 1 and type(table[0]) is not Build and table[0][0] == "X"
    )

    by_value: dict[int, set[int]] = {}

    def captures_at(x: int) -> set[int]:
        got = by_value.get(x)
        if got is None:
            groups = [bit for bit, vals in single if x in vals]
            if len(summable) >= 2:
                groups += _sum_groups(summable, x)
            got = by_value[x] = _unions(groups) if groups else set()
        return got

    index: dict[tuple, tuple[Move, frozenset[int]]] = {}
    capture_moves: list[Move] = []
    for card in hand_cards:
        if lone_joker and card[0] != "X":
            continue
        masks: dict[int, list[int]] = {}
        for x in values[card]:
            for m in captures_at(x):
                masks.setdefault(m, []).append(x)
        if not masks:
            continue
        if v.must_take_maximal:
            keep = [m for m in masks if not any(o != m and o & m == m for o in masks)]
            masks = {m: masks[m] for m in keep}
        found = []
        for m, xs in masks.items():
            take = tuple(i for i in range(len(table)) if m >> i & 1)
            found.append(Move("capture", card, xs[0], take))
            index[("capture", card, take)] = (found[-1], frozenset(xs))
        found.sort(key=lambda mv: (mv.value, mv.take))
        capture_moves.extend(found)
    if capture_moves and rules.must_capture:
        return capture_moves, index

    build_moves: list[Move] = []
    if build_targets:
        allowed = rules.build_values
        holder = v.build_holder
        partners = [s for s in range(v.players) if s != seat and rules.side_of[s] == rules.side_of[seat]]
        for card in hand_cards:
            rest = list(hand)
            rest.remove(card)
            holders = [values[c] for c in rest]
            if holder == "partner":
                holders += [values[c] for s in partners for c in state.hands[s]]
            for i, uvals, _unit in build_targets:
                announced: set[int] = set()
                for a in values[card]:
                    for b in uvals:
                        if a + b in allowed:
                            announced.add(a + b)
                        if rules.subtraction and b > a and b - a in allowed:
                            announced.add(b - a)
                for w in sorted(announced):
                    if holder != "none" and not any(w in hv for hv in holders):
                        continue
                    mv = Move("build", card, w, (), i)
                    build_moves.append(mv)
                    index[mv.key] = (mv, frozenset((w,)))
    trails = []
    for card in hand_cards:
        mv = Move("trail", card)
        trails.append(mv)
        index[mv.key] = (mv, frozenset())
    return capture_moves + build_moves + trails, index


def why_illegal(state: Any, move: Move) -> str:
    """A human reason why `move` is not legal here (it is known not to be in the legal list)."""
    v = state.variant
    hand = state.hands[state.to_move]
    if move.card not in hand:
        return f"{move.card} is not in seat {state.to_move}'s hand"
    n = len(state.table)
    for i in move.take + ((move.onto,) if move.onto is not None else ()):
        if not 0 <= i < n:
            return f"table index {i} is out of range (the table has {n} units)"
    legal = state.legal_moves()
    if v.rules.must_capture and legal and legal[0].type == "capture" and move.type != "capture":
        return f"{v.preset} makes capturing compulsory and {state.to_move} can capture"
    if move.type == "build":
        if move.value not in v.rules.build_values:
            return f"no card of this deck can match the announced value {move.value}"
        return f"{move.card} onto unit {move.onto} cannot announce {move.value} (arithmetic or holder rule {v.build_holder!r})"
    if move.type == "capture":
        shown = " ".join(cards_text(state.table[i]) for i in move.take)
        at = f" at value {move.value}" if move.value is not None else ""
        return f"{move.card}{at} cannot take {shown}"
    return "no such move"


def cards_text(unit: Unit) -> str:
    if type(unit) is Build:
        return "(" + "+".join(unit.cards) + f"={unit.value})"
    return unit


__all__ = ["Build", "Move", "Unit", "legal_moves", "unit_cards", "why_illegal", "cards"]
