"""Text forms for logs, golden files and people: one line per fact of an attempt."""

from __future__ import annotations

from engine.zwicken.cards import SUIT_NAMES
from engine.zwicken.observation import hand_hidden
from engine.zwicken.state import State


def position_text(state: State, seat: int | None = None) -> str:
    """The attempt as text: every hand (seat None) or one seat's view (hidden hands as sizes)."""
    n = len(state.hands)
    b = f"deal {state.deal_no} attempt {state.attempt}{' (play-out)' if state.playout else ''}"
    trump = f"{SUIT_NAMES[state.trump]} ({state.method})" if state.trump else "-"
    lines = [f"{b}, dealer {state.dealer}, {state.phase}, to move {state.to_move}",
             f"pot {state.pot} (carry in {state.carry_in}), trumps {trump}"
             + (f", turned {state.turned}" if state.turned else "")
             + (f", shown {state.exposed}" if state.exposed else "")]
    for s in range(n):
        hand = state.hands[s]
        if seat is None or (s == seat and not hand_hidden(state, seat)):
            cards = " ".join(hand) or "-"
        else:
            cards = f"({len(hand)} cards)"
        lines.append(f"  seat {s}: {cards:<14} {state.decisions[s] or '':<5} tricks {state.tricks[s]}"
                     f"  balance {state.balances[s]:+d}")
    if state.trick:
        lines.append("  trick: " + " ".join(f"{s}:{c}" for s, c in state.trick))
    if seat is None:
        lines.append(f"  stock: {' '.join(state.stock)} (cut {state.cut})")
    if state.result is not None:
        r = state.result
        lines.append(f"  result: {r.event}, won {list(r.won)}, paid {list(r.paid)}, carry {r.carry}")
    return "\n".join(lines)
