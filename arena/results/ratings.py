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
(ties half), the same either way; `ranked` is the one order of every table, so the LOS of a row
is always over the row below it. Fits are Newton iterations on counts aggregated per pair of
teams, warm-started from the full fit, so 1000 resamples take well under a second for a
handful of bots.

`progression` is the headline's fit on growing prefixes of the deals, for a chart: on the
headline's scale and ending exactly on it, independent of the order of boards within a prefix.
It replaced a K-factor sequential Elo, which depended on the order of every board and lagged
the headline.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass, field

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
    deal it was played on (boards of one deal are resampled together)."""

    team_a: tuple[Hashable, ...]
    team_b: tuple[Hashable, ...]
    score: float
    deal: Hashable | None = None


@dataclass(frozen=True)
class Rating:
    """A bot's headline rating; the interval and LOS are None without a bootstrap or boards.

    flags: "anchor", "perfect" (won every board it played), "zero" (lost every one), "separated"
    (outside `Diagnosis.core`, or in a separated pool without one: its distance to the rest
    rests on the prior). A perfect bot's
    rating is bounded below only: show `more_than`, not the interval (which rests on the prior);
    a zero bot's, `less_than` (the anchor's only against the pool: against itself it is 0)."""

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


def ranked(elo: Mapping[Hashable, float], names: Mapping[Hashable, str] | Callable[[Hashable], str] | None = None,
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
    everyone = list(dict.fromkeys([*bots, *(b for r in results for b in (*r.team_a, *r.team_b))]))
    scores: dict[Hashable, list[float]] = {b: [] for b in everyone}
    linked: dict[Hashable, set] = {b: set() for b in everyone}
    beat: dict[Hashable, set] = {b: set() for b in everyone}  # a -> b: a scored against b
    for r in results:
        a, b = set(r.team_a) - set(r.team_b), set(r.team_b) - set(r.team_a)
        for x in a:
            scores[x].append(r.score)
        for y in b:
            scores[y].append(1 - r.score)
        for x in a:
            for y in b:
                linked[x].add(y)
                linked[y].add(x)
                if r.score > 0:
                    beat[x].add(y)
                if r.score < 1:
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
        parts, done = [], set()
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


def _anchored(theta: list[float], anchor: int | None, core: Sequence[int] | None = None) -> list[float]:
    """Elo with the anchor at 0, else the mean of `core` (default: everyone) at 0."""
    return [(t - _shift(theta, anchor, core)) * ELO_PER_NAT for t in theta]


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


class _Model:
    """What every fit of one tournament shares: the bots, the cells (boards per pair of teams and
    score), the resampling units (deals) and the full fit, from which each bootstrap fit is
    warm-started."""

    def __init__(self, results: Sequence[BoardResult], bots: Sequence[Hashable], anchor: Hashable | None) -> None:
        self.bots = list(dict.fromkeys([*bots, *(b for r in results for b in (*r.team_a, *r.team_b))]))
        index = {b: i for i, b in enumerate(self.bots)}
        self.m = len(self.bots)
        self.anchor = index.get(anchor) if anchor is not None else None
        self.status = diagnose(results, self.bots)
        core = self.status.core
        self.core = [index[b] for b in core] if core is not None else None
        self.played: Counter = Counter()
        self.cells: Counter[tuple[Key, float]] = Counter()
        deals: dict[Hashable, Counter] = {}
        for n, r in enumerate(results):
            key = _design(r, index)
            if not key:  # the same bots on both sides: no information
                continue
            self.cells[(key, r.score)] += 1
            for b in set(r.team_a) ^ set(r.team_b):
                self.played[b] += 1
            deals.setdefault(("deal", r.deal) if r.deal is not None else ("board", n), Counter())[(key, r.score)] += 1
        self.cats = list(self.cells)
        # What the bootstrap draws. Boards without deals: one cell index per board, ordered by
        # cell (the order the draws were pinned in, tests); else per deal, its boards summed per
        # pair of teams.
        self.boards: list[int] | None = None
        self.units: list[tuple] = []
        if all(k[0] == "board" for k in deals):
            self.boards = [i for i, c in enumerate(self.cats) for _ in range(self.cells[c])]
        else:
            self.units = [tuple(_aggregate(unit).items()) for unit in deals.values()]
        self.theta = _fit(self.m, _aggregate(self.cells)) if self.m else []

    def samples(self, seed: int, start: int, stop: int) -> list[list[float]]:
        """Bootstrap fits number `start` to `stop` - 1 of the sequence seeded by `seed`, each the
        bots' anchored Elo: any split of the sequence gives exactly the fits of the whole (the
        draws before `start` are made and dropped)."""
        if not self.cells or stop <= start:
            return []
        rng = random.Random(seed)
        population = self.boards if self.boards is not None else range(len(self.units))
        total = len(population)
        for _ in range(start * total):  # choices() draws one random() per unit
            rng.random()
        out = []
        for _ in range(start, stop):
            drawn = Counter(rng.choices(population, k=total))
            if self.boards is not None:
                weights = Counter({self.cats[i]: n for i, n in drawn.items()})
                counts = _aggregate(weights)
            else:
                counts = {}
                for u, times in drawn.items():
                    for key, (score, n) in self.units[u]:
                        c = counts.setdefault(key, [0.0, 0.0])
                        c[0] += score * times
                        c[1] += n * times
            out.append(_anchored(_fit(self.m, counts, self.theta), self.anchor, self.core))
        return out

    def one_sided(self, i: int, won: bool) -> float:
        """The rating (internal scale) at which bot i's perfect (won) or zero record had a chance
        of ONE_SIDED, everyone else held at the full fit: log P(record) is monotone in it."""
        terms = []  # (boards, bot i's coefficient, the rest's log-odds, A's score)
        for (key, score), n in self.cells.items():
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


def _prepare(results: Sequence[BoardResult], bots: Sequence[Hashable], anchor: Hashable | None, bootstrap: int,
             seed: int, samples: Sequence[Sequence[float]] | None, names) -> tuple:
    """The model, its anchored Elo, the bootstrap fits and the table's order (indices)."""
    model = _Model(results, bots, anchor)
    elo = _anchored(model.theta, model.anchor, model.core) if model.m else []
    if samples is None:
        samples = model.samples(seed, 0, bootstrap) if bootstrap > 0 else []
    elif len(samples) != (bootstrap if model.cells else 0):
        raise ValueError(f"expected {bootstrap} bootstrap fits, got {len(samples)}")
    index = {b: i for i, b in enumerate(model.bots)}
    order = [index[b] for b in ranked({b: elo[index[b]] for b in model.bots}, names)]
    return model, elo, samples, order


def _los(samples: Sequence[Sequence[float]], i: int, j: int) -> float:
    return sum(0.5 if abs(s[i] - s[j]) < TIE_ELO else 1.0 if s[i] > s[j] else 0.0 for s in samples) / len(samples)


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
) -> list[Rating]:
    """Headline ratings in `ranked` order (ties by `names`, default str(bot)); see the module
    docstring for the model and `errors` ("pool" or "anchor").

    `samples`, if given, are the `bootstrap` fits made already (`bootstrap_samples`)."""
    if errors not in ERRORS:
        raise ValueError(f"errors must be one of {ERRORS}, not {errors!r}")
    model, elo, samples, order = _prepare(results, bots, anchor, bootstrap, seed, samples, names)
    if not model.m:
        return []
    m, bots, played = model.m, model.bots, model.played
    rated = model.core or [i for i in range(m) if played[bots[i]]]
    if samples and errors == "pool" and rated:
        # Each fit's Elo relative to its own pool mean (the core's, if separated), put back
        # around the full fit's pool mean.
        centre = sum(elo[i] for i in rated) / len(rated)
        columns = [[s[i] - sum(s[j] for j in rated) / len(rated) + centre for s in samples] for i in range(m)]
    else:
        columns = [[s[i] for s in samples] for i in range(m)]
    status = model.status
    shift = _shift(model.theta, model.anchor, model.core)
    out = []
    for pos, i in enumerate(order):
        bot = bots[i]
        flags = set(status.flags(bot) - {"unplayed"}) | ({"anchor"} if i == model.anchor else set())
        if status.separated and played[bot] and (status.core is None or bot not in status.core):
            flags.add("separated")
        ci_low = ci_high = los = more = less = None
        if samples and played[bot] and not (errors == "anchor" and i == model.anchor):
            col = sorted(columns[i])
            ci_low, ci_high = _percentile(col, 0.025), _percentile(col, 0.975)
        if samples and pos + 1 < m:
            los = _los(samples, i, order[pos + 1])
        if i != model.anchor or errors == "pool":  # against the anchor, the anchor is just 0
            if "perfect" in flags:
                more = (model.one_sided(i, True) - shift) * ELO_PER_NAT
            if "zero" in flags:
                less = (model.one_sided(i, False) - shift) * ELO_PER_NAT
        out.append(Rating(bot, elo[i], ci_low, ci_high, los, played[bot], frozenset(flags), more, less))
    return out


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
    model, _elo, samples, order = _prepare(results, bots, anchor, bootstrap, seed, samples, names)
    if not samples:
        return [model.bots[i] for i in order], []
    return [model.bots[i] for i in order], [[None if i == j else _los(samples, i, j) for j in order] for i in order]


def progression(
    results: Sequence[BoardResult], bots: Sequence[Hashable], *, anchor: Hashable | None = None, points: int = 50,
) -> list[tuple[int, dict[Hashable, float]]]:
    """The headline's fit (same prior and anchor) on growing prefixes of the deals, for a chart:
    (boards so far, {bot: Elo} of the bots that have played) at up to `points` prefixes evenly
    spread over the deals, the last one all of them. Deals go in the order they first appear in
    `results` (a board without a deal key is a deal of its own), so give them in deal order."""
    model = _Model(results, bots, anchor)
    index = {b: i for i, b in enumerate(model.bots)}
    deals: dict[Hashable, list[BoardResult]] = {}
    for n, r in enumerate(results):
        deals.setdefault(("deal", r.deal) if r.deal is not None else ("board", n), []).append(r)
    units = list(deals.values())
    if not units:
        return []
    steps = min(points, len(units))
    stops = sorted({max(1, round(k * len(units) / steps)) for k in range(1, steps + 1)})
    out = []
    cells: Counter = Counter()
    played: set = set()
    theta = None
    done = 0
    for stop in stops:
        for unit in units[done:stop]:
            for r in unit:
                key = _design(r, index)
                if key:
                    cells[(key, r.score)] += 1
                    played |= set(r.team_a) ^ set(r.team_b)
        done = stop
        theta = _fit(model.m, _aggregate(cells), theta)
        elo = _anchored(theta, model.anchor, model.core)
        out.append((sum(cells.values()), {b: elo[index[b]] for b in model.bots if b in played}))
    return out
