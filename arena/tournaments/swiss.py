"""Swiss pairings (`arena tournament run --pairing swiss --rounds R`): for many bots, far fewer
matches than a round robin, each round pairing bots of similar score.

Every bot plays one match per round (clone partners: a side is two copies of one bot), against
the nearest bot below it in the order of score that it has not met yet (at a table of k bots
one a seat, Zwicken's, in a group of k drawn so: `draw_groups`); an odd bot out sits the
round out (a bye, which counts as a match won when the next round is drawn), the lowest-ranked
bot that has not had one. A round is drawn only when the rounds before it are stored, from those
results alone (score: boards won, half for a draw; ties broken by a seeded lottery fixed for the
whole tournament), and it is stored before it is played: an interrupted tournament resumes the
round it was in, and draws the same next rounds. The option is `--pairing`, not `--format`,
because `--format` already names what a board is (one deal or one game), stored in its own
column; pairing and board format are independent choices.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import sqlite_utils

import games
from arena.errors import ArenaError
from arena.results import read, write
from arena.tournaments.schedule import two_teams

SEARCH_STEPS = 200_000
"""How far the search for a round without repeat pairings goes before it allows repeats."""


def default_rounds(bots: int) -> int:
    """Enough rounds to order `bots` roughly: log2 of the field, and two more."""
    return max(1, math.ceil(math.log2(max(bots, 2))) + 2)


def lottery(seed: int, bot: int) -> str:
    """A bot's place among equal scores: fixed for the tournament, independent of bot ids' order."""
    return hashlib.sha256(f"{seed}:{bot}".encode()).hexdigest()


def scores(bots: Sequence[int], boards: Sequence[dict], byes: Counter[int], boards_per_match: int) -> dict[int, float]:
    """Swiss score: boards won (draws half) over every stored board; a bye counts as a match won."""
    score = {bot: float(byes[bot] * boards_per_match) for bot in bots}
    for b in boards:
        a, other = b["entrants"][0][0], b["entrants"][1][0]
        got = {"win": 1.0, "draw": 0.5, "loss": 0.0}[b["outcome"]]
        score[a] += got
        score[other] += 1.0 - got
    return score


def draw(bots: Sequence[int], score: dict[int, float], met: Counter[frozenset[int]], byes: Counter[int],
         seed: int) -> tuple[list[tuple[int, int]], int | None]:
    """One round: (pairs, the bot with the bye or None). Higher-ranked bot first in each pair."""
    order = sorted(bots, key=lambda b: (-score[b], lottery(seed, b)))
    bye = None
    if len(order) % 2:
        bye = min(reversed(order), key=lambda b: byes[b])  # the lowest-ranked among the fewest byes
        order.remove(bye)
    for repeats in range(0, len(order)):  # allow as few repeat meetings as will do
        pairs = _pair(order, met, repeats)
        if pairs is not None:
            return pairs, bye
    raise AssertionError("unreachable: any pairing is allowed in the end")


def _pair(order: list[int], met: Counter[frozenset[int]], most: int) -> list[tuple[int, int]] | None:
    """Pair `order` top down, each bot with the nearest one below it that it has met at most
    `most` times before (depth-first, backtracking); None if there is no such pairing (or the
    search gives up)."""
    steps = 0

    def go(left: list[int]) -> list[tuple[int, int]] | None:
        nonlocal steps
        if not left:
            return []
        first, rest = left[0], left[1:]
        for k, other in enumerate(rest):
            steps += 1
            if steps > SEARCH_STEPS:
                return None
            if met[frozenset((first, other))] <= most:
                found = go(rest[:k] + rest[k + 1:])
                if found is not None:
                    return [(first, other), *found]
        return None

    return go(order)


def draw_groups(bots: Sequence[int], size: int, score: dict[int, float], met: Counter[frozenset[int]],
                byes: Counter[int], seed: int) -> tuple[list[list[int]], list[int]]:
    """One round of groups of `size` (a table of one bot a seat, Zwicken's): (groups, the bots
    with a bye). The bots left over (as many as `size` does not divide) sit out, the lowest-ranked
    among the fewest byes; then each group takes the highest-ranked bot left and fills up, in the
    order of score, with the bots that have met its members least often (nearest first)."""
    order = sorted(bots, key=lambda b: (-score[b], lottery(seed, b)))
    out = []
    for _ in range(len(order) % size):
        bye = min(reversed(order), key=lambda b: byes[b])
        order.remove(bye)
        out.append(bye)
    groups = []
    while order:
        group = [order.pop(0)]
        while len(group) < size:
            best = min(range(len(order)), key=lambda i: (sum(met[frozenset((order[i], g))] for g in group), i))
            group.append(order.pop(best))
        groups.append(group)
    return groups, out


def state(db: sqlite_utils.Database, t: dict) -> dict[str, Any]:
    """What the next draw needs, from the stored schedule and results."""
    bots = [b["id"] for b in t["bots"]]
    plan = t["settings"]["pairing"]
    met: Counter[frozenset[int]] = Counter()
    for m in read.schedule(db, t["id"]):
        seats = [e[0] for e in m["entrants"]]
        met.update(frozenset((x, y)) for i, x in enumerate(seats) for y in seats[i + 1:])
    byes: Counter[int] = Counter(b for drawn in plan["byes"] for b in (drawn if isinstance(drawn, list) else [drawn])
                                 if b is not None)
    first = read.schedule(db, t["id"])[0]["entrants"]
    if not read.told_as_teams(db, t["id"]):  # one bot a side: the others beaten on each board, draws half
        size = len(first)
        won = read.entrant_scores(db, t["id"])
        score = {b: byes[b] * (size - 1) * t["boards"] + won.get(b, 0.0) for b in bots}
    else:
        size = 2
        score = scores(bots, read.board_results(db, t["id"]), byes, t["boards"])
    return {"bots": bots, "met": met, "byes": byes, "plan": plan, "score": score, "size": size}


def first_round(bot_ids: Sequence[int], seed: int, alone: bool = False,
                size: int = 2) -> tuple[list[list[list[int]]], int | list[int] | None]:
    """Round 1: every bot at score 0, so the lottery orders them. `alone`: a game of one bot a
    seat (Zwicken: groups of `size`), else two teams of two copies."""
    zero = {b: 0.0 for b in bot_ids}
    if alone and size > 2:
        groups, byes = draw_groups(bot_ids, size, zero, Counter(), Counter(), seed)
        return [[[b] for b in g] for g in groups], byes
    pairs, bye = draw(bot_ids, zero, Counter(), Counter(), seed)
    return _matches(pairs, alone), bye


def _matches(pairs: Sequence[tuple[int, int]], alone: bool) -> list[list[list[int]]]:
    return [[[a], [b]] if alone else [[a, a], [b, b]] for a, b in pairs]


def next_round(db: sqlite_utils.Database, tid: int) -> bool:
    """Draw and store the next round of a Swiss tournament whose rounds so far are all played;
    False when every round is drawn (or the tournament is not Swiss)."""
    t = read.get_tournament(db, tid)
    plan = t["settings"].get("pairing")
    if plan is None or len(plan["drawn"]) >= plan["rounds"]:  # a round robin is drawn whole
        return False
    if t["boards_done"] < t["boards_total"]:
        raise ArenaError(f"tournament '{t['name']}': round {len(plan['drawn'])} is not finished yet")
    s = state(db, t)
    if s["size"] > 2:
        groups, byes = draw_groups(s["bots"], s["size"], s["score"], s["met"], s["byes"], t["seed"])
        write.add_round(db, tid, [[[b] for b in g] for g in groups], byes)
        return True
    pairs, bye = draw(s["bots"], s["score"], s["met"], s["byes"], t["seed"])
    g, v = games.load(t["variant"], t.get("game"))  # two teams, else one entrant a side (as round 1)
    write.add_round(db, tid, _matches(pairs, not two_teams(g.layout(v))), bye)
    return True


def describe(plan: dict) -> str:
    """How the pairings were drawn, for the standings."""
    return (f"pairings: swiss, {len(plan['drawn'])} of {plan['rounds']} rounds drawn (each round pairs bots of "
            "similar score, boards won so far; no repeat pairings where avoidable)")
