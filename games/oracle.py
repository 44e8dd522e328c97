"""The rules oracle: one JSON question about a game's rules, one JSON answer, through the interface.

`arena rules legal|apply|board` is this module behind a pipe, so that a bot written in any language
(and any test) can ask the real rules. Each call answers one request, already parsed by `parse`:

- `legal`: a position (the game's position form) -> its legal moves in the game's order (move dicts);
- `apply`: {"position": P, "moves": [m, ...]} -> {"position": P2, "result": R}: P2 after the moves
  in order, R the deal's result (the game's deal-result form) once it is over, else null;
- `board`: {"variant": V, "seed": S, "first_dealer": D, "policy": "first" | "last", "format": F}
  (D and F optional) -> the board's result when every seat always plays its first (or last) legal
  move: the game's own board result where it lists its deals (Zwicker: "format", "points", "sides",
  "winner", "deals"; Zwicken: "balances", "deals", "close"), else {unit: per seat, "sides": per
  side, "deals": [each deal's result], "result": the game's board detail}.

Whatever is wrong with a request, an `Answer` with `error` set says it in one line; a game's own
refusal (`games.api.GameError`) is the user's mistake, anything else a game raises is reported as
"internal error: ..." so a bug in the rules is never passed off as bad input.
Pure: no I/O, no arena import; only the interface of `games.api`.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from games.api import Board, Game, GameError, Json, State

COMMANDS = ("legal", "apply", "board")
POLICIES = ("first", "last")
MAX_LINE = 1 << 20       # bytes in one request line
MAX_DEPTH = 32           # nesting of arrays and objects in one request
MAX_DIGITS = 24          # an integer's digits (seeds go up to 2**64 - 1: 20 digits)
LEGAL_LIMIT = 100_000   # `legal`: the most moves listed (the game's `limit`)
BOARD_LIMIT = 10_000    # `board`: likewise, for each move of a policy
MAX_MOVES = 100_000      # moves in one deal of a `board` before the game is called broken
MAX_DEALS = 100_000      # deals in one board, likewise


class BadRequest(Exception):
    """The request itself is wrong (not JSON, a wrong type, a missing or unknown key)."""


class Internal(Exception):
    """The game misbehaved on a request (a bug in the rules, not the user's mistake)."""


@dataclass(frozen=True)
class Answer:
    value: Json = None
    error: str | None = None        # one line; set exactly when the request was not answered
    internal: bool = False          # the error is the game's fault

    def to_json(self) -> str:
        """The answer as one line of JSON, ASCII only (control characters escaped)."""
        body = {"error": self.error} if self.error is not None else self.value
        return json.dumps(body).replace("\x7f", "\\u007f")


# -- parsing a request line ------------------------------------------------------------------------

def _int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_DIGITS:
        raise BadRequest(f"an integer of {len(text.lstrip('-'))} digits (at most {MAX_DIGITS})")
    return int(text)


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise BadRequest(f"the number {text[:30]} is out of range")
    return value


def _constant(text: str) -> None:
    raise BadRequest(f"{text} is not JSON")


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise BadRequest(f"the key {key!r} appears twice in one object")
        out[key] = value
    return out


def _depth(value: Json) -> int:
    deepest, todo = 0, [(value, 1)]
    while todo:
        item, depth = todo.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if depth > MAX_DEPTH:
                break
            todo.extend((x, depth + 1) for x in (item.values() if isinstance(item, dict) else item))
    return deepest


def parse(line: bytes) -> Json:
    """One request line as plain data; BadRequest says what is wrong with it."""
    if len(line) > MAX_LINE:
        raise BadRequest(f"a line longer than {MAX_LINE} bytes")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadRequest(f"not UTF-8 (byte {exc.start})") from None
    try:
        value = json.loads(text, parse_int=_int, parse_float=_float, parse_constant=_constant,
                           object_pairs_hook=_object)
    except json.JSONDecodeError as exc:
        raise BadRequest(f"not JSON: {exc.msg} at column {exc.colno}") from None
    except RecursionError:
        raise BadRequest(f"nested too deeply (at most {MAX_DEPTH} levels)") from None
    except ValueError as exc:  # a huge exponent, a lone surrogate the decoder refuses
        raise BadRequest(f"not JSON: {exc}") from None
    if _depth(value) > MAX_DEPTH:
        raise BadRequest(f"nested too deeply (at most {MAX_DEPTH} levels)")
    return value


# -- answering ---------------------------------------------------------------------------------------

def _kind(value: Json) -> str:
    if isinstance(value, bool):
        return "a boolean"
    return {dict: "an object", list: "an array", str: "a string", int: "a number", float: "a number",
            type(None): "null"}.get(type(value), type(value).__name__)


def _object_with(doc: Json, what: str, required: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict:
    if not isinstance(doc, dict):
        raise BadRequest(f"{what} must be a JSON object, not {_kind(doc)}")
    unknown = [k for k in doc if k not in required + optional]
    if unknown:
        raise BadRequest(f"unknown key {unknown[0]!r} in {what} (keys: {', '.join(required + optional)})")
    missing = [k for k in required if k not in doc]
    if missing:
        raise BadRequest(f"{what} lacks {missing[0]!r}")
    return doc


def _call(what: str, fn: Callable[[], Any], *, bug: bool = False) -> Any:
    """Call into the game: its refusal stays a GameError, `what` in front; anything else is Internal,
    and so is a refusal where the game has nothing of the user's to refuse (`bug`: a listed move,
    the next deal of a board it made, the plain form of a state it accepted)."""
    try:
        return fn()
    except GameError as exc:
        if bug:
            raise Internal(f"{what + ': ' if what else ''}{type(exc).__name__}: {exc}") from None
        text = str(exc)
        raise GameError(f"{what}: {text}" if what and not text.startswith(f"{what}:") else text) from None
    except (BadRequest, Internal):
        raise
    except Exception as exc:  # a bug in the game: say so, in one line
        raise Internal(f"{what + ': ' if what else ''}{type(exc).__name__}: {exc}") from None


def _plain(value: Json, what: str) -> Json:
    """A game's answer checked to be plain data (it goes out as JSON)."""
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise Internal(f"{what} is not plain data ({exc})") from None
    return value


def _position(game: Game, doc: Json, what: str) -> State:
    if not isinstance(doc, dict):
        raise BadRequest(f"{what}: must be a JSON object (the game's position form), not {_kind(doc)}")
    state = _call(what, lambda: game.state_from_dict(doc))
    known = _call(what, state.to_dict, bug=True)
    unknown = [k for k in doc if not isinstance(known, dict) or k not in known]
    if unknown:  # the game's reader passed over it; a typo would go unnoticed
        raise BadRequest(f"{what}: unknown key {unknown[0]!r} (the position form's keys: {', '.join(known)})")
    return state


def _moves(state: State, limit: int, where: str = "") -> list:
    """Every legal move, asked of the game with `limit` so that a position with a huge list (a
    Zwicker table crowded with loose cards has millions of captures) is refused, not computed."""
    moves, complete = _call(f"{where}legal moves", lambda: state.legal_moves(limit), bug=True)
    if not complete:
        raise GameError(f"{where}more legal moves than the oracle asks the game for (limit {limit}): "
                        "the position has too many")
    return list(moves)


def legal(game: Game, doc: Json) -> Json:
    state = _position(game, doc, "position")
    return _plain([_call("move", m.to_dict, bug=True) for m in _moves(state, LEGAL_LIMIT)], "a legal move")


def _deal_result(state: State) -> Json:
    if not state.is_over:
        return None
    return _plain(_call("result", state.result, bug=True).detail, "the deal's result")


def apply(game: Game, doc: Json) -> Json:
    doc = _object_with(doc, "an apply request", ("position", "moves"))
    state = _position(game, doc["position"], "position")
    moves = doc["moves"]
    if not isinstance(moves, list):
        raise BadRequest(f"moves: must be an array of moves, not {_kind(moves)}")
    for i, m in enumerate(moves):
        if not isinstance(m, dict):
            raise BadRequest(f"moves[{i}]: must be a move (a JSON object), not {_kind(m)}")
        if state.is_over:
            raise GameError(f"moves[{i}]: the deal is over, no move is legal")
        move = _call(f"moves[{i}]", lambda: state.check(m))
        state = _call(f"moves[{i}]", lambda: state.apply(move), bug=True)  # it passed check
    position = _plain(_call("position", state.to_dict, bug=True), "the position")
    return {"position": position, "result": _deal_result(state)}


def board(game: Game, doc: Json) -> Json:
    doc = _object_with(doc, "a board request", ("variant", "seed", "policy"), ("first_dealer", "format"))
    spec, seed, policy = doc["variant"], doc["seed"], doc["policy"]
    first_dealer, fmt = doc.get("first_dealer", 0), doc.get("format")
    if not isinstance(spec, str | dict | None):
        raise BadRequest(f"variant: must be a preset (a string) or an object of options, not {_kind(spec)}")
    if type(seed) is not int:
        raise BadRequest(f"seed: must be an integer, not {_kind(seed)}")
    if type(first_dealer) is not int:
        raise BadRequest(f"first_dealer: must be a seat (an integer), not {_kind(first_dealer)}")
    if policy not in POLICIES:
        raise BadRequest(f"policy: must be {' or '.join(map(repr, POLICIES))}, not {json.dumps(policy)[:40]}")
    if fmt is not None and not isinstance(fmt, str):
        raise BadRequest(f"format: must be a string, not {_kind(fmt)}")
    variant = _call("variant", lambda: game.variant(spec))
    b: Board = _call("board", lambda: game.board(variant, seed, first_dealer, fmt))
    pick = 0 if policy == "first" else -1
    deals: list[Json] = []
    while not _call("board", lambda: b.is_over, bug=True):
        if len(deals) >= MAX_DEALS:
            raise Internal(f"board: not over after {MAX_DEALS} deals")
        state = _call(f"deal {len(deals)}", b.deal, bug=True)
        for _ in range(MAX_MOVES):
            if state.is_over:
                break
            moves = _moves(state, BOARD_LIMIT, f"deal {len(deals)}, seat {state.to_move}: ")
            if not moves:
                raise Internal(f"deal {len(deals)}: not over, yet no legal move")
            state = _call(f"deal {len(deals)}", lambda: state.apply(moves[pick]), bug=True)
        else:
            raise Internal(f"deal {len(deals)}: not over after {MAX_MOVES} moves")
        deals.append(_deal_result(state))
        b = _call(f"after deal {len(deals) - 1}", lambda: b.after(state), bug=True)
    result = _call("board result", b.result, bug=True)
    detail = _plain(result.detail, "the board's result")
    if isinstance(detail, dict) and "deals" in detail:
        return detail
    return {game.info.unit: list(result.seats), "sides": list(result.sides), "deals": deals, "result": detail}


HANDLERS: dict[str, Callable[[Game, Json], Json]] = {"legal": legal, "apply": apply, "board": board}


def answer(game: Game, command: str, doc: Json) -> Answer:
    """The answer to one parsed request; never raises for anything the request or the game does."""
    try:
        handler = HANDLERS[command]
    except KeyError:
        return Answer(error=f"unknown command {command!r} (commands: {', '.join(COMMANDS)})")
    try:
        return Answer(value=handler(game, doc))
    except (BadRequest, GameError) as exc:
        return Answer(error=_line(str(exc)))
    except Internal as exc:
        return Answer(error=_line(f"internal error: {exc}"), internal=True)
    except RecursionError:
        return Answer(error=f"internal error: {game.info.name} recursed too deeply", internal=True)
    except Exception as exc:  # anything the checks above let through: still one line, still honest
        return Answer(error=_line(f"internal error: {type(exc).__name__}: {exc}"), internal=True)


def respond(game: Game, command: str, line: bytes) -> Answer:
    """`parse` then `answer`: one request line, one answer."""
    try:
        doc = parse(line)
    except BadRequest as exc:
        return Answer(error=_line(str(exc)))
    return answer(game, command, doc)


def _line(text: str, limit: int = 500) -> str:
    """One line: line breaks as spaces, at most `limit` characters."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 3] + "..."


__all__ = ["COMMANDS", "MAX_LINE", "POLICIES", "Answer", "BadRequest", "answer", "apply", "board", "legal",
           "parse", "respond"]
