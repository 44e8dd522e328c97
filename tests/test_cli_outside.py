"""What a newcomer met from outside (the bots of another game, a read-only report, ports, an
output folder, small messages), through the installed `arena` program on a real SQLite file."""

from __future__ import annotations

import http.client
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ARENA = Path(sys.executable).parent / "arena"
BOTS = ROOT / "bots"
NO_ISOLATION = "arena: warning: no sandbox isolates bots here"


def arena(*args, code=0, db=None, **kw) -> subprocess.CompletedProcess:
    argv = [str(ARENA), *map(str, args), *(["--db", str(db)] if db is not None else [])]
    proc = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT, timeout=600, **kw)
    if code is not None:
        assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    return proc


def one_line_error(proc: subprocess.CompletedProcess, *texts: str) -> None:
    err = [line for line in proc.stderr.splitlines() if not line.startswith(NO_ISOLATION)]
    assert proc.returncode == 2 and len(err) == 1 and err[0].startswith("arena: error: "), (proc.returncode, proc.stderr)
    assert all(t in err[0] for t in texts), err[0]


@pytest.fixture(scope="module")
def two_games(tmp_path_factory) -> Path:
    """A database with a one-game bot of each of two games and the arena's any-game random bot,
    registered as `make tournament` and docs/adding-a-game.md register them."""
    db = tmp_path_factory.mktemp("two") / "arena.db"
    arena("bot", "add", BOTS / "zwicker" / "random_bot.py", "--name", "random", db=db)
    for name in ("random", "rule"):
        arena("bot", "add", BOTS / "zwicken" / f"zwicken_{name}_bot.py", "--name", f"zwicken_{name}", "--game",
              "zwicken", db=db)
    arena("bot", "add", BOTS / "random_bot.py", "--name", "any-random", "--game", "zwicken", db=db)
    return db


def test_a_bot_of_another_game_is_refused_in_one_line(two_games):
    ran = arena("tournament", "run", "--game", "zwicken", "--players", "3", "--bots",
                "zwicken_random,zwicken_rule,random", "--boards", "1", "--name", "wrong", code=None, db=two_games)
    one_line_error(ran, "'random@1'", "zwicker", "not zwicken")
    sprt = arena("sprt", "zwicken_rule", "random", "--game", "zwicken", "--max-boards", "2", code=None, db=two_games)
    one_line_error(sprt, "'random@1'", "not zwicken")
    assert "wrong" not in arena("tournament", "list", db=two_games).stdout
    play = arena("play", "--game", "zwicken", "random", "zwicken_rule", "zwicken_random", code=None, db=two_games)
    one_line_error(play, "'random@1'", "not zwicken")


def test_all_takes_the_bots_of_the_game_and_the_anchor_is_of_the_game(two_games):
    arena("tournament", "run", "--game", "zwicken", "--players", "3", "--all", "--boards", "1", "--name", "all3",
          "--seed", "13371337133713371337", db=two_games)
    standings = json.loads(arena("standings", "all3", "--json", db=two_games).stdout)
    assert {r["bot"] for r in standings["standings"]} == {"zwicken_random", "zwicken_rule", "any-random"}
    assert standings["anchor"] == "zwicken_random"  # the game's own anchor, by (name, game)
    bots = {b["name"]: b for b in json.loads(arena("bot", "list", "--json", db=two_games).stdout)}
    assert bots["random"]["games"] == ["zwicker"] and bots["any-random"]["games"] is None


@pytest.fixture(scope="module")
def played(two_games) -> Path:
    arena("tournament", "run", "--game", "zwicken", "--players", "3", "--bots", "zwicken_random,zwicken_rule,any-random",
          "--boards", "1", "--name", "small", "--seed", "13371337133713371337", db=two_games)
    return two_games


def test_report_only_reads_the_database(played, tmp_path):
    ro = tmp_path / "ro"
    ro.mkdir()
    copy = ro / "arena.db"
    copy.write_bytes(played.read_bytes())
    copy.chmod(0o444)
    ro.chmod(0o555)
    before = copy.read_bytes()
    try:  # (as root the modes do not bind: then the unchanged file is what shows it only read)
        wrote = arena("report", "small", "--output", tmp_path / "site", db=copy)
        assert (tmp_path / "site" / "index.html").is_file() and "wrote" in wrote.stdout
        assert copy.read_bytes() == before and sorted(p.name for p in ro.iterdir()) == ["arena.db"]
    finally:
        ro.chmod(0o755)


def test_report_output_a_file_or_a_foreign_folder_is_refused(played, tmp_path):
    (tmp_path / "afile").write_text("mine")
    one_line_error(arena("report", "small", "--output", tmp_path / "afile", code=None, db=played), "not a folder")
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    one_line_error(arena("report", "small", "--output", foreign, code=None, db=played), "--force")
    assert not (foreign / "index.html").exists()
    arena("report", "small", "--output", foreign, "--force", db=played)
    assert (foreign / "index.html").is_file() and (foreign / "notes.txt").read_text() == "mine"
    arena("report", "small", "--output", foreign, db=played)  # an earlier report is written over


@pytest.mark.parametrize("command", [("serve",), ("league", "serve")])
def test_a_port_out_of_range_is_one_line(command, tmp_path):
    ran = arena(*command, "--port", "99999", "--db", tmp_path / "x.db", code=None)
    one_line_error(ran, "--port", "65535")


@pytest.mark.parametrize("listing", [("replay", "1"), ("standings", "small"), ("tournament", "list")])
def test_a_listing_into_a_closed_pipe_exits_quietly(played, listing):
    """`arena replay 1 | head -1`: the reader has what it wanted (here it reads nothing at all)."""
    argv = " ".join([str(ARENA), *listing, "--db", str(played)])
    ran = subprocess.run(["bash", "-c", f"{argv} | true; echo status ${{PIPESTATUS[0]}} >&2"], capture_output=True,
                         text=True, timeout=600)
    assert ran.stderr.splitlines() == ["status 0"], ran.stderr


def test_variant_and_players_that_disagree_are_refused(two_games):
    ran = arena("tournament", "run", "--game", "zwicken", "--variant", "scharf:players=4", "--players", "3", "--bots",
                "zwicken_random,zwicken_rule,any-random", "--boards", "1", "--name", "clash", code=None, db=two_games)
    one_line_error(ran, "players=4", "--players 3")


def test_resuming_a_finished_tournament_plays_nothing_and_says_so(played):
    ran = arena("tournament", "run", "--resume", "small", db=played)
    assert "playing the rest" not in ran.stdout and "is finished: nothing to play" in ran.stderr


def test_sprt_says_the_board_count_once(played):
    ran = arena("sprt", "zwicken_rule", "zwicken_random", "--game", "zwicken", "--players", "3", "--max-boards", "1",
                "--elo0", "0", "--elo1", "400", "--seed", "13371337133713371337", "--quiet", db=played)
    line = next(line for line in ran.stdout.splitlines() if "after 1 board" in line)
    assert line.count("1 board") == 1, line


def test_serve_answers_json_at_its_root_when_asked(played):
    proc = subprocess.Popen([str(ARENA), "serve", "--db", str(played), "--port", "0"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)
    try:
        port = int(re.search(r"http://127\.0\.0\.1:(\d+)/", proc.stdout.readline())[1])
        for path, accept in (("/", "application/json"), ("/?format=json", "*/*")):
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            conn.request("GET", path, headers={"Host": f"127.0.0.1:{port}", "Accept": accept})
            r = conn.getresponse()
            assert r.status == 200 and r.getheader("content-type").startswith("application/json"), path
            assert "small" in r.read().decode()
            conn.close()
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        conn.request("GET", "/", headers={"Host": f"127.0.0.1:{port}", "Accept": "text/html"})
        assert conn.getresponse().read().lstrip().lower().startswith(b"<!doctype html")
        conn.close()
    finally:
        proc.terminate()
        proc.wait()
        proc.stdout.close()
        assert "Traceback" not in proc.stderr.read()
        proc.stderr.close()


def test_the_anchor_is_found_by_its_file_under_another_name(tmp_path):
    db = tmp_path / "arena.db"
    arena("bot", "add", BOTS / "zwicker" / "random_bot.py", "--name", "my-random", db=db)
    arena("bot", "add", BOTS / "zwicker" / "greedy_bot.py", "--name", "greedy", db=db)
    arena("tournament", "run", "--bots", "my-random,greedy", "--boards", "1", "--name", "z",
          "--seed", "13371337133713371337", db=db)
    assert json.loads(arena("standings", "z", "--json", db=db).stdout)["anchor"] == "my-random"
