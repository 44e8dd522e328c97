"""Tournaments: seeded duplicate round-robin (or gauntlet) matches, played concurrently,
stored as they finish, resumable after any interruption.

Every board's seed derives only from the master seed and the board number, so every pairing
plays the same boards. A match is played in two rooms, as in duplicate bridge: in the straight
room team A holds side 0's cards, in the swapped room side 1's; each room has its own four bot
processes, which play the match's boards one after another. So a bot never sees a deal twice
and nothing crosses between the rooms, while a process is started per room, not per deal.

A room's boards are stored in one transaction when the room ends, and a run skips the rooms that
are stored; an interrupted tournament (Ctrl-C, kill -9) therefore resumes with exactly the
results an uninterrupted run gives, even for bots that carry state from deal to deal. A fault
forfeits the board being played (protocol.md, "Faults"); the room's remaining boards are played
by fresh processes.
"""

from __future__ import annotations

import dataclasses
import itertools
import os
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlite_utils
import trio

import engine
from arena import forking, storage
from arena.errors import ArenaError
from arena.storage import FORMATS, PARTNERS
from arena.process import SCRIPT_SUFFIXES, BotCommand, Limits, sweep_orphans
from arena.table import FixedDeals, TableResult, TimeControl, play_table

MAX_GAME_DEALS = 60  # a safety net: a game to 101 takes 4 to 10 deals


class GamePlan:
    """A whole game to the target as a table's plan: deals until `engine.Game` says it is over."""

    def __init__(self, variant: engine.Variant, seed: int, first_dealer: int) -> None:
        self.start = engine.Game.new(variant, seed, first_dealer)

    def next_deal(self, scores_so_far: list[list[int]]) -> tuple[int, int] | None:
        game = self.start
        for points in scores_so_far:
            game = game.after_deal(points)
        if game.is_over or game.deals_played >= MAX_GAME_DEALS:
            return None
        return game.deal_seed, game.dealer

    def forfeit_points(self, variant: engine.Variant) -> int:
        """A forfeited game is lost by the target score."""
        return variant.target


@dataclass(frozen=True)
class Settings:
    """What decides a tournament's results; stored, and compared when a run is resumed."""

    boards: int = 8
    variant: dict[str, Any] = field(default_factory=lambda: engine.variant().to_dict())
    seed: int = 0
    format: str = "deal"
    partners: str = "clone"
    gauntlet: str | None = None
    time_control: TimeControl = TimeControl()
    elo_k: float = 16.0  # K of the sequential Elo (the headline Bradley-Terry rating has none)

    def __post_init__(self) -> None:
        if type(self.boards) is not int or self.boards < 1:
            raise ArenaError(f"--boards must be at least 1, got {self.boards!r}")
        if type(self.seed) is not int or not 0 <= self.seed < 2**64:
            raise ArenaError(f"--seed must be an integer from 0 to 2**64-1, got {self.seed!r}")
        if self.format not in FORMATS:
            raise ArenaError(f"--format must be one of {', '.join(FORMATS)}, not {self.format!r}")
        if self.partners not in PARTNERS:
            raise ArenaError(f"--partners must be one of {', '.join(PARTNERS)}, not {self.partners!r}")
        if not 0 < self.elo_k <= 400:
            raise ArenaError(f"--elo-k must be above 0 and at most 400, got {self.elo_k!r}")

    @property
    def engine_variant(self) -> engine.Variant:
        return engine.variant(self.variant)


def parse_variant(text: str | None) -> dict[str, Any]:
    """`jensen`, or `jensen:target=51,all_tens=true`: a preset and options, as the variant dict."""
    if not text:
        return engine.variant().to_dict()
    preset, _, rest = text.partition(":")
    options: dict[str, Any] = {}
    for item in filter(None, rest.split(",")):
        key, sep, raw = item.partition("=")
        if not sep:
            raise ArenaError(f"--variant: expected option=value, got {item!r} (e.g. jensen:target=51)")
        raw = raw.strip()
        value: Any = {"true": True, "false": False}.get(raw.lower(), raw)
        if isinstance(value, str) and value.lstrip("-").isdigit():
            value = int(value)
        options[key.strip()] = value
    try:
        return engine.variant(preset.strip(), **options).to_dict()
    except ValueError as exc:
        raise ArenaError(f"--variant: {exc}") from None


# -- bots ---------------------------------------------------------------------------------------


def resolve_bots(db: sqlite_utils.Database, specs: Sequence[str]) -> list[dict]:
    """Registered names (`greedy`, `greedy@2`) or paths (registered on the way, by content)."""
    rows = []
    for spec in specs:
        spec = spec.strip()
        if not spec:
            continue
        path = Path(spec)
        if path.exists():
            rows.append(storage.add_bot(db, path))
        else:
            if os.sep in spec or spec.endswith(SCRIPT_SUFFIXES):
                raise ArenaError(f"no bot file at {spec}")
            rows.append(storage.get_bot(db, spec))
    ids = [r["id"] for r in rows]
    if len(set(ids)) != len(ids):
        raise ArenaError("the same bot is named twice")
    return rows


FOLDER_ENTRY_POINTS = ("bot.py", "main.py", "bot.mjs", "main.mjs", "bot.js", "main.js", "bot.cjs", "main.cjs", "bot")


def bot_command(row: dict) -> BotCommand:
    """How to run a registered bot: its stored copy, or its own command run in that copy's folder."""
    path = Path(row["path"])
    if not path.exists():
        raise ArenaError(f"the stored copy of bot {row['name']}@{row['version']} is missing: {path}")
    folder = path if path.is_dir() else path.parent
    if row.get("command"):
        with _cwd(folder):
            cmd = BotCommand.from_spec(row["command"])
        return dataclasses.replace(cmd, workdir=folder)
    if path.is_dir():
        for entry in FOLDER_ENTRY_POINTS:
            if (path / entry).is_file():
                return BotCommand.from_spec(str(path / entry))
        raise ArenaError(f"bot {row['name']} is a folder without {', '.join(FOLDER_ENTRY_POINTS)}: "
                         "register it with --command")
    return BotCommand.from_spec(str(path))


@contextmanager
def _cwd(folder: Path) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(old)


# -- the schedule -------------------------------------------------------------------------------


def pairings(bot_ids: Sequence[int], partners: str, gauntlet: int | None = None) -> list[tuple[list[int], list[int]]]:
    """Matches as (team A seat-bots, team B seat-bots).

    clone: every pair of bots, each side two instances of one bot. mixed: for each group of four
    bots, all three ways to pair them. With a gauntlet bot, only pairings that include it.
    """
    if partners == "clone":
        if len(bot_ids) < 2:
            raise ArenaError("a tournament needs at least two bots")
        pairs = [(a, b) for a, b in itertools.combinations(bot_ids, 2)]
        if gauntlet is not None:
            pairs = [(a, b) if a == gauntlet else (b, a) for a, b in pairs if gauntlet in (a, b)]
        return [([a, a], [b, b]) for a, b in pairs]
    if len(bot_ids) < 4:
        raise ArenaError("--partners mixed needs at least four bots")
    matches = []
    for a, b, c, d in itertools.combinations(bot_ids, 4):
        for team, other in (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c))):
            if gauntlet is None or gauntlet in team or gauntlet in other:
                if gauntlet in other:
                    team, other = other, team
                matches.append((list(team), list(other)))
    return matches


@dataclass(frozen=True)
class Room:
    """One of a match's two rooms: four seats and the boards it still has to play."""

    match_no: int
    swapped: bool
    seats: tuple[int, ...]  # bot id per seat
    boards: tuple[int, ...]


def rooms(matches: Sequence[tuple[list[int], list[int]]], boards: int, players: int,
          done: set[tuple[int, int, bool]] = frozenset()) -> list[Room]:
    """Every room with boards left to play, in canonical order (match, straight room first)."""
    if players != 4:
        raise ArenaError("tournaments are played 2 v 2: the variant must have 4 players")
    found = []
    for match_no, (team_a, team_b) in enumerate(matches, start=1):
        for swapped in (False, True):
            todo = tuple(b for b in range(boards) if (match_no, b, swapped) not in done)
            if todo:
                found.append(Room(match_no, swapped, tuple(storage.seat_bots(team_a, team_b, swapped)), todo))
    return found


class RoomPlan:
    """The boards of a room played one after another, each by its own plan."""

    def __init__(self, plans: Sequence[Any]) -> None:
        self.plans = list(plans)

    def split(self, scores: list[list[int]]) -> tuple[list[int], bool]:
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

    def next_deal(self, scores_so_far: list[list[int]]) -> tuple[int, int] | None:
        used = 0
        for plan in self.plans:
            k = 0
            while (planned := plan.next_deal(scores_so_far[used : used + k])) is not None:
                if used + k == len(scores_so_far):
                    return planned
                k += 1
            used += k
        return None

    def forfeit_points(self, variant: engine.Variant) -> int:
        return sum(plan.forfeit_points(variant) for plan in self.plans)


def board_seed(master_seed: int, board_no: int) -> int:
    return engine.deal_seed(master_seed, board_no)


# -- running ------------------------------------------------------------------------------------


@dataclass
class Progress:
    """Boards done, deals per second, ETA and faults, on one self-overwriting line (or a line
    every tenth of the way when stderr is not a terminal)."""

    tables_total: int
    tables_done: int = 0
    deals: int = 0
    faults: int = 0
    started: float = field(default_factory=time.monotonic)
    out: Any = None
    _last_decile: int = -1
    _last_done: int = -1

    def update(self, tables: int, deals: int, faults: int) -> None:
        self.tables_done += tables
        self.deals += deals
        self.faults += faults
        self.show()

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        rate = self.deals / elapsed
        left = self.tables_total - self.tables_done
        eta = elapsed / max(self.tables_done, 1) * left if self.tables_done else 0.0
        width = 24
        filled = width * self.tables_done // max(self.tables_total, 1)
        return (f"[{'#' * filled}{'.' * (width - filled)}] boards {self.tables_done // 2}/{self.tables_total // 2}"
                f"  {rate:.1f} deals/s  ETA {int(eta) // 60}:{int(eta) % 60:02d}  faults {self.faults}")

    def show(self, final: bool = False) -> None:
        out = self.out if self.out is not None else sys.stderr
        if out.isatty():
            out.write("\r" + self.line() + ("\n" if final else ""))
        else:  # a log: a line per tenth of the way, and the last one once
            decile = 10 * self.tables_done // max(self.tables_total, 1)
            if decile != self._last_decile or (final and self.tables_done != self._last_done):
                self._last_decile, self._last_done = decile, self.tables_done
                out.write(self.line() + "\n")
        out.flush()


def _check_same(stored: dict, settings: Settings, bot_ids: list[int] | None, gauntlet_id: int | None) -> None:
    name = stored["name"]
    want = {"seed": settings.seed, "variant": settings.variant, "format": settings.format,
            "partners": settings.partners, "boards": settings.boards}
    for key, value in want.items():
        if stored[key] != value:
            raise ArenaError(f"tournament '{name}' exists with {key}={stored[key]!r}, not {value!r}: "
                             f"run with --resume {name} to continue it, or choose another --name")
    if bot_ids is not None and sorted(bot_ids) != sorted(b["id"] for b in stored["bots"]):
        raise ArenaError(f"tournament '{name}' exists with other bots: run with --resume {name} to continue "
                         "it, or choose another --name")
    if stored["settings"].get("gauntlet") != gauntlet_id:
        raise ArenaError(f"tournament '{name}' exists with another --gauntlet setting")


def prepare(db: sqlite_utils.Database, name: str, bot_specs: Sequence[str] | None, settings: Settings | None,
            *, sandbox: str = "none") -> int:
    """Create the tournament, or find it for a resume; returns its id.

    With `bot_specs` and `settings` None, the tournament must exist (`--resume NAME`).
    """
    existing = {t["name"] for t in storage.list_tournaments(db)}
    if bot_specs is None or settings is None:
        if name not in existing:
            raise ArenaError(f"no tournament '{name}' to resume (known: {', '.join(sorted(existing)) or 'none yet'})")
        return storage.get_tournament(db, name)["id"]
    bots = resolve_bots(db, bot_specs)
    ids = [b["id"] for b in bots]
    gauntlet_id = None
    if settings.gauntlet:
        gauntlet_id = resolve_bots(db, [settings.gauntlet])[0]["id"]
        if gauntlet_id not in ids:
            ids.append(gauntlet_id)
    if name in existing:
        stored = storage.get_tournament(db, name)
        _check_same(stored, settings, ids, gauntlet_id)
        return stored["id"]
    v = settings.engine_variant
    if v.players != 4:
        raise ArenaError(f"--variant: tournaments are played 2 v 2 by 4 players, not {v.players}")
    for row in bots:
        bot_command(row)  # a bot that cannot be started is refused before anything is stored
    matches = pairings(ids, settings.partners, gauntlet_id)
    return storage.create_tournament(
        db, name, seed=settings.seed, variant=settings.variant, format=settings.format,
        partners=settings.partners, boards=settings.boards,
        settings={"gauntlet": gauntlet_id, "time_control": dataclasses.asdict(settings.time_control),
                  "sandbox": sandbox, "elo_k": settings.elo_k},
        bot_ids=ids, matches=matches)


def _plan(t: dict, v: engine.Variant, board_no: int) -> Any:
    """A board's own plan: one seeded deal, or a game; the dealer rotates with the board."""
    seed = board_seed(t["seed"], board_no)
    dealer = board_no % v.players
    if t["format"] == "game":
        return GamePlan(v, seed, dealer)
    return FixedDeals([(seed, dealer)])


async def run(db: sqlite_utils.Database, tid: int, *, concurrency: int | None = None, sandbox: str = "none",
              limits: Limits | None = None, progress: Progress | None = None,
              on_room: Callable[[Room, list[int]], None] | None = None) -> dict:
    """Play every room of the tournament that is not stored yet, then rate; returns the tournament.

    `concurrency` rooms play at once (default: one per core). This task is the only writer.
    As many more start their bots (or stop them) meanwhile and wait for a turn to play: a room's
    start-up and shut-down, a chain of waits on processes, would otherwise leave its share of the
    machine idle between rooms (5% more deals per second at 8 boards, bench/README.md).
    """
    t = storage.get_tournament(db, tid)
    sweep_orphans()  # bots a killed arena may have left behind
    v = engine.variant(t["variant"])
    time_control = TimeControl(**t["settings"].get("time_control", {}))
    matches = [(m["team_a"], m["team_b"]) for m in storage.schedule(db, tid)]
    commands = {b["id"]: bot_command(storage.get_bot(db, b["id"])) for b in t["bots"]}
    done = storage.done_tables(db, tid)
    todo = rooms(matches, t["boards"], v.players, done)
    concurrency = max(1, concurrency or os.cpu_count() or 1)
    if progress is not None:
        progress.tables_total = len(matches) * t["boards"] * 2
        progress.tables_done = len(done)
    storage.set_status(db, tid, "running")
    storage.note_sandbox(db, tid, sandbox)  # a resumed run may use another one

    turns = trio.Semaphore(concurrency)  # held by a room from its first deal to its last

    async def play(room: Room) -> None:
        left = list(room.boards)
        while left:  # a fault ends a room's processes; fresh ones play the boards after it
            plans = [_plan(t, v, b) for b in left]
            result = await play_table(
                [commands[b] for b in room.seats], variant=v, plan=RoomPlan(plans),
                time_control=time_control, sandbox=sandbox, limits=limits,
                match_id=f"{t['name']}/m{room.match_no}",
                table_id=f"{t['name']}/m{room.match_no}/{'swapped' if room.swapped else 'straight'}/b{left[0]}",
                bot_seed=engine.deal_seed(engine.deal_seed(t["seed"], room.match_no), 2 * left[0] + room.swapped),
                turn=turns)
            records = split_result(result, plans, v)
            with storage_transaction(db):
                for board_no, record in zip(left, records):
                    for seat in record["seats"]:
                        seat["bot_id"] = room.seats[seat["seat"]]
                    storage.record_table(db, tid, room.match_no, board_no, room.swapped,
                                         board_seed(t["seed"], board_no), record)
            if progress is not None:
                progress.update(len(records), sum(len(r["deals"]) for r in records),
                                sum(r["forfeit"] is not None for r in records))
            if on_room is not None:
                on_room(room, left[: len(records)])
            left = left[len(records):]

    finished = False
    try:
        send, receive = trio.open_memory_channel[Room](0)
        async with forking.serving(sandbox), trio.open_nursery() as nursery:
            for _ in range(min(2 * concurrency, max(len(todo), 1))):  # half of them waiting for a turn
                nursery.start_soon(_worker, receive.clone(), play)
            receive.close()
            async with send:
                for room in todo:
                    await send.send(room)
        storage.compute_and_store_ratings(db, tid, k=t["settings"].get("elo_k", 16.0))
        finished = True
    finally:
        with trio.CancelScope(shield=True):
            storage.set_status(db, tid, "finished" if finished else "interrupted")
    if progress is not None:
        progress.show(final=True)
    return storage.get_tournament(db, tid)


def storage_transaction(db: sqlite_utils.Database) -> Any:
    """A room's boards land together: an interrupted room is replayed whole on resume."""
    return db.atomic()


def split_result(result: TableResult, plans: Sequence[Any], v: engine.Variant) -> list[dict]:
    """A room's result as one stored table record per board played (the last one forfeited if
    the room ended on a fault). The seats' stderr goes with the room's last record."""
    deals = result.deals
    scores = [d["points"] for d in deals if d["complete"]]
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
            award = plans[i].forfeit_points(v)
            points = [0 if s == forfeit["side"] else award for s in range(v.num_sides)]
        else:
            points = [sum(d["points"][s] for d in board_deals) for s in range(v.num_sides)]
        share = sum(len(d["moves"]) for d in board_deals) / moves_total
        records.append({
            "seats": seats, "points": points, "forfeit": forfeit,
            "deals": [{**d, "number": k} for k, d in enumerate(board_deals)],
            "started": result.started, "duration_s": round(result.duration_s * share, 3),
        })
    return records


async def _worker(receive: trio.MemoryReceiveChannel[Room], play: Callable[[Room], Any]) -> None:
    async with receive:
        async for job in receive:
            await play(job)
