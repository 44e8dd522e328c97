"""Seeds and the reproducible shuffle, the same for every game (docs/rules.md section 7).

Any language can reproduce a deal: SHA-256 over (the game's shuffle tag, seed, block) gives a
stream of 64-bit words; Fisher-Yates draws from it with rejection sampling, so there is no modulo
bias. Deal seeds come from one derivation, tagged "zwicker-deal-seed" for every game.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator, Sequence
from typing import TypeVar

from engine.errors import EngineError

T = TypeVar("T")
SEED_LIMIT = 2**64
_DEAL_SEED_TAG = b"zwicker-deal-seed"


def check_seed(seed: object, name: str = "seed") -> int:
    if type(seed) is not int or not 0 <= seed < SEED_LIMIT:
        raise EngineError(f"{name}: must be an integer with 0 <= {name} < 2**64, got {seed!r}")
    return seed


def words(tag: bytes, seed: int) -> Iterator[int]:
    """The endless stream of 64-bit words for a seed under a game's shuffle tag."""
    prefix = tag + seed.to_bytes(8, "big")
    block = 0
    while True:
        digest = hashlib.sha256(prefix + block.to_bytes(8, "big")).digest()
        for k in range(0, 32, 8):
            yield int.from_bytes(digest[k : k + 8], "big")
        block += 1


def shuffle(tag: bytes, seed: int, deck: Sequence[T]) -> list[T]:
    """Fisher-Yates from the last position down, each j drawn uniformly from 0..i."""
    cards = list(deck)
    stream = words(tag, check_seed(seed))
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
    """The seed of deal (or board) k under a master seed: the first 8 bytes of
    SHA-256("zwicker-deal-seed" + master as 8 bytes big-endian + k as 8 bytes big-endian)."""
    check_seed(master, "master")
    check_seed(k, "k")
    digest = hashlib.sha256(_DEAL_SEED_TAG + master.to_bytes(8, "big") + k.to_bytes(8, "big")).digest()
    return int.from_bytes(digest[:8], "big")
