"""`arena play A B` (a duplicate match, no database) and `arena bot check PATH` (conformance)."""

from __future__ import annotations

from pathlib import Path

import typer

import games
from arena.cli import GAME_HELP, VARIANT_HELP, app, bot_app, echo, echo_json
from arena.errors import ArenaError, visible


def _default_sandbox() -> str:
    try:
        from arena.process.modes import default_mode
    except ImportError:  # pragma: no cover - the sandbox module ships with the arena
        return "none"
    return default_mode()


def _command(spec: str, db: Path | None, game: str | None = None):
    """A path or command string as given, else a bot registered under that name (with `game`,
    one that plays it)."""
    from arena.results.schema import default_db_path
    from arena.tournaments.runner import command_for

    return command_for(spec, db if db is not None else default_db_path(), game)


def _time_control(move_ms: int, bank_ms: int, handshake_ms: int, tempo: str = "free"):
    from arena.play.table import TimeControl

    try:
        return TimeControl(handshake_s=handshake_ms / 1000, move_s=move_ms / 1000, bank_s=bank_ms / 1000, tempo=tempo)
    except ValueError as exc:
        raise ArenaError(str(exc)) from None


SANDBOX_HELP = "How to confine the bots: fork, bwrap, rlimit or none (rlimit and none do not isolate partners)."
def _game_variant(variant: str | None, game: str) -> dict:
    """--variant read by --game's rules (not given: the game's own default)."""
    from arena.tournaments.runner import parse_variant

    return parse_variant(variant, game)


DB_HELP = "The database registered names are looked up in (default: $ARENA_DB, else results/arena.db)."


@app.command("play")
def play(
    bots: list[str] = typer.Argument(..., help="The bots, A then B (for a game of more sides, one per side): "
                                     "each a registered name, a folder, a .py/.js/.mjs/.cjs script, an executable, "
                                     "or a command string.", show_default=False),
    boards: int = typer.Option(8, "--boards", "-n", help="Boards to play; each is played at one table per side."),
    seed: int | None = typer.Option(None, "--seed", help="Master seed: board k is dealt from deal_seed(seed, k) "
                                    "[default: a random one, printed]", show_default=False),
    variant: str = typer.Option(None, "--variant", help=VARIANT_HELP, show_default=False),
    game: str = typer.Option(games.DEFAULT, "--game", help=GAME_HELP),
    players: int = typer.Option(None, "--players", help="Players at the table, where the game lets you choose "
                                "[default: one per bot given; fewer bots fill the seats round robin]",
                                show_default=False),
    sandbox: str = typer.Option(None, "--sandbox", help=SANDBOX_HELP + " [default: the best available]"),
    move_ms: int = typer.Option(1000, "--move-ms", help="Per-move limit in milliseconds."),
    bank_ms: int = typer.Option(10000, "--bank-ms", help="Time bank per seat and table, in milliseconds."),
    handshake_ms: int = typer.Option(10000, "--handshake-ms", help="Start-up and handshake limit, in ms."),
    tempo: str = typer.Option("free", "--tempo", help='"free": the table goes on as soon as a bot replies; "fixed": each reply is released one move limit after its act, so that no bot learns from the clock how long another thought (docs/hostile.md).'),
    fair: bool = typer.Option(False, "--fair", help="Fixed tempo: no bot learns from the clock how long "
                              "another thought (README, Running tournaments)."),
    as_json: bool = typer.Option(False, "--json", help="Print the whole match (every move) as JSON."),
    db: Path = typer.Option(None, "--db", help=DB_HELP, show_default=False),
) -> None:
    """Play a duplicate match between bots: the boards, the total, W-D-L and the mean margin.

    Each board's deal is played twice, with the bots' sides swapped, so the luck of the cards
    cancels out; it ends with the first bot's boards won, drawn and lost and its mean margin per
    board with a 95% interval. In a game where every seat plays for itself (--game zwicken) each bot is one
    entrant and a board is played in one room per entrant, the seats rotated, so that each holds
    every seat's cards once; the end says each entrant's chips per board with a 95% interval, its
    faults, and its boards won, drawn and lost against each other entrant. Nothing is stored.
    Examples:

        arena play bots/zwicker/greedy_bot.py bots/zwicker/random_bot.py --boards 4

        arena play --game zwicken bots/zwicken/zwicken_rule_bot.py bots/zwicken/zwicken_random_bot.py --players 4
    """
    import trio

    from arena.play.match import format_group, play_group

    v, entrants = _table(variant, game, players, bots)
    played = games.game(game).variant(v)
    if len(entrants) != (sides := games.game(game).layout(played).num_sides):
        raise ArenaError(f"{len(entrants)} bots for {played}, which has {sides} sides: a match is one entrant a side")
    commands = {spec: _command(spec, db, game) for spec in dict.fromkeys(bots)}  # each bot once, its copy shared
    tc = _time_control(move_ms, bank_ms, handshake_ms, "fixed" if fair else tempo)
    sandbox = sandbox or _default_sandbox()
    group = trio.run(lambda: play_group([commands[e] for e in entrants], boards=boards, seed=seed, variant=v,
                                        time_control=tc, sandbox=sandbox, game=game))
    group.bots = list(entrants)
    if as_json:
        echo_json(group.to_dict())
        return
    echo(format_group(group))
    if len(entrants) == 2:  # two entrants: the first's margin over the other, board by board
        echo(board_summary([b.results[0] - b.results[1] for b in group.boards], group.names[0] or entrants[0],
                           games.game(game).info.unit))


def _table(variant: str, game: str, players: int | None, bots: list[str]) -> tuple[dict, list[str]]:
    """The variant and the entrants, one per side: the bots as given, or, in a game where every
    seat plays alone, as many players as --players says (else the variant's own `players` if it
    names one, else one per bot), the bots filling the seats round robin."""
    from arena.tournaments import runner

    if len(bots) < 2 and players is None:
        raise ArenaError(f"a match needs at least two bots (or --players), got {len(bots)}")
    v = _game_variant(variant, game)
    g = games.game(game)
    alone = not g.layout(g.variant()).partnerships  # the game's kind (Zwicker: teams), not this variant's
    if players is not None or (alone and "players" not in (variant or "") and len(bots) != v.get("players")):
        v = runner.resized(v, g, players if players is not None else len(bots))
    sides = g.layout(g.variant(v)).num_sides
    if len(bots) == 2 and players is None and not alone:
        return v, list(bots)  # two teams: the match says if the variant has other sides
    if len(bots) > sides:
        raise ArenaError(f"{len(bots)} bots for {sides} sides: give at most one bot per side (--players)")
    return v, [bots[e % len(bots)] for e in range(sides)]


def board_summary(margins: list[int], name: str = "", unit: str = "points") -> str:
    """Entrant 1's boards won, drawn and lost against entrant 2, and its mean margin per board
    with a 95% interval (Student's t over the boards: each board is both its tables, so the luck
    of the cards is paired out)."""
    from arena.play.stats import t975

    n = len(margins)
    won, drawn = sum(m > 0 for m in margins), sum(m == 0 for m in margins)
    who = f"1 ({visible(name)})" if name else "1"
    counts = f"{who}: W-D-L {won}-{drawn}-{n - won - drawn} over {n} board{'s' * (n != 1)}"
    if n == 0:
        return counts
    mean = sum(margins) / n
    if n < 2:
        return f"{counts}; margin {mean:+.1f} {unit} (one board: no interval)"
    sd = (sum((m - mean) ** 2 for m in margins) / (n - 1)) ** 0.5
    half = t975(n - 1) * sd / n**0.5
    return (f"{counts}; mean margin {mean:+.1f} {unit} a board, "
            f"95% interval {mean - half:+.1f} .. {mean + half:+.1f}")


@bot_app.command("check")
def check(
    bot: str = typer.Argument(..., help="The bot: a registered name, a folder (as bot add takes it), a "
                              ".py/.js/.mjs/.cjs script, an executable, or a command string."),
    deals: int = typer.Option(2, "--deals", help="Deals to play in each seat position."),
    seed: int = typer.Option(0, "--seed", help="Master seed of the deals."),
    variant: str = typer.Option(None, "--variant", help=VARIANT_HELP, show_default=False),
    game: str = typer.Option(None, "--game", help=GAME_HELP + f" [default: {games.DEFAULT}, or the first game the "
                             f"bot's ready.games names where it does not name {games.DEFAULT}]", show_default=False),
    sandbox: str = typer.Option(None, "--sandbox", help=SANDBOX_HELP + " [default: the best available]"),
    move_ms: int = typer.Option(1000, "--move-ms", help="Per-move limit in milliseconds."),
    as_json: bool = typer.Option(False, "--json", help="Print the check's tables as JSON."),
    db: Path = typer.Option(None, "--db", help=DB_HELP, show_default=False),
    command: str = typer.Option(None, "--command", help="How to run a folder given as the bot, run in a copy of "
                                "all of it (as bot add --command).", show_default=False),
) -> None:
    """Check that a bot speaks the protocol: it plays seeded deals in every seat against random bots.

    Exit status 0 only for a conformant bot; otherwise the output says exactly what went wrong.
    Example:

        arena bot check bots/zwicker/greedy_bot.py
    """
    import trio

    from arena.play.match import check_bot, format_check

    chosen, game = game, game or games.DEFAULT
    v = _game_variant(variant, game)
    if command is not None:
        from arena.tournaments.runner import candidate_command

        if not Path(bot).expanduser().is_dir():
            raise ArenaError(f"--command runs a folder given as the bot, and {bot} is no folder")
        cmd = candidate_command(Path(bot), command)
    else:
        cmd = _command(bot, db)
    tc = _time_control(move_ms, 10000, 10000)
    result = trio.run(lambda: check_bot(cmd, deals=deals, seed=seed, variant=v, time_control=tc,
                                        sandbox=sandbox or _default_sandbox(), game=game))
    if not result.conformant and chosen is None and variant is None:
        from arena.tournaments.runner import declared_game

        if other := declared_game([seat.games for t in result.tables for seat in t.seats], game):
            if not as_json:
                echo(f"{bot} plays {other} (its ready.games), not {game}: checked at a {other} table (--game chooses)")
            v, game = _game_variant(None, other), other
            result = trio.run(lambda: check_bot(cmd, deals=deals, seed=seed, variant=v, time_control=tc,
                                                sandbox=sandbox or _default_sandbox(), game=game))
    result.bot = bot
    if as_json:
        echo_json(result.to_dict())
    else:
        echo(format_check(result))
    if not result.conformant:
        raise typer.Exit(1)
