"""The connection over in-memory streams and real pipes: each failure becomes a named fault."""

from __future__ import annotations

import math
import os

import pytest
import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import BotCrashed, BotTimeout, ProtocolError
from arena.protocol.connection import Connection
from arena.protocol.messages import Decoder, MoveReply, Ready, encode

ACT = {"type": "act", "number": 0, "observation": {}, "legal": [{"type": "trail", "card": "5H"}],
       "time": {"move_ms": 1000, "bank_ms": 0}}


def pair() -> tuple[Connection, trio.abc.Stream]:
    arena_end, bot_end = trio.testing.memory_stream_pair()
    return Connection(arena_end, arena_end), bot_end


async def read_one(stream: trio.abc.ReceiveStream) -> dict:
    decoder = Decoder(1 << 20)
    while (message := decoder.next()) is None:
        decoder.feed(await stream.receive_some())
    return message


async def test_request_returns_the_typed_reply_and_its_time(autojump_clock):
    conn, bot = pair()

    async def answer():
        assert (await read_one(bot))["type"] == "hello"
        await trio.sleep(0.25)
        await bot.send_all(encode({"type": "ready", "name": "b", "version": "1"}))

    async with trio.open_nursery() as nursery:
        nursery.start_soon(answer)
        reply, seconds = await conn.request({"type": "hello"}, "ready", math.inf, "forever")
    assert reply == Ready("b", "1")
    assert seconds == pytest.approx(0.25)


async def test_a_reply_split_over_many_writes_is_put_together():
    conn, bot = pair()
    data = encode({"type": "move", "index": 2})

    async def answer():
        await read_one(bot)
        for byte in data:
            await bot.send_all(bytes([byte]))
            await trio.sleep(0)

    async with trio.open_nursery() as nursery:
        nursery.start_soon(answer)
        reply, _ = await conn.request(ACT, "move", math.inf, "forever")
    assert reply == MoveReply(2, None)


async def test_no_reply_before_the_deadline_is_a_timeout(autojump_clock):
    conn, bot = pair()
    start = trio.current_time()
    with pytest.raises(BotTimeout, match="no 'move' reply to 'act' within 1.5 s"):
        await conn.request(ACT, "move", start + 1.5, "1.5 s")
    assert trio.current_time() - start == pytest.approx(1.5)


async def test_a_bot_that_does_not_read_its_input_times_out(autojump_clock):
    arena_end, bot_end = trio.testing.lockstep_stream_pair()
    conn = Connection(arena_end, arena_end)
    with pytest.raises(BotTimeout, match="did not read its input"):
        await conn.send(ACT, trio.current_time() + 1)


async def test_end_of_stream_is_a_crash():
    conn, bot = pair()
    await bot.aclose()
    with pytest.raises(BotCrashed, match="closed its output"):
        await conn.receive()


async def test_writing_to_a_closed_input_is_a_crash():
    conn, bot = pair()
    await bot.aclose()
    with pytest.raises(BotCrashed, match="input was closed"):
        await conn.send(ACT)


async def test_two_replies_in_one_write_are_a_protocol_error():
    conn, bot = pair()
    await bot.send_all(encode({"type": "move", "index": 0}) * 2)
    with pytest.raises(ProtocolError, match="more than one message"):
        await conn.request(ACT, "move", math.inf, "forever")


async def test_a_reply_of_the_wrong_type_is_a_protocol_error():
    conn, bot = pair()
    await bot.send_all(encode({"type": "ready", "name": "x"}))
    with pytest.raises(ProtocolError, match="expected a 'move' message, got 'ready'"):
        await conn.request(ACT, "move", math.inf, "forever")


async def test_garbage_is_a_protocol_error_not_a_hang():
    conn, bot = pair()
    await bot.send_all(b"\xc1\xc1\xc1")
    with pytest.raises(ProtocolError, match="undecodable"):
        await conn.request(ACT, "move", math.inf, "forever")


async def test_an_endless_message_is_cut_at_the_size_limit():
    arena_end, bot_end = trio.testing.memory_stream_pair()
    conn = Connection(arena_end, arena_end, max_message=1000)
    await bot_end.send_all(b"\xdb\x00\x01\x00\x00" + b"x" * 2000)  # str32 header of 64 KiB
    with pytest.raises(ProtocolError, match="larger than 1000 bytes"):
        await conn.receive()


def pipe_pair() -> tuple[Connection, int, int]:
    """A connection over real OS pipes (which can be polled); returns it and the bot's fds."""
    to_bot_r, to_bot_w = os.pipe()
    from_bot_r, from_bot_w = os.pipe()
    conn = Connection(trio.lowlevel.FdStream(to_bot_w), trio.lowlevel.FdStream(from_bot_r))
    return conn, to_bot_r, from_bot_w


async def test_an_unsolicited_message_on_a_pipe_is_caught_before_the_next_request():
    conn, to_bot_r, from_bot_w = pipe_pair()
    try:
        conn.check_idle()  # nothing sent: fine
        os.write(from_bot_w, encode({"type": "move", "index": 0}))
        with pytest.raises(ProtocolError, match="sent a 'move' message the arena did not ask for"):
            await conn.request(ACT, "move", math.inf, "forever")
    finally:
        os.close(to_bot_r)
        os.close(from_bot_w)
        await conn.send_stream.aclose()
        await conn.receive_stream.aclose()


async def test_an_exit_between_requests_on_a_pipe_is_a_crash():
    conn, to_bot_r, from_bot_w = pipe_pair()
    os.close(from_bot_w)
    try:
        with pytest.raises(BotCrashed, match="closed its output"):
            conn.check_idle()
    finally:
        os.close(to_bot_r)
        await conn.send_stream.aclose()
        await conn.receive_stream.aclose()


@settings(max_examples=150, deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=300) | st.sampled_from([
    encode({"type": "move", "index": 0}), encode({"type": "move", "index": 0})[:3],
    encode({"type": "move", "index": 0})[3:], encode({"type": "ready", "name": "x"})]), max_size=8),
    st.booleans())
def test_any_byte_stream_ends_in_a_reply_or_a_named_fault(chunks, close):
    """Whatever a bot writes, a request ends: a reply, or a fault (never a hang or another error)."""

    async def main():
        conn, bot = pair()
        for chunk in chunks:
            await bot.send_all(chunk)
        if close:
            await bot.aclose()
        try:
            reply, _ = await conn.request(ACT, "move", trio.current_time() + 1, "1 s")
        except (ProtocolError, BotCrashed, BotTimeout) as exc:
            return exc.status
        assert isinstance(reply, MoveReply)
        return "ok"

    status = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert status in ("ok", "protocol_error", "crash", "timeout")
    if not close:
        assert status != "crash"
