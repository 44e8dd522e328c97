"""Ratings: recover known strengths from seeded simulations, symmetry, anchoring, intervals."""

from __future__ import annotations

import math
import random
from statistics import NormalDist

import pytest

from arena.results.ratings import (
    BoardResult,
    Pool,
    bootstrap_samples,
    bradley_terry,
    diagnose,
    expected,
    los_matrix,
    progression,
    ranked,
)

DRAW_BAND = 0.04  # a board within this band of the win probability is a draw


def simulate(true, pairs, boards, rng, *, mixed=False):
    """Board results for clone (or mixed: pairs of teams) matches drawn from the Elo model."""
    out = []
    for team_a, team_b in pairs:
        if not mixed:
            team_a, team_b = (team_a, team_a), (team_b, team_b)
        ra = sum(true[b] for b in team_a) / 2
        rb = sum(true[b] for b in team_b) / 2
        p = expected(ra, rb)
        for _ in range(boards):
            u = rng.random()
            score = 1.0 if u < p - DRAW_BAND / 2 else 0.5 if u < p + DRAW_BAND / 2 else 0.0
            out.append(BoardResult(tuple(team_a), tuple(team_b), score))
    return out


def round_robin(bots):
    return [(a, b) for i, a in enumerate(bots) for b in bots[i + 1:]]


def by_bot(ratings):
    return {r.bot: r for r in ratings}


TRUE = {"random": 0.0, "greedy": 150.0, "counter": 250.0, "lookahead": 400.0, "deep": 450.0}


def test_recovers_known_strengths():
    rng = random.Random(11)
    results = simulate(TRUE, round_robin(list(TRUE)), 150, rng)
    got = by_bot(bradley_terry(results, list(TRUE), anchor="random", bootstrap=0))
    assert got["random"].elo == 0.0
    for bot, elo in TRUE.items():
        assert abs(got[bot].elo - elo) < 45, (bot, got[bot].elo, elo)
    assert [r.bot for r in bradley_terry(results, list(TRUE), anchor="random", bootstrap=0)] == [
        "deep", "lookahead", "counter", "greedy", "random"]
    assert all(r.boards == 4 * 150 for r in got.values())


def test_mixed_partnerships_rate_individuals():
    true = {"a": 0.0, "b": 100.0, "c": 200.0, "d": 300.0}
    pairs = []
    for x, y, z, w in (("a", "b", "c", "d"), ("a", "c", "b", "d"), ("a", "d", "b", "c")):
        pairs += [((x, y), (z, w)), ((z, w), (x, y))]
    results = simulate(true, pairs, 400, random.Random(5), mixed=True)
    got = by_bot(bradley_terry(results, list(true), bootstrap=0))
    assert [r.bot for r in sorted(got.values(), key=lambda r: -r.elo)] == ["d", "c", "b", "a"]
    assert abs(sum(r.elo for r in got.values())) < 1e-6  # no random bot: the mean is 0
    for bot, elo in true.items():
        assert abs(got[bot].elo - (elo - 150)) < 50, (bot, got[bot].elo)


def test_symmetry_swapping_sides_and_order():
    results = simulate(TRUE, round_robin(list(TRUE)), 20, random.Random(2))
    flipped = [BoardResult(r.team_b, r.team_a, 1.0 - r.score) for r in results]
    base = by_bot(bradley_terry(results, list(TRUE), bootstrap=0))
    other = by_bot(bradley_terry(flipped, list(reversed(TRUE)), bootstrap=0))
    for bot in TRUE:
        assert base[bot].elo == pytest.approx(other[bot].elo, abs=1e-6)
    # two bots with mirrored records get mirrored ratings
    duel = [BoardResult(("x", "x"), ("y", "y"), s) for s in (1.0, 1.0, 0.0, 0.5)]
    x, y = (by_bot(bradley_terry(duel, ["x", "y"], bootstrap=0))[b].elo for b in "xy")
    assert x == pytest.approx(-y) and x > 0


def test_anchoring_shifts_only():
    results = simulate(TRUE, round_robin(list(TRUE)), 20, random.Random(3))
    free = by_bot(bradley_terry(results, list(TRUE), bootstrap=0))
    anchored = by_bot(bradley_terry(results, list(TRUE), anchor="random", bootstrap=0))
    assert sum(r.elo for r in free.values()) == pytest.approx(0, abs=1e-6)
    assert anchored["random"].elo == 0
    shift = free["random"].elo
    for bot in TRUE:
        assert anchored[bot].elo == pytest.approx(free[bot].elo - shift, abs=1e-6)
    absent = by_bot(bradley_terry(results, list(TRUE), anchor="nobody", bootstrap=0))
    assert absent["deep"].elo == pytest.approx(free["deep"].elo)


def test_interval_covers_the_truth_in_most_trials():
    true = {"random": 0.0, "b": 120.0, "c": 240.0, "d": 300.0}
    covered = total = 0
    for trial in range(25):
        rng = random.Random(1000 + trial)
        results = simulate(true, round_robin(list(true)), 30, rng)
        for r in bradley_terry(results, list(true), anchor="random", bootstrap=200, seed=trial, errors="anchor"):
            if r.bot == "random":  # against the anchor, the anchor has no interval
                assert (r.ci_low, r.ci_high, r.flags) == (None, None, {"anchor"})
                continue
            assert r.ci_low <= r.elo <= r.ci_high
            total += 1
            covered += r.ci_low <= true[r.bot] <= r.ci_high
    assert covered / total >= 0.85, (covered, total)


def test_perfect_records_stay_finite():
    results = [BoardResult(("champ", "champ"), (o, o), 1.0) for o in ("random", "mid") for _ in range(30)]
    results += [BoardResult(("mid", "mid"), ("random", "random"), s) for s in (1.0, 0.0, 1.0) * 10]
    rs = by_bot(bradley_terry(results, ["champ", "mid", "random"], anchor="random", bootstrap=100))
    champ = rs["champ"]
    assert math.isfinite(champ.elo) and math.isfinite(champ.more_than)
    # open above: the interval is its one-sided bound, not the resamples' zero-width spread
    assert (champ.ci_low, champ.ci_high) == (champ.more_than, None)
    assert champ.elo > rs["mid"].elo + 200
    assert champ.elo < 2000
    assert 0.999 < champ.los_next < 1  # sure, but a posterior is never certain
    loser = by_bot(bradley_terry([BoardResult(("a", "a"), ("b", "b"), 0.0)] * 50, ["a", "b"]))["a"]
    assert math.isfinite(loser.elo) and loser.elo < 0
    assert (loser.ci_low, loser.ci_high) == (None, loser.less_than)


def test_one_board_is_no_certainty():
    """After one board every resample is that board, so every bootstrap fit has the winner
    ahead: the LOS is the posterior's (the prior of one virtual draw each), not 100%."""
    winner, loser = bradley_terry([BoardResult(("a", "a"), ("b", "b"), 1.0, deal=0)], ["a", "b"])
    assert winner.bot == "a" and 0.6 < winner.los_next < 0.9
    two = by_bot(bradley_terry([BoardResult(("a", "a"), ("b", "b"), 1.0, deal=d) for d in range(2)], ["a", "b"]))
    assert winner.los_next < two["a"].los_next < 0.95  # more boards, surer: still no certainty
    bots, matrix = los_matrix([BoardResult(("a", "a"), ("b", "b"), 1.0, deal=0)], ["a", "b"])
    assert bots == ["a", "b"] and matrix[0][1] == winner.los_next and matrix[1][0] == pytest.approx(1 - winner.los_next)


def test_an_interval_holds_its_estimate():
    """A percentile interval may miss its estimate by rounding (every resample alike) or by the
    resamples' skew; the one shown is widened to hold it."""
    results = [BoardResult(("a", "a"), ("b", "b"), s, deal=d) for d, s in enumerate((1.0, 0.5, 1.0, 0.0, 1.0))]
    results += [BoardResult(("b", "b"), ("c", "c"), s, deal=d) for d, s in enumerate((1.0, 1.0, 0.5, 0.0, 0.5))]
    results += [BoardResult(("a", "a"), ("c", "c"), 0.5, deal=0)]
    for errors in ("pool", "anchor"):
        for r in bradley_terry(results, ["a", "b", "c"], anchor="c", bootstrap=200, errors=errors):
            if r.ci_low is not None and r.ci_high is not None:
                assert r.ci_low <= r.elo <= r.ci_high, (errors, r)


def test_degenerate_cases():
    assert bradley_terry([], []) == []
    (solo,) = bradley_terry([], ["solo"])
    assert (solo.elo, solo.ci_low, solo.ci_high, solo.los_next, solo.boards) == (0.0, None, None, None, 0)
    idle = by_bot(bradley_terry([BoardResult(("a", "a"), ("b", "b"), 1.0)] * 4, ["a", "b", "idle"], bootstrap=50))
    assert idle["idle"].boards == 0 and idle["idle"].ci_low is None
    # a board between identical teams carries no information and counts for nobody
    (same,) = bradley_terry([BoardResult(("a", "a"), ("a", "a"), 1.0)], ["a"])
    assert (same.elo, same.boards) == (0.0, 0)


def test_bootstrap_is_seeded_and_los_reads_the_gap():
    results = simulate(TRUE, round_robin(list(TRUE)), 10, random.Random(9))
    one = bradley_terry(results, list(TRUE), anchor="random", bootstrap=150, seed=4)
    two = bradley_terry(results, list(TRUE), anchor="random", bootstrap=150, seed=4)
    three = bradley_terry(results, list(TRUE), anchor="random", bootstrap=150, seed=5)
    assert one == two
    assert one != three
    assert one[-1].los_next is None
    assert all(0.0 <= r.los_next <= 1.0 for r in one[:-1])
    twins = [BoardResult(("p", "p"), ("q", "q"), s) for s in (1.0, 0.0) * 10]
    twins += [BoardResult((t, t), ("r", "r"), 1.0) for t in "pq" for _ in range(10)]
    p = bradley_terry(twins, ["p", "q", "r"], bootstrap=400, seed=1)[0]
    assert 0.3 < p.los_next < 0.7  # equal records: no superiority either way


def test_the_bootstrap_draws_are_pinned():
    """Stored intervals stay reproducible: a change to how boards are resampled must show here.
    (Recorded 2026-11-30, when drawing from a list of boards replaced cumulative weights per
    cell: the same draws, checked against the old code on 30 random tournaments.)"""
    results = simulate(TRUE, round_robin(list(TRUE)), 4, random.Random(3))
    got = [(r.bot, round(r.elo, 6), round(r.ci_low, 6), round(r.ci_high, 6), round(r.los_next, 6))
           for r in bradley_terry(results, list(TRUE), anchor="random", bootstrap=100, seed=7, errors="anchor")
           if r.bot != "random"]
    # (the LOS of four boards a pair is the posterior's, less sure than the bootstrap's 0.83,
    # 0.99, 0.67, 0.77)
    assert got == [("lookahead", 511.844354, 319.461927, 910.497252, 0.778435),
                   ("deep", 403.857678, 207.089526, 745.968429, 0.973096),
                   ("counter", 136.824709, -57.868889, 488.286561, 0.637935),
                   ("greedy", 93.246329, -173.827554, 435.666544, 0.764304)]


def test_equal_records_tie_by_name_whatever_the_rounding():
    """Bots whose fits differ only by floating-point noise rank by name, whichever comes first."""
    boards = [BoardResult((0, 1), (2, 3), 1.0), BoardResult((0, 2), (1, 3), 0.0)] * 5
    for order in ([0, 1, 2, 3], [3, 2, 1, 0], [2, 3, 0, 1], [1, 3, 0, 2]):
        ranked = bradley_terry(boards, order, bootstrap=200, seed=3)
        assert [r.bot for r in ranked] == [1, 0, 3, 2]  # 0 and 3 won one board each: by name
        assert ranked[1].elo == pytest.approx(ranked[2].elo, abs=1e-9)
        assert ranked[0].los_next > 0.7 and 0.3 < ranked[1].los_next < 0.7


def test_a_bootstrap_shared_between_processes_is_the_whole_one():
    """Shards each fit a stretch of the bootstrap (arena.tournaments.shard): the pieces, joined, are the
    same fits bit for bit, and give the same ratings."""
    results = simulate(TRUE, round_robin(list(TRUE)), 3, random.Random(5))
    whole = bootstrap_samples(results, list(TRUE), anchor="random", seed=9, start=0, stop=60)
    pieces = [bootstrap_samples(results, list(TRUE), anchor="random", seed=9, start=a, stop=b)
              for a, b in ((0, 17), (17, 18), (18, 60))]
    assert pieces[0] + pieces[1] + pieces[2] == whole and len(whole) == 60
    direct = bradley_terry(results, list(TRUE), anchor="random", bootstrap=60, seed=9)
    assert bradley_terry(results, list(TRUE), anchor="random", bootstrap=60, seed=9, samples=whole) == direct
    with pytest.raises(ValueError, match="expected 60 bootstrap fits, got 59"):
        bradley_terry(results, list(TRUE), anchor="random", bootstrap=60, seed=9, samples=whole[1:])


# ---- what the boards cannot rate ------------------------------------------------------------


def test_diagnose_flags_records_and_the_pairing_graph():
    duel = [BoardResult(("a", "a"), ("b", "b"), s) for s in (1.0, 0.0, 0.5)]
    champ = [BoardResult(("c", "c"), (o, o), 1.0) for o in "ab"]
    d = diagnose(duel + champ, ["a", "b", "c", "idle"])
    assert (d.perfect, d.zero, d.unplayed) == ({"c"}, set(), {"idle"})
    assert d.components == ({"a", "b", "c"},) and not d.disconnected
    assert d.groups == ({"a", "b"}, {"c"}) and d.separated and d.pool_flags() == {"separated"}
    assert d.core == {"a", "b"}  # the scale's 0 without an anchor, and where an anchor belongs
    assert d.flags("c") == {"perfect"} and d.flags("idle") == {"unplayed"} and d.flags("a") == set()
    # c loses once: everyone is linked both ways, a finite fit exists
    healed = diagnose(duel + champ + [BoardResult(("b", "b"), ("c", "c"), 0.5)], ["a", "b", "c"])
    assert healed.groups == ({"a", "b", "c"},) and healed.pool_flags() == set() and not healed.perfect
    assert healed.core is None
    # two pools that never met; the loser of the second has a zero record
    apart = diagnose(duel + [BoardResult(("x", "x"), ("y", "y"), 1.0)], [])
    assert apart.disconnected and apart.pool_flags() == {"disconnected", "separated"}
    assert apart.components == ({"a", "b"}, {"x", "y"}) and (apart.perfect, apart.zero) == ({"x"}, {"y"})
    assert apart.groups == ({"a", "b"}, {"x"}, {"y"}) and apart.core == {"a", "b"}
    assert diagnose([BoardResult(("x", "x"), ("y", "y"), 1.0)], []).core is None  # no largest group
    # mixed partnerships: a member's record is its teams' record
    mixed = diagnose([BoardResult(("p", "q"), ("r", "s"), 1.0), BoardResult(("p", "r"), ("q", "s"), 1.0)], [])
    assert (mixed.perfect, mixed.zero) == ({"p"}, {"s"})


@pytest.mark.parametrize("boards", [8, 32])
def test_a_perfect_record_is_a_one_sided_bound(boards):
    """Winning n boards against a bot rated 0 has probability p**n: the bound is where that is
    2.5%, the same for the loser mirrored, whatever the prior made of the point estimates."""
    won = [BoardResult(("c", "c"), ("o", "o"), 1.0) for _ in range(boards)]
    even = [BoardResult(("o", "o"), ("p", "p"), s) for s in (1.0, 0.0) * boards]
    rated = by_bot(bradley_terry(won + even, ["c", "o", "p"], anchor="o", bootstrap=50))
    p = 0.025 ** (1 / boards)
    assert rated["c"].more_than == pytest.approx(400 * math.log10(p / (1 - p)), abs=1e-6)
    assert rated["c"].flags == {"perfect", "separated"} and rated["c"].less_than is None
    assert rated["c"].more_than < rated["c"].elo  # the point estimate rests on the prior
    lost = [BoardResult(("o", "o"), ("z", "z"), 1.0) for _ in range(boards)]
    z = by_bot(bradley_terry(lost + even, ["z", "o", "p"], anchor="o", bootstrap=0))["z"]
    assert z.flags == {"zero", "separated"} and z.less_than == pytest.approx(-rated["c"].more_than, abs=1e-6)
    assert rated["o"].more_than is None and rated["o"].flags == {"anchor"}


def test_more_than_holds_for_a_strong_bot_that_wins_everything():
    """The issue's synthetic bot: true +400 above the rest, all its 8 boards a match won (a 23%
    chance at that strength). The resamples' two-sided interval would miss the truth (it lies
    above it); the interval given is "more than X", open above, and it holds."""
    true = {"random": 0.0, "b": 100.0, "c": 200.0}
    results = simulate(true, round_robin(list(true)), 32, random.Random(4))
    results += [BoardResult(("top", "top"), (o, o), 1.0) for o in true for _ in range(8)]
    top = by_bot(bradley_terry(results, [*true, "top"], anchor="random", bootstrap=100))["top"]
    assert top.flags == {"perfect", "separated"}
    assert top.more_than < 600  # 600: the truth, +400 over the best of the rest
    assert (top.ci_low, top.ci_high) == (top.more_than, None)


# ---- order, intervals, LOS ------------------------------------------------------------------


def test_ranked_is_elo_then_name_whatever_the_noise_or_the_input_order():
    elo = {"b": 10.0 + 3e-11, "a": 10.0, "c": 10.0 - 2e-11, "top": 50.0, "low": -5.0}
    for keys in (list(elo), sorted(elo), sorted(elo, reverse=True)):
        assert ranked({k: elo[k] for k in keys}) == ["top", "a", "b", "c", "low"]
    assert ranked(elo, {"a": "z", "b": "y", "c": "x", "top": "t", "low": "l"}) == ["top", "c", "b", "a", "low"]
    assert ranked({1: 0.0, 10: 0.0, 9: 0.0}) == [1, 10, 9]  # by name: "1" < "10" < "9"


def test_los_lands_on_the_row_it_belongs_to():
    """Ties ranked by name, with names other than the ids, and the LOS matrix agrees with the
    table: each row's los_next is its cell over the row below."""
    boards = [BoardResult((0, 1), (2, 3), 1.0), BoardResult((0, 2), (1, 3), 0.0)] * 5
    names = {0: "delta", 1: "charlie", 2: "bravo", 3: "alpha"}
    for order in ([0, 1, 2, 3], [3, 2, 1, 0]):
        table = bradley_terry(boards, order, bootstrap=200, seed=3, names=names)
        assert [r.bot for r in table] == [1, 3, 0, 2]  # 0 and 3 tie: alpha (3) before delta (0)
        bots, matrix = los_matrix(boards, order, bootstrap=200, seed=3, names=names)
        assert bots == [r.bot for r in table]
        for i, row in enumerate(table[:-1]):
            assert matrix[i][i + 1] == row.los_next
            assert matrix[i + 1][i] == pytest.approx(1 - row.los_next)
        assert [matrix[i][i] for i in range(4)] == [None] * 4
    assert los_matrix(boards, [0, 1, 2, 3], bootstrap=0) == ([1, 0, 3, 2], [])


def test_pool_intervals_leave_out_the_anchors_uncertainty():
    true = {"random": 0.0, "b": 300.0, "c": 350.0, "d": 400.0}
    results = simulate(true, round_robin(list(true)), 12, random.Random(8))
    pool = by_bot(bradley_terry(results, list(true), anchor="random", bootstrap=200, seed=1))
    anchor = by_bot(bradley_terry(results, list(true), anchor="random", bootstrap=200, seed=1, errors="anchor"))
    for bot in "bcd":
        assert pool[bot].elo == anchor[bot].elo and pool[bot].los_next == anchor[bot].los_next
        assert pool[bot].ci_high - pool[bot].ci_low < 0.8 * (anchor[bot].ci_high - anchor[bot].ci_low)
    assert pool["random"].ci_low < 0 < pool["random"].ci_high and anchor["random"].ci_low is None
    assert pool["random"].flags == anchor["random"].flags == {"anchor"}
    with pytest.raises(ValueError, match="errors must be one of"):
        bradley_terry(results, list(true), errors="mean")


# ---- resampling by deal ---------------------------------------------------------------------


def deal_correlated(true, deals, rng, rho=0.8):
    """A round robin whose boards of one deal are correlated (a deal suits a bot against
    everyone) while each board's chances are exactly the Elo model's: a Gaussian copula."""
    phi = NormalDist().cdf
    bots = list(true)
    out = []
    for deal in range(deals):
        luck = {b: rng.gauss(0, 1) for b in bots}
        for a, b in round_robin(bots):
            p = expected(true[a], true[b])
            u = phi(rho**0.5 * (luck[b] - luck[a]) / 2**0.5 + (1 - rho) ** 0.5 * rng.gauss(0, 1))
            score = 1.0 if u < p - DRAW_BAND / 2 else 0.5 if u < p + DRAW_BAND / 2 else 0.0
            out.append(BoardResult((a, a), (b, b), score, deal=deal))
    return out


def test_resampling_by_deal_covers_the_truth():
    """95% pool intervals cover each bot's true distance from the pool mean in at least 90% of
    runs when deals are resampled whole; resampling boards alone gives narrower intervals."""
    true = {"random": 0.0, "b": 100.0, "c": 200.0, "d": 300.0}
    mean = sum(true.values()) / len(true)
    covered = total = 0
    widths = {"deal": 0.0, "board": 0.0}
    for run in range(40):
        results = deal_correlated(true, 30, random.Random(run))
        by_deal = bradley_terry(results, list(true), anchor="random", bootstrap=200, seed=run)
        centre = sum(r.elo for r in by_deal) / len(by_deal)
        for r in by_deal:
            total += 1
            covered += r.ci_low <= true[r.bot] - mean + centre <= r.ci_high
        if run < 10:  # widths compared on the first runs
            loose = [BoardResult(r.team_a, r.team_b, r.score) for r in results]
            widths["deal"] += sum(r.ci_high - r.ci_low for r in by_deal)
            by_board = bradley_terry(loose, list(true), bootstrap=200, seed=run)
            widths["board"] += sum(r.ci_high - r.ci_low for r in by_board)
    assert covered / total >= 0.90, (covered, total)
    assert widths["deal"] > 1.1 * widths["board"], widths


def test_a_deal_is_resampled_whole():
    """Two boards of one deal always come back together: with one deal per pair of opposite
    boards every resample is balanced, so the two bots stay exactly level."""
    results = []
    for deal in range(10):
        results += [BoardResult(("x", "x"), ("y", "y"), 1.0, deal=deal),
                    BoardResult(("x", "x"), ("y", "y"), 0.0, deal=deal)]
    level = bradley_terry(results, ["x", "y"], bootstrap=100, seed=2)
    assert all(r.ci_low == pytest.approx(0, abs=1e-6) and r.ci_high == pytest.approx(0, abs=1e-6) for r in level)
    boards = [BoardResult(r.team_a, r.team_b, r.score) for r in results]
    loose = bradley_terry(boards, ["x", "y"], bootstrap=100, seed=2)
    assert all(r.ci_high - r.ci_low > 50 for r in loose)
    pieces = [bootstrap_samples(results, ["x", "y"], seed=5, start=a, stop=b) for a, b in ((0, 7), (7, 20))]
    assert pieces[0] + pieces[1] == bootstrap_samples(results, ["x", "y"], seed=5, stop=20)


# ---- progression ----------------------------------------------------------------------------


def test_progression_ends_on_the_headline_and_ignores_order_within_a_deal():
    results = deal_correlated(TRUE, 20, random.Random(6), rho=0.3)
    points = progression(results, list(TRUE), anchor="random", points=5)
    assert [n for n, _ in points] == [40, 80, 120, 160, 200]  # 10 pairings a deal
    headline = by_bot(bradley_terry(results, list(TRUE), anchor="random", bootstrap=0))
    for bot, elo in points[-1][1].items():
        assert elo == pytest.approx(headline[bot].elo, abs=1e-6)
    shuffled = []
    for deal in range(20):
        boards = [r for r in results if r.deal == deal]
        random.Random(deal).shuffle(boards)
        shuffled += boards
    again = progression(shuffled, list(TRUE), anchor="random", points=5)
    for (n, one), (m, two) in zip(points, again):
        assert n == m and one == pytest.approx(two, abs=1e-6)
    early = progression([BoardResult(r.team_a, r.team_b, r.score) for r in results[:3]], list(TRUE),
                        anchor="random")  # no deal keys: a board each
    assert [n for n, _ in early] == [1, 2, 3] and set(early[0][1]) == {"random", "greedy"}
    assert progression([], ["a"]) == []


def test_beside_a_zero_record_the_pool_keeps_its_scale():
    """In --format game the random bot loses every board: without an anchor the largest group's
    mean is 0, so the others read the same at 8 and at 32 boards a match while the prior pushes
    random down, and random's bound says how far below it surely is."""
    true = {"b": -100.0, "c": 0.0, "d": 100.0}
    seen = {}
    for boards in (8, 32):
        results = simulate(true, round_robin(list(true)), boards, random.Random(boards))
        results += [BoardResult((o, o), ("random", "random"), 1.0) for o in true for _ in range(boards)]
        rated = by_bot(bradley_terry(results, [*true, "random"], bootstrap=0))
        assert sum(rated[b].elo for b in true) == pytest.approx(0, abs=1e-6)
        assert rated["random"].flags == {"zero", "separated"} and rated["random"].elo < rated["random"].less_than
        seen[boards] = rated
    assert abs(seen[32]["d"].elo - seen[8]["d"].elo) < 100
    assert seen[32]["random"].elo < seen[8]["random"].elo - 150  # the prior's point grows with boards
    assert seen[32]["random"].less_than < seen[8]["random"].less_than < -200  # evidence


# ---- the one-step bootstrap (big pools) -----------------------------------------------------


@pytest.mark.parametrize("bots, deals, method", [(5, 8, "refit"), (26, 16, "refit"), (27, 16, "one-step"),
                                                 (16, 200, "refit"), (16, 300, "one-step"), (40, 2, "one-step")])
def test_the_bootstrap_method_follows_the_cost_of_a_refit(bots, deals, method):
    """Pools whose refits are cheap refit every resample, others take the one-step (more bots,
    or more deals: README's numbers); either can be asked for."""
    true = {f"b{i:03d}": 2.0 * i for i in range(bots)}
    results = [BoardResult((a, a), (b, b), 1.0 if deal % 2 else 0.0, deal=deal) for deal in range(deals)
               for a, b in round_robin(list(true))]
    assert Pool(results, list(true)).bootstrap_method == method
    assert Pool(results[:50], list(true), bootstrap_method="one-step").bootstrap_method == "one-step"
    with pytest.raises(ValueError, match="bootstrap_method must be one of"):
        Pool(results[:5], list(true), bootstrap_method="jackknife")


@pytest.mark.parametrize("bots, deals, runs", [(4, 30, 40), (12, 10, 12)])  # H^-1 applied per resample; per deal
def test_one_step_intervals_cover_the_truth(bots, deals, runs):
    """The one-step bootstrap, forced on small pools of deal-correlated boards (where it is
    furthest from the refits), still covers each bot's true distance from the pool mean in at
    least 90% of the runs (the refits: 94% and 90% on these)."""
    true = {f"b{i:02d}": 400 * i / (bots - 1) for i in range(bots)}
    mean = sum(true.values()) / len(true)
    covered = total = 0
    for run in range(runs):
        rated = bradley_terry(deal_correlated(true, deals, random.Random(run)), list(true), bootstrap=200, seed=run,
                              bootstrap_method="one-step")
        centre = sum(r.elo for r in rated) / len(rated)
        total += len(rated)
        covered += sum(r.ci_low <= true[r.bot] - mean + centre <= r.ci_high for r in rated)
    assert covered / total >= 0.90, (covered, total)


@pytest.mark.parametrize("bots, deals, spread", [(16, 60, 400), (20, 20, 300)])
def test_one_step_agrees_with_refits(bots, deals, spread):
    """On pools of moderate size the one-step's interval ends lie within an eighth of the
    interval's width of the refits' (a sixteenth on average), its LOS within 0.03, and resample by
    resample its move from the full fit is the refit's give or take a fifth: the same draws,
    fitted two ways."""
    true = {f"b{i:02d}": spread * i / (bots - 1) for i in range(bots)}
    results = deal_correlated(true, deals, random.Random(7), rho=0.5)
    refit, step = (by_bot(bradley_terry(results, list(true), bootstrap=200, seed=1, bootstrap_method=method))
                   for method in ("refit", "one-step"))
    gaps = [max(abs(refit[b].ci_low - step[b].ci_low), abs(refit[b].ci_high - step[b].ci_high)) for b in true]
    widths = [refit[b].ci_high - refit[b].ci_low for b in true]
    assert max(g / w for g, w in zip(gaps, widths)) < 0.125, (gaps, widths)
    assert sum(gaps) < sum(widths) / 16, (gaps, widths)
    assert all(abs(refit[b].los_next - step[b].los_next) < 0.03 for b in true if refit[b].los_next is not None)
    assert all(refit[b].elo == step[b].elo for b in true)  # the headline is the same fit
    pools = [Pool(results, list(true), bootstrap_method=method) for method in ("refit", "one-step")]
    exact, approx = (p.samples(3, 0, 40) for p in pools)
    headline = {r.bot: r.elo for r in pools[0].ratings(bootstrap=0)}
    moves = [[x - headline[b] for x, b in zip(s, pools[0].bots)] for s in exact]
    misses = [[x - y for x, y in zip(s, t)] for s, t in zip(exact, approx)]
    assert sum(x * x for s in misses for x in s) < 0.04 * sum(x * x for s in moves for x in s)


def test_a_one_step_bootstrap_shared_between_processes_is_the_whole_one():
    """Shards and cluster workers each make a stretch: joined, the one-step fits are those of one
    process, bit for bit, with or without deals."""
    true = {f"b{i:02d}": 25.0 * i for i in range(30)}
    by_deal = deal_correlated(true, 6, random.Random(2))
    by_board = [BoardResult(r.team_a, r.team_b, r.score) for r in by_deal[:400]]
    for results in (by_deal, by_board):
        whole = bootstrap_samples(results, list(true), seed=4, stop=30)
        pieces = [bootstrap_samples(results, list(true), seed=4, start=a, stop=b) for a, b in ((0, 11), (11, 30))]
        assert pieces[0] + pieces[1] == whole and len(whole) == 30
        assert Pool(results, list(true)).bootstrap_method == "one-step"
        assert whole != bootstrap_samples(results, list(true), seed=5, stop=30)
