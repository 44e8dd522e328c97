"""Capture and build generation against a slow brute-force reference on small random tables."""

from itertools import combinations, product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import zwicker
import engine.zwicker.moves  # noqa: F401  (zwicker.moves below)
from engine.zwicker.moves import Build

PRESETS = ["jensen", "huelsemann", "grossenwiehe", "grupp"]


def partitions(items):
    """Every way to split a list into non-empty groups."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for part in partitions(rest):
        for i in range(len(part)):
            yield part[:i] + [[first] + part[i]] + part[i + 1:]
        yield [[first]] + part


def unit_values(v, unit):
    return (unit.value,) if isinstance(unit, Build) else v.rules.values[unit]


def group_ok(v, table, group, x):
    if len(group) == 1:
        return x in unit_values(v, table[group[0]])
    for i in group:
        unit = table[i]
        if isinstance(unit, Build) and not v.rules.builds_in_sums:
            return False
        if not isinstance(unit, Build) and unit[0] == "X" and not v.table_jokers_in_sums:
            return False
    return any(sum(choice) == x for choice in product(*(unit_values(v, table[i]) for i in group)))


def reference_captures(v, table, card):
    found = {}
    for x in v.rules.values[card]:
        for r in range(1, len(table) + 1):
            for subset in combinations(range(len(table)), r):
                if subset in found:
                    continue
                if any(
                        all(group_ok(v, table, g, x) for g in part) for part in partitions(list(subset))):
                    found[subset] = x
    return found


def reference_builds(v, hand, table, card):
    rest = list(hand)
    rest.remove(card)
    held = {x for c in rest for x in v.rules.values[c]}
    found = set()
    for i, unit in enumerate(table):
        for w in v.rules.build_values:
            ok = any(w == a + b or (v.rules.subtraction and b > a and w == b - a)
                     for a in v.rules.values[card] for b in unit_values(v, unit))
            if ok and (v.build_holder == "none" or w in held):
                found.add((i, w))
    return found


@st.composite
def positions(draw):
    preset = draw(st.sampled_from(PRESETS))
    v = zwicker.variant(preset)
    deck = list(dict.fromkeys(v.rules.deck))
    cards = draw(st.lists(st.sampled_from(deck), min_size=2, max_size=10, unique=True))
    split = draw(st.integers(1, min(4, len(cards) - 1)))
    hand, rest = cards[:split], cards[split:]
    table = []
    while rest:
        if len(rest) >= 2 and draw(st.booleans()) and draw(st.booleans()):
            pile, rest = rest[:2], rest[2:]
            table.append({"build": pile, "value": draw(st.sampled_from(sorted(v.rules.build_values))), "by": 1})
        else:
            table.append(rest.pop(0))
    table = table[:6]
    return zwicker.State.from_dict({
        "variant": preset, "dealer": 3, "to_move": 0, "hands": [hand, [], [], []], "table": table,
        "stock": [], "taken": [[], []], "zwicks": [0, 0], "last_capture": None})


@settings(max_examples=300, deadline=None)
@given(positions())
def test_moves_match_brute_force(state):
    v = state.variant
    hand, table = state.hands[0], state.table
    moves = state.legal_moves()
    captures = {(m.card, m.take): m.value for m in moves if m.type == "capture"}
    expected = {}
    for card in dict.fromkeys(hand):
        for take, x in reference_captures(v, table, card).items():
            expected[(card, take)] = x
    assert captures == expected
    if expected and v.rules.must_capture:
        assert all(m.type == "capture" for m in moves)
        return
    builds = {(m.card, m.onto, m.value) for m in moves if m.type == "build"}
    assert builds == {(c, i, w) for c in dict.fromkeys(hand) for i, w in reference_builds(v, hand, table, c)}
    assert [m.card for m in moves if m.type == "trail"] == list(dict.fromkeys(hand))


@settings(max_examples=300, deadline=None)
@given(positions(), st.data())
def test_apply_checks_exactly_the_legal_moves(state, data):
    """apply() checks a move against the rules directly; it must accept exactly the listed moves
    (and, for a capture naming a value, exactly the values that make it legal)."""
    legal = {m.key: m for m in state.legal_moves()}
    _, values, _ = zwicker.moves.legal_moves(state)
    hand = list(state.hands[0])
    deck = list(dict.fromkeys(state.variant.rules.deck))
    n = len(state.table)
    for _ in range(20):
        card = data.draw(st.sampled_from(hand + deck[:3]))
        kind = data.draw(st.sampled_from(["capture", "build", "trail"]))
        if kind == "capture" and n:
            take = sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1)))
            value = data.draw(st.none() | st.integers(1, 30))
            move = {"type": "capture", "card": card, "take": take, "value": value}
            key = ("capture", card, tuple(take))
            ok = key in legal and (value is None or value in values[key])
        elif kind == "build" and n:
            onto = data.draw(st.integers(0, n - 1))
            value = data.draw(st.integers(1, 30))
            move = {"type": "build", "card": card, "onto": onto, "value": value}
            ok = ("build", card, onto, value) in legal
        else:
            move = {"type": "trail", "card": card}
            ok = ("trail", card) in legal
        try:
            after = state.apply(move)
        except zwicker.IllegalMove:
            assert not ok, f"{move} is listed as legal but was refused"
        else:
            assert ok, f"{move} is not listed as legal but was accepted"
            recorded = after.history[-1][1]
            if kind == "capture":
                assert recorded.value == (value if value is not None else legal[key].value)


def test_a_crowded_table_lists_a_bounded_number_of_moves_and_any_legal_one_applies():
    """Twenty loose low cards: the full capture list is huge, the capped one is not, and a
    capture beyond the cap still applies (checked directly, not by listing)."""
    v = zwicker.variant("jensen")
    table = [c for c in v.rules.deck if c[0] in "23456" and c != "6S"]  # 20 cards, all 2..6
    state = zwicker.State.from_dict({
        "variant": "jensen", "dealer": 3, "to_move": 0, "hands": [["X25", "KS", "QH", "6S"], [], [], []],
        "table": table, "stock": [], "taken": [[], []], "zwicks": [0, 0], "last_capture": None})
    listed, complete = state.listed_moves(500)
    assert not complete and len(listed) < 4 * 2 * 600
    assert [m.type for m in listed[-4:]] == ["trail"] * 4  # builds and trails are always all there
    # The four fives with 2C and 3C make one group of 25.
    group = sorted(i for i, c in enumerate(table) if c[0] == "5" or c in ("2C", "3C"))
    after = state.apply({"type": "capture", "card": "X25", "take": group})
    assert after.taken[0] == ("X25", *[table[i] for i in group]) and after.history[-1][1].value == 25
    with pytest.raises(zwicker.IllegalMove, match="cannot take"):
        state.apply({"type": "capture", "card": "X25", "take": group[:3]})
