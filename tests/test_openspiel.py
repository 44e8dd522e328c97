"""OpenSpiel's card games in the arena (games/openspiel.py): each behind the games interface,
its chance drawn from the board's seed, its private moves hidden from the other seats; through
the installed `arena` with the arena's random bot: a hearts tournament with duplicate rooms,
replayed, an SPRT and a league of hearts, a tournament of each other card game the issue names;
the rules oracle. (The pages: tests/test_web_generic.py.)"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel", reason="the [openspiel] extra is not installed (pip install -e '.[openspiel]')")

import games  # noqa: E402
from arena.results import replay, schema  # noqa: E402
from games import openspiel  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ARENA = Path(sys.executable).parent / "arena"
SEED = 2**50 + 77  # above 2**48: no warning
NAMES = sorted(openspiel.GAMES)


def arena(*args: str, cwd: Path, code: int = 0, stdin: str | None = None) -> subprocess.CompletedProcess:
    done = subprocess.run([str(ARENA), *args], capture_output=True, text=True, timeout=600, cwd=cwd, input=stdin,
                          env={"PATH": "/usr/bin:/bin", "ARENA_DB": str(cwd / "a.db")})
    assert done.returncode == code, done.stdout + done.stderr
    return done


def test_the_card_games_are_registered():
    assert {"openspiel:hearts", "openspiel:bridge", "openspiel:skat", "openspiel:gin_rummy",
            "openspiel:oh_hell"} <= set(NAMES)
    for name in NAMES:
        assert name in games.names() and games.game(name) is openspiel.GAMES[name]
    g, v = games.load("openspiel:hearts:pass_cards=false")
    assert g.info.name == "openspiel:hearts" and v.to_dict()["pass_cards"] is False
    assert games.load("openspiel:oh_hell:players=5")[1].players == 5


def _random_play(g: games.Game, v: games.Variant, seed: int, rng: random.Random) -> games.State:
    state = g.deal(v, seed, 0)
    steps = 0
    while not state.is_over:
        moves, complete = state.legal_moves()
        assert complete and moves and state.to_move is not None
        move = rng.choice(moves)
        assert state.check(move.to_dict()) == move
        before = state.to_dict()
        state = state.apply(move)
        assert state.to_dict() != before
        steps += 1
        assert steps <= g.info.max_moves_per_deal
    return state


@pytest.mark.parametrize("name", NAMES)
def test_random_play_through_the_interface(name):
    g = games.game(name)
    v = g.variant(None)
    layout = g.layout(v)
    for seed in (1, 2**63 + 5):
        a = _random_play(g, v, seed, random.Random(seed))
        b = _random_play(g, v, seed, random.Random(seed))
        assert a == b and a.to_dict() == b.to_dict()
        assert g.state_from_dict(json.loads(json.dumps(a.to_dict()))) == a
        result = a.result()
        assert len(result.seats) == layout.players and len(result.sides) == layout.num_sides
        assert all(type(x) is int for x in result.seats + result.sides)
        if g.info.utility == "zero_sum":
            assert sum(result.seats) == 0
        for seat in range(layout.players):
            seen = a.observation(seat)
            assert seen["seat"] == seat and isinstance(seen["string"], str)
            assert len(seen["tensor"]) == g.encoding_size(g.describe(v))
            json.dumps(seen)
        board = g.board(v, seed)
        assert board.deal() == g.deal(v, seed, 0)
        assert board.after(a).is_over and board.after(a).result() == result


@pytest.mark.parametrize("name", NAMES)
def test_a_boards_seed_deals_the_same_cards_whatever_the_play(name):
    """Every room of a board meets the same deal: the chance outcomes before the first decision
    depend on the seed alone, and differ between seeds."""
    g = games.game(name)
    v = g.variant(None)
    first = g.deal(v, 99, 0).to_dict()["history"]
    assert g.deal(v, 99, 1).to_dict()["history"] == first
    assert any(g.deal(v, s, 0).to_dict()["history"] != first for s in (100, 101, 102))


def test_a_passed_card_is_hidden_from_the_other_seats():
    """Hearts' passes are private (OpenSpiel's view of the other seats is the same whichever card
    is passed), the cards played to tricks public."""
    g = games.game("openspiel:hearts")
    v = g.variant("pass_cards=true")
    shown = []
    for seed in range(8):
        state = g.deal(v, seed, 0)
        while not state.is_over:
            move = state.legal_moves()[0][0]
            shown.append(state.public_move(move))
            state = state.apply(move)
    hidden = [p for p in shown if p == {"type": "hidden"}]
    assert hidden and len(hidden) % 12 == 0  # three cards a seat in a deal that passes
    assert len(shown) - len(hidden) == 8 * 52 and all(p["type"] == "action" for p in shown if p not in hidden)


def test_bad_variants_and_moves_say_so():
    g = games.game("openspiel:hearts")
    with pytest.raises(games.BadVariant, match="unknown option 'bogus'"):
        g.variant("bogus=1")
    with pytest.raises(games.BadVariant, match="takes bool"):
        g.variant({"pass_cards": 3})
    with pytest.raises(games.BadVariant, match="players"):
        g.variant({"players": 5})
    with pytest.raises(games.BadVariant, match="seed"):
        g.deal(g.variant(None), -1, 0)
    state = g.deal(g.variant(None), 5, 0)
    with pytest.raises(games.IllegalMove, match="not legal"):
        state.check({"type": "action", "action": 10_000})
    with pytest.raises(games.IllegalMove):
        state.check({"card": "AS"})
    with pytest.raises(games.BadPosition):
        g.state_from_dict({"variant": {}, "seed": 5, "history": [999]})


POLICY_BOT = '''import os, random, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from policy_kit import run


def policy(observation, action_mask):
    assert len(observation["observation"]) == {size}  # the game's encoding: OpenSpiel's tensor
    return random.choice([a for a, ok in enumerate(action_mask) if ok])  # copy {k}


run(policy, name="random-policy")
'''


def test_a_hearts_tournament_with_duplicate_rooms_replayed_and_an_sprt(tmp_path):
    """The arena's random bot (registered twice) and two random policy bots (policy_kit,
    sandboxed: no pyspiel inside, OpenSpiel's tensor from the observation) play a board of
    hearts in four rooms that rotate the bots over the seats; every room is dealt the same cards;
    each stored deal replays to its points, in the terminal too. Then an SPRT between the two
    random bots on the same game."""
    g = games.game("openspiel:hearts")
    v = g.variant(None)
    size = g.encoding_size(g.describe(v))
    bots = []
    for name in ("r1", "r2"):  # two copies of bots/random_bot.py
        (tmp_path / f"copy-{name}").mkdir()
        bots.append(str(shutil.copy(ROOT / "bots" / "random_bot.py", tmp_path / f"copy-{name}" / f"{name}.py")))
    for k in range(2):
        folder = tmp_path / f"p{k}"
        folder.mkdir()
        path = folder / f"rand{k}.py"
        path.write_text(POLICY_BOT.format(size=size, k=k))
        bots.append(str(path))
    out = arena("tournament", "run", "--game", "openspiel:hearts", "--bots", ",".join(bots), "--boards", "1",
                "--seed", str(SEED), "--name", "h", cwd=tmp_path).stdout
    assert "1/1 boards" in out
    db = schema.open_db(tmp_path / "a.db", create=False)
    try:
        rows = [dict(r) for r in db.query(
            "SELECT x.board_no, x.swapped AS room, x.id AS table_id, x.board_seed FROM board_tables x ORDER BY x.board_no, x.swapped")]
        deals = {r["table_id"]: [dict(d) for d in db.query("SELECT id, seed, dealer FROM deals WHERE table_id = ?",
                                                           [r["table_id"]])] for r in rows}
        seats = {r["table_id"]: [s for (s,) in db.execute("SELECT bot_id FROM seats WHERE table_id = ? ORDER BY seat",
                                                          [r["table_id"]])] for r in rows}
        faults = db.execute("SELECT count(*) FROM seats WHERE status != 'ok'").fetchone()[0]
    finally:
        db.close()
    assert faults == 0
    assert [(r["board_no"], r["room"]) for r in rows] == [(0, r) for r in range(4)]
    openings = set()
    for r in rows:
        (deal,) = deals[r["table_id"]]
        opening = g.deal(v, int(deal["seed"]), deal["dealer"])
        openings.add(json.dumps(opening.to_dict()["history"]))
    assert len(openings) == 1  # the same 52 cards to the same seats in every room
    assert len({tuple(seats[r["table_id"]]) for r in rows}) == 4  # each room seats the bots differently
    # each stored deal, replayed move by move, ends with its stored points
    for r in rows:
        (deal,) = deals[r["table_id"]]
        with schema.open_db(tmp_path / "a.db", create=False) as db:
            doc = replay.document(db, deal["id"])
        state = g.deal(v, int(deal["seed"]), deal["dealer"])
        for m in doc["moves"]:
            state = state.apply(m["move"])
        assert state.is_over and list(state.result().sides) == doc["points"]
    shown = json.loads(arena("replay", str(deal["id"]), "--json", cwd=tmp_path).stdout)
    assert (shown["moves"], shown["points"]) == (doc["moves"], doc["points"])
    text = arena("replay", str(deal["id"]), cwd=tmp_path).stdout  # 52 cards played (and 12 passed, in a deal that passes)
    assert f"move {len(doc['moves'])}: seat" in text and f"(stored: {doc['points']})" in text
    sprt = arena("sprt", "r1", "r2", "--game", "openspiel:hearts", "--max-boards", "2", "--batch", "2",
                 "--seed", str(SEED + 1), "--quiet", cwd=tmp_path).stdout
    assert "after 2 boards" in sprt and "Faults: none in 8 tables" in sprt, sprt


def test_the_rules_oracle_answers_for_an_openspiel_game(tmp_path):
    g = games.game("openspiel:gin_rummy")
    position = g.deal(g.variant(None), 9, 0).to_dict()
    legal = json.loads(arena("rules", "legal", "--game", "openspiel:gin_rummy", cwd=tmp_path,
                             stdin=json.dumps(position) + "\n").stdout)
    assert legal == [m.to_dict() for m in g.state_from_dict(position).legal_moves()[0]]
    board = json.loads(arena("rules", "board", "--game", "openspiel:oh_hell", cwd=tmp_path,
                             stdin='{"variant": {"players": 3}, "seed": 5, "policy": "first"}\n').stdout)
    assert len(board["points"]) == 3


@pytest.mark.slow
def test_a_league_of_hearts(tmp_path):
    """`arena league serve --game openspiel:hearts`: four authors submit the arena's random bot
    through `arena submit` (checked at a hearts table), the ladder seats all four at one table in
    four rooms and rates the board."""
    tmp_path.chmod(0o755)
    db = tmp_path / "league.db"
    env = {"PATH": "/usr/bin:/bin"}

    def run(*args: str, token: str | None = None) -> subprocess.CompletedProcess:
        done = subprocess.run([str(ARENA), *args], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                              env={**env, **({"ARENA_TOKEN": token} if token else {})})
        assert done.returncode == 0, done.stdout + done.stderr
        return done

    authors = ("ann", "ben", "cid", "dan")
    tokens = {a: run("league", "author", "add", a, "--db", str(db)).stdout.strip().splitlines()[-1] for a in authors}
    with (tmp_path / "stderr").open("w") as err, subprocess.Popen(
            [str(ARENA), "league", "serve", "--db", str(db), "--port", "0", "--boards", "1", "--free", "--concurrency", "1",
             "--game", "openspiel:hearts"], stdout=subprocess.PIPE, stderr=err, text=True, cwd=tmp_path, env=env) as proc:
        try:
            assert proc.stdout is not None
            lines = iter(proc.stdout.readline, "")
            url = next(line for line in lines if "serving on" in line).split("serving on ")[1].split()[0]
            submits = []
            for a in authors:  # at once: each is checked at a table of its own
                folder = tmp_path / "src" / a
                folder.mkdir(parents=True)
                shutil.copy(ROOT / "bots" / "random_bot.py", folder / "bot.py")
                for p in (folder.parent, folder, folder / "bot.py"):
                    p.chmod(0o755 if p.is_dir() else 0o644)
                submits.append(subprocess.Popen([str(ARENA), "submit", str(folder), "--server", url, "--name", f"{a}-bot"],
                                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path,
                                                env={**env, "ARENA_TOKEN": tokens[a]}))
            for s in submits:
                out, _ = s.communicate(timeout=300)
                assert s.returncode == 0 and "conformant" in out, out
            started = next(line for line in lines if line.startswith("match "))
            assert started.count(" v ") == 3, started  # four entrants, one table
            next(line for line in lines if line.startswith("rated:") and line.strip() != "rated: 0 boards")
        finally:
            proc.terminate()
    assert proc.wait(timeout=60) is not None, (tmp_path / "stderr").read_text()
    doc = json.loads(run("league", "standings", "--db", str(db), "--json").stdout)
    assert doc["game"] == "openspiel:hearts" and doc["entrants"] == 4
    assert all(row["boards"] >= 1 and row["faults"] == 0 for row in doc["standings"]), doc["standings"]


@pytest.mark.parametrize("name", ["bridge", "skat", "gin_rummy", "oh_hell"])
def test_each_card_game_plays_a_tournament_by_the_random_bot(name, tmp_path):
    """Copies of the arena's random bot, one a seat (bridge: one a side, clone partners), play a
    board in rooms that rotate them; every room is dealt the same cards, and each stored deal,
    replayed from the database, ends with its stored points."""
    g = games.game(f"openspiel:{name}")
    v = g.variant(None)
    layout = g.layout(v)
    bots = []
    for k in range(layout.num_sides):
        (tmp_path / f"copy{k}").mkdir()
        bots.append(str(shutil.copy(ROOT / "bots" / "random_bot.py", tmp_path / f"copy{k}" / f"r{k}.py")))
    arena("tournament", "run", "--game", g.info.name, "--bots", ",".join(bots), "--boards", "1", "--seed", str(SEED),
          "--name", "t", "--quiet", cwd=tmp_path)
    with schema.open_db(tmp_path / "a.db", create=False) as db:
        assert db.execute("SELECT count(*) FROM seats WHERE status != 'ok'").fetchone()[0] == 0
        docs = [replay.document(db, deal_id) for (deal_id,) in db.execute("SELECT id FROM deals ORDER BY id")]
    assert len(docs) == layout.num_sides  # a room for each side's seat
    assert len({json.dumps(g.deal(v, int(d["seed"]), d["dealer"]).to_dict()["history"]) for d in docs}) == 1
    for doc in docs:
        state = g.deal(v, int(doc["seed"]), doc["dealer"])
        for m in doc["moves"]:
            state = state.apply(m["move"])
        assert state.is_over and list(state.result().sides) == doc["points"]
