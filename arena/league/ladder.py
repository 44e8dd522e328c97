"""The ladder: duplicate matches among the league's active bots, forever.

One task starts matches while a place is free (`concurrency` matches at once, each playing its
rooms side by side): first the matches a stopped or killed server left unfinished (their
missing boards only), then whatever `pairing.next_group` asks for: a new version's first
matches, afterwards the pair whose order is least certain. The league plays one game (its
tournament's): a match is two teams of two copies where the game has partnerships (two rooms),
else k entrants of one bot a seat (k rooms, room r rotating them by r seats). A room's boards are stored in one
transaction as the room ends (as a tournament stores them), so a server killed at any moment
loses at most the rooms in play, which the next start plays again from their first missing
board; nothing is counted twice (the tables' UNIQUE key says so too). After each stored room
the ratings are fitted again in a process of their own (the rooms that land meanwhile wait for
the next fit, at most one every `RATE_EVERY_S`); that process also reads the league page's
document and the standings document after its fit, so that the server's event loop never
reads more than a few rows, and `on_rated` gets both.

With `cluster` (`arena league serve --cluster ADDR`) the rooms play as Dask tasks on its workers
(arena.tournaments.cluster, one client for the server's life) and come back here to be stored
in the same way: the server stays the database's one writer.
"""

from __future__ import annotations

import dataclasses
import json
import os
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlite_utils
import trio

import games
from arena.errors import ArenaError
from arena.league import pairing, store
from arena.play import seeds
from arena.play.live import room_label
from arena.play.room import Job, Room, play_room
from arena.play.table import TimeControl
from arena.process import forking
from arena.process.command import Limits
from arena.process.lifecycle import sweep_orphans
from arena.process.modes import label, resolve_mode
from arena.results import live, read, registry, schema, write
from arena.results.lock import run_lock
from arena.results.schema import db_path
from arena.tournaments.commands import bot_command
from arena.tournaments.schedule import room_seats, two_teams


@dataclass
class InPlay:
    match_no: int
    bots: tuple[int, ...]  # in entrant order
    boards: int  # boards of the match
    tables: int = 0  # tables stored (a room's a board)
    started: float = field(default_factory=time.time)
    resumed: bool = False


class Ladder:
    def __init__(self, db: sqlite_utils.Database, tid: int, *, sandbox: str = "auto", concurrency: int | None = None,
                 time_control: TimeControl = TimeControl(), limits: Limits | None = None, first: int = 2,
                 on_rated: Callable[[dict], None] | None = None, rate: bool = True,
                 log: Callable[[str], None] | None = None, cluster: str | None = None) -> None:
        self.db = db
        self.tid = tid
        self.sandbox = sandbox  # with a cluster, the option each worker resolves itself
        self.concurrency = concurrency  # None: one a two cores here, or what keeps the cluster's workers busy
        self.cluster = cluster
        self._client: Any = None
        self._modes: set[str] = set()
        self._left: list[dict] = []  # matches to play again from their first missing board
        self.time_control = time_control
        self.limits = limits
        self.first = first
        self.on_rated = on_rated
        self.rate = rate
        self.log = log or (lambda line: None)  # one line per match started, room stored, fit made
        t = read.get_tournament(db, tid)
        self.name = t["name"]
        self.seed = t["seed"]
        self.variant = t["variant"]
        self.boards = t["boards"]
        self.game = games.game(t["game"])
        self.format = t["format"]
        self.layout = self.game.layout(self.game.variant(self.variant))
        self.teams = two_teams(self.layout)  # two teams of two copies; else one bot a side
        self.size = 2 if self.teams else self.layout.num_sides  # entrants a match
        self.playing: dict[int, InPlay] = {}
        self.deals = 0  # deals stored by this run
        self.rooms = 0  # rooms stored by this run
        self._changed = trio.Event()
        self._dirty = trio.Event()
        self.ratings: dict[int, pairing.Rated] = {}

    # -- what others call ------------------------------------------------------------------

    def poke(self) -> None:
        """The pool changed (a submission, a retirement): look for a match again, and draw the
        standings again."""
        self._changed.set()
        self._dirty.set()

    async def run(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Play until cancelled, holding the league's run lock (a second server is refused)."""
        with run_lock(db_path(self.db), self.tid, self.name):
            sweep_orphans()  # bots a killed server may have left behind
            write.set_status(self.db, self.tid, "running")
            try:
                async with self._field(), trio.open_nursery() as nursery:
                    self._read_ratings()
                    if self.rate:
                        nursery.start_soon(self._rating_loop)
                    task_status.started()
                    await self._schedule(nursery)
            finally:
                with trio.CancelScope(shield=True):
                    write.set_status(self.db, self.tid, "interrupted")

    @asynccontextmanager
    async def _field(self) -> AsyncIterator[None]:
        """Where the rooms play: here, from the sandbox's fork server; or on the cluster, one
        client for as long as the ladder runs."""
        if self.cluster is None:
            self.sandbox = resolve_mode(self.sandbox)
            write.note_sandbox(self.db, self.tid, self.sandbox, label(self.sandbox))
            self.concurrency = max(1, self.concurrency or (os.cpu_count() or 2) // 2)
            async with forking.serving(self.sandbox):
                yield
            return
        from arena.tournaments import cluster  # Dask only when asked for

        async with cluster.connected(self.cluster) as client:
            workers = await trio.to_thread.run_sync(lambda: client.scheduler_info(n_workers=-1)["workers"])
            self.concurrency = max(1, self.concurrency or cluster_places(workers))
            self._client = client
            self.log(f"cluster {self.cluster}: {len(workers)} workers, "
                     f"{sum(w['nthreads'] for w in workers.values())} threads; {self.concurrency} matches at once")
            try:
                yield
            finally:
                self._client = None

    # -- scheduling ------------------------------------------------------------------------

    async def _schedule(self, nursery: trio.Nursery) -> None:
        places = trio.Semaphore(self.concurrency)
        left = self._left
        left.extend(store.unfinished_matches(self.db, self.tid, self.boards))
        while True:
            await places.acquire()
            while True:
                if left:
                    m = left.pop(0)
                    match = InPlay(m["match_no"], tuple(m["bots"]), self.boards, resumed=True)
                    break
                pick = self._pick()
                if pick is not None:
                    match = InPlay(store.add_match(self.db, self.tid, *pick, teams=self.teams), pick, self.boards)
                    break
                self._changed = trio.Event()
                await self._changed.wait()
            self.playing[match.match_no] = match
            self.log(f"match {match.match_no} {'resumed' if match.resumed else 'started'}: "
                     f"{' v '.join(map(self._label, match.bots))}")
            nursery.start_soon(self._play, match, places)

    def _label(self, bot: int) -> str:
        row = registry.get_bot(self.db, bot)
        return f"{row['name']}@{row['version']}"

    def _pick(self) -> tuple[int, ...] | None:
        active = [b["id"] for b in store.active_bots(self.db)]
        pairs, matches_of = store.pair_counts(self.db, self.tid)
        rooms = 2 if self.teams else self.size
        for m in self.playing.values():  # a match in play counts as played
            for i, a in enumerate(m.bots):
                for b in m.bots[i + 1:]:
                    key = frozenset((a, b))
                    pairs[key] = pairs.get(key, 0) + m.boards - m.tables // rooms
        return pairing.next_group(active, self.ratings, pairs, matches_of, boards=self.boards, first=self.first,
                                  size=self.size)

    def waiting(self) -> list[int]:
        """Active bots still short of their first matches, the longest waiting first."""
        _pairs, matches_of = store.pair_counts(self.db, self.tid)
        return [b["id"] for b in store.active_bots(self.db) if matches_of.get(b["id"], 0) < self.first]

    # -- playing ---------------------------------------------------------------------------

    async def _play(self, match: InPlay, places: trio.Semaphore) -> None:
        try:
            done = read.done_tables(self.db, self.tid)
            match.tables = sum(1 for (no, _b, _s) in done if no == match.match_no)
            rooms = []
            for room, seats in enumerate(room_seats(store.entrants_of(match.bots, self.teams), self.layout)):
                todo = tuple(b for b in store.match_boards(match.match_no, self.boards)
                             if (match.match_no, b, room) not in done)
                if todo:
                    rooms.append(Room(match.match_no, room, tuple(seats), todo))
            if self._client is not None:
                await self._play_on_cluster(match, rooms)
                return
            commands = {bot: bot_command(registry.get_bot(self.db, bot)) for bot in set(match.bots)}
            job = Job(name=self.name, seed=self.seed, variant=self.variant, format=self.format, commands=commands,
                      time_control=self.time_control, sandbox=self.sandbox, limits=self.limits,
                      game=self.game.info.name, live=str(live.folder(db_path(self.db), self.tid)))  # (the pages' watch)
            v = self.game.variant(self.variant)
            async with trio.open_nursery() as nursery:
                for room in rooms:
                    nursery.start_soon(play_room, job, v, room, self._store)
        finally:
            self.playing.pop(match.match_no, None)
            places.release()

    async def _play_on_cluster(self, match: InPlay, rooms: list[Room]) -> None:
        """The match's rooms as Dask tasks, stored here as each ends. A room the cluster could
        not play (no worker running, a worker that cannot confine bots) is one line on stderr, and
        the match plays its missing boards again `RETRY_S` later: workers come and go, the
        ladder stays."""
        from arena.tournaments import cluster

        bots = [registry.get_bot(self.db, bot) for bot in dict.fromkeys(match.bots)]
        job = cluster.job_data(read.get_tournament(self.db, self.tid), bots, self.sandbox, self.limits)
        job["time_control"] = dataclasses.asdict(self.time_control)
        try:
            await cluster.play(self.cluster, job, rooms, self._store, self._on_mode, client=self._client)
        except ArenaError as exc:
            print(f"arena: league: match {match.match_no}: {exc}; it plays on in {RETRY_S:.0f} s",
                  file=sys.stderr, flush=True)
            await trio.sleep(RETRY_S)
            self._left.append({"match_no": match.match_no, "bots": list(match.bots)})
            self._changed.set()

    def _on_mode(self, mode: str, named: str) -> None:
        """A worker's sandbox mode and its label there, recorded once (the tournament's
        settings.sandboxes and sandbox_labels)."""
        if named not in self._modes:
            self._modes.add(named)
            with store.writing(self.db):
                write.note_sandbox(self.db, self.tid, mode, named)

    async def _store(self, room: Room, boards: list[int], records: list[dict]) -> None:
        with store.writing(self.db):
            for board_no, record in zip(boards, records):
                for seat in record["seats"]:
                    seat["bot_id"] = room.seats[seat["seat"]]
                write.record_table(self.db, self.tid, room.match_no, board_no, room.swapped,
                                   seeds.board_seed(self.seed, board_no), record)
        if room.match_no in self.playing:
            self.playing[room.match_no].tables += len(records)
        self.deals += sum(len(r["deals"]) for r in records)
        self.rooms += 1
        self.log(f"room stored: match {room.match_no} {room_label(room.swapped)}, "
                 f"{len(records)} boards")
        self._dirty.set()

    # -- ratings ---------------------------------------------------------------------------

    def _read_ratings(self) -> None:
        """The pairing's view of the standings (stored ratings; unrated until the first fit)."""
        self.ratings = {row["bot_id"]: pairing.Rated(row["elo"], row["ci_low"], row["ci_high"])
                        for row in self.db.query(
                            "SELECT bot_id, elo, ci_low, ci_high FROM ratings WHERE tournament_id = ?"
                            " AND errors = 'pool'", [self.tid])}

    async def _rating_loop(self) -> None:
        """Fit again whenever rooms were stored since the last fit, at most every `RATE_EVERY_S`.
        The fit runs in a process of its own (`python -m arena.league.ladder DB TID`): in a
        thread it would hold the interpreter's lock for seconds, and every page and every bot's
        reply waits on the event loop; its own connection commits the ratings."""
        path = db_path(self.db)
        self._dirty.set()  # once at the start: the stored ratings may be older than the boards
        while True:
            await self._dirty.wait()
            self._dirty = trio.Event()
            started = trio.current_time()
            done = await trio.run_process([sys.executable, "-m", "arena.league.ladder", str(path), str(self.tid)],
                                          capture_stdout=True, capture_stderr=True, check=False)
            if done.returncode == 0:
                fitted = json.loads(done.stdout)
                self._read_ratings()
                self.log(f"rated: {fitted['boards']} boards")
                if self.on_rated is not None:
                    self.on_rated(fitted)
            else:  # (busy past the timeout, say): fitted again after the next room
                tail = done.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["?"]
                print(f"arena: league: the ratings were not fitted ({tail[0]}); they are after the next room",
                      file=sys.stderr, flush=True)
            await trio.sleep_until(started + RATE_EVERY_S)


RATE_EVERY_S = 5.0
"""The least time between two fits of the ratings (rooms stored meanwhile wait for the next)."""
RETRY_S = 30.0
"""How long a match the cluster could not play waits before it plays on."""


def cluster_places(workers: dict[str, dict]) -> int:
    """Matches at once that keep a cluster's workers busy: a worker plays a room per two of its
    threads (arena.tournaments.cluster), a match is two rooms."""
    rooms = sum(max(1, w["nthreads"] // 2) for w in workers.values())
    return max(1, (rooms + 1) // 2)


def rate_league(path: Path, tid: int) -> dict:
    """Fit and store the league's ratings from its stored boards (with no boards there is
    nothing to fit); then the league page's document and the standings document, read at once."""
    from arena.league import pages

    db = schema.open_db(path, create=False)
    try:
        (boards,) = db.execute("SELECT COUNT(*) FROM boards b JOIN matches m ON m.id = b.match_id"
                               " WHERE m.tournament_id = ?", [tid]).fetchone()
        if boards:
            write.compute_and_store_ratings(db, tid)
        t = read.get_tournament(db, tid)
        return {"boards": boards, "league": pages.league_document(db, tid),
                "standings": read.standings_document(db, tid) if t["bots"] else None}
    finally:
        db.close()


if __name__ == "__main__":  # the fit's own process (Ladder._rating_loop)
    from arena.league.pages import dumps

    sys.stdout.write(dumps(rate_league(Path(sys.argv[1]), int(sys.argv[2]))))
