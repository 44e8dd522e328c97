"""protocol.md's tables of msgpack types ("The msgpack types on the wire") are what the arena
writes and accepts: the bytes of real tables of every bundled game use only the formats listed,
every message has exactly the fields listed, and the replies are accepted or refused as listed."""

from __future__ import annotations

import re
from pathlib import Path

import msgpack
import pytest
import trio
import trio.testing

from arena.protocol.connection import Connection
from arena.errors import ProtocolError
from arena.play.table import FixedDeals, run_table
from arena.protocol.messages import parse_reply
from engine import zwicker
from tests.test_table import MemoryBot

DOC = (Path(__file__).resolve().parent.parent / "protocol.md").read_text()
TYPES = re.search(r"^### The msgpack types on the wire\n(.*?)(?=^#+ |\Z)", DOC, re.S | re.M).group(1)

# msgpack's formats by their first byte, named as the table names them.
FORMATS = {**{b: "positive fixint" for b in range(0x80)}, **{b: "fixmap" for b in range(0x80, 0x90)},
           **{b: "fixarray" for b in range(0x90, 0xA0)}, **{b: "fixstr" for b in range(0xA0, 0xC0)},
           **{b: "negative fixint" for b in range(0xE0, 0x100)},
           0xC0: "nil", 0xC2: "false", 0xC3: "true", 0xC4: "bin", 0xC5: "bin", 0xC6: "bin", 0xCA: "float 32",
           0xCB: "float 64", 0xCC: "uint 8", 0xCD: "uint 16", 0xCE: "uint 32", 0xCF: "uint 64", 0xD0: "int 8",
           0xD1: "int 16", 0xD2: "int 32", 0xD3: "int 64", 0xD9: "str 8", 0xDA: "str 16", 0xDB: "str 32",
           0xDC: "array 16", 0xDD: "array 32", 0xDE: "map 16", 0xDF: "map 32"}


def formats_in(data: bytes) -> set[str]:
    """Every msgpack format the bytes use, walked value by value."""
    seen, pos = set(), 0
    while pos < len(data):
        b = data[pos]
        seen.add(FORMATS.get(b, f"ext 0x{b:02x}"))
        pos += 1
        if b <= 0x7F or b >= 0xE0 or b in (0xC0, 0xC2, 0xC3):
            continue
        if 0x80 <= b <= 0x9F:
            continue  # fixmap and fixarray: their items follow
        if 0xA0 <= b <= 0xBF:
            pos += b & 0x1F
            continue
        width = {0xCC: 1, 0xCD: 2, 0xCE: 4, 0xCF: 8, 0xD0: 1, 0xD1: 2, 0xD2: 4, 0xD3: 8, 0xCA: 4, 0xCB: 8}.get(b)
        if width:
            pos += width
            continue
        size = {0xD9: 1, 0xDA: 2, 0xDB: 4, 0xC4: 1, 0xC5: 2, 0xC6: 4}.get(b)
        if size:
            pos += size + int.from_bytes(data[pos:pos + size], "big")
            continue
        pos += {0xDC: 2, 0xDD: 4, 0xDE: 2, 0xDF: 4}[b]  # array 16/32, map 16/32: items follow
    return seen


class Tap:
    """A stream that keeps every byte the arena writes to a bot."""

    def __init__(self, stream, raw: bytearray) -> None:
        self.stream, self.raw = stream, raw

    async def receive_some(self, max_bytes=None):
        data = await self.stream.receive_some(max_bytes)
        self.raw += data
        return data

    async def send_all(self, data):
        await self.stream.send_all(data)

    async def aclose(self):
        await self.stream.aclose()


class TapBot(MemoryBot):
    def __init__(self) -> None:
        super().__init__()
        self.raw = bytearray()

    async def run(self, stream) -> None:
        await super().run(Tap(stream, self.raw))


async def bytes_of_a_table(game: str, variant, deals) -> list[TapBot]:
    bots = [TapBot() for _ in range(4)]
    async with trio.open_nursery() as nursery:
        conns = []
        for bot in bots:
            arena_end, bot_end = trio.testing.memory_stream_pair()
            conns.append(Connection(arena_end, arena_end))
            nursery.start_soon(bot.run, bot_end)
        result = await run_table(conns, variant=variant, plan=FixedDeals(deals), match_id="m1", table_id="t1",
                                 bot_seed=2**64 - 1, game=game)
        nursery.cancel_scope.cancel()
    assert result.ok, result.forfeit
    return bots


def documented(kind_row: str) -> set[str]:
    """The formats a row of the first table lists."""
    row = next(line for line in TYPES.splitlines() if line.startswith(f"| {kind_row} |"))
    return {f.strip() for f in row.split("|")[2].split(";")[0].split(",")}


@pytest.mark.parametrize("game, variant, deals", [
    ("zwicker", "jensen", [(zwicker.deal_seed(3, k), k % 4) for k in range(2)]),
    ("zwicken", {"deals": 2}, [(11, 0)]),
])
async def test_the_arena_writes_only_the_formats_the_table_lists(game, variant, deals):
    bots = await bytes_of_a_table(game, variant, deals)
    written = set().union(*(formats_in(bytes(bot.raw)) for bot in bots))
    listed = set().union(*(documented(k) for k in ("map", "array", "string", "integer ≥ 0", "integer < 0",
                                                   "boolean", "nil", "float")))
    assert written <= listed, written - listed
    assert not written & {"bin", "float 32"} and not any(f.startswith("ext") for f in written)
    assert "uint 64" in written  # the seeds: half of all are above 2**63 - 1
    fields = {kind: set(re.findall(r"`(\w+)`", text))
              for kind, text in re.findall(r"^\| `(\w+)` \| (`type`.*?) \|$", TYPES, re.M)}
    assert set(fields) == {"hello", "deal", "act", "deal_end", "bye"}
    inside = {"handshake_ms", "move_ms", "bank_ms"}  # the keys of `time`, named in its row
    for message in (m for bot in bots for m in bot.received):
        keys, listed = set(message), fields[message["type"]]
        assert keys <= listed and listed - inside - {"result"} <= keys, (message["type"], keys ^ listed)


def test_seeds_above_two_to_the_63_come_as_uint_64():
    assert formats_in(msgpack.packb({"seed": 2**64 - 1})) == {"fixmap", "fixstr", "uint 64"}


def reply(**fields):
    return {"type": "move", **fields}


@pytest.mark.parametrize("message, ok", [
    (reply(index=3), True),
    (reply(index=msgpack.unpackb(b"\xcf" + (3).to_bytes(8, "big"))), True),  # any integer format
    (reply(index=True), False),
    (reply(index=1.0), False),
    (reply(index="1"), False),
    (reply(move={"type": "trail", "card": "5H"}), True),
    (reply(move=["trail", "5H"]), False),
    (reply(index=0, extra=b"\x00", other=1.5), True),  # unknown fields of any plain type: ignored
    ({"type": "ready", "name": "a", "version": "1", "games": ["zwicker"]}, True),
    ({"type": "ready", "name": "a"}, True),
    ({"type": "ready", "name": "a", "version": None}, False),
    ({"type": "ready", "name": b"a"}, False),
    ({"type": "ready", "name": " "}, False),
    ({"type": "ready", "name": "a", "games": "zwicker"}, False),
    ({"type": "ready", "name": "a", "games": [""]}, False),
    ({"type": "ready", "name": "a", "games": ["g"] * 33}, False),
])
def test_the_arena_accepts_and_refuses_replies_as_the_table_says(message, ok):
    if ok:
        parse_reply(message, message["type"])
    else:
        with pytest.raises(ProtocolError):
            parse_reply(message, message["type"])
