#!/usr/bin/env python3
"""First: always the first legal move (the engine lists captures, then builds, then trails).
A deterministic baseline: it captures whenever it can, without judging what it takes."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # botkit, even under python -I

from botkit import Bot, run  # noqa: E402


class FirstBot(Bot):
    name = "first"
    version = "1"

    def choose(self, observation, legal_moves):
        return 0


if __name__ == "__main__":
    run(FirstBot())
