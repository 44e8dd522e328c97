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
looks at the moves the engine lists. The root is cut to the `--width` (default 6) moves a
one-ply score likes best before the search starts: what a move takes, less what the table it
leaves likely gives the next opponent (an easy Zwick, the best unit), from the unseen cards.
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

    def __init__(self, fraction=0.25, bank=False, width=6, min_rounds=2):
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
        try:
            view = self.view(observation)
        except ValueError as exc:  # the kit could not replay the deal: never forfeit over it
            log(f"{self.name}: {exc}; playing the first legal move")
            return 0
        if len(legal_moves) > self.width:
            scores = self.priors(view, observation, legal_moves)
            candidates = sorted(range(len(legal_moves)), key=lambda i: -scores[i])[: self.width]
        else:
            candidates = list(range(len(legal_moves)))
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

    def priors(self, view, observation, legal_moves):
        """A one-ply score per move, only to cut the root to the `width` best before the search:
        what the move takes (point cards, cards, the Zwick) less what the table it leaves is
        likely to give the next opponent (a sweep of it all, or its best unit), by the chance
        that they hold a card for it among the unseen cards."""
        import engine
        from engine.moves import check, unit_cards

        values = view.variant.rules.values
        world = view.sample(self.rng)
        seats = len(view.hand_sizes)
        opponent = (self.seat + 1) % seats
        hand = view.hand_sizes[opponent]
        unseen = {}
        for c in view.unseen:
            unseen[c] = unseen.get(c, 0) + 1
        total = len(view.unseen)

        def held(count):  # the chance that the opponent's hand holds one of `count` cards
            miss = 1.0
            for j in range(hand):
                miss *= max(0.0, (total - count - j) / max(1, total - j))
            return 1.0 - miss

        def worth(cards):
            return sum(self.points.get(c, 0) for c in cards) + self.per_card * len(cards)

        scores = []
        for move in legal_moves:
            after = world.apply(move)
            score = 0.0
            if move["type"] == "capture":
                score += 1 + worth([move["card"]] + [c for i in move["take"] for c in unit_cards(world.table[i])])
                if not after.table:
                    score += self.zwick
            elif move["type"] == "trail":
                score -= 0.5 * worth([move["card"]])
            if after.table and not after.is_over and hand:
                probe_hands = [()] * seats
                sweepers = 0
                everything = tuple(range(len(after.table)))
                for code, count in unseen.items():
                    probe_hands[opponent] = (code,)
                    probe = engine.State(variant=after.variant, dealer=after.dealer, to_move=opponent,
                                         hands=tuple(probe_hands), table=after.table, stock=(), taken=after.taken,
                                         zwicks=after.zwicks, last_capture=after.last_capture, history=(),
                                         is_over=False)
                    try:
                        check(probe, engine.Move("capture", code, None, everything))
                        sweepers += count
                    except engine.IllegalMove:
                        pass
                cards = [c for u in after.table for c in unit_cards(u)]
                score -= held(sweepers) * (self.zwick + worth(cards))
                exposed = 0.0
                for u in after.table:
                    uvals = (u.value,) if type(u) is engine.Build else values[u]
                    takers = sum(k for c, k in unseen.items() if any(x in uvals for x in values[c]))
                    exposed = max(exposed, held(takers) * worth(unit_cards(u)))
                score -= 0.8 * exposed
            scores.append(score)
        return scores

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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fraction", type=float, default=0.25, help="share of move_ms to think (default 0.25)")
    parser.add_argument("--bank", action="store_true", help="also spend a tenth of the remaining bank per move")
    parser.add_argument("--width", type=int, default=6, help="root moves searched (default 6)")
    parser.add_argument("--rounds", type=int, default=0,
                        help="search exactly this many rounds, whatever the clock (for experiments: the "
                             "same seed then gives the same moves; mind move_ms)")
    args = parser.parse_args(argv)
    if args.rounds:
        run(MCBot(fraction=0, width=args.width, min_rounds=args.rounds))
    else:
        run(MCBot(fraction=args.fraction, bank=args.bank, width=args.width))


if __name__ == "__main__":
    main()
