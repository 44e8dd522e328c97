"""One conformance test over every preset: random legal play to the end for many seeds."""

import random
from collections import Counter

import pytest

from engine import zwicker
from engine.zwicker.moves import unit_cards

SEEDS = range(150)
VARIANTS = ["jensen", "huelsemann", "grossenwiehe", "grupp",
            {"preset": "jensen", "players": 3}, {"preset": "huelsemann", "players": 6},
            {"preset": "grossenwiehe", "players": 6}, {"preset": "jensen", "build_holder": "partner"},
            {"preset": "grupp", "players": 5, "lone_joker_only_by_joker": True,
             "joker_sweep_no_zwick": True, "must_take_maximal": True}]


def all_cards(s):
    cards = [c for h in s.hands for c in h] + [c for u in s.table for c in unit_cards(u)]
    return Counter(cards + list(s.stock) + [c for t in s.taken for c in t])


def strings(x):
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from strings(v)


def play(variant, seed, check_every_step):
    s = zwicker.deal(variant, seed, dealer=seed % zwicker.variant(variant).players)
    deck = Counter(s.variant.rules.deck)
    rng = random.Random(seed)
    observations = []
    while True:
        moves = s.legal_moves()
        if s.is_over:
            assert moves == []
            break
        assert moves, "no legal move before the end"
        assert len({m.key for m in moves}) == len(moves), "a move listed twice"
        if check_every_step:
            assert all_cards(s) == deck
            before = s.to_dict()
            assert zwicker.State.from_dict(before) == s
            assert zwicker.parse_position(zwicker.position_text(s)) == s
            for seat in range(s.variant.players):
                obs = s.observation(seat)
                assert obs["hand"] == list(s.hands[seat])
                public = set(s.hands[seat]) | {c for u in s.table for c in unit_cards(u)}
                public |= {m.card for _, m in s.history}
                assert set(strings(obs)) & set(s.variant.rules.distinct) <= public
                observations.append(obs)
        move = rng.choice(moves)
        after = s.apply(move.to_dict() if rng.random() < 0.5 else move)
        if check_every_step:
            assert s.to_dict() == before, "apply mutated its input"
        s = after
    assert all_cards(s) == deck
    return s, observations


@pytest.mark.parametrize("variant", VARIANTS, ids=str)
def test_random_play_conserves_and_scores(variant):
    rules = zwicker.variant(variant).rules
    for seed in SEEDS:
        s, _ = play(variant, seed, check_every_step=seed < 10)
        score = s.score()
        counts = [len(t) for t in s.taken]
        if not any(counts):
            assert score == [0] * len(score) and s.table
            continue
        assert s.table == (), "leftovers go to the last capturer"
        tie = counts.count(max(counts)) > 1
        expected = rules.fixed_total - (rules.most_cards if tie else 0) + rules.zwick * sum(s.zwicks)
        assert sum(score) == expected
        assert zwicker.State.from_dict(s.to_dict()) == s


@pytest.mark.parametrize("variant", ["jensen", "grossenwiehe", "grupp"])
def test_same_seed_same_deal_and_observations(variant):
    for seed in (3, 99, 2**64 - 1):
        a, obs_a = play(variant, seed, check_every_step=True)
        b, obs_b = play(variant, seed, check_every_step=True)
        assert a == b and obs_a == obs_b
    assert zwicker.deal(variant, 5).to_dict() != zwicker.deal(variant, 6).to_dict()
