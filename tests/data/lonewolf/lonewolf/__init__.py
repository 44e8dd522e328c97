"""Lone Wolf (RULES.md) as a game of Zwicker Arena, written against `games.api` alone.

Unlike a game of one bot a seat, its two sides are of unequal size (the wolf, seat 0, against the
pack); a move may be private (the wolf's bury: the others see only that it buried); and chance
acts mid-deal (the trump card is turned up only after the bury).
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from games.api import BadPosition, BadVariant, IllegalMove, Info, Layout, Result

__version__ = "0.1.0"
HERE = Path(__file__).resolve().parent
SUITS = "CDHS"
RANKS = range(1, 9)
FORMATS = ("deal", "round")
PRESETS = {"classic": {"tricks": 4}, "short": {"tricks": 3}}


def rank(card: str) -> int:
    return int(card[:-1])


def suit(card: str) -> str:
    return card[-1]


def order(card: str) -> tuple[str, int]:
    return suit(card), rank(card)


@dataclass(frozen=True)
class Variant:
    players: int = 3
    tricks: int = 4

    def __post_init__(self) -> None:
        if not isinstance(self.players, int) or not 3 <= self.players <= 5:
            raise BadVariant(f"players: 3 to 5, got {self.players!r}")
        if not isinstance(self.tricks, int) or not 2 <= self.tricks <= 5:
            raise BadVariant(f"tricks: 2 to 5, got {self.tricks!r}")

    def to_dict(self) -> dict[str, Any]:
        return {"players": self.players, "tricks": self.tricks}

    def __str__(self) -> str:
        for name, options in PRESETS.items():
            if options["tricks"] == self.tricks:
                return name if self.players == 3 else f"{name}:players={self.players}"
        return f"players={self.players},tricks={self.tricks}"


@dataclass(frozen=True)
class Move:
    kind: str  # "bury" or "play"
    card: str

    @property
    def key(self) -> tuple[str, str]:
        return self.kind, self.card

    def to_dict(self) -> dict[str, Any]:
        return {"type": self.kind, "card": self.card}

    def __str__(self) -> str:
        return f"buries {self.card}" if self.kind == "bury" else self.card


def move_from_dict(data: Any) -> Move:
    if (not isinstance(data, Mapping) or data.get("type") not in ("bury", "play")
            or not isinstance(data.get("card"), str)):
        raise IllegalMove(f"a move is {{'type': 'bury' or 'play', 'card': ...}}, got {data!r}"[:200])
    return Move(data["type"], data["card"])


@dataclass(frozen=True)
class State:
    variant: Variant
    dealer: int
    hands: tuple[tuple[str, ...], ...]
    stock: tuple[str, ...]            # hidden; its first card is turned up after the bury
    buried: str | None = None
    leader: int = 0
    trick: tuple[tuple[int, str], ...] = ()
    tricks: tuple[int, ...] = ()
    history: tuple[tuple[int, str, str], ...] = ()  # (seat, kind, card)

    @property
    def n(self) -> int:
        return self.variant.players

    @property
    def trump(self) -> str | None:
        return None if self.buried is None else suit(self.stock[0])

    @property
    def is_over(self) -> bool:
        return sum(self.tricks) == self.variant.tricks

    @property
    def to_move(self) -> int | None:
        if self.is_over:
            return None
        return 0 if self.buried is None else (self.leader + len(self.trick)) % self.n

    def legal_moves(self, limit: int | None = None) -> tuple[list[Move], bool]:
        if self.is_over:
            return [], True
        seat = self.to_move
        assert seat is not None
        hand = sorted(self.hands[seat], key=order)
        if self.buried is None:
            moves = [Move("bury", c) for c in hand]
        else:
            led = [c for c in hand if self.trick and suit(c) == suit(self.trick[0][1])]
            moves = [Move("play", c) for c in (led or hand)]
        if limit is not None and len(moves) > limit:
            return moves[:limit], False
        return moves, True

    def check(self, move: Any) -> Move:
        m = move if isinstance(move, Move) else move_from_dict(move)
        if m.key not in [x.key for x in self.legal_moves()[0]]:
            raise IllegalMove(f"{m} is not legal here")
        return m

    def public_move(self, move: Move | Any) -> dict[str, Any]:
        m = move if isinstance(move, Move) else move_from_dict(move)
        return {"type": "bury"} if m.kind == "bury" else m.to_dict()

    def apply(self, move: Move | Any) -> State:
        m = self.check(move)
        seat = self.to_move
        assert seat is not None
        hands = tuple(tuple(c for c in h if c != m.card) if s == seat else h for s, h in enumerate(self.hands))
        history = self.history + ((seat, m.kind, m.card),)
        if m.kind == "bury":
            return replace(self, hands=hands, buried=m.card, history=history)
        trick = self.trick + ((seat, m.card),)
        if len(trick) < self.n:
            return replace(self, hands=hands, trick=trick, history=history)
        trumps = [t for t in trick if suit(t[1]) == self.trump]
        led = [t for t in trick if suit(t[1]) == suit(trick[0][1])]
        winner = max(trumps or led, key=lambda t: rank(t[1]))[0]
        tricks = tuple(k + (s == winner) for s, k in enumerate(self.tricks))
        return replace(self, hands=hands, leader=winner, trick=(), tricks=tricks, history=history)

    def observation(self, seat: int, *, moves: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "seat": seat, "hand": sorted(self.hands[seat], key=order),
            "phase": "over" if self.is_over else "bury" if self.buried is None else "play",
            "trump": self.trump, "turned": None if self.buried is None else self.stock[0],
            "trick": [list(t) for t in self.trick], "tricks": list(self.tricks),
            "buried": self.buried if seat == 0 else None, "dealer": self.dealer, "to_move": self.to_move}
        if moves:
            out["moves"] = [{"seat": s, "type": k} if k == "bury" and seat != 0 else {"seat": s, "type": k, "card": c}
                            for s, k, c in self.history]
        return out

    def score(self) -> int:
        return 2 * self.tricks[0] - self.variant.tricks

    def result(self) -> Result:
        if not self.is_over:
            raise BadPosition("the deal is not over")
        s, k = self.score(), self.n - 1
        return Result(seats=(k * s,) + (-s,) * k, sides=(k * s, -k * s),
                      detail={"tricks": list(self.tricks), "wolf": self.tricks[0], "buried": self.buried,
                              "trump": self.trump})

    def to_dict(self) -> dict[str, Any]:
        return {"players": self.n, "tricks_per_deal": self.variant.tricks, "dealer": self.dealer,
                "hands": [list(h) for h in self.hands], "stock": list(self.stock), "buried": self.buried,
                "leader": self.leader, "trick": [list(t) for t in self.trick], "tricks": list(self.tricks),
                "history": [list(t) for t in self.history]}

    def text(self, seat: int | None = None) -> str:
        head = ("over" if self.is_over else "the wolf buries" if self.buried is None
                else f"trick {sum(self.tricks) + 1}, seat {self.to_move} to play")
        trump = "not yet turned" if self.trump is None else f"{self.stock[0]} ({self.trump})"
        lines = [f"{head}; trump {trump}; on the table {' '.join(c for _, c in self.trick) or '-'}"]
        for s, hand in enumerate(self.hands):
            shown = " ".join(sorted(hand, key=order)) if seat is None or seat == s else f"({len(hand)} cards)"
            who = "wolf" if s == 0 else "pack"
            lines.append(f"  seat {s} ({who}): {shown:<20} tricks {self.tricks[s]}")
        if self.buried is not None and seat in (None, 0):
            lines.append(f"  buried: {self.buried}")
        return "\n".join(lines)

    def frame(self, before: State | None = None, move: Move | None = None) -> dict[str, Any]:
        return {"text": self.text(), "move": None if move is None else str(move)}


def _deal_seed(seed: int, k: int) -> int:
    digest = hashlib.sha256(b"lonewolf" + seed.to_bytes(8, "big") + k.to_bytes(8, "big")).digest()
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
        return self.deals_played == (1 if self.format == "deal" else self.variant.players)

    @property
    def deal_seed(self) -> int:
        return _deal_seed(self.seed, self.deals_played)

    @property
    def dealer(self) -> int:
        return (self.first_dealer + self.deals_played) % self.variant.players

    def deal(self) -> State:
        return GAME.deal(self.variant, self.deal_seed, self.dealer, self.carry())

    def after(self, final: State) -> Board:
        scores = final.result().seats
        totals = tuple(a + b for a, b in zip(self.totals or (0,) * len(scores), scores))
        return replace(self, deals_played=self.deals_played + 1, totals=totals)

    def carry(self) -> Any:
        return None if not self.deals_played else {"totals": list(self.totals)}

    def result(self) -> Result:
        k = self.variant.players - 1
        return Result(seats=self.totals, sides=(self.totals[0], -self.totals[0]),
                      detail={"totals": list(self.totals), "wolf_per_seat": self.totals[0] // k})


class LoneWolf:
    info = Info(name="lonewolf", version=__version__, title="Lone Wolf", min_players=3, max_players=5,
                formats=FORMATS, utility="zero_sum", unit="points", max_moves_per_deal=1 + 5 * 5,
                presets=tuple(PRESETS))
    reference_bots = {"greedy": HERE / "bots" / "greedy_bot.py", "timid": HERE / "bots" / "timid_bot.py"}
    docs = (HERE / "RULES.md",)

    def variant(self, spec: Any = None) -> Variant:
        if isinstance(spec, Variant):
            return spec
        if spec is None or (isinstance(spec, str) and not spec.strip()):
            return Variant()
        options: dict[str, Any] = {}
        if isinstance(spec, str):
            text = spec.strip()
            if text.startswith("{"):
                spec = json.loads(text)
            else:
                head, _, rest = text.partition(":") if ":" in text or "=" not in text else ("", "", text)
                if head:
                    if head not in PRESETS:
                        raise BadVariant(f"no preset {head!r} (presets: {', '.join(PRESETS)})")
                    options.update(PRESETS[head])
                for item in filter(None, (i.strip() for i in rest.split(","))):
                    key, eq, value = item.partition("=")
                    if not eq:
                        raise BadVariant(f"an option is name=value, got {item!r}")
                    options[key.strip()] = value.strip()
                spec = options
        if not isinstance(spec, Mapping):
            raise BadVariant(f"a variant is preset:name=value,... or a JSON object, got {spec!r}")
        spec = dict(spec)
        spec.pop("game", None)
        preset = spec.pop("preset", None)
        if preset is not None:
            if preset not in PRESETS:
                raise BadVariant(f"no preset {preset!r} (presets: {', '.join(PRESETS)})")
            spec = {**PRESETS[preset], **spec}
        unknown = set(spec) - {"players", "tricks"}
        if unknown:
            raise BadVariant(f"unknown option(s) {', '.join(sorted(unknown))} (known: players, tricks)")
        try:
            return Variant(int(spec.get("players", 3)), int(spec.get("tricks", 4)))
        except (TypeError, ValueError):
            raise BadVariant(f"players and tricks are whole numbers, got {spec!r}"[:200]) from None

    def layout(self, variant: Variant) -> Layout:
        return Layout(variant.players, ((0,), tuple(range(1, variant.players))))

    def describe(self, variant: Variant) -> dict[str, Any]:
        return {"game": self.info.name, **variant.to_dict(), "wolf": 0,
                "deck": [f"{r}{s}" for s in SUITS for r in RANKS]}

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
        deck = [f"{r}{s}" for s in SUITS for r in RANKS]
        random.Random(seed).shuffle(deck)
        n, t = variant.players, variant.tricks
        hands = [deck[t * s:t * (s + 1)] for s in range(n)]
        hands[0].append(deck[n * t])  # the wolf takes one more, then buries one
        return State(variant, dealer, tuple(tuple(sorted(h, key=order)) for h in hands), tuple(deck[n * t + 1:]),
                     None, (dealer + 1) % n, (), (0,) * n)

    def forfeit(self, variant: Variant, format: str | None, seat: int, deals: int = 1) -> Result:
        k = variant.players - 1
        s = (-variant.tricks if seat == 0 else variant.tricks) * deals
        return Result(seats=(k * s,) + (-s,) * k, sides=(k * s, -k * s), detail={"forfeit": seat})

    def state_from_dict(self, position: Any) -> State:
        try:
            return State(Variant(position["players"], position["tricks_per_deal"]), position["dealer"],
                         tuple(tuple(h) for h in position["hands"]), tuple(position["stock"]), position["buried"],
                         position["leader"], tuple((s, c) for s, c in position["trick"]),
                         tuple(position["tricks"]), tuple((s, k, c) for s, k, c in position["history"]))
        except (KeyError, TypeError, ValueError) as exc:
            raise BadPosition(f"not a Lone Wolf position: {exc}") from None

    def move_from_dict(self, move: Any) -> Move:
        return move_from_dict(move)

    def parse_move(self, text: str, state: State) -> Move:
        kind = "bury" if state.buried is None else "play"
        return state.check({"type": kind, "card": text.strip().split()[-1]})


GAME = LoneWolf()
