"""`arena play --game zwicken` and `arena bot check --game zwicken` through the installed program,
with the bundled Zwicken bots in the default sandbox: k entrants in k rooms rotated by a seat,
the same board seeds in every room, every board a whole session checked against the rules, the
chips of a board summing to 0, a crash forfeited as docs/zwicken-rules.md section 6 says."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import games

ARENA = Path(sys.executable).parent / "arena"
ROOT = Path(__file__).resolve().parents[1]
BOTS = ROOT / "bots"
HERE = Path(__file__).resolve().parent / "zwicken"
RULE, RANDOM, MC = (str(BOTS / "zwicken" / f"zwicken_{b}_bot.py") for b in ("rule", "random", "mc"))
TELL, CRASH = str(HERE / "tell.py"), str(HERE / "crash_at_act.py")
SEED = 2**50 + 7  # no warning: above 2**48
G = games.game("zwicken")


def arena(*args: str, cwd: Path, code: int = 0) -> subprocess.CompletedProcess:
    done = subprocess.run([str(ARENA), *args], capture_output=True, text=True, timeout=120, cwd=cwd,
                          env={"PATH": "/usr/bin:/bin", "ARENA_DB": str(cwd / "a.db")})
    assert done.returncode == code, done.stdout + done.stderr
    return done


def board_lines(out: str, k: int) -> list[list[int]]:
    """The entrants' results of each board line of the text table."""
    rows = []
    for line in out.splitlines():
        words = line.split()
        if len(words) >= 3 + k and words[0].isdigit() and words[1].isdigit():
            rows.append([int(w) for w in words[3 : 3 + k]])
    return rows


def test_four_players_the_same_seed_twice_gives_the_same_output(tmp_path):
    # a Zwicken bot outside bots/, alone in its folder: it finds zwicken_kit in the sandbox's runtime
    lone = tmp_path / "lone" / "my_zwicken_bot.py"
    lone.parent.mkdir()
    shutil.copyfile(RANDOM, lone)
    # (not zwicken-mc: it searches for a share of its clock, so its play follows the machine's load)
    args = ["play", "--game", "zwicken", RULE, RANDOM, RULE, str(lone), "--boards", "1", "--seed", str(SEED)]
    first, again = arena(*args, cwd=tmp_path), arena(*args, cwd=tmp_path)
    assert first.stdout == again.stdout and first.stderr == again.stderr == ""
    out = first.stdout
    assert out.startswith(f"1 = zwicken-rule ({RULE})\n2 = zwicken-random ({RANDOM})\n3 = zwicken-rule ({RULE})\n"
                          f"4 = zwicken-random ({lone})\n")
    assert f"game zwicken, variant bayern, seed {SEED}, 1 boards, 4 rooms each" in out
    boards = board_lines(out, 4)
    assert len(boards) == 1 and all(sum(b) == 0 for b in boards)
    assert "forfeit" not in out and "faults" in out and "95% interval" in out
    assert "boards won-drawn-lost against each other entrant" in out


def replay_board(v, seed: int, dealer: int, deals: list[dict]):
    """The board's session replayed through the rules from its stored moves: its final Board."""
    board = G.board(v, seed, dealer, "session")
    for deal in deals:
        assert (int(deal["seed"]), deal["dealer"]) == (board.deal_seed, board.dealer)  # JSON: big ints as text
        state = board.deal()
        for m in deal["moves"]:
            assert m["seat"] == state.to_move
            state = state.apply(m["move"])
        assert state.is_over and list(state.result().sides) == deal["points"]
        board = board.after(state)
    return board


def test_three_players_filled_round_robin_rotate_and_play_whole_sessions(tmp_path):
    done = arena("play", "--game", "zwicken", "--players", "3", TELL, RULE, "--boards", "2",
                 "--seed", str(SEED), "--json", cwd=tmp_path)
    data = json.loads(done.stdout)
    assert data["bots"] == [TELL, RULE, TELL] and data["names"] == ["tell", "zwicken-rule", "tell"]
    v = G.variant(data["variant"])
    assert v.players == 3 and data["forfeits"] == []
    for board in data["boards"]:
        assert len(board["tables"]) == 3 and sum(board["results"]) == 0
        results = [0, 0, 0]
        for r, table in enumerate(board["tables"]):
            # room r: seat s holds entrant (s - r) mod 3, so each entrant holds each seat once
            assert [s["name"] for s in table["seats"]] == [data["names"][(s - r) % 3] for s in range(3)]
            final = replay_board(v, int(board["seed"]), board["dealer"], table["deals"])
            assert final.is_over and list(final.result().sides) == table["points"]  # the session to its end
            for s in range(3):
                results[(s - r) % 3] += table["points"][s]
        assert results == board["results"]
        first_deals = {(t["deals"][0]["seed"], t["deals"][0]["dealer"]) for t in board["tables"]}
        assert len(first_deals) == 1  # the same board in every room
    # what the tell bot was sent (games/zwicken/protocol.md), from its stderr in room 0, seat 0
    table = data["boards"][0]["tables"][0]
    told = [json.loads(line) for line in table["seats"][0]["stderr"].splitlines()]
    hello = told[0]
    assert hello == {"type": "hello", "game": "zwicken", "seat": 0, "side": 0, "partners": [],
                     "variant_game": "zwicken", "players": 3}
    ends = [t for t in told if t["type"] == "deal_end"]
    assert len(ends) == len(table["deals"]) == len([t for t in told if t["type"] == "deal"])
    assert all(t["points"] == t["net"] for t in ends)
    assert [t["points"] for t in ends] == [d["points"] for d in table["deals"]]
    assert all(t["seat"] == 0 for t in told if t["type"] in ("deal", "act"))


def test_a_crash_forfeits_each_room_as_section_6_says(tmp_path):
    done = arena("play", "--game", "zwicken", RULE, RANDOM, CRASH, RULE, "--boards", "1", "--seed", str(SEED),
                 "--json", cwd=tmp_path)
    data = json.loads(done.stdout)
    v = G.variant(data["variant"])
    forfeit, n = v.to_dict()["forfeit"], v.players
    assert [f["entrant"] for f in data["forfeits"]] == [2] * n  # it faults in every room
    assert {f["status"] for f in data["forfeits"]} == {"crash"}
    board = data["boards"][0]
    # in each room the faulting seat pays `forfeit` to every other seat; its other results are void
    assert board["results"] == [n * forfeit, n * forfeit, -n * (n - 1) * forfeit, n * forfeit]
    for r, table in enumerate(board["tables"]):
        assert table["points"] == list(G.forfeit(v, "session", (2 + r) % n).sides)
    text = arena("play", "--game", "zwicken", RULE, RANDOM, CRASH, RULE, "--boards", "1", "--seed", str(SEED),
                 cwd=tmp_path).stdout
    assert "board 0 room 1: entrant 3 (seat 2) crash: " in text
    assert "its stderr ends with: crash-at-act: giving up at my first act" in text
    faults = {line.split()[0]: line.split()[-1] for line in text.splitlines() if line[:2] in ("1 ", "3 ")}
    assert faults == {"1": "0", "3": str(n)}


@pytest.mark.parametrize("bot", [RULE, RANDOM])
def test_bot_check_passes_the_bundled_zwicken_bots(bot, tmp_path):
    out = arena("bot", "check", "--game", "zwicken", bot, cwd=tmp_path).stdout
    assert out.rstrip().endswith("conformant: the bot speaks protocol version 1")
    assert out.count("handshake ok") == G.variant().players


def test_bot_check_fails_a_zwicker_bot_in_one_line(tmp_path):
    out = arena("bot", "check", "--game", "zwicken", str(BOTS / "zwicker" / "greedy_bot.py"), cwd=tmp_path, code=1).stdout
    line = [x for x in out.splitlines() if x.startswith("fails as a zwicken bot")]
    assert len(line) == 1 and line[0] == ("fails as a zwicken bot at seat 0: protocol_error: it plays zwicker (its "
                                          "ready.games), and this table plays zwicken")
    assert out.rstrip().endswith("NOT conformant: see the fault above")


@pytest.mark.parametrize("args, words", [
    (["play", "--game", "zwicken", RULE, RULE, RULE, "--players", "2"], "3 bots for 2 sides"),
    (["play", "--game", "zwicken", RULE, RULE, "--players", "11"], "--players: "),
    (["play", "--game", "zwicken", RULE], "a match needs at least two bots"),
    (["tournament", "run", "--game", "zwicken", "--name", "z", "--bots", f"{RULE},{RANDOM},{MC}"],
     "a table of 4 players needs at least 4 bots, got 3"),
])
def test_bad_input_is_one_clear_line(args, words, tmp_path):
    done = arena(*args, cwd=tmp_path, code=2)
    assert done.stderr.startswith("arena: error: ") and words in done.stderr and done.stderr.count("\n") == 1


def test_bot_add_checks_a_zwicken_bot_at_a_zwicken_table(tmp_path):
    out = arena("bot", "add", "--game", "zwicken", RULE, "--name", "zrule", cwd=tmp_path).stdout
    assert out.startswith("added zrule version 1 (id 1, ")
    err = arena("bot", "add", "--game", "zwicken", CRASH.replace("crash_at_act", "missing"), cwd=tmp_path,
                code=2).stderr
    assert err.startswith("arena: error: no bot at ") and err.count("\n") == 1


def test_two_players_play_as_a_two_sided_match_in_chips(tmp_path):
    done = arena("play", "--game", "zwicken", RULE, RANDOM, "--boards", "1", "--seed", str(SEED), "--json",
                 cwd=tmp_path)
    data = json.loads(done.stdout)
    v = G.variant(data["variant"])
    assert v.players == 2 and data["forfeits"] == []
    board = data["boards"][0]
    for table in board["tables"]:  # each room's board is the whole session, as the rules score it
        final = replay_board(v, int(board["seed"]), board["dealer"], table["deals"])
        assert list(final.result().sides) == table["points"] and sum(table["points"]) == 0
    text = arena("play", "--game", "zwicken", RULE, RANDOM, "--boards", "1", "--seed", str(SEED),
                 cwd=tmp_path).stdout
    assert "chips" in text and "points" not in text
