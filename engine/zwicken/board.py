"""A board: the fixed session of deals every pairing plays (docs/zwicken-rules.md section 6).

A Board is a frozen value: `board.deal()` is the opening of its next attempt, `board.after(final)`
the board once that attempt is over. Attempt a of counted deal k is shuffled with
`deal_seed(deal_seed(seed, k), a)`, so every table of a board meets the same cards while its
attempts agree. After the last counted deal the pot is played out (`close: playout`, at most
`playout_max` more counted deals) and what is left is split.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.errors import EngineError
from engine.zwicken.scoring import DealResult
from engine.zwicken.shuffle import attempt_seed, check_seed
from engine.zwicken.state import Attempt, State, deal, dealer_shift
from engine.zwicken.variant import Variant, variant as make_variant


@dataclass(frozen=True)
class Board:
    variant: Variant
    seed: int
    first_dealer: int = 0
    deal_no: int = 0                       # k: counted deals so far
    attempt: int = 0                       # a: attempts of the current deal so far
    dealer: int = 0                        # who deals the next attempt
    balances: tuple[int, ...] = ()
    pot: int = 0                           # the carry into the next attempt
    history: tuple[Attempt, ...] = ()      # every attempt so far (empty after `resume`)
    attempts_played: int = 0
    split: tuple[int, ...] | None = None   # set when the board is over
    over: bool = False

    @classmethod
    def new(cls, variant: Variant | str | dict | None, seed: int, first_dealer: int = 0) -> "Board":
        v = make_variant(variant)
        if type(first_dealer) is not int or not 0 <= first_dealer < v.players:
            raise EngineError(f"first_dealer: must be a seat 0..{v.players - 1}, got {first_dealer!r}")
        return cls(v, check_seed(seed), first_dealer, 0, 0, first_dealer, (0,) * v.players, 0)

    @classmethod
    def resume(cls, variant: Variant | str | dict | None, seed: int, first_dealer: int,
               carry: dict[str, Any], attempts_played: int = 0) -> "Board":
        """The board just before an attempt whose `carry()` was stored: enough to replay that
        attempt and the rest of the board, though without the earlier attempts' history."""
        b = cls.new(variant, seed, first_dealer)
        n = b.variant.players
        try:
            k, a, d, bal, pot = (carry[x] for x in ("deal", "attempt", "dealer", "balances", "pot"))
        except (KeyError, TypeError):
            raise EngineError(f"carry: expected deal, attempt, dealer, balances, pot: {carry!r}") from None
        if (not all(type(x) is int for x in (k, a, d, pot)) or not isinstance(bal, list) or len(bal) != n
                or not all(type(x) is int for x in bal) or sum(bal) + pot != 0 or pot < 0 or pot % 3
                or not 0 <= d < n or k < 0 or a < 0):
            raise EngineError(f"carry: inconsistent: {carry!r}")
        return cls(b.variant, b.seed, first_dealer, k, a, d, tuple(bal), pot, (), attempts_played)

    @property
    def is_over(self) -> bool:
        return self.over

    @property
    def playout(self) -> bool:
        return self.deal_no >= self.variant.deals

    @property
    def deals_played(self) -> int:
        """Attempts played, counted or not (each is one stored deal)."""
        return self.attempts_played

    def shuffle_seed(self) -> int:
        return attempt_seed(self.seed, self.deal_no, self.attempt)

    def deal(self) -> State:
        """The opening of the next attempt (already over when the cut card ends it or it is blind)."""
        if self.over:
            raise EngineError("board: already over")
        return deal(self.variant, self.shuffle_seed(), self.dealer, deal_no=self.deal_no,
                       attempt=self.attempt, playout=self.playout, carry_in=self.pot,
                       balances=self.balances, history=self.history)

    def carry(self) -> dict[str, Any]:
        """What the next attempt starts from (stored with it, for `resume`)."""
        return {"deal": self.deal_no, "attempt": self.attempt, "dealer": self.dealer,
                "balances": list(self.balances), "pot": self.pot, "playout": self.playout}

    def after(self, final: State) -> "Board":
        """The board once the attempt `deal()` gave is over (played to its end)."""
        if self.over:
            raise EngineError("board: already over")
        if not final.is_over:
            raise EngineError("board: the attempt is not over")
        if (final.deal_no, final.attempt, final.dealer, final.carry_in) != (self.deal_no, self.attempt, self.dealer, self.pot):
            raise EngineError("board: that attempt is not this board's next one")
        v = self.variant
        n = v.players
        result: DealResult = final.result  # type: ignore[assignment]
        entry = Attempt(final.dealer, final.moves, final.tricks_played, result)
        dealer = (final.dealer + dealer_shift(v, result, final.cut)) % n
        balances, pot = final.balances, final.pot
        k, a = self.deal_no, self.attempt + 1
        split = None
        over = False
        if result.counted:
            k, a = k + 1, 0
            if k >= v.deals:
                if pot == 0:
                    over, split = True, (0,) * n
                elif v.close == "split" or k - v.deals >= v.playout_max:
                    over = True
                    share, rest = divmod(pot, n)
                    forehand = (final.dealer + 1) % n
                    split = tuple(share + (1 if (s - forehand) % n < rest else 0) for s in range(n))
                    balances = tuple(b + x for b, x in zip(balances, split))
                    pot = 0
        return Board(v, self.seed, self.first_dealer, k, a, dealer, balances, pot,
                     self.history + (entry,), self.attempts_played + 1, split, over)

    def result(self) -> dict[str, Any]:
        """Section 10's board-result form (only when over)."""
        if not self.over:
            raise EngineError("board: not over")
        return {"balances": list(self.balances), "deals": [a.result.to_dict() for a in self.history],
                "close": {"playout_deals": max(0, self.deal_no - self.variant.deals),
                          "split": list(self.split or (0,) * self.variant.players)}}


def forfeit_result(variant: Variant, seat: int) -> dict[str, Any]:
    """Section 10's forfeit form: `seat` pays `forfeit` chips to every other seat."""
    v = variant
    f = v.forfeit
    balances = [f] * v.players
    balances[seat] = -(v.players - 1) * f
    return {"balances": balances, "forfeit": seat, "deals": [], "close": None}
