"""`arena rules legal|apply|board --game NAME`: the rules oracle (games.oracle), JSON lines in on
stdin, one JSON answer per line out on stdout; exit 0 when every line was answered, 1 when any
answer was an error."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from arena.cli import app
from arena.errors import ArenaError

rules_app = typer.Typer(help="The rules oracle: any game's real rules as JSON lines (stdin to stdout).",
                        no_args_is_help=True, rich_markup_mode=None)
app.add_typer(rules_app, name="rules")

GameOption = Annotated[str, typer.Option("--game", help="The game whose rules answer (default: zwicker).")]


def _run(command: str, game: str) -> None:
    import games
    from games import oracle

    try:
        g = games.game(game)
    except games.GameError as exc:
        raise ArenaError(f"--game: {exc}") from None

    def write(text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()  # one answer as soon as its line is read: usable as a co-process

    status = oracle.run(g, command, sys.stdin, write)
    raise typer.Exit(status)


@rules_app.command("legal")
def legal(game: GameOption = "zwicker") -> None:
    """Each line a position (the game's position form; Zwicker: docs/rules.md section 8): its
    legal moves in order, as the arena lists them in `act`.

    Example: echo '{"variant": "jensen", "dealer": 3, "to_move": 0, "hands": [["9S"], ["2C"], ["3C"], ["4C"]],
    "table": ["9C"], "stock": [], "taken": [[], []], "zwicks": [0, 0], "last_capture": null}' | arena rules legal
    """
    _run("legal", game)


@rules_app.command("apply")
def apply_cmd(game: GameOption = "zwicker") -> None:
    """Each line {"position": P, "moves": [m, ...]}: {"position": P2, "result": R}, P2 after the
    moves, R the deal's result once it is over (else null); an illegal move or a malformed
    position: {"error": "..."}.

    Example: arena rules apply < positions.jsonl
    """
    _run("apply", game)


@rules_app.command("board")
def board(game: GameOption = "zwicker") -> None:
    """Each line {"variant": V, "seed": S, "first_dealer": D, "policy": "first" | "last"} (and
    "format", default the game's first: zwicker's "deal"; "game" plays to the target): the
    board's result, every seat always playing its first (or last) legal move.

    Example: echo '{"variant": "jensen", "seed": 7, "first_dealer": 0, "policy": "first", "format": "game"}' | arena rules board
    """
    _run("board", game)
