"""Shards: arena processes that play a tournament's rooms on cores of their own.

An arena process is one trio thread, and every move of every table passes through it (more than
a third of a tournament's CPU): while the bots spread over the cores, it cannot. On a machine
with several cores a tournament therefore runs one arena process per core (arena.tournaments.runner.run):
the tournament's own process plays rooms itself and starts the others, `python -m arena.tournaments.shard`.
Each has its own trio loop and fork server; with one process per core each is pinned to its
core, with the bots it starts, so that a move's wake-ups stay on one core. On the 2-core VM this
made the bench tournament 12% faster in the fork sandbox (92.8 -> 103.8 deals per second,
interleaved medians) and 10% in bwrap (63.1 -> 69.7); bench/README.md.

The tournament's process stays the only writer. Messages are msgpack maps, to a shard on its
stdin: "job" once (the `Job`, its share of the concurrency, its core; the sandbox mode's trial
was the tournament process's, so the shard skips its own), then a "room" whenever it has a
place free (so that the faster shard takes more), and "end", or instead "bootstrap" (a stretch
of the ratings' bootstrap to fit, after every room is played); from it on its stdout:
"records" (a room's table records as they are played; a room is done with its last board's),
"samples" (the bootstrap's fits) and "done" (its peak memory and CPU time). Its stderr is kept for the one-line error should it
die. A shard dies with the tournament's process (a parent-death signal) and stops at once when
its stdin ends without "end"; SIGTERM cancels it, shutting its bots down as in any cancelled run.
The rooms it was playing are then played again on resume, as any interrupted room.
"""

from __future__ import annotations

import ctypes
import functools
import os
import resource
import signal
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import msgpack
import trio

from arena.errors import ArenaError, leaves
from arena.play.room import Job, Room, Store, play_rooms
from arena.process import command, modes, sandbox, scheduler
from arena.protocol.messages import MAX_ARENA_MESSAGE
from arena.results import ratings

PR_SET_PDEATHSIG = 1
STOP_GRACE_S = 5.0
"""How long a cancelled shard may take to shut its bots down before it is killed."""


def pin(cpu: int | None) -> None:
    """Run this process, and all it starts from now on, on `cpu` (None: leave it as it is)."""
    if cpu is not None:
        os.sched_setaffinity(0, {cpu})


def _pack(message: dict[str, Any]) -> bytes:
    return msgpack.packb(message, use_bin_type=True)


class _Reader:
    """Whole messages from a stream; None at its end."""

    def __init__(self, stream: trio.abc.ReceiveStream) -> None:
        self.stream = stream
        self.unpacker = msgpack.Unpacker(raw=False, strict_map_key=False, max_buffer_size=MAX_ARENA_MESSAGE)

    async def next(self) -> dict[str, Any] | None:
        while True:
            try:
                return self.unpacker.unpack()
            except msgpack.OutOfData:
                pass
            if not (data := await self.stream.receive_some(1 << 16)):
                return None
            self.unpacker.feed(data)


# -- the tournament's side ----------------------------------------------------------------------


class Placement:
    """Which arena process each room goes to, so that a bot's rooms are in flight in one arena
    process at a time: a room is handed to process k only when none of its bots has a room
    started and not yet stored (its last board's records, sent once its processes are gone) in
    another. Within a process the move scheduler keeps two processes of a bot from running at
    once (arena.process.scheduler); across processes this keeps them from being in flight at
    once at all, so that no process of a bot runs beside another of that bot anywhere in the run
    (docs/hostile.md, Scheduling). Rooms are handed out in their order, skipping those whose bots
    are elsewhere."""

    def __init__(self, rooms: Sequence[Room], store: Store) -> None:
        self.todo = list(rooms)
        self._store = store
        self._owner: dict[int, int] = {}  # bot id -> the process its rooms are in flight in
        self._rooms: dict[int, int] = {}  # bot id -> how many
        self._changed = trio.Event()

    def _fits(self, room: Room, k: int) -> bool:
        return all(self._owner.get(bot, k) == k for bot in room.seats)

    async def take(self, k: int) -> Room | None:
        """The first room left that process `k` may play (waiting for one); None: none left."""
        while self.todo:
            for i, room in enumerate(self.todo):
                if self._fits(room, k):
                    del self.todo[i]
                    for bot in set(room.seats):
                        self._owner[bot] = k
                        self._rooms[bot] = self._rooms.get(bot, 0) + 1
                    return room
            await self._changed.wait()
        return None

    async def feed(self, k: int, send: trio.MemorySendChannel[Room]) -> None:
        """Hand process `k` its rooms through `send` (closed when none is left)."""
        async with send:
            while (room := await self.take(k)) is not None:
                await send.send(room)

    async def store(self, room: Room, boards: list[int], records: list[dict]) -> None:
        """The run's `store`; a room's last board frees its bots for other processes."""
        await self._store(room, boards, records)
        if boards and boards[-1] == room.boards[-1]:
            for bot in set(room.seats):
                self._rooms[bot] -= 1
                if not self._rooms[bot]:
                    del self._rooms[bot], self._owner[bot]
            self._changed.set()
            self._changed = trio.Event()


def apart(rooms: Sequence[Room], most: int) -> int:
    """How many of `rooms` (up to `most`) can be in flight at once in different arena processes:
    rooms with no bot in common, picked greedily in their order (a gauntlet's: 1)."""
    taken: set[int] = set()
    count = 0
    for room in rooms:
        if count >= most:
            break
        if taken.isdisjoint(room.seats):
            taken.update(room.seats)
            count += 1
    return max(1, count)



class Shard:
    """The tournament's end of one shard process (`open_shard`): rooms to play, a stretch of
    the ratings' bootstrap to fit."""

    def __init__(self, popen: subprocess.Popen[bytes], index: int, count: int, cpu: int | None) -> None:
        self.index, self.count, self.cpu = index, count, cpu
        self.report: dict[str, Any] = {}  # what it said when it ended: its peak memory, CPU time
        self._popen = popen
        self._pidfd = os.pidfd_open(popen.pid)  # (it cannot have been reaped yet: no race on its pid)
        self._to = trio.lowlevel.FdStream(_take(popen.stdin))
        self._from = trio.lowlevel.FdStream(_take(popen.stdout))
        self._errors = trio.lowlevel.FdStream(_take(popen.stderr))
        self._log = bytearray()
        self._sending = trio.Lock()
        self._store: Store | None = None
        self._places: dict[tuple[int, int], tuple[Room, trio.Event]] = {}  # rooms it holds
        self._samples: list[list[float]] | None = None
        self._samples_came = trio.Event()
        self._done = trio.Event()
        self._ended = False  # told that nothing more comes

    async def play(self, job: Job, rooms: trio.MemoryReceiveChannel[Room], playing: int, store: Store) -> None:
        """Like `arena.play.room.play_rooms`, in the shard: a room whenever it has a place free.
        The job's sandbox mode must have passed its trial in this process (`resolve_mode`)."""
        self._store = store
        await self._say({"type": "job", "job": job.to_data(), "playing": playing, "index": self.index,
                         "count": self.count, "cpu": self.cpu, "arena_id": command.ARENA_ID})

        async def feed(receive: trio.MemoryReceiveChannel[Room]) -> None:
            async with receive:
                async for room in receive:
                    done = trio.Event()
                    self._places[room.match_no, room.swapped] = (room, done)
                    await self._say({"type": "room", "match_no": room.match_no, "swapped": room.swapped,
                                     "seats": list(room.seats), "boards": list(room.boards)})
                    await done.wait()

        async with trio.open_nursery() as feeders, rooms:
            for _ in range(2 * playing):  # a place for each room playing or starting
                feeders.start_soon(feed, rooms.clone())

    async def ask_bootstrap(self, inputs: dict[str, Any], seed: int, start: int, stop: int) -> None:
        """Have it fit bootstrap samples `start` to `stop` - 1 (`ratings.bootstrap_samples`): the
        last request, after every room is played (it then ends as after "end")."""
        self._ended = True
        results = [[list(r.team_a), list(r.team_b), r.score, r.deal, r.weight] for r in inputs["results"]]
        await self._say({"type": "bootstrap", "results": results, "bots": inputs["bots"],
                         "anchor": inputs["anchor"], "seed": seed, "start": start, "stop": stop})

    async def bootstrap_samples(self) -> list[list[float]]:
        await self._samples_came.wait()
        assert self._samples is not None
        return self._samples

    async def _say(self, message: dict[str, Any]) -> None:
        try:
            async with self._sending:
                await self._to.send_all(_pack(message))
        except trio.BrokenResourceError:
            raise await self._died() from None

    async def _read(self) -> None:
        reader = _Reader(self._from)
        while (message := await reader.next()) is not None:
            kind = message["type"]
            if kind == "records":
                room, done = self._places[message["match_no"], message["swapped"]]
                assert self._store is not None
                await self._store(room, message["boards"], message["records"])
                if message["boards"][-1] == room.boards[-1]:  # its last board: the room is done
                    del self._places[room.match_no, room.swapped]
                    done.set()
            elif kind == "samples":
                self._samples = message["samples"]
                self._samples_came.set()
            elif kind == "done":
                self.report = message
                self._done.set()
                return
        raise await self._died()

    async def _keep_log(self) -> None:
        while chunk := await self._errors.receive_some(1 << 16):
            self._log.extend(chunk)
            del self._log[:-4096]

    async def _exited(self) -> None:
        await trio.lowlevel.wait_readable(self._pidfd)
        self._popen.wait()

    async def _died(self) -> ArenaError:
        with trio.move_on_after(2):  # its exit status and last words, for the message
            await self._exited()
        code = self._popen.returncode
        how = ("stopped answering" if code is None else f"was killed by {signal.Signals(-code).name}"
               if code < 0 else f"exited with status {code}")
        said = self._log.decode(errors="replace").strip().splitlines()
        return ArenaError(f"arena shard {self.index} {how}{': ' + said[-1][:300] if said else ''} (run the "
                          "same command again to resume: the rooms it was playing are played again)")


@asynccontextmanager
async def open_shard(*, index: int, count: int, cpu: int | None) -> AsyncIterator[Shard]:
    """Start shard `index` of `count` (pinned to `cpu` if given) for the block; leaving it ends
    the shard (its rooms finished) or, on an error or cancellation, stops it. It imports what it
    needs (0.15 s) while the block goes on."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        filter(None, [str(Path(__file__).resolve().parents[2]), os.environ.get("PYTHONPATH")]))}
    popen = subprocess.Popen(  # from the trio thread, as bots are (see arena.process.lifecycle)
        [sys.executable, "-m", "arena.tournaments.shard", str(os.getpid())], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, start_new_session=True)
    shard = Shard(popen, index, count, cpu)
    try:
        if cpu is not None:
            try:
                os.sched_setaffinity(popen.pid, {cpu})  # at once: it imports on its own core
            except ProcessLookupError:
                pass  # gone already: the first message to it says why
        async with trio.open_nursery() as nursery:
            nursery.start_soon(shard._keep_log)
            nursery.start_soon(shard._read)
            yield shard
            if not shard._ended:
                await shard._say({"type": "end"})  # it finishes what it has, says "done" and exits
            await shard._done.wait()
    finally:
        with trio.CancelScope(shield=True):
            if not shard.report and popen.poll() is None:
                popen.send_signal(signal.SIGTERM)  # its bots are shut down as in any cancelled run
            with trio.move_on_after(STOP_GRACE_S):
                await shard._exited()
            if popen.returncode is None:
                popen.kill()
                await shard._exited()
            os.close(shard._pidfd)
            for stream in (shard._to, shard._from, shard._errors):
                await stream.aclose()


def _take(file: Any) -> int:
    """A pipe's file descriptor, for a trio stream to own (the file object lets go of it)."""
    fd = os.dup(file.fileno())
    file.close()
    return fd


# -- the shard's side ---------------------------------------------------------------------------


async def serve() -> None:
    """Play the rooms the tournament's process sends until it says "end" or asks for a stretch
    of the bootstrap (its last request); stop at once if it goes (our stdin ends first) or
    sends SIGTERM."""
    stdin, stdout = trio.lowlevel.FdStream(os.dup(0)), trio.lowlevel.FdStream(os.dup(1))
    incoming = _Reader(stdin)
    first = await incoming.next()
    if first is None:
        return  # the tournament's process went before it sent anything
    job = Job.from_data(first["job"])
    modes.trust_mode(job.sandbox)  # the tournament's process ran its trial
    pin(first["cpu"])
    command.join_arena(first["arena_id"], f"s{first['index']}.")
    sandbox.share_uids(first["index"], first["count"])
    scheduler.use(scheduler.share(first["count"]))  # its share of the cores for bots
    sending = trio.Lock()

    async def say(message: dict[str, Any]) -> None:
        async with sending:
            await stdout.send_all(_pack(message))

    async def store(room: Room, boards: list[int], records: list[dict]) -> None:
        await say({"type": "records", "match_no": room.match_no, "swapped": room.swapped,
                   "boards": boards, "records": records})

    send, receive = trio.open_memory_channel[Room](0)

    async def take_rooms(everything: trio.CancelScope) -> None:
        async with send:
            while (message := await incoming.next()) is not None:
                if message["type"] == "end":
                    return  # no more rooms: those taken are played to the end
                if message["type"] == "bootstrap":  # the last request: every room is played
                    send.close()  # (so that our bots' fork server stops meanwhile)
                    results = [ratings.BoardResult(tuple(a), tuple(b), score, deal, weight)
                               for a, b, score, deal, weight in message["results"]]
                    fit = functools.partial(ratings.bootstrap_samples, results, message["bots"],
                                            anchor=message["anchor"], seed=message["seed"],
                                            start=message["start"], stop=message["stop"])
                    await say({"type": "samples", "samples": await trio.to_thread.run_sync(fit)})
                    return
                await send.send(Room(message["match_no"], message["swapped"], tuple(message["seats"]),
                                     tuple(message["boards"])))
        everything.cancel()  # the tournament's process has gone: nobody would store our results

    async def on_term(everything: trio.CancelScope) -> None:
        with trio.open_signal_receiver(signal.SIGTERM) as signals:
            async for _ in signals:
                everything.cancel()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(on_term, nursery.cancel_scope)
        async with trio.open_nursery() as play:
            play.start_soon(take_rooms, nursery.cancel_scope)
            play.start_soon(play_rooms, job, receive, first["playing"], store)
        me = resource.getrusage(resource.RUSAGE_SELF)
        await say({"type": "done", "peak_rss_kib": me.ru_maxrss, "cpu_s": me.ru_utime + me.ru_stime})
        nursery.cancel_scope.cancel()


def main() -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if len(sys.argv) > 1 and os.getppid() != int(sys.argv[1]):
        sys.exit("arena shard: the tournament's process has gone")
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the tournament's process's business
    try:
        trio.run(serve)
        os._exit(0)  # all said ("done"): no interpreter teardown for the tournament to wait on
    except Exception as exc:  # noqa: BLE001  (the tournament's process reports our last line)
        known = [e for e in leaves(exc) if isinstance(e, (ArenaError, ValueError, OSError))]
        if not known:
            raise
        sys.exit(str(known[0]))


if __name__ == "__main__":
    main()
