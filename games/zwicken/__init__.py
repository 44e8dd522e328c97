"""Zwicken as a game of the arena: `GAME` implements `games.api.Game` over `engine/zwicken`.

Every seat is its own side; results are chips, zero-sum over a board. A board is a session of
deals (format "session", docs/zwicken-rules.md section 6): each of its attempts, counted or not,
is one `State` the arena plays and stores, and `Board.carry()` is what the next one starts from,
so `GAME.resume(...)` rebuilds one stored attempt alone. An observation is always the whole form
of section 10 (an attempt has at most 1 + 4n moves, so `moves=False` leaves nothing out).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from engine import zwicken as zw
from engine.zwicken.variant import MAX_PLAYERS
from games.api import BadPosition, BadVariant, GameError, IllegalMove, Info, Json, Layout, Result
from games.encoding import one_hot

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "bots" / "zwicken"

FORMATS = ("session",)
_PACK_INDEX = {c: k for k, c in enumerate(zw.PACK)}


@contextlib.contextmanager
def _errors() -> Iterator[None]:
    """The rules' errors as the interface's (one clear line each)."""
    try:
        yield
    except zw.VariantError as exc:
        raise BadVariant(str(exc)) from None
    except zw.PositionError as exc:
        raise BadPosition(str(exc)) from None
    except zw.IllegalMove as exc:
        raise IllegalMove(str(exc)) from None
    except zw.EngineError as exc:
        raise GameError(str(exc)) from None


def _format(format: str | None) -> str:
    if format not in (None, *FORMATS):
        raise GameError(f"format: zwicken boards are {', '.join(FORMATS)}, not {format!r}")
    return FORMATS[0]


class ZwickenState:
    """One attempt, a frozen value (wraps `engine.zwicken.State`, which `.rules` gives)."""

    __slots__ = ("rules",)
    rules: zw.State

    def __init__(self, rules: zw.State) -> None:
        object.__setattr__(self, "rules", rules)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ZwickenState is immutable")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ZwickenState) and self.rules == other.rules

    def __hash__(self) -> int:
        return hash(self.rules)

    @property
    def to_move(self) -> int | None:
        return self.rules.to_move

    @property
    def is_over(self) -> bool:
        return self.rules.is_over

    def legal_moves(self, limit: int | None = None) -> tuple[list[zw.Move], bool]:
        """Section 4's list, never cut (at most three cards)."""
        return self.rules.legal_moves(), True

    def check(self, move: Json) -> zw.Move:
        with _errors():
            m = move if isinstance(move, zw.Move) else zw.Move.from_dict(move)
            if m not in self.rules.legal_moves():
                raise zw.IllegalMove(f"{m}: not legal for seat {self.rules.to_move} "
                                     f"(legal: {' '.join(map(str, self.rules.legal_moves())) or 'none'})")
            return m

    def apply(self, move: zw.Move | Json) -> "ZwickenState":
        with _errors():
            return ZwickenState(self.rules.apply(move))

    def observation(self, seat: int, *, moves: bool = True) -> Json:
        with _errors():
            return zw.observe(self.rules, seat)

    def result(self) -> Result:
        r = self.rules.result
        if r is None:
            raise GameError("the attempt is not over")
        net = tuple(r.net)
        return Result(seats=net, sides=net, detail=r.to_dict())

    def to_dict(self) -> Json:
        return zw.to_dict(self.rules)

    def text(self, seat: int | None = None) -> str:
        return zw.position_text(self.rules, seat)

    def frame(self, before: "ZwickenState | None" = None, move: Any = None) -> Json:
        """What a viewer draws of this attempt: the position's public keys, every hand but a
        passed one (a passed hand is never shown, not even after the deal), the stock as its
        size; with `before` and `move`, the move that led here in its plain and text forms."""
        p = zw.to_dict(self.rules)
        hands = [[] if d == "pass" else list(h) for h, d in zip(p["hands"], p["decisions"])]
        out: dict[str, Any] = {k: p[k] for k in ("dealer", "phase", "to_move", "method", "turned", "exposed",
                                                  "trump", "stake", "pot", "balances", "decisions", "leader",
                                                  "trick", "tricks")}
        out.update(hands=hands, hand_sizes=[len(h) for h in p["hands"]], stock=len(p["stock"]),
                   over=self.rules.is_over)
        if before is not None and move is not None:
            m = move if isinstance(move, zw.Move) else zw.Move.from_dict(move)
            out["move"] = {"text": str(m), **m.to_dict()}
        return out


class ZwickenBoard:
    """A session of deals (wraps `engine.zwicken.Board`, which `.rules` gives)."""

    __slots__ = ("rules",)
    rules: zw.Board

    def __init__(self, rules: zw.Board) -> None:
        object.__setattr__(self, "rules", rules)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ZwickenBoard is immutable")

    @property
    def is_over(self) -> bool:
        return self.rules.is_over

    @property
    def deals_played(self) -> int:
        return self.rules.deals_played

    @property
    def deal_seed(self) -> int:
        """The next attempt's shuffle seed (section 8), stored with it."""
        return self.rules.shuffle_seed()

    @property
    def dealer(self) -> int:
        return self.rules.dealer

    def deal(self) -> ZwickenState:
        with _errors():
            return ZwickenState(self.rules.deal())

    def after(self, final: ZwickenState) -> "ZwickenBoard":
        with _errors():
            return ZwickenBoard(self.rules.after(final.rules))

    def carry(self) -> Json:
        return self.rules.carry()

    def result(self) -> Result:
        with _errors():
            detail = self.rules.result()
        balances = tuple(detail["balances"])
        return Result(seats=balances, sides=balances, detail=detail)


class ZwickenGame:
    info = Info(name="zwicken", version=zw.__version__, title="Zwicken", min_players=2,
                max_players=MAX_PLAYERS, formats=FORMATS,
                utility="zero_sum", unit="chips", max_moves_per_deal=1 + 4 * 10,
                presets=tuple(zw.PRESETS))
    reference_bots = {"zwicken_random": BOTS / "zwicken_random_bot.py", "zwicken_rule": BOTS / "zwicken_rule_bot.py",
                      "zwicken_mc": BOTS / "zwicken_mc_bot.py"}
    anchor = "zwicken_random"
    modules = (ROOT / "engine", ROOT / "bots" / "botkit.py", BOTS / "zwicken_kit.py")
    viewer = Path(__file__).with_name("viewer.js")  # draws its replays and live tables in the pages
    docs = (ROOT / "docs" / "zwicken-rules.md", Path(__file__).with_name("protocol.md"))  # its rules, its messages

    def variant(self, spec: str | Mapping[str, Any] | zw.Variant | None = None) -> zw.Variant:
        with _errors():
            if isinstance(spec, Mapping):
                spec = dict(spec)
                named = spec.pop("game", "zwicken")
                if named != "zwicken":
                    raise zw.VariantError(f"game: this is zwicken, not {named!r}")
            elif isinstance(spec, str):
                head, sep, rest = spec.strip().partition(":")
                if head.strip().lower() == "zwicken":
                    spec = rest if sep else None
                if spec is not None and spec.strip().startswith("{"):  # a JSON object, as every game takes
                    try:
                        options = json.loads(spec)
                    except json.JSONDecodeError as exc:
                        raise zw.VariantError(f"not a JSON object: {exc}") from None
                    if not isinstance(options, dict):
                        raise zw.VariantError("not a JSON object")
                    return self.variant(options)
                if spec is not None and ":" in spec:  # preset:options, as Zwicker's: the same as preset,options
                    head, _, rest = spec.partition(":")
                    spec = f"{head},{rest}" if rest.strip() else head
            return zw.variant(spec)

    def layout(self, variant: zw.Variant) -> Layout:
        return Layout(variant.players, tuple((s,) for s in range(variant.players)))

    def encoding_size(self, described: Json) -> int:
        """`encode`'s length: five counts per card of the pack, the trump suit, the phase, five per seat, four more."""
        return 5 * len(zw.PACK) + len(zw.SUITS) + 4 + 5 * MAX_PLAYERS + 4

    def encode(self, described: Json, observation: Json) -> list[float]:
        """A seat's observation as numbers (games/encoding.py): per card of the pack whether it
        is in the hand, the turned card, the exposed card, in the current trick, played in an
        earlier trick; the trump suit; the phase; per seat counted from this one (up to the most
        players) whether it sits at the table, plays, passed, its tricks and its balance in
        stakes; then the pot and the stake in stakes, the cards left in the stock, and whether
        this seat leads."""
        obs = observation
        n, seat = described["players"], obs["seat"]
        stake = float(obs["stake"] or described["stake"] or 1)
        played = [c for t in obs.get("tricks_played", ()) for _, c in t["cards"]]
        seats: list[float] = []
        for k in range(MAX_PLAYERS):
            s = (seat + k) % n
            here = k < n
            decision = obs["decisions"][s] if here else None
            seats += [float(here), float(decision == zw.PLAY), float(decision == zw.PASS),
                      float(obs["tricks"][s]) if here else 0.0, obs["balances"][s] / stake if here else 0.0]
        return [*one_hot(_PACK_INDEX, obs["hand"]), *one_hot(_PACK_INDEX, [obs["turned"]] if obs["turned"] else []),
                *one_hot(_PACK_INDEX, [obs["exposed"]] if isinstance(obs["exposed"], str) else []),
                *one_hot(_PACK_INDEX, (c for _, c in obs["trick"])), *one_hot(_PACK_INDEX, played),
                *(float(obs["trump"] == suit) for suit in zw.SUITS),
                *(float(obs["phase"] == phase) for phase in ("trump", "decide", "trick", "over")),
                *seats, obs["pot"] / stake, obs["stake"] / stake, obs["stock"] / len(zw.PACK),
                float(obs["leader"] == seat)]

    def describe(self, variant: zw.Variant) -> Json:
        """hello.variant: the variant's plain dict with "game"."""
        return {"game": "zwicken", **variant.to_dict()}

    def board(self, variant: zw.Variant, seed: int, first_dealer: int = 0, format: str | None = None) -> ZwickenBoard:
        _format(format)
        with _errors():
            return ZwickenBoard(zw.Board.new(variant, seed, first_dealer))

    def resume(self, variant: zw.Variant, seed: int, first_dealer: int, format: str | None,
               deal_no: int, carry: Json) -> ZwickenBoard:
        """The board just before its stored deal (attempt) `deal_no`, from that deal's carry;
        its observations' `history` then starts there."""
        _format(format)
        with _errors():
            if carry is None:
                if deal_no != 0:
                    raise zw.EngineError("carry: needed to resume a board after its first deal")
                return ZwickenBoard(zw.Board.new(variant, seed, first_dealer))
            return ZwickenBoard(zw.Board.resume(variant, seed, first_dealer, carry, deal_no))

    def deal(self, variant: zw.Variant, seed: int, dealer: int, carry: Json = None) -> ZwickenState:
        """One stored attempt alone: its shuffle seed and dealer, and the board's carry before it
        (None: a board's first attempt). Its observations' `history` is empty: the earlier
        attempts are not part of one deal."""
        with _errors():
            c: dict[str, Any] = carry if carry is not None else {"deal": 0, "attempt": 0, "pot": 0, "playout": False,
                                                 "balances": [0] * variant.players}
            try:
                return ZwickenState(zw.deal(variant, seed, dealer, deal_no=c["deal"], attempt=c["attempt"],
                                               playout=bool(c.get("playout", False)), carry_in=c["pot"],
                                               balances=tuple(c["balances"]), history=()))
            except (KeyError, TypeError):
                raise zw.EngineError(f"carry: expected deal, attempt, balances, pot: {carry!r}") from None

    def forfeit(self, variant: zw.Variant, format: str | None, seat: int, deals: int = 1) -> Result:
        """Section 6: the faulting seat pays `forfeit` chips to every other seat."""
        _format(format)
        if type(seat) is not int or not 0 <= seat < variant.players:
            raise GameError(f"seat: must be 0..{variant.players - 1}, got {seat!r}")
        detail = zw.forfeit_result(variant, seat)
        balances = tuple(detail["balances"])
        return Result(seats=balances, sides=balances, detail=detail)

    def state_from_dict(self, position: Json) -> ZwickenState:
        with _errors():
            return ZwickenState(zw.from_dict(position))

    def move_from_dict(self, move: Json) -> zw.Move:
        with _errors():
            return zw.Move.from_dict(move)

    def parse_move(self, text: str, state: ZwickenState) -> zw.Move:
        """A text form (`schleck`, `play`, `KE`) as a move legal in `state`."""
        with _errors():
            return state.check(zw.parse_move(text))


GAME = ZwickenGame()
