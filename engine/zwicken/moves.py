"""Moves and the follow rules (docs/zwicken-rules.md section 4).

A move is one of a few frozen values, shared: `SCHLECKEN`, `TITSCHEN`, `PLAY`, `PASS` and
`card_move(code)`. Each has its plain form (`{"type": "card", "card": "KE"}`) and its text form
(`schleck`, `titsch`, `play`, `pass`, `KE`).
"""

from __future__ import annotations

from typing import Any

from engine.zwicken.cards import PACK, TRUMPS
from engine.errors import IllegalMove


class Move:
    """A move; compare with ==, or by identity when taken from a legal-move list."""

    __slots__ = ("type", "method", "card", "_key")

    def __init__(self, type: str, method: str | None = None, card: str | None = None) -> None:
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "method", method)
        object.__setattr__(self, "card", card)
        object.__setattr__(self, "_key", (type, method, card))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Move is immutable")

    @property
    def key(self) -> tuple:
        return self._key

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and self._key == other._key

    def __hash__(self) -> int:
        return hash(self._key)

    def __repr__(self) -> str:
        return f"Move({self})"

    def __str__(self) -> str:
        if self.type == "trump":
            return "schleck" if self.method == "schlecken" else "titsch"
        if self.type == "card":
            return self.card  # type: ignore[return-value]
        return self.type

    def to_dict(self) -> dict[str, Any]:
        if self.type == "trump":
            return {"type": "trump", "method": self.method}
        if self.type == "card":
            return {"type": "card", "card": self.card}
        return {"type": self.type}

    @staticmethod
    def from_dict(data: Any) -> "Move":
        """The move a plain dict names; IllegalMove for anything that is not a Zwicken move."""
        if not isinstance(data, dict) or not isinstance(data.get("type"), str):
            raise IllegalMove(f"not a move: {data!r}")
        kind = data["type"]
        want = {"trump": {"type", "method"}, "card": {"type", "card"}, "play": {"type"}, "pass": {"type"}}
        if kind not in want or set(data) != want[kind]:
            raise IllegalMove(f"not a move: {data!r}")
        if kind == "trump":
            if data["method"] not in ("schlecken", "titschen"):
                raise IllegalMove(f"not a move: {data!r}")
            return SCHLECKEN if data["method"] == "schlecken" else TITSCHEN
        if kind == "card":
            if data["card"] not in CARD_MOVES:
                raise IllegalMove(f"not a move: {data!r}")
            return CARD_MOVES[data["card"]]
        return PLAY if kind == "play" else PASS


SCHLECKEN = Move("trump", method="schlecken")
TITSCHEN = Move("trump", method="titschen")
PLAY = Move("play")
PASS = Move("pass")
CARD_MOVES = {c: Move("card", card=c) for c in PACK}
_TEXT = {"schleck": SCHLECKEN, "titsch": TITSCHEN, "play": PLAY, "pass": PASS}


def card_move(card: str) -> Move:
    return CARD_MOVES[card]


def parse_move(text: str) -> Move:
    """The move a text form names: `schleck`, `titsch`, `play`, `pass` or a card code."""
    t = text.strip()
    move = _TEXT.get(t.lower()) or CARD_MOVES.get(t.upper())
    if move is None:
        raise IllegalMove(f"not a move: {text!r} (schleck, titsch, play, pass or a card such as KE)")
    return move


def move_text(move: Move) -> str:
    return str(move)


def legal_cards(hand: tuple[str, ...], trick: tuple[tuple[int, str], ...],
                table: dict[str, tuple[str, int]], must_trump: bool, must_overtrump: bool,
                must_head: bool) -> list[str]:
    """The cards of `hand` (in hand order) that may be played to `trick` under these trumps."""
    if not trick:
        return list(hand)
    led = table[trick[0][1]][0]
    follow = [c for c in hand if table[c][0] == led]
    if follow:
        if must_head and len(follow) > 1:
            best = max(table[c][1] for _, c in trick if table[c][0] in (led, TRUMPS))
            beat = [c for c in follow if table[c][1] > best]
            if beat:
                return beat
        return follow
    if must_trump:
        trumps = [c for c in hand if table[c][0] == TRUMPS]
        if trumps:
            if must_overtrump and len(trumps) > 1:
                played = [table[c][1] for _, c in trick if table[c][0] == TRUMPS]
                if played:
                    top = max(played)
                    over = [c for c in trumps if table[c][1] > top]
                    if over:
                        return over
            return trumps
    return list(hand)


def trick_winner(trick: tuple[tuple[int, str], ...], table: dict[str, tuple[str, int]]) -> int:
    """The seat that wins a complete trick: the highest trump, else the highest of the led suit."""
    led = table[trick[0][1]][0]
    best_seat, best = trick[0][0], -1
    for seat, card in trick:
        s, power = table[card]
        if (s == led or s == TRUMPS) and power > best:
            best_seat, best = seat, power
    return best_seat
