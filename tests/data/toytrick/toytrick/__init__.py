"""Toy Trick (RULES.md) as a game of Zwicker Arena, written against `games.api` alone.

The arena finds it by the entry point `zwicker_arena.games` (`toytrick = "toytrick:GAME"`); its
bots import this package in the sandbox (the arena copies a game's own package for them).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from games.api import BadPosition, BadVariant, IllegalMove, Info, Layout, Result

__version__ = "0.1.0"
HERE = Path(__file__).resolve().parent
SUITS = "SH"
HAND = 3
FORMATS = ("hand", "rubber")
RUBBER = 3


def rank(card: str) -> int:
    return int(card[:-1])


def suit(card: str) -> str:
    return card[-1]


@dataclass(frozen=True)
class Variant:
    players: int = 3

    def __post_init__(self) -> None:
        if not isinstance(self.players, int) or not 3 <= self.players <= 4:
            raise BadVariant(f"players: 3 or 4, got {self.players!r}")

    def to_dict(self) -> dict[str, Any]:
        return {"players": self.players}

    def __str__(self) -> str:
        return f"players={self.players}"

    @property
    def deck(self) -> list[str]:
        return [f"{r}{s}" for s in SUITS for r in range(1, 2 * self.players + 1)]


@dataclass(frozen=True)
class Move:
    card: str

    @property
    def key(self) -> str:
        return self.card

    def to_dict(self) -> dict[str, Any]:
        return {"type": "play", "card": self.card}

    def __str__(self) -> str:
        return self.card


@dataclass(frozen=True)
class State:
    variant: Variant
    dealer: int
    hands: tuple[tuple[str, ...], ...]
    leader: int
    trick: tuple[tuple[int, str], ...] = ()
    tricks: tuple[int, ...] = ()
    history: tuple[tuple[int, str], ...] = field(default=())

    @property
    def n(self) -> int:
        return self.variant.players

    @property
    def is_over(self) -> bool:
        return sum(self.tricks) == HAND

    @property
    def to_move(self) -> int | None:
        return None if self.is_over else (self.leader + len(self.trick)) % self.n

    def legal_moves(self, limit: int | None = None) -> tuple[list[Move], bool]:
        if self.is_over:
            return [], True
        hand = self.hands[self.to_move]  # type: ignore[index]
        led = [c for c in hand if self.trick and suit(c) == suit(self.trick[0][1])]
        moves = [Move(c) for c in sorted(led or hand, key=lambda c: (suit(c), rank(c)))]
        if limit is not None and len(moves) > limit:
            return moves[:limit], False
        return moves, True

    def check(self, move: Any) -> Move:
        m = move if isinstance(move, Move) else move_from_dict(move)
        if m.key not in [x.key for x in self.legal_moves()[0]]:
            raise IllegalMove(f"{m} is not legal here")
        return m

    def apply(self, move: Move | Any) -> State:
        m = self.check(move)
        seat = self.to_move
        assert seat is not None
        hands = tuple(tuple(c for c in h if c != m.card) if s == seat else h for s, h in enumerate(self.hands))
        trick = self.trick + ((seat, m.card),)
        history = self.history + ((seat, m.card),)
        if len(trick) < self.n:
            return State(self.variant, self.dealer, hands, self.leader, trick, self.tricks, history)
        led = suit(trick[0][1])
        winner = max((t for t in trick if suit(t[1]) == led), key=lambda t: rank(t[1]))[0]
        tricks = tuple(k + (s == winner) for s, k in enumerate(self.tricks))
        return State(self.variant, self.dealer, hands, winner, (), tricks, history)

    def observation(self, seat: int, *, moves: bool = True) -> dict[str, Any]:
        out = {"seat": seat, "hand": list(self.hands[seat]), "trick": [list(t) for t in self.trick],
               "tricks": list(self.tricks), "dealer": self.dealer, "to_move": self.to_move}
        if moves:
            out["moves"] = [list(t) for t in self.history]
        return out

    def result(self) -> Result:
        if not self.is_over:
            raise BadPosition("the hand is not over")
        scores = tuple(self.n * k - HAND for k in self.tricks)
        return Result(seats=scores, sides=scores, detail={"tricks": list(self.tricks), "scores": list(scores)})

    def to_dict(self) -> dict[str, Any]:
        return {"players": self.n, "dealer": self.dealer, "hands": [list(h) for h in self.hands],
                "leader": self.leader, "trick": [list(t) for t in self.trick], "tricks": list(self.tricks),
                "history": [list(t) for t in self.history]}

    def text(self, seat: int | None = None) -> str:
        lines = [f"trick {sum(self.tricks) + 1 if not self.is_over else HAND}, to move {self.to_move}, "
                 f"on the table {' '.join(c for _, c in self.trick) or '-'}"]
        for s, hand in enumerate(self.hands):
            shown = " ".join(hand) if seat is None or seat == s else f"({len(hand)} cards)"
            lines.append(f"  seat {s}: {shown:<14} tricks {self.tricks[s]}")
        return "\n".join(lines)

    def frame(self, before: State | None = None, move: Move | None = None) -> dict[str, Any]:
        return {"text": self.text(), "move": None if move is None else str(move)}


def move_from_dict(data: Any) -> Move:
    if not isinstance(data, Mapping) or data.get("type") != "play" or not isinstance(data.get("card"), str):
        raise IllegalMove(f"a move is {{'type': 'play', 'card': ...}}, got {data!r}"[:200])
    return Move(data["card"])


def _deal_seed(seed: int, k: int) -> int:
    digest = hashlib.sha256(b"toytrick" + seed.to_bytes(8, "big") + k.to_bytes(8, "big")).digest()
    return int.from_bytes(digest[:8], "big")


@dataclass(frozen=True)
class Board:
    variant: Variant
    seed: int
    first_dealer: int
    format: str
    deals_played: int = 0
    totals: tuple[int, ...] = ()

    @property
    def is_over(self) -> bool:
        return self.deals_played == (1 if self.format == "hand" else RUBBER)

    @property
    def deal_seed(self) -> int:
        return _deal_seed(self.seed, self.deals_played)

    @property
    def dealer(self) -> int:
        return (self.first_dealer + self.deals_played) % self.variant.players

    def deal(self) -> State:
        return GAME.deal(self.variant, self.deal_seed, self.dealer)

    def after(self, final: State) -> Board:
        scores = final.result().seats
        totals = tuple(a + b for a, b in zip(self.totals or (0,) * len(scores), scores))
        return Board(self.variant, self.seed, self.first_dealer, self.format, self.deals_played + 1, totals)

    def carry(self) -> Any:
        return None if not self.deals_played else {"totals": list(self.totals)}

    def result(self) -> Result:
        return Result(seats=self.totals, sides=self.totals, detail={"totals": list(self.totals)})


class ToyTrick:
    info = Info(name="toytrick", version=__version__, title="Toy Trick", min_players=3, max_players=4,
                formats=FORMATS, utility="zero_sum", unit="points", max_moves_per_deal=4 * HAND)
    reference_bots = {"low": HERE / "bots" / "low_bot.py", "high": HERE / "bots" / "high_bot.py"}
    docs = (HERE / "RULES.md",)

    def variant(self, spec: Any = None) -> Variant:
        if isinstance(spec, Variant):
            return spec
        if spec is None or (isinstance(spec, str) and not spec.strip()):
            return Variant()
        if isinstance(spec, str):
            text = spec.strip()
            if text.startswith("{"):
                spec = json.loads(text)
            else:
                spec = dict(item.split("=", 1) for item in text.split(",") if "=" in item) or {"?": text}
        if not isinstance(spec, Mapping):
            raise BadVariant(f"a variant is players=N or a JSON object, got {spec!r}")
        spec = {k: v for k, v in spec.items() if k != "game"}
        unknown = set(spec) - {"players"}
        if unknown:
            raise BadVariant(f"unknown option(s) {', '.join(sorted(unknown))} (known: players)")
        try:
            return Variant(int(spec.get("players", 3)))
        except (TypeError, ValueError):
            raise BadVariant(f"players: 3 or 4, got {spec.get('players')!r}") from None

    def layout(self, variant: Variant) -> Layout:
        return Layout(variant.players, tuple((s,) for s in range(variant.players)))

    def describe(self, variant: Variant) -> dict[str, Any]:
        return {"game": self.info.name, "players": variant.players, "hand_size": HAND, "deck": variant.deck}

    def board(self, variant: Variant, seed: int, first_dealer: int = 0, format: str | None = None) -> Board:
        fmt = format or FORMATS[0]
        if fmt not in FORMATS:
            raise BadVariant(f"format: one of {', '.join(FORMATS)}, got {fmt!r}")
        return Board(variant, seed, first_dealer, fmt)

    def resume(self, variant: Variant, seed: int, first_dealer: int, format: str | None, deal_no: int,
               carry: Any) -> Board:
        totals = tuple(carry["totals"]) if carry else ()
        return Board(variant, seed, first_dealer, format or FORMATS[0], deal_no, totals)

    def deal(self, variant: Variant, seed: int, dealer: int, carry: Any = None) -> State:
        deck = variant.deck
        random.Random(seed).shuffle(deck)
        n = variant.players
        hands = tuple(tuple(sorted(deck[HAND * s:HAND * (s + 1)], key=lambda c: (suit(c), rank(c))))
                      for s in range(n))
        return State(variant, dealer, hands, (dealer + 1) % n, (), (0,) * n)

    def forfeit(self, variant: Variant, format: str | None, seat: int, deals: int = 1) -> Result:
        n = variant.players
        seats = tuple(-(n - 1) * HAND * deals if s == seat else HAND * deals for s in range(n))
        return Result(seats=seats, sides=seats, detail={"forfeit": seat})

    def state_from_dict(self, position: Any) -> State:
        try:
            return State(Variant(position["players"]), position["dealer"],
                         tuple(tuple(h) for h in position["hands"]), position["leader"],
                         tuple((s, c) for s, c in position["trick"]), tuple(position["tricks"]),
                         tuple((s, c) for s, c in position["history"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise BadPosition(f"not a Toy Trick position: {exc}") from None

    def move_from_dict(self, move: Any) -> Move:
        return move_from_dict(move)

    def parse_move(self, text: str, state: State) -> Move:
        return state.check({"type": "play", "card": text.strip()})


GAME = ToyTrick()
