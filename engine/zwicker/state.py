"""The state of one deal: a frozen value; `apply` returns a new state (docs/rules.md sections 3-4).

Everything a position holds is public here (the engine knows all hands); what one seat may see is
`observation(seat)`. Plain-data conversion lives in `engine.position`, scoring in `engine.scoring`.
Those modules sit below this one (they never import it), and `engine.notation` above it: modules
import one way (tests/test_engine_imports.py).
"""

from __future__ import annotations

from typing import Any

from engine.zwicker import moves as _moves
from engine.zwicker import observation as _observation
from engine.zwicker import position as _position
from engine.zwicker import scoring as _scoring
from engine.errors import EngineError, IllegalMove
from engine.zwicker.moves import Build, Move, Unit, unit_cards
from engine.zwicker.shuffle import check_seed, shuffle
from engine.zwicker.variant import Variant, variant as make_variant

_FIELDS = ("variant", "dealer", "to_move", "hands", "table", "stock", "taken", "zwicks",
           "last_capture", "history", "is_over")


_set = object.__setattr__


class State:
    """A position of a deal. Immutable: every attribute is a tuple, int or Variant."""

    __slots__ = _FIELDS + ("_legal", "_index")

    variant: Variant
    dealer: int
    to_move: int
    hands: tuple[tuple[str, ...], ...]
    table: tuple[Unit, ...]
    stock: tuple[str, ...]
    taken: tuple[tuple[str, ...], ...]
    zwicks: tuple[int, ...]
    last_capture: int | None
    history: tuple[tuple[int, Move], ...]
    is_over: bool

    def __init__(self, *, variant: Variant, dealer: int, to_move: int, hands: tuple, table: tuple,
                 stock: tuple, taken: tuple, zwicks: tuple, last_capture: int | None, history: tuple,
                 is_over: bool) -> None:
        # Spelled out rather than looped: a state is made for every move played.
        _set(self, "variant", variant)
        _set(self, "dealer", dealer)
        _set(self, "to_move", to_move)
        _set(self, "hands", hands)
        _set(self, "table", table)
        _set(self, "stock", stock)
        _set(self, "taken", taken)
        _set(self, "zwicks", zwicks)
        _set(self, "last_capture", last_capture)
        _set(self, "history", history)
        _set(self, "is_over", is_over)
        _set(self, "_legal", None)
        _set(self, "_index", None)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("State is immutable: apply a move to get a new state")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and all(getattr(self, f) == getattr(other, f) for f in _FIELDS)

    def __hash__(self) -> int:
        return hash(tuple(getattr(self, f) for f in _FIELDS))

    def __repr__(self) -> str:
        return f"<State\n{_position.position_text(self)}>"

    # -- moves ---------------------------------------------------------------------------------
    def _generate(self) -> None:
        legal, index, _complete = _moves.legal_moves(self)
        object.__setattr__(self, "_legal", legal)
        object.__setattr__(self, "_index", index)

    def legal_moves(self) -> list[Move]:
        """Every distinct legal move once: captures, then builds, then trails."""
        if self._legal is None:
            self._generate()
        return list(self._legal)

    def listed_moves(self, cap: int) -> tuple[list[Move], bool]:
        """The legal moves with at most about `cap` captures per card value, and whether that is
        all of them. For callers that must bound their work: a table crowded with loose cards
        can have hundreds of thousands of distinct captures. Any legal move still `apply`s."""
        if self._legal is not None:
            return list(self._legal), True
        legal, index, complete = _moves.legal_moves(self, cap)
        if complete:
            object.__setattr__(self, "_legal", legal)
            object.__setattr__(self, "_index", index)
        return legal, complete

    def apply(self, move: Move | dict) -> "State":
        """The state after `move` (a Move or a move dict); raises IllegalMove if it is not legal.

        The move is checked against the rules directly, never by listing every legal move.
        """
        if self.is_over:
            raise IllegalMove(f"{_describe(move)}: the deal is over")
        if isinstance(move, Move):
            if self._legal is not None:
                for legal in self._legal:
                    if legal is move:  # the fast path: a move taken from legal_moves()
                        return _play(self, move, None)
        else:
            move = Move.from_dict(move)
        return _play(self, _moves.check(self, move), move.value)

    # -- views ---------------------------------------------------------------------------------
    def observation(self, seat: int, *, moves: bool = True) -> dict[str, Any]:
        """What `seat` may know, as plain data (moves=False leaves out the public move list)."""
        return _observation.observe(self, seat, moves=moves)

    def score(self) -> list[int]:
        """Points per side of a finished deal."""
        return [side["total"] for side in self.breakdown()]

    def breakdown(self) -> list[dict[str, Any]]:
        return _scoring.breakdown(self)

    def to_dict(self) -> dict[str, Any]:
        return _position.to_dict(self)

    @classmethod
    def from_dict(cls, position: dict[str, Any]) -> "State":
        return cls(**_position.fields(position))

    @property
    def seat_count(self) -> int:
        return len(self.hands)


def _describe(move: Any) -> str:
    return str(move) if isinstance(move, Move) else repr(move)


def _deal_order(dealer: int, n: int) -> list[int]:
    """Seats in dealing order: the forehand (after the dealer) first, the dealer last."""
    return [(dealer + 1 + k) % n for k in range(n)]


def deal(variant: Variant | str | dict | None, seed: int, dealer: int = 0) -> State:
    """The opening position of a deal: fully determined by (variant, seed, dealer)."""
    v = make_variant(variant)
    n = v.players
    if type(dealer) is not int or not 0 <= dealer < n:
        raise EngineError(f"dealer: must be a seat 0..{n - 1}, got {dealer!r}")
    deck = shuffle(check_seed(seed), v.rules.deck)
    hands: list[list[str]] = [[] for _ in range(n)]
    table: list[Unit] = []
    order = _deal_order(dealer, n)
    pos = 0
    for where, count in v.rules.first_deal:
        if where == "hands":
            for _ in range(count):
                for s in order:
                    hands[s].append(deck[pos])
                    pos += 1
        else:
            table.extend(deck[pos : pos + count])
            pos += count
    return State(
        variant=v, dealer=dealer, to_move=order[0], hands=tuple(map(tuple, hands)), table=tuple(table),
        stock=tuple(deck[pos:]), taken=((),) * v.num_sides, zwicks=(0,) * v.num_sides,
        last_capture=None, history=(), is_over=False,
    )


def refill(hands: list[tuple[str, ...]], stock: tuple[str, ...], dealer: int, hand_size: int) -> tuple[str, ...]:
    """Deal a new round into empty `hands` (in place); returns the rest of the stock.

    If a normal round would leave fewer cards than a full round, the whole stock is dealt now,
    one at a time from the forehand, so earlier seats get the odd cards.
    """
    n = len(hands)
    round_size = n * hand_size
    count = len(stock) if len(stock) - round_size < round_size else round_size
    dealt: list[list[str]] = [[] for _ in range(n)]
    order = _deal_order(dealer, n)
    for k in range(count):
        dealt[order[k % n]].append(stock[k])
    for s in range(n):
        hands[s] = tuple(dealt[s])
    return stock[count:]


def _play(state: State, move: Move, value: int | None) -> State:
    v = state.variant
    rules = v.rules
    seat = state.to_move
    side = rules.side_of[seat]
    n = v.players
    hands = list(state.hands)
    hand = hands[seat]
    k = hand.index(move.card)
    hands[seat] = hand[:k] + hand[k + 1 :]
    table = state.table
    taken = state.taken
    zwicks = state.zwicks
    last_capture = state.last_capture
    if move.type == "capture":
        take = set(move.take)
        pile = [move.card]
        rest = []
        for i, unit in enumerate(table):
            if i in take:
                pile.extend(unit_cards(unit))
            else:
                rest.append(unit)
        table = tuple(rest)
        taken = taken[:side] + (taken[side] + tuple(pile),) + taken[side + 1 :]
        last_capture = side
        if not table and not (v.joker_sweep_no_zwick and move.card[0] == "X"):
            zwicks = zwicks[:side] + (zwicks[side] + 1,) + zwicks[side + 1 :]
    elif move.type == "build":
        i = move.onto
        table = table[:i] + (Build(unit_cards(table[i]) + (move.card,), move.value, seat),) + table[i + 1 :]
    else:
        table = table + (move.card,)
    # Record the move as announced: a capture keeps the value the player named, if any.
    shown = move if value is None or value == move.value else Move("capture", move.card, value, move.take)
    history = state.history + ((seat, shown),)
    stock = state.stock
    is_over = False
    if not any(hands):
        if stock:
            stock = refill(hands, stock, state.dealer, rules.hand_size)
        else:
            is_over = True
            if last_capture is not None and table:
                leftovers = tuple(c for unit in table for c in unit_cards(unit))
                taken = taken[:last_capture] + (taken[last_capture] + leftovers,) + taken[last_capture + 1 :]
                table = ()
    to_move = (seat + 1) % n
    if not is_over:
        while not hands[to_move]:
            to_move = (to_move + 1) % n
    return State(
        variant=v, dealer=state.dealer, to_move=to_move, hands=tuple(hands), table=table, stock=stock,
        taken=taken, zwicks=zwicks, last_capture=last_capture, history=history, is_over=is_over,
    )
