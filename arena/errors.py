"""One exception tree for the arena, named by cause.

`BotFault` and its subclasses describe what a bot did wrong; each maps to the seat status
recorded for it (see protocol.md, "Faults"). `ArenaError` is everything the user can fix (an
unknown bot, a missing file, a database that is not ours); the CLI prints it as one line.
"""

from __future__ import annotations

import re


class ArenaError(Exception):
    """A problem the user can act on; shown as one line, never a traceback."""


class BotFault(Exception):
    """A bot broke the protocol; `status` is what its seat records."""

    status = "fault"

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class BotTimeout(BotFault):
    status = "timeout"


class BotCrashed(BotFault):
    status = "crash"


class ProtocolError(BotFault):
    status = "protocol_error"


class IllegalMoveFault(BotFault):
    status = "illegal_move"


SEAT_STATUSES = ("ok", "timeout", "crash", "illegal_move", "protocol_error")


def leaves(exc: BaseException) -> list[BaseException]:
    """The exceptions inside an exception group (nested groups too, as nurseries make), or `exc`."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in leaves(inner)]
    return [exc]


# Format characters that reorder or hide text on a terminal (bidi overrides and isolates, marks).
_HIDING = {0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A)}


def visible(text: object, *, newlines: bool = False) -> str:
    """Text from a bot (names, stderr, move strings, details) made safe for a terminal: control
    and hiding characters shown as `\\x1b`-style escapes, as git and less do, so a bot cannot set
    the title, clear the screen or forge a line. `newlines` keeps line breaks (for a log)."""
    out = []
    for ch in str(text):
        n = ord(ch)
        if ch == "\n" and newlines or ch == "\t" and newlines:
            out.append(ch)
        elif n < 0x20 or 0x7F <= n < 0xA0:
            out.append(f"\\x{n:02x}")
        elif n in _HIDING or 0xD800 <= n < 0xE000:
            out.append(f"\\u{n:04x}")
        else:
            out.append(ch)
    return "".join(out)


_JSON_RAW = re.compile("[\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def json_visible(text: str) -> str:
    """JSON text with the characters JSON leaves raw but a terminal obeys (DEL, the C1 controls,
    bidi overrides) written as \\uXXXX escapes: the same data to a parser, harmless to a screen."""
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
