#!/usr/bin/env python3
"""Zwicken by determinized Monte-Carlo search over the rules package (engine.zwicken).

At each decision with more than one legal move the bot deals the hidden cards at random but
consistently with everything it has seen (the kit's `View.sample`: the other hands, passed ones
included, the stock, its own hand while the dealer has not chosen), plays each legal move in that
sample and finishes the attempt with the kit's rule-based `Judge` for every seat (a tenth of its
choices random, `--explore`); the reward is the bot's chips for the attempt (`net`). Every move is
played out in the same sample with the same rollout random numbers, so moves are compared on
equal terms. After at least `--min-rounds` rounds it stops when its time is up: `--fraction`
(default 0.25) of the per-move limit `move_ms`, at most `--rounds` (default 64) rounds. It plays
the move of best mean, the judge's own choice winning ties.
"""

import argparse
import os
import sys
import time
from random import Random

sys.path[:0] = [os.path.dirname(os.path.abspath(__file__)),  # the kits, even under python -I
                os.path.dirname(os.path.dirname(os.path.abspath(__file__)))]

from zwicken_kit import Judge, ZwickenBot, log, rules_variant, run  # noqa: E402


class ZwickenMCBot(ZwickenBot):
    name = "zwicken-mc"
    version = "1"

    def __init__(self, fraction=0.25, rounds=64, min_rounds=8, explore=0.1):
        super().__init__()
        self.fraction = fraction
        self.rounds = rounds
        self.min_rounds = min_rounds
        self.explore = explore
        self.judge = Judge()
        self.rules = None
        self.version = f"1 fraction={fraction} rounds={rounds}"

    def on_hello(self, hello):
        import engine.zwicken  # noqa: F401  (at the handshake, not on the first move's clock)

        self.rules = rules_variant(self.variant)

    def rollout(self, state, rng):
        judge = self.judge
        while not state.is_over:
            legal = state.legal_moves()
            if len(legal) == 1:
                state = state.apply(legal[0])
            elif rng.random() < self.explore:
                state = state.apply(legal[rng.randrange(len(legal))])
            else:
                state = state.apply(legal[judge.from_state(state)])
        return state.result.net

    def choose(self, observation, legal_moves):
        if len(legal_moves) == 1:
            return 0
        started = time.perf_counter()
        budget = self.fraction * self.time.get("move_ms", 1000) / 1000
        prior = self.judge.from_observation(observation, legal_moves, self.rules)
        view = self.view(observation)
        seat = observation["seat"]
        totals = [0.0] * len(legal_moves)
        rounds = 0
        while rounds < self.rounds and (rounds < self.min_rounds or time.perf_counter() - started < budget):
            try:
                sample = view.sample(self.rng)
            except ValueError as exc:  # nothing fits: should not happen; play the judge's move
                log(f"zwicken-mc: {exc}")
                return prior
            seed = self.rng.getrandbits(64)
            for i, move in enumerate(legal_moves):
                totals[i] += self.rollout(sample.apply(move), Random(seed))[seat]
            rounds += 1
        best = max(range(len(legal_moves)), key=lambda i: (totals[i], i == prior))
        return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fraction", type=float, default=0.25)
    ap.add_argument("--rounds", type=int, default=64)
    ap.add_argument("--min-rounds", type=int, default=8)
    ap.add_argument("--explore", type=float, default=0.1)
    args = ap.parse_args()
    run(ZwickenMCBot(args.fraction, args.rounds, args.min_rounds, args.explore))


if __name__ == "__main__":
    main()
