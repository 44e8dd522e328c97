"""Variants: the presets `bayern`, `ohne_welli`, `scharf` and every option of
docs/zwicken-rules.md section 7, as frozen, validated, hashable values.

`variant("scharf")`, `variant({"preset": "bayern", "players": 5})`, `variant("players=5,welli=false")`
or `variant("bayern", stake=6)` all give a `Variant`. Options whose default names another option
(`deals`, `playout_max`, `max_hops` follow `players`; `zwick_limit` follows `stake`; `forfeit`
follows `zwick_limit`) are resolved after the overrides, so `{"stake": 6}` has `zwick_limit` 384.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engine.errors import VariantError

PRESETS = ("bayern", "ohne_welli", "scharf")
DEFAULT_PRESET = "bayern"
MAX_PLAYERS = 10  # 3n <= 30 keeps the Schlecken card and the cut card in the stock

# What each preset changes from the defaults of the dataclass below (section 7).
_PRESET_OPTIONS: dict[str, dict[str, Any]] = {
    "bayern": {},
    "ohne_welli": {"welli": False},
    "scharf": {"cut": "hop", "rundherum": True, "blindes": True},
}
_CHOICES = {
    "dealer_no_trump": ("carry", "pay"),
    "lone_player": ("wins", "dealer_defends"),
    "close": ("playout", "split"),
    "cut": ("none", "hop", "table"),
}
_DERIVED = ("zwick_limit", "deals", "playout_max", "forfeit", "max_hops")


@dataclass(frozen=True)
class Variant:
    """A preset plus its options, every one resolved (None only before __post_init__)."""

    preset: str = DEFAULT_PRESET
    players: int = 4
    stake: int = 3
    welli: bool = True
    dealer_looks: bool = False
    must_trump: bool = True
    must_overtrump: bool = False
    must_head: bool = False
    dealer_no_trump: str = "carry"
    lone_player: str = "wins"
    zwick_limit: int | None = None    # default 64 x stake
    deals: int | None = None          # default players
    close: str = "playout"
    playout_max: int | None = None    # default players
    forfeit: int | None = None        # default zwick_limit
    cut: str = "none"
    rundherum: bool = False
    blindes: bool = False
    single_stake_all_play: bool = False
    max_hops: int | None = None       # default players

    def __post_init__(self) -> None:
        if self.preset not in PRESETS:
            raise VariantError(f"unknown preset {self.preset!r} (known: {', '.join(PRESETS)})")
        _check_int(self, "players", 2)
        if self.players > MAX_PLAYERS:
            raise VariantError(f"players: Zwicken is played by 2 to {MAX_PLAYERS}, not {self.players}")
        _check_int(self, "stake", 3, multiple=3)
        derived = {
            "zwick_limit": 64 * self.stake, "deals": self.players,
            "playout_max": self.players, "max_hops": self.players,
        }
        for name, value in derived.items():
            if getattr(self, name) is None:
                object.__setattr__(self, name, value)
        if self.forfeit is None:
            _check_int(self, "zwick_limit", 3, multiple=3)
            object.__setattr__(self, "forfeit", self.zwick_limit)
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            if f.name in _CHOICES:
                if value not in _CHOICES[f.name]:
                    raise VariantError(f"{f.name}: must be one of {', '.join(_CHOICES[f.name])}, not {value!r}")
            elif f.type == "bool" and type(value) is not bool:
                raise VariantError(f"{f.name}: expected true or false, got {value!r}")
        _check_int(self, "zwick_limit", 3, multiple=3)
        _check_int(self, "deals", 1)
        _check_int(self, "playout_max", 0)
        _check_int(self, "forfeit", 0)
        _check_int(self, "max_hops", 0)

    def to_dict(self) -> dict[str, Any]:
        """`preset` and every option by name, in section 7's order (plain data)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}

    def __str__(self) -> str:
        """The short form: the preset, then the options that differ from its defaults."""
        base = variant(self.preset, players=self.players) if self.players != 4 else variant(self.preset)
        changed = [f"{k}={_fmt(v)}" for k, v in self.to_dict().items()
                   if k not in ("preset", "players") and v != getattr(base, k)]
        if self.players != 4:
            changed.insert(0, f"players={self.players}")
        return ",".join([self.preset] + changed)


def _fmt(value: Any) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _check_int(v: Variant, name: str, least: int, multiple: int = 1) -> None:
    value = getattr(v, name)
    if type(value) is not int:
        raise VariantError(f"{name}: expected an integer, got {value!r}")
    if value < least or value % multiple:
        what = f"a multiple of {multiple} of at least {least}" if multiple > 1 else f"at least {least}"
        raise VariantError(f"{name}: must be {what}, not {value}")


_OPTION_NAMES = tuple(f.name for f in dataclasses.fields(Variant))


def _parse_text(text: str) -> dict[str, Any]:
    """`"scharf,players=5"`, `"players=5 welli=false"`, `"bayern"`: a preset and key=value pairs."""
    options: dict[str, Any] = {}
    for token in text.replace(",", " ").split():
        key, sep, raw = token.partition("=")
        key = key.strip()
        if not sep:
            options["preset"] = key
            continue
        raw = raw.strip()
        value: Any = raw
        if raw.lower() in ("true", "false"):
            value = raw.lower() == "true"
        elif raw.lstrip("-").isdigit():
            value = int(raw)
        options[key] = value
    return options


def variant(spec: "str | Mapping[str, Any] | Variant | None" = None, **overrides: Any) -> Variant:
    """A validated Variant from a preset name, a short text form, an option dict or a Variant."""
    if isinstance(spec, Variant):
        if not overrides:
            return spec
        options = {k: v for k, v in spec.to_dict().items() if k not in _DERIVED or k in overrides}
        # an explicit derived value stays unless its source option is overridden
        for name in _DERIVED:
            if name not in overrides and not _follows(name, overrides):
                options[name] = getattr(spec, name)
    elif spec is None:
        options = {}
    elif isinstance(spec, str):
        options = _parse_text(spec)
    elif isinstance(spec, Mapping):
        options = dict(spec)
    else:
        raise VariantError(f"variant: expected a preset name, a dict or a Variant, got {type(spec).__name__}")
    options.update(overrides)
    for name in options:
        if name not in _OPTION_NAMES:
            raise VariantError(f"unknown option {name!r} (known: {', '.join(_OPTION_NAMES)})")
    preset = options.get("preset", DEFAULT_PRESET)
    if preset not in PRESETS:
        raise VariantError(f"unknown preset {preset!r} (known: {', '.join(PRESETS)})")
    full = {"preset": preset, **_PRESET_OPTIONS[preset], **options}
    try:
        return _cached(tuple(full.items()))
    except TypeError:  # an unhashable value: let validation name it
        return Variant(**full)


def _follows(name: str, overrides: Mapping[str, Any]) -> bool:
    if name == "zwick_limit":
        return "stake" in overrides
    if name == "forfeit":
        return "stake" in overrides or "zwick_limit" in overrides
    return "players" in overrides


@functools.lru_cache(maxsize=256)
def _cached(items: tuple) -> Variant:
    return Variant(**dict(items))
