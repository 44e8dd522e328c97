"""docs/rules.md's examples checked against the engine, so that the document cannot drift from
the code it specifies; and the repository points to its own rules, never outside itself.

A fenced block's info string says what it holds (see docs/rules.md section 9): `position` and
`deal` set the current position, `apply` plays moves, `legal`, `illegal`, `result` and `score`
check it; `shuffle` and `deal_seed` are test vectors. Each heading starts afresh.
"""

import json
import re
import subprocess
from pathlib import Path

import pytest

from engine import zwicker
from engine.zwicker.notation import move_text

ROOT = Path(__file__).resolve().parent.parent
RULES = ROOT / "docs/rules.md"
KINDS = ("position", "deal", "apply", "legal", "illegal", "result", "score", "shuffle", "deal_seed")


def fences() -> list[tuple[str, str, str]]:
    """(heading, info string, text) of every fenced block, in order."""
    found = []
    heading, kind, lines = "", None, []
    for line in RULES.read_text(encoding="utf-8").splitlines():
        if kind is not None:
            if line.startswith("```"):
                found.append((heading, kind, "\n".join(lines)))
                kind = None
            else:
                lines.append(line)
        elif line.startswith("```"):
            kind, lines = line[3:].strip(), []
        elif line.startswith("#"):
            heading = line.lstrip("#").strip()
    return found


def examples() -> dict[str, list[tuple[str, str]]]:
    grouped: dict[str, list[tuple[str, str]]] = {}
    for heading, kind, text in fences():
        if kind in KINDS:
            grouped.setdefault(heading, []).append((kind, text))
    return grouped


def fields(text: str) -> dict[str, str]:
    return {k.strip(): v.strip() for k, _, v in (line.partition(":") for line in text.splitlines())}


def variant_of(text: str):
    return json.loads(text) if text.startswith("{") else text


def without_history(state: zwicker.State) -> zwicker.State:
    return zwicker.State.from_dict({**state.to_dict(), "moves": []})


def test_every_fence_is_a_known_kind_and_every_kind_is_used():
    kinds = [kind for _, kind, _ in fences()]
    assert set(kinds) - {""} <= set(KINDS), "a typo in an info string would leave a block unchecked"
    assert set(KINDS) <= set(kinds)


@pytest.mark.parametrize("heading", list(examples()))
def test_example(heading):
    state = None
    for kind, text in examples()[heading]:
        if kind == "position":
            state = zwicker.parse_position(text)
        elif kind == "deal":
            f = fields(text)
            state = zwicker.deal(variant_of(f["variant"]), int(f["seed"]), int(f["dealer"]))
        elif kind == "apply":
            for token in text.split():
                state = state.apply(zwicker.parse_move(token))
        elif kind == "legal":
            assert [move_text(m) for m in state.legal_moves()] == text.split()
        elif kind == "illegal":
            for line in text.splitlines():
                with pytest.raises(zwicker.IllegalMove):
                    state.apply(zwicker.parse_move(line.split()[0]))
        elif kind == "result":
            expected = zwicker.parse_position(text)
            actual = state if re.search(r"^moves:", text, re.M) else without_history(state)
            assert zwicker.position_text(actual) == zwicker.position_text(expected)
        elif kind == "score":
            assert state.score() == [int(x) for x in text.split()]
        elif kind == "shuffle":
            lines = text.splitlines()
            deck = zwicker.variant(variant_of(fields(lines[0])["variant"])).rules.deck
            for line in lines[1:]:
                seed, _, cards = line.removeprefix("seed ").partition(":")
                assert zwicker.shuffle(int(seed), deck)[: len(cards.split())] == cards.split()
        elif kind == "deal_seed":
            for line in text.splitlines():
                master, k, seed = re.fullmatch(r"deal_seed\((\d+), (\d+)\) = (\d+)", line).groups()
                assert zwicker.deal_seed(int(master), int(k)) == int(seed)


def tracked_files() -> list[Path]:
    try:
        out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
        return [ROOT / name for name in out.decode().split("\0") if name]
    except (OSError, subprocess.CalledProcessError):  # not a git checkout: every file but the ignored
        skip = {"results", "__pycache__", "build"}
        return [p for p in ROOT.rglob("*") if p.is_file()
                and not any(part.startswith(".") or part in skip or part.endswith(".egg-info")
                            for part in p.relative_to(ROOT).parts)]


def test_no_file_points_outside_the_repository_for_the_rules():
    outside = ("../" + "shared").encode()  # spelled apart, so that this file does not match itself
    bare = re.compile(rb"(?<![\w/-])rules\.md")  # a pointer to the rules without docs/ (not zwicken-rules.md)
    files = [p for p in tracked_files() if p.is_file()]
    assert RULES in files
    offenders = [str(p.relative_to(ROOT)) for p in files
                 if outside in p.read_bytes() or bare.search(p.read_bytes())]
    assert offenders == []
