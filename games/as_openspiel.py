"""The arena's games as OpenSpiel games (extra `[openspiel]`), so that OpenSpiel's algorithms run
on them: importing this module registers `arena_zwicker` and `arena_zwicken` with
`pyspiel.register_game` (`register(name)` adds any other installed game)::

    import pyspiel
    from games import as_openspiel   # noqa: F401  (registers them)

    game = pyspiel.load_game("arena_zwicken", {"variant": "bayern", "players": 3})
    state = game.new_initial_state()

Each is a Python OpenSpiel game over the games interface (`games.game(name)`: the rules live in
engine/, reached only through games/); the arena's core never imports this module.

- An episode is one deal. A chance node opens it: its outcome k (of `deals`, uniform) deals
  seed k, the first dealer `dealer`; the parameter `seed` (not -1) deals that seed at once.
- Actions: action k is the k-th legal move in the game's order (the list the arena sends in
  `act`), k < MAX_ACTIONS (`games.encoding`: longer lists are cut). The list depends only on
  what the seat to move knows, so an action names the same move in every state of an
  information set, which is what ISMCTS and CFR need.
- The information state string of a seat is its observation as the protocol sends it (JSON,
  with the deal's public moves); the observation string leaves out the moves. The tensors are
  the game's encoding (`games.encoding`).
- Returns: a seat's side's result for the deal less the mean of the other sides' (Zwicker's
  points, Zwicken's chips for the attempt, which the pot keeps from summing to zero): zero-sum,
  the margin a duplicate match counts.
- `resample_from_infostate(player, sampler)` deals the cards `player` has not seen (the other
  hands and the stock) at random among the places they may lie, the sizes kept; it does not
  read what play reveals (a void, a build's holder), which the bots' kits do
  (`ArenaState.from_arena` wraps such a sample; bots/zwicker/ismcts_bot.py).

`RolloutEvaluator` is an evaluator for OpenSpiel's MCTS and ISMCTS that plays random rollouts
on the arena's state directly (no OpenSpiel state per step: many times faster than OpenSpiel's
`RandomRolloutEvaluator` over a Python game).
"""

from __future__ import annotations

import functools
import json
import random
import re
from typing import Any

import numpy as np
import pyspiel

import games
from games import encoding

MAX_ACTIONS = encoding.MAX_ACTIONS
DEALS = 1024  # the chance node's outcomes by default: seeds 0 .. DEALS-1
BUNDLED = ("zwicker", "zwicken")


def short_name(name: str) -> str:
    """OpenSpiel's name for an arena game: `arena_` and the name, other characters as `_`."""
    return "arena_" + re.sub(r"[^A-Za-z0-9_]", "_", name)


class _Frozen:
    """An immutable value held by an OpenSpiel state: its clone (a deep copy) shares it."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __deepcopy__(self, memo: Any) -> "_Frozen":
        return self


class ArenaGame(pyspiel.Game):
    """One arena game and variant as an OpenSpiel game (parameters: `variant`, a spec as
    `--variant` takes it, "" for the default; `players`, 0 for the variant's; `deals`; `seed`;
    `dealer`)."""

    arena_name = ""  # set per registered subclass

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**_defaults(), **(params or {})}
        g = games.game(self.arena_name)
        spec: Any = params["variant"] or None
        if params["players"]:
            spec = {**g.variant(spec).to_dict(), "players": params["players"]}
        self.arena_game, self.arena_variant = g, g.variant(spec)
        self.described = g.describe(self.arena_variant)
        self.layout = g.layout(self.arena_variant)
        self.deals, self.seed, self.dealer = int(params["deals"]), int(params["seed"]), int(params["dealer"])
        if self.deals < 1 or not -1 <= self.seed < 2**63 or not 0 <= self.dealer < self.layout.players:
            raise ValueError(f"{short_name(self.arena_name)}: deals >= 1, seed -1 or a seed, dealer a seat: {params}")
        self.encoding_size = encoding.size(g, self.described)
        bound = _utility_bound(g.info.name)
        info = pyspiel.GameInfo(num_distinct_actions=MAX_ACTIONS, max_chance_outcomes=self.deals,
                                num_players=self.layout.players, min_utility=-bound, max_utility=bound,
                                utility_sum=0.0, max_game_length=_max_length(g, self.described))
        super().__init__(_TYPES[self.arena_name], info, params)

    def new_initial_state(self) -> "ArenaState":
        return ArenaState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> "Observer":
        perfect_recall = iig_obs_type is not None and iig_obs_type.perfect_recall
        return Observer(self, perfect_recall)


class ArenaState(pyspiel.State):
    """A deal of the arena game; its position is the arena's own immutable state."""

    def __init__(self, game: ArenaGame) -> None:
        super().__init__(game)
        self._g = _Frozen(game)
        self._arena = _Frozen(None if game.seed == -1 else self._deal(game.seed))
        self._legal: _Frozen = _Frozen(None)

    def _deal(self, seed: int) -> Any:
        g = self._game
        return g.arena_game.deal(g.arena_variant, seed, g.dealer)

    @classmethod
    def from_arena(cls, game: ArenaGame, arena_state: Any) -> "ArenaState":
        """An OpenSpiel state at the arena's position `arena_state` (a `games` state of this game)."""
        s = cls(game)
        s._arena = _Frozen(arena_state)
        return s

    @property
    def _game(self) -> ArenaGame:
        return self._g.value

    @property
    def arena(self) -> Any:
        """The arena's state (None before the chance node's deal)."""
        return self._arena.value

    def _moves(self) -> list[Any]:
        if self._legal.value is None:
            moves, _ = self.arena.legal_moves(encoding.LEGAL_CAP)  # the arena's list (its first MAX_ACTIONS)
            self._legal = _Frozen(moves[:MAX_ACTIONS])
        return self._legal.value

    # -- OpenSpiel's State -------------------------------------------------------------------

    def current_player(self) -> int:
        a = self.arena
        if a is None:
            return pyspiel.PlayerId.CHANCE
        if a.is_over:
            return pyspiel.PlayerId.TERMINAL
        return a.to_move

    def is_terminal(self) -> bool:
        a = self.arena
        return a is not None and a.is_over

    def _legal_actions(self, player: int) -> list[int]:
        return list(range(len(self._moves())))

    def chance_outcomes(self) -> list[tuple[int, float]]:
        p = 1.0 / self._game.deals
        return [(k, p) for k in range(self._game.deals)]

    def _apply_action(self, action: int) -> None:
        if self.arena is None:
            self._arena = _Frozen(self._deal(int(action)))
        else:
            self._arena = _Frozen(self.arena.apply(self._moves()[action]))
        self._legal = _Frozen(None)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal seed {action}"
        return str(self._moves()[action])

    def returns(self) -> list[float]:
        a = self.arena
        if a is None or not a.is_over:
            return [0.0] * self._game.layout.players
        return _returns(self._game, a)

    def information_state_string(self, player: int | None = None) -> str:
        """The seat's observation as the protocol sends it (JSON, with the deal's public moves)."""
        return _text(self, self.current_player() if player is None else player, True)

    def observation_string(self, player: int | None = None) -> str:
        return _text(self, self.current_player() if player is None else player, False)

    def resample_from_infostate(self, player: int, sampler: Any = None) -> "ArenaState":
        """A state `player` cannot tell from this one: the cards it has not seen dealt afresh."""
        return ArenaState.from_arena(self._game, resample(self._game, self.arena, player, random.Random()))

    def __str__(self) -> str:
        return "(not dealt)" if self.arena is None else self.arena.text()


def margins(layout: Any, seats: Any) -> list[float]:
    """Each seat's result less the mean of the other sides' results."""
    sides = [seats[side[0]] for side in layout.sides]
    n = len(sides)
    out = []
    for s in range(layout.players):
        mine = layout.side_of(s)
        out.append(float(sides[mine] - (sum(sides) - sides[mine]) / (n - 1)) if n > 1 else float(sides[mine]))
    return out


def _returns(game: ArenaGame, arena_state: Any) -> list[float]:
    return margins(game.layout, arena_state.result().seats)


def _text(state: ArenaState, player: int, moves: bool) -> str:
    if state.arena is None:
        return ""
    return json.dumps(state.arena.observation(player, moves=moves), sort_keys=True, separators=(",", ":"))


def resample(game: ArenaGame, arena_state: Any, player: int, rng: random.Random, tries: int = 50) -> Any:
    """`arena_state` with the cards `player` has not seen dealt afresh: the other seats' hands (and
    its own where it has not seen it) and the stock are shuffled together and dealt back in their
    sizes; a deal whose observation for `player` differs is drawn again."""
    g = game.arena_game
    want = arena_state.observation(player)
    position = arena_state.to_dict()
    hands = position.get("hands")
    if not isinstance(hands, list):
        raise pyspiel.SpielError(f"{g.info.name}: no hands in its position to resample")
    own_hidden = bool(want.get("hand_hidden"))
    places = [s for s in range(len(hands)) if s != player or own_hidden]
    stock = position.get("stock") if isinstance(position.get("stock"), list) else None
    pool = [c for s in places for c in hands[s]] + (list(stock) if stock is not None else [])
    for _ in range(tries):
        rng.shuffle(pool)
        k = 0
        new_hands = [list(h) for h in hands]
        for s in places:
            new_hands[s] = pool[k:k + len(hands[s])]
            k += len(hands[s])
        new = {**position, "hands": new_hands}
        if stock is not None:
            new["stock"] = pool[k:]
        try:
            sample = g.state_from_dict(new)
        except games.GameError:
            continue
        if sample.observation(player) == want:
            return sample
    return arena_state  # nothing else fitted: the position itself is one the seat cannot tell apart


class Observer:
    """OpenSpiel's observer: the game's encoding as the tensor, the observation as the string."""

    def __init__(self, game: ArenaGame, perfect_recall: bool) -> None:
        self.game, self.perfect_recall = game, perfect_recall
        self.tensor = np.zeros(game.encoding_size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: ArenaState, player: int) -> None:
        if state.arena is None:
            self.tensor.fill(0)
            return
        seen = state.arena.observation(player)
        self.tensor[:] = encoding.encode(self.game.arena_game, self.game.described, seen)

    def string_from(self, state: ArenaState, player: int) -> str:
        return _text(state, player, self.perfect_recall)


class RolloutEvaluator:
    """For OpenSpiel's MCTS and ISMCTS: a state's value is the mean returns of `n` random playouts
    on the arena's state; the prior is uniform. `policy(arena_state, moves, rng) -> index` plays
    the playouts instead of a uniform choice where given. `first(arena_state, moves) -> index`,
    where given, makes the prior rank that move first and the others in the game's order (a
    judge's choice: `TimedISMCTS` with `widen` expands a node's children in that order)."""

    def __init__(self, n: int = 1, rng: random.Random | None = None, policy: Any = None, first: Any = None) -> None:
        self.n, self.rng, self.policy, self.first = n, rng or random.Random(), policy, first

    def evaluate(self, state: ArenaState) -> np.ndarray:
        total = np.zeros(state._game.layout.players)
        for _ in range(self.n):
            a = state.arena
            while not a.is_over:
                moves, _ = a.legal_moves()
                k = self.rng.randrange(len(moves)) if self.policy is None else self.policy(a, moves, self.rng)
                a = a.apply(moves[k])
            total += _returns(state._game, a)
        return total / self.n

    def prior(self, state: ArenaState) -> list[tuple[int, float]]:
        legal = state.legal_actions()
        if self.first is None or len(legal) < 2:
            return [(a, 1.0 / len(legal)) for a in legal]
        best = self.first(state.arena, state._moves())
        ranked = [best, *(a for a in legal if a != best)]
        weights = [1.0 / (k + 1) for k in range(len(ranked))]
        total = sum(weights)
        return [(a, w / total) for a, w in zip(ranked, weights)]


@functools.cache
def _defaults() -> dict[str, Any]:
    return {"variant": "", "players": 0, "deals": DEALS, "seed": -1, "dealer": 0}


def _utility_bound(name: str) -> float:
    """A bound on a deal's returns (OpenSpiel asks for one): generous, since no algorithm here
    relies on it."""
    return 1000.0


def _max_length(g: Any, described: Any) -> int:
    """The game's bound on a deal's moves, else one move a card of the deck (Zwicker: every move
    plays a card)."""
    if g.info.max_moves_per_deal is not None:
        return int(g.info.max_moves_per_deal)
    deck = described.get("deck") if isinstance(described, dict) else None
    return len(deck) if deck else 10_000


_TYPES: dict[str, Any] = {}


def register(name: str) -> str:
    """Register the installed arena game `name` with OpenSpiel (once); returns its short name."""
    if name in _TYPES:
        return short_name(name)
    g = games.game(name)
    _TYPES[name] = pyspiel.GameType(
        short_name=short_name(name), long_name=f"{g.info.title} (Zwicker Arena)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=g.info.max_players, min_num_players=g.info.min_players,
        provides_information_state_string=True, provides_information_state_tensor=True,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=_defaults())
    cls = type(f"ArenaGame_{short_name(name)}", (ArenaGame,), {"arena_name": name})
    pyspiel.register_game(_TYPES[name], cls)
    return short_name(name)


for _name in BUNDLED:
    register(_name)


class TimedISMCTS:
    """OpenSpiel's information-set MCTS (`open_spiel.python.algorithms.ismcts.ISMCTSBot`) with a
    clock: `search(root, resample, seconds)` runs simulations from states `resample()` gives (the
    seat's possible worlds) until `seconds` have passed (at least `min_simulations`, at most
    `max_simulations`), and returns the action of most visits at the root and the number of
    simulations.

    `widen` (None: OpenSpiel's own expansion, every child once, in random order, before any is
    chosen by value) widens progressively: a node visited n times has at most
    ceil(widen * sqrt(n + 1)) children, expanded in the order of the evaluator's prior."""

    def __init__(self, game: ArenaGame, evaluator: Any, uct_c: float, seed: int,
                 min_simulations: int = 8, max_simulations: int = 100_000, widen: float | None = None) -> None:
        from open_spiel.python.algorithms import ismcts

        self.game, self.min, self.max = game, min_simulations, max_simulations
        kind = ismcts.ISMCTSBot if widen is None else _widening(ismcts.ISMCTSBot, widen)
        self.bot = kind(game, evaluator, uct_c, max_simulations=1, random_state=np.random.RandomState(seed),
                        final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT)

    def search(self, root: ArenaState, resample: Any, seconds: float) -> tuple[int, int]:
        import time

        bot = self.bot
        bot.reset()
        bot.set_resampler(lambda state, player: resample())
        legal = root.legal_actions()
        if len(legal) == 1:
            return legal[0], 0
        bot._root_node = bot.create_new_node(root)
        key = bot.get_state_key(root)
        deadline = time.perf_counter() + seconds
        n = 0
        while n < self.max and (n < self.min or time.perf_counter() < deadline):
            world = bot.sample_root_state(root)
            if bot.get_state_key(world) != key:
                raise pyspiel.SpielError("ismcts: a resampled world is not in the root's information set")
            bot.run_simulation(world)
            n += 1
        policy = bot.get_final_policy(root, bot._root_node)
        best = max(p for _, p in policy)
        choices = [a for a, p in policy if p == best]
        return int(choices[bot._random_state.randint(len(choices))]), n


def _widening(base: Any, widen: float) -> Any:
    """OpenSpiel's ISMCTSBot with progressive widening (`TimedISMCTS`); only its expansion differs."""
    import math

    class WideningISMCTS(base):  # type: ignore[misc, valid-type, unused-ignore]
        def check_expand(self, node: Any, legal_actions: list[int]) -> int:
            width = min(len(legal_actions), max(1, math.ceil(widen * math.sqrt(node.total_visits + 1))))
            if len(node.child_info) >= width:
                return pyspiel.INVALID_ACTION
            for action in sorted(legal_actions, key=lambda a: -node.prior_map.get(a, 0.0)):
                if action not in node.child_info:
                    return int(action)
            return pyspiel.INVALID_ACTION

    return WideningISMCTS


def make_game(name: str, variant: Any = None, **params: Any) -> ArenaGame:
    """The OpenSpiel game of arena game `name` at `variant` (a variant object, a spec, or None),
    registering it first where needed."""
    g = games.game(name)
    spec = "" if variant is None else json.dumps(g.variant(variant).to_dict(), sort_keys=True)
    return pyspiel.load_game(register(name), {"variant": spec, **params})
