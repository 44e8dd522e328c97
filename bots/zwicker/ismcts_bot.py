#!/usr/bin/env python3
"""ISMCTS: OpenSpiel's information-set Monte-Carlo tree search on Zwicker (extra `[openspiel]`).

The deal is OpenSpiel's game `arena_zwicker` (games/as_openspiel.py, over the arena's rules
through games/); the search is OpenSpiel's `ISMCTSBot`, one tree over information sets, each
simulation in a world drawn by the kit's `View.sample` (the hidden cards dealt consistently with
everything public, what past moves reveal included), its leaves valued by one playout on the
arena's state (`as_openspiel.RolloutEvaluator`) that takes the capture of most cards nine times in
ten, else moves at random (`--random-playouts`: always at random), a deal's value being the side's points less the other side's. It plays
the root's most visited move and thinks for `--fraction` (default 0.25) of `move_ms`.
`--widen W` (default 1) widens progressively (`TimedISMCTS`): a node visited n times has at
most ceil(W sqrt(n + 1)) children, the capture of most cards expanded first, then the game's
order; `--widen 0` keeps OpenSpiel's expansion (every child once, in random order).

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

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # botkit, even under python -I

from botkit import Bot, log, run  # noqa: E402


def greedy_move(state, moves, rng, explore=0.1):
    """mc's rollout policy over an arena state: the capture that takes most cards nine times in
    ten, else a random move."""
    if rng.random() < explore:
        return rng.randrange(len(moves))
    best, best_k = -1, None
    for k, m in enumerate(moves):
        d = m.to_dict()
        if d.get("type") == "capture":
            n = len(d.get("take", ())) + 1
            if n > best:
                best, best_k = n, k
    return best_k if best_k is not None else rng.randrange(len(moves))


class ISMCTSBot(Bot):
    name = "ismcts"
    version = "1"

    def __init__(self, fraction=0.25, uct_c=10.0, greedy=True, simulations=None, widen=1.0):
        super().__init__()
        self.fraction, self.uct_c, self.greedy, self.simulations, self.widen = fraction, uct_c, greedy, simulations, widen
        self.version = f"1 fraction={fraction} uct_c={uct_c} greedy={greedy} widen={widen}"
        self.counts = []

    def on_hello(self, hello):
        super().on_hello(hello)
        from games import as_openspiel

        import games

        self.os = as_openspiel
        g = games.game("zwicker")
        self.wrap = type(g.deal(g.variant(None), 0, 0))  # games' state around an engine state
        self.game = as_openspiel.make_game("zwicker", self.engine_variant())
        policy = greedy_move if self.greedy else None
        evaluator = as_openspiel.RolloutEvaluator(1, Random(self.rng.random()), policy, self.first_move if self.widen else None)
        fixed = self.simulations is not None
        self.search = as_openspiel.TimedISMCTS(self.game, evaluator, self.uct_c, self.rng.randrange(2**31),
                                               min_simulations=self.simulations if fixed else 8,
                                               max_simulations=self.simulations if fixed else 100_000,
                                               widen=self.widen or None)

    def first_move(self, state, moves):
        """The move a node expands first: the capture of most cards, else the game's first."""
        sizes = [len(d.get("take", ())) if d.get("type") == "capture" else -1 for d in (m.to_dict() for m in moves)]
        return max(range(len(moves)), key=lambda k: (sizes[k], -k))

    def engine_variant(self):
        from botkit import engine_variant

        return engine_variant(self.variant)

    def choose(self, observation, legal_moves):
        if len(legal_moves) == 1:
            return 0
        view = self.view(observation)
        rng = Random(self.rng.random())

        def world():
            return self.os.ArenaState.from_arena(self.game, self.wrap(view.sample(rng)))

        root = world()
        if [m.to_dict() for m in root._moves()] != legal_moves[:self.os.MAX_ACTIONS]:
            log("ismcts: the sampled world's moves differ from the arena's; playing the first")
            return 0
        seconds = self.fraction * self.time.get("move_ms", 1000) / 1000
        action, n = self.search.search(root, world, seconds if self.simulations is None else 1e9)
        self.counts.append(n)
        return action

    def on_deal_end(self, message):
        if self.counts:
            self.counts.sort()
            log(f"ismcts: {len(self.counts)} searches, median {self.counts[len(self.counts) // 2]} simulations")
            self.counts = []


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fraction", type=float, default=0.25, help="share of move_ms to think (default 0.25)")
    ap.add_argument("--uct-c", type=float, default=10.0, help="UCT exploration constant, in points (default 10)")
    ap.add_argument("--random-playouts", action="store_true", help="random playouts instead of greedy ones")
    ap.add_argument("--simulations", type=int, help="exactly this many simulations a decision, whatever the clock")
    ap.add_argument("--widen", type=float, default=1.0,
                    help="progressive widening: at most ceil(W sqrt(n+1)) children at n visits (default 1; 0: none)")
    a = ap.parse_args()
    run(ISMCTSBot(a.fraction, a.uct_c, not a.random_playouts, a.simulations, a.widen))
