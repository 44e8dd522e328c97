"""One attempt of a deal as a frozen value (docs/zwicken-rules.md sections 3-5).

`deal(variant, shuffle_seed, dealer, ...)` gives the attempt after its automatic steps (ante,
shuffle and cut, deal; a cut-ended or blind attempt is already over); `state.apply(move)` returns
the next state. Everything is public here (the rules know every hand); what one seat may see is
`engine.zwicken.observation.observe`, the plain-data position `engine.zwicken.position`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import engine.zwicken.cards as _cards
from engine.errors import IllegalMove, EngineError
from engine.zwicken.moves import CARD_MOVES, PASS, PLAY, SCHLECKEN, TITSCHEN, Move, legal_cards, trick_winner
from engine.zwicken.scoring import DealResult, settle
from engine.zwicken.shuffle import check_seed, shuffle
from engine.zwicken.variant import Variant, variant as make_variant

PHASES = ("trump", "decide", "trick", "over")
_FIELDS = ("variant", "deal_no", "attempt", "playout", "carry_in", "dealer", "phase", "to_move",
           "hands", "stock", "method", "turned", "exposed", "trump", "pot", "balances", "paid",
           "decisions", "leader", "trick", "tricks", "tricks_played", "moves", "result", "history")
_set = object.__setattr__


@dataclass(frozen=True)
class Attempt:
    """An earlier attempt of the board, as an observation's `history` lists it."""

    dealer: int
    moves: tuple[tuple[int, Move], ...]
    tricks_played: tuple[tuple[tuple[tuple[int, str], ...], int], ...]
    result: DealResult

    def to_dict(self) -> dict[str, Any]:
        return {"dealer": self.dealer, "moves": moves_to_data(self.moves),
                "tricks_played": tricks_to_data(self.tricks_played), "result": self.result.to_dict()}


def moves_to_data(moves: tuple[tuple[int, Move], ...]) -> list[dict[str, Any]]:
    return [{"seat": s, **m.to_dict()} for s, m in moves]


def tricks_to_data(tricks: tuple) -> list[dict[str, Any]]:
    return [{"cards": [[s, c] for s, c in cards], "winner": w} for cards, w in tricks]


class State:
    """A position of one attempt. Immutable: every attribute is a tuple, int, str, None or value."""

    # No __slots__: a new state is one dict merge of the old one's fields and the changes.

    variant: Variant
    deal_no: int                 # k: counted deals of the board before this one
    attempt: int                 # a: attempts of this deal before this one
    playout: bool
    carry_in: int
    dealer: int
    phase: str
    to_move: int | None
    hands: tuple[tuple[str, ...], ...]
    stock: tuple[str, ...]
    method: str | None
    turned: str | None
    exposed: str | None
    trump: str | None
    pot: int
    balances: tuple[int, ...]
    paid: tuple[int, ...]        # this attempt's payments so far (the result's `paid` once over)
    decisions: tuple[str | None, ...]
    leader: int | None
    trick: tuple[tuple[int, str], ...]
    tricks: tuple[int, ...]
    tricks_played: tuple
    moves: tuple[tuple[int, Move], ...]
    result: DealResult | None
    history: tuple[Attempt, ...]

    def __init__(self, **fields: Any) -> None:
        missing = set(_FIELDS) - set(fields)
        if missing or len(fields) != len(_FIELDS):
            raise TypeError(f"State needs exactly the fields {', '.join(_FIELDS)}")
        _set(self, "__dict__", {**fields, "_legal": None})

    def _but(self, **changes: Any) -> "State":
        new = object.__new__(State)
        _set(new, "__dict__", {**self.__dict__, **changes, "_legal": None})
        return new

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("State is immutable: apply a move to get a new state")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and all(getattr(self, f) == getattr(other, f) for f in _FIELDS)

    def __hash__(self) -> int:
        return hash((self.deal_no, self.attempt, self.dealer, self.hands, self.moves))

    def __repr__(self) -> str:
        return f"<zwicken.State deal {self.deal_no} attempt {self.attempt} {self.phase} to_move {self.to_move}>"

    @property
    def is_over(self) -> bool:
        return self.phase == "over"

    @property
    def players(self) -> int:
        return len(self.hands)

    @property
    def cut(self) -> str:
        return self.stock[-1]

    @property
    def forehand(self) -> int:
        return (self.dealer + 1) % len(self.hands)

    def card_table(self) -> dict[str, tuple[str, int]]:
        """Per card: its effective suit and power under this attempt's trumps."""
        if self.trump is None:
            raise EngineError("no trumps yet")
        return _cards.table(self.variant.welli, self.trump)

    # -- moves ---------------------------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        """Every legal move once, in section 4's order (cards in hand order)."""
        legal = self._legal
        if legal is None:
            legal = _legal(self)
            _set(self, "_legal", legal)
        return list(legal)

    def apply(self, move: Move | dict) -> "State":
        """The state after `move` (a Move or its dict); IllegalMove if it is not legal here."""
        if self.phase == "over":
            raise IllegalMove(f"{_describe(move)}: the attempt is over")
        legal = self._legal
        if legal is None:
            legal = _legal(self)
            _set(self, "_legal", legal)
        if not isinstance(move, Move):
            move = Move.from_dict(move)
        for m in legal:
            if m is move or m == move:
                return _play(self, m)
        raise IllegalMove(f"{move}: not legal for seat {self.to_move} (legal: {' '.join(map(str, legal))})")


def _describe(move: Any) -> str:
    return str(move) if isinstance(move, Move) else repr(move)


def _legal(s: State) -> tuple[Move, ...]:
    phase = s.phase
    if phase == "trick":
        v = s.variant
        cards = legal_cards(s.hands[s.to_move], s.trick, _cards.table(v.welli, s.trump),  # type: ignore[arg-type]
                            v.must_trump, v.must_overtrump, v.must_head)
        return tuple(CARD_MOVES[c] for c in cards)
    if phase == "decide":
        v = s.variant
        seat = s.to_move
        if seat == s.dealer and (s.method == "titschen" or (
                v.lone_player == "dealer_defends" and s.decisions.count("play") == 1)):
            return (PLAY,)
        if v.single_stake_all_play and s.pot == v.stake:
            return (PLAY,)
        return (PLAY, PASS)
    if phase == "trump":
        return (SCHLECKEN, TITSCHEN)
    return ()


def opening_payments(v: Variant, dealer: int, cut: str, attempt: int) -> tuple[tuple[int, ...], str | None]:
    """What each seat pays before any move (the ante and the cut's stakes, section 7), and how the
    cut card ends the attempt: None (it goes on), "hop", "king" (next dealer) or "ace" (next but one)."""
    n = v.players
    paid = [0] * n
    paid[dealer] = v.stake
    ends = None
    if v.cut != "none" and attempt < v.max_hops:
        r = cut[0]
        if v.cut == "hop":
            if r in ("7", "A"):
                ends = "hop"
        elif r == "A":
            paid[(dealer + 1) % n] += v.stake
            ends = "ace"
        elif cut == "KH":
            for s in range(n):
                paid[s] += 2 * v.stake
        elif r == "K":
            ends = "king"
        elif cut in ("7S", "7E"):
            for s in range(n):
                paid[s] += v.stake
    return tuple(paid), ends


def dealer_shift(v: Variant, result: DealResult, cut: str) -> int:
    """How many seats the deal moves on after an attempt (section 6)."""
    if result.event == "cut" and v.cut == "table" and cut[0] == "A":
        return 2
    return 1


def deal(variant: Variant | str | dict | None, seed: int, dealer: int = 0, *,
            deal_no: int = 0, attempt: int = 0, playout: bool | None = None, carry_in: int = 0,
            balances: tuple[int, ...] | None = None, history: tuple[Attempt, ...] = ()) -> State:
    """An attempt after its automatic steps: ante, shuffle and cut, deal, and (when the cut card
    ends it, or it is blind) everything up to its end."""
    v = make_variant(variant)
    n = v.players
    if type(dealer) is not int or not 0 <= dealer < n:
        raise EngineError(f"dealer: must be a seat 0..{n - 1}, got {dealer!r}")
    if type(carry_in) is not int or carry_in < 0 or carry_in % 3:
        raise EngineError(f"carry_in: must be a non-negative multiple of 3, got {carry_in!r}")
    if balances is not None and (len(balances) != n or not all(type(b) is int for b in balances)):
        raise EngineError(f"balances: expected {n} integers, got {balances!r}")
    pack = shuffle(check_seed(seed))
    hands: list[tuple[str, ...]] = [()] * n
    for j in range(n):
        hands[(dealer + 1 + j) % n] = (pack[j], pack[n + j], pack[2 * n + j])
    stock = tuple(pack[3 * n:])
    paid, ends = opening_payments(v, dealer, stock[-1], attempt)
    pot = carry_in + sum(paid)
    bal = tuple((0 if balances is None else balances[s]) - paid[s] for s in range(n))
    s = State(
        variant=v, deal_no=deal_no, attempt=attempt,
        playout=deal_no >= v.deals if playout is None else playout, carry_in=carry_in,
        dealer=dealer, phase="trump", to_move=dealer, hands=tuple(hands), stock=stock, method=None,
        turned=None, exposed=None, trump=None, pot=pot, balances=bal, paid=paid,
        decisions=(None,) * n, leader=None, trick=(), tricks=(0,) * n, tricks_played=(), moves=(),
        result=None, history=tuple(history),
    )
    if ends is not None:
        return _finish(s, "cut")
    if v.blindes and pot == v.stake:
        return _blind(s)
    return s


def _rundherum(s: State, turned: str) -> bool:
    v = s.variant
    return v.rundherum and turned[0] in ("A", "7") and s.attempt < v.max_hops


def _blind(s: State) -> State:
    """A blind deal (section 7, `blindes`): Schlecken, every seat in, last-dealt card first."""
    turned = s.stock[0]
    s = s._but(method="schlecken", turned=turned, trump=turned[1])
    if _rundherum(s, turned):
        return _finish(s, "rundherum")
    n = s.players
    cards = s.card_table()
    piles = [list(h) for h in s.hands]
    leader = s.forehand
    tricks = [0] * n
    played = []
    for _ in range(3):
        trick = tuple(((leader + j) % n, piles[(leader + j) % n].pop()) for j in range(n))
        leader = trick_winner(trick, cards)
        tricks[leader] += 1
        played.append((trick, leader))
    s = s._but(hands=tuple(tuple(p) for p in piles), decisions=("play",) * n, leader=leader,
               tricks=tuple(tricks), tricks_played=tuple(played))
    return _finish(s, "blind")


def _finish(s: State, kind: str) -> State:
    """Settle the attempt (section 5) and close it."""
    v = s.variant
    result = settle(v, kind, s.dealer, s.pot, s.paid, s.decisions, s.tricks, s.trump,
                    s.hands[s.dealer])
    balances = tuple(b + w - (p - q) for b, w, p, q in zip(s.balances, result.won, result.paid, s.paid))
    exposed = s.exposed if kind in ("all_passed", "lone") else None
    return s._but(phase="over", to_move=None, pot=result.carry, balances=balances, paid=result.paid,
                  result=result, exposed=exposed)


def _play(s: State, move: Move) -> State:
    seat: int = s.to_move  # type: ignore[assignment]
    n = len(s.hands)
    dealer = s.dealer
    moves = s.moves + ((seat, move),)
    phase = s.phase
    if phase == "trump":
        if move is SCHLECKEN:
            turned = s.stock[0]
            t = s._but(method="schlecken", turned=turned, trump=turned[1], moves=moves,
                       phase="decide", to_move=(dealer + 1) % n)
            if _rundherum(t, turned):
                return _finish(t, "rundherum")
            return t
        exposed = s.hands[dealer][2]
        return s._but(method="titschen", exposed=exposed, trump=exposed[1], moves=moves,
                      phase="decide", to_move=(dealer + 1) % n)
    if phase == "decide":
        decisions = s.decisions[:seat] + (move.type,) + s.decisions[seat + 1:]
        if seat != dealer:
            nxt = (seat + 1) % n
            if nxt == dealer and "play" not in decisions:
                return _finish(s._but(decisions=decisions, moves=moves), "all_passed")
            return s._but(decisions=decisions, moves=moves, to_move=nxt)
        if decisions.count("play") == 1:
            return _finish(s._but(decisions=decisions, moves=moves), "lone")
        leader = next(x % n for x in range(dealer + 1, dealer + 1 + n) if decisions[x % n] == "play")
        return s._but(decisions=decisions, moves=moves, phase="trick", leader=leader, to_move=leader)
    # a card
    card: str = move.card  # type: ignore[assignment]
    hand = s.hands[seat]
    k = hand.index(card)
    hands = s.hands[:seat] + (hand[:k] + hand[k + 1:],) + s.hands[seat + 1:]
    trick = s.trick + ((seat, card),)
    exposed = None if card == s.exposed else s.exposed
    decisions = s.decisions
    if len(trick) == decisions.count("play"):
        winner = trick_winner(trick, s.card_table())
        tricks = s.tricks[:winner] + (s.tricks[winner] + 1,) + s.tricks[winner + 1:]
        t = s._but(hands=hands, trick=(), exposed=exposed, moves=moves, tricks=tricks,
                   tricks_played=s.tricks_played + ((trick, winner),), leader=winner, to_move=winner)
        if len(t.tricks_played) == 3:
            return _finish(t, "played")
        return t
    nxt = (seat + 1) % n
    while decisions[nxt] != "play":
        nxt = (nxt + 1) % n
    return s._but(hands=hands, trick=trick, exposed=exposed, moves=moves, to_move=nxt)
