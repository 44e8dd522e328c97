#!/usr/bin/env python3
"""Zwicken by OpenSpiel's information-set Monte-Carlo tree search (extra `[openspiel]`).

The attempt is OpenSpiel's game `arena_zwicken` (games/as_openspiel.py, over the arena's rules
through games/); the search is OpenSpiel's `ISMCTSBot`, one tree over information sets, each
simulation in a world drawn by the kit's `View.sample` (the hidden cards dealt consistently with
everything the seat has seen, the voids play revealed included), its leaves valued by one playout
on the arena's state with the kit's `Judge` for every seat (a tenth of its choices random, as
zwicken-mc's playouts); the value is the seat's chips for the attempt less the mean of the
others'. It plays the root's most visited move and thinks for `--fraction` (default 0.25) of
`move_ms`.

It imports OpenSpiel, numpy and absl, which its metadata block below declares: the arena shows
them to this bot alone, in any sandbox, where they are installed beside it
(arena/process/libraries.py).
"""

# /// script
# dependencies = ["open-spiel>=1.5", "numpy>=1.22", "absl-py"]
# ///

import argparse
import os
import sys
from random import Random

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # the kits, even under python -I
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]

from zwicken_kit import Judge, ZwickenBot, log, rules_variant, run  # noqa: E402


class ZwickenISMCTSBot(ZwickenBot):
    name = "zwicken-ismcts"
    version = "1"

    def __init__(self, fraction=0.25, uct_c=5.0, explore=0.1, simulations=None):
        super().__init__()
        self.fraction, self.uct_c, self.explore, self.simulations = fraction, uct_c, explore, simulations
        self.version = f"1 fraction={fraction} uct_c={uct_c}"
        self.judge = Judge()
        self.counts = []

    def on_hello(self, hello):
        import games
        from games import as_openspiel
        from games.zwicken import ZwickenState

        self.os, self.wrap = as_openspiel, ZwickenState
        g = games.game("zwicken")
        self.game = as_openspiel.make_game("zwicken", g.variant(rules_variant(self.variant)))
        evaluator = as_openspiel.RolloutEvaluator(1, Random(self.rng.random()), self.playout_move)
        fixed = self.simulations is not None
        self.search = as_openspiel.TimedISMCTS(self.game, evaluator, self.uct_c, self.rng.randrange(2**31),
                                               min_simulations=self.simulations if fixed else 8,
                                               max_simulations=self.simulations if fixed else 100_000)

    def playout_move(self, state, moves, rng):
        if len(moves) == 1:
            return 0
        if rng.random() < self.explore:
            return rng.randrange(len(moves))
        return self.judge.from_state(state.rules)

    def choose(self, observation, legal_moves):
        if len(legal_moves) == 1:
            return 0
        view = self.view(observation)
        rng = Random(self.rng.random())

        def world():
            return self.os.ArenaState.from_arena(self.game, self.wrap(view.sample(rng)))

        root = world()
        if [m.to_dict() for m in root._moves()] != legal_moves[:self.os.MAX_ACTIONS]:
            log("zwicken-ismcts: the sampled world's moves differ from the arena's; playing the first")
            return 0
        seconds = self.fraction * self.time.get("move_ms", 1000) / 1000
        action, n = self.search.search(root, world, seconds if self.simulations is None else 1e9)
        self.counts.append(n)
        return action

    def on_deal_end(self, message):
        if self.counts:
            self.counts.sort()
            log(f"zwicken-ismcts: {len(self.counts)} searches, median {self.counts[len(self.counts) // 2]} simulations")
            self.counts = []


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fraction", type=float, default=0.25, help="share of move_ms to think (default 0.25)")
    ap.add_argument("--uct-c", type=float, default=5.0, help="UCT exploration constant, in chips (default 5)")
    ap.add_argument("--explore", type=float, default=0.1, help="the playouts' share of random moves (default 0.1)")
    ap.add_argument("--simulations", type=int, help="exactly this many simulations a decision, whatever the clock")
    a = ap.parse_args()
    run(ZwickenISMCTSBot(a.fraction, a.uct_c, a.explore, a.simulations))
