"""What a Zwicken bot in Python needs beside the protocol loop of botkit.py.

    from zwicken_kit import ZwickenBot, run

    class MyBot(ZwickenBot):
        name = "my-zwicken-bot"
        def choose(self, observation, legal_moves):
            return 0          # an index into legal_moves

    run(MyBot())

The loop is botkit's own `run` (hello, ready, deal, act, deal_end, bye; games/zwicken/protocol.md),
unchanged: Zwicken's messages have the same shape, only the observation, the legal moves and the
deal results are Zwicken's (docs/zwicken-rules.md section 10). What this kit adds:

- `ZwickenBot.view(observation)`: a `View` of what the seat knows of the attempt: its hand, the
  cards seen (turned, shown, the cut card when a cut option shows it, every card played), the
  cards not seen (`unseen`), and what the play revealed about the other hands (`void`: a seat
  that did not follow the led suit holds none of it; one that also did not trump, under
  `must_trump`, holds no trump either);
- `view.sample(rng)`: an `engine.zwicken` State with the hidden cards (other hands, a passed
  hand included, the stock, the dealer's own hand before his choice) dealt at random but
  consistently with all of that, for determinized search;
- `Judge`: the rule-based judge of a hand and a trick (play or pass by strength against the
  pot, lead and follow) that zwicken_rule_bot.py plays and zwicken_mc_bot.py rolls out with.

The rules package `engine.zwicken` stands beside the kit in every sandbox (the arena's runtime
copies `engine/`); it is imported on first use.
"""

from __future__ import annotations

import random

from botkit import Bot, log, run  # noqa: F401  (run and log are this kit's too)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_POSITION_KEYS = ("game", "variant", "board", "dealer", "phase", "to_move", "method", "turned",
                  "exposed", "trump", "stake", "pot", "balances", "decisions", "leader", "trick",
                  "tricks", "moves")


def rules_variant(described: dict[str, Any]) -> Any:
    """The engine.zwicken Variant of `hello.variant` (or an observation's `variant`)."""
    from engine.zwicken import variant
    from engine.zwicken.variant import _OPTION_NAMES

    return variant({k: described[k] for k in _OPTION_NAMES if k in described})


class ZwickenBot(Bot):
    """botkit's Bot with a Zwicken view; `self.variant` is hello's variant dict."""

    name = "zwicken-bot"
    games = ("zwicken",)

    def view(self, observation: dict[str, Any]) -> "View":
        return View(observation)


class View:
    """One seat's knowledge of the current attempt, from its observation alone."""

    def __init__(self, observation: dict[str, Any]) -> None:
        from engine.zwicken import PACK
        from engine.zwicken.cards import TRUMPS, table

        obs = observation
        self.obs = obs
        self.seat: int = obs["seat"]
        self.variant = rules_variant(obs["variant"])
        self.n = self.variant.players
        self.hand: list[str] = list(obs["hand"])
        self.trump: str | None = obs["trump"]
        self.played: list[tuple[int, str]] = [(s, c) for t in obs["tricks_played"] for s, c in t["cards"]]
        self.played += [(s, c) for s, c in obs["trick"]]
        seen = set(self.hand) | {c for _, c in self.played}
        for key in ("turned", "exposed", "cut"):
            if obs.get(key):
                seen.add(obs[key])
        self.unseen: list[str] = [c for c in PACK if c not in seen]
        # voids: per seat, the effective suits (TRUMPS included) it cannot hold
        self.void: list[set[str]] = [set() for _ in range(self.n)]
        if self.trump is not None:
            cards = table(self.variant.welli, self.trump)
            tricks = [t["cards"] for t in obs["tricks_played"]] + ([obs["trick"]] if obs["trick"] else [])
            for trick in tricks:
                led = cards[trick[0][1]][0]
                for s, c in trick[1:]:
                    suit = cards[c][0]
                    if suit != led:
                        self.void[s].add(led)
                        if suit != TRUMPS and self.variant.must_trump:
                            self.void[s].add(TRUMPS)
            self.cards = cards
        else:
            self.cards = None

    def sample(self, rng: random.Random, tries: int = 200) -> Any:
        """An engine.zwicken State: the hidden cards dealt at random, consistent with the view."""
        from engine.zwicken import from_dict

        obs = self.obs
        sizes = list(obs["hand_sizes"])
        dealer = obs["dealer"]
        exposed = obs.get("exposed")
        mine_hidden = obs["hand_hidden"]
        stock_size = obs["stock"]
        for _ in range(tries):
            pool = list(self.unseen)
            rng.shuffle(pool)
            hands: list[list[str] | None] = [None] * self.n
            if not mine_hidden:
                hands[self.seat] = list(self.hand)
            ok = True
            order = sorted((s for s in range(self.n) if hands[s] is None), key=lambda s: -len(self.void[s]))
            for s in order:
                need = sizes[s] - (1 if exposed and s == dealer else 0)
                cards = self.cards
                allowed = [c for c in pool if cards is None or cards[c][0] not in self.void[s]]
                if len(allowed) < need:
                    ok = False
                    break
                take = allowed[:need]
                for c in take:
                    pool.remove(c)
                hands[s] = take + ([exposed] if exposed and s == dealer else [])
            if not ok:
                continue
            stock = pool
            if obs.get("turned"):
                stock = [obs["turned"]] + stock
            if obs.get("cut"):
                stock = stock + [obs["cut"]]
            if len(stock) != stock_size:
                raise ValueError(f"sample: {len(stock)} stock cards, the observation says {stock_size}")
            position = {k: obs[k] for k in _POSITION_KEYS}
            position["hands"] = hands
            position["stock"] = stock
            position["cut"] = stock[-1]
            return from_dict(position)
        raise ValueError("sample: no deal fits what was seen")


# -- the judge: strength of a hand, leads and follows -----------------------------------------

class Judge:
    """Rule-based Zwicken play from what one seat knows (its hand, the trick, the cards played).

    Decisions: each card is given a chance of taking a trick (the top trumps nearly sure, lower
    trumps and plain aces less so, all of it less with more seats in); the seat plays when the
    expected chips of its tricks (P/3 each) beat the chance of taking none times what a zwick
    costs (min(P, zwick_limit)), tilted by `boldness` thirds of the pot (default 2: measured
    against the random bot, 0 passed far too often, 3 and more always play). Leads: the best trump when it is the
    highest still out, else a plain ace, else the lowest plain card. Follows: the cheapest card
    that wins the trick when the seat plays last or it cannot be beaten, else the lowest card.
    """

    def __init__(self, boldness: float = 2.0) -> None:
        self.boldness = boldness

    # the chance that one card takes a trick, by its place among the trumps (0 = highest)
    TRUMP_CHANCE = (0.95, 0.85, 0.7, 0.55, 0.45, 0.35, 0.3, 0.25, 0.2)

    def trick_chances(self, variant: Any, hand: list[str], trump: str, rivals: int) -> list[float]:
        from engine.zwicken.cards import trumps

        order = trumps(variant.welli, trump)
        out = []
        for c in hand:
            if c in order:
                p = self.TRUMP_CHANCE[order.index(c)]
            elif c[0] == "A":
                p = 0.45
            elif c[0] == "K":
                p = 0.15
            else:
                p = 0.03
            out.append(p ** (1 + 0.35 * max(0, rivals - 1)))
        return out

    def wants_to_play(self, variant: Any, hand: list[str], trump: str, pot: int, rivals: int) -> bool:
        chances = self.trick_chances(variant, hand, trump, max(1, rivals))
        expected = sum(min(1.0, p) for p in chances)
        none = 1.0
        for p in chances:
            none *= 1 - min(0.99, p)
        gain = pot / 3 * min(3.0, expected)
        loss = none * min(pot, variant.zwick_limit)
        return gain - loss + self.boldness * pot / 3 > 0

    def choose_trump(self, variant: Any, hand: list[str], hidden: bool) -> str:
        """"schlecken" or "titschen": Titschen only for a dealer who has seen a hand that is good
        with his third card's suit as trumps."""
        if hidden or not hand:
            return "schlecken"
        trump = "S" if (variant.welli and hand[2] == "7S") else hand[2][1]
        return "titschen" if self.wants_to_play(variant, hand, trump, 3 * variant.stake, 2) else "schlecken"

    def card(self, variant: Any, hand: list[str], legal: list[str], trick: list[tuple[int, str]],
             trump: str, played: set[str], last: bool) -> str:
        """The card to play from `legal` to `trick`."""
        from engine.zwicken.cards import TRUMPS, table, trumps

        cards = table(variant.welli, trump)
        power = lambda c: cards[c][1]  # noqa: E731
        if not trick:
            out = [c for c in trumps(variant.welli, trump) if c not in played]
            my_trumps = sorted((c for c in legal if cards[c][0] == TRUMPS), key=power, reverse=True)
            if my_trumps and out and my_trumps[0] == out[0]:
                return my_trumps[0]
            aces = [c for c in legal if c[0] == "A" and cards[c][0] != TRUMPS]
            if aces:
                return aces[0]
            plain = [c for c in legal if cards[c][0] != TRUMPS]
            return min(plain or legal, key=power)
        led = cards[trick[0][1]][0]
        best = max(power(c) for _, c in trick if cards[c][0] in (led, TRUMPS))
        winners = sorted((c for c in legal if cards[c][0] in (led, TRUMPS) and power(c) > best), key=power)
        if winners:
            if last:
                return winners[0]
            out = [c for c in cards if c not in played and c not in hand]
            safe = [w for w in winners
                    if not any(cards[c][0] == cards[w][0] and power(c) > power(w) for c in out)]
            return safe[0] if safe else winners[-1]
        return min(legal, key=power)

    def move(self, variant: Any, phase: str, seat: int, dealer: int, hand: list[str], hidden: bool,
             legal: list[dict[str, Any]], trick: list, trump: str | None, pot: int,
             decisions: list, played: set[str]) -> int:
        """The index in `legal` this judge plays."""
        if len(legal) == 1:
            return 0
        if phase == "trump":
            want = self.choose_trump(variant, hand, hidden)
            return next(i for i, m in enumerate(legal) if m.get("method") == want)
        if phase == "decide":
            rivals = sum(1 for d in decisions if d == "play") + sum(
                1 for s in range(len(decisions)) if decisions[s] is None and s != seat) * 0.5
            play = self.wants_to_play(variant, hand, trump, pot, int(round(rivals)) or 1)  # type: ignore[arg-type]
            return next(i for i, m in enumerate(legal) if m["type"] == ("play" if play else "pass"))
        ins = sum(1 for d in decisions if d == "play")
        last = len(trick) == ins - 1
        card = self.card(variant, hand, [m["card"] for m in legal], [tuple(x) for x in trick],
                         trump, played, last)  # type: ignore[arg-type]
        return next(i for i, m in enumerate(legal) if m.get("card") == card)

    def from_observation(self, obs: dict[str, Any], legal: list[dict[str, Any]], variant: Any = None) -> int:
        v = variant or rules_variant(obs["variant"])
        played = {c for t in obs["tricks_played"] for _, c in t["cards"]} | {c for _, c in obs["trick"]}
        return self.move(v, obs["phase"], obs["seat"], obs["dealer"], obs["hand"], obs["hand_hidden"], legal,
                         obs["trick"], obs["trump"], obs["pot"], obs["decisions"], played)

    def from_state(self, state: Any) -> int:
        """The same judgement for the seat to move of an engine state (for rollouts): it looks
        only at what that seat knows."""
        seat = state.to_move
        legal = [m.to_dict() for m in state.legal_moves()]
        played = {c for t, _ in state.tricks_played for _, c in t} | {c for _, c in state.trick}
        hidden = state.phase == "trump" and not state.variant.dealer_looks
        return self.move(state.variant, state.phase, seat, state.dealer, list(state.hands[seat]), hidden, legal,
                         list(state.trick), state.trump, state.pot, list(state.decisions), played)
