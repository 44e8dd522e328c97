"""The SPRT on board pairs: its bounds and LLR, and seeded simulations of whole tests."""

from __future__ import annotations

import bisect
import math
import random

import pytest

from arena.results.sprt import (
    SPRT,
    board_score,
    estimate,
    pentanomial,
    room_elo_to_score,
    room_score,
)

EQUAL = (0.15, 0.05, 0.6, 0.05, 0.15)
"""Board scores 0 .. 2 between equal bots: a win and a loss (one deal's luck each way) is common."""


def boards_at(elo: float, base=EQUAL) -> list[float]:
    """The five-outcome distribution whose mean is a room Elo of `elo`: `base` exponentially
    tilted, so its mean is exact."""
    target, x = room_elo_to_score(elo), [k / 4 for k in range(5)]
    lo, hi = -60.0, 60.0
    for _ in range(200):
        t = (lo + hi) / 2
        w = [b * math.exp(t * xk) for b, xk in zip(base, x)]
        lo, hi = (t, hi) if sum(wk * xk for wk, xk in zip(w, x)) / sum(w) < target else (lo, t)
    return [wk / sum(w) for wk in w]


def run(test: SPRT, elo: float, rng: random.Random, limit: int = 20_000) -> tuple[str | None, int]:
    """One whole test: boards drawn until it decides; its verdict and the boards it took."""
    cumulative, acc = [], 0.0
    for q in boards_at(elo):
        acc += q
        cumulative.append(acc)
    counts = [0] * 5
    for n in range(1, limit + 1):
        counts[min(bisect.bisect_right(cumulative, rng.random()), 4)] += 1
        verdict = test.status(counts)
        if verdict:
            return verdict, n
    return None, limit


def test_bounds_and_validation():
    test = SPRT(0, 10, 0.05, 0.1)
    assert test.bounds == (pytest.approx(math.log(0.1 / 0.95)), pytest.approx(math.log(0.9 / 0.05)))
    assert SPRT().bounds == (pytest.approx(-2.944439), pytest.approx(2.944439))
    for bad in ({"elo0": 5, "elo1": 5}, {"alpha": 0}, {"beta": 1}, {"alpha": 0.6, "beta": 0.5}):
        with pytest.raises(ValueError):
            SPRT(**bad)
    with pytest.raises(ValueError, match="five numbers"):
        test.llr([1, 2, 3])
    with pytest.raises(ValueError, match="five numbers"):
        test.llr([1, 2, 3, -1, 0])


def test_board_scores_and_counts():
    assert [room_score(m) for m in (12, 0, -3)] == [1.0, 0.5, 0.0]
    assert board_score([1.0, 0.5]) == 1.5 and board_score([0.0, 1.0]) == 1.0
    with pytest.raises(ValueError):
        board_score([1.0])
    assert pentanomial([2, 1, 1, 0.5, 0, 1.5, 2]) == (1, 1, 2, 1, 2)
    with pytest.raises(ValueError):
        pentanomial([0.25])


def test_llr_reads_the_evidence():
    test = SPRT(0, 10)
    assert test.llr([0] * 5) == 0.0 and test.status([0] * 5) is None
    counts = [30, 20, 100, 25, 40]
    # mirrored boards under mirrored hypotheses give the opposite evidence
    assert SPRT(-10, 0).llr(counts[::-1]) == pytest.approx(-test.llr(counts), rel=1e-9)
    # a large sample agrees with the normal approximation N (s1 - s0)(2m - s0 - s1) / (2 var)
    big = [c * 40 for c in counts]
    n, x = sum(big), [k / 4 for k in range(5)]
    m = sum(c * xk for c, xk in zip(big, x)) / n
    var = sum(c * (xk - m) ** 2 for c, xk in zip(big, x)) / n
    s0, s1 = room_elo_to_score(0), room_elo_to_score(10)
    assert test.llr(big) == pytest.approx(n * (s1 - s0) * (2 * m - s0 - s1) / (2 * var), rel=0.02)
    # more won boards, more evidence for H1
    assert test.llr([30, 20, 100, 25, 41]) > test.llr(counts) > test.llr([31, 20, 100, 25, 40])


def test_a_sweep_and_a_mirror_take_about_a_hundred_boards_at_ten_elo():
    """Every board won (greedy against random) only says the bot is better, not by how much:
    the likeliest H0 world is half 2s and half 0s, so each board adds log(s1 / s0), and H1 comes
    at 104 boards; a deterministic bot against itself scores 1 every board and meets H0 as fast."""
    test = SPRT(0, 10)
    assert test.status([0, 0, 0, 0, 103]) is None and test.status([0, 0, 0, 0, 104]) == "H1"
    assert test.llr([0, 0, 0, 0, 103]) == pytest.approx(103 * math.log(room_elo_to_score(10) / 0.5), rel=1e-4)
    assert test.status([0, 0, 101, 0, 0]) is None and test.status([0, 0, 102, 0, 0]) == "H0"


def test_error_rates_are_near_alpha_and_beta():
    """300 seeded tests at each hypothesis: wrong verdicts near alpha and beta (Wald's bounds
    overshoot a little, so a little under), every test decided."""
    test = SPRT(0, 50, 0.05, 0.05)
    for true, wrong in ((0.0, "H1"), (50.0, "H0")):
        verdicts = [run(test, true, random.Random(7 + 1000 * i))[0] for i in range(300)]
        assert None not in verdicts
        rate = verdicts.count(wrong) / len(verdicts)
        assert 0.02 <= rate <= 0.075, (true, rate)


def test_a_strong_bot_passes_quickly_and_an_equal_one_fails():
    test = SPRT(0, 10)
    strong = [run(test, 300.0, random.Random(i)) for i in range(20)]
    assert all(v == "H1" for v, _ in strong) and max(n for _, n in strong) <= 150, strong
    equal = [run(SPRT(0, 50), 0.0, random.Random(i)) for i in range(40)]
    assert sum(v == "H0" for v, _ in equal) >= 36


def test_estimate():
    elo, low, high = estimate([30, 20, 100, 25, 40])
    mean = (20 * 0.25 + 100 * 0.5 + 25 * 0.75 + 40) / 215
    assert elo == pytest.approx(-400 * math.log10(1 / mean - 1)) and low < elo < high
    assert estimate([0] * 5) == (0.0, -math.inf, math.inf)
    assert estimate([0, 0, 0, 0, 5])[0] == math.inf


def test_a_record_all_at_one_end_has_a_finite_bound_and_no_zero_width_interval():
    """Every board won: no variance seen, so Wilson's interval: a share above n / (n + z^2), and
    no estimate (+inf). JSON gets None for the open end and the estimate, the bound as more_than;
    the terminal says `> X`."""
    from arena.cli.sprt import elo_text
    from arena.tournaments.sprt import elo_with_interval

    for n in (1, 10, 100):
        elo, low, high = estimate([0, 0, 0, 0, n])
        share = n / (n + 1.959963984540054 ** 2)
        assert (elo, high) == (math.inf, math.inf) and low == pytest.approx(-400 * math.log10(1 / share - 1))
        assert estimate([n, 0, 0, 0, 0]) == pytest.approx((-math.inf, -math.inf, -low))
        assert elo_with_interval([0, 0, 0, 0, n]) == {"elo": None, "low": low, "high": None, "more_than": low,
                                                      "less_than": None}
        assert elo_text([0, 0, 0, 0, n]) == f"> {low:+.1f}" and elo_text([n, 0, 0, 0, 0]) == f"< {-low:+.1f}"
    assert estimate([0, 0, 0, 0, 10])[1] > estimate([0, 0, 0, 0, 1])[1]  # more boards, a higher bound
    elo, low, high = estimate([0, 0, 4, 0, 0])  # every board 1 of 2: an interval around 0, not a point
    assert low < elo == 0 < high
    assert elo_with_interval([0, 1, 2, 3, 4])["more_than"] is None


def test_an_interval_always_holds_its_estimate():
    for counts in ([0, 0, 0, 0, 3], [0, 0, 0, 1, 7], [1, 0, 0, 0, 9], [3, 1, 4, 1, 5], [0, 0, 1, 0, 0]):
        elo, low, high = estimate(counts)
        assert low <= elo <= high, counts
