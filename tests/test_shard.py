"""Shards: a tournament spread over several arena processes (arena.tournaments.shard) gives exactly the
results of one process, and a shard that dies is one clear error, after which the run resumes."""

from __future__ import annotations

import functools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio

from arena.errors import ArenaError
from arena.play import room
from arena.play.table import TimeControl
from arena.process import sandbox
from arena.process.command import BotCommand, Limits
from arena.results import read, schema
from arena.tournaments import runner

ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "bots"
DETERMINISTIC = [str(BOTS / "zwicker" / "random_bot.py"), str(BOTS / "zwicker" / "greedy_bot.py"), str(BOTS / "zwicker" / "first_bot.py")]
SETTINGS = runner.Settings(boards=2, seed=5)


def shards_of(pid: int) -> list[int]:
    """Live shard processes of the arena process `pid` (their command line names it, and `pid`
    is their parent: a shard's child between its fork and its exec still has the shard's
    command line, and was counted as a second shard in about one run of eight)."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            try:
                cmdline = Path(f"/proc/{entry.name}/cmdline").read_bytes().split(b"\0")
                status = Path(f"/proc/{entry.name}/status").read_text()
                if cmdline[-3:-1] == [b"arena.tournaments.shard", str(pid).encode()] and \
                        "State:\tZ" not in status and f"\nPPid:\t{pid}\n" in status:
                    found.append(int(entry.name))
            except OSError:
                pass
    return found


def results(db, tid):
    boards = [(b["match_no"], b["board_no"], b["seed"], b["margin"], b["outcome"]) for b in read.board_results(db, tid)]
    deals = sorted(
        (d["seed"], d["dealer"], json.dumps([{k: v for k, v in m.items() if k != "ms"} for m in d["moves"]]),
         json.dumps(d["points"]))
        for d in map(functools.partial(read.get_deal, db), [r[0] for r in db.execute("SELECT id FROM deals")]))
    standings = [(s["bot"], s["elo"], s["ci_low"], s["ci_high"], s["wins"], s["losses"])
                 for s in read.standings(db, tid)]  # the bootstrap, shared by the shards, too
    return boards, deals, standings


def leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in leaves(inner)]
    return [exc]


def test_a_job_is_the_same_after_the_trip_to_a_shard():
    job = room.Job(name="cup", seed=3, variant={"preset": "jensen"}, format="game",
                   commands={4: BotCommand(("/usr/bin/python3", "/x/bot.py"), Path("/x"), "python")},
                   time_control=TimeControl(move_s=0.5), sandbox="fork", limits=Limits(cpu_seconds=9))
    assert room.Job.from_data(job.to_data()) == job
    assert room.Job.from_data(room.Job(**{**job.__dict__, "limits": None}).to_data()).limits is None


async def test_two_processes_play_exactly_what_one_plays(tmp_path):
    found = {}
    for processes in (1, 2):
        db = schema.open_db(tmp_path / f"{processes}.db")
        tid = runner.prepare(db, "cup", DETERMINISTIC, SETTINGS)
        reports: list[dict] = []
        done = await runner.run(db, tid, concurrency=2, processes=processes, shard_reports=reports)
        assert done["status"] == "finished" and done["boards_done"] == 3 * 2
        assert len(reports) == processes - 1 and all(r["peak_rss_kib"] > 0 for r in reports)
        found[processes] = results(db, tid)
    assert found[1] == found[2]
    assert shards_of(os.getpid()) == []


async def test_a_shard_that_dies_is_one_clear_error_and_the_run_resumes(tmp_path):
    reference = schema.open_db(tmp_path / "reference.db")
    await runner.run(reference, runner.prepare(reference, "cup", DETERMINISTIC, SETTINGS), processes=1)

    db = schema.open_db(tmp_path / "killed.db")
    tid = runner.prepare(db, "cup", DETERMINISTIC, SETTINGS)
    killed = []

    def on_room(room, boards):
        if not killed:
            killed.extend(shards_of(os.getpid()))
            for pid in killed:
                os.kill(pid, signal.SIGKILL)

    with pytest.raises(BaseExceptionGroup) as caught:
        await runner.run(db, tid, concurrency=2, processes=2, on_room=on_room)
    assert len(killed) == 1
    errors = [e for e in leaves(caught.value) if not isinstance(e, trio.Cancelled)]
    assert len(errors) == 1 and isinstance(errors[0], ArenaError), caught.value
    assert str(errors[0]).startswith("arena shard 1 was killed by SIGKILL (run the same command again"), errors
    assert "\n" not in str(errors[0])
    assert read.get_tournament(db, tid)["status"] == "interrupted"
    assert shards_of(os.getpid()) == []

    resumed = await runner.run(db, tid, concurrency=2, processes=2)
    assert resumed["status"] == "finished"
    assert results(db, tid) == results(reference, 1)


def test_the_processes_of_one_arena_never_hand_out_the_same_uid(monkeypatch):
    if os.geteuid() != 0:
        pytest.skip("throw-away uids are handed out only when the arena runs as root")
    monkeypatch.setattr(sandbox, "_uids", set())
    monkeypatch.setattr(sandbox, "_uid_share", sandbox._uid_share)
    drawn = {}
    for k in range(3):
        sandbox.share_uids(k, 3)
        drawn[k] = {sandbox.allocate_uid() for _ in range(200)}
    assert all((uid - sandbox._UID_FIRST) % 3 == k for k, uids in drawn.items() for uid in uids)
    assert all(sandbox._UID_FIRST <= uid < sandbox._UID_FIRST + sandbox._UID_COUNT for uids in drawn.values() for uid in uids)


def test_ctrl_c_stops_the_shards_and_their_bots_and_the_run_resumes(open_dir):
    """The real command (default sandbox), two tables in two processes, interrupted as Ctrl-C
    would (SIGINT); the test checks for left-over bots afterwards, as every test does."""
    tmp_path = open_dir

    def arena(db_path, *extra):
        # Six rooms of six boards: when the first room is stored, two thirds of the run are still
        # to come (with two boards a room, a fast machine finished before the signal arrived).
        cmd = [sys.executable, "-m", "arena", "tournament", "run", "--bots", ",".join(DETERMINISTIC),
               "--boards", "6", "--seed", str(2**63 + 5), "--name", "cup", "--quiet", "--concurrency", "2",
               "--processes", "2", "--db", str(db_path), *extra]
        return subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    reference = tmp_path / "reference.db"
    assert finish(arena(reference)) == (0, "")
    interrupted = tmp_path / "interrupted.db"
    proc = arena(interrupted)
    deadline = time.monotonic() + 60
    while proc.poll() is None and time.monotonic() < deadline:
        try:
            db = schema.open_db(interrupted, create=False)
        except ArenaError:  # not there yet, or still empty
            db = None
        if db is not None:
            stored = db.execute("SELECT COUNT(*) FROM board_tables").fetchone()[0]
            db.close()
            if stored:
                break
        time.sleep(0.02)
    shards = shards_of(proc.pid)
    proc.send_signal(signal.SIGINT)
    code, err = finish(proc)
    if code == 0:
        pytest.skip("the run ended before it could be interrupted")
    assert code == 130 and err.startswith("arena: interrupted: ") and err.count("\n") == 1, err
    assert err.endswith(f"resume with: arena tournament run --resume cup --db {interrupted}\n")
    assert shards and not any(Path(f"/proc/{pid}").exists() for pid in shards)
    db = schema.open_db(interrupted, create=False)
    assert read.get_tournament(db, "cup")["status"] == "interrupted"
    assert finish(arena(interrupted)) == (0, "")
    a, b = schema.open_db(reference, create=False), schema.open_db(interrupted, create=False)
    assert results(b, read.get_tournament(b, "cup")["id"]) == results(a, read.get_tournament(a, "cup")["id"])


def finish(proc: subprocess.Popen) -> tuple[int, str]:
    """The exit status and stderr, less the one line a machine without isolation prints."""
    _, err = proc.communicate(timeout=120)
    lines = err.decode().splitlines(keepends=True)
    return proc.returncode, "".join(line for line in lines if not line.startswith("arena: warning: no sandbox isolates"))
