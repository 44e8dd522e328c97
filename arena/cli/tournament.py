"""`arena tournament run` and `arena replay`: thin wrappers over arena.tournaments.runner and arena.results.replay."""

from __future__ import annotations

import sys
from typing import Annotated

import trio
import typer

from arena.cli import app, tournament_app
from arena.cli.results import DbOption, _open
from arena.errors import ArenaError
from arena.play.table import TimeControl
from arena.results import registry, replay, schema
from arena.tournaments import runner

SandboxOption = Annotated[
    str | None,
    typer.Option("--sandbox", help="fork | bwrap | rlimit | none (default: bwrap where it works, else rlimit; fork: the same confinement, faster start, root only).",
                 show_default=False),
]


@tournament_app.command("run")
def tournament_run(
    name: Annotated[str | None, typer.Option("--name", help="The tournament's name (required unless --resume).",
                                             show_default=False)] = None,
    bots: Annotated[str | None, typer.Option("--bots", help="Comma-separated bots: registered names or paths.",
                                             show_default=False)] = None,
    all_bots: Annotated[bool, typer.Option("--all", help="Every registered bot (latest versions).")] = False,
    boards: Annotated[int, typer.Option("--boards", help="Boards per match.")] = 8,
    variant: Annotated[str, typer.Option("--variant", help="Preset and options, e.g. jensen:target=51.")] = "jensen",
    seed: Annotated[int, typer.Option("--seed", help="The master seed (0 to 2**64-1).")] = 0,
    concurrency: Annotated[int | None, typer.Option(
        "--concurrency", help="Tables playing at once (default: cores); as many more start their bots meanwhile.",
        show_default=False)] = None,
    processes: Annotated[int | None, typer.Option(
        "--processes", help="Arena processes the tables are spread over (default: one per core, "
        "at most one per table playing); 1 plays them all in this one.", show_default=False)] = None,
    fmt: Annotated[str, typer.Option("--format", help="deal: a board is one deal; game: one game to the target.")]
    = "deal",
    partners: Annotated[str, typer.Option("--partners", help="clone: a side is two copies of one bot; "
                                          "mixed: rotating partnerships of different bots.")] = "clone",
    pairing: Annotated[str, typer.Option("--pairing", help="roundrobin: every pairing; swiss: each round pairs "
                                         "bots of similar score (many bots, far fewer matches).")] = "roundrobin",
    rounds: Annotated[int | None, typer.Option("--rounds", help="Swiss rounds (default: log2 of the bots, plus 2).",
                                               show_default=False)] = None,
    gauntlet: Annotated[str | None, typer.Option("--gauntlet", help="Play only this bot against each other.",
                                                 show_default=False)] = None,
    resume: Annotated[str | None, typer.Option("--resume", help="Continue an interrupted tournament by name.",
                                               show_default=False)] = None,
    move_ms: Annotated[int, typer.Option("--move-ms", help="Per-move time limit, milliseconds.")] = 1000,
    bank_ms: Annotated[int, typer.Option("--bank-ms", help="Time bank per seat and table, milliseconds.")] = 10000,
    elo_k: Annotated[float, typer.Option("--elo-k", help="K of the sequential Elo kept as history.")] = 16.0,
    sandbox: SandboxOption = None,
    cluster: Annotated[str | None, typer.Option(
        "--cluster", help="Play the rooms on Dask: local:N (N worker processes here) or a scheduler's "
        "address, tcp://HOST:8786 (docs/cluster.md); each worker resolves --sandbox itself.",
        show_default=False)] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar, no standings.")] = False,
    db: DbOption = None,
) -> None:
    """Play a seeded duplicate tournament and print the standings; run it again to resume.

    Example: arena tournament run --bots bots/random_bot.py,bots/greedy_bot.py --boards 8 --name first
    """
    from arena.process.modes import resolve_mode

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
    with _open(db, create=True) as database:
        if resume is not None:
            if bots or all_bots:
                raise ArenaError("--resume takes the bots and settings stored with the tournament")
            tid = runner.prepare(database, resume, None, None)
        else:
            if all_bots == bool(bots):
                raise ArenaError("name the bots with --bots A,B,... or use --all")
            specs = [b["name"] for b in _latest(registry.list_bots(database))] if all_bots else bots.split(",")
            if all_bots and not specs:
                raise ArenaError("no bots registered yet: add some with 'arena bot add PATH'")
            settings = runner.Settings(boards=boards, variant=runner.parse_variant(variant), seed=seed, format=fmt,
                                   partners=partners, gauntlet=gauntlet, elo_k=elo_k, pairing=pairing, rounds=rounds,
                                   time_control=TimeControl(move_s=move_ms / 1000, bank_s=bank_ms / 1000))
            tid = runner.prepare(database, name, specs, settings, sandbox=mode)
        progress = None if quiet else runner.Progress(tables_total=0)
        t = trio.run(lambda: runner.run(database, tid, concurrency=concurrency, processes=processes,
                                         sandbox=mode if cluster is None else sandbox, progress=progress,
                                         cluster=cluster))
        if not quiet:
            from arena.cli.results import standings_cmd

            typer.echo(f"\ntournament '{t['name']}': {t['boards_done']} boards, seed {t['seed']}, "
                       f"{t['variant']['preset']}, {t['format']} format, {t['partners']} partners")
            standings_cmd(name=t["name"], db=db if db is not None else schema.default_db_path(), as_json=False)


def _latest(rows: list[dict]) -> list[dict]:
    latest: dict[str, dict] = {}
    for row in rows:
        if row["name"] not in latest or row["version"] > latest[row["name"]]["version"]:
            latest[row["name"]] = row
    return list(latest.values())


@app.command("replay")
def replay_cmd(
    deal_id: Annotated[int, typer.Argument(help="The deal's id (see 'arena matches --json').")],
    seat: Annotated[int | None, typer.Option("--seat", help="Show only what this seat could see.",
                                             show_default=False)] = None,
    step: Annotated[bool, typer.Option("--step", help="Wait for Enter after each move.")] = False,
    db: DbOption = None,
) -> None:
    """Step through a stored deal in the terminal, checked move by move by the engine.

    Example: arena replay 17 --seat 2
    """
    with _open(db) as database:
        document = replay.document(database, deal_id)
    for frame in replay.render(document, seat=seat):
        typer.echo(frame)
        if step and sys.stdin.isatty():
            input()
