"""Positions that tests of several modules share (no test here)."""

from __future__ import annotations

import games


def crowded_zwicker() -> games.State:
    """Every low card (ace to five) loose on the table, seat 1 to move with four court cards and
    a ten: thousands of captures, more per card value than any cap below the arena's."""
    g = games.game("zwicker")
    d = g.deal(g.variant(None), 5, 0).to_dict()
    cards = [c for h in d["hands"] for c in h] + d["table"] + d["stock"]
    low = [c for c in cards if c[0] in "A2345"]
    mine = ["KD", "QD", "JH", "TS"]
    rest = [c for c in cards if c not in low and c not in mine]
    d.update(hands=[rest[0:4], mine, rest[4:8], rest[8:12]], table=low, stock=rest[12:], to_move=1)
    return g.state_from_dict(d)
