"""The Zwicken rules (docs/zwicken-rules.md): pure, synchronous, no I/O, no global randomness.

    >>> from engine import zwicken
    >>> s = zwicken.deal("bayern", seed=7, dealer=0)   # one deal alone
    >>> board = zwicken.Board.new("bayern", seed=7)
    >>> s = board.deal()
    >>> s = s.apply(s.legal_moves()[0])
    >>> obs = zwicken.observe(s, 0)

Modules, in the direction they import: `cards`, `variant`, `shuffle`, `moves`,
`scoring`, `state`, then `observation`, `position`, `notation` and `board`. Nothing here imports the
Zwicker rules' modules; the errors and the seeds are the engine's shared ones (`engine.errors`,
`engine.seeds`).
"""

from engine.zwicken.board import Board, forfeit_result
from engine.zwicken.cards import PACK, SUITS, WELLI
from engine.errors import IllegalMove, PositionError, VariantError, EngineError
from engine.zwicken.notation import position_text
from engine.zwicken.moves import PASS, PLAY, SCHLECKEN, TITSCHEN, Move, card_move, parse_move
from engine.zwicken.observation import observe
from engine.zwicken.position import from_dict, to_dict
from engine.zwicken.scoring import DealResult
from engine.zwicken.shuffle import attempt_seed, deal_seed, shuffle
from engine.zwicken.state import Attempt, State, deal
from engine.zwicken.variant import PRESETS, Variant, variant

__version__ = "1.0"

__all__ = [
    "PACK", "PASS", "PLAY", "PRESETS", "SCHLECKEN", "SUITS", "TITSCHEN", "WELLI", "Attempt", "Board",
    "DealResult", "IllegalMove", "Move", "PositionError", "State", "Variant", "VariantError", "EngineError",
    "attempt_seed", "card_move", "deal", "deal_seed", "forfeit_result", "from_dict", "observe",
    "parse_move", "position_text", "shuffle", "to_dict", "variant",
]
