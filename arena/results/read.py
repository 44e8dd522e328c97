"""Reading results back: the tournaments, their boards, standings, crosstable and deals.

Every listing of the CLI (and later the report) reads through here; nothing here writes.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import sqlite_utils

import engine
from arena.errors import ArenaError
from arena.results import compact
from arena.results import ratings as _ratings
from arena.results.registry import bot_sha256
from arena.results.schema import BT_METHOD


def _tournament_row(row: dict) -> dict:
    row = dict(row)
    row["seed"] = int(row["seed"])
    row["variant"] = json.loads(row["variant"])
    row["settings"] = json.loads(row["settings"])
    return row


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
        "SELECT COUNT(*) FROM tables JOIN matches m ON m.id = tables.match_id WHERE m.tournament_id = ?", [tid]
    ).fetchone()
    return t


def list_tournaments(db: sqlite_utils.Database) -> list[dict]:
    """Every tournament, oldest first, with its progress."""
    ids = [r[0] for r in db.execute("SELECT id FROM tournaments ORDER BY id")]
    return [get_tournament(db, tid) for tid in ids]


def schedule(db: sqlite_utils.Database, tid: int) -> list[dict]:
    """The stored matches of a tournament in order: match_no, team_a, team_b (bot ids)."""
    return [
        {"match_no": r[0], "team_a": [r[1], r[2]], "team_b": [r[3], r[4]]}
        for r in db.execute(
            "SELECT match_no, a0, a1, b0, b1 FROM matches WHERE tournament_id = ? ORDER BY match_no", [tid]
        )
    ]


def done_tables(db: sqlite_utils.Database, tid: int) -> set[tuple[int, int, bool]]:
    """(match_no, board_no, swapped) of every table already stored: the runner skips these."""
    return {
        (match_no, board_no, bool(swapped))
        for match_no, board_no, swapped in db.execute(
            "SELECT m.match_no, t.board_no, t.swapped FROM tables t JOIN matches m ON m.id = t.match_id"
            " WHERE m.tournament_id = ?",
            [tid],
        )
    }


def board_results(db: sqlite_utils.Database, tid: int) -> list[dict]:
    """Finished boards in canonical order (match_no, board_no), with both teams' bot ids."""
    return [
        {
            "board_id": r["id"], "match_no": r["match_no"], "board_no": r["board_no"], "seed": int(r["seed"]),
            "team_a": [r["a0"], r["a1"]], "team_b": [r["b0"], r["b1"]],
            "margin": r["margin"], "outcome": r["outcome"],
        }
        for r in db.query(
            "SELECT b.id, m.match_no, b.board_no, b.seed, m.a0, m.a1, m.b0, m.b1, b.margin, b.outcome"
            " FROM boards b JOIN matches m ON m.id = b.match_id WHERE m.tournament_id = ?"
            " ORDER BY m.match_no, b.board_no",
            [tid],
        )
    ]


def rating_history(db: sqlite_utils.Database, tid: int) -> list[dict]:
    """The stored sequential Elo after each board: rows of seq, board_id, bot, elo."""
    return [
        dict(r)
        for r in db.query(
            "SELECT h.seq, h.board_id, h.bot_id, b.name || '@' || b.version AS bot, h.elo"
            " FROM rating_history h JOIN bots b ON b.id = h.bot_id WHERE h.tournament_id = ? ORDER BY h.seq, h.bot_id",
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


def _faults(db: sqlite_utils.Database, tid: int) -> dict[int, tuple[int, int]]:
    """Per bot: (tables it sat at, tables where it faulted)."""
    return {
        bot: (tables, faults)
        for bot, tables, faults in db.execute(
            "SELECT bot_id, COUNT(*), SUM(faulted) FROM ("
            "  SELECT s.bot_id, s.table_id, MAX(s.status != 'ok') AS faulted FROM seats s"
            "  JOIN tables t ON t.id = s.table_id JOIN matches m ON m.id = t.match_id"
            "  WHERE m.tournament_id = ? GROUP BY s.bot_id, s.table_id"
            ") GROUP BY bot_id",
            [tid],
        )
    }


def _stored_ratings(db: sqlite_utils.Database, tid: int) -> dict[int, dict] | None:
    """The stored headline ratings, or None when missing or older than the last board."""
    rows = list(db.query("SELECT * FROM ratings WHERE tournament_id = ? AND method = ?", [tid, BT_METHOD]))
    (n,) = db.execute(
        "SELECT COUNT(*) FROM boards b JOIN matches m ON m.id = b.match_id WHERE m.tournament_id = ?", [tid]
    ).fetchone()
    if not rows or any(r["boards"] != n for r in rows):
        return None
    return {r["bot_id"]: r for r in rows}


def standings(db: sqlite_utils.Database, tid: int) -> list[dict]:
    """The table: rank, bot, Elo with its 95% interval, boards, W/D/L, margin, faults.

    Uses the stored ratings when they are up to date; otherwise computes them (not stored).
    """
    rated = _stored_ratings(db, tid)
    if rated is None:
        headline = compute_ratings(db, tid)["headline"]
        rated = {
            h.bot: {"elo": h.elo, "ci_low": h.ci_low, "ci_high": h.ci_high, "los_next": h.los_next}
            for h in headline
        }
    labels = _bot_labels(db, tid)
    stats = {bot: {"boards": 0, "wins": 0, "draws": 0, "losses": 0, "margin": 0} for bot in labels}
    for b in board_results(db, tid):
        a, bb = set(b["team_a"]), set(b["team_b"])
        for team, sign in ((a - bb, 1), (bb - a, -1)):
            for bot in team:
                s = stats[bot]
                s["boards"] += 1
                s["margin"] += sign * b["margin"]
                result = b["outcome"] if sign == 1 else {"win": "loss", "loss": "win", "draw": "draw"}[b["outcome"]]
                s[{"win": "wins", "draw": "draws", "loss": "losses"}[result]] += 1
    faults = _faults(db, tid)
    rows = []
    for bot, label in labels.items():
        s = stats[bot]
        r = rated.get(bot, {"elo": 0.0, "ci_low": None, "ci_high": None, "los_next": None})
        tables, faulted = faults.get(bot, (0, 0))
        rows.append({
            "bot": label, "bot_id": bot, "elo": r["elo"], "ci_low": r["ci_low"], "ci_high": r["ci_high"],
            "los_next": r["los_next"], "boards": s["boards"], "wins": s["wins"], "draws": s["draws"],
            "losses": s["losses"], "avg_margin": s["margin"] / s["boards"] if s["boards"] else 0.0,
            "tables": tables, "faults": faulted, "fault_flag": tables > 0 and faulted > 0.1 * tables,
        })
    rows.sort(key=lambda r: (-r["elo"], str(r["bot_id"])))  # the ratings' order, so LOS is the next row
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    return [{"rank": r.pop("rank"), **r} for r in rows]


def crosstable(db: sqlite_utils.Database, tid: int) -> dict:
    """Head-to-head results between every two bots (in standings order), from the row's view.

    With mixed partnerships every member of one team meets every member of the other on a board.
    """
    order = [r["bot_id"] for r in standings(db, tid)]
    labels = _bot_labels(db, tid)
    cells: dict[tuple[int, int], dict] = {}
    for b in board_results(db, tid):
        a, bb = set(b["team_a"]), set(b["team_b"])
        for x in a - bb:
            for y in bb - a:
                for row, col, sign in ((x, y, 1), (y, x, -1)):
                    c = cells.setdefault((row, col), {"boards": 0, "wins": 0, "draws": 0, "losses": 0, "margin": 0})
                    c["boards"] += 1
                    c["margin"] += sign * b["margin"]
                    res = b["outcome"] if sign == 1 else {"win": "loss", "loss": "win", "draw": "draw"}[b["outcome"]]
                    c[{"win": "wins", "draw": "draws", "loss": "losses"}[res]] += 1
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
    """Every match with both teams, boards done and team A's W/D/L and margin; `bot` filters."""
    labels = _bot_labels(db, tid)
    bot_id = None
    if bot is not None:
        by_label = {v: k for k, v in labels.items()}
        if bot in by_label:
            bot_id = by_label[bot]
        else:
            candidates = [k for k, v in labels.items() if v.split("@")[0] == bot]
            if len(candidates) != 1:
                raise ArenaError(
                    f"unknown bot '{bot}' in this tournament (known: {', '.join(sorted(labels.values()))})"
                )
            bot_id = candidates[0]
    per_board = int(db.execute("SELECT boards FROM tournaments WHERE id = ?", [tid]).fetchone()[0])
    faults = {
        match_id: n
        for match_id, n in db.execute(
            "SELECT t.match_id, COUNT(*) FROM seats s JOIN tables t ON t.id = s.table_id"
            " JOIN matches m ON m.id = t.match_id WHERE m.tournament_id = ? AND s.status != 'ok' GROUP BY t.match_id",
            [tid],
        )
    }
    out = []
    for m in db.query(
        "SELECT m.*, COUNT(b.id) AS boards_done, COALESCE(SUM(b.outcome = 'win'), 0) AS wins,"
        " COALESCE(SUM(b.outcome = 'draw'), 0) AS draws, COALESCE(SUM(b.outcome = 'loss'), 0) AS losses,"
        " COALESCE(SUM(b.margin), 0) AS margin FROM matches m LEFT JOIN boards b ON b.match_id = m.id"
        " WHERE m.tournament_id = ? GROUP BY m.id ORDER BY m.match_no",
        [tid],
    ):
        members = {m["a0"], m["a1"], m["b0"], m["b1"]}
        if bot_id is not None and bot_id not in members:
            continue
        out.append({
            "match_no": m["match_no"],
            "team_a": [labels[m["a0"]], labels[m["a1"]]], "team_b": [labels[m["b0"]], labels[m["b1"]]],
            "boards": per_board, "boards_done": m["boards_done"],
            "wins": m["wins"], "draws": m["draws"], "losses": m["losses"], "margin": m["margin"],
            "faults": faults.get(m["id"], 0),
        })
    return out


def match_detail(db: sqlite_utils.Database, tid: int, match_no: int) -> dict:
    """One match, board by board, with each table's points, faults and deal ids (for replay)."""
    m = _match(db, tid, match_no)
    labels = _bot_labels(db, tid)
    boards = {r["board_no"]: r for r in db.query("SELECT * FROM boards WHERE match_id = ?", [m["id"]])}
    detail: dict[int, dict] = {}
    for t in db.query("SELECT * FROM tables WHERE match_id = ? ORDER BY board_no, swapped", [m["id"]]):
        b = detail.setdefault(t["board_no"], {
            "board_no": t["board_no"], "seed": int(t["board_seed"]),
            "margin": boards[t["board_no"]]["margin"] if t["board_no"] in boards else None,
            "outcome": boards[t["board_no"]]["outcome"] if t["board_no"] in boards else None,
            "tables": [],
        })
        seats = list(db.query("SELECT seat, bot_id, status, detail FROM seats WHERE table_id = ? ORDER BY seat", [t["id"]]))
        b["tables"].append({
            "table_id": t["id"], "swapped": bool(t["swapped"]), "points": [t["points0"], t["points1"]],
            "forfeit": None if t["forfeit"] is None else json.loads(t["forfeit"]),
            "seats": [labels[s["bot_id"]] for s in seats],
            "faults": [{"seat": s["seat"], "status": s["status"], "detail": s["detail"]} for s in seats if s["status"] != "ok"],
            "deal_ids": [r[0] for r in db.execute("SELECT id FROM deals WHERE table_id = ? ORDER BY number", [t["id"]])],
            "duration_s": t["duration_s"],
        })
    return {
        "match_no": match_no,
        "team_a": [labels[m["a0"]], labels[m["a1"]]], "team_b": [labels[m["b0"]], labels[m["b1"]]],
        "boards": [detail[k] for k in sorted(detail)],
    }


def get_deal(db: sqlite_utils.Database, deal_id: int) -> dict:
    """Everything needed to replay a stored deal: variant, seed, dealer, moves, seats, bots."""
    rows = list(db.query(
        "SELECT d.*, t.id AS table_id, t.board_no, t.swapped, t.points0, t.points1, t.forfeit,"
        " m.match_no, m.tournament_id, tn.name AS tournament, tn.variant, tn.format"
        " FROM deals d JOIN tables t ON t.id = d.table_id JOIN matches m ON m.id = t.match_id"
        " JOIN tournaments tn ON tn.id = m.tournament_id WHERE d.id = ?",
        [deal_id],
    ))
    if not rows:
        (top,) = db.execute("SELECT MAX(id) FROM deals").fetchone()
        known = f"deal ids run 1..{top}" if top else "no deals stored yet"
        raise ArenaError(f"unknown deal {deal_id} ({known})")
    d = rows[0]
    played = compact.deal(db, deal_id, engine.variant(json.loads(d["variant"])))
    assert played is not None
    seats = [
        {
            "seat": s["seat"], "bot_id": s["bot_id"], "bot": s["bot"], "bot_version": s["bot_version"],
            "name": s["name"], "version": s["version"], "status": s["status"], "detail": s["detail"],
        }
        for s in db.query(
            "SELECT s.*, b.name AS bot, b.version AS bot_version FROM seats s JOIN bots b ON b.id = s.bot_id"
            " WHERE s.table_id = ? ORDER BY s.seat",
            [d["table_id"]],
        )
    ]
    return {
        "id": d["id"], "tournament": d["tournament"], "tournament_id": d["tournament_id"],
        "format": d["format"], "match_no": d["match_no"], "board_no": d["board_no"],
        "swapped": bool(d["swapped"]), "table_id": d["table_id"], "number": d["number"],
        "variant": json.loads(d["variant"]), "seed": int(d["seed"]), "dealer": d["dealer"],
        "points": played["points"], "breakdown": played["breakdown"],
        "moves": played["moves"], "complete": bool(d["complete"]), "seats": seats,
        "table_points": [d["points0"], d["points1"]],
        "forfeit": None if d["forfeit"] is None else json.loads(d["forfeit"]),
    }


def _match(db: sqlite_utils.Database, tid: int, match_no: int) -> dict:
    rows = list(db.query("SELECT * FROM matches WHERE tournament_id = ? AND match_no = ?", [tid, match_no]))
    if not rows:
        raise ArenaError(f"tournament {tid} has no match {match_no}")
    return rows[0]


_SCORE = {"win": 1.0, "draw": 0.5, "loss": 0.0}


BUNDLED_RANDOM = Path(__file__).resolve().parents[2] / "bots" / "random_bot.py"


@functools.cache
def _bundled_random_sha256() -> str | None:
    try:
        return bot_sha256(BUNDLED_RANDOM)
    except OSError:
        return None


def _anchor_bot(db: sqlite_utils.Database, tid: int) -> int | None:
    """The bundled random bot (named "random") anchors the scale when it takes part: the
    "random" whose file is the bundled bots/random_bot.py, else the latest "random" (others may
    share the name: a random_bot.cjs registered by its path is "random" too)."""
    rows = db.execute(
        "SELECT b.id, b.sha256 FROM tournament_bots tb JOIN bots b ON b.id = tb.bot_id"
        " WHERE tb.tournament_id = ? AND b.name = 'random' ORDER BY b.version DESC",
        [tid],
    ).fetchall()
    if not rows:
        return None
    bundled = _bundled_random_sha256()
    return next((bot_id for bot_id, sha in rows if sha == bundled), rows[0][0])


BOOTSTRAP = 1000
"""Resamples behind the headline rating's intervals (and the likelihood of superiority)."""


def rating_inputs(db: sqlite_utils.Database, tid: int) -> dict:
    """What the ratings are computed from: the finished boards, the bots, the anchor bot."""
    boards = board_results(db, tid)
    bots = [r[0] for r in db.execute("SELECT bot_id FROM tournament_bots WHERE tournament_id = ? ORDER BY bot_id", [tid])]
    results = [_ratings.BoardResult(tuple(b["team_a"]), tuple(b["team_b"]), _SCORE[b["outcome"]]) for b in boards]
    return {"boards": boards, "bots": bots, "results": results, "anchor": _anchor_bot(db, tid)}


def compute_ratings(db: sqlite_utils.Database, tid: int, *, k: float = 16, bootstrap: int = BOOTSTRAP, seed: int = 0,
                    samples: list[list[float]] | None = None, inputs: dict | None = None) -> dict:
    """Both ratings of a tournament from its finished boards, without writing anything
    (`samples`: the bootstrap's fits, if made already, see `_ratings.bootstrap_samples`, from
    `inputs`, the `rating_inputs` they were made from)."""
    r = inputs if inputs is not None else rating_inputs(db, tid)
    headline = _ratings.bradley_terry(r["results"], r["bots"], anchor=r["anchor"], bootstrap=bootstrap, seed=seed,
                                      samples=samples)
    final, history = _ratings.sequential_elo(r["results"], r["bots"], k=k)
    return {"boards": r["boards"], "bots": r["bots"], "anchor": r["anchor"], "headline": headline,
            "sequential": final, "history": history, "k": k}
