"""A tiny kit for Zwicker bots in Python: it speaks the arena's protocol, you choose moves.

Put your bot script next to this file and write::

    from botkit import Bot, run

    class MyBot(Bot):
        name = "my-bot"
        def choose(self, observation, legal_moves):
            return 0          # an index into legal_moves

    run(MyBot())

For a bot that simulates, `bot.view(observation)` is what its seat knows of the deal as a
`View`: the public facts replayed from the deal's moves, and `view.sample(rng)`, an engine
state with the hidden cards (other hands, the stock) drawn consistently with all of it. The
rules engine (`import engine`) stands beside the kit in every sandbox; it is imported on the
first `view`, so a bot that never simulates does not pay for it.

`Heuristic` is a complete bot to build on: a one-ply judge whose `scores` rate every legal move
(what it takes, less the risk of the table it leaves the next opponent). heuristic_bot.py plays
its best move; mc_bot.py searches over its best few.

Only `msgpack` is needed (no trio: a bot should start in milliseconds). The kit reads the raw
file descriptor 0 with os.read, because an Unpacker fed from sys.stdin.buffer waits for a full
buffer on a pipe and deadlocks. It also moves fd 1 aside and points it at stderr, so a stray
print() goes to the bot's log instead of corrupting the protocol stream.
"""

from __future__ import annotations

import os
import random
import sys
TYPE_CHECKING = False
if TYPE_CHECKING:  # importing typing costs a bot ~7 ms of start-up, paid at every table
    from typing import Any

import msgpack  # noqa: E402  (after the TYPE_CHECKING flag, which spares importing typing)

PROTOCOL_VERSION = 1
READ_SIZE = 65536
MAX_MESSAGE = 64 * 1024 * 1024  # the arena's largest message (protocol.md)


class Bot:
    """Override `choose`; the other hooks are optional.

    After `hello` the bot has `seat`, `side`, `partners`, `variant` (the variant's full
    description, see protocol.md), `time` (the time control) and `rng`, a random.Random
    seeded from the arena's seed and, at each board's first deal, from that seed and the board's
    name: a bot using only `rng` replays identically, and plays a board the same whichever boards
    its process played before (a resumed tournament gives the uninterrupted run's results).
    """

    name = "botkit-bot"
    version = "1"
    games = ("zwicker",)  # sent in `ready`: a table of another game faults this bot at once, in one line

    def __init__(self) -> None:
        self.hello: dict[str, Any] = {}
        self.seat = 0
        self.side = 0
        self.partners: list[int] = []
        self.variant: dict[str, Any] = {}
        self.time: dict[str, Any] = {}
        self.rng = random.Random(0)
        self.deal_start: dict[str, Any] | None = None  # the `deal` message's observation

    def view(self, observation: dict[str, Any]) -> "View":
        """What this seat knows of the current deal (see View); needs the engine."""
        return View(self.variant, self.deal_start or observation, observation)

    def on_hello(self, hello: dict[str, Any]) -> None:
        """Called once, before `ready` is sent."""

    def on_deal(self, message: dict[str, Any]) -> None:
        """A deal starts: message has number, dealer, observation."""

    def choose(self, observation: dict[str, Any], legal_moves: list[dict[str, Any]]) -> int:
        """Return the index of the move to play in `legal_moves`."""
        raise NotImplementedError

    def on_deal_end(self, message: dict[str, Any]) -> None:
        """A deal ended: message has number, points, breakdown, totals, moves."""

    def on_bye(self, message: dict[str, Any]) -> None:
        """The arena is done with this bot (message has reason, detail)."""


def unit_cards(unit: Any) -> list[str]:
    """The cards of one table unit: a loose card is its code, a build {"build": [...], ...}."""
    return unit["build"] if isinstance(unit, dict) else [unit]


def log(*args: Any) -> None:
    """Write a line to the bot's log (stderr), which the arena keeps, bounded."""
    print(*args, file=sys.stderr, flush=True)


def messages(fd: int = 0):
    """Yield the arena's messages from a raw file descriptor until it closes."""
    unpacker = msgpack.Unpacker(raw=False, max_buffer_size=MAX_MESSAGE)
    while True:
        data = os.read(fd, READ_SIZE)
        if not data:
            return
        unpacker.feed(data)
        yield from unpacker


class Writer:
    """Writes whole messages to a file descriptor (handling short writes)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.packer = msgpack.Packer(use_bin_type=True)

    def send(self, message: dict[str, Any]) -> None:
        data = memoryview(self.packer.pack(message))
        while data:
            data = data[os.write(self.fd, data):]


def _protect_stdout() -> int:
    """Keep the protocol on a private copy of fd 1 and send fd 1 (and print) to stderr."""
    out = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def run(bot: Bot) -> None:
    """The protocol loop: answer hello and act, pass the rest to the hooks, stop at bye."""
    out = Writer(_protect_stdout())
    for message in messages(0):
        kind = message.get("type")
        if kind == "act":
            bot.time = message.get("time", bot.time)
            out.send({"type": "move", "index": int(bot.choose(message["observation"], message["legal"]))})
        elif kind == "hello":
            if message.get("protocol") != PROTOCOL_VERSION:
                log(f"botkit: arena speaks protocol {message.get('protocol')}, this kit {PROTOCOL_VERSION}")
            if message.get("game", "zwicker") not in bot.games:  # say so and let the arena end it
                out.send({"type": "ready", "name": str(bot.name), "version": str(bot.version), "games": list(bot.games)})
                continue
            bot.hello = message
            bot.seat, bot.side = message["seat"], message["side"]
            bot.partners = list(message.get("partners", []))
            bot.variant, bot.time = message["variant"], message["time"]
            bot.rng = random.Random(message["seed"])
            bot.on_hello(message)
            out.send({"type": "ready", "name": str(bot.name), "version": str(bot.version), "games": list(bot.games)})
        elif kind == "deal":
            if message.get("board_deal") == 0 and "board" in message:  # seeded by board: no state
                board, room = str(message["board"]), str(message.get("room", ""))  # from board to board
                bot.rng = random.Random(f"{bot.hello.get('seed')}{board.removeprefix(room)}")
            bot.deal_start = message.get("observation")
            bot.on_deal(message)
        elif kind == "deal_end":
            bot.on_deal_end(message)
        elif kind == "bye":
            bot.on_bye(message)
            return
        else:
            log(f"botkit: ignoring a message of type {kind!r}")


# -- simulation: what a seat knows, and the hidden cards drawn to fit it --------------------

_OPTION_NAMES = ("preset", "players", "target", "build_holder", "must_take_maximal", "table_jokers_in_sums",
                 "all_tens", "wild_jokers", "lone_joker_only_by_joker", "joker_sweep_no_zwick",
                 "table_jokers_untakeable")


def engine_variant(described: dict[str, Any]) -> Any:
    """The engine's Variant for `hello.variant` (which also carries derived facts)."""
    from engine import zwicker

    return zwicker.variant({k: described[k] for k in _OPTION_NAMES if k in described})


def _unit(data: Any) -> Any:
    from engine.zwicker import Build

    return Build(tuple(data["build"]), data["value"], data["by"]) if isinstance(data, dict) else data


class View:
    """One seat's knowledge of a deal, from the protocol alone: the deal's first observation
    (`deal` message) and the current one, whose `moves` list every public move since.

    Replaying the moves on the public table gives every captured card, the cards each seat
    has played, the refills, and two kinds of inference about hidden hands:

    - the holder rule (`build_holder` self/partner): a seat that built value v kept a card that
      can take v (or its partner did). Unless a card able to take v has been played by those
      seats since, they hold one now: `musts`, a list of (seats, v).
    - compulsory capture (`must_capture`): a seat that built or trailed held no card that could
      capture then; the cards it still holds from then (no refill since) are none of those:
      `forbidden[seat]`, a set of card codes.

    `unseen` is every card this seat has not seen (the multiset of the other hands and the
    stock together). `sample(rng)` deals it out as an engine State that satisfies all of the
    above, for determinized search.
    """

    def __init__(self, described: dict[str, Any], start: dict[str, Any], observation: dict[str, Any]) -> None:
        from collections import Counter

        from engine import zwicker
        from engine.zwicker.moves import Build, Move, can_capture, unit_cards

        v = self.variant = engine_variant(described)
        rules = v.rules
        values = rules.values
        n = v.players
        self.seat = seat = observation["seat"]
        self.observation = observation
        table = [_unit(u) for u in start["table"]]
        taken: list[list[str]] = [[] for _ in range(rules.num_sides)]
        sizes = list(start["hand_sizes"])
        stock = start["stock"]
        dealer = observation["dealer"]
        epoch = 0  # refills so far
        played: list[list[tuple[int, str]]] = [[] for _ in range(n)]  # (move index, card) per seat
        builds: list[tuple[int, int, int]] = []  # (move index, seat, value)
        no_capture: list[tuple[int, int, set[str]]] = []  # (epoch, seat, codes that could capture)
        history = []
        for i, m in enumerate(observation["moves"]):
            who = m["seat"]
            move = Move.from_dict(m)
            history.append((who, move))
            if rules.must_capture and move.type != "capture" and who != seat:
                could = set()
                for code in rules.distinct:  # which cards could have captured here (one-card hands)
                    hands = [()] * n
                    hands[who] = (code,)
                    probe = zwicker.State(variant=v, dealer=dealer, to_move=who, hands=tuple(hands),
                                         table=tuple(table), stock=(), taken=((),) * rules.num_sides,
                                         zwicks=(0,) * rules.num_sides, last_capture=None, history=(), is_over=False)
                    if can_capture(probe):
                        could.add(code)
                no_capture.append((epoch, who, could))
            played[who].append((i, move.card))
            sizes[who] -= 1
            if move.type == "capture":
                take = set(move.take)
                pile = [move.card]
                rest = []
                for k, unit in enumerate(table):
                    if k in take:
                        pile.extend(unit_cards(unit))
                    else:
                        rest.append(unit)
                table = rest
                taken[rules.side_of[who]].extend(pile)
            elif move.type == "build":
                table[move.onto] = Build(unit_cards(table[move.onto]) + (move.card,), move.value, who)
                builds.append((i, who, move.value))
            else:
                table.append(move.card)
            if not any(sizes) and stock:
                round_size = n * rules.hand_size
                count = stock if stock - round_size < round_size else round_size
                for k in range(count):
                    sizes[(dealer + 1 + k) % n] += 1
                stock -= count
                epoch += 1
        self.history = tuple(history)
        seen_table = [_unit(u) for u in observation["table"]]
        if table != seen_table or sizes != list(observation["hand_sizes"]) or stock != observation["stock"] \
                or [len(t) for t in taken] != list(observation["taken"]):
            raise ValueError("botkit.View: the moves do not lead from the deal's start to this observation")
        self.table = tuple(table)
        self.taken = tuple(tuple(t) for t in taken)
        self.hand_sizes = tuple(sizes)
        self.stock_size = stock
        self.played = tuple(tuple(card for _, card in p) for p in played)
        hand = tuple(observation["hand"])
        self.hand = hand
        gone = Counter(hand)
        for unit in table:
            gone.update(unit_cards(unit))
        for pile in taken:
            gone.update(pile)
        pool = Counter(rules.deck)
        pool.subtract(gone)
        self.unseen = tuple(c for c, k in pool.items() for _ in range(max(0, k)))
        # The holder rule's promises still open: (seats, value).
        musts: list[tuple[tuple[int, ...], int]] = []
        holder = v.build_holder
        if holder != "none":
            for i, who, value in builds:
                seats = (who,) if holder == "self" else tuple(s for s in range(n) if rules.side_of[s] == rules.side_of[who])
                if any(value in values[c] for s in seats for k, c in played[s] if k > i):
                    continue  # the promised card may be the one played since
                if seat in seats:
                    if any(value in values[c] for c in hand):
                        continue  # our own hand is known; a promise we can keep binds no one
                    seats = tuple(s for s in seats if s != seat)
                if not any(sizes[s] for s in seats):
                    continue
                musts.append((seats, value))
        self.musts = tuple(dict.fromkeys(musts))
        forbidden: list[set[str]] = [set() for _ in range(n)]
        for at, who, could in no_capture:
            if at == epoch:
                forbidden[who] |= could
        self.forbidden = tuple(frozenset(f) for f in forbidden)
        self._values = values

    def consistent(self, hands: Any) -> bool:
        """Whether hidden hands (one card sequence per seat; ours is ignored) fit what is known."""
        values = self._values
        for seats, value in self.musts:
            if not any(value in values[c] for s in seats for c in hands[s]):
                return False
        return all(not (set(hands[s]) & self.forbidden[s]) for s in range(len(hands)) if s != self.seat)

    def state(self, hands: Any, stock: Any) -> Any:
        """The engine State with these hidden cards (our own hand always comes from the view)."""
        from engine import zwicker

        full = tuple(self.hand if s == self.seat else tuple(h) for s, h in enumerate(hands))
        obs = self.observation
        return zwicker.State(variant=self.variant, dealer=obs["dealer"], to_move=obs["to_move"], hands=full,
                            table=self.table, stock=tuple(stock), taken=self.taken, zwicks=tuple(obs["zwicks"]),
                            last_capture=obs["last_capture"], history=self.history, is_over=obs["is_over"])

    def sample(self, rng: random.Random, tries: int = 20) -> Any:
        """An engine State of this deal: our hand and everything public as they are, the other
        hands and the stock drawn at random from `unseen`, consistently with `musts` and
        `forbidden` (cards for a promise first, then seats with forbidden cards first). If no
        draw fits in `tries` (the inferences can only fail to fit after a wrong guess by a bot
        that ignores the rules' incentives, never by the rules), the last draw is used as it is."""
        values = self._values
        n = len(self.hand_sizes)
        others = [s for s in range(n) if s != self.seat]
        others.sort(key=lambda s: -len(self.forbidden[s]))
        for attempt in range(tries):
            pool = list(self.unseen)
            rng.shuffle(pool)
            hands: list[list[str]] = [[] for _ in range(n)]
            for seats, value in self.musts:
                if any(value in values[c] for s in seats for c in hands[s]):
                    continue
                room = [s for s in seats if len(hands[s]) < self.hand_sizes[s]]
                for k, c in enumerate(pool):
                    fits = [s for s in room if c not in self.forbidden[s]]
                    if value in values[c] and fits:
                        hands[rng.choice(fits)].append(pool.pop(k))
                        break
            for s in others:
                need = self.hand_sizes[s] - len(hands[s])
                if need <= 0:
                    continue
                banned = self.forbidden[s]
                keep = []
                for c in pool:
                    if need and c not in banned:
                        hands[s].append(c)
                        need -= 1
                    else:
                        keep.append(c)
                pool = keep
                if need:  # too few allowed cards: take any
                    hands[s].extend(pool[:need])
                    pool = pool[need:]
            if attempt == tries - 1 or self.consistent(hands):
                return self.state(hands, pool)
        raise AssertionError("unreachable")


# -- a one-ply judge of moves: heuristic_bot.py plays it, mc_bot.py searches over it -------------
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


class Heuristic(Bot):
    """A one-ply judge of moves (heuristic_bot.py describes it): `scores` gives every legal move
    what it wins less the risk of the table it leaves the next opponent, in points, and
    `choose` plays the best. heuristic_bot.py is this bot; mc_bot.py searches its best few."""

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
        try:
            view = self.view(observation)
        except ValueError as exc:  # the kit could not replay the deal: never forfeit over it
            log(f"{self.name}: {exc}; playing the first legal move")
            return 0
        best, best_score = 0, None
        for index, score in enumerate(self.scores(view, observation, legal_moves)):
            if best_score is None or score > best_score + 1e-9:
                best, best_score = index, score
        return best

    def scores(self, view, observation, legal_moves):
        """The score of every legal move (gain less risk, in points; mc_bot.py uses them too)."""
        from engine import zwicker
        from engine.zwicker.moves import check, unit_cards

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
                    check(probe(after, code), zwicker.Move("capture", code, None, tuple(everything)))
                    sweepers += count
                except zwicker.IllegalMove:
                    pass
            danger = p_opp(sweepers) * (self.zwick + self.worth(cards, share))
            best_unit = 0.0
            for u in table:
                uvals = (u.value,) if type(u) is zwicker.Build else values[u]
                if type(u) is zwicker.Build and u.value in partner_values and self.sides[u.by] == self.side:
                    continue
                takers = sum(k for c, k in distinct_unseen.items() if any(x in uvals for x in values[c]))
                best_unit = max(best_unit, p_opp(takers) * self.worth(unit_cards(u), share))
            return danger + 0.8 * best_unit

        def probe(after, code):
            hands = [()] * seats
            hands[opponent] = (code,)
            return zwicker.State(variant=after.variant, dealer=after.dealer, to_move=opponent, hands=tuple(hands),
                                table=after.table, stock=(), taken=after.taken, zwicks=after.zwicks,
                                last_capture=after.last_capture, history=(), is_over=False)

        out = []
        for move in legal_moves:
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
            out.append(score)
        return out
