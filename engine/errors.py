"""The engine's errors: every one is a ValueError, so callers can catch bad input in one place."""

from __future__ import annotations


class EngineError(ValueError):
    """Bad input to the engine; the message names the field or move at fault."""


class VariantError(EngineError):
    """An unknown preset or option, or an impossible combination of options."""


class PositionError(EngineError):
    """A position (plain dict or text) that cannot be a Zwicker position."""


class IllegalMove(EngineError):
    """A move that is not legal in the position it was applied to."""
