"""How a bot process is confined: `bwrap`, `rlimit` or `none` (see docs/hostile.md).

`prepared` turns a `BotCommand` into the argv, cwd, environment and spawn options of one
confined bot, and owns the bot's private temp directory for as long as the bot runs.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.process import BotCommand, Limits

MODES = ("bwrap", "rlimit", "none")

_uids: set[int] = set()


def uids_handed_out() -> frozenset[int]:
    """Every throw-away uid this arena process has run a bot as."""
    return frozenset(_uids)


def resolve_mode(value: str | None) -> str:
    """The `--sandbox` option's value checked; None or "auto" means `default_mode()`."""
    if value is None or value == "auto":
        return default_mode()
    if value not in MODES:
        raise ValueError(f"unknown sandbox {value!r}: choose one of {', '.join(MODES)}")
    return value


def default_mode() -> str:
    return "none"


@dataclass
class Launch:
    """Everything `subprocess.Popen` needs to start one confined bot."""

    argv: list[str]
    cwd: str
    env: dict[str, str]
    uid: int | None = None
    popen_options: dict[str, object] = field(default_factory=dict)


@asynccontextmanager
async def prepared(cmd: BotCommand, mode: str, limits: Limits, tag_env: Mapping[str, str]) -> AsyncIterator[Launch]:
    """The launch of `cmd` under `mode`; the bot's temp directory lives until the block ends."""
    mode = resolve_mode(mode)
    if mode == "none":
        yield Launch(list(cmd.argv), str(cmd.workdir), {**os.environ, **tag_env})
        return
    raise ValueError(f"sandbox {mode!r} is not available yet")
