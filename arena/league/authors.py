"""Authors and their tokens: a token is printed once and only its sha256 is stored.

A token reads `zwl_<author id>_<secret>`, the secret 256 bits from `secrets`. The id only says
which row to compare with; the comparison (of the whole token's sha256 with the stored one) is
constant-time (`hmac.compare_digest`), and an unknown id or a malformed token is compared
with a dummy hash all the same. A plain sha256 is enough here: the secret is random and long,
so there is no dictionary to try (a slow password hash guards guessable secrets).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets

import sqlite_utils

from arena.errors import ArenaError
from arena.results.schema import _BOT_NAME, _now

PREFIX = "zwl"
SECRET_BYTES = 32  # 256 bits
_TOKEN = re.compile(rf"^{PREFIX}_(\d{{1,12}})_([A-Za-z0-9_-]{{20,100}})$")
_DUMMY = hashlib.sha256(b"no such author").hexdigest()


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def add_author(db: sqlite_utils.Database, name: str) -> tuple[dict, str]:
    """A new author and their token (shown once: only its hash is kept)."""
    if not _BOT_NAME.fullmatch(name) or len(name) > 64:
        raise ArenaError(f"bad author name {name!r}: use letters, digits and . _ + - (start with a letter or digit)")
    if db.execute("SELECT 1 FROM league_authors WHERE name = ?", [name]).fetchone():
        raise ArenaError(f"there is an author '{name}' already ('arena league author revoke {name}' ends their token)")
    from arena.league import store

    if (path := store.db_path(db)):
        store.private(path)  # a token's hash is the organiser's alone from the first author on
    with db.atomic():
        author_id = db.execute("INSERT INTO league_authors (name, token_sha256, created) VALUES (?, '', ?)",
                               [name, _now()]).lastrowid
        token = f"{PREFIX}_{author_id}_{secrets.token_urlsafe(SECRET_BYTES)}"
        db.execute("UPDATE league_authors SET token_sha256 = ? WHERE id = ?", [token_hash(token), author_id])
    return get_author(db, name), token


def get_author(db: sqlite_utils.Database, name: str) -> dict:
    rows = list(db.query("SELECT id, name, created, revoked FROM league_authors WHERE name = ?", [name]))
    if not rows:
        known = [r[0] for r in db.execute("SELECT name FROM league_authors ORDER BY name")]
        raise ArenaError(f"unknown author '{name}' (known: {', '.join(known) or 'none yet'})")
    return rows[0]


def list_authors(db: sqlite_utils.Database) -> list[dict]:
    """Every author with how many bot names they own (never a token or its hash)."""
    return list(db.query(
        "SELECT a.id, a.name, a.created, a.revoked, COUNT(b.name) AS bots FROM league_authors a"
        " LEFT JOIN league_bots b ON b.author_id = a.id GROUP BY a.id ORDER BY a.name"))


def revoke_author(db: sqlite_utils.Database, name: str) -> dict:
    """End an author's token: every later write with it is refused (401). Their bots stay."""
    author = get_author(db, name)
    if author["revoked"] is None:
        with db.atomic():
            db.execute("UPDATE league_authors SET revoked = ? WHERE id = ?", [_now(), author["id"]])
    return get_author(db, name)


def authenticate(db: sqlite_utils.Database, token: str | None) -> dict | None:
    """The author whose token this is (not revoked), else None."""
    match = _TOKEN.match(token or "")
    row = None
    if match:
        row = db.execute("SELECT id, name, token_sha256, revoked FROM league_authors WHERE id = ?",
                         [int(match.group(1))]).fetchone()
    stored = row[2] if row is not None else _DUMMY
    same = hmac.compare_digest(token_hash(token or ""), stored)
    if not same or row is None or row[3] is not None:
        return None
    return {"id": row[0], "name": row[1]}
