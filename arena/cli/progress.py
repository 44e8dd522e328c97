"""The terminal's view of a tournament run: the runner reports to an
arena.tournaments.progress.Progress, and `Progress` here shows it. On a terminal rich draws a
bar (boards stored of all, deals per second, time elapsed, ETA, faults so far) that redraws in
place, with the interim standings printed above it; to a log or a pipe it writes a plain line
every tenth of the way and the last one once. `SprtLines` shows an SPRT test the same way: its
LLR after each board redrawn in place on a terminal, a line per board in a log.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from arena.errors import visible
from arena.play.room import Room

if TYPE_CHECKING:  # rich is imported where it draws: a log, a pipe or --quiet never loads it
    from rich.console import Console
    from rich.live import Live
    from rich.progress import Progress as Bar


@dataclass
class Progress:
    """Boards stored, deals per second, ETA and faults: a rich bar on a terminal, a plain line
    every tenth of the way when the output is a log. It moves with every board stored (a room
    stores each board as it ends). Every `report_every` boards, the text `report()` returns (the
    interim standings) is printed above it. Speed and ETA count only what this run played, so
    they are right after a resume. `close()` takes the bar down (a run interrupted, which
    reports no end).

    The ETA allows for each match's pace: a board's time is predicted from its four seats (each
    bot's think time per board, measured on the boards it played here, plus the arena's own time
    per board), summed over the rooms still to play, and divided by the rate at which this run
    gets through predicted time (which takes in how many tables play at once). Until a bot still
    to play has played here, its think time is taken as the mean of the bots seen, and the ETA
    says how many it has not seen yet."""

    tables_total: int = 0
    tables_done: int = 0
    deals: int = 0
    faults: int = 0
    out: Any = None  # default: stderr
    width: int | None = None  # columns (default: the terminal's; a log's line: 100)
    report_every: int = 0  # boards between interim reports; 0: none
    report: Callable[[], str] | None = None
    started: float = field(default_factory=time.monotonic)
    _start_done: int = 0
    _last_decile: int = -1
    _last_done: int = -1
    _last_report: int = 0
    _left: dict[tuple[int, int], tuple[tuple[int, ...], int]] = field(default_factory=dict)  # room: seats, boards left
    _think: dict[int, list[float]] = field(default_factory=dict)  # bot id: [seconds thought, seat-boards]
    _spent: list[float] = field(default_factory=lambda: [0.0, 0.0, 0])  # boards' seconds, their think, boards
    _halves: dict[tuple[int, int], int] | None = None  # (match, board): its tables stored, when known
    _complete: int = 0  # boards with every room's table stored (with _halves)
    rooms: int = 2  # tables per board: a match's rooms
    _bar: Bar | None = None  # rich's, while it draws
    _task: Any = None

    def begin(self, tables_total: int, tables_done: int, todo: Sequence[Room] = (),
              done: set[tuple[int, int, int]] | None = None, rooms: int = 2) -> None:
        """The run starts with `tables_done` of `tables_total` stored already and `todo` to play.
        With `done` (match, board, room of each stored table) a board counts as stored once
        all its `rooms` tables are, as the standings count it; else a share of a board per table."""
        self.rooms = rooms
        self.tables_total, self.tables_done, self._start_done = tables_total, tables_done, tables_done
        self._left = {(r.match_no, r.swapped): (tuple(r.seats), len(r.boards)) for r in todo}
        if done is not None:
            self._halves, self._complete = {}, 0
            for match_no, board_no, _ in done:
                self._half(match_no, board_no)
        self.started = time.monotonic()
        if self.report_every:
            self._last_report = self.boards_done // self.report_every

    @property
    def boards_done(self) -> int:
        return self._complete if self._halves is not None else self.tables_done // self.rooms

    def _half(self, match_no: int, board_no: int) -> None:
        assert self._halves is not None
        self._halves[match_no, board_no] = self._halves.get((match_no, board_no), 0) + 1
        self._complete += self._halves[match_no, board_no] == self.rooms

    def update(self, tables: int, deals: int, faults: int, room: Room | None = None,
               records: Sequence[dict] = (), boards: Sequence[int] = ()) -> None:
        """`tables` more stored (with `room`, its `records` and their `boards`: what the ETA
        learns its pace from, and which boards now have both tables)."""
        self.tables_done += tables
        self.deals += deals
        self.faults += faults
        if room is not None:
            self._learn(room, records)
            if self._halves is not None:
                for board_no in boards:
                    self._half(room.match_no, board_no)
        if self.report_every and self.report is not None and self.boards_done < self.tables_total // self.rooms:
            step = self.boards_done // self.report_every
            if step > self._last_report:
                self._last_report = step
                self._print_above(self.report())
        self.show()

    def _learn(self, room: Room, records: Sequence[dict]) -> None:
        key = (room.match_no, room.swapped)
        if key in self._left:
            seats, left = self._left[key]
            self._left[key] = (seats, max(0, left - len(records)))
        for record in records:
            thought = 0.0
            for seat in record["seats"]:
                bot = room.seats[seat["seat"]]
                seconds = float(seat.get("think_ms_total", 0.0)) / 1000
                mine = self._think.setdefault(bot, [0.0, 0])
                mine[0] += seconds
                mine[1] += 1
                thought += seconds
            self._spent[0] += float(record.get("duration_s", 0.0))
            self._spent[1] += thought
            self._spent[2] += 1

    def eta(self) -> str:
        """The time left as text: `--:--` until this run has stored a board."""
        elapsed = max(time.monotonic() - self.started, 1e-9)
        here = self.tables_done - self._start_done
        if here <= 0:
            return "--:--"
        left = self.tables_total - self.tables_done
        if not self._spent[2] or not self._left or self._spent[0] <= 0:
            return _clock(elapsed / here * left)  # no pace to go by: this run's mean rate
        per_bot = {bot: thought / boards for bot, (thought, boards) in self._think.items() if boards}
        mean = sum(per_bot.values()) / len(per_bot) if per_bot else 0.0
        overhead = max(0.0, (self._spent[0] - self._spent[1]) / self._spent[2])
        unseen: set[int] = set()
        work = 0.0
        for seats, boards in self._left.values():
            if boards:
                unseen.update(b for b in seats if b not in per_bot)
                work += boards * (overhead + sum(per_bot.get(b, mean) for b in seats))
        rate = self._spent[0] / elapsed  # predicted seconds this run gets through per second
        text = _clock(work / rate)
        return text if not unseen else f"~{text} ({len(unseen)} bot{'s' * (len(unseen) > 1)} not seen yet)"

    def line(self, width: int = 80) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        text = (f" {self.boards_done}/{self.tables_total // self.rooms} boards stored  {self.deals / elapsed:.1f} deals/s"
                f"  ETA {self.eta()}  faults {self.faults}")
        bar = min(24, width - 1 - len(text) - 2)
        if bar >= 4:
            filled = bar * self.tables_done // max(self.tables_total, 1)
            text = f"[{'#' * filled}{'.' * (bar - filled)}]" + text
        else:
            text = text.lstrip()
        return text[: max(width - 1, 1)]


    # -- what the runner reports (arena.tournaments.progress.Progress) --------------------------

    def on_start(self, tables_total: int, done: set[tuple[int, int, int]], todo: Sequence[Room],
                 rooms: int) -> None:
        self.begin(tables_total, len(done), todo, done, rooms)
        if self._tty():
            from rich.console import Console
            from rich.progress import BarColumn, TextColumn, TimeElapsedColumn
            from rich.progress import Progress as Bar

            self.close()  # a Swiss run's round before
            console = Console(file=self._out(), width=self.width, highlight=False)
            # the bar gives way on a narrow terminal: the words take some 60 columns
            self._bar = Bar(BarColumn(bar_width=max(5, min(24, console.width - 64))), TextColumn("{task.fields[text]}"),
                            TimeElapsedColumn(), TextColumn("ETA {task.fields[eta]}  faults {task.fields[faults]}"),
                            console=console, redirect_stdout=False, refresh_per_second=4)
            self._task = self._bar.add_task("", total=max(self.tables_total, 1), **self._fields())
            self._bar.start()

    def on_stored(self, room: Room, boards: Sequence[int], records: Sequence[dict]) -> None:
        self.update(len(records), sum(len(r["deals"]) for r in records),
                    sum(r["forfeit"] is not None for r in records), room, records, boards)

    def on_end(self) -> None:
        self.show(final=True)

    def close(self) -> None:
        """Take the bar down as it stands, the cursor back (an interrupted run)."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None

    # -- drawing -----------------------------------------------------------------------------------

    def _out(self) -> Any:
        return self.out if self.out is not None else sys.stderr

    def _tty(self) -> bool:
        isatty = getattr(self._out(), "isatty", None)
        return bool(isatty and isatty())

    def _fields(self) -> dict[str, Any]:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        return {"text": f"{self.boards_done}/{self.tables_total // self.rooms} boards stored  "
                        f"{self.deals / elapsed:.1f} deals/s", "eta": self.eta(), "faults": self.faults}

    def _print_above(self, text: str) -> None:
        text = visible(text.rstrip("\n"), newlines=True)
        if self._bar is not None:
            self._bar.console.print(text, markup=False, highlight=False, soft_wrap=True)
        else:
            out = self._out()
            out.write(text + "\n")
            out.flush()

    def show(self, final: bool = False) -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=self.tables_done, **self._fields())
            if final:
                self.close()
            return
        out = self._out()  # a log: a line per tenth of the way, and the last one once
        decile = 10 * self.boards_done // max(self.tables_total // self.rooms, 1)
        if decile != self._last_decile or (final and self.boards_done != self._last_done):
            self._last_decile, self._last_done = decile, self.boards_done
            out.write(self.line(self.width or 100) + "\n")
        out.flush()


class SprtLines:
    """An SPRT test's lines (arena.tournaments.progress.SprtProgress): each kept; the LLR after
    each board replacing the one before on a terminal (rich), a line per board in a log.
    `close()` takes the live line down as it stands (an interrupted test)."""

    def __init__(self, out: Any = None) -> None:
        self.out = out if out is not None else sys.stdout
        isatty = getattr(self.out, "isatty", None)
        self._console: Console | None = None
        if isatty and isatty():
            from rich.console import Console

            self._console = Console(file=self.out, highlight=False)
        self._live: Live | None = None

    def on_line(self, text: str) -> None:
        text = visible(text, newlines=True)
        if self._console is not None:
            self._console.print(text, markup=False, highlight=False, soft_wrap=True)  # above the live line
        else:
            self.out.write(text + "\n")
            self.out.flush()

    def on_board(self, text: str) -> None:
        if self._console is None:
            self.on_line(text)
            return
        from rich.live import Live
        from rich.text import Text

        if self._live is None:
            self._live = Live(Text(text), console=self._console, auto_refresh=False, redirect_stdout=False)
            self._live.start(refresh=True)
        else:
            self._live.update(Text(text), refresh=True)

    def on_end(self) -> None:
        self.close()

    def close(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None


def _clock(seconds: float) -> str:
    s = int(seconds + 0.5)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}" if s >= 3600 else f"{s // 60}:{s % 60:02d}"
