"""Moves as values, and the generation of every legal move (docs/rules.md sections 3 and 8).

A capture is identified by its card and the *set* of units it takes; a build by card, unit and
announced value; a trail by its card. Generation lists each distinct move exactly once, in a
deterministic order: captures, then builds, then trails, each by hand order.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from engine.zwicker import cards
from engine.errors import EngineError, IllegalMove

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
        """What makes two moves the same move (docs/rules.md section 8)."""
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
        return move_text(self)


def move_text(move: Move) -> str:
    """A move's text form (engine.notation): `9Sx0+1+2=9`, `2C>3=9`, `5H`."""
    if move.type == "capture":
        value = "" if move.value is None else f"={move.value}"
        return f"{move.card}x{'+'.join(map(str, move.take))}{value}"
    if move.type == "build":
        return f"{move.card}>{move.onto}={move.value}"
    return move.card


def unit_text(unit: Unit) -> str:
    """A table unit's text form (engine.notation): a loose card's code, a build `(5C+4H=9@2)`."""
    if type(unit) is Build:
        return f"({'+'.join(unit.cards)}={unit.value}@{unit.by})"
    return unit


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


def _unions(groups: list[int], cap: int | None = None) -> set[int]:
    """Every union of pairwise-disjoint groups (each union is a valid capture); with a cap, at
    most about `cap` of them (the caller learns of the cut from the count)."""
    if len(groups) == 1:
        return set(groups)
    found = {0}
    for g in groups:
        found.update([u | g for u in found if not u & g])
        if cap is not None and len(found) > cap:
            break
    found.discard(0)
    return found


def _table_facts(state: Any) -> tuple[list, list, list]:
    """Per unit: the values it is worth alone (singles), whether it may join a sum group
    (summable), and that it may be built on (targets); a unit that cannot be touched at all
    (grupp's untakeable jokers) is in none of them. Entries carry the unit's bit or index."""
    rules = state.variant.rules
    singles: list[tuple[int, tuple[int, ...]]] = []
    summable: list[tuple[int, tuple[int, ...]]] = []
    targets: list[tuple[int, tuple[int, ...]]] = []
    loose = rules.loose_units
    for i, unit in enumerate(state.table):
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
    return singles, summable, targets


def _lone_joker(state: Any, card: str) -> bool:
    """grupp's option: a loose joker alone on the table may be taken only by a joker."""
    table = state.table
    return (state.variant.lone_joker_only_by_joker and len(table) == 1 and type(table[0]) is not Build
            and table[0][0] == "X" and card[0] != "X")


def legal_moves(state: Any, cap: int | None = None) -> tuple[list[Move], dict[tuple, list[int]], bool]:
    """All legal moves of a position, for each capture (by key) every value making it legal, and
    whether the list is complete. With a cap, at most about `cap` captures per card value are
    listed (builds and trails always all): the arena's guard against tables so crowded that the
    captures run into the hundreds of thousands."""
    v = state.variant
    rules = state.variant.rules
    if state.is_over:
        return [], {}, True
    seat = state.to_move
    hand = state.hands[seat]
    values = rules.values
    # A code held twice (two packs, grupp's wild jokers) still makes each move once.
    hand_cards = hand if rules.unique_codes else tuple(dict.fromkeys(hand))
    singles, summable, targets = _table_facts(state)
    complete = True

    index: dict[tuple, list[int]] = {}
    capture_moves: list[Move] = []
    if targets:
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
        by_value = {x: _unions(groups, cap) if groups else () for x, groups in groups_at.items()}
        if cap is not None and any(len(masks) >= cap for masks in by_value.values()):
            complete = False
        for card in hand_cards:
            if _lone_joker(state, card):
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
            return capture_moves, index, complete

    build_moves: list[Move] = []
    if targets:
        # Values as bitsets (bit w: value w): what a card may announce onto a unit, and what the
        # holder rule allows, meet in one integer AND.
        holder = v.build_holder
        bits_of = rules.value_bits
        partner_bits = 0
        if holder == "partner":
            side = rules.side_of[seat]
            for s in range(v.players):
                if s != seat and rules.side_of[s] == side:
                    for c in state.hands[s]:
                        partner_bits |= bits_of[c]
        check = holder != "none"
        announce = rules.build_cache
        for card in hand_cards:
            if check:
                held = partner_bits
                seen_self = False
                for c in hand:
                    if c == card and not seen_self:
                        seen_self = True  # the card being built with is not held afterwards
                        continue
                    held |= bits_of[c]
            onto = announce.get(card)
            if onto is None:
                onto = announce[card] = {}
            for i, uvals in targets:
                bits = onto.get(uvals)
                if bits is None:
                    bits = onto[uvals] = _announced(rules, values[card], uvals)
                if check:
                    bits &= held
                while bits:
                    low = bits & -bits
                    build_moves.append(_new(Move, ("build", card, low.bit_length() - 1, (), i)))
                    bits ^= low
    trail = rules.trail_moves  # Moves are immutable: one trail per card serves every position
    trails = [trail[card] for card in hand_cards]
    return capture_moves + build_moves + trails, index, complete


def _capture_order(mv: Move) -> tuple:
    return (mv.value, mv.take)


_TAKE: dict[int, tuple[int, ...]] = {}


def _take(mask: int) -> tuple[int, ...]:
    """The table indices of a unit mask (cached: masks of small tables recur all the time)."""
    take = tuple(i for i in range(mask.bit_length()) if mask >> i & 1)
    if len(_TAKE) < 1 << 16:
        _TAKE[mask] = take
    return take


def _announced(rules: Any, card_vals: tuple[int, ...], unit_vals: tuple[int, ...]) -> int:
    """Values a build of a card onto a unit may announce, before the holder rule, as a bitset."""
    allowed = rules.build_values
    found = set()
    for a in card_vals:
        for b in unit_vals:
            if a + b in allowed:
                found.add(a + b)
            if rules.subtraction and b > a and b - a in allowed:
                found.add(b - a)
    bits = 0
    for w in found:
        bits |= 1 << w
    return bits


def _add(sums: int, vals: tuple[int, ...], limit: int) -> int:
    """The totals bitset after adding one unit worth any of `vals`, capped by `limit`.
    (_subset_sums inlines the same step: it is the engine's hot loop; the checks are not.)"""
    grown = 0
    for a in vals:
        grown |= sums << a
    return grown & limit


def _sum_exists(units: list[tuple[int, tuple[int, ...]]], x: int, start: int = 0, sums: int = 1,
                count: int = 0) -> bool:
    """Whether two or more of `units` (from `start`) can add up to x (sums: bitset so far)."""
    limit = (1 << (x + 1)) - 1
    for k in range(start, len(units)):
        grown = _add(sums, units[k][1], limit)
        if not grown:
            continue
        if count and grown >> x & 1:
            return True
        if _sum_exists(units, x, k + 1, grown, count + 1):
            return True
    return False


def can_capture(state: Any) -> bool:
    """Whether any card in the hand to move can capture anything (without listing captures)."""
    singles, summable, _ = _table_facts(state)
    if not singles:
        return False
    values = state.variant.rules.values
    for card in set(state.hands[state.to_move]):
        if _lone_joker(state, card):
            continue
        for x in values[card]:
            if any(x in vals for _, vals in singles) or _sum_exists(summable, x):
                return True
    return False


def _partitionable(mask: int, x: int, single: dict[int, tuple[int, ...]], summable: dict[int, tuple[int, ...]]) -> bool:
    """Whether the units of `mask` split into groups each worth x: one unit worth x, or two or
    more summable units adding up to x. Backtracks on the lowest unit left; memoised."""
    memo: dict[int, bool] = {}
    limit = (1 << (x + 1)) - 1

    def split(m: int) -> bool:
        if not m:
            return True
        if m in memo:
            return memo[m]
        low = m & -m
        rest = m ^ low
        ok = low in single and x in single[low] and split(rest)
        if not ok and low in summable:
            others = [(b, summable[b]) for b in summable if b & rest]

            def grow(k: int, taken: int, sums: int) -> bool:
                for j in range(k, len(others)):
                    bit, vals = others[j]
                    grown = _add(sums, vals, limit)
                    if not grown:
                        continue
                    if grown >> x & 1 and split(rest ^ taken ^ bit):
                        return True
                    if grow(j + 1, taken | bit, grown):
                        return True
                return False

            ok = grow(0, 0, _add(1, summable[low], limit))
        memo[m] = ok
        return ok

    return split(mask)


def check(state: Any, move: Move) -> Move:
    """The legal move that `move` names, checked straight against the rules (no listing of the
    legal moves, which a crowded table makes huge); a capture comes back with the lowest value
    that makes it legal. Raises IllegalMove saying why."""
    v = state.variant
    rules = v.rules
    hand = state.hands[state.to_move]

    def illegal(why: str) -> IllegalMove:
        return IllegalMove(f"{move.type} {move}: {why}")

    if move.card not in hand:
        raise illegal(f"the card is not in seat {state.to_move}'s hand")
    n = len(state.table)
    for i in move.take + ((move.onto,) if move.onto is not None else ()):
        if not 0 <= i < n:
            raise illegal(f"table index {i} is out of range (the table has {n} units)")
    singles, summable, targets = _table_facts(state)
    if move.type == "capture":
        single = dict(singles)
        mask = 0
        for i in move.take:
            mask |= 1 << i
            if 1 << i not in single:
                raise illegal(f"unit {i} cannot be taken in {v.preset}")
        if _lone_joker(state, move.card):
            raise illegal("a joker alone on the table may only be taken by a joker")
        sums = dict(summable)
        xs = [x for x in rules.values[move.card] if _partitionable(mask, x, single, sums)]
        if move.value is not None:
            xs = [x for x in xs if x == move.value]
        if not xs:
            shown = " ".join(cards_text(state.table[i]) for i in move.take)
            at = f" at value {move.value}" if move.value is not None else ""
            raise illegal(f"{move.card}{at} cannot take {shown}")
        found = _new(Move, ("capture", move.card, xs[0], move.take, None))
        if v.must_take_maximal and found not in legal_moves(state)[0]:
            raise illegal("a larger capture with the same card contains it (must_take_maximal)")
        return found
    if rules.must_capture and can_capture(state):
        raise illegal(f"{v.preset} makes capturing compulsory and seat {state.to_move} can capture")
    if move.type == "trail":
        return _new(Move, ("trail", move.card, None, (), None))
    target = dict(targets).get(move.onto)
    if target is None:
        raise illegal(f"unit {move.onto} cannot be built on in {v.preset}")
    if not _announced(rules, rules.values[move.card], target) >> move.value & 1:
        if move.value not in rules.build_values:
            raise illegal(f"no card of this deck can match the announced value {move.value}")
        raise illegal(f"{move.card} onto unit {move.onto} cannot make {move.value}")
    if v.build_holder != "none":
        rest = list(hand)
        rest.remove(move.card)
        if v.build_holder == "partner":
            side = rules.side_of[state.to_move]
            rest += [c for s in range(v.players) if s != state.to_move and rules.side_of[s] == side
                     for c in state.hands[s]]
        if not any(move.value in rules.values[c] for c in rest):
            whose = "the builder" if v.build_holder == "self" else "the builder or a partner"
            raise illegal(f"{whose} must keep a card that can take {move.value} (holder rule {v.build_holder!r})")
    return _new(Move, ("build", move.card, move.value, (), move.onto))


def cards_text(unit: Unit) -> str:
    if type(unit) is Build:
        return "(" + "+".join(unit.cards) + f"={unit.value})"
    return unit


__all__ = ["Build", "Move", "Unit", "can_capture", "check", "legal_moves", "unit_cards", "cards"]
