"""The codec: every byte stream gives messages or a ProtocolError, within the size limit."""

from __future__ import annotations

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.errors import ProtocolError
from arena.protocol import messages
from arena.protocol.messages import (
    MAX_BOT_MESSAGE,
    Decoder,
    MoveReply,
    Ready,
    encode,
    parse_reply,
)


def decode_all(data: bytes, chunk: int = 7, max_message: int = MAX_BOT_MESSAGE) -> list[dict]:
    decoder = Decoder(max_message)
    out = []
    for i in range(0, len(data), chunk):
        decoder.feed(data[i:i + chunk])
        while (message := decoder.next()) is not None:
            out.append(message)
    return out


ARENA_MESSAGES = [
    messages.hello(seat=1, side=1, partners=[3], variant={"preset": "jensen", "players": 4},
                   time_control={"handshake_ms": 10000, "move_ms": 1000, "bank_ms": 10000},
                   match_id="m", table_id="t", seed=2**64 - 1),
    messages.deal(number=0, dealer=3, observation={"seat": 1, "hand": ["9S", "KH"]}),
    messages.act(number=0, observation={"table": ["9C", {"build": ["5C", "4H"], "value": 9, "by": 2}]},
                 legal=[{"type": "trail", "card": "9S"}], move_ms=1000, bank_ms=9500),
    messages.deal_end(number=0, points=[20, 10], breakdown=[{}, {}], totals=[20, 10],
                      moves=[{"seat": 0, "type": "trail", "card": "5H"}]),
    messages.bye(reason="end"),
]


def test_arena_messages_round_trip_through_any_chunking():
    data = b"".join(encode(m) for m in ARENA_MESSAGES)
    for chunk in (1, 2, 5, 64, len(data)):
        assert decode_all(data, chunk, max_message=1 << 20) == ARENA_MESSAGES
    assert [m["type"] for m in ARENA_MESSAGES] == list(messages.ARENA_TYPES)


def test_packed_act_and_deal_end_decode_to_the_messages_they_stand_for():
    """The table sends `act` and `deal_end` with the move list encoded once per move: same messages."""
    from engine import zwicker

    state = zwicker.deal("jensen", 7, 1)
    history = messages.History()
    entries = []
    for _ in range(6):
        seat, move = state.to_move, state.legal_moves()[-1]
        observation = state.observation(seat, moves=False)
        legal = state.legal_moves()
        packed = messages.pack_act(number=3, observation=observation, history=history, legal=legal,
                                   move_ms=1000, bank_ms=2500, complete=False)
        expected = messages.act(number=3, observation={**observation, "moves": list(entries)},
                                legal=[m.to_dict() for m in legal], move_ms=1000, bank_ms=2500, complete=False)
        (decoded,) = decode_all(packed.data, 7, max_message=1 << 20)
        assert packed.type == "act" and decoded == expected and list(decoded) == list(expected)  # keys in order
        entries.append({"seat": seat, **move.to_dict()})
        history.append(entries[-1])
        state = state.apply(move)
    # maps and arrays past msgpack's one-byte headers (16 entries) keep their other entries
    wide = {f"k{i}": i for i in range(40)}
    for _ in range(20):
        history.append({"seat": 0, "type": "trail", "card": "9S"})
    packed = messages.pack_act(number=0, observation=wide, history=history, legal=[], move_ms=1, bank_ms=0)
    (message,) = decode_all(packed.data, 64, max_message=1 << 20)
    assert message["observation"] == {**wide, "moves": entries + [{"seat": 0, "type": "trail", "card": "9S"}] * 20}
    end = messages.pack_deal_end(number=3, points=[7, 2], breakdown=[{}, {}], totals=[9, 4], history=history)
    assert end.type == "deal_end" and decode_all(end.data, 5, max_message=1 << 20) == [messages.deal_end(
        number=3, points=[7, 2], breakdown=[{}, {}], totals=[9, 4],
        moves=entries + [{"seat": 0, "type": "trail", "card": "9S"}] * 20)]


def test_replies_parse_into_typed_records():
    assert parse_reply({"type": "ready", "name": "x", "version": "2"}, "ready") == Ready("x", "2")
    assert parse_reply({"type": "ready", "name": "x"}, "ready") == Ready("x", "")
    assert parse_reply({"type": "move", "index": 3}, "move") == MoveReply(3, None)
    move = {"type": "trail", "card": "5H"}
    assert parse_reply({"type": "move", "move": move, "extra": 1}, "move") == MoveReply(None, move)


@pytest.mark.parametrize("message, expected, words", [
    ({"name": "x"}, "ready", "string field 'type'"),
    ({"type": 5}, "ready", "string field 'type'"),
    ({"type": "move", "index": 0}, "ready", "expected a 'ready' message, got 'move'"),
    ({"type": "ready"}, "ready", "lacks the field 'name'"),
    ({"type": "ready", "name": 7}, "ready", "must be a string, got an integer"),
    ({"type": "ready", "name": ""}, "ready", "1 to 64 characters"),
    ({"type": "ready", "name": "x" * 65}, "ready", "1 to 64 characters"),
    ({"type": "ready", "name": "x", "version": None}, "ready", "must be a string, got nil"),
    ({"type": "move"}, "move", "needs 'index' or 'move'"),
    ({"type": "move", "index": True}, "move", "must be an integer, got a boolean"),
    ({"type": "move", "index": 1.0}, "move", "must be an integer, got a float"),
    ({"type": "move", "move": [1]}, "move", "must be a map, got an array"),
])
def test_ill_formed_replies_are_protocol_errors(message, expected, words):
    with pytest.raises(ProtocolError, match=words.replace("(", r"\(").replace(")", r"\)")):
        parse_reply(message, expected)


@pytest.mark.parametrize("data, words", [
    (msgpack.packb([1, 2]), "must be a msgpack map, got an array"),
    (msgpack.packb(3), "must be a msgpack map, got an integer"),
    (b"\xc1", "undecodable"),                                    # never-used msgpack byte
    (b"\x81\xa4type\xa2\xff\xfe", "undecodable"),                 # invalid UTF-8
    (b"\x81\x01\x02", "undecodable"),                             # integer map key
    (msgpack.packb({"type": msgpack.ExtType(5, b"x")}), "undecodable"),
    (msgpack.packb({"t": msgpack.Timestamp(1)}), "unsupported msgpack value Timestamp"),
    (b"\x81\xa1a" + b"\x91" * 100 + b"\xc0", "undecodable|nested deeper"),
])
def test_malformed_bytes_are_protocol_errors(data, words):
    with pytest.raises(ProtocolError, match=words):
        decode_all(data)


def test_nesting_deeper_than_the_limit_is_refused():
    deep = {"a": 1}
    for _ in range(messages.MAX_DEPTH + 1):
        deep = {"a": deep}
    with pytest.raises(ProtocolError, match="nested deeper"):
        decode_all(encode(deep))


def test_a_message_over_the_size_limit_is_refused_before_it_is_buffered():
    big = encode({"type": "move", "index": 0, "pad": "x" * MAX_BOT_MESSAGE})
    decoder = Decoder()
    with pytest.raises(ProtocolError, match=f"larger than {MAX_BOT_MESSAGE} bytes"):
        for i in range(0, len(big), 4096):
            decoder.feed(big[i:i + 4096])
            assert decoder.next() is None
    assert decoder.pending <= MAX_BOT_MESSAGE


def test_a_message_just_under_the_limit_is_accepted():
    message = {"type": "move", "index": 0, "pad": ""}
    message["pad"] = "x" * (MAX_BOT_MESSAGE - len(encode(message)) - 2)
    assert len(encode(message)) <= MAX_BOT_MESSAGE
    assert decode_all(encode(message), chunk=1000) == [message]


def _feed_everything(data: bytes, chunks: list[int], max_message: int) -> None:
    """Feed data in the given chunk sizes; only messages or ProtocolError may come out."""
    decoder = Decoder(max_message)
    pos = 0
    sizes = iter(chunks)
    try:
        while pos < len(data):
            size = next(sizes, 97)
            decoder.feed(data[pos:pos + size])
            pos += size
            assert decoder.pending <= max_message
            while (message := decoder.next()) is not None:
                assert isinstance(message, dict)
                assert all(isinstance(k, str) for k in message)
    except ProtocolError as exc:
        assert str(exc)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600), st.lists(st.integers(1, 64), max_size=20))
def test_random_bytes_give_messages_or_protocol_error(data, chunks):
    _feed_everything(data, chunks, max_message=256)


plain = st.recursive(
    st.none() | st.booleans() | st.integers(-2**63, 2**64 - 1) | st.floats(allow_nan=False)
    | st.text(max_size=8)
    | st.binary(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(st.text(max_size=6), plain, max_size=5), min_size=1, max_size=4),
       st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255), st.sampled_from("xid")), max_size=6),
       st.lists(st.integers(1, 64), max_size=20))
def test_mutated_valid_streams_give_messages_or_protocol_error(messages, mutations, chunks):
    data = bytearray(b"".join(encode(m) for m in messages))
    for where, byte, how in mutations:
        i = where % (len(data) + 1)
        if how == "x" and i < len(data):
            data[i] = byte
        elif how == "i":
            data.insert(i, byte)
        elif how == "d" and i < len(data):
            del data[i]
    _feed_everything(bytes(data), chunks, max_message=512)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.dictionaries(st.text(max_size=6), plain, max_size=5), min_size=1, max_size=4))
def test_valid_streams_decode_to_what_was_sent(messages):
    data = b"".join(encode(m) for m in messages)
    assert decode_all(data, chunk=3, max_message=1 << 16) == messages


def test_ready_may_name_the_games_a_bot_plays():
    from arena.protocol.messages import parse_reply

    assert parse_reply({"type": "ready", "name": "b"}, "ready").games is None  # protocol 1: any game
    assert parse_reply({"type": "ready", "name": "b", "games": ["zwicker", "zwicken"]}, "ready").games == (
        "zwicker", "zwicken")
    for bad in ("zwicker", [1], [""], ["x" * 65], ["g"] * 33):
        with pytest.raises(ProtocolError, match="'games' (of 'ready' )?must be"):
            parse_reply({"type": "ready", "name": "b", "games": bad}, "ready")
