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
worse half again, and so on (successive halving); the move of best value (below) is played.

Time: the bot thinks for `--fraction` (default 0.25) of the per-move limit `move_ms` it is
sent, never touching the bank (`--bank` lets it spend up to a tenth of what is left on top).
More time gives more playouts and a better estimate: run it with two fractions to see it
(bots/README.md).

The rollout policy: take the capture worth most (points, cards, the Zwick) nine times in ten
(`--explore` is the tenth), otherwise trail a card of least worth, or now and then any other
move; cheap, because it only looks at the moves the engine lists.

The root is heuristic's judgement (the kit's `Heuristic`, which heuristic_bot.py plays as it
is): every legal move gets its one-ply score (what it takes, less what the table it leaves
likely gives the next opponent, from the unseen cards; builds it or its partner can take), the
search plays out only the `--width` (default 4) best, and each move's value is its playouts'
mean pulled towards its heuristic score, in the same units, as if that score were `--prior`
(default 8) playouts more (progressive bias). Few playouts leave heuristic's choice in place;
many let the playouts overrule it. Against heuristic, at 40 rounds a decision, this took the
search from 43 to 69 of 100 boards (bots/README.md).
"""

import argparse
import os
import sys
import time
from random import Random

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # botkit, even under python -I

from botkit import Heuristic, log, run  # noqa: E402


class MCBot(Heuristic):
    """The search, over heuristic's judgement: heuristic scores every move (the kit's Heuristic.scores),
    the search plays out only its `width` best, and a move's value is its playouts' mean pulled
    towards heuristic's score as if that score were `prior` playouts more (progressive bias)."""

    name = "mc"
    version = "2"

    def __init__(self, fraction=0.25, bank=False, width=4, min_rounds=2, prior=8.0, explore=0.1):
        super().__init__()
        self.fraction = fraction
        self.use_bank = bank
        self.width = width
        self.min_rounds = min_rounds  # rounds played whatever the clock says
        self.prior = prior
        self.explore = explore  # the rollouts' chance of passing over the best capture
        self.version = f"2 fraction={fraction} width={width} prior={prior}"
        self.playouts = []  # per decision, for the log

    def on_hello(self, hello):
        from engine import zwicker  # noqa: F401  (at the handshake, not on the first move's clock)

        super().on_hello(hello)
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
        try:
            view = self.view(observation)
        except ValueError as exc:  # the kit could not replay the deal: never forfeit over it
            log(f"{self.name}: {exc}; playing the first legal move")
            return 0
        judged = self.scores(view, observation, legal_moves)
        order = sorted(range(len(legal_moves)), key=lambda i: (-judged[i], i))
        candidates = order[: max(1, self.width)]
        if len(candidates) == 1:
            return candidates[0]
        bias = [judged[i] / self.per_deal for i in candidates]  # heuristic's score, in rollout units
        side = self.side
        rng = self.rng
        total = [0.0] * len(candidates)
        alive = list(range(len(candidates)))
        rounds = playouts = 0
        prior = self.prior

        def value(k):  # the playouts' mean pulled towards heuristic's score by `prior` playouts
            return (total[k] + prior * bias[k]) / (rounds + prior) if rounds + prior else 0.0

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
                alive.sort(key=lambda k: (-value(k), k))
                alive = alive[: max(2, (len(alive) + 1) // 2)]
                halve_at *= 2
        self.playouts.append(playouts)
        best = max(alive, key=lambda k: (value(k), -k))
        return candidates[best]

    def rollout(self, state, rng):
        """Play the deal to its end with the fast policy; its points per side."""
        points = self.points
        zwick = self.zwick
        per_card = self.per_card
        random = rng.random
        explore = self.explore
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
            if best is None or random() < explore:
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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fraction", type=float, default=0.25, help="share of move_ms to think (default 0.25)")
    parser.add_argument("--bank", action="store_true", help="also spend a tenth of the remaining bank per move")
    parser.add_argument("--width", type=int, default=4, help="root moves searched: heuristic's best (default 4)")
    parser.add_argument("--prior", type=float, default=8.0,
                        help="heuristic's score counts as this many playouts (default 8; 0: playouts alone)")
    parser.add_argument("--rounds", type=int, default=0,
                        help="search exactly this many rounds, whatever the clock (for experiments: the "
                             "same seed then gives the same moves; mind move_ms)")
    parser.add_argument("--explore", type=float, default=0.1,
                        help="the rollouts' chance of passing over the best capture (default 0.1)")
    args = parser.parse_args(argv)
    if args.rounds:
        run(MCBot(fraction=0, width=args.width, min_rounds=args.rounds, prior=args.prior, explore=args.explore))
    else:
        run(MCBot(fraction=args.fraction, bank=args.bank, width=args.width, prior=args.prior, explore=args.explore))


if __name__ == "__main__":
    main()
