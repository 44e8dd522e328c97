"""Scoring a finished deal (docs/rules.md section 5): point cards, the most-cards bonus, Zwicks."""

from __future__ import annotations

from typing import Any

from engine.errors import EngineError


def breakdown(state: Any) -> list[dict[str, Any]]:
    """Per side: cards taken, each point card, card points, most-cards bonus, Zwicks, total."""
    if not state.is_over:
        raise EngineError("score: the deal is not over yet")
    rules = state.variant.rules
    counts = [len(t) for t in state.taken]
    nobody = not any(counts)  # nobody captured: the deal scores nothing for anyone
    best = max(counts)
    most = counts.index(best) if best and counts.count(best) == 1 else None
    result = []
    for side, pile in enumerate(state.taken):
        point_cards = [[c, rules.points[c]] for c in pile if rules.points[c]]
        card_points = sum(p for _, p in point_cards)
        bonus = rules.most_cards if side == most else 0
        zwick_points = 0 if nobody else state.zwicks[side] * rules.zwick
        result.append({
            "cards": counts[side],
            "point_cards": point_cards,
            "card_points": card_points,
            "most_cards": bonus,
            "zwicks": state.zwicks[side],
            "zwick_points": zwick_points,
            "total": card_points + bonus + zwick_points,
        })
    return result
