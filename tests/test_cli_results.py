"""The results commands through typer's CliRunner, on real SQLite files."""

from __future__ import annotations

import csv
import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from arena.cli import _register, app, main
from arena.results import read, registry, schema, write
from tests.test_storage import fake_table

_register()
runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent


def run(*args, ok=True):
    result = runner.invoke(app, [str(a) for a in args])
    if ok:
        assert result.exit_code == 0, (result.output, result.exception)
    return result


@pytest.fixture
def dbpath(tmp_path):
    return tmp_path / "res" / "arena.db"


@pytest.fixture
def played(dbpath, tmp_path):
    """A finished clone round robin of three bots, 3 boards per match: alpha > beta > random."""
    src = tmp_path / "src"
    src.mkdir()
    for n in ("alpha", "beta", "random"):
        (src / f"{n}.py").write_text(f"# {n}\n")
        run("bot", "add", src / f"{n}.py", "--db", dbpath, "--no-check")
    db = schema.open_db(dbpath)
    ids = {b["name"]: b["id"] for b in registry.list_bots(db)}
    a, b, r = ids["alpha"], ids["beta"], ids["random"]
    sched = [([a, a], [b, b]), ([a, a], [r, r]), ([b, b], [r, r])]
    tid = write.create_tournament(
        db, "cup", seed=42, variant={"preset": "jensen"}, format="deal", partners="clone", boards=3,
        settings={}, bot_ids=[a, b, r], matches=sched,
    )
    for match_no, (ta, tb) in enumerate(sched, start=1):
        for board_no in (1, 2, 3):
            for swapped in (False, True):
                a_pts, b_pts = (18, 12) if board_no < 3 else (15, 15)
                pts = (b_pts, a_pts) if swapped else (a_pts, b_pts)
                # beta (team A of match 3, seat 0 when not swapped) times out at 2 of its 12 tables
                fault = (0, "timeout") if (match_no, swapped) == (3, False) and board_no < 3 else None
                record = fake_table(ta, tb, swapped, pts, fault=fault)
                write.record_table(db, tid, match_no, board_no, swapped, board_no, record)
    write.set_status(db, tid, "finished")
    write.compute_and_store_ratings(db, tid, bootstrap=100)
    db.close()
    return dbpath


def test_bot_add_and_list(dbpath, tmp_path):
    src = tmp_path / "greedy_bot.py"
    src.write_text("print('v1')\n")
    out = run("bot", "add", src, "--name", "greedy", "--db", dbpath, "--no-check").output
    assert out.startswith("added greedy version 1 (id 1, sha256 ")
    assert run("bot", "add", src, "--name", "greedy", "--db", dbpath, "--no-check").output.startswith(
        "already registered as greedy version 1")
    src.write_text("print('v2')\n")
    refused = run("bot", "add", src, "--name", "greedy", "--db", dbpath, "--no-check", ok=False)
    assert refused.exit_code == 1 and "--new-version" in str(refused.exception)
    bot = json.loads(run("bot", "add", src, "--name", "greedy", "--command", "python3", "--db", dbpath,
                         "--json", "--no-check", "--new-version").output)
    assert (bot["version"], bot["command"]) == (2, "python3")
    assert Path(bot["path"]).read_text() == "print('v2')\n"
    listed = json.loads(run("bot", "list", "--db", dbpath, "--json").output)
    assert [(b["name"], b["version"]) for b in listed] == [("greedy", 1), ("greedy", 2)]
    text = run("bot", "list", "--db", dbpath).output
    assert "greedy" in text and "python3" in text


def test_env_chooses_the_database(dbpath, tmp_path, monkeypatch):
    monkeypatch.setenv("ARENA_DB", str(dbpath))
    src = tmp_path / "x.py"
    src.write_text("pass\n")
    run("bot", "add", src, "--no-check")
    assert dbpath.exists()
    assert json.loads(run("bot", "list", "--json").output)[0]["name"] == "x"


def test_standings_json_and_text(played):
    doc = json.loads(run("standings", "--db", played, "--json").output)
    assert (doc["errors"], doc["anchor"], doc["resampling"], doc["pool_flags"]) == ("pool", "random", "deal", [])
    assert doc["bootstrap_method"] == "refit"
    assert doc["prior"] == {"virtual_draws": 1, "opponent": 0, "fit": "MAP"}
    rows = doc["standings"]
    assert [r["bot"] for r in rows] == ["alpha", "beta", "random"]
    assert rows[2]["flags"] == ["anchor"] and all(r["errors"] == "pool" for r in rows)
    # each board: team A's result in each room, and their sum (alpha v beta, board 1: won both)
    assert {k: doc["boards"][0][k] for k in ("match_no", "board_no", "rooms", "score", "result")} == {
        "match_no": 1, "board_no": 1, "rooms": [1.0, 1.0], "score": 2.0, "result": 1.0}
    assert [b["score"] for b in doc["boards"]].count(1.0) == 3  # the drawn boards 3: a draw in each room
    for key in ("rank", "bot", "elo", "ci_low", "ci_high", "boards", "wins", "draws", "losses", "faults"):
        assert all(key in r for r in rows), key
    alpha, beta, rnd = rows
    assert (alpha["boards"], alpha["wins"], alpha["draws"], alpha["losses"]) == (6, 4, 2, 0)
    assert rnd["elo"] == 0 and alpha["elo"] > beta["elo"] > 0
    assert (beta["tables"], beta["faults"], beta["fault_flag"]) == (12, 2, True)
    assert (rnd["tables"], rnd["faults"], rnd["fault_flag"]) == (12, 0, False)
    text = run("standings", "cup", "--db", played).output
    assert text.splitlines()[0].startswith("cup: finished, 9/9 boards, jensen")
    assert "alpha" in text and "vs pool mean, 95%" in text
    assert "2 !" in text and "!: faulted in more than 10% of its tables." in text
    assert "vs pool mean: a bot's Elo minus the pool's mean (+" in text and "penalised (MAP) Bradley-Terry" in text
    assert "not a test against random" in text
    assert "bootstrap over deals (each resample refitted)" in text
    table = text.splitlines()[3:6]  # LOS with one decimal, none below the last row
    assert [bool(re.search(r" \d{1,3}\.\d% ", line)) for line in table] == [True, True, False]
    anchored = run("standings", "cup", "--db", played, "--errors", "anchor").output
    assert "relative to random, the anchor, whose own uncertainty it carries (--errors anchor)" in anchored
    assert "95% interval" in anchored and "vs pool mean" not in anchored
    assert anchored.splitlines()[5].split()[3] == "anchor" and "anchor" in table[2]
    pool = json.loads(run("standings", "--db", played, "--json", "--errors", "anchor").output)
    assert pool["standings"][2]["ci_low"] is None and rows[2]["ci_low"] is not None
    assert [r["elo"] for r in pool["standings"]] == [r["elo"] for r in rows]


def test_crosstable_matches_export(played, tmp_path):
    ct = json.loads(run("crosstable", "--db", played, "--json").output)
    assert ct["bots"] == ["alpha", "beta", "random"]
    assert ct["rows"][0]["results"]["beta"]["score"] == 2.5
    text = run("crosstable", "cup", "--db", played).output
    assert "2.5/3" in text and "0.5/3" in text
    ms = json.loads(run("matches", "--db", played, "--json", "--bot", "random").output)
    assert [m["match_no"] for m in ms] == [2, 3]
    assert [m["faults"] for m in ms] == [0, 2]
    assert "beta+" not in run("matches", "--db", played).output  # clone teams print once
    one = json.loads(run("matches", "cup", "--match", "1", "--db", played, "--json").output)
    deal_id = one["boards"][0]["tables"][0]["deal_ids"][0]
    with schema.open_db(played) as db:
        assert read.get_deal(db, deal_id)["board_no"] == 1
    assert "deal ids" in run("matches", "cup", "--match", "1", "--db", played).output
    rows = list(csv.DictReader(io.StringIO(run("export", "cup", "--format", "csv", "--db", played).output)))
    assert len(rows) == 18 and rows[0]["entrants"] == "alpha beta" and rows[0]["board_scores"] == "1 0"
    out = tmp_path / "exports" / "cup.json"
    run("export", "cup", "--format", "json", "--output", out, "--db", played)
    doc = json.loads(out.read_text())
    assert doc["tournament"]["name"] == "cup" and len(doc["tables"]) == 18
    listed = json.loads(run("tournament", "list", "--db", played, "--json").output)
    assert [(t["name"], t["status"], t["boards_done"]) for t in listed] == [("cup", "finished", 9)]
    assert "cup" in run("tournament", "list", "--db", played).output


def test_errors_are_one_line(played, tmp_path, capsys):
    cases = [
        (["standings", "nope", "--db", str(played)], "unknown tournament 'nope' (known: cup)"),
        (["standings", "--db", str(tmp_path / "missing.db")], "no arena database at"),
        (["matches", "cup", "--bot", "zed", "--db", str(played)], "unknown bot 'zed' in this tournament"),
        (["export", "cup", "--format", "xml", "--db", str(played)], "unknown export format 'xml'"),
        (["bot", "add", str(tmp_path / "nothing.py"), "--db", str(played)], "no bot at"),
    ]
    for argv, message in cases:
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        err = capsys.readouterr().err  # less the line a machine without isolation prints first
        err = "".join(line for line in err.splitlines(keepends=True)
                      if not line.startswith("arena: warning: no sandbox isolates bots here"))
        assert exit_.value.code == 2, argv
        assert err.startswith("arena: error: ") and message in err, err
        assert err.count("\n") == 1, err


def test_corrupt_database_is_one_line(played, capsys):
    with schema.open_db(played) as db:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = bytearray(played.read_bytes())
    for page in range(3, len(data) // 4096):  # every page past the schema's (some may be free ones)
        data[4096 * page: 4096 * page + 400] = b"\xfe" * 400
    played.write_bytes(bytes(data))
    with pytest.raises(SystemExit) as exit_:
        main(["export", "cup", "--format", "json", "--db", str(played)])
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "corrupt" in err and err.count("\n") == 1, err


def test_every_command_help_has_an_example():
    for argv in (["bot", "add"], ["bot", "list"], ["bot", "remove"], ["bot", "rename"], ["bot", "disable"],
                 ["bot", "enable"], ["tournament", "list"], ["tournament", "delete"], ["standings"], ["crosstable"],
                 ["matches"], ["export"], ["sprt"], ["los"]):
        out = run(*argv, "--help").output
        assert "Example: arena " in out, argv
        assert "--db" in out, argv


def test_real_process_exit_code(tmp_path):
    """The installed-style entry point: one line on stderr, exit code 2, no traceback."""
    proc = subprocess.run(
        [sys.executable, "-m", "arena", "standings", "--db", str(tmp_path / "none.db")],
        capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"},
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("arena: error: no arena database at") and "Traceback" not in proc.stderr


def test_standings_of_an_empty_tournament(dbpath, tmp_path):
    src = tmp_path / "solo.py"
    src.write_text("pass\n")
    run("bot", "add", src, "--db", dbpath, "--no-check")
    with schema.open_db(dbpath) as db:
        write.create_tournament(db, "lonely", seed=1, variant={"preset": "jensen"}, format="deal",
                                  partners="clone", boards=1, settings={}, bot_ids=[1], matches=[])
    rows = json.loads(run("standings", "--db", dbpath, "--json").output)["standings"]
    assert rows == [{**rows[0], "rank": None, "bot": "solo", "elo": None, "ci_low": None, "boards": 0}]
    text = run("standings", "--db", dbpath).output
    assert "lonely: created, 0/0 boards" in text
    assert text.splitlines()[3].split()[:5] == ["–", "solo", "–", "–", "–"]


def test_a_bot_without_boards_is_unranked_and_last(dbpath, tmp_path):
    """Mid-run, a bot that has not played yet has no rank, no Elo, no interval and no LOS (null in
    JSON, – in text) and comes after every bot that played, whatever the prior would give it."""
    src = tmp_path / "src"
    src.mkdir()
    for n in ("alpha", "idle", "random"):
        (src / f"{n}.py").write_text(f"# {n}\n")
        run("bot", "add", src / f"{n}.py", "--db", dbpath, "--no-check")
    with schema.open_db(dbpath) as db:
        ids = {b["name"]: b["id"] for b in registry.list_bots(db)}
        a, i, r = ids["alpha"], ids["idle"], ids["random"]
        sched = [([a, a], [r, r]), ([i, i], [a, a]), ([i, i], [r, r])]
        tid = write.create_tournament(db, "mid", seed=1, variant={"preset": "jensen"}, format="deal",
                                      partners="clone", boards=2, settings={}, bot_ids=[a, i, r], matches=sched)
        for board_no in (1, 2):  # random wins one, loses one: idle at 0 would rank above it
            for swapped in (False, True):
                pts = (18, 12) if (board_no == 1) != swapped else (12, 18)
                write.record_table(db, tid, 1, board_no, swapped, board_no, fake_table([a, a], [r, r], swapped, pts))
    doc = json.loads(run("standings", "mid", "--db", dbpath, "--json").output)
    rows = {x["bot"]: x for x in doc["standings"]}
    assert [x["bot"] for x in doc["standings"]][-1] == "idle"
    assert {k: rows["idle"][k] for k in ("rank", "elo", "ci_low", "ci_high", "los_next", "boards")} == {
        "rank": None, "elo": None, "ci_low": None, "ci_high": None, "los_next": None, "boards": 0}
    assert [x["rank"] for x in doc["standings"]] == [1, 2, None]
    assert doc["standings"][1]["los_next"] is None  # nothing below it to be superior to
    text = run("standings", "mid", "--db", dbpath).output
    last = text.splitlines()[5]
    assert last.split()[:5] == ["–", "idle", "–", "–", "–"], text
    assert "–: no boards yet, so no rank, Elo or interval." in text


def test_standings_mark_what_the_boards_cannot_rate(dbpath, tmp_path):
    """alpha wins every board, random loses every one: "> X" and "< X" in place of their
    intervals, and a line under the table says the pool is separated."""
    src = tmp_path / "src"
    src.mkdir()
    for n in ("alpha", "beta", "random"):
        (src / f"{n}.py").write_text(f"# {n}\n")
        run("bot", "add", src / f"{n}.py", "--db", dbpath, "--no-check")
    with schema.open_db(dbpath) as db:
        a, b, r = (bot["id"] for bot in registry.list_bots(db))
        sched = [([a, a], [b, b]), ([a, a], [r, r]), ([b, b], [r, r])]
        tid = write.create_tournament(db, "sep", seed=1, variant={"preset": "jensen"}, format="deal",
                                      partners="clone", boards=2, settings={}, bot_ids=[a, b, r], matches=sched)
        for match_no, (ta, tb) in enumerate(sched, start=1):
            for board_no in (1, 2):
                for swapped in (False, True):
                    pts = (12, 18) if swapped else (18, 12)
                    write.record_table(db, tid, match_no, board_no, swapped, board_no, fake_table(ta, tb, swapped, pts))
    text = run("standings", "sep", "--db", dbpath).output
    lines = text.splitlines()
    assert lines[3].split()[1] == "alpha" and "  > +" in lines[3] and " .. " not in lines[3]
    assert "  < " in lines[5] and "random" in lines[5]
    assert any(line.startswith("Separated: ") for line in lines)
    assert any(line.startswith("> X, < X: won (lost) every board") for line in lines)
