"""A stored deal as the positions the replay viewer steps through, made by the game's rules.

Frame k is the position after k moves as the game draws it (`State.frame`: for Zwicker every
hand, which the viewer hides but one seat's for that seat's view, the table's units, stock and
taken counts, Zwicks, and the move that led there with the cards it took). Re-applying the moves
also checks the stored record, as `arena replay` does.

A deal that starts from what its board carried into it (Zwicken: the pot and the balances of the
attempts before) is dealt from that carry: the stored one (`deals.carry`), else (a deal stored
without it) found by replaying its table's earlier deals through the game's `Board`; and a hand the game withholds at the end (Zwicken: a passed one) is withheld
in every frame, so that no step shows what a later one hides.
"""

from __future__ import annotations

from typing import Any

import sqlite_utils

import games
from arena.errors import ArenaError
from arena.report import views
from arena.results import compact, read, replay, web_queries


def deal_frames(doc: dict[str, Any], carry: Any = None) -> dict[str, Any]:
    """The replay document (arena.results.replay.document) with its frames and final score;
    `carry`: what the deal's board carried into it (see `board_carry`). `viewer`: where the pages
    load the game's viewer from; a game without one is drawn by the generic viewer from each
    frame's `text` (State.text: the whole position, every hand) and `views` (each seat's)."""
    game, v = replay.rules(doc)
    viewer = views.viewer_url(game.info.name)
    state = game.deal(v, int(doc["seed"]), doc["dealer"], carry if carry is not None else doc.get("carry"))
    seats = game.layout(v).players if viewer is None else 0  # the generic viewer's seats' own texts
    frames = [_frame(state, None, None, viewer is None, seats)]
    for k, record in enumerate(doc["moves"]):
        try:
            move = game.move_from_dict(record["move"])
            after = state.apply(move)
        except games.IllegalMove as exc:
            raise ArenaError(f"deal {doc['deal_id']}: stored move {k + 1} does not replay: {exc}") from None
        frame = _frame(after, state, move, viewer is None, seats)
        given = frame.get("move")  # the game's own account of the move, if a dict
        frame["move"] = {"seat": record["seat"], "text": str(move), **(given if isinstance(given, dict) else {}),
                         "ms": record.get("ms")}
        if (public := replay.public_text(state, move)) is not None:
            frame["move"]["public"] = public  # what the other seats were told of it (a card buried face down)
        frames.append(frame)
        state = after
    _withhold(frames)
    layout = game.layout(v)
    sides = [layout.side_of(seat) for seat in range(layout.players)]
    return {
        "sides": layout.num_sides, "seat_sides": sides,  # from the game's layout
        "viewer": viewer, "viewer_style": views.viewer_style_url(game.info.name),
        "deal_id": doc["deal_id"], "tournament": doc["tournament"], "match": doc["match"], "board": doc["board"],
        "swapped": doc["swapped"], "number": doc["number"], "variant": str(v), "game": game.info.name,
        "preset": v.to_dict().get("preset"), "players": v.players, "seed": str(doc["seed"]), "dealer": doc["dealer"],
        "seats": doc["seats"], "frames": frames, "complete": doc["complete"],
        "breakdown": state.result().detail if state.is_over else None,
        "points": doc["points"], "forfeit": doc["forfeit"],
    }


def _frame(state: games.State, before: games.State | None, move: games.Move | None, text: bool,
           seats: int) -> dict[str, Any]:
    """The game's frame; for the generic viewer with the position's text and each seat's
    (`views`, unless the frame has its own)."""
    frame = state.frame(before, move) if before is not None else state.frame()
    if text:
        frame["text"] = state.text()
        if not isinstance(frame.get("views"), list):
            frame["views"] = [state.text(seat) for seat in range(seats)]
    return frame


def _withhold(frames: list[dict]) -> None:
    """Empty, in every frame, each hand the last frame withholds (its `hand_sizes` counts cards
    its `hands` does not show): a passed Zwicken hand is never shown, not even before the pass."""
    last = frames[-1]
    sizes = last.get("hand_sizes")
    if not sizes:
        return
    hidden = [seat for seat, (hand, size) in enumerate(zip(last["hands"], sizes)) if len(hand) < size]
    for frame in frames:
        for seat in hidden:
            frame["hands"][seat] = []


def board_carry(db: sqlite_utils.Database, deal_id: int, number: int, game: games.Game, v: games.Variant) -> Any:
    """What the deal's board carried into it, from the table's earlier deals replayed through the
    game's `Board` (each must be the deal the board gives: the stored record is checked); None for
    a board's first deal and for a game whose boards carry nothing (Zwicker)."""
    if number == 0:
        return None
    where = web_queries.deal_table(db, deal_id)
    earlier = [d for d in compact.table_deals(db, where["table_id"], v, game) if d["number"] < number]
    if not earlier:
        return None
    board = game.board(v, where["board_seed"], earlier[0]["dealer"], where["format"])
    if board.carry() is None:
        return None
    for d in earlier:
        if (board.deal_seed, board.dealer) != (d["seed"], d["dealer"]):
            raise ArenaError(f"deal {deal_id}: the table's deal {d['number']} is not the one its board deals")
        state = board.deal()
        try:
            for record in d["moves"]:
                state = state.apply(game.move_from_dict(record["move"]))
        except games.IllegalMove as exc:
            raise ArenaError(f"deal {deal_id}: the table's deal {d['number']} does not replay: {exc}") from None
        if not state.is_over:
            raise ArenaError(f"deal {deal_id}: the table's deal {d['number']} did not end")
        board = board.after(state)
    return board.carry()


def deal_page(db: sqlite_utils.Database, deal_id: int) -> dict[str, Any]:
    """The replay viewer's data for one stored deal, with its room (0 straight, 1 swapped, r the
    r-th rotation of k entrants)."""
    doc = replay.document(db, deal_id)
    game, v = replay.rules(doc)
    page = deal_frames(doc, doc.get("carry") if doc.get("carry") is not None
                       else board_carry(db, deal_id, doc["number"], game, v))
    page["tournament_id"] = read.get_deal(db, deal_id)["tournament_id"]
    page["room"] = web_queries.deal_table(db, deal_id)["room"]
    return page
