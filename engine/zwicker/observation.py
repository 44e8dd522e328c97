"""What one seat may know (the only data a bot ever gets): never another seat's hidden cards."""

from __future__ import annotations

from typing import Any

from engine.zwicker.position import unit_to_data


def observe(state: Any, seat: int, *, moves: bool = True) -> dict[str, Any]:
    """The plain-data view of `seat`. With moves=False the public move list is left out, for a
    caller that keeps its own copy of it (the arena's table runner does)."""
    n = len(state.hands)
    if type(seat) is not int or not 0 <= seat < n:
        raise ValueError(f"seat: must be 0..{n - 1}, got {seat!r}")
    rules = state.variant.rules
    return {
        "seat": seat,
        "side": rules.side_of[seat],
        "dealer": state.dealer,
        "to_move": state.to_move,
        "hand": list(state.hands[seat]),
        "table": [unit_to_data(u) for u in state.table],
        "hand_sizes": [len(h) for h in state.hands],
        "stock": len(state.stock),
        "taken": [len(t) for t in state.taken],
        "zwicks": list(state.zwicks),
        "last_capture": state.last_capture,
        "is_over": state.is_over,
        **({"moves": [{"seat": s, **m.to_dict()} for s, m in state.history]} if moves else {}),
    }
