#!/usr/bin/env python3
"""Greedy: the capture worth most right now, else the least harmful build or trail.

Worth counts the point cards from the variant's "points" table, a share of the most-cards
bonus per captured card and the Zwick bonus for clearing the table. It sees only what the
protocol sends (it must not import the engine: under the sandbox only bots/ is visible).
Ties go to the lower index, so the bot is deterministic.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # botkit, even under python -I

from botkit import Bot, run, unit_cards  # noqa: E402



class GreedyBot(Bot):
    name = "greedy"
    version = "1"

    def on_hello(self, hello):
        self.points = self.variant.get("points", {})
        deck = self.variant.get("deck", [])
        # Each captured card's share of the most-cards bonus, if the race were evenly split.
        self.per_card = self.variant.get("most_cards", 0) / max(1, len(deck) / 2)
        self.zwick = self.variant.get("zwick", 0)

    def worth(self, cards):
        return sum(self.points.get(card, 0) for card in cards) + self.per_card * len(cards)

    def score(self, move, table):
        kind = move["type"]
        if kind == "capture":
            taken = [card for i in move["take"] for card in unit_cards(table[i])]
            sweep = self.zwick if len(move["take"]) == len(table) else 0
            return 100 + self.worth([move["card"]] + taken) + sweep
        if kind == "build":
            # We hold a card that takes the build next turn (the holder rule), unless someone
            # takes it first: better than giving a card away, more so for a valuable pile.
            cards = unit_cards(table[move["onto"]]) + [move["card"]]
            return 0.1 + 0.25 * self.worth(cards)
        return -self.worth([move["card"]])  # a trail gives the card to whoever takes it

    def choose(self, observation, legal_moves):
        table = observation["table"]
        scores = [self.score(move, table) for move in legal_moves]
        return scores.index(max(scores))


if __name__ == "__main__":
    run(GreedyBot())
