"""`arena play A B` (a duplicate match, no database) and `arena bot check PATH` (conformance)."""

from __future__ import annotations

from pathlib import Path

import trio
import typer

import engine
from arena.cli import app, bot_app, echo, echo_json
from arena.errors import visible
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
VARIANT_HELP = (f"A preset ({', '.join(engine.PRESETS)}), a preset with options (jensen:target=51,all_tens=true) "
                "or a JSON object (docs/rules.md lists the options).")
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
    sandbox: str = typer.Option(None, "--sandbox", help=SANDBOX_HELP + " [default: the best available]"),
    move_ms: int = typer.Option(1000, "--move-ms", help="Per-move limit in milliseconds."),
    bank_ms: int = typer.Option(10000, "--bank-ms", help="Time bank per seat and table, in milliseconds."),
    handshake_ms: int = typer.Option(10000, "--handshake-ms", help="Start-up and handshake limit, in ms."),
    as_json: bool = typer.Option(False, "--json", help="Print the whole match (every move) as JSON."),
    db: Path = typer.Option(None, "--db", help=DB_HELP, show_default=False),
) -> None:
    """Play a duplicate match between two bots: the boards, the total, W-D-L and the mean margin.

    Each board's deal is played twice, with the bots' sides swapped, so the luck of the cards
    cancels out; it ends with A's boards won, drawn and lost and its mean margin per board with a
    95% interval. Nothing is stored. Example:

        arena play bots/greedy_bot.py bots/random_bot.py --boards 4
    """
    from arena.play.match import format_match, play_match

    commands = [_command(bot_a, db), _command(bot_b, db)]
    v = engine.variant(parse_variant(variant))
    tc = _time_control(move_ms, bank_ms, handshake_ms)
    result = trio.run(lambda: play_match(*commands, boards=boards, seed=seed, variant=v, time_control=tc,
                                         sandbox=sandbox or _default_sandbox()))
    result.bots = [bot_a, bot_b]
    if as_json:
        echo_json(result.to_dict())
    else:
        echo(format_match(result))
        echo(board_summary([b.points[0] - b.points[1] for b in result.boards], result.names[0] or bot_a))


T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145,
        2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045,
        2.042)
"""Student's t, 97.5% quantile, for 1 to 30 degrees of freedom."""


def t975(df: int) -> float:
    """Student's t 97.5% quantile (beyond the table, its Cornish-Fisher expansion around 1.96)."""
    if df <= len(T975):
        return T975[df - 1]
    z = 1.959964
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def board_summary(margins: list[int], name: str = "") -> str:
    """A's boards won, drawn and lost, and its mean margin per board with a 95% interval (Student's
    t over the boards: each board is both its tables, so the luck of the cards is paired out)."""
    n = len(margins)
    won, drawn = sum(m > 0 for m in margins), sum(m == 0 for m in margins)
    who = f"A ({visible(name)})" if name else "A"
    counts = f"{who}: W-D-L {won}-{drawn}-{n - won - drawn} over {n} board{'s' * (n != 1)}"
    if n == 0:
        return counts
    mean = sum(margins) / n
    if n < 2:
        return f"{counts}; margin {mean:+.1f} points (one board: no interval)"
    sd = (sum((m - mean) ** 2 for m in margins) / (n - 1)) ** 0.5
    half = t975(n - 1) * sd / n**0.5
    return (f"{counts}; mean margin {mean:+.1f} points a board, "
            f"95% interval {mean - half:+.1f} .. {mean + half:+.1f}")


@bot_app.command("check")
def check(
    bot: str = typer.Argument(..., help="The bot: a registered name, a .py/.js/.mjs/.cjs script, an executable, "
                              "or a command string."),
    deals: int = typer.Option(2, "--deals", help="Deals to play in each seat position."),
    seed: int = typer.Option(0, "--seed", help="Master seed of the deals."),
    variant: str = typer.Option("jensen", "--variant", help=VARIANT_HELP),
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

    command = _command(bot, db)
    v = engine.variant(parse_variant(variant))
    tc = _time_control(move_ms, 10000, 10000)
    result = trio.run(lambda: check_bot(command, deals=deals, seed=seed, variant=v, time_control=tc,
                                        sandbox=sandbox or _default_sandbox()))
    result.bot = bot
    if as_json:
        echo_json(result.to_dict())
    else:
        echo(format_check(result))
    if not result.conformant:
        raise typer.Exit(1)
