"""Swiss pairings (arena.tournaments.swiss): bots of similar score meet, no pairing repeats
while it can be avoided, and a Swiss tournament is drawn round by round from its stored results,
so that an interrupted one resumes exactly."""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import _register, app
from arena.errors import ArenaError
from arena.results import read, schema
from arena.tournaments import runner, swiss
from tests.test_shard import results

ROOT = Path(__file__).resolve().parents[1]
BOTS = [str(ROOT / "bots" / "zwicker" / f) for f in ("random_bot.py", "greedy_bot.py", "first_bot.py", "sweeper_bot.py",
                                         "builder_bot.py")]


def simulate(n: int, rounds: int, seed: int = 1) -> list[list[tuple[int, int]]]:
    """A Swiss event of `n` bots of strength 0..n-1 (boards of 8, the stronger wins 70%)."""
    rng = random.Random(seed)
    bots = list(range(n))
    score = {b: 0.0 for b in bots}
    met: Counter[frozenset[int]] = Counter()
    byes: Counter[int] = Counter()
    drawn = []
    for _ in range(rounds):
        pairs, bye = swiss.draw(bots, score, met, byes, seed)
        if bye is not None:
            byes[bye] += 1
            score[bye] += 8
        for a, b in pairs:
            met[frozenset((a, b))] += 1
            for _board in range(8):
                a_wins = rng.random() < (0.7 if a > b else 0.3)
                score[a if a_wins else b] += 1
        drawn.append(pairs)
    return drawn


def test_every_bot_plays_once_a_round_and_no_pairing_repeats_while_avoidable():
    for n in (2, 7, 8, 13):
        drawn = simulate(n, n - 1 + n % 2)  # as many rounds as a round robin has
        seen = Counter(frozenset(p) for pairs in drawn for p in pairs)
        assert max(seen.values()) == 1, n
        for pairs in drawn:
            playing = [b for p in pairs for b in p]
            assert len(set(playing)) == len(playing) == n - n % 2
    again = simulate(4, 5)  # 3 rounds exhaust the pairings of 4 bots: then repeats, as few as may be
    assert max(Counter(frozenset(p) for pairs in again for p in pairs).values()) == 2


def test_two_hundred_bots_need_far_fewer_matches_and_meet_their_like():
    rounds = swiss.default_rounds(200)
    drawn = simulate(200, rounds)
    assert rounds == 10 and sum(map(len, drawn)) == 1000  # a round robin: 19,900 matches
    # By the last round bots meet bots near their strength: less than half as far apart as the
    # first round's lottery pairs them (a random pair of 0..199 is 66.7 apart on average).
    gap = [sum(abs(a - b) for a, b in pairs) / len(pairs) for pairs in drawn]
    assert gap[-1] < gap[0] / 2


def test_the_first_round_is_a_seeded_lottery_and_a_bye_goes_to_the_lowest_without_one():
    first, bye = swiss.first_round([1, 2, 3, 4, 5], seed=9)
    assert first == swiss.first_round([5, 4, 3, 2, 1], seed=9)[0] and bye is not None
    assert len(first) == 2 and all(a == a2 and b == b2 for (a, a2), (b, b2) in first)
    pairs, bye = swiss.draw([1, 2, 3], {1: 3.0, 2: 2.0, 3: 1.0}, Counter(), Counter({3: 1}), seed=0)
    assert bye == 2 and pairs == [(1, 3)]


def test_swiss_wants_clone_partners_and_rounds_want_swiss():
    with pytest.raises(ArenaError, match="--partners clone"):
        runner.Settings(pairing="swiss", partners="mixed")
    with pytest.raises(ArenaError, match="--rounds is for --pairing swiss"):
        runner.Settings(rounds=3)
    with pytest.raises(ArenaError, match="--pairing must be one of"):
        runner.Settings(pairing="knockout")


SWISS = runner.Settings(boards=1, seed=3, pairing="swiss", rounds=3)


async def test_a_swiss_tournament_is_drawn_round_by_round_and_resumes_exactly(tmp_path):
    whole = schema.open_db(tmp_path / "whole.db")
    wid = runner.prepare(whole, "sw", BOTS, SWISS)
    done = await runner.run(whole, wid, concurrency=2, processes=1)
    plan = done["settings"]["pairing"]
    assert plan["drawn"] == [2, 2, 2] and len(set(plan["byes"])) == 3  # 5 bots: a bye each round, never twice
    assert done["status"] == "finished" and done["boards_done"] == 6
    met = [frozenset((m["entrants"][0][0], m["entrants"][1][0])) for m in read.schedule(whole, wid)]
    assert len(set(met)) == len(met)

    cut = schema.open_db(tmp_path / "cut.db")
    cid = runner.prepare(cut, "sw", BOTS, SWISS)
    stored = []

    class Enough(Exception):
        pass

    def on_room(room, boards):
        stored.append(room)
        if len(stored) == 6:  # in round 2, of four rooms
            raise Enough

    with pytest.raises(BaseException) as caught:
        await runner.run(cut, cid, concurrency=2, processes=1, on_room=on_room)
    assert caught.group_contains(Enough)
    assert read.get_tournament(cut, cid)["settings"]["pairing"]["drawn"] == [2, 2]
    await runner.run(cut, cid, concurrency=2, processes=1)
    assert read.schedule(cut, cid) == read.schedule(whole, wid)
    assert results(cut, cid) == results(whole, wid)

    _register()
    out = CliRunner().invoke(app, ["standings", "sw", "--db", str(tmp_path / "whole.db")])
    assert out.exit_code == 0 and "pairings: swiss, 3 of 3 rounds drawn" in out.output
