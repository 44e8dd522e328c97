"""The errors of every game's rules, defined once: each is a ValueError, so that callers catch bad
input in one place. `games.api` gives the same classes to games installed from outside."""

from __future__ import annotations


class GameError(ValueError):
    """A game's rules refused something; the message names the field or move at fault."""


EngineError = GameError  # the name the rules modules use


class UnknownGame(GameError):
    """No game of that name is installed."""


class VariantError(GameError):
    """An unknown preset or option, a value out of range, or an impossible combination."""


class PositionError(GameError):
    """A position (plain dict or text) that is malformed or inconsistent."""


class IllegalMove(GameError):
    """A move that is not legal in the state it was applied to (or not a move of this game)."""
