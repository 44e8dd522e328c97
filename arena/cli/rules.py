"""`arena rules games`: the installed games and what each says of itself; `arena rules
legal|apply|board`: the rules oracle (games/oracle.py) behind a pipe, JSON lines in, JSON lines
out, one answer per request line, flushed at once."""

from __future__ import annotations

import sys
from typing import Annotated, BinaryIO

import typer

import games
from arena.cli import echo, echo_json, rules_app

GameOption = Annotated[str, typer.Option("--game", help="The game whose rules answer ('arena rules games' "
                                                    "lists them).")]


def describe(g: games.Game) -> dict:
    """What `arena rules games` says of one game: its Info, its default variant and its extras."""
    info, extras = g.info, games.extras(g)
    return {"name": info.name, "title": info.title, "version": info.version,
            "players": [info.min_players, info.max_players], "formats": list(info.formats),
            "presets": list(info.presets), "default_variant": str(g.variant()), "unit": info.unit,
            "utility": info.utility, "reference_bots": {k: str(v) for k, v in extras.reference_bots.items()},
            "anchor": extras.anchor[0], "viewer": None if extras.viewer is None else str(extras.viewer),
            "docs": [str(d) for d in extras.docs]}


@rules_app.command("games")
def games_cmd(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a line per game.")] = False,
) -> None:
    """The installed games: players, formats (the first is the default), presets, default variant.

    Example: arena rules games
    """
    found = [describe(g) for g in games.installed()]
    if as_json:
        echo_json(found)
        return
    for d in found:
        low, high = d["players"]
        players = f"{low}" if low == high else f"{low}-{high}"
        presets = f"; presets {', '.join(d['presets'])}" if d["presets"] else ""
        echo(f"{d['name']}: {d['title']}, {players} players; formats {', '.join(d['formats'])}{presets}; "
             f"default variant {d['default_variant']}; results in {d['unit']}; anchor {d['anchor']}")


def _serve(game_name: str, command: str, source: BinaryIO | None = None) -> None:
    """Answer every non-blank line of stdin; exit 0 if all were answered, 1 if any was an error,
    2 (one line on stderr) if the game is not installed."""
    import games
    from games import oracle

    try:
        game = games.game(game_name)
    except games.GameError as exc:
        echo(f"arena: error: --game: {exc}", err=True)
        raise typer.Exit(2) from None
    source = sys.stdin.buffer if source is None else source
    failed = False
    while True:
        line = source.readline(oracle.MAX_LINE + 1)
        if not line:
            break
        if len(line) > oracle.MAX_LINE and not line.endswith(b"\n"):
            while (rest := source.readline(1 << 16)) and not rest.endswith(b"\n"):
                pass  # the rest of an overlong line: one answer for all of it
        elif not line.strip():
            continue
        answer = oracle.respond(game, command, line.rstrip(b"\r\n"))
        failed |= answer.error is not None
        if answer.internal:
            echo(f"arena: rules: {answer.error}", err=True)
        typer.echo(answer.to_json())  # ASCII JSON; click flushes after every line
    raise typer.Exit(1 if failed else 0)


@rules_app.command("legal")
def legal_cmd(game: GameOption = games.DEFAULT) -> None:
    """List legal moves: each line a position, each answer its legal moves.

    A position is the game's position form; the answer lists its legal moves in the game's order
    (the order a bot's `act.legal` has), as move objects.

    Example: arena rules legal --game zwicken < positions.jsonl
    """
    _serve(game, "legal")


@rules_app.command("apply")
def apply_cmd(game: GameOption = games.DEFAULT) -> None:
    """Apply moves: each line a position and moves, each answer the position after them.

    A line is {"position": P, "moves": [m, ...]}; its answer {"position": P2, "result": R}: the
    position after the moves, and the deal's result once it is over (else null). An illegal move
    or a malformed position answers {"error": "..."}, naming the move's index.

    Example: arena rules apply --game zwicken < requests.jsonl
    """
    _serve(game, "apply")


@rules_app.command("board")
def board_cmd(game: GameOption = games.DEFAULT) -> None:
    """Play boards out: each line a board and a policy, each answer the board's result.

    A line is {"variant": V, "seed": S, "first_dealer": D, "policy": "first" | "last"} (and
    "format" for games with several); its answer the board's result when every seat always plays
    its first (or last) legal move, with every deal's result.

    Example: arena rules board --game zwicken < boards.jsonl   (a line: {"variant": "bayern", "seed": 7, "policy": "first"})
    """
    _serve(game, "board")
