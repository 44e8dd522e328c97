"""Whole games (docs/rules.md section 6): deals to the target with the dealer rotating.

A Board is a frozen value like a State, as Zwicken's is: `board.deal()` is the opening of the
current deal, `board.after(final)` the board once that deal is over. Deal k's seed is
`deal_seed(seed, k)`, so a game is reproducible from (variant, seed, first dealer).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.errors import EngineError
from engine.zwicker.shuffle import check_seed, deal_seed
from engine.zwicker.state import State, deal
from engine.zwicker.variant import Variant, variant as make_variant


@dataclass(frozen=True)
class Board:
    variant: Variant
    seed: int
    first_dealer: int = 0
    totals: tuple[int, ...] = field(default=())
    deals_played: int = 0

    @classmethod
    def new(cls, variant: Variant | str | dict | None, seed: int, first_dealer: int = 0) -> "Board":
        v = make_variant(variant)
        if type(first_dealer) is not int or not 0 <= first_dealer < v.players:
            raise EngineError(f"first_dealer: must be a seat 0..{v.players - 1}, got {first_dealer!r}")
        return cls(v, check_seed(seed), first_dealer, (0,) * v.num_sides, 0)

    @property
    def dealer(self) -> int:
        return (self.first_dealer + self.deals_played) % self.variant.players

    @property
    def deal_seed(self) -> int:
        return deal_seed(self.seed, self.deals_played)

    def deal(self) -> State:
        return deal(self.variant, self.deal_seed, self.dealer)

    def after(self, final: State) -> "Board":
        """The board once the deal `deal()` gave is over (played to its end)."""
        if not final.is_over:
            raise EngineError("final: the deal is not over")
        return self.after_points(final.score())

    def after_points(self, points: list[int]) -> "Board":
        """The board once a deal scored `points` (per side)."""
        if self.is_over:
            raise EngineError("board: the game is already over")
        if len(points) != len(self.totals):
            raise EngineError(f"points: expected {len(self.totals)} sides, got {len(points)}")
        totals = tuple(t + p for t, p in zip(self.totals, points))
        return Board(self.variant, self.seed, self.first_dealer, totals, self.deals_played + 1)

    @property
    def is_over(self) -> bool:
        """Someone reached the target and the lead is not shared."""
        best = max(self.totals)
        return best >= self.variant.target and self.totals.count(best) == 1

    @property
    def winner(self) -> int | None:
        return self.totals.index(max(self.totals)) if self.is_over else None
