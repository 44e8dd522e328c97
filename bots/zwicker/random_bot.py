#!/usr/bin/env python3
"""A uniformly random legal move, seeded from the arena's hello: same seeds, same game."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # botkit, even under python -I

from botkit import Bot, run  # noqa: E402


class RandomBot(Bot):
    name = "random"
    version = "1"

    def choose(self, observation, legal_moves):
        return self.rng.randrange(len(legal_moves))


if __name__ == "__main__":
    run(RandomBot())
