"""The Zwicker rules (docs/rules.md): pure, synchronous, no I/O, no global randomness.

    >>> from engine import zwicker
    >>> s = zwicker.deal("jensen", seed=7, dealer=0)   # one deal alone
    >>> board = zwicker.Board.new("jensen", seed=7)     # a game to the target
    >>> s = board.deal()
    >>> s = s.apply(s.legal_moves()[0])
    >>> obs = zwicker.observe(s, 0)

Modules, in the direction they import: `cards`, `moves`, `variant`, `shuffle`, `scoring`,
`position`, `observation`, `state`, then `notation` and `board` (the same names as Zwicken's);
the errors and the seeds are the engine's shared ones (`engine.errors`, `engine.seeds`).
`notation` has the text forms of cards, moves and positions.
"""

from engine.errors import EngineError, IllegalMove, PositionError, VariantError
from engine.zwicker.board import Board
from engine.zwicker.moves import Build, Move
from engine.zwicker.notation import parse_move, parse_position, position_text
from engine.zwicker.observation import observe
from engine.zwicker.position import to_dict
from engine.zwicker.shuffle import deal_seed, shuffle
from engine.zwicker.state import State, deal
from engine.zwicker.variant import PRESETS, Variant, variant

__version__ = "1.0"

from_dict = State.from_dict

__all__ = [
    "PRESETS", "Board", "Build", "EngineError", "IllegalMove", "Move", "PositionError", "State",
    "Variant", "VariantError", "deal", "deal_seed", "from_dict", "observe", "parse_move",
    "parse_position", "position_text", "shuffle", "to_dict", "variant",
]
