"""The games the arena hosts, found by name; `games.api` says what a game gives.

    >>> import games
    >>> g = games.game("zwicker")
    >>> v = g.variant("jensen")

A game module registers one `GAME` object. Besides the games bundled here, any installed
distribution may add one through the entry point group `zwicker_arena.games`
(`name = "package.module:GAME"`).
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from importlib.metadata import entry_points
from typing import Any

from games.api import (BadPosition, BadVariant, Board, Game, GameError, IllegalMove, Info, Json,
                       Layout, Move, Result, State, UnknownGame, Variant)

BUNDLED = {"zwicker": "games.zwicker", "zwicken": "games.zwicken"}
DEFAULT = "zwicker"
ENTRY_POINTS = "zwicker_arena.games"

_loaded: dict[str, Game] = {}


def names() -> list[str]:
    """Every game that can be loaded here, bundled first."""
    found = list(BUNDLED)
    found += sorted(ep.name for ep in entry_points(group=ENTRY_POINTS) if ep.name not in BUNDLED)
    return found


def game(name: str | None = None) -> Game:
    """The game called `name` (default: zwicker); UnknownGame names the ones there are."""
    name = DEFAULT if name is None else str(name).strip().lower()
    if name in _loaded:
        return _loaded[name]
    target = BUNDLED.get(name)
    if target is None:
        for ep in entry_points(group=ENTRY_POINTS):
            if ep.name == name:
                target = ep.value
                break
    if target is None:
        raise UnknownGame(f"unknown game {name!r} (installed: {', '.join(names())})")
    module, _, attr = target.partition(":")
    try:
        found = getattr(importlib.import_module(module), attr or "GAME")
    except (ImportError, AttributeError) as exc:
        raise UnknownGame(f"game {name!r} is not installed ({exc})") from None
    _loaded[name] = found
    return found


def load(spec: str | Mapping[str, Any] | None = None, game_name: str | None = None) -> tuple[Game, Variant]:
    """A game and its variant from one spec: "zwicken", "zwicken:players=5,welli=false",
    {"game": "zwicken", "players": 5}. A dict without "game" (every stored tournament from
    before there were games) is Zwicker's."""
    if isinstance(spec, Mapping):
        spec = dict(spec)
        g = game(spec.pop("game", game_name))
        return g, g.variant(spec)
    if isinstance(spec, str) and game_name is None:
        text = spec.strip()
        # the longest installed name the spec starts with ("openspiel:hearts" holds a colon itself)
        for name in sorted(names(), key=len, reverse=True):
            head, rest = text[:len(name)], text[len(name):]
            if head.lower() == name and (not rest or rest.startswith(":")):
                g = game(name)
                return g, g.variant(rest[1:] if rest else None)
    g = game(game_name)
    return g, g.variant(spec)


__all__ = [
    "BUNDLED", "DEFAULT", "BadPosition", "BadVariant", "Board", "Game", "GameError", "IllegalMove",
    "Info", "Json", "Layout", "Move", "Result", "State", "UnknownGame", "Variant", "game", "load", "names",
]
