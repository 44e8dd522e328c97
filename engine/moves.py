"""Moves as values, and the generation of every legal move (rules.md sections 3 and 8).

A capture is identified by its card and the *set* of units it takes; a build by card, unit and
announced value; a trail by its card. Generation lists each distinct move exactly once, in a
deterministic order: captures, then builds, then trails, each by hand order.
"""

from __future__ import annotations

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


_new = tuple.__new__


def unit_cards(unit: Unit) -> tuple[str, ...]:
    return unit.cards if type(unit) is Build else (unit,)


class Move(NamedTuple):
    """One move. `value` is the capturing or announced value (None for a trail).

    A NamedTuple rather than a dataclass: legal-move generation creates many of them, and a
    tuple is the cheapest immutable value Python has.
    """

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
    def from_dict(cls, d: Any) -> "Move":  # noqa: D102
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


def _subset_sums(summable: list[tuple[int, tuple[int, ...]]], top: int) -> list[tuple[int, int, int]]:
    """Every subset of summable units whose smallest total is at most `top`, as
    (unit mask, bitset of achievable totals, size). Totals are a bitset: bit t means "t can be made"."""
    limit = (1 << (top + 1)) - 1
    subsets = [(0, 1, 0)]
    for bit, vals in summable:
        for k in range(len(subsets)):
            mask, sums, size = subsets[k]
            if len(vals) == 1:
                grown = (sums << vals[0]) & limit
            else:
                grown = 0
                for a in vals:
                    grown |= sums << a
                grown &= limit
            if grown:
                subsets.append((mask | bit, grown, size + 1))
    return subsets


def _unions(groups: list[int]) -> set[int]:
    """Every union of pairwise-disjoint groups (each union is a valid capture)."""
    if len(groups) == 1:
        return set(groups)
    found = {0}
    for g in groups:
        found.update([u | g for u in found if not u & g])
    found.discard(0)
    return found


def legal_moves(state: Any) -> tuple[list[Move], dict[tuple, list[int]]]:
    """All legal moves of a position, and for each capture (by key) every value making it legal."""
    v = state.variant
    rules = v.rules
    if state.is_over:
        return [], {}
    seat = state.to_move
    hand = state.hands[seat]
    table = state.table
    values = rules.values
    # A code held twice (two packs, grupp's wild jokers) still makes each move once.
    hand_cards = hand if rules.unique_codes else tuple(dict.fromkeys(hand))

    # Per unit: the values it is worth alone, whether it may join a sum group, whether it can be
    # touched at all (grupp's untakeable jokers cannot). Builds may be built on, like loose cards.
    singles: list[tuple[int, tuple[int, ...]]] = []
    summable: list[tuple[int, tuple[int, ...]]] = []
    targets: list[tuple[int, tuple[int, ...]]] = []
    loose = rules.loose_units
    for i, unit in enumerate(table):
        if type(unit) is Build:
            vals: tuple[int, ...] = (unit.value,)
            can_sum = rules.builds_in_sums
        else:
            info = loose[unit]
            if info is None:
                continue
            vals, can_sum = info
        bit = 1 << i
        singles.append((bit, vals))
        if can_sum:
            summable.append((bit, vals))
        targets.append((i, vals))

    index: dict[tuple, list[int]] = {}
    capture_moves: list[Move] = []
    if targets:
        lone_joker = (v.lone_joker_only_by_joker and len(table) == 1 and type(table[0]) is not Build
                      and table[0][0] == "X")
        hand_values = {x for card in hand_cards for x in values[card]}
        groups_at: dict[int, list[int]] = {x: [] for x in hand_values}
        for bit, vals in singles:
            for x in vals:
                if x in groups_at:
                    groups_at[x].append(bit)
        if len(summable) >= 2:
            wanted = 0
            for x in hand_values:
                wanted |= 1 << x
            for m, sums, size in _subset_sums(summable, max(hand_values)):
                hits = sums & wanted
                if size < 2 or not hits:
                    continue
                for x in groups_at:
                    if hits >> x & 1:
                        groups_at[x].append(m)
        by_value = {x: _unions(groups) if groups else () for x, groups in groups_at.items()}
        for card in hand_cards:
            if lone_joker and card[0] != "X":
                continue
            masks: dict[int, list[int]] = {}
            for x in values[card]:
                for m in by_value[x]:
                    if m in masks:
                        masks[m].append(x)
                    else:
                        masks[m] = [x]
            if not masks:
                continue
            if v.must_take_maximal:
                masks = {m: xs for m, xs in masks.items() if not any(o != m and o & m == m for o in masks)}
            found = []
            for m, xs in masks.items():
                take = _TAKE.get(m)
                if take is None:
                    take = _take(m)
                mv = _new(Move, ("capture", card, xs[0], take, None))
                found.append(mv)
                index[("capture", card, take)] = xs
            found.sort(key=_capture_order)
            capture_moves.extend(found)
        if capture_moves and rules.must_capture:
            return capture_moves, index

    build_moves: list[Move] = []
    if targets:
        holder = v.build_holder
        partner_values: set[int] = set()
        if holder == "partner":
            side = rules.side_of[seat]
            for s in range(v.players):
                if s != seat and rules.side_of[s] == side:
                    for c in state.hands[s]:
                        partner_values.update(values[c])
        cache = rules.build_cache
        check = holder != "none"
        for card in hand_cards:
            if check:
                rest = list(hand)
                rest.remove(card)
                held = set(partner_values)
                for c in rest:
                    held.update(values[c])
            card_vals = values[card]
            for i, uvals in targets:
                announced = cache.get((card_vals, uvals))
                if announced is None:
                    announced = cache[(card_vals, uvals)] = _announced(rules, card_vals, uvals)
                if check:
                    announced = announced & held
                if announced:
                    for w in sorted(announced) if len(announced) > 1 else announced:
                        build_moves.append(_new(Move, ("build", card, w, (), i)))
    return capture_moves + build_moves + [_new(Move, ("trail", card, None, (), None)) for card in hand_cards], index


def _capture_order(mv: Move) -> tuple:
    return (mv.value, mv.take)


_TAKE: dict[int, tuple[int, ...]] = {}


def _take(mask: int) -> tuple[int, ...]:
    """The table indices of a unit mask (cached: masks of small tables recur all the time)."""
    take = tuple(i for i in range(mask.bit_length()) if mask >> i & 1)
    if len(_TAKE) < 1 << 16:
        _TAKE[mask] = take
    return take


def _announced(rules: Any, card_vals: tuple[int, ...], unit_vals: tuple[int, ...]) -> frozenset[int]:
    """Values a build of a card onto a unit may announce, before the holder rule."""
    allowed = rules.build_values
    found = set()
    for a in card_vals:
        for b in unit_vals:
            if a + b in allowed:
                found.add(a + b)
            if rules.subtraction and b > a and b - a in allowed:
                found.add(b - a)
    return frozenset(found)


def why_illegal(state: Any, move: Move) -> str:
    """A human reason why `move` is not legal here (it is known not to be in the legal list)."""
    v = state.variant
    hand = state.hands[state.to_move]
    if move.card not in hand:
        return f"the card is not in seat {state.to_move}'s hand"
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
