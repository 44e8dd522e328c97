"""The schedule: which matches a tournament plays and which of their rooms are left.

Pure functions of the bots and settings: the same bots, partners and gauntlet give the same
matches in the same order, which is what makes a resumed run play exactly what is missing.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence, Set as AbstractSet

import games
from arena.errors import ArenaError
from arena.results.read import two_teams  # noqa: F401  (also as schedule.two_teams)
from arena.play.room import GamePlan, Job, Room, RoomPlan, board_seed, play_rooms  # noqa: F401  (plans: also as tournament.*)


def pairings(bot_ids: Sequence[int], partners: str, gauntlet: int | None = None,
             size: int = 2) -> list[tuple[list[int], list[int]]]:
    """Matches of two sides of `size` seats, as (team A's bots, team B's bots).

    clone: every pair of bots, each side copies of one bot (team A's seats as a list of the
    bot `size` times). mixed: for each group of 2 * `size` bots, every way to split it in two
    teams of different bots (the first bot's team first: for two seats a side, the three ways to
    pair four bots). With a gauntlet bot, only matches that include it, its side first.
    """
    if partners == "clone":
        if len(bot_ids) < 2:
            raise ArenaError("a tournament needs at least two bots")
        pairs = [(a, b) for a, b in itertools.combinations(bot_ids, 2)]
        if gauntlet is not None:
            pairs = [(a, b) if a == gauntlet else (b, a) for a, b in pairs if gauntlet in (a, b)]
        return [([a] * size, [b] * size) for a, b in pairs]
    if len(bot_ids) < 2 * size:
        need = {4: "four", 6: "six", 8: "eight"}.get(2 * size, str(2 * size))
        raise ArenaError(f"--partners mixed needs at least {need} bots")
    matches = []
    for group in itertools.combinations(bot_ids, 2 * size):
        first, rest = group[0], group[1:]
        for partners_of_first in itertools.combinations(rest, size - 1):
            team, other = (first, *partners_of_first), tuple(b for b in rest if b not in partners_of_first)
            if gauntlet is None or gauntlet in team or gauntlet in other:
                if gauntlet in other:
                    team, other = other, team
                matches.append((list(team), list(other)))
    return matches


def mixed_sides(layout: games.Layout) -> int | None:
    """The seats a side where a table can play mixed partners: two sides of equal size, more
    than one seat each (Zwicker's four as 2 v 2, six as 3 v 3); None elsewhere."""
    sizes = {len(side) for side in layout.sides}
    if layout.num_sides != 2 or len(sizes) != 1:
        return None
    size = sizes.pop()
    return size if size > 1 else None


def groups(bot_ids: Sequence[int], size: int, gauntlet: int | None = None) -> list[list[list[int]]]:
    """Matches of `size` entrants, one bot each (a game without partnerships): every group of
    `size` bots, in order; with a gauntlet bot, only the groups that hold it, it first."""
    if len(bot_ids) < size:
        raise ArenaError(f"a table of {size} players needs at least {size} bots, got {len(bot_ids)} "
                         "(--players sets the table's size)")
    found = [list(g) for g in itertools.combinations(bot_ids, size)]
    if gauntlet is not None:
        found = [[gauntlet, *(b for b in g if b != gauntlet)] for g in found if gauntlet in g]
    return [[[b] for b in g] for g in found]


def room_seats(entrants: Sequence[Sequence[int]], layout: games.Layout) -> list[list[int]]:
    """The bot at each seat in each of a match's rooms: room r gives side j to entrant
    (j - r) mod k, so that each holds each side's cards once (as arena.play.match.rotation does
    for `arena play`; two teams: room 0 straight, room 1 swapped), and the i-th seat of a side
    holds the i-th of its entrant's bots, round robin (one bot: all of them; two teams of two:
    `write.seat_bots`)."""
    k = len(entrants)
    if layout.num_sides != k:
        raise ArenaError(f"a match of {k} entrants needs a table of {k} sides, not {layout.num_sides}")
    place = {seat: i for side in layout.sides for i, seat in enumerate(side)}
    return [[(bots := entrants[(layout.side_of(s) - r) % k])[place[s] % len(bots)] for s in range(layout.players)]
            for r in range(k)]


def rooms(matches: Sequence[Sequence[Sequence[int]]], boards: int, layout: games.Layout,
          done: AbstractSet[tuple[int, int, int]] = frozenset()) -> list[Room]:
    """Every room with boards left to play, in canonical order (match, then room 0, 1, ...)."""
    found = []
    for match_no, entrants in enumerate(matches, start=1):
        for room, seats in enumerate(room_seats(entrants, layout)):
            todo = tuple(b for b in range(boards) if (match_no, b, room) not in done)
            if todo:
                found.append(Room(match_no, room, tuple(seats), todo))
    return found
