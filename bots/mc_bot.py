#!/usr/bin/env python3
"""MC: determinized Monte-Carlo search over the rules engine.

At each decision the bot samples the hidden cards (the kit's `View.sample`: the other hands and
the stock, consistent with every card seen and with what past moves reveal), plays one of its
legal moves in that sample, and finishes the deal with a fast rollout policy for all four
seats; the deal's points (our side's minus the best other side's) are the reward. A fresh
sample is drawn for every round, so the statistics average over what the bot cannot see
(determinized, flat "perfect information Monte Carlo" at the root). In a round every move
still in the running is played out in the same sample with the same rollout random numbers:
the moves are compared on equal terms, which cuts the noise of a comparison far more than
more playouts would. After 8 rounds the worse half of the moves is dropped, after 16 the
worse half again, and so on (successive halving); the move with the best total is played.

Time: the bot thinks for `--fraction` (default 0.25) of the per-move limit `move_ms` it is
sent, never touching the bank (`--bank` lets it spend up to a tenth of what is left on top).
More time gives more playouts and a better estimate: run it with two fractions to see it
(bots/README.md).

The rollout policy: take the capture worth most (points, cards, the Zwick) nine times in ten,
otherwise trail a card of least worth, or now and then any other move; cheap, because it only
looks at the moves the engine lists. Large branching is cut to the `--width` (default 14)
moves a one-ply score likes best before the search starts.
"""

import argparse
import os
import sys
import time
from random import Random

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # botkit, even under python -I

from botkit import Bot, log, run  # noqa: E402


class MCBot(Bot):
    name = "mc"
    version = "1"

    def __init__(self, fraction=0.25, bank=False, width=14, min_rounds=2):
        super().__init__()
        self.fraction = fraction
        self.use_bank = bank
        self.width = width
        self.min_rounds = min_rounds  # rounds played whatever the clock says
        self.version = f"1 fraction={fraction}"
        self.playouts = []  # per decision, for the log

    def on_hello(self, hello):
        import engine  # noqa: F401  (at the handshake, not on the first move's clock)

        self.points = self.variant.get("points", {})
        self.zwick = self.variant.get("zwick", 0)
        self.per_deal = max(1, self.variant.get("points_per_deal", 30))
        self.per_card = self.variant.get("most_cards", 0) * 2 / max(1, len(self.variant.get("deck", [])))

    # -- the search ----------------------------------------------------------------------------
    def budget(self):
        move_ms = self.time.get("move_ms", 1000)
        seconds = self.fraction * move_ms / 1000
        if self.use_bank:
            seconds += 0.1 * self.time.get("bank_ms", 0) / 1000
        return seconds

    def choose(self, observation, legal_moves):
        started = time.perf_counter()
        if len(legal_moves) == 1:
            return 0
        deadline = started + self.budget()
        view = self.view(observation)
        table = view.table
        candidates = sorted(range(len(legal_moves)), key=lambda i: -self.prior(legal_moves[i], table))
        candidates = candidates[: self.width]
        side = self.side
        rng = self.rng
        total = [0.0] * len(candidates)
        alive = list(range(len(candidates)))
        rounds = playouts = 0
        halve_at = 8  # rounds before the first cut; doubled after each
        while len(alive) > 1 and (rounds < self.min_rounds or time.perf_counter() < deadline) and playouts < 20000:
            world = view.sample(rng)
            seed = rng.getrandbits(64)
            for k in alive:
                points = self.rollout(world.apply(legal_moves[candidates[k]]), Random(seed))
                best_other = max(p for s, p in enumerate(points) if s != side)
                total[k] += (points[side] - best_other) / self.per_deal
            playouts += len(alive)
            rounds += 1
            if rounds == halve_at and len(alive) > 2:
                alive.sort(key=lambda k: -total[k])
                alive = alive[: max(2, (len(alive) + 1) // 2)]
                halve_at *= 2
        self.playouts.append(playouts)
        best = max(alive, key=lambda k: (total[k], -k))
        return candidates[best]

    def prior(self, move, table):
        """A one-ply score, only to order and cut the root's moves."""
        kind = move["type"]
        if kind == "capture":
            cards = [move["card"]] + [c for i in move["take"] for c in _cards(table[i])]
            return 10 + sum(self.points.get(c, 0) for c in cards) + self.per_card * len(cards)
        if kind == "build":
            return 1 + 0.25 * sum(self.points.get(c, 0) for c in _cards(table[move["onto"]]))
        return -self.points.get(move["card"], 0)

    def rollout(self, state, rng):
        """Play the deal to its end with the fast policy; its points per side."""
        points = self.points
        zwick = self.zwick
        per_card = self.per_card
        random = rng.random
        while not state.is_over:
            legal = state.legal_moves()
            table = state.table
            best = None
            best_value = -1.0
            for move in legal:
                if move.type != "capture":
                    break
                value = points.get(move.card, 0) + per_card
                for i in move.take:
                    unit = table[i]
                    if type(unit) is str:
                        value += points.get(unit, 0) + per_card
                    else:
                        for c in unit.cards:
                            value += points.get(c, 0) + per_card
                if len(move.take) == len(table):
                    value += zwick
                if value > best_value:
                    best, best_value = move, value
            if best is None or random() > 0.9:
                if random() < 0.8:
                    trails = [m for m in legal if m.type == "trail"]
                    if trails:
                        best = min(trails, key=lambda m: (points.get(m.card, 0), random()))
                    else:
                        best = legal[int(random() * len(legal))]
                else:
                    best = legal[int(random() * len(legal))]
            state = state.apply(best)
        return state.score()

    def on_deal_end(self, message):
        if self.playouts:
            log(f"mc: deal {message['number']}: playouts per decision, median "
                f"{sorted(self.playouts)[len(self.playouts) // 2]}, min {min(self.playouts)}")
        self.playouts = []


def _cards(unit):
    return unit["build"] if isinstance(unit, dict) else [unit]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fraction", type=float, default=0.25, help="share of move_ms to think (default 0.25)")
    parser.add_argument("--bank", action="store_true", help="also spend a tenth of the remaining bank per move")
    parser.add_argument("--width", type=int, default=14, help="root moves searched (default 14)")
    args = parser.parse_args(argv)
    run(MCBot(fraction=args.fraction, bank=args.bank, width=args.width))


if __name__ == "__main__":
    main()
