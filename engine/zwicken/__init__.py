"""The Zwicken rules (docs/zwicken-rules.md): pure, synchronous, no I/O, no global randomness.

    >>> from engine import zwicken
    >>> board = zwicken.Board.new("bayern", seed=7)
    >>> s = board.deal()
    >>> s = s.apply(s.legal_moves()[0])
    >>> obs = zwicken.observe(s, 0)

Modules, in the direction they import: `errors`, `cards`, `variant`, `shuffle`, `moves`,
`settlement`, `state`, then `observation`, `position`, `notation` and `board`. Nothing here imports the
Zwicker engine's modules.
"""

from engine.zwicken.board import Board, forfeit_result
from engine.zwicken.cards import PACK, SUITS, WELLI
from engine.zwicken.errors import IllegalMove, PositionError, VariantError, ZwickenError
from engine.zwicken.notation import position_text
from engine.zwicken.moves import PASS, PLAY, SCHLECKEN, TITSCHEN, Move, card_move, parse_move
from engine.zwicken.observation import observe
from engine.zwicken.position import from_dict, to_dict
from engine.zwicken.settlement import DealResult
from engine.zwicken.shuffle import attempt_seed, deal_seed, shuffle
from engine.zwicken.state import Attempt, State, opening
from engine.zwicken.variant import PRESETS, Variant, variant

__version__ = "1.0"

__all__ = [
    "PACK", "PASS", "PLAY", "PRESETS", "SCHLECKEN", "SUITS", "TITSCHEN", "WELLI", "Attempt", "Board",
    "DealResult", "IllegalMove", "Move", "PositionError", "State", "VariantError", "ZwickenError",
    "attempt_seed", "card_move", "deal_seed", "forfeit_result", "from_dict", "observe", "opening",
    "parse_move", "position_text", "shuffle", "to_dict", "variant",
]
