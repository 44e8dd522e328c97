"""OpenSpiel's card games as games of the arena (extra `[openspiel]`): `openspiel:hearts` and the
others of CARD_GAMES, registered through the `zwicker_arena.games` entry points (pyproject.toml).

Each is a `games.api.Game` over `pyspiel`, so tournaments, SPRT, replays, pages and the rules
oracle play them as any game; a bot never needs pyspiel, since the arena holds the state:

- a variant is the OpenSpiel game's parameters (`pass_cards=false`, as `--variant` takes them;
  `players` where the game has that parameter); every parameter is kept, its default filled in
  (OpenSpiel's, but bridge is played out card by card: `use_double_dummy_result=false`);
- a board is one OpenSpiel episode (format "deal"). Its chance outcomes come from the board's
  seed: the k-th chance node draws with the k-th number of SHA-256("openspiel-chance" + seed + k),
  so every room of a board meets the same deal (and, where the play does not change what chance
  may draw, the same stock);
- an observation is OpenSpiel's for that seat: its `string` and `tensor` (the information state
  where the game has one, else the observation), beside `seat` and `to_move`;
- a move is an OpenSpiel action: `{"type": "action", "action": 17, "name": "C7"}` (the name is
  `action_to_string`); the legal list is OpenSpiel's, in its order. What the other seats are told
  of a move (`State.public_move`) is the move itself only where OpenSpiel's own view of every
  other seat tells it from the mover's other choices; else `{"type": "hidden"}` (hearts' passed
  cards);
- a result is OpenSpiel's returns, times the game's `scale` where they are fractions (skat), as
  whole points; the returns themselves are in `detail`.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import version
from typing import Any

from games.api import BadPosition, BadVariant, GameError, IllegalMove, Info, Json, Layout, Result

if importlib.util.find_spec("pyspiel") is None:  # games.game() then says the game is not installed
    raise ImportError("OpenSpiel is not installed (pip install 'zwicker-arena[openspiel]')")

PREFIX = "openspiel:"
FORMATS = ("deal",)
_CHANCE_TAG = b"openspiel-chance"


def _spiel() -> Any:
    """pyspiel, imported at a game's first real use: loading this module (every entry point is
    loaded where the arena lists its games, say to show a sandboxed bot their packages) imports
    none of OpenSpiel."""
    import pyspiel

    return pyspiel


@dataclass(frozen=True)
class Spec:
    """How one OpenSpiel game sits in the arena."""

    short_name: str                  # pyspiel's name
    title: str
    partnerships: bool = False       # seats 0 and 2 against 1 and 3, as bridge, spades, euchre
    scale: int = 1                   # points per unit of OpenSpiel's returns
    defaults: tuple[tuple[str, Any], ...] = ()  # the arena's defaults where they differ from OpenSpiel's


CARD_GAMES = {spec.short_name: spec for spec in (
    Spec("hearts", "Hearts"),
    # bridge's play, not the double-dummy solver's result (seconds a deal): bots play the cards
    Spec("bridge", "Bridge", partnerships=True, defaults=(("use_double_dummy_result", False),)),
    Spec("skat", "Skat", scale=240),
    Spec("gin_rummy", "Gin Rummy"),
    Spec("oh_hell", "Oh Hell"),
    Spec("spades", "Spades", partnerships=True),
    Spec("euchre", "Euchre", partnerships=True),
    Spec("dou_dizhu", "Dou Dizhu"),
)}
"""OpenSpiel's card games the arena names; one the installed OpenSpiel lacks says so at its first use."""


@dataclass(frozen=True)
class Variant:
    """An OpenSpiel game's parameters, every one (defaults filled in), as sorted pairs."""

    short_name: str
    params: tuple[tuple[str, Any], ...]

    @property
    def players(self) -> int:
        return _load(self.short_name, self.params).num_players()

    def to_dict(self) -> Json:
        return dict(self.params)

    def __str__(self) -> str:
        return ",".join(f"{k}={json.dumps(v)}" for k, v in self.params) or "default"


@functools.lru_cache(maxsize=64)
def _load(short_name: str, params: tuple[tuple[str, Any], ...]) -> Any:
    return _spiel().load_game(short_name, dict(params))


def _draw(seed: int, k: int, outcomes: list[tuple[int, float]]) -> int:
    """Chance node k's outcome under `seed`: a number in [0, 1) from SHA-256, over the
    outcomes' probabilities in OpenSpiel's order."""
    digest = hashlib.sha256(_CHANCE_TAG + seed.to_bytes(8, "big") + k.to_bytes(8, "big")).digest()
    u = int.from_bytes(digest[:8], "big") / 2**64
    total = 0.0
    for action, p in outcomes:
        total += p
        if u < total:
            return action
    return outcomes[-1][0]


def _plain(values: Any) -> list[Any]:
    """A tensor as plain data: whole numbers as ints (most of a card game's tensor is 0 and 1)."""
    return [int(x) if float(x).is_integer() else float(x) for x in values]


class Move:
    """One OpenSpiel action, with its name for the seat that plays it."""

    __slots__ = ("action", "name")
    action: int
    name: str

    def __init__(self, action: int, name: str) -> None:
        object.__setattr__(self, "action", action)
        object.__setattr__(self, "name", name)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Move is immutable")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Move) and self.action == other.action

    def __hash__(self) -> int:
        return hash(self.action)

    def __repr__(self) -> str:
        return f"<Move {self.action} {self.name!r}>"

    @property
    def key(self) -> int:
        return self.action

    def to_dict(self) -> Json:
        return {"type": "action", "action": self.action, "name": self.name}

    def __str__(self) -> str:
        return self.name


def _action_of(move: Any) -> int:
    if isinstance(move, Move):
        return move.action
    if isinstance(move, Mapping) and type(move.get("action")) is int:
        return move["action"]
    raise IllegalMove(f"not a move of an OpenSpiel game (expected {{\"action\": int}}): {move!r}"[:300])


class State:
    """One OpenSpiel episode at a seat's decision (chance is drawn at once from the seed), a
    frozen value: `apply` clones."""

    __slots__ = ("game", "variant", "seed", "ps", "chances")
    game: "OpenSpielGame"
    variant: Variant
    seed: int
    ps: Any
    chances: int

    def __init__(self, game: "OpenSpielGame", variant: Variant, seed: int, ps: Any, chances: int) -> None:
        while ps.is_chance_node():
            ps.apply_action(_draw(seed, chances, ps.chance_outcomes()))
            chances += 1
        if ps.is_simultaneous_node():
            raise GameError(f"{game.info.name}: simultaneous moves are not supported")
        for name, value in (("game", game), ("variant", variant), ("seed", seed), ("ps", ps), ("chances", chances)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("State is immutable: apply a move to get a new state")

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, State) and self.variant == other.variant and self.seed == other.seed
                and self.ps.history() == other.ps.history())

    def __hash__(self) -> int:
        return hash((self.variant, self.seed, tuple(self.ps.history())))

    @property
    def to_move(self) -> int | None:
        return None if self.ps.is_terminal() else self.ps.current_player()

    @property
    def is_over(self) -> bool:
        return self.ps.is_terminal()

    def legal_moves(self, limit: int | None = None) -> tuple[list[Move], bool]:
        """OpenSpiel's legal actions, in its order, named for the seat to move."""
        if self.ps.is_terminal():
            return [], True
        p = self.ps.current_player()
        return [Move(a, self.ps.action_to_string(p, a)) for a in self.ps.legal_actions()], True

    def check(self, move: Json) -> Move:
        if self.ps.is_terminal():
            raise IllegalMove("the deal is over")
        a = _action_of(move)
        if a not in self.ps.legal_actions():
            raise IllegalMove(f"action {a} is not legal for seat {self.ps.current_player()} "
                              f"(legal: {' '.join(map(str, self.ps.legal_actions()))})")
        return Move(a, self.ps.action_to_string(self.ps.current_player(), a))

    def apply(self, move: Move | Json) -> "State":
        a = self.check(move).action
        ps = self.ps.clone()
        ps.apply_action(a)
        return State(self.game, self.variant, self.seed, ps, self.chances)

    def public_move(self, move: Move | Json) -> Json:
        """What the other seats are told of `move` from here: the move, where OpenSpiel's view of
        every one of them after it differs from its view after each of the mover's other choices;
        else only that a move was made ({"type": "hidden"}): a card passed to one seat is hidden
        from all, since the move list is the same for every seat."""
        m = self.check(move)
        legal = self.ps.legal_actions()
        if len(legal) < 2:
            return m.to_dict()
        others = [q for q in range(self.ps.num_players()) if q != self.ps.current_player()]

        def seen(action: int) -> list[str]:
            ps = self.ps.clone()
            ps.apply_action(action)
            return [self.game._string(ps, q) for q in others]

        mine = seen(m.action)
        for b in legal:
            if b != m.action and any(x == y for x, y in zip(seen(b), mine)):
                return {"type": "hidden"}
        return m.to_dict()

    def observation(self, seat: int, *, moves: bool = True) -> Json:
        """OpenSpiel's view of the episode for `seat`: its string and tensor."""
        if type(seat) is not int or not 0 <= seat < self.ps.num_players():
            raise GameError(f"seat: must be 0..{self.ps.num_players() - 1}, got {seat!r}")
        return {"game": self.game.info.name, "seat": seat, "to_move": self.to_move, "is_over": self.is_over,
                "string": self.game._string(self.ps, seat), "tensor": _plain(self.game._tensor(self.ps, seat))}

    def result(self) -> Result:
        if not self.ps.is_terminal():
            raise GameError("the deal is not over")
        returns = list(self.ps.returns())
        seats = tuple(round(r * self.game.spec.scale) for r in returns)
        layout = self.game.layout(self.variant)
        sides = tuple(seats[side[0]] for side in layout.sides)
        return Result(tuple(sides[layout.side_of(s)] for s in range(layout.players)), sides,
                      {"returns": returns, "scale": self.game.spec.scale})

    def to_dict(self) -> Json:
        """The whole episode: its game, variant, seed and OpenSpiel history (chance outcomes too)."""
        return {"game": self.game.info.name, "variant": self.variant.to_dict(), "seed": self.seed,
                "history": list(self.ps.history())}

    def text(self, seat: int | None = None) -> str:
        return str(self.ps) if seat is None else self.game._string(self.ps, seat)

    def frame(self, before: "State | None" = None, move: Any = None) -> Json:
        """What a viewer draws: OpenSpiel's text of the whole state, the seat to move, and the move."""
        out: dict[str, Any] = {"text": str(self.ps), "to_move": self.to_move, "over": self.is_over,
                               "views": [self.game._string(self.ps, s) for s in range(self.ps.num_players())]}
        if self.is_over:
            out["returns"] = list(self.ps.returns())
        if before is not None and move is not None:
            m = before.check(move)
            out["move"] = {"text": m.name, **m.to_dict(), "seat": before.to_move}
        return out


class Board:
    """One episode (format "deal")."""

    __slots__ = ("game", "variant", "seed", "first_dealer", "final")
    game: "OpenSpielGame"
    variant: Variant
    seed: int
    first_dealer: int
    final: State | None

    def __init__(self, game: "OpenSpielGame", variant: Variant, seed: int, first_dealer: int,
                 final: State | None) -> None:
        for name, value in (("game", game), ("variant", variant), ("seed", seed), ("first_dealer", first_dealer),
                            ("final", final)):
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Board is immutable: `after` gives the next one")

    @property
    def is_over(self) -> bool:
        return self.final is not None

    @property
    def deals_played(self) -> int:
        return int(self.final is not None)

    @property
    def deal_seed(self) -> int:
        return self.seed

    @property
    def dealer(self) -> int:
        """Stored with the deal; OpenSpiel's rules seat their dealer (or first player) themselves."""
        return self.first_dealer

    def deal(self) -> State:
        if self.is_over:
            raise IllegalMove("the board is over")
        return self.game.deal(self.variant, self.seed, self.first_dealer)

    def after(self, final: State) -> "Board":
        if self.is_over:
            raise IllegalMove("the board is over")
        if not final.is_over:
            raise IllegalMove("the deal is not over")
        return Board(self.game, self.variant, self.seed, self.first_dealer, final)

    def carry(self) -> Json:
        return None

    def result(self) -> Result:
        if self.final is None:
            raise IllegalMove("the board is not over")
        return self.final.result()


class OpenSpielGame:
    """One OpenSpiel game behind the arena's games interface."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec  # OpenSpiel is asked for the rest at the first use (see _spiel)

    @functools.cached_property
    def _loaded(self) -> tuple[Info, dict[str, Any], bool, bool]:
        """What OpenSpiel says of the game: its info, parameters with the arena's defaults, and
        whether it has information states (string, tensor)."""
        pyspiel = _spiel()
        name = self.spec.short_name
        if name not in pyspiel.registered_names():
            raise GameError(f"{PREFIX}{name}: the installed OpenSpiel ({version('open-spiel')}) has no game {name!r}")
        default = pyspiel.load_game(name)
        t = default.get_type()
        if t.dynamics != pyspiel.GameType.Dynamics.SEQUENTIAL:
            raise GameError(f"{name}: only sequential OpenSpiel games are supported")
        zero_sum = t.utility == pyspiel.GameType.Utility.ZERO_SUM
        info = Info(name=PREFIX + name, version=f"open_spiel {version('open-spiel')}",
                    title=f"{self.spec.title} (OpenSpiel)", min_players=t.min_num_players,
                    max_players=t.max_num_players, formats=FORMATS,
                    utility="zero_sum" if zero_sum else "general_sum", unit="points",
                    max_moves_per_deal=default.max_game_length())
        defaults = {**default.get_parameters(), **dict(self.spec.defaults)}
        return info, defaults, t.provides_information_state_string, t.provides_information_state_tensor

    @property
    def info(self) -> Info:
        return self._loaded[0]

    @property
    def defaults(self) -> dict[str, Any]:
        return self._loaded[1]

    @property
    def _info_state(self) -> bool:
        return self._loaded[2]

    @property
    def _info_tensor(self) -> bool:
        return self._loaded[3]

    # -- OpenSpiel's views, the information state where the game has one --------------------

    def _string(self, ps: Any, seat: int) -> str:
        return ps.information_state_string(seat) if self._info_state else ps.observation_string(seat)

    def _tensor(self, ps: Any, seat: int) -> list[float]:
        return ps.information_state_tensor(seat) if self._info_tensor else ps.observation_tensor(seat)

    def _tensor_size(self, variant: Variant) -> int:
        g = _load(variant.short_name, variant.params)
        shape = g.information_state_tensor_shape() if self._info_tensor else g.observation_tensor_shape()
        size = 1
        for n in shape:
            size *= n
        return size

    # -- the interface ------------------------------------------------------------------------

    def variant(self, spec: str | Mapping[str, Any] | Variant | None = None) -> Variant:
        """The parameters: None (OpenSpiel's defaults), `k=v,k=v` (values read as JSON, else as
        text), a JSON object or a dict; `players` sets the game's own players parameter."""
        if isinstance(spec, Variant):
            if spec.short_name != self.spec.short_name:
                raise BadVariant(f"not a variant of {self.info.name}: {spec.short_name}")
            return spec
        options = self._options(spec)
        options.pop("game", None)
        params = dict(self.defaults)
        players = options.pop("players", None)
        for key, value in options.items():
            if key not in params:
                raise BadVariant(f"{self.info.name}: unknown option {key!r} (options: "
                                 f"{', '.join(sorted(self.defaults)) or 'none'})")
            want = type(params[key])
            if want is float and type(value) is int:
                value = float(value)
            if type(value) is not want:
                raise BadVariant(f"{self.info.name}: option {key} takes {want.__name__}, got {value!r}")
            params[key] = value
        if players is not None:
            if type(players) is not int:
                raise BadVariant(f"players: an integer, got {players!r}")
            if not self.info.min_players <= players <= self.info.max_players:
                raise BadVariant(f"players: {self.info.name} seats {self.info.min_players} to "
                                 f"{self.info.max_players}, not {players}")
            if "players" in params:
                params["players"] = players
            elif players != _load(self.spec.short_name, tuple(sorted(params.items()))).num_players():
                raise BadVariant(f"players: {self.info.name} seats {self.info.min_players}, not {players}")
        frozen = tuple(sorted(params.items()))
        try:
            _load(self.spec.short_name, frozen)
        except _spiel().SpielError as exc:
            raise BadVariant(f"{self.info.name}: {str(exc).splitlines()[0]}") from None
        return Variant(self.spec.short_name, frozen)

    def _options(self, spec: Any) -> dict[str, Any]:
        if spec is None:
            return {}
        if isinstance(spec, Mapping):
            return dict(spec)
        if not isinstance(spec, str):
            raise BadVariant(f"variant: expected options, got {type(spec).__name__}")
        text = spec.strip()
        if text.lower().startswith(self.info.name):
            text = text[len(self.info.name):].lstrip(":")
        if text.startswith("{"):
            try:
                data = json.loads(text)
            except json.JSONDecodeError as exc:
                raise BadVariant(f"not valid JSON: {exc}") from None
            if not isinstance(data, dict):
                raise BadVariant(f"expected a JSON object, got {type(data).__name__}")
            return data
        options: dict[str, Any] = {}
        for item in filter(None, (part.strip() for part in text.split(","))):
            key, eq, raw = item.partition("=")
            if not eq:
                raise BadVariant(f"expected option=value, got {item!r} (e.g. {self._example()})")
            raw = raw.strip()
            try:
                value: Any = json.loads(raw.lower() if raw.lower() in ("true", "false") else raw)
            except json.JSONDecodeError:
                value = raw
            options[key.strip()] = value
        return options

    def _example(self) -> str:
        for key, value in sorted(self.defaults.items()):
            return f"{key}={json.dumps(value)}"
        return "players=3"

    def layout(self, variant: Variant) -> Layout:
        n = variant.players
        if self.spec.partnerships and n == 4:
            return Layout(4, ((0, 2), (1, 3)))
        return Layout(n, tuple((s,) for s in range(n)))

    def describe(self, variant: Variant) -> Json:
        """hello.variant: the game, its parameters, and the sizes a bot may want."""
        g = _load(variant.short_name, variant.params)
        return {"game": self.info.name, "openspiel": variant.short_name, "parameters": variant.to_dict(),
                "players": variant.players, "num_distinct_actions": g.num_distinct_actions(),
                "tensor_size": self._tensor_size(variant), "max_game_length": g.max_game_length()}

    def encoding_size(self, described: Json) -> int:
        return int(described["tensor_size"])

    def encode(self, described: Json, observation: Json) -> list[float]:
        """OpenSpiel's own tensor (games/encoding.py)."""
        return [float(x) for x in observation["tensor"]]

    def board(self, variant: Variant, seed: int, first_dealer: int = 0, format: str | None = None) -> Board:
        return self.resume(variant, seed, first_dealer, format, 0, None)

    def resume(self, variant: Variant, seed: int, first_dealer: int, format: str | None,
               deal_no: int, carry: Json) -> Board:
        _format(self, format)
        _seed(seed)
        if deal_no != 0:
            raise BadVariant(f"deal_no: a board of {self.info.name} is one deal, no deal {deal_no!r}")
        return Board(self, variant, seed, first_dealer, None)

    def deal(self, variant: Variant, seed: int, dealer: int, carry: Json = None) -> State:
        _seed(seed)
        return State(self, variant, seed, _load(variant.short_name, variant.params).new_initial_state(), 0)

    def forfeit(self, variant: Variant, format: str | None, seat: int, deals: int = 1) -> Result:
        """A table forfeited by `seat`: its side scores the game's least return, every other
        side the most (zero-sum: the least's opposite, shared)."""
        _format(self, format)
        layout = self.layout(variant)
        if type(seat) is not int or not 0 <= seat < layout.players:
            raise GameError(f"seat: must be 0..{layout.players - 1}, got {seat!r}")
        g = _load(variant.short_name, variant.params)
        low = round(g.min_utility() * self.spec.scale) * deals
        high = round(g.max_utility() * self.spec.scale) * deals
        side = layout.side_of(seat)
        if self.info.utility == "zero_sum":
            high = -low // max(1, layout.num_sides - 1)
        sides = tuple(low if k == side else high for k in range(layout.num_sides))
        seats = tuple(sides[layout.side_of(s)] for s in range(layout.players))
        return Result(seats, sides, {"forfeit": {"seat": seat, "side": side}})

    def state_from_dict(self, position: Json) -> State:
        """A position of `to_dict`: the history replayed from the start, chance outcomes as recorded."""
        try:
            if position.get("game", self.info.name) != self.info.name:
                raise BadPosition(f"not a position of {self.info.name}: {position.get('game')!r}")
            variant = self.variant(position["variant"])
            seed, history = position["seed"], position["history"]
            _seed(seed)
            if not isinstance(history, list) or not all(type(a) is int for a in history):
                raise BadPosition("history: a list of OpenSpiel actions")
        except (KeyError, TypeError, AttributeError, BadVariant) as exc:
            raise BadPosition(f"{self.info.name} position: {exc}") from None
        ps = _load(variant.short_name, variant.params).new_initial_state()
        chances = 0
        for a in history:
            legal = [o for o, _ in ps.chance_outcomes()] if ps.is_chance_node() else ps.legal_actions()
            if a not in legal or ps.is_terminal():
                raise BadPosition(f"history: action {a} is not legal at step {len(ps.history())}")
            chances += ps.is_chance_node()
            ps.apply_action(a)
        return State(self, variant, seed, ps, chances)

    def move_from_dict(self, move: Json) -> Move:
        a = _action_of(move)
        name = move.get("name") if isinstance(move, Mapping) else None
        return Move(a, name if isinstance(name, str) else str(a))

    def parse_move(self, text: str, state: State) -> Move:
        """A move by its name (as `action_to_string` gives it) or its action number, legal in `state`."""
        text = str(text).strip()
        moves, _ = state.legal_moves()
        for m in moves:
            if m.name == text or str(m.action) == text:
                return m
        raise IllegalMove(f"{text!r} is no legal move here (legal: {', '.join(m.name for m in moves)})"[:400])


def _format(game: OpenSpielGame, format: str | None) -> str:
    if format not in (None, *FORMATS):
        raise BadVariant(f"format: {game.info.name} boards are {', '.join(FORMATS)}, not {format!r}")
    return FORMATS[0]


def _seed(seed: Any) -> None:
    if type(seed) is not int or not 0 <= seed < 2**64:
        raise BadVariant(f"seed: an integer 0 <= seed < 2**64, got {seed!r}")


GAMES = {PREFIX + name: OpenSpielGame(spec) for name, spec in CARD_GAMES.items()}
"""Every registered game by its arena name; the entry points name these objects."""

HEARTS = GAMES.get("openspiel:hearts")
BRIDGE = GAMES.get("openspiel:bridge")
SKAT = GAMES.get("openspiel:skat")
GIN_RUMMY = GAMES.get("openspiel:gin_rummy")
OH_HELL = GAMES.get("openspiel:oh_hell")
SPADES = GAMES.get("openspiel:spades")
EUCHRE = GAMES.get("openspiel:euchre")
DOU_DIZHU = GAMES.get("openspiel:dou_dizhu")
