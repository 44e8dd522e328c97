"""What a tournament run reports as it goes, for whoever shows it: the runner calls these and
draws nothing itself (the terminal's drawing is arena.cli.progress's). A run, local, sharded or
on a cluster, and each round of a Swiss one, calls `on_start` once, `on_stored` for every
room's boards as this process stores them (one board as a room plays, a room's boards from a
cluster), and `on_end` when every room is stored; an interrupted run stops without `on_end`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from arena.play.room import Room


class Progress(Protocol):
    def on_start(self, tables_total: int, done: set[tuple[int, int, int]], todo: Sequence[Room],
                 rooms: int) -> None:
        """The run has `tables_total` tables in all (`rooms` to a board), `done` stored already
        (match, board, room of each) and `todo` to play."""

    def on_stored(self, room: Room, boards: Sequence[int], records: Sequence[dict]) -> None:
        """`room`'s `boards` are stored, with their `records` (each a table's result: its deals,
        its seats' think time, its forfeit, None when no seat faulted)."""

    def on_end(self) -> None:
        """Every room is stored (and the ratings, where the run rates)."""


class Silent:
    """A `Progress` that shows nothing: what a run reports to when no one is looking."""

    def on_start(self, tables_total: int, done: set[tuple[int, int, int]], todo: Sequence[Room],
                 rooms: int) -> None:
        pass

    def on_stored(self, room: Room, boards: Sequence[int], records: Sequence[dict]) -> None:
        pass

    def on_end(self) -> None:
        pass
