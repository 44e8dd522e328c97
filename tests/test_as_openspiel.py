"""The arena's games as OpenSpiel games (games/as_openspiel.py): registered with pyspiel, played
through OpenSpiel's API, searched by OpenSpiel's own ISMCTS; the ISMCTS bots pass `bot check`."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel", reason="the [openspiel] extra is not installed (pip install -e '.[openspiel]')")

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402
from open_spiel.python.algorithms import ismcts  # noqa: E402

import games  # noqa: E402
from games import as_openspiel, encoding  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ARENA = Path(sys.executable).parent / "arena"
CASES = [("arena_zwicker", {}), ("arena_zwicken", {"players": 3}), ("arena_zwicker", {"variant": "grupp"})]


@pytest.mark.parametrize(("name", "params"), CASES)
def test_random_play_through_openspiels_api(name, params):
    game = pyspiel.load_game(name, params)
    arena_game = games.game(name.removeprefix("arena_"))
    size = encoding.size(arena_game, game.described)
    assert game.num_distinct_actions() == encoding.MAX_ACTIONS and game.observation_tensor_size() == size
    rng = random.Random(5)
    for _ in range(2):
        state = game.new_initial_state()
        assert state.is_chance_node() and len(state.chance_outcomes()) == as_openspiel.DEALS
        state.apply_action(rng.randrange(as_openspiel.DEALS))
        while not state.is_terminal():
            p = state.current_player()
            key = state.information_state_string(p)
            assert json.loads(key) == json.loads(json.dumps(state.arena.observation(p)))
            assert len(state.observation_tensor(p)) == size
            world = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
            assert world.information_state_string(p) == key and world.legal_actions() == state.legal_actions()
            before = state.clone()
            state.apply_action(rng.choice(state.legal_actions()))
            assert before.information_state_string(p) == key  # the clone is a state of its own
        assert sum(state.returns()) == pytest.approx(0)
        assert len(state.returns()) == game.num_players()


def test_a_seed_parameter_deals_the_arenas_deal():
    game = pyspiel.load_game("arena_zwicker", {"seed": 77, "dealer": 1})
    g = games.game("zwicker")
    state = game.new_initial_state()
    assert not state.is_chance_node() and state.arena == g.deal(g.variant(None), 77, 1)
    assert [state.action_to_string(a) for a in state.legal_actions()] == [str(m) for m in state.arena.legal_moves()[0]]


@pytest.mark.parametrize(("name", "params"), CASES[:2])
def test_openspiels_own_ismcts_plays_a_deal(name, params):
    """OpenSpiel's ISMCTSBot, unchanged, resampling through the game's own resample_from_infostate."""
    game = pyspiel.load_game(name, params)
    bot = ismcts.ISMCTSBot(game, as_openspiel.RolloutEvaluator(1, random.Random(1)), 10.0, max_simulations=4,
                           random_state=np.random.RandomState(2))
    state = game.new_initial_state()
    state.apply_action(9)
    while not state.is_terminal():
        state.apply_action(bot.step(state))
    assert sum(state.returns()) == pytest.approx(0)


def test_bad_parameters_say_so():
    with pytest.raises(Exception, match="players"):
        pyspiel.load_game("arena_zwicken", {"players": 99})
    with pytest.raises(Exception, match="deals"):
        pyspiel.load_game("arena_zwicker", {"deals": 0})


def test_progressive_widening_expands_few_children_in_the_priors_order():
    game = as_openspiel.make_game("zwicker")
    g = games.game("zwicker")
    deal = g.deal(g.variant(None), 12345, 0)
    moves = deal.legal_moves()[0]
    first = len(moves) - 1  # the prior's first: the last move of the game's order
    evaluator = as_openspiel.RolloutEvaluator(1, random.Random(1), first=lambda state, moves: first)
    search = as_openspiel.TimedISMCTS(game, evaluator, 10.0, 1, min_simulations=15, max_simulations=15, widen=1.0)
    rng = random.Random(2)
    root = as_openspiel.ArenaState.from_arena(game, deal)
    search.search(root, lambda: as_openspiel.ArenaState.from_arena(game, as_openspiel.resample(game, deal, deal.to_move, rng)), 1e9)
    children = search.bot._root_node.child_info
    assert len(moves) > 4 and set(children) == {first, 0, 1, 2}  # ceil(sqrt(15)) = 4 of them


@pytest.mark.parametrize(("bot", "game"), [("bots/zwicker/ismcts_bot.py --simulations 4", "zwicker"),
                                           ("bots/zwicken/zwicken_ismcts_bot.py --simulations 4", "zwicken")])
def test_the_ismcts_bots_pass_bot_check(bot, game, tmp_path):
    """In the default sandbox: the scripts declare OpenSpiel, numpy and absl (arena/process/libraries.py)."""
    done = subprocess.run([str(ARENA), "bot", "check", str(ROOT / bot), "--game", game, "--deals", "1"],
                          capture_output=True, text=True, timeout=600, cwd=tmp_path,
                          env={"PATH": "/usr/bin:/bin", "ARENA_DB": str(tmp_path / "a.db")})
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_actions_are_the_moves_the_arena_sends():
    """Action k is the k-th move of the list the arena sends (listed with its cap), on a crowded
    table too: the ISMCTS bots compare their root's moves with the `act` they got."""
    from arena.play import table
    from tests.positions import crowded_zwicker

    state = crowded_zwicker()
    sent = [m.to_dict() for m in state.legal_moves(table.LEGAL_CAP)[0]][:as_openspiel.MAX_ACTIONS]
    root = as_openspiel.ArenaState.from_arena(as_openspiel.make_game("zwicker"), crowded_zwicker())
    assert [m.to_dict() for m in root._moves()] == sent
    assert [root.action_to_string(a) for a in root.legal_actions()][3] == str(crowded_zwicker().check(sent[3]))
