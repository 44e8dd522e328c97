"""`arena rules legal|apply|board` run as the installed program: the spec's own positions, worked
examples and boards answered as the rules package answers them when called directly, one JSON line
per request, and every kind of garbage answered in one line without a traceback."""

from __future__ import annotations

import json
import re
import select
import subprocess
import sys
from pathlib import Path

import pytest

from engine import zwicken as z
from games import oracle
from games.api import GameError, IllegalMove, Info, Result

ROOT = Path(__file__).resolve().parent.parent
ARENA = Path(sys.executable).parent / "arena"
ZWICKEN_DOC = (ROOT / "docs/zwicken-rules.md").read_text()
ZWICKER_DOC = (ROOT / "docs/rules.md").read_text()


def rules(command: str, *lines: str | bytes | dict | list, game: str | None = "zwicken",
          code: int | None = None, raw: bytes | None = None) -> tuple[list, subprocess.CompletedProcess]:
    """Run `arena rules COMMAND --game GAME` on the lines (dicts and lists as JSON); its answers parsed."""
    if raw is None:
        raw = b"".join((x if isinstance(x, bytes) else (x if isinstance(x, str) else json.dumps(x)).encode())
                       + b"\n" for x in lines)
    argv = [str(ARENA), "rules", command] + (["--game", game] if game is not None else [])
    proc = subprocess.run(argv, input=raw, capture_output=True, cwd=ROOT, timeout=600)
    assert b"Traceback" not in proc.stderr and b"Traceback" not in proc.stdout, proc.stderr
    if code is not None:
        assert proc.returncode == code, (proc.returncode, proc.stdout[-2000:], proc.stderr)
    out = proc.stdout.decode("ascii").splitlines()
    return [json.loads(line) for line in out], proc


def errors(answers: list) -> list[str]:
    assert all(isinstance(a, dict) and list(a) == ["error"] and isinstance(a["error"], str)
               and "\n" not in a["error"] for a in answers), answers
    return [a["error"] for a in answers]


# -- Zwicken: section 10's forms and section 11's examples ------------------------------------------

def doc_blocks() -> list:
    return [json.loads(b) for b in re.findall(r"```json\n(.*?)```", ZWICKEN_DOC, re.S)]


SECTION_10 = next(b for b in doc_blocks() if "hands" in b)
DEAL_RESULT = next(b for b in doc_blocks() if b.get("event") == "played")
BOARD_RESULT = next(b for b in doc_blocks() if "close" in b and b.get("close"))


def moves(*texts: str) -> list[dict]:
    return [z.parse_move(t).to_dict() for t in texts]


def opening(variant="bayern", seed=0, dealer=3) -> dict:
    return z.to_dict(z.deal(variant, seed, dealer))


def test_section_10_position_has_one_legal_move():
    answers, proc = rules("legal", SECTION_10, code=0)
    assert answers == [[{"type": "card", "card": "AE"}]] and proc.stderr == b""


def test_legal_lists_in_the_rules_order():
    positions = [opening(), opening(seed=5, dealer=0), SECTION_10]
    a = z.from_dict(opening()).apply(z.SCHLECKEN)
    positions += [z.to_dict(a), z.to_dict(a.apply(z.PASS).apply(z.PLAY).apply(z.PASS).apply(z.PLAY))]
    answers, _ = rules("legal", *positions, code=0)
    assert answers == [[m.to_dict() for m in z.from_dict(p).legal_moves()] for p in positions]
    assert answers[0] == moves("schleck", "titsch") and answers[4] == moves("UH", "TE", "KE")


def test_legal_of_a_finished_attempt_is_empty():
    over = z.from_dict(opening()).apply(z.SCHLECKEN)
    for m in (z.PASS, z.PASS, z.PASS):
        over = over.apply(m)
    answers, _ = rules("legal", z.to_dict(over), code=0)
    assert answers == [[]]


def test_apply_section_10_to_the_end_gives_the_spec_result():
    answers, _ = rules("apply", {"position": SECTION_10, "moves": moves("AE", "AG", "8H")}, code=0)
    (a,) = answers
    assert a["result"] == DEAL_RESULT
    assert a["position"]["phase"] == "over" and a["position"]["balances"] == [-3, 2, 4, -3]
    assert a["position"]["to_move"] is None and a["position"]["pot"] == 0


def test_apply_part_way_has_no_result():
    answers, _ = rules("apply", {"position": SECTION_10, "moves": moves("AE")},
                       {"position": SECTION_10, "moves": []}, code=0)
    assert answers[0]["result"] is None and answers[0]["position"]["to_move"] == 2  # AE wins, leads on
    assert answers[1] == {"position": SECTION_10, "result": None}


# Section 11's worked examples from a board's opening: the moves and what the spec says of the result.
EXAMPLES = {
    "A": (opening(), ("schleck", "pass", "play", "pass", "play", "KE", "9G", "TE", "KH", "UH", "AH"),
          {"event": "played", "trump": "E", "won": [0, 2, 0, 1], "carry": 0}, [0, 2, 0, -2]),
    "D all passed": (opening(), ("schleck", "pass", "pass", "pass"),
                     {"event": "all_passed", "shown": {"3": ["AH", "KH", "9G"]}, "carry": 3,
                      "in": [False] * 4, "won": [0] * 4}, [0, 0, 0, -3]),
    "D lone": (opening(), ("schleck", "pass", "play", "pass", "pass"),
               {"event": "lone", "in": [False, True, False, False], "won": [0, 3, 0, 0], "shown": {}, "carry": 0},
               [0, 3, 0, -3]),
    "E": (opening(), ("titsch", "pass", "pass", "play", "play", "9H", "AH", "9G", "7G", "KH", "9S"),
          {"event": "played", "trump": "G", "tricks": [0, 0, 0, 3], "won": [0, 0, 0, 3], "paid": [0, 0, 3, 3],
           "carry": 3}, [0, 0, -3, 0]),
    "F": (z.to_dict(z.Board.new({"cut": "hop", "deals": 1}, 0, 3).after(
              z.Board.new({"cut": "hop", "deals": 1}, 0, 3).deal()).deal()),
          ("schleck", "play", "play", "pass", "pass", "KS", "US", "OE", "AE", "AG", "8H"), DEAL_RESULT, [-3, 2, 4, -3]),
}


def test_apply_worked_examples():
    names = sorted(EXAMPLES)
    answers, _ = rules("apply", *({"position": EXAMPLES[n][0], "moves": moves(*EXAMPLES[n][1])} for n in names),
                       code=0)
    for name, a in zip(names, answers):
        start, played, result, balances = EXAMPLES[name]
        assert {k: a["result"][k] for k in result} == result, name
        assert a["position"]["balances"] == balances, name
        direct = z.from_dict(start)
        for m in played:
            direct = direct.apply(z.parse_move(m))
        assert a == {"position": z.to_dict(direct), "result": direct.result.to_dict()}, name


def test_apply_names_the_illegal_move():
    requests = [
        {"position": SECTION_10, "moves": moves("AG")},
        {"position": SECTION_10, "moves": moves("AE", "AG", "AG")},
        {"position": SECTION_10, "moves": moves("AE", "AG", "8H", "pass")},
        {"position": SECTION_10, "moves": [{"type": "card", "card": "XX"}]},
        {"position": SECTION_10, "moves": [{"type": "card", "card": "AE", "extra": 1}]},
        {"position": SECTION_10, "moves": [{"type": "card", "card": "AE"}, "AG"]},
        {"position": opening(), "moves": moves("schleck", "KE")},
    ]
    answers, proc = rules("apply", *requests, code=1)
    said = errors(answers)
    assert said[0].startswith("moves[0]: AG") and "AE" in said[0]
    assert said[1].startswith("moves[2]: ") and said[2].startswith("moves[3]: ") and "over" in said[2]
    assert said[3].startswith("moves[0]: ") and said[4].startswith("moves[0]: ")
    assert said[5].startswith("moves[1]") and said[6].startswith("moves[1]: ")
    assert proc.stderr == b""


def test_apply_refuses_malformed_positions():
    bad = dict(SECTION_10)
    bad["pot"] = 7
    no_cut = {k: v for k, v in SECTION_10.items() if k != "cut"}
    extra = {**SECTION_10, "hands": [["OG", "9E", "7E"], ["8H", "8H"], ["AG", "AE"], ["TH", "TE", "OH"]]}
    requests = [{"position": p, "moves": []} for p in (bad, no_cut, extra, {}, {"game": "zwicker"})]
    requests += [{"position": [], "moves": []}, {"position": SECTION_10, "moves": {}},
                 {"position": SECTION_10}, {"position": SECTION_10, "moves": [], "seed": 1}, [], 3]
    answers, _ = rules("apply", *requests, code=1)
    said = errors(answers)
    assert len(said) == len(requests)
    assert all(s.startswith("position: ") for s in said[:6]), said
    assert said[6].startswith("moves: must be an array") and "lacks 'moves'" in said[7]
    assert "unknown key 'seed'" in said[8] and "not an array" in said[9] and "not a number" in said[10]


def play_board(variant, seed: int, first_dealer: int, pick: int) -> dict:
    """The board every seat plays its first (pick 0) or last (-1) legal move on, by the rules package."""
    b = z.Board.new(variant, seed, first_dealer)
    while not b.is_over:
        s = b.deal()
        while not s.is_over:
            s = s.apply(s.legal_moves()[pick])
        b = b.after(s)
    return b.result()


BOARDS = [("bayern", 0, 0), ("bayern", 1, 2), ({"cut": "hop", "deals": 1}, 0, 3), ("scharf", 3, 1),
          ({"players": 3}, 2**64 - 1, 2), ({"players": 6, "rundherum": True}, 11, 5), ("ohne_welli", 7, 0),
          ({"blindes": True}, 6, 2), ({"players": 2, "close": "split"}, 4, 1)]


def test_board_with_both_policies_matches_the_rules_package():
    requests = [{"variant": v, "seed": s, "first_dealer": d, "policy": p} for v, s, d in BOARDS for p in oracle.POLICIES]
    answers, proc = rules("board", *requests, code=0)
    assert proc.stderr == b"" and len(answers) == len(requests)
    for r, a in zip(requests, answers):
        expected = play_board(r["variant"], r["seed"], r["first_dealer"], 0 if r["policy"] == "first" else -1)
        assert a == expected, r
        assert sum(a["balances"]) == 0 and a["deals"] and all("event" in d for d in a["deals"])
    first_f, last_f = answers[4], answers[5]
    assert first_f["deals"][0]["event"] == "cut"  # section 11 F: attempt 0 ends by the hop, and is listed
    assert answers[0] != answers[1]


def test_board_defaults_and_format():
    answers, _ = rules("board", {"variant": "bayern", "seed": 9, "policy": "last"},
                       {"variant": "bayern", "seed": 9, "policy": "last", "first_dealer": 0, "format": "session"},
                       {"variant": "zwicken:players=5", "seed": 9, "policy": "first"}, code=0)
    assert answers[0] == answers[1] == play_board("bayern", 9, 0, -1)
    assert answers[2] == play_board({"players": 5}, 9, 0, 0)


def test_board_refuses_bad_requests():
    base = {"variant": "bayern", "seed": 1, "policy": "first"}
    requests = [{**base, "seed": -1}, {**base, "seed": 2**64}, {**base, "seed": 1.5}, {**base, "seed": "1"},
                {**base, "seed": True}, {**base, "policy": "middle"}, {**base, "policy": None},
                {**base, "variant": "nope"}, {**base, "variant": {"players": 11}}, {**base, "variant": 5},
                {**base, "first_dealer": 4}, {**base, "first_dealer": -1}, {**base, "first_dealer": "0"},
                {**base, "format": "game"}, {**base, "format": 3}, {**base, "colour": "red"},
                {"seed": 1, "policy": "first"}, []]
    answers, _ = rules("board", *requests, code=1)
    said = errors(answers)
    assert len(said) == len(requests)
    assert "seed" in said[0] and "seed" in said[1] and "seed" in said[2] and "seed" in said[3] and "boolean" in said[4]
    assert "policy" in said[5] and "policy" in said[6] and "preset" in said[7] and "players" in said[8]
    assert "first_dealer" in said[10] and "first_dealer" in said[11] and "format" in said[13]
    assert "unknown key 'colour'" in said[15] and "lacks 'variant'" in said[16] and "an array" in said[17]


# -- the pipe: line by line, blank lines, exit codes, garbage ----------------------------------------

def test_answers_come_line_by_line_through_a_pipe():
    """A bot author's program writes one request and reads its answer before writing the next."""
    with subprocess.Popen([str(ARENA), "rules", "apply", "--game", "zwicken"], stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT) as proc:
        position = SECTION_10
        for text in ("AE", "AG", "8H"):
            proc.stdin.write(json.dumps({"position": position, "moves": moves(text)}).encode() + b"\n")
            proc.stdin.flush()
            ready, _, _ = select.select([proc.stdout], [], [], 120)
            assert ready, "no answer while stdin is still open: the answer was not flushed"
            answer = json.loads(proc.stdout.readline())
            position = answer["position"]
        assert answer["result"] == DEAL_RESULT
        proc.stdin.close()
        assert proc.wait(timeout=120) == 0 and proc.stdout.read() == b"" and proc.stderr.read() == b""


def test_blank_lines_are_skipped_and_crlf_is_read():
    raw = b"\n   \n" + json.dumps(SECTION_10).encode() + b"\r\n\t\n" + json.dumps(SECTION_10).encode()
    answers, _ = rules("legal", raw=raw, code=0)
    assert answers == [[{"type": "card", "card": "AE"}]] * 2


def test_no_input_no_output():
    answers, proc = rules("legal", raw=b"", code=0)
    assert answers == [] and proc.stdout == b"" and proc.stderr == b""


GARBAGE = [
    (b"not json", "not JSON"),
    (b"{\"a\": 1", "not JSON"),
    (b"[1, 2, 3]", "not an array"),
    (b"42", "not a number"),
    (b"\"a position\"", "not a string"),
    (b"null", "not null"),
    (b"true", "not a boolean"),
    (b"{}", "position: "),
    (b"\xff\xfe{}", "not UTF-8"),
    (b"{\"game\": \"zwicken\xc3\"}", "not UTF-8"),
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (b"[" * 33 + b"]" * 33, "nested too deeply"),
    (b"{\"dealer\": " + b"9" * 10_000 + b"}", "digits"),
    (b"{\"pot\": 1e400}", "out of range"),
    (b"{\"pot\": NaN}", "NaN is not JSON"),
    (b"{\"pot\": -Infinity}", "not JSON"),
    (b"{\"a\": 1, \"a\": 2}", "twice"),
    (b"{\"a\": \"\\ud800\"}", "position: "),
    (b"\x00\x01\x1b[2J", "not JSON"),
    (b"{\"game\": \"zwicken\", \"variant\": {\"players\": 99999999999999999999}}", "position: "),
    (json.dumps({**SECTION_10, "dealer": 2**70}).encode(), "dealer"),
    (json.dumps({**SECTION_10, "hands": "OG 9E 7E"}).encode(), "position: "),
    (json.dumps({**SECTION_10, "colour": "red"}).encode(), "colour"),
    (json.dumps({**SECTION_10, "variant": {**SECTION_10["variant"], "stake": 2**60}}).encode(), "position: "),
    (b"{\"x\": \"" + b"a" * (oracle.MAX_LINE + 10) + b"\"}", "longer than"),
]


def test_garbage_gets_one_line_each_and_exit_1():
    lines = [line for line, _ in GARBAGE]
    answers, proc = rules("legal", raw=b"\n".join(lines + [json.dumps(SECTION_10).encode()]) + b"\n", code=1)
    assert len(answers) == len(GARBAGE) + 1 and proc.stderr == b""
    said = errors(answers[:-1])
    for (line, fragment), text in zip(GARBAGE, said):
        assert fragment in text, (line[:60], text)
        assert not text.startswith("internal error"), text
        assert len(text) <= 500
    assert answers[-1] == [{"type": "card", "card": "AE"}]  # after all that, still answering


def test_hostile_text_comes_back_escaped():
    answers, proc = rules("board", {"variant": "\x1b[2J\u202eevil\x7f", "seed": 1, "policy": "first"}, code=1)
    assert all(32 <= b < 127 or b == 10 for b in proc.stdout)  # ASCII, no control character
    assert "evil" in errors(answers)[0] and "preset" in errors(answers)[0]


def test_unknown_game_and_wrong_subcommand_exit_2():
    answers, proc = rules("legal", SECTION_10, game="nosuch", code=2)
    assert answers == [] and proc.stderr.decode().count("\n") == 1
    assert proc.stderr.decode().startswith("arena: error: --game: unknown game 'nosuch'") and "zwicken" in proc.stderr.decode()
    _, proc = rules("frob", SECTION_10, code=2)
    assert b"No such command" in proc.stderr
    _, proc = rules("legal", SECTION_10, game=None, code=None)  # the default game, zwicker
    assert proc.returncode in (1, 2)  # 1: zwicker answers (a zwicken position is an error); 2: not installed


def test_help_has_an_example():
    for command in oracle.COMMANDS:
        proc = subprocess.run([str(ARENA), "rules", command, "--help"], capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0 and "Example: arena rules " in proc.stdout and "--game" in proc.stdout


# -- the library: a game's bug is reported as one, never as the user's mistake -----------------------

class _Broken:
    """A game whose rules crash (a stand-in for a bug; no real game of ours behaves so)."""

    info = Info(name="broken", version="0", title="Broken", min_players=2, max_players=2, formats=("deal",),
                utility="zero_sum", unit="points", max_moves_per_deal=None)

    def state_from_dict(self, position):
        if position.get("bad"):
            raise GameError("bad: a refusal of the rules")
        return {}["hands"]  # a KeyError: the game's bug

    def variant(self, spec):
        return spec

    def board(self, variant, seed, first_dealer=0, format=None):
        return _EndlessBoard()


class _EndlessBoard:
    is_over = False

    def deal(self):
        return _EmptyState()


class _EmptyState:
    is_over, to_move = False, 0

    def legal_moves(self, limit=None):
        return [], True


def test_a_games_bug_is_an_internal_error():
    a = oracle.respond(_Broken(), "legal", b"{}")
    assert a.internal and a.error.startswith("internal error: position: KeyError")
    a = oracle.respond(_Broken(), "legal", b'{"bad": true}')
    assert not a.internal and a.error == "position: bad: a refusal of the rules"
    a = oracle.answer(_Broken(), "board", {"variant": "x", "seed": 0, "policy": "first"})
    assert a.internal and "not over, yet no legal move" in a.error
    assert json.loads(a.to_json()) == {"error": a.error}

    class Refusing(_EmptyState):
        def legal_moves(self, limit=None):
            return ["m"], True

        def apply(self, move):
            raise IllegalMove(f"{move}: not legal")  # a listed move refused: the rules disagree with themselves

    class RefusingBoard(_EndlessBoard):
        def deal(self):
            return Refusing()

    class Game(_Broken):
        def board(self, variant, seed, first_dealer=0, format=None):
            return RefusingBoard()

    a = oracle.answer(Game(), "board", {"variant": "x", "seed": 0, "policy": "first"})
    assert a.internal and a.error == "internal error: deal 0: IllegalMove: m: not legal"
    assert oracle.answer(_Broken(), "nope", {}).error.startswith("unknown command")


def test_a_board_without_deals_in_its_detail_lists_them():
    """A game whose board result does not list its deals gets them listed by the oracle."""
    class Board:
        def __init__(self, n):
            self.n = n

        @property
        def is_over(self):
            return self.n == 2

        def deal(self):
            return State(False)

        def after(self, final):
            return Board(self.n + 1)

        def result(self):
            return Result(seats=(3, -3), sides=(3, -3), detail={"winner": 0})

    class State:
        def __init__(self, over):
            self.is_over, self.to_move = over, None if over else 0

        def legal_moves(self, limit=None):
            return [Move("a"), Move("b")], True

        def apply(self, move):
            return State(True)

        def result(self):
            return Result(seats=(1, -1), sides=(1, -1), detail={"move": "?"})

    class Move:
        def __init__(self, name):
            self.name = name

    class Game(_Broken):
        def board(self, variant, seed, first_dealer=0, format=None):
            return Board(0)

    a = oracle.answer(Game(), "board", {"variant": None, "seed": 0, "policy": "last"})
    assert a.value == {"points": [3, -3], "sides": [3, -3], "deals": [{"move": "?"}] * 2, "result": {"winner": 0}}


# -- Zwicker (docs/rules.md), once its adapter games/zwicker/ is installed ------------------------

def zwicker_examples() -> list[dict]:
    """docs/rules.md's worked examples: each ```position block with the blocks after it up to the
    next position; `legal` is the list for the position itself (a later one follows an `apply`)."""
    found = []
    for m in re.finditer(r"```position\n(.*?)```(.*?)(?=```position|\n## )", ZWICKER_DOC, re.S):
        example: dict = {"position": m.group(1)}
        for kind, text in re.findall(r"```(\w+)\n(.*?)```", m.group(2), re.S):
            example.setdefault(kind, text)
        found.append(example)
    return found


def test_zwicker_examples_found():
    examples = zwicker_examples()
    assert len(examples) >= 10 and sum("legal" in e for e in examples) >= 8
    assert sum("apply" in e and "result" in e for e in examples) >= 2 and sum("score" in e for e in examples) >= 2


def test_zwicker_legal_of_the_worked_examples():
    pytest.importorskip("games.zwicker")
    from engine import zwicker
    from engine.zwicker.notation import move_text

    examples = [e for e in zwicker_examples() if "legal" in e]
    positions = [zwicker.parse_position(e["position"]).to_dict() for e in examples]
    answers, _ = rules("legal", *positions, game="zwicker", code=0)
    assert len(answers) == len(examples)
    for e, p, a in zip(examples, positions, answers):
        direct = zwicker.State.from_dict(p).legal_moves()
        assert a == [m.to_dict() for m in direct]
        assert sorted(move_text(m) for m in direct) == sorted(e["legal"].split())


def test_zwicker_apply_the_worked_examples():
    pytest.importorskip("games.zwicker")
    from engine import zwicker

    examples = [e for e in zwicker_examples() if "apply" in e and "result" in e or "score" in e]
    starts = [zwicker.parse_position(e["position"]) for e in examples]
    played = [[zwicker.parse_move(t) for t in e.get("apply", "").split()] for e in examples]
    answers, _ = rules("apply", *({"position": s.to_dict(), "moves": [m.to_dict() for m in ms]}
                                  for s, ms in zip(starts, played)), game="zwicker", code=0)
    for e, start, ms, a in zip(examples, starts, played, answers):
        direct = start
        for m in ms:
            direct = direct.apply(m)
        assert a["position"] == direct.to_dict()
        if "result" in e:
            expected = zwicker.parse_position(e["result"]).to_dict()
            drop = () if "moves:" in e["result"] else ("moves",)  # a result block may leave them out
            assert {k: v for k, v in a["position"].items() if k not in drop} == \
                {k: v for k, v in expected.items() if k not in drop}
        if direct.is_over:
            assert a["result"] == direct.breakdown()
        else:
            assert a["result"] is None
        if "score" in e:
            assert [side["total"] for side in a["result"]] == [int(x) for x in e["score"].split()]


def test_zwicker_apply_names_the_illegal_move():
    pytest.importorskip("games.zwicker")
    from engine import zwicker

    e = next(e for e in zwicker_examples() if "illegal" in e)
    start = zwicker.parse_position(e["position"]).to_dict()
    bad = [zwicker.parse_move(line.split()[0]).to_dict() for line in e["illegal"].splitlines() if line.strip()]
    answers, _ = rules("apply", *({"position": start, "moves": [m]} for m in bad),
                       {"position": start, "moves": [{"type": "trail", "card": "AS"}]}, game="zwicker", code=1)
    assert len(answers) == len(bad) + 1
    assert all(text.startswith("moves[0]: ") for text in errors(answers)), answers


def test_zwicker_board_matches_the_game_played_directly():
    pytest.importorskip("games.zwicker")
    import games

    g = games.game("zwicker")
    requests = [{"variant": v, "seed": s, "first_dealer": d, "policy": p, **({"format": f} if f else {})}
                for v, s, d, f, p in (("jensen", 0, 3, None, "first"), ("jensen", 2**64 - 1, 0, "deal", "first"),
                                      ("huelsemann", 5, 1, None, "first"), ("huelsemann", 5, 1, None, "last"),
                                      ("huelsemann", 6, 0, "game", "first"), ("huelsemann", 6, 0, "game", "last"),
                                      ({"preset": "jensen", "target": 21}, 7, 2, "game", "first"),
                                      ("grossenwiehe", 3, 3, "deal", "first"))]
    answers, _ = rules("board", *requests, game="zwicker", code=0)
    for r, a in zip(requests, answers):
        pick = 0 if r["policy"] == "first" else -1
        b, deals = g.board(g.variant(r["variant"]), r["seed"], r["first_dealer"], r.get("format")), []
        while not b.is_over:
            s = b.deal()
            while not s.is_over:
                s = s.apply(s.legal_moves(None)[0][pick])
            deals.append(s.result().detail)
            b = b.after(s)
        result = b.result()
        if isinstance(result.detail, dict) and "deals" in result.detail:
            assert a == result.detail, r
        else:
            assert a == {g.info.unit: list(result.seats), "sides": list(result.sides), "deals": deals,
                         "result": result.detail}, r
        assert len(a["deals"]) == len(deals) and a["deals"], r


def test_zwicker_a_crowded_table_is_refused_not_computed():
    """Every seat trailing its last card crowds a jensen table until a seat has millions of captures:
    the oracle says so in one line instead of listing them."""
    pytest.importorskip("games.zwicker")
    answers, _ = rules("board", {"variant": "jensen", "seed": 0, "first_dealer": 3, "policy": "last"},
                       game="zwicker", code=1)
    (said,) = errors(answers)
    assert said.startswith("deal 0, seat ") and f"limit {oracle.BOARD_LIMIT}" in said


def test_zwicker_garbage():
    pytest.importorskip("games.zwicker")
    answers, _ = rules("legal", b"[]", b"{}", b"{\"variant\": \"jensen\", \"dealer\": 9}", SECTION_10,
                       game="zwicker", code=1)
    assert len(errors(answers)) == 4
    assert not any(e.startswith("internal error") for e in errors(answers))


# -- protocol.md, "Testing against the real rules": its sessions are what the program answers ------

PROTOCOL = (ROOT / "protocol.md").read_text()
SECTION = re.search(r"^## \d+\. Testing against the real rules: `arena rules`\n(.*?)(?=^## |\Z)", PROTOCOL,
                       re.S | re.M).group(1)


def test_protocol_sessions_are_answered_as_shown():
    sessions = re.findall(r"```jsonl\n(.*?)```", SECTION, re.S)
    assert {re.match(r"\$ arena rules (\w+)", s).group(1) for s in sessions} == set(oracle.COMMANDS)
    for session in sessions:
        lines = session.splitlines()
        command, game = re.fullmatch(r"\$ arena rules (\w+) --game (\w+)", lines[0]).groups()
        sent = [json.loads(line[2:]) for line in lines if line.startswith("> ")]
        shown = [json.loads(line[2:]) for line in lines if line.startswith("< ")]
        assert lines[-2] == "$ echo $?" and len(sent) == len(shown) >= 1
        answers, proc = rules(command, *sent, game=game, code=int(lines[-1]))
        assert answers == shown, command
    assert SECTION_10 in [json.loads(line[2:]) for line in SECTION.splitlines() if line.startswith("> {\"game\"")]


def test_protocol_pipe_example_runs(tmp_path):
    code = re.search(r"```python\n(.*?)```", SECTION, re.S).group(1)
    script = tmp_path / "ask.py"
    script.write_text(code + "\nimport sys\nprint(json.dumps(legal_moves(json.loads(sys.argv[1]))))\n"
                      "try:\n    legal_moves({})\nexcept ValueError as exc:\n    print(exc)\n")
    env = {"PATH": f"{ARENA.parent}:/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, str(script), json.dumps(SECTION_10)], capture_output=True, text=True,
                          env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == ['[{"type": "card", "card": "AE"}]', "position: missing key 'variant'"]


def test_the_oracle_knows_only_the_interface():
    """games/oracle.py reaches a game only through games.api: no arena, no rules package."""
    import ast

    tree = ast.parse((ROOT / "games" / "oracle.py").read_text())
    names = {a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names}
    names |= {n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)}
    assert all(n == "games.api" or n == "__future__" or n.split(".")[0] in sys.stdlib_module_names for n in names), names
