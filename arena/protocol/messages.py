"""The bot protocol's records and its bounded codec (protocol.md is the specification).

Bots are untrusted: every byte they send goes through `Decoder`, which either yields a
plain-data map or raises `ProtocolError` — never another exception, never unbounded memory
(at most `MAX_BOT_MESSAGE` bytes are buffered). `parse_reply` turns a decoded map into a
typed record, checking every field's type. The arena's own messages are plain dicts built by
the small constructors below, so their shape lives next to the parser of the replies.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import msgpack

import games
from arena.errors import ProtocolError
from games import Move

PROTOCOL_VERSION = 1
MAX_BOT_MESSAGE = 64 * 1024
"""Largest message a bot may send, in bytes (a `move` is about 20 bytes, a `ready` under 200)."""
MAX_ARENA_MESSAGE = 64 * 1024 * 1024
"""Largest message the arena sends; a bot's decoder needs a buffer this big. Typical `act`
messages are 1 to 20 KiB; the legal list grows fast only when the table holds many units."""
MAX_NAME = 64
"""Longest `name` or `version` a bot may give in `ready`, in characters."""
MAX_DEPTH = 32
"""Deepest nesting of lists and maps accepted from a bot."""

ARENA_TYPES = ("hello", "deal", "act", "deal_end", "bye")
MAX_GAMES = 32
"""Most game names a bot may list in `ready.games`."""
BOT_TYPES = ("ready", "move")


def _no_ext(code: int, data: bytes) -> Any:
    raise ValueError(f"msgpack extension type {code} is not part of the protocol")


class Decoder:
    """Bytes in, whole messages out, with a hard cap on what is buffered.

    `feed` accepts any chunk; `next` returns the next complete message or None when more bytes
    are needed. Anything that is not a msgpack map of plain data is a `ProtocolError`.
    """

    def __init__(self, max_message: int = MAX_BOT_MESSAGE) -> None:
        self.max_message = max_message
        self._unpacker = msgpack.Unpacker(
            max_buffer_size=max_message,
            raw=False,
            strict_map_key=True,
            use_list=True,
            ext_hook=_no_ext,
            timestamp=0,
        )
        self._fed = 0
        self._start = 0  # stream offset where the message being received begins
        self._recent: list[tuple[int, bytes]] = []  # chunks fed and their offsets: text in a fault's detail

    @property
    def pending(self) -> int:
        """Bytes received but not yet part of a decoded message."""
        return self._fed - self._start

    def feed(self, data: bytes) -> None:
        if self.pending + len(data) > self.max_message:
            raise ProtocolError(f"message larger than {self.max_message} bytes")
        try:
            self._unpacker.feed(data)
        except msgpack.BufferFull:  # pragma: no cover - the check above comes first
            raise ProtocolError(f"message larger than {self.max_message} bytes") from None
        # the chunks of what is not decoded yet, from the message's first bytes on (however many
        # reads they came in: a line printed to stdout is quoted whole), at most 8
        recent = [chunk for chunk in self._recent if chunk[0] + len(chunk[1]) > self._start]
        if len(recent) < 8:
            recent.append((self._fed, data))
        self._recent = recent
        self._fed += len(data)

    def next(self) -> dict[str, Any] | None:
        try:
            obj = self._unpacker.unpack()
        except msgpack.OutOfData:
            return None
        except (ValueError, TypeError, OverflowError, RecursionError, msgpack.UnpackException) as exc:
            why = str(exc) or {"FormatError": "not a valid msgpack value",
                               "StackError": "nested too deeply"}.get(type(exc).__name__, type(exc).__name__)
            raise ProtocolError(f"undecodable msgpack: {why} (in the message starting at byte "
                                f"{self._start} of the bot's output)") from None
        start, self._start = self._start, self._unpacker.tell()
        if not isinstance(obj, dict):
            raise ProtocolError(f"a message must be a msgpack map, got {_kind(obj)}{self._why(start, obj)}")
        for key, value in obj.items():  # flat maps (every reply) need no recursion
            if type(key) is not str or (value is not None and type(value) not in _SCALARS):
                _check_plain(obj, 0)
                break
        return obj


    def _why(self, start: int, obj: Any) -> str:
        """What a message that is no map most likely was: printable text (a bot that printed to
        stdout), or a struct sent as an array (Rust's rmp-serde `to_vec`)."""
        text = self._text_at(start)
        if text:
            jvm = (" (a JVM's own log goes to stdout: -Xlog:all=warning:stderr sends it to stderr)"
                   if re.match(r"\[\d+\.\d+s\]\[", text) else "")
            return (f"; its bytes read as text ({text!r}): did the bot print to stdout? stdout carries only "
                    f"protocol messages, logs go to stderr{jvm}")
        if isinstance(obj, list):
            return ("; a struct sent as an array? messages are maps with named fields (Rust's rmp-serde: "
                    "to_vec_named, not to_vec; protocol.md, \"msgpack libraries\")")
        return ""

    def _text_at(self, start: int) -> str:
        """The printable ASCII text that the bytes fed from stream offset `start` begin with (at most 40)."""
        head = b""
        for offset, chunk in self._recent:
            if offset <= start + len(head) < offset + len(chunk):
                head += bytes(chunk[start + len(head) - offset:][: 40 - len(head)])
        end = next((k for k, b in enumerate(head) if not (32 <= b < 127 or b in b"\t\n\r")), len(head))
        head = head[:end]  # (up to what follows the text: the bot's first message, say)
        return head.decode("ascii") if len(head) >= 2 and head.strip() else ""


_SCALARS = frozenset({bool, int, float, str, bytes})


def _kind(obj: Any) -> str:
    if obj is None:
        return "nil"
    return {bool: "a boolean", int: "an integer", float: "a float", str: "a string",
            bytes: "binary data", list: "an array", dict: "a map"}.get(type(obj), type(obj).__name__)


def _check_plain(obj: Any, depth: int) -> None:
    """Reject anything but msgpack's plain types (e.g. Timestamp) and absurd nesting."""
    if depth > MAX_DEPTH:
        raise ProtocolError(f"message nested deeper than {MAX_DEPTH} levels")
    if isinstance(obj, dict):
        for key, value in obj.items():
            if not isinstance(key, str):
                raise ProtocolError(f"map keys must be strings, got {_kind(key)}")
            _check_plain(value, depth + 1)
    elif isinstance(obj, list):
        for value in obj:
            _check_plain(value, depth + 1)
    elif obj is not None and not isinstance(obj, (bool, int, float, str, bytes)):
        raise ProtocolError(f"unsupported msgpack value {type(obj).__name__}")


_packer = msgpack.Packer(use_bin_type=True, autoreset=True)


def encode(message: dict[str, Any]) -> bytes:
    """One message as bytes: a msgpack map, nothing else (the stream is self-delimiting)."""
    return _packer.pack(message)


class Packed(NamedTuple):
    """A message already encoded (see `pack_act`); `type` names it in errors."""

    type: str
    data: bytes


class History:
    """A deal's public move list, each move encoded once as it is played.

    Every `act` carries the whole list; encoding it afresh for each act cost more than the
    rest of the message (bench/README.md).
    """

    def __init__(self) -> None:
        self.data = bytearray()
        self.count = 0

    def append(self, entry: dict[str, Any]) -> None:
        self.data += _packer.pack(entry)
        self.count += 1

    def packed(self) -> bytes:
        """The list as a msgpack array."""
        return _packer.pack_array_header(self.count) + self.data


def _with_entry(packed_map: bytes, size: int, key: str, packed_value: bytes) -> bytes:
    """A packed map of `size` entries with one entry more, whose value is already packed."""
    header = 1 if size < 16 else 3 if size < 2**16 else 5
    return b"".join((_packer.pack_map_header(size + 1), packed_map[header:], _packer.pack(key), packed_value))


# --- the bot's replies, typed --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Ready:
    """The bot's answer to `hello`; `games`, where it says, the games it plays (None: any)."""

    name: str
    version: str
    games: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class MoveReply:
    """The bot's answer to `act`: an index into the legal list and/or the move itself."""

    index: int | None
    move: dict[str, Any] | None


def _field(msg: dict[str, Any], key: str, types: type | tuple[type, ...], what: str,
           required: bool = True) -> Any:
    if key not in msg:
        if required:
            raise ProtocolError(f"{msg['type']!r} message lacks the field {key!r}")
        return None
    value = msg[key]
    if not isinstance(value, types) or (isinstance(value, bool) and types is int):
        raise ProtocolError(f"field {key!r} of {msg['type']!r} must be {what}, got {_kind(value)}")
    return value


def parse_reply(msg: dict[str, Any], expected: str) -> Ready | MoveReply:
    """Check a decoded map against the reply the arena is waiting for (`ready` or `move`)."""
    kind = msg.get("type")
    if not isinstance(kind, str):
        raise ProtocolError("a message needs a string field 'type'")
    if kind != expected:
        raise ProtocolError(f"expected a {expected!r} message, got {kind[:40]!r}")
    if kind == "ready":
        name = _field(msg, "name", str, "a string")
        version = _field(msg, "version", str, "a string", required=False) or ""
        if not name.strip() or len(name) > MAX_NAME or len(version) > MAX_NAME:
            raise ProtocolError(f"'name' must be 1 to {MAX_NAME} characters, 'version' at most {MAX_NAME}")
        games = _field(msg, "games", list, "an array of strings", required=False)
        if games is not None and (len(games) > MAX_GAMES or not all(
                isinstance(g, str) and 0 < len(g) <= MAX_NAME for g in games)):
            raise ProtocolError(f"'games' must be an array of at most {MAX_GAMES} game names of 1 to {MAX_NAME} characters")
        return Ready(name=name, version=version, games=None if games is None else tuple(games))
    index = _field(msg, "index", int, "an integer", required=False)
    move = _field(msg, "move", dict, "a map", required=False)
    if index is None and move is None:
        raise ProtocolError("a 'move' message needs 'index' or 'move'")
    return MoveReply(index=index, move=move)


# --- the arena's messages ------------------------------------------------------------------


def hello(*, seat: int, side: int, partners: list[int], variant: dict[str, Any],
          time_control: dict[str, int], match_id: str, table_id: str, seed: int,
          game: str = games.ORIGINAL) -> dict[str, Any]:
    return {
        "type": "hello",
        "protocol": PROTOCOL_VERSION,
        "game": game,
        "seat": seat,
        "side": side,
        "partner": partners[0] if partners else None,
        "partners": partners,
        "variant": variant,
        "time": time_control,
        "match_id": match_id,
        "table_id": table_id,
        "seed": seed,
    }


def deal(*, number: int, dealer: int, observation: dict[str, Any], room: str = "", board: str = "",
         board_deal: int = 0) -> dict[str, Any]:
    return {"type": "deal", "number": number, "dealer": dealer, "observation": observation,
            "room": room, "board": board, "board_deal": board_deal}


def act(*, number: int, observation: dict[str, Any], legal: list[dict[str, Any]],
        move_ms: int, bank_ms: int, complete: bool = True) -> dict[str, Any]:
    return {
        "type": "act",
        "number": number,
        "observation": observation,
        "legal": legal,
        "legal_complete": complete,
        "time": {"move_ms": move_ms, "bank_ms": bank_ms},
    }


def pack_act(*, number: int, observation: dict[str, Any], history: History, legal: Sequence[Move],
             move_ms: int, bank_ms: int, complete: bool = True) -> Packed:
    """`act` with `observation["moves"]` from `history`, encoded in one pass: decodes to what
    `act` builds from the same parts, key for key."""
    seen = _with_entry(_packer.pack(observation), len(observation), "moves", history.packed())
    return Packed("act", b"".join((
        _ACT_KEYS[0], _packer.pack(number), _ACT_KEYS[1], seen, _ACT_KEYS[2], pack_moves(legal),
        _ACT_KEYS[3], _packer.pack(complete), _ACT_KEYS[4], _packer.pack({"move_ms": move_ms, "bank_ms": bank_ms}))))


# What `act` builds, around its values: {"type": "act", "number": ..., "observation": ..., ...}.
_ACT_KEYS = (_packer.pack_map_header(6) + _packer.pack("type") + _packer.pack("act") + _packer.pack("number"),
             *(_packer.pack(key) for key in ("observation", "legal", "legal_complete", "time")))


def pack_moves(moves: Sequence[Move]) -> bytes:
    """A list of a game's moves as a msgpack array of their dicts."""
    return _packer.pack([move.to_dict() for move in moves])


def deal_end(*, number: int, points: list[int], breakdown: list[dict[str, Any]],
             totals: list[int], moves: list[dict[str, Any]], board: str = "",
             board_totals: list[int] | None = None) -> dict[str, Any]:
    return {"type": "deal_end", "number": number, "points": points, "breakdown": breakdown,
            "totals": totals, "board": board, "board_totals": totals if board_totals is None else board_totals,
            "moves": moves}


def pack_deal_end(*, number: int, points: list[int], breakdown: list[dict[str, Any]], totals: list[int],
                  history: History, board: str = "", board_totals: list[int] | None = None) -> Packed:
    """`deal_end` with the deal's moves from `history`, encoded once for every seat."""
    head = deal_end(number=number, points=points, breakdown=breakdown, totals=totals, moves=[], board=board,
                    board_totals=board_totals)
    del head["moves"]
    return Packed("deal_end", _with_entry(_packer.pack(head), len(head), "moves", history.packed()))


def bye(*, reason: str, detail: str = "") -> dict[str, Any]:
    return {"type": "bye", "reason": reason, "detail": detail}
