"""The Zwicken bot kit and the bundled Zwicken bots, against the rules package: the kit's view
and its samples, every bot in-process over many boards and variants, and every bot as a real
process over the protocol (bots/zwicken/zwicken_table.py, until the arena hosts Zwicken)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

BOTS = Path(__file__).resolve().parents[1] / "bots"
sys.path[:0] = [str(BOTS / "zwicken"), str(BOTS)]

from engine import zwicken as zw  # noqa: E402
from zwicken_kit import Judge, View  # noqa: E402
from zwicken_mc_bot import ZwickenMCBot  # noqa: E402
from zwicken_random_bot import ZwickenRandomBot  # noqa: E402
from zwicken_rule_bot import ZwickenRuleBot  # noqa: E402
from zwicken_table import InProcess, Program, play_boards  # noqa: E402


def random_states(v, boards=6, seed=0):
    rng = random.Random(seed)
    for b in range(boards):
        board = zw.Board.new(v, b, b % v.players)
        while not board.is_over:
            s = board.deal()
            while not s.is_over:
                yield s
                s = s.apply(rng.choice(s.legal_moves()))
            board = board.after(s)


def without(obs):
    return {k: x for k, x in obs.items() if k != "history"}


@pytest.mark.parametrize("spec", [{}, {"players": 3, "dealer_looks": True}, {"preset": "ohne_welli", "players": 6},
                                  {"must_trump": False, "players": 5}, {"cut": "table", "rundherum": True},
                                  {"preset": "scharf", "players": 10}])
def test_samples_fit_what_the_seat_saw(spec):
    v = zw.variant(spec)
    rng = random.Random(1)
    for s in random_states(v):
        seat = s.to_move
        obs = zw.observe(s, seat)
        view = View(obs)
        # the inferences hold of the true hands
        for other in range(v.players):
            if s.trump and other != seat:
                assert not any(view.cards[c][0] in view.void[other] for c in s.hands[other])
        for _ in range(3):
            sample = view.sample(rng)
            assert without(zw.observe(sample, seat)) == without(obs)
            assert [m.to_dict() for m in sample.legal_moves()] == [m.to_dict() for m in s.legal_moves()]
            for other in range(v.players):
                if s.trump and other != seat:
                    assert not any(view.cards[c][0] in view.void[other] for c in sample.hands[other])


def test_judge_plays_strong_hands_and_passes_weak_ones():
    v = zw.variant()
    j = Judge()
    assert j.wants_to_play(v, ["AE", "7S", "KE"], "E", 12, 3)
    assert not j.wants_to_play(v, ["8G", "9H", "7H"], "E", 12, 3)
    assert j.card(v, ["AE", "8G", "9H"], ["AE", "8G", "9H"], [], "E", set(), False) == "AE"  # the top trump
    assert j.card(v, ["KE", "8G"], ["KE"], [(1, "9E")], "E", set(), True) == "KE"
    assert j.card(v, ["AH", "7H"], ["AH", "7H"], [(1, "KH"), (2, "9E")], "E", set(), False) == "7H"  # cannot win


BOT_MAKERS = {"random": ZwickenRandomBot, "rule": ZwickenRuleBot,
              "mc": lambda: ZwickenMCBot(rounds=4, min_rounds=4)}


@pytest.mark.parametrize("spec", [{}, {"preset": "scharf"}, {"players": 3, "lone_player": "dealer_defends"},
                                  {"players": 5, "must_head": True, "must_overtrump": True, "dealer_looks": True},
                                  {"players": 2, "cut": "table", "rundherum": True}])
def test_bots_play_whole_boards_in_process(spec):
    v = zw.variant(spec)
    names = list(BOT_MAKERS)
    seats = [InProcess(BOT_MAKERS[names[s % 3]]()) for s in range(v.players)]
    results = play_boards(seats, v, [3, 4])
    assert len(results) == 2 and all("forfeit" not in r and sum(r["balances"]) == 0 for r in results)


def test_the_ladder_holds_on_a_few_boards():
    """rule beats random and mc beats rule over the same boards in both rotations (seeded, so
    this is a fixed measurement, not a chance)."""
    v = zw.variant()

    def margin(make_a, make_b, seeds):
        total = 0
        for rotation in (0, 1):
            makers = [make_a, make_b, make_a, make_b]
            if rotation:
                makers = makers[1:] + makers[:1]
            for r in play_boards([InProcess(m()) for m in makers], v, seeds):
                total += sum(b if makers[s] is make_a else -b for s, b in enumerate(r["balances"]))
        return total

    assert margin(ZwickenRuleBot, ZwickenRandomBot, list(range(12))) > 0
    assert margin(lambda: ZwickenMCBot(rounds=12, min_rounds=12), ZwickenRuleBot, list(range(8))) > 0


class Faulty(ZwickenRandomBot):
    def choose(self, observation, legal_moves):
        return len(legal_moves)  # one past the end


def test_a_faulting_bot_forfeits():
    v = zw.variant()
    seats = [InProcess(ZwickenRandomBot()), InProcess(Faulty()), InProcess(ZwickenRandomBot()), InProcess(ZwickenRandomBot())]
    (result,) = play_boards(seats, v, [0, 1])
    assert result == zw.forfeit_result(v, 1)


def test_bots_as_processes_over_the_protocol():
    v = zw.variant(players=3, deals=2)
    seats = [Program([sys.executable, str(BOTS / "zwicken" / name)]) for name in
             ("zwicken_random_bot.py", "zwicken_rule_bot.py", "zwicken_mc_bot.py")]
    results = play_boards(seats, v, [5])
    assert "forfeit" not in results[0] and sum(results[0]["balances"]) == 0
    assert all(s.proc.returncode == 0 for s in seats)
