"""The `arena` command: a thin typer layer over library functions.

Each command group lives in its own module and registers itself on `app` (or `bot_app`,
`tournament_app`); this module turns known errors into one clear line and exit code 2.
"""

from __future__ import annotations

import sys

import typer

from arena.errors import ArenaError, leaves

app = typer.Typer(
    name="arena",
    help="Zwicker Arena: seeded duplicate tournaments for Zwicker bots.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
bot_app = typer.Typer(help="Register and check bots.", no_args_is_help=True)
tournament_app = typer.Typer(help="Run and list tournaments.", no_args_is_help=True)
app.add_typer(bot_app, name="bot")
app.add_typer(tournament_app, name="tournament")


def _register() -> None:
    """Import the command modules; each adds its commands to the apps above."""
    import importlib
    import pkgutil

    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")


def main(argv: list[str] | None = None) -> None:
    """Console entry point: errors we know become one line on stderr and exit code 2."""
    _register()
    try:
        try:
            app(args=argv, standalone_mode=False)
        except BaseExceptionGroup as group:  # from a nursery: report a known error plainly
            found = leaves(group)  # (several processes may meet the same one at once: the first)
            if all(isinstance(leaf, (ArenaError, ValueError, OSError, KeyboardInterrupt)) for leaf in found):
                raise found[0] from None
            raise
    except ArenaError as exc:
        print(f"arena: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except (ValueError, OSError) as exc:
        print(f"arena: error: {exc}", file=sys.stderr)
        sys.exit(2)
    except KeyboardInterrupt:
        print("arena: interrupted", file=sys.stderr)
        sys.exit(130)
    except SystemExit:
        raise
    except typer.Abort:
        print("arena: aborted", file=sys.stderr)
        sys.exit(1)
    except typer.TyperException as exc:  # usage errors arrive here with standalone_mode=False
        show = getattr(exc, "show", None)
        if show is None:
            raise
        show()  # click's own one-line message with the usage line
        sys.exit(getattr(exc, "exit_code", 2))
