"""Each page's data as plain JSON-able dicts, named by a key the server and the static site share:

    tournaments             the list
    t/ID                    a tournament: settings, progress, standings, crosstable, Elo history,
                            matches, latest boards
    t/ID/bot/BOT_ID         a bot in a tournament: its row, opponents, matches, faults, what it said
    t/ID/match/N            a match board by board, with its deal ids
    t/ID/live/N/ROOM        a table being played now (ROOM: straight, swapped, room2, ...), its public view
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
from arena.report import views
from arena.report.frames import deal_page
from arena.results import live, present, read, sprt, sprt_tests, web_queries

Z95 = 1.959964


def _brief(t: dict) -> dict[str, Any]:
    """A tournament without its bots: what every page's header shows."""
    return {
        "id": t["id"], "name": t["name"], "status": t["status"], "seed": str(t["seed"]),
        "variant": t["variant"], "variant_text": _variant_text(t["variant"], t.get("game")), "format": t["format"], "partners": t["partners"], "boards": t["boards"],
        "settings": t["settings"], "created": t["created"], "started": t["started"], "finished": t["finished"],
        "matches": t["matches"], "boards_done": t["boards_done"], "boards_total": t["boards_total"],
        "tables_done": t["tables_done"], "bots": len(t["bots"]),
        "game": game_name(t), "seating": t["seating"], "partnerships": t["partnerships"],
        "rooms": _rooms(t["variant"], t.get("game")),
    }


def game_name(t: dict) -> str:
    """The tournament's game by name (a tournament stored before games were named: its variant's)."""
    try:
        return games.load(t["variant"], t.get("game"))[0].info.name
    except games.GameError:
        return str(t.get("game") or "?")


def _rooms(variant: dict, game: str | None) -> int:
    """Rooms a board is played in: one for each side (two teams: straight and swapped; k
    entrants: k), which the progress counts a board's tables by."""
    try:
        g, v = games.load(variant, game)
        return g.layout(v).num_sides
    except games.GameError:
        return 2


def room_number(label: str) -> int:
    """A room's number from its name (arena.play.live.room_label: straight, swapped, room2, ...)."""
    return {"straight": 0, "swapped": 1}[label] if label in ("straight", "swapped") else int(label[len("room"):])


def _room_of(view: dict) -> int:
    """A published table's room (`room_no`; a view without it: its `swapped`)."""
    return int(view.get("room_no", int(bool(view.get("swapped")))))


def _variant_text(variant: dict, game: str | None = None) -> str:
    """The variant as the CLI names it: the preset and only the options that differ from it."""
    try:
        return str(games.load(variant, game)[1])
    except games.GameError:
        return str(variant.get("preset", "?"))


def tournaments(db: sqlite_utils.Database, r: Reads | None = None, only: int | None = None) -> dict[str, Any]:
    """Every tournament (or the one of id `only`) with its leader (rank 1 of its standings, as
    `arena standings` gives it)."""
    r = r if r is not None else Reads(db)
    out = []
    for t in read.list_tournaments(db):
        if only is not None and t["id"] != only:
            continue
        top = None
        if t["boards_done"]:  # the stored ratings' top when they are up to date, else the standings'
            top = web_queries.leader(db, t["id"]) or next((x for x in r.standings(t["id"]) if x["rank"] == 1), None)
        out.append({**_brief(t), "leader": None if top is None else {"bot": top["bot"], "elo": present.elo(top["elo"])}})
    return {"tournaments": out}


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

    def document(self, tid: int) -> dict:
        """The standings document (without its boards), as `arena standings` reads it."""
        return self._once(("document", tid), lambda: read.standings_document(self.db, tid, boards=False))

    def live(self, tid: int) -> list[dict]:
        return self._once(("live", tid), lambda: live.tables(self.db, tid))

    def progress(self, tid: int) -> dict[int, dict]:
        return self._once(("progress", tid), lambda: web_queries.match_progress(self.db, tid))

    def standings(self, tid: int) -> list[dict]:
        return self.document(tid)["standings"]

    def standings_table(self, tid: int) -> dict:
        """The standings as the terminal prints them, cell for cell (`present.table`)."""
        return self._once(("table", tid), lambda: present.table(self.document(tid)))

    def crosstable(self, tid: int) -> dict:
        def make() -> dict:
            ct = read.crosstable(self.db, tid, rows=self.standings(tid))
            for row in ct["rows"]:
                row["results"] = {other: score_interval(c) for other, c in row["results"].items()}
            return ct

        return self._once(("crosstable", tid), make)


def _matches(r: Reads, tid: int, bot: str | None = None) -> list[dict]:
    """The matches with what is stored of each: `tables_done`, `boards_started` (a room in),
    `latest_deal`, and `playing`: started and not finished in a tournament that runs now."""
    running = r.tournament(tid)["status"] == "running"
    progress = r.progress(tid)
    watched = {(v["match_no"], _room_of(v)) for v in r.live(tid)} if running else set()
    out = []
    for m in read.matches(r.db, tid, bot=bot):
        p = progress.get(m["match_no"], {"tables_done": 0, "boards_started": 0, "latest_deal": None})
        rooms = sorted(room for match_no, room in watched if match_no == m["match_no"])
        playing = running and m["boards_done"] < m["boards"] and (p["tables_done"] > 0 or bool(rooms))
        out.append({**m, **p, "playing": playing, "live_rooms": rooms})
    return out


SPRT_POINTS = 300
"""Points of an SPRT's LLR chart at most (the LLR at evenly spaced numbers of boards)."""


def sprt_page(db: sqlite_utils.Database, t: dict) -> dict[str, Any] | None:
    """What an SPRT's page shows beyond a tournament's (fishtest's view): the hypotheses, error
    rates and bounds, the LLR over the boards (at most SPRT_POINTS points, the last one now), the
    pentanomial counts, the verdict (running, H0, H1, limit, faults, or stopped: a run that ended
    without one), how many tables ended in a fault and whose (`faults`, and as the terminal says
    it, `faults_text`) and NEW's room Elo with its 95% interval. None for a tournament that is no test."""
    test = sprt_tests.get(db, t["id"])
    if test is None:
        return None
    rule = sprt.SPRT(test["elo0"], test["elo1"], test["alpha"], test["beta"])
    scores = sprt_tests.board_scores(db, t["id"])
    n = min(test["boards"], len(scores)) if test["verdict"] else len(scores)  # a verdict: the boards it counted
    marks = sorted({round(k * n / SPRT_POINTS) for k in range(1, SPRT_POINTS + 1)} - {0}) if n else []
    path, counts, done = [[0, 0.0]], [0] * 5, 0
    for m in marks:
        for x in scores[done:m]:
            counts[sprt.SCORES.index(x)] += 1
        done = m
        path.append([m, rule.llr(counts)])
    est, low, high = sprt.estimate(counts)
    verdict = test["verdict"] or ("running" if t["status"] == "running" else "stopped")
    return {
        "new": test["new"], "old": test["old"], "elo0": test["elo0"], "elo1": test["elo1"],
        "alpha": test["alpha"], "beta": test["beta"], "lower": rule.lower, "upper": rule.upper,
        "max_boards": test["max_boards"], "verdict": verdict, "boards": n, "counts": counts,
        "llr": path[-1][1], "path": path, "elo": est, "elo_low": low, "elo_high": high,
        "max_faults": test["max_faults"], "faults": read.fault_tables(db, t["id"]),
        "faults_text": present.fault_line(read.fault_tables(db, t["id"])),
    }


def tournament(r: Reads, tid: int) -> dict[str, Any]:
    db = r.db
    doc = r.document(tid)
    return {
        "game": doc.get("game"), "unit": doc.get("unit"), "entrants": doc.get("entrants"),
        "sprt": sprt_page(db, r.tournament(tid)),
        "tournament": _brief(r.tournament(tid)),
        "standings": r.standings(tid),
        "standings_table": r.standings_table(tid),
        "crosstable": r.crosstable(tid),
        "history": web_queries.history_sampled(db, tid),
        "matches": _matches(r, tid),
        "live": [{"match_no": v.get("match_no"), "swapped": v.get("swapped"), "room": _room_of(v)} for v in r.live(tid)],
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
        "standing_cells": next(x for x in r.standings_table(tid)["rows"] if x["bot_id"] == bot_id),
        "standing_columns": r.standings_table(tid)["columns"],
        "standing_notes": r.standings_table(tid)["notes"],
        "announced": web_queries.announced(db, tid, bot_id),
        "opponents": [{"bot": other, "bot_id": ids[other], **results[other]}
                      for other in ct["bots"] if other in results],
        "matches": _matches(r, tid, bot=label),
        "faults": web_queries.bot_faults(db, tid, bot_id),
        "fault_count": web_queries.fault_count(db, tid, bot_id),
        "history": web_queries.rating_history(db, bot_id),
    }


FULL_TEXTS = ("text", "views")
"""A frame's texts of the whole position and of every seat's view (State.frame may give them,
for the replay viewer), which a table in play never shows: they hold every hand."""


def live_table(r: Reads, tid: int, match_no: int, room: str) -> dict[str, Any]:
    """A table being played now, as its room publishes it (arena.play.live: its public view
    only), with the seats' labels; never cached, since it changes with every move. Found by
    its room's number (a view's `swapped` is true in every room but the first)."""
    t = r.tournament(tid)
    number = room_number(room)
    view = next((v for v in live.tables(r.db, tid) if v.get("match_no") == match_no and _room_of(v) == number), None)
    if view is None:
        raise ArenaError(f"match {match_no}'s {room} room of '{t['name']}' is not being played now")
    labels = web_queries.bot_labels(r.db, tid)
    game = game_name(t)
    view = {k: v for k, v in view.items() if k not in FULL_TEXTS}
    return {"tournament": _brief(t), "table": {**view, "room_no": number, "game": game, "viewer": views.viewer_url(game),
                                                "viewer_style": views.viewer_style_url(game),
                                                "bots": [labels.get(b, str(b)) for b in view["seats"]]}}


def match(r: Reads, tid: int, match_no: int) -> dict[str, Any]:
    db = r.db
    t = r.tournament(tid)
    detail = read.match_detail(db, tid, match_no)
    for b in detail["boards"]:
        b["seed"] = str(b["seed"])
    ids = {label: bot_id for bot_id, label in web_queries.bot_labels(db, tid).items()}
    try:  # each seat's side (a side of several seats scores once for all of them) and what results count
        g, v = games.load(t["variant"], t.get("game"))
        sides, unit = [g.layout(v).side_of(s) for s in range(v.players)], g.info.unit
    except games.GameError:
        sides, unit = None, None
    return {"tournament": _brief(t), "match": detail, "bot_ids": ids, "seat_sides": sides, "unit": unit}


ID = r"(\d{1,18})"  # an id of more digits is no row's (SQLite's integers stop at 2**63)
LIVE = re.compile(rf"t/{ID}/live/{ID}/(straight|swapped|room[2-9]|room[1-9]\d{{1,3}})")
_KEYS = [
    (re.compile(r"tournaments"), lambda r, m: tournaments(r.db, r)),
    (re.compile(rf"t/{ID}"), lambda r, m: tournament(r, int(m[1]))),
    (re.compile(rf"t/{ID}/bot/{ID}"), lambda r, m: bot(r, int(m[1]), int(m[2]))),
    (re.compile(rf"t/{ID}/match/{ID}"), lambda r, m: match(r, int(m[1]), int(m[2]))),
    (re.compile(rf"deal/{ID}"), lambda r, m: deal_page(r.db, int(m[1]))),  # (with its game's `viewer`)
    (LIVE, lambda r, m: live_table(r, int(m[1]), int(m[2]), m[3])),
]


def known(key: str) -> bool:
    """Whether `key` names a page (which may still not exist: an unknown tournament)."""
    return any(pattern.fullmatch(key) for pattern, _ in _KEYS)


def is_live(key: str) -> bool:
    """A table in play: read at each look, never kept."""
    return LIVE.fullmatch(key) is not None


def is_deal(key: str) -> bool:
    """A stored deal: it never changes."""
    return key.startswith("deal/")


class UnknownPage(ArenaError):
    """A key that names no page."""


def page(db: sqlite_utils.Database, key: str, memo: dict | None = None, *,
         show_stderr: bool = False) -> dict[str, Any]:
    """The data of the page `key` names (see the module's docstring); `memo`: see `Reads`.
    A league's database (its authors' stderr is theirs alone, as the league's own pages keep it)
    gives its pages without any bot's stderr unless the organiser asks (`show_stderr`), and
    never with a bot's sha256 (the name of its author's stored copy)."""
    for pattern, build in _KEYS:
        m = pattern.fullmatch(key)
        if m:
            data = build(Reads(db, memo), m)
            if not web_queries.is_league(db):
                return data
            return withhold_stderr(data) if not show_stderr else withhold_copies(data)
    raise UnknownPage(f"no page '{key}'")


def withhold_stderr(data: Any) -> Any:
    """`data` with every bot's stderr left out: each `stderr` None and marked `stderr_private`
    (and what `withhold_copies` leaves out)."""
    if isinstance(data, dict):
        out = {k: withhold_stderr(v) for k, v in data.items()}
        if "stderr" in out:
            out.update(stderr=None, stderr_cut=False, stderr_private=True)
        if "sha256" in out:
            out["sha256"] = None
        return out
    if isinstance(data, list):
        return [withhold_stderr(v) for v in data]
    return data


def withhold_copies(data: Any) -> Any:
    """`data` without the bots' sha256: in a league it names each author's stored copy, which
    only the sandbox's users are told (docs/league.md, Privacy)."""
    if isinstance(data, dict):
        out = {k: withhold_copies(v) for k, v in data.items()}
        if "sha256" in out:
            out["sha256"] = None
        return out
    if isinstance(data, list):
        return [withhold_copies(v) for v in data]
    return data
