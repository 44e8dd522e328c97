"""`arena rules legal|apply|board`: run as the installed program (exit codes and what reaches
stdout and stderr only show there), checked against the engine itself."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

import engine
import games

ARENA = Path(sys.executable).parent / "arena"


def rules(command: str, lines: list, *args: str) -> tuple[list, int, str]:
    text = "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines)
    done = subprocess.run([str(ARENA), "rules", command, *args], input=text, capture_output=True, text=True,
                          timeout=120)
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
    return [json.loads(line) for line in done.stdout.splitlines()], done.returncode, done.stderr


def random_deal(seed: int) -> tuple[engine.State, list]:
    rng = random.Random(seed)
    s = engine.deal("jensen", seed, seed % 4)
    states, moves = [s], []
    while not s.is_over:
        m = rng.choice(s.listed_moves(1000)[0])
        moves.append(m.to_dict())
        s = s.apply(m)
        states.append(s)
    return states, moves


def test_legal_lists_the_engines_moves_in_order():
    states, _ = random_deal(3)
    picked = states[::7]
    out, code, err = rules("legal", [s.to_dict() for s in picked])
    assert code == 0 and err == ""
    assert out == [[m.to_dict() for m in s.listed_moves(1000)[0]] for s in picked]
    assert out[0] and (states[-1] not in picked or out[-1] == [])


def test_apply_replays_a_deal_and_gives_its_result_at_the_end():
    states, moves = random_deal(5)
    start = states[0].to_dict()
    lines = [{"position": start, "moves": moves[:10]}, {"position": start, "moves": moves},
             {"position": states[10].to_dict(), "moves": []}]
    out, code, _ = rules("apply", lines)
    assert code == 0
    assert out[0] == {"position": states[10].to_dict(), "result": None}
    assert out[1] == {"position": states[-1].to_dict(), "result": states[-1].breakdown()}
    assert out[2] == {"position": states[10].to_dict(), "result": None}


def test_board_plays_first_or_last_legal_moves_to_the_end():
    # (always the last move trails, so nobody captures: a game to a target would run to the
    # 60-deal safety net over ever more crowded tables; one deal shows the policy)
    lines = [{"variant": "jensen:target=51", "seed": 7, "first_dealer": 2, "policy": "first", "format": "game"},
             {"variant": "jensen:target=51", "seed": 7, "first_dealer": 2, "policy": "last", "format": "deal"},
             {"variant": {"preset": "huelsemann", "players": 3}, "seed": 9, "first_dealer": 0, "policy": "first"}]
    out, code, _ = rules("board", lines)
    assert code == 0
    assert out[1]["format"] == "deal" and out[1]["sides"] == [0, 0]  # nobody captured
    for answer, line in zip(out[:1], lines):
        g = engine.Game.new(engine.variant("jensen", target=51), 7, 2)
        deals = []
        while not g.is_over and g.deals_played < 60:
            s = g.deal_state()
            while not s.is_over:
                s = s.apply(s.listed_moves(1000)[0][0 if line["policy"] == "first" else -1])
            deals.append(s.breakdown())
            g = g.after_deal(s.score())
        assert answer["deals"] == deals and answer["sides"] == list(g.totals) and answer["format"] == "game"
        assert answer["points"] == [g.totals[k % 2] for k in range(4)] and answer["winner"] == g.winner
    assert out[2]["format"] == "deal" and len(out[2]["deals"]) == 1 and len(out[2]["points"]) == 3


BAD = [
    ("legal", "not json at all"),
    ("legal", "[1, 2"),
    ("legal", "[]"),
    ("legal", {"variant": "jensen"}),
    ("legal", {"variant": "nope", "dealer": 0, "to_move": 0, "hands": [], "table": [], "stock": [],
               "taken": [], "zwicks": [], "last_capture": None}),
    ("legal", "[" * 100000 + "]" * 100000),
    ("apply", {"position": 3, "moves": []}),
    ("apply", {"moves": []}),
    ("apply", {"position": {}, "moves": "9S"}),
    ("board", {"seed": 10**30}),
    ("board", {"seed": "7"}),
    ("board", {"seed": 7, "first_dealer": 2**70}),
    ("board", {"seed": 7, "first_dealer": -1}),
    ("board", {"seed": 7, "policy": "best"}),
    ("board", {"seed": 7, "format": "marathon"}),
    ("board", {"seed": 7, "variant": "jensen:players=99"}),
    ("board", {"seed": 7, "colour": "red"}),
    ("board", '{"seed": 1' + "0" * 5000 + "}"),
    ("board", {"seed": 1e308}),
]


@pytest.mark.parametrize("command", ["legal", "apply", "board"])
def test_garbage_gets_one_error_line_each_and_exit_1_never_a_traceback(command):
    lines = [line for c, line in BAD if c == command]
    states, moves = random_deal(1)
    good = {"legal": states[0].to_dict(), "apply": {"position": states[0].to_dict(), "moves": moves[:1]},
            "board": {"seed": 1}}[command]
    out, code, err = rules(command, [good, *lines, "", good])
    assert code == 1 and err == ""
    assert len(out) == len(lines) + 2  # a blank line gets no answer
    assert "error" not in out[0] and out[0] == out[-1]
    for answer in out[1:-1]:
        assert set(answer) == {"error"} and isinstance(answer["error"], str) and "\n" not in answer["error"]


def test_an_illegal_move_names_the_move_at_fault():
    states, moves = random_deal(2)
    hand = states[0].hands[states[0].to_move]
    foreign = next(c for c in states[0].variant.rules.deck if c not in hand)
    out, code, _ = rules("apply", [{"position": states[0].to_dict(), "moves": [moves[0], {"type": "trail", "card": "2C"}
                                                                                if "2C" not in hand else
                                                                                {"type": "trail", "card": foreign}]},
                                   {"position": states[-1].to_dict(), "moves": [moves[0]]}])
    assert code == 1
    assert out[0]["error"].startswith("moves[1]: ")
    assert out[1] == {"error": "moves[0]: the deal is already over"}


def test_an_unknown_game_is_one_line_and_exit_2():
    out, code, err = rules("legal", [{}], "--game", "chess")
    assert code == 2 and out == []
    assert err.startswith("arena: error: --game: unknown game 'chess'") and err.count("\n") == 1


def test_every_installed_game_answers_a_board():
    for name in games.names():
        try:
            games.game(name)
        except games.UnknownGame:
            continue
        out, code, _ = rules("board", [{"seed": 11, "first_dealer": 0, "policy": "first"}], "--game", name)
        assert code == 0 and "error" not in out[0], (name, out)
