"""Zwicker behind the games interface: a thin adapter over the rules engine in `engine/`.

The engine keeps its own API (`zwicker.deal`, `State.from_dict`, ...); this module only renames
and wraps: a `State` here holds an `zwicker.State` and lists its moves as `(moves, complete)`,
checks a move a bot named (the capture-value rule: a capture named with a value keeps it, so
the deal's move list records what was announced), and gives results as `games.Result`. A board
is one deal (format "deal") or a game to the target (format "game", docs/rules.md section 6,
with a safety net of MAX_GAME_DEALS deals). The data forms are docs/rules.md's: positions and
moves (section 8), a deal's result (its breakdown per side, section 5) and a board's result
(section 6).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engine import zwicker
from engine.zwicker import moves as _moves
from engine.errors import EngineError
from engine.zwicker.moves import Build, unit_cards
from engine.zwicker.notation import unit_text
from games.api import BadPosition, BadVariant, IllegalMove, Info, Json, Layout, Result
from games.encoding import one_hot

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "bots" / "zwicker"

MAX_GAME_DEALS = 60  # a safety net: a game to 101 takes 4 to 10 deals

FORMATS = ("deal", "game")

INFO = Info(name="zwicker", version=zwicker.__version__, title="Zwicker", min_players=2, max_players=8,
            formats=FORMATS, utility="general_sum", unit="points", max_moves_per_deal=None,
            presets=tuple(zwicker.PRESETS))


class State:
    """One Zwicker deal behind the interface; `engine` is the engine's own state."""

    __slots__ = ("engine",)
    engine: zwicker.State

    def __init__(self, state: zwicker.State) -> None:
        object.__setattr__(self, "engine", state)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("State is immutable: apply a move to get a new state")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.engine == other.engine

    def __hash__(self) -> int:
        return hash(self.engine)

    def __repr__(self) -> str:
        return repr(self.engine)

    @property
    def variant(self) -> zwicker.Variant:
        return self.engine.variant

    @property
    def to_move(self) -> int | None:
        s = self.engine
        return None if s.is_over else s.to_move

    @property
    def is_over(self) -> bool:
        return self.engine.is_over

    def legal_moves(self, limit: int | None = None) -> tuple[list[zwicker.Move], bool]:
        """Captures, then builds, then trails (docs/rules.md section 8); with a `limit`, at most
        about that many captures per card value, and whether that is all of them."""
        if limit is None:
            return self.engine.legal_moves(), True
        return self.engine.listed_moves(limit)

    def check(self, move: Json) -> zwicker.Move:
        """The move a bot named, checked by the rules themselves (not against a maybe cut list).
        A capture named with a value comes back with it; one without, with the lowest legal value."""
        if self.engine.is_over:
            raise IllegalMove("the deal is over")
        try:
            named = zwicker.Move.from_dict(move)
            checked = _moves.check(self.engine, named)
        except EngineError as exc:
            raise IllegalMove(str(exc)) from None
        return named if named.type == "capture" and named.value is not None else checked

    def apply(self, move: zwicker.Move | Json) -> "State":
        try:
            return State(self.engine.apply(move))
        except EngineError as exc:
            raise IllegalMove(str(exc)) from None

    def observation(self, seat: int, *, moves: bool = True) -> Json:
        return self.engine.observation(seat, moves=moves)

    def result(self) -> Result:
        """Per seat its side's points, per side the points, detail the breakdown per side."""
        s = self.engine
        detail = s.breakdown()
        sides = tuple(side["total"] for side in detail)
        return Result(tuple(sides[k] for k in s.variant.rules.side_of), sides, detail)

    def to_dict(self) -> Json:
        return self.engine.to_dict()

    def text(self, seat: int | None = None) -> str:
        """A frame of text: the table, the stock, the piles, every hand (or only `seat`'s)."""
        state = self.engine
        table = " ".join(unit_text(u) for u in state.table) or "-"
        lines = [f"table: {table}   stock: {len(state.stock)}   taken: {[len(t) for t in state.taken]}"
                 f"   zwicks: {list(state.zwicks)}"]
        for s, hand in enumerate(state.hands):
            if seat is None or s == seat:
                mark = " <- to move" if s == state.to_move and not state.is_over else ""
                lines.append(f"  hand {s}: {' '.join(hand) or '-'}{mark}")
            else:
                lines.append(f"  hand {s}: {len(hand)} cards")
        return "\n".join(lines)

    def frame(self, before: "State | None" = None, move: Any = None) -> Json:
        """What the replay viewer draws of this position (every hand; the viewer hides the
        others' for one seat's view) and, given the state `before` and the `move` that led here,
        that move with the cards it took."""
        state = self.engine
        rules = state.variant.rules
        out: dict[str, Any] = {
            # each side's card points and Zwick points so far (the most-cards bonus comes at the end)
            "points": [sum(rules.points[c] for c in pile) + z * rules.zwick
                       for pile, z in zip(state.taken, state.zwicks)],
            "hands": [list(h) for h in state.hands],
            "table": [_unit(u) for u in state.table],
            "stock": len(state.stock),
            "taken": [len(t) for t in state.taken],
            "zwicks": list(state.zwicks),
            "to_move": None if state.is_over else state.to_move,
            "over": state.is_over,
        }
        if before is not None and move is not None:
            prev = before.engine
            move = move if isinstance(move, zwicker.Move) else zwicker.Move.from_dict(move)
            took = [list(unit_cards(prev.table[i])) for i in move.take] if move.type == "capture" else []
            onto = list(unit_cards(prev.table[move.onto])) if move.type == "build" else None
            captured = 1 + sum(map(len, took)) if move.type == "capture" else 0
            leftovers = sum(map(len, state.taken)) - sum(map(len, prev.taken)) - captured
            out["move"] = {
                "text": str(move), "type": move.type, "card": move.card,
                "value": move.value, "take": list(move.take), "took": took, "onto": move.onto, "onto_cards": onto,
                "sum": _build_sum(prev, move) if move.type == "build" else None,
                "zwick": move.type == "capture" and not state.table and state.zwicks != prev.zwicks,
                # at the end the cards still on the table go to the side that captured last
                "leftovers": leftovers, "leftovers_to": state.last_capture if leftovers else None,
            }
        return out


def _build_sum(state: zwicker.State, move: zwicker.Move) -> str | None:
    """How a build's announced value comes about: `4 + 3 = 7`, or for a subtraction build
    `20 − 13 = 7` (the unit's value, then the card's)."""
    rules = state.variant.rules
    assert move.onto is not None
    unit = state.table[move.onto]
    unit_vals = (unit.value,) if isinstance(unit, Build) else rules.values[unit]
    for b in unit_vals:
        for a in rules.values[move.card]:
            if a + b == move.value:
                return f"{b} + {a} = {move.value}"
    for b in unit_vals:
        for a in rules.values[move.card]:
            if b - a == move.value:
                return f"{b} \u2212 {a} = {move.value}"
    return None


def _unit(unit: Any) -> Any:
    if type(unit) is Build:
        return {"build": list(unit.cards), "value": unit.value, "by": unit.by}
    return unit


class Board:
    """A board: one deal ("deal") or deals to the target ("game"). A frozen value."""

    __slots__ = ("variant", "format", "seed", "first_dealer", "totals", "deals", "_game")
    variant: zwicker.Variant
    format: str
    seed: int
    first_dealer: int
    totals: tuple[int, ...]
    deals: tuple[Json, ...]
    _game: zwicker.Board | None

    def __init__(self, variant: zwicker.Variant, format: str, seed: int, first_dealer: int,
                 totals: tuple[int, ...], deals: tuple[Json, ...]) -> None:
        set_ = object.__setattr__
        set_(self, "variant", variant)
        set_(self, "format", format)
        set_(self, "seed", seed)
        set_(self, "first_dealer", first_dealer)
        set_(self, "totals", totals)
        set_(self, "deals", deals)  # every finished deal's result (its breakdown), in order
        set_(self, "_game", zwicker.Board(variant, seed, first_dealer, totals, len(deals)) if format == "game" else None)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("Board is immutable: `after` gives the next one")

    @property
    def deals_played(self) -> int:
        return len(self.deals)

    @property
    def is_over(self) -> bool:
        if self._game is None:
            return len(self.deals) >= 1
        return self._game.is_over or len(self.deals) >= MAX_GAME_DEALS

    @property
    def deal_seed(self) -> int:
        """The next deal's seed (stored with it)."""
        return self.seed if self._game is None else self._game.deal_seed

    @property
    def dealer(self) -> int:
        """The next deal's dealer (stored with it)."""
        return self.first_dealer if self._game is None else self._game.dealer

    def deal(self) -> State:
        if self.is_over:
            raise IllegalMove("the board is over")
        return State(zwicker.deal(self.variant, self.deal_seed, self.dealer))

    def after(self, final: State) -> "Board":
        if self.is_over:
            raise IllegalMove("the board is over")
        if not final.is_over:
            raise IllegalMove("the deal is not over")
        detail = final.engine.breakdown()
        totals = tuple(t + side["total"] for t, side in zip(self.totals, detail))
        return Board(self.variant, self.format, self.seed, self.first_dealer, totals, self.deals + (detail,))

    def carry(self) -> Json:
        """Nothing: a Zwicker deal starts from its seed and dealer alone (the totals only decide
        when a game ends)."""
        return None

    def result(self) -> Result:
        """Per seat its side's points, per side the board's points; detail the board's result
        form (docs/rules.md section 6)."""
        if not self.is_over:
            raise IllegalMove("the board is not over")
        rules = self.variant.rules
        seats = tuple(self.totals[k] for k in rules.side_of)
        best = max(self.totals)
        winner = self.totals.index(best) if self.totals.count(best) == 1 else None
        detail = {"format": self.format, "points": list(seats), "sides": list(self.totals),
                  "winner": winner, "deals": [list(d) for d in self.deals]}
        return Result(seats, self.totals, detail)


class ZwickerGame:
    """The Zwicker game (docs/rules.md), registered as `games.game("zwicker")`."""

    info = INFO
    reference_bots = {name: BOTS / f"{name}_bot.py"
                      for name in ("random", "greedy", "sweeper", "builder", "first", "heuristic", "mc")}
    anchor = "random"
    modules = (ROOT / "engine", ROOT / "bots" / "botkit.py")
    viewer = Path(__file__).with_name("viewer.js")  # draws its replays and live tables in the pages
    docs = (ROOT / "docs/rules.md", Path(__file__).with_name("protocol.md"))  # its rules, its messages

    def variant(self, spec: str | Mapping[str, Any] | zwicker.Variant | None = None) -> zwicker.Variant:
        """A preset (`jensen`), a preset and options (`jensen:target=51,all_tens=true`; values read
        as JSON, else as text), options alone on the default preset (`target=51`), a JSON object
        or a dict of options (`{"preset": "jensen", "target": 51}`)."""
        try:
            if isinstance(spec, zwicker.Variant) or spec is None:
                return zwicker.variant(spec)
            if isinstance(spec, Mapping):
                options: dict[str, Any] = dict(spec)
                if options.get("game", "zwicker") != "zwicker":
                    raise BadVariant(f"not a variant of zwicker: game {options['game']!r}")
                options.pop("game", None)
                return zwicker.variant(options)
            if not isinstance(spec, str):
                raise BadVariant(f"variant: expected a preset name or options, got {type(spec).__name__}")
            text = spec.strip()
            if not text:
                return zwicker.variant()
            if text.startswith("{"):
                try:
                    data = json.loads(text)
                except json.JSONDecodeError as exc:
                    raise BadVariant(f"not valid JSON: {exc}") from None
                if not isinstance(data, dict):
                    raise BadVariant(f"expected a JSON object, got {type(data).__name__}")
                return self.variant(data)
            preset, sep, rest = text.partition(":")
            if "=" in preset:
                preset, rest = "", text
            options = {}
            for item in filter(None, rest.split(",")):
                key, eq, raw = item.partition("=")
                if not eq:
                    raise BadVariant(f"expected option=value, got {item!r} (e.g. jensen:target=51)")
                raw = raw.strip()
                try:
                    value: Any = json.loads(raw.lower() if raw.lower() in ("true", "false", "null") else raw)
                except json.JSONDecodeError:
                    value = raw
                options[key.strip()] = value
            return zwicker.variant(preset.strip() or None, **options)
        except BadVariant:
            raise
        except (ValueError, TypeError) as exc:
            raise BadVariant(str(exc)) from None

    def layout(self, variant: zwicker.Variant) -> Layout:
        return _layout(variant)

    def encoding_size(self, described: Json) -> int:
        """`encode`'s length: four counts per distinct card of the deck, two per build value, eight more."""
        return 4 * len(_card_index(tuple(described["deck"]))) + 2 * len(described["build_values"]) + 8

    def encode(self, described: Json, observation: Json) -> list[float]:
        """A seat's observation as numbers (games/encoding.py): per distinct card its count in
        the hand, loose on the table, in a build on the table, played in this deal so far; per
        build value the builds of the seat's side and of the others; then the stock, the seat's
        side's and the others' captured cards and Zwicks, whether its side captured last, and
        the cards left in the hands of the seat, its partners and the others."""
        cards = _card_index(tuple(described["deck"]))
        values = {v: k for k, v in enumerate(described["build_values"])}
        seat, side, sides = observation["seat"], observation["side"], described["seat_sides"]
        loose = [u for u in observation["table"] if not isinstance(u, dict)]
        builds = [u for u in observation["table"] if isinstance(u, dict)]
        ours = [0.0] * (2 * len(values))
        for b in builds:
            k = values.get(b["value"])
            if k is not None:
                ours[2 * k + (sides[b["by"]] != side)] += 1.0
        deck = float(len(described["deck"]))
        taken, zwicks = observation["taken"], observation["zwicks"]
        hand_size = float(described["hand_size"])
        sizes = observation["hand_sizes"]
        partners = sum(n for s, n in enumerate(sizes) if s != seat and sides[s] == side)
        others = sum(n for s, n in enumerate(sizes) if sides[s] != side)
        return [*one_hot(cards, observation["hand"]), *one_hot(cards, loose),
                *one_hot(cards, (c for b in builds for c in b["build"])),
                *one_hot(cards, (m["card"] for m in observation.get("moves", ()) if "card" in m)),
                *ours, observation["stock"] / deck, taken[side] / deck, (sum(taken) - taken[side]) / deck,
                float(zwicks[side]), float(sum(zwicks) - zwicks[side]),
                float(observation["last_capture"] is not None and sides[observation["last_capture"]] == side),
                (sizes[seat] + partners) / hand_size, others / hand_size]

    def describe(self, variant: zwicker.Variant) -> Json:
        """hello.variant: every option, what the rules derive from them, and the game's name."""
        return {**variant.describe(), "game": "zwicker"}

    def _format(self, format: str | None) -> str:
        if format is None:
            return FORMATS[0]
        if format not in FORMATS:
            raise BadVariant(f"format: zwicker plays {' or '.join(FORMATS)}, not {format!r}")
        return format

    def board(self, variant: zwicker.Variant, seed: int, first_dealer: int = 0, format: str | None = None) -> Board:
        return self.resume(variant, seed, first_dealer, format, 0, None)

    def resume(self, variant: zwicker.Variant, seed: int, first_dealer: int, format: str | None,
               deal_no: int, carry: Json) -> Board:
        """The board just before deal `deal_no`: its deal is rebuilt exactly (a Zwicker deal
        depends on its seed and dealer alone); the totals of the deals before are not kept."""
        fmt = self._format(format)
        try:
            zwicker.Board.new(variant, seed, first_dealer)  # checks the seed and the dealer
        except EngineError as exc:
            raise BadVariant(str(exc)) from None
        if type(deal_no) is not int or deal_no < 0 or fmt == "deal" and deal_no > 0:
            raise BadVariant(f"deal_no: no deal {deal_no!r} in a board of format {fmt}")
        n = variant.num_sides
        empty = [{"cards": 0, "point_cards": [], "card_points": 0, "most_cards": 0, "zwicks": 0,
                  "zwick_points": 0, "total": 0}] * n
        return Board(variant, fmt, seed, first_dealer, (0,) * n, (empty,) * deal_no)

    def deal(self, variant: zwicker.Variant, seed: int, dealer: int, carry: Json = None) -> State:
        """One deal alone, as storage keeps it: the seed and dealer its board gave it."""
        try:
            return State(zwicker.deal(variant, seed, dealer))
        except EngineError as exc:
            raise BadPosition(str(exc)) from None

    def forfeit(self, variant: zwicker.Variant, format: str | None, seat: int, deals: int = 1) -> Result:
        """A table forfeited by `seat` (protocol.md, "Faults"): its side scores 0, every other
        side the variant's points per deal without Zwicks for each deal the table was to play
        (format "deal"), or the target (format "game")."""
        fmt = self._format(format)
        layout = _layout(variant)
        side = layout.side_of(seat)
        award = variant.target if fmt == "game" else variant.describe()["points_per_deal"] * deals
        sides = tuple(0 if s == side else award for s in range(layout.num_sides))
        seats = tuple(sides[layout.side_of(s)] for s in range(layout.players))
        return Result(seats, sides, {"format": fmt, "points": list(seats), "sides": list(sides),
                                     "winner": None, "deals": [], "forfeit": {"seat": seat, "side": side}})

    def state_from_dict(self, position: Json) -> State:
        try:
            return State(zwicker.State.from_dict(position))
        except (EngineError, TypeError) as exc:
            raise BadPosition(str(exc)) from None

    def move_from_dict(self, move: Json) -> zwicker.Move:
        try:
            return zwicker.Move.from_dict(move)
        except EngineError as exc:
            raise IllegalMove(str(exc)) from None

    def parse_move(self, text: str, state: State | None = None) -> zwicker.Move:
        try:
            return zwicker.parse_move(text)
        except EngineError as exc:
            raise IllegalMove(str(exc)) from None


@functools.lru_cache(maxsize=64)
def _card_index(deck: tuple[str, ...]) -> dict[str, int]:
    return {c: k for k, c in enumerate(dict.fromkeys(deck))}


@functools.lru_cache(maxsize=256)
def _layout(variant: zwicker.Variant) -> Layout:
    side_of = variant.rules.side_of
    return Layout(variant.players, tuple(tuple(s for s in range(variant.players) if side_of[s] == k)
                                         for k in range(variant.num_sides)))


GAME = ZwickerGame()
