"""The installed `arena` program run as a subprocess: exit codes, stdout and stderr apart, the
run lock, Ctrl-C, kill -9, read-only databases and hostile text, which only show there."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from arena.results import lock, schema
from tests.users import NOBODY, as_nobody

ROOT = Path(__file__).resolve().parent.parent
ARENA = Path(sys.executable).parent / "arena"
BOTS = ROOT / "bots"
RANDOM, GREEDY = str(BOTS / "zwicker" / "random_bot.py"), str(BOTS / "zwicker" / "greedy_bot.py")
FAULTY = Path(__file__).parent / "faulty"


def arena(*args, code=0, user=None, **kw) -> subprocess.CompletedProcess:
    """Run the installed program; `user` runs it as that uid (root may write anything)."""
    argv = [str(ARENA), *map(str, args)]
    if user is not None:
        argv = [*as_nobody(), *argv]
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=600, **kw)
    if code is not None:
        assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    return proc


NO_ISOLATION = "arena: warning: no sandbox isolates bots here"
"""The one line a machine without bubblewrap or root prints first (an ordinary user's fresh machine)."""


def one_line_error(proc: subprocess.CompletedProcess, text: str) -> None:
    err = "".join(line for line in proc.stderr.splitlines(keepends=True) if not line.startswith(NO_ISOLATION))
    assert proc.returncode == 2 and err.startswith("arena: error: ") and text in err, proc.stderr
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.fixture
def folder(open_dir):
    """A folder the sandboxed bots (and uid nobody) may enter."""
    return open_dir


def test_version_help_and_usage_errors():
    from arena.cli import version

    assert arena("--version").stdout == f"arena {version()}\n"
    assert "Commands:" in arena("--help").stdout
    assert "--json " in arena("standings", "--help").stdout and "<bool>" not in arena("standings", "--help").stdout
    assert "No such command" in arena("nope", code=2).stderr
    assert "No such option" in arena("standings", "--colour", code=2).stderr


def test_bot_check_exit_status_says_conformant():
    good = arena("bot", "check", GREEDY, "--deals", "1", "--sandbox", "none")
    assert "conformant: the bot speaks protocol version 1" in good.stdout
    bad = arena("bot", "check", FAULTY / "illegal.py", "--deals", "1", "--sandbox", "none", code=1)
    assert "NOT conformant" in bad.stdout and bad.stderr == ""


def test_one_variant_syntax_everywhere(folder):
    db = folder / "a.db"
    for variant in ("jensen:players=2", '{"preset": "jensen", "players": 2}'):
        out = arena("play", RANDOM, GREEDY, "--boards", "1", "--sandbox", "none", "--variant", variant).stdout
        assert "variant jensen players=2" in out
        arena("bot", "check", GREEDY, "--deals", "1", "--sandbox", "none", "--variant", variant)
    one_line_error(arena("play", RANDOM, GREEDY, "--variant", "jensen:colour=red", code=None), "unknown option")
    one_line_error(arena("bot", "check", RANDOM, "--variant", "{nope", code=None), "--variant: not valid JSON")
    arena("tournament", "run", "--bots", f"{RANDOM},{GREEDY}", "--boards", "1", "--name", "j", "--sandbox", "none",
          "--variant", '{"preset": "jensen", "target": 51}', "--db", db, "--quiet", "--seed", str(2**60))
    listed = json.loads(arena("tournament", "list", "--json", "--db", db).stdout)
    assert listed[0]["variant"]["target"] == 51 and listed[0]["seed"] == str(2**60)


def test_registered_names_work_in_play_and_check(folder):
    db = folder / "a.db"
    arena("bot", "add", GREEDY, "--name", "g", "--db", db, "--sandbox", "none")
    out = arena("play", "g", RANDOM, "--boards", "1", "--sandbox", "none", "--db", db).stdout
    assert "1 = greedy" in out
    arena("bot", "check", "g@1", "--deals", "1", "--sandbox", "none", "--db", db)
    one_line_error(arena("bot", "check", "nobody-here.py", "--db", db, code=None), "no such file")


def test_resume_refuses_what_it_cannot_change_and_a_finished_run_changes_nothing(folder):
    db = folder / "a.db"
    base = ["tournament", "run", "--bots", f"{RANDOM},{GREEDY}", "--boards", "2", "--seed", "9", "--name", "r",
            "--sandbox", "none", "--db", db]
    first = arena(*base)
    assert first.stdout.startswith("tournament 'r': 2 bots (greedy, random), 1 matches x 2 boards = 2 boards\n")
    one_line_error(arena("tournament", "run", "--resume", "r", "--boards", "5", "--move-ms", "9", "--db", db,
                         code=None), "--boards, --move-ms cannot change")
    dump = lambda: sqlite3.connect(db).execute(  # noqa: E731
        "SELECT status, started, finished, settings FROM tournaments").fetchall()
    before = dump()
    again = arena(*base)
    assert "is finished: nothing to play" in again.stderr and "rank" in again.stdout
    arena("tournament", "run", "--resume", "r", "--db", db, "--sandbox", "rlimit", "--quiet")
    assert dump() == before
    one_line_error(arena(*base[:-2], "--move-ms", "500", "--db", db, code=None), "exists with other time limits")


def test_a_read_only_database_reads_and_refuses_writes_in_one_line(folder, tmp_path):
    db = folder / "ro" / "arena.db"
    arena("tournament", "run", "--bots", f"{RANDOM},{GREEDY}", "--boards", "1", "--name", "ro", "--sandbox", "none",
          "--db", db, "--quiet")
    user = NOBODY if os.geteuid() == 0 else None  # root writes anywhere: read as nobody instead
    if user is None:
        db.parent.chmod(0o555)
        db.chmod(0o444)
    for argv in (["standings"], ["crosstable"], ["matches", "--logs"], ["tournament", "list"], ["bot", "list"],
                 ["export", "ro", "--format", "json"], ["replay", "1"], ["matches", "--json"]):
        assert arena(*argv, "--db", db, user=user).stdout, argv
    one_line_error(arena("bot", "add", GREEDY, "--name", "x", "--db", db, user=user, code=None), "read-only")
    one_line_error(arena("tournament", "run", "--resume", "ro", "--db", db, user=user, code=None), "read-only")
    elsewhere = folder / "ro" / "new" / "arena.db"
    one_line_error(arena("bot", "add", GREEDY, "--db", elsewhere, user=user, code=None),
                   "cannot create the arena database")
    db.parent.chmod(0o755)


def test_a_second_run_is_refused_at_once_and_a_killed_run_shows_interrupted(folder):
    db = folder / "a.db"
    arena("tournament", "run", "--bots", f"{RANDOM},{GREEDY}", "--boards", "1", "--name", "l", "--sandbox", "none",
          "--db", db, "--quiet")
    with schema.open_db(db) as d:
        d.execute("UPDATE tournaments SET status = 'running'")  # as a run that died says
    assert json.loads(arena("tournament", "list", "--json", "--db", db).stdout)[0]["status"] == "interrupted"
    with lock.run_lock(db, 1, "l"):  # a live run holds the lock
        assert json.loads(arena("tournament", "list", "--json", "--db", db).stdout)[0]["status"] == "running"
        one_line_error(arena("tournament", "run", "--resume", "l", "--db", db, code=None),
                       f"tournament 'l' is being played by another arena (pid {os.getpid()})")
        one_line_error(arena("tournament", "delete", "l", "--db", db, code=None), "is being played right now")


def _start_and_wait_for_a_room(db: Path, *extra: str) -> subprocess.Popen:
    """A run of four bots, 4 boards, one table at a time, stopped only once a room is stored."""
    bots = ",".join(str(BOTS / "zwicker" / f"{n}_bot.py") for n in ("random", "greedy", "first", "sweeper"))
    proc = subprocess.Popen([str(ARENA), "tournament", "run", "--bots", bots, "--boards", "4", "--name", "k",
                             "--sandbox", "none", "--concurrency", "1", "--processes", "1", "--db", str(db), *extra],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    while True:  # wait for a stored room (no clock: the database says when)
        if proc.poll() is not None:
            pytest.fail(f"the run ended early: {proc.communicate()}")
        try:
            with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
                if c.execute("SELECT COUNT(*) FROM board_tables").fetchone()[0]:
                    return proc
        except sqlite3.OperationalError:
            pass  # not created yet


def test_ctrl_c_says_what_is_stored_and_how_to_resume(folder):
    for attempt in range(5):  # a run the loaded machine finished before the signal landed: again
        db = folder / f"a{attempt}.db"
        proc = _start_and_wait_for_a_room(db)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=600)
        if not (proc.returncode == 0 and "finished, 24/24 boards" in out + err):
            break
    assert proc.returncode == 130, (out, err)
    last = err.strip().splitlines()[-1]
    assert last.startswith("arena: interrupted: ") and "/24 boards of 'k' are stored" in last, err
    command = last.split("resume with: ")[1]
    assert command == f"arena tournament run --resume k --db {db}"
    assert arena(*command.split()[1:], "--quiet").returncode == 0
    assert json.loads(arena("tournament", "list", "--json", "--db", db).stdout)[0]["status"] == "finished"


def test_ctrl_c_in_a_terminal_stops_an_sprt_test_and_says_how_to_resume(folder):
    """A terminal's Ctrl-C reaches the whole foreground process group, not the arena alone."""
    for attempt in range(5):  # a test the loaded machine finished before the signal landed: again
        db = folder / f"s{attempt}.db"
        proc = subprocess.Popen([str(ARENA), "sprt", GREEDY, RANDOM, "--max-boards", "6", "--batch", "2",
                                 "--sandbox", "none", "--db", str(db)], cwd=ROOT, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True)
        while proc.poll() is None:  # wait for a stored table (no clock: the database says when)
            try:
                with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as c:
                    if c.execute("SELECT COUNT(*) FROM board_tables").fetchone()[0]:
                        os.killpg(proc.pid, signal.SIGINT)
                        break
            except sqlite3.OperationalError:
                pass  # not created yet
        out, err = proc.communicate(timeout=600)
        if proc.returncode != 0:
            break
    assert proc.returncode == 130, (out, err)
    last = err.strip().splitlines()[-1]
    assert last.startswith("arena: interrupted: ") and "boards of SPRT test 'sprt-greedy@1-random@1' are stored" in last
    command = last.split("resume with: ")[1]
    assert command == (f"arena sprt {GREEDY} {RANDOM} --max-boards 6 --batch 2 --sandbox none --db {db} "
                       "--name sprt-greedy@1-random@1")
    assert "after 6 boards" in arena(*command.split()[1:], "--quiet").stdout


def test_a_second_run_meets_the_first_and_kill_9_leaves_no_lock(folder):
    db = folder / "a.db"
    proc = _start_and_wait_for_a_room(db, "--quiet")
    proc.send_signal(signal.SIGSTOP)  # frozen mid-run, lock held: no race with its end
    second = arena("tournament", "run", "--resume", "k", "--db", db, code=None)
    one_line_error(second, f"tournament 'k' is being played by another arena (pid {proc.pid})")
    assert json.loads(arena("tournament", "list", "--json", "--db", db).stdout)[0]["status"] == "running"
    proc.kill()
    proc.communicate()
    listed = json.loads(arena("tournament", "list", "--json", "--db", db).stdout)[0]
    assert listed["status"] == "interrupted" and listed["boards_done"] < 24
    arena("tournament", "run", "--resume", "k", "--db", db, "--quiet")  # the lock went with the process


def test_bot_management(folder, tmp_path):
    db = folder / "a.db"
    arena("bot", "add", RANDOM, "--db", db, "--sandbox", "none")
    arena("bot", "add", GREEDY, "--db", db, "--sandbox", "none")
    lookalike = tmp_path / "x" / "greedy_bot.py"  # same name, other content
    lookalike.parent.mkdir()
    lookalike.write_text(Path(RANDOM).read_text() + "# mine\n")
    refused = arena("tournament", "run", "--bots", f"random,{lookalike}", "--name", "t", "--db", db, code=2)
    assert f"'arena bot add {lookalike} --new-version'" in refused.stderr
    assert "added greedy version 2" in arena("bot", "add", lookalike, "--new-version", "--db", db,
                                             "--sandbox", "none").stdout
    garbage = tmp_path / "garbage.txt"
    garbage.write_text("not a bot\n")
    one_line_error(arena("bot", "add", garbage, "--db", db, "--no-check", code=None), "cannot run")
    mute = tmp_path / "mute_bot.py"
    mute.write_text("import sys\nsys.exit(3)\n")
    one_line_error(arena("bot", "add", mute, "--db", db, "--sandbox", "none", code=None),
                   "did not start and answer hello")
    arena("tournament", "run", "--bots", "random,greedy@1", "--boards", "1", "--name", "t", "--sandbox", "none",
          "--db", db, "--quiet")
    one_line_error(arena("bot", "remove", "random", "--db", db, code=None), "played in t: --force")
    arena("bot", "rename", "greedy", "grabby", "--db", db)
    arena("bot", "remove", "random", "--force", "--db", db)
    names = {r["bot"] for r in json.loads(arena("standings", "t", "--json", "--db", db).stdout)["standings"]}
    assert names == {"random", "grabby"}  # the results stay readable, under the new name
    assert "random" not in arena("bot", "list", "--db", db).stdout
    arena("bot", "disable", "grabby@2", "--db", db)
    one_line_error(arena("tournament", "run", "--all", "--name", "u", "--db", db, code=None), "at least two bots")
    assert Path(f"{db}.locks", "1").exists()  # the run's lock file (unlocked)
    arena("tournament", "delete", "t", "--db", db)
    assert not Path(f"{db}.locks", "1").exists()
    assert json.loads(arena("tournament", "list", "--json", "--db", db).stdout) == []
    arena("bot", "remove", "grabby", "--db", db)
    assert json.loads(arena("bot", "list", "--json", "--db", db).stdout) == []


def test_bot_text_reaches_no_terminal_raw_and_is_stored_unchanged(folder):
    """A bot announcing a name (and writing stderr, and playing a card) made of escape sequences."""
    hostile = str(FAULTY / "escapes.py")
    sys.path.insert(0, str(FAULTY))
    try:
        import escapes
    finally:
        sys.path.remove(str(FAULTY))
    db = folder / "a.db"
    outputs = [arena("bot", "check", hostile, "--deals", "1", "--sandbox", "none", code=1),
               arena("play", hostile, RANDOM, "--boards", "1", "--sandbox", "none")]
    arena("bot", "add", hostile, "--name", "evil", "--db", db, "--sandbox", "none")
    arena("tournament", "run", "--bots", f"evil,{RANDOM}", "--boards", "1", "--name", "e", "--sandbox", "none",
          "--db", db)
    outputs += [arena("matches", "e", "--logs", "--db", db), arena("matches", "e", "--match", "1", "--db", db),
                arena("replay", "1", "--db", db), arena("replay", "1", "--json", "--db", db),
                arena("export", "e", "--format", "json", "--db", db), arena("matches", "--json", "--match", "1",
                                                                          "--db", db)]
    for proc in outputs:
        for text in (proc.stdout, proc.stderr):
            assert not any(ord(c) < 32 and c not in "\n" or 0x7F <= ord(c) < 0xA0 for c in text), text
    assert "\\x1b[2J\\x1b[Hstderr forged" in outputs[2].stdout  # shown, made visible
    assert "'\\x1b]0;pwned\\x07evil" in outputs[0].stdout
    with sqlite3.connect(db) as c:
        assert c.execute("SELECT DISTINCT announced_name, announced_version FROM seats WHERE status != 'ok'").fetchall() == [
            (escapes.NAME, escapes.VERSION)]
        assert "\x1b[2J\x1b[Hstderr forged" in c.execute("SELECT stderr_tail FROM seats WHERE status != 'ok'").fetchone()[0]


def test_a_run_shows_its_header_first_then_interim_standings_in_plain_lines(folder):
    """Not a terminal: no redraws, a progress line per tenth of the way, the standings every 2 boards."""
    bots = ",".join(str(BOTS / "zwicker" / f"{n}_bot.py") for n in ("random", "greedy", "first"))
    proc = arena("tournament", "run", "--bots", bots, "--boards", "2", "--name", "h", "--sandbox", "none",
                 "--concurrency", "1", "--processes", "1", "--report-every", "2", "--db", folder / "a.db",
                 "--seed", str(2**60))
    assert proc.stdout.splitlines()[:2] == [
        "tournament 'h': 3 bots (first, greedy, random), 3 matches x 2 boards = 6 boards",
        f"seed {2**60}, jensen, deal format, clone partners, sandbox none "
        "(not frozen off their turn: bots took turns for the cores, but ran between them)"]
    assert "rank  bot" in proc.stdout.split("tournament 'h': 6 boards")[1]  # the final standings
    assert "\r" not in proc.stderr and "\x1b" not in proc.stderr
    reports = [line for line in proc.stderr.splitlines() if line.startswith("standings after ")]
    assert reports == ["standings after 2/6 boards:", "standings after 4/6 boards:"]
    assert proc.stderr.splitlines()[-1].startswith("[########################] 6/6 boards stored ")
