#!/usr/bin/env python3
"""Builder: captures point cards when it can, and otherwise builds piles worth taking next turn
(the holder rule guarantees it can). Trails its least valuable card. Deterministic."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # botkit, even under python -I

from botkit import Bot, run, unit_cards  # noqa: E402



class BuilderBot(Bot):
    name = "builder"
    version = "1"

    def worth(self, cards):
        points = self.variant.get("points", {})
        return sum(points.get(c, 0) for c in cards) + 0.1 * len(cards)

    def choose(self, observation, legal_moves):
        table = observation["table"]
        scores = []
        for move in legal_moves:
            if move["type"] == "capture":
                cards = [move["card"]] + [c for k in move["take"] for c in unit_cards(table[k])]
                scores.append(2 + self.worth(cards))
            elif move["type"] == "build":
                scores.append(1 + self.worth(unit_cards(table[move["onto"]]) + [move["card"]]))
            else:
                scores.append(-self.worth([move["card"]]))
        return scores.index(max(scores))


if __name__ == "__main__":
    run(BuilderBot())
