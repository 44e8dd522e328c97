"""What a tournament run reports as it goes, for whoever shows it: the runner calls these and
draws nothing itself (the terminal's drawing is arena.cli.progress's). A run, local, sharded or
on a cluster, and each round of a Swiss one, calls `on_start` once, `on_stored` for every
room's boards as this process stores them (one board as a room plays, a room's boards from a
cluster), and `on_end` when every room is stored; an interrupted run stops without `on_end`.
An SPRT test (arena.tournaments.sprt) reports to a `SprtProgress`: its lines, and its LLR after
every board.
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


class SprtProgress(Protocol):
    def on_line(self, text: str) -> None:
        """A line to keep (what is tested, a resume, a verdict already reached)."""

    def on_board(self, text: str) -> None:
        """The test after one more board (its LLR and bounds); the next one replaces it."""

    def on_end(self) -> None:
        """The test has decided, or stopped."""


class Silent:
    """A `Progress` and a `SprtProgress` that show nothing: what a run or a test reports to
    when no one is looking."""

    def on_start(self, tables_total: int, done: set[tuple[int, int, int]], todo: Sequence[Room],
                 rooms: int) -> None:
        pass

    def on_stored(self, room: Room, boards: Sequence[int], records: Sequence[dict]) -> None:
        pass

    def on_end(self) -> None:
        pass

    def on_line(self, text: str) -> None:
        pass

    def on_board(self, text: str) -> None:
        pass
