"""Tournaments: seeded duplicate round-robin (or gauntlet) matches, played concurrently,
stored as they finish, resumable after any interruption.

Every board's seed derives only from the master seed and the board number, so every pairing
plays the same boards. A match is played in two rooms, as in duplicate bridge: in the straight
room team A holds side 0's cards, in the swapped room side 1's; each room has its own four bot
processes, which play the match's boards one after another. So a bot never sees a deal twice
and nothing crosses between the rooms, while a process is started per room, not per deal.

Rooms are played by this process and, on a machine with several cores, by shards (arena.tournaments.shard,
one arena process per core); every result comes back here. Each board is stored as it ends
(a room's last one when its processes are gone, with their stderr), and a run skips the boards
that are stored: an interrupted tournament (Ctrl-C, kill -9) loses at most the board each table
was playing, and its resumed run plays each room's remaining boards with fresh processes, as
after a fault. For bots that keep no state from board to board that gives exactly the results
of an uninterrupted run (botkit seeds its generator by board); a bot that does (a generator
seeded once at `hello` is such state) starts the rest of the room afresh, with the room's own
`hello` seed again (README, Resume). On a cluster a room's boards come back when its task ends. A fault forfeits
the board being played (protocol.md, "Faults"); the room's remaining boards are played by fresh
processes.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import sys
import tempfile
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlite_utils
import trio

import games
from arena.errors import ArenaError
from arena.play import seeds
from arena.play.room import GamePlan, Job, Room, RoomPlan, board_seed, play_rooms  # noqa: F401  (plans: also as tournament.*)
from arena.play.table import FixedDeals, SeatResult, TimeControl, play_table
from arena.process.command import SCRIPT_SUFFIXES, BotCommand, Limits
from arena.process import scheduler
from arena.process.lifecycle import sweep_orphans
from arena.process.modes import label, resolve_mode
from arena.results import live, ratings, read, registry, write
from arena.results.lock import run_lock
from arena.results.registry import default_name
from arena.results.schema import db_path, open_db
from arena.results.schema import PARTNERS
from arena.tournaments.commands import FOLDER_ENTRY_POINTS, bot_command  # noqa: F401  (also as runner.*)
from arena.tournaments import swiss
from arena.tournaments.progress import Progress, Silent
from arena.tournaments.schedule import groups, mixed_sides, pairings, rooms, two_teams
from arena.tournaments.shard import Placement, Shard, apart, open_shard, pin


PAIRINGS = ("roundrobin", "swiss")


@dataclass(frozen=True)
class Settings:
    """What decides a tournament's results; stored, and compared when a run is resumed."""

    boards: int = 8
    variant: dict[str, Any] = field(default_factory=lambda: games.game().variant().to_dict())
    seed: int | None = None  # None: a random one when the tournament is created (seeds.draw_master_seed)
    format: str = "deal"
    partners: str = "clone"
    gauntlet: str | None = None
    time_control: TimeControl = TimeControl()
    pairing: str = "roundrobin"  # or "swiss" (arena.tournaments.swiss), with `rounds`
    rounds: int | None = None  # Swiss rounds (None: swiss.default_rounds)
    game: str = games.DEFAULT  # the game's registry name (games.game)

    def __post_init__(self) -> None:
        g = check_game(self.game)
        try:
            layout = g.layout(g.variant(self.variant))
        except (games.GameError, ValueError, TypeError) as exc:
            raise ArenaError(f"--variant: {exc}") from None
        if mixed_sides(layout) is None and self.partners != "clone":
            sizes = sorted({len(side) for side in layout.sides})
            who = (f"{layout.num_sides} sides of {' and '.join(map(str, sizes))}, each match one bot a side in "
                   "all of its seats" if layout.partnerships else f"every player plays alone ({layout.players} "
                   "players, each match one bot a seat)")
            raise ArenaError(f"--partners mixed is for a table of two sides of equal size; in {g.info.title} here {who}")
        if type(self.boards) is not int or self.boards < 1:
            raise ArenaError(f"--boards must be at least 1, got {self.boards!r}")
        if self.seed is not None and (type(self.seed) is not int or not 0 <= self.seed < 2**64):
            raise ArenaError(f"--seed must be an integer from 0 to 2**64-1, got {self.seed!r}")
        if self.format not in g.info.formats:
            raise ArenaError(f"--format must be one of {', '.join(g.info.formats)} for {g.info.title}, "
                             f"not {self.format!r}")
        if self.partners not in PARTNERS:
            raise ArenaError(f"--partners must be one of {', '.join(PARTNERS)}, not {self.partners!r}")
        if self.pairing not in PAIRINGS:
            raise ArenaError(f"--pairing must be one of {', '.join(PAIRINGS)}, not {self.pairing!r}")
        if self.pairing == "swiss" and (self.partners != "clone" or self.gauntlet):
            raise ArenaError("--pairing swiss draws each round from the scores so far: use it with --partners clone, "
                             "no --gauntlet")
        if self.rounds is not None and (self.pairing != "swiss" or type(self.rounds) is not int or self.rounds < 1):
            raise ArenaError(f"--rounds is for --pairing swiss and must be at least 1, got {self.rounds!r}")

    @property
    def engine_variant(self) -> games.Variant:
        """The variant as the game's value (games.Variant)."""
        return games.game(self.game).variant(self.variant)


def check_game(name: str | None) -> games.Game:
    """The game called `name` (`--game`; None: zwicker), or one line saying which games there are."""
    try:
        return games.game(name)
    except games.GameError as exc:
        raise ArenaError(f"--game: {exc}") from None


def parse_variant(text: str | None, game: str | None = None) -> dict[str, Any]:
    """The one `--variant` syntax of every command, as the variant dict, read by the game
    (`--game`, default zwicker). Zwicker's: a preset (`jensen`), a preset and options
    (`jensen:target=51,all_tens=true`; values read as JSON, else as text), or a JSON object
    (`{"preset": "jensen", "target": 51}`)."""
    g = check_game(game)
    try:
        return g.variant((text or "").strip() or None).to_dict()
    except (games.GameError, ValueError, TypeError) as exc:
        raise ArenaError(f"--variant: {exc}") from None


def with_players(variant: dict[str, Any], game: str | None, players: int | None,
                 text: str | None = None) -> dict[str, Any]:
    """The variant with `--players N` where given: for a game that lets the table's size be
    chosen (a `players` option), else one line. The layout (who plays alone, who in sides) is
    the game's for that many players. A --variant `text` that names another number of players
    is refused."""
    if players is None:
        return variant
    if text is not None and re.search(r"\bplayers\b", text) and variant.get("players") != players:
        raise ArenaError(f"--variant {text!r} says players={variant.get('players')} and --players {players}: "
                         "give the number once")
    g = check_game(game)
    if g.info.min_players == g.info.max_players or "players" not in variant:
        raise ArenaError(f"--players: {g.info.title} is always played by {g.info.min_players}")
    if not g.info.min_players <= players <= g.info.max_players:
        raise ArenaError(f"--players must be {g.info.min_players} to {g.info.max_players} for {g.info.title}, "
                         f"got {players}")
    return resized(variant, g, players)


def resized(variant: dict[str, Any], g: games.Game, players: int) -> dict[str, Any]:
    """The variant for `players`: the options that differ from its preset's kept, the rest (such
    as Zwicken's deals, playout_max and max_hops) following the players as the rules' defaults do."""
    try:
        preset = g.variant({"preset": variant["preset"]}).to_dict() if "preset" in variant else {}
        given = {k: v for k, v in variant.items() if k in ("preset", "game") or preset.get(k) != v}
        return g.variant({**given, "players": players}).to_dict()
    except (games.GameError, ValueError, TypeError) as exc:
        raise ArenaError(f"--players: {exc}") from None


# -- bots ---------------------------------------------------------------------------------------


def resolve_bots(db: sqlite_utils.Database, specs: Sequence[str], game: str | None = None) -> list[dict]:
    """Registered names (`greedy`, `greedy@2`) or paths (registered on the way, by content;
    a path never takes over a registered name, registry.add_bot); with `game`, a bot whose
    ready.games (stored by `bot add`) leave it out is refused."""
    game = None if game is None else check_game(game).info.name
    rows = []
    for spec in specs:
        spec = spec.strip()
        if not spec:
            continue
        path = Path(spec).expanduser()
        if path.exists():
            row = registry.add_bot(db, path)
        else:
            if os.sep in spec or spec.endswith(SCRIPT_SUFFIXES):
                raise ArenaError(f"no bot file at {spec}")
            row = registry.get_bot(db, spec)
        if row.get("disabled"):
            raise ArenaError(f"bot '{row['name']}' is disabled: 'arena bot enable {row['name']}' brings it back")
        if game is not None and not registry.plays(row, game):
            raise ArenaError(f"bot '{row['name']}@{row['version']}' plays {', '.join(row['games']) or 'no game'}"
                             f" (its ready.games), not {game}{_other_game(row['games'])}")
        rows.append(row)
    ids = [r["id"] for r in rows]
    if len(set(ids)) != len(ids):
        raise ArenaError("the same bot is named twice")
    return rows


def command_for(spec: str, db_path: Path, game: str | None = None) -> BotCommand:
    """A bot for `arena play` and `bot check`: a folder as `bot add` takes it (its bot.py, main.js,
    ...; run from a copy of all of it), a file or command string as given, else a name registered
    in the database at `db_path` (name, name@version or id; run from its whole stored folder)."""
    path = Path(spec).expanduser()
    if path.is_dir():
        return candidate_command(path, None)
    known: list[str] | None = None
    if not path.exists() and db_path.exists():
        db = open_db(db_path, create=False, readonly=True)
        try:
            known = sorted({b["name"] for b in registry.list_bots(db) if not b.get("disabled")})
            found = registry.get_bot(db, spec) if re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9_.+-]*(@\d+)?", spec) else None
        except ArenaError:
            found = None
        finally:
            db.close()
        if found is not None:
            if game is not None and not registry.plays(found, name := check_game(game).info.name):
                raise ArenaError(f"bot '{found['name']}@{found['version']}' plays {', '.join(found['games']) or 'no game'}"
                                 f" (its ready.games), not {name}{_other_game(found['games'])}")
            return bot_command(found)
    try:
        return BotCommand.from_spec(spec)
    except ValueError as exc:
        if known is None:
            where = f"no database at {db_path} (--db or ARENA_DB names one)"
        else:
            where = f"nor a bot registered in {db_path} ({'known: ' + ', '.join(known) if known else 'none registered yet'})"
        raise ArenaError(f"{exc}, {where}") from None


def candidate_command(path: Path, command: str | None) -> BotCommand:
    """How a bot about to be registered would be run (as `bot_command` runs its copy)."""
    path = path.expanduser().resolve()
    try:
        return bot_command({"name": default_name(path), "version": 0, "path": str(path), "command": command})
    except ValueError as exc:
        raise ArenaError(f"cannot run {path}: {exc}") from None


async def answers_hello(command: BotCommand, *, sandbox: str = "none", handshake_s: float = 10.0,
                        game: str | None = None) -> SeatResult:
    """Start the bot at a table of the game's random bots and let it play one deal: its seat's
    result says whether it started and answered `hello` (handshake_ms set) and how it did after."""
    from arena.play.match import board_deal, random_bot

    g = check_game(game)
    v = g.variant()
    seats = [command] + [BotCommand.from_spec(str(random_bot(g)))] * (v.players - 1)
    table = await play_table(seats, variant=v, plan=FixedDeals([board_deal(0, 0, v.players)]),
                             time_control=TimeControl(handshake_s=handshake_s), sandbox=sandbox,
                             match_id="add-check", table_id="seat0", bot_seed=0, game=g)
    return table.seats[0]


async def _copy_answers_hello(path: Path, command: str | None, sandbox: str, game: str | None = None) -> SeatResult:
    """The check runs a copy made as the store makes it: a bot file that needs its neighbours
    fails here, not in its first tournament."""
    folder = Path(tempfile.mkdtemp(prefix="arena-check-"))
    try:
        folder.chmod(0o755)  # sandboxed bots run as a user of their own
        copy = registry.store_copy(path.expanduser().resolve(), folder / "copy")
        return await answers_hello(candidate_command(copy, command), sandbox=sandbox, game=game)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _other_game(declared: list[str] | None) -> str:
    """What a refusal of a bot of another game adds: the option that plays its game."""
    installed = [g for g in declared or [] if g in games.names()]
    return f" (--game {installed[0]} plays it)" if installed else ""


def declared_game(said: Sequence[list[str] | None], table_game: str) -> str | None:
    """The installed game a bot's ready.games names first (`said`: what it said at each seat), where
    it does not name the table's `table_game`: a `bot add` or `bot check` given no --game seats it
    at that game's table instead; else None."""
    for declared in said:
        if declared and table_game not in declared:
            return next((g for g in declared if g in games.names()), None)
    return None


def register_bot(db: sqlite_utils.Database, path: Path, *, name: str | None = None, command: str | None = None,
                 new_version: bool = False, check: bool = True, sandbox: str = "none",
                 game: str | None = None) -> dict:
    """`arena bot add`: refuse what cannot be run (and, with `check`, a bot that does not start
    and answer `hello` at a table of `game`, default the default game's or, for a bot whose
    ready.games names only others, the first of those) before anything is stored."""
    if not path.exists():
        raise ArenaError(f"no bot at {path}")
    candidate_command(path, command)  # refused at once: a file the arena cannot run
    if check:
        seat = trio.run(lambda: _copy_answers_hello(path, command, sandbox, game))
        if seat.handshake_ms is None and game is None and (other := declared_game([seat.games], check_game(None).info.name)):
            seat = trio.run(lambda: _copy_answers_hello(path, command, sandbox, other))  # a bot of another game only
        if seat.handshake_ms is None:
            from arena.play.match import stderr_cause
            from arena.process.command import limit_met

            why, limit = stderr_cause(seat.stderr), limit_met(f"{seat.detail}\n{seat.stderr}")
            raise ArenaError(f"{path} did not start and answer hello ({seat.status}: {seat.detail}"
                             f"{'; stderr: ' + why[:200] if why else ''}{'; ' + limit if limit else ''}); nothing stored "
                             "(see 'arena bot check', or add it with --no-check)")
    return registry.add_bot(db, path, name=name, command=command, new_version=new_version,
                            games=seat.games if check else None)


# -- the schedule -------------------------------------------------------------------------------


# -- running ------------------------------------------------------------------------------------


def _check_same(stored: dict, settings: Settings, bot_ids: list[int] | None, gauntlet_id: int | None) -> None:
    name = stored["name"]
    seed = stored["seed"] if settings.seed is None else settings.seed  # none given: the stored one
    want = {"seed": seed, "variant": settings.variant, "format": settings.format,
            "partners": settings.partners, "boards": settings.boards, "game": settings.game}
    for key, value in want.items():
        if stored[key] != value:
            raise ArenaError(f"tournament '{name}' exists with {key}={stored[key]!r}, not {value!r}: "
                             f"run with --resume {name} to continue it, or choose another --name")
    kept = stored["settings"]
    # (a tournament stored before the tempo option was played at the free tempo)
    if "time_control" in kept and {"tempo": "free", **kept["time_control"]} != dataclasses.asdict(settings.time_control):
        raise ArenaError(f"tournament '{name}' exists with other time limits ({kept['time_control']}): "
                         f"run with --resume {name} to continue it, or choose another --name")
    if bot_ids is not None and sorted(bot_ids) != sorted(b["id"] for b in stored["bots"]):
        raise ArenaError(f"tournament '{name}' exists with other bots: run with --resume {name} to continue "
                         "it, or choose another --name")
    if stored["settings"].get("gauntlet") != gauntlet_id:
        raise ArenaError(f"tournament '{name}' exists with another --gauntlet setting")
    plan = stored["settings"].get("pairing")
    if (plan or {}).get("system", "roundrobin") != settings.pairing or (
            plan is not None and settings.rounds is not None and plan["rounds"] != settings.rounds):
        raise ArenaError(f"tournament '{name}' exists with other --pairing/--rounds: run with --resume {name} "
                         "to continue it, or choose another --name")


RESUME_FIXED = ("boards", "variant", "game", "seed", "format", "partners", "gauntlet", "move_ms", "bank_ms", "pairing", "rounds", "players")
"""What decides a tournament's results: a resume plays on with the stored values, never others."""


def refuse_changes(name: str, given: Sequence[str]) -> None:
    """A resume given options it cannot change: one line naming them."""
    fixed = [f"--{g.replace('_', '-')}" for g in RESUME_FIXED if g in given]
    if fixed:
        raise ArenaError(f"--resume {name} plays on with its stored settings: {', '.join(fixed)} cannot change "
                         "(start a new tournament with another --name for other settings)")


def prepare(db: sqlite_utils.Database, name: str, bot_specs: Sequence[str] | None, settings: Settings | None,
            *, sandbox: str = "none") -> int:
    """Create the tournament, or find it for a resume; returns its id.

    With `bot_specs` and `settings` None, the tournament must exist (`--resume NAME`). A new
    tournament without a seed gets a random one, said in one line on stderr (and stored); a
    guessable one chosen by hand is warned of in one line.
    """
    existing = {t["name"] for t in read.list_tournaments(db)}
    if bot_specs is None or settings is None:
        if name not in existing:
            raise ArenaError(f"no tournament '{name}' to resume (known: {', '.join(sorted(existing)) or 'none yet'})")
        return read.get_tournament(db, name)["id"]
    bots = resolve_bots(db, bot_specs, settings.game)
    ids = [b["id"] for b in bots]
    gauntlet_id = None
    if settings.gauntlet:
        gauntlet_id = resolve_bots(db, [settings.gauntlet], settings.game)[0]["id"]
        if gauntlet_id not in ids:
            ids.append(gauntlet_id)
    if name in existing:
        stored = read.get_tournament(db, name)
        _check_same(stored, settings, ids, gauntlet_id)
        return stored["id"]
    layout = games.game(settings.game).layout(settings.engine_variant)
    for row in bots:
        bot_command(row)  # a bot that cannot be started is refused before anything is stored
    if settings.pairing != "swiss":  # (refused at once if there are too few bots)
        matches = (pairings(ids, settings.partners, gauntlet_id) if two_teams(layout)
                   else pairings(ids, "mixed", gauntlet_id, size) if settings.partners == "mixed"
                   and (size := mixed_sides(layout)) is not None
                   else groups(ids, layout.num_sides, gauntlet_id))
    elif len(ids) < (table := layout.num_sides):
        raise ArenaError(f"--pairing swiss: a table of {table} needs at least {table} bots, got {len(ids)}")
    if settings.seed is None:
        seed = seeds.draw_master_seed()
        sys.stderr.write(f"arena: tournament '{name}': master seed {seed} (drawn at random, stored; "
                         f"--seed {seed} replays its deals)\n")
    else:
        seed = settings.seed
        if (warning := seeds.guessable_warning(seed)) is not None:
            sys.stderr.write(warning + "\n")
    stored_settings = {"gauntlet": gauntlet_id, "time_control": dataclasses.asdict(settings.time_control),
                       "sandbox": sandbox}
    if settings.pairing == "swiss":  # round 1 now, each next one when the one before is stored
        matches, bye = swiss.first_round(ids, seed, alone=not two_teams(layout), size=layout.num_sides)
        stored_settings["pairing"] = {"system": "swiss", "rounds": settings.rounds or swiss.default_rounds(len(ids)),
                                      "drawn": [len(matches)], "byes": [bye]}
    return write.create_tournament(
        db, name, seed=seed, variant=settings.variant, format=settings.format,
        partners=settings.partners, boards=settings.boards, settings=stored_settings,
        bot_ids=ids, matches=matches, game=settings.game)


async def run(db: sqlite_utils.Database, tid: int, **options: Any) -> dict:
    """Play the tournament to its end (`play`), a Swiss one round after round (each drawn from
    the stored results of the rounds before, arena.tournaments.swiss); returns the tournament."""
    while True:
        t = await play(db, tid, **options)
        if not swiss.next_round(db, tid):
            return t


async def play(db: sqlite_utils.Database, tid: int, *, concurrency: int | None = None, processes: int | None = None,
              sandbox: str = "none", limits: Limits | None = None, progress: Progress | None = None,
              on_room: Callable[[Room, list[int]], None] | None = None,
              shard_reports: list[dict] | None = None, rate: bool = True, cluster: str | None = None) -> dict:
    """Play every room of the tournament's schedule that is not stored yet, then rate; returns
    the tournament.

    `concurrency` rooms play at once (default: one per core), as many more start or stop their
    bots meanwhile (arena.play.room.play_rooms). They are spread over `processes` arena processes
    (default: one per core, at most one per playing room): this one and its shards
    (arena.tournaments.shard), each taking a new room whenever it has a place free. With one process per
    core, each is pinned to its own. This task is the only writer: it holds the tournament's run
    lock (arena.results.lock), and a second run is refused at once. A finished tournament is
    returned untouched. The shards also fit their share of the ratings' bootstrap.
    `shard_reports` collects what each shard says when it ends (its peak memory and CPU time).
    `rate=False` leaves the ratings alone (an SPRT test plays a batch of boards at a time and
    rates once, at its end). With `cluster` (`local:N` or a Dask scheduler's address) the rooms
    are played there instead (arena.tournaments.cluster), `sandbox` being the unresolved
    `--sandbox` option that each worker resolves; this process still stores every room.
    """
    progress = progress if progress is not None else Silent()
    with run_lock(db_path(db), tid, read.get_tournament(db, tid)["name"]):
        if cluster is not None:
            return await _run_on_cluster(db, tid, cluster, sandbox=sandbox, limits=limits, progress=progress,
                                         on_room=on_room)
        return await _run(db, tid, concurrency=concurrency, processes=processes, sandbox=sandbox, limits=limits,
                          progress=progress, on_room=on_room, shard_reports=shard_reports, rate=rate)


async def _run(db: sqlite_utils.Database, tid: int, *, concurrency: int | None, processes: int | None,
               sandbox: str, limits: Limits | None, progress: Progress,
               on_room: Callable[[Room, list[int]], None] | None, shard_reports: list[dict] | None,
               rate: bool) -> dict:
    t = read.get_tournament(db, tid)
    g = games.game(t["game"])
    layout = g.layout(g.variant(t["variant"]))
    matches = [m["entrants"] for m in read.schedule(db, tid)]
    done = read.done_tables(db, tid)
    todo = rooms(matches, t["boards"], layout, done)
    per_match = len(matches[0]) if matches else 2  # rooms: as many as a match has entrants
    progress.on_start(len(matches) * t["boards"] * per_match, done, todo, per_match)
    if not todo and t["status"] == "finished":
        return t  # re-running a finished tournament changes nothing
    sweep_orphans()  # bots a killed arena may have left behind
    job = Job(name=t["name"], seed=t["seed"], variant=t["variant"], format=t["format"],
              commands={b["id"]: bot_command(registry.get_bot(db, b["id"])) for b in t["bots"]},
              time_control=TimeControl(**t["settings"].get("time_control", {})), sandbox=sandbox, limits=limits,
              live=None if (path := db_path(db)) is None else str(live.folder(path, tid)), game=t["game"])
    if job.live is not None:
        live.clear(job.live)  # what a killed run's rooms left
    concurrency = max(1, concurrency or os.cpu_count() or 1)
    cpus = sorted(os.sched_getaffinity(0))
    # by default one per core, but no more than can play rooms with no bot in common (Placement)
    processes = max(1, min(processes or apart(todo, len(cpus)), concurrency, max(len(todo), 1)))
    playing = [concurrency // processes + (k < concurrency % processes) for k in range(processes)]
    pinned = processes == len(cpus) > 1
    write.set_status(db, tid, "running")
    write.note_sandbox(db, tid, sandbox, label(sandbox))  # a resumed run may use another one

    store = _storer(db, t, progress, on_room)
    finished = False
    affinity = os.sched_getaffinity(0)
    try:
        async with AsyncExitStack() as stack:
            shards = [await stack.enter_async_context(open_shard(
                index=k, count=processes, cpu=cpus[k] if pinned else None)) for k in range(1, processes)]
            resolve_mode(sandbox)  # its trial, once for every process, while the shards import
            if pinned:
                pin(cpus[0])  # this process and the fork server it starts
            scheduler.use(scheduler.share(processes))  # its share of the cores for bots, as each shard's
            placement = Placement(todo, store)  # a bot's rooms in flight in one process at a time
            async with trio.open_nursery() as nursery:
                for k in range(processes):
                    send, receive = trio.open_memory_channel[Room](0)
                    nursery.start_soon(placement.feed, k, send)
                    if k:
                        nursery.start_soon(shards[k - 1].play, job, receive, playing[k], placement.store)
                    else:
                        nursery.start_soon(play_rooms, job, receive, playing[0], placement.store)
            if rate:
                inputs = read.rating_inputs(db, tid)
                samples = await shared_bootstrap(inputs, shards)
                write.compute_and_store_ratings(db, tid, samples=samples, inputs=inputs)
        if shard_reports is not None:
            shard_reports.extend(shard.report for shard in shards)
        finished = True
    finally:
        os.sched_setaffinity(0, affinity)
        with trio.CancelScope(shield=True):
            write.set_status(db, tid, "finished" if finished else "interrupted")
    progress.on_end()
    return read.get_tournament(db, tid)


async def _run_on_cluster(db: sqlite_utils.Database, tid: int, spec: str, *, sandbox: str | None,
                          limits: Limits | None, progress: Progress,
                          on_room: Callable[[Room, list[int]], None] | None) -> dict:
    """`run` with the rooms played as Dask tasks; stored here, as they come, exactly as locally."""
    from arena.tournaments import cluster  # Dask only when asked for

    t = read.get_tournament(db, tid)
    sweep_orphans()
    g = games.game(t["game"])
    layout = g.layout(g.variant(t["variant"]))
    matches = [m["entrants"] for m in read.schedule(db, tid)]
    bots = [registry.get_bot(db, b["id"]) for b in t["bots"]]
    for row in bots:
        if not Path(row["path"]).exists():
            raise ArenaError(f"the stored copy of bot {row['name']}@{row['version']} is missing: {row['path']}")
    done = read.done_tables(db, tid)
    todo = rooms(matches, t["boards"], layout, done)
    per_match = len(matches[0]) if matches else 2
    progress.on_start(len(matches) * t["boards"] * per_match, done, todo, per_match)
    write.set_status(db, tid, "running")
    store = _storer(db, t, progress, on_room)
    modes: set[str] = set()

    def on_mode(mode: str, named: str) -> None:
        if named not in modes:
            modes.add(named)
            write.note_sandbox(db, tid, mode, named)

    inputs: dict = {}

    def rating_inputs() -> dict:
        inputs.update(read.rating_inputs(db, tid))
        return inputs

    finished = False
    try:
        samples = await cluster.play(spec, cluster.job_data(t, bots, sandbox, limits), todo, store, on_mode,
                                     rating_inputs=rating_inputs, bootstrap=read.BOOTSTRAP)
        write.compute_and_store_ratings(db, tid, samples=samples, inputs=inputs)
        finished = True
    finally:
        with trio.CancelScope(shield=True):
            write.set_status(db, tid, "finished" if finished else "interrupted")
    progress.on_end()
    return read.get_tournament(db, tid)


def _storer(db: sqlite_utils.Database, t: dict, progress: Progress,
            on_room: Callable[[Room, list[int]], None] | None) -> Callable[[Room, list[int], list[dict]], Any]:
    """The one writer's `store`: the boards handed on (one, as a room plays; a room's, from a
    cluster) in one transaction, then progress and `on_room`."""
    tid = t["id"]

    async def store(room: Room, boards: list[int], records: list[dict]) -> None:
        with storage_transaction(db):
            for board_no, record in zip(boards, records):
                for seat in record["seats"]:
                    seat["bot_id"] = room.seats[seat["seat"]]
                write.record_table(db, tid, room.match_no, board_no, room.swapped,
                                     board_seed(t["seed"], board_no), record)
        progress.on_stored(room, boards, records)
        if on_room is not None:
            on_room(room, boards)

    return store


async def shared_bootstrap(inputs: dict, shards: Sequence[Shard], bootstrap: int = read.BOOTSTRAP,
                           seed: int = 0) -> list[list[float]]:
    """The ratings' bootstrap fits, shared between this process and the shards (each fits a
    stretch of the one seeded sequence; joined, they are the fits one process would make). A
    one-step bootstrap (big pools, `ratings.Pool`) is made here alone: each shard would build the
    pool again, which costs more than the resamples."""
    pool = read.rating_pool(inputs)
    if pool.bootstrap_method == ratings.ONE_STEP:
        return pool.samples(seed, 0, bootstrap)
    parts = len(shards) + 1
    bounds = [bootstrap * i // parts for i in range(parts + 1)]
    for k, shard in enumerate(shards, start=1):
        await shard.ask_bootstrap(inputs, seed, bounds[k], bounds[k + 1])
    samples = pool.samples(seed, 0, bounds[1])
    for shard in shards:
        samples += await shard.bootstrap_samples()
    return samples


def storage_transaction(db: sqlite_utils.Database) -> Any:
    """The boards of one `store` land together (each a board whose play has ended)."""
    return db.atomic()


