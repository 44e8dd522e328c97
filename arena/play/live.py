"""A room's table as a spectator may see it while it plays: its public view in a side file.

A room given a folder (`Job.live`) keeps one file there, `m{match}-{straight|swapped|room2|...}.json`,
rewritten (atomically: a new file renamed over the old, by a writer thread) at most every
EVERY_S seconds while it plays; the file goes when the room ends. The
view holds only what every seat sees: the table's units, how many cards each hand and the stock
hold, the cards taken and Zwicks per side, who is to move and the moves made so far (each
played card is shown when it is played). Never a hand, and never the deal's seed, from which
the hands follow. `arena serve` reads the files (arena.results.web_queries.live_tables) and
draws them as the replay viewer draws a deal.

    {"room": "cup/m3/straight", "match_no": 3, "swapped": false, "room_no": 0, "board_no": 5, "deal": 0,
     "players": 4, "seat_sides": [0, 1, 0, 1], "seats": [bot id, ...], "variant": "jensen",
     "dealer": 1, "to_move": 2, "over": false, "table": [card or {"build": [...], "value": v, "by": seat}],
     "hands": [cards held per seat], "stock": 20, "taken": [cards per side], "zwicks": [...],
     "points": [card and Zwick points taken per side], "moves": [{"seat": s, "text": "9Hx0=9", "move": {...}}],
     "updated": ISO time}
"""

from __future__ import annotations

import datetime
import json
import os
import re
import threading
import time
from pathlib import Path
from typing import Any

import games

EVERY_S = 1.0
"""The least time between two views of a table (a move takes far less): a spectator's page asks
every two seconds, and a loaded disk must not slow the tables (the writes are a thread's)."""


def room_label(room: int) -> str:
    """A room's name: straight and swapped (two sides' two rooms), then room2, room3, ..."""
    return ("straight", "swapped")[room] if room < 2 else f"room{room}"


def room_file(folder: str | os.PathLike[str], match_no: int, swapped: int) -> Path:
    return Path(folder) / f"m{match_no}-{room_label(int(swapped))}.json"


def public_view(game: games.Game, state: games.State, moves: list[dict[str, Any]],
                told: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """What every seat sees of `state` (see the module's docstring), with the moves so far: the
    replay viewer's frame of it, each hand only as its number of cards. `told`: each move as the
    seats were told of it (`State.public_move`, a card passed face down), where it differs from
    the move itself."""
    view = state.frame()
    for private in ("move", "text", "views"):  # a game's whole-position and per-seat texts show hands
        view.pop(private, None)
    if "hands" in view:
        view["hands"] = [len(h) for h in view["hands"]]
    view["moves"] = [{"seat": m["seat"], "text": _text(game, m["move"], public), "move": public}
                     for m, public in zip(moves, told if told is not None else [m["move"] for m in moves])]
    return view


def _text(game: games.Game, move: dict[str, Any], public: dict[str, Any]) -> str:
    return str(game.move_from_dict(move)) if public == move else " ".join(str(v) for v in public.values())


class _Writer:
    """One thread per process that writes the views handed to it, so that a slow disk never holds
    up a table: `put` keeps only the latest view of each file (None: remove the file)."""

    def __init__(self) -> None:
        self._pending: dict[Path, dict[str, Any] | None] = {}
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None

    def put(self, path: Path, view: dict[str, Any] | None) -> None:
        with self._lock:
            self._pending[path] = view
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="arena-live", daemon=True)
                self._thread.start()
        self._wake.set()

    def _run(self) -> None:
        while True:
            self._wake.wait()
            self._wake.clear()
            with self._lock:
                work, self._pending = self._pending, {}
            for path, view in work.items():
                write(path, view)


_WRITER = _Writer()


def write(path: Path, view: dict[str, Any] | None) -> None:
    """Write `view` to `path` atomically (a new file renamed over the old), or remove the file."""
    try:
        if view is None:
            path.unlink(missing_ok=True)
            return
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(json.dumps(view, separators=(",", ":")), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:  # a spectator's view: never a reason to stop a table
        pass


class Watch:
    """Publishes one room's table: called by the table after each move (and at a deal's start);
    `close` when the room ends. `sync`: write at once, in the caller's thread (tests)."""

    def __init__(self, folder: str | os.PathLike[str], room: str, match_no: int, swapped: int,
                 seats: list[int], every_s: float = EVERY_S, sync: bool = False,
                 game: games.Game | None = None, variant: games.Variant | None = None) -> None:
        self.game = game if game is not None else games.game()
        self.variant = variant if variant is not None else self.game.variant(None)
        self.path = room_file(folder, match_no, swapped)
        self.head = {"room": room, "match_no": match_no, "swapped": bool(swapped), "room_no": int(swapped),
                     "seats": list(seats)}
        self.every_s = every_s
        self.sync = sync
        self.last = -float("inf")
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.told: list[dict[str, Any]] = []  # the deal's moves as the seats were told of them
        self.before: games.State | None = None

    def __call__(self, board: str | None, deal: int, state: games.State, moves: list[dict[str, Any]]) -> None:
        """The table after a move (or at a deal's start), published unless the last one was
        less than `every_s` ago."""
        if not moves:
            self.told = []
        elif len(moves) == len(self.told) + 1 and self.before is not None:
            public = getattr(self.before, "public_move", None)
            move = moves[-1]["move"]
            self.told.append(move if public is None else public(self.game.move_from_dict(move)))
        self.before = state
        now = time.monotonic()
        if now - self.last < self.every_s:
            return
        self.last = now
        m = re.search(r"/b(\d+)$", board or "")
        v = self.variant
        layout = self.game.layout(v)
        view = {**self.head, "board_no": int(m[1]) if m else None, "deal": deal, "players": layout.players,
                "seat_sides": [layout.side_of(s) for s in range(layout.players)],
                "variant": str(v), "game": self.game.info.name, "dealer": state.to_dict().get("dealer"),
                **public_view(self.game, state, moves, self.told if len(self.told) == len(moves) else None),
                "updated": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="milliseconds")}
        if self.sync:
            write(self.path, view)
        else:
            _WRITER.put(self.path, view)

    def close(self) -> None:
        if self.sync:
            write(self.path, None)
        else:
            _WRITER.put(self.path, None)
