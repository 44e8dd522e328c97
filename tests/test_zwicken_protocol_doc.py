"""games/zwicken/protocol.md (Zwicken's messages): every message example decodes and is what the rules give for its moment
(docs/zwicken-rules.md example F, seat 2)."""

import json
import re
from pathlib import Path

import games
from engine import zwicken as z

DOC = (Path(__file__).resolve().parents[1] / "games" / "zwicken" / "protocol.md").read_text()


def examples():
    return {m["type"]: m for m in (json.loads(b) for b in re.findall(r"```json\n(.*?)```", DOC, re.S))}


def test_every_message_has_an_example():
    assert set(examples()) == {"hello", "deal", "act", "deal_end"}
    for kind in examples():
        assert f"## `{kind}`" in DOC


def test_examples_are_the_rules_forms():
    ex = examples()
    g, v = games.load(ex["hello"]["variant"])
    assert g.info.name == "zwicken" and v == z.variant({"cut": "hop", "deals": 1})
    board = z.Board.new(v, 0, 3)
    s = board.deal()
    assert ex["deal"]["observation"] == z.observe(s, 2)
    board = board.after(s)
    s = board.deal()
    for t in "schleck play play pass pass KS US OE".split():
        s = s.apply(z.parse_move(t))
    assert ex["act"]["observation"] == z.observe(s, 2)
    assert ex["act"]["legal"] == [m.to_dict() for m in s.legal_moves()]
    for t in "AE AG 8H".split():
        s = s.apply(z.parse_move(t))
    end = ex["deal_end"]
    assert end["breakdown"] == s.result.to_dict() and end["points"] == list(s.result.net)
    assert end["moves"] == [{"seat": x, **m.to_dict()} for x, m in s.moves]
