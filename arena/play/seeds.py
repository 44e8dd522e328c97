"""The seeds of a match or tournament: the deals' (public) and the bots' (keyed).

A board's seed is `board_seed(master, k)`, a public procedure (Zwicker's page of the protocol, section 3; the
same as Zwicker's `engine.deal_seed`, docs/rules.md section 7, so every game's boards replay from
the master seed alone and Zwicker's are what they always were). The `hello` seed a bot gets must not lead
back to them: it comes from a key derived from the master seed under a tag of its own
(`bot_key`), through HMAC-SHA256, so a bot that sees its seed, `match_id` and `table_id` can
find neither the key nor the master seed nor a deal seed except by trying every master seed.
That is 2**64 tries for a master seed drawn at random (`draw_master_seed`, the default), and
few for a small one chosen by hand, hence `guessable_warning`.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

_BOARD_SEED_TAG = b"zwicker-deal-seed"
_BOT_KEY_TAG = b"zwicker-bot-key"  # never the deal seeds' tag ("zwicker-deal-seed"), nor sent to a bot
_TABLE_TAG = b"zwicker-bot-table"
GUESSABLE_BELOW = 2**48  # a master seed below this falls to a bot's brute force in hours at most


def board_seed(master_seed: int, k: int) -> int:
    """The seed of board k under a master seed: the first 8 bytes of
    SHA-256("zwicker-deal-seed" + master as 8 bytes big-endian + k as 8 bytes big-endian)."""
    if type(master_seed) is not int or not 0 <= master_seed < 2**64:
        raise ValueError(f"master seed must be 0 <= seed < 2**64, got {master_seed!r}")
    if type(k) is not int or not 0 <= k < 2**64:
        raise ValueError(f"board number must be 0 <= k < 2**64, got {k!r}")
    digest = hashlib.sha256(_BOARD_SEED_TAG + master_seed.to_bytes(8, "big") + k.to_bytes(8, "big")).digest()
    return int.from_bytes(digest[:8], "big")


def draw_master_seed() -> int:
    """A random 64-bit master seed, for a tournament or match started without one."""
    return secrets.randbits(64)


def bot_key(master_seed: int) -> bytes:
    """The key of every bot seed under `master_seed`: HMAC-SHA256(master seed, tag). Nothing a
    bot is sent is a function of it except through HMAC, so no bot can recover it."""
    if not 0 <= master_seed < 2**64:
        raise ValueError(f"master seed must be 0 <= seed < 2**64, got {master_seed}")
    return hmac.new(master_seed.to_bytes(8, "big"), _BOT_KEY_TAG, hashlib.sha256).digest()


def table_seed(key: bytes, *where: int) -> int:
    """A table's bot seed (play_table's `bot_seed`; each seat gets a hash of it and its seat):
    the first 8 bytes of HMAC-SHA256(key, tag + each of `where` as 8 bytes big-endian)."""
    message = _TABLE_TAG + b"".join(x.to_bytes(8, "big") for x in where)
    return int.from_bytes(hmac.new(key, message, hashlib.sha256).digest()[:8], "big")


def guessable_warning(master_seed: int) -> str | None:
    """The one warning line for a master seed small enough to be guessed, else None."""
    if master_seed >= GUESSABLE_BELOW:
        return None
    return (f"arena: warning: seed {master_seed} is below 2**48: a bot can guess it and compute every "
            "deal; leave --seed out for a random 64-bit seed")
