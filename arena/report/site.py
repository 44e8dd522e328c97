"""`arena report`: a tournament's pages as a static site that opens from disk (file://).

A browser will not fetch() files from disk, but it runs scripts: each page's data is written as
`data/KEY.js`, a script that hands its JSON to the app (`ZA_DATA(key, {...})`), and the app
adds the script when a page needs it. The app's modules and the tournament's game viewer are
written as one script beside (`bundle`: a page from disk runs no module); `mode.js` tells
the app to read data files instead of asking a server, and which page to open on (the
tournament's). Nothing refers outside the folder, and no page holds a local path.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sqlite_utils

from arena.errors import ArenaError
from arena.report import bundle, pages, views
from arena.report.server import STATIC, finite
from arena.results import read, web_queries

BUNDLE = "app.bundle.js"


def report_shell() -> bytes:
    """The app's page as a report has it: the bundle as a classic script instead of the module."""
    shell = (STATIC / "index.html").read_bytes()
    module = b'<script type="module" src="static/app.js"></script>'
    assert module in shell
    return shell.replace(module, f'<script src="static/{BUNDLE}"></script>'.encode())


def data_file(key: str) -> str:
    """The file a page's data is written to; the app computes the same name (app.js dataFile)."""
    return "data/" + key.replace("/", "-") + ".js"


def _script(key: str, value: Any) -> str:
    text = json.dumps(finite(value), ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    # JSON is JavaScript; U+2028/9 are escaped all the same, for older engines.
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"ZA_DATA({json.dumps(key)}, {text});\n"


def write_site(db: sqlite_utils.Database, name: str, output: Path,
               progress: Callable[[int, int], None] | None = None, *, show_stderr: bool = False,
               league: Callable[[sqlite_utils.Database, int], dict] | None = None) -> dict[str, Any]:
    """Write tournament `name`'s pages to `output`; returns counts of pages and deals written
    (and `viewer_skipped`: why the game's viewer was left out, the generic one drawing its deals).
    `show_stderr`: a league's bots' stderr too (see pages.page). `league`: for a league's
    tournament, what reads the league view's data (arena.league: the layer above), which the
    report then opens on, as the league's server does."""
    with web_queries.snapshot(db):  # a tournament still running is written as one moment of it
        return _write(db, name, output, progress, show_stderr, league)


def _write(db: sqlite_utils.Database, name: str, output: Path,
           progress: Callable[[int, int], None] | None, show_stderr: bool,
           league: Callable[[sqlite_utils.Database, int], dict] | None = None) -> dict[str, Any]:
    t = read.get_tournament(db, name)
    tid = t["id"]
    output.mkdir(parents=True, exist_ok=True)
    (output / "data").mkdir(exist_ok=True)
    (output / "static").mkdir(exist_ok=True)
    for path in STATIC.iterdir():
        if path.is_file() and path.suffix not in (".html", ".js"):
            shutil.copyfile(path, output / "static" / path.name)
    # The app's modules and its game's viewer as one script (a page from disk runs no module).
    game = pages.game_name(t)
    viewer = views.viewer_file(game)
    skipped: str | None = None
    try:
        script = bundle.bundle(STATIC, "app.js", {game: viewer} if viewer is not None else {})
    except ArenaError as exc:  # a viewer in a form the bundle cannot take: the generic viewer draws the game
        if viewer is None:
            raise
        script, skipped = bundle.bundle(STATIC, "app.js", {}), str(exc)
    (output / "static" / BUNDLE).write_text(script, encoding="utf-8")
    style = views.viewer_style_file(game) if viewer is not None and skipped is None else None
    if style is not None:  # where the pages ask for it (views.viewer_style_url), as from a server
        (output / "viewers").mkdir(exist_ok=True)
        shutil.copyfile(style, output / f"viewers/{game}.css")
    (output / "index.html").write_bytes(report_shell())
    # The report opens on its tournament (index.html without an address's #...), a league's on its view.
    start = 'window.ZA_HOME = "league";\n' if league is not None else f'window.ZA_START = "t={tid}";\n'
    (output / "mode.js").write_text('window.ZA_MODE = "files";\n' + start, encoding="utf-8")

    memo: dict = {}  # the standings and crosstable once for every page

    def put(key: str, value: Any = None) -> Any:
        """Write the view `key` (the server's, `pages.page`), or `value` under its name."""
        if value is None:
            value = pages.page(db, key, memo, show_stderr=show_stderr)
        (output / data_file(key)).write_text(_script(key, value), encoding="utf-8")
        return value

    put("tournaments", pages.tournaments(db, pages.Reads(db, memo), only=tid))  # this one alone
    put(f"t/{tid}")
    written = 2
    if league is not None:  # nothing plays in a report: what played is in the matches
        put("league", {**league(db, tid), "tid": tid, "playing": [], "waiting": [], "data_version": "report"})
        written += 1
    for bot in t["bots"]:
        put(f"t/{tid}/bot/{bot['id']}")
        written += 1
    deal_ids = []
    for m in read.schedule(db, tid):
        match = put(f"t/{tid}/match/{m['match_no']}")
        written += 1
        deal_ids += [d for b in match["match"]["boards"] for tb in b["tables"] for d in tb["deal_ids"]]
    for n, deal_id in enumerate(deal_ids, start=1):
        put(f"deal/{deal_id}")
        if progress is not None:
            progress(n, len(deal_ids))
    return {"pages": written, "deals": len(deal_ids), **({"viewer_skipped": skipped} if skipped else {})}
