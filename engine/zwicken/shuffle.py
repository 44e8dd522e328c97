"""Zwicken's shuffle and the seeds of a board (docs/zwicken-rules.md section 8): `engine.seeds`'
Fisher-Yates under the tag "zwicken-shuffle", and the project's one deal-seed derivation."""

from __future__ import annotations

from collections.abc import Sequence

from engine import seeds
from engine.seeds import SEED_LIMIT, check_seed, deal_seed
from engine.zwicken.cards import PACK

TAG = b"zwicken-shuffle"


def shuffle(seed: int, deck: Sequence[str] = PACK) -> list[str]:
    """The pack in the order the seed deals it."""
    return seeds.shuffle(TAG, seed, deck)


def attempt_seed(board_seed: int, deal: int, attempt: int) -> int:
    """The shuffle seed of attempt `attempt` of counted deal `deal` of a board."""
    return deal_seed(deal_seed(board_seed, deal), attempt)


__all__ = ["SEED_LIMIT", "TAG", "attempt_seed", "check_seed", "deal_seed", "shuffle"]
