"""Ratings from board results: pure functions over numbers, no database, no numpy.

A board result is team A's score against team B (1 win, 0.5 draw, 0 loss). A team's strength is
the mean of its two seat-bots' ratings, so a clone team (the same bot twice) is just that bot and
mixed partnerships rate individuals from team results.

Two ratings, both on the Elo scale (400 * log10 of the odds):

- `sequential_elo`: classic Elo after every board in canonical order, all bots starting at 0
  (not 1500, so it reads on the same scale as the headline), K = 16 by default; both members of
  a team get the team's update.
- `bradley_terry`, the headline: the maximum-likelihood Bradley-Terry fit over all boards, draws
  counted as half a win for each team (Davidson's draw parameter buys little with so few draws).
  Every bot also gets one virtual draw against an opponent rated 0: a weak prior that keeps a
  perfect (or perfectly bad) record finite and a bot without boards at 0. The scale is anchored
  so the bot named "random" is 0 when it plays, else the mean is 0. Intervals are the 2.5% and
  97.5% percentiles of a bootstrap that resamples whole boards (seeded); the likelihood of
  superiority (LOS) of a bot over the next one down the table is the share of bootstrap fits in
  which it stays ahead (ties half). Fits are Newton iterations on counts aggregated per pair of
  teams, warm-started from the full fit, so 1000 resamples take well under a second for a
  handful of bots.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

ELO_PER_NAT = 400 / math.log(10)
PRIOR_DRAWS = 1.0
TIE_DIGITS = 6
"""Elo ratings that agree to this many decimals are equal (the fits' rounding is ~1e-11)."""


@dataclass(frozen=True)
class BoardResult:
    """One board: the seat-bots of each team and team A's score (1, 0.5 or 0)."""

    team_a: tuple[Hashable, ...]
    team_b: tuple[Hashable, ...]
    score: float


@dataclass(frozen=True)
class Rating:
    """A bot's headline rating; the interval and LOS are None without a bootstrap or boards."""

    bot: Hashable
    elo: float
    ci_low: float | None
    ci_high: float | None
    los_next: float | None
    boards: int


def expected(r_a: float, r_b: float) -> float:
    """Elo's expected score of a player rated r_a against r_b."""
    return 1 / (1 + 10 ** ((r_b - r_a) / 400))


def _team(ratings: dict, team: Sequence[Hashable]) -> float:
    return sum(ratings[b] for b in team) / len(team)


def sequential_elo(
    results: Sequence[BoardResult], bots: Sequence[Hashable], *, k: float = 16, start: float = 0.0
) -> tuple[dict[Hashable, float], list[dict[Hashable, float]]]:
    """Elo updated board by board; returns the final ratings and, per board, the ratings after
    it of the bots that played it."""
    ratings = {b: start for b in bots}
    history = []
    for r in results:
        for b in (*r.team_a, *r.team_b):
            ratings.setdefault(b, start)
        delta = k * (r.score - expected(_team(ratings, r.team_a), _team(ratings, r.team_b)))
        change = Counter()
        for b in set(r.team_a):
            change[b] += delta
        for b in set(r.team_b):
            change[b] -= delta
        for b, d in change.items():
            ratings[b] += d
        history.append({b: ratings[b] for b in sorted(change, key=str)})
    return ratings, history


# ---- Bradley-Terry -----------------------------------------------------------------------

Key = tuple[tuple[int, float], ...]  # sparse design vector: (bot index, coefficient)


def _design(r: BoardResult, index: dict[Hashable, int]) -> Key:
    """x with team A's mean minus team B's mean; its dot with theta is A's log-odds."""
    x: dict[int, float] = {}
    for b in r.team_a:
        x[index[b]] = x.get(index[b], 0.0) + 1 / len(r.team_a)
    for b in r.team_b:
        x[index[b]] = x.get(index[b], 0.0) - 1 / len(r.team_b)
    return tuple(sorted((i, c) for i, c in x.items() if abs(c) > 1e-12))


def _solve(h: list[list[float]], g: list[float]) -> list[float]:
    """Solve h @ x = g for h symmetric positive definite (the prior makes it so), by Cholesky."""
    n = len(g)
    low = [[0.0] * n for _ in range(n)]
    for i in range(n):
        row_i, h_i = low[i], h[i]
        for j in range(i + 1):
            row_j = low[j]
            acc = h_i[j]
            for k in range(j):
                acc -= row_i[k] * row_j[k]
            row_i[j] = math.sqrt(acc) if i == j else acc / row_j[j]
    y = [0.0] * n
    for i in range(n):
        row = low[i]
        acc = g[i]
        for k in range(i):
            acc -= row[k] * y[k]
        y[i] = acc / row[i]
    x = [0.0] * n
    for i in range(n - 1, -1, -1):
        acc = y[i]
        for k in range(i + 1, n):
            acc -= low[k][i] * x[k]
        x[i] = acc / low[i][i]
    return x


def _fit(
    m: int, counts: dict[Key, list[float]], theta: list[float] | None = None, *, tol: float = 1e-6
) -> list[float]:
    """Newton's method on the penalised log-likelihood; counts: key -> [score sum, boards].

    It stops after a step smaller than `tol`: Newton converges quadratically here, so what is
    left after such a step is of the order of its square (1e-12 nats). The bootstrap calls
    this a thousand times, so each key's products of coefficients are worked out once per fit.
    """
    theta = list(theta) if theta is not None else [0.0] * m
    cells = [(key, [(i, j, ci * cj) for i, ci in key for j, cj in key if j <= i], s, n)
             for key, (s, n) in counts.items()]
    for _ in range(200):
        g = [0.0] * m
        h = [[0.0] * m for _ in range(m)]
        for i in range(m):  # the prior: PRIOR_DRAWS draws against a 0-rated opponent
            p = 1 / (1 + math.exp(-theta[i]))
            g[i] += PRIOR_DRAWS * (0.5 - p)
            h[i][i] += PRIOR_DRAWS * p * (1 - p)
        for key, products, s, n in cells:
            eta = 0.0
            for i, c in key:
                eta += theta[i] * c
            p = 1 / (1 + math.exp(-eta))
            resid = s - n * p
            w = n * p * (1 - p)
            for i, c in key:
                g[i] += resid * c
            for i, j, cc in products:
                h[i][j] += w * cc
        for i in range(m):  # only the lower triangle was summed
            for j in range(i):
                h[j][i] = h[i][j]
        step = _solve(h, g)
        biggest = max(abs(x) for x in step)
        if biggest > 2.0:  # damp: never jump more than ~350 Elo at once
            step = [x * 2.0 / biggest for x in step]
        theta = [t + x for t, x in zip(theta, step)]
        if biggest < tol:
            break
    return theta


def _anchored(theta: list[float], anchor: int | None) -> list[float]:
    shift = theta[anchor] if anchor is not None else sum(theta) / len(theta)
    return [(t - shift) * ELO_PER_NAT for t in theta]


def _percentile(sorted_values: list[float], q: float) -> float:
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


class _Model:
    """What every fit of one tournament shares: the bots, the cells (boards per pair of teams and
    score) and the full fit, from which each bootstrap fit is warm-started."""

    def __init__(self, results: Sequence[BoardResult], bots: Sequence[Hashable], anchor: Hashable | None) -> None:
        self.bots = list(dict.fromkeys([*bots, *(b for r in results for b in (*r.team_a, *r.team_b))]))
        index = {b: i for i, b in enumerate(self.bots)}
        self.m = len(self.bots)
        self.anchor = index.get(anchor) if anchor is not None else None
        self.played: Counter = Counter()
        self.cells: Counter[tuple[Key, float]] = Counter()
        for r in results:
            key = _design(r, index)
            if not key:  # the same bots on both sides: no information
                continue
            self.cells[(key, r.score)] += 1
            for b in set(r.team_a) ^ set(r.team_b):
                self.played[b] += 1
        self.theta = _fit(self.m, _aggregate(self.cells)) if self.m else []

    def samples(self, seed: int, start: int, stop: int) -> list[list[float]]:
        """Bootstrap fits number `start` to `stop` - 1 of the sequence seeded by `seed`, each the
        bots' anchored Elo: any split of the sequence gives exactly the fits of the whole (the
        draws before `start` are made and dropped)."""
        if not self.cells or stop <= start:
            return []
        rng = random.Random(seed)
        cats = list(self.cells)
        # One entry per board, naming its cell: drawing boards uniformly from it maps each
        # random() to the same cell that choices() with cumulative weights per cell would (and so
        # draws the same resamples), without a bisection per draw.
        boards = [i for i, c in enumerate(cats) for _ in range(self.cells[c])]
        total = len(boards)
        for _ in range(start * total):  # choices() draws one random() per board
            rng.random()
        out = []
        for _ in range(start, stop):
            drawn = Counter(rng.choices(boards, k=total))
            weights = Counter({cats[i]: n for i, n in drawn.items()})
            out.append(_anchored(_fit(self.m, _aggregate(weights), self.theta), self.anchor))
        return out


def _aggregate(weights: Counter) -> dict[Key, list[float]]:
    counts: dict[Key, list[float]] = {}
    for (key, score), n in weights.items():
        c = counts.setdefault(key, [0.0, 0.0])
        c[0] += score * n
        c[1] += n
    return counts


def bootstrap_samples(results: Sequence[BoardResult], bots: Sequence[Hashable], *, anchor: Hashable | None = None,
                      seed: int = 0, start: int = 0, stop: int = 1000) -> list[list[float]]:
    """Bootstrap fits `start` to `stop` - 1 of `bradley_terry(..., seed=seed)`, so that several
    processes can share a bootstrap (arena.tournaments.shard) and hand `bradley_terry` the whole."""
    return _Model(results, bots, anchor).samples(seed, start, stop)


def bradley_terry(
    results: Sequence[BoardResult],
    bots: Sequence[Hashable],
    *,
    anchor: Hashable | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    samples: Sequence[Sequence[float]] | None = None,
) -> list[Rating]:
    """Headline ratings, strongest first (ties by name); see the module docstring for the model.

    `samples`, if given, are the `bootstrap` fits made already (`bootstrap_samples`)."""
    model = _Model(results, bots, anchor)
    if not model.bots:
        return []
    m, bots, played = model.m, model.bots, model.played
    elo = _anchored(model.theta, model.anchor)
    if samples is None:
        samples = model.samples(seed, 0, bootstrap) if bootstrap > 0 else []
    elif len(samples) != (bootstrap if model.cells else 0):
        raise ValueError(f"expected {bootstrap} bootstrap fits, got {len(samples)}")
    # Ratings equal but for rounding (bots with the same record) tie, and ties go by name.
    order = sorted(range(m), key=lambda i: (-round(elo[i], TIE_DIGITS), str(bots[i])))
    out = []
    for pos, i in enumerate(order):
        ci_low = ci_high = los = None
        if samples and played[bots[i]]:
            col = sorted(s[i] for s in samples)
            ci_low, ci_high = _percentile(col, 0.025), _percentile(col, 0.975)
        if samples and pos + 1 < m:
            j = order[pos + 1]
            los = sum(0.5 if abs(s[i] - s[j]) < 10**-TIE_DIGITS else 1.0 if s[i] > s[j] else 0.0
                      for s in samples) / len(samples)
        out.append(Rating(bots[i], elo[i], ci_low, ci_high, los, played[bots[i]]))
    return out
