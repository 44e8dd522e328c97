"""Tournaments: seeded duplicate round-robin (or gauntlet) matches, played concurrently,
stored as they finish, resumable after any interruption.

Every board's seed derives only from the master seed and the board number, so every pairing
plays the same boards. A match is played in two rooms, as in duplicate bridge: in the straight
room team A holds side 0's cards, in the swapped room side 1's; each room has its own four bot
processes, which play the match's boards one after another. So a bot never sees a deal twice
and nothing crosses between the rooms, while a process is started per room, not per deal.

Rooms are played by this process and, on a machine with several cores, by shards (arena.tournaments.shard,
one arena process per core); every result comes back here. A room's boards are stored in one
transaction when the room ends, and a run skips the rooms that are stored; an interrupted
tournament (Ctrl-C, kill -9) therefore resumes with exactly the results an uninterrupted run
gives, even for bots that carry state from deal to deal. A fault forfeits the board being played
(protocol.md, "Faults"); the room's remaining boards are played by fresh processes.
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from collections.abc import Callable, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlite_utils
import trio

import engine
from arena.errors import ArenaError
from arena.play.room import GamePlan, Job, Room, RoomPlan, board_seed, play_rooms  # noqa: F401  (plans: also as tournament.*)
from arena.play.table import TimeControl
from arena.process.command import SCRIPT_SUFFIXES, Limits
from arena.process.lifecycle import sweep_orphans
from arena.process.modes import resolve_mode
from arena.results import ratings, read, registry, write
from arena.results.schema import FORMATS, PARTNERS
from arena.tournaments.commands import FOLDER_ENTRY_POINTS, bot_command  # noqa: F401  (also as runner.*)
from arena.tournaments import swiss
from arena.tournaments.schedule import pairings, rooms
from arena.tournaments.shard import Shard, open_shard, pin


PAIRINGS = ("roundrobin", "swiss")


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
    pairing: str = "roundrobin"  # or "swiss" (arena.tournaments.swiss), with `rounds`
    rounds: int | None = None  # Swiss rounds (None: swiss.default_rounds)

    def __post_init__(self) -> None:
        if type(self.boards) is not int or self.boards < 1:
            raise ArenaError(f"--boards must be at least 1, got {self.boards!r}")
        if type(self.seed) is not int or not 0 <= self.seed < 2**64:
            raise ArenaError(f"--seed must be an integer from 0 to 2**64-1, got {self.seed!r}")
        if self.format not in FORMATS:
            raise ArenaError(f"--format must be one of {', '.join(FORMATS)}, not {self.format!r}")
        if self.partners not in PARTNERS:
            raise ArenaError(f"--partners must be one of {', '.join(PARTNERS)}, not {self.partners!r}")
        if self.pairing not in PAIRINGS:
            raise ArenaError(f"--pairing must be one of {', '.join(PAIRINGS)}, not {self.pairing!r}")
        if self.pairing == "swiss" and (self.partners != "clone" or self.gauntlet):
            raise ArenaError("--pairing swiss pairs bots one against one: use it with --partners clone, no --gauntlet")
        if self.rounds is not None and (self.pairing != "swiss" or type(self.rounds) is not int or self.rounds < 1):
            raise ArenaError(f"--rounds is for --pairing swiss and must be at least 1, got {self.rounds!r}")
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
            rows.append(registry.add_bot(db, path))
        else:
            if os.sep in spec or spec.endswith(SCRIPT_SUFFIXES):
                raise ArenaError(f"no bot file at {spec}")
            rows.append(registry.get_bot(db, spec))
    ids = [r["id"] for r in rows]
    if len(set(ids)) != len(ids):
        raise ArenaError("the same bot is named twice")
    return rows


# -- the schedule -------------------------------------------------------------------------------


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
    plan = stored["settings"].get("pairing")
    if (plan or {}).get("system", "roundrobin") != settings.pairing or (
            plan is not None and settings.rounds is not None and plan["rounds"] != settings.rounds):
        raise ArenaError(f"tournament '{name}' exists with other --pairing/--rounds: run with --resume {name} "
                         "to continue it, or choose another --name")


def prepare(db: sqlite_utils.Database, name: str, bot_specs: Sequence[str] | None, settings: Settings | None,
            *, sandbox: str = "none") -> int:
    """Create the tournament, or find it for a resume; returns its id.

    With `bot_specs` and `settings` None, the tournament must exist (`--resume NAME`).
    """
    existing = {t["name"] for t in read.list_tournaments(db)}
    if bot_specs is None or settings is None:
        if name not in existing:
            raise ArenaError(f"no tournament '{name}' to resume (known: {', '.join(sorted(existing)) or 'none yet'})")
        return read.get_tournament(db, name)["id"]
    bots = resolve_bots(db, bot_specs)
    ids = [b["id"] for b in bots]
    gauntlet_id = None
    if settings.gauntlet:
        gauntlet_id = resolve_bots(db, [settings.gauntlet])[0]["id"]
        if gauntlet_id not in ids:
            ids.append(gauntlet_id)
    if name in existing:
        stored = read.get_tournament(db, name)
        _check_same(stored, settings, ids, gauntlet_id)
        return stored["id"]
    v = settings.engine_variant
    if v.players != 4:
        raise ArenaError(f"--variant: tournaments are played 2 v 2 by 4 players, not {v.players}")
    for row in bots:
        bot_command(row)  # a bot that cannot be started is refused before anything is stored
    stored_settings = {"gauntlet": gauntlet_id, "time_control": dataclasses.asdict(settings.time_control),
                       "sandbox": sandbox, "elo_k": settings.elo_k}
    if settings.pairing == "swiss":  # round 1 now, each next one when the one before is stored
        matches, bye = swiss.first_round(ids, settings.seed)
        stored_settings["pairing"] = {"system": "swiss", "rounds": settings.rounds or swiss.default_rounds(len(ids)),
                                      "drawn": [len(matches)], "byes": [bye]}
    else:
        matches = pairings(ids, settings.partners, gauntlet_id)
    return write.create_tournament(
        db, name, seed=settings.seed, variant=settings.variant, format=settings.format,
        partners=settings.partners, boards=settings.boards, settings=stored_settings,
        bot_ids=ids, matches=matches)


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
              shard_reports: list[dict] | None = None, cluster: str | None = None) -> dict:
    """Play every room of the tournament's schedule that is not stored yet, then rate; returns
    the tournament.

    `concurrency` rooms play at once (default: one per core), as many more start or stop their
    bots meanwhile (arena.play.room.play_rooms). They are spread over `processes` arena processes
    (default: one per core, at most one per playing room): this one and its shards
    (arena.tournaments.shard), each taking a new room whenever it has a place free. With one process per
    core, each is pinned to its own. This task is the only writer. The shards also fit their
    share of the ratings' bootstrap. `shard_reports` collects what each shard says when it ends
    (its peak memory and CPU time). With `cluster` (`local:N` or a Dask scheduler's address) the
    rooms are played there instead (arena.tournaments.cluster), `sandbox` being the unresolved
    `--sandbox` option that each worker resolves; this process still stores every room.
    """
    if cluster is not None:
        return await _run_on_cluster(db, tid, cluster, sandbox=sandbox, limits=limits, progress=progress,
                                     on_room=on_room)
    t = read.get_tournament(db, tid)
    sweep_orphans()  # bots a killed arena may have left behind
    v = engine.variant(t["variant"])
    matches = [(m["team_a"], m["team_b"]) for m in read.schedule(db, tid)]
    job = Job(name=t["name"], seed=t["seed"], variant=t["variant"], format=t["format"],
              commands={b["id"]: bot_command(registry.get_bot(db, b["id"])) for b in t["bots"]},
              time_control=TimeControl(**t["settings"].get("time_control", {})), sandbox=sandbox, limits=limits)
    done = read.done_tables(db, tid)
    todo = rooms(matches, t["boards"], v.players, done)
    concurrency = max(1, concurrency or os.cpu_count() or 1)
    cpus = sorted(os.sched_getaffinity(0))
    processes = max(1, min(processes or len(cpus), concurrency, max(len(todo), 1)))
    playing = [concurrency // processes + (k < concurrency % processes) for k in range(processes)]
    pinned = processes == len(cpus) > 1
    if progress is not None:
        progress.tables_total = len(matches) * t["boards"] * 2
        progress.tables_done = len(done)
    write.set_status(db, tid, "running")
    write.note_sandbox(db, tid, sandbox)  # a resumed run may use another one

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
            send, receive = trio.open_memory_channel[Room](0)
            async with trio.open_nursery() as nursery:
                for k, shard in enumerate(shards, start=1):
                    nursery.start_soon(shard.play, job, receive.clone(), playing[k], store)
                nursery.start_soon(play_rooms, job, receive, playing[0], store)
                async with send:
                    for room in todo:
                        await send.send(room)
            inputs = read.rating_inputs(db, tid)
            samples = await shared_bootstrap(inputs, shards)
            write.compute_and_store_ratings(db, tid, k=t["settings"].get("elo_k", 16.0), samples=samples,
                                              inputs=inputs)
        if shard_reports is not None:
            shard_reports.extend(shard.report for shard in shards)
        finished = True
    finally:
        os.sched_setaffinity(0, affinity)
        with trio.CancelScope(shield=True):
            write.set_status(db, tid, "finished" if finished else "interrupted")
    if progress is not None:
        progress.show(final=True)
    return read.get_tournament(db, tid)


async def _run_on_cluster(db: sqlite_utils.Database, tid: int, spec: str, *, sandbox: str | None,
                          limits: Limits | None, progress: Progress | None,
                          on_room: Callable[[Room, list[int]], None] | None) -> dict:
    """`run` with the rooms played as Dask tasks; stored here, as they come, exactly as locally."""
    from arena.tournaments import cluster  # Dask only when asked for

    t = read.get_tournament(db, tid)
    sweep_orphans()
    v = engine.variant(t["variant"])
    matches = [(m["team_a"], m["team_b"]) for m in read.schedule(db, tid)]
    bots = [registry.get_bot(db, b["id"]) for b in t["bots"]]
    for row in bots:
        if not Path(row["path"]).exists():
            raise ArenaError(f"the stored copy of bot {row['name']}@{row['version']} is missing: {row['path']}")
    done = read.done_tables(db, tid)
    todo = rooms(matches, t["boards"], v.players, done)
    if progress is not None:
        progress.tables_total = len(matches) * t["boards"] * 2
        progress.tables_done = len(done)
    write.set_status(db, tid, "running")
    store = _storer(db, t, progress, on_room)
    modes: set[str] = set()

    def on_mode(mode: str) -> None:
        if mode not in modes:
            modes.add(mode)
            write.note_sandbox(db, tid, mode)

    inputs: dict = {}

    def rating_inputs() -> dict:
        inputs.update(read.rating_inputs(db, tid))
        return inputs

    finished = False
    try:
        samples = await cluster.play(spec, cluster.job_data(t, bots, sandbox, limits), todo, store, on_mode,
                                     rating_inputs=rating_inputs, bootstrap=read.BOOTSTRAP)
        write.compute_and_store_ratings(db, tid, k=t["settings"].get("elo_k", 16.0), samples=samples,
                                          inputs=inputs)
        finished = True
    finally:
        with trio.CancelScope(shield=True):
            write.set_status(db, tid, "finished" if finished else "interrupted")
    if progress is not None:
        progress.show(final=True)
    return read.get_tournament(db, tid)


def _storer(db: sqlite_utils.Database, t: dict, progress: Progress | None,
            on_room: Callable[[Room, list[int]], None] | None) -> Callable[[Room, list[int], list[dict]], Any]:
    """The one writer's `store`: a room's boards in one transaction, then progress and `on_room`."""
    tid = t["id"]

    async def store(room: Room, boards: list[int], records: list[dict]) -> None:
        with storage_transaction(db):
            for board_no, record in zip(boards, records):
                for seat in record["seats"]:
                    seat["bot_id"] = room.seats[seat["seat"]]
                write.record_table(db, tid, room.match_no, board_no, room.swapped,
                                     board_seed(t["seed"], board_no), record)
        if progress is not None:
            progress.update(len(records), sum(len(r["deals"]) for r in records),
                            sum(r["forfeit"] is not None for r in records))
        if on_room is not None:
            on_room(room, boards)

    return store


async def shared_bootstrap(inputs: dict, shards: Sequence[Shard], bootstrap: int = read.BOOTSTRAP,
                           seed: int = 0) -> list[list[float]]:
    """The ratings' bootstrap fits, shared between this process and the shards (each fits a
    stretch of the one seeded sequence; joined, they are the fits one process would make)."""
    parts = len(shards) + 1
    bounds = [bootstrap * i // parts for i in range(parts + 1)]
    for k, shard in enumerate(shards, start=1):
        await shard.ask_bootstrap(inputs, seed, bounds[k], bounds[k + 1])
    samples = ratings.bootstrap_samples(inputs["results"], inputs["bots"], anchor=inputs["anchor"], seed=seed,
                                        start=0, stop=bounds[1])
    for shard in shards:
        samples += await shard.bootstrap_samples()
    return samples


def storage_transaction(db: sqlite_utils.Database) -> Any:
    """A room's boards land together: an interrupted room is replayed whole on resume."""
    return db.atomic()


