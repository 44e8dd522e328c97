#!/usr/bin/env python3
"""Zwicken: a uniformly random legal move, seeded from the arena's hello: same seeds, same game."""

import os
import sys

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # the kits, even under python -I
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]

from zwicken_kit import ZwickenBot, run  # noqa: E402


class ZwickenRandomBot(ZwickenBot):
    name = "zwicken-random"
    version = "1"

    def choose(self, observation, legal_moves):
        return self.rng.randrange(len(legal_moves))


if __name__ == "__main__":
    run(ZwickenRandomBot())
