"""Playing a tournament's rooms: one room's boards, one after another, by one set of bot processes.

A match is played in two rooms (arena.tournaments.runner); what a room needs to be played is a `Job`
(the tournament's deals, bots, clock and sandbox, as plain data) and its `Room`. `play_rooms`
plays the rooms it is given, some at once, and hands each board's result to a `store` callback
as the board ends: the tournament's own process stores them, a shard process
(arena.tournaments.shard) sends them to it. Nothing here touches the database, so a shard does
not import it.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

import games
from arena.errors import ArenaError
from arena.play import live, seeds
from arena.play.table import FixedDeals, TableResult, TimeControl, play_table
from arena.process import forking
from arena.process.command import BotCommand, Limits

class GamePlan:
    """A board of several deals as a table's plan (Zwicker: a whole game to the target): deals
    until the game's `Board` says it is over."""

    def __init__(self, variant: games.Variant, seed: int, first_dealer: int, format: str = "game",
                 game: games.Game | None = None) -> None:
        self.game = game if game is not None else games.game()
        self.format = format
        self.start = self.game.board(variant, seed, first_dealer, format)

    def next_deal(self, finished: Sequence[games.State]) -> tuple[int, int, games.Json] | None:
        board = self.start
        for final in finished:
            board = board.after(final)
        if board.is_over:
            return None
        return board.deal_seed, board.dealer, board.carry()

    def result(self, finished: Sequence[games.State]) -> games.Result:
        """The board's result once its deals `finished` are over: the game's own (Zwicken: the
        final balances, the close-out of the pot included, not the attempts' nets summed)."""
        board = self.start
        for final in finished:
            board = board.after(final)
        return board.result()

    def forfeit(self, game: games.Game, variant: games.Variant, seat: int) -> games.Result:
        """The game's forfeit of a board (Zwicker: a game is lost by the target score)."""
        return game.forfeit(variant, self.format, seat)


@dataclass(frozen=True)
class Room:
    """One of a match's rooms (two teams: the straight one and the swapped one; k entrants: k,
    room r rotating them by r sides): its seats and the boards it still has to play."""

    match_no: int
    swapped: int  # the room: 0 straight, 1 swapped, r rotated by r sides
    seats: tuple[int, ...]  # bot id per seat
    boards: tuple[int, ...]

    @property
    def label(self) -> str:
        """The room's name in table and board names (live.room_label)."""
        return live.room_label(self.swapped)


class RoomPlan:
    """The boards of a room played one after another, each by its own plan."""

    def __init__(self, plans: Sequence[Any], room: str = "", boards: Sequence[str] = (), watch: Any = None) -> None:
        self.plans = list(plans)
        self.room = room  # the room's name, and each board's (sent with every deal, protocol.md)
        self.boards = list(boards) or [f"{room}/{k}" for k in range(len(self.plans))]
        self.watch = watch  # called by the table after each move: a spectator's view (arena.play.live)

    def locate(self, scores: Sequence[Any]) -> tuple[str, int]:
        """The board of the deal that follows the finished deals `scores` (their final states),
        and its number within that board."""
        counts, finished = self.split(scores)
        return (self.boards[len(counts)], 0) if finished else (self.boards[len(counts) - 1], counts[-1])

    def split(self, scores: Sequence[Any]) -> tuple[list[int], bool]:
        """Deals per board for the finished deals `scores` (board by board, as far as they go),
        and whether the last board counted is finished."""
        counts: list[int] = []
        used = 0
        for plan in self.plans:
            k = 0
            while used + k < len(scores) and plan.next_deal(scores[used : used + k]) is not None:
                k += 1
            finished = plan.next_deal(scores[used : used + k]) is None
            counts.append(k)
            used += k
            if not finished or used == len(scores):
                return counts, finished
        return counts, True

    def next_deal(self, scores_so_far: Sequence[Any]) -> tuple[int, int, games.Json] | None:
        used = 0
        for plan in self.plans:
            k = 0
            while (planned := plan.next_deal(scores_so_far[used : used + k])) is not None:
                if used + k == len(scores_so_far):
                    return planned
                k += 1
            used += k
        return None

    def forfeit(self, game: games.Game, variant: games.Variant, seat: int) -> games.Result:
        parts = [plan.forfeit(game, variant, seat) for plan in self.plans]
        return games.Result(*(tuple(map(sum, zip(*(getattr(p, f) for p in parts)))) for f in ("seats", "sides")))


def board_seed(master_seed: int, board_no: int) -> int:
    return seeds.board_seed(master_seed, board_no)


@dataclass(frozen=True)
class Job:
    """What playing a tournament's rooms needs, and nothing of its storage: sent to shards as
    plain data (`to_data`, `from_data`)."""

    name: str
    seed: int
    variant: dict[str, Any]
    format: str
    commands: dict[int, BotCommand]  # by bot id
    time_control: TimeControl = TimeControl()
    sandbox: str = "none"
    limits: Limits | None = None
    live: str | None = None  # the folder where each room publishes its table's public view (arena.play.live)
    game: str = games.ORIGINAL

    @property
    def rules(self) -> tuple[games.Game, games.Variant]:
        """The game and its variant."""
        g = games.game(self.game)
        return g, g.variant(self.variant)

    def to_data(self) -> dict[str, Any]:
        return {
            "name": self.name, "seed": self.seed, "variant": self.variant, "format": self.format,
            "commands": [[bot_id, list(c.argv), str(c.workdir), c.kind] for bot_id, c in self.commands.items()],
            "time_control": dataclasses.asdict(self.time_control), "sandbox": self.sandbox,
            "limits": None if self.limits is None else dataclasses.asdict(self.limits), "live": self.live,
            "game": self.game,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> Job:
        return cls(
            name=data["name"], seed=data["seed"], variant=data["variant"], format=data["format"],
            commands={bot_id: BotCommand(tuple(argv), Path(workdir), kind)
                      for bot_id, argv, workdir, kind in data["commands"]},
            time_control=TimeControl(**data["time_control"]), sandbox=data["sandbox"],
            limits=None if data["limits"] is None else Limits(**data["limits"]), live=data.get("live"),
            game=data.get("game", games.ORIGINAL),
        )

    def board_plan(self, v: games.Variant, board_no: int) -> Any:
        """A board's own plan: one seeded deal, or a board of the game's format; the dealer
        rotates with the board."""
        seed = board_seed(self.seed, board_no)
        dealer = board_no % v.players
        if self.format == "deal":
            return FixedDeals([(seed, dealer)])
        return GamePlan(v, seed, dealer, self.format, games.game(self.game))


ARENA_REPLAYS = 3
"""How often a room's table that ended in a fault of the arena's (a start it could not make,
a move the machine starved) is played again from its faulted board before the fault is stored (marked as the arena's: `forfeit["arena"]`, arena.play.table.arena_fault)."""

Store = Callable[[Room, list[int], list[dict]], Awaitable[None]]
"""Where a room's results go, a board or a few at a time as they end: (room, the boards
played, a table record per board)."""


async def play_rooms(job: Job, rooms: trio.MemoryReceiveChannel[Room], playing: int, store: Store) -> None:
    """Play the rooms from `rooms` until it is closed, `playing` at once.

    As many more start their bots (or stop them) meanwhile and wait for a turn to play: a room's
    start-up and shut-down, a chain of waits on processes, would otherwise leave its share of the
    machine idle between rooms (5% more deals per second at 8 boards, bench/README.md). One fork
    server (sandbox "fork") serves them all.
    """
    turns = trio.Semaphore(playing)  # held by a room from its first deal to its last
    game, v = job.rules

    async def worker(receive: trio.MemoryReceiveChannel[Room]) -> None:
        async with receive:
            async for room in receive:
                await play_room(job, v, room, store, turns)

    async with forking.serving(job.sandbox), trio.open_nursery() as nursery:
        async with rooms:
            for _ in range(2 * playing):
                nursery.start_soon(worker, rooms.clone())


async def play_room(job: Job, v: games.Variant, room: Room, store: Store, turn: Any = None) -> None:
    """One room's boards, each stored (handed to `store`) as soon as it ends, so that a kill
    loses at most the board being played; the room's last board goes with the seats' stderr
    when the processes are gone. A fault ends the room's processes, and fresh ones play the
    boards after it, as they do the boards a resumed run has left."""
    left = list(room.boards)
    key = seeds.bot_key(job.seed)
    watch = None if job.live is None else live.Watch(job.live, f"{job.name}/m{room.match_no}", room.match_no,
                                                     room.swapped, list(room.seats), game=games.game(job.game),
                                                     variant=v)
    try:
        await _play_room(job, v, room, store, turn, left, key, watch)
    finally:
        if watch is not None:
            watch.close()


async def _play_room(job: Job, v: games.Variant, room: Room, store: Store, turn: Any, left: list[int], key: bytes,
                     watch: live.Watch | None) -> None:
    game = games.game(job.game)
    replays = 0
    while left:
        plans = [job.board_plan(v, b) for b in left]
        name = f"{job.name}/m{room.match_no}/{room.label}"
        stored = 0  # boards of this table handed to `store`
        first = 0  # the deals those boards took
        mark = time.perf_counter()

        async def hand_on(records: list[dict], upto: int) -> None:
            nonlocal stored, mark
            now = time.perf_counter()
            for record in records:  # a board's own wall time (the first one's includes the start)
                record["duration_s"] = round((now - mark) / len(records), 3)
            mark = now
            await store(room, left[stored:upto], records)
            stored = upto

        async def on_deal(so_far: TableResult) -> None:
            nonlocal first
            rest = dataclasses.replace(so_far, deals=so_far.deals[first:], finals=so_far.finals[first:])  # not handed on
            ended = boards_ended(rest, plans[stored:])
            if ended and stored + ended < len(plans):
                records = split_result(rest, plans[stored:], v, game)[:ended]
                first += sum(len(r["deals"]) for r in records)
                await hand_on(records, stored + ended)

        result = await play_table(
            [job.commands[b] for b in room.seats], variant=v,
            plan=RoomPlan(plans, room=name, boards=[f"{name}/b{b}" for b in left], watch=watch),
            time_control=job.time_control, sandbox=job.sandbox, limits=job.limits,
            match_id=f"{job.name}/m{room.match_no}",
            table_id=f"{name}/b{left[0]}",
            # the room's: the same for its fresh processes after a fault or a resume, so that a
            # bot seeding its generator by board (botkit does) plays each board as it would have
            bot_seed=seeds.table_seed(key, room.match_no, int(room.swapped)),
            turn=turn, on_deal=on_deal, game=game)
        if result.forfeit is not None and result.forfeit.get("arena") and replays < ARENA_REPLAYS:
            replays += 1  # not the bot's doing (a start refused, a move starved): played again, not stored
            if result.deals:  # the boards it finished are kept; fresh processes play the faulted one again
                done = split_result(result, plans, v, game)[:-1]
                if len(done) > stored:
                    await hand_on(done[stored:], len(done))
                left = left[len(done):]
            continue
        records = split_result(result, plans, v, game)
        await hand_on(records[stored:], len(records))
        left = left[len(records):]


def boards_ended(result: TableResult, plans: Sequence[Any]) -> int:
    """How many of the plans' boards the table has finished so far."""
    scores = result.finals
    if not scores:
        return 0
    counts, finished = RoomPlan(plans).split(scores)
    return len(counts) if finished else len(counts) - 1


def split_result(result: TableResult, plans: Sequence[Any], v: games.Variant,
                 game: games.Game | None = None) -> list[dict]:
    """A room's result as one stored table record per board played (the last one forfeited if
    the room ended on a fault). The seats' stderr goes with the room's last record."""
    game = game if game is not None else games.game()
    sides = game.layout(v).num_sides
    deals = result.deals
    scores = result.finals
    counts, finished = RoomPlan(plans).split(scores) if scores else ([], True)
    if result.forfeit is not None and finished:
        counts.append(0)  # the fault came before the next board's first deal ended
    elif result.forfeit is None and not counts:
        raise ArenaError("a room ended without a fault and without a deal")
    moves_total = sum(len(d["moves"]) for d in deals) or 1
    records = []
    used = 0
    for i, count in enumerate(counts):
        last = i == len(counts) - 1
        board_deals = deals[used : used + count] if not last else deals[used:]
        used += count
        forfeit = result.forfeit if last and result.forfeit is not None else None
        seats = []
        for seat in result.seats:
            mine = [m["ms"] for d in board_deals for m in d["moves"] if m["seat"] == seat.seat]
            faulty = forfeit is not None and forfeit["seat"] == seat.seat
            seats.append({
                "seat": seat.seat, "name": seat.name, "version": seat.version,
                "status": seat.status if faulty else "ok", "detail": seat.detail if faulty else "",
                "stderr": seat.stderr if last else "", "moves": len(mine),
                "think_ms_total": round(sum(mine), 3), "think_ms_max": round(max(mine, default=0.0), 3),
            })
        if forfeit is not None:
            points = list(plans[i].forfeit(game, v, forfeit["seat"]).sides)
        elif isinstance(plans[i], GamePlan):  # the board's own result (Zwicken: the pot's close-out included)
            points = list(plans[i].result(scores[used - count : used]).sides)
        else:
            points = [sum(d["points"][s] for d in board_deals) for s in range(sides)]
        share = sum(len(d["moves"]) for d in board_deals) / moves_total
        records.append({
            "seats": seats, "points": points, "forfeit": forfeit,
            "deals": [{**d, "number": k} for k, d in enumerate(board_deals)],
            "started": result.started, "duration_s": round(result.duration_s * share, 3),
            "sandbox": result.sandbox,
        })
    return records
