"""One exception tree for the arena, named by cause.

`BotFault` and its subclasses describe what a bot did wrong; each maps to the seat status
recorded for it (see protocol.md, "Faults"). `ArenaError` is everything the user can fix (an
unknown bot, a missing file, a database that is not ours); the CLI prints it as one line.
"""

from __future__ import annotations


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
