"""The 32-card Bavarian pack and the order of its cards (docs/zwicken-rules.md section 1).

A card is its code, rank + suit: `AE` (Eichel-Daus), `7S` (Schellen-7, the Welli). What a card is
worth in a trick depends on trumps and on the `welli` option: `table(welli, trump)` gives, per
card, its effective suit (`TRUMPS` for every trump, the Welli included) and its power (higher
wins), computed once for the eight combinations.
"""

from __future__ import annotations

SUITS = ("E", "G", "H", "S")
RANKS = ("A", "K", "O", "U", "T", "9", "8", "7")
PACK = tuple(r + s for s in SUITS for r in RANKS)  # canonical order: index 0 AE, 31 7S
WELLI = "7S"
TRUMPS = "T"  # the effective suit of every trump card (a suit letter is never "T")
SUIT_NAMES = {"E": "Eichel", "G": "Gras", "H": "Herz", "S": "Schellen"}

_PLAIN_POWER = {r: 8 - i for i, r in enumerate(RANKS)}   # A 8 ... 7 1
_TRUMP_BASE = 100                                         # any trump beats any plain card


def rank(card: str) -> str:
    return card[0]


def suit(card: str) -> str:
    """The printed suit (the Welli's is S); trumps are fixed by this suit of the turned card."""
    return card[1]


def _build(welli: bool, trump: str) -> dict[str, tuple[str, int]]:
    out: dict[str, tuple[str, int]] = {}
    for card in PACK:
        r, s = card[0], card[1]
        if welli and card == WELLI:
            out[card] = (TRUMPS, _TRUMP_BASE + 2 * _PLAIN_POWER["A"] - 1)  # between the Ace and King
        elif s == trump:
            out[card] = (TRUMPS, _TRUMP_BASE + 2 * _PLAIN_POWER[r])
        else:
            out[card] = (s, _PLAIN_POWER[r])
    return out


_TABLES = {(w, t): _build(w, t) for w in (True, False) for t in SUITS}


def table(welli: bool, trump: str) -> dict[str, tuple[str, int]]:
    """Per card: (effective suit, power) under these trumps."""
    return _TABLES[(welli, trump)]


def trumps(welli: bool, trump: str) -> tuple[str, ...]:
    """The trump cards, high to low: `AE 7S KE OE UE TE 9E 8E 7E` for Eichel with the Welli."""
    t = _TABLES[(welli, trump)]
    return tuple(sorted((c for c in PACK if t[c][0] == TRUMPS), key=lambda c: -t[c][1]))


def is_trump(card: str, welli: bool, trump: str) -> bool:
    return _TABLES[(welli, trump)][card][0] == TRUMPS


def check_card(card: object) -> str:
    if card not in _PLAIN_CODES:
        raise ValueError(f"not a card of the Bavarian pack: {card!r}")
    return card  # type: ignore[return-value]


_PLAIN_CODES = frozenset(PACK)
