"""Any installed game as a PettingZoo AEC environment (extra `[pettingzoo]`)::

    from games import pettingzoo
    env = pettingzoo.env("zwicken", players=3, seed=7)
    env.reset()
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

An episode is one board of the game (Zwicker: a deal, or a game to the target with
`format="game"`; Zwicken: a session). The agents are the seats, `seat_0` ...; the one to move is
`agent_selection`. An agent's observation is a dict:

- `observation`: the seat's observation as numbers (float32, `games.encoding`: the game's own
  encoding, or a hashed one);
- `action_mask`: int8, one per action; action k is the k-th legal move in the game's order
  (the list the arena sends in `act`, listed with the arena's cap), so the first `len(legal)`
  are 1;
- `protocol`: `{"observation": ..., "legal": [...]}`, exactly what the seat would get in the
  protocol's `act` (its observation with the deal's public moves, and the legal moves as plain
  data).

Rewards come from the game's results (`Result.seats`): with `reward="deal"` (the default) each
seat is paid its deal's result when a deal ends; with `reward="board"`, the board's result once,
at its end. Seeding follows the arena: after `reset(seed=s)` the episodes are boards 0, 1, 2, ...
of a tournament with master seed `s` (board k's seed `board_seed(s, k)`, its first dealer
k mod players), the deals `arena tournament run --seed s` plays in its first room.
"""

from __future__ import annotations

import hashlib
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv

import games
from games import encoding

MAX_ACTIONS = encoding.MAX_ACTIONS  # the actions offered; a game's longer lists are cut

_BOARD_SEED_TAG = b"zwicker-deal-seed"


def board_seed(master_seed: int, k: int) -> int:
    """Board k's seed under a master seed, as the arena derives it (games/zwicker/protocol.md section 3)."""
    digest = hashlib.sha256(_BOARD_SEED_TAG + master_seed.to_bytes(8, "big") + k.to_bytes(8, "big")).digest()
    return int.from_bytes(digest[:8], "big")


class ProtocolSpace(gymnasium.spaces.Space):
    """The plain data a seat gets in the protocol: any JSON-like value (not sampled, not flattened)."""

    def __init__(self) -> None:
        super().__init__(shape=None, dtype=None)

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def sample(self, mask: Any = None, probability: Any = None) -> Any:
        return {"observation": {}, "legal": []}

    def contains(self, x: Any) -> bool:
        return isinstance(x, dict) and set(x) == {"observation", "legal"}

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ProtocolSpace)

    __hash__ = object.__hash__


def env(game: str | games.Game, variant: Any = None, players: int | None = None, seed: int | None = None,
        *, format: str | None = None, reward: str = "deal", render_mode: str | None = None) -> "GameEnv":
    """The AEC environment of `game` (a name or a game object) and its variant (a spec as
    `--variant` takes it, or None: the default), with `players` seats where given; `seed` is the
    master seed of the first `reset()` without one (None: 0)."""
    g = games.game(game) if isinstance(game, str) else game
    spec: Any = variant
    if players is not None:
        if spec is None:
            spec = {"players": players}
        elif isinstance(spec, dict):
            spec = {**spec, "players": players}
        else:
            v = g.variant(spec)
            spec = {**v.to_dict(), "players": players}
    return GameEnv(g, g.variant(spec), seed=seed, format=format, reward=reward, render_mode=render_mode)


class GameEnv(AECEnv):
    """One game's boards, seat by seat (see the module's docstring)."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "name": "zwicker_arena", "is_parallelizable": False}

    def __init__(self, game: games.Game, variant: games.Variant, *, seed: int | None = None,
                 format: str | None = None, reward: str = "deal", render_mode: str | None = None) -> None:
        super().__init__()
        if reward not in ("deal", "board"):
            raise ValueError(f"reward: 'deal' or 'board', not {reward!r}")
        if format is not None and format not in game.info.formats:
            raise games.GameError(f"format: {game.info.name} boards are {', '.join(game.info.formats)}, not {format!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode: one of {', '.join(self.metadata['render_modes'])}, not {render_mode!r}")
        self.game, self.variant, self.format, self.reward_per = game, variant, format, reward
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"{game.info.name}_v0"}
        self.described = game.describe(variant)
        self.players = game.layout(variant).players
        self.possible_agents = [f"seat_{s}" for s in range(self.players)]
        size = encoding.size(game, self.described)
        self.observation_spaces = {a: gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(-np.inf, np.inf, (size,), np.float32),
            "action_mask": gymnasium.spaces.Box(0, 1, (MAX_ACTIONS,), np.int8),
            "protocol": ProtocolSpace()}) for a in self.possible_agents}
        self.action_spaces = {a: gymnasium.spaces.Discrete(MAX_ACTIONS) for a in self.possible_agents}
        self.master_seed = 0 if seed is None else _check_seed(seed)
        self.board_no = -1
        self.board: games.Board | None = None
        self.state: games.State | None = None
        self._legal: list[games.Move] = []

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    def __str__(self) -> str:
        return self.metadata["name"]

    # -- the episode -------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """The next board: board 0 of master seed `seed` where given, else the board after the last."""
        if seed is not None:
            self.master_seed, self.board_no = _check_seed(seed), 0
        else:
            self.board_no += 1
        first_dealer = self.board_no % self.players
        self.board = self.game.board(self.variant, board_seed(self.master_seed, self.board_no), first_dealer,
                                     self.format)
        self.agents = list(self.possible_agents)
        self.rewards = {a: 0 for a in self.agents}
        self._cumulative_rewards = {a: 0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict] = {a: {} for a in self.agents}
        self.state = self.board.deal()
        self._history: list[dict[str, Any]] = []
        self._next_to_move()

    def _next_to_move(self) -> None:
        """Past finished deals to the next seat to move, paying rewards as deals and the board end."""
        assert self.board is not None and self.state is not None
        while self.state.is_over:
            if self.reward_per == "deal":
                self._pay(self.state.result().seats)
            self.board = self.board.after(self.state)
            if self.board.is_over:
                if self.reward_per == "board":
                    self._pay(self.board.result().seats)
                self.terminations = {a: True for a in self.agents}
                self._legal = []
                return
            self.state = self.board.deal()
            self._history = []
        assert self.state.to_move is not None
        self.agent_selection = self.possible_agents[self.state.to_move]
        self._legal, _ = self.state.legal_moves(encoding.LEGAL_CAP)  # listed as the arena lists them
        self._legal = self._legal[:MAX_ACTIONS]

    def _pay(self, seats: tuple[int, ...]) -> None:
        for s, agent in enumerate(self.possible_agents):
            self.rewards[agent] += seats[s]

    def observe(self, agent: str) -> dict[str, Any]:
        assert self.state is not None
        seat = self.possible_agents.index(agent)
        seen = {**self.state.observation(seat, moves=False), "moves": list(self._history)}
        mine = not self.state.is_over and self.state.to_move == seat
        legal = [m.to_dict() for m in self._legal] if mine else []
        mask = np.zeros(MAX_ACTIONS, np.int8)
        mask[:len(legal)] = 1
        return {"observation": np.asarray(encoding.encode(self.game, self.described, seen), np.float32),
                "action_mask": mask, "protocol": {"observation": seen, "legal": legal}}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert self.state is not None
        k = int(action)
        if not 0 <= k < len(self._legal):
            raise games.IllegalMove(f"action {k}: {agent} has {len(self._legal)} legal moves (see action_mask)")
        self._cumulative_rewards[agent] = 0
        self.rewards = {a: 0 for a in self.agents}
        move, seat = self._legal[k], self.state.to_move
        public = getattr(self.state, "public_move", None)
        self._history.append({"seat": seat, **(move.to_dict() if public is None else public(move))})
        self.state = self.state.apply(move)
        self._next_to_move()
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None or self.state is None:
            return None
        text = self.state.text()
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass


def _check_seed(seed: int) -> int:
    if type(seed) is not int and not isinstance(seed, np.integer) or not 0 <= int(seed) < 2**64:
        raise ValueError(f"seed: an integer 0 <= seed < 2**64, got {seed!r}")
    return int(seed)
