"""Every fault named in protocol.md, made by a real misbehaving bot process (tests/faulty/).

Each test checks the exact status recorded for the faulty seat, that the other seats end "ok"
and that the faulting side forfeits. Limits are short so that the few real waits stay short.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from engine import zwicker
from arena.play.match import RANDOM_BOT
from arena.play.table import FixedDeals, TimeControl, play_table
from arena.process.command import BotCommand

FAULTY = Path(__file__).parent / "faulty"
DEALS = [(zwicker.deal_seed(11, k), k % 4) for k in range(2)]
FAST = TimeControl(handshake_s=5, move_s=0.5, bank_s=0, grace_s=0.2)


async def table_with(bot: str, seat: int = 1, tc: TimeControl = FAST):
    seats = [BotCommand.from_spec(str(RANDOM_BOT))] * 4
    seats[seat] = BotCommand.from_spec(str(FAULTY / bot))
    return await play_table(seats, variant="jensen", plan=FixedDeals(DEALS), time_control=tc,
                            match_id="faults", table_id=bot, bot_seed=3)


def check(result, seat, status, *words):
    d = result.to_dict()
    expected = ["ok"] * 4
    expected[seat] = status
    assert [s["status"] for s in d["seats"]] == expected, d["seats"][seat]["detail"]
    detail = d["seats"][seat]["detail"]
    assert any(w in detail for w in words), detail
    assert d["forfeit"] == {"side": seat % 2, "seat": seat, "status": status, "detail": detail}
    points = [60, 60]
    points[seat % 2] = 0
    assert d["points"] == points
    for other in set(range(4)) - {seat}:
        # A fault in the handshake ends the others' handshakes too, so they may stay unnamed.
        assert d["seats"][other]["name"] == ("random" if d["deals"] else d["seats"][other]["name"])
        assert d["seats"][other]["stderr"] == ""
    return d


@pytest.mark.parametrize("bot, status, words", [
    ("crash.py", "crash", ["exit status 3"]),
    ("exit_at_start.py", "crash", ["closed its output", "input was closed"]),
    ("closes_stdout.py", "crash", ["closed its output"]),
    ("illegal.py", "illegal_move", ["is out of range"]),
    ("disagree.py", "illegal_move", ["is not legal"]),
    ("garbage.py", "protocol_error", ["undecodable"]),
    ("prints.py", "protocol_error", ["undecodable", "must be a msgpack map"]),
    ("oversized.py", "protocol_error", ["larger than 65536 bytes"]),
    ("wrong_type.py", "protocol_error", ["expected a 'move' message, got 'ready'"]),
    ("not_a_map.py", "protocol_error", ["must be a msgpack map, got an integer"]),
    ("missing_field.py", "protocol_error", ["needs 'index' or 'move'"]),
    ("extra.py", "protocol_error", ["more than one message", "did not ask for"]),
    ("bad_ready.py", "protocol_error", ["'name' of 'ready' must be a string"]),
])
async def test_a_faulty_bot_gets_its_status_and_the_others_finish(bot, status, words):
    check(await table_with(bot), 1, status, *words)


async def test_a_slow_bot_times_out_after_its_move_limit_and_bank():
    tc = TimeControl(handshake_s=5, move_s=0.3, bank_s=0.2, grace_s=0.2)
    d = check(await table_with("slow.py", seat=2, tc=tc), 2, "timeout", "within 0.500 s")
    assert d["seats"][2]["moves"] == 1


async def test_a_bot_that_never_answers_hello_times_out_in_the_handshake():
    tc = TimeControl(handshake_s=1.5, move_s=0.5, bank_s=0, grace_s=0.2)
    d = check(await table_with("mute.py", seat=3, tc=tc), 3, "timeout", "handshake limit of 1.5 s")
    assert d["deals"] == []


async def test_a_bot_that_cannot_be_started_is_a_crash(tmp_path):
    script = tmp_path / "gone.py"
    script.write_text("")
    cmd = BotCommand.from_spec(str(script))
    script.unlink()
    seats = [BotCommand.from_spec(str(RANDOM_BOT))] * 4
    seats[0] = cmd
    result = await play_table(seats, variant="jensen", plan=FixedDeals(DEALS), time_control=FAST)
    assert result.seats[0].status == "crash"
    assert [s.status for s in result.seats[1:]] == ["ok"] * 3
