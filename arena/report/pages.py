"""Each page's data as plain JSON-able dicts, named by a key the server and the static site share:

    tournaments             the list
    t/ID                    a tournament: settings, progress, standings, crosstable, Elo history,
                            matches, latest boards
    t/ID/bot/BOT_ID         a bot in a tournament: its row, opponents, matches, faults, what it said
    t/ID/match/N            a match board by board, with its deal ids
    deal/ID                 a stored deal's frames for the replay viewer

Everything is read through `arena.results`; seeds travel as text (JavaScript numbers stop at
2**53). Bot names, announced names, details and stderr are passed on unchanged: the pages show
them as text.
"""

from __future__ import annotations

import math
import re
from typing import Any

import sqlite_utils

import games

from arena.errors import ArenaError
from arena.report.frames import deal_page
from arena.results import read, web_queries

Z95 = 1.959964


def _brief(t: dict) -> dict[str, Any]:
    """A tournament without its bots: what every page's header shows."""
    return {
        "id": t["id"], "name": t["name"], "status": t["status"], "seed": str(t["seed"]),
        "variant": t["variant"], "variant_text": _variant_text(t["variant"], t.get("game")), "format": t["format"], "partners": t["partners"], "boards": t["boards"],
        "settings": t["settings"], "created": t["created"], "started": t["started"], "finished": t["finished"],
        "matches": t["matches"], "boards_done": t["boards_done"], "boards_total": t["boards_total"],
        "tables_done": t["tables_done"], "bots": len(t["bots"]),
    }


def _variant_text(variant: dict, game: str | None = None) -> str:
    """The variant as the CLI names it: the preset and only the options that differ from it."""
    try:
        return str(games.load(variant, game)[1])
    except games.GameError:
        return str(variant.get("preset", "?"))


def tournaments(db: sqlite_utils.Database) -> dict[str, Any]:
    return {"tournaments": [_brief(t) for t in read.list_tournaments(db)]}


def score_interval(cell: dict) -> dict:
    """A crosstable cell with its score per board (win 1, draw 1/2) and a 95% Wilson interval:
    unlike the normal one it does not shrink to nothing at 4 wins of 4 (a draw counts as half a
    win, so the interval is a little wider than the board scores' own spread would make it)."""
    n = cell["boards"]
    if not n:
        return {**cell, "pct": None, "ci_low": None, "ci_high": None}
    p = (cell["wins"] + cell["draws"] / 2) / n
    z2 = Z95 * Z95
    centre = (p + z2 / (2 * n)) / (1 + z2 / n)
    half = Z95 / (1 + z2 / n) * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n))
    # (at 0 or 1 the bound is the score itself, but for rounding)
    return {**cell, "pct": p, "ci_low": max(0.0, min(p, centre - half)), "ci_high": min(1.0, max(p, centre + half))}


class Reads:
    """The reads of one snapshot, each made once: a tournament's page and its bots' pages share
    the standings and the crosstable (at 20,000 boards each costs most of a second). `memo` may
    be kept by the caller for as long as the data stays the same."""

    def __init__(self, db: sqlite_utils.Database, memo: dict | None = None) -> None:
        self.db = db
        self.memo = memo if memo is not None else {}

    def _once(self, key: tuple, make: Any) -> Any:
        if key not in self.memo:
            self.memo[key] = make()
        return self.memo[key]

    def tournament(self, tid: int) -> dict:
        return self._once(("tournament", tid), lambda: read.get_tournament(self.db, tid))

    def standings(self, tid: int) -> list[dict]:
        return self._once(("standings", tid), lambda: read.standings(self.db, tid))

    def crosstable(self, tid: int) -> dict:
        def make() -> dict:
            ct = read.crosstable(self.db, tid, rows=self.standings(tid))
            for row in ct["rows"]:
                row["results"] = {other: score_interval(c) for other, c in row["results"].items()}
            return ct

        return self._once(("crosstable", tid), make)


def tournament(r: Reads, tid: int) -> dict[str, Any]:
    db = r.db
    return {
        "tournament": _brief(r.tournament(tid)),
        "standings": r.standings(tid),
        "crosstable": r.crosstable(tid),
        "history": web_queries.history_sampled(db, tid),
        "matches": read.matches(db, tid),
        "latest": web_queries.latest_boards(db, tid),
    }


def bot(r: Reads, tid: int, bot_id: int) -> dict[str, Any]:
    db = r.db
    t = r.tournament(tid)
    standings = r.standings(tid)
    row = next((x for x in standings if x["bot_id"] == bot_id), None)
    if row is None:
        raise ArenaError(f"bot {bot_id} did not play in tournament '{t['name']}'")
    label = row["bot"]
    ct = r.crosstable(tid)
    results = next(x["results"] for x in ct["rows"] if x["bot"] == label)
    ids = {x["bot"]: x["bot_id"] for x in standings}
    return {
        "tournament": _brief(t),
        "bot": {**web_queries.bot_row(db, bot_id), "label": label},
        "standing": row,
        "announced": web_queries.announced(db, tid, bot_id),
        "opponents": [{"bot": other, "bot_id": ids[other], **results[other]}
                      for other in ct["bots"] if other in results],
        "matches": read.matches(db, tid, bot=label),
        "faults": web_queries.bot_faults(db, tid, bot_id),
        "fault_count": web_queries.fault_count(db, tid, bot_id),
    }


def match(r: Reads, tid: int, match_no: int) -> dict[str, Any]:
    db = r.db
    t = r.tournament(tid)
    detail = read.match_detail(db, tid, match_no)
    for b in detail["boards"]:
        b["seed"] = str(b["seed"])
    ids = {label: bot_id for bot_id, label in web_queries.bot_labels(db, tid).items()}
    return {"tournament": _brief(t), "match": detail, "bot_ids": ids}


_KEYS = [
    (re.compile(r"tournaments"), lambda r, m: tournaments(r.db)),
    (re.compile(r"t/(\d+)"), lambda r, m: tournament(r, int(m[1]))),
    (re.compile(r"t/(\d+)/bot/(\d+)"), lambda r, m: bot(r, int(m[1]), int(m[2]))),
    (re.compile(r"t/(\d+)/match/(\d+)"), lambda r, m: match(r, int(m[1]), int(m[2]))),
    (re.compile(r"deal/(\d+)"), lambda r, m: deal_page(r.db, int(m[1]))),
]


class UnknownPage(ArenaError):
    """A key that names no page."""


def page(db: sqlite_utils.Database, key: str, memo: dict | None = None) -> dict[str, Any]:
    """The data of the page `key` names (see the module's docstring); `memo`: see `Reads`."""
    for pattern, build in _KEYS:
        m = pattern.fullmatch(key)
        if m:
            return build(Reads(db, memo), m)
    raise UnknownPage(f"no page '{key}'")
