"""Zwicker tournaments, `arena play` and `arena sprt` at every table size its rules allow
(docs/rules.md sections 4 and 5): each for himself (3 players of jensen: three entrants in three
rotated rooms) or in sides (6 of grossenwiehe, 3 v 3: two entrants, each a bot in all three seats
of its side, in two rooms); stored, rated, replayed and exported like any tournament."""

from __future__ import annotations

import csv
import io
import subprocess
import sys
from pathlib import Path

import games
from arena.results import read, schema

ARENA = Path(sys.executable).parent / "arena"
ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "bots" / "zwicker"
SEED = 2**50 + 23  # above 2**48: no warning
G = games.game("zwicker")


def arena(*args: str, cwd: Path, code: int = 0) -> subprocess.CompletedProcess:
    done = subprocess.run([str(ARENA), *args], capture_output=True, text=True, timeout=300, cwd=cwd,
                          env={"PATH": "/usr/bin:/bin", "ARENA_DB": str(cwd / "a.db")})
    assert done.returncode == code, done.stdout + done.stderr
    return done


def bots(*names: str) -> str:
    return ",".join(str(BOTS / f"{n}_bot.py") for n in names)


def seating(cwd: Path, name: str) -> tuple[dict, list[list[int]], dict[tuple[int, int], list[int]], list[tuple]]:
    """The tournament, its matches' entrants, the bot at each seat per (board, room) of match 1,
    and each board's (board, entrant, bot, result)."""
    db = schema.open_db(cwd / "a.db", create=False)
    try:
        t = read.get_tournament(db, name)
        entrants = read.schedule(db, t["id"])[0]["entrants"]
        seats: dict[tuple[int, int], list[int]] = {}
        for board, room, bot in db.execute(
                "SELECT x.board_no, x.swapped, s.bot_id FROM seats s JOIN board_tables x ON x.id = s.table_id"
                " JOIN matches m ON m.id = x.match_id WHERE m.tournament_id = ? AND m.match_no = 1"
                " ORDER BY x.board_no, x.swapped, s.seat", [t["id"]]):
            seats.setdefault((board, room), []).append(bot)
        results = db.execute(
            "SELECT b.board_no, e.entrant, x.bot_id, e.result FROM board_entrants e JOIN boards b ON b.id = e.board_id"
            " JOIN matches m ON m.id = b.match_id JOIN match_entrants x ON x.match_id = m.id AND x.entrant = e.entrant"
            " WHERE m.tournament_id = ? AND m.match_no = 1 ORDER BY 1, 2",
            [t["id"]]).fetchall()
        return t, entrants, seats, [tuple(r) for r in results]
    finally:
        db.close()


def test_three_players_each_for_himself_in_three_rotated_rooms(tmp_path):
    out = arena("tournament", "run", "--players", "3", "--variant", "jensen", "--bots", bots("random", "greedy", "sweeper"),
                "--boards", "2", "--seed", str(SEED), "--name", "z3", cwd=tmp_path).stdout
    assert "3 players, a bot each" in out and "W D L" in out
    t, entrants, seats, results = seating(tmp_path, "z3")
    assert (t["matches"], t["boards_done"], t["status"], t["variant"]["players"]) == (1, 2, "finished", 3)
    layout = G.layout(G.variant(t["variant"]))
    assert layout.num_sides == 3 and len(entrants) == 3
    for (board, room), at in seats.items():  # room r: side j (seat j) holds entrant (j - r) mod 3
        assert at == [entrants[(layout.side_of(s) - room) % 3][0] for s in range(3)]
    assert sorted(seats) == [(b, r) for b in range(2) for r in range(3)]
    assert [r[:2] for r in results] == [(b, e) for b in range(2) for e in range(3)]
    standings = arena("standings", "z3", "--json", cwd=tmp_path).stdout
    assert all(name in standings for name in ("random", "greedy", "sweeper"))
    rows = list(csv.DictReader(io.StringIO(arena("export", "z3", cwd=tmp_path).stdout)))
    assert len(rows) == 2 * 3 and {r["entrants"] for r in rows} == {"random greedy sweeper"}
    for row in rows:  # the export's one shape: each entrant's result over the rooms, as stored
        assert row["board_results"] == " ".join(str(x) for b, _, _, x in results if b == int(row["board_no"]))
        assert row["seat_entrants"] == " ".join(str((s - int(row["room"])) % 3) for s in range(3))
    deal = rows[0]["deal_ids"].split()[0]
    replay = arena("replay", deal, cwd=tmp_path).stdout
    assert "jensen players=3" in replay and "score:" in replay


def test_six_of_grossenwiehe_three_against_three_with_a_bot_per_side(tmp_path):
    arena("tournament", "run", "--players", "6", "--variant", "grossenwiehe", "--bots", bots("random", "greedy"),
          "--boards", "2", "--seed", str(SEED), "--name", "g6", "--quiet", cwd=tmp_path)
    t, entrants, seats, results = seating(tmp_path, "g6")
    assert (t["matches"], t["boards_done"], t["status"], t["variant"]["players"]) == (1, 2, "finished", 6)
    layout = G.layout(G.variant(t["variant"]))
    assert layout.sides == ((0, 2, 4), (1, 3, 5)) and len(entrants) == 2
    for (board, room), at in seats.items():  # room r: every seat of side j holds entrant (j - r) mod 2
        assert at == [entrants[(layout.side_of(s) - room) % 2][0] for s in range(6)]
    assert sorted(seats) == [(b, r) for b in range(2) for r in range(2)]
    db = schema.open_db(tmp_path / "a.db", create=False)
    try:
        tables = read.match_detail(db, t["id"], 1)["boards"]
        standings = read.standings(db, t["id"])
    finally:
        db.close()
    for board in tables:  # an entrant's result: what the side it held scored, summed over the rooms
        points = [tb["points"] for tb in board["tables"]]
        assert board["results"] == [sum(points[r][(e + r) % 2] for r in range(2)) for e in range(2)]
    assert len(standings) == 2
    rows = list(csv.DictReader(io.StringIO(arena("export", "g6", cwd=tmp_path).stdout)))
    assert len(rows) == 2 * 2
    replay = arena("replay", rows[1]["deal_ids"].split()[0], cwd=tmp_path).stdout
    assert "grossenwiehe players=6" in replay and "(sides swapped)" in replay


def test_play_and_sprt_at_three_and_six_players(tmp_path):
    out = arena("play", str(BOTS / "random_bot.py"), str(BOTS / "greedy_bot.py"), str(BOTS / "sweeper_bot.py"),
                "--players", "3", "--variant", "jensen", "--boards", "1", "--seed", str(SEED), cwd=tmp_path).stdout
    assert "against each other entrant" in out
    out = arena("play", str(BOTS / "greedy_bot.py"), str(BOTS / "random_bot.py"), "--players", "6", "--variant",
                "grossenwiehe", "--boards", "1", "--seed", str(SEED), cwd=tmp_path).stdout
    assert "W-D-L" in out
    out = arena("sprt", str(BOTS / "greedy_bot.py"), str(BOTS / "random_bot.py"), "--players", "6", "--variant",
                "grossenwiehe", "--max-boards", "2", "--batch", "2", "--seed", str(SEED), "--name", "s6", cwd=tmp_path).stdout
    assert "alternate sides" in out and "after 2 boards" in out


def test_mixed_partners_at_three_against_three(tmp_path):
    """Six of grossenwiehe with mixed partners: each group of six bots split every way into two
    teams of three different bots (ten matches), each an entrant of three bots, one a seat of its
    side; the standings count each bot for its team, the listings name a team a+b+c."""
    done = arena("tournament", "run", "--players", "6", "--variant", "grossenwiehe", "--partners", "mixed",
                 "--bots", bots("random", "greedy", "sweeper", "first"), "--name", "x", cwd=tmp_path, code=2)
    assert "at least six bots" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    six = ("random", "greedy", "sweeper", "first", "builder", "heuristic")
    arena("tournament", "run", "--players", "6", "--variant", "grossenwiehe", "--partners", "mixed", "--bots",
          bots(*six), "--boards", "1", "--seed", str(SEED), "--name", "m6", "--quiet", cwd=tmp_path)
    t, entrants, seats, results = seating(tmp_path, "m6")
    assert (t["matches"], t["boards_done"], t["status"]) == (10, 10, "finished")
    assert [len(e) for e in entrants] == [3, 3] and len({*entrants[0], *entrants[1]}) == 6
    layout = G.layout(G.variant(t["variant"]))
    for (board, room), at in seats.items():  # seat i of side j: member i of entrant (j - r) mod 2
        assert at == [entrants[(layout.side_of(s) - room) % 2][layout.sides[layout.side_of(s)].index(s)]
                      for s in range(6)]
    db = schema.open_db(tmp_path / "a.db", create=False)
    try:
        standings = read.standings(db, t["id"])
        listed = read.matches(db, t["id"])
        labels = read._bot_labels(db, t["id"])
    finally:
        db.close()
    assert [r["boards"] for r in standings] == [10] * 6  # every split holds every bot, on one team
    assert listed[0]["entrants"] == ["+".join(labels[b] for b in e) for e in entrants]
    assert all(r["wins"] + r["draws"] + r["losses"] == r["boards"] for r in standings)
