"""`--tempo fixed` (issue 28): the table's clock carries nothing of how long a bot thought.

A bot that waits `digit` tenths of the move limit before answering would tell its partner a
digit through the gap between the partner's own reply and its next `act`. Under the fixed tempo
each reply is released one move limit after its `act`, so that every gap the partner sees is the
same whatever the sender did; under the free tempo (the default) the gaps are the sender's.
On trio's autojump clock, with in-memory bots (tests/test_table.py).
"""

from __future__ import annotations

import random

import pytest
import trio

from arena.play.table import TimeControl
from tests.test_table import MemoryBot, play


class Whisperer(MemoryBot):
    """Thinks a tenth of the move limit times a digit of its own, a new one every move."""

    def __init__(self, digits: list[int]) -> None:
        super().__init__()
        self.digits = digits

    async def act(self, stream, message):
        await trio.sleep(self.digits[(self.acts - 1) % len(self.digits)] * 0.1)
        await super().act(stream, message)


class Listener(MemoryBot):
    """Times the gap from its own reply to its next `act` (the table's clock, as a bot sees it)."""

    def __init__(self) -> None:
        super().__init__()
        self.replied: float | None = None
        self.gaps: list[float] = []

    async def deal(self, stream, message):
        self.replied = None  # a gap across deals is the table's own

    async def act(self, stream, message):
        if self.replied is not None:
            self.gaps.append(round(trio.current_time() - self.replied, 6))
        await super().act(stream, message)
        self.replied = trio.current_time()


async def gaps(tempo: str) -> list[float]:
    rng = random.Random(7)
    digits = [rng.randrange(10) for _ in range(8)]
    listener = Listener()
    result = await play([Whisperer(digits), MemoryBot(), Whisperer(digits), listener],
                        tc=TimeControl(move_s=1, bank_s=0, tempo=tempo))
    assert result.ok
    return listener.gaps


async def test_under_the_free_tempo_the_gaps_carry_the_whisperers_digits(autojump_clock):  # the positive control
    assert len(set(await gaps("free"))) > 3


async def test_under_the_fixed_tempo_every_gap_is_the_same(autojump_clock):
    seen = await gaps("fixed")
    # four moves of 1 s: its own (released a move limit after its act) and the three others
    assert len(seen) > 10 and len(set(seen)) == 1 and seen[0] == pytest.approx(4.0)


def test_a_tempo_the_arena_does_not_know_is_refused():
    with pytest.raises(ValueError, match="tempo must be one of free, fixed, got 'slow'"):
        TimeControl(tempo="slow")


async def test_a_tempo_whisperer_passes_nothing_to_its_partner_under_the_fixed_tempo():
    """Real processes under the fixed tempo (what `--fair` adds to every run's scheduler): each
    partner waits a digit of its hand before answering and reads its partner's from the gap
    between its own reply and its next act; it reads no better than chance (1 in 10), within a
    generous bound. The sender's pause is its own: nothing here is timed by the test."""
    from pathlib import Path

    from arena.play.match import RANDOM_BOT
    from arena.play.table import FixedDeals, play_table
    from arena.process.command import BotCommand
    from engine import zwicker

    whisper = BotCommand.from_spec(str(Path(__file__).parent / "hostile" / "tempo_whisper.py"))
    rand = BotCommand.from_spec(str(RANDOM_BOT))
    result = await play_table([whisper, rand, whisper, rand], variant="jensen",
                              plan=FixedDeals([(zwicker.deal_seed(3, k), k % 4) for k in range(2)]),
                              time_control=TimeControl(move_s=0.12, bank_s=0, tempo="fixed"), bot_seed=5)
    assert result.ok, (result.forfeit, result.seats[result.forfeit["seat"]].stderr if result.forfeit else "")
    right = total = 0
    for me, partner in ((0, 2), (2, 0)):
        sent = {tuple(line.split()[1:3]): line.split()[3] for line in result.seats[partner].stderr.splitlines()
                if line.startswith("sent ")}
        for line in result.seats[me].stderr.splitlines():
            if line.startswith("read "):
                _, deal, moves, digit = line.split()
                if (deal, moves) in sent:
                    total += 1
                    right += sent[(deal, moves)] == digit
    assert total >= 20, (total, result.seats[0].stderr[:500])
    assert right / total <= 0.4, (right, total)
