#!/usr/bin/env python3
"""Zwicken by rules (the kit's `Judge`): play or pass by the hand's chances of tricks against the
pot and what a zwick would cost, Schlecken unless a seen hand is good for Titschen, lead the top
trump when it is the highest out (else a plain ace, else the lowest plain card), and follow with
the cheapest card that wins when that card is safe, else the lowest."""

import os
import sys

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # the kits, even under python -I
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]

from zwicken_kit import Judge, ZwickenBot, rules_variant, run  # noqa: E402


class ZwickenRuleBot(ZwickenBot):
    name = "zwicken-rule"
    version = "1"

    def __init__(self, boldness: float = 2.0) -> None:
        super().__init__()
        self.judge = Judge(boldness)
        self.rules = None

    def on_hello(self, hello):
        self.rules = rules_variant(self.variant)

    def choose(self, observation, legal_moves):
        return self.judge.from_observation(observation, legal_moves, self.rules)


if __name__ == "__main__":
    run(ZwickenRuleBot())
