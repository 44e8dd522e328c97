"""One table: a bot process per seat playing a plan of seeded deals, every move checked.

`play_table` starts the seats' processes (through `arena.process.lifecycle.open_bots`) and hands their
pipes to `run_table`, which speaks the protocol over any trio streams (tests use in-memory
streams and trio's autojump clock). Deadlines are trio cancel scopes here, never in the rules.
The game is reached only through `games` (its rules check every move), so the table plays any
game that the interface can host. The first fault ends the table's play; the faulting seat's side forfeits (protocol.md, "Faults").
"""

from __future__ import annotations

import datetime
import hashlib
import math
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AbstractAsyncContextManager, AsyncExitStack, nullcontext
from dataclasses import dataclass, field
from typing import Any, Protocol

import trio

import games
from arena.errors import BotCrashed, BotFault, BotTimeout, IllegalMoveFault, ProtocolError
from arena.process import forking, scheduler
from arena.process.command import BotCommand, Limits
from arena.process.lifecycle import BotProcess, open_bots
from arena.protocol import messages
from arena.protocol.connection import Connection
from arena.protocol.messages import MoveReply, Ready


TEMPOS = ("free", "fixed")


@dataclass(frozen=True)
class TimeControl:
    """Limits on the bots' replies, in seconds (protocol.md, "Time control")."""

    handshake_s: float = 10.0  # from process start to `ready`
    move_s: float = 1.0  # per `act`, before the bank is drawn on
    bank_s: float = 10.0  # per seat and table, drawn on by replies slower than move_s
    grace_s: float = 0.5  # after `bye` and closing stdin, before the bot is killed
    tempo: str = "free"
    """"fixed": every reply to `act` is released (applied, and the table told) one move limit
    after the `act` was sent, however soon it came, so that no seat learns from the table's
    clock how long another thought (docs/hostile.md, Tempo); a reply that draws on the bank is
    released when it comes. "free": at once."""

    def __post_init__(self) -> None:
        if self.tempo not in TEMPOS:
            raise ValueError(f"time control tempo must be one of {', '.join(TEMPOS)}, got {self.tempo!r}")
        for name in ("handshake_s", "move_s", "bank_s", "grace_s"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not value >= 0 \
                    or not math.isfinite(value):
                raise ValueError(f"time control {name} must be a finite number >= 0, got {value!r}")
        if self.handshake_s <= 0 or self.move_s <= 0:
            raise ValueError("time control: the handshake and move limits must be above 0")

    def to_dict(self) -> dict[str, int]:
        """As sent to the bots in `hello`, in whole milliseconds."""
        return {"handshake_ms": _ms(self.handshake_s), "move_ms": _ms(self.move_s), "bank_ms": _ms(self.bank_s)}


def _ms(seconds: float) -> int:
    return int(round(seconds * 1000))


class Plan(Protocol):
    """Which deals a table plays: asked before each deal with the deals finished so far (their
    final states). A deal is named as storage keeps it: (seed, dealer, carry), the carry being
    what its board carried into it (None: nothing; `games.api.Game.deal`)."""

    def next_deal(self, finished: Sequence[games.State]) -> tuple[int, int, games.Json] | None: ...

    def forfeit(self, game: games.Game, variant: games.Variant, seat: int) -> games.Result: ...


class FixedDeals:
    """A fixed list of (seed, dealer) deals, e.g. one board of a duplicate match."""

    def __init__(self, deals: Sequence[tuple[int, int]]) -> None:
        self.deals = [(int(seed), int(dealer)) for seed, dealer in deals]
        if not self.deals:
            raise ValueError("a table needs at least one deal")

    def next_deal(self, finished: Sequence[games.State]) -> tuple[int, int, games.Json] | None:
        k = len(finished)
        return (*self.deals[k], None) if k < len(self.deals) else None

    def forfeit(self, game: games.Game, variant: games.Variant, seat: int) -> games.Result:
        """The game's award for every deal the table was to play (Zwicker: the variant's points
        per deal without Zwicks, each)."""
        return game.forfeit(variant, None, seat, len(self.deals))


@dataclass
class SeatResult:
    seat: int
    name: str = ""
    version: str = ""
    status: str = "ok"
    detail: str = ""
    stderr: str = ""
    moves: int = 0
    think_ms_total: float = 0.0
    think_ms_max: float = 0.0
    handshake_ms: float | None = None
    games: list[str] | None = None  # its ready.games (None: it did not say, so any game)

    def to_dict(self) -> dict[str, Any]:
        return {
            "seat": self.seat, "name": self.name, "version": self.version, "status": self.status,
            "detail": self.detail, "stderr": self.stderr, "moves": self.moves,
            "think_ms_total": round(self.think_ms_total, 3), "think_ms_max": round(self.think_ms_max, 3),
            "handshake_ms": None if self.handshake_ms is None else round(self.handshake_ms, 3),
        }


@dataclass
class TableResult:
    seats: list[SeatResult]
    points: list[int]
    forfeit: dict[str, Any] | None
    deals: list[dict[str, Any]]
    started: str
    duration_s: float
    move_times_ms: list[list[float]] = field(default_factory=list)  # per seat, for reports
    sandbox: str | None = None  # the mode its bots ran in (play_table); None: the caller's processes
    finals: list[Any] = field(default_factory=list)  # each finished deal's last state (not plain data)

    def to_dict(self) -> dict[str, Any]:
        return {
            "seats": [s.to_dict() for s in self.seats],
            "points": list(self.points),
            "forfeit": self.forfeit,
            "deals": self.deals,
            "started": self.started,
            "duration_s": round(self.duration_s, 3),
            "sandbox": self.sandbox,
        }

    @property
    def ok(self) -> bool:
        return self.forfeit is None


def seat_seed(bot_seed: int, seat: int) -> int:
    """The `seed` a seat's bot gets in `hello`: a 64-bit hash of the table's bot seed and the seat."""
    digest = hashlib.sha256(b"zwicker-bot" + bot_seed.to_bytes(8, "big") + seat.to_bytes(8, "big")).digest()
    return int.from_bytes(digest[:8], "big")


class _Table:
    """The state of one table's play; `run` is the whole protocol from hello to bye."""

    def __init__(self, conns: Sequence[Connection | None], game: games.Game, variant: games.Variant, plan: Plan,
                 time_control: TimeControl, match_id: str, table_id: str, bot_seed: int) -> None:
        if len(conns) != variant.players:
            raise ValueError(f"{variant} with {variant.players} players needs {variant.players} seats, "
                             f"got {len(conns)}")
        if not 0 <= bot_seed < 2**64:
            raise ValueError(f"bot_seed must be 0 <= seed < 2**64, got {bot_seed}")
        self.conns = list(conns)
        self.game, self.variant, self.layout = game, variant, game.layout(variant)
        self.plan = plan
        self.tc = time_control
        self.match_id, self.table_id, self.bot_seed = match_id, table_id, bot_seed
        n = variant.players
        self.seats = [SeatResult(seat) for seat in range(n)]
        self.move_times: list[list[float]] = [[] for _ in range(n)]
        self.bank = [time_control.bank_s] * n
        self.move_ms = _ms(time_control.move_s)
        self.deals: list[dict[str, Any]] = []
        self.finals: list[games.State] = []
        self.fault: tuple[int, BotFault] | None = None
        self.started = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")
        self.wall_start = time.perf_counter()
        self.on_deal: Callable[[TableResult], Awaitable[None]] | None = None  # hears each finished deal
        self.sandbox: str | None = None  # the mode its bots run in, for its results (play_table sets it)
        self.bots: list[BotProcess | None] = [None] * n  # each seat's process, lent a core per request

    def record_fault(self, seat: int, exc: BotFault) -> None:
        if self.fault is None:
            self.fault = (seat, exc)

    # -- the lifecycle ---------------------------------------------------------------------
    async def run(self, handshake_deadline: float, turn: AbstractAsyncContextManager[Any] | None = None) -> None:
        if self.fault is None:
            await self.handshake(handshake_deadline)
        if self.fault is None:
            async with turn if turn is not None else nullcontext():
                try:
                    await self.play()
                except _SeatFault as sf:
                    self.record_fault(sf.seat, sf.fault)
        await self.say_bye()

    async def handshake(self, deadline: float) -> None:
        describe = self.game.describe(self.variant)
        tc = self.tc.to_dict()
        limit_text = f"the handshake limit of {self.tc.handshake_s:g} s"
        start = trio.current_time()

        async def shake(seat: int, conn: Connection, cancel: trio.CancelScope) -> None:
            side = self.layout.side_of(seat)
            partners = list(self.layout.partners(seat))
            hello = messages.hello(game=self.game.info.name, seat=seat, side=side, partners=partners, variant=describe,
                                   time_control=tc, match_id=self.match_id, table_id=self.table_id,
                                   seed=seat_seed(self.bot_seed, seat))
            bot = self.bots[seat]
            try:
                if bot is not None:  # its start-up and handshake on a core: its clock starts there
                    await bot.resume()
                try:
                    # A bot may write `ready` before it reads `hello`: that is no fault. Its clock
                    # counts only its own time, as a move's does (`_extend`): a start-up the
                    # machine starved is the arena's fault, played again, not the bot's time-out.
                    if bot is None:
                        reply, _ = await conn.request(hello, "ready", deadline, limit_text, check_idle=False)
                    else:
                        asked, limit = bot.resumed_at, self.tc.handshake_s
                        meters: list[scheduler.Meter] = []
                        reply, _ = await conn.request(
                            hello, "ready", asked + limit / 8, limit_text, check_idle=False,
                            extend=lambda _deadline: _extend(bot, meters, asked, limit))
                finally:
                    if bot is not None:
                        await bot.pause()
            except BotFault as exc:
                self.record_fault(seat, exc)
                cancel.cancel()
                return
            assert isinstance(reply, Ready)
            self.seats[seat].name, self.seats[seat].version = reply.name, reply.version
            self.seats[seat].games = None if reply.games is None else list(reply.games)
            if reply.games is not None and self.game.info.name not in reply.games:
                self.record_fault(seat, ProtocolError(
                    f"it plays {', '.join(reply.games) or 'no game'} (its ready.games), and this table plays "
                    f"{self.game.info.name}"))
                cancel.cancel()
                return
            self.seats[seat].handshake_ms = (trio.current_time() - (start if bot is None else bot.resumed_at)) * 1000

        async with trio.open_nursery() as nursery:
            for seat, conn in enumerate(self.conns):
                if conn is not None:
                    nursery.start_soon(shake, seat, conn, nursery.cancel_scope)

    async def play(self) -> None:
        finished = self.finals
        totals = [0] * self.layout.num_sides
        # Which board a deal belongs to (a room's processes play several): the plan says, if it can.
        locate = getattr(self.plan, "locate", None)
        room = getattr(self.plan, "room", "") or self.table_id
        watch = getattr(self.plan, "watch", None)  # a spectator's public view (arena.play.live), if any
        board, board_totals = None, totals
        while (planned := self.plan.next_deal(list(finished))) is not None:
            seed, dealer, carry = planned
            number = len(self.deals)
            this_board, board_deal = locate(finished) if locate else (self.table_id, number)
            if this_board != board:
                board, board_totals = this_board, [0] * self.layout.num_sides
            await trio.lowlevel.checkpoint()  # replies read straight off a pipe need not yield
            state = self.game.deal(self.variant, seed, dealer, carry)
            record: dict[str, Any] = {"number": number, "seed": seed, "dealer": dealer, "carry": carry, "points": None,
                                      "breakdown": None, "moves": [], "complete": False}
            self.deals.append(record)
            if watch is not None:
                watch(board, board_deal, state, record["moves"])
            for seat in range(self.variant.players):
                await self.notify(seat, messages.deal(number=number, dealer=dealer, observation=state.observation(seat),
                                                      room=room, board=board, board_deal=board_deal))
            history = messages.History()  # the deal's public move list, sent in every act
            public = getattr(state, "public_move", None)  # a game whose moves may be private says what others see
            while not state.is_over:
                seat = state.to_move
                move, ms, index = await self.ask(seat, number, state, history)
                shown = None if public is None else state.public_move(move)
                state = state.apply(move)
                move_dict = move.to_dict()
                # "i": the move's place in the list the bot was sent, what storage keeps (arena.results.compact)
                record["moves"].append({"seat": seat, "move": move_dict, "ms": round(ms, 3), "i": index})
                history.append({"seat": seat, **(move_dict if shown is None else shown)})
                if watch is not None:
                    watch(board, board_deal, state, record["moves"])
            outcome = state.result()
            points = list(outcome.sides)
            record["points"], record["breakdown"], record["complete"] = points, outcome.detail, True
            finished.append(state)
            totals = [t + p for t, p in zip(totals, points)]
            board_totals = [t + p for t, p in zip(board_totals, points)]
            message = messages.pack_deal_end(number=number, points=points, breakdown=record["breakdown"],
                                             totals=totals, history=history, board=board, board_totals=board_totals)
            for seat in range(self.variant.players):
                await self.notify(seat, message)
            if self.on_deal is not None:  # the table so far (a room stores each board as it ends)
                await self.on_deal(self.result())
        for seat, conn in enumerate(self.conns):  # anything sent after the last reply is a fault too
            try:
                conn.check_idle()
            except BotFault as exc:
                raise _SeatFault(seat, exc) from None

    async def notify(self, seat: int, message: dict[str, Any] | messages.Packed) -> None:
        """A message that needs no reply; a bot that stops reading its input times out."""
        try:
            await self.conns[seat].send(message, trio.current_time() + self.tc.move_s)
        except BotFault as exc:
            raise _SeatFault(seat, exc) from None

    async def ask(self, seat: int, number: int, state: games.State,
                  history: messages.History) -> tuple[games.Move, float, int | None]:
        """Send `act` to the seat to move and return its checked move, reply time in ms and the
        move's index in the list sent (None for a capture named outside a cut list).

        `history` is the deal's move list so far, kept (encoded) by `play`, so that each act
        neither rebuilds nor re-encodes the whole list.
        """
        legal, complete = state.legal_moves(LEGAL_CAP)
        bank = self.bank[seat]
        message = messages.pack_act(number=number, observation=state.observation(seat, moves=False),
                                    history=history, legal=legal, move_ms=self.move_ms, bank_ms=_ms(bank),
                                    complete=complete)
        bot = self.bots[seat]
        if bot is not None:
            await bot.resume()  # the move clock starts with the bot thawed
        asked = trio.current_time()
        limit = self.tc.move_s + bank
        meters: list[scheduler.Meter] = []  # made at the first look (an eighth of the limit)
        try:
            reply, elapsed = await self.conns[seat].request(
                message, "move", asked + (limit if bot is None else limit / 8), _MoveLimit(self.tc.move_s, bank),
                extend=None if bot is None else lambda deadline: _extend(bot, meters, asked, limit))
            assert isinstance(reply, MoveReply)
            move = _resolve(reply, legal, state)
        except BotFault as exc:
            raise _SeatFault(seat, exc) from None
        finally:
            if bot is not None:
                await bot.pause()
        own = elapsed
        if meters and elapsed > self.tc.move_s:  # its bank pays only for its own time
            own = elapsed - meters[0].credit(elapsed)
        self.bank[seat] = max(0.0, self.bank[seat] - max(0.0, own - self.tc.move_s))
        if self.tc.tempo == "fixed":
            await trio.sleep_until(asked + self.tc.move_s)
        ms = elapsed * 1000
        result = self.seats[seat]
        result.moves += 1
        result.think_ms_total += ms
        result.think_ms_max = max(result.think_ms_max, ms)
        self.move_times[seat].append(ms)
        if reply.index is not None:
            return move, ms, reply.index
        return move, ms, next((k for k, listed in enumerate(legal) if listed == move), None)

    async def say_bye(self) -> None:
        """`bye` to every seat (best effort to the faulting one), then close their stdin."""
        detail = ""
        if self.fault is not None:
            seat, exc = self.fault
            detail = f"seat {seat}: {exc.status}: {exc.detail}"
        deadline = trio.current_time() + min(self.tc.move_s, 1.0)

        async def one(seat: int, conn: Connection) -> None:
            faulty = self.fault is not None and self.fault[0] == seat
            reason = "end" if self.fault is None else "fault"
            try:
                if not (faulty and isinstance(self.fault[1], BotCrashed)):
                    await conn.send(messages.bye(reason=reason, detail=detail), deadline)
            except BotFault:
                pass  # the table is over; a bot that cannot take its bye changes nothing
            await conn.close_input()

        async with trio.open_nursery() as nursery:
            for seat, conn in enumerate(self.conns):
                if conn is not None:
                    nursery.start_soon(one, seat, conn)

    # -- the result ------------------------------------------------------------------------
    def result(self) -> TableResult:
        sides = self.layout.num_sides
        points = [0] * sides
        for deal in self.deals:
            if deal["complete"]:
                points = [p + q for p, q in zip(points, deal["points"])]
        forfeit = None
        if self.fault is not None:
            seat, exc = self.fault
            self.seats[seat].status, self.seats[seat].detail = exc.status, exc.detail
            side = self.layout.side_of(seat)
            forfeit = {"side": side, "seat": seat, "status": exc.status, "detail": exc.detail}
            if getattr(exc, "by_arena", False):
                forfeit["arena"] = True  # the arena's or the machine's doing, not the bot's (`arena_fault`)
            points = list(self.plan.forfeit(self.game, self.variant, seat).sides)
        return TableResult(seats=self.seats, points=points, forfeit=forfeit, deals=self.deals,
                           started=self.started, duration_s=time.perf_counter() - self.wall_start,
                           move_times_ms=self.move_times, finals=self.finals, sandbox=self.sandbox)


START_REFUSED = ("bwrap: ", "arena: the fork sandbox could not start the bot", "arena: the resource limits could not be set")
"""How a sandbox that could not start a bot says so on the bot's stderr, before the bot runs."""


def arena_fault(exc: BotFault) -> BotFault:
    """Mark a fault as the arena's or the machine's (a start refused for a limit the bot did not
    reach): its table is played again, a few times (arena.play.room), and stored as such."""
    exc.by_arena = True  # type: ignore[attr-defined]
    return exc


def _extend(bot: BotProcess, meters: list[scheduler.Meter], asked: float, limit: float) -> float | None:
    """A move's deadline has passed: a later one if the machine kept the bot from running
    meanwhile (the move clock counts only the bot's own time: docs/hostile.md, Time-outs), None
    if the time-out is the bot's. The measure starts at a first look an eighth into the limit
    (`meters`: the time before it is the bot's own; a move shorter than that costs no look);
    a look at a quarter of the limit finds waits going on (the kernel counts a wait when it ends). A bot found runnable at its deadline is watched a little
    longer (looks a tenth of its limit apart, at most `scheduler.PROBE_S`) to tell a wait for a
    CPU from its own running. One that had less than half its limit of its own time in `STARVED_FACTOR`
    limits of wall time was starved: the arena's fault (`arena_fault`); between half and all of
    its limit, it was slowed but the time-out is its own."""
    now = trio.current_time()
    wall = now - asked
    if not meters:
        meters.append(bot.meter(wall))
        if wall < limit / 4:
            return asked + limit / 4
    meter = meters[0]
    if wall < limit:  # a look at a quarter of the limit (a wait going on shows only from a look on)
        meter.credit(wall)
        return asked + (limit / 4 if wall < limit / 4 else limit)
    own = wall - meter.credit(wall)
    if own >= limit and not meter.probing:
        return None  # it ran, or slept, or waited on something of its own, for its whole limit
    if wall >= scheduler.STARVED_FACTOR * limit:
        if own >= limit / 2:
            return None  # slowed, but it had half its time, in four times the wall time
        raise arena_fault(BotTimeout(f"starved by the machine: {own * 1000:.0f} ms of its own time in "
                                     f"{wall * 1000:.0f} ms (limit {limit * 1000:.0f} ms)"))
    step = min(limit / 10, scheduler.PROBE_S)  # looks close together: a wait after a short run shows from a look on
    if own < limit:
        step = min(step, limit - own)
    return min(asked + scheduler.STARVED_FACTOR * limit, now + step)


class _MoveLimit:
    """The limit a reply to `act` had, as text for a timeout's detail: formatted only when one
    happens, not for every move."""

    __slots__ = ("move_s", "bank_s")

    def __init__(self, move_s: float, bank_s: float) -> None:
        self.move_s, self.bank_s = move_s, bank_s

    def __str__(self) -> str:
        return f"{self.move_s + self.bank_s:.3f} s (move limit {self.move_s:g} s + bank {self.bank_s:.3f} s)"


class _SeatFault(Exception):
    def __init__(self, seat: int, fault: BotFault) -> None:
        super().__init__(seat, fault)
        self.seat, self.fault = seat, fault


# At most about this many captures per card value go into an `act` (all builds and trails do):
# a table crowded with loose cards can have hundreds of thousands of captures (protocol.md,
# "act"); the bot may still name any legal capture by `move`.
LEGAL_CAP = 1000


def _resolve(reply: MoveReply, legal: list[games.Move], state: games.State) -> games.Move:
    """The legal move a reply names; anything else is an IllegalMoveFault saying why."""
    chosen = None
    if reply.index is not None:
        if not 0 <= reply.index < len(legal):
            raise IllegalMoveFault(f"index {reply.index} is out of range ({len(legal)} legal moves)")
        chosen = legal[reply.index]
    if reply.move is not None:
        try:
            checked = state.check(reply.move)  # the rules themselves, not the (maybe cut) list
        except games.GameError as exc:
            raise IllegalMoveFault(f"move {_short(reply.move)} is not legal: {exc}") from None
        if chosen is not None and chosen.key != checked.key:
            raise IllegalMoveFault(f"index {reply.index} ({chosen}) and move {_short(reply.move)} disagree")
        if chosen is None:
            chosen = checked
    assert chosen is not None
    return chosen


def _short(obj: Any) -> str:
    text = repr(obj)
    return text if len(text) <= 120 else text[:117] + "..."


def _variant(variant: games.Variant | str | dict[str, Any], game: games.Game | str | None) -> tuple[games.Game, games.Variant]:
    """The game (by name; default zwicker) and its variant (a spec, or already made)."""
    g = game if game is not None and not isinstance(game, str) else games.game(game)
    return g, g.variant(variant) if variant is None or isinstance(variant, (str, dict)) else variant


async def run_table(connections: Sequence[Connection], *, variant: games.Variant | str | dict[str, Any],
                    plan: Plan, time_control: TimeControl = TimeControl(), match_id: str = "",
                    table_id: str = "", bot_seed: int = 0,
                    handshake_deadline: float | None = None, game: games.Game | str | None = None) -> TableResult:
    """Play a table over already-open connections (one per seat); the processes are the caller's."""
    table = _Table(connections, *_variant(variant, game), plan, time_control, match_id, table_id, bot_seed)
    if handshake_deadline is None:
        handshake_deadline = trio.current_time() + time_control.handshake_s
    await table.run(handshake_deadline)
    return table.result()


async def play_table(seats: Sequence[BotCommand], *, variant: games.Variant | str | dict[str, Any],
                     plan: Plan, time_control: TimeControl = TimeControl(), sandbox: str = "none",
                     limits: Limits | None = None, match_id: str = "", table_id: str = "",
                     bot_seed: int = 0, turn: AbstractAsyncContextManager[Any] | None = None,
                     on_deal: Callable[[TableResult], Awaitable[None]] | None = None,
                     game: games.Game | str | None = None) -> TableResult:
    """Start one process per seat (a BotCommand each), play the plan, and kill every process.

    Returns the table's result with each seat's status, its stderr (bounded) and every move.
    A seat whose process cannot be started counts as crashed. With a `turn` (say a semaphore
    that tables share), the table starts its bots and shakes hands at once, but plays its deals
    only inside the turn. `on_deal` is awaited after every finished deal with the table's result
    so far (no fault, no stderr yet).
    """
    limits = limits if limits is not None else Limits()
    table = _Table([None] * len(seats), *_variant(variant, game), plan, time_control, match_id, table_id, bot_seed)
    table.on_deal = on_deal
    table.sandbox = sandbox  # in every result, the boards a room hands on as they end included
    async with AsyncExitStack() as stack:
        await stack.enter_async_context(forking.serving(sandbox))  # the run's server, or one for this table
        start = trio.current_time()
        # Partners never run at once (nor two processes of one bot: open_bot adds the command)
        sides = [frozenset({("side", id(table), table.layout.side_of(seat))}) for seat in range(len(seats))]
        bots = await stack.enter_async_context(open_bots(seats, sandbox, limits, grace=time_control.grace_s,
                                                         labels=sides))
        for seat, (cmd, bot) in enumerate(zip(seats, bots)):
            if isinstance(bot, OSError):
                table.record_fault(seat, arena_fault(BotCrashed(f"could not start {cmd}: {bot}")))
            else:
                table.conns[seat] = Connection(bot.stdin, bot.stdout)
                table.bots[seat] = bot
        await table.run(start + time_control.handshake_s, turn)
        if table.fault is not None and isinstance(table.fault[1], BotCrashed):
            seat = table.fault[0]
            crashed = bots[seat]
            if isinstance(crashed, BotProcess):
                await crashed.resume()  # thawed (with a core, as for its exit), it can be reaped
                with trio.move_on_after(min(time_control.grace_s, 0.5)):
                    code = await crashed.wait()
                    table.fault = (seat, BotCrashed(f"{table.fault[1].detail}; exit status {code}"))
    for seat, bot in enumerate(bots):
        if isinstance(bot, BotProcess):
            table.seats[seat].stderr = bot.stderr_log()
    if table.fault is not None and isinstance(table.fault[1], BotCrashed) and table.seats[table.fault[0]].handshake_ms \
            is None and any(line.startswith(START_REFUSED) for line in table.seats[table.fault[0]].stderr.splitlines()):
        arena_fault(table.fault[1])  # its sandbox could not start it (bwrap: Can't fork ...)
    result = table.result()
    result.sandbox = sandbox  # recorded with the table: rlimit and none do not isolate partners
    return result
