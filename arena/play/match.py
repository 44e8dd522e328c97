"""Duplicate matches among bots and the conformance check behind `arena bot check`.

A duplicate match plays each board at as many tables (rooms) as the game has sides, so luck of
the cards cancels out: k entrants, one per side (`play_group`), room r rotating them by r sides,
so each entrant holds each side's cards once. One result for every match (`MatchResult`), told
by `format_group`; `play_match` plays one of two entrants (entrant 0 holds side 0 at the first
table, side 1 at the second). Each table has its own processes. No database is needed; the CLI
only prints what comes back.
"""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import statistics
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import games
from arena.play import seeds
from arena.errors import visible
from arena.play.room import GamePlan, RoomPlan
from arena.play.stats import t975
from arena.play.table import FixedDeals, TableResult, TimeControl, play_table
from arena.process.command import BotCommand, Limits, limit_met
from arena.process.modes import label, resolve_mode

RANDOM_BOT = games.RANDOM_BOT
"""The arena's random bot, which plays any game: what `arena bot check` seats beside the bot checked."""


def random_bot(game: games.Game) -> Path:
    """The bot `arena bot check` seats beside a bot of `game`: the arena's random bot."""
    return RANDOM_BOT


def table_bot_seed(seed: int, board: int, table: int) -> int:
    """The bot seed of one table of a match, keyed by the match seed (arena.play.seeds): the
    bots' `hello` seeds do not lead back to it or to the deals."""
    return seeds.table_seed(seeds.bot_key(seed), board, table)


@contextmanager
def private_copy(cmd: BotCommand) -> Iterator[BotCommand]:
    """The bot run from a temp folder of its own, as a tournament runs it from its stored copy:
    there its command's files from its folder (its script or program) are copied, and nothing
    else, so that it cannot read a bot lying beside it. The folder is open to the sandbox's user;
    each copy keeps its own permission bits. A bot of several files: register its folder."""
    folder = Path(tempfile.mkdtemp(prefix="zwicker-bot-copy-"))
    try:
        folder.chmod(0o755)
        argv = list(cmd.argv)
        own = cmd.workdir.resolve()
        if cmd.whole:  # a registered bot's stored folder, or a folder given as the bot: all of it
            (folder / "copy").mkdir(mode=0o755)  # (play sits below results: a copy of its own, links kept as links)
            copy = Path(shutil.copytree(own, folder / "copy" / own.name, symlinks=True))
            moved = [str(copy / Path(arg).relative_to(own)) if Path(arg).is_absolute() and Path(arg).is_relative_to(own)
                     else arg for arg in argv]
            yield dataclasses.replace(cmd, argv=tuple(moved), workdir=copy)
            return
        for k, arg in enumerate(argv):
            path = Path(arg).expanduser()
            named = k > 0 or cmd.kind == "exec"  # an interpreter or a command's program is no bot file
            if not named or own == Path("/") or not path.is_file() or not path.resolve().is_relative_to(own):
                continue
            copy = folder / path.resolve().relative_to(own)
            copy.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, copy)
            copy.chmod(path.stat().st_mode & 0o777)
            argv[k] = str(copy)
        for sub in (p for p in folder.rglob("*") if p.is_dir()):
            sub.chmod(0o755)
        yield dataclasses.replace(cmd, argv=tuple(argv), workdir=folder)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def board_deal(seed: int, board: int, players: int) -> tuple[int, int]:
    """Board k's deal: seed seeds.board_seed(master_seed, k), dealer k mod players."""
    return seeds.board_seed(seed, board), board % players


def _rules(variant: games.Variant | str | dict[str, Any] | None,
           game: games.Game | str | None) -> tuple[games.Game, games.Variant]:
    """The game and its variant (None: the game's own default)."""
    g = game if game is not None and not isinstance(game, str) else games.game(game)
    return g, g.variant(variant) if variant is None or isinstance(variant, (str, dict)) else variant


def _match_seed(boards: int, seed: int | None) -> int:
    """A match's master seed, checked (a random one when none is given; a small one warned of),
    and its board count checked."""
    if boards < 1:
        raise ValueError(f"boards must be at least 1, got {boards}")
    if seed is None:
        return seeds.draw_master_seed()
    if not 0 <= seed < 2**64:
        raise ValueError(f"seed must be 0 <= seed < 2**64, got {seed}")
    if (warning := seeds.guessable_warning(seed)) is not None:
        print(warning, file=sys.stderr)
    return seed


async def play_match(bot_a: BotCommand, bot_b: BotCommand, *, boards: int = 8, seed: int | None = None,
                     variant: games.Variant | str | dict[str, Any] | None = None,
                     time_control: TimeControl = TimeControl(), sandbox: str = "none",
                     limits: Limits | None = None,
                     match_id: str = "", on_board: Callable[[BoardResult], None] | None = None,
                     game: games.Game | str | None = None) -> MatchResult:
    """Play `boards` boards of a duplicate match between two BotCommands, entrants 0 and 1: the
    match of two entrants that `play_group` plays (room 0: entrant 0 holds side 0, room 1: side
    1), refused for a variant of other than two sides. Without a `seed` one is drawn at random
    (and kept in the result); a small one is warned of. Each bot runs from a private copy of its
    files (`private_copy`)."""
    g, v = _rules(variant, game)
    if g.layout(v).num_sides != 2:
        raise ValueError(f"a match needs a variant with two sides; {v} has {g.layout(v).num_sides}")
    return await play_group([bot_a, bot_b], boards=boards, seed=seed, variant=v, time_control=time_control,
                            sandbox=sandbox, limits=limits, match_id=match_id, game=g, on_board=on_board)


# --- k entrants: one side each, rotated over k rooms ------------------------------------------


def rotation(entrants: int, room: int) -> list[int]:
    """Room `room`'s entrant per side: side s holds entrant (s - room) mod k, so that over k rooms
    each entrant holds each side's cards once (room 0 seats them in the order given)."""
    return [(s - room) % entrants for s in range(entrants)]


def table_plan(g: games.Game, v: games.Variant, seed: int, dealer: int) -> FixedDeals | GamePlan:
    """A board as one table plays it: a single seeded deal where the game's first format is
    "deal" (Zwicker), else one board of that format to its end (Zwicken: a session of attempts)."""
    fmt = g.info.formats[0]
    return FixedDeals([(seed, dealer)]) if fmt == "deal" else GamePlan(v, seed, dealer, fmt, g)


def board_plan(g: games.Game, v: games.Variant, seed: int, dealer: int, name: str) -> Any:
    """`table_plan` as the table is given it: a board of several deals inside a RoomPlan, whose
    deals then name their board (`name`) as a tournament room's do."""
    plan = table_plan(g, v, seed, dealer)
    return plan if isinstance(plan, FixedDeals) else RoomPlan([plan], room=name, boards=[name])


def settle(table: TableResult, g: games.Game, v: games.Variant, seed: int, dealer: int) -> None:
    """A table's points as its board's result: for a board of several deals the game's own
    (Zwicken: the final balances, the pot's close-out included), not its deals' sum; a forfeit
    and a single deal stay as the table gave them."""
    plan = table_plan(g, v, seed, dealer)
    if table.ok and isinstance(plan, GamePlan):
        table.points = list(plan.result(table.finals).sides)


@dataclass
class BoardResult:
    """One board of a match: its deal, its table in each room and each entrant's result."""

    number: int
    seed: int
    dealer: int
    tables: list[TableResult]  # per room: room r seats the entrants by rotation(k, r)
    results: list[int]  # per entrant, summed over the rooms: what it scored with each side's cards

    def to_dict(self) -> dict[str, Any]:
        return {"number": self.number, "seed": self.seed, "dealer": self.dealer, "results": self.results,
                "tables": [t.to_dict() for t in self.tables]}


@dataclass
class MatchResult:
    """A match as `play_group` (and `play_match`, two entrants) plays it: k entrants, each
    board played in k rooms."""

    bots: list[str]  # how each entrant was given
    names: list[str]  # as the bots named themselves
    variant: dict[str, Any]
    seed: int
    game: str
    boards: list[BoardResult] = field(default_factory=list)

    @property
    def totals(self) -> list[int]:
        return [sum(b.results[e] for b in self.boards) for e in range(len(self.bots))]

    @property
    def forfeits(self) -> list[dict[str, Any]]:
        """Every forfeited table, with the entrant (0-based) whose seat faulted."""
        k = len(self.bots)
        out = []
        for board in self.boards:
            for r, table in enumerate(board.tables):
                if table.forfeit is not None:
                    entrant = rotation(k, r)[table.forfeit["side"]]
                    out.append({"board": board.number, "room": r, "entrant": entrant, **table.forfeit})
        return out

    def pairwise(self) -> list[list[tuple[int, int, int]]]:
        """[e][f]: entrant e's boards won, drawn and lost against f, by the sign of their board
        results (each summed over the rooms)."""
        k = len(self.bots)
        table = [[(0, 0, 0)] * k for _ in range(k)]
        for e in range(k):
            for f in range(k):
                d = [b.results[e] - b.results[f] for b in self.boards]
                table[e][f] = (sum(x > 0 for x in d), sum(x == 0 for x in d), sum(x < 0 for x in d))
        return table

    def to_dict(self) -> dict[str, Any]:
        return {"bots": self.bots, "names": self.names, "game": self.game, "variant": self.variant,
                "seed": self.seed, "totals": self.totals, "forfeits": self.forfeits,
                "pairwise": [[list(c) for c in row] for row in self.pairwise()],
                "boards": [b.to_dict() for b in self.boards]}


async def play_group(bots: Sequence[BotCommand], *, boards: int = 8, seed: int | None = None,
                     variant: games.Variant | str | dict[str, Any] | None = None,
                     time_control: TimeControl = TimeControl(), sandbox: str = "none",
                     limits: Limits | None = None, match_id: str = "",
                     on_board: Callable[[BoardResult], None] | None = None,
                     game: games.Game | str | None = None) -> MatchResult:
    """Play `boards` boards of a duplicate match among k entrants, one per side of the table,
    in k rooms (`rotation`); the same board seeds in every room. Each entrant's board result is
    the sum over the rooms of what the side it held scored; a table's fault forfeits that table
    as the game's rules say (`game.forfeit`). Each bot runs from a private copy of its files."""
    g, v = _rules(variant, game)
    layout = g.layout(v)
    k = layout.num_sides
    if len(bots) != k:
        raise ValueError(f"{v} has {k} sides: a match needs {k} entrants, got {len(bots)}")
    seed = _match_seed(boards, seed)
    match_id = match_id or "play"  # never the seed: the bots see it
    result = MatchResult(bots=[str(b) for b in bots], names=[""] * k, variant=v.to_dict(), seed=seed,
                         game=g.info.name)
    with ExitStack() as copies:
        own: dict[int, BotCommand] = {}  # one private copy per distinct command (round-robin fills repeat one)
        for bot in bots:
            own.setdefault(id(bot), copies.enter_context(private_copy(bot)))
        entrants = [own[id(bot)] for bot in bots]
        for b in range(boards):
            deal_seed, dealer = board_deal(seed, b, v.players)
            tables = []
            for r in range(k):
                holder = rotation(k, r)
                seats = [entrants[holder[layout.side_of(s)]] for s in range(layout.players)]
                name = f"b{b}t{r}"
                tables.append(await play_table(
                    seats, variant=v, plan=board_plan(g, v, deal_seed, dealer, name), time_control=time_control,
                    sandbox=sandbox, limits=limits, match_id=match_id, table_id=name,
                    bot_seed=table_bot_seed(seed, b, r), game=g))
            for table in tables:
                settle(table, g, v, deal_seed, dealer)
            results = [0] * k
            for r, table in enumerate(tables):
                for side, entrant in enumerate(rotation(k, r)):
                    results[entrant] += table.points[side]
                    if not result.names[entrant]:
                        result.names[entrant] = table.seats[layout.sides[side][0]].name
            board = BoardResult(b, deal_seed, dealer, tables, results)
            result.boards.append(board)
            if on_board is not None:
                on_board(board)
    return result


def mean_interval(values: Sequence[float]) -> tuple[float, float | None]:
    """The mean and the half-width of its 95% interval (Student's t; None for one value)."""
    n = len(values)
    mean = sum(values) / n
    if n < 2:
        return mean, None
    sd = (sum((x - mean) ** 2 for x in values) / (n - 1)) ** 0.5
    return mean, t975(n - 1) * sd / n**0.5


def format_group(result: MatchResult) -> str:
    """The match as plain text: the entrants, each board's results, then per entrant its result
    per board with a 95% interval, its faults, and its boards won-drawn-lost against each other."""
    g = games.game(result.game)
    unit = g.info.unit
    k = len(result.bots)
    names = [visible(n) if n else "?" for n in result.names]  # a bot's own words: no line of theirs
    lines = [f"{e + 1} = {names[e]} ({result.bots[e]})" for e in range(k)]
    lines += [f"game {result.game}, variant {g.variant(result.variant)}, seed {result.seed}, "
              f"{len(result.boards)} boards, {k} rooms each", ""]
    lines.append(f"{'board':>5} {'dealer':>6} {'deals':>5} " + " ".join(f"{e + 1:>6}" for e in range(k)))
    for board in result.boards:
        deals = sum(len(t.deals) for t in board.tables)
        lines.append(f"{board.number:>5} {board.dealer:>6} {deals:>5} "
                     + " ".join(f"{x:>+6}" for x in board.results)
                     + ("  forfeit" if not all(t.ok for t in board.tables) else ""))
    lines.append(f"{'total':>5} {'':>6} {'':>5} " + " ".join(f"{x:>+6}" for x in result.totals))
    faults = [0] * k
    for f in result.forfeits:
        faults[f["entrant"]] += 1
    lines += ["", f"{'entrant':<24} {unit + ' per board':>16} {'95% interval':>18} {'faults':>6}"]
    for e in range(k):
        mean, half = mean_interval([b.results[e] for b in result.boards])
        interval = "(one board)" if half is None else f"{mean - half:+.1f} .. {mean + half:+.1f}"
        lines.append(f"{f'{e + 1} {names[e]}'[:24]:<24} {mean:>+16.1f} {interval:>18} {faults[e]:>6}")
    lines += ["", "boards won-drawn-lost against each other entrant (row against column):",
              f"{'':>7}" + "".join(f"{f + 1:>10}" for f in range(k))]
    pairs = result.pairwise()
    for e in range(k):
        lines.append(f"{e + 1:>7}" + "".join(f"{'-' if f == e else '-'.join(map(str, pairs[e][f])):>10}"
                                             for f in range(k)))
    for f in result.forfeits:
        lines.append(f"board {f['board']} room {f['room'] + 1}: entrant {f['entrant'] + 1} (seat {f['seat']}) "
                     f"{f['status']}: {visible(f['detail'])}")
        log = result.boards[f["board"]].tables[f["room"]].seats[f["seat"]].stderr.strip()
        if log:
            lines.append(f"  its stderr ends with: {visible(log.splitlines()[-1][:200])}")
    return "\n".join(lines)


# --- arena bot check -------------------------------------------------------------------------


@dataclass
class CheckResult:
    bot: str
    tables: list[TableResult]  # one per seat position of the bot under test
    positions: list[int]
    sandbox: str = "none"  # the confinement the bot was checked in
    game: str = games.DEFAULT
    unseen: list[str] = field(default_factory=list)  # files under /usr it named that its view lacks
    alone: list[str] = field(default_factory=list)  # programs it runs from outside /usr and its folder

    @property
    def conformant(self) -> bool:
        return all(t.ok for t in self.tables)

    def reply_times(self) -> list[float]:
        return [ms for t, seat in zip(self.tables, self.positions) for ms in t.move_times_ms[seat]]

    def to_dict(self) -> dict[str, Any]:
        times = self.reply_times()
        return {"bot": self.bot, "game": self.game, "conformant": self.conformant, "sandbox": self.sandbox,
                "reply_ms": {"median": statistics.median(times) if times else None,
                             "max": max(times) if times else None, "count": len(times)},
                "tables": [{"seat": seat, **t.to_dict()} for t, seat in zip(self.tables, self.positions)]}


async def check_bot(bot: BotCommand, *, deals: int = 2, seed: int = 0,
                    variant: games.Variant | str | dict[str, Any] | None = None,
                    time_control: TimeControl = TimeControl(), sandbox: str = "none",
                    limits: Limits | None = None, game: games.Game | str | None = None) -> CheckResult:
    """Play `deals` seeded deals with the bot in each seat in turn, random bots in the others,
    each from a private copy."""
    g, v = _rules(variant, game)
    if deals < 1:
        raise ValueError(f"deals must be at least 1, got {deals}")
    plan = FixedDeals([board_deal(seed, k, v.players) for k in range(deals)])
    sandbox = resolve_mode(sandbox)
    tables = []
    with private_copy(bot) as checked, private_copy(BotCommand.from_spec(str(random_bot(g)))) as others:
        for seat in range(v.players):
            seats = [checked if s == seat else others for s in range(v.players)]
            tables.append(await play_table(seats, variant=v, plan=plan, time_control=time_control,
                                           sandbox=sandbox, limits=limits, match_id="check",
                                           table_id=f"seat{seat}", bot_seed=table_bot_seed(seed, 0, seat), game=g))
    result = CheckResult(str(bot), tables, list(range(v.players)), sandbox, g.info.name)
    if not result.conformant and sandbox in ("fork", "bwrap"):
        result.unseen = _unseen(bot, tables)
        result.alone = _alone(bot)
    return result


def _alone(bot: BotCommand) -> list[str]:
    """The programs the bot's command starts that lie outside /usr and outside its folder: the
    sandbox shows each as a file of its own, without what lies beside it."""
    from arena.process import view

    if bot.kind == "python":
        return []  # (run by the sandbox's own Python)
    folder = os.path.realpath(bot.workdir)
    out = []
    for program in view.launched(bot.argv, str(bot.workdir)):
        real = os.path.realpath(shutil.which(program) or program)
        if os.path.isabs(real) and not real.startswith(("/usr/", folder + "/")) and real not in out:
            out.append(real)
    return out


def _unseen(bot: BotCommand, tables: list[TableResult]) -> list[str]:
    """The files under /usr the bot's words name that its sandbox's view lacks (process.view)."""
    from arena.process import sandbox as confinement, view

    said = "\n".join(f"{t.seats[seat].detail}\n{t.seats[seat].stderr}" for seat, t in enumerate(tables))
    programs = [shutil.which(p) or p for p in view.launched(bot.argv, str(bot.workdir))]
    shown = [*view.base(confinement.sandbox_python()), *(path for p in programs if os.path.isabs(p) for path in view.for_program(p))]
    return view.unseen(said, shown)


STDERR_HEAD, STDERR_TAIL = 6, 6


_PICKED_UP = re.compile(r"\s*((NOTE: )?Picked up [A-Z_]+_OPTIONS: |Note: (Some input files|\S+\.java) use|"
                        r"Note: Recompile with -Xlint)")
"""What a runtime says of itself at start, never why a bot failed: the JVM's note of the options it
picked up from the environment, javac's notes of unchecked code (`java Bot.java` compiles first)."""


def stderr_cause(stderr: str) -> str:
    """The line of a failed bot's stderr most likely to say why: a trace's last "Caused by:",
    else, where the last line is a JVM's stack frame, its first exception line (a Tcl trace's:
    the line before "while executing"), else the last
    (never a runtime's notes of itself, `_PICKED_UP`)."""
    lines = [line.strip() for line in stderr.strip().splitlines() if line.strip() and not _PICKED_UP.match(line)]
    if not lines:
        return ""
    caused = [line for line in lines if line.startswith("Caused by:")]
    if caused:
        return caused[-1]
    if "while executing" in lines[1:]:  # a Tcl trace: its message, then where
        return lines[lines.index("while executing") - 1]
    if lines[-1].startswith("at ") or lines[-1].startswith("..."):
        return next((line for line in lines if "Exception" in line or "Error" in line), lines[-1])
    return lines[-1]


def stderr_excerpt(stderr: str) -> list[str]:
    """A failed bot's stderr as `bot check` shows it: all of it if short, else its first lines
    (where a trace says why: a JVM's "Exception in thread ...") and its last, and the last
    "Caused by:" line between them."""
    lines = stderr.strip().splitlines()
    if len(lines) <= STDERR_HEAD + STDERR_TAIL + 1:
        return ["  its stderr:", *("    " + visible(line.expandtabs(4)) for line in lines)]
    middle = lines[STDERR_HEAD:-STDERR_TAIL]
    cause = [line for line in middle if line.lstrip().startswith("Caused by:")][-1:]
    shown = lambda part: ["    " + visible(line.expandtabs(4)) for line in part]  # noqa: E731
    return ["  its stderr begins with:", *shown(lines[:STDERR_HEAD]),
            f"    ... ({len(middle)} lines" + (", of which the last cause:" if cause else "") + ")", *shown(cause),
            "  and ends with:", *shown(lines[-STDERR_TAIL:])]


def format_check(check: CheckResult) -> str:
    """What `arena bot check` prints: in plain words, what works and exactly what went wrong."""
    lines = [f"checking {check.bot} (sandbox {label(check.sandbox)})"]
    for table, seat in zip(check.tables, check.positions):
        s = table.seats[seat]
        where = f"seat {seat}:"
        if s.handshake_ms is None:
            lines.append(f"{where} no handshake: {s.status}: {visible(s.detail)}")
        else:
            lines.append(f"{where} handshake ok in {s.handshake_ms:.0f} ms as {s.name!r} version {s.version!r}; "
                         f"{s.moves} legal replies")
        if table.forfeit is not None and table.forfeit["seat"] == seat and s.handshake_ms is not None:
            lines.append(f"  FAULT {s.status}: {visible(s.detail)}")
        elif table.forfeit is not None and table.forfeit["seat"] != seat:
            f = table.forfeit
            lines.append(f"  (a random bot at seat {f['seat']} failed: {f['status']}: {visible(f['detail'])})")
        if table.forfeit is not None and table.forfeit["seat"] == seat and s.stderr.strip():
            lines.extend(stderr_excerpt(s.stderr))
    times = check.reply_times()
    if times:
        lines.append(f"reply times: median {statistics.median(times):.2f} ms, max {max(times):.2f} ms "
                     f"over {len(times)} moves")
    first = next(((t, seat) for t, seat in zip(check.tables, check.positions)
                  if t.forfeit is not None and t.forfeit["seat"] == seat), None)
    if first is not None:  # the one line that says it, whatever the seats above say
        table, seat = first
        s = table.seats[seat]
        why = stderr_cause(s.stderr)
        lines.append(f"fails as a {check.game} bot at seat {seat}: {s.status}: {visible(s.detail)}"
                     + (f"; its stderr says: {visible(why[:200])}" if why else ""))
        said = [f"{t.seats[p].detail}\n{t.seats[p].stderr}" for t, p in zip(check.tables, check.positions)]
        if hint := limit_met("\n".join(said)):
            lines.append(f"limit: {hint}")
        if check.unseen:
            from arena.process.view import EXTRA_VAR

            lines.append(f"outside the sandbox's view of /usr: {', '.join(check.unseen[:3])} (on this machine, not "
                         f"shown to bots): the organiser adds it with {EXTRA_VAR}={':'.join(check.unseen)}")
        if check.alone:
            lines.append(f"outside /usr and the bot's folder: {', '.join(check.alone)}: the sandbox shows the bot "
                         "each such program as a file of its own, not what lies beside it (a runtime's home, its "
                         "libraries, files it reads): install it under /usr, or carry it in the bot's folder")
    lines.append("conformant: the bot speaks protocol version 1" if check.conformant
                 else "NOT conformant: see the fault above")
    return "\n".join(lines)
