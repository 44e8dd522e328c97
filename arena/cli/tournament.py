"""`arena tournament run` and `arena replay`: thin wrappers over arena.tournaments.runner and arena.results.replay.

A run prints its header first, then its progress (arena.cli.progress: a bar on a terminal, plain
lines in a log; with --report-every, the standings so far above it), then the standings; Ctrl-C
says how much is stored and the command that resumes."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

import games
from arena.cli import FORMAT_HELP, GAME_HELP, PLAYERS_HELP, VARIANT_HELP, app, echo, echo_json, tournament_app
from arena.cli.results import DbOption, _open, standings_text
from arena.errors import ArenaError, leaves

if TYPE_CHECKING:
    from arena.play.table import TimeControl

SandboxOption = Annotated[
    str | None,
    typer.Option("--sandbox", help="fork | bwrap | rlimit | none (default: bwrap where it works, else fork, else "
                 "rlimit; rlimit and none do not isolate partners, and the standings say so). A resume keeps the "
                 "stored one unless given.",
                 show_default=False),
]


@tournament_app.command("run")
def tournament_run(
    ctx: typer.Context,
    name: Annotated[str | None, typer.Option("--name", help="The tournament's name (required unless --resume).",
                                             show_default=False)] = None,
    bots: Annotated[str | None, typer.Option("--bots", help="Comma-separated bots: registered names or paths.",
                                             show_default=False)] = None,
    all_bots: Annotated[bool, typer.Option("--all", help="Every registered bot that is not disabled "
                                           "and plays the game (latest versions).")] = False,
    boards: Annotated[int, typer.Option("--boards", help="Boards per match.")] = 8,
    variant: Annotated[str | None, typer.Option("--variant", help=VARIANT_HELP, show_default=False)] = None,
    game: Annotated[str, typer.Option("--game", help=GAME_HELP)] = games.DEFAULT,
    seed: Annotated[int | None, typer.Option(
        "--seed", help="The master seed (0 to 2**64-1; default: a random one, printed and stored).",
        show_default=False)] = None,
    concurrency: Annotated[int | None, typer.Option(
        "--concurrency", help="Tables playing at once (default: cores); as many more start their bots meanwhile.",
        show_default=False)] = None,
    processes: Annotated[int | None, typer.Option(
        "--processes", help="Arena processes the tables are spread over (default: one per core, "
        "at most one per table playing); 1 plays them all in this one.", show_default=False)] = None,
    fmt: Annotated[str | None, typer.Option("--format", help=FORMAT_HELP, show_default=False)] = None,
    players: Annotated[int | None, typer.Option(
        "--players", help=PLAYERS_HELP + " Except at two sides of two, each match is a bot per side "
        "(where each plays alone, as many bots as players), in every seat of its side.", show_default=False)] = None,
    partners: Annotated[str, typer.Option("--partners", help="clone: a side is copies of one bot; mixed (at two sides "
                                          "of equal size, 2 v 2 or 3 v 3): every split of each group of bots in two "
                                          "teams of different bots.")] = "clone",
    pairing: Annotated[str, typer.Option("--pairing", help="roundrobin: every pairing; swiss: each round pairs "
                                         "bots of similar score (many bots, far fewer matches).")] = "roundrobin",
    rounds: Annotated[int | None, typer.Option("--rounds", help="Swiss rounds (default: log2 of the bots, plus 2).",
                                               show_default=False)] = None,
    gauntlet: Annotated[str | None, typer.Option("--gauntlet", help="Play only this bot against each other.",
                                                 show_default=False)] = None,
    resume: Annotated[str | None, typer.Option("--resume", help="Continue an interrupted tournament by name, "
                                               "with its stored settings.", show_default=False)] = None,
    move_ms: Annotated[int, typer.Option("--move-ms", help="Per-move time limit, milliseconds.")] = 1000,
    bank_ms: Annotated[int, typer.Option("--bank-ms", help="Time bank per seat and table, milliseconds.")] = 10000,
    tempo: Annotated[str, typer.Option("--tempo", help='"free": the table goes on as soon as a bot replies; "fixed": each reply is released one move limit after its act, so that no bot learns from the clock how long another thought (docs/hostile.md).')] = "free",
    fair: Annotated[bool, typer.Option("--fair", help="Fixed tempo, and as many tables at once as memory allows "
                                       "in one arena process (a frozen bot costs no CPU): no bot learns anything "
                                       "from the clock (README, Running tournaments).")] = False,
    elo_k: Annotated[str | None, typer.Option("--elo-k", hidden=True)] = None,
    sandbox: SandboxOption = None,
    cluster: Annotated[str | None, typer.Option(
        "--cluster", help="Play the rooms on Dask: local:N (N worker processes here) or a scheduler's "
        "address, tcp://HOST:8786 (docs/cluster.md); each worker resolves --sandbox itself.",
        show_default=False)] = None,
    report_every: Annotated[int, typer.Option("--report-every", help="Print the standings every N boards "
                                              "(0: only at the end).")] = 0,
    quiet: Annotated[bool, typer.Option("--quiet", help="No header, progress or standings.")] = False,
    db: DbOption = None,
) -> None:
    """Play a seeded duplicate tournament and print the standings; run it again to resume.

    Example: arena tournament run --bots bots/zwicker/random_bot.py,bots/zwicker/greedy_bot.py --boards 8 --name first
    """
    import trio

    from arena.cli.progress import Progress
    from arena.process.modes import resolve_mode
    from arena.results import read, registry, schema
    from arena.tournaments import runner

    if elo_k is not None:
        raise ArenaError("--elo-k is gone with the sequential Elo: the ratings' progression over the deals "
                         "replaces it, on the headline's scale and with no K (README, Ratings)")
    if cluster is not None:
        from arena.tournaments import cluster as dask_cluster

        dask_cluster.check(cluster)  # one line if Dask is missing or the address is not one
        mode = sandbox or "auto"  # each worker resolves it (and records what it used)
    else:
        mode = resolve_mode(sandbox)
    if resume is None and not name:
        raise ArenaError("give the tournament a --name (or --resume NAME)")
    if concurrency is not None and concurrency < 1:
        raise ArenaError(f"--concurrency must be at least 1, got {concurrency}")
    if processes is not None and processes < 1:
        raise ArenaError(f"--processes must be at least 1, got {processes}")
    if report_every < 0:
        raise ArenaError(f"--report-every must be 0 or more, got {report_every}")
    if fair:
        if _given(ctx, "tempo") and tempo != "fixed":
            raise ArenaError("--fair plays the fixed tempo: leave --tempo out")
        if processes is not None and processes > 1:
            raise ArenaError("--fair plays in one arena process: leave --processes out")
        tempo, processes = "fixed", 1
    with _open(db, create=True) as database:
        _refuse_a_league(database, resume if resume is not None else name)
        if resume is not None:
            if bots or all_bots:
                raise ArenaError("--resume takes the bots and settings stored with the tournament")
            given = [p for p in runner.RESUME_FIXED if _given(ctx, {"format": "fmt"}.get(p, p))]
            runner.refuse_changes(resume, given)
            tid = runner.prepare(database, resume, None, None)
            stored = read.get_tournament(database, tid)["settings"].get("sandbox")
            mode = resolve_mode(sandbox if sandbox is not None else stored)
        else:
            mode = resolve_mode(sandbox)
            if all_bots == bool(bots):
                raise ArenaError("name the bots with --bots A,B,... or use --all")
            enabled = [b for b in registry.list_bots(database) if not b.get("disabled") and registry.plays(b, game)]
            specs = [f"{b['name']}@{b['version']}" for b in _latest(enabled)] if all_bots else bots.split(",")
            if all_bots and not specs:
                raise ArenaError("no bots registered yet: add some with 'arena bot add PATH'")
            settings = runner.Settings(boards=boards, variant=runner.with_players(
                                       runner.parse_variant(_variant(ctx, variant, game), game), game, players, variant),
                                   seed=seed, format=fmt or runner.check_game(game).info.formats[0], game=game,
                                   partners=partners, gauntlet=gauntlet, pairing=pairing, rounds=rounds,
                                   time_control=_time_control(move_ms, bank_ms, tempo))
            tid = runner.prepare(database, name, specs, settings, sandbox=mode)
        t = read.get_tournament(database, tid)
        if fair and concurrency is None:
            from arena.process.scheduler import fair_tables

            concurrency = fair_tables(games.game(t["game"]).variant(t["variant"]).players)
        finished = t["status"] == "finished" and t["boards_done"] == t["boards_total"]
        if not quiet:
            echo(_header(t, mode) + (f"\nfair: fixed tempo, {concurrency} tables at once" if fair else ""))
            if finished:
                echo(f"tournament '{t['name']}' is finished: nothing to play", err=True)
        progress = None
        if not quiet and not finished:
            progress = Progress(report_every=report_every, report=lambda: _interim(database, tid))
        try:
            t = trio.run(lambda: runner.run(database, tid, concurrency=concurrency, processes=processes,
                                             sandbox=mode if cluster is None else sandbox, progress=progress,
                                             cluster=cluster))
        except BaseException as exc:
            if progress is not None:
                progress.close()  # the bar down and the cursor back before any message
            if not any(isinstance(leaf, KeyboardInterrupt) for leaf in leaves(exc)):
                raise
            t = read.get_tournament(database, tid)
            per = len(read.schedule(database, tid)[0]["entrants"]) if t["matches"] else 2  # rooms per board
            half = len(read.done_tables(database, tid)) - per * t["boards_done"]
            more = (f" (and {half} more in one of their two rooms)" if per == 2 else
                    f" (and {half} more tables of boards whose {per} rooms are not all played)") if half > 0 else ""
            echo(f"arena: interrupted: {t['boards_done']}/{t['boards_total']} boards of '{t['name']}' are stored"
                 f"{more}; resume with: {resume_command(t['name'], db)}", err=True)
            raise typer.Exit(130) from None
        if progress is not None:
            progress.close()  # a run that reported no end (a finished Swiss round with nothing to play)
        if not quiet:
            from arena.cli.results import standings_cmd

            echo(f"\ntournament '{t['name']}': {t['boards_done']} boards, seed {t['seed']}, "
                 f"{t['variant'].get('preset') or _variant_text(t)}, {t['format']} format, {t['seating']}")
            standings_cmd(name=t["name"], db=db if db is not None else schema.default_db_path(), as_json=False)
            echo("\n" + next_steps(t["name"], db))


def _variant_text(t: dict) -> str:
    """A stored variant without a preset (a game that has none) in the game's short form."""
    import games

    g, v = games.load(t["variant"], t.get("game"))
    return f"{g.info.name} {v}"


def _refuse_a_league(database, name: str) -> None:
    """A league's ladder (settings["league"]) is played by its server, match by match as bots
    are submitted: run as a tournament it would be played as one with a fixed list of matches."""
    row = database.execute("SELECT settings FROM tournaments WHERE name = ?", [name]).fetchone()
    if row is not None and "league" in json.loads(row[0] or "{}"):
        raise ArenaError(f"tournament '{name}' is a league's ladder: 'arena league serve' plays it "
                         "('arena league standings' shows it); choose another --name for a tournament")


def next_steps(name: str, db: Path | None) -> str:
    """A run's closing lines: where its results are and the commands that show them."""
    from arena.results import schema

    where = db if db is not None else schema.default_db_path()
    extra = ["--db", str(db)] if db is not None else []
    steps = [(["standings", name], "these standings again (--json for a program)"),
             (["matches", name], "its matches and faults (--match N: board by board, with deal ids)"),
             (["report", name], "its pages as files that open from disk (every deal replayable)"),
             (["serve"], "every tournament of the database in the browser, live")]
    lines = [shlex.join(["arena", *words, *extra]) for words, _ in steps]
    width = max(map(len, lines))
    return "\n".join([f"results: tournament '{name}' is stored in {where}; to see them:"]
                     + [f"  {line.ljust(width)}  {what}" for line, (_, what) in zip(lines, steps)])


def _given(ctx: typer.Context, param: str) -> bool:
    """Whether the user gave this option (typer carries its own click: compare by name)."""
    source = ctx.get_parameter_source(param)
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def _variant(ctx: typer.Context, variant: str | None, game: str) -> str | None:
    """--variant as given; not given, None: the game's own default variant."""
    return variant


def _header(t: dict, mode: str) -> str:
    """What is about to be played, before the first board."""
    from arena.process.modes import label
    from arena.tournaments import runner

    names = ", ".join(b["name"] if [x["name"] for x in t["bots"]].count(b["name"]) == 1
                      else f"{b['name']}@{b['version']}" for b in t["bots"])
    done = f"; {t['boards_done']} of them stored, playing the rest" if 0 < t["boards_done"] < t["boards_total"] else ""
    return (f"tournament '{t['name']}': {len(t['bots'])} bots ({names}), {t['matches']} matches x "
            f"{t['boards']} boards = {t['boards_total']} boards{done}\n"
            f"seed {t['seed']}, {runner.check_game(t['game']).variant(t['variant'])}, {t['format']} format, "
            f"{t['seating']}, sandbox {label(mode)}")


def _interim(database, tid: int) -> str:
    """The standings so far (a quicker bootstrap: they are a glance, not the result)."""
    from arena.results import read

    doc = read.standings_document(database, tid, boards=False, bootstrap=200)
    t = read.get_tournament(database, tid)  # boards with both tables in: what the standings count
    return f"standings after {t['boards_done']}/{t['boards_total']} boards:\n" + standings_text(doc)


def resume_command(name: str, db: Path | None) -> str:
    """The exact command that continues the tournament."""
    words = ["arena", "tournament", "run", "--resume", name]
    if db is not None:
        words += ["--db", str(db)]
    return shlex.join(words)


def _latest(rows: list[dict]) -> list[dict]:
    latest: dict[str, dict] = {}
    for row in rows:
        if row["name"] not in latest or row["version"] > latest[row["name"]]["version"]:
            latest[row["name"]] = row
    return list(latest.values())


@app.command("replay")
def replay_cmd(
    deal: Annotated[str, typer.Argument(help="The deal's id (see 'arena matches --match N'), or a replay document "
                                        "written by --json.", show_default=False)],
    seat: Annotated[int | None, typer.Option("--seat", help="Show only what this seat could see.",
                                             show_default=False)] = None,
    step: Annotated[bool, typer.Option("--step", help="Wait for Enter after each move.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Write the deal as a replay document (for a bug report; "
                                          "'arena replay FILE' shows it again).")] = False,
    db: DbOption = None,
) -> None:
    """Step through a stored deal in the terminal, checked move by move by its game's rules.

    Example: arena replay 17 --seat 2; arena replay 17 --json > deal-17.json; arena replay deal-17.json
    """
    from arena.results import replay

    if not deal.isdigit():
        document = replay.load(Path(deal))
    else:
        with _open(db, readonly=True) as database:
            document = replay.document(database, int(deal))
    if as_json:
        echo_json(document)
        return
    for frame in replay.render(document, seat=seat):
        echo(frame)
        if step and sys.stdin.isatty():
            input()


def _time_control(move_ms: int, bank_ms: int, tempo: str) -> TimeControl:
    from arena.play.table import TimeControl

    try:
        return TimeControl(move_s=move_ms / 1000, bank_s=bank_ms / 1000, tempo=tempo)
    except ValueError as exc:
        raise ArenaError(str(exc)) from None
