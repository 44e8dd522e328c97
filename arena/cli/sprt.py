"""`arena sprt` (is NEW better than OLD? a match played until a sequential test decides) and
`arena los` (the likelihood of superiority of every bot over every other): thin wrappers over
arena.tournaments.sprt and arena.results.read."""

from __future__ import annotations

import math
import shlex
import textwrap
from typing import Annotated

import trio
import typer

import games
from arena.cli import FORMAT_HELP, GAME_HELP, PLAYERS_HELP, VARIANT_HELP, app, echo
from arena.cli.progress import SprtLines
from arena.cli.results import DbOption, JsonOption, NameArg, _header, _json, _open, _render
from arena.cli.tournament import SandboxOption
from arena.errors import ArenaError, leaves
from arena.play.table import TimeControl
from arena.results import present, read
from arena.results.sprt import SPRT, estimate
from arena.tournaments import runner
from arena.tournaments import sprt as sprt_run
from arena.tournaments.progress import Silent


@app.command("sprt")
def sprt_cmd(
    ctx: typer.Context,
    new: Annotated[str, typer.Argument(help="The new bot: a registered name or a path.", show_default=False)],
    old: Annotated[str, typer.Argument(help="The bot to beat: a registered name or a path (may be NEW itself).",
                                       show_default=False)],
    elo0: Annotated[float, typer.Option("--elo0", help="H0: NEW is this much better per room (logistic Elo).")] = 0.0,
    elo1: Annotated[float, typer.Option("--elo1", help="H1: NEW is this much better per room.")] = 10.0,
    alpha: Annotated[float, typer.Option("--alpha", help="The chance of accepting H1 when H0 holds.")] = 0.05,
    beta: Annotated[float, typer.Option("--beta", help="The chance of accepting H0 when H1 holds.")] = 0.05,
    max_boards: Annotated[int | None, typer.Option("--max-boards", help="Stop without a verdict after this many "
                                                   "boards (default: no limit).", show_default=False)] = None,
    batch: Annotated[int, typer.Option("--batch", help="Boards per batch (the bots are started once a batch).")]
    = sprt_run.BATCH,
    max_faults: Annotated[float, typer.Option("--max-faults", help="Stop without a verdict once more than this share "
                                              "of the tables ended in a fault (a forfeit scores the cards, not the "
                                              "play); 1: never.")] = sprt_run.MAX_FAULTS,
    name: Annotated[str | None, typer.Option("--name", help="The test's name (default: sprt-NEW@v-OLD@v); run "
                                             "the same command again to resume it.", show_default=False)] = None,
    variant: Annotated[str | None, typer.Option("--variant", help=VARIANT_HELP, show_default=False)] = None,
    game: Annotated[str, typer.Option("--game", help=GAME_HELP)] = games.DEFAULT,
    seed: Annotated[int | None, typer.Option("--seed", help="The master seed of the deals (0 to 2**64-1); "
                                                           "default: a random one, printed and stored.")] = None,
    fmt: Annotated[str | None, typer.Option("--format", help=FORMAT_HELP, show_default=False)] = None,
    players: Annotated[int | None, typer.Option(
        "--players", help=PLAYERS_HELP + " At a table of one bot a side (not two sides of two), NEW and OLD hold alternate sides.",
        show_default=False)] = None,
    move_ms: Annotated[int, typer.Option("--move-ms", help="Per-move time limit, milliseconds.")] = 1000,
    bank_ms: Annotated[int, typer.Option("--bank-ms", help="Time bank per seat and table, milliseconds.")] = 10000,
    tempo: Annotated[str, typer.Option("--tempo", help='"free": the table goes on as soon as a bot replies; "fixed": each reply is released one move limit after its act, so that no bot learns from the clock how long another thought (docs/hostile.md).')] = "free",
    fair: Annotated[bool, typer.Option("--fair", help="Fixed tempo, and as many tables at once as memory allows "
                                       "(README, Running tournaments).")] = False,
    sandbox: SandboxOption = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No line per board: only the verdict block.")] = False,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Is NEW better than OLD? Play a duplicate match until a sequential probability ratio test
    accepts H0 or H1 (or --max-boards), printing the LLR and its bounds after every board.

    Each board is played in two rooms (NEW holds each side's cards once); its score is NEW's two
    room results summed (0 .. 2), and the test counts boards by score (pentanomial, as fishtest
    does for game pairs). Elo here is per room, not the standings' scale (the verdict block says
    how they relate). --quiet prints only the verdict block. Stored; resumable.

    Example: arena sprt bots/zwicker/greedy_bot.py greedy --elo0 0 --elo1 10 --max-boards 2000
    """
    from arena.process.modes import resolve_mode

    try:
        test = SPRT(elo0, elo1, alpha, beta)
    except ValueError as exc:
        raise ArenaError(f"sprt: {exc}") from None
    mode = resolve_mode(sandbox)
    try:
        time_control = TimeControl(move_s=move_ms / 1000, bank_s=bank_ms / 1000, tempo="fixed" if fair else tempo)
    except ValueError as exc:
        raise ArenaError(str(exc)) from None
    settings = runner.Settings(variant=runner.with_players(runner.parse_variant(
                                   variant, game), game, players, variant),
                               seed=seed, format=fmt or runner.check_game(game).info.formats[0], game=game,
                               time_control=time_control)
    with _open(db, create=True) as database:
        tid = sprt_run.prepare(database, name, new, old, test, max_boards=max_boards, batch=batch,
                               settings=settings, sandbox=mode, max_faults=max_faults)
        report = Silent() if quiet else SprtLines(typer.get_text_stream("stderr") if as_json else None)
        tables = None
        if fair:
            from arena.process.scheduler import fair_tables

            tables = fair_tables(runner.check_game(game).variant(settings.variant).players)
        try:
            result = trio.run(lambda: sprt_run.run(database, tid, sandbox=mode, report=report, concurrency=tables))
        except BaseException as exc:
            if isinstance(report, SprtLines):
                report.close()  # the live line down and the cursor back before any message
            if not any(isinstance(leaf, KeyboardInterrupt) for leaf in leaves(exc)):
                raise
            t = read.get_tournament(database, tid)
            echo(f"arena: interrupted: {t['boards_done']} boards of SPRT test '{t['name']}' are stored; "
                 f"resume with: {_resume_command(ctx, t['name'])}", err=True)
            raise typer.Exit(130) from None
        if isinstance(report, SprtLines):
            report.close()
    if as_json:
        _json(result)
        return
    counts = " ".join(str(c) for c in result["counts"])
    elo = elo_text(result["counts"])
    typer.echo(f"{result['said']}, after {result['boards']} boards (LLR {result['llr']:+.2f}, bounds "
               f"[{result['lower']:+.2f}, {result['upper']:+.2f}]; {result['played']} played).")
    if result.get("seats"):  # one bot a side: NEW and OLD alternate
        lost, _, drawn, _, won = result["counts"]
        typer.echo(f"boards {result['new']} won, drew, lost against {result['old']}: {won} {drawn} {lost}; Elo per "
                   f"board: {elo}")
        scale = BOARD_SCALE
    else:
        typer.echo(f"boards scoring 0, 1/2, 1, 3/2, 2: {counts}; room Elo of {result['new']} over {result['old']}: "
                   f"{elo}")
        scale = ROOM_SCALE
    typer.echo(present.fault_line(result["faults"]))
    typer.echo(textwrap.fill(scale.format(name=shlex.quote(result["name"])), 100, break_on_hyphens=False))


def _resume_command(ctx: typer.Context, name: str) -> str:
    """This very command with the arguments and options it was given (a resumed test must repeat
    them) and the test's name: what continues it. (Typer carries its own click: no click types.)"""
    words, options = ["arena", *ctx.command_path.split()[1:]], []
    for param in ctx.command.params:
        source = ctx.get_parameter_source(param.name or "")
        if source is None or source.name != "COMMANDLINE" or param.name == "name":
            continue
        value = ctx.params[param.name or ""]
        if param.param_type_name == "argument":
            words.append(str(value))
        elif getattr(param, "is_flag", False):
            options.append(param.opts[0] if value else (getattr(param, "secondary_opts", None) or param.opts)[0])
        else:
            options += [param.opts[0], str(getattr(value, "value", value))]
    return shlex.join([*words, *options, "--name", name])


def elo_text(counts: list[int]) -> str:
    """NEW's Elo with its interval, `+12.3 [-4.5, +29.0]`; a record all at one end has no
    estimate, only a bound: `> +166.2` (every board won), `< -166.2`."""
    elo, low, high = estimate(counts)
    if math.isinf(elo):
        return f"> {low:+.1f}" if elo > 0 else f"< {high:+.1f}"
    return "{:+.1f} [{:+.1f}, {:+.1f}]".format(*(x + 0.0 for x in (elo, low, high)))


ROOM_SCALE = ("Scale: room Elo, the logistic Elo of NEW's result in one room (win 1, draw 1/2, loss 0), from "
              "the counts above with no prior; elo0 and elo1 are on this scale. 'arena standings {name}' "
              "rates the same boards on another: one result per board (both rooms' margins summed) in a "
              "Bradley-Terry fit with one virtual draw per bot, which pulls a short match towards 0. "
              "Compare the two by sign, not by size.")
"""What the verdict block's Elo is, and how it relates to the standings' Elo of the same boards."""

BOARD_SCALE = ("Scale: Elo per board, the logistic Elo of NEW's board result (win 1, draw 1/2, loss 0): NEW and "
               "OLD hold alternate sides, each board is played in as many rooms as sides (every bot holding "
               "every side once), and NEW wins a board where its sides' mean result over the rooms beats OLD's; "
               "elo0 and elo1 are on this scale. 'arena standings {name}' rates the same boards pairwise in a "
               "Bradley-Terry fit with one virtual draw per bot. Compare the two by sign, not by size.")
"""The verdict block's scale at a table of one bot a side."""


@app.command("los")
def los_cmd(name: NameArg = None, db: DbOption = None, as_json: JsonOption = False) -> None:
    """The likelihood of superiority of every bot (row) over every other (column): the share of
    the standings' bootstrap fits in which the row bot is ahead, never surer than the fit's own
    posterior (its normal approximation) allows.

    Example: arena los spring-cup
    """
    with _open(db) as d:
        t = read.get_tournament(d, name)
        table = read.los(d, t["id"])
    if as_json:
        _json(table)
        return
    bots = table["bots"]
    typer.echo(_header(t))
    if not table["matrix"]:
        typer.echo("no boards yet: no LOS")
        return
    typer.echo(_render(
        ["#", "bot", *(str(i) for i in range(1, len(bots) + 1))],
        [[n, bot, *("x" if p is None else present.percent(p) for p in row)]
         for n, (bot, row) in enumerate(zip(bots, table["matrix"]), start=1)],
        [True, False, *([True] * len(bots))],
    ))
    typer.echo("Each cell: the likelihood that the row's bot is stronger than the column's.")
