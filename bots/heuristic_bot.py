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

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # botkit, even under python -I

from botkit import Bot, log, run  # noqa: E402


def chance_held(matching: int, unseen: int, hand: int) -> float:
    """The chance that a hand of `hand` cards drawn from `unseen` holds one of `matching`."""
    if matching <= 0 or hand <= 0:
        return 0.0
    miss = 1.0
    for j in range(hand):
        if unseen - j <= 0:
            return 1.0
        miss *= max(0.0, (unseen - matching - j) / (unseen - j))
    return 1.0 - miss


class HeuristicBot(Bot):
    name = "heuristic"
    version = "1"

    def on_hello(self, hello):
        self.points = self.variant.get("points", {})
        self.deck_size = len(self.variant.get("deck", [])) or 55
        self.most_cards = self.variant.get("most_cards", 0)
        self.zwick = self.variant.get("zwick", 0)
        self.sides = self.variant.get("seat_sides", [s % 2 for s in range(4)])

    # -- values --------------------------------------------------------------------------------
    def race_share(self, taken):
        """What one more captured card is worth in the most-cards race (0 once it is decided)."""
        ours = taken[self.side]
        best_other = max((t for s, t in enumerate(taken) if s != self.side), default=0)
        left = self.deck_size - sum(taken)
        if ours + left <= best_other or best_other + left < ours:
            return 0.0  # decided either way
        return 2.0 * self.most_cards / self.deck_size * (1.5 if left < self.deck_size / 3 else 1.0)

    def worth(self, cards, share):
        return sum(self.points.get(c, 0) for c in cards) + share * len(cards)

    # -- choosing ------------------------------------------------------------------------------
    def choose(self, observation, legal_moves):
        if len(legal_moves) == 1:
            return 0
        import engine
        from engine.moves import check, unit_cards

        try:
            view = self.view(observation)
        except ValueError as exc:  # the kit could not replay the deal: never forfeit over it
            log(f"{self.name}: {exc}; playing the first legal move")
            return 0
        rules = view.variant.rules
        values = rules.values
        # One draw of the hidden cards: only our own move is applied to it, and the table it
        # leaves does not depend on them (the draw keeps refills and the deal's end in place).
        state = view.sample(self.rng)
        share = self.race_share(observation["taken"])
        seats = len(view.hand_sizes)
        opponent = (self.seat + 1) % seats
        while view.hand_sizes[opponent] == 0 and opponent != self.seat:
            opponent = (opponent + 1) % seats
        partner_side = self.side
        unseen = list(view.unseen)
        distinct_unseen = {}
        for c in unseen:
            distinct_unseen[c] = distinct_unseen.get(c, 0) + 1
        n_unseen = len(unseen)
        opp_hand = view.hand_sizes[opponent] if self.sides[opponent] != self.side else 0
        partner_values = {v for seats_, v in view.musts if any(self.sides[s] == partner_side for s in seats_)}

        def p_opp(count):
            return chance_held(count, n_unseen, opp_hand)

        def risk(after):
            """What the opponent is likely to win from the table `after`."""
            table = after.table
            if not table or opp_hand == 0:
                return 0.0
            cards = [c for u in table for c in unit_cards(u)]
            everything = list(range(len(table)))
            sweepers = 0
            for code, count in distinct_unseen.items():
                try:
                    check(probe(after, code), engine.Move("capture", code, None, tuple(everything)))
                    sweepers += count
                except engine.IllegalMove:
                    pass
            danger = p_opp(sweepers) * (self.zwick + self.worth(cards, share))
            best_unit = 0.0
            for u in table:
                uvals = (u.value,) if type(u) is engine.Build else values[u]
                if type(u) is engine.Build and u.value in partner_values and self.sides[u.by] == self.side:
                    continue
                takers = sum(k for c, k in distinct_unseen.items() if any(x in uvals for x in values[c]))
                best_unit = max(best_unit, p_opp(takers) * self.worth(unit_cards(u), share))
            return danger + 0.8 * best_unit

        def probe(after, code):
            hands = [()] * seats
            hands[opponent] = (code,)
            return engine.State(variant=after.variant, dealer=after.dealer, to_move=opponent, hands=tuple(hands),
                                table=after.table, stock=(), taken=after.taken, zwicks=after.zwicks,
                                last_capture=after.last_capture, history=(), is_over=False)

        best, best_score = 0, None
        for index, move in enumerate(legal_moves):
            after = state.apply(move)
            kind = move["type"]
            score = 0.0
            if kind == "capture":
                taken = [move["card"]] + [c for i in move["take"] for c in unit_cards(state.table[i])]
                score += 1.0 + self.worth(taken, share)
                if not after.table and not (view.variant.joker_sweep_no_zwick and move["card"][0] == "X"):
                    score += self.zwick
            elif kind == "build":
                pile = unit_cards(state.table[move["onto"]]) + (move["card"],)
                value = move["value"]
                keep = [c for c in view.hand if c != move["card"]]
                ours = any(value in values[c] for c in keep) or value in partner_values
                takers = sum(k for c, k in distinct_unseen.items() if value in values[c])
                lost = p_opp(takers)
                gain = self.worth(pile, share)
                score += (0.9 * (1 - lost) * gain - lost * gain) if ours else -0.5 * gain
            else:
                score -= 0.6 * self.worth([move["card"]], share)
                # Trailing a card whose twins are gone keeps it safe from a pair capture.
                twins = sum(k for c, k in distinct_unseen.items() if set(values[c]) & set(values[move["card"]]))
                score -= 0.1 * p_opp(twins)
            score -= risk(after)
            if best_score is None or score > best_score + 1e-9:
                best, best_score = index, score
        return best


if __name__ == "__main__":
    run(HeuristicBot())
