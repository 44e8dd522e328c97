"""Every game as a PettingZoo environment (games/pettingzoo.py): PettingZoo's own api_test and
seed_test over both bundled games, the arena's deals for the same seed, rewards from results."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo", reason="the [pettingzoo] extra is not installed (pip install -e '.[pettingzoo]')")

import numpy as np  # noqa: E402
from pettingzoo.test import api_test, seed_test  # noqa: E402

import games  # noqa: E402
from arena.play import seeds, table  # noqa: E402
from arena.results import replay, schema  # noqa: E402
from games import encoding  # noqa: E402
from games import pettingzoo as pz  # noqa: E402
from tests.positions import crowded_zwicker  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ARENA = Path(sys.executable).parent / "arena"

# api_test warns about every env whose observation is a dict, PettingZoo's own card games' too
# (it lists theirs by name): ours is, since it carries the protocol's observation beside the numbers.
DICT_OBSERVATION = [
    "ignore:Observation space for each agent probably should be:UserWarning",
    "ignore:Observation is not a NumPy array:UserWarning",
]

CASES = [("zwicker", {}), ("zwicker", {"players": 2, "format": "game", "reward": "board"}),
         ("zwicken", {"players": 3}), ("zwicken", {"players": 5, "reward": "board"})]


@pytest.mark.parametrize(("name", "kw"), CASES)
@pytest.mark.filterwarnings(*DICT_OBSERVATION)
def test_api_test(name, kw):
    api_test(pz.env(name, **kw), num_cycles=200)


@pytest.mark.parametrize(("name", "kw"), CASES)
@pytest.mark.filterwarnings(*DICT_OBSERVATION)
def test_seed_test(name, kw):
    seed_test(lambda: pz.env(name, **kw), num_cycles=200)


def _play(env, rng):
    """Random legal play to the board's end: every seat's summed rewards."""
    total = {a: 0 for a in env.possible_agents}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        total[agent] += reward
        if terminated or truncated:
            env.step(None)
            continue
        legal = obs["protocol"]["legal"]
        assert int(obs["action_mask"].sum()) == len(legal) > 0
        env.step(rng.randrange(len(legal)))
    return total


@pytest.mark.parametrize("name", ["zwicker", "zwicken"])
def test_episodes_are_the_arenas_boards(name):
    """After reset(seed=s), episode k is board k of master seed s: its seed, its first dealer."""
    env = pz.env(name, seed=11)
    g = games.game(name)
    v = g.variant(None)
    for k in range(3):
        env.reset(seed=2024) if k == 0 else env.reset()
        want = g.board(v, seeds.board_seed(2024, k), k % v.players).deal()
        assert env.state == want
        seat = want.to_move
        obs = env.observe(env.agent_selection)
        assert env.agent_selection == f"seat_{seat}"
        assert obs["protocol"]["observation"] == want.observation(seat)
        assert obs["protocol"]["legal"] == [m.to_dict() for m in want.legal_moves()[0]][:pz.MAX_ACTIONS]
        assert np.array_equal(obs["observation"], np.asarray(
            encoding.encode(g, g.describe(v), want.observation(seat)), np.float32))


@pytest.mark.parametrize(("name", "fmt"), [("zwicker", "game"), ("zwicken", None)])
def test_rewards_are_the_results(name, fmt):
    """Per deal: the deals' seat results, summed; per board: the board's result; both the same play."""
    g = games.game(name)
    v = g.variant(None)
    for reward in ("deal", "board"):
        env = pz.env(name, format=fmt, reward=reward, seed=5)
        env.reset()
        total = _play(env, random.Random(3))
        board = g.board(v, seeds.board_seed(5, 0), 0, fmt)
        replay = random.Random(3)
        deals = [0] * v.players
        while not board.is_over:
            state = board.deal()
            while not state.is_over:
                moves, _ = state.legal_moves(pz.MAX_ACTIONS)
                state = state.apply(moves[:pz.MAX_ACTIONS][replay.randrange(min(len(moves), pz.MAX_ACTIONS))])
            deals = [a + b for a, b in zip(deals, state.result().seats)]
            board = board.after(state)
        want = deals if reward == "deal" else list(board.result().seats)
        assert [total[f"seat_{s}"] for s in range(v.players)] == want


def test_encodings_are_the_games_own():
    for name in ("zwicker", "zwicken"):
        g = games.game(name)
        env = pz.env(name)
        env.reset(seed=1)
        obs = env.observe(env.agent_selection)
        assert obs["observation"].shape == (g.encoding_size(g.describe(env.variant)),)
        assert obs["observation"].any()


def test_hashed_encoding_is_stable_and_fixed_size():
    seen = {"hand": ["AS", "KD"], "stock": 12, "over": False}
    a, b = encoding.hashed(seen), encoding.hashed(dict(reversed(list(seen.items()))))
    assert a == b and len(a) == encoding.HASHED_SIZE and sum(x != 0 for x in a) >= 3


def test_bad_arguments_say_so():
    with pytest.raises(games.UnknownGame):
        pz.env("no-such-game")
    with pytest.raises(games.BadVariant):
        pz.env("zwicken", players=99)
    with pytest.raises(ValueError, match="reward"):
        pz.env("zwicker", reward="trick")
    with pytest.raises(ValueError, match="seed"):
        pz.env("zwicker", seed=-1)
    env = pz.env("zwicker")
    env.reset(seed=3)
    with pytest.raises(games.IllegalMove, match="legal moves"):
        env.step(pz.MAX_ACTIONS - 1)


@pytest.mark.filterwarnings(*DICT_OBSERVATION)
def test_an_outside_game_is_an_environment_too():
    """A game installed by entry point (OpenSpiel's hearts, games/openspiel.py) passes the same tests."""
    pytest.importorskip("pyspiel", reason="the [openspiel] extra is not installed (pip install -e '.[openspiel]')")
    api_test(pz.env("openspiel:hearts"), num_cycles=100)
    seed_test(lambda: pz.env("openspiel:hearts"), num_cycles=100)


@pytest.fixture(scope="module")
def outside():
    """The outside test games (tests/data/lonewolf, tests/data/toytrick), each a package of its own
    behind the games interface."""
    folders = [str(ROOT / "tests" / "data" / name) for name in ("lonewolf", "toytrick")]
    sys.path[:0] = folders
    try:
        import lonewolf
        import toytrick

        yield {"lonewolf": lonewolf.GAME, "toytrick": toytrick.GAME}
    finally:
        for folder in folders:
            sys.path.remove(folder)


@pytest.mark.parametrize(("name", "kw"), [("lonewolf", {"reward": "board", "format": "round"}), ("lonewolf", {}),
                                          ("toytrick", {"format": "rubber"}), ("toytrick", {"players": 4, "reward": "board"})])
@pytest.mark.filterwarnings(*DICT_OBSERVATION)
def test_an_outside_games_package_is_an_environment(outside, name, kw):
    """Any game object of the interface, not only those this repository ships."""
    g = outside[name]
    env = pz.env(g, **kw)
    assert env.metadata["name"] == f"{name}_v0" and env.possible_agents[0] == "seat_0"
    api_test(env, num_cycles=200)
    seed_test(lambda: pz.env(g, **kw), num_cycles=200)


FIRST_POLICY = '''import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from policy_kit import run


def policy(observation, action_mask):
    return 0  # the first legal move, as first_bot plays


run(policy, name="first-policy")
'''


def test_the_same_seed_gives_the_deals_the_arena_stored(tmp_path):
    """Two boards of a real tournament (`arena tournament run --seed S`: first_bot against a policy
    that plays action 0, sandboxed) and two episodes of the environment after reset(seed=S), every
    seat playing action 0: the same seeds and dealers, the same moves, rewards the stored points."""
    (tmp_path / "pol").mkdir()
    (tmp_path / "pol" / "first_policy.py").write_text(FIRST_POLICY)
    master = 2**50 + 321
    done = subprocess.run([str(ARENA), "tournament", "run", "--bots", f"{ROOT / 'bots/zwicker/first_bot.py'},"
                           f"{tmp_path / 'pol/first_policy.py'}", "--boards", "2", "--seed", str(master), "--name", "t",
                           "--quiet"], capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env={"PATH": "/usr/bin:/bin", "ARENA_DB": str(tmp_path / "a.db")})
    assert done.returncode == 0, done.stdout + done.stderr
    with schema.open_db(tmp_path / "a.db", create=False) as db:
        stored = [replay.document(db, deal_id) for (deal_id,) in db.execute(
            "SELECT d.id FROM deals d JOIN board_tables x ON x.id = d.table_id WHERE x.swapped = 0 ORDER BY x.board_no")]
    g = games.game("zwicker")
    v = g.variant(None)
    env = pz.env("zwicker")
    for k, doc in enumerate(stored):
        env.reset(seed=master) if k == 0 else env.reset()
        assert env.state == g.deal(v, int(doc["seed"]), doc["dealer"])
        moves, paid = [], {a: 0 for a in env.possible_agents}
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            paid[agent] += reward
            if terminated or truncated:
                env.step(None)
                continue
            moves.append({"seat": env.state.to_move, "move": obs["protocol"]["legal"][0]})
            env.step(0)
        assert moves == [{"seat": m["seat"], "move": m["move"]} for m in doc["moves"]]
        layout = g.layout(v)
        assert [paid[f"seat_{s}"] for s in range(v.players)] == [doc["points"][layout.side_of(s)] for s in range(v.players)]


def test_the_actions_are_the_moves_the_arena_sends():
    """Action k is the k-th move of the very list the arena sends in `act` (listed with the arena's
    cap), also where a crowded table has more captures than the cap."""
    state = crowded_zwicker()
    sent = [m.to_dict() for m in state.legal_moves(table.LEGAL_CAP)[0]]
    assert encoding.LEGAL_CAP == table.LEGAL_CAP and len(sent) > pz.MAX_ACTIONS
    env = pz.env("zwicker")
    env.reset(seed=1)
    env.state = crowded_zwicker()
    env._next_to_move()
    obs = env.observe(env.agent_selection)
    assert env.agent_selection == "seat_1" and obs["protocol"]["legal"] == sent[:pz.MAX_ACTIONS]
    env.step(3)
    assert env.state == crowded_zwicker().apply(sent[3])
