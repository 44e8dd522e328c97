"""Tournaments: seeded duplicate round-robin (or gauntlet) matches, played concurrently,
stored table by table, resumable after any interruption.

Every board's seed derives only from the master seed and the board number, so every pairing
plays the same boards; every board is played at two tables with the sides swapped, each with
its own processes. A table is stored in one transaction as soon as it ends, and a run skips
what is stored, so an interrupted tournament (Ctrl-C, kill -9) resumes with exactly the results
an uninterrupted run gives.
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
from arena import storage
from arena.errors import ArenaError
from arena.process import BotCommand, Limits
from arena.table import FixedDeals, TableResult, TimeControl, play_table

PARTNERS = ("clone", "mixed")
FORMATS = ("deal", "game")
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

    def __post_init__(self) -> None:
        if type(self.boards) is not int or self.boards < 1:
            raise ArenaError(f"--boards must be at least 1, got {self.boards!r}")
        if type(self.seed) is not int or not 0 <= self.seed < 2**64:
            raise ArenaError(f"--seed must be an integer from 0 to 2**64-1, got {self.seed!r}")
        if self.format not in FORMATS:
            raise ArenaError(f"--format must be one of {', '.join(FORMATS)}, not {self.format!r}")
        if self.partners not in PARTNERS:
            raise ArenaError(f"--partners must be one of {', '.join(PARTNERS)}, not {self.partners!r}")

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
            if os.sep in spec or spec.endswith((".py", ".js", ".mjs")):
                raise ArenaError(f"no bot file at {spec}")
            rows.append(storage.get_bot(db, spec))
    ids = [r["id"] for r in rows]
    if len(set(ids)) != len(ids):
        raise ArenaError("the same bot is named twice")
    return rows


FOLDER_ENTRY_POINTS = ("bot.py", "main.py", "bot.mjs", "main.mjs", "bot.js", "main.js", "bot")


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
class TableJob:
    match_no: int
    board_no: int
    swapped: bool
    seats: tuple[int, ...]  # bot id per seat


def jobs(matches: Sequence[tuple[list[int], list[int]]], boards: int, players: int) -> Iterator[TableJob]:
    """Every table of the tournament in canonical order (match, board, unswapped first).

    Team A holds side 0 (even seats) at the unswapped table and side 1 (odd seats) at the other.
    """
    if players != 4:
        raise ArenaError("tournaments are played 2 v 2: the variant must have 4 players")
    for match_no, (team_a, team_b) in enumerate(matches, start=1):
        for board_no in range(boards):
            for swapped in (False, True):
                even, odd = (team_b, team_a) if swapped else (team_a, team_b)
                yield TableJob(match_no, board_no, swapped, (even[0], odd[0], even[1], odd[1]))


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

    def update(self, result: TableResult) -> None:
        self.tables_done += 1
        self.deals += len(result.deals)
        self.faults += result.forfeit is not None
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
        else:
            decile = 10 * self.tables_done // max(self.tables_total, 1)
            if decile != self._last_decile or final:
                self._last_decile = decile
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
                  "sandbox": sandbox},
        bot_ids=ids, matches=matches)


def _plan(t: dict, v: engine.Variant, board_no: int) -> Any:
    seed = board_seed(t["seed"], board_no)
    dealer = board_no % v.players
    if t["format"] == "game":
        return GamePlan(v, seed, dealer)
    return FixedDeals([(seed, dealer)])


async def run(db: sqlite_utils.Database, tid: int, *, concurrency: int | None = None, sandbox: str = "none",
              limits: Limits | None = None, progress: Progress | None = None,
              on_table: Callable[[TableJob, TableResult], None] | None = None) -> dict:
    """Play every table of the tournament that is not stored yet, then rate; returns the tournament.

    Each finished table is written at once, in its own transaction, by this (the only) writer.
    """
    t = storage.get_tournament(db, tid)
    v = engine.variant(t["variant"])
    time_control = TimeControl(**t["settings"].get("time_control", {}))
    matches = [([m["a0"], m["a1"]], [m["b0"], m["b1"]]) for m in _match_rows(db, tid)]
    commands = {b["id"]: bot_command(storage.get_bot(db, b["id"])) for b in t["bots"]}
    done = storage.done_tables(db, tid)
    todo = [j for j in jobs(matches, t["boards"], v.players) if (j.match_no, j.board_no, j.swapped) not in done]
    concurrency = max(1, concurrency or os.cpu_count() or 1)
    if progress is not None:
        progress.tables_total = len(matches) * t["boards"] * 2
        progress.tables_done = len(done)
    storage.set_status(db, tid, "running")

    async def play(job: TableJob) -> None:
        seed = board_seed(t["seed"], job.board_no)
        result = await play_table(
            [commands[b] for b in job.seats], variant=v, plan=_plan(t, v, job.board_no),
            time_control=time_control, sandbox=sandbox, limits=limits,
            match_id=f"{t['name']}/m{job.match_no}",
            table_id=f"{t['name']}/m{job.match_no}/b{job.board_no}/{'swapped' if job.swapped else 'straight'}",
            bot_seed=engine.deal_seed(seed, 1 + job.swapped))
        record = result.to_dict()
        for seat in record["seats"]:
            seat["bot_id"] = job.seats[seat["seat"]]
        storage.record_table(db, tid, job.match_no, job.board_no, job.swapped, seed, record)
        if progress is not None:
            progress.update(result)
        if on_table is not None:
            on_table(job, result)

    finished = False
    try:
        send, receive = trio.open_memory_channel[TableJob](0)
        async with trio.open_nursery() as nursery:
            for _ in range(min(concurrency, max(len(todo), 1))):
                nursery.start_soon(_worker, receive.clone(), play)
            receive.close()
            async with send:
                for job in todo:
                    await send.send(job)
        storage.compute_and_store_ratings(db, tid)
        finished = True
    finally:
        with trio.CancelScope(shield=True):
            storage.set_status(db, tid, "finished" if finished else "interrupted")
    if progress is not None:
        progress.show(final=True)
    return storage.get_tournament(db, tid)


async def _worker(receive: trio.MemoryReceiveChannel[TableJob], play: Callable[[TableJob], Any]) -> None:
    async with receive:
        async for job in receive:
            await play(job)


def _match_rows(db: sqlite_utils.Database, tid: int) -> list[dict]:
    return [dict(r) for r in db.query("SELECT * FROM matches WHERE tournament_id = ? ORDER BY match_no", [tid])]
