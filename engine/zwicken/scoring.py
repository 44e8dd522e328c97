"""Settlement (docs/zwicken-rules.md section 5): who gets what from the pot, and the deal result
of section 10, for every way an attempt can end."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from engine.zwicken.cards import TRUMPS, table
from engine.zwicken.variant import Variant

EVENTS = ("played", "bruder", "all_passed", "lone", "cut", "rundherum", "blind")


@dataclass(frozen=True)
class DealResult:
    """One attempt's result, counted or not; `to_dict()` is section 10's deal-result form."""

    event: str
    trump: str | None
    pot: int
    in_: tuple[bool, ...]
    tricks: tuple[int, ...]
    won: tuple[int, ...]
    paid: tuple[int, ...]
    carry: int
    shown: tuple[tuple[int, tuple[str, ...]], ...] = ()

    @property
    def net(self) -> tuple[int, ...]:
        return tuple(w - p for w, p in zip(self.won, self.paid))

    @property
    def counted(self) -> bool:
        """Whether the attempt reached settlement (section 3): not ended by the cut or Rundherum."""
        return self.event not in ("cut", "rundherum")

    def to_dict(self) -> dict[str, Any]:
        return {
            "event": self.event, "trump": self.trump, "pot": self.pot, "in": list(self.in_),
            "tricks": list(self.tricks), "won": list(self.won), "paid": list(self.paid),
            "net": list(self.net), "carry": self.carry,
            "shown": {str(seat): list(hand) for seat, hand in self.shown},
        }

    @staticmethod
    def from_dict(d: dict[str, Any]) -> "DealResult":
        shown = tuple(sorted((int(k), tuple(v)) for k, v in d["shown"].items()))
        return DealResult(d["event"], d["trump"], d["pot"], tuple(d["in"]), tuple(d["tricks"]),
                          tuple(d["won"]), tuple(d["paid"]), d["carry"], shown)


def settle(v: Variant, kind: str, dealer: int, pot: int, paid: tuple[int, ...],
           decisions: tuple[str | None, ...], tricks: tuple[int, ...], trump: str | None,
           dealer_hand: tuple[str, ...]) -> DealResult:
    """The result of an attempt that ends as `kind` (`played` and `blind` after three tricks, or
    `all_passed`, `lone`, `cut`, `rundherum`), from the pot P before settlement and what each seat
    has paid in the attempt so far (the ante and any cut stakes)."""
    n = v.players
    won = [0] * n
    out = list(paid)
    ins = tuple(d == "play" for d in decisions)
    shown: tuple = ()
    event = kind
    if kind == "cut":
        carry = pot
    elif kind == "rundherum":
        for s in range(n):
            out[s] += v.stake
        pot = carry = pot + n * v.stake
    elif kind == "all_passed":
        shown = ((dealer, tuple(dealer_hand)),)
        cards = table(v.welli, trump)  # type: ignore[arg-type]
        if any(cards[c][0] == TRUMPS for c in dealer_hand):
            won[dealer] = pot
            carry = 0
        elif v.dealer_no_trump == "pay":
            pay = min(pot, v.zwick_limit)
            out[dealer] += pay
            carry = pot + pay
        else:
            carry = pot
    elif kind == "lone":
        won[ins.index(True)] = pot
        carry = 0
    else:
        seats_in = [s for s in range(n) if ins[s]]
        if len(seats_in) == 3 and all(tricks[s] == 1 for s in seats_in):
            if kind == "played":
                event = "bruder"
            carry = pot
        else:
            third = pot // 3
            zwick = min(pot, v.zwick_limit)
            carry = 0
            for s in range(n):
                won[s] = tricks[s] * third
            for s in seats_in:
                if tricks[s] == 0:
                    out[s] += zwick
                    carry += zwick
    return DealResult(event, trump, pot, ins, tuple(tricks), tuple(won), tuple(out), carry, shown)
