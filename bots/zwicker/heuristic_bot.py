#!/usr/bin/env python3
"""Heuristic: a hand-written strategy that counts what each move wins and what it leaves the
next opponent, knowing which cards are gone.

For every legal move it weighs

- **the gain**: the point cards taken (the variant's `points`), each card's share of the
  most-cards bonus while that race is still open, and the Zwick bonus for clearing the table;
- **the risk** of the table it leaves to the opponent who moves next: the chance that they
  hold a card that sweeps it all (an easy Zwick: the bonus plus every card on it), or one that
  takes the most valuable unit. Chances come from the cards not yet seen (the kit's View
  replays the deal's public moves: every card played, taken or on the table is gone) and the
  opponent's hand size;
- **builds**: a build of value v is announced only when a card able to take v is kept (the
  holder rule, or else the bot checks its own hand and its partner's promises); it is worth
  its pile if it survives the opponent's turn, and lost if they hold a v-card. A build the
  partner can take (they promised v) counts as ours too.

Ties go to the lower index: the bot is deterministic. It uses only what the protocol sends,
with the engine (through the kit) to replay the deal and to test sweeps.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # botkit, even under python -I

from botkit import Heuristic, run  # noqa: E402


class HeuristicBot(Heuristic):
    """The kit's Heuristic (botkit.py) as it is: it lives in the kit so that mc_bot.py, a file
    on its own in the sandbox, can search over the same judgement."""

    name = "heuristic"
    version = "1"


if __name__ == "__main__":
    run(HeuristicBot())
