"""A sequential probability ratio test for "is NEW better than OLD?" on duplicate boards.

Pure arithmetic, no I/O. A board is played in two rooms with the cards swapped; NEW's room
results (win 1, draw 0.5, loss 0) summed over both rooms give the board a score in {0, 0.5, 1,
1.5, 2}. Counting boards by those five outcomes (pentanomial), as fishtest and fastchess count
game pairs with reversed colours, keeps the dependence between the two rooms (one deal's luck
favours each side once, so a win and a loss is common) instead of assuming two independent
games, and the test needs fewer boards for it.

The hypotheses are on the logistic Elo of one room: a room's expected score is
1 / (1 + 10 ** (-elo / 400)). That is not the headline's scale, which rates a board's summed
margin as one game (a board magnifies a room's edge). H0 is elo = elo0, H1 elo = elo1; each
says only what the mean board score is, so, as fishtest's generalised SPRT does, the
log-likelihood ratio compares the most likely five-outcome distributions with each mean (the
observed frequencies tilted: q_k = p_k / (1 + lam * (x_k - s))). Empty outcomes count as
EMPTY boards so that every mean stays reachable. The test stops at Wald's bounds,
log(beta / (1 - alpha)) (accept H0) and log((1 - beta) / alpha) (accept H1).

A test decides between elo0 and elo1, not whether NEW is much better: a bot that wins every
board adds log(s1 / s0) a board (the likeliest H0 world is half 2s and half 0s), so at
elo1 = 10 it passes after 104 boards (23 at elo1 = 50), and a deterministic bot against itself,
1 every board, fails after 102.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

SCORES = (0.0, 0.5, 1.0, 1.5, 2.0)
"""A board's possible scores, the index of each in a count vector."""
EMPTY = 1e-3
"""Boards counted for an outcome never seen (fishtest's regularisation)."""


def room_score(margin: float) -> float:
    """A room's result for the side whose point margin this is: win 1, draw 0.5, loss 0."""
    return 1.0 if margin > 0 else 0.0 if margin < 0 else 0.5


def board_score(rooms: Iterable[float]) -> float:
    """A board's score: its two room results summed."""
    rooms = list(rooms)
    if len(rooms) != 2 or any(r not in (0.0, 0.5, 1.0) for r in rooms):
        raise ValueError(f"a board is two room results, each 0, 0.5 or 1: {rooms}")
    return sum(rooms)


def pentanomial(scores: Iterable[float]) -> tuple[int, int, int, int, int]:
    """Boards counted by score: (0, 0.5, 1, 1.5, 2)."""
    counts = [0] * 5
    for s in scores:
        if s not in SCORES:
            raise ValueError(f"a board scores 0, 0.5, 1, 1.5 or 2, not {s}")
        counts[int(2 * s)] += 1
    return counts[0], counts[1], counts[2], counts[3], counts[4]


def room_elo_to_score(elo: float) -> float:
    return 1 / (1 + 10 ** (-elo / 400))


def _score_to_elo(s: float) -> float:
    return -400 * math.log10(1 / s - 1) if 0 < s < 1 else math.copysign(math.inf, s - 0.5)


def _tilt(p: Sequence[float], x: Sequence[float], s: float) -> float:
    """lam such that the tilted distribution p_k / (1 + lam (x_k - s)) has mean s: the root of
    f(lam) = sum p_k (x_k - s) / (1 + lam (x_k - s)), which falls strictly with lam between
    the poles where a denominator reaches 0 (x spans 0 .. 1, so they are -1/(1-s) and 1/s).
    Newton's method, bisecting whenever a step would leave the shrinking bracket."""
    d = [xk - s for xk in x]
    lo, hi = -1 / max(d), -1 / min(d)
    lam = 0.0
    for _ in range(200):
        f = fp = 0.0
        for pk, dk in zip(p, d):
            t = dk / (1 + lam * dk)
            f += pk * t
            fp -= pk * t * t
        if f > 0:
            lo = lam
        elif f < 0:
            hi = lam
        else:
            break
        step = lam - f / fp
        if not lo < step < hi:
            step = (lo + hi) / 2
        if abs(step - lam) < 1e-14:
            break
        lam = step
    return lam


@dataclass(frozen=True)
class SPRT:
    """H0: NEW is elo0 better than OLD per room; H1: elo1 (elo0 < elo1). alpha: the chance of
    accepting H1 when H0 holds; beta: of accepting H0 when H1 holds."""

    elo0: float = 0.0
    elo1: float = 10.0
    alpha: float = 0.05
    beta: float = 0.05

    def __post_init__(self) -> None:
        if not self.elo0 < self.elo1:
            raise ValueError(f"elo0 must be below elo1: {self.elo0} >= {self.elo1}")
        if not (0 < self.alpha < 1 and 0 < self.beta < 1 and self.alpha + self.beta < 1):
            raise ValueError(f"alpha and beta must be in (0, 1) with a sum below 1: {self.alpha}, {self.beta}")

    @property
    def lower(self) -> float:
        """Accept H0 at or below this log-likelihood ratio."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Accept H1 at or above this log-likelihood ratio."""
        return math.log((1 - self.beta) / self.alpha)

    @property
    def bounds(self) -> tuple[float, float]:
        return self.lower, self.upper

    def llr(self, counts: Sequence[int]) -> float:
        """The log-likelihood ratio of H1 against H0 given boards counted by score (0 .. 2)."""
        if len(counts) != 5 or any(c < 0 for c in counts):
            raise ValueError(f"counts are five numbers of boards, by score 0, 0.5, 1, 1.5, 2: {counts}")
        n = sum(counts)
        if n == 0:
            return 0.0
        regular = [c if c > 0 else EMPTY for c in counts]
        total = sum(regular)
        p = [c / total for c in regular]
        x = [k / 4 for k in range(5)]  # a board's score per room, 0 .. 1
        s0, s1 = room_elo_to_score(self.elo0), room_elo_to_score(self.elo1)
        lam0, lam1 = _tilt(p, x, s0), _tilt(p, x, s1)
        return n * sum(pk * (math.log1p(lam0 * (xk - s0)) - math.log1p(lam1 * (xk - s1))) for pk, xk in zip(p, x))

    def status(self, counts: Sequence[int]) -> str | None:
        """"H1" (NEW is better by elo1), "H0" (not better than elo0) or None: play on."""
        llr = self.llr(counts)
        return "H1" if llr >= self.upper else "H0" if llr <= self.lower else None


Z95 = 1.959963984540054


def estimate(counts: Sequence[int]) -> tuple[float, float, float]:
    """NEW's room Elo over OLD with a 95% interval: normal, from the boards' own variance; where
    every board scored alike (no variance seen, which a few boards cannot rule out) Wilson's score
    interval for that share of n, so that a perfect record has a finite lower end, n / (n + z^2)
    as a share (+inf above), rather than a zero-width interval. The interval always holds the
    estimate (never above it by rounding)."""
    n = sum(counts)
    if n == 0:
        return 0.0, -math.inf, math.inf
    mean = sum(c * k / 4 for k, c in enumerate(counts)) / n
    var = sum(c * (k / 4 - mean) ** 2 for k, c in enumerate(counts)) / n
    if var > 1e-15:
        half = Z95 * math.sqrt(var / n)
        low, high = mean - half, mean + half
    else:
        z2 = Z95 * Z95
        centre = (mean + z2 / (2 * n)) / (1 + z2 / n)
        half = Z95 / (1 + z2 / n) * math.sqrt(mean * (1 - mean) / n + z2 / (4 * n * n))
        low = 0.0 if mean == 0 else centre - half
        high = 1.0 if mean == 1 else centre + half
    elo = _score_to_elo(mean)
    return elo, min(_score_to_elo(low), elo), max(_score_to_elo(high), elo)
