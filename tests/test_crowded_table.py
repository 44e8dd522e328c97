"""Four bots that never capture crowd the table: the arena stays bounded and the deal ends."""

from __future__ import annotations

from pathlib import Path

import trio

from engine import zwicker
from arena.play.table import FixedDeals, TimeControl, play_table
from arena.process.command import BotCommand

TRAILER = Path(__file__).parent / "hostile" / "always_trail.py"


async def test_a_table_of_trailers_plays_to_the_end_with_cut_legal_lists():
    cmd = BotCommand.from_spec(str(TRAILER))
    with trio.fail_after(120):  # a real bound: listing every capture of such a table takes minutes
        result = await play_table([cmd] * 4, variant="jensen", plan=FixedDeals([(zwicker.deal_seed(0, 3), 0)]),
                                  time_control=TimeControl(move_s=2.0, bank_s=5.0))
    assert result.ok and [s.status for s in result.seats] == ["ok"] * 4
    deal = result.deals[0]
    assert deal["complete"] and all(m["move"]["type"] == "trail" for m in deal["moves"])
    assert deal["points"] == [0, 0]  # nobody captured: nothing scores
    cuts = [line for s in result.seats for line in s.stderr.splitlines() if line.startswith("cut ")]
    assert cuts and max(int(line.split()[1]) for line in cuts) < 20_000
