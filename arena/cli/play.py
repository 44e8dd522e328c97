"""`arena play A B` (a duplicate match, no database) and `arena bot check PATH` (conformance)."""

from __future__ import annotations

from pathlib import Path

import trio
import typer

from arena.cli import app, bot_app, echo, echo_json
from arena.results.schema import default_db_path
from arena.tournaments.runner import parse_variant


def _default_sandbox() -> str:
    try:
        from arena.process.modes import default_mode
    except ImportError:  # pragma: no cover - the sandbox module ships with the arena
        return "none"
    return default_mode()


def _command(spec: str, db: Path | None):
    """A path or command string as given, else a bot registered under that name."""
    from arena.tournaments.runner import command_for

    return command_for(spec, db if db is not None else default_db_path())


def _time_control(move_ms: int, bank_ms: int, handshake_ms: int):
    from arena.play.table import TimeControl

    return TimeControl(handshake_s=handshake_ms / 1000, move_s=move_ms / 1000, bank_s=bank_ms / 1000)


SANDBOX_HELP = "How to confine the bots: fork, bwrap, rlimit or none (rlimit and none do not isolate partners)."
VARIANT_HELP = "A preset (jensen), options (jensen:target=51,all_tens=true) or a JSON object."
GAME_HELP = "The game to play (installed: zwicker, and any the 'zwicker_arena.games' entry points add)."


def _game_variant(variant: str, game: str) -> dict:
    """--variant read by --game's rules; the Zwicker default "jensen" means another game's own default."""
    return parse_variant(variant if game == "zwicker" or variant != "jensen" else None, game)
DB_HELP = "The database registered names are looked up in (default: $ARENA_DB, else results/arena.db)."


@app.command("play")
def play(
    bot_a: str = typer.Argument(..., help="Bot A: a registered name, a .py/.js/.mjs/.cjs script, an executable, "
                                "or a command string."),
    bot_b: str = typer.Argument(..., help="Bot B, given the same way."),
    boards: int = typer.Option(8, "--boards", "-n", help="Boards to play; each is played at two tables."),
    seed: int | None = typer.Option(None, "--seed", help="Master seed: board k is dealt from deal_seed(seed, k) "
                                    "[default: a random one, printed]", show_default=False),
    variant: str = typer.Option("jensen", "--variant", help=VARIANT_HELP),
    game: str = typer.Option("zwicker", "--game", help=GAME_HELP),
    sandbox: str = typer.Option(None, "--sandbox", help=SANDBOX_HELP + " [default: the best available]"),
    move_ms: int = typer.Option(1000, "--move-ms", help="Per-move limit in milliseconds."),
    bank_ms: int = typer.Option(10000, "--bank-ms", help="Time bank per seat and table, in milliseconds."),
    handshake_ms: int = typer.Option(10000, "--handshake-ms", help="Start-up and handshake limit, in ms."),
    as_json: bool = typer.Option(False, "--json", help="Print the whole match (every move) as JSON."),
    db: Path = typer.Option(None, "--db", help=DB_HELP, show_default=False),
) -> None:
    """Play a duplicate match between two bots and print the boards and the total.

    Each board's deal is played twice, with the bots' sides swapped, so the luck of the cards
    cancels out. Example:

        arena play bots/greedy_bot.py bots/random_bot.py --boards 4 --seed 7
    """
    from arena.play.match import format_match, play_match

    v = _game_variant(variant, game)
    commands = [_command(bot_a, db), _command(bot_b, db)]
    tc = _time_control(move_ms, bank_ms, handshake_ms)
    result = trio.run(lambda: play_match(*commands, boards=boards, seed=seed, variant=v, time_control=tc,
                                         sandbox=sandbox or _default_sandbox(), game=game))
    result.bots = [bot_a, bot_b]
    if as_json:
        echo_json(result.to_dict())
    else:
        echo(format_match(result))


@bot_app.command("check")
def check(
    bot: str = typer.Argument(..., help="The bot: a registered name, a .py/.js/.mjs/.cjs script, an executable, "
                              "or a command string."),
    deals: int = typer.Option(2, "--deals", help="Deals to play in each seat position."),
    seed: int = typer.Option(0, "--seed", help="Master seed of the deals."),
    variant: str = typer.Option("jensen", "--variant", help=VARIANT_HELP),
    game: str = typer.Option("zwicker", "--game", help=GAME_HELP),
    sandbox: str = typer.Option(None, "--sandbox", help=SANDBOX_HELP + " [default: the best available]"),
    move_ms: int = typer.Option(1000, "--move-ms", help="Per-move limit in milliseconds."),
    as_json: bool = typer.Option(False, "--json", help="Print the check's tables as JSON."),
    db: Path = typer.Option(None, "--db", help=DB_HELP, show_default=False),
) -> None:
    """Check that a bot speaks the protocol: it plays seeded deals in every seat against random bots.

    Exit status 0 only for a conformant bot; otherwise the output says exactly what went wrong.
    Example:

        arena bot check bots/greedy_bot.py
    """
    from arena.play.match import check_bot, format_check

    v = _game_variant(variant, game)
    command = _command(bot, db)
    tc = _time_control(move_ms, 10000, 10000)
    result = trio.run(lambda: check_bot(command, deals=deals, seed=seed, variant=v, time_control=tc,
                                        sandbox=sandbox or _default_sandbox(), game=game))
    result.bot = bot
    if as_json:
        echo_json(result.to_dict())
    else:
        echo(format_check(result))
    if not result.conformant:
        raise typer.Exit(1)
