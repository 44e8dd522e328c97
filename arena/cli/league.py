"""`arena league serve|status|standings`, `arena league author add|list|revoke` and `arena submit`:
a thin layer over arena.league (docs/league.md)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from arena.cli import GAME_HELP, PLAYERS_HELP, VARIANT_HELP, app, echo, echo_json
from arena.cli.results import DbOption, JsonOption, _open, _render, standings_notes, standings_text
from arena.errors import ArenaError
from arena.league import archive, authors, client, store
from arena.league.archive import MiB

league_app = typer.Typer(help="A standing competition: a ladder that authors submit bots to.",
                         no_args_is_help=True, rich_markup_mode=None)
author_app = typer.Typer(help="Add, list and revoke the league's authors.", no_args_is_help=True,
                         rich_markup_mode=None)
app.add_typer(league_app, name="league")
league_app.add_typer(author_app, name="author")

LeagueOption = Annotated[str, typer.Option("--name", help="The league's tournament.")]


@league_app.command("serve")
def serve_cmd(
    db: DbOption = None,
    host: Annotated[str, typer.Option(help="Address to listen on (put a reverse proxy in front for TLS).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=0, max=65535, help="Port (0: any free one, printed).")] = 8018,
    public_host: Annotated[list[str] | None, typer.Option(
        "--public-host", help="A name the server is reached by (its Host header, behind a reverse proxy); "
        "repeatable. Requests naming another host are refused (DNS rebinding); the --host address, and "
        "localhost for a loopback one, are always taken.", show_default=False)] = None,
    concurrency: Annotated[int, typer.Option(help="Matches played at once (each plays its two rooms side by side; "
                                             "0: one per two cores, or with --cluster what keeps its workers busy).")] = 0,
    boards: Annotated[int, typer.Option(help="Boards per match (fixed when the league is made).")] = 8,
    sandbox: Annotated[str, typer.Option(help="auto, fork, bwrap, rlimit or none.")] = "auto",
    cluster: Annotated[str | None, typer.Option(
        "--cluster", help="Play the ladder's rooms on Dask: local:N (N worker processes here) or a scheduler's "
        "address, tcp://HOST:8786 (docs/cluster.md); each worker resolves --sandbox itself.",
        show_default=False)] = None,
    max_bytes: Annotated[int, typer.Option(help="Largest bot, unpacked, in bytes.")] = archive.Limits.max_bytes,
    max_files: Annotated[int, typer.Option(help="Most files and folders in a bot.")] = archive.Limits.max_files,
    submit_limit: Annotated[int, typer.Option(help="Submissions an author may make per --submit-window.")] = 10,
    submit_window: Annotated[float, typer.Option(help="Seconds the --submit-limit counts over.")] = 3600.0,
    quota_mb: Annotated[float, typer.Option(help="MiB an author's stored versions may take.")] = 100.0,
    total_quota_mb: Annotated[float, typer.Option(help="MiB the league's stored versions may take in all.")] = 5000.0,
    min_free_mb: Annotated[float, typer.Option(help="MiB the database's disk keeps free: a submission that "
                                               "would leave less is refused.")] = 1000.0,
    code_limit: Annotated[int, typer.Option(help="Downloads of their own bots' code an author may make per hour.")] = 30,
    move_ms: Annotated[float, typer.Option(help="Milliseconds per move before the bank is drawn on.")] = 1000.0,
    fair: Annotated[bool, typer.Option("--fair/--free", help="The fair setting (README, Running tournaments): "
                                       "every reply released one move limit after its act; --free: at once.")] = True,
    name: LeagueOption = store.DEFAULT_NAME,
    game: Annotated[str | None, typer.Option("--game", help=GAME_HELP + " Fixed when the league is made.",
                                             show_default=False)] = None,
    players: Annotated[int | None, typer.Option("--players", help=PLAYERS_HELP + " A game of one bot a seat: "
                                                "each match is a table of that many bots.", show_default=False)] = None,
    variant: Annotated[str | None, typer.Option("--variant", help=VARIANT_HELP, show_default=False)] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="No line per match started, room stored and fit made.")] = False,
) -> None:
    """Play the ladder forever and serve its pages, submission form and JSON API.

    Killed and started again it plays on: nothing lost, nothing counted twice.

    Example: arena league serve --db league.db --port 8018 --boards 8 --game zwicken --players 3
    """
    from arena.tournaments import runner

    rules = None
    if game is not None or variant is not None or players is not None:
        rules = runner.with_players(runner.parse_variant(variant, game), game, players, variant)
    if min(quota_mb, total_quota_mb, min_free_mb) < 0:
        raise ArenaError("--quota-mb, --total-quota-mb and --min-free-mb cannot be negative")
    if submit_limit < 1 or submit_window <= 0 or code_limit < 1:
        raise ArenaError("--submit-limit and --code-limit must be at least 1 and --submit-window above 0")
    if max_bytes < 1 or max_files < 1:
        raise ArenaError("--max-bytes and --max-files must be at least 1")
    if cluster is not None:
        from arena.tournaments import cluster as dask_cluster

        dask_cluster.check(cluster)  # one line if Dask is missing or the address is not one
    import trio

    from arena.league.server import serve
    from arena.league.submissions import Quota, RateLimit
    from arena.play.table import TimeControl
    from arena.results import schema

    path = db if db is not None else schema.default_db_path()

    def log(line: str) -> None:
        echo(line)
        sys.stdout.flush()

    def ready(url: str) -> None:
        echo(f"league '{name}' serving on {url} (Ctrl-C stops; started again it plays on)")
        sys.stdout.flush()

    import faulthandler
    import signal

    faulthandler.register(signal.SIGUSR1, all_threads=True)  # `kill -USR1 PID`: every thread's stack, on stderr
    try:
        trio.run(lambda: serve(path, host=host, port=port, concurrency=concurrency or None, sandbox=sandbox,
                               cluster=cluster, name=name, game=game, variant=rules, public_hosts=public_host or [],
                               boards=boards, limits=archive.Limits(max_bytes, max_files),
                               rate=RateLimit(submit_limit, submit_window),
                               code_rate=RateLimit(code_limit, 3600.0, "code"),
                               quota=Quota(int(quota_mb * MiB), int(total_quota_mb * MiB), int(min_free_mb * MiB)),
                               time_control=TimeControl(move_s=move_ms / 1000, tempo="fixed" if fair else "free"),
                               on_ready=ready,
                               log=None if quiet else log))
    except KeyboardInterrupt:
        pass
    echo("league stopped", err=True)


@league_app.command("status")
def status_cmd(db: DbOption = None, name: LeagueOption = store.DEFAULT_NAME, as_json: JsonOption = False) -> None:
    """What the ladder plays and what waits (new versions short of their first matches).

    Example: arena league status --db league.db
    """
    from arena.league.server import status_document

    with _open(db, readonly=True) as d:
        t = store.league_tournament(d, name, create=False)
        doc = status_document(d, t["id"])
    if as_json:
        echo_json(doc)
        return
    echo(f"league '{doc['league']}': {doc['status']}, {doc['matches']} matches, {doc['boards_done']} boards "
         f"({doc['boards_per_match']} a match)")
    for key, title in (("playing", "in play"), ("to_resume", "to resume at the next start")):
        for m in doc[key]:
            echo(f"{title}: match {m['match_no']} {' v '.join(m['entrants'])}, {m['tables'] // m['rooms']}/{m['boards']} "
                 "boards stored")
    echo("active: " + (", ".join(f"{b['bot']} ({b['matches']} matches)" for b in doc["active"]) or "none"))
    if doc["waiting"]:
        echo("waiting for first matches: " + ", ".join(doc["waiting"]))


@league_app.command("standings")
def standings_cmd(db: DbOption = None, name: LeagueOption = store.DEFAULT_NAME, as_json: JsonOption = False) -> None:
    """The ladder's standings (--json: the document `arena standings NAME --json` prints).

    Example: arena league standings --db league.db --json
    """
    from arena.results import read

    with _open(db, readonly=True) as d:
        t = store.league_tournament(d, name, create=False)
        if not t["bots"]:
            raise ArenaError(f"league '{name}' has no bots yet")
        doc = read.standings_document(d, t["id"], boards=as_json)
        versions = store.versions_of(d)
    if as_json:
        echo_json(doc)
        return
    for row in doc["standings"]:  # as the league page marks them: only a name's last version plays
        v = versions.get(row["bot_id"])
        if v is not None and not v["active"]:
            row["bot"] += " (retired)" if v["retired"] else " (replaced)"
    echo(standings_text(doc))
    for line in standings_notes(doc):
        echo(line)


@league_app.command("prune")
def prune_cmd(db: DbOption = None, name: LeagueOption = store.DEFAULT_NAME,
              dry_run: Annotated[bool, typer.Option("--dry-run", help="List what would go; remove nothing.")] = False,
              as_json: JsonOption = False) -> None:
    """Remove the stored copies of versions that never played (replaced before their first
    match); their rows and checks stay, so authors still see them. Frees their quota.

    Example: arena league prune --db league.db --dry-run
    """
    with _open(db) as d:
        t = store.league_tournament(d, name, create=False)
        store.ensure_tables(d)
        versions = store.prunable(d, t["id"]) if dry_run else store.prune(d, t["id"])
    if as_json:
        echo_json(versions)
        return
    for v in versions:
        echo(f"{'would prune' if dry_run else 'pruned'} {v['name']}@{v['version']} by {v['author']} "
             f"({(v['bytes'] or 0) / MiB:.1f} MiB)")
    echo(f"{len(versions)} versions, {sum(v['bytes'] or 0 for v in versions) / MiB:.1f} MiB"
         + (" would be freed" if dry_run else " freed"))


@author_app.command("add")
def author_add(author: Annotated[str, typer.Argument(help="The author's name.")], db: DbOption = None) -> None:
    """Add an author and print their token, once: only its hash is stored.

    Example: arena league author add alice --db league.db
    """
    with _open(db, create=True) as d:
        row, token = authors.add_author(d, author)
    echo(f"author '{row['name']}' added; their token (shown this once, keep it secret):")
    echo(token)


@author_app.command("list")
def author_list(db: DbOption = None, as_json: JsonOption = False) -> None:
    """Every author, when added, whether revoked, how many bot names they own.

    Example: arena league author list --db league.db
    """
    with _open(db, readonly=True) as d:
        rows = authors.list_authors(d)
    if as_json:
        echo_json(rows)
        return
    echo(_render(["author", "added", "revoked", "bots"],
                 [[r["name"], r["created"], r["revoked"] or "", r["bots"]] for r in rows], [False, False, False, True]))


@author_app.command("revoke")
def author_revoke(author: Annotated[str, typer.Argument(help="The author's name.")], db: DbOption = None) -> None:
    """End an author's token: every later write with it is refused. Their bots stay on the ladder.

    Example: arena league author revoke alice --db league.db
    """
    with _open(db) as d:
        authors.revoke_author(d, author)
    echo(f"author '{author}' revoked")


@app.command("submit")
def submit_cmd(
    path: Annotated[Path | None, typer.Argument(help="The bot: a file, a folder, or a .tar/.tar.gz of one.",
                                                show_default=False)] = None,
    server: Annotated[str, typer.Option(help="The league's address.", envvar="ARENA_LEAGUE")] = "http://127.0.0.1:8018",
    token_file: Annotated[Path | None, typer.Option(
        "--token-file", help="A file holding your token (else $ARENA_TOKEN; never on the command line, where "
        "every local user sees it).", show_default=False)] = None,
    name: Annotated[str | None, typer.Option(help="The bot's name on the ladder (default: the file's stem or folder's "
                                                   "name without _bot, as for `arena bot add`).",
                                              show_default=False)] = None,
    command: Annotated[str | None, typer.Option(
        help="How to run the bot in its folder, for a bot no file of which runs it (as for `arena bot add`): "
        "e.g. \"java -jar bot.jar\". It runs in the same sandbox as any bot.", show_default=False)] = None,
    retire: Annotated[str | None, typer.Option(help="Retire this bot of yours instead.", show_default=False)] = None,
    as_json: JsonOption = False,
) -> None:
    """Submit a bot to a league, which checks it and puts it on its ladder.

    The same name again with new content is its next version, which replaces the old one on the
    ladder; an older version's content again puts that version back.

    The token comes from $ARENA_TOKEN or --token-file, never from the command line.

    A folder without bot.py, main.py, ... or an executable `bot` says how it runs with --command
    (run in the folder): arena submit bots/kits/java --name alice-java --command "java -jar bot.jar"

    Example: arena submit bots/my_bot/ --server https://league.example.org --token-file ~/.arena-token   # as "my"
    """
    token = _read_token(token_file)
    if retire is not None:
        answer = client.retire(server, token, retire)
        echo_json(answer) if as_json else echo(f"retired {retire}")
        return
    if path is None:
        raise ArenaError("give the bot's PATH (or --retire NAME)")
    try:
        answer = client.submit(server, token, name or client.default_name(path), path, command)
    except client.ServerRefused as exc:
        if exc.body.get("check"):
            echo(exc.body["check"], err=True)
        raise
    if as_json:
        echo_json(answer)
        return
    echo(answer["check"])
    echo(answer["summary"])


def _read_token(path: Path | None) -> str:
    """The author's token from --token-file, else from $ARENA_TOKEN: a process's arguments are
    public to every local user, its environment and its files are not."""
    if path is not None:
        try:
            token = path.read_text(errors="replace").strip()
        except OSError as exc:
            raise ArenaError(f"cannot read --token-file {path}: {exc.strerror}") from None
        where = f"--token-file {path}"
    else:
        token, where = os.environ.get("ARENA_TOKEN", "").strip(), "ARENA_TOKEN"
        if not token:
            raise ArenaError("no token: set ARENA_TOKEN or give --token-file FILE (the token "
                             "'arena league author add' printed)")
    if not token or not token.isascii() or not token.isprintable() or " " in token:
        raise ArenaError(f"{where} does not hold a token (one line: zwl_<id>_<secret>)")
    return token
