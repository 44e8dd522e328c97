"""The compiled example bot (bots/zwicker/c, C with a hand-written msgpack subset) plays real tables:
built by make, run as a program, one process for a room's boards."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path

import msgpack
import pytest

from engine import zwicker
from arena.play.match import RANDOM_BOT
from arena.process.command import BotCommand
from arena.play.room import RoomPlan
from arena.play.table import FixedDeals, play_table

C_DIR = Path(__file__).resolve().parent.parent / "bots" / "zwicker" / "c"


@pytest.fixture(scope="module")
def c_bot() -> Path:
    if shutil.which("cc") is None or shutil.which("make") is None:
        pytest.skip("no C compiler (cc) or make here: the C bot cannot be built")
    subprocess.run(["make", "-s", "-C", str(C_DIR)], check=True, capture_output=True)
    return C_DIR / "zwicker_bot"


async def test_the_c_bot_plays_a_room_of_boards_and_sees_each_board(c_bot):
    c, random_bot = BotCommand.from_spec(str(c_bot)), BotCommand.from_spec(str(RANDOM_BOT))
    boards = [FixedDeals([(zwicker.deal_seed(2, k), k % 4)]) for k in range(3)]
    plan = RoomPlan(boards, room="cup/m1/straight", boards=[f"cup/m1/straight/b{k}" for k in range(3)])
    result = await play_table([c, random_bot, c, random_bot], variant="jensen", plan=plan, bot_seed=2)
    assert result.ok, result.forfeit
    assert [s.name for s in result.seats] == ["c-greedy", "random"] * 2
    log = result.seats[0].stderr
    for k in range(3):
        assert f"deal {k} room cup/m1/straight board cup/m1/straight/b{k} board_deal 0\n" in log
        points = result.deals[k]["points"]
        assert f"deal_end {k} board_totals {points[0]} {points[1]}\n" in log
    assert log.rstrip().endswith("bye end")


def test_the_c_bot_reads_every_msgpack_format_and_ignores_unknown_fields(c_bot):
    """Fields a later revision may add, in every format msgpack has for them (16- and 32-bit
    lengths, negative and 64-bit integers, floats, binaries, nested maps), must not disturb it."""
    extra = {"i8": -100, "i16": -30000, "i32": -2**31, "i64": -2**63, "u64": 2**64 - 1, "u16": 65535,
             "f": 1.5, "bin": b"\x00\x01", "s8": "x" * 40, "s16": "y" * 300, "a16": list(range(20)),
             "m16": {str(k): [k, None, True] for k in range(20)}, "nested": [[{"a": [1.0]}]]}
    hello = {"type": "hello", "protocol": 1, "seat": 0, "variant": {"points": {"TD": 3}}, **extra}
    act = {"type": "act", "number": 0, "observation": {"table": ["TD"]}, **extra,
           "legal": [{"type": "trail", "card": "9S"}, {"type": "capture", "card": "TS", "value": 10, "take": [0]}]}
    data = b"".join(msgpack.packb(m, use_single_float=False) for m in (hello, act, {"type": "bye", "reason": "end"}))
    data = data.replace(msgpack.packb(1.5), b"\xca" + bytes.fromhex("3fc00000"), 1)  # one float32 too
    done = subprocess.run([str(c_bot)], input=data, capture_output=True, timeout=30)
    assert done.returncode == 0, done.stderr
    replies = list(msgpack.Unpacker(io.BytesIO(done.stdout)))
    assert replies == [{"type": "ready", "name": "c-greedy", "version": "1"}, {"type": "move", "index": 1}]
