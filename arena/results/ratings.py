"""Ratings from board results: pure functions over numbers, no database, no numpy.

A board result is team A's score against team B (1 win, 0.5 draw, 0 loss). A team's strength is
the mean of its two seat-bots' ratings, so a clone team (the same bot twice) is just that bot and
mixed partnerships rate individuals from team results.

The headline, `bradley_terry`, is a penalised (maximum a posteriori) Bradley-Terry fit, not plain
maximum likelihood: draws count as half a win for each team (Davidson's draw parameter buys little
with so few draws), and every bot gets PRIOR_DRAWS = 1 virtual draw against an opponent rated 0.
That prior is worth one board: its pull on a bot is less than half a point of score (its gradient
is 0.5 - p), near 0 it acts as a normal prior of sd 2 nats (347 Elo), and it keeps a perfect (or
perfectly bad) record finite and a bot without boards at 0. Where the data fix no finite rating
(a perfect or zero record, groups that never met or that beat everyone outside, see `diagnose`)
the prior alone sets the gap, and it grows with the number of boards: such a bot's Rating says
"more than X" (`more_than`) or "less than X" (`less_than`), X being the rating at which its
record had a 2.5% chance with everyone else held at their fits (the 97.5% one-sided bound, as
sure as the lower end of anyone else's 95% interval).

The scale is anchored so the `anchor` bot (the bundled random bot) is 0 when it plays, else the
mean is 0: of everyone, or of the largest group (`Diagnosis.core`) when the pool is separated,
since the whole pool's mean then moves with prior-driven gaps (so pass no anchor when the
anchor is outside the core, as the random bot is when it loses every board).

Intervals are the 2.5% and 97.5% percentiles of a seeded bootstrap that resamples whole deals
(every board with the same `deal` key together; a board without one is its own deal), since
every pairing plays the same deals and a deal that suits one bot suits it against everyone.
`errors="pool"` (the default) gives each bot's uncertainty relative to the pool mean (the
core's, if separated), `"anchor"` relative to the anchor, which adds the anchor's own
uncertainty to everyone and leaves the anchor itself without an interval. The likelihood of
superiority (LOS) of one bot over another is the share of bootstrap fits in which it is ahead
(ties half), the same either way, but never surer than the fit's posterior in its normal
approximation (the gap over its standard error from the penalised Hessian, `Pool.los`): with few
deals every resample may agree, and one board is no certainty; `ranked` is the one order of every table, so the LOS of a row
is always over the row below it. Fits are Newton iterations on counts aggregated per pair of
teams. A resample's fit is a full refit, warm-started from the full fit, where refits are
cheap (`REFIT_MAX_WORK`: pools of up to about 25 bots, fewer with many deals); elsewhere it is the one-step bootstrap
of Moulton and Zeger (1991): one Newton step from the full fit with the full data's Hessian,
each deal's share of the step worked out once (`Pool`), so 1000 resamples of 200 bots take a
fraction of a second instead of minutes. The draws are the same either way;
`Pool.bootstrap_method` says which.

`progression` is the headline's fit on growing prefixes of the deals, for a chart: on the
headline's scale and ending exactly on it, independent of the order of boards within a prefix.
It replaced a K-factor sequential Elo, which depended on the order of every board and lagged
the headline.
"""

from __future__ import annotations

import copy
import gc
import math
import random
from collections import Counter
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from operator import add, attrgetter, mul, sub
from typing import Any

ELO_PER_NAT = 400 / math.log(10)
PRIOR_DRAWS = 1.0
TIE_ELO = 1e-6
"""Ratings closer than this are equal (the fits' rounding is ~1e-11): ties go by name."""
ONE_SIDED = 0.025
"""The chance a perfect (zero) record had at its bot's "more than" ("less than") bound."""
ERRORS = ("pool", "anchor")


@dataclass(frozen=True)
class BoardResult:
    """One board: the seat-bots of each team, team A's score (1, 0.5 or 0) and, optionally, the
    deal it was played on (boards of one deal are resampled together) and its weight (a board of
    k entrants is k(k-1)/2 comparisons of weight 1/(k-1): it counts once for each bot)."""

    team_a: tuple[Hashable, ...]
    team_b: tuple[Hashable, ...]
    score: float
    deal: Hashable | None = None
    weight: float = 1


@dataclass(frozen=True)
class Rating:
    """A bot's headline rating; the interval and LOS are None without a bootstrap or boards.

    flags: "anchor", "perfect" (won every board it played), "zero" (lost every one), "separated"
    (outside `Diagnosis.core`, or in a separated pool without one: its distance to the rest
    rests on the prior). A perfect bot's
    rating is bounded below only: show `more_than`, not the interval (which rests on the prior);
    a zero bot's, `less_than` (the anchor's only against the pool: against itself it is 0). Such
    an interval is open at that end: `ci_low` is `more_than` and `ci_high` None (a zero bot:
    `ci_low` None, `ci_high` `less_than`), never the resamples' zero-width spread around the
    prior's point. A closed interval always holds `elo` (a percentile bootstrap's may miss it by
    rounding, where every resample is alike, or by the resamples' skew: it is widened to it)."""

    bot: Hashable
    elo: float
    ci_low: float | None
    ci_high: float | None
    los_next: float | None
    boards: int
    flags: frozenset[str] = field(default=frozenset())
    more_than: float | None = None
    less_than: float | None = None


def expected(r_a: float, r_b: float) -> float:
    """Elo's expected score of a player rated r_a against r_b."""
    return 1 / (1 + 10 ** ((r_b - r_a) / 400))


def ranked(elo: Mapping[Any, float], names: Mapping[Any, str] | Callable[[Any], str] | None = None,
           ) -> list[Hashable]:
    """The one order of every table: Elo descending, Elo equal within TIE_ELO by name (default
    str(bot)). Equal records fit to Elo that differ by float noise, so a raw sort would order them
    by noise, and a rounded one splits them at a rounding boundary."""
    label = str if names is None else names.__getitem__ if isinstance(names, Mapping) else names
    out: list[Hashable] = []
    group: list[Hashable] = []
    for b in sorted(elo, key=lambda b: (-elo[b], label(b))):
        if group and elo[group[-1]] - elo[b] > TIE_ELO:
            out += sorted(group, key=label)
            group = []
        group.append(b)
    return out + sorted(group, key=label)


# ---- Records the data cannot rate -----------------------------------------------------------


@dataclass(frozen=True)
class Diagnosis:
    """What the boards can and cannot rate.

    components: bots linked by boards (one side against the other), as sets; bots in different
    components were never compared, so only the prior places them. groups: the strongly
    connected groups of "scored at least a draw against": a finite maximum-likelihood fit exists
    only when there is one (Zermelo, Ford); between groups only the prior sets the gap (exact for
    clone teams; for mixed partnerships each member is taken to have scored against each
    opponent)."""

    perfect: frozenset
    zero: frozenset
    unplayed: frozenset
    components: tuple[frozenset, ...]
    groups: tuple[frozenset, ...]

    @property
    def disconnected(self) -> bool:
        return len(self.components) > 1

    @property
    def separated(self) -> bool:
        return len(self.groups) > 1

    @property
    def core(self) -> frozenset | None:
        """The largest group of a separated pool (None when there is no single largest): its mean
        is the scale's 0 without an anchor, since the whole pool's mean moves with the
        prior-driven gaps, and an anchor outside it would read everyone through the prior."""
        g = self.groups
        return g[0] if len(g) > 1 and len(g[0]) > len(g[1]) else None

    def pool_flags(self) -> frozenset[str]:
        """"disconnected" and/or "separated" (the latter implied by the former)."""
        return frozenset(f for f, on in (("disconnected", self.disconnected), ("separated", self.separated)) if on)

    def flags(self, bot: Hashable) -> frozenset[str]:
        return frozenset(f for f, s in (("perfect", self.perfect), ("zero", self.zero), ("unplayed", self.unplayed))
                         if bot in s)


def diagnose(results: Sequence[BoardResult], bots: Sequence[Hashable]) -> Diagnosis:
    """Perfect and zero records, bots without boards, and how the boards link the bots."""
    return _diagnose(Counter((r.team_a, r.team_b, r.score) for r in results), bots)


def _diagnose(tally: Mapping[tuple[tuple, tuple, float], Any], bots: Sequence[Hashable]) -> Diagnosis:
    """`diagnose` from the boards counted by (team A, team B, A's score), in the order each of
    these first appears among the boards: only which of them occur matters."""
    everyone = list(dict.fromkeys([*bots, *(b for team_a, team_b, _ in tally for b in (*team_a, *team_b))]))
    scores: dict[Hashable, set[float]] = {b: set() for b in everyone}
    linked: dict[Hashable, set] = {b: set() for b in everyone}
    beat: dict[Hashable, set] = {b: set() for b in everyone}  # a -> b: a scored against b
    for team_a, team_b, score in tally:
        a, b = set(team_a) - set(team_b), set(team_b) - set(team_a)
        for x in a:
            scores[x].add(score)
        for y in b:
            scores[y].add(1 - score)
        for x in a:
            for y in b:
                linked[x].add(y)
                linked[y].add(x)
                if score > 0:
                    beat[x].add(y)
                if score < 1:
                    beat[y].add(x)
    played = [b for b in everyone if scores[b]]
    beaten_by: dict[Hashable, set] = {b: set() for b in everyone}
    for x, ys in beat.items():
        for y in ys:
            beaten_by[y].add(x)

    def reach(start: Hashable, edges: dict) -> set:
        seen, todo = {start}, [start]
        while todo:
            for y in edges[todo.pop()]:
                if y not in seen:
                    seen.add(y)
                    todo.append(y)
        return seen

    def partition(make: Callable[[Hashable], set]) -> tuple[frozenset, ...]:
        parts: list[frozenset] = []
        done: set = set()
        for b in played:
            if b not in done:
                part = frozenset(make(b))
                done |= part
                parts.append(part)
        return tuple(sorted(parts, key=lambda p: (-len(p), min(map(str, p)))))

    return Diagnosis(
        perfect=frozenset(b for b in played if all(s == 1 for s in scores[b])),
        zero=frozenset(b for b in played if all(s == 0 for s in scores[b])),
        unplayed=frozenset(b for b in everyone if not scores[b]),
        components=partition(lambda b: reach(b, linked)),
        groups=partition(lambda b: reach(b, beat) & reach(b, beaten_by)),
    )


# ---- Bradley-Terry -----------------------------------------------------------------------

Key = tuple[tuple[int, float], ...]  # sparse design vector: (bot index, coefficient)


def _design(team_a: tuple, team_b: tuple, index: dict[Hashable, int]) -> Key:
    """x with team A's mean minus team B's mean; its dot with theta is A's log-odds."""
    x: dict[int, float] = {}
    for b in team_a:
        x[index[b]] = x.get(index[b], 0.0) + 1 / len(team_a)
    for b in team_b:
        x[index[b]] = x.get(index[b], 0.0) - 1 / len(team_b)
    return tuple(sorted((i, c) for i, c in x.items() if abs(c) > 1e-12))


# Pure Python is fast here only where the inner loops run in C: every inner product below is a
# sum(map(mul, ...)) over lists, and every gather a map over an index list (a 200-bot Newton
# step: about 30 ms, half the time of the same step in Python loops; bench/README.md, Storage).


class _Factor:
    """The Cholesky factor L of a symmetric positive definite matrix h = L L^T (the prior makes
    every Hessian here so), kept row by row (each row's entries left of the diagonal, so that each
    entry is one C-level inner product of two rows) and column by column below the diagonal,
    bottom up, for the back substitution."""

    def __init__(self, h: list[list[float]]) -> None:
        rows: list[list[float]] = []
        diag: list[float] = []
        for i, h_i in enumerate(h):
            row: list[float] = []  # grows to L[i][:i]; row and rows[j] are both j long at step j
            for j in range(i):
                row.append((h_i[j] - sum(map(mul, row, rows[j]))) / diag[j])
            diag.append(math.sqrt(h_i[i] - sum(map(mul, row, row))))
            rows.append(row)
        n = len(h)
        self.rows, self.diag = rows, diag
        self.cols = [[rows[k][i] for k in range(n - 1, i, -1)] for i in range(n)]

    def solve(self, g: Sequence[float]) -> list[float]:
        """x with h x = g."""
        y: list[float] = []
        for row, d, g_i in zip(self.rows, self.diag, g):
            y.append((g_i - sum(map(mul, row, y))) / d)
        x: list[float] = []  # x[n-1], x[n-2], ...: aligned with cols[i]
        for i in range(len(y) - 1, -1, -1):
            x.append((y[i] - sum(map(mul, self.cols[i], x))) / self.diag[i])
        x.reverse()
        return x


def _sigmoid(x: float) -> float:
    return 1 / (1 + math.exp(-x))


class _Design:
    """A fixed list of keys (a tournament's pairs of teams) and the gathers each Newton step makes
    over it: the keys' bots and coefficients slot by slot (for every key's log-odds at once); for
    each bot, the keys it is in (its gradient); for each entry of the Hessian's lower triangle, the
    keys that add to it and their products of coefficients. The counts vary, the keys do not:
    every bootstrap refit and every progression point shares one design."""

    def __init__(self, m: int, keys: Sequence[Key]) -> None:
        self.m, self.size = m, len(keys)
        width = max(map(len, keys), default=0)
        self.slots = [([key[s][0] if s < len(key) else 0 for key in keys],
                       [key[s][1] if s < len(key) else 0.0 for key in keys]) for s in range(width)]
        self.grad: list[tuple[list[int], list[float]]] = [([], []) for _ in range(m)]
        hess: dict[tuple[int, int], tuple[list[int], list[float]]] = {}
        for k, key in enumerate(keys):
            for i, ci in key:
                self.grad[i][0].append(k)
                self.grad[i][1].append(ci)
                for j, cj in key:
                    if j <= i:
                        ks, cc = hess.setdefault((i, j), ([], []))
                        ks.append(k)
                        cc.append(ci * cj)
        self.hess = [(i, j, ks, cc) for (i, j), (ks, cc) in hess.items()]

    def probabilities(self, theta: Sequence[float]) -> list[float]:
        """Team A's chance on each key."""
        get = theta.__getitem__
        eta = [0.0] * self.size
        for idx, coef in self.slots:
            eta = list(map(add, eta, map(mul, coef, map(get, idx))))
        return list(map(_sigmoid, eta))

    def gradient(self, theta: Sequence[float], scores: Sequence[float], boards: Sequence[float]) -> list[float]:
        """The penalised log-likelihood's gradient at theta, the prior included (PRIOR_DRAWS draws
        per bot against a 0-rated opponent); scores and boards per key."""
        return self.terms(theta, scores, boards, hessian=False)[0]

    def terms(self, theta: Sequence[float], scores: Sequence[float], boards: Sequence[float], *, hessian: bool = True
              ) -> tuple[list[float], list[list[float]]]:
        """The gradient and, if `hessian`, the negated Hessian at theta (else an empty list)."""
        p = self.probabilities(theta)
        resid = list(map(sub, scores, map(mul, boards, p))).__getitem__
        g = [sum(map(mul, map(resid, ks), cs)) for ks, cs in self.grad]
        h: list[list[float]] = []
        if hessian:
            weight = [n * q * (1 - q) for n, q in zip(boards, p)].__getitem__
            h = [[0.0] * self.m for _ in range(self.m)]
            for i, j, ks, cc in self.hess:
                h[i][j] = h[j][i] = sum(map(mul, map(weight, ks), cc))
        for i, t in enumerate(theta):
            q = _sigmoid(t)
            g[i] += PRIOR_DRAWS * (0.5 - q)
            if hessian:
                h[i][i] += PRIOR_DRAWS * q * (1 - q)
        return g, h


FRESH = 0.05
"""Nats: after a Newton step this long the Hessian is worked out and factored again; after a
shorter one the last factor serves on (the chord method)."""


def _fit(design: _Design, scores: Sequence[float], boards: Sequence[float], theta: Sequence[float] | None = None,
         *, tol: float = 1e-6) -> list[float]:
    """Newton's method on the penalised log-likelihood (score sum and boards per key of `design`).

    Close to the optimum (steps under FRESH nats) the Hessian's factor is kept and only the
    gradient is worked out again: each such step shrinks the error by a factor of the order of
    the distance moved since the factor was made (~1e-2), for a tenth of a Newton step's work in
    big pools. It stops after a Newton step smaller than `tol` (Newton converges quadratically
    here, so what is left is of the order of its square, 1e-12 nats), or a step on a kept factor
    smaller than tol**2."""
    theta = list(theta) if theta is not None else [0.0] * design.m
    factor: _Factor | None = None
    last = math.inf
    for _ in range(200):
        fresh = factor is None
        if fresh:
            g, h = design.terms(theta, scores, boards)
            factor = _Factor(h)
        else:
            g = design.gradient(theta, scores, boards)
        assert factor is not None
        step = factor.solve(g)
        biggest = max(map(abs, step), default=0.0)
        if biggest > 2.0:  # damp: never jump more than ~350 Elo at once
            step = [x * 2.0 / biggest for x in step]
        theta = list(map(add, theta, step))
        if biggest < (tol if fresh else tol * tol):
            break
        if biggest >= FRESH or (not fresh and biggest > last / 4):  # far, or the kept factor too stale
            factor = None
        last = biggest
    return theta


def _anchored(theta: list[float], anchor: int | None, core: Sequence[int] | None = None) -> list[float]:
    """Elo with the anchor at 0, else the mean of `core` (default: everyone) at 0."""
    shift = _shift(theta, anchor, core)
    return [(t - shift) * ELO_PER_NAT for t in theta]


def _shift(theta: list[float], anchor: int | None, core: Sequence[int] | None) -> float:
    if anchor is not None:
        return theta[anchor]
    core = core if core else range(len(theta))
    return sum(theta[i] for i in core) / len(core)


def _percentile(sorted_values: list[float], q: float) -> float:
    pos = q * (len(sorted_values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def _log_sigmoid(x: float) -> float:
    return -math.log1p(math.exp(-x)) if x > -30 else x


@contextmanager
def gc_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a pool's few hundred thousand objects are made (none
    in a cycle): otherwise it walks every one of them again and again (a second of 200 bots'
    200,000 boards)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


REFIT = "refit"
ONE_STEP = "one-step"
BOOTSTRAP_METHODS = (REFIT, ONE_STEP)
REFIT_MAX_WORK = 32_000
"""The bootstrap refits every resample when a refit's estimated work (`Pool.refit_work`) is at
most this, else it takes the one-step approximation (`Pool.bootstrap_method`). The work is
counted in the inner loops' multiply-adds: re-weighing every deal's pairs of teams, then about
REFIT_STEPS Newton steps, each some ten per pair of teams (key) and a Cholesky factorisation
(bots**3 / 6). 32,000 is 2-4 ms of a core on the bench's VM, so that 1000 refits take a few
seconds at most: round robins of up to 26 bots over 16 deals, 24 over 40, 16 over 200, 12 over
400, 6 over 2000 (clone teams, each pair playing every deal once); a refit of 200 bots over 11
deals is some 200 times that. Only the data decide (never the number of resamples), so every
process sharing a bootstrap chooses alike."""
REFIT_STEPS = 4

_BOARD = object()  # marks the resampling unit of a board without a deal: (_BOARD, its position)


class Pool:
    """One tournament's boards made ready for every fit: the bots, the pairs of teams (keys) with
    their score sums and boards, the resampling units (deals: every board with the same `deal`
    key; a board without one is a deal of its own), the diagnosis and the full fit. Built in one
    pass over the boards; the headline, both kinds of interval, the bootstrap, LOS and the
    progression are all read from one Pool.

    The bootstrap resamples units with replacement (a seeded multinomial draw per resample, the
    same draws whichever the method) and makes each resample's fit one of two ways:

    - "refit": Newton's method to convergence on the resample's counts, warm-started from the
      full fit: exact, and what pools small enough for it get (REFIT_MAX_WORK).
    - "one-step" (Moulton and Zeger 1991, "Bootstrapping generalized linear models"): one Newton
      step from the full fit with the full data's Hessian H, theta* = theta + H^-1 (g_prior +
      sum_u w_u g_u), g_u being unit u's score (gradient) contribution at the full fit, w_u the
      times the resample drew it and g_prior the prior's gradient (no unit's: once per resample).
      H is factored once, and each H^-1 g_u precomputed when there are no more units than bots
      (else H^-1 is applied to each resample's sum), so a resample costs units x bots (or
      bots**2) multiplications instead of a refit (0.16 s for the bench's 200 bots, a fifth of a
      millisecond this way). It differs from the
      refit by the curvature the step leaves out, of the order of the resample's move squared:
      small where every bot has many boards and each deal is a small share of them, which is
      where refits are slow (many bots, or many deals).
    """

    def __init__(self, results: Sequence[BoardResult], bots: Sequence[Hashable], anchor: Hashable | None = None,
                 *, bootstrap_method: str | None = None) -> None:
        if bootstrap_method is not None and bootstrap_method not in BOOTSTRAP_METHODS:
            raise ValueError(f"bootstrap_method must be one of {BOOTSTRAP_METHODS}, not {bootstrap_method!r}")
        with gc_paused():
            self._build(results, bots, anchor)
        # A refit's estimated work (REFIT_MAX_WORK): every deal's cells, then the Newton steps.
        cells = sum(map(len, self._units))
        self.refit_work = cells + REFIT_STEPS * (10 * len(self.keys) + self.m ** 3 / 6)
        self.bootstrap_method = bootstrap_method or (REFIT if self.refit_work <= REFIT_MAX_WORK else ONE_STEP)
        self._step: tuple | None = None  # the one-step's precomputed parts, when first needed
        self._covariance: list[list[float]] | None = None  # H^-1 at the fit, when first needed

    def _build(self, results: Sequence[BoardResult], bots: Sequence[Hashable], anchor: Hashable | None) -> None:
        fields = attrgetter("deal", "team_a", "team_b", "score")
        tally: Counter[Any] = Counter()  # (unit, team A, team B, score) -> boards (weighed), as first seen
        if all(r.weight == 1 for r in results):
            tally.update(map(fields, results))
        else:
            for r in results:
                tally[fields(r)] += r.weight  # type: ignore[assignment]  # (a Counter of float weights)
        if any(deal is None for deal, *_ in tally):  # boards without a deal: each its own unit
            tally = Counter((deal if deal is not None else (_BOARD, n), a, b, score)
                            for n, (deal, a, b, score) in enumerate(map(fields, results)))
        pairs = list(dict.fromkeys((a, b) for _, a, b, _ in tally))
        self.bots = list(dict.fromkeys([*bots, *(x for a, b in pairs for x in (*a, *b))]))
        index = {b: i for i, b in enumerate(self.bots)}
        self.m = len(self.bots)
        self.anchor = index.get(anchor) if anchor is not None else None
        self.status = _diagnose(dict.fromkeys((a, b, score) for _, a, b, score in tally), self.bots)
        core = self.status.core
        self.core = [index[b] for b in core] if core is not None else None

        key_ids: dict[Key, int] = {}
        about: dict[tuple, list] = {}  # (team A, team B) -> [key or None, boards, first unit]
        for a, b in pairs:
            key = _design(a, b, index)
            about[a, b] = [key_ids.setdefault(key, len(key_ids)) if key else None, 0, math.inf]
        self.keys = list(key_ids)
        self.cells: Counter[tuple[int, float]] = Counter()  # (key, score) -> boards, as first seen
        unit_of: dict[Hashable, int] = {}  # the units in the order they first appear
        units: list[dict[int, list[float]]] = []  # each unit's key -> [score sum, boards]
        for (u, a, b, score), n in tally.items():
            pair = about[a, b]
            pair[1] += n
            uid = unit_of.get(u)
            if uid is None:
                uid = unit_of[u] = len(units)
                units.append({})
            k = pair[0]
            if k is None:  # the same bots on both sides: no information
                continue
            pair[2] = min(pair[2], uid)
            self.cells[k, score] += n
            cells = units[uid]
            c = cells.get(k)
            if c is None:
                cells[k] = [score * n, n]
            else:
                c[0] += score * n
                c[1] += n
        self.played: Counter = Counter()  # boards that rate a bot (it is on one side only)
        self.seated: Counter = Counter()  # boards a bot sat at
        rated_from: list[set] = [set() for _ in units]  # the bots each unit rates first
        for (a, b), (k, n, first) in about.items():
            for bot in {*a, *b}:
                self.seated[bot] += n
            if k is not None:
                for bot in set(a) ^ set(b):
                    self.played[bot] += n
                rated_from[first] |= set(a) ^ set(b)
        # Every unit in the order it first appears (for `progression`) and the bots it rates first.
        self._in_order = list(zip(units, rated_from))
        self.design = _Design(self.m, self.keys)
        self.scores = [0.0] * len(self.keys)
        self.boards_of = [0] * len(self.keys)
        for (k, score), n in self.cells.items():
            self.scores[k] += score * n
            self.boards_of[k] += n
        # What the bootstrap draws. Boards without deals: one cell index per board, ordered by
        # cell (the order the draws were pinned in, tests), a resample weighing each cell by its
        # boards drawn; else the deals that rate someone, each weighed by its times drawn.
        self.boards: list[int] | None = None
        if all(type(u) is tuple and u[0] is _BOARD for u in unit_of):
            cats = list(self.cells)
            self.boards = [c for c, cat in enumerate(cats) for _ in range(self.cells[cat])]
            self._units: list[dict[int, list[float]]] = [{k: [score, 1]} for k, score in cats]
        else:
            self._units = [cells for cells in units if cells]
        self._cols: list[tuple[list[int], list[float], list[float]]] | None = None  # for refits, when first needed
        self.theta = _fit(self.design, self.scores, self.boards_of) if self.m else []

    def with_anchor(self, anchor: Hashable | None) -> Pool:
        """The same pool (sharing its fit) on another anchor's scale."""
        other = copy.copy(self)
        other.anchor = self.bots.index(anchor) if anchor in self.bots else None
        return other

    # -- the bootstrap ------------------------------------------------------------------------

    def samples(self, seed: int, start: int, stop: int) -> list[list[float]]:
        """Bootstrap fits number `start` to `stop` - 1 of the sequence seeded by `seed`, each the
        bots' anchored Elo: any split of the sequence gives exactly the fits of the whole (the
        draws before `start` are made and dropped, and every fit depends only on its draws)."""
        if not self.cells or stop <= start:
            return []
        rng = random.Random(seed)
        population = self.boards if self.boards is not None else range(len(self._units))
        total = len(population)
        for _ in range(start * total):  # choices() draws one random() per unit
            rng.random()
        fit = self._one_step if self.bootstrap_method == ONE_STEP else self._refit
        out = []
        for _ in range(start, stop):
            weights = [0] * len(self._units)
            for u, times in Counter(rng.choices(population, k=total)).items():
                weights[u] = times
            out.append(_anchored(fit(weights), self.anchor, self.core))
        return out

    def _refit(self, weights: list[int]) -> list[float]:
        if self._cols is None:  # per key: the units it is in, with their score sums and boards
            self._cols = [([], [], []) for _ in self.keys]
            for u, cells in enumerate(self._units):
                for k, (s, n) in cells.items():
                    col = self._cols[k]
                    col[0].append(u)
                    col[1].append(s)
                    col[2].append(n)
        w = weights.__getitem__
        scores = [sum(map(mul, map(w, us), ss)) for us, ss, _ in self._cols]
        boards = [sum(map(mul, map(w, us), ns)) for us, _, ns in self._cols]
        return _fit(self.design, scores, boards, self.theta)

    def _one_step(self, weights: list[int]) -> list[float]:
        if self._step is None:
            self._step = self._prepare_step()
        kind, base, parts = self._step
        if kind == "dense":  # parts[i]: bot i's entry of H^-1 g_u for every unit u
            return [t + sum(map(mul, weights, col)) for t, col in zip(base, parts)]
        factor, columns = parts  # columns[i]: the units whose g_u has bot i, and those entries
        w = weights.__getitem__
        g = [g0 + sum(map(mul, map(w, us), gs)) for g0, (us, gs) in zip(base, columns)]
        return list(map(add, self.theta, factor.solve(g)))

    def _prepare_step(self) -> tuple:
        """The full data's Hessian factored, the prior's gradient and each unit's score
        contribution, at the full fit; with no more units than bots, H^-1 g_u for each unit."""
        theta = self.theta
        g_prior = [PRIOR_DRAWS * (0.5 - _sigmoid(t)) for t in theta]
        factor = _Factor(self.design.terms(theta, self.scores, self.boards_of)[1])
        p = self.design.probabilities(theta)
        grads: list[dict[int, float]] = []
        for cells in self._units:
            g: dict[int, float] = {}
            for k, (s, n) in cells.items():
                resid = s - n * p[k]
                for i, c in self.keys[k]:
                    g[i] = g.get(i, 0.0) + resid * c
            grads.append(g)
        if len(grads) <= self.m:
            steps = [factor.solve([g.get(i, 0.0) for i in range(self.m)]) for g in grads]
            base = list(map(add, theta, factor.solve(g_prior)))
            return "dense", base, [[d[i] for d in steps] for i in range(self.m)]
        columns: list[tuple[list[int], list[float]]] = [([], []) for _ in range(self.m)]
        for u, g in enumerate(grads):
            for i, v in g.items():
                columns[i][0].append(u)
                columns[i][1].append(v)
        return "sparse", g_prior, (factor, columns)

    # -- records the data cannot rate ----------------------------------------------------------

    def one_sided(self, i: int, won: bool) -> float:
        """The rating (internal scale) at which bot i's perfect (won) or zero record had a chance
        of ONE_SIDED, everyone else held at the full fit: log P(record) is monotone in it."""
        terms = []  # (boards, bot i's coefficient, the rest's log-odds, A's score)
        for (k, score), n in self.cells.items():
            key = self.keys[k]
            c = dict(key).get(i)
            if c is not None:
                terms.append((n, c, sum(self.theta[j] * cj for j, cj in key if j != i), score))

        def log_p(t: float) -> float:
            return sum(n * _log_sigmoid((c * t + rest) * (1 if score == 1 else -1)) for n, c, rest, score in terms)

        target = math.log(ONE_SIDED)
        lo, hi = -60.0, 60.0  # nats: far beyond any fit
        for _ in range(100):
            mid = (lo + hi) / 2
            if (log_p(mid) < target) == won:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    # -- the likelihood of superiority -------------------------------------------------------

    def posterior_los(self, i: int, j: int) -> float:
        """The chance bot i is stronger than bot j under the fit's posterior in its normal
        (Laplace) approximation: the gap over its standard error from the penalised Hessian, the
        prior included, so one board is never a certainty."""
        if self._covariance is None:
            factor = _Factor(self.design.terms(self.theta, self.scores, self.boards_of)[1])
            self._covariance = [factor.solve([float(k == i) for k in range(self.m)]) for i in range(self.m)]
        cov = self._covariance
        var = cov[i][i] + cov[j][j] - 2 * cov[i][j]
        gap = self.theta[i] - self.theta[j]
        if var <= 0:
            return 0.5 if abs(gap) * ELO_PER_NAT < TIE_ELO else float(gap > 0)
        return 0.5 * math.erfc(-gap / math.sqrt(2 * var))

    def los(self, i: int, j: int, columns: Sequence[Sequence[float]]) -> float:
        """LOS of bot i over bot j: the share of bootstrap fits in which i is ahead (`columns`,
        each bot's Elo fit by fit), but never surer than `posterior_los`. With few deals the
        resamples barely differ (after one board they are all the board itself), so every fit
        may agree, which is no evidence of certainty; with many, the bootstrap, which keeps a
        deal's boards together, is the less sure of the two and stands."""
        boot, post = _los(columns[i], columns[j]), self.posterior_los(i, j)
        return boot if abs(boot - 0.5) <= abs(post - 0.5) else post

    # -- what the tables show -----------------------------------------------------------------

    def _prepare(self, bootstrap: int, seed: int, samples: Sequence[Sequence[float]] | None, names
                 ) -> tuple[list[float], Sequence[Sequence[float]], list[int]]:
        """The anchored Elo, the bootstrap fits and the table's order (indices)."""
        elo = _anchored(self.theta, self.anchor, self.core) if self.m else []
        if samples is None:
            samples = self.samples(seed, 0, bootstrap) if bootstrap > 0 else []
        elif len(samples) != (bootstrap if self.cells else 0):
            raise ValueError(f"expected {bootstrap} bootstrap fits, got {len(samples)}")
        index = {b: i for i, b in enumerate(self.bots)}
        order = [index[b] for b in ranked({b: elo[index[b]] for b in self.bots}, names)]
        return elo, samples, order

    def ratings(self, *, bootstrap: int = 1000, seed: int = 0, samples: Sequence[Sequence[float]] | None = None,
                errors: str = "pool", names: Mapping[Hashable, str] | Callable[[Hashable], str] | None = None,
                ) -> list[Rating]:
        """`bradley_terry` of this pool."""
        if errors not in ERRORS:
            raise ValueError(f"errors must be one of {ERRORS}, not {errors!r}")
        elo, samples, order = self._prepare(bootstrap, seed, samples, names)
        if not self.m:
            return []
        m, bots, played = self.m, self.bots, self.played
        # A bot without boards has no place yet: it goes last, and no LOS is over it.
        order = [i for i in order if played[bots[i]]] + [i for i in order if not played[bots[i]]]
        rated = self.core or [i for i in range(m) if played[bots[i]]]
        columns = [[s[i] for s in samples] for i in range(m)]
        if samples and errors == "pool" and rated:
            # Each fit's Elo relative to its own pool mean (the core's, if separated), put back
            # around the full fit's pool mean.
            centre = sum(elo[i] for i in rated) / len(rated)
            moved = [centre - sum(map(s.__getitem__, rated)) / len(rated) for s in samples]
            relative = [list(map(add, col, moved)) for col in columns]
        else:
            relative = columns
        status = self.status
        shift = _shift(self.theta, self.anchor, self.core)
        out = []
        for pos, i in enumerate(order):
            bot = bots[i]
            flags = set(status.flags(bot) - {"unplayed"}) | ({"anchor"} if i == self.anchor else set())
            if status.separated and played[bot] and (status.core is None or bot not in status.core):
                flags.add("separated")
            ci_low = ci_high = los = more = less = None
            if samples and played[bot] and not (errors == "anchor" and i == self.anchor):
                col = sorted(relative[i])  # (widened to hold the estimate: see Rating)
                ci_low, ci_high = min(_percentile(col, 0.025), elo[i]), max(_percentile(col, 0.975), elo[i])
            if samples and pos + 1 < m and played[bot] and played[bots[order[pos + 1]]]:
                los = self.los(i, order[pos + 1], columns)
            if i != self.anchor or errors == "pool":  # against the anchor, the anchor is just 0
                if "perfect" in flags:
                    more = (self.one_sided(i, True) - shift) * ELO_PER_NAT
                if "zero" in flags:
                    less = (self.one_sided(i, False) - shift) * ELO_PER_NAT
            if more is not None or less is not None:  # the interval is open at one end
                ci_low, ci_high = more, less
            out.append(Rating(bot, elo[i], ci_low, ci_high, los, played[bot], frozenset(flags), more, less))
        return out

    def los_matrix(self, *, bootstrap: int = 1000, seed: int = 0, samples: Sequence[Sequence[float]] | None = None,
                   names: Mapping[Hashable, str] | Callable[[Hashable], str] | None = None,
                   ) -> tuple[list[Hashable], list[list[float | None]]]:
        """`los_matrix` of this pool."""
        _elo, samples, order = self._prepare(bootstrap, seed, samples, names)
        if not samples:
            return [self.bots[i] for i in order], []
        columns = [[s[i] for s in samples] for i in range(self.m)]
        return [self.bots[i] for i in order], [[None if i == j else self.los(i, j, columns) for j in order]
                                               for i in order]

    def progression(self, points: int = 50) -> list[tuple[float, dict[Hashable, float]]]:
        """`progression` of this pool."""
        units = self._in_order
        if not units:
            return []
        steps = min(points, len(units))
        stops = sorted({max(1, round(k * len(units) / steps)) for k in range(1, steps + 1)})
        out = []
        scores = [0.0] * len(self.keys)
        boards: list[float] = [0] * len(self.keys)  # weighed: a board of k entrants counts 1/(k-1) a pair
        played: set = set()
        theta = None
        done = 0
        for stop in stops:
            for cells, rated in units[done:stop]:
                for k, (s, n) in cells.items():
                    scores[k] += s
                    boards[k] += n
                played |= rated
            done = stop
            theta = self.theta if stop == len(units) else _fit(self.design, scores, boards, theta)
            elo = _anchored(theta, self.anchor, self.core)
            out.append((sum(boards), {b: elo[i] for i, b in enumerate(self.bots) if b in played}))
        return out


def _los(col_i: Sequence[float], col_j: Sequence[float]) -> float:
    """The share of fits in which bot i is ahead of bot j (by at least TIE_ELO; a tie counts
    half): columns of the two bots' Elo, fit by fit."""
    gaps = list(map(sub, col_i, col_j))
    ahead = sum(map(TIE_ELO.__le__, gaps))
    behind = sum(map((-TIE_ELO).__ge__, gaps))
    return (ahead + 0.5 * (len(gaps) - ahead - behind)) / len(gaps)


def bootstrap_samples(results: Sequence[BoardResult], bots: Sequence[Hashable], *, anchor: Hashable | None = None,
                      seed: int = 0, start: int = 0, stop: int = 1000, bootstrap_method: str | None = None,
                      ) -> list[list[float]]:
    """Bootstrap fits `start` to `stop` - 1 of `bradley_terry(..., seed=seed)`, so that several
    processes can share a bootstrap (arena.tournaments.shard) and hand `bradley_terry` the whole.
    The method is the pool's (`Pool`), unless `bootstrap_method` says which."""
    return Pool(results, bots, anchor, bootstrap_method=bootstrap_method).samples(seed, start, stop)


def bradley_terry(
    results: Sequence[BoardResult],
    bots: Sequence[Hashable],
    *,
    anchor: Hashable | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    samples: Sequence[Sequence[float]] | None = None,
    errors: str = "pool",
    names: Mapping[Hashable, str] | Callable[[Hashable], str] | None = None,
    bootstrap_method: str | None = None,
) -> list[Rating]:
    """Headline ratings in `ranked` order (ties by `names`, default str(bot)); see the module
    docstring for the model and `errors` ("pool" or "anchor").

    `samples`, if given, are the `bootstrap` fits made already (`bootstrap_samples`)."""
    if errors not in ERRORS:
        raise ValueError(f"errors must be one of {ERRORS}, not {errors!r}")
    return Pool(results, bots, anchor, bootstrap_method=bootstrap_method).ratings(
        bootstrap=bootstrap, seed=seed, samples=samples, errors=errors, names=names)


def los_matrix(
    results: Sequence[BoardResult],
    bots: Sequence[Hashable],
    *,
    anchor: Hashable | None = None,
    bootstrap: int = 1000,
    seed: int = 0,
    samples: Sequence[Sequence[float]] | None = None,
    names: Mapping[Hashable, str] | Callable[[Hashable], str] | None = None,
) -> tuple[list[Hashable], list[list[float | None]]]:
    """The bots in `ranked` order and the LOS of each (row) over each other (column), None on the
    diagonal, from the same fits as `bradley_terry` with the same arguments (so the cell right of
    the diagonal is that row's `los_next`). Empty without a bootstrap."""
    return Pool(results, bots, anchor).los_matrix(bootstrap=bootstrap, seed=seed, samples=samples, names=names)


def progression(
    results: Sequence[BoardResult], bots: Sequence[Hashable], *, anchor: Hashable | None = None, points: int = 50,
) -> list[tuple[float, dict[Hashable, float]]]:
    """The headline's fit (same prior and anchor) on growing prefixes of the deals, for a chart:
    (boards so far, {bot: Elo} of the bots that have played) at up to `points` prefixes evenly
    spread over the deals, the last one all of them. Deals go in the order they first appear in
    `results` (a board without a deal key is a deal of its own), so give them in deal order."""
    return Pool(results, bots, anchor).progression(points)
