"""Rooms on a Dask cluster: `arena tournament run --cluster tcp://HOST:8786` or `--cluster local:N`.

The coordinator (the tournament's process) submits every room left to play as one Dask task
and stays the only writer: a task returns its room's table records and the coordinator stores
them as a local run does (runner.run's `store`), once per room, skipping what is stored. Dask
reruns the task of a worker lost mid-room on another worker; the coordinator takes one result
per task, so nothing is counted twice, and a room that was not stored is played again on
resume, as locally.

Workers share no filesystem with the coordinator: each bot's stored copy travels as a tar,
scattered once under its sha256, and is unpacked (and its hash checked) into the worker's own
local directory, once per worker. A worker resolves `--sandbox` itself, with the same
arena.process code as a local run, and refuses the room with one clear error when it cannot
confine bots as asked; it reports the mode with its label there (a worker without writable
cgroups runs bots without whole-bot limits, and the tournament's record says so). On a worker,
every room is played in one long-lived trio loop per sandbox mode (one fork server, bots spawned
from a thread that lives as long as they do, see arena.process.lifecycle); a Dask thread waits
for its room there.

Dask is optional (`pip install .[cluster]`): nothing else in the arena imports this module
unless `--cluster` is given.
"""

from __future__ import annotations

import dataclasses
import fcntl
import hashlib
import io
import math
import os
import shutil
import socket
import tarfile
import tempfile
import threading
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import trio

import games
from arena.errors import ArenaError
from arena.play.room import Job, Room, play_room
from arena.play.table import TimeControl
from arena.process import forking
from arena.process.command import Limits
from arena.process.lifecycle import sweep_orphans
from arena.process.modes import label, resolve_mode
from arena.results import ratings
from arena.results.registry import bot_sha256
from arena.tournaments.commands import bot_command

INSTALL_HINT = "--cluster needs Dask: pip install 'zwicker-arena[cluster]' (or: pip install 'dask[distributed]')"
LOST_RESULTS = 3
"""How often a room is submitted again whose result, or whose bots' bundles, were lost with a
worker before it was taken (Dask itself reruns the rooms a worker was playing when it died)."""
WORKER_WAIT = 300.0
"""Seconds that shipping bundles waits for a running worker before it gives up in one line: long
enough for a worker to be restarted on a loaded machine (a surviving worker answers at once)."""
CONNECT_WAIT = 30
"""Seconds to wait for the scheduler's answer when connecting (Dask's own default: a scheduler
on a loaded machine may take several seconds)."""
CACHE = "zwicker-bots"
"""The folder under a worker's local directory that holds the bots it has unpacked, by sha256."""


def _distributed() -> Any:
    try:
        import distributed
    except ImportError:
        raise ArenaError(INSTALL_HINT) from None
    return distributed


def parse(spec: str) -> tuple[str, Any]:
    """`local:N` -> ("local", N); `tcp://HOST:PORT` (or any Dask address) -> ("address", it)."""
    spec = spec.strip()
    if spec.startswith("local:"):
        n = spec.partition(":")[2]
        if not n.isdigit() or int(n) < 1:
            raise ArenaError(f"--cluster local:N needs a number of workers of at least 1, not {spec!r}")
        return "local", int(n)
    if "://" not in spec or not spec.partition("://")[2]:
        raise ArenaError(f"--cluster takes local:N or a scheduler's address such as tcp://HOST:8786, not {spec!r}")
    return "address", spec


def check(spec: str) -> None:
    """Refuse at once, in one line, a malformed `--cluster` or a machine without Dask."""
    parse(spec)
    _distributed()


# -- bots ---------------------------------------------------------------------------------------


def bundle(path: Path) -> bytes:
    """A bot's stored copy (a file or a folder) as a gzipped tar with it at the top."""
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        tar.add(path, arcname=path.name)
    return out.getvalue()


def bot_spec(row: dict) -> dict[str, Any]:
    """What a worker needs to run a registered bot from its unpacked copy."""
    return {"id": row["id"], "name": row["name"], "version": row["version"], "command": row.get("command"),
            "sha256": row["sha256"], "file": Path(row["path"]).name}


def unpack(cache: Path, spec: dict[str, Any], data: bytes) -> Path:
    """The bot's copy under `cache`/<sha256>/, unpacked once (atomically) and checked against its hash."""
    target = cache / spec["sha256"] / spec["file"]
    if target.exists():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=target.parent))
    try:
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            members = tar.getmembers()
            for m in members:  # a stored copy holds files and folders only, all inside it
                if not (m.isfile() or m.isdir()) or m.name.startswith("/") or ".." in Path(m.name).parts:
                    raise ArenaError(f"bot {spec['name']}@{spec['version']} arrived with a bad entry {m.name!r}")
            tar.extractall(tmp, members)
        got = bot_sha256(tmp / spec["file"])
        if got != spec["sha256"]:
            raise ArenaError(f"bot {spec['name']}@{spec['version']} arrived with sha256 {got[:12]}, "
                             f"not {spec['sha256'][:12]}")
        for folder, _dirs, files in os.walk(tmp):  # as the registry stores it: readable by a bot's own uid
            os.chmod(folder, 0o755)
            for name in files:
                os.chmod(Path(folder, name), Path(folder, name).stat().st_mode | 0o444)
        try:
            os.rename(tmp / spec["file"], target)
        except OSError:
            if not target.exists():
                raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target


# -- the worker's side --------------------------------------------------------------------------


class _Loop:
    """A trio loop in a thread of its own that plays rooms for the Dask threads of this worker."""

    def __init__(self, mode: str, turns: int) -> None:
        self.mode = mode
        self._ready = threading.Event()
        self._token: trio.lowlevel.TrioToken | None = None
        self._turns: trio.Semaphore | None = None
        self._failed: BaseException | None = None
        threading.Thread(target=self._main, args=(turns,), name=f"zwicker-rooms-{mode}", daemon=True).start()
        self._ready.wait()
        if self._failed is not None:
            raise self._failed

    def _main(self, turns: int) -> None:
        try:
            trio.run(self._serve, turns)
        except BaseException as exc:  # noqa: BLE001  (handed to the Dask thread that waits)
            self._failed = exc
            self._ready.set()

    async def _serve(self, turns: int) -> None:
        sweep_orphans()
        async with forking.serving(self.mode):
            self._turns = trio.Semaphore(turns)
            self._token = trio.lowlevel.current_trio_token()
            self._ready.set()
            await trio.sleep_forever()

    def play(self, job: Job, room: Room) -> list[tuple[list[int], list[dict]]]:
        async def one() -> list[tuple[list[int], list[dict]]]:
            segments: list[tuple[list[int], list[dict]]] = []

            async def keep(_room: Room, boards: list[int], records: list[dict]) -> None:
                segments.append((boards, records))

            await play_room(job, job.rules[1], room, keep, self._turns)
            return segments

        return trio.from_thread.run(one, trio_token=self._token)


_loops: dict[str, _Loop] = {}
_modes: dict[str | None, str] = {}
_lock = threading.Lock()


def worker_mode(option: str | None) -> str:
    """`--sandbox` resolved on this worker, once; a worker that cannot confine bots as asked refuses."""
    with _lock:
        if option not in _modes:
            try:
                _modes[option] = resolve_mode(option)
            except ValueError as exc:
                raise ArenaError(f"worker {socket.gethostname()} cannot run bots: {exc}") from None
        return _modes[option]


def _loop(mode: str) -> _Loop:
    with _lock:
        if mode not in _loops:
            distributed = _distributed()
            threads = distributed.get_worker().state.nthreads
            _loops[mode] = _Loop(mode, max(1, threads // 2))  # half play, half start their bots
        return _loops[mode]


class _Apart:
    """A bot's rooms in flight in one worker process of this machine at a time: a room holds a
    file lock (flock) under the machine's temporary folder for each of its bots, from before its
    bots start until they are gone. The rooms of one worker process share its locks (its trio
    loop's move scheduler keeps their processes apart); locks are taken in one order, so no two
    rooms wait for each other. (Worker processes on other machines share nothing a bot could
    read.)"""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._held: dict[str, list[int]] = {}  # key -> [rooms of this process holding it, fd]
        self._taking: dict[str, threading.Lock] = {}

    @staticmethod
    def keys(job: dict[str, Any], room: Room) -> list[str]:
        return sorted({hashlib.sha256(f"{job['name']}\0{job['seed']}\0{bot}".encode()).hexdigest()[:32]
                       for bot in room.seats})

    def acquire(self, key: str) -> None:
        with self._lock:
            if key in self._held:
                self._held[key][0] += 1
                return
            taking = self._taking.setdefault(key, threading.Lock())
        with taking:  # one thread of this process waits for the file lock, the others for it
            with self._lock:
                if key in self._held:
                    self._held[key][0] += 1
                    return
            folder = Path(tempfile.gettempdir()) / f"zwicker-apart-{os.getuid()}"
            folder.mkdir(mode=0o700, exist_ok=True)
            fd = os.open(folder / key, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX)
            except BaseException:
                os.close(fd)
                raise
            with self._lock:
                self._held[key] = [1, fd]

    def release(self, key: str) -> None:
        with self._lock:
            entry = self._held[key]
            entry[0] -= 1
            if not entry[0]:
                del self._held[key]
                os.close(entry[1])  # (the lock goes with its last descriptor)


_apart = _Apart()


def play_room_task(job: dict[str, Any], room: tuple, bundles: dict[str, bytes]) -> dict[str, Any]:
    """A Dask task: play one room on this worker; returns its records for the coordinator to store."""
    distributed = _distributed()
    mode = worker_mode(job["sandbox"])
    cache = Path(distributed.get_worker().local_directory) / CACHE
    commands = {}
    for spec in job["bots"]:
        if spec["id"] in room[2]:
            path = unpack(cache, spec, bundles[spec["sha256"]])
            commands[spec["id"]] = bot_command({**spec, "path": str(path)})
    played = Job(name=job["name"], seed=job["seed"], variant=job["variant"], format=job["format"],
                 commands=commands, time_control=TimeControl(**job["time_control"]), sandbox=mode,
                 limits=None if job["limits"] is None else Limits(**job["limits"]), game=job.get("game", games.ORIGINAL))
    placed = Room(room[0], room[1], tuple(room[2]), tuple(room[3]))
    taken: list[str] = []
    try:
        for key in _Apart.keys(job, placed):
            _apart.acquire(key)
            taken.append(key)
        segments = _loop(mode).play(played, placed)
    finally:
        for key in taken:
            _apart.release(key)
    return {"mode": mode, "label": label(mode), "worker": distributed.get_worker().address, "segments": segments}


# -- the coordinator's side ---------------------------------------------------------------------


def job_data(t: dict, bots: Sequence[dict], sandbox: str | None, limits: Limits | None) -> dict[str, Any]:
    """The tournament's part of every room task: plain data, bots by content hash."""
    return {"name": t["name"], "seed": t["seed"], "variant": t["variant"], "format": t["format"], "game": t["game"],
            "time_control": t["settings"].get("time_control", {}), "sandbox": sandbox,
            "limits": None if limits is None else dataclasses.asdict(limits), "bots": [bot_spec(b) for b in bots],
            "paths": {b["sha256"]: b["path"] for b in bots}}


def _connect(spec: str) -> tuple[Any, Any]:
    distributed = _distributed()
    kind, value = parse(spec)
    if kind == "local":
        local = distributed.LocalCluster(n_workers=value, threads_per_worker=2, processes=True,
                                         dashboard_address=":0")
        return distributed.Client(local), local
    try:
        return distributed.Client(value, timeout=f"{CONNECT_WAIT}s"), None
    except OSError as exc:
        raise ArenaError(f"--cluster {value}: no Dask scheduler answers there ({exc})") from None


@asynccontextmanager
async def connected(spec: str) -> AsyncIterator[Any]:
    """A client of the cluster `spec` that lives as long as the block (the league's server, whose
    matches start one after another while it runs); a `local:N` cluster is stopped with it."""
    _distributed()
    client, local = await trio.to_thread.run_sync(_connect, spec)
    try:
        yield client
    finally:
        with trio.CancelScope(shield=True):
            await trio.to_thread.run_sync(_close, client, local)


Store = Callable[[Room, list[int], list[dict]], Awaitable[None]]


async def play(spec: str, job: dict[str, Any], rooms: Sequence[Room], store: Store,
               on_mode: Callable[[str, str], None] = lambda mode, label: None,
               rating_inputs: Callable[[], dict] | None = None, bootstrap: int = 1000,
               client: Any = None) -> list[list[float]] | None:
    """Play `rooms` on the cluster `spec`, storing each room's records here as its task ends.

    `on_mode` hears each sandbox mode a worker resolved, and its label there (arena.process.modes.label:
    a worker without writable cgroups says so), for the tournament's record. Then, with
    `rating_inputs` (read once every room is stored), the ratings' bootstrap is fitted on the
    workers too, in stretches of the one seeded sequence (as the shards share it, see
    runner.shared_bootstrap); returns those fits. With `client` (from `connected`), the rooms
    play on it and it stays open; else a client of `spec` is opened here and closed at the end."""
    _distributed()  # a clear error before anything starts
    own = client is None
    local = None
    if own:
        client, local = await trio.to_thread.run_sync(_connect, spec)
    token = trio.lowlevel.current_trio_token()
    send, receive = trio.open_memory_channel[tuple[Room, Any]](math.inf)
    stop = threading.Event()

    def tell(item: Any) -> None:
        """Hand `item` to the trio side (nobody listens once it has stopped)."""
        if not stop.is_set():
            try:
                trio.from_thread.run_sync(send.send_nowait if item is not None else send.close,
                                          *([item] if item is not None else []), trio_token=token)
            except (trio.RunFinishedError, trio.ClosedResourceError, trio.BrokenResourceError):
                pass

    def pump() -> None:
        """In a thread: submit every room, then pass each result (or its error) to the trio side."""
        distributed = _distributed()
        shipped: dict[str, Any] = {}

        def ship(bundles: dict[str, bytes]) -> None:
            """Ship bundles to every worker (a worker joining later fetches them), each time under
            keys of its own: the scheduler keeps the state of a key lost with a dead worker, and a
            bundle scattered again under that key once threw the surviving worker out (Dask 2026.8:
            "assert ts.priority" in the scheduler, then "Lost all workers"). With no worker running,
            or one dying mid-shipment, wait for one, up to WORKER_WAIT seconds in all."""
            started = time.monotonic()
            while True:
                keys = {f"zwicker-bot-{sha}-{uuid.uuid4().hex}": sha for sha in bundles}
                left = WORKER_WAIT - (time.monotonic() - started)
                try:
                    futures = client.scatter({key: bundles[sha] for key, sha in keys.items()}, broadcast=True,
                                             timeout=max(1.0, min(30.0, left)))
                    shipped.update({keys[key]: future for key, future in futures.items()})
                    return
                except (ValueError, OSError) as exc:  # none running ("No valid workers found"), or one died
                    if time.monotonic() - started >= WORKER_WAIT:
                        raise ArenaError(f"cluster: no worker is running (waited {time.monotonic() - started:.0f} s "
                                         f"for one: {exc}); start workers, then run the same command again to "
                                         "resume") from None
                    if stop.wait(1.0):
                        return

        try:
            ship({sha: bundle(Path(path)) for sha, path in job["paths"].items()})
            common = {k: v for k, v in job.items() if k not in ("paths", "bots")}
            futures: dict[Any, Room] = {}
            lost: dict[Room, int] = {}

            def submit(room: Room) -> Any:
                bots = [b for b in job["bots"] if b["id"] in room.seats]  # a task carries its room's bots only
                needed = {b["sha256"] for b in bots}
                future = client.submit(play_room_task, {**common, "bots": bots},
                                       (room.match_no, room.swapped, list(room.seats), list(room.boards)),
                                       {sha: shipped[sha] for sha in needed}, pure=False)
                futures[future] = room
                return future

            running = distributed.as_completed([submit(room) for room in rooms])
            for future in running:
                if stop.is_set():
                    return
                room = futures.pop(future)
                try:
                    outcome: Any = future.result()
                except Exception as exc:  # noqa: BLE001  (the trio side raises it as one line)
                    if future.status != "error" and lost.get(room, 0) < LOST_RESULTS:
                        # played, but its result went with its worker before we took it, or
                        # cancelled because its bots' bundles went with it ("lost dependencies"):
                        # ship those bundles again, then play the room again
                        lost[room] = lost.get(room, 0) + 1
                        if future.status == "cancelled":
                            needed = {b["sha256"] for b in job["bots"] if b["id"] in room.seats}
                            ship({sha: bundle(Path(job["paths"][sha])) for sha in needed})
                        running.add(submit(room))
                        continue
                    outcome = exc
                tell((room, outcome))
        except Exception as exc:  # noqa: BLE001
            tell((None, exc))
        finally:
            tell(None)

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(lambda: trio.to_thread.run_sync(pump, abandon_on_cancel=True))
            async with receive:
                async for room, outcome in receive:
                    if isinstance(outcome, BaseException):
                        raise _error(room, outcome)
                    on_mode(outcome["mode"], outcome["label"])
                    for boards, records in outcome["segments"]:
                        await store(room, boards, records)
        if rating_inputs is None:
            return None
        return await trio.to_thread.run_sync(_bootstrap, client, rating_inputs(), bootstrap, abandon_on_cancel=True)
    except BaseExceptionGroup as group:  # the one error of the storing loop, as itself
        if len(group.exceptions) == 1:
            raise group.exceptions[0] from None
        raise
    finally:
        stop.set()
        if own:
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(_close, client, local)


def _bootstrap(client: Any, inputs: dict, bootstrap: int, seed: int = 0) -> list[list[float]]:
    """The bootstrap's fits `0` to `bootstrap` - 1, two stretches per worker, joined in order; a
    one-step bootstrap (big pools, `ratings.Pool`) here, since it costs less than shipping the
    boards (the workers would each build the pool again for a fraction of a second of work)."""
    pool = inputs.get("pool")
    if pool is None:
        pool = ratings.Pool(inputs["results"], inputs["bots"], inputs["anchor"])
    if pool.bootstrap_method == ratings.ONE_STEP:
        return pool.samples(seed, 0, bootstrap)
    workers = max(1, len(client.scheduler_info()["workers"]))
    parts = max(1, min(bootstrap, 2 * workers))
    bounds = [bootstrap * i // parts for i in range(parts + 1)]
    (results,) = client.scatter([list(inputs["results"])], broadcast=True)  # one piece of data, not one per board
    futures = [client.submit(ratings.bootstrap_samples, results, inputs["bots"], anchor=inputs["anchor"], seed=seed,
                             start=bounds[k], stop=bounds[k + 1], pure=False) for k in range(parts)]
    return [fit for part in client.gather(futures) for fit in part]


def _close(client: Any, local: Any) -> None:
    client.close()
    if local is not None:
        local.close()


def _error(room: Room | None, exc: BaseException) -> ArenaError:
    where = "" if room is None else f"room {room.match_no}/{room.label}: "
    if isinstance(exc, ArenaError):
        return ArenaError(f"{where}{exc}")
    name = type(exc).__name__
    if name == "KilledWorker":
        return ArenaError(f"{where}it was running on every worker that died ({exc}); run the same command "
                          "again to resume")
    text = str(exc).strip().splitlines()
    return ArenaError(f"cluster: {where}{name}: {text[-1][:300] if text else ''}")
