"""`arena tournament run` and `arena replay` through the real command line, on real bots."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import _register, app
from arena.results import read, replay, schema

_register()
runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "bots"


def run(*args, ok=True):
    result = runner.invoke(app, [str(a) for a in args])
    if ok:
        assert result.exit_code == 0, (result.output, result.exception)
    return result


@pytest.fixture
def dbpath(open_dir):
    """A database in a folder the sandboxed bots may enter (they run from stored copies there)."""
    return open_dir / "arena.db"


def test_run_prints_standings_then_replay_and_resume(dbpath):
    bots = f"{BOTS / 'zwicker' / 'random_bot.py'},{BOTS / 'zwicker' / 'greedy_bot.py'}"
    out = run("tournament", "run", "--bots", bots, "--boards", "2", "--seed", "3", "--name", "cup",
              "--db", dbpath).output
    assert "tournament 'cup': 2 boards" in out and "greedy" in out and "random" in out
    standings = json.loads(run("standings", "cup", "--json", "--db", dbpath).output)["standings"]
    assert [row["bot"].split("@")[0] for row in standings][-1] in ("random", "greedy")
    assert sum(row["boards"] for row in standings) == 4
    # The same command again finds the finished tournament and plays nothing more.
    again = run("tournament", "run", "--bots", bots, "--boards", "2", "--seed", "3", "--name", "cup",
                "--db", dbpath).output
    assert "2 boards" in again
    db = schema.open_db(dbpath, create=False)
    deal_id = db.execute("SELECT MIN(id) FROM deals").fetchone()[0]
    doc = replay.document(db, deal_id)
    assert doc["schema"] == replay.SCHEMA and len(doc["moves"]) == 52
    frames = list(replay.render(doc, seat=1))
    assert frames[-1].startswith("score: ") and str(doc["points"]) in frames[-1]
    shown = run("replay", deal_id, "--seat", "0", "--db", dbpath).output
    assert "plays" in shown and "hand 1: " in shown and "score:" in shown
    # For a bug report: the deal as a document (its seed a string), shown again from the file alone.
    saved = dbpath.parent / "deal.json"
    saved.write_text(run("replay", deal_id, "--json", "--db", dbpath).output)
    assert json.loads(saved.read_text())["seed"] == str(doc["seed"])
    assert run("replay", saved, "--seat", "0").output == shown


@pytest.mark.parametrize("args, message", [
    (["--bots", "nobody,somebody", "--name", "x"], "unknown bot 'nobody'"),
    (["--bots", "bots/zwicker/random_bot.py"], "give the tournament a --name"),
    (["--name", "x"], "name the bots with --bots"),
    (["--bots", "bots/zwicker/random_bot.py,bots/zwicker/greedy_bot.py", "--name", "x", "--variant", "skat"], "unknown preset"),
    (["--bots", "bots/zwicker/random_bot.py,bots/zwicker/greedy_bot.py", "--name", "x", "--variant", "jensen:players=3"],
     "a table of 3 players needs at least 3 bots"),  # three play alone: a match is three bots
    (["--bots", "bots/zwicker/random_bot.py,bots/zwicker/greedy_bot.py", "--name", "x", "--format", "rubber"], "--format"),
    (["--bots", "bots/zwicker/random_bot.py,bots/zwicker/greedy_bot.py", "--name", "x", "--sandbox", "jail"], "unknown sandbox"),
    (["--resume", "ghost"], "no tournament 'ghost' to resume"),
    (["--bots", "bots/zwicker/random_bot.py", "--name", "x"], "at least two bots"),
    (["--bots", "bots/zwicker/random_bot.py,bots/zwicker/greedy_bot.py", "--name", "x", "--processes", "0"], "--processes"),
    (["--bots", "bots/zwicker/random_bot.py,bots/zwicker/greedy_bot.py", "--name", "x", "--elo-k", "16"], "--elo-k is gone"),
])
def test_bad_arguments_are_one_clear_line(dbpath, args, message, capsys):
    from arena.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["tournament", "run", *args, "--db", str(dbpath), "--quiet"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_replay_of_an_unknown_deal(dbpath, capsys):
    from arena.cli import main

    schema.open_db(dbpath).close()
    with pytest.raises(SystemExit):
        main(["replay", "99", "--db", str(dbpath)])
    assert "unknown deal 99" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["tournament", "delete"], "Missing argument"),
    (["standings", "--bogus"], "No such option: --bogus"),
    (["tournament", "run", "--boards", "x"], "Invalid value for '--boards'"),
])
def test_usage_errors_are_a_message_not_a_traceback(argv, message, capsys):
    from arena.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and message in err and "Traceback" not in err


@pytest.mark.parametrize("mode", ["fork", "bwrap"])
def test_a_sandbox_that_cannot_run_here_is_one_line_and_stores_nothing(dbpath, monkeypatch, capsys, mode):
    from arena.cli import main
    from arena.process import forking, sandbox

    monkeypatch.setattr(forking, "problem", lambda: "the fork sandbox needs root")
    monkeypatch.setattr(sandbox, "bwrap_problem", lambda: "bwrap is not installed")
    bots = f"{BOTS / 'zwicker' / 'random_bot.py'},{BOTS / 'zwicker' / 'greedy_bot.py'}"
    with pytest.raises(SystemExit) as exit_info:
        main(["tournament", "run", "--bots", bots, "--boards", "1", "--name", "cup", "--sandbox", mode,
              "--db", str(dbpath), "--quiet"])
    said = {"fork": "sandbox fork: the fork sandbox needs root", "bwrap": "sandbox bwrap: bwrap is not installed"}
    assert exit_info.value.code == 2 and capsys.readouterr().err == f"arena: error: {said[mode]}\n"
    assert not dbpath.exists() or read.list_tournaments(schema.open_db(dbpath)) == []


@pytest.mark.parametrize("args", [["--resume", "league"],
                                  ["--bots", "bots/zwicker/random_bot.py,bots/zwicker/greedy_bot.py", "--name", "league"]])
def test_a_leagues_ladder_is_not_played_as_a_tournament(dbpath, args, capsys):
    """The ladder is a tournament (settings["league"]) whose matches its server adds as it plays:
    `tournament run` would play it as one with a fixed list, so it is refused, and nothing changes."""
    from arena.cli import main
    from arena.league import store

    db = schema.open_db(dbpath)
    tid = store.league_tournament(db)["id"]
    before = read.get_tournament(db, tid)
    db.close()
    with pytest.raises(SystemExit) as exit_info:
        main(["tournament", "run", *args, "--db", str(dbpath), "--quiet"])
    err = capsys.readouterr().err
    assert exit_info.value.code == 2
    assert "tournament 'league' is a league's ladder: 'arena league serve' plays it" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert read.get_tournament(schema.open_db(dbpath, create=False), tid) == before
