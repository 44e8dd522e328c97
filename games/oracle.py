"""The rules oracle (`arena rules legal|apply|board --game NAME`): the real rules of any game,
as JSON lines in and JSON lines out, for a bot author in any language and for any test.

Each input line is one JSON document; each gets one answer line:

- `legal`: a position (the game's position form) -> the list of its legal moves in order (the
  list the arena sends in `act`: for Zwicker at most about LEGAL_CAP captures per card value);
- `apply`: `{"position": P, "moves": [m, ...]}` -> `{"position": P2, "result": R}`, P2 after the
  moves, R the deal's result form once the deal is over (else null);
- `board`: `{"variant": V, "seed": S, "first_dealer": D, "policy": "first" | "last"}` (and
  optionally `"format"`, default the game's first) -> the board's result form, every seat always
  playing its first (or last) legal move.

Anything wrong with a line is `{"error": "one line saying what"}`; nothing raises out of
`answer`, whatever the input. Generic over `games.api`: it knows no game.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

from games.api import Game, GameError

COMMANDS = ("legal", "apply", "board")
LEGAL_CAP = 1000  # as arena.play.table.LEGAL_CAP: the list a bot is sent
MAX_MOVES = 100_000  # a safety net for `board`: no deal of a bundled game comes near it
MAX_DEALS = 10_000


class _Bad(Exception):
    """A line that cannot be answered; its text is the error answer."""


def _object(doc: Any, what: str, keys: dict[str, bool]) -> dict:
    """`doc` as a JSON object with only the known `keys` (True: required)."""
    if not isinstance(doc, dict):
        raise _Bad(f"{what}: expected a JSON object, got {_kind(doc)}")
    unknown = sorted(set(doc) - set(keys))
    if unknown:
        raise _Bad(f"{what}: unknown key {unknown[0]!r} (known: {', '.join(keys)})")
    missing = [k for k, required in keys.items() if required and k not in doc]
    if missing:
        raise _Bad(f"{what}: missing key {missing[0]!r}")
    return doc


def _kind(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null",
            int: "a number", float: "a number"}.get(type(value), type(value).__name__)


def _int(doc: dict, key: str, default: int | None = None) -> int:
    value = doc.get(key, default)
    if type(value) is not int:
        raise _Bad(f"{key}: expected an integer, got {_kind(value)}")
    return value


def legal(game: Game, doc: Any) -> list:
    state = game.state_from_dict(doc)
    moves, _complete = state.legal_moves(LEGAL_CAP)
    return [m.to_dict() for m in moves]


def apply(game: Game, doc: Any) -> dict:
    doc = _object(doc, "apply", {"position": True, "moves": True})
    moves = doc["moves"]
    if not isinstance(moves, list):
        raise _Bad(f"moves: expected an array of moves, got {_kind(moves)}")
    state = game.state_from_dict(doc["position"])
    for k, move in enumerate(moves):
        if state.is_over:
            raise _Bad(f"moves[{k}]: the deal is already over")
        try:
            state = state.apply(state.check(move))
        except GameError as exc:
            raise _Bad(f"moves[{k}]: {exc}") from None
    return {"position": state.to_dict(), "result": state.result().detail if state.is_over else None}


def board(game: Game, doc: Any) -> Any:
    doc = _object(doc, "board", {"variant": False, "seed": True, "first_dealer": False, "policy": False,
                                 "format": False})
    variant = game.variant(doc.get("variant"))
    policy = doc.get("policy", "first")
    if policy not in ("first", "last"):
        raise _Bad(f"policy: expected \"first\" or \"last\", got {json.dumps(policy)[:40]}")
    fmt = doc.get("format")
    if fmt is not None and not isinstance(fmt, str):
        raise _Bad(f"format: expected a string, got {_kind(fmt)}")
    pick = 0 if policy == "first" else -1
    b = game.board(variant, _int(doc, "seed"), _int(doc, "first_dealer", 0), fmt)
    moves = deals = 0
    while not b.is_over:
        state = b.deal()
        while not state.is_over:
            state = state.apply(state.legal_moves(LEGAL_CAP)[0][pick])
            moves += 1
            if moves > MAX_MOVES:
                raise _Bad(f"board: more than {MAX_MOVES} moves without an end")
        b = b.after(state)
        deals += 1
        if deals > MAX_DEALS:
            raise _Bad(f"board: more than {MAX_DEALS} deals without an end")
    return b.result().detail


HANDLERS: dict[str, Callable[[Game, Any], Any]] = {"legal": legal, "apply": apply, "board": board}


def answer(game: Game, command: str, line: str) -> tuple[Any, bool]:
    """The answer to one input line, and whether it is a proper answer (not an error)."""
    try:
        doc = json.loads(line)
    except (ValueError, RecursionError) as exc:
        return {"error": f"not a JSON document: {_one_line(exc)}"}, False
    try:
        out = HANDLERS[command](game, doc)
        json.dumps(out)  # plain data, or it is the game's fault: say so rather than fail later
        return out, True
    except _Bad as exc:
        return {"error": _one_line(exc)}, False
    except (GameError, ValueError, TypeError, KeyError, IndexError, AttributeError, OverflowError,
            RecursionError) as exc:
        return {"error": _one_line(exc) or type(exc).__name__}, False
    except Exception as exc:  # noqa: BLE001 - the oracle answers every line, whatever a game raises
        return {"error": f"{type(exc).__name__}: {_one_line(exc)}"}, False


def _one_line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text if len(text) <= 500 else text[:497] + "..."


def run(game: Game, command: str, lines: Iterable[str], write: Callable[[str], None]) -> int:
    """Answer every non-blank line in order; 0 if every answer was one, 1 if any was an error."""
    if command not in HANDLERS:
        raise ValueError(f"unknown rules command {command!r} (known: {', '.join(COMMANDS)})")
    status = 0
    for line in lines:
        if not line.strip():
            continue
        out, ok = answer(game, command, line)
        status |= not ok
        write(json.dumps(out, separators=(",", ":"), ensure_ascii=False) + "\n")
    return status
