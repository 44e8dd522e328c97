"""The schedule: which matches a tournament plays and which of their rooms are left.

Pure functions of the bots and settings: the same bots, partners and gauntlet give the same
matches in the same order, which is what makes a resumed run play exactly what is missing.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from arena.errors import ArenaError
from arena.play.room import GamePlan, Job, Room, RoomPlan, board_seed, play_rooms  # noqa: F401  (plans: also as tournament.*)
from arena.results import write


def pairings(bot_ids: Sequence[int], partners: str, gauntlet: int | None = None) -> list[tuple[list[int], list[int]]]:
    """Matches as (team A seat-bots, team B seat-bots).

    clone: every pair of bots, each side two instances of one bot. mixed: for each group of four
    bots, all three ways to pair them. With a gauntlet bot, only pairings that include it.
    """
    if partners == "clone":
        if len(bot_ids) < 2:
            raise ArenaError("a tournament needs at least two bots")
        pairs = [(a, b) for a, b in itertools.combinations(bot_ids, 2)]
        if gauntlet is not None:
            pairs = [(a, b) if a == gauntlet else (b, a) for a, b in pairs if gauntlet in (a, b)]
        return [([a, a], [b, b]) for a, b in pairs]
    if len(bot_ids) < 4:
        raise ArenaError("--partners mixed needs at least four bots")
    matches = []
    for a, b, c, d in itertools.combinations(bot_ids, 4):
        for team, other in (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c))):
            if gauntlet is None or gauntlet in team or gauntlet in other:
                if gauntlet in other:
                    team, other = other, team
                matches.append((list(team), list(other)))
    return matches


def rooms(matches: Sequence[tuple[list[int], list[int]]], boards: int, players: int,
          done: set[tuple[int, int, bool]] = frozenset()) -> list[Room]:
    """Every room with boards left to play, in canonical order (match, straight room first)."""
    if players != 4:
        raise ArenaError("tournaments are played 2 v 2: the variant must have 4 players")
    found = []
    for match_no, (team_a, team_b) in enumerate(matches, start=1):
        for swapped in (False, True):
            todo = tuple(b for b in range(boards) if (match_no, b, swapped) not in done)
            if todo:
                found.append(Room(match_no, swapped, tuple(write.seat_bots(team_a, team_b, swapped)), todo))
    return found
