"""Replays: a stored deal as a versioned document, and its rendering as a pure function.

The document carries everything needed to reproduce the deal (variant, seed, dealer, the moves
with their timings) plus who sat where and how each seat ended; `render` re-applies every move
with the engine, so a replay is also a check of the stored record.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import sqlite_utils

import engine
from arena.errors import ArenaError, visible
from arena.results import read
from engine.notation import move_text, unit_text

SCHEMA = "zwicker-replay/1"


def document(db: sqlite_utils.Database, deal_id: int) -> dict[str, Any]:
    """The replay document of a stored deal."""
    d = read.get_deal(db, deal_id)
    return {
        "schema": SCHEMA,
        "engine": engine.__version__,
        "deal_id": d["id"],
        "tournament": d["tournament"],
        "match": d["match_no"], "board": d["board_no"], "swapped": d["swapped"], "number": d["number"],
        "variant": d["variant"], "seed": d["seed"], "dealer": d["dealer"],
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
    state = engine.deal(doc["variant"], int(doc["seed"]), doc["dealer"])  # a string in JSON (above 2**53)
    n = state.variant.players
    if seat is not None and not 0 <= seat < n:
        raise ArenaError(f"--seat must be 0..{n - 1}, got {seat}")
    who = {s["seat"]: s["bot"] for s in doc["seats"]}
    yield (f"deal {doc['deal_id']} of tournament '{doc['tournament']}': match {doc['match']}, board {doc['board']}"
           f"{' (sides swapped)' if doc['swapped'] else ''}, {engine.variant(doc['variant'])}, seed {doc['seed']}, "
           f"dealer {doc['dealer']}")
    yield "seats: " + ", ".join(f"{s}={who.get(s, '?')}" for s in range(n))
    for k, record in enumerate(doc["moves"]):
        yield _frame(state, seat)
        move = engine.Move.from_dict(record["move"])
        try:
            after = state.apply(move)
        except engine.IllegalMove as exc:
            raise ArenaError(f"stored move {k} does not replay: {exc}") from None
        timing = f" ({record['ms']:.1f} ms)" if record.get("ms") is not None else ""
        yield f"  move {k + 1}: seat {record['seat']} ({who.get(record['seat'], '?')}) plays {move_text(move)}{timing}"
        state = after
    yield _frame(state, seat)
    if state.is_over:
        yield f"score: {state.score()}  (stored: {doc['points']})"
    else:
        yield f"the deal stopped here: {_forfeit_text(doc)}"


def _frame(state: engine.State, seat: int | None) -> str:
    table = " ".join(unit_text(u) for u in state.table) or "-"
    lines = [f"table: {table}   stock: {len(state.stock)}   taken: {[len(t) for t in state.taken]}"
             f"   zwicks: {list(state.zwicks)}"]
    for s, hand in enumerate(state.hands):
        if seat is None or s == seat:
            mark = " <- to move" if s == state.to_move and not state.is_over else ""
            lines.append(f"  hand {s}: {' '.join(hand) or '-'}{mark}")
        else:
            lines.append(f"  hand {s}: {len(hand)} cards")
    return "\n".join(lines)


def _forfeit_text(doc: dict[str, Any]) -> str:
    f = doc.get("forfeit")
    if not f:
        return "no result stored"
    return (f"seat {f.get('seat')} faulted ({f.get('status')}: {visible(f.get('detail', ''))}); "
            f"side {f.get('side')} forfeits")
