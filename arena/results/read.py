"""Reading results back: the tournaments, their boards, standings, crosstable and deals.

Every listing of the CLI (and later the report) reads through here; nothing here writes.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import sqlite_utils

import games
from arena.errors import ArenaError
from arena.results import compact
from arena.results import ratings as _ratings
from arena.results.registry import bot_sha256
from arena.results.schema import BT_METHOD
from arena.results.sprt import board_score, room_score
from arena.results.lock import is_running
from arena.results.schema import db_path


def _tournament_row(row: dict) -> dict:
    row = dict(row)
    row["seed"] = int(row["seed"])
    row["boards"] = row.pop("boards_per_match")
    row["variant"] = json.loads(row["variant"])
    row["settings"] = json.loads(row["settings"])
    game = row.get("game") or games.ORIGINAL
    row["partnerships"], row["seating"] = _seating(game, row["variant"], row["partners"])
    row["variant_text"] = variant_text(game, row["variant"])
    return row


def variant_text(game: str, variant: dict) -> str:
    """The variant as the CLI names it (the game's short form), or its preset where the game is
    not installed here."""
    try:
        return str(games.game(game).variant(variant))
    except (games.GameError, ValueError, TypeError):
        return str(variant.get("preset", "?"))


def _seating(game: str, variant: dict, partners: str) -> tuple[bool, str]:
    """Whether sides are partnerships, and who sits at a table in words: "clone partners" (or
    mixed), or "3 players, a bot each" where every seat is its own side."""
    try:
        g = games.game(game)
        layout = g.layout(g.variant(variant))
    except (games.GameError, ValueError, TypeError):
        return True, f"{partners} partners"
    return layout.partnerships, f"{partners} partners" if layout.partnerships else f"{layout.players} players, a bot each"


def _known_tournaments(db: sqlite_utils.Database) -> str:
    names = [r[0] for r in db.execute("SELECT name FROM tournaments ORDER BY id")]
    return ", ".join(names) or "none yet"


def get_tournament(db: sqlite_utils.Database, name: str | int | None = None) -> dict:
    """A tournament by name or id; None means the latest one. Progress counts included."""
    if name is None:
        rows = list(db.query("SELECT * FROM tournaments ORDER BY id DESC LIMIT 1"))
        if not rows:
            raise ArenaError("no tournaments in this database yet")
    elif isinstance(name, int):
        rows = list(db.query("SELECT * FROM tournaments WHERE id = ?", [name]))
    else:
        rows = list(db.query("SELECT * FROM tournaments WHERE name = ?", [name]))
    if not rows:
        raise ArenaError(f"unknown tournament '{name}' (known: {_known_tournaments(db)})")
    t = _tournament_row(rows[0])
    tid = t["id"]
    if t["status"] == "running" and not is_running(db_path(db), tid):
        t["status"] = "interrupted"  # its run died (kill -9, a crash) without saying so
    t["bots"] = [
        dict(r)
        for r in db.query(
            "SELECT b.id, b.name, b.version FROM tournament_bots tb JOIN bots b ON b.id = tb.bot_id"
            " WHERE tb.tournament_id = ? ORDER BY b.name, b.version",
            [tid],
        )
    ]
    (t["matches"],) = db.execute("SELECT COUNT(*) FROM matches WHERE tournament_id = ?", [tid]).fetchone()
    t["boards_total"] = t["matches"] * t["boards"]
    (t["boards_done"],) = db.execute(
        "SELECT COUNT(*) FROM boards JOIN matches m ON m.id = boards.match_id WHERE m.tournament_id = ?", [tid]
    ).fetchone()
    (t["tables_done"],) = db.execute(
        "SELECT COUNT(*) FROM board_tables t JOIN matches m ON m.id = t.match_id WHERE m.tournament_id = ?", [tid]
    ).fetchone()
    return t


def list_tournaments(db: sqlite_utils.Database) -> list[dict]:
    """Every tournament, oldest first, with its progress."""
    ids = [r[0] for r in db.execute("SELECT id FROM tournaments ORDER BY id")]
    return [get_tournament(db, tid) for tid in ids]


def schedule(db: sqlite_utils.Database, tid: int) -> list[dict]:
    """The stored matches of a tournament in order: match_no and `entrants`, each entrant's bots
    (one bot for clones or a bot alone, each partner for mixed partners; the i-th seat of its
    side holds bot i mod their number)."""
    groups = _entrants(db, tid)
    return [{"match_no": match_no, "entrants": groups.get(match_no, [])}
            for (match_no,) in db.execute("SELECT match_no FROM matches WHERE tournament_id = ? ORDER BY match_no", [tid])]


def done_tables(db: sqlite_utils.Database, tid: int) -> set[tuple[int, int, int]]:
    """(match_no, board_no, room) of every table already stored: the runner skips these."""
    return {
        (match_no, board_no, swapped)
        for match_no, board_no, swapped in db.execute(
            "SELECT m.match_no, t.board_no, t.swapped FROM board_tables t JOIN matches m ON m.id = t.match_id"
            " WHERE m.tournament_id = ?",
            [tid],
        )
    }


def board_results(db: sqlite_utils.Database, tid: int) -> list[dict]:
    """Finished boards in canonical order (match_no, board_no): see `iter_board_results`."""
    return list(iter_board_results(db, tid))


def iter_board_results(db: sqlite_utils.Database, tid: int) -> Iterator[dict]:
    """The finished boards one at a time, in canonical order: `entrants` (each one's bots),
    `results`, `scores` and `margins` per entrant, and entrant 0's `margin` over entrant 1 and its
    `outcome` (the headline comparison of two entrants)."""
    groups = _entrants(db, tid)
    board: dict | None = None
    for board_id, match_no, board_no, seed, result, score, margin in db.execute(
        "SELECT b.id, m.match_no, b.board_no, b.seed, e.result, e.score, e.margin FROM boards b"
        " JOIN matches m ON m.id = b.match_id JOIN board_entrants e ON e.board_id = b.id"
        " WHERE m.tournament_id = ? ORDER BY m.match_no, b.board_no, e.entrant", [tid],
    ):
        if board is None or board["board_id"] != board_id:
            if board is not None:
                yield _board_row(board)
            board = {"board_id": board_id, "match_no": match_no, "board_no": board_no, "seed": int(seed),
                     "entrants": groups[match_no], "results": [], "scores": [], "margins": []}
        board["results"].append(result)
        board["scores"].append(score)
        board["margins"].append(margin)
    if board is not None:
        yield _board_row(board)


def _board_row(board: dict) -> dict:
    margin = board["results"][0] - board["results"][1]
    return {**board, "margin": margin, "outcome": "win" if margin > 0 else "loss" if margin < 0 else "draw"}


def progression(db: sqlite_utils.Database, tid: int) -> list[dict]:
    """The stored progression of the headline fit (same prior, anchor and scale) over growing
    prefixes of the deals, for a chart: rows of point, boards (in the prefix), bot_id, bot, elo.
    Within a prefix the order of boards does not matter; it ends on the headline's Elo."""
    labels = _bot_labels(db, tid)
    return [
        {"point": point, "boards": boards, "bot_id": bot, "bot": labels.get(bot, str(bot)), "elo": elo}
        for point, boards, bot, elo in db.execute(
            "SELECT point, boards, bot_id, elo FROM rating_progression WHERE tournament_id = ? ORDER BY point, bot_id",
            [tid],
        )
    ]


def _bot_labels(db: sqlite_utils.Database, tid: int) -> dict[int, str]:
    """Display names: the bare name, or name@version when two versions share a tournament."""
    rows = db.execute(
        "SELECT b.id, b.name, b.version FROM tournament_bots tb JOIN bots b ON b.id = tb.bot_id"
        " WHERE tb.tournament_id = ?",
        [tid],
    ).fetchall()
    counts: dict[str, int] = {}
    for _id, name, _v in rows:
        counts[name] = counts.get(name, 0) + 1
    return {bid: name if counts[name] == 1 else f"{name}@{v}" for bid, name, v in rows}


def _tables(db: sqlite_utils.Database, tid: int) -> dict[int, tuple[int, int, int]]:
    """Per bot: (tables it sat at, tables where it faulted, tables it sat at without isolation),
    in one pass over the seats."""
    unisolated = _unisolated_sql(get_tournament(db, tid))
    return {
        bot: (tables, faults, alone)
        for bot, tables, faults, alone in db.execute(
            "SELECT bot_id, COUNT(*), SUM(faulted), SUM(alone) FROM ("
            f"  SELECT s.bot_id, MAX(s.status != 'ok') AS faulted, MAX({unisolated}) AS alone FROM seats s"
            "  JOIN board_tables t ON t.id = s.table_id JOIN matches m ON m.id = t.match_id"
            "  WHERE m.tournament_id = ? GROUP BY s.table_id, s.bot_id"
            ") GROUP BY bot_id",
            [tid],
        )
    }


ISOLATING = ("bwrap", "fork")
"""The sandboxes that keep partners apart; rlimit and none do not (docs/hostile.md)."""


def _unisolated_sql(t: dict) -> str:
    """An SQL test on a `tables` row `t`: played without isolation. A table stored before tables
    recorded their sandbox counts as the tournament's runs did (settings["sandboxes"])."""
    modes = t["settings"].get("sandboxes") or [t["settings"].get("sandbox", "none")]
    older = "1" if any(m not in ISOLATING for m in modes) else "0"
    isolating = ", ".join(f"'{m}'" for m in ISOLATING)
    return f"(CASE WHEN t.sandbox IS NULL THEN {older} ELSE t.sandbox NOT IN ({isolating}) END)"


def sandbox_labels(t: dict) -> list[str]:
    """The sandboxes the tournament's runs named (write.note_sandbox), with a note on each run
    without whole-bot limits; only the modes for a tournament stored before runs kept labels."""
    settings = t["settings"]
    return list(settings.get("sandbox_labels") or settings.get("sandboxes") or
                [mode for mode in [settings.get("sandbox")] if mode])


def isolation(db: sqlite_utils.Database, tid: int) -> dict:
    """How the tournament's tables were confined: `tables`, `unisolated` (how many ran where
    partners could talk to each other, in rlimit or none) and `sandboxes` (tables per mode)."""
    unisolated = _unisolated_sql(get_tournament(db, tid))
    rows = db.execute(
        f"SELECT COALESCE(t.sandbox, 'unrecorded'), COUNT(*), SUM({unisolated}) FROM board_tables t"
        " JOIN matches m ON m.id = t.match_id WHERE m.tournament_id = ? GROUP BY 1 ORDER BY 1", [tid]).fetchall()
    return {"tables": sum(r[1] for r in rows), "unisolated": sum(r[2] for r in rows),
            "sandboxes": {mode: n for mode, n, _ in rows}}


_UNRATED: dict[str, Any] = {"elo": 0.0, "ci_low": None, "ci_high": None, "los_next": None, "flags": [], "more_than": None,
            "less_than": None}


def progression_in_boards(db: sqlite_utils.Database, tid: int, pool: _ratings.Pool,
                          points: int = 50) -> list[tuple[int, dict]]:
    """The pool's progression with its counts in boards: a board of k entrants is k(k-1)/2
    comparisons of weight 1/(k-1), k/2 in the pool's own count."""
    per_board = (_table_entrants(db, tid) or 2) / 2
    return [(round(boards / per_board), elo_of) for boards, elo_of in pool.progression(points)]


def finished_boards(db: sqlite_utils.Database, tid: int) -> int:
    """The tournament's finished boards (what stored ratings record they were computed from)."""
    (n,) = db.execute(
        "SELECT COUNT(*) FROM boards b JOIN matches m ON m.id = b.match_id WHERE m.tournament_id = ?", [tid]
    ).fetchone()
    return n


def _stored_ratings(db: sqlite_utils.Database, tid: int, errors: str) -> tuple[dict[int, dict], dict] | None:
    """The stored headline ratings with intervals of kind `errors` and their params, or None
    when missing or older than the last board."""
    rows = list(db.query("SELECT * FROM ratings WHERE tournament_id = ? AND method = ? AND errors = ?",
                         [tid, BT_METHOD, errors]))
    n = finished_boards(db, tid)
    if not rows or any(json.loads(r["params"]).get("tournament_boards") != n for r in rows):
        return None
    return {r["bot_id"]: {**{k: r[k] for k in _UNRATED}, "flags": json.loads(r["flags"])} for r in rows}, \
        json.loads(rows[0]["params"])


def _rated(db: sqlite_utils.Database, tid: int, errors: str, bootstrap: int | None = None
           ) -> tuple[dict[int, dict], dict]:
    """The headline ratings by bot and their params: stored when up to date, else computed (not
    stored; `bootstrap` resamples, fewer for a quick interim table)."""
    if errors not in _ratings.ERRORS:
        raise ArenaError(f"--errors must be one of {', '.join(_ratings.ERRORS)}, not {errors!r}")
    stored = _stored_ratings(db, tid, errors)
    if stored is not None:
        return stored
    r = compute_ratings(db, tid, errors=(errors,), bootstrap=bootstrap or BOOTSTRAP)
    return {h.bot: {"elo": h.elo, "ci_low": h.ci_low, "ci_high": h.ci_high, "los_next": h.los_next,
                    "flags": sorted(h.flags), "more_than": h.more_than, "less_than": h.less_than}
            for h in r["ratings"][errors]}, r["params"]


def standings(db: sqlite_utils.Database, tid: int, errors: str = "pool", *, bootstrap: int | None = None
              ) -> list[dict]:
    """The table: rank, bot, Elo with its 95% interval (against the pool or the anchor, `errors`),
    its flags and one-sided bounds, boards, W/D/L, margin, faults, and how the intervals' resamples
    were fitted (`bootstrap_method`). Uses the stored ratings when they are up to date; otherwise
    computes them (not stored)."""
    rated, params = _rated(db, tid, errors, bootstrap)
    return _standings_rows(db, tid, rated, errors, params.get("bootstrap_method"))


def standings_document(db: sqlite_utils.Database, tid: int, errors: str = "pool", *, boards: bool = True,
                       bootstrap: int | None = None) -> dict:
    """The standings with what an outside tool needs to read or refit them: the interval kind,
    the prior, the resampling unit, the anchor, what the pool's boards cannot rate (pool flags,
    groups, the core), `pool_mean` (the Elo of the pool's mean on this scale: what `--errors pool`
    intervals are relative to) and (unless not `boards`: a pass over every table) every board
    with its two room outcomes. `bootstrap`: see `standings`. `arena.results.present` renders it,
    for the terminal and the pages alike."""
    own = not db.conn.in_transaction  # one snapshot: a board stored meanwhile is in all of it or none
    if own:
        db.execute("BEGIN")
    try:
        return _standings_document(db, tid, errors, boards, bootstrap)
    finally:
        if own:
            db.execute("COMMIT")


def _standings_document(db: sqlite_utils.Database, tid: int, errors: str, boards: bool,
                        bootstrap: int | None) -> dict:
    rated, params = _rated(db, tid, errors, bootstrap)
    labels = _bot_labels(db, tid)

    def named(ids: list[int] | None) -> list[str] | None:
        return None if ids is None else sorted(labels.get(i, str(i)) for i in ids)

    rows = _standings_rows(db, tid, rated, errors, params.get("bootstrap_method"))
    t = get_tournament(db, tid)
    core = set(params.get("core") or ())
    pooled = [r["elo"] for r in rows if r["elo"] is not None and (r["bot_id"] in core if core else True)]
    return {
        "tournament": t["name"], "game": t["game"], "unit": _unit(t["game"]), "entrants": _table_entrants(db, tid),
        "method": BT_METHOD, "errors": errors,
        "anchor": None if params.get("anchor_bot_id") is None else labels.get(params["anchor_bot_id"]),
        "prior": params.get("prior"), "draws": params.get("draws"), "resampling": params.get("resampling"),
        "bootstrap": params.get("bootstrap"), "bootstrap_method": params.get("bootstrap_method"),
        "pool_flags": params.get("pool_flags", []),
        "core": named(params.get("core")), "groups": [named(g) for g in params.get("groups") or []],
        "pool_mean": sum(pooled) / len(pooled) if pooled else None,
        "isolation": isolation(db, tid),
        "faults": fault_tables(db, tid),
        "sandbox_labels": sandbox_labels(t),
        "standings": rows,
        **({"boards": board_outcomes(db, tid)} if boards else {}),
    }


def _unit(game: str) -> str:
    """What the game's results count (points, chips); a game no longer installed: points."""
    try:
        return games.game(game).info.unit
    except games.GameError:
        return "points"


def _table_entrants(db: sqlite_utils.Database, tid: int) -> int | None:
    """How many entrants a match of the tournament has when each is rated on its own result
    (every table but two sides of two partners); None for two sides of partners."""
    if told_as_teams(db, tid):
        return None
    row = db.execute("SELECT COUNT(DISTINCT e.entrant) FROM match_entrants e JOIN matches m ON m.id = e.match_id"
                     " WHERE m.tournament_id = ? GROUP BY m.id LIMIT 1", [tid]).fetchone()
    return row[0] if row else None


def told_as_teams(db: sqlite_utils.Database, tid: int) -> bool:
    """Whether the tournament's tables are two sides of two partners (`two_teams`): then its
    SPRT counts each room apart (entrant 0's outcome in each), an entrant's margin is over the
    other and the standings count a bot with its partner; otherwise an entrant's result is in the
    game's unit. Every match is stored and listed as k entrants either way."""
    row = db.execute("SELECT game, variant FROM tournaments WHERE id = ?", [tid]).fetchone()
    return True if row is None else _two_teams_of(row[0], json.loads(row[1]))  # (no such tournament: said later)


def two_teams(layout: games.Layout) -> bool:
    """Whether a table is two sides of two seats (a four-handed partnership game): its matches
    are two entrants of two seats each (clone or mixed partners)."""
    return layout.num_sides == 2 and all(len(side) == 2 for side in layout.sides)


def _two_teams_of(game: str, variant: dict) -> bool:
    try:
        g = games.game(game)
        return two_teams(g.layout(g.variant(variant)))
    except (games.GameError, ValueError, TypeError):
        return True  # a game not installed here


def _pair_counts(db: sqlite_utils.Database, tid: int) -> dict[int, dict[tuple[int, int], tuple[int, ...]]]:
    """Per match id, per ordered pair of its entrants (e, f): boards, e's wins, draws and losses
    against f (by their results over the board's rooms) and the results' difference, summed in SQL."""
    out: dict[int, dict[tuple[int, int], tuple[int, ...]]] = {}
    for match_id, e, f, *counts in db.execute(
        "SELECT b.match_id, p.entrant, q.entrant, COUNT(*), SUM(p.result > q.result), SUM(p.result = q.result),"
        " SUM(p.result < q.result), SUM(p.result - q.result)"
        " FROM board_entrants p JOIN board_entrants q ON q.board_id = p.board_id AND q.entrant != p.entrant"
        " JOIN boards b ON b.id = p.board_id JOIN matches m ON m.id = b.match_id WHERE m.tournament_id = ?"
        " GROUP BY b.match_id, p.entrant, q.entrant", [tid],
    ):
        out.setdefault(match_id, {})[e, f] = tuple(counts)
    return out


def _match_entrants(db: sqlite_utils.Database, tid: int) -> dict[int, tuple[int, list[list[int]]]]:
    """Per match id: its number and its entrants' bots."""
    groups = _entrants(db, tid)
    return {match_id: (match_no, groups.get(match_no, [])) for match_id, match_no in db.execute(
        "SELECT id, match_no FROM matches WHERE tournament_id = ? ORDER BY match_no", [tid])}


def _records(db: sqlite_utils.Database, tid: int, labels: dict[int, str]) -> dict[int, dict]:
    """Per bot: boards, wins, draws, losses and margin (summed) over its matches. A bot counts on
    a board through each entrant that holds it: its margin, and W/D/L per comparison with each
    other entrant that does not hold it; a bot every entrant holds (on both sides of a match of
    mixed partners) counts for none."""
    stats = {bot: {"boards": 0, "wins": 0, "draws": 0, "losses": 0, "margin": 0} for bot in labels}
    margins: dict[int, dict[int, tuple[int, int]]] = {}
    for match_id, e, boards, margin in db.execute(
        "SELECT b.match_id, e.entrant, COUNT(*), SUM(e.margin) FROM board_entrants e JOIN boards b ON b.id = e.board_id"
        " JOIN matches m ON m.id = b.match_id WHERE m.tournament_id = ? GROUP BY b.match_id, e.entrant", [tid],
    ):
        margins.setdefault(match_id, {})[e] = (boards, margin)
    pairs = _pair_counts(db, tid)
    for match_id, (_no, entrants) in _match_entrants(db, tid).items():
        if match_id not in margins:
            continue
        for bot in {b for e in entrants for b in e}:
            held = [e for e, bots in enumerate(entrants) if bot in bots]
            if len(held) == len(entrants):
                continue
            s = stats[bot]
            s["boards"] += margins[match_id][held[0]][0]
            for e in held:
                s["margin"] += margins[match_id][e][1]
                for f, bots in enumerate(entrants):
                    if bot not in bots:
                        _boards, wins, draws, losses, _diff = pairs[match_id][e, f]
                        s["wins"] += wins
                        s["draws"] += draws
                        s["losses"] += losses
    return stats


def entrant_scores(db: sqlite_utils.Database, tid: int) -> dict[int, float]:
    """Per bot, over the finished boards: the others its entrants beat on each board, draws half
    (what a Swiss round of matches of a bot a side orders bots by)."""
    return dict(db.execute(
        "SELECT x.bot_id, SUM(e.score) FROM board_entrants e JOIN boards b ON b.id = e.board_id"
        " JOIN matches m ON m.id = b.match_id JOIN match_entrants x ON x.match_id = m.id AND x.entrant = e.entrant"
        " WHERE m.tournament_id = ? GROUP BY x.bot_id", [tid]).fetchall())


def _standings_rows(db: sqlite_utils.Database, tid: int, rated: dict[int, dict], errors: str,
                    bootstrap_method: str | None) -> list[dict]:
    labels = _bot_labels(db, tid)
    stats = _records(db, tid, labels)
    tables = _tables(db, tid)
    anchor = _anchor_bot(db, tid)
    rows = []
    for bot, label in labels.items():
        s = stats[bot]
        r = rated.get(bot, _UNRATED)
        sat, faulted, alone = tables.get(bot, (0, 0, 0))
        rows.append({
            "bot": label, "bot_id": bot, "elo": r["elo"], "errors": errors, "bootstrap_method": bootstrap_method,
            "ci_low": r["ci_low"], "ci_high": r["ci_high"], "more_than": r["more_than"], "less_than": r["less_than"],
            "flags": r["flags"],
            "los_next": r["los_next"], "boards": s["boards"], "wins": s["wins"], "draws": s["draws"],
            "losses": s["losses"], "avg_margin": s["margin"] / s["boards"] if s["boards"] else 0.0,
            "tables": sat, "faults": faulted, "fault_flag": sat > 0 and faulted > 0.1 * sat,
            "unisolated_tables": alone, "isolation_flag": alone > 0,
            "anchor": bot == anchor,
        })
    # The ratings' one order, so LOS is the next row; a bot without boards has no rank, no Elo
    # and no interval yet (the prior alone would put it at 0), and it is listed last.
    by_id = {row["bot_id"]: row for row in rows if row["boards"]}
    unplayed = sorted((row for row in rows if not row["boards"]), key=lambda row: row["bot"])
    rows = [by_id[bot] for bot in _ratings.ranked({bot: row["elo"] for bot, row in by_id.items()}, labels)]
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    if rows and unplayed:
        rows[-1]["los_next"] = None  # (stored by an older arena: over a bot that had not played)
    for row in unplayed:
        row.update(rank=None, elo=None, ci_low=None, ci_high=None, more_than=None, less_than=None, los_next=None)
    return [{"rank": r.pop("rank"), **r} for r in rows + unplayed]


def board_outcomes(db: sqlite_utils.Database, tid: int) -> list[dict]:
    """Every finished board in one shape: `entrants` (labels), each one's `results` over the
    board's rooms and `scores` (the others it beat on them, draws half); entrant 0's `result` over
    entrant 1 (the headline's: the board's summed margin as one game, 1, 0.5 or 0) and `margin`;
    and, for two teams of partners, entrant 0's result in each of the two `rooms` (1 win, 0.5
    draw, 0 loss; straight room first) and their sum, the board `score` 0 .. 2 (what the SPRT
    counts); else those two are None."""
    labels = _bot_labels(db, tid)
    teams = told_as_teams(db, tid)
    rooms: dict[tuple[int, int], list[float | None]] = {}
    if teams:
        for match_no, board_no, swapped, points in db.execute(
            "SELECT m.match_no, t.board_no, t.swapped, t.side_points FROM board_tables t"
            " JOIN matches m ON m.id = t.match_id WHERE m.tournament_id = ?", [tid],
        ):
            p0, p1 = json.loads(points)[:2]
            rooms.setdefault((match_no, board_no), [None, None])[swapped] = room_score(p1 - p0 if swapped else p0 - p1)
    out = []
    for b in iter_board_results(db, tid):
        row = {"match_no": b["match_no"], "board_no": b["board_no"], "deal": str(b["seed"]),
               "entrants": [_named(e, labels) for e in b["entrants"]], "results": b["results"], "scores": b["scores"],
               "margin": b["margin"], "result": _SCORE[b["outcome"]], "rooms": None, "score": None}
        if teams:
            pair = rooms[b["match_no"], b["board_no"]]
            row.update(rooms=pair, score=None if None in pair else board_score(pair))  # type: ignore[arg-type]
        out.append(row)
    return out


def _named(bots: list[int], labels: dict[int, str]) -> str:
    """An entrant by its bots' labels: `a`, or `a+b` for mixed partners."""
    return "+".join(labels[b] for b in dict.fromkeys(bots))


def los(db: sqlite_utils.Database, tid: int) -> dict:
    """The likelihood of superiority of every bot (row) over every other (column), in standings
    order, from the same seeded bootstrap as the standings' LOS column (the stored one's size
    and seed when the stored ratings are current)."""
    stored = _stored_ratings(db, tid, "pool")
    params = stored[1] if stored is not None else {}
    r = rating_inputs(db, tid)
    bots, matrix = r["pool"].los_matrix(names=r["labels"], bootstrap=params.get("bootstrap", BOOTSTRAP),
                                        seed=params.get("seed", 0))
    return {"bots": [r["labels"][b] for b in bots], "matrix": matrix}


def crosstable(db: sqlite_utils.Database, tid: int, *, rows: list[dict] | None = None) -> dict:
    """Head-to-head results between every two bots (in standings order), from the row's view:
    on each board, every bot of an entrant meets every bot of each other entrant that holds
    neither (mixed partners: each member of one team each member of the other).

    `rows`: the standings, if the caller has them already (they cost as much again).
    """
    order = [r["bot_id"] for r in (rows if rows is not None else standings(db, tid))]
    labels = _bot_labels(db, tid)
    cells: dict[tuple[int, int], dict] = {}
    pairs = _pair_counts(db, tid)
    for match_id, (_no, entrants) in _match_entrants(db, tid).items():
        for (e, f), (boards, wins, draws, losses, diff) in pairs.get(match_id, {}).items():
            mine, theirs = entrants[e], entrants[f]
            for x in dict.fromkeys(b for b in mine if b not in theirs):
                for y in dict.fromkeys(b for b in theirs if b not in mine):
                    c = cells.setdefault((x, y), {"boards": 0, "wins": 0, "draws": 0, "losses": 0, "margin": 0})
                    c["boards"] += boards
                    c["margin"] += diff
                    c["wins"] += wins
                    c["draws"] += draws
                    c["losses"] += losses
    for c in cells.values():
        c["score"] = c["wins"] + c["draws"] / 2
    return {
        "bots": [labels[b] for b in order],
        "rows": [
            {"bot": labels[x], "results": {labels[y]: cells[(x, y)] for y in order if (x, y) in cells}}
            for x in order
        ],
    }


def matches(db: sqlite_utils.Database, tid: int, bot: str | None = None) -> list[dict]:
    """Every match in one shape, a match being k entrants: `entrants` (labels: `a` for one bot
    or its clones, `a+b` for mixed partners, in the order they take their side's seats), and over
    the boards done each entrant's `results` (what its sides scored
    over the rooms), `margins` (two sides of partners: its result less the other's; else its
    result), `scores` (the others it beat, draws half) and `wins`, `draws`, `losses` (one
    comparison with each other entrant a board). `bot` filters, and adds that bot's own record
    (`bot`: its entrant, W/D/L and margin)."""
    labels = _bot_labels(db, tid)
    bot_id = _bot_in(db, tid, labels, bot) if bot is not None else None
    per_board = int(db.execute("SELECT boards_per_match FROM tournaments WHERE id = ?", [tid]).fetchone()[0])
    pairs = _pair_counts(db, tid)
    faults = {
        match_id: n
        for match_id, n in db.execute(
            "SELECT t.match_id, COUNT(*) FROM seats s JOIN board_tables t ON t.id = s.table_id"
            " JOIN matches m ON m.id = t.match_id WHERE m.tournament_id = ? AND s.status != 'ok' GROUP BY t.match_id",
            [tid],
        )
    }
    sums: dict[int, dict[int, tuple[int, int, int, float]]] = {}
    for match_id, e, boards, result, margin, score in db.execute(
        "SELECT b.match_id, e.entrant, COUNT(*), SUM(e.result), SUM(e.margin), SUM(e.score) FROM board_entrants e"
        " JOIN boards b ON b.id = e.board_id JOIN matches m ON m.id = b.match_id WHERE m.tournament_id = ?"
        " GROUP BY b.match_id, e.entrant", [tid],
    ):
        sums.setdefault(match_id, {})[e] = (boards, result, margin, score)
    out = []
    for match_id, (match_no, entrants) in _match_entrants(db, tid).items():
        if bot_id is not None and not any(bot_id in e for e in entrants):
            continue
        k, done, pair = len(entrants), sums.get(match_id, {}), pairs.get(match_id, {})
        record = [[sum(pair.get((e, f), (0,) * 5)[i] for f in range(k) if f != e) for e in range(k)] for i in (1, 2, 3)]
        row = {
            "match_no": match_no,
            "entrants": [_named(e, labels) for e in entrants],
            "boards": per_board, "boards_done": done.get(0, (0,))[0],
            "results": [done.get(e, (0, 0))[1] for e in range(k)],
            "margins": [done.get(e, (0, 0, 0))[2] for e in range(k)],
            "scores": [done.get(e, (0, 0, 0, 0.0))[3] for e in range(k)],
            "wins": record[0], "draws": record[1], "losses": record[2],
            "faults": faults.get(match_id, 0),
        }
        if bot_id is not None:  # the record from the bot's own entrant (the first that holds it)
            e = next(i for i, bots in enumerate(entrants) if bot_id in bots)
            row["bot"] = {"name": labels[bot_id], "entrant": e, "wins": record[0][e], "draws": record[1][e],
                          "losses": record[2][e], "margin": row["margins"][e]}
        out.append(row)
    return out


def fault_tables(db: sqlite_utils.Database, tid: int) -> dict:
    """How many of the tournament's tables ended in a fault, and whose: `tables` (played),
    `faulted` (tables where some seat faulted), `by_bot` (each bot that faulted: the tables where
    it did, most first; a table where two bots faulted counts for each) and `arena` (tables whose
    fault was the arena's or the machine's, `forfeit["arena"]`: in no bot's count)."""
    labels = _bot_labels(db, tid)
    arena_made = "COALESCE(json_extract(t.forfeit, '$.arena'), 0)"
    (tables, faulted, arena), = db.execute(
        "SELECT COUNT(*), COALESCE(SUM(EXISTS (SELECT 1 FROM seats s WHERE s.table_id = t.id AND s.status != 'ok')), 0),"
        f" COALESCE(SUM({arena_made}), 0)"
        " FROM board_tables t JOIN matches m ON m.id = t.match_id WHERE m.tournament_id = ?", [tid]).fetchall()
    by_bot = {labels[bot]: n for bot, n in db.execute(
        "SELECT s.bot_id, COUNT(DISTINCT s.table_id) FROM seats s JOIN board_tables t ON t.id = s.table_id"
        f" JOIN matches m ON m.id = t.match_id WHERE m.tournament_id = ? AND s.status != 'ok' AND NOT {arena_made}"
        " GROUP BY s.bot_id", [tid])}
    return {"tables": tables, "faulted": faulted,
            "by_bot": dict(sorted(by_bot.items(), key=lambda item: (-item[1], item[0]))), "arena": arena}


def faults(db: sqlite_utils.Database, tid: int, *, match_no: int | None = None, bot: str | None = None) -> list[dict]:
    """Every seat that faulted, in play order: where, which bot, its status, the arena's detail
    and the tail of the bot's stderr (as stored: unchanged, for the caller to show safely)."""
    labels = _bot_labels(db, tid)
    bot_id = _bot_in(db, tid, labels, bot) if bot is not None else None
    rows = db.query(
        "SELECT m.match_no, t.board_no, t.swapped, s.seat, s.bot_id, s.announced_name, s.status, s.detail,"
        " s.stderr_tail"
        " FROM seats s JOIN board_tables t ON t.id = s.table_id JOIN matches m ON m.id = t.match_id"
        " WHERE m.tournament_id = ? AND s.status != 'ok' AND (? IS NULL OR m.match_no = ?)"
        " AND (? IS NULL OR s.bot_id = ?) ORDER BY m.match_no, t.board_no, t.swapped, s.seat",
        [tid, match_no, match_no, bot_id, bot_id],
    )
    return [{"match_no": r["match_no"], "board_no": r["board_no"], "swapped": bool(r["swapped"]), "room": r["swapped"],
             "seat": r["seat"],
             "bot": labels[r["bot_id"]], "announced": r["announced_name"], "status": r["status"],
             "detail": r["detail"], "stderr": r["stderr_tail"]} for r in rows]


def _bot_in(db: sqlite_utils.Database, tid: int, labels: dict[int, str], bot: str) -> int:
    """A bot of this tournament by its label, its bare name or a path to its file."""
    by_label = {v: k for k, v in labels.items()}
    if bot in by_label:
        return by_label[bot]
    candidates = [k for k, v in labels.items() if v.split("@")[0] == bot]
    if not candidates and Path(bot).expanduser().exists():
        sha = bot_sha256(Path(bot).expanduser())
        candidates = [r[0] for r in db.execute("SELECT id FROM bots WHERE sha256 = ?", [sha]) if r[0] in labels]
    if len(candidates) != 1:
        raise ArenaError(f"unknown bot '{bot}' in this tournament (known: {', '.join(sorted(labels.values()))})")
    return candidates[0]


def match_detail(db: sqlite_utils.Database, tid: int, match_no: int) -> dict:
    """One match, board by board, in one shape for every game: its `entrants` (labels), each
    board's `results`, `margins` and `scores` per entrant once all its rooms are in (None before),
    and each table (its `room`: room r gives side s to entrant (s - r) mod k) with its sides'
    points, the bot at each seat, its faults, its deal ids (for replay), its deals' points per
    side and what the board's close-out added (None for a forfeit)."""
    m = _match(db, tid, match_no)
    labels = _bot_labels(db, tid)
    boards = {b["board_no"]: b for b in iter_board_results(db, tid) if b["match_no"] == match_no}
    detail: dict[int, dict] = {}
    for t in db.query("SELECT * FROM board_tables WHERE match_id = ? ORDER BY board_no, swapped", [m["id"]]):
        board = boards.get(t["board_no"])
        b = detail.setdefault(t["board_no"], {
            "board_no": t["board_no"], "seed": int(t["board_seed"]),
            **{k: board[k] if board else None for k in ("results", "margins", "scores")},
            "tables": [],
        })
        seats = list(db.query("SELECT seat, bot_id, status, detail, stderr_tail AS stderr FROM seats WHERE table_id = ?"
                              " ORDER BY seat", [t["id"]]))
        points = json.loads(t["side_points"])
        dealt = [0] * len(points)
        for (deal,) in db.execute("SELECT points FROM deals WHERE table_id = ? AND points IS NOT NULL", [t["id"]]):
            dealt = [a + b for a, b in zip(dealt, json.loads(deal))]
        b["tables"].append({
            "table_id": t["id"], "room": t["swapped"], "swapped": bool(t["swapped"]), "points": points,
            "forfeit": None if t["forfeit"] is None else json.loads(t["forfeit"]),
            "seats": [labels[s["bot_id"]] for s in seats],
            "faults": [{"seat": s["seat"], "bot": labels[s["bot_id"]], "status": s["status"], "detail": s["detail"],
                        "stderr": s["stderr"]} for s in seats if s["status"] != "ok"],
            "deal_ids": [r[0] for r in db.execute("SELECT id FROM deals WHERE table_id = ? ORDER BY deal_no", [t["id"]])],
            "duration_s": t["duration_s"],
            # every side's points from its deals, and what the board's own end added (a pot's
            # close-out, say); a forfeit replaces them
            "deals_points": dealt, "close_out": None if t["forfeit"] else [p - d for p, d in zip(points, dealt)],
        })
    return {
        "match_no": match_no,
        "entrants": [_named(e, labels) for e in m["entrants"]],
        "boards": [detail[k] for k in sorted(detail)],
    }


def get_deal(db: sqlite_utils.Database, deal_id: int) -> dict:
    """Everything needed to replay a stored deal: variant, seed, dealer, moves, seats, bots."""
    rows = list(db.query(
        "SELECT d.*, t.id AS table_id, t.board_no, t.swapped, t.side_points, t.forfeit,"
        " m.match_no, m.tournament_id, tn.name AS tournament, tn.variant, tn.format, tn.game"
        " FROM deals d JOIN board_tables t ON t.id = d.table_id JOIN matches m ON m.id = t.match_id"
        " JOIN tournaments tn ON tn.id = m.tournament_id WHERE d.id = ?",
        [deal_id],
    ))
    if not rows:
        (top,) = db.execute("SELECT MAX(id) FROM deals").fetchone()
        known = f"deal ids run 1..{top}" if top else "no deals stored yet"
        raise ArenaError(f"unknown deal {deal_id} ({known})")
    d = rows[0]
    game = games.game(d["game"])
    played = compact.deal(db, deal_id, game.variant(json.loads(d["variant"])), game)
    assert played is not None
    seats = [
        {
            "seat": s["seat"], "bot_id": s["bot_id"], "bot": s["bot"], "bot_version": s["bot_version"],
            "name": s["announced_name"], "version": s["announced_version"], "status": s["status"],
            "detail": s["detail"],
        }
        for s in db.query(
            "SELECT s.*, b.name AS bot, b.version AS bot_version FROM seats s JOIN bots b ON b.id = s.bot_id"
            " WHERE s.table_id = ? ORDER BY s.seat",
            [d["table_id"]],
        )
    ]
    return {
        "id": d["id"], "tournament": d["tournament"], "tournament_id": d["tournament_id"],
        "format": d["format"], "game": d["game"], "match_no": d["match_no"], "board_no": d["board_no"],
        "swapped": bool(d["swapped"]), "room": d["swapped"], "table_id": d["table_id"], "number": d["deal_no"],
        "variant": json.loads(d["variant"]), "seed": int(d["seed"]), "dealer": d["dealer"], "carry": played["carry"],
        "points": played["points"], "breakdown": played["breakdown"],
        "moves": played["moves"], "complete": bool(d["complete"]), "seats": seats,
        "table_points": json.loads(d["side_points"]),
        "forfeit": None if d["forfeit"] is None else json.loads(d["forfeit"]),
    }


def _match(db: sqlite_utils.Database, tid: int, match_no: int) -> dict:
    """A match's row, with `entrants`: each entrant's bots, in entrant order."""
    rows = list(db.query("SELECT * FROM matches WHERE tournament_id = ? AND match_no = ?", [tid, match_no]))
    if not rows:
        raise ArenaError(f"tournament {tid} has no match {match_no}")
    entrants: list[list[int]] = []
    for e, bot in db.execute("SELECT entrant, bot_id FROM match_entrants WHERE match_id = ? ORDER BY entrant, member",
                             [rows[0]["id"]]):
        if e == len(entrants):
            entrants.append([])
        entrants[e].append(bot)
    return {**rows[0], "entrants": entrants}


def _entrants(db: sqlite_utils.Database, tid: int) -> dict[int, list[list[int]]]:
    """match_no -> its entrants, each its bots (members in order)."""
    out: dict[int, list[list[int]]] = {}
    for match_no, e, bot in db.execute(
        "SELECT m.match_no, e.entrant, e.bot_id FROM match_entrants e JOIN matches m ON m.id = e.match_id"
        " WHERE m.tournament_id = ? ORDER BY m.match_no, e.entrant, e.member", [tid],
    ):
        entrants = out.setdefault(match_no, [])
        if e == len(entrants):
            entrants.append([])
        entrants[e].append(bot)
    return out


_SCORE = {"win": 1.0, "draw": 0.5, "loss": 0.0}


def _seated(bots: list[int], seats: int) -> tuple[int, ...]:
    """An entrant's bots at its side's seats, round robin."""
    return tuple(bots[i % len(bots)] for i in range(seats))


@functools.cache
def _file_sha256(path: Path) -> str | None:
    try:
        return bot_sha256(path)
    except OSError:
        return None


def _anchor_bot(db: sqlite_utils.Database, tid: int) -> int | None:
    """The bot that anchors the scale when it takes part: the game's anchor (`games.extras`: a
    random bot of its own, else the arena's, "random"): the one of that name whose file is that
    bot's, else one under another name whose file is, else the latest of that name that plays the
    game (others may share it: a random_bot.cjs registered by its path is "random" too)."""
    (game,) = db.execute("SELECT game FROM tournaments WHERE id = ?", [tid]).fetchone() or (None,)
    try:
        name, path = games.extras(games.game(game)).anchor
    except games.GameError:
        name, path = games.RANDOM_NAME, games.RANDOM_BOT  # a game not installed here
    bundled = _file_sha256(path)
    rows = db.execute(
        "SELECT b.id, b.sha256, b.name, b.games FROM tournament_bots tb JOIN bots b ON b.id = tb.bot_id"
        " WHERE tb.tournament_id = ? AND (b.name = ? OR b.sha256 = ?) ORDER BY b.name != ?, b.version DESC",
        [tid, name, bundled, name],
    ).fetchall()
    found = [bot_id for bot_id, sha, _n, _g in rows if sha == bundled]
    found += [bot_id for bot_id, _s, named, plays in rows
              if named == name and (plays is None or game in json.loads(plays))]
    return found[0] if found else None


BOOTSTRAP = 1000
"""Resamples behind the headline rating's intervals (and the likelihood of superiority)."""


def rating_inputs(db: sqlite_utils.Database, tid: int) -> dict:
    """What the ratings are computed from: the finished boards in deal order (board number, then
    match), each keyed by its deal (the board's seed: every pairing plays the same deals, so the
    bootstrap resamples them together and `progression` sees them in order); the bots, their
    labels (the tie order) and the anchor: the random bot, unless the pool is separated and it is
    outside the core (it lost every board, say), where it would read everyone through the prior;
    and `pool`, the boards made ready for every fit (`ratings.Pool`, its full fit made)."""
    with _ratings.gc_paused():  # a few hundred thousand objects, none of them in a cycle
        deals: dict[str, int] = {}
        results = []
        # A board of k entrants: one comparison per pair of entrants, each weighing 1/(k-1), so
        # that the board counts once for each bot (two teams: one comparison). An entrant is
        # its bots (two teams: the bots at its two seats, a clone twice).
        groups = _entrants(db, tid)
        seats = 2 if told_as_teams(db, tid) else None
        board: list[int] = []
        for board_id, seed, match_no, result, k in db.execute(
            "SELECT e.board_id, b.seed, m.match_no, e.result, (SELECT COUNT(*) FROM board_entrants x"
            " WHERE x.board_id = e.board_id) FROM board_entrants e JOIN boards b ON b.id = e.board_id"
            " JOIN matches m ON m.id = b.match_id WHERE m.tournament_id = ?"
            " ORDER BY b.board_no, m.match_no, e.entrant", [tid],
        ):
            board.append(result)
            if len(board) < k:
                continue
            deal = deals.get(seed)
            if deal is None:
                deal = deals[seed] = int(seed)
            sides = [_seated(bots, seats or len(bots)) for bots in groups[match_no]]
            for i, rx in enumerate(board):
                for j in range(i + 1, k):
                    ry = board[j]
                    results.append(_ratings.BoardResult(sides[i], sides[j], 1.0 if rx > ry else 0.5 if rx == ry else 0.0,
                                                        deal, 1 / (k - 1)))
            board = []
    bots = [r[0] for r in db.execute("SELECT bot_id FROM tournament_bots WHERE tournament_id = ? ORDER BY bot_id", [tid])]
    pool = _ratings.Pool(results, bots)
    diagnosis = pool.status
    random_bot = _anchor_bot(db, tid)
    anchor = random_bot if diagnosis.core is None or random_bot in diagnosis.core else None
    return {"bots": bots, "results": results, "anchor": anchor, "random": random_bot, "labels": _bot_labels(db, tid),
            "diagnosis": diagnosis, "pool": pool.with_anchor(anchor)}


def rating_pool(inputs: dict) -> _ratings.Pool:
    """The `ratings.Pool` of `rating_inputs` (made here if they came without it)."""
    if inputs.get("pool") is None:
        inputs["pool"] = _ratings.Pool(inputs["results"], inputs["bots"], inputs["anchor"])
    return inputs["pool"]


PRIOR = {"virtual_draws": _ratings.PRIOR_DRAWS, "opponent": 0, "fit": "MAP"}
"""The headline's prior as stored and exported: one virtual draw per bot against a 0-rated
opponent, maximised with the likelihood (penalised, not plain, maximum likelihood)."""


def rating_params(inputs: dict, bootstrap: int, seed: int) -> dict:
    """What a stored rating was computed with, and what the pool's boards could not rate."""
    d = inputs["diagnosis"]
    return {"bootstrap": bootstrap, "seed": seed, "bootstrap_method": rating_pool(inputs).bootstrap_method,
            "anchor_bot_id": inputs["anchor"], "draws": "half a win", "prior": PRIOR, "resampling": "deal",
            "pool_flags": sorted(d.pool_flags()), "core": sorted(d.core) if d.core is not None else None,
            "groups": [sorted(g) for g in d.groups] if d.separated else None}


def compute_ratings(db: sqlite_utils.Database, tid: int, *, bootstrap: int = BOOTSTRAP, seed: int = 0,
                    samples: list[list[float]] | None = None, inputs: dict | None = None,
                    errors: tuple[str, ...] = _ratings.ERRORS) -> dict:
    """The headline ratings of a tournament from its finished boards, one list per interval kind
    in `errors` from one bootstrap, without writing anything (`samples`: the bootstrap's fits, if
    made already, see `_ratings.bootstrap_samples`, from `inputs`, the `rating_inputs` they were
    made from)."""
    r = inputs if inputs is not None else rating_inputs(db, tid)
    pool = rating_pool(r)
    if samples is None:
        samples = pool.samples(seed, 0, bootstrap)
    fits = {kind: pool.ratings(bootstrap=bootstrap, seed=seed, samples=samples, errors=kind, names=r["labels"])
            for kind in errors}
    return {**r, "ratings": fits, "params": rating_params(r, bootstrap, seed)}
