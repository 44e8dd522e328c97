"""What a view's route answers, and where a game's viewer comes from.

A view (a page key of `pages`: `t/3`, `deal/17`, ...) is one route that answers its page (the
static app, which draws it), its JSON or its server-sent events, by what the request accepts;
`?format=json` (or html) overrides the header. A game's replay viewer is the script module
its game object names (`viewer`: a file in the game's own folder), with the stylesheet beside
it if there is one (viewer.css); a game without one is drawn by the app's generic viewer, which
steps through its text frames.
"""

from __future__ import annotations

import re
from pathlib import Path

import games

GAME_NAME = re.compile(r"[a-z0-9][a-z0-9_.:-]{0,63}")  # (an outside game: "package:name", say)


def wanted(accept: str, fmt: str | None) -> str:
    """"html", "json" or "events": what a request for a view asks for."""
    if fmt in ("json", "html"):
        return fmt
    accept = accept.lower()
    if "text/event-stream" in accept:
        return "events"
    if "application/json" in accept and "text/html" not in accept:
        return "json"
    return "html"


def shell_at(shell: bytes, key: str) -> bytes:
    """The app's page for a view at its own address: the app's files named from the root, since
    the page is not at it (the app then opens the view the address names)."""
    return (shell.replace(b'href="static/', b'href="/static/').replace(b'src="static/', b'src="/static/')
            .replace(b'src="mode.js"', b'src="/mode.js"'))


def viewer_file(name: str) -> Path | None:
    """The script module game `name` draws its replays and tables with, or None."""
    if not GAME_NAME.fullmatch(name):
        return None
    try:
        path = games.extras(games.game(name)).viewer  # a file of the game's own folder
    except games.GameError:
        return None
    return path if path is not None and path.suffix == ".js" and path.is_file() else None


def viewer_style_file(name: str) -> Path | None:
    """The stylesheet beside game `name`'s viewer (viewer.css for viewer.js), or None."""
    path = viewer_file(name)
    style = path.with_suffix(".css") if path is not None else None
    return style if style is not None and style.is_file() else None


def viewer_style_url(name: str) -> str | None:
    """Where the pages load that stylesheet from (served and in a report alike), or None."""
    return f"viewers/{name}.css" if viewer_style_file(name) is not None else None


def viewer_url(name: str) -> str | None:
    """Where the pages load game `name`'s viewer from (served and in a report alike), or None:
    the generic viewer."""
    return f"viewers/{name}.js" if viewer_file(name) is not None else None
