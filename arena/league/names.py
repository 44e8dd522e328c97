"""Bot names as a spectator reads them: two names that look alike are one name.

A name's skeleton is what is left after NFKC, case folding, dropping the separators (`.`, `_`,
`-`, `+`) and mapping the characters a reader confuses to one of them (`0` to `o`; `1`, `i`
and `|` to `l`; `rn` to `m`; `vv` to `w`). A name is taken when any stored name (the league's
or one the organiser registered) has its skeleton and another spelling, and reserved names
(the organiser's and the site's words, `RESERVED`) are never an author's.
"""

from __future__ import annotations

import unicodedata

import sqlite_utils

RESERVED = frozenset({
    "admin", "administrator", "organiser", "organizer", "league", "random", "root", "system", "arena", "api",
    "static", "author", "authors", "me", "null", "none", "anonymous", "official", "moderator", "staff",
    "support", "server", "owner", "referee", "bot", "bots",
})
_SEPARATORS = str.maketrans("", "", "._-+ ")
_CONFUSED = str.maketrans({"0": "o", "1": "l", "i": "l", "|": "l"})


def skeleton(name: str) -> str:
    text = unicodedata.normalize("NFKC", name).casefold().translate(_SEPARATORS).translate(_CONFUSED)
    return text.replace("rn", "m").replace("vv", "w")


_RESERVED_SKELETONS = {skeleton(r): r for r in RESERVED}


def reserved(name: str) -> str | None:
    """The reserved word a name reads as, or None."""
    return _RESERVED_SKELETONS.get(skeleton(name))


def look_alike(db: sqlite_utils.Database, name: str) -> str | None:
    """A stored name spelled otherwise that reads as `name` (league or registered), or None."""
    key = skeleton(name)
    for (other,) in db.execute("SELECT name FROM league_bots UNION SELECT DISTINCT name FROM bots"):
        if other != name and skeleton(other) == key:
            return other
    return None
