"""How to run a registered bot from its stored copy: here, or from a worker's unpacked copy
(arena.tournaments.cluster), which is why this is not part of the runner."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from arena.errors import ArenaError
from arena.process.command import BotCommand

FOLDER_ENTRY_POINTS = ("bot.py", "main.py", "bot.mjs", "main.mjs", "bot.js", "main.js", "bot.cjs", "main.cjs", "bot",
                       "bot.jar", "Bot.java", "bot.pl", "bot.rb")
"""What runs a folder given no command, the first of these it holds: a script or the executable
`bot` as given, the rest by `ENTRY_COMMANDS`."""
ENTRY_COMMANDS = {"bot.jar": "java -jar bot.jar", "Bot.java": "java Bot.java", "bot.pl": "perl bot.pl", "bot.rb": "ruby bot.rb"}


def bot_command(row: dict) -> BotCommand:
    """How to run a registered bot: its stored copy, or its own command run in that copy's folder
    (all of it, `BotCommand.whole`, in every command that runs it)."""
    path = Path(row["path"])
    if not path.exists():
        raise ArenaError(f"the stored copy of bot {row['name']}@{row['version']} is missing: {path}")
    folder = path if path.is_dir() else path.parent
    if row.get("command"):
        with _cwd(folder):
            cmd = BotCommand.from_spec(row["command"])
        return dataclasses.replace(cmd, workdir=folder, whole=True)
    if path.is_dir():
        for entry in FOLDER_ENTRY_POINTS:
            if (path / entry).is_file():
                if entry in ENTRY_COMMANDS:
                    with _cwd(path):
                        cmd = BotCommand.from_spec(ENTRY_COMMANDS[entry])
                else:
                    cmd = BotCommand.from_spec(str(path / entry))
                return dataclasses.replace(cmd, workdir=path.resolve(), whole=True)
        raise ArenaError(f"bot {row['name']} is a folder without {', '.join(FOLDER_ENTRY_POINTS)}: say how to run it "
                         "with --command (bot add, bot check, submit; arena play runs it by the name bot add gave it)")
    return dataclasses.replace(BotCommand.from_spec(str(path)), whole=True)


@contextmanager
def _cwd(folder: Path) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(old)
