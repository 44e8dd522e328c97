"""The reproducible shuffle and the seeds of a board (docs/zwicken-rules.md section 8).

SHA-256 over ("zwicken-shuffle", seed, block) gives a stream of 64-bit words; Fisher-Yates draws
from it with rejection sampling (no modulo bias). Deal seeds use the project's one derivation,
tagged "zwicker-deal-seed" for every game.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import TypeVar

from engine.zwicken.cards import PACK
from engine.zwicken.errors import ZwickenError

T = TypeVar("T")
SEED_LIMIT = 2**64
_SHUFFLE_TAG = b"zwicken-shuffle"
_DEAL_SEED_TAG = b"zwicker-deal-seed"


def check_seed(seed: object, name: str = "seed") -> int:
    if type(seed) is not int or not 0 <= seed < SEED_LIMIT:
        raise ZwickenError(f"{name}: must be an integer with 0 <= {name} < 2**64, got {seed!r}")
    return seed


def words(seed: int) -> Iterator[int]:
    """The endless stream of 64-bit words for a shuffle seed."""
    prefix = _SHUFFLE_TAG + seed.to_bytes(8, "big")
    block = 0
    while True:
        digest = hashlib.sha256(prefix + block.to_bytes(8, "big")).digest()
        for k in range(0, 32, 8):
            yield int.from_bytes(digest[k : k + 8], "big")
        block += 1


def shuffle(seed: int, deck: Sequence[T] = PACK) -> list[T]:  # type: ignore[assignment]
    """Fisher-Yates from the last position down, each j drawn uniformly from 0..i."""
    cards = list(deck)
    stream = words(check_seed(seed))
    for i in range(len(cards) - 1, 0, -1):
        bound = i + 1
        limit = SEED_LIMIT - (SEED_LIMIT % bound)
        w = next(stream)
        while w >= limit:
            w = next(stream)
        j = w % bound
        cards[i], cards[j] = cards[j], cards[i]
    return cards


def deal_seed(master: int, k: int) -> int:
    """First 8 bytes (big-endian) of SHA-256("zwicker-deal-seed" + master + k, 8 bytes each)."""
    check_seed(master, "master")
    check_seed(k, "k")
    digest = hashlib.sha256(_DEAL_SEED_TAG + master.to_bytes(8, "big") + k.to_bytes(8, "big")).digest()
    return int.from_bytes(digest[:8], "big")


def attempt_seed(board_seed: int, deal: int, attempt: int) -> int:
    """The shuffle seed of attempt `attempt` of counted deal `deal` of a board."""
    return deal_seed(deal_seed(board_seed, deal), attempt)
