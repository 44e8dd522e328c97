"""One process plays all of a room's boards: each `deal` names its board and room and its
number within the board, and `deal_end` carries the board's own totals (protocol.md, section 2)."""

from __future__ import annotations

import trio
import trio.testing

from engine import zwicker
from arena.protocol.connection import Connection
from arena.play.room import GamePlan, RoomPlan
from arena.play.table import FixedDeals, run_table
from tests.test_table import MemoryBot


async def play_room(plan):
    bots = [MemoryBot() for _ in range(4)]
    conns = []
    async with trio.open_nursery() as nursery:
        for bot in bots:
            arena_end, bot_end = trio.testing.memory_stream_pair()
            conns.append(Connection(arena_end, arena_end))
            nursery.start_soon(bot.run, bot_end)
        result = await run_table(conns, variant=zwicker.variant("jensen", target=31), plan=plan,
                                 match_id="cup/m0", table_id="cup/m0/straight/b4", bot_seed=1)
        nursery.cancel_scope.cancel()
    assert result.ok, result.forfeit
    return bots, result


async def test_each_deal_names_its_board_and_the_board_keeps_its_own_totals():
    v = zwicker.variant("jensen", target=31)
    plans = [FixedDeals([(zwicker.deal_seed(3, 4), 0)]), GamePlan(v, zwicker.deal_seed(3, 5), 1),
             FixedDeals([(zwicker.deal_seed(3, 6), 2)])]
    boards = ["cup/m0/straight/b4", "cup/m0/straight/b5", "cup/m0/straight/b6"]
    bots, result = await play_room(RoomPlan(plans, room="cup/m0/straight", boards=boards))
    deals = [m for m in bots[2].received if m["type"] == "deal"]
    ends = [m for m in bots[2].received if m["type"] == "deal_end"]
    game_deals = len(deals) - 2
    assert game_deals >= 2  # the game to 31 takes several deals: a board of more than one deal
    assert [m["number"] for m in deals] == list(range(len(deals)))
    assert {m["room"] for m in deals} == {"cup/m0/straight"}
    assert [m["board"] for m in deals] == [boards[0]] + [boards[1]] * game_deals + [boards[2]]
    assert [m["board_deal"] for m in deals] == [0] + list(range(game_deals)) + [0]
    assert [m["board"] for m in ends] == [m["board"] for m in deals]
    points = [d["points"] for d in result.deals]
    assert ends[0]["board_totals"] == points[0]
    game_totals = [sum(p[s] for p in points[1:1 + game_deals]) for s in range(2)]
    assert ends[game_deals]["board_totals"] == game_totals and max(game_totals) >= 31
    assert ends[-1]["board_totals"] == points[-1]
    assert ends[-1]["totals"] == [sum(p[s] for p in points) for s in range(2)]  # the process's, all boards


async def test_a_table_on_its_own_is_its_own_room_and_board():
    bots, result = await play_room(FixedDeals([(7, 0), (8, 1)]))
    deals = [m for m in bots[0].received if m["type"] == "deal"]
    assert [(m["room"], m["board"], m["board_deal"]) for m in deals] == [("cup/m0/straight/b4",) * 2 + (0,),
                                                                        ("cup/m0/straight/b4",) * 2 + (1,)]
    ends = [m for m in bots[0].received if m["type"] == "deal_end"]
    assert ends[-1]["board_totals"] == ends[-1]["totals"]
