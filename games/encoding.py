"""A seat's observation as a fixed-size list of numbers, for learners (games/pettingzoo.py) and
for a trained policy playing as a bot (bots/policy_kit.py): both call `encode` here, so a policy
sees in the arena exactly the numbers it was trained on.

A game may give its own encoding through two optional methods of its game object::

    encoding_size(described) -> int
    encode(described, observation) -> list[float]   # len == encoding_size(described)

where `described` is `game.describe(variant)` (what a bot gets as `hello.variant`) and
`observation` the seat's observation as the protocol sends it (`act.observation`, with its
`moves`). A game without them gets `hashed`: every leaf of the observation, hashed by its path
and, for text, its value, into HASHED_SIZE buckets (feature hashing), which any game's plain
data allows. Where the game object cannot be loaded (`game` None: a sandbox without the game's
packages), an observation with a numeric `tensor` (OpenSpiel's games) is encoded as that
tensor, which is what those games' `encode` gives. Only the standard library is used: a
sandboxed bot imports this too.
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

HASHED_SIZE = 256
MAX_ACTIONS = 128  # a learner's actions: the k-th legal move, k < MAX_ACTIONS (longer lists are cut)
LEGAL_CAP = 1000
"""The cap the arena lists a seat's legal moves with (arena/play/table.py's LEGAL_CAP, which
tests/test_pettingzoo.py checks): the learners list them with the same, so that action k is the
k-th move of the `act` the arena sends (a game may list a crowded position differently under a
smaller cap)."""


def size(game: Any, described: Any) -> int:
    """How many numbers `encode` gives for this game and variant."""
    own = getattr(game, "encoding_size", None)
    return int(own(described)) if own is not None else HASHED_SIZE


def encode(game: Any, described: Any, observation: Any) -> list[float]:
    """The seat's observation as `size(game, described)` numbers: the game's own encoding, or `hashed`."""
    own = getattr(game, "encode", None)
    if own is None:
        if game is None and isinstance(observation, dict) and isinstance(observation.get("tensor"), list):
            return [float(x) for x in observation["tensor"]]  # a game not loadable here that sends its tensor
        return hashed(observation)
    out = [float(x) for x in own(described, observation)]
    want = size(game, described)
    if len(out) != want:
        raise ValueError(f"{game.info.name}: encode gave {len(out)} numbers, encoding_size says {want}")
    return out


def hashed(observation: Any, n: int = HASHED_SIZE) -> list[float]:
    """Feature hashing of plain data: a string or bool leaf adds 1 to the bucket of (path, value),
    a number adds its signed log1p to the bucket of its path; list positions are left out of the
    path (a hand is a bag of cards). Stable across processes (SHA-1, not Python's salted hash)."""
    out = [0.0] * n
    for path, value in _leaves(observation, ""):
        if isinstance(value, bool) or isinstance(value, str) or value is None:
            key, amount = f"{path}={value}", 1.0
        else:
            key, amount = path, math.copysign(math.log1p(abs(float(value))), float(value))
        out[_bucket(key, n)] += amount
    return out


def _bucket(key: str, n: int) -> int:
    return int.from_bytes(hashlib.sha1(key.encode()).digest()[:4], "big") % n


def _leaves(data: Any, path: str) -> Any:
    if isinstance(data, dict):
        for k, v in data.items():
            yield from _leaves(v, f"{path}/{k}")
    elif isinstance(data, (list, tuple)):
        for v in data:
            yield from _leaves(v, path + "[]")
    else:
        yield path, data


def one_hot(index: dict[str, int], items: Any, width: int | None = None) -> list[float]:
    """Counts of `items` over `index` (a card's position in a pack), as numbers; unknown items are
    left out."""
    out = [0.0] * (len(index) if width is None else width)
    for item in items:
        k = index.get(item)
        if k is not None:
            out[k] += 1.0
    return out
