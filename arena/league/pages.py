"""The league's own pages: the league view's data (`league_document`, read through
arena.results; the app's league.js draws it, arena/report/static) and the author's page. The
league view is public: standings with intervals, the matches in play, recent results and each
bot's rating across its versions; nothing in it is a bot's code, stderr or check output. The
author page is a shell that its script fills from `/api/me` with the author's token
(static/author.js); every text in it from an author or a bot is escaped or set as text.
"""

from __future__ import annotations

import html
import json
import math
from typing import Any

import sqlite_utils

from arena.league import store
from arena.results import read

RECENT = 20


def league_document(db: sqlite_utils.Database, tid: int) -> dict[str, Any]:
    """The league page's data, without what is in play (the ladder adds that as it asks)."""
    t = read.get_tournament(db, tid)
    versions = store.versions_of(db)
    authors = {r[0]: r[1] for r in db.execute(
        "SELECT b.id, a.name FROM bots b JOIN league_versions lv ON lv.bot_id = b.id"
        " JOIN league_authors a ON a.id = lv.author_id")}
    standings = read.standings_document(db, tid, boards=False) if t["bots"] else None
    rows = []
    for row in (standings or {}).get("standings", []):
        v = versions.get(row["bot_id"], {})
        rows.append({k: row[k] for k in ("rank", "bot", "bot_id", "elo", "ci_low", "ci_high", "more_than",
                                         "less_than", "boards", "wins", "draws", "losses", "avg_margin", "faults",
                                         "flags")}
                    | {"active": v.get("active", False), "retired": v.get("retired", False),
                       "author": authors.get(row["bot_id"]), "name": v.get("name", row["bot"]),
                       "version": v.get("version")})
    matches = read.matches(db, tid)
    finished = [m for m in matches if m["boards_done"] == m["boards"]]
    history: dict[str, list[dict]] = {}
    for p in read.progression(db, tid):
        v = versions.get(p["bot_id"])
        if v is not None:
            history.setdefault(v["name"], []).append({"point": p["point"], "boards": p["boards"],
                                                      "version": v["version"], "elo": p["elo"]})
    return {
        "league": t["name"], "boards_per_match": t["boards"], "matches": t["matches"], "boards_done": t["boards_done"],
        "variant": t["variant"], "standings": rows, "errors": (standings or {}).get("errors", "pool"),
        "anchor": (standings or {}).get("anchor"), "recent": finished[::-1][:RECENT], "history": history,
    }


def empty_document(t: dict) -> dict[str, Any]:
    """The league page's data before the first fit: the league's name and counts only."""
    return {"league": t["name"], "boards_per_match": t["boards"], "matches": t["matches"],
            "boards_done": t["boards_done"], "variant": t["variant"], "standings": [], "errors": "pool",
            "anchor": None, "recent": [], "history": {}}


# -- HTML ---------------------------------------------------------------------------------------

_e = html.escape


def _shell(title: str, body: str, *, script: str | None = None) -> str:
    """A page of the league's own (the author's), in the app's look and header."""
    scripts = f'<script src="/static/{script}"></script>' if script else ""
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{_e(title)}</title>'
            f'<link rel="icon" href="data:,"><link rel="stylesheet" href="/static/style.css"></head><body>'
            f'<header class="top"><a class="brand" href="/">Zwicker Arena</a><nav id="crumbs">'
            f'<a href="/">league</a><span class="sep">/</span><span>my bots</span></nav></header>'
            f'<main id="main">{body}</main>{scripts}</body></html>')


def author_page() -> str:
    body = (
        '<div class="page-head"><h1>My bots</h1></div>'
        '<section class="card"><h2>Token</h2><form id="token-form"><input id="token" type="password" size="60" '
        'autocomplete="off" placeholder="zwl_..." aria-label="your token"> <button type="submit">Show my bots</button>'
        '</form><p class="muted">The organiser gives you a token (arena league author add). It stays in this tab.</p>'
        '</section>'
        '<section class="card"><h2>Submit a bot</h2><form id="submit-form"><label>name <input id="bot-name" '
        'name="name" required></label> <label>file <input id="bot-file" name="archive" type="file" required></label>'
        ' <label>command <input id="bot-command" name="command" maxlength="1000" placeholder="java -jar bot.jar" '
        'aria-describedby="command-help"></label> <button type="submit">Submit</button></form>'
        '<p class="muted">One bot file, or a folder packed as .tar or .tar.gz (at most the server\'s size and file '
        'limits). It is checked in the sandbox before it is stored.</p><p class="muted" id="command-help">The '
        'command (optional) says how the bot runs in its folder where no bot.py, main.py, ... or executable bot does '
        '(a Java jar, say), as <code>arena submit --command</code> does.</p>'
        '<p id="submit-result" role="status"></p><pre id="submit-check" class="stderr" hidden></pre></section>'
        '<section class="card"><h2>Bots</h2><div id="my-bots"><p class="muted">Enter your token.</p></div></section>')
    return _shell("My bots: Zwicker Arena league", body, script="league/author.js")


def dumps(value: Any) -> str:
    """JSON for the API: seeds as text, NaN as null."""
    def clean(x: Any) -> Any:
        if isinstance(x, float) and not math.isfinite(x):
            return None
        if isinstance(x, dict):
            return {k: str(v) if k == "seed" and isinstance(v, int) else clean(v) for k, v in x.items()}
        if isinstance(x, list | tuple):
            return [clean(v) for v in x]
        return x
    return json.dumps(clean(value), ensure_ascii=False)
