"""Variants: the four presets of docs/rules.md section 5 and their options, as frozen values.

`variant("jensen")`, `variant({"preset": "grupp", "players": 6})` or
`variant("jensen", target=51)` all give a validated, hashable `Variant`. Everything the rules
derive from it (deck, values, points, deal pattern) is computed once and kept on the object.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any

from engine.zwicker import cards
from engine.errors import VariantError
from engine.zwicker.moves import Move

PRESETS = ("jensen", "huelsemann", "grossenwiehe", "grupp")
DEFAULT_PRESET = "jensen"

# What each preset fixes (docs/rules.md section 5). Options are the dataclass fields below.
_FIXED: dict[str, dict[str, Any]] = {
    "jensen": dict(
        min_players=2, max_players=4, jokers={"X15": 5, "X20": 6, "X25": 7}, dual=True,
        first_deal=(("hands", 4), ("table", 3)), subtraction=True, cap=None,
        builds_in_sums=False, must_capture=False, zwick=1, most_cards=3,
        points={"TD": 3, "TS": 1, "2S": 1, "AC": 1, "AD": 1, "AH": 1, "AS": 1},
        build_holder="self", two_packs_above=None,
    ),
    "huelsemann": dict(
        min_players=2, max_players=8, jokers={}, dual=False,
        first_deal=(("hands", 4), ("table", 4)), subtraction=False, cap=14,
        builds_in_sums=True, must_capture=True, zwick=3, most_cards=1,
        points={"TD": 10, "7D": 1, "7S": 1, "AC": 2, "AD": 2, "AH": 2, "AS": 2},
        build_holder="none", two_packs_above=4,
    ),
    "grossenwiehe": dict(
        min_players=2, max_players=6,
        jokers={"X15": 5, "X17": 7, "X20": 10, "X22": 12, "X25": 15, "X30": 20}, dual=True,
        first_deal=(("hands", 2), ("table", 5), ("hands", 2), ("table", 5)), subtraction=True,
        cap=None, builds_in_sums=False, must_capture=False, zwick=1, most_cards=3,
        points={"TD": 3, "TC": 1, "TH": 1, "TS": 1, "2S": 1, "AC": 1, "AD": 1, "AH": 1, "AS": 1},
        build_holder="none", two_packs_above=None,
    ),
    "grupp": dict(
        min_players=2, max_players=8, jokers={}, dual=False,
        first_deal=(("hands", 4), ("table", 4)), subtraction=False, cap=14,
        builds_in_sums=True, must_capture=True, zwick=3, most_cards=1,
        points={"TD": 10, "7D": 1, "7S": 1, "AC": 2, "AD": 2, "AH": 2, "AS": 2},
        build_holder="none", two_packs_above=4,
    ),
}
_GRUPP_ONLY = ("wild_jokers", "lone_joker_only_by_joker", "joker_sweep_no_zwick", "table_jokers_untakeable")
HOLDER_RULES = ("self", "partner", "none")


@dataclass(frozen=True)
class Variant:
    """A preset plus its options. `None` for an option means "the preset's default"."""

    preset: str = DEFAULT_PRESET
    players: int = 4
    target: int = 101
    build_holder: str | None = None
    must_take_maximal: bool = False
    table_jokers_in_sums: bool = True
    all_tens: bool = False
    wild_jokers: int | None = None
    lone_joker_only_by_joker: bool = False
    joker_sweep_no_zwick: bool = False
    table_jokers_untakeable: bool = False
    # Derived facts, computed in __post_init__; not options, not compared.
    rules: "Rules" = field(default=None, init=False, repr=False, compare=False)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise VariantError(f"unknown preset {self.preset!r} (known: {', '.join(PRESETS)})")
        fixed = _FIXED[self.preset]
        if self.build_holder is None:
            object.__setattr__(self, "build_holder", fixed["build_holder"])
        if self.wild_jokers is None:
            object.__setattr__(self, "wild_jokers", 2 if self.preset == "grupp" else 0)
        _check_types(self)
        if not fixed["min_players"] <= self.players <= fixed["max_players"]:
            raise VariantError(
                f"players: {self.preset} is played by {fixed['min_players']} to "
                f"{fixed['max_players']} players, not {self.players}"
            )
        if self.target < 1:
            raise VariantError(f"target: must be at least 1, not {self.target}")
        if self.build_holder not in HOLDER_RULES:
            raise VariantError(f"build_holder: must be one of {', '.join(HOLDER_RULES)}, not {self.build_holder!r}")
        if self.all_tens and self.preset != "jensen":
            raise VariantError("all_tens: only the jensen preset has this option")
        if self.preset != "grupp":
            for name in _GRUPP_ONLY:
                default = 0 if name == "wild_jokers" else False
                if getattr(self, name) != default:
                    raise VariantError(f"{name}: only the grupp preset has this option")
        if self.wild_jokers < 0 or self.wild_jokers > 8:
            raise VariantError(f"wild_jokers: must be 0 to 8, not {self.wild_jokers}")
        rules = Rules(self)
        if self.build_holder == "partner" and not rules.partnerships:
            raise VariantError(f"build_holder: 'partner' needs partnerships, and {self.players} players of {self.preset} play alone")
        object.__setattr__(self, "rules", rules)

    # -- public conveniences -------------------------------------------------------------
    @property
    def num_sides(self) -> int:
        return self.rules.num_sides

    def side_of(self, seat: int) -> int:
        return self.rules.side_of[seat]

    def to_dict(self) -> dict[str, Any]:
        """Every option by name (plain data); `variant(v.to_dict()) == v`."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name != "rules"}

    def describe(self) -> dict[str, Any]:
        """Everything a bot needs to know about the rules, as plain data (sent in `hello`)."""
        r = self.rules
        return {
            **self.to_dict(),
            "partnerships": r.partnerships,
            "sides": r.num_sides,
            "seat_sides": list(r.side_of),
            "packs": r.packs,
            "deck": list(r.deck),
            "values": {c: list(r.values[c]) for c in r.distinct},
            "points": {c: p for c, p in r.points.items() if p},
            "most_cards": r.most_cards,
            "zwick": r.zwick,
            "hand_size": r.hand_size,
            "first_deal": [list(step) for step in r.first_deal],
            "subtraction": r.subtraction,
            "build_cap": r.cap,
            "build_values": sorted(r.build_values),
            "builds_in_sums": r.builds_in_sums,
            "must_capture": r.must_capture,
            "points_per_deal": r.fixed_total,
        }

    def __str__(self) -> str:
        changed = {k: v for k, v in self.to_dict().items() if k != "preset" and v != _default_of(self.preset, k)}
        return self.preset + "".join(f" {k}={_fmt(v)}" for k, v in changed.items())


def _fmt(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _default_of(preset: str, name: str) -> Any:
    if name == "build_holder":
        return _FIXED[preset]["build_holder"]
    if name == "wild_jokers":
        return 2 if preset == "grupp" else 0
    return next(f.default for f in dataclasses.fields(Variant) if f.name == name)


def _check_types(v: Variant) -> None:
    for f in dataclasses.fields(v):
        if f.name in ("rules", "preset", "build_holder"):
            continue
        value = getattr(v, f.name)
        want = int if f.name in ("players", "target", "wild_jokers") else bool
        if type(value) is not want:
            raise VariantError(f"{f.name}: expected {want.__name__}, got {value!r}")


class Rules:
    """What the rules derive from a variant, computed once (deck, values, points, limits)."""

    def __init__(self, v: Variant) -> None:
        fx = _FIXED[v.preset]
        self.players = n = v.players
        self.partnerships = n == 4 or (n == 6 and v.preset == "grossenwiehe")
        self.num_sides = 2 if self.partnerships else n
        self.side_of = tuple(s % 2 for s in range(n)) if self.partnerships else tuple(range(n))
        self.packs = 2 if fx["two_packs_above"] is not None and n > fx["two_packs_above"] else 1
        jokers = dict(fx["jokers"])
        joker_codes = tuple(sorted(jokers, key=lambda c: int(c[1:]))) + (cards.WILD,) * v.wild_jokers
        self.deck = tuple(c for _ in range(self.packs) for c in cards.pack(joker_codes))
        self.distinct = tuple(dict.fromkeys(self.deck))
        self.unique_codes = len(self.distinct) == len(self.deck)
        self.dual = fx["dual"]
        self.values = {c: cards.card_values(c, self.dual) for c in self.distinct}
        points = dict(fx["points"])
        if v.all_tens:
            points.update({"TC": 1, "TH": 1})
        points.update(jokers)
        self.points = {c: points.get(c, 0) for c in self.distinct}
        self.most_cards = fx["most_cards"]
        self.zwick = fx["zwick"]
        self.hand_size = 4
        self.first_deal = fx["first_deal"]
        self.subtraction = fx["subtraction"]
        self.cap = fx["cap"]
        matchable = {x for vals in self.values.values() for x in vals}
        self.build_values = frozenset(x for x in matchable if self.cap is None or x <= self.cap)
        self.builds_in_sums = fx["builds_in_sums"]
        self.must_capture = fx["must_capture"]
        # A loose card on the table: its values and whether it may join a sum group, or None
        # when it cannot be touched at all (grupp's untakeable jokers).
        self.loose_units = {
            c: None if c[0] == "X" and v.table_jokers_untakeable
            else (self.values[c], c[0] != "X" or v.table_jokers_in_sums)
            for c in self.distinct
        }
        self.trail_moves = {c: Move("trail", c) for c in self.distinct}
        self.value_bits = {c: sum(1 << x for x in self.values[c]) for c in self.distinct}
        # Per card, then per unit values: what it may announce (a bitset; engine.moves).
        self.build_cache: dict = {}
        self.fixed_total = sum(self.points[c] for c in self.deck) + self.most_cards
        dealt = sum(k * (n if where == "hands" else 1) for where, k in self.first_deal)
        if dealt > len(self.deck):
            raise VariantError(f"players: {n} players need {dealt} cards for the first deal, the deck has {len(self.deck)}")


def variant(spec: "str | dict[str, Any] | Variant | None" = None, **overrides: Any) -> Variant:
    """A validated Variant from a preset name, an option dict or a Variant, plus keyword options."""
    if isinstance(spec, Variant):
        return dataclasses.replace(spec, **_check_names(overrides)) if overrides else spec
    if spec is None:
        options: dict[str, Any] = {}
    elif isinstance(spec, str):
        options = {"preset": spec}
    elif isinstance(spec, dict):
        options = dict(spec)
    else:
        raise VariantError(f"variant: expected a preset name, a dict or a Variant, got {type(spec).__name__}")
    options.update(overrides)
    options.setdefault("preset", DEFAULT_PRESET)
    try:
        key = tuple(sorted(options.items()))
        hash(key)
    except TypeError:
        return Variant(**_check_names(options))
    return _cached_variant(key)


@functools.lru_cache(maxsize=256)
def _cached_variant(key: tuple) -> Variant:
    """Variants are frozen, so equal option sets share one object (and its derived rules)."""
    return Variant(**_check_names(dict(key)))


def _check_names(options: dict[str, Any]) -> dict[str, Any]:
    known = [f.name for f in dataclasses.fields(Variant) if f.name != "rules"]
    for name in options:
        if name not in known:
            raise VariantError(f"unknown option {name!r} (known: {', '.join(known)})")
    return options
