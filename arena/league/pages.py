"""The league's pages: their data (`league_document`, read through arena.results) and their
HTML, drawn here as pure functions of that data, in the tournament pages' look (the report's
style.css). Every text that comes from an author or a bot is escaped. The league page is public:
standings with intervals, the matches in play, recent results and each bot's rating across its
versions; nothing on it is a bot's code, stderr or check output. The author page is a shell
that its script fills from `/api/me` with the author's token (static/author.js).
"""

from __future__ import annotations

import html
import json
import math
from typing import Any

import sqlite_utils

from arena.league import store
from arena.results import read, replay

RECENT = 20
COLOURS = ["#2456a6", "#1e7a46", "#b42318", "#b54708", "#6941c6", "#0e7090", "#c11574", "#475467"]


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


def _elo(x: float | None) -> str:
    return "-" if x is None else f"{x:+.0f}" if round(x) else "0"


def _interval(row: dict) -> str:
    if row.get("more_than") is not None:
        return f"&gt; {_elo(row['more_than'])}"
    if row.get("less_than") is not None:
        return f"&lt; {_elo(row['less_than'])}"
    if row.get("ci_low") is None:
        return "-"
    return f"{_elo(row['ci_low'])} .. {_elo(row['ci_high'])}"


def _team(names: list[str]) -> str:
    return _e(names[0] if names[0] == names[1] else " + ".join(names))


def _shell(title: str, body: str, *, script: str | None = None) -> str:
    scripts = f'<script src="/static/{script}"></script>' if script else ""
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{_e(title)}</title>'
            f'<link rel="icon" href="data:,"><link rel="stylesheet" href="/static/style.css">'
            f'<link rel="stylesheet" href="/static/league.css"></head><body>'
            f'<header class="top"><a class="brand" href="/">Zwicker Arena</a><nav id="crumbs">'
            f'<a href="/">league</a><span class="sep">/</span><a href="/author">my bots</a></nav>'
            f'<span id="live" class="live">live</span></header><main id="main">{body}</main>{scripts}</body></html>')


def league_main(doc: dict[str, Any], playing: list[dict], waiting: list[str]) -> str:
    """The league page's content: what its script swaps in when it polls."""
    rows = []
    for r in doc["standings"]:
        state = "" if r["active"] else ' <span class="badge">retired</span>' if r["retired"] else \
            ' <span class="badge">replaced</span>'
        rows.append(
            f'<tr><td class="num">{r["rank"]}</td><td class="bot">{_e(r["bot"])}{state}</td>'
            f'<td>{_e(r["author"] or "")}</td><td class="num">{_elo(r["elo"])}</td>'
            f'<td class="num">{_interval(r)}</td><td class="num">{r["boards"]}</td>'
            f'<td class="num wide">{r["wins"]}</td><td class="num wide">{r["draws"]}</td>'
            f'<td class="num wide">{r["losses"]}</td><td class="num wide">{r["avg_margin"]:+.1f}</td>'
            f'<td class="num">{r["faults"]}</td></tr>')
    standings = (
        '<table id="standings"><thead><tr><th>#</th><th>bot</th><th>author</th><th class="num">elo</th>'
        '<th class="num">95% interval</th><th class="num">boards</th><th class="num wide">W</th>'
        '<th class="num wide">D</th><th class="num wide">L</th><th class="num wide">margin</th>'
        '<th class="num">faults</th></tr></thead><tbody>'
        + "".join(rows) + "</tbody></table>") if rows else '<p class="muted">No bots yet.</p>'
    anchor = f"0 = {_e(doc['anchor'])}" if doc.get("anchor") else "0 = the pool's mean"
    play_rows = "".join(
        f'<tr><td class="num">{m["match_no"]}</td><td>{_e(m["a"])}</td><td>{_e(m["b"])}</td>'
        f'<td class="num">{m["tables"] // 2}/{m["boards"]}</td></tr>' for m in playing)
    in_play = ('<table id="playing"><thead><tr><th>match</th><th>A</th><th>B</th><th class="num">boards</th></tr>'
               f'</thead><tbody>{play_rows}</tbody></table>') if playing else '<p class="muted">Nothing in play.</p>'
    wait = f'<p class="muted">Waiting for first matches: {_e(", ".join(waiting))}</p>' if waiting else ""
    recent_rows = "".join(
        f'<tr><td class="num"><a href="/match/{m["match_no"]}">{m["match_no"]}</a></td><td>{_team(m["team_a"])}</td>'
        f'<td>{_team(m["team_b"])}</td><td class="num">{m["wins"]}-{m["draws"]}-{m["losses"]}</td>'
        f'<td class="num">{m["margin"]:+d}</td><td class="num">{m["faults"]}</td></tr>' for m in doc["recent"])
    recent = ('<table id="recent"><thead><tr><th>match</th><th>A</th><th>B</th><th class="num">A: W-D-L</th>'
              f'<th class="num">margin</th><th class="num">faults</th></tr></thead><tbody>{recent_rows}</tbody></table>'
              ) if doc["recent"] else '<p class="muted">No match finished yet.</p>'
    return (
        f'<div class="page-head"><h1>{_e(doc["league"])}</h1><span class="muted">{doc["matches"]} matches, '
        f'{doc["boards_done"]} boards, {doc["boards_per_match"]} boards a match</span></div>'
        f'<section class="card"><h2>Standings</h2>{standings}<p class="muted">Elo (Bradley-Terry over every board; '
        f'{anchor}) with its 95% bootstrap interval. The version of each bot its author submitted last plays.</p></section>'
        f'<div class="grid2"><section class="card"><h2>In play</h2>{in_play}{wait}</section>'
        f'<section class="card"><h2>Rating history</h2>{history_svg(doc["history"])}</section></div>'
        f'<section class="card"><h2>Recent results</h2>{recent}</section>')


def league_page(doc: dict[str, Any], playing: list[dict], waiting: list[str]) -> str:
    return _shell(f"{doc['league']}: Zwicker Arena league", league_main(doc, playing, waiting), script="league.js")


def history_svg(history: dict[str, list[dict]], width: int = 360, height: int = 200) -> str:
    """Each bot's Elo over the league's growing record, one line per name; a dot where a new
    version takes over (each version is its own line segment). Drawn small (360 wide, scaled
    to the card) so that its axis labels stay readable on a phone; the names are a legend in
    HTML under it, which wraps instead of shrinking."""
    points = [p for line in history.values() for p in line]
    if not points:
        return '<p class="muted">No ratings yet.</p>'
    x_max = max(p["point"] for p in points) or 1
    lo, hi = min(p["elo"] for p in points), max(p["elo"] for p in points)
    if hi - lo < 50:
        lo, hi = lo - 25, hi + 25

    def xy(p: dict) -> str:
        x = 40 + (width - 50) * (p["point"] - 1) / max(x_max - 1, 1)
        y = 10 + (height - 30) * (hi - p["elo"]) / (hi - lo)
        return f"{x:.1f},{y:.1f}"

    parts = [f'<svg viewBox="0 0 {width} {height}" width="100%" role="img" aria-label="rating history">',
             f'<text x="2" y="16" font-size="13">{_elo(hi)}</text><text x="2" y="{height - 18}" font-size="13">'
             f'{_elo(lo)}</text>']
    legend = []
    for k, (name, line) in enumerate(sorted(history.items())):
        colour = COLOURS[k % len(COLOURS)]
        by_version: dict[int, list[dict]] = {}
        for p in line:
            by_version.setdefault(p["version"], []).append(p)
        for version, segment in sorted(by_version.items()):
            coords = " ".join(xy(p) for p in segment)
            parts.append(f'<polyline fill="none" stroke="{colour}" stroke-width="2" points="{coords}">'
                         f'<title>{_e(name)}@{version}</title></polyline>')
            parts.append(f'<circle cx="{xy(segment[0]).split(",")[0]}" cy="{xy(segment[0]).split(",")[1]}" r="3"'
                         f' fill="{colour}"><title>{_e(name)}@{version}</title></circle>')
        legend.append(f'<span class="key"><svg width="12" height="12" aria-hidden="true"><rect width="12" height="12"'
                      f' rx="2" fill="{colour}"/></svg> {_e(name)}@{line[-1]["version"]}</span>')
    parts.append("</svg>")
    return '<div class="history">' + "".join(parts) + f'<p class="legend">{" ".join(legend)}</p></div>'


def match_page(league: str, detail: dict) -> str:
    """One match board by board, each table's deals linked to their replays (public)."""
    rows = []
    for b in detail["boards"]:
        for t in b["tables"]:
            deals = " ".join(f'<a href="/replay/{d}">{d}</a>' for d in t["deal_ids"])
            faults = "; ".join(f'{_e(f["bot"])}: {_e(f["status"])}' for f in t["faults"])
            rows.append(f'<tr><td class="num">{b["board_no"]}</td><td>{"swapped" if t["swapped"] else "straight"}</td>'
                        f'<td class="num">{t["points"][0]}:{t["points"][1]}</td><td class="num">'
                        f'{"" if b["margin"] is None else b["margin"]}</td><td>{faults}</td><td>{deals}</td></tr>')
    body = (f'<div class="page-head"><h1>match {detail["match_no"]}</h1><span class="muted">'
            f'{_team(detail["team_a"])} v {_team(detail["team_b"])}</span></div><section class="card"><table><thead>'
            '<tr><th>board</th><th>room</th><th class="num">side 0:1</th><th class="num">A margin</th><th>faults</th>'
            f'<th>deals (replay)</th></tr></thead><tbody>{"".join(rows)}</tbody></table></section>')
    return _shell(f"{league}: match {detail['match_no']}", body)


def replay_page(db: sqlite_utils.Database, deal_id: int) -> str:
    """A stored deal move by move, as `arena replay` prints it: the public view of play."""
    doc = replay.document(db, deal_id)
    text = "\n".join(replay.render(doc))
    body = (f'<div class="page-head"><h1>deal {deal_id}</h1><span class="muted">match {doc["match"]}, board '
            f'{doc["board"]}</span></div><section class="card"><pre class="mono">{_e(text)}</pre></section>')
    return _shell(f"deal {deal_id}", body)


def author_page() -> str:
    body = (
        '<div class="page-head"><h1>My bots</h1></div>'
        '<section class="card"><h2>Token</h2><form id="token-form"><input id="token" type="password" size="60" '
        'autocomplete="off" placeholder="zwl_..." aria-label="your token"> <button type="submit">Show my bots</button>'
        '</form><p class="muted">The organiser gives you a token (arena league author add). It stays in this tab.</p>'
        '</section>'
        '<section class="card"><h2>Submit a bot</h2><form id="submit-form"><label>name <input id="bot-name" '
        'name="name" required></label> <label>file <input id="bot-file" name="archive" type="file" required></label>'
        ' <button type="submit">Submit</button></form><p class="muted">One bot file, or a folder packed as .tar or '
        '.tar.gz (at most the server\'s size and file limits). It is checked in the sandbox before it is stored.</p>'
        '<p id="submit-result" role="status"></p><pre id="submit-check" class="stderr" hidden></pre></section>'
        '<section class="card"><h2>Bots</h2><div id="my-bots"><p class="muted">Enter your token.</p></div></section>')
    return _shell("My bots: Zwicker Arena league", body, script="author.js")


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
