"""The table runner over in-memory streams: rules checked, faults named, time on trio's clock."""

from __future__ import annotations

import random

import pytest
import trio
import trio.testing

from engine import zwicker
from arena.play.table import FixedDeals, TimeControl, run_table, seat_seed
from arena.protocol import messages
from arena.protocol.connection import Connection
from arena.protocol.messages import Decoder, encode

DEALS = [(zwicker.deal_seed(7, k), k % 4) for k in range(2)]


class MemoryBot:
    """A bot living in the test's trio run; subclasses misbehave on purpose."""

    name = "mem"

    def __init__(self) -> None:
        self.received: list[dict] = []
        self.acts = 0
        self.rng = random.Random(0)

    async def run(self, stream: trio.abc.Stream) -> None:
        decoder = Decoder(messages.MAX_ARENA_MESSAGE)
        try:
            while True:
                while (message := decoder.next()) is None:
                    data = await stream.receive_some()
                    if not data:
                        return
                    decoder.feed(data)
                self.received.append(message)
                if message["type"] == "hello":
                    self.rng = random.Random(message["seed"])
                    await self.hello(stream, message)
                elif message["type"] == "act":
                    self.acts += 1
                    await self.act(stream, message)
                elif message["type"] == "deal":
                    await self.deal(stream, message)
                elif message["type"] == "bye":
                    return
        except (trio.BrokenResourceError, trio.ClosedResourceError):
            return
        finally:
            await stream.aclose()

    async def hello(self, stream, message):
        await stream.send_all(encode({"type": "ready", "name": self.name, "version": "0"}))

    async def deal(self, stream, message):
        pass

    async def act(self, stream, message):
        index = self.rng.randrange(len(message["legal"]))
        await stream.send_all(encode({"type": "move", "index": index}))


async def play(bots, deals=DEALS, tc=TimeControl(), variant="jensen", bot_seed=5):
    conns = []
    async with trio.open_nursery() as nursery:
        for bot in bots:
            arena_end, bot_end = trio.testing.memory_stream_pair()
            conns.append(Connection(arena_end, arena_end))
            nursery.start_soon(bot.run, bot_end)
        result = await run_table(conns, variant=variant, plan=FixedDeals(deals), time_control=tc,
                                 match_id="m1", table_id="t1", bot_seed=bot_seed)
        nursery.cancel_scope.cancel()  # what killing the process does to a real bot
    return result


def without_times(d: dict) -> dict:
    d = dict(d)
    del d["started"], d["duration_s"]
    return d


async def test_a_clean_table_plays_every_deal_and_replays_through_the_engine():
    bots = [MemoryBot() for _ in range(4)]
    result = await play(bots)
    d = result.to_dict()
    assert d["forfeit"] is None and [s["status"] for s in d["seats"]] == ["ok"] * 4
    assert [s["name"] for s in d["seats"]] == ["mem"] * 4
    assert len(d["deals"]) == 2
    total = [0, 0]
    for deal, (seed, dealer) in zip(d["deals"], DEALS):
        assert (deal["seed"], deal["dealer"], deal["complete"]) == (seed, dealer, True)
        state = zwicker.deal("jensen", seed, dealer)
        for m in deal["moves"]:
            assert m["seat"] == state.to_move
            state = state.apply(m["move"])
        assert state.is_over and deal["points"] == state.score() and deal["breakdown"] == state.breakdown()
        total = [t + p for t, p in zip(total, deal["points"])]
    assert d["points"] == total
    assert sum(s["moves"] for s in d["seats"]) == sum(len(x["moves"]) for x in d["deals"])


async def test_each_seat_is_told_exactly_the_protocol_sequence():
    bots = [MemoryBot() for _ in range(4)]
    result = await play(bots)
    for seat, bot in enumerate(bots):
        kinds = [m["type"] for m in bot.received]
        assert kinds[0] == "hello" and kinds[-1] == "bye"
        assert kinds.count("deal") == kinds.count("deal_end") == 2
        assert kinds.count("act") == result.seats[seat].moves
        hello = bot.received[0]
        assert (hello["protocol"], hello["seat"], hello["side"], hello["partners"], hello["partner"]) == \
            (1, seat, seat % 2, [(seat + 2) % 4], (seat + 2) % 4)
        assert hello["seed"] == seat_seed(5, seat)
        # Protocol 1 unchanged: the game is named in two new fields, nothing else moved.
        assert hello["game"] == hello["variant"]["game"] == "zwicker"
        assert hello["variant"] == {**zwicker.variant("jensen").describe(), "game": "zwicker"}
        assert hello["time"] == {"handshake_ms": 10000, "move_ms": 1000, "bank_ms": 10000}
        assert (hello["match_id"], hello["table_id"]) == ("m1", "t1")
        assert bot.received[-1] == {"type": "bye", "reason": "end", "detail": ""}
    # Each act's observation and legal list are the engine's, for the seat asked.
    state = zwicker.deal("jensen", *DEALS[0])
    first = next(m for m in bots[state.to_move].received if m["type"] == "act")
    assert first["observation"] == state.observation(state.to_move)
    assert first["legal"] == [m.to_dict() for m in state.legal_moves()]
    deal_end = next(m for m in bots[0].received if m["type"] == "deal_end")
    assert deal_end["moves"] == [{"seat": m["seat"], **m["move"]} for m in result.deals[0]["moves"]]
    assert deal_end["totals"] == deal_end["points"] == result.deals[0]["points"]


async def test_same_seeds_give_identical_tables():
    first = await play([MemoryBot() for _ in range(4)])
    second = await play([MemoryBot() for _ in range(4)])
    strip = [{k: v for k, v in deal.items()} for deal in first.to_dict()["deals"]]
    for deal in strip + second.to_dict()["deals"]:
        deal["moves"] = [(m["seat"], m["move"]) for m in deal["moves"]]
    assert strip == second.to_dict()["deals"]
    other = await play([MemoryBot() for _ in range(4)], bot_seed=6)
    assert [m["move"] for m in other.deals[0]["moves"]] != [m[1] for m in strip[0]["moves"]]


class Sleeper(MemoryBot):
    """Thinks `delay` seconds (on trio's clock) before every move."""

    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay

    async def act(self, stream, message):
        await trio.sleep(self.delay)
        await super().act(stream, message)


def forfeited(result, seat, status):
    d = result.to_dict()
    statuses = ["ok"] * 4
    statuses[seat] = status
    assert [s["status"] for s in d["seats"]] == statuses
    assert d["forfeit"]["seat"] == seat and d["forfeit"]["side"] == seat % 2
    assert d["forfeit"]["status"] == status
    points = [60, 60]
    points[seat % 2] = 0
    assert d["points"] == points  # 30 per deal in jensen, 2 deals
    return d


async def test_a_bot_that_never_answers_times_out_and_the_others_finish(autojump_clock):
    bots = [MemoryBot(), MemoryBot(), Sleeper(10**6), MemoryBot()]
    start = trio.current_time()
    result = await play(bots, tc=TimeControl(move_s=1, bank_s=2))
    d = forfeited(result, 2, "timeout")
    assert "within 3.000 s" in d["seats"][2]["detail"]
    assert trio.current_time() - start == pytest.approx(3.0, abs=1.1)  # one move limit + the bank
    for seat in (0, 1, 3):
        assert bots[seat].received[-1]["type"] == "bye"
        assert bots[seat].received[-1]["reason"] == "fault"
        assert "seat 2: timeout" in bots[seat].received[-1]["detail"]


async def test_slow_replies_draw_on_the_bank_until_it_runs_out(autojump_clock):
    slow = Sleeper(1.5)  # 0.5 s over the move limit each time; a 2.25 s bank lasts four moves
    result = await play([MemoryBot(), slow, MemoryBot(), MemoryBot()], tc=TimeControl(move_s=1, bank_s=2.25))
    forfeited(result, 1, "timeout")
    assert result.seats[1].moves == 4
    acts = [m for m in slow.received if m["type"] == "act"]
    assert [a["time"]["bank_ms"] for a in acts] == [2250, 1750, 1250, 750, 250]
    assert result.seats[1].think_ms_max == pytest.approx(1500)


async def test_replies_within_the_move_limit_keep_the_bank(autojump_clock):
    result = await play([Sleeper(0.9) for _ in range(4)], tc=TimeControl(move_s=1, bank_s=0.1))
    assert result.ok and result.seats[0].think_ms_total == pytest.approx(900 * result.seats[0].moves)


class SilentAtHello(MemoryBot):
    async def hello(self, stream, message):
        await trio.sleep_forever()


async def test_a_bot_that_misses_the_handshake_times_out(autojump_clock):
    result = await play([MemoryBot(), SilentAtHello(), MemoryBot(), MemoryBot()],
                        tc=TimeControl(handshake_s=2))
    d = forfeited(result, 1, "timeout")
    assert "handshake limit of 2 s" in d["seats"][1]["detail"]
    assert d["deals"] == []


class Replies(MemoryBot):
    """Answers its `n`-th act with the given raw reply (bytes) or message (dict)."""

    def __init__(self, reply, n: int = 1) -> None:
        super().__init__()
        self.reply, self.n = reply, n

    async def act(self, stream, message):
        if self.acts != self.n:
            return await super().act(stream, message)
        reply = self.reply(message) if callable(self.reply) else self.reply
        await stream.send_all(reply if isinstance(reply, bytes) else encode(reply))
        if isinstance(reply, dict) and reply.get("close"):
            await stream.aclose()


class Crashes(MemoryBot):
    async def act(self, stream, message):
        await stream.aclose()


@pytest.mark.parametrize("bot, status, words", [
    (Replies({"type": "move", "index": 999}), "illegal_move", "index 999 is out of range"),
    (Replies({"type": "move", "index": -1}), "illegal_move", "index -1 is out of range"),
    (Replies({"type": "move", "move": {"type": "trail", "card": "ZZ"}}), "illegal_move", "is not legal"),
    (Replies(lambda m: {"type": "move", "index": 0, "move": m["legal"][-1]}), "illegal_move", "disagree"),
    (Replies({"type": "move", "index": "0"}), "protocol_error", "must be an integer, got a string"),
    (Replies({"type": "ready", "name": "x"}), "protocol_error", "expected a 'move' message, got 'ready'"),
    (Replies({"index": 0}), "protocol_error", "string field 'type'"),
    (Replies(b"\x93\x01\x02\x03"), "protocol_error", "must be a msgpack map"),
    (Replies(b"\xc1"), "protocol_error", "undecodable"),
    (Replies(encode({"type": "move", "index": 0}) * 2), "protocol_error", "more than one message"),
    (Replies(encode({"type": "move", "index": 0, "pad": "x" * 70000})), "protocol_error", "larger than"),
    (Crashes(), "crash", "closed its output"),
])
async def test_each_fault_is_recorded_with_its_status(bot, status, words):
    bots = [MemoryBot(), MemoryBot(), MemoryBot(), MemoryBot()]
    seat = zwicker.deal("jensen", *DEALS[0]).to_move
    bots[seat] = bot
    result = await play(bots)
    d = forfeited(result, seat, status)
    assert words in d["seats"][seat]["detail"]
    assert d["deals"][0]["complete"] is False and d["deals"][0]["moves"] == []
    for other in set(range(4)) - {seat}:
        assert bots[other].received[-1]["type"] == "bye"


async def test_a_move_named_by_its_dict_alone_is_played():
    def by_dict(message):  # the first move: a capture when there is one, so the table stays small
        return {"type": "move", "move": message["legal"][0]}

    class ByDict(MemoryBot):
        async def act(self, stream, message):
            await stream.send_all(encode(by_dict(message)))

    result = await play([ByDict() for _ in range(4)])
    assert result.ok
    state = zwicker.deal("jensen", *DEALS[0])
    assert result.deals[0]["moves"][0]["move"] == state.legal_moves()[0].to_dict()


async def test_a_table_of_the_wrong_size_is_refused():
    with pytest.raises(ValueError, match="needs 4 seats, got 3"):
        await run_table([None] * 3, variant="jensen", plan=FixedDeals(DEALS))


async def test_a_two_player_variant_plays_with_two_seats():
    result = await play([MemoryBot(), MemoryBot()], variant={"preset": "jensen", "players": 2},
                        deals=[(3, 0)])
    assert result.ok and len(result.points) == 2
    assert result.deals[0]["complete"]


class Eager(MemoryBot):
    """Writes `ready` before it has read `hello` (into a real pipe, which the arena polls);
    with `chatty`, also a move nobody asked for when a deal starts."""

    def __init__(self, chatty: bool) -> None:
        super().__init__()
        self.chatty = chatty

    async def hello(self, stream, message):
        pass

    async def deal(self, stream, message):
        if self.chatty:
            await stream.send_all(encode({"type": "move", "index": 0}))


async def test_a_ready_written_before_hello_is_no_fault_but_an_unasked_message_is():
    import os

    def piped(bot: MemoryBot, nursery, first: bytes = b"") -> Connection:
        to_bot_r, to_bot_w = os.pipe()
        from_bot_r, from_bot_w = os.pipe()
        os.write(from_bot_w, first)
        bot_end = trio.StapledStream(trio.lowlevel.FdStream(from_bot_w), trio.lowlevel.FdStream(to_bot_r))
        nursery.start_soon(bot.run, bot_end)
        return Connection(trio.lowlevel.FdStream(to_bot_w), trio.lowlevel.FdStream(from_bot_r))

    for chatty, status in ((False, "ok"), (True, "protocol_error")):
        async with trio.open_nursery() as nursery:
            eager = Eager(chatty)
            conns = [piped(eager, nursery, encode({"type": "ready", "name": "eager"}))]
            conns += [piped(MemoryBot(), nursery) for _ in range(3)]
            result = await run_table(conns, variant="jensen", plan=FixedDeals(DEALS))
            for conn in conns:
                await conn.receive_stream.aclose()
        assert result.seats[0].status == status and result.seats[0].name == "eager"
        if chatty:
            assert result.seats[0].detail == "sent a 'move' message the arena did not ask for"
            assert result.seats[0].moves == 0
