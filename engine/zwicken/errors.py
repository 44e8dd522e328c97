"""Zwicken's errors: every one is a ValueError, so callers can catch bad input in one place."""

from __future__ import annotations


class ZwickenError(ValueError):
    """Bad input to the Zwicken rules; the message names the field or move at fault."""


class VariantError(ZwickenError):
    """An unknown preset or option, or a value outside its range (docs/zwicken-rules.md section 7)."""


class PositionError(ZwickenError):
    """A plain-data position that is malformed or inconsistent (section 10)."""


class IllegalMove(ZwickenError):
    """A move that is not legal in the state it was applied to (section 4)."""
