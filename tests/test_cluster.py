"""Rooms on a real Dask cluster (arena.tournaments.cluster): a `dask scheduler` and `dask worker`
processes on 127.0.0.1. A worker killed mid-run and a coordinator interrupted mid-run still
give exactly a local run's results, board for board; a worker that cannot confine bots refuses."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import trio

from arena.errors import ArenaError
from arena.process import sandbox
from arena.process import modes
from arena.process.modes import resolve_mode
from arena.results import read, schema
from arena.tournaments import cluster, runner
from tests.test_shard import results

distributed = pytest.importorskip("distributed", reason="dask[distributed] is not installed (pip install .[cluster])")

ROOT = Path(__file__).resolve().parents[1]
BOTS = [str(ROOT / "bots" / "zwicker" / name) for name in ("random_bot.py", "greedy_bot.py", "first_bot.py", "sweeper_bot.py")]
SETTINGS = runner.Settings(boards=2, seed=11)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def dask(*args: str, env: dict | None = None, user: int | None = None) -> subprocess.Popen:
    become = ["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", "--"] if user is not None else []
    return subprocess.Popen([*become, sys.executable, "-m", "dask", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env={**os.environ, **(env or {})}, start_new_session=True)


@contextmanager
def scheduler_with_workers(tmp_path: Path, workers: int, env: dict | None = None,
                           user: int | None = None) -> Iterator[tuple[str, list]]:
    """A scheduler and `workers` worker processes (no nanny: a killed worker stays dead)."""
    address = f"tcp://127.0.0.1:{free_port()}"
    procs = [dask("scheduler", "--host", "127.0.0.1", "--port", address.rpartition(":")[2], "--no-dashboard")]
    try:
        for k in range(workers):
            procs.append(dask("worker", address, "--nthreads", "2", "--no-nanny", "--no-dashboard",
                              "--local-directory", str(tmp_path / f"worker{k}"), env=env, user=user))
        with distributed.Client(address, timeout="30s") as client:
            if workers:
                client.wait_for_workers(workers, timeout=60)
            yield address, procs
    finally:
        for proc in reversed(procs):
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def descendants(pid: int) -> list[bytes]:
    """The command lines of every process below `pid`."""
    found = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").iterdir())
    except OSError:  # gone meanwhile (a bot that ended)
        return found
    for task in tasks:
        try:
            children = (task / "children").read_text().split()
        except OSError:
            continue
        for child in map(int, children):
            try:
                found.append(Path(f"/proc/{child}/cmdline").read_bytes())
            except OSError:
                continue
            found += descendants(child)
    return found


def playing(workers: list) -> int:
    """A worker that has bots running (a room in flight), waiting a moment for one; else the first."""
    for _ in range(500):
        for worker in workers:
            if any(b"_bot.py" in cmd for cmd in descendants(worker.pid)):
                return worker.pid
        time.sleep(0.01)
    return workers[0].pid


def test_a_worker_killed_and_a_coordinator_interrupted_change_nothing(tmp_path):
    local = schema.open_db(tmp_path / "local.db")
    tid = runner.prepare(local, "cup", BOTS, SETTINGS)
    trio.run(lambda: runner.run(local, tid, concurrency=2, processes=1, sandbox=resolve_mode(None)))

    with scheduler_with_workers(tmp_path, 2) as (address, procs):
        db = schema.open_db(tmp_path / "cluster.db")
        cid = runner.prepare(db, "cup", BOTS, SETTINGS, sandbox="auto")  # as the CLI does with --cluster
        killed: list[int] = []
        stored: list[tuple[int, bool]] = []

        def on_room(room, boards):
            stored.append((room.match_no, room.swapped))
            if not killed:  # the first board is in: kill a worker that is playing another room
                victim = playing(procs[1:])
                os.kill(victim, signal.SIGKILL)
                killed.append(victim)
            elif len(stored) == 5:
                raise KeyboardInterrupt  # the coordinator goes mid-run

        with pytest.raises(KeyboardInterrupt):
            trio.run(lambda: runner.run(db, cid, cluster=address, sandbox=None, on_room=on_room))
        assert killed and read.get_tournament(db, cid)["status"] == "interrupted"
        assert len(read.done_tables(db, cid)) == 5  # a room's boards are stored one by one: five, nothing more
        done = trio.run(lambda: runner.run(db, cid, cluster=address, sandbox=None))
        assert done["status"] == "finished" and done["boards_done"] == 6 * 2
        assert [p.pid for p in procs if p.poll() is not None] == killed  # the other worker did the rest
    assert results(db, cid) == results(local, tid)
    assert read.get_tournament(db, cid)["settings"]["sandboxes"] == ["auto", resolve_mode(None)]


def test_a_worker_that_cannot_confine_bots_refuses_in_one_line(tmp_path):
    if sandbox.bwrap_problem() is not None:
        pytest.skip(f"bwrap cannot run here: {sandbox.bwrap_problem()}")
    nowhere = {sandbox.SANDBOX_PYTHON_VAR: "/nonexistent/python3"}
    with scheduler_with_workers(tmp_path, 1, env=nowhere) as (address, _procs):
        db = schema.open_db(tmp_path / "cluster.db")
        tid = runner.prepare(db, "cup", BOTS[:2], runner.Settings(boards=1))
        with pytest.raises(ArenaError, match=r"cannot run bots: sandbox bwrap: no Python for sandboxed bots"):
            trio.run(lambda: runner.run(db, tid, cluster=address, sandbox="bwrap"))
    assert read.done_tables(db, tid) == set()


def test_a_worker_without_whole_bot_limits_says_so_in_the_record(open_dir):
    """The tournament stores the sandbox as each worker names it (arena.process.modes.label), as a
    local run does: a worker with no writable cgroups (here an ordinary user's, as root) adds its note."""
    if os.geteuid() == 0:
        user, folder = 65534, open_dir / "worker0"  # nobody
        runs = subprocess.run(["setpriv", f"--reuid={user}", f"--regid={user}", "--clear-groups", "--",
                               sys.executable, "-c", "import distributed"], capture_output=True)
        if runs.returncode != 0:
            pytest.skip("root can start a worker without cgroups only as nobody, who cannot run this clone's venv "
                        "(a private folder)")
        folder.mkdir()
        os.chown(folder, user, user)
        env = {"HOME": str(folder)}
    elif modes.label("fork") == "fork":
        pytest.skip("this user has writable cgroups, and only root can start a worker as a user who has none")
    else:
        user, env = None, None
    with scheduler_with_workers(open_dir, 1, env=env, user=user) as (address, _procs):
        db = schema.open_db(open_dir / "cluster.db")
        tid = runner.prepare(db, "cup", BOTS[:2], runner.Settings(boards=1, seed=3), sandbox="auto")
        trio.run(lambda: runner.run(db, tid, cluster=address, sandbox=None))
    mode = read.get_tournament(db, tid)["settings"]["sandboxes"][-1]
    assert mode in ("fork", "bwrap")
    assert read.get_tournament(db, tid)["settings"]["sandbox_labels"] == [f"{mode} ({modes.NO_WHOLE_BOT_LIMITS})"]


def test_a_cluster_option_is_checked_before_anything_runs():
    from arena.tournaments import cluster

    assert cluster.parse("local:3") == ("local", 3)
    assert cluster.parse("tcp://10.0.0.5:8786") == ("address", "tcp://10.0.0.5:8786")
    for bad in ("local:0", "local:x", "10.0.0.5:8786"):
        with pytest.raises(ArenaError, match="--cluster"):
            cluster.parse(bad)


def test_without_dask_the_arena_runs_and_cluster_says_what_to_install(tmp_path):
    """The local path imports no Dask; --cluster without it is one line (here Dask is hidden)."""
    code = ("import sys, arena.cli, arena.tournaments.runner, arena.tournaments.shard; "
            "assert not {'dask', 'distributed'} & set(sys.modules), 'dask imported'")
    subprocess.run([sys.executable, "-c", code], check=True)
    (tmp_path / "distributed").mkdir()
    (tmp_path / "distributed" / "__init__.py").write_text("raise ImportError('hidden by the test')\n")
    arena = Path(sys.executable).with_name("arena")
    done = subprocess.run([str(arena), "tournament", "run", "--bots", ",".join(BOTS[:2]), "--name", "x",
                           "--cluster", "local:2", "--db", str(tmp_path / "a.db")],
                          capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(tmp_path)})
    assert done.returncode != 0
    assert done.stderr.strip().splitlines() == [f"arena: error: {cluster_hint()}"]


def cluster_hint() -> str:
    from arena.tournaments.cluster import INSTALL_HINT

    return INSTALL_HINT


def test_a_cluster_without_workers_is_one_line_and_nothing_is_played(tmp_path, monkeypatch):
    monkeypatch.setattr(cluster, "WORKER_WAIT", 2.0)  # (minutes in the arena)
    with scheduler_with_workers(tmp_path, 0) as (address, _procs):
        db = schema.open_db(tmp_path / "cluster.db")
        cid = runner.prepare(db, "cup", BOTS, SETTINGS, sandbox="auto")
        with pytest.raises(ArenaError, match=r"^cluster: no worker is running \(waited \d+ s for one: .*\); start workers"):
            trio.run(lambda: runner.run(db, cid, cluster=address, sandbox=None))
        assert read.done_tables(db, cid) == set()
