"""Zwicken tournaments through the installed `arena` (issues 24 and 25): matches of k entrants,
one bot a seat, each board played in k rooms rotated by a seat; round robin over groups of k bots
and the gauntlet; the database's rooms, per-entrant results and pairwise standings checked
against the rules; a run killed with SIGKILL and resumed gives the uninterrupted run's results."""

from __future__ import annotations

import itertools
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import games
from arena.errors import ArenaError
from arena.results import read, schema

ARENA = Path(sys.executable).parent / "arena"
ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "bots"
SEED = 2**50 + 11  # above 2**48: no warning
G = games.game("zwicken")


def arena(*args: str, cwd: Path, code: int = 0, timeout: float = 300) -> subprocess.CompletedProcess:
    done = subprocess.run([str(ARENA), *args], capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env={"PATH": "/usr/bin:/bin", "ARENA_DB": str(cwd / "a.db")})
    assert done.returncode == code, done.stdout + done.stderr
    return done


@pytest.fixture
def four(tmp_path) -> list[str]:
    """Four Zwicken bots of different content: the rule bot and three copies of the random one
    (alone in folders of their own: they find the kit in the sandbox's runtime)."""
    paths = [str(BOTS / "zwicken" / "zwicken_rule_bot.py")]
    for k in range(3):
        folder = tmp_path / f"r{k}"
        folder.mkdir()
        path = folder / f"zr{k}.py"
        path.write_text((BOTS / "zwicken" / "zwicken_random_bot.py").read_text() + f"\n# copy {k}\n")
        paths.append(str(path))
    return paths


def stored(cwd: Path, name: str) -> tuple[dict, list[dict], list[tuple]]:
    db = schema.open_db(cwd / "a.db", create=False)
    try:
        t = read.get_tournament(db, name)
        entrants = [tuple(row) for row in db.execute(
            "SELECT m.match_no, b.board_no, e.entrant, x.bot_id, e.result, e.score FROM board_entrants e"
            " JOIN boards b ON b.id = e.board_id JOIN matches m ON m.id = b.match_id"
            " JOIN match_entrants x ON x.match_id = m.id AND x.entrant = e.entrant WHERE m.tournament_id = ?"
            " ORDER BY m.match_no, b.board_no, e.entrant", [t["id"]])]
        tables = [dict(r) for r in db.query(
            "SELECT m.match_no, x.board_no, x.swapped AS room, x.side_points, x.board_seed FROM board_tables x"
            " JOIN matches m ON m.id = x.match_id WHERE m.tournament_id = ? ORDER BY m.match_no, x.board_no,"
            " x.swapped", [t["id"]])]
        return t, tables, entrants
    finally:
        db.close()


def test_four_players_play_every_board_in_four_rotated_rooms(tmp_path, four):
    out = arena("tournament", "run", "--game", "zwicken", "--players", "4", "--bots", ",".join(four),
                "--boards", "2", "--seed", str(SEED), "--name", "z4", cwd=tmp_path).stdout
    assert "4 players, a bot each" in out and "chips/board" in out and "W D L: each board compares" in out
    t, tables, entrants = stored(tmp_path, "z4")
    assert (t["game"], t["format"], t["matches"], t["boards_done"], t["status"]) == ("zwicken", "session", 1, 2, "finished")
    assert [(r["board_no"], r["room"]) for r in tables] == [(b, r) for b in range(2) for r in range(4)]
    db = schema.open_db(tmp_path / "a.db", create=False)
    order = read.schedule(db, t["id"])[0]["entrants"]
    seats = {(board, room): [bot for (bot,) in db.execute(
        "SELECT s.bot_id FROM seats s JOIN board_tables x ON x.id = s.table_id WHERE x.board_no = ? AND x.swapped = ?"
        " ORDER BY s.seat", [board, room])] for board in range(2) for room in range(4)}
    db.close()
    for (board, room), bots in seats.items():  # room r: seat s holds entrant (s - r) mod 4
        assert bots == [order[(s - room) % 4][0] for s in range(4)]
    for board in range(2):
        rows = [e for e in entrants if e[1] == board]
        points = [json.loads(r["side_points"]) for r in tables if r["board_no"] == board]
        assert len({r["board_seed"] for r in tables if r["board_no"] == board}) == 1
        for _m, _b, e, _bot, result, score in rows:  # an entrant's result: its seats' chips over the rooms
            assert result == sum(points[room][(e + room) % 4] for room in range(4))
            others = [r[4] for r in rows if r[2] != e]
            assert score == sum(1 if result > o else 0.5 if result == o else 0 for o in others)
        assert sum(r[4] for r in rows) == 0  # the chips of a board's rooms sum to zero, the pot's close-out included
    doc = json.loads(arena("standings", "z4", "--json", cwd=tmp_path).stdout)
    assert (doc["game"], doc["unit"], doc["entrants"]) == ("zwicken", "chips", 4)
    for row in doc["standings"]:
        assert row["boards"] == 2 and row["wins"] + row["draws"] + row["losses"] == 2 * 3
        mine = [e[4] for e in entrants if e[3] == row["bot_id"]]
        assert row["avg_margin"] == pytest.approx(sum(mine) / 2)
    db = schema.open_db(tmp_path / "a.db", create=False)
    try:  # the ratings stored at the run's end are current, and what standings print
        kept = {r["bot_id"]: r for r in db.query("SELECT * FROM ratings WHERE errors = 'pool'")}
        assert read._stored_ratings(db, t["id"], "pool") is not None
        assert {r["bot_id"]: (r["ci_low"], r["ci_high"], r["boards"]) for r in doc["standings"]} == {
            b: (r["ci_low"], r["ci_high"], r["boards"]) for b, r in kept.items()}
        assert max(p["boards"] for p in read.progression(db, t["id"])) == 2
        assert db.execute("SELECT COUNT(*) FROM board_tables WHERE sandbox IS NULL").fetchone()[0] == 0
        # the views Datasette shows say what the terminal says
        for v in db.query("SELECT * FROM standings WHERE tournament_id = ?", [t["id"]]):
            r = next(r for r in doc["standings"] if r["bot_id"] == v["bot_id"])
            assert (v["boards"], v["wins"], v["draws"], v["losses"]) == (r["boards"], r["wins"], r["draws"], r["losses"])
            assert v["avg_margin"] == pytest.approx(r["avg_margin"], abs=0.051)
        cells = {(row["bot"], other): c for row in read.crosstable(db, t["id"])["rows"]
                 for other, c in row["results"].items()}
        labels = read._bot_labels(db, t["id"])
        viewed = {(labels[v["bot_id"]], labels[v["opponent_id"]]): v
                  for v in db.query("SELECT * FROM crosstable WHERE tournament_id = ?", [t["id"]])}
        assert viewed.keys() == cells.keys()
        for key, c in cells.items():
            assert [viewed[key][k] for k in ("boards", "wins", "draws", "losses", "margin")] == [
                c[k] for k in ("boards", "wins", "draws", "losses", "margin")]
    finally:
        db.close()
    cross = json.loads(arena("crosstable", "z4", "--json", cwd=tmp_path).stdout)
    for row in cross["rows"]:
        for cell in row["results"].values():
            assert cell["boards"] == 2 and cell["wins"] + cell["draws"] + cell["losses"] == 2


def test_three_players_round_robin_over_every_group_and_a_gauntlet(tmp_path, four):
    arena("tournament", "run", "--game", "zwicken", "--players", "3", "--bots", ",".join(four), "--boards", "1",
          "--seed", str(SEED), "--name", "rr", "--quiet", cwd=tmp_path)
    t, tables, entrants = stored(tmp_path, "rr")
    assert t["matches"] == 4 and len(tables) == 4 * 3 and len(entrants) == 4 * 3
    groups = {frozenset(e[3] for e in entrants if e[0] == m) for m in range(1, 5)}
    ids = sorted(b["id"] for b in t["bots"])
    assert groups == {frozenset(g) for g in itertools.combinations(ids, 3)}
    doc = json.loads(arena("standings", "rr", "--json", cwd=tmp_path).stdout)
    assert all(r["boards"] == 3 for r in doc["standings"])  # each bot sits in 3 of the 4 groups
    arena("tournament", "run", "--game", "zwicken", "--players", "3", "--bots", ",".join(four), "--boards", "1",
          "--seed", str(SEED), "--name", "g", "--gauntlet", four[0], "--quiet", cwd=tmp_path)
    t, _tables, entrants = stored(tmp_path, "g")
    rule = next(b["id"] for b in t["bots"] if b["name"] == "zwicken_rule")
    assert t["matches"] == 3 and all((e[3] == rule) == (e[2] == 0) for e in entrants)


@pytest.mark.parametrize("args, words", [
    (["--players", "11"], "--players must be 2 to 10"),
    (["--players", "3", "--partners", "mixed"], "every player plays alone"),
    (["--players", "3", "--pairing", "swiss", "--gauntlet", "zwicken_rule"], "--pairing swiss draws each round"),
    (["--players", "5", "--pairing", "swiss"], "--pairing swiss: a table of 5 needs at least 5 bots, got 4"),
    (["--players", "3", "--format", "deal"], "--format must be one of session"),
    (["--players", "6"], "a table of 6 players needs at least 6 bots, got 4"),
])
def test_bad_zwicken_tournaments_are_one_clear_line(tmp_path, four, args, words):
    done = arena("tournament", "run", "--game", "zwicken", "--bots", ",".join(four), "--name", "x", *args,
                 cwd=tmp_path, code=2)
    assert words in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_swiss_draws_groups_of_the_tables_size_by_score(tmp_path, four):
    """Five bots at three-player tables: each round one group of three and two byes (the
    lowest-ranked among the fewest byes), the next round drawn from the scores so far."""
    five = [*four, str(BOTS / "zwicken" / "zwicken_mc_bot.py")]
    arena("tournament", "run", "--game", "zwicken", "--players", "3", "--bots", ",".join(five), "--boards", "1",
          "--seed", str(SEED), "--name", "sw", "--pairing", "swiss", "--rounds", "3", "--quiet", cwd=tmp_path)
    db = schema.open_db(tmp_path / "a.db", create=False)
    try:
        t = read.get_tournament(db, "sw")
        plan = t["settings"]["pairing"]
        rounds = [m["entrants"] for m in read.schedule(db, t["id"])]
    finally:
        db.close()
    assert plan["drawn"] == [1, 1, 1] and t["boards_done"] == 3 and t["status"] == "finished"
    for group, byes in zip(rounds, plan["byes"]):
        assert len(group) == 3 and len(byes) == 2 and not {g[0] for g in group} & set(byes)
    sat_out = [b for byes in plan["byes"] for b in byes]
    assert max(sat_out.count(b) for b in sat_out) <= 2  # the byes go round: nobody sits out three times


def test_zwicker_refuses_players_its_preset_does_not_have(tmp_path):
    done = arena("tournament", "run", "--bots", f"{BOTS / 'zwicker' / 'random_bot.py'},{BOTS / 'zwicker' / 'greedy_bot.py'}", "--name", "x",
                 "--players", "6", cwd=tmp_path, code=2)
    assert "2 to 4 players, not 6" in done.stderr, done.stderr


def results_of(path: Path, name: str) -> tuple[list, list, list]:
    db = schema.open_db(path, create=False)
    try:
        tid = read.get_tournament(db, name)["id"]
        entrants = db.execute(
            "SELECT m.match_no, b.board_no, e.entrant, e.result FROM board_entrants e JOIN boards b ON b.id = e.board_id"
            " JOIN matches m ON m.id = b.match_id WHERE m.tournament_id = ? ORDER BY 1, 2, 3", [tid]).fetchall()
        tables = db.execute(
            "SELECT m.match_no, x.board_no, x.swapped, x.side_points FROM board_tables x JOIN matches m"
            " ON m.id = x.match_id WHERE m.tournament_id = ? ORDER BY 1, 2, 3", [tid]).fetchall()
        return entrants, tables, read.standings(db, tid)
    finally:
        db.close()


def test_kill_9_then_resume_gives_the_uninterrupted_results(tmp_path, four):
    """Deterministic bots (the rule bot and random copies, each seeding by board): the arena
    killed outright twice while it plays, then resumed, stores what one uninterrupted run does."""
    def start(db: Path) -> subprocess.Popen:
        return subprocess.Popen(
            [str(ARENA), "tournament", "run", "--game", "zwicken", "--players", "3", "--bots", ",".join(four),
             "--boards", "2", "--seed", str(SEED), "--name", "k", "--quiet", "--concurrency", "2"],
            cwd=tmp_path, env={"PATH": "/usr/bin:/bin", "ARENA_DB": str(db)},
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)

    reference = tmp_path / "reference.db"
    proc = start(reference)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()
    killed = tmp_path / "killed.db"

    def tables() -> int:
        try:
            db = schema.open_db(killed, create=False)
        except ArenaError:
            return 0
        try:
            return db.execute("SELECT COUNT(*) FROM board_tables").fetchone()[0]
        finally:
            db.close()

    for at_least in (3, 12):  # of 24 tables: killed once early, once past the middle
        proc = start(killed)
        deadline = time.monotonic() + 120
        while proc.poll() is None and tables() < at_least and time.monotonic() < deadline:
            time.sleep(0.01)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        proc.communicate()
    assert tables() < 24
    proc = start(killed)
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err.decode()
    assert results_of(killed, "k") == results_of(reference, "k")
    assert len(results_of(killed, "k")[1]) == 24


def test_sprt_seats_new_and_old_alternately_and_counts_boards_won_drawn_lost(tmp_path):
    rule, rnd = str(BOTS / "zwicken" / "zwicken_rule_bot.py"), str(BOTS / "zwicken" / "zwicken_random_bot.py")
    done = arena("sprt", "--game", "zwicken", "--players", "4", rule, rnd, "--elo0", "0", "--elo1", "50",
                 "--max-boards", "8", "--batch", "4", "--seed", str(SEED), "--quiet", "--json", cwd=tmp_path)
    result = json.loads(done.stdout)
    assert result["seats"] == 4 and result["boards"] <= 8 and sum(result["counts"]) == result["boards"]
    assert result["counts"][1] == result["counts"][3] == 0  # one comparison a board: won 2, drew 1, lost 0
    db = schema.open_db(tmp_path / "a.db", create=False)
    try:
        t = read.get_tournament(db, result["name"])
        assert (t["game"], t["seating"]) == ("zwicken", "4 players, a bot each")
        new, old = result["new_bot"], result["old_bot"]
        assert read.schedule(db, t["id"])[0]["entrants"] == [[new], [old], [new], [old]]
        won = drawn = lost = 0
        for results in db.execute(
                "SELECT json_group_array(e.result) FROM (SELECT e.* FROM board_entrants e JOIN boards b"
                " ON b.id = e.board_id ORDER BY b.board_no, e.entrant) e GROUP BY e.board_id ORDER BY e.board_id"
                " LIMIT ?", [result["boards"]]):
            r = json.loads(results[0])
            diff = r[0] + r[2] - r[1] - r[3]  # NEW's seats against OLD's, over the rooms
            won, drawn, lost = won + (diff > 0), drawn + (diff == 0), lost + (diff < 0)
        assert [lost, drawn, won] == [result["counts"][0], result["counts"][2], result["counts"][4]]
    finally:
        db.close()
    text = arena("sprt", "--game", "zwicken", "--players", "4", rule, rnd, "--elo0", "0", "--elo1", "50",  # its words:
                 "--max-boards", "4", "--batch", "4", "--seed", str(SEED), "--quiet", cwd=tmp_path).stdout  # one batch do
    assert "won, drew, lost against" in text and "Elo per board" in text, text


def test_on_a_dask_cluster_the_rooms_give_a_local_runs_results(tmp_path, four):
    pytest.importorskip("distributed", reason="dask[distributed] is not installed (pip install .[cluster])")
    common = ["tournament", "run", "--game", "zwicken", "--players", "3", "--bots", ",".join(four), "--boards", "1",
              "--seed", str(SEED), "--name", "c", "--quiet"]
    arena(*common, cwd=tmp_path)
    (tmp_path / "a.db").rename(tmp_path / "local.db")
    arena(*common, "--cluster", "local:1", cwd=tmp_path)
    assert results_of(tmp_path / "a.db", "c") == results_of(tmp_path / "local.db", "c")
    assert len(results_of(tmp_path / "a.db", "c")[1]) == 4 * 3


def test_a_crash_forfeits_its_board_in_each_room_and_the_next_boards_are_played(tmp_path, four):
    """docs/zwicken-rules.md section 6: the faulting seat pays `forfeit` to every other seat; the
    room's later boards are played by fresh processes (and forfeited again by this bot)."""
    crash = str(ROOT / "tests" / "zwicken" / "crash_at_act.py")
    arena("tournament", "run", "--game", "zwicken", "--players", "3", "--bots", ",".join([four[0], four[1], crash]),
          "--boards", "2", "--seed", str(SEED), "--name", "f", "--quiet", cwd=tmp_path)
    t, tables, entrants = stored(tmp_path, "f")
    v = G.variant(t["variant"])
    bad = next(b["id"] for b in t["bots"] if "crash" in b["name"])
    order = [e[3] for e in entrants if e[1] == 0]
    e = order.index(bad)
    assert t["boards_done"] == 2 and len(tables) == 2 * 3
    for r in tables:  # its seat in room r: (e + r) mod 3
        assert json.loads(r["side_points"]) == list(G.forfeit(v, "session", (e + r["room"]) % 3).sides)
    forfeit = v.to_dict()["forfeit"]
    for board in range(2):
        results = [x[4] for x in entrants if x[1] == board]
        assert results[e] == -3 * 2 * forfeit and sum(results) == 0
    done = arena("matches", "f", cwd=tmp_path).stdout
    assert "crash" in done and "room2" in done
