"""Properties of engine/zwicken over random boards (hypothesis): chips are conserved with the pot,
the pot stays a multiple of three, every listed move applies and nothing else does, no observation
holds a hidden card, positions round-trip, a board always ends, the same seed gives the same board."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import zwicken as z

variants = st.fixed_dictionaries({
    "preset": st.sampled_from(z.PRESETS),
    "players": st.integers(2, 10),
    "stake": st.sampled_from([3, 6, 30]),
    "dealer_looks": st.booleans(),
    "must_trump": st.booleans(),
    "must_overtrump": st.booleans(),
    "must_head": st.booleans(),
    "dealer_no_trump": st.sampled_from(["carry", "pay"]),
    "lone_player": st.sampled_from(["wins", "dealer_defends"]),
    "close": st.sampled_from(["playout", "split"]),
    "cut": st.sampled_from(["none", "hop", "table"]),
    "rundherum": st.booleans(),
    "single_stake_all_play": st.booleans(),
    "deals": st.integers(1, 4),
    "playout_max": st.integers(0, 3),
    "max_hops": st.integers(0, 3),
    "zwick_limit": st.sampled_from([3, 9, 48, 192]),
}).map(lambda d: z.variant(d))
seeds = st.integers(0, 2**64 - 1)


def play_board(v, seed, first_dealer, rng, each_state=None, each_final=None):
    board = z.Board.new(v, seed, first_dealer)
    limit = (v.deals + v.playout_max) * (v.max_hops + 1)
    boards = [board]
    while not board.is_over:
        assert board.deals_played <= limit, "the board did not end"
        s = board.deal()
        while not s.is_over:
            if each_state:
                each_state(s)
            s = s.apply(rng.choice(s.legal_moves()))
        if each_state:
            each_state(s)
        if each_final:
            each_final(board, s)
        board = board.after(s)
        boards.append(board)
    return board


def hidden_from(s, seat):
    """The cards `seat` may not know now."""
    hidden = set(s.stock) - {s.turned}
    if s.variant.cut != "none":
        hidden.discard(s.cut)
    for other, hand in enumerate(s.hands):
        if other != seat:
            hidden |= set(hand)
    if s.exposed:
        hidden.discard(s.exposed)
    if s.is_over and s.result.shown:
        for _, hand in s.result.shown:
            hidden -= set(hand)
    if z.observe(s, seat)["hand_hidden"]:
        hidden |= set(s.hands[seat])
    return hidden


def cards_in(obj):
    if isinstance(obj, str):
        return {obj} & set(z.PACK)
    if isinstance(obj, dict):
        return set().union(*(cards_in(x) for x in obj.values())) if obj else set()
    if isinstance(obj, list):
        return set().union(*(cards_in(x) for x in obj)) if obj else set()
    return set()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(v=variants, seed=seeds, dealer=st.integers(0, 9), moves=st.integers(0, 2**32))
def test_random_boards(v, seed, dealer, moves):
    rng = random.Random(moves)
    n = v.players

    def each_state(s):
        assert sum(s.balances) + s.pot == 0
        assert s.pot % 3 == 0 and s.pot >= 0
        assert (s.to_move is None) == s.is_over
        legal = s.legal_moves()
        assert bool(legal) != s.is_over
        assert len(set(legal)) == len(legal)
        for m in legal:
            s.apply(m)                # every listed move applies ...
            s.apply(m.to_dict())      # ... as its plain form too
        if s.phase == "trick":
            for c in set(s.hands[s.to_move]) - {m.card for m in legal}:
                try:
                    s.apply(z.card_move(c))
                except z.IllegalMove:
                    pass
                else:
                    raise AssertionError(f"{c} applied but is not listed")
        d = z.to_dict(s)
        assert z.to_dict(z.from_dict(json.loads(json.dumps(d)))) == d
        for seat in range(n):
            obs = z.observe(s, seat)
            json.dumps(obs)
            leaked = cards_in({k: x for k, x in obs.items() if k != "history"}) & hidden_from(s, seat)
            assert not leaked, (seat, leaked)

    def each_final(board, s):
        r = s.result
        assert sum(r.net) + r.carry == board.pot  # chips go between the seats and the pot only
        assert r.to_dict()["net"] == [w - p for w, p in zip(r.won, r.paid)]

    end = play_board(v, seed, dealer % n, rng, each_state, each_final)
    result = end.result()
    assert sum(result["balances"]) == 0
    assert len(result["deals"]) == end.deals_played
    assert sum(1 for d in result["deals"] if d["event"] not in ("cut", "rundherum")) == end.deal_no
    again = play_board(v, seed, dealer % n, random.Random(moves))
    assert again.result() == result


def swap_hidden(position, seat, rng):
    """The position with the cards hidden from `seat` shuffled among their places."""
    s = z.from_dict(position)
    hidden = hidden_from(s, seat)
    slots = [("hands", i, j) for i, h in enumerate(position["hands"]) for j, c in enumerate(h) if c in hidden]
    slots += [("stock", None, j) for j, c in enumerate(position["stock"]) if c in hidden]
    cards = [position["hands"][i][j] if k == "hands" else position["stock"][j] for k, i, j in slots]
    rng.shuffle(cards)
    out = json.loads(json.dumps(position))
    for (k, i, j), c in zip(slots, cards):
        if k == "hands":
            out["hands"][i][j] = c
        else:
            out["stock"][j] = c
    out["cut"] = out["stock"][-1]
    return out


@settings(max_examples=25, deadline=None)
@given(v=variants, seed=seeds, moves=st.integers(0, 2**32))
def test_observation_does_not_depend_on_hidden_cards(v, seed, moves):
    rng = random.Random(moves)
    s = z.Board.new(v, seed, 0).deal()
    while not s.is_over:
        d = z.to_dict(s)
        for seat in range(v.players):
            other = z.from_dict(swap_hidden(d, seat, rng))
            assert z.observe(other, seat) == z.observe(z.from_dict(d), seat)
        s = s.apply(rng.choice(s.legal_moves()))


def test_apply_does_not_mutate():
    s = z.deal("bayern", 0, 3)
    before = z.to_dict(s)
    s.apply(z.SCHLECKEN)
    s.legal_moves()
    assert z.to_dict(s) == before


def test_inconsistent_positions_refused():
    import pytest

    s = z.deal("bayern", 0, 3).apply(z.SCHLECKEN)
    good = z.to_dict(s)
    bad = []
    for key, value in (("pot", 4), ("pot", 6), ("cut", "AE"), ("turned", "AE"), ("trump", "H"),
                       ("phase", "trump"), ("to_move", None), ("exposed", "9G"), ("method", "x")):
        d = json.loads(json.dumps(good))
        d[key] = value
        bad.append(d)
    d = json.loads(json.dumps(good)); d["balances"][0] += 3; bad.append(d)
    d = json.loads(json.dumps(good)); d["stock"] = d["stock"][1:]; bad.append(d)
    d = json.loads(json.dumps(good)); d["hands"][0][0] = d["hands"][1][0]; bad.append(d)
    d = json.loads(json.dumps(good)); d["variant"]["players"] = 11; bad.append(d)
    d = json.loads(json.dumps(good)); del d["decisions"]; bad.append(d)
    d = json.loads(json.dumps(good)); d["moves"].append({"seat": 0, "type": "jump"}); bad.append(d)
    for d in bad:
        with pytest.raises(z.EngineError):
            z.from_dict(d)
    partial = json.loads(json.dumps(good))
    partial["variant"] = {"preset": "bayern"}
    assert z.to_dict(z.from_dict(partial)) == good
