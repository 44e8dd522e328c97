"""Positions as plain data (docs/zwicken-rules.md section 10), checked on the way in.

A position is one attempt with every hand: it cannot resume a board (no board seed, first dealer
or earlier attempts), and it does not hold a blind deal's tricks (those are public and kept in
the board's history and the observations).
"""

from __future__ import annotations

from typing import Any

from engine.zwicken.cards import PACK, table
from engine.errors import PositionError, EngineError
from engine.zwicken.moves import Move, trick_winner
from engine.zwicken.scoring import settle
from engine.zwicken.state import PHASES, State, _rundherum, moves_to_data, opening_payments
from engine.zwicken.variant import variant as make_variant

_CARDS = frozenset(PACK)


def to_dict(state: State) -> dict[str, Any]:
    return {
        "game": "zwicken",
        "variant": state.variant.to_dict(),
        "board": {"deal": state.deal_no, "attempt": state.attempt, "playout": state.playout,
                  "carry_in": state.carry_in},
        "dealer": state.dealer, "phase": state.phase, "to_move": state.to_move,
        "hands": [list(h) for h in state.hands], "stock": list(state.stock), "cut": state.stock[-1],
        "method": state.method, "turned": state.turned, "exposed": state.exposed, "trump": state.trump,
        "stake": state.variant.stake, "pot": state.pot, "balances": list(state.balances),
        "decisions": list(state.decisions), "leader": state.leader,
        "trick": [[s, c] for s, c in state.trick], "tricks": list(state.tricks),
        "moves": moves_to_data(state.moves),
    }


def _need(d: dict, key: str, kind: Any, *, null: bool = False) -> Any:
    if key not in d:
        raise PositionError(f"position: missing key {key!r}")
    value = d[key]
    if value is None and null:
        return None
    if kind is int and (type(value) is not int):
        raise PositionError(f"{key}: expected an integer, got {value!r}")
    if kind is not int and not isinstance(value, kind):
        raise PositionError(f"{key}: expected {kind.__name__}, got {value!r}")
    return value


def _card(value: Any, where: str) -> str:
    if value not in _CARDS:
        raise PositionError(f"{where}: not a card: {value!r}")
    return value


def _per_seat(d: dict, key: str, n: int) -> list:
    value = _need(d, key, list)
    if len(value) != n:
        raise PositionError(f"{key}: expected {n} entries, got {len(value)}")
    return value


def from_dict(d: Any) -> State:
    """The state a position describes; PositionError names what is wrong with it."""
    try:
        return _from_dict(d)
    except PositionError:
        raise
    except EngineError as exc:
        raise PositionError(str(exc)) from None


def _from_dict(d: Any) -> State:
    if not isinstance(d, dict):
        raise PositionError(f"position: expected an object, got {type(d).__name__}")
    if d.get("game", "zwicken") != "zwicken":
        raise PositionError(f"game: expected 'zwicken', got {d.get('game')!r}")
    spec = _need(d, "variant", dict)
    v = make_variant({k: x for k, x in spec.items() if k != "game"})
    n = v.players
    b = _need(d, "board", dict)
    deal_no, attempt, carry_in = (_need(b, k, int) for k in ("deal", "attempt", "carry_in"))
    playout = _need(b, "playout", bool)
    if deal_no < 0 or attempt < 0 or carry_in < 0 or carry_in % 3:
        raise PositionError(f"board: deal and attempt must be >= 0, carry_in a multiple of 3: {b!r}")
    dealer = _need(d, "dealer", int)
    if not 0 <= dealer < n:
        raise PositionError(f"dealer: must be a seat 0..{n - 1}, got {dealer}")
    phase = _need(d, "phase", str)
    if phase not in PHASES:
        raise PositionError(f"phase: must be one of {', '.join(PHASES)}, got {phase!r}")
    to_move = _need(d, "to_move", int, null=True)
    if (to_move is None) != (phase == "over") or to_move is not None and not 0 <= to_move < n:
        raise PositionError(f"to_move: {to_move!r} does not fit the phase {phase!r}")
    hands = tuple(tuple(_card(c, "hands") for c in _need({"h": h}, "h", list)) for h in _per_seat(d, "hands", n))
    stock = tuple(_card(c, "stock") for c in _need(d, "stock", list))
    if len(stock) != 32 - 3 * n:
        raise PositionError(f"stock: expected {32 - 3 * n} cards, got {len(stock)}")
    if d.get("cut") != stock[-1]:
        raise PositionError(f"cut: must be the stock's last card {stock[-1]}, got {d.get('cut')!r}")
    method = _need(d, "method", str, null=True)
    turned = _need(d, "turned", str, null=True)
    exposed = _need(d, "exposed", str, null=True)
    trump = _need(d, "trump", str, null=True)
    if _need(d, "stake", int) != v.stake:
        raise PositionError(f"stake: the variant's is {v.stake}, got {d['stake']}")
    pot = _need(d, "pot", int)
    balances = tuple(_need({"b": x}, "b", int) for x in _per_seat(d, "balances", n))
    if sum(balances) + pot != 0:
        raise PositionError(f"balances + pot must be 0, got {sum(balances) + pot}")
    if pot < 0 or pot % 3:
        raise PositionError(f"pot: must be a non-negative multiple of 3, got {pot}")
    decisions = tuple(_per_seat(d, "decisions", n))
    if any(x not in (None, "play", "pass") for x in decisions):
        raise PositionError(f"decisions: each must be 'play', 'pass' or null, got {decisions!r}")
    leader = _need(d, "leader", int, null=True)
    trick = tuple((s, _card(c, "trick")) for s, c in _need(d, "trick", list))
    tricks = tuple(_need({"t": x}, "t", int) for x in _per_seat(d, "tricks", n))
    moves = []
    for m in _need(d, "moves", list):
        if not isinstance(m, dict) or type(m.get("seat")) is not int or not 0 <= m["seat"] < n:
            raise PositionError(f"moves: each needs a seat 0..{n - 1}: {m!r}")
        moves.append((m["seat"], Move.from_dict({k: x for k, x in m.items() if k != "seat"})))
    played_cards = [m.card for _, m in moves if m.type == "card"]
    paid, ends = opening_payments(v, dealer, stock[-1], attempt)
    # Rows of section 10
    if method is not None and method not in ("schlecken", "titschen"):
        raise PositionError(f"method: {method!r}")
    if (method == "schlecken") != (turned is not None) or turned is not None and turned != stock[0]:
        raise PositionError(f"turned: must be the stock's top card exactly when the method is schlecken, got {turned!r}")
    if exposed is not None and (method != "titschen" or not hands[dealer] or exposed != hands[dealer][-1]):
        raise PositionError(f"exposed: {exposed!r} is not the titschender dealer's card")
    if (method is None) != (trump is None):
        raise PositionError("trump: fixed exactly when the method is")
    if trump is not None:
        shown = turned if method == "schlecken" else (exposed or None)
        if shown is not None and shown[1] != trump:
            raise PositionError(f"trump: {trump!r} is not the suit of {shown}")
    opening_pot = carry_in + sum(paid)
    if phase != "over":
        cards = [c for h in hands for c in h] + list(stock) + played_cards
        if sorted(cards) != sorted(PACK):
            raise PositionError("hands, stock and played cards must be one pack")
        if pot != opening_pot:
            raise PositionError(f"pot: expected carry_in + ante + cut stakes = {opening_pot}, got {pot}")
        if (phase == "trump") != (method is None):
            raise PositionError(f"method: {method!r} does not fit the phase {phase!r}")
    # the tricks, from the card moves
    ins = decisions.count("play")
    tricks_played = []
    card_moves = [(s, m.card) for s, m in moves if m.type == "card"]
    for i in range(0, len(card_moves) - len(card_moves) % max(ins, 1), max(ins, 1)):
        chunk = tuple(card_moves[i:i + ins])
        tricks_played.append((chunk, trick_winner(chunk, table(v.welli, trump))))  # type: ignore[arg-type]
    state = State(
        variant=v, deal_no=deal_no, attempt=attempt, playout=playout, carry_in=carry_in, dealer=dealer,
        phase=phase, to_move=to_move, hands=hands, stock=stock, method=method, turned=turned,
        exposed=exposed, trump=trump, pot=pot, balances=balances, paid=paid, decisions=decisions,
        leader=leader, trick=trick, tricks=tricks, tricks_played=tuple(tricks_played),
        moves=tuple(moves), result=None, history=(),
    )
    if phase == "over":
        if ends is not None:
            kind = "cut"
        elif method == "schlecken" and all(x is None for x in decisions) and _rundherum(state, stock[0]):
            kind = "rundherum"
        elif not moves and v.blindes and opening_pot == v.stake:
            kind = "blind"
        elif decisions[dealer] is None:
            kind = "all_passed"
        elif ins == 1:
            kind = "lone"
        else:
            kind = "played"
        result = settle(v, kind, dealer, opening_pot, paid, decisions, tricks, trump, hands[dealer])
        if result.carry != pot:
            raise PositionError(f"pot: the attempt ends with {result.carry} in the pot, got {pot}")
        object.__setattr__(state, "result", result)
        object.__setattr__(state, "paid", result.paid)
    return state
