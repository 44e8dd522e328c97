"""The `arena` command: a thin typer layer over library functions.

Each command group lives in its own module and registers itself on `app` (or `bot_app`,
`tournament_app`); this module turns known errors into one clear line and exit code 2, and is
the one way out to the terminal (`echo`, `echo_json`): text that may come from a bot is shown
with its control characters made visible.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from typing import Annotated, Any

import typer
import typer.core

import games
from arena.errors import ArenaError, json_visible, leaves, visible
from games import GameError

FIRST_HOUR = {
    "arena": {
        "bot": "Register, check and manage bots (start: arena bot add PATH).",
        "tournament": "Run, list and delete tournaments.",
        "standings": "The standings: Elo, 95% interval, LOS, W-D-L, margin, faults.",
        "matches": "The matches (one board by board, with deal ids) and faults.",
        "replay": "Step through a stored deal, move by move.",
        "play": "One duplicate match (teams, or a bot a seat); nothing is stored.",
        "sprt": "Is NEW better than OLD? A match until a sequential test decides.",
        "crosstable": "Head-to-head scores of every pair of bots.",
        "los": "The likelihood of superiority of every bot over every other.",
        "report": "A tournament's pages as files that open from disk.",
        "serve": "Every tournament of a database in the browser, live.",
        "export": "A tournament as CSV (a row per table) or JSON (everything).",
        "rules": "Ask a game's real rules: JSON lines in, JSON lines out.",
        "league": "A standing competition: a ladder that authors submit bots to.",
        "submit": "Send a bot to a league: checked there, then on its ladder.",
    },
    "bot": {
        "add": "Check that a bot starts and answers hello, then store a copy.",
        "check": "Does a bot speak the protocol? (exit status 1 if not)",
        "list": "Every registered bot version.",
        "rename": "Rename a bot, every version of it.",
        "disable": "Leave a bot out of --all and of new tournaments.",
        "enable": "Undo 'arena bot disable'.",
        "remove": "Remove a bot and its stored copy (--force if tournaments used it).",
    },
    "tournament": {
        "run": "Play a tournament (or resume one) and print its standings.",
        "list": "Every tournament with its progress.",
        "delete": "Delete a tournament and its results (its bots stay).",
    },
}
"""`--help` lists each group's commands in the order a person's first hour meets them, each in
one line that is not cut (click cuts a docstring's first sentence to the terminal's width)."""


class _Commands(typer.core.TyperGroup):
    def _lines(self, ctx: Any) -> dict[str, str]:
        return FIRST_HOUR.get(ctx.info_name or "", {})

    def list_commands(self, ctx: Any) -> list[str]:
        names = list(super().list_commands(ctx))
        order = list(self._lines(ctx))
        return sorted(names, key=lambda n: (order.index(n) if n in order else len(order), names.index(n)))

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, self._lines(ctx).get(name) or command.get_short_help_str(limit=1000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


app = typer.Typer(
    name="arena",
    help="Zwicker Arena: seeded duplicate tournaments for card-game bots.",
    cls=_Commands,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # plain click help: flags read `--json`, not `--json <bool>`
)
bot_app = typer.Typer(help="Register, check and manage bots.", cls=_Commands, no_args_is_help=True,
                      rich_markup_mode=None)
tournament_app = typer.Typer(help="Run, list and delete tournaments.", cls=_Commands, no_args_is_help=True,
                             rich_markup_mode=None)
app.add_typer(bot_app, name="bot")
app.add_typer(tournament_app, name="tournament")
rules_app = typer.Typer(help="Ask a game's real rules, JSON lines in and out.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(rules_app, name="rules")


GAME_HELP = (f"The game: {games.DEFAULT} or another installed one, bundled or added by a package's "
             "'zwicker_arena.games' entry point ('arena rules games' lists them).")
VARIANT_HELP = ("The game's variant: a preset, a preset with options (PRESET:option=value,...; values read as "
                "JSON, else as text) or a JSON object of options. Presets of "
                + "; of ".join(f"{name}: {', '.join(games.game(name).info.presets)}" for name in games.BUNDLED)
                + " ('arena rules games' lists every installed game's; its rules page the options) "
                "[default: the game's own].")
FORMAT_HELP = ("What a board is, one of the game's formats ('arena rules games' lists them) "
               "[default: the game's first].")
PLAYERS_HELP = "Players at the table, where the game lets you choose [default: the variant's]."


def version() -> str:
    from importlib.metadata import PackageNotFoundError, version as dist_version

    try:
        return dist_version("zwicker-arena")
    except PackageNotFoundError:  # run from a source tree that was never installed
        return "unknown"


def _show_version(value: bool) -> None:
    if value:
        echo(f"arena {version()}")
        raise typer.Exit(0)


@app.callback()
def _root(
    _version: Annotated[bool, typer.Option("--version", help="Print the arena's version and exit.",
                                           callback=_show_version, is_eager=True)] = False,
) -> None:
    """Zwicker Arena: seeded duplicate tournaments for card-game bots."""


def echo(text: object = "", *, err: bool = False, nl: bool = True) -> None:
    """Print to the terminal with every control character but the line break made visible."""
    typer.echo(visible(text, newlines=True), err=err, nl=nl)


def echo_json(value: Any) -> None:
    """JSON for a reader or a program: seeds are strings (readers lose integers above 2**53),
    and the C1 controls and hiding characters JSON leaves raw are escaped as \\uXXXX."""
    text = json.dumps(seeds_as_text(value), indent=2, ensure_ascii=False)
    typer.echo(json_visible(text))


def seeds_as_text(value: Any) -> Any:
    """Every `seed` (and `*_seed`) integer as a decimal string, however deep."""
    if isinstance(value, dict):
        return {k: str(v) if isinstance(v, int) and not isinstance(v, bool) and isinstance(k, str)
                and (k == "seed" or k.endswith("_seed")) else seeds_as_text(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [seeds_as_text(v) for v in value]
    return value


MODULES = {
    "bot": ("results", "play"), "tournament": ("results", "tournament"), "standings": ("results",),
    "matches": ("results",), "replay": ("tournament",), "play": ("play",), "sprt": ("sprt",), "crosstable": ("results",),
    "los": ("sprt",), "report": ("web",), "serve": ("web",), "export": ("results",), "rules": ("rules",),
    "league": ("league",), "submit": ("league",),
}
"""The modules of arena/cli/ that register each top-level command (or its group's commands); a
test holds it to what they register. The arena starts for every command, and one command's
modules load in about half the time all of them take."""


def _register(argv: Sequence[str] | None = None) -> None:
    """Import the command modules; each adds its commands to the apps above. Given the command
    line, only those its command is in (all of them for --help, --version or a word not known)."""
    import importlib
    import pkgutil

    command = next(iter(argv or ()), None)
    if argv is not None and command in MODULES:
        names: Sequence[str] = MODULES[command]
    else:
        names = [info.name for info in pkgutil.iter_modules(__path__)]
    for name in names:
        importlib.import_module(f"{__name__}.{name}")


def _sqlite_utils_without_numpy() -> None:
    """Import sqlite_utils with numpy out of its sight. It imports numpy, where installed (the
    [openspiel] extra installs it), only to give numpy's scalar types column types, and the
    arena stores none; numpy would add a tenth of a second to the start of every command that
    reads the database. numpy imports as usual afterwards (a game on OpenSpiel loads it)."""
    if "numpy" in sys.modules or "sqlite_utils" in sys.modules:
        return
    sys.modules["numpy"] = None  # type: ignore[assignment]  # (None there: its import fails)
    try:
        import sqlite_utils  # noqa: F401
    finally:
        del sys.modules["numpy"]


def main(argv: list[str] | None = None) -> None:
    """Console entry point: the command's exit status, or one line on stderr and exit code 2
    for an error we know, a wrong option or argument included (typer.Exit's code is returned,
    not raised, outside standalone mode)."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] != ["rules"]:  # (the rules' questions never open a database)
        _sqlite_utils_without_numpy()
    _register(argv)
    try:
        try:
            code = app(args=argv, standalone_mode=False)
        except BaseExceptionGroup as group:  # from a nursery: report a known error plainly
            found = leaves(group)  # (several processes may meet the same one at once: the first)
            if all(isinstance(leaf, (ArenaError, ValueError, OSError, KeyboardInterrupt)) for leaf in found):
                raise found[0] from None
            raise
    except BrokenPipeError:  # `arena export ... | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(0)
    except (ArenaError, GameError, ValueError, OSError) as exc:
        echo(f"arena: error: {visible(exc)}", err=True)
        sys.exit(2)
    except KeyboardInterrupt:
        echo("arena: interrupted", err=True)
        sys.exit(130)
    except SystemExit as exc:  # typer meets a closed pipe as exit 1, its stdout wrapped to stay quiet
        if exc.code == 1 and type(sys.stdout).__name__.endswith("PacifyFlushWrapper"):
            sys.exit(0)
        raise
    except typer.Abort:  # click turns Ctrl-C outside a command's own handling into Abort
        echo("arena: interrupted", err=True)
        sys.exit(130)
    except typer.TyperException as exc:  # usage errors arrive here with standalone_mode=False
        if not hasattr(exc, "format_message"):
            raise
        ctx = getattr(exc, "ctx", None)  # one line, as every other error, with where the help is
        where = f" (see '{ctx.command_path} --help')" if ctx is not None else " (see 'arena --help')"
        text = " ".join(exc.format_message().split())
        echo(f"arena: error: {text}{where}", err=True)
        sys.exit(getattr(exc, "exit_code", 2))
    sys.exit(code if isinstance(code, int) else 0)
