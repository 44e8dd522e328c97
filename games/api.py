"""What a game gives the arena: the one interface between `arena/` and any game's rules.

A game is a stateless `Game` object, found by name (`games.game("zwicker")`). It turns a variant
(plain data) into frozen `Board` values: a board is what every pairing plays (one deal, a game to
a target, a session of deals with a carried pot), and hands out frozen `State` values, one deal
each, that list their legal moves in a fixed order, apply one, and say what each seat may see.
A finished deal or board gives a `Result` per seat and per side. The arena keeps everything else
(processes, protocol, deadlines, storage, duplicate rooms, ratings) and never looks inside a
state. The shape follows OpenSpiel's Game/State and GameType (`open_spiel/spiel.h`) and
kaggle-environments' specification + interpreter + renderer.

Plain data (`Json`) is what crosses a process boundary or reaches the database: dicts with str
keys, lists, str, int (|x| < 2**53), bool, None.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from engine.errors import GameError as GameError  # re-exported: a game raises these
from engine.errors import IllegalMove as IllegalMove
from engine.errors import PositionError, VariantError
from engine.errors import UnknownGame as UnknownGame

Json = Any


# The errors are the engine's own classes (defined once, in engine/errors.py): a game raises
# these, whether its rules live in engine/ or in a package of its own.
BadPosition = PositionError
BadVariant = VariantError


@dataclass(frozen=True)
class Info:
    """What a game is; static, like OpenSpiel's GameType and GameInfo."""

    name: str                       # registry key, stored with every tournament
    version: str                    # the rules package's version, stored in replays
    title: str                      # for people: "Zwicker", "Zwicken"
    min_players: int
    max_players: int
    formats: tuple[str, ...]        # what a board can be; the first is the default
    utility: str                    # "zero_sum" (a board's seat results sum to 0) or "general_sum"
    unit: str                       # what results count: "points", "chips"
    max_moves_per_deal: int | None  # None where a deal has no fixed bound
    presets: tuple[str, ...] = ()   # the named variants, the default first


@dataclass(frozen=True)
class Layout:
    """Who sits where and who scores together: every seat in exactly one side."""

    players: int
    sides: tuple[tuple[int, ...], ...]

    def __post_init__(self) -> None:
        seats = sorted(s for side in self.sides for s in side)
        if seats != list(range(self.players)):
            raise ValueError(f"sides {self.sides} do not cover seats 0..{self.players - 1} once each")

    @property
    def num_sides(self) -> int:
        return len(self.sides)

    def side_of(self, seat: int) -> int:
        for i, side in enumerate(self.sides):
            if seat in side:
                return i
        raise ValueError(f"no seat {seat}")

    @property
    def partnerships(self) -> bool:
        return any(len(side) > 1 for side in self.sides)

    def partners(self, seat: int) -> tuple[int, ...]:
        return tuple(s for s in self.sides[self.side_of(seat)] if s != seat)


@dataclass(frozen=True)
class Result:
    """A finished deal or board, plain data: what each seat and each side scored."""

    seats: tuple[int, ...]   # per seat: its side's points (Zwicker) or its own chips (Zwicken)
    sides: tuple[int, ...]   # per side: what is compared
    detail: Json = None      # the game's own result form (its breakdown), as its rules define it


@runtime_checkable
class Variant(Protocol):
    @property
    def players(self) -> int: ...
    def to_dict(self) -> Json: ...   # every option by name; game.variant(v.to_dict()) == v
    def __str__(self) -> str: ...    # the short CLI form


@runtime_checkable
class Move(Protocol):
    @property
    def key(self) -> Hashable: ...  # equal keys: the same move (same effect), whatever it announces
    def to_dict(self) -> Json: ...   # {"type": ..., ...}: what the protocol sends and bots name
    def __str__(self) -> str: ...    # the text form for logs and replays


@runtime_checkable
class State(Protocol):
    """One deal, a frozen value. The arena only asks; it never reads fields."""

    @property
    def to_move(self) -> int | None: ...
    @property
    def is_over(self) -> bool: ...
    def legal_moves(self, limit: int | None = None) -> tuple[list[Move], bool]: ...
    # every legal move once, in the game's documented order, and whether that is all of them
    def check(self, move: Json) -> Move: ...   # a move a bot named outside the list; IllegalMove
    def apply(self, move: Move | Json) -> "State": ...
    def observation(self, seat: int, *, moves: bool = True) -> Json: ...
    def result(self) -> Result: ...            # only when over
    def to_dict(self) -> Json: ...             # the whole position, every hand
    def text(self, seat: int | None = None) -> str: ...  # a frame of text: one seat's view, or all
    def frame(self, before: "State | None" = None, move: Move | None = None) -> Json: ...
    # what the replay viewer draws of this position, and of the move from `before` that led here
    # Optional: `public_move(move) -> Json`, what the other seats are told of a move from here
    # (the deal's move list every `act` carries); without it, the move's to_dict(). A game whose
    # moves may be private (a card passed face down) gives it.


@runtime_checkable
class Board(Protocol):
    """What every pairing plays, a frozen value; it derives every deal's seed and dealer from its
    own seed, so every room of a board meets the same deals."""

    @property
    def is_over(self) -> bool: ...
    @property
    def deals_played(self) -> int: ...
    @property
    def deal_seed(self) -> int: ...              # the next deal's seed, stored with it
    @property
    def dealer(self) -> int: ...                 # the next deal's dealer, stored with it
    def deal(self) -> State: ...                 # the next deal's opening
    def after(self, final: State) -> "Board": ...  # the board once that deal is over
    def carry(self) -> Json: ...                 # what the next deal starts from (None: nothing)
    def result(self) -> Result: ...              # only when over


@runtime_checkable
class Game(Protocol):
    info: Info

    def variant(self, spec: str | Mapping[str, Any] | None = None) -> Variant: ...
    def layout(self, variant: Variant) -> Layout: ...
    def describe(self, variant: Variant) -> Json: ...   # everything a bot needs (hello.variant)
    def board(self, variant: Variant, seed: int, first_dealer: int = 0, format: str | None = None) -> Board: ...
    def resume(self, variant: Variant, seed: int, first_dealer: int, format: str | None,
               deal_no: int, carry: Json) -> Board: ...  # the board just before one stored deal
    def deal(self, variant: Variant, seed: int, dealer: int, carry: Json = None) -> State: ...
    # one deal alone, as storage keeps it: its seed and dealer, and the board's carry before it
    def forfeit(self, variant: Variant, format: str | None, seat: int, deals: int = 1) -> Result: ...
    def state_from_dict(self, position: Json) -> State: ...
    def move_from_dict(self, move: Json) -> Move: ...
    def parse_move(self, text: str, state: State) -> Move: ...
    # Optional: `encoding_size(described)` and `encode(described, observation)`, a seat's
    # observation as a fixed number of floats for learners (games/encoding.py says more).
    #
    # Optional, what the arena shows and runs beside the rules (`games.extras(game)` reads them
    # with their defaults, so a game without them works as it is):
    #   reference_bots: Mapping[str, str | Path]  the game's own bots, by the name each is
    #       registered under (default: none)
    #   anchor: str | None     the one of them that anchors a tournament's ratings where it takes
    #       part (default: the arena's random bot, which plays any game)
    #   modules: tuple[str | Path, ...]  what a sandboxed Python bot may import besides msgpack
    #       and `games`: the game's rules and kit, each a module name (its file or package folder
    #       is copied) or a file or folder (default: the top-level package the game object is in)
    #   viewer: str | Path | None  a JavaScript module that draws the game's `State.frame`s in
    #       the pages (default: the generic viewer, which shows `State.text`); it imports nothing
    #       and exports `replay(deal, kit)` and `live(table, kit)` (arena/report/replay.js)
    #   docs: tuple[str | Path, ...]  its rules and its messages for bot authors, for people
