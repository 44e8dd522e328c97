"""Deals stored compactly: each move as its index into the legal-move list, with its think time.

A deal is fully reproducible from (variant, seed, dealer) plus its moves (docs/rules.md), and
every move the arena stores was taken from the list of legal moves it sent the bot (the `act`'s
`legal`, `state.legal_moves(CAP)`): so a move is stored as its index there, usually one byte,
and its think time in whole microseconds (the records' ms have three decimals), one or two
bytes. The seat to move, the deal's result and the moves' dicts are recomputed by replaying
the deal through its game's rules (`decode`, about 3 ms per jensen deal), which also checks the
record. Every function takes the game (`games.Game`; None: Zwicker, the game of every
tournament stored before there were games) and its variant.
A jensen deal of about 50 moves takes some 150 bytes of play instead of some 3 KB of JSON.

`play` (a BLOB) is: a format byte (1), the number of moves (varint), then per move a varint
`v`: v > 0 is the index v - 1 into the state's listed moves; v = 0 is a move outside that list
(a capture named by a bot on a table too crowded to list them all, or an old record that does
not replay), followed by the seat (varint), the length of the move's msgpack map (varint) and
the map; then per move its think time in microseconds plus one (varint; 0 for none).

This module is the only one that knows the deals table's columns (and the SQL that writes and
reads them), so that renaming tables touches one place: DEALS, and the migration `migrate`,
which rewrites an older database's JSON deals in this form.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any

import msgpack
import sqlite_utils

import games

FORMAT = 1
CAP = 1000
"""The listed moves' cap: must equal arena.play.table.LEGAL_CAP (tests/test_compact.py checks),
since a stored index points into the list the arena sent."""
DEALS = "deals"
TABLES = "board_tables"
MATCHES = "matches"
TOURNAMENTS = "tournaments"

CREATE = f"""
CREATE TABLE {DEALS} (
    id INTEGER PRIMARY KEY,
    table_id INTEGER NOT NULL REFERENCES {TABLES}(id),
    deal_no INTEGER NOT NULL,
    seed TEXT NOT NULL,                -- decimal (up to 2**64 - 1)
    dealer INTEGER NOT NULL,
    points TEXT,                       -- JSON, per side; NULL for a deal a fault cut short
    complete INTEGER NOT NULL CHECK (complete IN (0, 1)),
    play BLOB NOT NULL,                -- the moves and think times (arena.results.compact)
    UNIQUE (table_id, deal_no)
)"""


# -- the encoding -------------------------------------------------------------------------------


def _varint(out: bytearray, n: int) -> None:
    if n < 0:
        raise ValueError(f"a varint is not negative, got {n}")
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _read_varint(data: bytes, at: int) -> tuple[int, int]:
    n = shift = 0
    while True:
        byte = data[at]
        at += 1
        n |= (byte & 0x7F) << shift
        if byte < 0x80:
            return n, at
        shift += 7


def _micros(ms: float | None) -> int:
    return 0 if ms is None else round(ms * 1000) + 1


def _game(game: games.Game | None) -> games.Game:
    return games.game() if game is None else game


def encode(variant: games.Variant, seed: int, dealer: int, moves: list[dict], game: games.Game | None = None,
           carry: games.Json = None) -> bytes:
    """A deal's moves ({"seat", "move", "ms"}, and "i": its index among the listed moves when the
    arena knows it) as the `play` BLOB. Without "i" the deal is replayed to find the indices; a
    move that is not in the list (or does not replay) is stored whole."""
    out = bytearray([FORMAT])
    _varint(out, len(moves))
    replaying = any(m.get("i") is None for m in moves)  # then every index is found by replaying
    state: games.State | None = _game(game).deal(variant, seed, dealer, carry) if replaying else None
    for m in moves:
        index = m.get("i")
        if replaying:
            index = None if state is None else _index(state, m, _game(game))
            if state is not None and index is None and (state.is_over or m["seat"] != state.to_move):
                state = None  # an old record that does not replay: the rest stored whole
            elif state is not None:
                try:
                    state = state.apply(state.legal_moves(CAP)[0][index] if index is not None else m["move"])
                except (games.GameError, ValueError, KeyError, TypeError):
                    state, index = None, None
        if index is not None:
            _varint(out, index + 1)
        else:
            packed = msgpack.packb(m["move"], use_bin_type=True)
            out.append(0)
            _varint(out, m["seat"])
            _varint(out, len(packed))
            out += packed
    for m in moves:
        _varint(out, _micros(m.get("ms")))
    return bytes(out)


def _index(state: games.State, m: dict, game: games.Game) -> int | None:
    if state.is_over or m["seat"] != state.to_move:
        return None
    try:
        move = game.move_from_dict(m["move"])
    except (games.GameError, ValueError, KeyError, TypeError):
        return None
    legal, _complete = state.legal_moves(CAP)
    for k, candidate in enumerate(legal):
        if candidate == move:
            return k
    return None


def decode(variant: games.Variant, seed: int, dealer: int, play: bytes, game: games.Game | None = None,
           carry: games.Json = None) -> dict[str, Any]:
    """The moves ({"seat", "move", "ms"}) and, for a finished deal, its points (per side) and
    breakdown (the game's deal result), by replaying the deal."""
    if not play or play[0] != FORMAT:
        raise ValueError(f"not a compact deal of format {FORMAT}")
    count, at = _read_varint(play, 1)
    state: games.State | None = _game(game).deal(variant, seed, dealer, carry)
    moves = []
    for _ in range(count):
        v, at = _read_varint(play, at)
        if v:
            assert state is not None, "an index after a move that did not replay"
            move = state.legal_moves(CAP)[0][v - 1]
            moves.append({"seat": state.to_move, "move": move.to_dict()})
            state = state.apply(move)
        else:
            seat, at = _read_varint(play, at)
            size, at = _read_varint(play, at)
            move_dict = msgpack.unpackb(play[at : at + size], raw=False)
            at += size
            moves.append({"seat": seat, "move": move_dict})
            if state is not None:
                try:
                    state = state.apply(move_dict) if seat == state.to_move and not state.is_over else None
                except (games.GameError, ValueError, KeyError, TypeError):
                    state = None
    for m in moves:
        us, at = _read_varint(play, at)
        m["ms"] = None if us == 0 else (us - 1) / 1000
    result = state.result() if state is not None and state.is_over else None
    return {"moves": moves, "points": None if result is None else list(result.sides),
            "breakdown": None if result is None else result.detail}


# -- the SQL ------------------------------------------------------------------------------------


def insert(db: sqlite_utils.Database, table_id: int, variant: games.Variant, deals: Iterable[dict],
           game: games.Game | None = None) -> None:
    """Store a table's deals (inside the caller's transaction)."""
    db.conn.executemany(
        f"INSERT INTO {DEALS} (table_id, deal_no, seed, dealer, points, complete, play, carry)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        [(table_id, d["number"], str(d["seed"]), d["dealer"], None if d["points"] is None else json.dumps(d["points"]),
          int(bool(d.get("complete", True))),
          encode(variant, int(d["seed"]), d["dealer"], d["moves"], game, d.get("carry")),
          None if d.get("carry") is None else json.dumps(d["carry"], separators=(",", ":")))
         for d in deals],
    )


def _row(variant: games.Variant, row: dict, game: games.Game | None = None) -> dict[str, Any]:
    carry = None if row.get("carry") is None else json.loads(row["carry"])
    played = decode(variant, int(row["seed"]), row["dealer"], row["play"], game, carry)
    points = None if row["points"] is None else json.loads(row["points"])
    return {"id": row["id"], "table_id": row["table_id"], "number": row["deal_no"], "seed": int(row["seed"]),
            "dealer": row["dealer"], "carry": carry, "points": points, "breakdown": played["breakdown"],
            "moves": played["moves"], "complete": bool(row["complete"])}


def deal(db: sqlite_utils.Database, deal_id: int, variant: games.Variant,
         game: games.Game | None = None) -> dict[str, Any] | None:
    """One stored deal, decoded; None if there is none with that id."""
    rows = list(db.query(f"SELECT * FROM {DEALS} WHERE id = ?", [deal_id]))
    return _row(variant, rows[0], game) if rows else None


def table_deals(db: sqlite_utils.Database, table_id: int, variant: games.Variant,
                game: games.Game | None = None) -> Iterator[dict[str, Any]]:
    """A table's deals in order, decoded."""
    for row in db.query(f"SELECT * FROM {DEALS} WHERE table_id = ? ORDER BY deal_no", [table_id]):
        yield _row(variant, row, game)


# -- the migration ------------------------------------------------------------------------------


def migrate(db: sqlite_utils.Database) -> None:
    """Rewrite a database's deals (JSON moves and breakdown) in the compact form, keeping their
    ids; deals that do not replay keep their moves whole. A one-off cost of about 3 ms per deal."""
    db.execute(f"ALTER TABLE {DEALS} RENAME TO {DEALS}_json")
    db.execute(CREATE)
    variants: dict[int, games.Variant] = {}
    rows = db.execute(
        f"SELECT d.id, d.table_id, d.deal_no, d.seed, d.dealer, d.points, d.complete, d.moves, m.tournament_id"
        f" FROM {DEALS}_json d JOIN {TABLES} t ON t.id = d.table_id JOIN {MATCHES} m ON m.id = t.match_id"
        f" ORDER BY d.id")
    batch = []
    for deal_id, table_id, number, seed, dealer, points, complete, moves, tid in rows:
        if tid not in variants:
            (text,) = db.execute(f"SELECT variant FROM {TOURNAMENTS} WHERE id = ?", [tid]).fetchone()
            variants[tid] = games.game().variant(json.loads(text))  # before there were games: zwicker
        kept_points = None if points is None or json.loads(points) is None else points
        batch.append((deal_id, table_id, number, seed, dealer, kept_points, complete,
                      encode(variants[tid], int(seed), dealer, json.loads(moves))))
        if len(batch) >= 1000:
            _put(db, batch)
    _put(db, batch)
    db.execute(f"DROP TABLE {DEALS}_json")


def _put(db: sqlite_utils.Database, batch: list[tuple]) -> None:
    db.conn.executemany(f"INSERT INTO {DEALS} (id, table_id, deal_no, seed, dealer, points, complete, play)"
                        " VALUES (?, ?, ?, ?, ?, ?, ?, ?)", batch)
    batch.clear()
