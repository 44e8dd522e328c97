"""Duplicate matches and the bot check, with real bot processes."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import zwicker
from arena.play.match import (
    check_bot,
    format_check,
    format_group,
    play_match,
    table_bot_seed,
)
from arena.play.table import TimeControl
from arena.process.command import BotCommand

ROOT = Path(__file__).resolve().parent.parent
RANDOM = BotCommand.from_spec(str(ROOT / "bots" / "zwicker" / "random_bot.py"))
GREEDY = BotCommand.from_spec(str(ROOT / "bots" / "zwicker" / "greedy_bot.py"))
FAULTY = Path(__file__).parent / "faulty"


def faulty(script: str) -> BotCommand:
    """A faulty bot with its kit named in its command: a match runs each bot from a private copy
    of the files its command names (arena.play.match.private_copy), and it imports faultkit."""
    return BotCommand.from_spec(f"{FAULTY / script} {FAULTY / 'faultkit.py'}")


def moves(table) -> list:
    return [(m["seat"], m["move"]) for m in table.deals[0]["moves"]]


async def test_each_board_is_played_twice_with_the_sides_swapped():
    result = await play_match(GREEDY, RANDOM, boards=2, seed=5)
    assert result.names == ["greedy", "random"]
    for k, board in enumerate(result.boards):
        assert (board.seed, board.dealer) == (zwicker.deal_seed(5, k), k % 4)
        first, second = board.tables
        assert [s.name for s in first.seats] == ["greedy", "random"] * 2
        assert [s.name for s in second.seats] == ["random", "greedy"] * 2
        for table in board.tables:
            assert table.deals[0]["seed"] == board.seed and table.deals[0]["dealer"] == board.dealer
        assert board.results == [first.points[0] + second.points[1], first.points[1] + second.points[0]]
    assert result.totals == [sum(b.results[0] for b in result.boards), sum(b.results[1] for b in result.boards)]
    d = result.to_dict()
    assert d["totals"] == result.totals and len(d["boards"]) == 2 and d["forfeits"] == []


async def test_a_match_replays_identically_from_its_seed():
    first = await play_match(RANDOM, RANDOM, boards=1, seed=3)
    again = await play_match(RANDOM, RANDOM, boards=1, seed=3)
    other = await play_match(RANDOM, RANDOM, boards=1, seed=4)
    assert [moves(t) for t in first.boards[0].tables] == [moves(t) for t in again.boards[0].tables]
    assert moves(first.boards[0].tables[0]) != moves(other.boards[0].tables[0])
    assert table_bot_seed(3, 0, 0) != table_bot_seed(3, 0, 1)


async def test_the_printed_match_has_every_board_and_the_total():
    result = await play_match(GREEDY, RANDOM, boards=2, seed=1)
    text = format_group(result)
    lines = text.splitlines()
    total = next(line for line in lines if line.startswith("total"))
    assert total.split()[-2:] == [f"{result.totals[0]:+d}", f"{result.totals[1]:+d}"]
    head = next(k for k, line in enumerate(lines) if line.split()[:1] == ["board"])
    assert [line.split()[0] for line in lines[head + 1:lines.index(total)]] == ["0", "1"]  # a line a board
    assert lines[0].startswith("1 = greedy") and lines[1].startswith("2 = random")


async def test_a_forfeit_shows_in_the_match_and_goes_against_the_faulty_bot():
    illegal = faulty("illegal.py")
    result = await play_match(RANDOM, illegal, boards=1, seed=2)
    assert [f["entrant"] for f in result.forfeits] == [1, 1]
    assert result.totals == [60, 0]
    assert "entrant 2 (seat 1) illegal_move" in format_group(result)


async def test_a_match_needs_two_sides_and_a_board():
    with pytest.raises(ValueError, match="two sides"):
        await play_match(RANDOM, RANDOM, variant={"preset": "jensen", "players": 3})
    with pytest.raises(ValueError, match="boards must be at least 1"):
        await play_match(RANDOM, RANDOM, boards=0)


async def test_check_passes_a_conformant_bot_in_every_seat():
    check = await check_bot(GREEDY, deals=1)
    assert check.conformant and check.positions == [0, 1, 2, 3]
    for table, seat in zip(check.tables, check.positions):
        assert table.seats[seat].name == "greedy"
        assert {s.name for i, s in enumerate(table.seats) if i != seat} == {"random"}
    text = format_check(check)
    assert text.count("handshake ok") == 4 and "reply times: median" in text
    assert text.endswith("conformant: the bot speaks protocol version 1")
    assert check.to_dict()["reply_ms"]["count"] == sum(t.seats[s].moves for t, s in zip(check.tables, range(4)))


async def test_check_says_what_went_wrong():
    check = await check_bot(faulty("wrong_type.py"), deals=1,
                            time_control=TimeControl(move_s=0.5))
    assert not check.conformant
    text = format_check(check)
    assert "FAULT protocol_error: expected a 'move' message, got 'ready'" in text
    assert text.endswith("NOT conformant: see the fault above")
    mute = await check_bot(faulty("exit_at_start.py"), deals=1)
    assert "no handshake: crash" in format_check(mute)
