"""Card codes and the canonical deck order (docs/rules.md section 1).

A card code is rank + suit (`TD`, `2S`), or a joker: `X` + matching value (`X15`) or `XW` for a
wild joker. Cards are plain strings everywhere: hashable, printable, msgpack-safe.
"""

from __future__ import annotations

RANKS = "A23456789TJQK"
SUITS = "CDHS"
PIP_VALUE = {r: i + 1 for i, r in enumerate(RANKS)}  # A=1 ... T=10, J=11, Q=12, K=13 (rank order)
COURT_HIGH = {"A": 11, "J": 12, "Q": 13, "K": 14}
COURT_LOW = {"A": 1, "J": 2, "Q": 3, "K": 4}
WILD = "XW"
WILD_VALUES = tuple(range(2, 15))


def pack(jokers: tuple[str, ...] = ()) -> list[str]:
    """One pack in canonical order: suits C, D, H, S, each A..K, then its jokers ascending."""
    return [r + s for s in SUITS for r in RANKS] + list(jokers)


def is_joker(code: str) -> bool:
    return code[0] == "X"


def card_values(code: str, dual: bool) -> tuple[int, ...]:
    """The values a card can match, ascending; dual valuation gives courts and aces two."""
    if code[0] == "X":
        if code == WILD:
            return WILD_VALUES
        return (int(code[1:]),)
    rank = code[0]
    if rank in COURT_HIGH:
        return (COURT_LOW[rank], COURT_HIGH[rank]) if dual else (COURT_HIGH[rank],)
    return (PIP_VALUE[rank],)


def sort_key(code: str) -> tuple[int, int]:
    """Canonical order of a single pack: suit, then rank; jokers last by value."""
    if code[0] == "X":
        return (len(SUITS), 99 if code == WILD else int(code[1:]))
    return (SUITS.index(code[1]), RANKS.index(code[0]))
