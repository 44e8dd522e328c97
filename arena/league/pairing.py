"""Whom the ladder pairs next: a pure function of the pool, its ratings and what was played.

1. A bot with fewer than `first` matches (a new version) plays first, the longest waiting
   first, against the active bot it has met least (then the nearest in Elo, then the lowest id).
2. Otherwise the pair whose order is least certain: the chance, read from the two bots'
   intervals as normal errors, that their order is the other way round, times
   1 / sqrt(1 + boards they played / boards per match), so that overlapping intervals and few
   boards between them both ask for a match. A bot without an interval counts as unplaced.
Matches in play count as played, so that the places playing at once go to different pairs.
A game of k entrants a match (one bot a seat, `next_group`) starts from that pair (or the new
bot) and adds, one at a time, the bot whose order against those chosen is least certain.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

Z95 = 1.959964
UNPLACED_SD = 350.0  # Elo: a bot the ratings cannot place yet (about the prior's width)


@dataclass(frozen=True)
class Rated:
    elo: float = 0.0
    low: float | None = None
    high: float | None = None

    @property
    def sd(self) -> float:
        if self.low is None or self.high is None:
            return UNPLACED_SD
        return max((self.high - self.low) / (2 * Z95), 1.0)


def doubt(a: Rated, b: Rated) -> float:
    """Two-sided: the chance the order of `a` and `b` is not what their Elo says (1: a coin)."""
    z = abs(a.elo - b.elo) / math.hypot(a.sd, b.sd)
    return math.erfc(z / math.sqrt(2))


def next_pair(active: Sequence[int], ratings: Mapping[int, Rated], boards_between: Mapping[frozenset, int],
              matches_of: Mapping[int, int], *, boards: int, first: int = 2) -> tuple[int, int] | None:
    """The next match as (a, b) bot ids, or None with fewer than two active bots. `active` is in
    submission order (the longest waiting first)."""
    if len(active) < 2:
        return None
    unrated = Rated()
    new = [bot for bot in active if matches_of.get(bot, 0) < first]
    if new:
        bot = new[0]
        others = [o for o in active if o != bot]
        me = ratings.get(bot, unrated)
        opponent = min(others, key=lambda o: (boards_between.get(frozenset((bot, o)), 0),
                                              abs(ratings.get(o, unrated).elo - me.elo), o))
        return bot, opponent
    best: tuple[float, int, int] | None = None
    for i, a in enumerate(active):
        for b in active[i + 1:]:
            played = boards_between.get(frozenset((a, b)), 0)
            score = doubt(ratings.get(a, unrated), ratings.get(b, unrated)) / math.sqrt(1 + played / boards)
            if best is None or score > best[0] + 1e-12:
                best = (score, a, b)
    assert best is not None
    return best[1], best[2]


def next_group(active: Sequence[int], ratings: Mapping[int, Rated], boards_between: Mapping[frozenset, int],
               matches_of: Mapping[int, int], *, boards: int, first: int = 2, size: int = 2) -> tuple[int, ...] | None:
    """The next match of `size` entrants as bot ids, or None with fewer than `size` active bots:
    `next_pair`'s pair, then each further entrant the one that adds the most doubt (summed over
    the entrants chosen, each pair's weighed by the boards it played as in `next_pair`); a new
    version's group is filled with the bots it met least."""
    if len(active) < size:
        return None
    pair = next_pair(active, ratings, boards_between, matches_of, boards=boards, first=first)
    assert pair is not None
    chosen = list(pair)
    unrated = Rated()
    new = matches_of.get(chosen[0], 0) < first
    while len(chosen) < size:
        def gain(o: int) -> tuple[float, int]:
            if new:  # the bots the new one met least, then the nearest in Elo
                met = sum(boards_between.get(frozenset((c, o)), 0) for c in chosen)
                return -met - abs(ratings.get(o, unrated).elo - ratings.get(chosen[0], unrated).elo) / 1e6, -o
            return sum(doubt(ratings.get(c, unrated), ratings.get(o, unrated))
                       / math.sqrt(1 + boards_between.get(frozenset((c, o)), 0) / boards) for c in chosen), -o
        chosen.append(max((o for o in active if o not in chosen), key=gain))
    return tuple(chosen)
