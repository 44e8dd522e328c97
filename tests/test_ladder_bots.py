"""The ladder's bots that simulate (heuristic, mc): real processes play clean tables, and each
makes the move its strategy exists for in a position built to test it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engine import zwicker
from arena.play.match import play_match
from arena.process.command import BotCommand
from arena.play.table import FixedDeals, TimeControl, play_table

BOTS = Path(__file__).resolve().parent.parent / "bots"
DEALS = [(zwicker.deal_seed(7, k), k % 4) for k in range(2)]


def command(spec: str) -> BotCommand:
    return BotCommand.from_spec(str(BOTS / "zwicker" / spec))


def load(module: str, cls: str):
    sys.path.insert(0, str(BOTS / "zwicker"))
    try:
        return getattr(__import__(module), cls)
    finally:
        sys.path.remove(str(BOTS / "zwicker"))


def seated(bot, position: dict, seat: int = 0):
    """`bot` as the arena would have set it up for seat `seat` of `position` (a deal's opening)."""
    state = zwicker.State.from_dict(position)
    described = zwicker.variant(position["variant"]).describe()
    bot.variant, bot.seat, bot.side = described, seat, described["seat_sides"][seat]
    bot.time = {"move_ms": 1000, "bank_ms": 10000}
    bot.on_hello({"seed": 1})
    observation = state.observation(seat)
    bot.deal_start = observation
    return state, observation


def opening(hand: list[str], table: list[str]) -> dict:
    """A jensen opening with seat 0 to move holding `hand`; the rest of the deck is dealt in order."""
    rest = [c for c in zwicker.variant("jensen").rules.deck if c not in hand and c not in table]
    return {"variant": "jensen", "dealer": 3, "to_move": 0, "hands": [hand, rest[0:4], rest[4:8], rest[8:12]],
            "table": table, "stock": rest[12:], "taken": [[], []], "zwicks": [0, 0], "last_capture": None}


def test_heuristic_never_leaves_an_easy_zwick():
    """Table 8C; among the trails, QS leaves 8 + 3 = 11, swept by any of the four unseen aces,
    2H leaves 10, and every ten is in our own hand: nobody can sweep. (Greedy, blind to the table
    it leaves, trails the first card of equal worth.)"""
    bot = load("heuristic_bot", "HeuristicBot")()
    state, observation = seated(bot, opening(["QS", "2H", "TC", "TD", "TH", "TS"], ["8C"]))
    trails = [m.to_dict() for m in state.legal_moves() if m.type == "trail" and m.card in ("QS", "2H")]
    assert trails == [{"type": "trail", "card": "QS"}, {"type": "trail", "card": "2H"}]
    assert bot.choose(observation, trails) == 1
    greedy = load("greedy_bot", "GreedyBot")()
    seated(greedy, opening(["QS", "2H", "TC", "TD", "TH", "TS"], ["8C"]))
    assert greedy.choose(observation, trails) == 0


def test_heuristic_takes_the_zwick_and_the_points():
    bot = load("heuristic_bot", "HeuristicBot")()
    state, observation = seated(bot, opening(["9S", "TS", "5C", "6C"], ["9C", "TD"]))
    legal = [m.to_dict() for m in state.legal_moves()]
    assert legal[bot.choose(observation, legal)] == {"type": "capture", "card": "TS", "value": 10, "take": [1]}


@pytest.mark.parametrize("spec, name", [("heuristic_bot.py", "heuristic"), ("mc_bot.py", "mc")])
async def test_a_simulating_bot_plays_a_clean_reproducible_table(spec, name):
    """A real process, the kit's View over the protocol's messages, the engine imported inside
    it: every move legal, and the same seed gives the same moves."""
    async def table():
        return await play_table([command(spec)] * 4, variant="jensen", plan=FixedDeals(DEALS), match_id="ladder",
                                table_id="t", bot_seed=3, time_control=TimeControl(move_s=0.2))

    first = await table()
    assert first.ok, first.forfeit
    assert [s.name for s in first.seats] == [name] * 4
    if name == "heuristic":  # mc follows the clock, so its moves may differ from run to run
        again = await table()
        assert [m["move"] for d in again.deals for m in d["moves"]] == [m["move"] for d in first.deals for m in d["moves"]]


async def test_heuristic_beats_greedy_in_a_short_duplicate_match():
    result = await play_match(command("heuristic_bot.py"), command("greedy_bot.py"), boards=4, seed=11)
    assert not result.forfeits
    assert result.totals[0] > result.totals[1]


def test_mc_plays_out_the_moves_and_takes_the_ten_of_diamonds():
    """Table TD 9C, hand TC 9S (and two more): of its captures, builds and trails, playouts
    show the capture of TD (3 points) worth most. The root's order by the one-ply score is
    (The one-ply score ranks it first too: this checks that the search, fed the kit's samples
    and its own rollouts, confirms the plain best move rather than drifting off it.)"""
    bot = load("mc_bot", "MCBot")(fraction=0, min_rounds=40)  # a count of rounds, not a clock
    state, observation = seated(bot, opening(["9S", "TC", "4H", "6H"], ["TD", "9C"]))
    legal = [m.to_dict() for m in state.legal_moves()]
    assert legal[bot.choose(observation, legal)] == {"type": "capture", "card": "TC", "value": 10, "take": [0]}
    assert bot.playouts[-1] >= 40 * 2


def midgame(bot, seed: int, moves: int):
    """`bot` seated at the seat to move `moves` random moves into seeded jensen deal `seed`:
    (the state, its observation), the bot's deal start being the deal's first observation."""
    import random

    rng = random.Random(seed)
    start = state = zwicker.deal("jensen", seed=seed, dealer=seed % 4)
    for _ in range(moves):
        legal = state.legal_moves()
        state = state.apply(legal[rng.randrange(len(legal))])
    seated(bot, start.to_dict(), seat=state.to_move)
    bot.deal_start = start.observation(state.to_move)
    return state, state.observation(state.to_move)


@pytest.mark.parametrize("seed", range(6))
def test_mc_searches_heuristics_best_moves_and_defers_to_a_strong_prior(seed):
    """mc plays a legal move among heuristic's `width` best (its root is heuristic's judgement),
    and with a prior worth far more playouts than it makes it plays heuristic's own move (or one
    that ties with it)."""
    heuristic = load("heuristic_bot", "HeuristicBot")()
    state, observation = midgame(heuristic, seed, 4 * seed)
    legal = [m.to_dict() for m in state.legal_moves()]
    scores = heuristic.scores(heuristic.view(observation), observation, legal)
    top = sorted(range(len(legal)), key=lambda i: (-scores[i], i))[:2]
    mc_class = load("mc_bot", "MCBot")
    searching = mc_class(fraction=0, min_rounds=6, width=2)
    midgame(searching, seed, 4 * seed)
    assert searching.choose(observation, legal) in top
    deferring = mc_class(fraction=0, min_rounds=6, width=3, prior=1e9)
    midgame(deferring, seed, 4 * seed)
    assert heuristic.choose(observation, legal) == top[0]
    assert abs(scores[deferring.choose(observation, legal)] - scores[top[0]]) < 1e-9  # or a move that ties with it
