"""Commands that register bots and read results: thin wrappers over arena.results.

`arena bot add|list|remove|rename|disable|enable`, `arena tournament list|delete`, `arena
standings`, `arena crosstable`, `arena matches`, `arena export`. Every command takes `--db PATH`
(default: ARENA_DB or results/arena.db); every listing also prints `--json`, and works on a
database the user may only read.
"""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

import games
from arena.cli import app, bot_app, echo, echo_json, tournament_app
from arena.errors import ArenaError, visible

if TYPE_CHECKING:
    import sqlite_utils

# The commands import what they use when they run: `arena` starts for every command, and most
# need a fraction of the arena (tests/test_layers.py: arena.cli loads no database or play module).

DbOption = Annotated[
    Path | None,
    typer.Option("--db", help="The arena database (default: $ARENA_DB, else results/arena.db).", show_default=False),
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")]
NameArg = Annotated[str | None, typer.Argument(help="Tournament name (default: the latest).", show_default=False)]


@contextmanager
def _open(db_path: Path | None, *, create: bool = False, readonly: bool = False) -> Iterator[sqlite_utils.Database]:
    """Open the database for one command (`readonly` for a listing: then a file this user may
    not write works too); a corrupt page or a refused write met later is still one clear line."""
    from arena.results import schema

    path = db_path if db_path is not None else schema.default_db_path()
    db = schema.open_db(path, create=create, readonly=readonly)
    try:
        yield db
    except sqlite3.DatabaseError as exc:
        if "readonly" in str(exc):
            raise ArenaError(f"{path} is read-only here: this command writes to it ({exc})") from None
        raise ArenaError(f"{path} is corrupt or unreadable: {exc}") from None
    finally:
        db.close()


def _json(value: Any) -> None:
    echo_json(value)


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


def standings_text(doc: dict) -> str:
    """The standings table of a standings document (also printed during a run, every
    --report-every boards), cell for cell what the pages show (`arena.results.present`)."""
    from arena.results import present

    t = present.table(doc)
    cols = t["columns"]
    return _render([c["heading"] for c in cols], [[row[c["key"]] for c in cols] for row in t["rows"]],
                   [c["right"] for c in cols])


# ---- bots ----------------------------------------------------------------------------------


@bot_app.command("add")
def bot_add(
    path: Annotated[Path, typer.Argument(help="The bot: a file, or a folder.", show_default=False)],
    name: Annotated[str | None, typer.Option(help="Name to register (default: the file's stem without _bot).")] = None,
    command: Annotated[
        str | None, typer.Option(help="How to run it, if the arena cannot tell from the file.")
    ] = None,
    new_version: Annotated[bool, typer.Option("--new-version", help="Other content under a registered name "
                                              "becomes its next version (else refused).")] = False,
    no_check: Annotated[bool, typer.Option("--no-check", help="Store it without checking that it starts and "
                                           "answers hello.")] = False,
    sandbox: Annotated[str | None, typer.Option("--sandbox", help="Where the check runs it (default: the best "
                                                "available).", show_default=False)] = None,
    game: Annotated[str | None, typer.Option("--game", help="The game whose table the check seats it at, beside the "
                                             "arena's random bots ('arena rules games' lists them). [default: "
                                             f"{games.DEFAULT}, or the first game the bot's ready.games names where "
                                             f"it does not name {games.DEFAULT}]", show_default=False)] = None,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """Register a bot: check that it starts and answers hello, then store a copy and its sha256.

    The same content again is the same bot; other content under a registered name needs
    --new-version. Example: arena bot add bots/zwicker/greedy_bot.py --name greedy
    """
    from arena.results import registry
    from arena.process.modes import resolve_mode
    from arena.tournaments.runner import register_bot

    with _open(db, create=True) as d:
        from arena.league.store import league_owner

        if (owned := league_owner(d, name or registry.default_name(Path(path)))) is not None:
            raise ArenaError(f"the name '{owned[0]}' belongs to the league author '{owned[1]}' (their bot, their "
                             "versions): choose another --name")
        before = {b["id"] for b in registry.list_bots(d)}
        bot = register_bot(d, path, name=name, command=command, new_version=new_version, check=not no_check,
                           sandbox=resolve_mode(sandbox) if not no_check else "none", game=game)
    if as_json:
        _json(bot)
        return
    state = "added" if bot["id"] not in before else "already registered as"
    echo(f"{state} {bot['name']} version {bot['version']} (id {bot['id']}, sha256 {bot['sha256'][:12]})")


@bot_app.command("list")
def bot_list(db: DbOption = None, as_json: JsonOption = False) -> None:
    """List every registered bot version (removed ones left out).

    Example: arena bot list --json
    """
    from arena.results import registry

    with _open(db, readonly=True) as d:
        bots = registry.list_bots(d)
    if as_json:
        _json(bots)
        return
    if not bots:
        echo("no bots registered yet (arena bot add PATH)")
        return
    echo(_render(
        ["id", "bot", "version", "kind", "sha256", "command", "added", "state"],
        [[b["id"], b["name"], b["version"], b["kind"], b["sha256"][:12], b["command"] or "", b["added"][:19],
          "disabled" if b.get("disabled") else ""] for b in bots],
        [True, False, True, False, False, False, False, False],
    ))


BotArg = Annotated[str, typer.Argument(help="A registered name (every version), name@version, id, or the bot's path.",
                                       show_default=False)]


@bot_app.command("remove")
def bot_remove(
    bot: BotArg,
    force: Annotated[bool, typer.Option("--force", help="Remove it although tournaments used it: its copy goes, "
                                        "their results stay readable.")] = False,
    db: DbOption = None,
) -> None:
    """Remove a bot and its stored copy; refused while tournaments use it, unless --force.

    Example: arena bot remove greedy@2
    """
    from arena.results import registry

    with _open(db) as d:
        rows = registry.remove_bot(d, bot, force=force)
    echo("removed " + ", ".join(f"{r['name']}@{r['version']}" for r in rows))


@bot_app.command("rename")
def bot_rename(
    old: Annotated[str, typer.Argument(help="The registered name.", show_default=False)],
    new: Annotated[str, typer.Argument(help="The new name.", show_default=False)],
    db: DbOption = None,
) -> None:
    """Rename a bot, every version of it; its results show the new name.

    Example: arena bot rename greedy greedy-classic
    """
    from arena.results import registry

    with _open(db) as d:
        registry.rename_bot(d, old, new)
    echo(f"renamed {old} to {new}")


@bot_app.command("disable")
def bot_disable(bot: BotArg, db: DbOption = None) -> None:
    """Leave a bot out of --all and of new tournaments (its results stay).

    Example: arena bot disable first
    """
    from arena.results import registry

    with _open(db) as d:
        rows = registry.disable_bot(d, bot)
    echo("disabled " + ", ".join(f"{r['name']}@{r['version']}" for r in rows))


@bot_app.command("enable")
def bot_enable(bot: BotArg, db: DbOption = None) -> None:
    """Undo `arena bot disable`.

    Example: arena bot enable first
    """
    from arena.results import registry

    with _open(db) as d:
        rows = registry.disable_bot(d, bot, disabled=False)
    echo("enabled " + ", ".join(f"{r['name']}@{r['version']}" for r in rows))


# ---- tournaments ---------------------------------------------------------------------------


@tournament_app.command("list")
def tournament_list(db: DbOption = None, as_json: JsonOption = False) -> None:
    """List tournaments, oldest first, with their progress.

    Example: arena tournament list --db results/arena.db
    """
    from arena.results import read

    with _open(db, readonly=True) as d:
        ts = read.list_tournaments(d)
    if as_json:
        _json(ts)
        return
    if not ts:
        echo("no tournaments yet (arena tournament run ...)")
        return
    echo(_render(
        ["name", "status", "variant", "format", "partners", "bots", "boards", "created"],
        [[t["name"], t["status"], t["variant_text"], t["format"], t["partners"], len(t["bots"]),
          f"{t['boards_done']}/{t['boards_total']}", (t["created"] or "")[:19]] for t in ts],
        [False, False, False, False, False, True, True, False],
    ))


@tournament_app.command("delete")
def tournament_delete(
    name: Annotated[str, typer.Argument(help="Tournament name.", show_default=False)],
    db: DbOption = None,
) -> None:
    """Delete a tournament and every result of it (its bots stay registered).

    Example: arena tournament delete practice-run
    """
    from arena.results import read, schema, write
    from arena.results.lock import is_running

    with _open(db) as d:
        t = read.get_tournament(d, name)
        if is_running(schema.db_path(d), t["id"]):
            raise ArenaError(f"tournament '{name}' is being played right now: stop that run first")
        write.delete_tournament(d, t["id"])
    echo(f"deleted tournament '{name}' ({t['boards_done']} boards)")


def _header(t: dict) -> str:
    return (f"{t['name']}: {t['status']}, {t['boards_done']}/{t['boards_total']} boards, "
            f"{t['variant_text']}, {t['format']}, {'partners ' + t['partners'] if t['partnerships'] else t['seating']}, seed {t['seed']}")


ErrorsOption = Annotated[str, typer.Option(
    "--errors", help="What the 95% interval is about: pool (a bot's Elo minus the pool's mean) or anchor (the "
    "Elo against the random bot, whose own uncertainty it then carries).")]


def standings_notes(doc: dict) -> list[str]:
    """The lines under a standings table (`arena.results.present.notes`)."""
    from arena.results import present

    return present.notes(doc)


@app.command("standings")
def standings_cmd(name: NameArg = None, errors: ErrorsOption = "pool", db: DbOption = None,
                  as_json: JsonOption = False) -> None:
    """Show the standings: Elo with its 95% interval, LOS, wins, draws, losses, margin, faults.

    Elo: penalised Bradley-Terry fit over all boards; 0 = the random bot (else the mean).

    Interval: bootstrap over deals. --errors pool (default): a bot's Elo minus the pool's mean
    and that difference's interval (its place in the pool, not a test against the anchor);
    --errors anchor: the Elo's interval against the anchor. "> X": won every board; "–": no
    boards yet; "!": faulted in more than 10% of its tables. --json adds the prior, the flags,
    the pool's mean and every board's room outcomes, to refit elsewhere.

    Example: arena standings spring-cup --errors anchor --json
    """
    from arena.results import read

    with _open(db, readonly=True) as d:
        t = read.get_tournament(d, name)
        doc = read.standings_document(d, t["id"], errors, boards=as_json)  # the text shows no boards
    if as_json:
        _json(doc)
        return
    echo(_header(t))
    echo(standings_text(doc))
    for line in standings_notes(doc):
        echo(line)
    if t["settings"].get("pairing"):
        from arena.tournaments import swiss

        echo(swiss.describe(t["settings"]["pairing"]))


@app.command("crosstable")
def crosstable_cmd(name: NameArg = None, db: DbOption = None, as_json: JsonOption = False) -> None:
    """Head-to-head scores: each cell is the row bot's score (win 1, draw 1/2) and boards.

    Example: arena crosstable spring-cup
    """
    from arena.results import read

    with _open(db, readonly=True) as d:
        t = read.get_tournament(d, name)
        ct = read.crosstable(d, t["id"])
    if as_json:
        _json(ct)
        return
    echo(_header(t))
    bots = ct["bots"]
    table = []
    for n, row in enumerate(ct["rows"], start=1):
        cells = []
        for other in bots:
            c = row["results"].get(other)
            cells.append("x" if other == row["bot"] else "" if c is None else f"{c['score']:g}/{c['boards']}")
        table.append([n, row["bot"], *cells])
    echo(_render(["#", "bot", *(str(i) for i in range(1, len(bots) + 1))], table,
                       [True, False, *([True] * len(bots))]))


@app.command("matches")
def matches_cmd(
    name: NameArg = None,
    bot: Annotated[str | None, typer.Option(help="Only matches this bot played (name or path).")] = None,
    match: Annotated[int | None, typer.Option(help="One match board by board, with its deal ids.")] = None,
    logs: Annotated[bool, typer.Option("--logs", help="Under each fault, the bot's stderr (its first and last lines) and the "
                                      "sandbox's limit it met, if its words say so.")] = False,
    db: DbOption = None,
    as_json: JsonOption = False,
) -> None:
    """List the matches, or one match board by board (deal ids there are for `arena replay`),
    then every fault: where, the bot, its status and why.

    Example: arena matches spring-cup --bot greedy; arena matches spring-cup --match 3 --logs
    """
    from arena.play.live import room_label
    from arena.process.command import limit_met
    from arena.results import read

    with _open(db, readonly=True) as d:
        t = read.get_tournament(d, name)
        if match is not None:
            detail = read.match_detail(d, t["id"], match)
        else:
            ms = read.matches(d, t["id"], bot=bot)
        faults = read.faults(d, t["id"], match_no=match, bot=bot)
    if as_json:
        _json(detail if match is not None else ms)
        return
    if match is not None:
        _match_detail(match, detail)
    else:
        echo(_header(t))
        _matches(ms, bot)
    if faults:
        echo("\nfaults:")
    for f in faults:
        echo(f"  match {f['match_no']} board {f['board_no']} {room_label(f['room'])} seat {f['seat']} "
             f"{f['bot']}: {f['status']}: {visible(f['detail'])}")
        if logs:
            lines = f["stderr"].rstrip("\n").splitlines()
            shown = lines if len(lines) <= 2 * LOG_LINES else [*lines[:LOG_LINES // 2], f"... ({len(lines) - LOG_LINES} lines)",
                                                               *lines[-(LOG_LINES - LOG_LINES // 2):]]
            echo("\n".join(f"    | {visible(line.expandtabs(4))}" for line in shown) if shown else "    (no stderr)")
            if hint := limit_met(f"{f['detail']}\n{f['stderr']}"):
                echo(f"    limit: {hint}")
    if faults and not logs:
        echo("(--logs shows each faulting bot's stderr)")


def _match_detail(match: int, detail: dict) -> None:
    """A match of k entrants board by board: each room's points (or chips) per side, and each
    entrant's result over the rooms (two sides of partners: with its margin over the other)."""
    from arena.play.live import room_label

    k = len(detail["entrants"])
    echo(f"match {match}: " + ", ".join(f"{e} {name}" for e, name in enumerate(detail["entrants"]))
         + f"; room r gives side s to entrant (s - r) mod {k}")
    rows = []
    for b in detail["boards"]:
        for tb in b["tables"]:
            close = tb.get("close_out")
            rows.append([b["board_no"], room_label(tb["room"]), " ".join(f"{p:+d}" for p in tb["points"]),
                         "forfeit" if close is None else " ".join(f"{p:+d}" for p in close),
                         " ".join(f"{r:+d}" for r in b["results"]) if b["results"] is not None else "",
                         " ".join(f"{r:+d}" for r in b["margins"]) if b["margins"] is not None else "",
                         ",".join(map(str, tb["deal_ids"])),
                         ", ".join(f"seat {f['seat']} {f['status']}" for f in tb["faults"])])
    echo(_render(["board", "room", "by side", "of it: close-out", "by entrant (board)", "margin", "deal ids", "faults"],
                 rows, [True, False, True, True, True, True, False, False]))
    echo("by side: each side's result in the room (where each plays alone, a side is a seat), its deals' nets plus the close-out (what the board's end "
         "settles, as the game's rules say); by entrant: over the board's rooms; margin: two sides of partners, over the other.")


def _matches(ms: list[dict], bot: str | None) -> None:
    """Matches of k entrants: who, boards done, each entrant's margin and W-D-L (with --bot, that
    bot's W-D-L against the others at its table and its margin)."""
    own = bot is not None and bool(ms)
    who = ms[0]["bot"]["name"] if own else None
    echo(_render(
        ["#", "entrants", "boards", *([f"W-D-L ({who})", f"margin {who}"] if own else ["margin", "W-D-L"]), "faults"],
        [[m["match_no"], " v ".join(m["entrants"]), f"{m['boards_done']}/{m['boards']}",
          *(["{wins}-{draws}-{losses}".format(**m["bot"]), f"{m['bot']['margin']:+d}" if m["boards_done"] else "–"]
            if own else [" ".join(f"{r:+d}" for r in m["margins"]) if m["boards_done"] else "–",
                         " ".join(f"{w}-{d}-{x}" for w, d, x in zip(m["wins"], m["draws"], m["losses"]))]), m["faults"]]
         for m in ms],
        [True, False, True, True, True, True],
    ))


LOG_LINES = 10
"""Lines of a faulting bot's stderr `matches --logs` shows, its first and its last (the database
keeps more of it); a stderr of up to twice as many lines is shown whole."""


@app.command("export")
def export_cmd(
    name: NameArg = None,
    format: Annotated[str, typer.Option("--format", help="csv (one row per table, the default) or json (everything).")] = "csv",
    output: Annotated[Path | None, typer.Option(help="Write to this file (default: standard output).")] = None,
    db: DbOption = None,
) -> None:
    """Export a tournament: csv (one row per table) or json (settings, standings, every deal).

    Written as it is read, so memory stays flat however many boards.

    Example: arena export spring-cup --format csv --output results/spring-cup.csv
    """
    from arena.results import export, read

    if format not in ("csv", "json"):
        raise ArenaError(f"unknown export format '{format}' (known: csv, json)")
    write = export.write_csv if format == "csv" else export.write_json
    with _open(db, readonly=True) as d:
        t = read.get_tournament(d, name)
        if output is None:
            out = _Visible(sys.stdout) if sys.stdout.isatty() else sys.stdout
            write(d, t["id"], out)
            sys.stdout.flush()
            return
        output.parent.mkdir(parents=True, exist_ok=True)
        tmp = output.with_name(f".{output.name}.part")
        with open(tmp, "w", encoding="utf-8", newline="") as f:
            write(d, t["id"], f)
        tmp.replace(output)
    echo(f"wrote {output}", err=True)


class _Visible:
    """A terminal as the export's file: bot text with its control characters made visible."""

    def __init__(self, out: Any) -> None:
        self.out = out

    def write(self, text: str) -> int:
        return self.out.write(visible(text, newlines=True))
