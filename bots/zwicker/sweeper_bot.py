#!/usr/bin/env python3
"""Sweeper: chases the most-cards bonus and Zwicks. It captures as many cards as it can
(a sweep first), never builds, and trails its least valuable card. Deterministic."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # botkit, even under python -I

from botkit import Bot, run, unit_cards  # noqa: E402



class SweeperBot(Bot):
    name = "sweeper"
    version = "1"

    def choose(self, observation, legal_moves):
        table = observation["table"]
        points = self.variant.get("points", {})
        best, best_score = 0, None
        for i, move in enumerate(legal_moves):
            if move["type"] == "capture":
                taken = sum(len(unit_cards(table[k])) for k in move["take"])
                score = 1000 * (len(move["take"]) == len(table)) + 10 * taken
            elif move["type"] == "trail":
                score = -points.get(move["card"], 0) - 0.01 * max(self.variant["values"][move["card"]])
            else:
                continue
            if best_score is None or score > best_score:
                best, best_score = i, score
        return best


if __name__ == "__main__":
    run(SweeperBot())
