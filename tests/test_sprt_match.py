"""`arena sprt` with real bot processes on real SQLite files: verdicts, resuming after a kill, and
`arena los`."""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import trio

from arena.errors import ArenaError
from arena.results import present, read, schema, sprt_tests
from arena.results.sprt import SPRT, pentanomial
from arena.cli.progress import SprtLines
from arena.tournaments import sprt
from arena.tournaments.runner import Settings
from tests.test_cli_results import dbpath, played, run  # noqa: F401  (fixtures)

ROOT = Path(__file__).resolve().parent.parent
GREEDY, RANDOM = str(ROOT / "bots" / "zwicker" / "greedy_bot.py"), str(ROOT / "bots" / "zwicker" / "random_bot.py")


SEED = 2_718_281_828_459
"""The deals of every test here: a verdict's board depends on them (a drawn seed made the H1 test flaky)."""


def play(db, new, old, test, **kw):
    kw.setdefault("settings", Settings(seed=SEED))
    tid = sprt.prepare(db, kw.pop("name", None), new, old, test, **kw)
    out = io.StringIO()
    return tid, trio.run(lambda: sprt.run(db, tid, sandbox="none", report=SprtLines(out))), out.getvalue()


def test_decide_stops_at_the_first_board_that_leaves_the_bounds():
    test = SPRT(0, 50)
    state, steps = sprt.decide(test, [2.0] * 30)
    assert (state.verdict, state.boards, state.counts) == ("H1", 23, (0, 0, 0, 0, 23))  # module docstring: 23
    assert [s.verdict for s in steps] == [None] * 22 + ["H1"] and state.llr >= test.upper
    state, _ = sprt.decide(test, [1.0] * 30)
    assert (state.verdict, state.boards) == ("H0", 20)
    state, _ = sprt.decide(test, [2.0, 0.0] * 30, max_boards=10)
    assert (state.verdict, state.boards, state.counts) == ("limit", 10, (5, 0, 0, 0, 5))
    assert sprt.decide(test, [2.0] * 5)[0].verdict is None


def test_greedy_against_random_accepts_h1_quickly(tmp_path):
    db = schema.open_db(tmp_path / "arena.db")
    tid, result, out = play(db, GREEDY, RANDOM, SPRT(0, 50), batch=12)
    assert result["verdict"] == "H1" and result["new"] == "greedy" and result["old"] == "random"
    assert result["boards"] <= 24 and result["played"] == 24  # two batches
    scores = sprt_tests.board_scores(db, tid)
    assert list(result["counts"]) == list(pentanomial(scores[: result["boards"]]))  # recounted from the tables
    assert result["llr"] >= SPRT(0, 50).upper
    lines = out.splitlines()
    assert lines[1].startswith("board    1  score ") and "bounds [-2.94, +2.94]" in lines[1]
    assert len(lines) == 1 + result["boards"]  # a line per counted board, after the header
    assert read.get_tournament(db, tid)["status"] == "finished"
    assert [r["bot"] for r in read.standings(db, tid)] == ["greedy", "random"]  # rated once, at the end
    db.close()


def test_a_bot_against_itself_accepts_h0(tmp_path):
    db = schema.open_db(tmp_path / "arena.db")
    _tid, result, _out = play(db, GREEDY, "greedy", SPRT(0, 50), batch=12)
    assert (result["verdict"], result["new"], result["old"]) == ("H0", "greedy", "greedy")
    assert result["llr"] <= SPRT(0, 50).lower
    # the same test again: decided already, nothing more played; other hypotheses: another test
    again = play(db, GREEDY, "greedy", SPRT(0, 50), batch=12)[1]
    assert (again["boards"], again["played"]) == (result["boards"], result["played"])
    with pytest.raises(ArenaError, match="exists with elo1=50.0, not 40.0"):
        sprt.prepare(db, None, GREEDY, "greedy", SPRT(0.0, 40.0), batch=12)
    with pytest.raises(ArenaError, match="started with another OLD bot than random@1"):
        sprt.prepare(db, "sprt-greedy@1-greedy@1", GREEDY, RANDOM, SPRT(0.0, 50.0), batch=12)
    db.close()


def test_a_board_limit_stops_without_a_verdict_and_a_higher_one_goes_on(tmp_path):
    db = schema.open_db(tmp_path / "arena.db")
    tid, result, _ = play(db, GREEDY, RANDOM, SPRT(0, 10), batch=3, max_boards=4, name="capped")
    assert (result["verdict"], result["boards"], result["played"]) == ("limit", 4, 4)
    _, more, _ = play(db, GREEDY, RANDOM, SPRT(0, 10), batch=3, max_boards=7, name="capped")
    assert (more["verdict"], more["boards"], more["played"]) == ("limit", 7, 7)
    assert [t["board_no"] for t in read.board_outcomes(db, tid)] == list(range(7))
    db.close()


def test_killed_mid_run_it_resumes_and_the_counts_go_on(tmp_path):
    """kill -9 once the first batch is counted; the same command again plays what is missing."""
    dbfile = tmp_path / "arena.db"
    argv = [sys.executable, "-m", "arena", "sprt", GREEDY, RANDOM, "--elo1", "50", "--batch", "4",
            "--sandbox", "none", "--db", str(dbfile)]
    first = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    seen = []
    for line in first.stdout:
        seen.append(line)
        if line.startswith("board    4"):
            os.kill(first.pid, signal.SIGKILL)
            break
    first.wait()
    assert first.returncode == -signal.SIGKILL, "".join(seen) + first.stderr.read()
    first.stdout.close()
    first.stderr.close()
    db = schema.open_db(dbfile)
    before = {r["id"]: r["started"] for r in db.query("SELECT id, started FROM board_tables WHERE board_no < 4")}
    assert len(before) == 8
    db.close()
    second = subprocess.run(argv, capture_output=True, text=True, cwd=ROOT)
    assert second.returncode == 0, second.stderr
    lines = second.stdout.splitlines()
    assert lines[1].startswith("resuming after ") and "H1 accepted" in second.stdout
    resumed_at = int(lines[1].split()[2])
    assert resumed_at >= 4 and lines[2].startswith(f"board {resumed_at + 1:4d}")  # no board counted twice
    db = schema.open_db(dbfile)
    tid = read.get_tournament(db)["id"]
    test = sprt_tests.get(db, tid)
    assert test["verdict"] == "H1" and sum(test["counts"]) == test["boards"]
    assert list(test["counts"]) == list(pentanomial(sprt_tests.board_scores(db, tid)[: test["boards"]]))
    after = {r["id"]: r["started"] for r in db.query("SELECT id, started FROM board_tables WHERE board_no < 4")}
    assert after == before  # the boards played before the kill were kept, not played again
    db.close()


def test_los_prints_the_whole_matrix(played):  # noqa: F811
    table = json.loads(run("los", "--db", played, "--json").output)
    assert table["bots"] == ["alpha", "beta", "random"]
    rows = json.loads(run("standings", "--db", played, "--json").output)["standings"]
    matrix = table["matrix"]
    assert [matrix[i][i] for i in range(3)] == [None] * 3
    for i in range(2):  # the cell right of the diagonal is the standings' LOS column
        assert matrix[i][i + 1] == pytest.approx(rows[i]["los_next"])
        assert matrix[i + 1][i] == pytest.approx(1 - rows[i]["los_next"])
    text = run("los", "cup", "--db", played).output
    assert text.splitlines()[3].split()[:3] == ["1", "alpha", "x"] and "%" in text.splitlines()[3]


CRASHER = str(ROOT / "tests" / "hostile" / "crash_mid_deal.py")


def test_a_test_whose_tables_fault_stops_and_says_whose(tmp_path):
    """A bot that crashes at every table forfeits them all: the test measures its faults, not its
    play. Past the fault limit (10% of the tables by default), checked after each batch, it stops
    with the verdict "faults", and the summary, the standings and their JSON count the tables."""
    db = schema.open_db(tmp_path / "arena.db")
    tid, result, out = play(db, CRASHER, RANDOM, SPRT(0, 50), batch=2)
    assert (result["verdict"], result["played"], result["max_faults"]) == ("faults", 2, sprt.MAX_FAULTS)
    assert result["said"] == "stopped without a decision: more than 10% of the tables ended in a fault"
    assert result["faults"] == {"tables": 4, "faulted": 4, "by_bot": {"crash_mid_deal": 4}, "arena": 0}
    assert "stopped: Faults: 4 of 4 tables ended in a fault (100.0%): crash_mid_deal 4." in out
    doc = read.standings_document(db, tid)
    assert doc["faults"] == result["faults"]
    assert "Faults: 4 of 4 tables ended in a fault (100.0%): crash_mid_deal 4." in present.notes(doc)
    # run again: it says so and plays nothing; a limit of 1 (never) reopens it, and it plays on to
    # a verdict about the forfeits, its faults still counted (elo1 50: H0 after 20 lost boards, not 101)
    assert play(db, CRASHER, RANDOM, SPRT(0, 50), batch=2)[1]["played"] == 2
    _, more, _ = play(db, CRASHER, RANDOM, SPRT(0, 50), batch=2, max_faults=1.0)
    assert more["verdict"] == "H0" and more["faults"]["faulted"] == more["faults"]["tables"] == 2 * more["played"]
    # a fault the arena caused (a start refused: forfeit["arena"], arena.play.room) is in no bot's count
    db.execute("UPDATE board_tables SET forfeit = json_set(forfeit, '$.arena', json('true')) WHERE id ="
               " (SELECT MIN(t.id) FROM board_tables t JOIN matches m ON m.id = t.match_id WHERE m.tournament_id = ?)",
               [tid])
    n = more["faults"]["faulted"]
    assert read.fault_tables(db, tid) == {"tables": n, "faulted": n, "by_bot": {"crash_mid_deal": n - 1}, "arena": 1}
    assert present.fault_line(read.fault_tables(db, tid)).endswith(f": crash_mid_deal {n - 1}, the arena 1.")
    with pytest.raises(ArenaError, match="--max-faults is a share of the tables, 0 to 1, not 10"):
        sprt.prepare(db, None, CRASHER, RANDOM, SPRT(0, 50), batch=2, max_faults=10)
    db.close()


def test_the_verdict_counts_faults_even_when_there_are_none(dbpath):
    result = run("sprt", GREEDY, RANDOM, "--elo1", "50", "--batch", "12", "--seed", SEED, "--sandbox", "none",
                 "--quiet", "--db", dbpath)
    assert result.output.splitlines()[2] == "Faults: none in 48 tables.", result.output
    summary = json.loads(run("sprt", GREEDY, RANDOM, "--elo1", "50", "--batch", "12", "--seed", SEED, "--sandbox",
                             "none", "--db", dbpath, "--json").stdout)
    assert summary["faults"] == {"tables": 48, "faulted": 0, "by_bot": {}, "arena": 0} and summary["max_faults"] == 0.1
    text = run("standings", "--db", dbpath).output
    assert "Faults: none in 48 tables." in text
    assert json.loads(run("standings", "--db", dbpath, "--json").output)["faults"]["tables"] == 48


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("out", [io.StringIO, Terminal])
def test_the_lines_of_a_test_each_board_replacing_the_last_on_a_terminal(out):
    lines = SprtLines(out())
    lines.on_line("sprt t: a v b")
    for k in (1, 2):
        lines.on_board(f"board {k:4d}  LLR +0.0{k}")
    lines.on_line("stopped: a fault")  # kept, above the board's line
    lines.on_board("board    3  LLR +0.03")
    lines.on_end()
    text = lines.out.getvalue()
    if out is io.StringIO:  # a log: every line as it is
        assert text.splitlines() == ["sprt t: a v b", "board    1  LLR +0.01", "board    2  LLR +0.02",
                                     "stopped: a fault", "board    3  LLR +0.03"]
    else:  # the cursor hidden while the board line redraws, shown again at the end, the last board kept
        assert text.endswith("board    3  LLR +0.03\n\x1b[?25h") and text.count("\x1b[?25l") == 1
        plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", text)
        kept = [line.split("\r")[-1] for line in plain.split("\n") if line]
        assert kept == ["sprt t: a v b", "stopped: a fault", "board    3  LLR +0.03"]
