"""Commands that register bots and read results: thin wrappers over arena.results.

`arena bot add|list`, `arena tournament list`, `arena standings`, `arena crosstable`,
`arena matches`, `arena export`. Every command takes `--db PATH` (default: ARENA_DB or
results/arena.db); every listing also prints `--json`.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import sqlite_utils
import typer

from arena.cli import app, bot_app, tournament_app
from arena.errors import ArenaError
from arena.results import export, read, registry, schema

DbOption = Annotated[
    Path | None,
    typer.Option("--db", help="The arena database (default: $ARENA_DB, else results/arena.db).", show_default=False),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
NameArg = Annotated[str | None, typer.Argument(help="Tournament name (default: the latest).", show_default=False)]


@contextmanager
def _open(db_path: Path | None, *, create: bool = False) -> Iterator[sqlite_utils.Database]:
    """Open the database for one command; a corrupt page met later is still one clear line."""
    path = db_path if db_path is not None else schema.default_db_path()
    db = schema.open_db(path, create=create)
    try:
        yield db
    except sqlite3.DatabaseError as exc:
        raise ArenaError(f"{path} is corrupt or unreadable: {exc}") from None
    finally:
        db.close()


def _json(value: Any) -> None:
    typer.echo(json.dumps(value, indent=2, ensure_ascii=False))


def _render(headers: Sequence[str], rows: Sequence[Sequence[Any]], right: Sequence[bool] | None = None) -> str:
    """A plain text table: columns padded to their widest cell, numbers right-aligned."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    right = right or [False] * len(headers)
    lines = []
    for n, row in enumerate(cells):
        parts = [c.rjust(w) if right[i] else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))]
        lines.append("  ".join(parts).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _elo(x: float | None) -> str:
    return "-" if x is None else f"{x:+.0f}" if round(x) else "0"


# ---- bots ----------------------------------------------------------------------------------


@bot_app.command("add")
def bot_add(
    path: Annotated[Path, typer.Argument(help="The bot: a file, or a folder.", show_default=False)],
    name: Annotated[str | None, typer.Option(help="Name to register (default: the file's stem without _bot).")] = None,
    command: Annotated[
        str | None, typer.Option(help="How to run it, if the arena cannot tell from the file.")
    ] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Register a bot: store a copy and its sha256; a changed file becomes a new version.

    Example: arena bot add bots/greedy_bot.py --name greedy
    """
    with _open(db, create=True) as d:
        before = {b["id"] for b in registry.list_bots(d)}
        bot = registry.add_bot(d, path, name=name, command=command)
    if as_json:
        _json(bot)
        return
    state = "added" if bot["id"] not in before else "already registered as"
    typer.echo(f"{state} {bot['name']} version {bot['version']} (id {bot['id']}, sha256 {bot['sha256'][:12]})")


@bot_app.command("list")
def bot_list(db: DbOption = None, as_json: JsonOption = False) -> None:
    """List every registered bot version.

    Example: arena bot list --json
    """
    with _open(db) as d:
        bots = registry.list_bots(d)
    if as_json:
        _json(bots)
        return
    if not bots:
        typer.echo("no bots registered yet (arena bot add PATH)")
        return
    typer.echo(_render(
        ["id", "bot", "version", "kind", "sha256", "command", "added"],
        [[b["id"], b["name"], b["version"], b["kind"], b["sha256"][:12], b["command"] or "", b["added"][:19]]
         for b in bots],
        [True, False, True, False, False, False, False],
    ))


# ---- tournaments ---------------------------------------------------------------------------


@tournament_app.command("list")
def tournament_list(db: DbOption = None, as_json: JsonOption = False) -> None:
    """List tournaments, oldest first, with their progress.

    Example: arena tournament list --db results/arena.db
    """
    with _open(db) as d:
        ts = read.list_tournaments(d)
    if as_json:
        _json([{**t, "seed": str(t["seed"])} for t in ts])
        return
    if not ts:
        typer.echo("no tournaments yet (arena tournament run ...)")
        return
    typer.echo(_render(
        ["name", "status", "variant", "format", "partners", "bots", "boards", "created"],
        [[t["name"], t["status"], t["variant"].get("preset", "?"), t["format"], t["partners"], len(t["bots"]),
          f"{t['boards_done']}/{t['boards_total']}", (t["created"] or "")[:19]] for t in ts],
        [False, False, False, False, False, True, True, False],
    ))


def _header(t: dict) -> str:
    return (f"{t['name']}: {t['status']}, {t['boards_done']}/{t['boards_total']} boards, "
            f"{t['variant'].get('preset', '?')}, {t['format']}, partners {t['partners']}, seed {t['seed']}")


@app.command("standings")
def standings_cmd(name: NameArg = None, db: DbOption = None, as_json: JsonOption = False) -> None:
    """Show the standings: Elo with its 95% interval, wins, draws, losses, margin, faults.

    Elo: Bradley-Terry fit over all boards; 0 = the random bot (else the mean).

    Interval: bootstrap over boards. "!": faulted in more than 10% of its tables.

    Example: arena standings spring-cup --json
    """
    with _open(db) as d:
        t = read.get_tournament(d, name)
        rows = read.standings(d, t["id"])
    if as_json:
        _json(rows)
        return
    typer.echo(_header(t))
    typer.echo(_render(
        ["rank", "bot", "elo", "95% interval", "LOS", "boards", "W", "D", "L", "margin", "faults"],
        [[r["rank"], r["bot"], _elo(r["elo"]),
          "-" if r["ci_low"] is None else f"{_elo(r['ci_low'])} .. {_elo(r['ci_high'])}",
          "-" if r["los_next"] is None else f"{100 * r['los_next']:.0f}%",
          r["boards"], r["wins"], r["draws"], r["losses"], f"{r['avg_margin']:+.1f}",
          f"{r['faults']}{' !' if r['fault_flag'] else ''}"] for r in rows],
        [True, False, True, True, True, True, True, True, True, True, True],
    ))
    typer.echo("LOS: likelihood of superiority over the next bot down.")
    if t["settings"].get("pairing"):
        from arena.tournaments import swiss

        typer.echo(swiss.describe(t["settings"]["pairing"]))
    if any(r["fault_flag"] for r in rows):
        typer.echo("!: faulted in more than 10% of its tables.")


@app.command("crosstable")
def crosstable_cmd(name: NameArg = None, db: DbOption = None, as_json: JsonOption = False) -> None:
    """Head-to-head scores: each cell is the row bot's score (win 1, draw 1/2) and boards.

    Example: arena crosstable spring-cup
    """
    with _open(db) as d:
        t = read.get_tournament(d, name)
        ct = read.crosstable(d, t["id"])
    if as_json:
        _json(ct)
        return
    typer.echo(_header(t))
    bots = ct["bots"]
    table = []
    for n, row in enumerate(ct["rows"], start=1):
        cells = []
        for other in bots:
            c = row["results"].get(other)
            cells.append("x" if other == row["bot"] else "" if c is None else f"{c['score']:g}/{c['boards']}")
        table.append([n, row["bot"], *cells])
    typer.echo(_render(["#", "bot", *(str(i) for i in range(1, len(bots) + 1))], table,
                       [True, False, *([True] * len(bots))]))


@app.command("matches")
def matches_cmd(
    name: NameArg = None,
    bot: Annotated[str | None, typer.Option(help="Only matches this bot played.")] = None,
    match: Annotated[int | None, typer.Option(help="One match board by board, with its deal ids.")] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the matches, or one match board by board (deal ids there are for `arena replay`).

    Example: arena matches spring-cup --bot greedy; arena matches spring-cup --match 3
    """
    with _open(db) as d:
        t = read.get_tournament(d, name)
        if match is not None:
            detail = read.match_detail(d, t["id"], match)
        else:
            ms = read.matches(d, t["id"], bot=bot)
    if match is not None:
        if as_json:
            _json(detail)
            return
        typer.echo(f"match {match}: {'+'.join(detail['team_a'])} (A) v {'+'.join(detail['team_b'])} (B)")
        rows = []
        for b in detail["boards"]:
            for tb in b["tables"]:
                faults = ", ".join(f"seat {f['seat']} {f['status']}" for f in tb["faults"])
                rows.append([b["board_no"], "B-A" if tb["swapped"] else "A-B", "-".join(map(str, tb["points"])),
                             "" if b["margin"] is None else f"{b['margin']:+d}", b["outcome"] or "",
                             ",".join(map(str, tb["deal_ids"])), faults])
        typer.echo(_render(["board", "sides", "points", "margin A", "result A", "deal ids", "faults"], rows,
                           [True, False, True, True, False, False, False]))
        return
    if as_json:
        _json(ms)
        return
    typer.echo(_header(t))
    typer.echo(_render(
        ["#", "team A", "team B", "boards", "W-D-L (A)", "margin A", "faults"],
        [[m["match_no"], "+".join(dict.fromkeys(m["team_a"])), "+".join(dict.fromkeys(m["team_b"])),
          f"{m['boards_done']}/{m['boards']}", f"{m['wins']}-{m['draws']}-{m['losses']}", f"{m['margin']:+d}",
          m["faults"]] for m in ms],
        [True, False, False, True, True, True, True],
    ))


@app.command("export")
def export_cmd(
    name: Annotated[str, typer.Argument(help="Tournament name.", show_default=False)],
    format: Annotated[str, typer.Option("--format", help="csv (one row per table) or json (everything).")],
    output: Annotated[Path | None, typer.Option(help="Write to this file (default: standard output).")] = None,
    db: DbOption = None,
) -> None:
    """Export a tournament: csv (one row per table) or json (settings, standings, every deal).

    Example: arena export spring-cup --format csv --output results/spring-cup.csv
    """
    if format not in ("csv", "json"):
        raise ArenaError(f"unknown export format '{format}' (known: csv, json)")
    with _open(db) as d:
        t = read.get_tournament(d, name)
        if format == "csv":
            text = export.export_csv(d, t["id"])
        else:
            text = json.dumps(export.export_document(d, t["id"]), indent=2, ensure_ascii=False) + "\n"
    if output is None:
        typer.echo(text, nl=False)
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {output}", err=True)
