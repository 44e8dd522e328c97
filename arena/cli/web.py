"""`arena serve` and `arena report`: results in the browser, thin wrappers over arena.report."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cli import app
from arena.cli.results import DbOption, NameArg, _open
from arena.errors import ArenaError
from arena.results import read, schema

ShowStderr = Annotated[bool, typer.Option(
    "--show-stderr", help="On a league's database, show what bots wrote to stderr too (kept private otherwise).")]


@app.command("serve")
def serve_cmd(
    db: DbOption = None,
    port: Annotated[int, typer.Option("--port", min=0, max=65535, help="The port on 127.0.0.1 (0: any free one).")] = 8017,
    show_stderr: ShowStderr = False,
) -> None:
    """Serve every tournament of a database in the browser, read-only; a running one updates itself.

    Standings with error bars, crosstable, Elo history, bots, matches and a replay viewer for
    every stored deal. Listens on 127.0.0.1 only; Ctrl-C stops it. A league's database is shown
    without its authors' stderr unless --show-stderr.

    Example: arena serve --db results/arena.db --port 8017
    """
    import trio

    from arena.report.server import serve

    path = db if db is not None else schema.default_db_path()

    def ready(url: str) -> None:
        typer.echo(f"serving {path} read-only at {url}/ (Ctrl-C stops)")

    trio.run(lambda: serve(path, port, show_stderr=show_stderr, on_ready=ready))


@app.command("report")
def report_cmd(
    name: NameArg = None,
    output: Annotated[Path | None, typer.Option(
        "--output", help="The folder to write (default: results/report-NAME).", show_default=False)] = None,
    db: DbOption = None,
    show_stderr: ShowStderr = False,
    force: Annotated[bool, typer.Option("--force", help="Write into a non-empty folder that is no report.")] = False,
) -> None:
    """Write a tournament's pages as a static site that opens from disk (index.html), with every deal.

    It only reads the database (one you may only read works). A league's database is written
    without its authors' stderr unless --show-stderr. --output may be a new or empty folder or
    an earlier report (written over); another non-empty folder needs --force.

    Example: arena report spring-cup --output results/spring-cup-site
    """
    from arena.report.site import write_site

    with _open(db, readonly=True) as d:
        name = read.get_tournament(d, name)["name"]  # none given: the latest, as `standings`
        out = output if output is not None else Path("results") / f"report-{_safe(name)}"
        _check_output(out, force)
        counts = write_site(d, name, out, show_stderr=show_stderr, league=_league_view(d, name))
    typer.echo(f"wrote {out / 'index.html'} ({counts['pages']} pages, {counts['deals']} deals)")
    if "viewer_skipped" in counts:
        typer.echo(f"(the game's viewer is left out, its deals drawn as text: {counts['viewer_skipped']})", err=True)


def _league_view(db: Any, name: str) -> Any:
    """For a league's tournament, what reads its league view (the report opens on it), else None."""
    if "league" not in (read.get_tournament(db, name)["settings"] or {}):
        return None
    from arena.league.pages import league_document

    return league_document


def _check_output(out: Path, force: bool) -> None:
    """Refuse an --output that is a file, or a non-empty folder that is no earlier report."""
    if out.exists() and not out.is_dir():
        raise ArenaError(f"--output {out} is a file, not a folder: give a folder for the report")
    if out.is_dir() and not force and any(out.iterdir()) and not (out / "mode.js").is_file():
        raise ArenaError(f"--output {out} is a folder with other files in it and no report: give a new or "
                         "empty folder, or --force to write into it")


def _safe(name: str) -> str:
    """A tournament name as one folder name."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name).strip(".") or "tournament"
