"""What one seat may see (docs/zwicken-rules.md section 9), as section 10's observation form.

Never a hidden card: no other seat's hand (a passed hand included: only its size), not the stock
beyond its size and the turned card, not the cut card unless a cut option shows it, and not the
dealer's own hand before his trump choice under `dealer_looks: false`.
"""

from __future__ import annotations

from typing import Any

from engine.zwicken.state import State, moves_to_data, tricks_to_data


def hand_hidden(state: State, seat: int) -> bool:
    return state.phase == "trump" and seat == state.dealer and not state.variant.dealer_looks


def observe(state: State, seat: int) -> dict[str, Any]:
    """Seat `seat`'s view of `state`: a perfect-recall record of everything public in the board."""
    n = len(state.hands)
    if type(seat) is not int or not 0 <= seat < n:
        raise ValueError(f"seat: must be 0..{n - 1}, got {seat!r}")
    v = state.variant
    hidden = hand_hidden(state, seat)
    obs: dict[str, Any] = {
        "game": "zwicken",
        "variant": v.to_dict(),
        "board": {"deal": state.deal_no, "attempt": state.attempt, "playout": state.playout,
                  "carry_in": state.carry_in},
        "dealer": state.dealer, "phase": state.phase, "to_move": state.to_move, "seat": seat,
        "hand": [] if hidden else list(state.hands[seat]), "hand_hidden": hidden,
        "hand_sizes": [len(h) for h in state.hands],
        "stock": len(state.stock),
    }
    if v.cut != "none":
        obs["cut"] = state.stock[-1]
    obs.update({
        "method": state.method, "turned": state.turned, "exposed": state.exposed, "trump": state.trump,
        "stake": v.stake, "pot": state.pot, "balances": list(state.balances), "paid": list(state.paid),
        "decisions": list(state.decisions), "leader": state.leader,
        "trick": [[s, c] for s, c in state.trick], "tricks": list(state.tricks),
        "tricks_played": tricks_to_data(state.tricks_played),
        "moves": moves_to_data(state.moves),
    })
    if state.phase == "over":
        obs["shown"] = state.result.to_dict()["shown"]  # type: ignore[union-attr]
    obs["history"] = [a.to_dict() for a in state.history]
    return obs
