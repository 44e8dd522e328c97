"""What a new organiser and a new bot author meet (issue 29) and a run that loses no work (issue
28), through the installed `arena` program: exit status and what reaches stdout and stderr."""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARENA = Path(sys.executable).parent / "arena"
BOTS = ROOT / "bots"
STATELESS = ",".join(str(BOTS / f"{n}_bot.py") for n in ("random", "greedy", "first", "sweeper"))
SEED = "13371337133713371337"  # above 2**48: no warning about a guessable seed
NO_ISOLATION = "arena: warning: no sandbox isolates bots here"


def arena(*args, code=0, **kw) -> subprocess.CompletedProcess:
    proc = subprocess.run([str(ARENA), *map(str, args)], capture_output=True, text=True, cwd=ROOT,
                          timeout=600, **kw)
    if code is not None:
        assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    return proc


def errors(proc: subprocess.CompletedProcess) -> list[str]:
    return [line for line in proc.stderr.splitlines() if not line.startswith(NO_ISOLATION)]


def one_line_error(proc: subprocess.CompletedProcess, text: str) -> None:
    err = errors(proc)
    assert proc.returncode == 2 and len(err) == 1 and err[0].startswith("arena: error: ") and text in err[0], \
        (proc.returncode, proc.stderr)


def rooms_stored(db: Path) -> dict[tuple[int, int], int]:
    """Boards stored per room (match, swapped), read as any other reader would."""
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
            rows = c.execute("SELECT m.match_no, t.swapped, COUNT(*) FROM board_tables t"
                             " JOIN matches m ON m.id = t.match_id GROUP BY 1, 2").fetchall()
    except sqlite3.OperationalError:
        return {}  # not created yet
    return {(m, s): n for m, s, n in rows}


def results(db: Path) -> list[tuple]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
        return c.execute("SELECT m.match_no, t.board_no, t.swapped, t.side0_points, t.side1_points, t.forfeit"
                         " FROM board_tables t JOIN matches m ON m.id = t.match_id ORDER BY 1, 2, 3").fetchall()


def test_kill_9_mid_room_loses_only_the_boards_playing_and_the_resume_gives_the_uninterrupted_results(open_dir):
    boards = 6
    run = ["tournament", "run", "--bots", STATELESS, "--boards", boards, "--seed", SEED, "--sandbox", "none",
           "--concurrency", "1", "--processes", "1", "--quiet"]
    killed = open_dir / "killed.db"
    proc = subprocess.Popen([str(ARENA), *map(str, run), "--name", "k", "--db", str(killed)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while True:  # until a room is stored in part (no clock: the database says when)
        if proc.poll() is not None:
            pytest.fail(f"the run ended before a room was half stored: {proc.communicate()}")
        if any(0 < n < boards for n in rooms_stored(killed).values()):
            proc.send_signal(signal.SIGSTOP)  # frozen: what is stored now is what the kill leaves
            if any(0 < n < boards for n in rooms_stored(killed).values()):
                break
            proc.send_signal(signal.SIGCONT)  # the room ended meanwhile: on to the next one
    proc.kill()
    proc.communicate()
    left = rooms_stored(killed)
    assert sum(left.values()) < 6 * 2 * boards and any(0 < n < boards for n in left.values()), left
    listed = json.loads(arena("tournament", "list", "--json", "--db", killed).stdout)[0]
    assert listed["status"] == "interrupted"

    resumed = arena("tournament", "run", "--resume", "k", "--db", killed, "--quiet")
    assert errors(resumed) == [], resumed.stderr
    whole = open_dir / "whole.db"
    arena(*run, "--name", "w", "--db", whole)
    assert results(killed) == results(whole)  # every board's points and faults, table by table
    standings = [json.loads(arena("standings", name, "--json", "--db", db).stdout)
                 for name, db in (("k", killed), ("w", whole))]
    assert [(r["bot"], r["elo"], r["wins"]) for r in standings[0]["standings"]] == \
        [(r["bot"], r["elo"], r["wins"]) for r in standings[1]["standings"]]


def test_ctrl_c_counts_the_boards_each_room_stored_as_it_went(open_dir):
    """Ctrl-C a run in the middle of its first rooms: what it says is stored is what is stored."""
    db = open_dir / "c.db"
    proc = subprocess.Popen([str(ARENA), "tournament", "run", "--bots", STATELESS, "--boards", "6", "--seed", SEED,
                             "--sandbox", "none", "--concurrency", "1", "--processes", "1", "--name", "c",
                             "--db", str(db)], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while sum(rooms_stored(db).values()) < 3:  # three boards stored, the first room not over
        if proc.poll() is not None:
            pytest.fail(f"the run ended early: {proc.communicate()}")
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 130, (out, err)
    tables = sum(rooms_stored(db).values())
    listed = json.loads(arena("tournament", "list", "--json", "--db", db).stdout)[0]
    last = err.strip().splitlines()[-1]
    assert last.startswith(f"arena: interrupted: {listed['boards_done']}/36 boards of 'c' are stored"), last
    half = tables - 2 * listed["boards_done"]
    assert tables >= 3 and (f"(and {half} more in one of their two rooms)" in last) == (half > 0), last
    assert "boards stored" in err  # the progress line says what is stored, not only what is played
