"""Zwicker's shuffle (docs/rules.md section 7): `engine.seeds`' Fisher-Yates under the tag
"zwicker-shuffle"."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from engine import seeds
from engine.seeds import SEED_LIMIT, check_seed, deal_seed

T = TypeVar("T")
TAG = b"zwicker-shuffle"


def shuffle(seed: int, deck: Sequence[T]) -> list[T]:
    """The deck in the order the seed deals it."""
    return seeds.shuffle(TAG, seed, deck)


__all__ = ["SEED_LIMIT", "TAG", "check_seed", "deal_seed", "shuffle"]
