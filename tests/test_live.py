"""A room's table as spectators see it while it plays (arena.play.live): after every move the
public view, which replays the deal's public state exactly and never holds a hand or the seed;
the file goes when the room ends. The pages' side of it is in test_web and test_web_browser."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import trio
import trio.testing

from engine import zwicker
from arena.play import live
from arena.play.room import RoomPlan
from arena.play.table import FixedDeals, run_table
from arena.protocol.connection import Connection
from tests.test_table import MemoryBot

ROOT = Path(__file__).resolve().parent.parent


class Recording(live.Watch):
    """Every view written, as read back from the file."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.views: list[dict] = []

    def __call__(self, *args) -> None:
        super().__call__(*args)
        self.views.append(json.loads(self.path.read_text()))


async def test_every_move_publishes_the_public_view_and_nothing_hidden(tmp_path):
    v = zwicker.variant("jensen")
    deals = [(zwicker.deal_seed(5, 1), 1), (zwicker.deal_seed(5, 2), 2)]
    watch = Recording(tmp_path / "live", "cup/m3", 3, True, [7, 8, 7, 8], every_s=0, sync=True)
    bots = [MemoryBot() for _ in range(4)]
    async with trio.open_nursery() as nursery:
        conns = []
        for bot in bots:
            arena_end, bot_end = trio.testing.memory_stream_pair()
            conns.append(Connection(arena_end, arena_end))
            nursery.start_soon(bot.run, bot_end)
        plan = RoomPlan([FixedDeals([d]) for d in deals], room="cup/m3/swapped",
                        boards=["cup/m3/swapped/b1", "cup/m3/swapped/b2"], watch=watch)
        result = await run_table(conns, variant=v, plan=plan, match_id="cup/m3", table_id="cup/m3/swapped/b1", bot_seed=1)
        nursery.cancel_scope.cancel()
    assert result.ok
    moves = [len(d["moves"]) for d in result.to_dict()["deals"]]
    assert len(watch.views) == sum(moves) + len(moves)  # each deal's start, then every move
    k = 0
    for number, ((seed, dealer), played) in enumerate(zip(deals, result.to_dict()["deals"])):
        state = zwicker.deal(v, seed, dealer)
        for step in range(len(played["moves"]) + 1):
            if step:
                state = state.apply(zwicker.Move.from_dict(played["moves"][step - 1]["move"]))
            view = watch.views[k]
            k += 1
            assert (view["match_no"], view["swapped"], view["board_no"], view["deal"]) == (3, True, number + 1, 0)
            assert view["seats"] == [7, 8, 7, 8] and view["seat_sides"] == [0, 1, 0, 1] and view["dealer"] == dealer
            assert view["hands"] == [len(h) for h in state.hands]  # how many, never which
            assert view["stock"] == len(state.stock) and view["taken"] == [len(t) for t in state.taken]
            assert view["table"] == [{"build": list(u.cards), "value": u.value, "by": u.by}
                                     if isinstance(u, zwicker.Build) else u for u in state.table]
            assert [m["move"] for m in view["moves"]] == [m["move"] for m in played["moves"][:step]]
            assert view["to_move"] == (None if state.is_over else state.to_move)
            text = json.dumps(view)
            assert "seed" not in text and str(seed) not in text
            held = {c for h in state.hands for c in h}  # no card still in a hand shows anywhere in the view
            named = set(re.findall(r"(?<![A-Z0-9])([2-9TJQKA][CDHS]|X\d\d|XW)(?![0-9])", text))
            assert named and not held & named, held & named
    watch.close()
    assert not watch.path.exists()


def test_a_tournament_publishes_into_its_live_folder_and_leaves_it_empty(tmp_path):
    """A real run: the rooms publish beside the database and take their files with them."""
    db = tmp_path / "arena.db"
    arena = [sys.executable, "-m", "arena"]
    for name in ("random", "greedy"):
        subprocess.run([*arena, "bot", "add", str(ROOT / "bots" / "zwicker" / f"{name}_bot.py"), "--name", name, "--db", str(db)],
                       check=True, capture_output=True, cwd=ROOT)
    subprocess.run([*arena, "tournament", "run", "--bots", "random,greedy", "--boards", "2", "--name", "t",
                    "--seed", "123456789012345", "--sandbox", "none", "--quiet", "--db", str(db)],
                   check=True, capture_output=True, cwd=ROOT)
    folder = Path(f"{db}.live") / "1"
    assert folder.is_dir() and list(folder.iterdir()) == []


def test_a_games_whole_position_texts_stay_out_of_the_public_view():
    """A game whose frame carries its whole position as text, and each seat's view (OpenSpiel's
    games do), shows spectators neither: both name every hand."""
    import pytest
    pytest.importorskip("pyspiel", reason="the [openspiel] extra (open-spiel) is not installed")
    import games
    game = games.game("openspiel:hearts")
    state = game.board(game.variant(), 7).deal()
    moves, _ = state.legal_moves()
    state = state.apply(moves[0])
    frame = state.frame()
    assert "text" in frame or "views" in frame  # the premise: this game's frame shows hands
    view = live.public_view(game, state, [{"seat": 0, "move": moves[0].to_dict()}])
    assert "text" not in view and "views" not in view
