"""Replays: a stored deal as a versioned document, and its rendering as a pure function.

The document carries everything needed to reproduce the deal (variant, seed, dealer, what its
board carried into it where anything was (`carry`: Zwicken's pot and balances), the moves with
their timings) plus who sat where and how each seat ended; `render` re-applies every move
with the game's rules (through `games`), so a replay is also a check of the stored record. A
document names its game (`game`; one without it is Zwicker's, as every document was before).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import sqlite_utils

import games
from arena.errors import ArenaError, visible
from arena.results import read

SCHEMA = "zwicker-replay/1"


def document(db: sqlite_utils.Database, deal_id: int) -> dict[str, Any]:
    """The replay document of a stored deal."""
    d = read.get_deal(db, deal_id)
    game = games.game(d["game"])
    return {
        "schema": SCHEMA,
        "engine": game.info.version,
        "game": game.info.name,
        "deal_id": d["id"],
        "tournament": d["tournament"],
        "match": d["match_no"], "board": d["board_no"], "swapped": d["swapped"], "room": d["room"], "number": d["number"],
        "variant": d["variant"], "seed": d["seed"], "dealer": d["dealer"],
        **({"carry": d["carry"]} if d["carry"] is not None else {}),
        "seats": [{"seat": s["seat"], "bot": f"{s['bot']}@{s['bot_version']}", "says": f"{s['name']} {s['version']}",
                   "status": s["status"], "detail": s["detail"]} for s in d["seats"]],
        "moves": d["moves"], "complete": d["complete"],
        "points": d["points"], "breakdown": d["breakdown"], "forfeit": d["forfeit"],
    }


def load(path: Path) -> dict[str, Any]:
    """A replay document saved by `arena replay DEAL --json`."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ArenaError(f"no deal id and no replay document at {path}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ArenaError(f"{path} is not a replay document: {exc}") from None
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA:
        raise ArenaError(f"{path} is not a replay document of schema {SCHEMA}")
    return doc


def render(doc: dict[str, Any], seat: int | None = None) -> Iterator[str]:
    """Frames of text, one per move: what the whole table (or only `seat`) could see."""
    if doc.get("schema") != SCHEMA:
        raise ArenaError(f"not a replay document of schema {SCHEMA}: {doc.get('schema')!r}")
    game, variant = rules(doc)
    try:
        state = game.deal(variant, int(doc["seed"]), doc["dealer"], doc.get("carry"))  # seed: a string in JSON (above 2**53)
    except (games.GameError, ValueError, TypeError) as exc:
        raise ArenaError(f"not a deal of {game.info.name}: {exc}") from None
    n = variant.players
    if seat is not None and not 0 <= seat < n:
        raise ArenaError(f"--seat must be 0..{n - 1}, got {seat}")
    who = {s["seat"]: s["bot"] for s in doc["seats"]}
    room = doc.get("room", int(doc["swapped"]))
    where = "" if not room else " (sides swapped)" if game.layout(variant).partnerships else f", room {room}"
    yield (f"deal {doc['deal_id']} of tournament '{doc['tournament']}': match {doc['match']}, board {doc['board']}"
           f"{where}, {variant}, seed {doc['seed']}, dealer {doc['dealer']}")
    yield "seats: " + ", ".join(f"{s}={who.get(s, '?')}" for s in range(n))
    for k, record in enumerate(doc["moves"]):
        yield state.text(seat)
        try:
            move = game.move_from_dict(record["move"])
            after = state.apply(move)
        except games.IllegalMove as exc:
            raise ArenaError(f"stored move {k} does not replay: {exc}") from None
        timing = f" ({record['ms']:.1f} ms)" if record.get("ms") is not None else ""
        told = _told(state, move, seat, record["seat"])
        yield f"  move {k + 1}: seat {record['seat']} ({who.get(record['seat'], '?')}) plays {told}{timing}"
        state = after
    yield state.text(seat)
    if state.is_over:
        yield f"score: {list(state.result().sides)}  (stored: {doc['points']})"
    else:
        yield f"the deal stopped here: {_forfeit_text(doc)}"


def _told(state: games.State, move: games.Move, seat: int | None, mover: int) -> str:
    """A move as `seat` was told of it: in full, unless another seat made it and the game keeps
    part of it private (`State.public_move`: a card passed face down)."""
    told = None if seat is None or seat == mover else public_text(state, move)
    return str(move) if told is None else told


def public_text(state: games.State, move: games.Move) -> str | None:
    """The move as the seats that did not make it were told of it (`State.public_move`), or None
    when they were told it in full."""
    public = getattr(state, "public_move", None)
    if public is None or (told := public(move)) == move.to_dict():
        return None
    return " ".join(str(v) for v in told.values()) if isinstance(told, dict) else str(told)


def rules(doc: dict[str, Any]) -> tuple[games.Game, games.Variant]:
    """A replay document's game (Zwicker when it names none) and variant."""
    try:
        game = games.game(doc.get("game"))
        return game, game.variant(doc["variant"])
    except games.GameError as exc:
        raise ArenaError(f"replay: {exc}") from None


def _forfeit_text(doc: dict[str, Any]) -> str:
    f = doc.get("forfeit")
    if not f:
        return "no result stored"
    return (f"seat {f.get('seat')} faulted ({f.get('status')}: {visible(f.get('detail', ''))}); "
            f"side {f.get('side')} forfeits")
