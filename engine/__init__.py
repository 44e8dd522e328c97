"""The Zwicker rules engine: pure, synchronous, no I/O, no global randomness.

    >>> import engine
    >>> s = engine.deal("jensen", seed=7)
    >>> s = s.apply(s.legal_moves()[0])

See docs/rules.md for the rules; `engine.notation` for the text forms of cards, moves and positions.
"""

from engine.errors import EngineError, IllegalMove, PositionError, VariantError
from engine.game import Game
from engine.moves import Build, Move
from engine.notation import parse_move, parse_position, position_text
from engine.shuffle import deal_seed, shuffle
from engine.state import State, deal
from engine.variant import PRESETS, Variant, variant

__version__ = "1.0"

__all__ = [
    "PRESETS", "Build", "EngineError", "Game", "IllegalMove", "Move", "PositionError", "State",
    "Variant", "VariantError", "deal", "deal_seed", "parse_move", "parse_position", "position_text",
    "shuffle", "variant",
]
