"""The games the arena hosts, found by name; `games.api` says what a game gives.

    >>> import games
    >>> g = games.game("zwicker")
    >>> v = g.variant("jensen")

A game module registers one `GAME` object. Besides the games bundled here, any installed
distribution may add one through the entry point group `zwicker_arena.games`
(`name = "package.module:GAME"`); docs/adding-a-game.md tells how. `extras(game)` is what a game
brings beside its rules (its bots, its viewer, what a sandboxed bot may import), defaults filled
in; `RANDOM_BOT` is the arena's own random bot, which plays any game.
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

from games.api import (BadPosition, BadVariant, Board, Game, GameError, IllegalMove, Info, Json,
                       Layout, Move, Result, State, UnknownGame, Variant)

BUNDLED = {"zwicker": "games.zwicker", "zwicken": "games.zwicken"}
DEFAULT = "zwicker"
"""The game a command plays where none is named (`--game`)."""
ORIGINAL = "zwicker"
"""The game of every record stored without one: the arena hosted only this game before it had
`games` (a tournament, a job or a message from then names none)."""
ENTRY_POINTS = "zwicker_arena.games"

ROOT = Path(__file__).resolve().parents[1]
RANDOM_BOT = ROOT / "bots" / "random_bot.py"
RANDOM_NAME = "random"
"""The arena's random bot (a random legal move of any game) and the name it is registered under:
`arena bot check` seats it, and it anchors the ratings of a game that names no anchor."""

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


@dataclass(frozen=True)
class Extras:
    """What a game brings beside its rules (games.api, "Optional, what the arena shows"), with
    the defaults filled in."""

    reference_bots: dict[str, Path]   # its own bots by registered name
    anchor: tuple[str, Path]          # the bot that anchors ratings: (name, file)
    modules: tuple[Path, ...]         # files and folders a sandboxed Python bot may import
    viewer: Path | None               # its replay viewer, a JavaScript module; None: the generic one
    docs: tuple[Path, ...]            # its rules and messages, for people


def extras(g: Game) -> Extras:
    """What `g` says of itself beyond the interface, each with its default where it says nothing."""
    bots = {str(name): Path(path) for name, path in (getattr(g, "reference_bots", None) or {}).items()}
    named = getattr(g, "anchor", None)
    if named is not None and named not in bots:
        raise GameError(f"game {g.info.name}: its anchor {named!r} is none of its reference bots ({', '.join(bots)})")
    anchor = (named, bots[named]) if named is not None else (RANDOM_NAME, RANDOM_BOT)
    wanted = getattr(g, "modules", None)
    if wanted is None:
        top = type(g).__module__.partition(".")[0]
        wanted = () if top in ("games", "builtins", "__main__") else (top,)
    viewer = getattr(g, "viewer", None)
    return Extras(reference_bots=bots, anchor=anchor, modules=tuple(_module_path(m) for m in wanted),
                  viewer=None if viewer is None else Path(viewer),
                  docs=tuple(Path(d) for d in getattr(g, "docs", None) or ()))


def _module_path(module: str | Path) -> Path:
    """A module name's file or package folder (a Path stays as it is)."""
    if isinstance(module, Path):
        return module
    spec = importlib.util.find_spec(module)
    if spec is None:
        raise GameError(f"module {module!r} a game names for its bots is not installed")
    if spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    if spec.origin is None:
        raise GameError(f"module {module!r} a game names for its bots has no file")
    return Path(spec.origin)


def installed() -> list[Game]:
    """Every game that loads here (one whose package is missing is left out)."""
    out = []
    for name in names():
        try:
            out.append(game(name))
        except UnknownGame:
            continue
    return out


def sandbox_modules() -> list[Path]:
    """The files and folders a sandboxed Python bot may import for every installed game, each
    once (by its name: the first game to name it wins)."""
    found: dict[str, Path] = {}
    for g in installed():
        for path in extras(g).modules:
            found.setdefault(path.name, path)
    return list(found.values())


__all__ = [
    "BUNDLED", "DEFAULT", "ORIGINAL", "RANDOM_BOT", "RANDOM_NAME", "BadPosition", "BadVariant", "Board", "Game", "GameError", "IllegalMove",
    "Info", "Json", "Layout", "Move", "Result", "State", "UnknownGame", "Variant", "Extras", "extras", "game", "installed", "load", "names",
    "sandbox_modules",
]
